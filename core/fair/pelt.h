// SPDX-License-Identifier: GPL-2.0-or-later
// Per-Entity Load Tracking (kernel-model.md §6.6): geometric series over 1024 µs periods with
// y^32 = 1/2, in the kernel's integer form (runnable_avg_yN_inv table, LOAD_AVG_MAX = 47742).
//
// Units: times are ns; the sums count 1024 ns "µs" (the kernel's delta >>= 10), a period is 1024
// of those. load_sum accumulates `load` × µs (0/1 for an entity, ŵ of the cfs_rq for a cfs_rq),
// runnable_sum and util_sum accumulate µs << SCHED_CAPACITY_SHIFT (× the runnable count).
// Invariant: with constant inputs a sum stays below (its per-µs increment) × LOAD_AVG_MAX.
#pragma once

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

/// decay_load(val, n): val * y^n (exact integer form: halvings for n ≥ 32, then the table;
/// 0 once n > 63 · 32).
uint64_t peltDecayLoad(uint64_t val, uint64_t n);

/// __accumulate_pelt_segments(): contribution of an interval that crossed @p periods (≥ 1)
/// boundaries: d1 (µs finishing the old period) decayed by y^periods, the full periods in between,
/// and d3 (µs of the new, current period) undecayed.
uint32_t peltAccumulateSegments(uint64_t periods, uint32_t d1, uint32_t d3);

/// ___update_load_sum(): advances @p sa to @p now (ns). @p load, @p runnable, @p running are the
/// state held during the elapsed interval (load/runnable as 0/1 or a count for cfs_rq's).
/// Returns true when at least one 1024 µs period boundary was crossed.
bool peltUpdateSumSlow(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running);
inline bool peltUpdateSum(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
{
    // Less than one 1024 ns "µs" since the last update (the common case within one event):
    // nothing accrues, nothing changes. Time going backwards takes the slow path.
    if (now - sa.lastUpdateTime < 1024)
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
