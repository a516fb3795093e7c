// SPDX-License-Identifier: GPL-2.0-or-later
#include "jsonvalues.h"

#include "core/base/limits.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace schedlab {

namespace {

constexpr int64_t kCpuMaxMinUs = 1000;
constexpr int64_t kCpuMaxMaxUs = 1000000;

std::optional<int64_t> parseMicroseconds(std::string_view text)
{
    if (text.empty() || text.size() > 18)
        return std::nullopt;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

/// "12" -> 12; nullopt for "", "012", "1-2" or more than 9 digits.
std::optional<int> counterValue(std::string_view digits)
{
    if (digits.empty() || digits.size() > 9 || digits.front() == '0')
        return std::nullopt;
    int value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

bool fail(std::string* error, std::string message)
{
    if (error)
        *error = std::move(message);
    return false;
}

} // namespace

std::string joinNames(std::span<const std::string_view> names, std::string_view last)
{
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0)
            out += i + 1 == names.size() ? last : std::string_view(", ");
        out += names[i];
    }
    return out;
}

std::optional<CpuMax> parseCpuMax(std::string_view text, std::string* error)
{
    const std::string expected = "expected \"QUOTA PERIOD\" or \"max PERIOD\" in microseconds, "
                                 "e.g. \"20000 100000\"";
    const size_t space = text.find(' ');
    const std::string_view quotaText = text.substr(0, space);
    const std::string_view periodText =
        space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (quotaText.empty() || (space != std::string_view::npos && periodText.empty())
        || periodText.find(' ') != std::string_view::npos) {
        fail(error, expected + " (got \"" + std::string(text) + "\")");
        return std::nullopt;
    }
    CpuMax max;
    if (quotaText != "max") {
        const auto quota = parseMicroseconds(quotaText);
        if (!quota) {
            fail(error, expected + " (got \"" + std::string(text) + "\")");
            return std::nullopt;
        }
        if (*quota < kCpuMaxMinUs || *quota > kCpuMaxMaxUs) {
            fail(error, "quota " + std::to_string(*quota) + " is outside 1000..1000000 us");
            return std::nullopt;
        }
        max.quotaUs = *quota;
    }
    if (!periodText.empty()) {
        const auto period = parseMicroseconds(periodText);
        if (!period) {
            fail(error, expected + " (got \"" + std::string(text) + "\")");
            return std::nullopt;
        }
        if (*period < kCpuMaxMinUs || *period > kCpuMaxMaxUs) {
            fail(error, "period " + std::to_string(*period) + " is outside 1000..1000000 us");
            return std::nullopt;
        }
        max.periodUs = *period;
    }
    return max;
}

std::string formatCpuMax(const CpuMax& max)
{
    return (max.quotaUs ? std::to_string(*max.quotaUs) : std::string("max")) + " "
        + std::to_string(max.periodUs);
}

namespace {

/// The first control character of @p text that is not in @p allowed, as "U+001B", or "".
std::string controlCharacter(std::string_view text, std::string_view allowed)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < text.size(); ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        unsigned code = 0x100; // none
        if (u < 0x20 || u == 0x7f)
            code = u;
        else if (u == 0xc2 && i + 1 < text.size()) // C1 controls are U+0080…U+009F: C2 80…C2 9F
            if (const auto next = static_cast<unsigned char>(text[i + 1]);
                next >= 0x80 && next <= 0x9f)
                code = next;
        if (code < 0x100 && allowed.find(static_cast<char>(code)) == std::string_view::npos)
            return std::string("U+00") + kHex[code >> 4U] + kHex[code & 0xfU];
    }
    return {};
}

} // namespace

std::string nameError(std::string_view name)
{
    if (name.size() > ScenarioLimits::maxNameBytes)
        return "longer than " + std::to_string(ScenarioLimits::maxNameBytes) + " bytes ("
            + std::to_string(name.size()) + ")";
    if (auto code = controlCharacter(name, {}); !code.empty())
        return "control character " + code + " in a name";
    return {};
}

std::string textError(std::string_view text)
{
    if (auto code = controlCharacter(text, "\t\n"); !code.empty())
        return "control character " + code + " (only tab and newline are allowed in text)";
    return {};
}

std::string cgroupPathError(std::string_view path)
{
    if (path.empty() || path.front() != '/')
        return "a cgroup path must be absolute (start with \"/\")";
    if (path == "/")
        return {};
    if (path.back() == '/')
        return "a cgroup path must not end with \"/\"";
    if (path.size() > ScenarioLimits::maxCgroupPathBytes)
        return "a cgroup path must not be longer than "
            + std::to_string(ScenarioLimits::maxCgroupPathBytes) + " bytes ("
            + std::to_string(path.size()) + ")";
    if (std::count(path.begin(), path.end(), '/') > ScenarioLimits::maxCgroupDepth)
        return "a cgroup path must not be nested more than "
            + std::to_string(ScenarioLimits::maxCgroupDepth) + " levels deep";
    size_t pos = 1;
    while (pos <= path.size()) {
        const size_t slash = path.find('/', pos);
        const std::string_view part =
            path.substr(pos, slash == std::string_view::npos ? path.npos : slash - pos);
        if (part.empty())
            return "empty component (\"//\") in cgroup path";
        if (part == "." || part == "..")
            return "\".\" and \"..\" are not allowed in cgroup paths";
        if (auto reason = nameError(part); !reason.empty())
            return "cgroup path component " + reason;
        if (slash == std::string_view::npos)
            break;
        pos = slash + 1;
    }
    return {};
}

std::string parentCgroup(std::string_view path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string_view::npos || slash == 0)
        return "/";
    return std::string(path.substr(0, slash));
}

bool programTakesTime(const std::vector<Op>& program)
{
    for (const Op& op : program) {
        switch (op.kind) {
        case Op::Kind::Run:
        case Op::Kind::Sleep:
            if (op.duration.endless || op.duration.value.count() > 0
                || (op.duration.upper && op.duration.upper->count() > 0))
                return true;
            break;
        case Op::Kind::Loop:
        case Op::Kind::Kernel:
            if (programTakesTime(op.body))
                return true;
            break;
        case Op::Kind::Fork:
            if (op.wait && !op.fork.empty() && programTakesTime(op.fork.front().program))
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

bool programYields(const std::vector<Op>& program)
{
    for (const Op& op : program)
        if (op.kind == Op::Kind::Yield || (op.kind == Op::Kind::Loop && programYields(op.body)))
            return true;
    return false;
}

bool TaskNameSet::contains(std::string_view name) const
{
    if (m_plain.contains(name))
        return true;
    const size_t dash = name.rfind('-');
    if (dash == std::string_view::npos)
        return false;
    const auto counted = m_counted.find(name.substr(0, dash));
    const auto k = counterValue(name.substr(dash + 1));
    return counted != m_counted.end() && k && *k <= counted->second;
}

std::optional<std::string> TaskNameSet::add(const std::string& name, std::optional<int> count)
{
    if (!count) {
        if (contains(name))
            return name;
        m_plain.insert(name);
        return std::nullopt;
    }
    if (m_counted.contains(name))
        return name + "-1";
    const std::string prefix = name + "-";
    for (auto it = m_plain.lower_bound(prefix); it != m_plain.end() && it->starts_with(prefix);
         ++it) {
        const auto k = counterValue(std::string_view(*it).substr(prefix.size()));
        if (k && *k <= *count)
            return *it;
    }
    m_counted.emplace(name, *count);
    return std::nullopt;
}

std::optional<int> TaskNameSet::countOf(std::string_view base) const
{
    const auto it = m_counted.find(base);
    return it == m_counted.end() ? std::nullopt : std::optional(it->second);
}

} // namespace schedlab
