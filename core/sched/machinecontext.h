// SPDX-License-Identifier: GPL-2.0-or-later
// The machine as every scheduling class and unit sees it: the kernel's shared vocabulary of
// kernel/sched/core.c and sched.h — rq_clock(), cpu_rq(), nr_cpu_ids, smp_processor_id(),
// resched_curr(), wakeup_preempt(), try_to_wake_up(), move_queued_task(), the task lookup, the
// hrtimers — plus the recording hooks of the model. The machine (core/sim) implements it; the
// unit tests use one hand-driven FakeMachine (tests/support/fakemachine.h).
//
// What a single class or unit needs of another one is not here: the fair class holds the
// bandwidth control and the load tracker it calls, the RT class arms its own period timer, the
// fair server is given the pick it serves (dl_server_init()'s pick_task). Three narrow
// interfaces remain, each beside the one unit that calls it, for what only the machine can do
// for that unit: BalanceServices (the stopper, the blocked-load update), KernelWorkServices (a
// section's end, the fork and cgroup writes themselves) and ProgramServices (a program's system
// calls).
#pragma once

#include "core/base/eventid.h"
#include "core/fair/schedentity.h"
#include "core/record/recording.h"
#include "core/sched/migration.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace schedlab {

struct Rq;
struct Task;
struct TaskGroup;

class MachineContext
{
public:
    virtual ~MachineContext() = default;

    /// rq_clock() / rq_clock_task() (ns): one clock for every CPU. Read through the clock the
    /// implementation binds (bindClock()): the hot paths read it many times per event, and a
    /// virtual call for each would cost more than the read.
    int64_t clock() const { return *m_clock; }
    /// nr_cpu_ids.
    virtual int cpuCount() const = 0;
    /// cpu_rq(@p cpu).
    virtual Rq& rq(int cpu) = 0;
    virtual const Rq& rq(int cpu) const = 0;
    /// Tasks ever created, in fork order: task(0 … taskCount() − 1), released ones included.
    virtual int taskCount() const = 0;
    /// The task of index @p index (its pid, find_task_by_vpid()); not for a released task.
    virtual Task& task(int index) = 0;
    virtual const Task& task(int index) const = 0;
    /// The task of index @p index, or null once it has been released at its exit
    /// (Simulation::releaseExitedTasks): what a walk over every index reads.
    virtual const Task* findTask(int index) const { return &task(index); }
    /// The task groups, indexed by group; group 0 is the root.
    virtual const std::vector<TaskGroup>& taskGroups() const = 0;
    /// smp_processor_id() of the running event (the waker's, parent's or timer's CPU), -1 for
    /// none.
    virtual int thisCpu() const = 0;
    /// rq->nr_running of @p cpu: its tasks of every class, the running one included.
    virtual int nrRunning(int cpu) const = 0;
    /// idle_cpu() / available_idle_cpu(): nothing runs on @p cpu and nothing is queued.
    virtual bool idleCpu(int cpu) const = 0;
    /// preemptible() of @p cpu: neither a non-preemptible section of the kernel-work cost model
    /// nor (under preempt none/voluntary) a kernel section of the running task holds it.
    virtual bool preemptible(int cpu) const = 0;

    /// pick_task(): the class walk of @p cpu (the highest class with a task picks), without
    /// core scheduling's core-wide selection.
    virtual SchedEntity* pickTask(int cpu) = 0;

    /// resched_curr() (@p lazy: resched_curr_lazy()): @p cpu reschedules at its next chance.
    virtual void resched(int cpu, bool lazy = false) = 0;
    /// wakeup_preempt(): @p task arrived on @p rq; its class (or a higher one running there)
    /// decides whether the running task is preempted.
    virtual void wakeupPreempt(Rq& rq, Task& task, int wakeFlags = 0) = 0;
    /// wake_up_process() / try_to_wake_up() of a sleeping @p task.
    virtual void wakeUp(Task& task) = 0;
    /// move_queued_task_locked(): the queued @p task leaves its CPU for @p cpu (dequeue,
    /// set_task_cpu(), enqueue with ENQUEUE_MIGRATED), recorded as a migration for @p reason.
    virtual void moveQueuedTask(
        Task& task, int cpu, MigrateReason reason, MigrateDetail detail = {}) = 0;
    /// update_curr_common()'s accounting: @p delta ns of CPU time of the task of @p taskSe.
    virtual void accountExec(SchedEntity& taskSe, int64_t delta) = 0;

    /// A record of the recording (core/record/recording.h). While nothing reads the recording
    /// (countOnly()) it is counted here, without a call into the machine.
    void record(RecordKind kind, const SchedEntity& se, int64_t a = 0, int64_t b = 0, int64_t c = 0)
    {
        if (!m_counted || !m_counted->discarding()) {
            buildRecord(kind, se, a, b, c);
            return;
        }
        if (m_countEvents || kind == RecordKind::Spawn || kind == RecordKind::Exit)
            m_counted->drop();
    }
    /// Samples @p se's state after a change (vruntime, lag, deadline, weight). While nothing
    /// reads the recording the sample is counted here; a queued task's still goes to the
    /// machine's lag-bound metric (checkLagBound()) while the run measures it.
    void sample(const SchedEntity& se)
    {
        if (!m_counted || !m_counted->discarding()) {
            buildSample(se);
            return;
        }
        if (!se.cfsRq)
            return;
        if (se.isTask()) {
            if (se.onRq && m_lagBound)
                checkLagBound(se);
            if (m_countSamples)
                m_counted->drop();
        } else if (m_countSamples && !m_countFlat) // a flat run samples no group entity
            m_counted->drop();
    }

    /// hrtimer_start() in absolute mode: @p fn runs at @p at on @p cpu (-1: no CPU, a global
    /// timer); thisCpu() is @p cpu while it runs.
    virtual EventId startTimer(int64_t at, int cpu, std::function<void()> fn) = 0;
    /// hrtimer_try_to_cancel(); nothing if the timer already ran.
    virtual void cancelTimer(EventId id) = 0;
    /// hrtimer_active(): armed and not yet run.
    virtual bool timerPending(EventId id) const = 0;

protected:
    /// The implementation's clock, read by clock(); it must outlive the context.
    void bindClock(const int64_t* now) { m_clock = now; }
    /// record() and sample() when the recording is read: the machine builds the records.
    virtual void buildRecord(
        RecordKind kind, const SchedEntity& se, int64_t a, int64_t b, int64_t c) = 0;
    virtual void buildSample(const SchedEntity& se) = 0;
    /// The lag-bound metric's check of a queued task's sample (sample() while counting only).
    virtual void checkLagBound(const SchedEntity&) { }
    /// Lets record() and sample() count in place while @p rec discards (Recording::discarding()):
    /// what the machine's buildRecord() and buildSample() would count with these options
    /// (records of events, samples, a flat run queue), fixed for the run.
    void countOnly(Recording* rec, bool events, bool samples, bool flat)
    {
        m_counted = rec;
        m_countEvents = events;
        m_countSamples = samples;
        m_countFlat = flat;
    }

    /// Whether queued tasks' samples feed the lag-bound metric (RunOptions::lagBoundMetric).
    void measureLagBound(bool on) { m_lagBound = on; }
    bool lagBoundMeasured() const { return m_lagBound; }

private:
    static constexpr int64_t kNoClock = 0;
    const int64_t* m_clock = &kNoClock;
    Recording* m_counted = nullptr;
    bool m_lagBound = true;
    bool m_countEvents = false;
    bool m_countSamples = false;
    bool m_countFlat = false;
};

} // namespace schedlab
