// SPDX-License-Identifier: GPL-2.0-or-later
// The program interpreter: runs a task's program (scenario-format "program" ops: run, sleep,
// loop, yield, nice, cpus, cgroup, fork, write, exit, kernel, lock, unlock, suspend, resume,
// cookie) from the point it stopped until an op that takes time, blocks or ends the task. What
// the ops do to the scheduler (set_user_nice, sched_setaffinity, sched_move_task, sched_yield,
// fork) is the machine's, reached through ProgramServices; the kernel work of forks and cgroup
// writes is the cost model's (core/workload/kernelwork.h); mutexes and wait queues are
// core/workload/mutexes.h.
#pragma once

#include <cstdint>
#include <string>

namespace schedlab {

class CpuSet;
class KernelWork;
class Mutexes;
class Prng;
struct DurationSpec;
struct Op;
struct Task;

/// The machine-side services the program interpreter calls.
class ProgramServices
{
public:
    virtual ~ProgramServices() = default;
    virtual int64_t clock() const = 0;
    virtual int cpuCount() const = 0;
    virtual void resched(int cpu) = 0; ///< resched_curr() without the lazy flag
    /// Is @p task the one running on its CPU (rq->curr)?
    virtual bool isRunning(const Task& task) const = 0;
    /// A resource guard stops the run (a program looping without using time).
    virtual void stopRun(const std::string& task, int cpu, const std::string& reason) = 0;
    /// Leaving the last kernel section: task work (parking), end of a boost, deferred preemption.
    virtual void returnToUser(Task& task) = 0;
    /// Is @p task to be parked at the return to user mode (CFS bandwidth, throttle at return)?
    virtual bool shouldPark(const Task& task) const = 0;
    /// sched_yield() of the running @p task (yield_task(), then resched).
    virtual void yieldTask(Task& task) = 0;
    virtual void setUserNice(Task& task, int nice) = 0;
    virtual void setAffinity(Task& task, const CpuSet& cpus) = 0;
    virtual int groupByPath(const std::string& path) const = 0; ///< -1 if none
    virtual void moveTask(Task& task, int group) = 0;           ///< sched_move_task()
    /// The fork itself: creates the child; true if @p task stops here (it waits for the child).
    virtual bool completeFork(Task& task, const Op& op) = 0;
    virtual void applyCookieOp(Task& task, const Op& op) = 0; ///< PR_SCHED_CORE
};

class ProgramInterpreter
{
public:
    ProgramInterpreter(ProgramServices& services, Prng& prng, KernelWork& work, Mutexes& mutexes);

    /// A duration of the program: its fixed value, a uniform draw in [value, upper], or -1 for
    /// an endless one.
    int64_t draw(const DurationSpec& d);
    /// Runs @p task's program from where it stopped: on return Task::workLeft is the CPU time
    /// of the op reached (0 if the task blocks or exits: Task::blocking / Task::exiting).
    void advance(Task& task);

private:
    ProgramServices& m_s;
    Prng& m_prng;
    KernelWork& m_work;
    Mutexes& m_mutexes;
};

} // namespace schedlab
