// SPDX-License-Identifier: GPL-2.0-or-later
// PELT arithmetic (kernel-model.md §6.6), following the integer rules of kernel/sched/pelt.c.
#include "pelt.h"

#include "core/fair/weights.h"

#include <algorithm>

namespace schedlab {

// Data from the kernel's generated kernel/sched/sched-pelt.h; tst_pelt checks every entry against
// floor((2^32 − 1) · 2^(−n/32)).
const std::array<uint32_t, kLoadAvgPeriod> kRunnableAvgYNInv{0xffffffff, 0xfa83b2da, 0xf5257d14,
    0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14,
    0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581, 0xad583ee9,
    0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9, 0x9837f050, 0x94f4efa8, 0x91c3d373,
    0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698};

namespace {

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
uint32_t accumulateSegments(const PeltDecay& decay, uint32_t d1, uint32_t d3)
{
    const auto c1 = static_cast<uint32_t>(decay(d1));
    const auto c2 = static_cast<uint32_t>(kLoadAvgMax - decay(kLoadAvgMax) - 1024);
    return c1 + c2 + d3;
}

} // namespace

uint64_t peltDecayLoad(uint64_t val, uint64_t n)
{
    return PeltDecay(n)(val);
}

uint32_t peltAccumulateSegments(uint64_t periods, uint32_t d1, uint32_t d3)
{
    return accumulateSegments(PeltDecay(periods), d1, d3);
}

namespace {

// accumulate_sum(): @p delta in µs (> 0); returns the number of period boundaries crossed.
uint64_t accumulateSum(uint64_t delta, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
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

} // namespace

bool peltUpdateSumSlow(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
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

void peltReweight(PeltAvg& queue, PeltAvg& se, uint64_t oldWeight, uint64_t newWeight)
{
    // §6.6: dequeue_load_avg() (sub_positive, and load_sum kept at least load_avg times the
    // smallest divider), then the new load_avg, then enqueue_load_avg().
    queue.loadAvg = queue.loadAvg > se.loadAvg ? queue.loadAvg - se.loadAvg : 0;
    const uint64_t oldSum = oldWeight * se.loadSum;
    queue.loadSum = queue.loadSum > oldSum ? queue.loadSum - oldSum : 0;
    queue.loadSum = std::max<uint64_t>(queue.loadSum, queue.loadAvg * kPeltMinDivider);
    se.loadAvg = newWeight * se.loadSum / peltDivider(se);
    queue.loadAvg += se.loadAvg;
    queue.loadSum += newWeight * se.loadSum;
}

} // namespace schedlab
