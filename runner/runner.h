// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run: runs a scenario's machine-independent part on the running Linux kernel
// (docs/real-kernels.md). No Qt; links the core only for the scenario loader and the PRNG.
//
// Every scenario task is a process (cgroup v2 places processes, and a scenario's tasks may sit
// in different groups) named after the task (comm, 15 characters; the full name goes into the
// trace's name map). Programs run in those processes: `run` as busy work measured on the
// thread's CPU clock, `sleep` with clock_nanosleep, `loop`, `fork` (+ `wait`), `yield`,
// `lock`/`unlock` on process-shared mutexes, `suspend`/`resume` on process-shared condition
// variables, `nice`, `cpus`, `cgroup`. What the real kernel cannot reproduce is listed by
// makePlan() before the run.
#pragma once

#include "core/base/prng.h"
#include "core/kernel/runoptions.h"
#include "core/sim/scenariospec.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace schedlab::runner {

struct TaskPlan
{
    std::string name;   ///< expanded ("hog-2" for the second of "hog" with count 3)
    std::string cgroup; ///< scenario path, "/" = the run's base cgroup
    const TaskSpec* spec = nullptr;
    int64_t startNs = 0; ///< drawn from the scenario's PRNG
};

struct Plan
{
    int cpus = 1;                         ///< the scenario's CPU count (CPUs 0 … cpus-1 are used)
    std::vector<std::string> cgroups;     ///< expanded paths, parents first ("/" not included)
    std::vector<TaskPlan> tasks;          ///< tasks that exist at t = 0 or start later
    std::vector<std::string> mutexes;     ///< every mutex name used by a program
    std::vector<std::string> waitQueues;  ///< every suspend/resume wait queue name
    std::vector<std::string> completions; ///< every complete/wait_for_completion name
    /// What runs differently from the model or not at all, "where: what" (reported before the
    /// run; none of it is dropped silently).
    std::vector<std::string> notes;
    /// What makes the run impossible here (more CPUs than online, …).
    std::vector<std::string> errors;
};

/// Plans @p scenario for a machine with @p onlineCpus CPUs. @p kernelRelease (uname -r) is used
/// for version-dependent notes (custom slices need 6.12+).
Plan makePlan(const Scenario& scenario, int onlineCpus, const std::string& kernelRelease);

/// Version "6.12.3-amd64" → 6012 (major * 1000 + minor); 0 when unreadable.
int kernelVersionCode(const std::string& release);

/// The preemption model the kernel runs now, as the trace's `# schedlab-preempt:` header gives
/// it: debugfs sched/preempt's current mode (the one in parentheses) below @p debugfs, else the
/// one /boot/config-@p release builds in, else "". Never the mode a scenario asked for: a
/// kernel that refused it (6.12 has no "lazy") runs its own.
std::string preemptModeInEffect(const std::string& debugfs, const std::string& release);

/// The clocks busyFor() reads, in ns (tests replace them).
struct BusyClocks
{
    int64_t (*monotonic)(); ///< CLOCK_MONOTONIC, a vDSO read
    int64_t (*threadCpu)(); ///< CLOCK_THREAD_CPUTIME_ID, a system call running update_curr()
};

/// The calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), ns.
int64_t threadCpuNs();

/// Busy work until the calling thread's CPU clock advanced by @p ns (< 0: forever), without
/// reading that clock while it works (a read runs the scheduler's update_curr()).
void busyFor(int64_t ns);
void busyFor(int64_t ns, const BusyClocks& clocks);

/// Exact costs (`schedlab-run --exact-costs`, docs/real-kernels.md): the CPU time a task's
/// program asked for so far, against its CPU clock. A run operation tops the clock up to
/// base + owed, so what the process spent between runs (its own start-up, a fork's clone and
/// wait, a wake-up, a system call) is absorbed by the next run instead of adding to it: the
/// task costs what its program says, but for what it spends after its last run (its exit)
/// and any overhead larger than the runs after it.
struct CostLedger
{
    int64_t base = 0; ///< the CPU clock where the program started (0 for a forked child)
    int64_t owed = 0; ///< the run operations' durations so far
    /// The exit's cost, paid ahead by the program's last operation when that is a run (a light
    /// child: its parent measured the exits of the children before it, lightFork()).
    int64_t exitPrepay = 0;
    int64_t prepaid = 0;                      ///< what the last run paid of it
    const std::vector<Op>* program = nullptr; ///< the task's program (its last run prepays)
};

/// One run operation of @p ns under @p ledger (ns < 0: forever, as busyFor()); @p last: the
/// program's last operation, which also pays ledger.exitPrepay (at most its own length).
void busyForExact(int64_t ns, CostLedger& ledger, const BusyClocks& clocks, bool last = false);

/// Hooks of the interpreter into the runner (tests replace them).
struct ProgramHooks
{
    std::function<void(const std::string& mutex, bool lock)> lock;
    /// "suspend" (@p resume false: wait on the queue) or "resume" (broadcast to its waiters).
    std::function<void(const std::string& queue, bool resume)> waitQueue;
    /// "complete" (@p complete true: count one, wake one waiter) or "wait_for_completion"
    /// (take one, blocking until there is one).
    std::function<void(const std::string& completion, bool complete)> completion;
    /// Fork a child running @p child's program; with @p wait block until it exits. False when
    /// the task guard refused the fork: the program ends there (the run stops, exit 3).
    std::function<bool(const TaskSpec& child, bool wait)> fork;
    std::function<void(const std::string& cgroup)> moveToCgroup;
    /// A core-scheduling cookie operation (prctl PR_SCHED_CORE): create, or share with the
    /// task named in @p op (share_to, share_from).
    std::function<void(const Op& op)> cookie;
    std::function<void(const std::string& what)> warn;
    /// Writes a line to the run's trace (trace_marker): the affinity a `cpus` operation set,
    /// and, with @p markYields, "schedlab-yield" before each sched_yield() (a SCHED_DEADLINE
    /// task's job ends there). The importer reads them (docs/real-kernels.md).
    std::function<void(const std::string& text)> mark;
    bool markYields = false;
    int cpus = 1;
    /// Exact costs: run operations absorb the time spent between them (nullptr: off).
    CostLedger* ledger = nullptr;
};

/// The model's task guards (ResourceLimits::liveTasks and createdTasks, docs/limits.md)
/// applied to the run's processes: the counters live in memory shared by every task process.
struct TaskCounters
{
    std::atomic<int64_t> live{0};    ///< started and not exited (a killed task still counts)
    std::atomic<int64_t> created{0}; ///< every task process started
};

/// Admits one more task process: "" when admitted (counted), else the guard's reason (nothing
/// counted). Safe between processes.
std::string admitTask(TaskCounters& counters, const ResourceLimits& limits);
void taskExited(TaskCounters& counters);

/// Light children (`schedlab-run --light-children`, docs/real-kernels.md): a child the parent
/// waits for is started with clone(CLONE_VM) instead of fork(): the child shares the parent's
/// memory while the parent sleeps in wait4() until it exits (woken by its exit, as after a
/// fork — not by the release of its memory, as a vfork parent is), so it costs neither the
/// copy of the parent's page tables nor copy-on-write faults nor an address space to tear
/// down — the runner's own image no longer weighs on the workload's forks. Only for a
/// child whose program (recursively) uses none of: locks, wait queues, completions, forks,
/// core-scheduling cookies (what shares state with other processes or makes processes).
bool lightChildProgram(const std::vector<Op>& ops);
/// Runs @p body in a light child (its own stack, the caller's memory) and waits for it; the
/// body must end the child with _exit(). The child's pid in @p pid; false with errno set when
/// clone() failed (nothing ran).
/// With @p cpuNs, the child's CPU time in all (its exit included), from wait4()'s rusage.
bool lightFork(void (*body)(void*), void* arg, pid_t* pid, int64_t* cpuNs = nullptr);

/// Runs @p ops in the calling process; false when an `exit` operation ended the program.
bool runProgram(const std::vector<Op>& ops, Prng& prng, const ProgramHooks& hooks);

/// Draws a duration (fixed or uniform) in ns; "forever" is -1.
int64_t drawDuration(const DurationSpec& d, Prng& prng);

} // namespace schedlab::runner
