// SPDX-License-Identifier: GPL-2.0-or-later
// A task as a scenario describes it (docs/scenario-format.md §1): its policy and attributes and
// its program, the operations the interpreter (interpreter.h) runs, as plain value types.
// Optional fields keep "not given" distinct from "given as the default" so that a load → save →
// load round trip reproduces the user's file.
#pragma once

#include "core/base/enumnames.h"
#include "core/base/time.h"
#include "core/dl/dlparams.h"
#include "core/kernel/cgroupfiles.h"

#include <cstdint>
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

enum class Policy { Normal, Batch, Idle, Fifo, RoundRobin, Deadline };

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
        Complete,       ///< complete(): wakes the first waiter of a completion, or counts
        WaitCompletion, ///< wait_for_completion(): takes a count, or blocks until a complete()
        CpuClock ///< clock_gettime(CLOCK_THREAD_CPUTIME_ID): update_curr(), then back to user mode
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
    /// SCHED_DEADLINE reservation (policy deadline: "runtime", "deadline", "period", "flags")
    std::optional<DlParams> dl;
    std::optional<uint64_t> cookie;    ///< core-scheduling cookie
    std::optional<DurationSpec> start; ///< creation time; default 0
    bool probe = false;
    /// Stands for a thread of the kernel (rcu_preempt, a kworker): simulated like any task, never
    /// started by schedlab-run (the real kernel runs its own).
    bool kernelThread = false;
    std::vector<Op> program;
    friend bool operator==(const TaskSpec&, const TaskSpec&) = default;
};

template <> std::span<const std::string_view> enumNames<Policy>();
template <> std::span<const std::string_view> enumNames<Op::Kind>();

} // namespace schedlab
