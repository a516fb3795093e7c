// SPDX-License-Identifier: GPL-2.0-or-later
// CFS bandwidth control (cpu.max, kernel-model.md §9) and the program-level mechanisms it
// interacts with: kernel sections and sleeping mutexes (core/workload/mutexes.*).
//
// Bandwidth, as the kernel does it (§9.2, §9.3): each limited group has a global pool refilled
// to `quota` every `period` by a period timer (aligned to multiples of the period from t = 0,
// deactivated after an idle period); each per-CPU cfs_rq of the group runs on a local slice of
// at most 5 ms taken from the pool (assign_cfs_rq_runtime), charged at every level of
// update_curr. When a cfs_rq cannot get more, it is throttled:
//   - `throttle group` (≤6.17): at the next pick (check_cfs_rq_runtime in pick_task_fair, and
//     put_prev_entity for the running task) the group entity chain is dequeued
//     (FairClass::throttleDequeue); everything inside, a lock holder included, waits for the
//     refill;
//   - `throttle task` (6.18+): the cfs_rq is only marked; a task of a throttled hierarchy is
//     parked on the cfs_rq's limbo list when it returns to user mode — at once when it is
//     picked or running in user mode, at the end of its kernel section otherwise.
// The period timer refills the pool and distributes it over the throttled cfs_rq's in throttle
// order (each gets what it owes + 1 ns); a cfs_rq that becomes positive is unthrottled (group
// entity chain re-enqueued with ENQUEUE_WAKEUP, or limbo tasks re-enqueued). An emptied cfs_rq
// returns its runtime above 1 ms to the pool; the slack timer (5 ms) hands it to throttled
// cfs_rq's when the next refresh is not near.
//
// Simplifications (documented here and in scenarios/README.md):
//   - unthrottling a remote CPU's cfs_rq is immediate (the kernel uses an IPI/CSD);
//   - cpu.max.burst is not modelled (burst 0); hierarchical_quota is not needed for throttling
//     (each level accounts its own quota) and not checked;
//   - the throttled cfs_rq's PELT clock is not frozen;
//   - a task "returns to user" (task work runs) when it is picked or running outside a kernel
//     section; a kernel section ends at the last operation of a { "kernel": [...] } block;
//   - mutexes hand the lock to the first waiter at unlock (FIFO, like a mutex in hand-off
//     mode): no optimistic spinning, no lock stealing; a woken waiter is in the kernel
//     (inside mutex_lock());
//   - under preempt none/voluntary a task inside a kernel section is not preempted: a resched
//     is honoured when it blocks, exits or leaves the section (cond_resched() points are not
//     modelled); under full/lazy it is preempted as in user mode;
//   - boost_throttled_on_wakeup (the 2012 RFC, a what-if, ≤6.17 model only): a task woken inside
//     a kernel section whose hierarchy is throttled unthrottles the throttled cfs_rq's of its
//     path on credit; pick takes its path first; it is re-throttled (runtime is still owed)
//     when the task leaves the kernel section or blocks.
#include "core/fair/cfsbandwidth.h"

#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>

namespace schedlab {

CfsBandwidthControl::CfsBandwidthControl(MachineContext& ctx, FairClass& fair,
    std::vector<TaskGroup>& groups, const ProfileChoices& choices)
    : m_ctx(ctx)
    , m_fair(fair)
    , m_groups(groups)
    , m_choices(choices)
{ }

// --- configuration: tg_set_cfs_bandwidth() (§9.1) ------------------------------------------------

void CfsBandwidthControl::setCpuMax(int group, const CpuMax& max)
{
    if (group <= 0)
        return; // the root cannot be limited
    TaskGroup& g = m_groups[static_cast<size_t>(group)];
    CfsBandwidth& b = g.bandwidth;
    b.period = max.periodUs * 1000;
    b.quota = max.quotaUs ? *max.quotaUs * 1000 : -1;
    const bool enabled = b.limited();
    if (enabled) {
        b.everLimited = true;
        b.runtime = b.quota; // __refill_cfs_bandwidth_runtime(): a fresh pool
        startPeriodTimer(group);
    }
    for (auto& cfsRq : g.cfsRq) {
        CfsRq& c = *cfsRq;
        // Charge what ran so far under the old setting before the local runtime is reset.
        if (c.curr && c.curr->onRq)
            m_fair.updateCurr(c);
        c.runtimeEnabled = enabled;
        c.runtimeRemaining = 0;
        if (c.throttled) {
            c.runtimeRemaining = 1; // a forced unthrottle: the new setting starts afresh
            unthrottle(c, false);
            c.runtimeRemaining = 0;
        }
    }
}

// --- accounting (§9.2)
// ----------------------------------------------------------------------------

bool CfsBandwidthControl::assignRuntime(CfsRq& cfsRq, int64_t target)
{
    CfsBandwidth& b = m_groups[static_cast<size_t>(cfsRq.groupIndex)].bandwidth;
    const int64_t minAmount = target - cfsRq.runtimeRemaining;
    int64_t amount = 0;
    if (!b.limited()) {
        amount = minAmount;
    } else {
        startPeriodTimer(cfsRq.groupIndex);
        if (b.runtime > 0) {
            amount = std::min(b.runtime, minAmount);
            b.runtime -= amount;
            b.idle = false;
        }
    }
    cfsRq.runtimeRemaining += amount;
    return cfsRq.runtimeRemaining > 0;
}

void CfsBandwidthControl::accountRuntime(CfsRq& cfsRq, int64_t delta)
{
    if (!cfsRq.runtimeEnabled)
        return;
    cfsRq.runtimeRemaining -= delta;
    if (cfsRq.runtimeRemaining > 0 || cfsRq.throttled)
        return;
    if (assignRuntime(cfsRq, kCfsBandwidthSliceNs) || !cfsRq.curr)
        return;
    if (cfsRq.boostPick)
        return; // boosted: runs on credit until the boosted task leaves the kernel
    if (m_choices.throttle == ThrottleModel::Group)
        m_ctx.resched(cfsRq.cpu); // throttled at the pick (check_cfs_rq_runtime)
    else
        throttle(cfsRq); // 6.18+: at once; tasks are parked at return to user
}

bool CfsBandwidthControl::throttleAtPick(CfsRq& cfsRq)
{
    if (cfsRq.throttled) {
        if (!cfsRq.throttleDequeued) {
            // Throttled under the task model before a switch to the group model: dequeue now.
            cfsRq.throttledClock = cfsRq.throttledClock < 0 ? m_ctx.clock() : cfsRq.throttledClock;
            m_fair.throttleDequeue(m_ctx.rq(cfsRq.cpu), cfsRq);
        }
        return true;
    }
    return throttle(cfsRq);
}

void CfsBandwidthControl::checkEnqueueThrottle(CfsRq& cfsRq)
{
    // An active group is handled by the update_curr() -> pick path.
    if (!cfsRq.runtimeEnabled || cfsRq.curr || cfsRq.throttled)
        return;
    accountRuntime(cfsRq, 0); // tries a refill
    if (cfsRq.runtimeRemaining <= 0)
        throttle(cfsRq);
}

void CfsBandwidthControl::returnRuntime(CfsRq& cfsRq)
{
    if (!cfsRq.runtimeEnabled || cfsRq.nrQueued)
        return;
    const int64_t slack = cfsRq.runtimeRemaining - kMinCfsRqRuntimeNs;
    if (slack <= 0)
        return;
    CfsBandwidth& b = m_groups[static_cast<size_t>(cfsRq.groupIndex)].bandwidth;
    if (b.limited()) {
        b.runtime += slack;
        if (b.runtime > kCfsBandwidthSliceNs && !b.throttledList.empty())
            startSlackTimer(cfsRq.groupIndex);
    }
    cfsRq.runtimeRemaining -= slack;
}

// --- throttle / unthrottle (§9.2 step 5, §9.3)
// ----------------------------------------------------

template <typename F> void CfsBandwidthControl::forSubtree(int group, int cpu, F&& f)
{
    // Groups are created parents first, so a descendant has a larger index.
    for (size_t i = static_cast<size_t>(group); i < m_groups.size(); ++i) {
        int a = static_cast<int>(i);
        while (a > group)
            a = m_groups[static_cast<size_t>(a)].parent;
        if (a == group)
            f(*m_groups[i].cfsRq[static_cast<size_t>(cpu)]);
    }
}

bool CfsBandwidthControl::throttle(CfsRq& cfsRq)
{
    if (cfsRq.throttled)
        return true;
    if (assignRuntime(cfsRq, 1))
        return false; // last-chance refill succeeded
    CfsBandwidth& b = m_groups[static_cast<size_t>(cfsRq.groupIndex)].bandwidth;
    b.throttledList.push_back(&cfsRq);
    cfsRq.throttled = true;
    forSubtree(cfsRq.groupIndex, cfsRq.cpu, [](CfsRq& c) { ++c.throttleCount; });
    m_ctx.record(RecordKind::Throttle, *cfsRq.owner, cfsRq.runtimeRemaining, 0, 0);
    Rq& rq = m_ctx.rq(cfsRq.cpu);
    if (m_choices.throttle == ThrottleModel::Group) {
        cfsRq.throttledClock = m_ctx.clock();
        m_fair.throttleDequeue(rq, cfsRq);
    } else if (rq.curr) {
        // 6.18+: task work on the running task; it is parked when it returns to user mode.
        for (SchedEntity* se = rq.curr; se; se = se->parent)
            if (se->cfsRq == &cfsRq) {
                m_ctx.resched(cfsRq.cpu);
                break;
            }
    }
    return true;
}

void CfsBandwidthControl::unthrottle(CfsRq& cfsRq, bool boost)
{
    if (!cfsRq.throttled)
        return;
    if (!boost && !cfsRq.throttleDequeued && cfsRq.runtimeRemaining <= 0)
        return; // 6.18+ refuses while the runtime is still owed
    CfsBandwidth& b = m_groups[static_cast<size_t>(cfsRq.groupIndex)].bandwidth;
    cfsRq.throttled = false;
    if (cfsRq.throttledClock >= 0) {
        b.throttledTime += m_ctx.clock() - cfsRq.throttledClock;
        cfsRq.throttledClock = -1;
    }
    std::erase(b.throttledList, &cfsRq);
    std::vector<CfsRq*> thawed;
    forSubtree(cfsRq.groupIndex, cfsRq.cpu, [&](CfsRq& c) {
        if (--c.throttleCount == 0 && !c.limbo.empty())
            thawed.push_back(&c);
    });
    m_ctx.record(RecordKind::Unthrottle, *cfsRq.owner, cfsRq.runtimeRemaining, boost ? 1 : 0, 0);
    Rq& rq = m_ctx.rq(cfsRq.cpu);
    if (cfsRq.throttleDequeued)
        m_fair.unthrottleEnqueue(rq, cfsRq);
    // 6.18+: the limbo tasks come back with ENQUEUE_WAKEUP, most recently parked first.
    for (CfsRq* c : thawed) {
        std::vector<int> limbo;
        limbo.swap(c->limbo);
        for (auto it = limbo.rbegin(); it != limbo.rend(); ++it) {
            Task& t = m_ctx.task(*it);
            t.parked = false;
            m_fair.enqueueTask(rq, t.se, EnqueueWakeup);
            m_ctx.record(RecordKind::Wakeup, t.se, t.cpu, 2, 0);
        }
    }
    if (!rq.curr && rq.cfs->nrQueued)
        m_ctx.resched(rq.cpu); // kick the idle CPU
}

void CfsBandwidthControl::checkPrevRuntimeGroup(Task& prev)
{
    for (SchedEntity* se = &prev.se; se; se = se->parent) {
        CfsRq& c = *se->cfsRq;
        if (c.throttleDequeued)
            break;
        if (c.runtimeEnabled && c.runtimeRemaining <= 0 && !c.throttled && !c.boostPick) {
            throttle(c);
            if (c.throttleDequeued)
                break;
        }
    }
}

// --- timers (§9.3)
// --------------------------------------------------------------------------------

void CfsBandwidthControl::startTimer(int group, int64_t at, bool slack)
{
    m_ctx.startTimer(at, -1, [this, group, slack] {
        if (slack)
            slackTimer(group);
        else
            periodTimer(group);
    });
}

void CfsBandwidthControl::startPeriodTimer(int group)
{
    CfsBandwidth& b = m_groups[static_cast<size_t>(group)].bandwidth;
    if (b.periodActive || !b.limited())
        return;
    b.periodActive = true;
    b.periodExpires =
        (m_ctx.clock() / b.period + 1) * b.period; // hrtimer_forward_now() on the grid
    startTimer(group, b.periodExpires, false);
}

void CfsBandwidthControl::periodTimer(int group)
{
    CfsBandwidth& b = m_groups[static_cast<size_t>(group)].bandwidth;
    if (!b.limited()) {
        b.periodActive = false;
        return;
    }
    bool throttled = !b.throttledList.empty();
    ++b.nrPeriods;
    b.runtime = std::min(b.runtime + b.quota, b.quota); // refill (no burst)
    if (b.idle && !throttled) {
        b.periodActive = false; // idle for a whole period: the timer stops
        return;
    }
    if (!throttled) {
        b.idle = true;
    } else {
        ++b.nrThrottled;
        for (int guard = 0; guard < 1000 && throttled && b.runtime > 0; ++guard) {
            distributeRuntime(group);
            throttled = !b.throttledList.empty();
        }
        b.idle = false;
    }
    b.periodExpires += b.period;
    startTimer(group, b.periodExpires, false);
}

void CfsBandwidthControl::distributeRuntime(int group)
{
    CfsBandwidth& b = m_groups[static_cast<size_t>(group)].bandwidth;
    const std::vector<CfsRq*> list = b.throttledList; // unthrottling edits the list
    for (CfsRq* c : list) {
        if (b.runtime <= 0)
            break;
        if (!c->throttled)
            continue;
        const int64_t amount = std::min(-c->runtimeRemaining + 1, b.runtime);
        b.runtime -= amount;
        c->runtimeRemaining += amount;
        if (c->runtimeRemaining > 0)
            unthrottle(*c, false);
    }
}

void CfsBandwidthControl::startSlackTimer(int group)
{
    CfsBandwidth& b = m_groups[static_cast<size_t>(group)].bandwidth;
    // runtime_refresh_within(slack period + min expiration): a refresh is near anyway.
    if (!b.periodActive
        || b.periodExpires - m_ctx.clock() < kCfsSlackPeriodNs + kMinBandwidthExpirationNs)
        return;
    if (b.slackStarted)
        return;
    b.slackStarted = true;
    startTimer(group, m_ctx.clock() + kCfsSlackPeriodNs, true);
}

void CfsBandwidthControl::slackTimer(int group)
{
    CfsBandwidth& b = m_groups[static_cast<size_t>(group)].bandwidth;
    b.slackStarted = false;
    if (!b.periodActive || b.periodExpires - m_ctx.clock() < kMinBandwidthExpirationNs)
        return;
    if (!b.limited() || b.runtime <= kCfsBandwidthSliceNs)
        return;
    distributeRuntime(group);
}

// --- task-based throttle: parking at return to user (§9.2 step 5, 6.18+) -------------------------

void CfsBandwidthControl::parkTask(Task& task)
{
    Rq& rq = m_ctx.rq(task.cpu);
    m_fair.dequeueEntities(rq, task.se, DequeueSleep | DequeueThrottle);
    task.parked = true;
    task.se.cfsRq->limbo.push_back(task.index);
    for (SchedEntity* se = &task.se; se; se = se->parent) // record_throttle_clock()
        if (se->cfsRq->throttled && se->cfsRq->throttledClock < 0)
            se->cfsRq->throttledClock = m_ctx.clock();
    m_ctx.record(RecordKind::Park, task.se, 0, 0, 0);
}

void CfsBandwidthControl::unlinkParked(Task& task)
{
    if (!task.parked)
        return;
    std::erase(task.se.cfsRq->limbo, task.index);
    task.parked = false;
}

void CfsBandwidthControl::requeueParked(Task& task)
{
    if (task.se.cfsRq->throttleCount > 0) {
        task.se.cfsRq->limbo.push_back(task.index);
        task.parked = true;
        return;
    }
    Rq& rq = m_ctx.rq(task.cpu);
    m_fair.enqueueTask(rq, task.se, EnqueueWakeup);
    m_ctx.wakeupPreempt(rq, task);
}

// --- boost_throttled_on_wakeup (§9.4, a what-if) -------------------------------------------------

void CfsBandwidthControl::boostTask(Task& task)
{
    if (!m_choices.boostThrottledOnWakeup || task.kernelDepth == 0)
        return;
    std::vector<CfsRq*> throttled; // bottom-up
    SchedEntity* top = nullptr;
    for (SchedEntity* se = &task.se; se; se = se->parent)
        if (se->cfsRq->throttled && se->cfsRq->throttleDequeued) {
            throttled.push_back(se->cfsRq);
            top = se;
        }
    if (!top)
        return;
    for (SchedEntity* se = &task.se; se; se = se->parent) {
        se->cfsRq->boostPick = se;
        if (se == top)
            break;
    }
    task.boosted = true;
    for (CfsRq* c : throttled)
        unthrottle(*c, true);
}

void CfsBandwidthControl::endBoost(Task& task)
{
    if (!task.boosted)
        return;
    task.boosted = false;
    for (SchedEntity* se = &task.se; se; se = se->parent)
        if (se->cfsRq->boostPick == se)
            se->cfsRq->boostPick = nullptr;
    m_ctx.resched(task.cpu); // the pick re-checks the (still owed) runtime
}

} // namespace schedlab
