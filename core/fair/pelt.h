// SPDX-License-Identifier: GPL-2.0-or-later
// Per-Entity Load Tracking (kernel-model.md §6.6): geometric series over 1024 µs periods with
// y^32 = 1/2, in the kernel's integer form (runnable_avg_yN_inv table, LOAD_AVG_MAX = 47742).
//
// Units: times are ns; the sums count 1024 ns "µs" (the kernel's delta >>= 10), a period is 1024
// of those. load_sum accumulates `load` × µs (0/1 for an entity, ŵ of the cfs_rq for a cfs_rq),
// runnable_sum and util_sum accumulate µs << SCHED_CAPACITY_SHIFT (× the runnable count).
// Invariant: with constant inputs a sum stays below (its per-µs increment) × LOAD_AVG_MAX.
#pragma once

#include "core/fair/weights.h"

#include <array>
#include <cstdint>

namespace schedlab {

constexpr uint32_t kLoadAvgMax = 47742;
constexpr uint32_t kPeltMinDivider = kLoadAvgMax - 1024; ///< PELT_MIN_DIVIDER
constexpr int kLoadAvgPeriod = 32;
constexpr int64_t kPeltPeriodNs = 1024 * 1024; ///< 1024 µs of 1024 ns "µs" (the kernel's >>10)
constexpr int kSchedCapacityShift = 10;        ///< SCHED_CAPACITY_SHIFT (util/runnable scale 1024)

/// runnable_avg_yN_inv[n] = floor((2^32 − 1) · y^n), y = 2^(−1/32), n < 32 (kernel data).
extern const std::array<uint32_t, kLoadAvgPeriod> kRunnableAvgYNInv;

struct PeltAvg
{
    uint64_t lastUpdateTime = 0; ///< ns, multiple of 1024 ns units as the kernel keeps it
    uint64_t loadSum = 0;
    uint64_t runnableSum = 0;
    uint32_t utilSum = 0;
    uint32_t periodContrib = 0; ///< µs accumulated in the current, incomplete period
    uint64_t loadAvg = 0;
    uint64_t runnableAvg = 0;
    uint64_t utilAvg = 0;
    /// util_est (§6.8): a task's estimate (bit 31 UTIL_AVG_UNCHANGED), or the root cfs_rq's sum
    /// of its queued tasks' estimates.
    uint32_t utilEst = 0;
};

/// ___update_load_sum()'s first test (`delta >>= 10; if (!delta) return 0`): less than one
/// 1024 ns "µs" since @p sa's last update, nothing accrues and nothing changes. Time going
/// backwards is not "nothing": the unsigned difference is then large.
inline bool peltNothingAccrues(uint64_t now, const PeltAvg& sa)
{
    return now - sa.lastUpdateTime < 1024;
}

/// decay_load(val, n): val * y^n (exact integer form: halvings for n ≥ 32, then the table;
/// 0 once n > 63 · 32).
uint64_t peltDecayLoad(uint64_t val, uint64_t n);

/// __accumulate_pelt_segments(): contribution of an interval that crossed @p periods (≥ 1)
/// boundaries: d1 (µs finishing the old period) decayed by y^periods, the full periods in between,
/// and d3 (µs of the new, current period) undecayed.
uint32_t peltAccumulateSegments(uint64_t periods, uint32_t d1, uint32_t d3);

/// The arithmetic of ___update_load_sum(), inline for peltUpdateSumSlow(); the hot path's
/// update_load_avg() uses peltUpdateSumShared() below, which keeps the step for the next sum.
namespace pelt_detail {

// decay_load()'s factor y^n taken apart once, for as many values as need it: n > 63·32 gives 0,
// otherwise n / 32 halvings, then the table's y^(n % 32) (y^n = (1/2)^(n/32) · y^(n%32)).
struct PeltDecay
{
    explicit PeltDecay(uint64_t n)
    {
        if (n <= uint64_t{kLoadAvgPeriod} * 63) {
            shift = static_cast<unsigned>(n / kLoadAvgPeriod);
            inv = kRunnableAvgYNInv[n % kLoadAvgPeriod];
        }
    }
    /// mul_u64_u32_shr(val >> halvings, inv, 32): exact with a 128-bit product.
    uint64_t operator()(uint64_t val) const
    {
        return static_cast<uint64_t>((static_cast<UInt128>(val >> shift) * inv) >> 32);
    }
    unsigned shift = 0;
    uint32_t inv = 0; ///< 0 past 63 half-lives: everything has decayed
};

// __accumulate_pelt_segments() with the decay of its periods: c1 = d1·y^p;
// c2 = 1024·Σ_{n=1}^{p-1} y^n = LOAD_AVG_MAX − LOAD_AVG_MAX·y^p − 1024; c3 = d3.
inline uint32_t accumulateSegments(const PeltDecay& decay, uint32_t d1, uint32_t d3)
{
    const auto c1 = static_cast<uint32_t>(decay(d1));
    const auto c2 = static_cast<uint32_t>(kLoadAvgMax - decay(kLoadAvgMax) - 1024);
    return c1 + c2 + d3;
}

// accumulate_sum(): @p delta in µs (> 0); returns the number of period boundaries crossed.
inline uint64_t accumulateSum(
    uint64_t delta, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
{
    auto contrib = static_cast<uint32_t>(delta); // no boundary crossed: delta < 1024
    delta += sa.periodContrib;
    const uint64_t periods = delta / 1024;
    if (periods) {
        const PeltDecay decay(periods); // y^periods, once for the three sums and the segments
        sa.loadSum = decay(sa.loadSum);
        sa.runnableSum = decay(sa.runnableSum);
        sa.utilSum = static_cast<uint32_t>(decay(sa.utilSum));
        delta %= 1024;
        // With load == 0 nothing below uses contrib (runnable and running are 0 too).
        if (load)
            contrib =
                accumulateSegments(decay, 1024 - sa.periodContrib, static_cast<uint32_t>(delta));
    }
    sa.periodContrib = static_cast<uint32_t>(delta);
    if (load)
        sa.loadSum += load * contrib;
    if (runnable)
        sa.runnableSum += (runnable * contrib) << kSchedCapacityShift;
    if (running)
        sa.utilSum += contrib << kSchedCapacityShift;
    return periods;
}

/// ___update_load_sum() after the caller's check (peltUpdateSum()).
inline bool updateSum(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
{
    uint64_t delta = now - sa.lastUpdateTime;
    if (static_cast<int64_t>(delta) < 0) {
        // Time went backwards: resynchronise without accumulating anything.
        sa.lastUpdateTime = now;
        return false;
    }
    delta >>= 10; // 1024 ns "µs"
    if (!delta)
        return false;
    sa.lastUpdateTime += delta << 10;
    // running ⊆ runnable ⊆ load: an entity without load accrues nothing.
    if (!load) {
        runnable = 0;
        running = false;
    }
    return accumulateSum(delta, sa, load, runnable, running) != 0;
}

} // namespace pelt_detail

/// One ___update_load_sum() step, kept for the next sum that starts where this one started:
/// the same last_update_time and period_contrib advanced to the same now cross the same µs and
/// periods, so they share the decay factor y^periods and the segments' contribution
/// (__accumulate_pelt_segments()). An entity and its cfs_rq updated together keep the same
/// last_update_time (attach aligns them), and the group levels of a tick all start from the
/// previous tick: one computation serves them all.
struct PeltStep
{
    uint64_t from = 0;               ///< the sum's last_update_time before the step
    uint64_t now = 0;                ///< the PELT clock of the step
    uint32_t fromContrib = ~0u;      ///< its period_contrib before (never < 1024: no match yet)
    uint32_t toContrib = 0;          ///< period_contrib after
    uint32_t contrib = 0;            ///< µs credited to a sum with load (c1 + c2 + c3, or delta)
    bool crossed = false;            ///< at least one period boundary crossed
    uint64_t to = 0;                 ///< last_update_time after
    pelt_detail::PeltDecay decay{0}; ///< y^periods, if crossed
};

/// peltUpdateSum() inline, with the step's arithmetic taken from (or left in) @p step.
__attribute__((always_inline)) inline bool peltUpdateSumShared(
    uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running, PeltStep& step)
{
    if (peltNothingAccrues(now, sa))
        return false;
    if (sa.lastUpdateTime != step.from || now != step.now || sa.periodContrib != step.fromContrib) {
        const uint64_t elapsed = now - sa.lastUpdateTime;
        if (static_cast<int64_t>(elapsed) < 0) {
            // Time went backwards: resynchronise without accumulating anything.
            sa.lastUpdateTime = now;
            return false;
        }
        const uint64_t delta = elapsed >> 10; // 1024 ns "µs", ≥ 1 here
        step.from = sa.lastUpdateTime;
        step.now = now;
        step.fromContrib = sa.periodContrib;
        step.to = sa.lastUpdateTime + (delta << 10);
        uint64_t pos = delta + sa.periodContrib;
        const uint64_t periods = pos / 1024;
        step.crossed = periods != 0;
        if (periods) {
            step.decay = pelt_detail::PeltDecay(periods);
            pos %= 1024;
            step.contrib = pelt_detail::accumulateSegments(
                step.decay, 1024 - sa.periodContrib, static_cast<uint32_t>(pos));
        } else {
            step.contrib = static_cast<uint32_t>(delta);
        }
        step.toContrib = static_cast<uint32_t>(pos);
    }
    sa.lastUpdateTime = step.to;
    if (step.crossed) {
        sa.loadSum = step.decay(sa.loadSum);
        sa.runnableSum = step.decay(sa.runnableSum);
        sa.utilSum = static_cast<uint32_t>(step.decay(sa.utilSum));
    }
    sa.periodContrib = step.toContrib;
    // running ⊆ runnable ⊆ load: an entity without load accrues nothing.
    if (load) {
        const uint32_t contrib = step.contrib;
        sa.loadSum += load * contrib;
        if (runnable)
            sa.runnableSum += (runnable * contrib) << kSchedCapacityShift;
        if (running)
            sa.utilSum += contrib << kSchedCapacityShift;
    }
    return step.crossed;
}

/// ___update_load_sum(): advances @p sa to @p now (ns). @p load, @p runnable, @p running are the
/// state held during the elapsed interval (load/runnable as 0/1 or a count for cfs_rq's).
/// Returns true when at least one 1024 µs period boundary was crossed.
bool peltUpdateSumSlow(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running);
inline bool peltUpdateSum(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
{
    // The common case within one event; time going backwards takes the slow path.
    if (peltNothingAccrues(now, sa))
        return false;
    return peltUpdateSumSlow(now, sa, load, runnable, running);
}
/// ___update_load_avg(): averages from the sums; @p loadWeight is ŵ (unscaled) for entities,
/// 1 for cfs_rq's whose load sums already carry weights.
/// get_pelt_divider()
inline uint32_t peltDivider(const PeltAvg& sa)
{
    return kPeltMinDivider + sa.periodContrib;
}
inline void peltUpdateAvg(PeltAvg& sa, uint64_t loadWeight)
{
    const uint32_t divider = peltDivider(sa);
    sa.loadAvg = loadWeight * sa.loadSum / divider;
    sa.runnableAvg = sa.runnableSum / divider;
    sa.utilAvg = sa.utilSum / divider;
}
/// reweight_entity()'s load-average part: the entity's load_avg is recomputed from its unweighted
/// load_sum with the new weight, and its queue's sums trade the old contribution for the new one
/// (dequeue_load_avg(), enqueue_load_avg()). Weights unscaled (se_weight()).
void peltReweight(PeltAvg& queue, PeltAvg& se, uint64_t oldWeight, uint64_t newWeight);

} // namespace schedlab
