// SPDX-License-Identifier: GPL-2.0-or-later
// What a simulation is built from (docs/scenario-format.md §1), as plain value types: the kernel,
// the machine, the cgroups, the tasks and their programs (core/workload/program.h), the timed
// actions. The file format that reads and writes them is core/scenario/ (scenariofields.cpp has
// the JSON mapping, one field table per flat struct); the simulation builds its state from these
// structs.
// Optional fields keep "not given" distinct from "given as the default" so that a load → save →
// load round trip reproduces the user's file.
#pragma once

#include "core/base/enumnames.h"
#include "core/base/time.h"
#include "core/kernel/cgroupfiles.h"
#include "core/workload/program.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

struct CgroupSpec
{
    std::string path; ///< absolute, "/" is the root
    CgroupFiles files;
    /// With count N the entry stands for the cgroups path-1 … path-N (like task "count").
    std::optional<int> count{};
    friend bool operator==(const CgroupSpec&, const CgroupSpec&) = default;
};

enum class Preempt { None, Voluntary, Full, Lazy };
enum class TunableScaling { None, Log, Linear };

/// A CONFIG_HZ a kernel can be built with (and the model has a tick for).
constexpr bool isConfigHz(int64_t hz)
{
    return hz == 100 || hz == 250 || hz == 300 || hz == 1000;
}

struct KernelSpec
{
    std::optional<std::string> profile;           ///< default: the newest hierarchical profile
    std::optional<int> hz;                        ///< 100/250/300/1000; default 1000
    std::optional<Preempt> preempt;               ///< default voluntary
    std::optional<Nanoseconds> baseSlice;         ///< normalised; default from profile
    std::optional<TunableScaling> tunableScaling; ///< default log
    std::map<std::string, bool> features;         ///< debugfs names → on/off
    std::map<std::string, std::string> overrides; ///< kernel-model.md §13 choices
    std::map<std::string, Nanoseconds> costs;     ///< kernel-work cost model (core/kernel/costs.h)
    friend bool operator==(const KernelSpec&, const KernelSpec&) = default;
};

struct MachineSpec
{
    std::optional<int> cpus;           ///< default 1
    std::optional<int> threadsPerCore; ///< SMT width, default 1
    std::optional<int> coresPerLlc;    ///< default: all cores share one LLC
    /// arch_scale_cpu_capacity() per CPU (1..1024, one per CPU); default 1024 each.
    std::optional<std::vector<int>> capacities;
    /// x86 ITMT: arch_asym_cpu_priority() per CPU (one per CPU, 0..ScenarioLimits::
    /// maxItmtPriority); given, the MC and package domains get SD_ASYM_PACKING.
    std::optional<std::vector<int>> itmtPriorities;
    int cpuCount() const { return cpus.value_or(1); }
    friend bool operator==(const MachineSpec&, const MachineSpec&) = default;
};

/// `set` action: a cgroup file write or a task attribute change.
struct SetAction
{
    std::optional<std::string> cgroup; ///< exactly one of cgroup / task
    std::optional<std::string> task;
    CgroupFiles files;       ///< with cgroup
    std::optional<int> nice; ///< with task
    std::optional<std::string> cpus;
    std::optional<Nanoseconds> slice;
    std::optional<Policy> policy;
    friend bool operator==(const SetAction&, const SetAction&) = default;
};

struct Action
{
    enum class Kind { Feature, Profile, Set, Move, Spawn, Kill };
    Nanoseconds at{0};
    Kind kind = Kind::Feature;
    std::map<std::string, bool> features;         ///< Feature
    std::optional<std::string> profile;           ///< Profile: switch to this profile
    std::map<std::string, std::string> overrides; ///< Profile: single choices
    SetAction set;                                ///< Set
    std::string task;                             ///< Move, Kill
    std::string cgroup;                           ///< Move
    std::vector<TaskSpec> spawn;                  ///< Spawn: exactly one
    friend bool operator==(const Action&, const Action&) = default;
};

struct Annotation
{
    Nanoseconds at{0};
    std::string text;
    friend bool operator==(const Annotation&, const Annotation&) = default;
};

struct Scenario
{
    int version = 1; ///< "schedlab"
    std::string name;
    std::optional<std::string> title;
    std::optional<std::string> description;
    std::optional<uint64_t> seed;        ///< default 1
    std::optional<Nanoseconds> duration; ///< default 10s
    KernelSpec kernel;
    MachineSpec machine;
    std::vector<CgroupSpec> cgroups;
    std::vector<TaskSpec> tasks;
    std::vector<Action> actions;
    std::vector<Annotation> annotations;
    /// Top-level "x-…" keys reserved for users, kept verbatim (serialised JSON) for round trips.
    std::map<std::string, std::string> userKeys;

    uint64_t seedOrDefault() const { return seed.value_or(1); }
    Nanoseconds durationOrDefault() const { return duration.value_or(Nanoseconds(10'000'000'000)); }
    friend bool operator==(const Scenario&, const Scenario&) = default;
};

template <> std::span<const std::string_view> enumNames<Preempt>();
template <> std::span<const std::string_view> enumNames<TunableScaling>();
template <> std::span<const std::string_view> enumNames<Action::Kind>();

} // namespace schedlab
