// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's run: the kernel core around the classes (__schedule, wakeups, exit, the tick,
// the setters of sched_setattr/affinity/cgroup moves), actions and the event loop. Construction
// is machinesetup.cpp, the resource guards resourceguard.cpp, the busy/wait books waitbook.cpp.
#include "machine.h"

#include "core/kernel/catalogue.h"

#include <algorithm>
#include <cerrno>

namespace schedlab {

namespace {

constexpr int kTickPriority = 1;

} // namespace

// --- tasks ------------------------------------------------------------------------------------

void Machine::wakeUpNewTask(Task& task)
{
    if (task.state != TaskRunState::NotStarted)
        return; // killed before it started
    if (task.isDl() && !task.dl.admitted) {
        // sched_setattr(SCHED_DEADLINE) as the task starts: __checkparam_dl() and the admission
        // test (kernel-model.md §15.1, §15.2); refused, the task stays SCHED_NORMAL.
        std::string why;
        const DlParams params = task.dl.params;
        // __sched_setscheduler(): a DL task's affinity must span its root domain (EPERM).
        const int err = task.cpus.count() < m_cpus ? -EPERM : m_dl->setAttr(task, params, &why);
        if (err == -EPERM)
            why = "its CPUs " + task.cpus.toString() + " do not span the root domain";
        if (err != 0) {
            failedAction(task.name, task.cpu,
                "sched_setattr(" + task.name + ", SCHED_DEADLINE "
                    + formatDurationHuman(Nanoseconds(params.runtime)) + "/"
                    + formatDurationHuman(Nanoseconds(params.deadline)) + "/"
                    + formatDurationHuman(Nanoseconds(params.effectivePeriod())) + "): "
                    + (err == -EBUSY        ? "EBUSY"
                            : err == -EPERM ? "EPERM"
                                            : "EINVAL")
                    + " (" + why + "); the task stays SCHED_NORMAL");
            task.policy = Policy::Normal;
        }
    }
    // wake_up_new_task(): the task's class chooses the CPU and queues it.
    SchedClass& cls = classOf(task);
    task.alive = true;
    // The parent's CPU: the CPU the fork runs on (sched_fork() puts the child there first).
    const int parentCpu = m_eventCpu >= 0 ? m_eventCpu : task.cpu;
    const int cpu = cls.selectTaskRq(task, WakeFork);
    attachToCpu(task, cpu);
    task.state = TaskRunState::Runnable;
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    recordSpawn(task, cpu, cls.lastPlacement(), parentCpu);
    cls.postInitTask(task, cpu); // post_init_entity_util_avg()
    cls.enqueueTask(rq, task, EnqueueInitial);
    markWaiting(task, cpu);
    wakeupPreempt(rq, task, WakeFork); // an idle CPU always reschedules
}

void Machine::recordSpawn(const Task& task, int cpu, MigrateDetail placed, int parentCpu)
{
    m_rec.append([&] {
        Record r;
        r.time = clock();
        r.entity = EntityRef::task(task.index);
        r.cpu = static_cast<uint16_t>(cpu);
        r.kind = RecordKind::Spawn;
        r.payload.generic.a = task.parent;
        // Placed away from the parent's CPU by fork balancing: c, d say why as a Migrate record
        // would (wake_up_new_task() sets the CPU without a migration, kernel-model.md §8.2).
        if (parentCpu >= 0 && parentCpu != cpu && placed.wake != WakePath::None) {
            r.payload.generic.b = parentCpu;
            r.payload.generic.c = static_cast<int64_t>(MigrateReason::Fork);
            r.payload.generic.d = placed.pack();
        }
        return r;
    }());
}

void Machine::timerWakeUp(int taskIndex, int64_t due)
{
    Task& t = *m_tasks[static_cast<size_t>(taskIndex)];
    const int cpu = t.sleepCpu;
    m_eventCpu = cpu;
    const int64_t irqsOn = m_rqs[static_cast<size_t>(cpu)]->sections.irqsOffUntil;
    if (irqsOn > clock()) {
        // The hrtimer interrupt cannot be taken while the CPU has interrupts disabled (a
        // cost-model section, core/workload/kernelwork.h).
        t.timer = m_events.post(Nanoseconds(irqsOn), Event{kTimerEvent, taskIndex, due});
        return;
    }
    const int64_t late = clock() - due;
    if (late > 0 && t.waitStart < 0 && t.state == TaskRunState::Sleeping) {
        // The wake-up latency counts from the timer's expiry.
        t.waitStart = due;
        t.waitCpu = cpu;
        m_work->timerHeldOff(t.name, cpu, due, late);
    }
    tryToWakeUp(t);
    // The hrtimer interrupt returns to the task it interrupted (kernel-model.md §7.1): in user
    // mode, exit_to_user_mode() acts on a NEED_RESCHED_LAZY that was pending on this CPU,
    // whoever asked for it (another CPU's wakeup sends no IPI), even when this wakeup went to
    // another CPU. A task in a kernel section keeps it until the section's end.
    if (m_rqs[static_cast<size_t>(cpu)]->curr && !inKernelMode(cpu))
        promoteLazyResched(cpu);
}

void Machine::tryToWakeUp(Task& task, int wakeFlags)
{
    if (task.state != TaskRunState::Sleeping && task.state != TaskRunState::WaitingChild
        && task.state != TaskRunState::BlockedLock)
        return;
    SchedClass& cls = classOf(task);
    task.state = TaskRunState::Runnable;
    if (task.se.onRq) {
        // ttwu_runnable(): still queued as delayed (only a fair task can be): requeue on the
        // same CPU, no selection.
        Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
        cls.enqueueTask(rq, task, EnqueueDelayed);
        record(RecordKind::Wakeup, task.se, task.cpu, 1, 0);
        markWaiting(task, task.cpu);
        cls.taskWoken(rq, task);
        wakeupPreempt(rq, task, 0);
        return;
    }
    // select_task_rq(), set_task_cpu() (migrate_task_rq()), ttwu_do_activate().
    const int prev = task.cpu;
    const int cpu = cls.selectTaskRq(task, WakeTtwu | wakeFlags);
    int flags = EnqueueWakeup;
    if (cpu != prev) {
        cls.migrateTaskRq(task, cpu);
        attachToCpu(task, cpu);
        flags |= EnqueueMigrated;
        ++task.migrations;
        recordMigrate(task.se, prev, cpu, MigrateReason::Wakeup, cls.lastPlacement());
    }
    // ttwu_do_activate(): the idle time that ends feeds rq->avg_idle; rq->idle_stamp is cleared.
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    for (SchedClass* c : m_classes)
        c->wokenOnCpu(rq);
    cls.enqueueTask(rq, task, flags);
    record(RecordKind::Wakeup, task.se, cpu, 0, 0);
    markWaiting(task, cpu);
    cls.taskWoken(rq, task);
    wakeupPreempt(rq, task, 0);
}

void Machine::exitTask(Task& task)
{
    if (task.state == TaskRunState::Exited)
        return;
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr == &task.se) {
        // do_exit(): PF_EXITING, then exit_notify() wakes a waiting parent while the task is
        // still `current` on its CPU (its last schedule() comes after), kernel-model.md §8.2.
        task.exiting = true;
        notifyParent(task);
        resched(task.cpu, false);
        return;
    }
    m_events.cancel(task.timer);
    m_bw->unlinkParked(task);
    classOf(task).taskDead(rq, task); // killed while not running: it leaves its queue
    endWaiting(task);
    finishExit(task);
}

void Machine::finishExit(Task& task)
{
    // The load leaves with the task; a parent blocked in fork+wait is woken.
    m_bw->endBoost(task);
    m_mutexes.releaseAll(task); // a dying task's mutexes go to their next waiters
    m_load->remove(task.se);
    task.exiting = false;
    task.alive = false;
    task.state = TaskRunState::Exited;
    task.exitedAt = clock();
    m_guard.taskExited();
    // Its program is not needed any more (forked children hold a reference of their own).
    task.stack.clear();
    task.stack.shrink_to_fit();
    task.pendingFork = nullptr;
    task.program.reset();
    record(RecordKind::Exit, task.se, 0, 0, 0);
    // Only forked tasks are released after the event (a released parent has exited).
    if (task.parent >= 0 && m_releaseExited)
        m_exitedThisEvent.push_back(task.index);
    notifyParent(task); // a task killed while not running: nothing woke its parent yet
}

void Machine::notifyParent(Task& task)
{
    // Only the parent can wait for this task (fork with wait): do_notify_parent() passes
    // WF_SYNC, which select_task_rq_fair() drops for an exiting waker. A released parent has
    // exited.
    if (task.parent < 0)
        return;
    Task* parent = m_tasks[static_cast<size_t>(task.parent)].get();
    if (parent && parent->waitingFor == task.index && parent->waitPending) {
        parent->waitingFor = -1; // it has not called wait4() yet: the wait will return at once
        return;
    }
    if (parent && parent->waitingFor == task.index && parent->state == TaskRunState::WaitingChild) {
        parent->waitingFor = -1;
        const int eventCpu = m_eventCpu;
        m_eventCpu = task.cpu; // the wakeup runs on the exiting task's CPU
        tryToWakeUp(*parent, WakeSync);
        m_eventCpu = eventCpu;
    }
}

void Machine::releaseExited()
{
    // After the event (and the schedule() calls it caused): the switch away from a dying task
    // has been recorded and nothing of the machine points at it any more. Its PELT load left its
    // cfs_rq at exit (LoadTracker::remove(), remove_entity_load_avg()); the run queues, the
    // balancer, the wake chains (Placement keeps task indices, never pointers), mutexes and
    // timers let go of it in exitTask()/finishExit().
    for (const int index : m_exitedThisEvent) {
        Task* t = m_tasks[static_cast<size_t>(index)].get();
        if (!t || !releasable(*t))
            continue;
        if (!m_foldForked || m_dottedListed) {
            releaseTask(*t, nullptr);
            continue;
        }
        // Folded in index order only: the summary sums its rows' shares in that order, so a fold
        // is always the first rows of its root, and a task that exits before an older sibling
        // waits (held) until that one is folded. A task read on its own (a probe's latency, a
        // row without CPU time, which the summary lists) or a long wait ends the folding of its
        // root: its tasks are summarised one by one from then on.
        RootFold& rf = m_folds.at(forkRoot(t->name, m_listedNames));
        auto foldable = [](const Task& u) { return !u.probe && u.cpuTime > 0; };
        if (!rf.broken && (!foldable(*t) || rf.order.size() > kFoldWindow))
            rf.broken = true;
        while (!rf.broken && !rf.order.empty()) {
            Task* front = m_tasks[static_cast<size_t>(rf.order.front())].get();
            if (front && !releasable(*front))
                break; // alive, or kept: the tasks after it wait
            if (front && !foldable(*front)) {
                rf.broken = true;
                break;
            }
            if (front) {
                rf.fold.root = forkRoot(front->name, m_listedNames);
                releaseTask(*front, &rf.fold);
            }
            rf.order.pop_front();
        }
        if (rf.broken) { // the tasks that waited, this one among them, summarised one by one
            for (const int j : rf.order)
                if (Task* w = m_tasks[static_cast<size_t>(j)].get(); w && releasable(*w))
                    releaseTask(*w, nullptr);
            rf.order.clear();
            if (m_tasks[static_cast<size_t>(index)])
                releaseTask(*t, nullptr);
        }
    }
    m_exitedThisEvent.clear();
}

bool Machine::releasable(const Task& t) const
{
    // Kept: a row still open at the end of the run (rare), or an entity still on its CPU's
    // rq->cfs_tasks (never after its final dequeue; freeing a listed task would unlink it from
    // the list the balancer walks and change the run).
    return t.parent >= 0 && metricsFinal(t) && !t.se.groupNode.is_linked();
}

void Machine::releaseTask(Task& t, FoldedForks* fold)
{
    m_guard.taskReleased(t.name.size(), t.waits.size());
    if (fold)
        foldExited(*fold, t, m_end.count());
    else
        m_released.push_back(summarizeExited(t));
    m_tasks[static_cast<size_t>(t.index)].reset();
}

void Machine::noteForked(const Task& child)
{
    if (!m_foldForked || m_dottedListed)
        return;
    if (RootFold& rf = m_folds[forkRoot(child.name, m_listedNames)]; !rf.broken)
        rf.order.push_back(child.index);
}

void Machine::releaseExitedTasks(bool fold)
{
    m_releaseExited = true;
    m_foldForked = fold;
    if (!fold)
        return;
    for (const auto& t : m_tasks)
        if (t && t->parent < 0)
            m_listedNames.insert(t->name);
    m_dottedListed = std::any_of(m_listedNames.begin(), m_listedNames.end(),
        [](const std::string& n) { return n.find('.') != std::string::npos; });
    for (const auto& t : m_tasks) // forked before (by index: their fold order)
        if (t && t->parent >= 0)
            noteForked(*t);
}

std::vector<const FoldedForks*> Machine::foldedForks() const
{
    std::vector<const FoldedForks*> out;
    for (const auto& [root, rf] : m_folds) {
        (void)root;
        if (rf.fold.count > 0)
            out.push_back(&rf.fold);
    }
    std::sort(out.begin(), out.end(),
        [](const FoldedForks* a, const FoldedForks* b) { return a->lastIndex < b->lastIndex; });
    return out;
}

std::vector<const ExitedTaskSummary*> Machine::releasedTasks() const
{
    std::vector<const ExitedTaskSummary*> out;
    out.reserve(m_released.size());
    for (const ExitedTaskSummary& e : m_released)
        out.push_back(&e);
    std::sort(out.begin(), out.end(),
        [](const ExitedTaskSummary* a, const ExitedTaskSummary* b) { return a->index < b->index; });
    return out;
}

Task* Machine::taskByName(const std::string& name)
{
    // The first task of that name, by index, as in the task list: null when it has been released
    // at its exit, which the callers treat as they treat an exited task (ESRCH: nothing to do).
    for (size_t i = 0; i < m_rec.taskNames.size(); ++i)
        if (m_rec.taskNames[i] == name)
            return m_tasks[i].get();
    return nullptr;
}

// --- the core scheduler -------------------------------------------------------------------------

void Machine::wakeupPreempt(Rq& rq, Task& task, int wakeFlags)
{
    // wakeup_preempt(): the woken task's class decides; an RT wakeup preempts a lower class, a
    // fair wakeup under RT starts the fair server instead.
    classOf(task).wakeupPreempt(rq, task, wakeFlags);
}

void Machine::resched(int cpu, bool lazy)
{
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    // PREEMPT_LAZY (kernel-model.md §7.1): a fair-class request sets NEED_RESCHED_LAZY, acted on
    // at the next return to user mode or promoted by the next tick. An interrupt (or the task's
    // own system call) on that CPU returns to user at once, unless the task runs a kernel section:
    // then at the section's end. A request from another CPU sends no IPI. Other models: at once.
    if (lazy && m_preempt == Preempt::Lazy && rq.curr && (m_eventCpu != cpu || inKernelMode(cpu))) {
        rq.needReschedLazy = true;
    } else {
        rq.needResched = true;
        m_reschedPending.push_back(cpu);
    }
}

bool Machine::promoteLazyResched(int cpu)
{
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    if (!rq.needReschedLazy)
        return false;
    rq.needReschedLazy = false;
    resched(cpu, false);
    return true;
}

void Machine::processResched()
{
    // Honour need_resched on every CPU that has it, lowest CPU first (deterministic). Each
    // schedule() counts as an event for the guards: a storm of them at one instant (CPUs
    // handing work back and forth) stops the run like a storm of events.
    while (!m_reschedPending.empty() && !m_guard.stopped()) {
        int c = m_reschedPending.front();
        if (m_reschedPending.size() == 1) { // the common case: one CPU, nothing to order
            m_reschedPending.clear();
        } else {
            std::sort(m_reschedPending.begin(), m_reschedPending.end());
            m_reschedPending.erase(std::unique(m_reschedPending.begin(), m_reschedPending.end()),
                m_reschedPending.end());
            c = m_reschedPending.front();
            m_reschedPending.erase(m_reschedPending.begin());
        }
        if (!m_rqs[static_cast<size_t>(c)]->needResched || !preemptible(c))
            continue; // (not preemptible: honoured when the kernel section ends)
        m_eventCpu = c;
        schedule(c);
        checkLimits();
    }
}

void Machine::stopRunning(Task& task)
{
    if (task.workLeft > 0) {
        task.workLeft = std::max<int64_t>(0, task.workLeft - (clock() - task.runStart));
        m_events.cancel(task.workDone);
        task.workDone = {};
    }
}

void Machine::startRunning(Task& task)
{
    task.runStart = clock();
    task.state = TaskRunState::Running;
    if (task.waitPending) {
        // The wait4() of a fork+wait whose parent was preempted on its way out of fork().
        task.waitPending = false;
        if (task.waitingFor >= 0) {
            task.blocking = true;
            return;
        }
    }
    if (task.workLeft == 0) {
        m_interp->advance(task); // executes instantaneous operations; may block or exit
        if (task.exiting && exitGroupMove(task))
            return; // preempted inside do_exit(): the exit goes on when it runs again
        if (task.exiting)
            notifyParent(task); // exit_notify() while the task is still current
    }
    if (task.workLeft > 0 && !task.blocking && !task.exiting) {
        const int index = task.index;
        task.workDone =
            m_events.post(Nanoseconds(after(task.workLeft)), Event{kWorkDoneEvent, index, 0});
    }
}

void Machine::schedule(int cpu)
{
    // __schedule(): every class operation goes through the class of the task concerned.
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    rq.needResched = false;
    rq.needReschedLazy = false;
    Task* prev = rq.curr ? &taskOf(*rq.curr) : nullptr;
    // prev's class blocks it (a task that blocks or dies leaves its queue) and may put it before
    // the pick; otherwise prev is put after the pick (unput).
    Task* unput = nullptr;
    if (prev) {
        stopRunning(*prev);
        // (A fair prev's class is called directly: every switch of the fair workloads.)
        if (!(isFair(*prev) ? m_fairSched->schedulePrev(rq, *prev)
                            : classOf(*prev).schedulePrev(rq, *prev)))
            unput = prev;
    }
    // The pick walks the classes (classPick(): fair server, deadline, RT, fair, idle); under core
    // scheduling it is the core-wide pick (core/coresched/).
    m_dlServer->stopIfIdle(rq); // dl_server_stop(): no fair task left
    bool forcedIdle = false;    // core scheduling left this CPU idle with runnable tasks (§11.2)
    auto pick = [&]() -> Task* {
        forcedIdle = false;
        SchedEntity* se = m_core->active() ? m_core->pickNextTask(cpu, forcedIdle) : classPick(cpu);
        return se ? &taskOf(*se) : nullptr;
    };
    Task* nextTask = pick();
    // The picked task's class may take it out of the pick (6.18+: parked by the throttle).
    while (nextTask && nextTask != prev
        && (isFair(*nextTask) ? m_fairSched->parkPicked(rq, *nextTask)
                              : classOf(*nextTask).parkPicked(rq, *nextTask)))
        nextTask = pick();
    if (!nextTask && !forcedIdle) {
        // About to go idle: prev is put, then the classes' balance() may pull a task
        // (sched_balance_newidle()) and the pick runs again.
        putPrevSetNextTask(rq, unput, nullptr);
        unput = nullptr;
        rq.curr = nullptr;
        for (SchedClass* cls : m_classes) { // prev_balance(): the first class that pulls
            if (cls->newIdleBalance(rq)) {
                nextTask = pick();
                break;
            }
        }
    }
    putPrevSetNextTask(rq, unput, nextTask);
    SchedEntity* next = nextTask ? &nextTask->se : nullptr;
    rq.curr = next;
    // From a task or from the stopper to idle, or from idle to a task: the classes follow.
    const bool wasIdle = !prev && !rq.stopperRan;
    if (const bool idle = !next; idle != wasIdle)
        for (SchedClass* cls : m_classes)
            cls->cpuIdleChanged(rq, idle);
    rq.stopperRan = false;

    if (prev && prev != nextTask) {
        ++prev->switches;
        if (prev->exiting) {
            finishExit(*prev);
        } else if (prev->blocking) {
            prev->blocking = false;
            if (prev->waitingFor >= 0) {
                prev->state = TaskRunState::WaitingChild;
            } else if (prev->waitsOnObject()) {
                prev->state = TaskRunState::BlockedLock;
            } else {
                prev->state = TaskRunState::Sleeping;
                prev->sleepCpu = cpu;
                const int idx = prev->index;
                const int64_t due = after(prev->sleepFor);
                // The timer fires at its due time: the handler reads it from the clock.
                prev->timer = m_events.post(Nanoseconds(due), Event{kTimerEvent, idx, -1});
            }
        } else {
            prev->state = TaskRunState::Runnable;
            markWaiting(*prev, cpu);
        }
    }
    if (nextTask != prev)
        recordSwitch(cpu, prev, nextTask);
    if (nextTask
        && (nextTask != prev || nextTask->state != TaskRunState::Running
            || nextTask->waitPending)) {
        endWaiting(*nextTask);
        startRunning(*nextTask);
        if (nextTask->blocking || nextTask->exiting)
            resched(cpu, false); // the program blocked at once: schedule again
    } else if (nextTask && nextTask == prev && nextTask->workLeft > 0
        && !m_events.isPending(nextTask->workDone)) {
        startRunning(*nextTask);
    } else if (nextTask && nextTask == prev && nextTask->workLeft == 0 && !nextTask->blocking
        && !nextTask->exiting) {
        startRunning(*nextTask); // stopped between two operations (e.g. leaving the kernel)
    }
    if (rq.curr)
        startTick(cpu);
    if (nextTask != prev) // hrtick_start_fair() from set_next_task_fair()
        armHrtick(rq);
    // The classes' balancing after the switch (the RT push/pull, kernel-model.md §10, and the
    // deadline class's, §15.7). Only those two balance; with no RT or DL task queued on any CPU
    // theirs return at once, so the walk is skipped.
    if (m_rt->queued() > 0 || m_dl->queued() > 0)
        for (SchedClass* cls : m_classes)
            cls->balance(rq);
}

void Machine::putPrevSetNextTaskClasses(Rq& rq, Task* prev, Task* next)
{
    // put_prev_set_next_task(): @p prev (not yet put by its class) is put by its class unless
    // @p next's class takes over both (the fair class's pick_next_task_fair() walk); then
    // next's class sets it. A higher class's pick with fair tasks waiting starves the fair
    // server (dl_server_start() in defer mode).
    if (prev && (!next || &classOf(*prev) != &classOf(*next))) {
        classOf(*prev).putPrevTask(rq, *prev);
        prev = nullptr;
    }
    if (!next)
        return;
    SchedClass& cls = classOf(*next);
    cls.putPrevSetNextTask(rq, prev, *next);
    if (&cls != m_classes[kFairClass] && rq.nrRunning > 0)
        m_dlServer->starve(rq.cpu);
}

// Inline into schedule() (and the stopper's preemption): at every switch.
[[gnu::always_inline]] inline void Machine::recordSwitch(int cpu, Task* prev, Task* next)
{
    ++m_contextSwitches;
    const int64_t now = clock();
    if (m_rec.discarding()) // nothing reads it: counted, not built
        m_rec.drop();
    else
        appendSwitchRecord(cpu, prev, next);
    WaitBook::switched(*m_rqs[static_cast<size_t>(cpu)], prev, next, now);
    // The longest run of each task (a bug-hunt metric): from switch-in to switch-out.
    if (prev) {
        if (prev->onCpuSince >= 0)
            prev->longestRunNs = std::max(prev->longestRunNs, now - prev->onCpuSince);
        prev->onCpuSince = -1;
    }
    if (next)
        next->onCpuSince = now;
}

void Machine::appendSwitchRecord(int cpu, const Task* prev, const Task* next)
{
    Record r;
    r.time = clock();
    r.entity = prev ? EntityRef::task(prev->index) : EntityRef{};
    r.cpu = static_cast<uint16_t>(cpu);
    r.kind = RecordKind::Switch;
    r.payload.generic.a = next ? next->index : -1;
    m_rec.append(r);
}

void Machine::armHrtickNow(Rq& rq)
{
    EventId& ev = rq.hrtick;
    m_events.cancel(ev);
    ev = {};
    // hrtick_update(): the running task's class arms the high-resolution tick (the fair class's
    // hrtick_start_fair(), none for the others).
    if (!rq.curr)
        return;
    SchedClass* cls = &classOf(taskOf(*rq.curr));
    const int64_t delta = cls->hrtickDelay(rq);
    if (delta <= 0)
        return; // the slice is already used up: the tick handles it
    const auto clsIndex = static_cast<int64_t>(
        std::find(m_classes.begin(), m_classes.end(), cls) - m_classes.begin());
    ev = m_events.post(Nanoseconds(clock() + delta), Event{kHrtickEvent, rq.cpu, clsIndex});
}

void Machine::hrtickFired(int cpu, size_t cls)
{
    m_eventCpu = cpu;
    Rq& r = *m_rqs[static_cast<size_t>(cpu)];
    r.hrtick = {};
    if (!r.curr)
        return;
    m_classes[cls]->updateCurr(r);
    resched(cpu, false); // entity_tick(queued=1): resched_curr
}

void Machine::dispatchEvent(void* machine, const Event& event)
{
    Machine& m = *static_cast<Machine*>(machine);
    switch (static_cast<EventKind>(event.kind)) {
    case kTickEvent:
        m.m_eventCpu = event.a;
        m.tick(event.a);
        return;
    case kWorkDoneEvent:
        if (!m.m_tasks[static_cast<size_t>(event.a)])
            return; // (cancelled at exit: never happens)
        m.m_eventCpu = m.m_tasks[static_cast<size_t>(event.a)]->cpu;
        m.onWorkDone(event.a);
        return;
    case kTimerEvent:
        if (!m.m_tasks[static_cast<size_t>(event.a)])
            return; // (cancelled at exit: never happens)
        m.timerWakeUp(event.a, event.b < 0 ? m.clock() : event.b);
        return;
    case kHrtickEvent:
        m.hrtickFired(event.a, static_cast<size_t>(event.b));
        return;
    case kSectionEndEvent: {
        m.m_eventCpu = event.a;
        Rq& r = *m.m_rqs[static_cast<size_t>(event.a)];
        r.sections.end = {};
        // need_resched set during the section is honoured now (preempt_enable()).
        if (r.needResched)
            m.m_reschedPending.push_back(event.a);
        return;
    }
    }
}

void Machine::startTick(int cpu)
{
    EventId& ev = m_rqs[static_cast<size_t>(cpu)]->tick;
    if (m_events.isPending(ev))
        return;
    // The periodic tick is on a global jiffies grid (no skew_tick); idle CPUs stop it (NOHZ).
    const int64_t next = (clock() / m_tickNs + 1) * m_tickNs;
    // A tick that coincides with other events runs after them: a task whose work ends exactly
    // at the tick has already made its next system call (e.g. gone to sleep) when the tick hits.
    ev = m_events.post(Nanoseconds(next), Event{kTickEvent, cpu, 0}, kTickPriority);
}

void Machine::tick(int cpu)
{
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    m_rqs[static_cast<size_t>(cpu)]->tick = {};
    if (const int64_t irqsOn = m_rqs[static_cast<size_t>(cpu)]->sections.irqsOffUntil;
        irqsOn > clock()) {
        // Interrupts are disabled on this CPU (cost model): the tick waits for them.
        m_rqs[static_cast<size_t>(cpu)]->tick =
            m_events.post(Nanoseconds(irqsOn), Event{kTickEvent, cpu, 0}, kTickPriority);
        return;
    }
    if (!rq.curr)
        return;
    Task& curr = taskOf(*rq.curr);
    classOf(curr).taskTick(rq, curr);
    // sched_balance_trigger(): periodic balance of the domains when due, NOHZ idle balance kick.
    m_balancer->tick(cpu);
    promoteLazyResched(cpu);
    startTick(cpu);
}

// --- run-time changes (§6.4 task reweight, sched_setattr, affinity, cgroup moves) ---------------

template <typename F> void Machine::changeTask(Task& task, int dequeueFlags, F&& mutate)
{
    // The sched_change pattern of the task's class.
    SchedClass& cls = classOf(task);
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (task.se.schedDelayed) // the core completes a delayed dequeue before a change
        cls.dequeueTask(rq, task, DequeueSleep | DequeueDelayed);
    const bool queued = task.queuedOnRq(); // task_on_rq_queued()
    const bool running = rq.curr == &task.se;
    if (queued)
        cls.dequeueTask(rq, task, dequeueFlags);
    if (running)
        cls.putPrevTask(rq, task);
    mutate(rq);
    Rq& nrq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (queued)
        cls.enqueueTask(nrq, task, EnqueueRestore);
    if (running)
        cls.setNextTask(nrq, task, false);
}

void Machine::setUserNice(Task& task, int nice)
{
    nice = std::clamp(nice, -20, 19);
    if (task.state == TaskRunState::Exited || nice == task.nice)
        return;
    SchedClass& cls = classOf(task);
    if (!cls.fairPolicy()) { // set_user_nice(): an RT task only records static_prio, kept for a
        task.nice = nice;    // later return to SCHED_NORMAL; no effect on RT
        return;
    }
    const int old = task.nice;
    changeTask(task, DequeueSave, [&](Rq& rq) {
        task.nice = nice;
        if (!task.se.idlePolicy) // set_load_weight(): SCHED_IDLE keeps WEIGHT_IDLEPRIO
            cls.reweightTask(rq, task);
    });
    cls.prioChanged(*m_rqs[static_cast<size_t>(task.cpu)], task, old);
}

void Machine::ignoredSlice(const std::string& task, Nanoseconds slice)
{
    // A profile without custom slices (6.6: sched_attr.sched_runtime is honoured from 6.12 on)
    // runs the task with the base slice: say so once per task and time.
    m_rtFindings.push_back({"ignored_setting", task, 0, clock(), 0,
        "slice " + formatDuration(slice) + " ignored: profile " + m_profileName
            + " has no custom slices (6.12+); the task runs with the base slice "
            + formatDurationHuman(Nanoseconds(m_baseSlice))});
}

void Machine::setSlice(Task& task, std::optional<Nanoseconds> slice)
{
    // __setscheduler_params(): a custom slice is set for fair_policy() only (kernel test).
    if (task.state != TaskRunState::Exited && !m_traits.customSlices && slice)
        ignoredSlice(task.name, *slice);
    if (task.state == TaskRunState::Exited || !m_traits.customSlices || !classOf(task).fairPolicy())
        return;
    changeTask(task, DequeueSave, [&](Rq&) {
        if (slice) {
            task.se.slice = std::clamp<int64_t>(slice->count(), 100000, 100000000);
            task.se.customSlice = true;
        } else {
            task.se.customSlice = false;
            task.se.slice = m_baseSlice;
        }
    });
}

void Machine::setPolicy(Task& task, Policy policy)
{
    if (task.state == TaskRunState::Exited || changeClass(task, policy))
        return; // a change of class: machineclasses.cpp
    changeTask(task, DequeueSave, [&](Rq& rq) {
        task.policy = policy;
        task.se.batchPolicy = policy == Policy::Batch;
        const bool idle = policy == Policy::Idle;
        if (idle != task.se.idlePolicy) {
            task.se.idlePolicy = idle;
            classOf(task).reweightTask(rq, task); // set_load_weight(p, true)
        }
    });
}

void Machine::moveQueuedTask(Task& task, int cpu, MigrateReason reason, MigrateDetail detail)
{
    // move_queued_task(): deactivate_task() (a non-sleep dequeue keeps the lag and relative
    // deadline, §8.1), set_task_cpu() (migrate_task_rq()), activate_task() (ENQUEUE_MIGRATED).
    SchedClass& cls = classOf(task);
    const int from = task.cpu;
    cls.dequeueTask(*m_rqs[static_cast<size_t>(from)], task, 0);
    m_bw->endBoost(task); // the boost belongs to the old CPU's hierarchy
    cls.migrateTaskRq(task, cpu);
    attachToCpu(task, cpu);
    ++task.migrations;
    recordMigrate(task.se, from, cpu, reason, detail);
    if (task.waitStart >= 0)
        task.waitCpu = cpu;
    cls.enqueueTask(*m_rqs[static_cast<size_t>(cpu)], task, EnqueueMigrated);
}

void Machine::stopperPreempt(Rq& rq, Task& task)
{
    // The stopper (stop_one_cpu_nowait(): migration_cpu_stop(), active_load_balance_cpu_stop())
    // preempts the running task: put_prev_task() of its class; it stays queued.
    stopRunning(task);
    classOf(task).putPrevTask(rq, task);
    rq.curr = nullptr;
    rq.stopperRan = true;
    resched(rq.cpu, false);
    task.state = TaskRunState::Runnable;
    ++task.switches;
    recordSwitch(rq.cpu, &task, nullptr);
}

void Machine::setAffinity(Task& task, const CpuSet& cpus)
{
    if (task.state == TaskRunState::Exited || cpus.empty())
        return;
    SchedClass& cls = classOf(task);
    Rq& src = *m_rqs[static_cast<size_t>(task.cpu)];
    task.cpus = cpus;
    if (cpus.test(task.cpu)) {
        cls.setCpusAllowed(src, task);
        return;
    }
    if (task.parked) {
        // A parked task moves to the new CPU's cfs_rq (and its limbo list if throttled there).
        m_bw->unlinkParked(task);
        m_load->remove(task.se);
        attachToCpu(task, cls.affinityCpu(task, m_eventCpu));
        m_bw->requeueParked(task);
        return;
    }
    if (!task.queuedOnRq()) {
        if (task.state == TaskRunState::NotStarted || cls.placesBlockedOnMaskChange())
            attachToCpu(task, std::max(0, cpus.first()));
        return;
    }
    if (task.state == TaskRunState::Sleeping || task.state == TaskRunState::WaitingChild
        || task.state == TaskRunState::BlockedLock || task.state == TaskRunState::NotStarted) {
        // A blocked task only gets its new mask; it moves when it wakes (select_task_rq). A
        // delayed one is fully dequeued first, as the core does before changing the mask.
        cls.dequeueTask(src, task, DequeueSleep | DequeueDelayed);
        if (task.state == TaskRunState::NotStarted)
            attachToCpu(task, std::max(0, cpus.first()));
        return;
    }
    // __set_cpus_allowed_ptr(): a running task is first preempted by the stopper (put back into
    // its queue), then moved as a queued one (move_queued_task()).
    if (src.curr == &task.se)
        stopperPreempt(src, task);
    const int target = cls.affinityCpu(task, m_eventCpu);
    moveQueuedTask(task, target, MigrateReason::Affinity);
    markWaiting(task, target);
    wakeupPreempt(*m_rqs[static_cast<size_t>(target)], task, 0);
}

void Machine::moveTask(Task& task, int group)
{
    if (task.state == TaskRunState::Exited || group == task.group)
        return;
    SchedClass& cls = classOf(task);
    if (SchedGroupOps* ops = cls.groupOps(); ops && !ops->admits(group)) {
        // cpu_cgroup_can_attach() → sched_rt_can_attach(): no RT task into a group without
        // RT runtime.
        failedAction("", task.cpu,
            "move " + task.name + " to " + m_groups[static_cast<size_t>(group)].path
                + ": EINVAL (the group has cpu.rt_runtime_us 0)");
        return;
    }
    schedMoveTask(task, group);
}

void Machine::schedMoveTask(Task& task, int group)
{
    SchedClass& cls = classOf(task);
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (cls.changeGroupInPlace(rq, task, group)) {
        attachToCpu(task, task.cpu);
        return;
    }
    if (task.parked) {
        m_bw->unlinkParked(task);
        m_load->remove(task.se);
        task.group = group;
        attachToCpu(task, task.cpu);
        m_bw->requeueParked(task);
        return;
    }
    // sched_move_task(): dequeue (SAVE|MOVE), task_change_group() of the class (the load moves
    // with the task: detach_task_cfs_rq / attach_task_cfs_rq), set_task_rq(), enqueue
    // (RESTORE|MOVE).
    changeTask(task, DequeueSave | DequeueMove, [&](Rq&) {
        cls.taskChangeGroup(task);
        task.group = group;
        attachToCpu(task, task.cpu);
    });
    // "the running task may have joined a throttled one": resched_curr(), acted on at the next
    // preemption point (the return to user mode of the task that wrote cgroup.procs, or of the
    // interrupt the request sends).
    if (rq.curr == &task.se)
        resched(task.cpu, false);
}

bool Machine::exitGroupMove(Task& task)
{
    // do_exit() → sched_autogroup_exit_task() → sched_move_task() (kernel-model.md §8.2 "Exit"),
    // before exit_notify(): the exiting task is dequeued (SAVE|MOVE) and put, its load detached
    // and attached again to its own group's queue, enqueued (RESTORE|MOVE: placed again with the
    // lag it had, or at V with NO_PLACE_LAG) and set as curr, and resched_curr() asks for a pick.
    // A kernel that preempts in kernel mode (full, lazy) makes that pick as the rq lock is
    // dropped, and another entity may run before the exit goes on (a switch out with
    // prev_state R+); voluntary and none take it only at the exit's final schedule(). Fair
    // tasks only: an exiting RT or DL task keeps its place (not modelled).
    if (!m_choices.exitGroupMove || task.exitMoved || &classOf(task) != m_classes[kFairClass])
        return false;
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr != &task.se)
        return false;
    task.exitMoved = true;
    task.exiting = false; // still an ordinary queued task while it is moved
    schedMoveTask(task, task.group);
    // Preempted here, resched_curr() above makes the pick first, and advance() resumes the exit.
    task.exiting = !preemptsInKernel();
    return !task.exiting;
}

void Machine::setFeature(Feature f, bool on)
{
    m_features.set(f, on);
    Record r;
    r.time = clock();
    r.kind = RecordKind::Feature;
    r.payload.generic.a = static_cast<int64_t>(f);
    r.payload.generic.b = on;
    m_rec.append(r);
}

void Machine::rebuildSums()
{
    // After a change of weight precision the V sums must be recomputed from the trees.
    auto rebuild = [](CfsRq& rq) {
        std::vector<SchedEntity*> entities;
        rq.forEachTree(
            [&](const SchedEntity& se) { entities.push_back(const_cast<SchedEntity*>(&se)); });
        for (SchedEntity* se : entities)
            rq.dequeueTree(*se);
        rq.clearTrees();
        for (SchedEntity* se : entities)
            rq.enqueueTree(*se);
    };
    for (auto& rq : m_rqs)
        rebuild(*rq->cfs);
    for (auto& g : m_groups)
        for (auto& rq : g.cfsRq)
            rebuild(*rq);
}

void Machine::apply(const Action& action)
{
    switch (action.kind) {
    case Action::Kind::Feature:
        for (const auto& [name, on] : action.features)
            if (auto f = featureFromName(name))
                setFeature(*f, on);
        break;
    case Action::Kind::Profile: {
        const WeightPrecision before = m_choices.weightPrecision;
        const bool flatBefore = m_choices.flat;
        if (action.profile) {
            if (const KernelProfile* p = findProfile(*action.profile)) {
                m_profileName = p->name;
                m_choices = p->choices;
                m_traits = p->traits;
            }
        }
        for (const auto& [choice, value] : action.overrides)
            applyOverride(m_choices, m_traits, choice, value);
        // The run-queue structure (flat or hierarchical, §6.1) is fixed for a run: queued
        // entities cannot move between the two layouts. A flat run keeps the task throttle.
        m_choices.flat = flatBefore;
        if (m_choices.flat && m_choices.throttle == ThrottleModel::Group)
            m_choices.throttle = ThrottleModel::Task;
        if (m_choices.weightPrecision != before) {
            rebuildSums();
            for (auto& t : m_tasks) // the lag bound's calc_delta_fair changed with the precision
                if (t)
                    t->lagBoundSlice = -1;
        }
        break;
    }
    case Action::Kind::Set: {
        const SetAction& s = action.set;
        if (s.cgroup) {
            const int g = groupByPath(*s.cgroup);
            if (g >= 0)
                applyCgroupFiles(g, s.files);
        } else if (s.task) {
            Task* t = taskByName(*s.task);
            if (!t)
                break;
            if (s.nice)
                setUserNice(*t, *s.nice);
            if (s.slice)
                setSlice(*t, *s.slice);
            if (s.policy)
                setPolicy(*t, *s.policy);
            if (s.cpus)
                if (auto set = CpuSet::parse(*s.cpus, m_cpus))
                    setAffinity(*t, *set);
        }
        break;
    }
    case Action::Kind::Move:
        if (Task* t = taskByName(action.task)) {
            const int g = groupByPath(action.cgroup);
            if (g >= 0)
                moveTask(*t, g);
        }
        break;
    case Action::Kind::Spawn:
        if (!action.spawn.empty() && canCreateTask(action.spawn.front().name, -1)) {
            Task& t = createTask(action.spawn.front(), action.spawn.front().name, -1,
                std::make_shared<const std::vector<Op>>(action.spawn.front().program));
            t.spawnedAt = clock();
            wakeUpNewTask(t);
        }
        break;
    case Action::Kind::Kill:
        if (Task* t = taskByName(action.task))
            exitTask(*t);
        break;
    }
    processResched();
    if (!m_exitedThisEvent.empty())
        releaseExited();
}

// --- the event loop -----------------------------------------------------------------------------

bool Machine::finished() const
{
    auto& events = const_cast<EventQueue&>(m_events);
    return !!m_guard.stopped() || events.nextTime() > m_end || events.empty();
}

bool Machine::step()
{
    if (finished()) {
        if (!m_guard.stopped() && m_events.now() < m_end)
            m_events.runUntil(m_end);
        return false;
    }
    runNextEvent();
    return true;
}

void Machine::runNextEvent()
{
    m_events.step();
    processResched();
    if (!m_exitedThisEvent.empty())
        releaseExited();
    checkLimits();
#ifdef SCHEDLAB_CHECKED
    checkInvariants(static_cast<const MachineView&>(*this), m_violations);
#endif
}

void Machine::runUntil(Nanoseconds t)
{
    t = std::min(t, m_end);
    // What step() checks first holds here: not stopped, an event due no later than the end.
    while (!m_guard.stopped() && m_events.nextTime() <= t)
        runNextEvent();
    if (!m_guard.stopped() && t > m_events.now())
        m_events.runUntil(t); // a stopped run stays at the time it stopped
}

} // namespace schedlab
