// SPDX-License-Identifier: GPL-2.0-or-later
// PELT arithmetic (kernel-model.md §6.6), following the integer rules of kernel/sched/pelt.c.
#include "pelt.h"

#include <algorithm>

namespace schedlab {

// Data from the kernel's generated kernel/sched/sched-pelt.h; tst_pelt checks every entry against
// floor((2^32 − 1) · 2^(−n/32)).
const std::array<uint32_t, kLoadAvgPeriod> kRunnableAvgYNInv{0xffffffff, 0xfa83b2da, 0xf5257d14,
    0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14,
    0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581, 0xad583ee9,
    0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9, 0x9837f050, 0x94f4efa8, 0x91c3d373,
    0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698};

uint64_t peltDecayLoad(uint64_t val, uint64_t n)
{
    return pelt_detail::PeltDecay(n)(val);
}

uint32_t peltAccumulateSegments(uint64_t periods, uint32_t d1, uint32_t d3)
{
    return pelt_detail::accumulateSegments(pelt_detail::PeltDecay(periods), d1, d3);
}

bool peltUpdateSumSlow(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running)
{
    return pelt_detail::updateSum(now, sa, load, runnable, running);
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
