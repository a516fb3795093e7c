// SPDX-License-Identifier: GPL-2.0-or-later
// The RT class (kernel/sched/rt.c), kernel-model.md §10. Simplifications: core/rt/rtclass.h.
#include "core/rt/rtclass.h"

#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>

namespace schedlab {

RtClass::RtClass(RtServices& services, int hz, bool fairServer)
    : m_s(services)
    , m_hz(hz)
    , m_fairServer(fairServer)
{
    RtGroup root;
    root.runtimeNs = kRtDefaultRuntimeNs; // the root group carries the global values (§10.1)
    root.periodNs = kRtDefaultPeriodNs;
    m_groups.push_back(std::move(root));
}

int RtClass::rrTicks() const
{
    return static_cast<int>(std::max<int64_t>(1, kRrTimesliceMs * m_hz / 1000));
}

// --- queue, pick, accounting ---------------------------------------------------------------------

void RtClass::enqueueTask(Rq& rq, Task& task, int flags)
{
    const bool head = flags & RtEnqueueHead;
    auto& q = rq.rt.queue;
    // Highest rt_priority first; a new task goes behind (head: before) its equals.
    auto pos = std::find_if(q.begin(), q.end(), [&](int idx) {
        const int p = m_s.taskAt(idx).rtPriority;
        return head ? p <= task.rtPriority : p < task.rtPriority;
    });
    q.insert(pos, task.index);
    task.rtQueued = true;
    // inc_rt_group() → start_rt_bandwidth(): the period timer runs while the rt_rq is busy.
    for (int g = task.group; g >= 0; g = m_s.groupParent(g))
        if (applies(g))
            m_s.armPeriodTimer(g);
    if (task.policy == Policy::RoundRobin && task.rtTicksLeft <= 0)
        task.rtTicksLeft = rrTicks();
    ++m_queued;
    m_s.taskQueued(task, true);
}

void RtClass::dequeueTask(Rq& rq, Task& task, int /*flags*/)
{
    if (!task.rtQueued)
        return;
    auto& q = rq.rt.queue;
    q.erase(std::remove(q.begin(), q.end(), task.index), q.end());
    task.rtQueued = false;
    --m_queued;
    m_s.taskQueued(task, false);
}

bool RtClass::applies(int group) const
{
    // sched_rt_runtime_exceeded() only limits an rt_rq whose runtime is below its period; the
    // root rt_rq is limited by the global values only before the fair server (6.12).
    if (group == 0 && m_fairServer)
        return false;
    const RtGroup& rg = m_groups[static_cast<size_t>(group)];
    return rg.runtimeNs != kRtRuntimeInf && rg.runtimeNs < rg.periodNs;
}

bool RtClass::throttled(const Task& task) const
{
    for (int g = task.group; g >= 0; g = m_s.groupParent(g)) {
        const RtGroup& rg = m_groups[static_cast<size_t>(g)];
        if (!rg.cpu.empty() && rg.cpu[static_cast<size_t>(task.cpu)].throttled)
            return true;
    }
    return false;
}

Task* RtClass::pickFirst(int cpu)
{
    for (int idx : m_s.runQueue(cpu).rt.queue) {
        Task& t = m_s.taskAt(idx);
        if (!throttled(t))
            return &t;
    }
    return nullptr;
}

SchedEntity* RtClass::pickTask(Rq& rq)
{
    // While the fair server boosts the fair class it runs as a deadline entity, above RT.
    if (rq.fairServer.running || m_queued <= 0)
        return nullptr;
    Task* t = pickFirst(rq.cpu);
    return t ? &t->se : nullptr;
}

void RtClass::updateCurrTask(Task& task)
{
    // update_curr_rt(): charge the task and every rt_rq on its path (§10.4).
    const int64_t now = m_s.clock();
    const int64_t delta = now - task.rtExecStart;
    if (delta <= 0)
        return;
    task.rtExecStart = now;
    task.se.sumExecRuntime += delta;
    m_s.accountExec(task.se, delta);
    for (int g = task.group; g >= 0; g = m_s.groupParent(g)) {
        if (!applies(g))
            continue;
        RtGroup& rg = m_groups[static_cast<size_t>(g)];
        if (rg.cpu.empty())
            rg.cpu.resize(static_cast<size_t>(m_s.cpuCount()));
        RtRqBw& bw = rg.cpu[static_cast<size_t>(task.cpu)];
        bw.rtTime += delta;
        m_s.armPeriodTimer(g);
        // sched_rt_runtime_exceeded(): a runtime of 0 (PI-boosted time) never throttles.
        if (!bw.throttled && rg.runtimeNs > 0 && bw.rtTime > rg.runtimeNs) {
            bw.throttled = true;
            m_s.resched(task.cpu);
        }
    }
}

void RtClass::updateCurr(Rq& rq)
{
    if (rq.curr) {
        Task& t = m_s.taskAt(rq.curr->task.index());
        if (t.isRt())
            updateCurrTask(t);
    }
}

void RtClass::putPrevTask(Rq& rq, Task& prev)
{
    updateCurrTask(prev);
    if (prev.blocking || prev.exiting)
        dequeueTask(rq, prev, 0);
}

void RtClass::setNextTask(Rq& /*rq*/, Task& next)
{
    next.rtExecStart = m_s.clock();
}

void RtClass::periodTimer(int group)
{
    // do_sched_rt_period_timer(): per CPU, rt_time −= min(rt_time, runtime); unthrottle when
    // rt_time < runtime; the timer stops when nothing is left to refill (§10.4).
    RtGroup& rg = m_groups[static_cast<size_t>(group)];
    rg.periodTimer = {};
    bool active = false;
    for (int c = 0; c < m_s.cpuCount() && !rg.cpu.empty(); ++c) {
        const Rq& rq = m_s.runQueue(c);
        if (rq.curr && m_s.taskAt(rq.curr->task.index()).isRt())
            updateCurrTask(m_s.taskAt(rq.curr->task.index()));
        RtRqBw& bw = rg.cpu[static_cast<size_t>(c)];
        if (bw.rtTime == 0 && !bw.throttled)
            continue;
        const int64_t runtime = rg.runtimeNs == kRtRuntimeInf ? bw.rtTime : rg.runtimeNs;
        bw.rtTime -= std::min(bw.rtTime, runtime);
        if (bw.throttled && (bw.rtTime < runtime || !applies(group))) {
            bw.throttled = false;
            m_s.resched(c);
        }
        if (bw.rtTime > 0 || bw.throttled)
            active = true;
    }
    if (active)
        m_s.armPeriodTimer(group);
}

// --- tick, preemption ----------------------------------------------------------------------------

void RtClass::taskTick(Rq& rq, Task& t)
{
    // task_tick_rt(): account; SCHED_RR: at the end of the slice requeue behind equals.
    updateCurrTask(t);
    if (t.policy != Policy::RoundRobin || --t.rtTicksLeft > 0)
        return;
    t.rtTicksLeft = rrTicks();
    const auto& q = rq.rt.queue;
    const bool peers = std::count_if(q.begin(), q.end(), [&](int idx) {
        return m_s.taskAt(idx).rtPriority == t.rtPriority;
    }) > 1;
    if (peers) {
        dequeueTask(rq, t, 0);
        enqueueTask(rq, t, 0);
        m_s.resched(rq.cpu);
    }
}

void RtClass::wakeupPreempt(Rq& rq, Task& task, int /*wakeFlags*/)
{
    // wakeup_preempt(): a higher class always preempts; within RT a higher priority does.
    const Task* curr = rq.curr ? &m_s.taskAt(rq.curr->task.index()) : nullptr;
    if (throttled(task) || curr == &task)
        return;
    if (curr && !curr->isRt() && rq.fairServer.running)
        return; // the fair server runs as a deadline entity, above RT
    if (!curr || !curr->isRt() || task.rtPriority > curr->rtPriority)
        m_s.resched(rq.cpu);
}

// --- CPU selection and push/pull
// -------------------------------------------------------------------

int RtClass::cpuPrio(int cpu)
{
    // What a CPU runs, as cpupri sees it: idle −1, a fair task 0, an RT task its priority.
    const Rq& rq = m_s.runQueue(cpu);
    const Task* t = rq.curr ? &m_s.taskAt(rq.curr->task.index()) : nullptr;
    if (t && t->isRt())
        return t->rtPriority;
    // cpupri follows the highest queued RT priority (rt.highest_prio.curr), not the running
    // task. The two differ when core scheduling keeps a queued RT task off its CPU (forced idle,
    // or a sibling's cookie): that CPU is no target for pushes and does not pull.
    if (m_s.coreSchedActive())
        if (const Task* rt = pickFirst(cpu))
            return rt->rtPriority;
    if (!t)
        return rq.nrRunning > 0 ? 0 : -1;
    return 0;
}

int RtClass::selectTaskRq(const Task& task, bool /*fork*/)
{
    // select_task_rq_rt(), simplified: stay on the previous CPU unless it runs an RT task of at
    // least the same priority; then find_lowest_rq(): the allowed CPU running the lowest
    // priority (previous CPU first on ties, then the lowest number), if lower than the task's.
    const int prev = task.cpu;
    if (task.cpus.test(prev) && cpuPrio(prev) < task.rtPriority)
        return prev;
    int best = -1;
    for (int c = task.cpus.first(); c >= 0; c = task.cpus.next(c)) {
        if (best < 0 || cpuPrio(c) < cpuPrio(best) || (cpuPrio(c) == cpuPrio(best) && c == prev))
            best = c;
    }
    if (best >= 0 && cpuPrio(best) < task.rtPriority)
        return best;
    return task.cpus.test(prev) ? prev : std::max(0, task.cpus.first());
}

void RtClass::balance(Rq& rq)
{
    const int cpu = rq.cpu;
    if (m_queued <= 0 || m_s.cpuCount() == 1)
        return;
    auto waiting = [&](const Task& t) {
        return m_s.runQueue(t.cpu).curr != &t.se && !throttled(t);
    };
    // push_rt_task(): move queued, not running RT tasks to CPUs running something lower. Under
    // core scheduling only a CPU that runs an RT task pushes (the kernel queues the push from
    // set_next_task_rt()): a CPU that core scheduling forced idle keeps its queued RT tasks, else
    // they would bounce between siblings that cannot run them.
    const bool runsRt = rq.curr && m_s.taskAt(rq.curr->task.index()).isRt();
    const std::vector<int> queue =
        m_s.coreSchedActive() && !runsRt ? std::vector<int>{} : rq.rt.queue;
    for (int idx : queue) {
        Task& t = m_s.taskAt(idx);
        if (!waiting(t))
            continue;
        int best = -1;
        for (int c = t.cpus.first(); c >= 0; c = t.cpus.next(c))
            if (c != cpu && m_s.cookieFits(t, c) && (best < 0 || cpuPrio(c) < cpuPrio(best)))
                best = c;
        if (best < 0 || cpuPrio(best) >= t.rtPriority)
            continue;
        m_s.migrate(t, best);
        m_s.wakeupPreempt(m_s.runQueue(best), t);
    }
    // pull_rt_task(): a CPU that no longer runs an RT task takes the highest waiting one.
    if (cpuPrio(cpu) > 0)
        return;
    Task* pick = nullptr;
    for (int c = 0; c < m_s.cpuCount(); ++c) {
        if (c == cpu)
            continue;
        for (int idx : m_s.runQueue(c).rt.queue) {
            Task& t = m_s.taskAt(idx);
            if (waiting(t) && t.cpus.test(cpu) && m_s.cookieFits(t, cpu)
                && (!pick || t.rtPriority > pick->rtPriority)) {
                pick = &t;
                break; // the queue is ordered: the first waiting one is its best
            }
        }
    }
    if (pick) {
        m_s.migrate(*pick, cpu);
        m_s.resched(cpu);
    }
}

} // namespace schedlab
