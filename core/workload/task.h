// SPDX-License-Identifier: GPL-2.0-or-later
// A simulated task: its scheduling entity, attributes, and the interpreter state of its program
// (scenario-format.md §1 "Operations").
#pragma once

#include "core/base/cpuset.h"
#include "core/base/eventid.h"
#include "core/dl/dlentity.h"
#include "core/fair/schedentity.h"
#include "core/sched/migration.h"
#include "core/workload/program.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace schedlab {

enum class TaskRunState {
    NotStarted,
    Runnable,
    Running,
    Sleeping,
    WaitingChild,
    BlockedLock,
    Exited
};

struct alignas(64) Task
{
    // Laid out for the cache (docs/limits.md "Speed", fourth round): the entity first, on a line
    // of its own, then what every tick, switch, completion and wakeup reads or writes (the state,
    // the program's counters, the metrics kept per event, the lag-bound metric), then the rest
    // (names, mutexes, RT and deadline state, kernel work, per-reason counts).
    SchedEntity se;
    int index = 0;
    int group = 0; ///< task group index
    int cpu = 0;
    TaskRunState state = TaskRunState::NotStarted;
    Policy policy = Policy::Normal;
    int nice = 0;
    int kernelDepth = 0;   ///< open kernel sections (0: user mode)
    bool blocking = false; ///< will block at the next schedule()
    bool exiting = false;
    bool alive = false;    ///< between wake_up_new_task and exit: in the kernel's task list
    bool rtQueued = false; ///< on its CPU's RT queue (the running RT task included)
    bool parked = false;   ///< 6.18+: on a throttled cfs_rq's limbo list
    bool boosted = false;  ///< boost_throttled_on_wakeup: runs in a throttled group
    bool probe = false;
    /// do_exit() has made its group move (sched_autogroup_exit_task(), kernel-model.md §8.2):
    /// the task was preempted there and finishes its exit when it runs again.
    bool exitMoved = false;
    /// fork+wait: fork() returned to user mode with a reschedule pending (the child preempted its
    /// parent), so the parent calls wait4() for waitingFor only when it runs again (-1: the
    /// child exited meanwhile, the wait returns at once).
    bool waitPending = false;
    int64_t workLeft = 0; ///< ns of CPU work left in the current run op; -1 = forever
    int64_t runStart = 0; ///< when it last got the CPU
    EventId workDone;     ///< completion of the current run op while running
    EventId timer;        ///< sleep end
    int64_t sleepFor = 0;
    int sleepCpu = 0; ///< CPU whose timer wakes the task
    int waitCpu = 0;
    int64_t cpuTime = 0;
    int64_t waitStart = -1; ///< start of the current wait, -1 if not waiting
    int64_t switches = 0;
    int64_t migrations = 0;
    int64_t onCpuSince = -1;  ///< switched in at, -1 while not on a CPU
    int64_t longestRunNs = 0; ///< longest stretch on a CPU between two switches
    /// Samples whose lag |V − v| exceeded vslice(slice + tick), and the worst excess in virtual
    /// ns (kernel-model.md §4.1: the bound of the 7.0 clamp for the task's own slice).
    int64_t lagExcessSamples = 0;
    int64_t lagExcessMaxNs = 0;
    /// The lag bound vslice(slice + tick) of the last sample and what it was computed from
    /// (slice, weight, inverse weight): recomputed only when one of them changed.
    int64_t lagBoundSlice = -1;
    uint64_t lagBoundWeight = 0;
    uint32_t lagBoundInvWeight = 0;
    int64_t lagBound = 0;
    std::vector<int64_t> waits; ///< completed runnable→running waits
    CpuSet cpus;                ///< affinity

    // Program interpreter: a stack of (ops, pc, iterations left) frames into `program`.
    struct Frame
    {
        const std::vector<Op>* ops = nullptr;
        size_t pc = 0;
        int64_t left = -1;   ///< loop iterations left after the current one; -1 forever
        int64_t until = -1;  ///< loop with "for": no new iteration from this time on; -1 none
        bool kernel = false; ///< a { "kernel": [...] } section: the task is in kernel mode
    };
    std::vector<Frame> stack;
    /// Never modified, so shared: every copy of a file's task (`count`) holds the same one, and
    /// a forked child holds its parent's, aliased to the fork's child program (the frames point
    /// into it). A task copy therefore costs the same whatever the size of its program.
    std::shared_ptr<const std::vector<Op>> program;

    std::string name;
    int parent = -1;
    int forks = 0;          ///< children forked so far (for child names)
    uint64_t cookie = 0;    ///< core_cookie (0 = untagged), kernel-model.md §11.1
    int coreOccupation = 0; ///< core_occupation: busy siblings when it was last core-picked
    int rtPriority = 0;     ///< 1…99 for SCHED_FIFO/SCHED_RR (higher runs first)
    bool isRt() const { return policy == Policy::Fifo || policy == Policy::RoundRobin; }
    bool isDl() const { return policy == Policy::Deadline; } ///< dl_policy()
    /// task_on_rq_queued(): queued in its class (running, throttled or delayed included).
    bool queuedOnRq() const { return se.onRq || rtQueued || dl.onRq; }
    /// Blocked on a mutex, a wait queue or a completion (not a timed sleep or a child).
    bool waitsOnObject() const
    {
        return !lockWaiting.empty() || !suspendedOn.empty() || !completionWait.empty();
    }
    int waitingFor = -1; ///< child index while blocked in fork+wait

    // Kernel sections, mutexes (core/workload/mutexes) and CFS bandwidth (core/fair/cfsbandwidth).
    std::string lockWaiting;       ///< mutex the task is blocked on, "" if none
    int64_t lockWaitStart = -1;    ///< when it started waiting for lockWaiting
    int64_t lockWaitNs = 0;        ///< total time spent waiting for mutexes
    bool usedLocks = false;        ///< executed a lock op (metrics report lock_wait_ns)
    std::vector<std::string> held; ///< mutexes held, in acquisition order
    std::string suspendedOn;       ///< wait queue of a "suspend", "" if none
    std::string completionWait;    ///< completion of a "wait_for_completion", "" if none
    // RT class (core/rt/rtclass.cpp).
    int rtPrev = -1;         ///< neighbours in the RT queue's list of its priority (task
    int rtNext = -1;         ///< indices, -1 at the ends), RtRq
    int64_t rtExecStart = 0; ///< start of the RT execution not yet accounted (update_curr_rt)
    int rtTicksLeft = 0;     ///< SCHED_RR: ticks left in the time slice
    DlEntity dl;             ///< SCHED_DEADLINE (core/dl/dlclass.cpp)
    // Kernel work in progress (cost model): a fork waiting for/holding tasklist_lock, or the
    // remaining cgroup writes of a "write" operation.
    const Op* pendingFork = nullptr;
    const Op* writeOp = nullptr;
    std::vector<int> writeGroups; ///< groups still to write, in order
    size_t writeNext = 0;

    // Metrics read at the end.
    int64_t spawnedAt = 0;
    int64_t exitedAt = -1;
    std::array<int64_t, kMigrateReasonCount> migrationsByReason{}; ///< by MigrateReason
};

} // namespace schedlab
