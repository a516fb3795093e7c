// SPDX-License-Identifier: GPL-2.0-or-later
// struct sched_class (kernel/sched/sched.h): what every scheduling class offers the core
// scheduler. The machine (core/sim) keeps the classes in priority order — the fair deadline
// server, RT, fair, idle — and walks them to pick the next task (__pick_next_task()), dispatches
// a task's class operations through classOf(task) instead of testing its policy, and gives every
// class the same machine context (core/sched/machinecontext.h: clock, resched, timers,
// recording), so a class can be unit-tested on the tests' FakeMachine
// (tests/support/fakemachine.h; tests/core/tst_rtunit.cpp, tst_fairformulas.cpp).
#pragma once

#include <cstdint>

namespace schedlab {

struct Rq;
struct SchedEntity;
struct Task;

class SchedClass
{
public:
    virtual ~SchedClass() = default;
    virtual const char* name() const = 0;

    /// enqueue_task(): @p task becomes runnable on @p rq (flags: EnqueueFlag).
    virtual void enqueueTask(Rq& rq, Task& task, int flags) = 0;
    /// dequeue_task(): @p task leaves @p rq (flags: DequeueFlag).
    virtual void dequeueTask(Rq& rq, Task& task, int flags) = 0;
    /// pick_task(): the class's next entity on @p rq, or null to let a lower class pick.
    virtual SchedEntity* pickTask(Rq& rq) = 0;
    /// put_prev_task(): @p prev stops running on @p rq.
    virtual void putPrevTask(Rq& rq, Task& prev) = 0;
    /// set_next_task(): @p next starts running on @p rq.
    virtual void setNextTask(Rq& rq, Task& next) = 0;
    /// task_tick(): the periodic tick hit @p curr, which runs on @p rq.
    virtual void taskTick(Rq& rq, Task& curr) = 0;
    /// wakeup_preempt(): @p task woke up on @p rq; resched the CPU if it should preempt.
    virtual void wakeupPreempt(Rq& rq, Task& task, int wakeFlags) = 0;
    /// select_task_rq(): the CPU for @p task; @p wakeFlags (WakeFlag) say who asks: a wakeup
    /// (WakeTtwu, WakeSync), wake_up_new_task() (WakeFork), exec (WakeExec) or neither.
    virtual int selectTaskRq(const Task& task, int wakeFlags) = 0;
    /// balance(): after schedule() on @p rq, move this class's tasks between CPUs.
    virtual void balance(Rq& rq) = 0;
    /// migrate_task_rq(): @p task, not queued, is about to move to @p newCpu (set_task_cpu()).
    virtual void migrateTaskRq(Task& /*task*/, int /*newCpu*/) { }
    /// After the enqueue of a wakeup, before wakeup_preempt(): the class's part of waking
    /// @p task (the fair class lifts a task woken inside a kernel section out of a throttled
    /// hierarchy). A model hook: the kernel's task_woken() runs after wakeup_preempt().
    virtual void taskWoken(Rq& /*rq*/, Task& /*task*/) { }
    /// switched_from(): @p task leaves this class (sched_setscheduler).
    virtual void switchedFrom(Rq& /*rq*/, Task& /*task*/) { }
    /// switched_to(): @p task joins this class.
    virtual void switchedTo(Rq& /*rq*/, Task& /*task*/) { }
    /// update_curr(): charge the running task of @p rq for the time since the last update.
    virtual void updateCurr(Rq& rq) = 0;
};

} // namespace schedlab
