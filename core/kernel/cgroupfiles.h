// SPDX-License-Identifier: GPL-2.0-or-later
// The cgroup v2 files of the CPU controller a scenario can write (docs/scenario-format.md §1), as
// plain value types, and the shell-style match of a cgroup path that writes to "test*/…" use; their
// text forms (cpu.max strings, path syntax) are core/scenario/jsonvalues.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace schedlab {

/// cpu.max: "QUOTA PERIOD" in µs, or "max PERIOD".
struct CpuMax
{
    std::optional<int64_t> quotaUs; ///< nullopt = max (unlimited)
    int64_t periodUs = 100000;
    friend bool operator==(const CpuMax&, const CpuMax&) = default;
};

/// The cgroup v2 files a scenario can set (used both by `cgroups` and by `set` actions).
struct CgroupFiles
{
    std::optional<int> weight;          ///< cpu.weight 1…10000
    std::optional<int> weightNice;      ///< cpu.weight.nice -20…19
    std::optional<CpuMax> cpuMax;       ///< cpu.max
    std::optional<bool> idle;           ///< cpu.idle
    std::optional<int64_t> rtRuntimeUs; ///< cpu.rt_runtime_us (-1 = unlimited)
    std::optional<int64_t> rtPeriodUs;  ///< cpu.rt_period_us
    friend bool operator==(const CgroupFiles&, const CgroupFiles&) = default;
};

/// Shell-style match of a cgroup path against a pattern in which '*' matches any run of
/// characters except '/' (as `tee /sys/fs/cgroup/cpu/test*/…` expands). No other wildcards.
bool cgroupMatches(std::string_view pattern, std::string_view path);

} // namespace schedlab
