// SPDX-License-Identifier: GPL-2.0-or-later
// What a scenario file describes (docs/scenario-format.md §1), as plain value types.
// The JSON mapping is in scenariofields.cpp (one field table per flat struct), read by
// scenarioreader.cpp and written by scenariowriter.cpp; the simulation builds its state from these
// structs.
// Optional fields keep "not given" distinct from "given as the default" so that a load → save →
// load round trip reproduces the user's file.
#pragma once

#include "core/base/time.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

/// A duration as written: fixed, `"forever"` (only where a run may be endless) or
/// `{ "uniform": [lo, hi] }` drawn from the scenario's PRNG.
struct DurationSpec
{
    Nanoseconds value{0};             ///< fixed value, or the lower bound of a uniform draw
    std::optional<Nanoseconds> upper; ///< set for uniform: inclusive upper bound
    bool endless = false; ///< "forever" (named so that Qt's `forever` macro cannot clash)

    bool isUniform() const { return upper.has_value(); }
    static DurationSpec fixed(Nanoseconds v) { return {v, std::nullopt, false}; }
    static DurationSpec uniform(Nanoseconds lo, Nanoseconds hi) { return {lo, hi, false}; }
    static DurationSpec forEver() { return {Nanoseconds{0}, std::nullopt, true}; }
    friend bool operator==(const DurationSpec&, const DurationSpec&) = default;
};

enum class Policy { Normal, Batch, Idle, Fifo, RoundRobin };

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

struct TaskSpec;

/// One program operation (scenario-format.md §1 "Operations").
struct Op
{
    enum class Kind {
        Run,
        Sleep,
        Loop,
        Yield,
        Lock,
        Unlock,
        Fork,
        Exit,
        Nice,
        Cpus,
        Cgroup,
        Cookie,
        Kernel,
        Write,
        Suspend,
        Resume,
        Complete,      ///< complete(): wakes the first waiter of a completion, or counts
        WaitCompletion ///< wait_for_completion(): takes a count, or blocks until a complete()
    };
    /// prctl(PR_SCHED_CORE, …) commands of a Cookie operation (scope: the thread).
    enum class CookieCmd { Create, ShareTo, ShareFrom };
    Kind kind = Kind::Run;
    DurationSpec duration;               ///< Run, Sleep
    std::vector<Op> body;                ///< Loop; Kernel (the operations run inside the kernel)
    std::optional<int64_t> count;        ///< Loop: iterations; nullopt = forever
    std::optional<DurationSpec> forTime; ///< Loop: repeat while less than this has elapsed
    /// Lock/Unlock: mutex name; Suspend/Resume: wait queue name; Complete/WaitCompletion:
    /// completion name; Cpus: cpulist; Cgroup: path;
    /// Cookie: task; Write: path pattern
    std::string name;
    CookieCmd cookie = CookieCmd::Create; ///< Cookie
    std::vector<TaskSpec> fork;           ///< Fork: exactly one child spec (no name)
    bool wait = false;                    ///< Fork: block until the child exits
    int nice = 0;                         ///< Nice
    CgroupFiles files;                    ///< Write: the files written to each matching cgroup
    friend bool operator==(const Op&, const Op&) = default;
};

struct TaskSpec
{
    std::string name;                  ///< unique; with count N: name-1 … name-N
    std::optional<int> count;          ///< replicate the task
    std::optional<std::string> cgroup; ///< default "/"
    std::optional<std::string> cpus;   ///< cpulist; default all CPUs
    std::optional<Policy> policy;      ///< default normal
    std::optional<int> nice;           ///< -20…19
    std::optional<int> rtPriority;     ///< 1…99
    std::optional<Nanoseconds> slice;  ///< custom slice, 0.1–100 ms
    std::optional<uint64_t> cookie;    ///< core-scheduling cookie
    std::optional<DurationSpec> start; ///< creation time; default 0
    bool probe = false;
    /// Stands for a thread of the kernel (rcu_preempt, a kworker): simulated like any task, never
    /// started by schedlab-run (the real kernel runs its own).
    bool kernelThread = false;
    std::vector<Op> program;
    friend bool operator==(const TaskSpec&, const TaskSpec&) = default;
};

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

} // namespace schedlab
