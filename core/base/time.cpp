// SPDX-License-Identifier: GPL-2.0-or-later
#include "time.h"

#include <array>
#include <cstdio>
#include <limits>

namespace schedlab {

namespace {

struct Unit
{
    std::string_view suffix;
    int64_t ns;
    int digits; // log10(ns)
};

constexpr std::array<Unit, 4> kUnits{
    {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9}}};

bool fail(std::string* error, std::string message)
{
    if (error)
        *error = std::move(message);
    return false;
}

} // namespace

std::optional<Nanoseconds> parseDuration(std::string_view text, std::string* error)
{
    if (text.empty()) {
        fail(error, "empty duration");
        return std::nullopt;
    }
    // Find the unit suffix (longest first: "ms"/"us"/"ns" before "s").
    const Unit* unit = nullptr;
    std::string_view number;
    for (const auto* u : {&kUnits[0], &kUnits[1], &kUnits[2], &kUnits[3]}) {
        if (text.size() > u->suffix.size() && text.ends_with(u->suffix)) {
            std::string_view head = text.substr(0, text.size() - u->suffix.size());
            // "ms" must not be parsed as "m" + "s".
            if (u->suffix == "s" && !head.empty()
                && (head.back() == 'm' || head.back() == 'u' || head.back() == 'n'))
                continue;
            unit = u;
            number = head;
            break;
        }
    }
    if (!unit) {
        bool digitsOnly = text.find_first_not_of("0123456789.") == std::string_view::npos;
        fail(error,
            digitsOnly ? "duration needs a unit (ns, us, ms, s)"
                       : "expected a duration such as \"0.7ms\" (units: ns, us, ms, s)");
        return std::nullopt;
    }
    if (number.starts_with('-')) {
        fail(error, "duration must not be negative");
        return std::nullopt;
    }
    const auto dot = number.find('.');
    std::string_view intPart = number.substr(0, dot);
    std::string_view fracPart =
        dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
    if ((intPart.empty() && fracPart.empty()) || (dot != std::string_view::npos && fracPart.empty())
        || intPart.find_first_not_of("0123456789") != std::string_view::npos
        || fracPart.find_first_not_of("0123456789") != std::string_view::npos) {
        fail(error, "expected a duration such as \"0.7ms\" (units: ns, us, ms, s)");
        return std::nullopt;
    }
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t value = 0;
    for (char c : intPart) {
        const int64_t digit = c - '0';
        if (value > (kMax - digit) / 10) {
            fail(error, "duration too large");
            return std::nullopt;
        }
        value = value * 10 + digit;
    }
    if (value > kMax / unit->ns) {
        fail(error, "duration too large");
        return std::nullopt;
    }
    value *= unit->ns;
    // Fractional digits: each must land on a whole nanosecond.
    int64_t scale = unit->ns;
    for (char c : fracPart) {
        const int64_t digit = c - '0';
        if (scale % 10 != 0) {
            if (digit != 0) {
                fail(error, "duration finer than 1ns");
                return std::nullopt;
            }
            continue;
        }
        scale /= 10;
        if (value > kMax - digit * scale) {
            fail(error, "duration too large");
            return std::nullopt;
        }
        value += digit * scale;
    }
    return Nanoseconds(value);
}

std::string formatDuration(Nanoseconds d)
{
    int64_t v = d.count();
    std::string sign;
    if (v < 0) {
        sign = "-";
        v = -v;
    }
    if (v == 0)
        return "0s";
    // Every unit renders v exactly (all significant fraction digits are printed); keep the shortest
    // rendering, the larger unit on a tie: 700000 -> "0.7ms" (not "700us"), 1500 -> "1.5us".
    std::string best;
    for (auto it = kUnits.rbegin(); it != kUnits.rend(); ++it) {
        const int64_t whole = v / it->ns;
        const int64_t frac = v % it->ns;
        std::string out = std::to_string(whole);
        if (frac != 0) {
            std::string digits = std::to_string(frac);
            digits.insert(0, static_cast<size_t>(it->digits) - digits.size(), '0');
            while (!digits.empty() && digits.back() == '0')
                digits.pop_back();
            out += "." + digits;
        }
        out += it->suffix;
        if (best.empty() || out.size() < best.size())
            best = std::move(out);
    }
    return sign + best;
}

std::string formatDurationHuman(Nanoseconds d)
{
    const int64_t v = d.count();
    const int64_t a = v < 0 ? -v : v;
    char buf[64];
    if (a >= 1000000000)
        std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(v) / 1e9);
    else if (a >= 1000000)
        std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(v) / 1e6);
    else if (a >= 1000)
        std::snprintf(buf, sizeof buf, "%.3f us", static_cast<double>(v) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(v));
    return buf;
}

} // namespace schedlab
