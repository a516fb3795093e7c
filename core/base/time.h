// SPDX-License-Identifier: GPL-2.0-or-later
// Simulated time: integer nanoseconds everywhere (never floating point).
#pragma once

#include <chrono>
#include <cstdint>
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
