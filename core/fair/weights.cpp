// SPDX-License-Identifier: GPL-2.0-or-later
#include "weights.h"

namespace schedlab {

// kernel-model.md §2.1 (sched_prio_to_weight / sched_prio_to_wmult, nice -20 … 19).
const std::array<uint32_t, 40> kPrioToWeight{88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705,
    14949, 11916, 9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526,
    423, 335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15};

const std::array<uint32_t, 40> kPrioToWmult{48388, 59856, 76040, 92818, 118348, 147320, 184698,
    229616, 287308, 360437, 449829, 563644, 704093, 875809, 1099582, 1376151, 1717300, 2157191,
    2708050, 3363326, 4194304, 5237765, 6557202, 8165337, 10153587, 12820798, 15790321, 19976592,
    24970740, 31350126, 39045157, 49367440, 61356676, 76695844, 95443717, 119304647, 148102320,
    186737708, 238609294, 286331153};

LoadWeight taskLoadWeight(int nice, bool idlePolicy)
{
    if (idlePolicy)
        return {scaleLoad(kWeightIdlePrio), kWmultIdlePrio};
    const auto idx = static_cast<size_t>(nice + 20);
    return {scaleLoad(kPrioToWeight[idx]), kPrioToWmult[idx]};
}

uint64_t calcDeltaExact(uint64_t delta, uint64_t weight, uint64_t lwWeight)
{
    if (!lwWeight)
        return delta;
    // 64-bit when the product fits (a tick's delta times a weight does): the same quotient
    // without the 128-bit division.
    uint64_t product = 0;
    if (!__builtin_mul_overflow(delta, weight, &product))
        return product / lwWeight;
    return static_cast<uint64_t>(static_cast<UInt128>(delta) * weight / lwWeight);
}

uint64_t calcDeltaFair(uint64_t delta, LoadWeight& lw, WeightPrecision precision)
{
    if (lw.weight == kNice0Load)
        return delta;
    if (precision == WeightPrecision::Full)
        return calcDeltaExact(delta, kNice0Load, lw.weight);
    return calcDeltaFixed(delta, kNice0Load, lw);
}

} // namespace schedlab
