// SPDX-License-Identifier: GPL-2.0-or-later
// The RT class (kernel/sched/rt.c), kernel-model.md §10. Simplifications: core/rt/rtclass.h.
#include "core/rt/rtclass.h"

#include "core/coresched/corescheduler.h"
#include "core/fair/taskgroup.h"
#include "core/kernel/cgroupfiles.h"
#include "core/kernel/profile.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <unordered_map>

namespace schedlab {

RtClass::RtClass(MachineContext& ctx, int hz, bool fairServer)
    : m_ctx(ctx)
    , m_hz(hz)
    , m_fairServer(fairServer)
{
    RtGroup root;
    root.runtimeNs = kRtDefaultRuntimeNs; // the root group carries the global values (§10.1)
    root.periodNs = kRtDefaultPeriodNs;
    m_groups.push_back(std::move(root));
}

void RtClass::armPeriodTimer(int g)
{
    RtGroup& rg = group(g);
    if (m_ctx.timerPending(rg.periodTimer))
        return;
    rg.periodTimer = m_ctx.startTimer(m_ctx.clock() + rg.periodNs, -1, [this, g] {
        group(g).periodTimer = {};
        periodTimer(g);
    });
}

bool RtClass::cookieFits(const Task& task, int cpu) const
{
    return !m_core || m_core->cookieFits(task, cpu);
}

int RtClass::rrTicks() const
{
    return static_cast<int>(std::max<int64_t>(1, kRrTimesliceMs * m_hz / 1000));
}

// --- queue, pick, accounting ---------------------------------------------------------------------

void RtClass::enqueueTask(Rq& rq, Task& task, int flags)
{
    // enqueue_rt_entity() → __enqueue_rt_entity(): the task goes behind its equals, with
    // ENQUEUE_HEAD before them (list_add / list_add_tail), and its priority's bit is set.
    RtRq& q = rq.rt;
    const int i = RtRq::indexOf(task.rtPriority);
    int& first = q.head[static_cast<size_t>(i)];
    int& last = q.tail[static_cast<size_t>(i)];
    if (first < 0) {
        task.rtPrev = task.rtNext = -1;
        first = last = task.index;
        q.bitmap[static_cast<size_t>(i / 64)] |= uint64_t{1} << (i % 64);
    } else if (flags & RtEnqueueHead) {
        task.rtPrev = -1;
        task.rtNext = first;
        m_ctx.task(first).rtPrev = task.index;
        first = task.index;
    } else {
        task.rtPrev = last;
        task.rtNext = -1;
        m_ctx.task(last).rtNext = task.index;
        last = task.index;
    }
    ++q.nrQueued;
    task.rtQueued = true;
    // inc_rt_group() → start_rt_bandwidth(): the period timer runs while the rt_rq is busy.
    for (int g = task.group; g >= 0; g = m_ctx.taskGroups()[static_cast<size_t>(g)].parent)
        if (applies(g))
            armPeriodTimer(g);
    if (task.policy == Policy::RoundRobin && task.rtTicksLeft <= 0)
        task.rtTicksLeft = rrTicks();
    ++m_queued;
    if (m_core)
        m_core->rtTaskQueued(task, true);
}

void RtClass::dequeueTask(Rq& rq, Task& task, int /*flags*/)
{
    if (rq.curr == &task.se)
        updateCurrTask(task); // dequeue_task_rt() → update_curr_rt()
    if (!task.rtQueued)
        return;
    // __dequeue_rt_entity(): list_del, and the priority's bit cleared when its list empties.
    RtRq& q = rq.rt;
    const int i = RtRq::indexOf(task.rtPriority);
    if (task.rtPrev >= 0)
        m_ctx.task(task.rtPrev).rtNext = task.rtNext;
    else
        q.head[static_cast<size_t>(i)] = task.rtNext;
    if (task.rtNext >= 0)
        m_ctx.task(task.rtNext).rtPrev = task.rtPrev;
    else
        q.tail[static_cast<size_t>(i)] = task.rtPrev;
    if (q.head[static_cast<size_t>(i)] < 0)
        q.bitmap[static_cast<size_t>(i / 64)] &= ~(uint64_t{1} << (i % 64));
    task.rtPrev = task.rtNext = -1;
    --q.nrQueued;
    task.rtQueued = false;
    --m_queued;
    if (m_core)
        m_core->rtTaskQueued(task, false);
}

std::vector<int> RtClass::queuedTasks(const Rq& rq)
{
    std::vector<int> out;
    for (int i = rq.rt.firstIndex(); i >= 0; i = rq.rt.nextIndex(i + 1))
        for (int idx = rq.rt.head[static_cast<size_t>(i)]; idx >= 0; idx = m_ctx.task(idx).rtNext)
            out.push_back(idx);
    return out;
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
    for (int g = task.group; g >= 0; g = m_ctx.taskGroups()[static_cast<size_t>(g)].parent) {
        const RtGroup& rg = m_groups[static_cast<size_t>(g)];
        if (!rg.cpu.empty() && rg.cpu[static_cast<size_t>(task.cpu)].throttled)
            return true;
    }
    return false;
}

Task* RtClass::pickFirst(int cpu)
{
    // pick_next_rt_entity(): the first task of the highest non-empty priority; tasks of a
    // throttled rt_rq are passed over (the kernel skips their group's entity).
    const RtRq& q = m_ctx.rq(cpu).rt;
    for (int i = q.firstIndex(); i >= 0; i = q.nextIndex(i + 1))
        for (int idx = q.head[static_cast<size_t>(i)]; idx >= 0;) {
            Task& t = m_ctx.task(idx);
            ++m_queueVisits;
            if (!throttled(t))
                return &t;
            idx = t.rtNext;
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
    const int64_t now = m_ctx.clock();
    const int64_t delta = now - task.rtExecStart;
    if (delta <= 0)
        return;
    task.rtExecStart = now;
    task.se.sumExecRuntime += delta;
    m_ctx.accountExec(task.se, delta);
    for (int g = task.group; g >= 0; g = m_ctx.taskGroups()[static_cast<size_t>(g)].parent) {
        if (!applies(g))
            continue;
        RtGroup& rg = m_groups[static_cast<size_t>(g)];
        if (rg.cpu.empty())
            rg.cpu.resize(static_cast<size_t>(m_ctx.cpuCount()));
        RtRqBw& bw = rg.cpu[static_cast<size_t>(task.cpu)];
        bw.rtTime += delta;
        armPeriodTimer(g);
        // sched_rt_runtime_exceeded(): a runtime of 0 (PI-boosted time) never throttles.
        if (!bw.throttled && rg.runtimeNs > 0 && bw.rtTime > rg.runtimeNs) {
            bw.throttled = true;
            m_ctx.resched(task.cpu);
        }
    }
}

void RtClass::updateCurr(Rq& rq)
{
    if (rq.curr) {
        Task& t = m_ctx.task(rq.curr->task.value);
        if (t.isRt())
            updateCurrTask(t);
    }
}

void RtClass::switchedTo(Rq& rq, Task& task)
{
    // switched_to_rt(), model: the running task's CPU reschedules at once; a queued one checks
    // for preemption as at a wakeup (the RT balance after that schedule() may push it).
    if (rq.curr == &task.se)
        m_ctx.resched(rq.cpu);
    else if (task.rtQueued)
        m_ctx.wakeupPreempt(rq, task);
}

void RtClass::putPrevTask(Rq& /*rq*/, Task& prev)
{
    updateCurrTask(prev);
}

bool RtClass::schedulePrev(Rq& rq, Task& prev)
{
    putPrevTask(rq, prev);
    if (prev.blocking || prev.exiting)
        dequeueTask(rq, prev, 0); // block_task()
    return true;
}

void RtClass::taskDead(Rq& rq, Task& task)
{
    dequeueTask(rq, task, 0);
}

void RtClass::setNextTask(Rq& /*rq*/, Task& next, bool /*first*/)
{
    next.rtExecStart = m_ctx.clock();
}

bool RtClass::changeGroupInPlace(Rq& rq, Task& task, int group)
{
    if (rq.curr == &task.se)
        updateCurrTask(task);
    task.group = group;
    if (task.rtQueued)
        m_ctx.resched(task.cpu);
    return true;
}

void RtClass::setCpusAllowed(Rq& rq, Task& /*task*/)
{
    balance(rq);
}

void RtClass::periodTimer(int group)
{
    // do_sched_rt_period_timer(): per CPU, rt_time −= min(rt_time, runtime); unthrottle when
    // rt_time < runtime; the timer stops when nothing is left to refill (§10.4).
    RtGroup& rg = m_groups[static_cast<size_t>(group)];
    bool active = false;
    for (int c = 0; c < m_ctx.cpuCount() && !rg.cpu.empty(); ++c) {
        const Rq& rq = m_ctx.rq(c);
        if (rq.curr && m_ctx.task(rq.curr->task.value).isRt())
            updateCurrTask(m_ctx.task(rq.curr->task.value));
        RtRqBw& bw = rg.cpu[static_cast<size_t>(c)];
        if (bw.rtTime == 0 && !bw.throttled)
            continue;
        const int64_t runtime = rg.runtimeNs == kRtRuntimeInf ? bw.rtTime : rg.runtimeNs;
        bw.rtTime -= std::min(bw.rtTime, runtime);
        if (bw.throttled && (bw.rtTime < runtime || !applies(group))) {
            bw.throttled = false;
            m_ctx.resched(c);
        }
        if (bw.rtTime > 0 || bw.throttled)
            active = true;
    }
    if (active)
        armPeriodTimer(group);
}

// --- the cpu controller's RT files (§10.1–§10.3) -------------------------------------------------

namespace {

std::string errnoName(int err)
{
    switch (err) {
    case -EBUSY:
        return "EBUSY";
    case -EPERM:
        return "EPERM";
    default:
        return "EINVAL";
    }
}

} // namespace

void RtClass::groupCreated(int group, int parent)
{
    // alloc_rt_sched_group(): runtime 0, period 1 s (§10.1); the kernel's list order for the
    // admission walk.
    m_groups.resize(std::max(m_groups.size(), static_cast<size_t>(group) + 1));
    m_groups[static_cast<size_t>(parent)].children.push_back(group);
}

bool RtClass::admits(int group) const
{
    // sched_rt_can_attach(): no RT task in a group without RT runtime (the root always has it).
    return group == 0 || m_groups[static_cast<size_t>(group)].runtimeNs != 0;
}

RtWalkCount RtClass::writeFiles(
    int group, const CgroupFiles& files, std::vector<std::string>& refused)
{
    RtWalkCount total;
    const std::string& path = m_ctx.taskGroups()[static_cast<size_t>(group)].path;
    auto write = [&](const std::string& file, int64_t value, int64_t periodNs, int64_t runtimeNs) {
        RtWalkCount c;
        std::string why;
        const int err = setBandwidth(group, periodNs, runtimeNs, &c, &why);
        total.groups += c.groups;
        total.tasks += c.tasks;
        total.hasRtTaskCalls += c.hasRtTaskCalls;
        if (err)
            refused.push_back("write " + std::to_string(value) + " > " + path + "/" + file + ": "
                + errnoName(err) + " (" + why + ")");
    };
    const RtGroup& rg = m_groups[static_cast<size_t>(group)];
    // sched_group_set_rt_period() keeps the runtime; sched_group_set_rt_runtime() the period.
    if (files.rtPeriodUs)
        write("cpu.rt_period_us", *files.rtPeriodUs, *files.rtPeriodUs * 1000, rg.runtimeNs);
    if (files.rtRuntimeUs) {
        const int64_t us = *files.rtRuntimeUs;
        write("cpu.rt_runtime_us", us, m_groups[static_cast<size_t>(group)].periodNs,
            us < 0 ? kRtRuntimeInf : us * 1000);
    }
    return total;
}

// --- RT group bandwidth: admission (§10.2, §10.3)
// --------------------------------------------------

int RtClass::setBandwidth(
    int group, int64_t periodNs, int64_t runtimeNs, RtWalkCount* count, std::string* why)
{
    // tg_set_rt_bandwidth(): plain argument checks first.
    if (group == 0 && runtimeNs == 0) {
        *why = "the root group's runtime cannot be 0";
        return -EINVAL;
    }
    if (periodNs == 0) {
        *why = "period 0";
        return -EINVAL;
    }
    if (runtimeNs != kRtRuntimeInf && runtimeNs > kMaxRtRuntimeNs) {
        *why = "runtime above max_rt_runtime";
        return -EINVAL;
    }
    const bool walkAll =
        m_choices && m_choices->rtConstraintCheck == RtConstraintCheck::WalkAllTasks;

    // tg_has_rt_tasks() needs, per group, how many threads the iteration visits before it finds
    // an RT task of the group. Both iterations are counted exactly from one pass over the task
    // list, built on the first call: walk_all_tasks iterates every thread of the system
    // (for_each_process_thread, in fork order) and stops at the first RT task of the group;
    // patched iterates the group's own tasks (css_task_iter) and stops at its first RT task.
    bool built = false;
    int64_t liveThreads = 0;
    std::unordered_map<int, int64_t> firstRtInSystem; // group → 1-based position in all threads
    std::unordered_map<int, int64_t> firstRtInGroup;  // group → 1-based position in its tasks
    std::unordered_map<int, int64_t> groupThreads;    // group → live tasks
    auto build = [&] {
        built = true;
        for (int i = 0; i < m_ctx.taskCount(); ++i) {
            const Task* t = m_ctx.findTask(i); // null: released at its exit
            if (!t || !t->alive)
                continue;
            ++liveThreads;
            const int64_t inGroup = ++groupThreads[t->group];
            if (t->isRt()) {
                firstRtInSystem.try_emplace(t->group, liveThreads);
                firstRtInGroup.try_emplace(t->group, inGroup);
            }
        }
    };
    auto hasRtTasks = [&](int g) {
        if (!built)
            build();
        ++count->hasRtTaskCalls;
        if (walkAll) {
            const auto it = firstRtInSystem.find(g);
            count->tasks += it == firstRtInSystem.end() ? liveThreads : it->second;
            return it != firstRtInSystem.end();
        }
        const auto it = firstRtInGroup.find(g);
        if (it != firstRtInGroup.end()) {
            count->tasks += it->second;
            return true;
        }
        const auto n = groupThreads.find(g);
        count->tasks += n == groupThreads.end() ? 0 : n->second;
        return false;
    };
    auto periodOf = [&](int g) {
        return g == group ? periodNs : m_groups[static_cast<size_t>(g)].periodNs;
    };
    auto runtimeOf = [&](int g) {
        return g == group ? runtimeNs : m_groups[static_cast<size_t>(g)].runtimeNs;
    };
    const uint64_t globalRatio = toRatio(kRtDefaultPeriodNs, kRtDefaultRuntimeNs);
    // tg_rt_schedulable() for one group (§10.2 rules 1–4).
    auto schedulable = [&](int g) -> int {
        ++count->groups;
        const int64_t period = periodOf(g);
        const int64_t runtime = runtimeOf(g);
        const std::string& path = m_ctx.taskGroups()[static_cast<size_t>(g)].path;
        if (runtime != kRtRuntimeInf && runtime > period) {
            *why = path + ": runtime above the period";
            return -EINVAL;
        }
        // Rule 2. Before b4fb015eeff7 (walk_all_tasks) every group whose runtime would be 0 is
        // checked; after it (patched) only a group whose runtime changes from non-zero to 0.
        const bool check =
            runtime == 0 && (walkAll || m_groups[static_cast<size_t>(g)].runtimeNs != 0);
        if (check && hasRtTasks(g)) {
            *why = path + " has RT tasks";
            return -EBUSY;
        }
        const uint64_t total = toRatio(period, runtime);
        if (total > globalRatio) {
            *why = path + ": more than the global sched_rt_runtime_us/sched_rt_period_us";
            return -EINVAL;
        }
        uint64_t sum = 0;
        for (int c : m_groups[static_cast<size_t>(g)].children)
            sum += toRatio(periodOf(c), runtimeOf(c));
        if (sum > total) {
            *why = path + ": the children's runtimes exceed the group's";
            return -EINVAL;
        }
        return 0;
    };
    // walk_tg_tree(): pre-order from the root; each parent's children list is newest first.
    std::vector<int> stack{0};
    while (!stack.empty()) {
        const int g = stack.back();
        stack.pop_back();
        if (const int err = schedulable(g))
            return err;
        const auto& children = m_groups[static_cast<size_t>(g)].children;
        // children is in creation order; pushing it in order pops the newest first.
        for (int c : children)
            stack.push_back(c);
    }
    RtGroup& rg = m_groups[static_cast<size_t>(group)];
    rg.periodNs = periodNs;
    rg.runtimeNs = runtimeNs;
    // A raised runtime may unthrottle at once (the kernel re-checks at the next period timer;
    // an rt_rq whose rt_time is now below the runtime is released there).
    if (!rg.cpu.empty())
        armPeriodTimer(group);
    return 0;
}

// --- tick, preemption ----------------------------------------------------------------------------

void RtClass::taskTick(Rq& rq, Task& t)
{
    // task_tick_rt(): account; SCHED_RR: at the end of the slice requeue behind equals.
    updateCurrTask(t);
    if (t.policy != Policy::RoundRobin || --t.rtTicksLeft > 0)
        return;
    t.rtTicksLeft = rrTicks();
    // rt_se->run_list.prev != rt_se->run_list.next: its priority's list holds another task.
    const auto i = static_cast<size_t>(RtRq::indexOf(t.rtPriority));
    const bool peers = rq.rt.head[i] >= 0 && rq.rt.head[i] != rq.rt.tail[i];
    if (peers) {
        dequeueTask(rq, t, 0);
        enqueueTask(rq, t, 0);
        m_ctx.resched(rq.cpu);
    }
}

void RtClass::wakeupPreempt(Rq& rq, Task& task, int /*wakeFlags*/)
{
    // wakeup_preempt(): a higher class always preempts; within RT a higher priority does.
    const Task* curr = rq.curr ? &m_ctx.task(rq.curr->task.value) : nullptr;
    if (throttled(task) || curr == &task)
        return;
    if (curr && curr->isDl())
        return; // the deadline class is above RT (kernel-model.md §15.3)
    if (curr && !curr->isRt() && rq.fairServer.running)
        return; // the fair server runs as a deadline entity, above RT
    if (!curr || !curr->isRt() || task.rtPriority > curr->rtPriority)
        m_ctx.resched(rq.cpu);
}

// --- CPU selection and push/pull
// -------------------------------------------------------------------

int RtClass::cpuPrio(int cpu)
{
    // What a CPU runs, as cpupri sees it: idle −1, a fair task 0, an RT task its priority.
    const Rq& rq = m_ctx.rq(cpu);
    const Task* t = rq.curr ? &m_ctx.task(rq.curr->task.value) : nullptr;
    if (t && t->isRt())
        return t->rtPriority;
    // cpupri follows the highest queued RT priority (rt.highest_prio.curr), not the running
    // task. The two differ when core scheduling keeps a queued RT task off its CPU (forced idle,
    // or a sibling's cookie): that CPU is no target for pushes and does not pull.
    if ((m_core && m_core->active()))
        if (const Task* rt = pickFirst(cpu))
            return rt->rtPriority;
    if (!t)
        return rq.nrRunning > 0 ? 0 : -1;
    return 0;
}

int RtClass::selectTaskRq(const Task& task, int /*wakeFlags*/)
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
    if (m_queued <= 0 || m_ctx.cpuCount() == 1)
        return;
    auto waiting = [&](const Task& t) { return m_ctx.rq(t.cpu).curr != &t.se && !throttled(t); };
    // The lowest priority another CPU runs: no task at or below it can be pushed anywhere. It
    // only changes when a push changes a queue, and is then computed again.
    auto lowestElsewhere = [&] {
        int lowest = std::numeric_limits<int>::max();
        for (int c = 0; c < m_ctx.cpuCount(); ++c)
            if (c != cpu)
                lowest = std::min(lowest, cpuPrio(c));
        return lowest;
    };
    // push_rt_task(): move queued, not running RT tasks to CPUs running something lower. Under
    // core scheduling only a CPU that runs an RT task pushes (the kernel queues the push from
    // set_next_task_rt()): a CPU that core scheduling forced idle keeps its queued RT tasks, else
    // they would bounce between siblings that cannot run them. The walk follows the queue in
    // place: a push only unlinks the task it moves (the next one is read before), and it stops
    // at the first task whose priority no other CPU runs below, as every later one is lower.
    const bool runsRt = rq.curr && m_ctx.task(rq.curr->task.value).isRt();
    if (rq.rt.nrQueued > 0 && (!(m_core && m_core->active()) || runsRt)) {
        int lowest = lowestElsewhere();
        bool done = false;
        for (int i = rq.rt.firstIndex(); i >= 0 && !done; i = rq.rt.nextIndex(i + 1)) {
            for (int idx = rq.rt.head[static_cast<size_t>(i)]; idx >= 0;) {
                Task& t = m_ctx.task(idx);
                ++m_queueVisits;
                idx = t.rtNext;
                if (t.rtPriority <= lowest) {
                    done = true;
                    break;
                }
                if (!waiting(t))
                    continue;
                int best = -1;
                for (int c = t.cpus.first(); c >= 0; c = t.cpus.next(c))
                    if (c != cpu && cookieFits(t, c) && (best < 0 || cpuPrio(c) < cpuPrio(best)))
                        best = c;
                if (best < 0 || cpuPrio(best) >= t.rtPriority)
                    continue;
                m_ctx.moveQueuedTask(t, best, MigrateReason::Rt);
                m_ctx.wakeupPreempt(m_ctx.rq(best), t);
                lowest = lowestElsewhere();
            }
        }
    }
    // pull_rt_task(): a CPU that no longer runs an RT task takes the highest waiting one.
    if (cpuPrio(cpu) > 0)
        return;
    Task* pick = nullptr;
    for (int c = 0; c < m_ctx.cpuCount(); ++c) {
        if (c == cpu)
            continue;
        const RtRq& q = m_ctx.rq(c).rt;
        bool found = false;
        for (int i = q.firstIndex(); i >= 0 && !found; i = q.nextIndex(i + 1)) {
            // The queue is ordered: nothing from here on beats the pick so far.
            if (pick && RtRq::priorityOf(i) <= pick->rtPriority)
                break;
            for (int idx = q.head[static_cast<size_t>(i)]; idx >= 0; idx = m_ctx.task(idx).rtNext) {
                Task& t = m_ctx.task(idx);
                ++m_queueVisits;
                if (waiting(t) && t.cpus.test(cpu) && cookieFits(t, cpu)) {
                    pick = &t; // the first waiting one is its queue's best
                    found = true;
                    break;
                }
            }
        }
    }
    if (pick) {
        m_ctx.moveQueuedTask(*pick, cpu, MigrateReason::Rt);
        m_ctx.resched(cpu);
    }
}

} // namespace schedlab
