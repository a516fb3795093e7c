// SPDX-License-Identifier: GPL-2.0-or-later
// Simulated time: integer nanoseconds everywhere (never floating point).
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace schedlab {

using Nanoseconds = std::chrono::nanoseconds;

constexpr Nanoseconds operator""_ns(unsigned long long v)
{
    return Nanoseconds(static_cast<int64_t>(v));
}
constexpr Nanoseconds operator""_us(unsigned long long v)
{
    return Nanoseconds(static_cast<int64_t>(v) * 1000);
}
constexpr Nanoseconds operator""_ms(unsigned long long v)
{
    return Nanoseconds(static_cast<int64_t>(v) * 1000000);
}
constexpr Nanoseconds operator""_s(unsigned long long v)
{
    return Nanoseconds(static_cast<int64_t>(v) * 1000000000);
}

/// Saturating arithmetic for sums and products that can grow (totals, durations times counts):
/// results are clamped to [INT64_MIN, INT64_MAX] instead of wrapping (signed overflow is undefined
/// behaviour). The scenario loader bounds every input (docs/limits.md), so these only saturate
/// for values the loader would reject.
constexpr int64_t saturatingAdd(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_add_overflow(a, b, &out))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return out;
}

constexpr int64_t saturatingSub(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_sub_overflow(a, b, &out))
        return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return out;
}

constexpr int64_t saturatingMul(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out))
        return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                                  : std::numeric_limits<int64_t>::max();
    return out;
}

constexpr Nanoseconds saturatingAdd(Nanoseconds a, Nanoseconds b)
{
    return Nanoseconds(saturatingAdd(a.count(), b.count()));
}

constexpr Nanoseconds saturatingSub(Nanoseconds a, Nanoseconds b)
{
    return Nanoseconds(saturatingSub(a.count(), b.count()));
}

/// A duration times a count (a period times a number of periods, a cost times a number of visits).
constexpr Nanoseconds saturatingMul(Nanoseconds d, int64_t factor)
{
    return Nanoseconds(saturatingMul(d.count(), factor));
}

/// Parses "0.7ms", "1s", "50us", "1234ns". A unit is mandatory; decimals are allowed as long as
/// the value is a whole number of nanoseconds. Negative values are rejected.
/// On failure returns nullopt and, if @p error is given, a human-readable reason.
std::optional<Nanoseconds> parseDuration(std::string_view text, std::string* error = nullptr);

/// Shortest exact unit string, the larger unit on a tie in length: 700000ns -> "0.7ms",
/// 1e9 -> "1s", 1500 -> "1.5us", 750000 -> "750us".
/// parseDuration(formatDuration(x)) == x for every x >= 0.
std::string formatDuration(Nanoseconds d);

/// Human-oriented fixed-precision rendering for tables ("12.345 ms").
std::string formatDurationHuman(Nanoseconds d);

} // namespace schedlab
