// SPDX-License-Identifier: GPL-2.0-or-later
#include "prng.h"

namespace schedlab {

namespace {
constexpr uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}
} // namespace

uint64_t Prng::splitmix64(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Prng::Prng(uint64_t seed)
{
    uint64_t state = seed;
    for (auto& word : m_s)
        word = splitmix64(state);
}

uint64_t Prng::next()
{
    const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
}

uint64_t Prng::below(uint64_t bound)
{
    if (bound <= 1)
        return 0;
    // Reject the top partial bucket: threshold = 2^64 mod bound.
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        const uint64_t r = next();
        if (r >= threshold)
            return r % bound;
    }
}

int64_t Prng::uniform(int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span == UINT64_MAX)
        return static_cast<int64_t>(next());
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span + 1));
}

} // namespace schedlab
