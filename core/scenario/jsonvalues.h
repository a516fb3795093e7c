// SPDX-License-Identifier: GPL-2.0-or-later
// The text forms of scenario values (scenario-format.md §1) shared by the JSON reader and writer:
// cpu.max strings, name and cgroup path syntax, task name sets (the enum spellings are declared
// with the enums, core/base/enumnames.h). No JSON library here.
#pragma once

#include "core/base/enumnames.h"
#include "core/kernel/cgroupfiles.h"
#include "core/sim/scenariospec.h"

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

/// "a, b, c or d" for messages.
std::string joinNames(std::span<const std::string_view> names, std::string_view last = " or ");

/// cpu.max as the kernel accepts it: "QUOTA PERIOD", "max PERIOD", "QUOTA" or "max" (µs,
/// period default 100000). Quota and period must lie in [1000, 1000000] µs.
std::optional<CpuMax> parseCpuMax(std::string_view text, std::string* error);
/// "20000 100000" / "max 100000".
std::string formatCpuMax(const CpuMax& max);

/// Empty if @p name is usable as a name (a scenario's, a task's, a mutex's): at most
/// ScenarioLimits::maxNameBytes bytes and no control character (C0, DEL, C1). Else what is wrong.
std::string nameError(std::string_view name);
/// Empty if @p text is usable as free text (title, description, annotation): no control character
/// other than tab and newline. Else what is wrong.
std::string textError(std::string_view text);

/// Syntax of an absolute cgroup path ("/" or "/a/b"): empty if fine, else what is wrong. Each
/// component is a name (nameError), the path has at most ScenarioLimits::maxCgroupPathBytes bytes
/// and ScenarioLimits::maxCgroupDepth components.
std::string cgroupPathError(std::string_view path);
/// "/a/b" -> "/a", "/a" -> "/".
std::string parentCgroup(std::string_view path);

/// True if running @p program can advance simulated time (a run or sleep that may be non-zero,
/// also inside loops and waited-for forks). An endless loop without it would hang the simulation.
bool programTakesTime(const std::vector<Op>& program);
/// True if the program contains a yield (each costs the simulated system call's time).
bool programYields(const std::vector<Op>& program);

/// Task names in use, without expanding counts: a name is taken if it was added as is, or if it
/// is BASE-K for an entry BASE with count N >= K (K written without leading zeros). Two counted
/// entries can only clash when they share their base, because K never contains '-'.
class TaskNameSet
{
public:
    bool contains(std::string_view name) const;
    /// Adds @p name (with count: name-1 … name-count); returns a clashing name if there is one.
    std::optional<std::string> add(const std::string& name, std::optional<int> count);
    /// The count of a counted entry BASE, if there is one.
    std::optional<int> countOf(std::string_view base) const;

private:
    std::set<std::string, std::less<>> m_plain;
    std::map<std::string, int, std::less<>> m_counted;
};

} // namespace schedlab
