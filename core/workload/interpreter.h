// SPDX-License-Identifier: GPL-2.0-or-later
// The program interpreter: runs a task's program (scenario-format "program" ops: run, sleep,
// loop, yield, nice, cpus, cgroup, fork, write, exit, kernel, lock, unlock, suspend, resume,
// cookie) from the point it stopped until an op that takes time, blocks or ends the task. What
// the ops do to the scheduler (set_user_nice, sched_setaffinity, sched_move_task, sched_yield,
// fork) is the machine's, reached through MachineContext and ProgramServices; the kernel work of
// forks and cgroup writes is the cost model's (core/workload/kernelwork.h); mutexes and wait
// queues are core/workload/mutexes.h.
#pragma once

#include <cstdint>
#include <string>

namespace schedlab {

class CpuSet;
class KernelWork;
class MachineContext;
class Mutexes;
class Prng;
struct DurationSpec;
struct Op;
struct Task;

/// The system calls a program makes (the machine's side of them); the machine's shared vocabulary
/// (clock, CPUs, resched, run queues) is MachineContext.
class ProgramServices
{
public:
    virtual ~ProgramServices() = default;
    /// A resource guard stops the run (a program looping without using time).
    virtual void stopRun(const std::string& task, int cpu, const std::string& reason) = 0;
    /// A workload mistake (double lock, unlock of a mutex not held): reported, then ignored.
    virtual void programError(const Task& task, const std::string& what) = 0;
    /// Leaving the last kernel section: task work (parking), end of a boost, deferred preemption.
    virtual void returnToUser(Task& task) = 0;
    /// clock_gettime(CLOCK_THREAD_CPUTIME_ID) by the running @p task: task_sched_runtime()
    /// runs its class's update_curr(), and the system call returns to user mode, where a
    /// reschedule pending (or just set) is acted on. True if @p task is to be switched out
    /// before its next operation (kernel-model.md §7.1).
    virtual bool readCpuClock(Task& task) = 0;
    /// Is @p task to be parked at the return to user mode (CFS bandwidth, throttle at return)?
    virtual bool shouldPark(const Task& task) const = 0;
    /// sched_yield() of the running @p task (yield_task(), then resched).
    virtual void yieldTask(Task& task) = 0;
    virtual void setUserNice(Task& task, int nice) = 0;
    virtual void setAffinity(Task& task, const CpuSet& cpus) = 0;
    virtual int groupByPath(const std::string& path) const = 0; ///< -1 if none
    virtual void moveTask(Task& task, int group) = 0;           ///< sched_move_task()
    virtual void applyCookieOp(Task& task, const Op& op) = 0;   ///< PR_SCHED_CORE
};

class ProgramInterpreter
{
public:
    ProgramInterpreter(MachineContext& ctx, ProgramServices& services, Prng& prng, KernelWork& work,
        Mutexes& mutexes);

    /// A duration of the program: its fixed value, a uniform draw in [value, upper], or -1 for
    /// an endless one.
    int64_t draw(const DurationSpec& d);
    /// Runs @p task's program from where it stopped: on return Task::workLeft is the CPU time
    /// of the op reached (0 if the task blocks or exits: Task::blocking / Task::exiting).
    void advance(Task& task);

private:
    MachineContext& m_ctx;
    ProgramServices& m_s;
    Prng& m_prng;
    KernelWork& m_work;
    Mutexes& m_mutexes;
};

} // namespace schedlab
