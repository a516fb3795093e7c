// SPDX-License-Identifier: GPL-2.0-or-later
// The fair deadline server, kernel-model.md §10.4 (see dlserver.h).
#include "core/rt/dlserver.h"

#include "core/dl/dlparams.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>

namespace schedlab {

DlServerClass::DlServerClass(MachineContext& ctx, bool enabled, PickFn pick)
    : m_ctx(ctx)
    , m_pick(std::move(pick))
    , m_enabled(enabled)
{ }

SchedEntity* DlServerClass::pickTask(Rq& rq)
{
    if (!rq.fairServer.running)
        return nullptr;
    // A DL task with a deadline not later than the server's goes first (its tree, §15.3).
    if (m_earliest && m_earliest(rq) <= rq.fairServer.periodEnd)
        return nullptr;
    return m_pick(rq);
}

int DlServerClass::selectTaskRq(const Task& task, int /*wakeFlags*/)
{
    return task.cpu;
}

void DlServerClass::stopIfIdle(Rq& rq)
{
    if (rq.fairServer.running && rq.nrRunning == 0)
        rq.fairServer.running = false;
}

bool DlServerClass::starved(int cpu)
{
    const Rq& rq = m_ctx.rq(cpu);
    if (rq.nrRunning <= 0 || !rq.curr)
        return false;
    const Task& curr = m_ctx.task(rq.curr->task.value);
    return curr.isRt() || curr.isDl();
}

void DlServerClass::starve(int cpu)
{
    // Fair tasks are runnable but an RT task was picked. The server (defer mode) is started
    // with a fresh 50 ms / 1 s budget if its period is over, and its zero-laxity timer is armed
    // at period end − budget left: only fair tasks that are still starved then get boosted.
    if (!m_enabled)
        return;
    DlServer& rc = m_ctx.rq(cpu).fairServer;
    const int64_t now = m_ctx.clock();
    if (rc.periodEnd < 0 || now >= rc.periodEnd) {
        rc.periodEnd = now + kFairServerPeriodNs;
        rc.runtime = kFairServerRuntimeNs;
        rc.running = false;
        m_ctx.cancelTimer(rc.timer);
        rc.timer = {};
    }
    if (m_ctx.timerPending(rc.timer) || rc.runtime <= 0)
        return;
    rc.timer = startTimer(cpu, std::max(now, rc.periodEnd - rc.runtime));
}

void DlServerClass::timer(int cpu)
{
    DlServer& rc = m_ctx.rq(cpu).fairServer;
    rc.timer = {};
    const bool isStarved = starved(cpu);
    if (m_ctx.clock() >= rc.periodEnd) {
        // Replenishment: a new period; defer again if the fair tasks are still starved.
        if (rc.running)
            m_ctx.resched(cpu); // the boost ends: RT runs again
        rc.running = false;
        rc.periodEnd = -1;
        if (isStarved)
            starve(cpu);
        return;
    }
    if (isStarved && rc.runtime > 0) {
        rc.running = true; // the server runs its fair tasks ahead of RT
        m_ctx.resched(cpu);
    }
    rc.timer = startTimer(cpu, rc.periodEnd);
}

namespace {

/// dl_server_apply_params() of the fair server: 50 ms every 1 s, implicit deadline.
const DlParams kServerParams{kFairServerRuntimeNs, kFairServerPeriodNs, kFairServerPeriodNs, 0};
const uint64_t kServerBw = dlBandwidth(kServerParams);

} // namespace

void DlServerClass::fairQueued(int cpu)
{
    // dl_server_start(): enqueue_dl_entity(ENQUEUE_WAKEUP) — task_contending() and
    // update_dl_entity(): a passed deadline, or more runtime left than the bandwidth allows in
    // the time to it (dl_entity_overflow()), starts a new period (kernel-model.md §15.5, §15.6).
    if (!m_enabled)
        return;
    Rq& rq = m_ctx.rq(cpu);
    DlServer& rc = rq.fairServer;
    if (rc.active)
        return;
    rc.active = true;
    if (m_ctx.timerPending(rc.inactiveTimer)) {
        m_ctx.cancelTimer(rc.inactiveTimer); // still contending
        rc.inactiveTimer = {};
    } else if (!rc.contending) {
        rq.dl.runningBw += kServerBw;
        rc.contending = true;
    }
    dlUpdateEntity(kServerParams, rc.cbsDeadline, rc.cbsRuntime, m_ctx.clock());
}

void DlServerClass::fairEmpty(int cpu)
{
    // dl_server_stop(): dequeue_dl_entity(DEQUEUE_SLEEP) — task_non_contending(): the bandwidth
    // leaves running_bw at the 0-lag time, deadline − runtime · P / Q, or now if that has passed.
    if (!m_enabled)
        return;
    Rq& rq = m_ctx.rq(cpu);
    DlServer& rc = rq.fairServer;
    if (!rc.active)
        return;
    rc.active = false;
    const int64_t zerolag = dlZeroLagTime(kServerParams, rc.cbsDeadline, rc.cbsRuntime);
    auto leave = [this, cpu] {
        Rq& r = m_ctx.rq(cpu);
        r.fairServer.inactiveTimer = {};
        if (r.fairServer.contending && !r.fairServer.active) {
            r.dl.runningBw -= std::min(r.dl.runningBw, kServerBw);
            r.fairServer.contending = false;
        }
    };
    if (zerolag <= m_ctx.clock())
        leave();
    else
        rc.inactiveTimer = m_ctx.startTimer(zerolag, cpu, leave);
}

void DlServerClass::account(int cpu, int64_t delta)
{
    account(m_ctx.rq(cpu).fairServer, cpu, delta);
}

void DlServerClass::replenishCbs(DlServer& rc, int cpu, int64_t delta)
{
    rc.cbsDeadline = m_ctx.clock() + kFairServerPeriodNs;
    rc.cbsRuntime = kFairServerRuntimeNs;
    if (rc.periodEnd < 0 || m_ctx.clock() > rc.periodEnd)
        return;
    consumeBudget(rc, cpu, delta);
}

void DlServerClass::consumeBudget(DlServer& rc, int cpu, int64_t delta)
{
    // dl_server_update(): fair execution consumes the server's budget within its period.
    rc.runtime = std::max<int64_t>(0, rc.runtime - delta);
    if (rc.running && rc.runtime == 0) {
        rc.running = false;
        m_ctx.resched(cpu);
    }
}

} // namespace schedlab
