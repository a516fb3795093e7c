// SPDX-License-Identifier: GPL-2.0-or-later
// A set of logical CPUs, parsed from and printed as a cpulist ("0-3,7", the taskset -c syntax).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

class CpuSet
{
public:
    CpuSet() = default;
    static CpuSet all(int cpus);
    static CpuSet single(int cpu);

    /// Parses a cpulist. Every CPU must be < @p cpus (pass a large number to skip the check).
    static std::optional<CpuSet> parse(
        std::string_view text, int cpus, std::string* error = nullptr);

    void set(int cpu);
    void clear(int cpu);
    bool test(int cpu) const
    {
        const auto word = static_cast<size_t>(cpu) / 64;
        return cpu >= 0 && word < m_words.size() && ((m_words[word] >> (cpu % 64)) & 1U);
    }
    bool empty() const;
    int count() const;
    /// count() > 1, without counting: stops at the second CPU (nr_cpus_allowed > 1).
    bool moreThanOne() const;
    /// Every CPU of [@p first, @p first + @p n) is in the set (a word at a time).
    bool containsRange(int first, int n) const;
    int first() const;            ///< lowest CPU, or -1
    int next(int after) const;    ///< lowest CPU > after, or -1
    int highest() const;          ///< highest CPU, or -1
    std::string toString() const; ///< canonical cpulist ("0-3,7"); "" when empty

    friend bool operator==(const CpuSet& a, const CpuSet& b);

private:
    std::vector<uint64_t> m_words;
};

} // namespace schedlab
