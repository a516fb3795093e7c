// SPDX-License-Identifier: GPL-2.0-or-later
// Fixed-point load weights (kernel-model.md §2.1, §2.2). 64-bit kernel: NICE_0_LOAD = 1 << 20.
// "scaled" weights carry SCHED_FIXEDPOINT_SHIFT extra bits; ŵ = scaleLoadDown(w).
#pragma once

#include "core/kernel/profile.h"

#include <array>
#include <bit>
#include <cstdint>

namespace schedlab {

__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

constexpr int kSchedFixedpointShift = 10;
constexpr uint64_t kNice0Load = uint64_t{1} << 20; ///< scaled weight of a nice-0 task
constexpr uint64_t kWeightIdlePrio = 3;            ///< SCHED_IDLE, unscaled
constexpr uint32_t kWmultIdlePrio = 1431655765;
constexpr uint64_t kMinShares = 2; ///< used unscaled as a floor of scaled weights
constexpr uint64_t kMaxShares = uint64_t{1} << 18;
constexpr uint64_t kWmultConst = 0xffffffffULL; ///< ~0U
constexpr int kWmultShift = 32;

extern const std::array<uint32_t, 40> kPrioToWeight; ///< sched_prio_to_weight, nice -20…19
extern const std::array<uint32_t, 40> kPrioToWmult;  ///< sched_prio_to_wmult

constexpr uint64_t scaleLoad(uint64_t w)
{
    return w << kSchedFixedpointShift;
}
/// ŵ: max(2, w >> 10) for w > 0; 0 stays 0 (§2.1).
constexpr uint64_t scaleLoadDown(uint64_t w)
{
    if (!w)
        return 0;
    const uint64_t down = w >> kSchedFixedpointShift;
    return down < 2 ? 2 : down;
}

/// struct load_weight: the weight and its lazily computed 2^32 inverse (0 = not computed).
struct LoadWeight
{
    uint64_t weight = kNice0Load;
    uint32_t invWeight = 0;
    friend bool operator==(const LoadWeight&, const LoadWeight&) = default;
};

/// Task load for a nice level; @p idlePolicy selects WEIGHT_IDLEPRIO (SCHED_IDLE).
LoadWeight taskLoadWeight(int nice, bool idlePolicy = false);
/// update_load_set(): a new weight invalidates the inverse.
inline LoadWeight loadWeightOf(uint64_t weight)
{
    return LoadWeight{weight, 0};
}

namespace weights_detail {

// __update_inv_weight(): §2.2 step 1.
inline void updateInvWeight(LoadWeight& lw)
{
    if (lw.invWeight)
        return;
    const uint64_t w = scaleLoadDown(lw.weight);
    if (w >= kWmultConst)
        lw.invWeight = 1;
    else if (!w)
        lw.invWeight = static_cast<uint32_t>(kWmultConst);
    else
        lw.invWeight = static_cast<uint32_t>(kWmultConst / w);
}

// Normalisation of §2.2 steps 3 and 5: keep fact within 32 bits by reducing the shift.
inline void normalise(uint64_t& fact, int& shift)
{
    if (fact >> 32) {
        const int fs = static_cast<int>(std::bit_width(fact >> 32));
        shift -= fs;
        fact >>= fs;
    }
}

} // namespace weights_detail

/// __calc_delta() ≤7.0: delta * weight / lw.weight with the 32-bit inverse and normalisation
/// shifts (§2.2 steps 1–6). Computes lw.invWeight on first use, as __update_inv_weight() does.
/// Inline: calcDeltaFair() and calcDeltaFairInline() expand it.
inline uint64_t calcDeltaFixed(uint64_t delta, uint64_t weight, LoadWeight& lw)
{
    weights_detail::updateInvWeight(lw);
    uint64_t fact = scaleLoadDown(weight);
    int shift = kWmultShift;
    weights_detail::normalise(fact, shift);
    fact = fact * lw.invWeight; // fits: fact < 2^32 and inv < 2^32
    weights_detail::normalise(fact, shift);
    return static_cast<uint64_t>((static_cast<UInt128>(delta) * fact) >> shift);
}
/// __calc_delta() 7.1+ on 64-bit: exact floor(delta * weight / lw.weight) (db4551e2ba34).
uint64_t calcDeltaExact(uint64_t delta, uint64_t weight, uint64_t lwWeight);
/// calc_delta_fair(): delta unchanged for a nice-0 entity, else delta * NICE_0_LOAD / w (§2.2).
uint64_t calcDeltaFair(uint64_t delta, LoadWeight& lw, WeightPrecision precision);
/// calcDeltaFair() inline (a nice-0 entity, ≤7.0's fixed-point path, 7.1+'s exact quotient
/// when delta · NICE_0_LOAD fits in 64 bits): for update_curr() and update_deadline(), two calls
/// per tick. The same integers; the 128-bit product is the call's.
__attribute__((always_inline)) inline uint64_t calcDeltaFairInline(
    uint64_t delta, LoadWeight& lw, WeightPrecision precision)
{
    if (lw.weight == kNice0Load)
        return delta;
    if (precision != WeightPrecision::Full)
        return calcDeltaFixed(delta, kNice0Load, lw);
    uint64_t product = 0;
    if (lw.weight != 0 && !__builtin_mul_overflow(delta, kNice0Load, &product))
        return product / lw.weight;
    return calcDeltaFair(delta, lw, precision);
}

} // namespace schedlab
