// SPDX-License-Identifier: GPL-2.0-or-later
#include "cpuset.h"

#include <algorithm>
#include <bit>
#include <charconv>

namespace schedlab {

namespace {

bool fail(std::string* error, std::string message)
{
    if (error)
        *error = std::move(message);
    return false;
}

std::optional<int> parseNumber(std::string_view s)
{
    if (s.empty() || s.size() > 6)
        return std::nullopt;
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size() || value < 0)
        return std::nullopt;
    return value;
}

} // namespace

CpuSet CpuSet::all(int cpus)
{
    // Whole words at once (a load balance starts from every CPU): the words set() would leave.
    CpuSet s;
    if (cpus <= 0)
        return s;
    const auto full = static_cast<size_t>(cpus) / 64;
    const int rest = cpus % 64;
    s.m_words.assign(full + (rest ? 1 : 0), ~uint64_t{0});
    if (rest)
        s.m_words.back() = (uint64_t{1} << rest) - 1;
    return s;
}

CpuSet CpuSet::single(int cpu)
{
    CpuSet s;
    s.set(cpu);
    return s;
}

std::optional<CpuSet> CpuSet::parse(std::string_view text, int cpus, std::string* error)
{
    CpuSet result;
    if (text.empty()) {
        fail(error, "empty CPU list");
        return std::nullopt;
    }
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t comma = text.find(',', pos);
        std::string_view item =
            text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        const size_t dash = item.find('-');
        std::optional<int> lo = parseNumber(item.substr(0, dash));
        std::optional<int> hi =
            dash == std::string_view::npos ? lo : parseNumber(item.substr(dash + 1));
        if (!lo || !hi) {
            fail(error, "expected a CPU list such as \"0-3,7\", got \"" + std::string(text) + "\"");
            return std::nullopt;
        }
        if (*hi < *lo) {
            fail(error, "CPU range " + std::string(item) + " is reversed");
            return std::nullopt;
        }
        if (*hi >= cpus) {
            fail(error,
                "CPU " + std::to_string(*hi) + " does not exist (machine has "
                    + std::to_string(cpus) + " CPUs)");
            return std::nullopt;
        }
        for (int c = *lo; c <= *hi; ++c)
            result.set(c);
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    return result;
}

void CpuSet::set(int cpu)
{
    const auto word = static_cast<size_t>(cpu) / 64;
    if (m_words.size() <= word)
        m_words.resize(word + 1, 0);
    m_words[word] |= uint64_t{1} << (cpu % 64);
}

void CpuSet::clear(int cpu)
{
    const auto word = static_cast<size_t>(cpu) / 64;
    if (word < m_words.size())
        m_words[word] &= ~(uint64_t{1} << (cpu % 64));
}

bool CpuSet::empty() const
{
    return first() < 0;
}

int CpuSet::count() const
{
    int n = 0;
    for (uint64_t w : m_words)
        n += std::popcount(w);
    return n;
}

bool CpuSet::moreThanOne() const
{
    bool seen = false;
    for (uint64_t w : m_words) {
        if (!w)
            continue;
        if (seen || (w & (w - 1)))
            return true;
        seen = true;
    }
    return false;
}

bool CpuSet::containsRange(int first, int n) const
{
    if (first < 0 || n < 0)
        return false;
    const int end = first + n;
    for (int c = first; c < end;) {
        const auto word = static_cast<size_t>(c) / 64;
        if (word >= m_words.size())
            return false;
        const int bit = c % 64;
        const int len = std::min(64 - bit, end - c);
        const uint64_t mask = (len == 64 ? ~uint64_t{0} : ((uint64_t{1} << len) - 1)) << bit;
        if ((m_words[word] & mask) != mask)
            return false;
        c += len;
    }
    return true;
}

int CpuSet::first() const
{
    return next(-1);
}

int CpuSet::next(int after) const
{
    int cpu = after + 1;
    while (static_cast<size_t>(cpu) / 64 < m_words.size()) {
        const uint64_t w = m_words[static_cast<size_t>(cpu) / 64] >> (cpu % 64);
        if (w)
            return cpu + std::countr_zero(w);
        cpu = (cpu / 64 + 1) * 64;
    }
    return -1;
}

int CpuSet::highest() const
{
    for (size_t i = m_words.size(); i-- > 0;)
        if (m_words[i])
            return static_cast<int>(
                i * 64 + 63 - static_cast<size_t>(std::countl_zero(m_words[i])));
    return -1;
}

std::string CpuSet::toString() const
{
    std::string out;
    for (int c = first(); c >= 0;) {
        int end = c;
        while (test(end + 1))
            ++end;
        if (!out.empty())
            out += ',';
        out += std::to_string(c);
        if (end > c)
            out += "-" + std::to_string(end);
        c = next(end);
    }
    return out;
}

bool operator==(const CpuSet& a, const CpuSet& b)
{
    const size_t n = std::max(a.m_words.size(), b.m_words.size());
    for (size_t i = 0; i < n; ++i) {
        const uint64_t x = i < a.m_words.size() ? a.m_words[i] : 0;
        const uint64_t y = i < b.m_words.size() ? b.m_words[i] : 0;
        if (x != y)
            return false;
    }
    return true;
}

} // namespace schedlab
