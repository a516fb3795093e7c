// SPDX-License-Identifier: GPL-2.0-or-later
// struct sched_class (kernel/sched/sched.h): what every scheduling class offers the core
// scheduler. The machine (core/sim) keeps the classes in priority order — the fair deadline
// server, deadline, RT, fair, idle — and walks them to pick the next task (__pick_next_task()),
// dispatches a task's class operations through classOf(task) instead of testing its policy, and
// gives every class the same machine context (core/sched/machinecontext.h: clock, resched, timers,
// recording), so a class can be unit-tested on the tests' FakeMachine
// (tests/support/fakemachine.h; tests/core/tst_rtunit.cpp, tst_fairformulas.cpp).
// The machine's __schedule(), setters and lifecycle reach a class only through these
// operations (core.c's p->sched_class->…); a task's block/dead state is task state
// (Task::blocking, Task::exiting), which put_prev and dequeue read.
#pragma once

#include "core/sched/migration.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct CgroupFiles;
struct Rq;
struct SchedEntity;
struct Task;

/// The admission walk of a cpu.rt_* write (tg_rt_schedulable(), tg_has_rt_tasks()), for the
/// kernel-work cost model (core/workload/kernelwork.h).
struct RtWalkCount
{
    int64_t groups = 0;         ///< tg_rt_schedulable() calls
    int64_t tasks = 0;          ///< threads visited by tg_has_rt_tasks()
    int64_t hasRtTaskCalls = 0; ///< tg_has_rt_tasks() calls
};

/// A class's side of the cpu controller: the cgroup writes and checks that the kernel routes to
/// one class's code (sched_group_set_shares(), sched_group_set_idle() and tg_set_cfs_bandwidth()
/// in fair.c; tg_set_rt_bandwidth() and sched_rt_can_attach() in rt.c). The machine keeps the
/// hierarchy (sched_create_group(), the paths) and hands each class its files.
class SchedGroupOps
{
public:
    virtual ~SchedGroupOps() = default;
    /// alloc_<class>_sched_group(): @p group, a child of @p parent, was created.
    virtual void groupCreated(int /*group*/, int /*parent*/) { }
    /// Writes the class's files among @p files to @p group; each refused write adds its message
    /// to @p refused ("write V > /g/file: ERRNO (why)"). Returns the RT admission walk.
    virtual RtWalkCount writeFiles(
        int group, const CgroupFiles& files, std::vector<std::string>& refused) = 0;
    /// sched_rt_can_attach(), __sched_setscheduler()'s group test: a task of this class may be
    /// in @p group (the RT class: only where the group has RT runtime).
    virtual bool admits(int /*group*/) const { return true; }
};

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
    /// put_prev_task(): @p prev stops running on @p rq (it stays queued if it was).
    virtual void putPrevTask(Rq& rq, Task& prev) = 0;
    /// set_next_task(): @p next starts running on @p rq; @p first: set_next_task(rq, p, true)
    /// of a pick, false for the restore of a change (sched_change).
    virtual void setNextTask(Rq& rq, Task& next, bool first) = 0;
    /// __schedule() before the pick, for the outgoing task @p prev of this class:
    /// try_to_block_task() → block_task()'s dequeue_task(DEQUEUE_SLEEP) when prev blocks
    /// (Task::blocking) or dies (Task::exiting: task_dead()'s part too), and what the class does
    /// as its task leaves the CPU. Returns true when prev's put_prev_task() ran here; false
    /// leaves it to putPrevSetNextTask() after the pick.
    virtual bool schedulePrev(Rq& rq, Task& prev) = 0;
    /// put_prev_set_next_task() after the pick, on the class of @p next: @p prev, when not null,
    /// is a task of this class not yet put (schedulePrev() returned false), possibly @p next
    /// itself. The fair class does pick_next_task_fair()'s walk (only the levels where prev and
    /// next differ); the default puts prev and sets next.
    virtual void putPrevSetNextTask(Rq& rq, Task* prev, Task& next)
    {
        if (prev)
            putPrevTask(rq, *prev);
        setNextTask(rq, next, true);
    }
    /// The class's check of its own pick before it runs: true when @p next was taken out of the
    /// pick instead (6.18+ throttle task work: a task of a throttled hierarchy is parked on its
    /// way to user mode), and the pick repeats.
    virtual bool parkPicked(Rq& /*rq*/, Task& /*next*/) { return false; }
    /// balance() before going idle: the class may pull work to @p rq (balance_fair():
    /// sched_balance_newidle()); true when it did and the pick should run again.
    virtual bool newIdleBalance(Rq& /*rq*/) { return false; }
    /// The CPU of @p rq switched to idle (@p idle) or back to a task: the class's state that
    /// follows (set_next_task_idle()'s update_idle_core(), do_idle()'s NOHZ entry,
    /// update_idle_rq_clock_pelt(); the PELT clock runs again when the CPU is busy).
    virtual void cpuIdleChanged(Rq& /*rq*/, bool /*idle*/) { }
    /// ttwu_do_activate() on @p rq: the idle time that ends feeds rq->avg_idle and
    /// rq->idle_stamp is cleared (kept by the fair class's new-idle balance in the model).
    virtual void wokenOnCpu(Rq& /*rq*/) { }
    /// task_dead() of a task killed while not running: it leaves its queue for good (the
    /// dequeue of a sleeping task, a delayed one completed).
    virtual void taskDead(Rq& /*rq*/, Task& /*task*/) { }
    /// yield_task(): the running task of @p rq yields.
    virtual void yieldTask(Rq& /*rq*/) { }
    /// fair_policy(): the class's tasks take nice, a custom slice and a load weight
    /// (set_user_nice() only records static_prio of an RT task for a later return to
    /// SCHED_NORMAL; __setscheduler_params() sets the slice of a fair policy only).
    virtual bool fairPolicy() const { return true; }
    /// set_load_weight(p, true) → reweight_task(): @p task's weight follows its nice/policy.
    virtual void reweightTask(Rq& /*rq*/, Task& /*task*/) { }
    /// prio_changed(): @p task's priority changed from nice @p oldNice (it is back on @p rq).
    virtual void prioChanged(Rq& /*rq*/, Task& /*task*/, int /*oldNice*/) { }
    /// A task of this class that is not queued is placed on its first allowed CPU as soon as its
    /// mask excludes its CPU (the RT model; the kernel, and the fair class, leave it where it is
    /// until select_task_rq() at its wakeup).
    virtual bool placesBlockedOnMaskChange() const { return false; }
    /// __set_cpus_allowed_ptr()'s destination for a queued or running @p task whose mask
    /// excludes its CPU (cpumask_any_and_distribute(); the RT model: select_task_rq_rt()).
    /// @p thisCpu: the CPU the change runs on, -1 for none.
    virtual int affinityCpu(const Task& task, int thisCpu) = 0;
    /// The class's part of sched_move_task() in place: true when it moved @p task to @p group
    /// itself (the RT model: no requeue); false when the core's sched_change pattern
    /// (dequeue SAVE|MOVE, task_change_group(), enqueue RESTORE|MOVE) does it.
    virtual bool changeGroupInPlace(Rq& /*rq*/, Task& /*task*/, int /*group*/) { return false; }
    /// task_change_group(): the class's part of sched_move_task() inside the sched_change
    /// pattern, before the machine's set_task_rq() to the new group.
    virtual void taskChangeGroup(Task& /*task*/) { }
    /// set_cpus_allowed(): @p task's mask changed and still holds its CPU (@p rq's).
    virtual void setCpusAllowed(Rq& /*rq*/, Task& /*task*/) { }
    /// The class's part of wake_up_new_task() once @p task's CPU is chosen
    /// (post_init_entity_util_avg(), init_entity_runnable_average()).
    virtual void postInitTask(Task& /*task*/, int /*cpu*/) { }
    /// Why the last selectTaskRq() chose its CPU (for the Migrate/Spawn records).
    virtual MigrateDetail lastPlacement() const { return {}; }
    /// hrtick_start_fair(): ns until the running task of @p rq should be preempted by the
    /// high-resolution tick, 0 for no hrtick (hrtick_update() arms it for its class only).
    virtual int64_t hrtickDelay(const Rq& /*rq*/) const { return 0; }
    /// The pick the fair deadline server runs for this class's tasks (fair_server_pick_task(),
    /// given to dl_server_init()); null for a class the server does not serve.
    virtual SchedEntity* serverPickTask(Rq& /*rq*/) { return nullptr; }
    /// The class's side of the cpu controller, null if it has no cgroup files.
    virtual SchedGroupOps* groupOps() { return nullptr; }
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
