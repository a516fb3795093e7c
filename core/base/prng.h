// SPDX-License-Identifier: GPL-2.0-or-later
// Deterministic PRNG: xoshiro256** (Blackman & Vigna, 2018) seeded through splitmix64.
// Only integer operations with defined overflow, so the output is identical on every compiler and
// standard library (std::uniform_*_distribution is not: its algorithm is implementation-defined).
#pragma once

#include <array>
#include <cstdint>

namespace schedlab {

class Prng
{
public:
    explicit Prng(uint64_t seed = 0);

    uint64_t next();
    /// Uniform in [0, bound) without modulo bias (rejection sampling); bound > 0.
    uint64_t below(uint64_t bound);
    /// Uniform in [lo, hi] inclusive.
    int64_t uniform(int64_t lo, int64_t hi);

    /// splitmix64 step, exposed for seeding derived streams.
    static uint64_t splitmix64(uint64_t& state);

private:
    std::array<uint64_t, 4> m_s{};
};

} // namespace schedlab
