// SPDX-License-Identifier: GPL-2.0-or-later
// Core scheduling (CONFIG_SCHED_CORE), kernel-model.md §11: cookies, the core_tree, the
// core-wide pick with forced idle, prio_less()/cfs_prio_less() with the forced-idle vruntime
// snapshots, task_tick_core() and the core balance (stealing a matching-cookie task into a
// forced-idle CPU). Only SMT siblings share a core (threads_per_core > 1); with one thread per
// core the core-wide pick is the per-CPU pick and nothing here runs. The machine is reached
// through MachineContext (the FakeMachine in tests/core/tst_coreunit.cpp).
//
// Core scheduling covers every class, as in the kernel: RT tasks with a cookie are in the
// core_tree, each sibling's class pick is its RT pick before its fair pick, and prio_less()
// ranks classes before comparing within one.
//
// Simplifications (see also scenarios/README.md): core scheduling stays enabled once a cookie
// has existed (the kernel drops the static key when the last cookie is freed); the core balance
// walks the SMT siblings then the LLC, as sched_core_balance() walks the SMT and MC domains, and
// steals fair tasks only.
#include "core/coresched/corescheduler.h"

#include "core/fair/fairclass.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>
#include <string>

namespace schedlab {

CoreScheduler::CoreScheduler(MachineContext& ctx, CpuTopology topology)
    : m_ctx(ctx)
    , m_topo(topology)
{ }

// --- cookies (§11.1) ---------------------------------------------------------------------------

void CoreScheduler::enable()
{
    if (m_enabled)
        return;
    // sched_core_get(): the first cookie turns core scheduling on. Queued tasks have no cookie
    // yet (only the one being tagged, which setCookie() inserts), so the trees start empty.
    m_enabled = true;
    const int cores = (m_topo.cpus + m_topo.threadsPerCore - 1) / m_topo.threadsPerCore;
    m_cores.assign(static_cast<size_t>(cores), CoreState{});
    for (int c = 0; c < m_topo.cpus; ++c)
        m_ctx.rq(c).core = CoreRqState{};
}

uint64_t CoreScheduler::cookieOf(const SchedEntity* se)
{
    return se ? m_ctx.task(se->task.value).cookie : 0; // the idle task is untagged
}

void CoreScheduler::setCookie(Task& task, uint64_t cookie)
{
    if (cookie)
        enable();
    const bool queued = task.queuedOnRq();
    if (!m_enabled || task.state == TaskRunState::NotStarted || task.state == TaskRunState::Exited
        || !queued) {
        task.cookie = cookie;
        return;
    }
    // sched_core_update_cookie(): out of the core_tree, new cookie, back in if queued; a running
    // task may have become incompatible with its sibling, so its CPU schedules.
    const int cpu = task.cpu;
    if (!task.se.schedDelayed) {
        ++m_cores[static_cast<size_t>(m_topo.coreOf(cpu))].taskSeq;
        coreTreeErase(cpu, task.se);
    }
    task.cookie = cookie;
    if (cookie && !task.se.schedDelayed) {
        ++m_cores[static_cast<size_t>(m_topo.coreOf(cpu))].taskSeq;
        coreTreeInsert(cpu, task.se);
    }
    if (m_ctx.rq(cpu).curr == &task.se)
        m_ctx.resched(cpu);
}

// --- core_tree ---------------------------------------------------------------------------------

void CoreScheduler::coreTreeInsert(int cpu, SchedEntity& se)
{
    // __sched_core_less(): by cookie, then highest priority first (prio_less with the core's
    // current forced-idle state). The position is fixed at insertion, as in the rbtree.
    auto& tree = m_ctx.rq(cpu).core.tree;
    const uint64_t cookie = cookieOf(&se);
    const bool inFi = m_cores[static_cast<size_t>(m_topo.coreOf(cpu))].forceIdleCount > 0;
    auto it = tree.begin();
    for (; it != tree.end(); ++it) {
        const uint64_t c = cookieOf(*it);
        // se goes before *it if __sched_core_less(se, *it); equal keys go to the right.
        if (cookie < c || (cookie == c && corePrioLess(*it, &se, inFi)))
            break;
    }
    tree.insert(it, &se);
}

bool CoreScheduler::coreTreeErase(int cpu, const SchedEntity& se)
{
    auto& tree = m_ctx.rq(cpu).core.tree;
    const auto it = std::find(tree.begin(), tree.end(), &se);
    if (it == tree.end())
        return false;
    tree.erase(it);
    return true;
}

SchedEntity* CoreScheduler::coreFind(int cpu, uint64_t cookie)
{
    // sched_core_find(): the leftmost task with this cookie.
    for (SchedEntity* se : m_ctx.rq(cpu).core.tree)
        if (cookieOf(se) == cookie)
            return se;
    return nullptr;
}

bool CoreScheduler::cookieFits(const Task& task, int cpu) const
{
    // Model simplification (docs): the RT balance here runs after every schedule and moves tasks
    // at no cost, so under core scheduling it only moves a task to a core whose current cookie
    // it has, or whose siblings are all idle. (The kernel's push/pull has no such check; its
    // moves cost time, so a bounce ends; at zero cost one could repeat for ever at one instant.)
    if (!active())
        return true;
    if (task.cookie == m_cores[static_cast<size_t>(m_topo.coreOf(cpu))].cookie)
        return true;
    const int first = m_topo.coreFirst(cpu);
    for (int i = first; i < std::min(first + m_topo.threadsPerCore, m_topo.cpus); ++i)
        if (m_ctx.rq(i).curr)
            return false;
    return true;
}

void CoreScheduler::rtTaskQueued(Task& task, bool enqueued)
{
    // sched_core_enqueue()/sched_core_dequeue() from enqueue_task()/dequeue_task(): the core_tree
    // holds tagged tasks of every class.
    if (!m_enabled)
        return;
    ++m_cores[static_cast<size_t>(m_topo.coreOf(task.cpu))].taskSeq;
    coreTreeErase(task.cpu, task.se);
    if (enqueued && task.cookie)
        coreTreeInsert(task.cpu, task.se);
}

int CoreScheduler::runnableOn(int cpu)
{
    return m_ctx.rq(cpu).nrRunning + m_ctx.rq(cpu).rt.nrQueued;
}

void CoreScheduler::fairTaskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags)
{
    if (!m_enabled)
        return;
    // sched_core_enqueue()/sched_core_dequeue(): every change bumps core_task_seq, so a pending
    // core_pick of a sibling is recomputed.
    CoreState& core = m_cores[static_cast<size_t>(m_topo.coreOf(rq.cpu))];
    ++core.taskSeq;
    coreTreeErase(rq.cpu, taskSe);
    if (enqueued) {
        if (!taskSe.schedDelayed && cookieOf(&taskSe))
            coreTreeInsert(rq.cpu, taskSe);
        return;
    }
    // The last task leaves a forced-idle CPU: schedule to end the forced idle.
    if (!(flags & DequeueSave) && runnableOn(rq.cpu) == 1 && core.forceIdleCount && !rq.curr)
        m_ctx.resched(rq.cpu);
}

// --- prio_less (§11.3) -------------------------------------------------------------------------

void CoreScheduler::seFiUpdate(const SchedEntity& se, uint64_t fiSeq, bool forceIdle)
{
    // se_fi_update(): snapshot v0 of each cfs_rq up the hierarchy; while in forced idle only
    // once per forceidle_seq, so comparisons do not drift while a sibling is idle.
    for (const SchedEntity* s = &se; s; s = s->parent) {
        CfsRq& cfsRq = *s->cfsRq;
        if (forceIdle) {
            if (cfsRq.forceIdleSeq == fiSeq)
                break;
            cfsRq.forceIdleSeq = fiSeq;
        }
        cfsRq.v0Fi = cfsRq.v0;
    }
}

bool CoreScheduler::cfsPrioLess(const SchedEntity& a, const SchedEntity& b, bool inFi)
{
    // cfs_prio_less(): walk up to entities whose cfs_rq's belong to one task group (possibly on
    // different CPUs), refresh the snapshots, compare vruntimes normalised by the snapshots.
    if (a.cfsRq->flat()) {
        // 7.3 (kernel-model.md §6.1): both tasks compete in their CPU's rq->cfs; compare there,
        // with the snapshots the core-wide pick last took (task_vruntime_update()).
        const CfsRq& ra = *m_ctx.rq(a.cfsRq->cpu).cfs;
        const CfsRq& rb = *m_ctx.rq(b.cfsRq->cpu).cfs;
        return vdiff(a.vruntime, b.vruntime) + vdiff(rb.v0Fi, ra.v0Fi) > 0;
    }
    const SchedEntity* sea = &a;
    const SchedEntity* seb = &b;
    while (sea->cfsRq->groupIndex != seb->cfsRq->groupIndex) {
        const int da = sea->depth;
        const int db = seb->depth;
        if (da >= db)
            sea = sea->parent;
        if (da <= db)
            seb = seb->parent;
    }
    const uint64_t fiSeq = m_cores[static_cast<size_t>(m_topo.coreOf(a.cfsRq->cpu))].forceIdleSeq;
    seFiUpdate(*sea, fiSeq, inFi);
    seFiUpdate(*seb, fiSeq, inFi);
    const int64_t delta =
        vdiff(sea->vruntime, seb->vruntime) + vdiff(seb->cfsRq->v0Fi, sea->cfsRq->v0Fi);
    return delta > 0; // a is lower priority: larger normalised vruntime
}

int CoreScheduler::corePrio(const SchedEntity& se)
{
    // __task_prio(): an RT task's prio (MAX_RT_PRIO-1 - rt_priority, lower is more important),
    // every fair task MAX_RT_PRIO + MAX_NICE.
    constexpr int kMaxRtPrio = 100;
    constexpr int kMaxNice = 19;
    const Task& t = m_ctx.task(se.task.value);
    return t.isRt() ? kMaxRtPrio - 1 - t.rtPriority : kMaxRtPrio + kMaxNice;
}

bool CoreScheduler::corePrioLess(const SchedEntity* a, const SchedEntity* b, bool inFi)
{
    // prio_less(a, b): true if a has lower priority than b. The idle task (null) is below every
    // class; then __task_prio() decides; two RT tasks of one prio are not ordered; two fair
    // tasks are compared by cfs_prio_less().
    if (!b)
        return false;
    if (!a)
        return true;
    const int pa = corePrio(*a);
    const int pb = corePrio(*b);
    if (pa != pb)
        return pa > pb;
    if (m_ctx.task(a->task.value).isRt())
        return false;
    return cfsPrioLess(*a, *b, inFi);
}

// --- the core-wide pick (§11.2) ----------------------------------------------------------------

SchedEntity* CoreScheduler::pickNextTask(int cpu, bool& forcedIdle)
{
    CoreState& core = m_cores[static_cast<size_t>(m_topo.coreOf(cpu))];
    CoreRqState& crq = m_ctx.rq(cpu).core;

    // Step 1: a sibling's selection for this CPU that is still current.
    if (core.pickSeq == core.taskSeq && core.pickSeq != crq.schedSeq && crq.pickValid) {
        crq.schedSeq = core.pickSeq;
        SchedEntity* next = crq.pick;
        crq.pickValid = false;
        crq.pick = nullptr;
        forcedIdle = !next && runnableOn(cpu) > 0;
        if (forcedIdle && core.cookie)
            queueBalance(cpu);
        return next;
    }

    bool needSync = core.cookie != 0;
    core.cookie = 0;
    bool fiBefore = false;
    if (core.forceIdleCount) {
        core.forceIdleCount = 0;
        core.forceIdleOccupation = 0;
        needSync = true;
        fiBefore = true;
    }
    ++core.taskSeq;

    // Step 2: no cookie on the core: the per-CPU pick, if it is untagged.
    if (!needSync) {
        SchedEntity* next = m_ctx.pickTask(cpu);
        if (!cookieOf(next)) {
            crq.pickValid = false;
            crq.pick = nullptr;
            if (next && !m_ctx.task(next->task.value).isRt())
                seFiUpdate(*next, core.forceIdleSeq, false); // task_vruntime_update()
            accountForcedIdle(cpu, false);
            return next;
        }
    }

    // Step 3: every sibling's class pick, starting with this CPU; the best is `max`.
    const int first = m_topo.coreOf(cpu) * m_topo.threadsPerCore;
    const int last = std::min(first + m_topo.threadsPerCore, m_topo.cpus);
    std::vector<int> siblings;
    for (int i = cpu; i < last; ++i)
        siblings.push_back(i);
    for (int i = first; i < cpu; ++i)
        siblings.push_back(i);
    std::vector<SchedEntity*> picks(siblings.size(), nullptr);
    int maxIdx = -1;
    for (size_t k = 0; k < siblings.size(); ++k) {
        picks[k] = m_ctx.pickTask(siblings[k]);
        if (maxIdx < 0 || corePrioLess(picks[static_cast<size_t>(maxIdx)], picks[k], fiBefore))
            maxIdx = static_cast<int>(k);
    }
    const uint64_t cookie = cookieOf(picks[static_cast<size_t>(maxIdx)]);
    core.cookie = cookie;

    // Step 4: siblings run a task with max's cookie, or are forced idle.
    int occupation = 0;
    for (size_t k = 0; k < siblings.size(); ++k) {
        SchedEntity* p = picks[k];
        if (cookieOf(p) != cookie)
            p = cookie ? coreFind(siblings[k], cookie) : nullptr;
        picks[k] = p;
        if (!p) {
            if (runnableOn(siblings[k]) > 0) {
                ++core.forceIdleCount;
                if (!fiBefore)
                    ++core.forceIdleSeq;
            }
        } else {
            ++occupation;
        }
    }
    if (core.forceIdleCount)
        core.forceIdleOccupation = occupation;
    core.pickSeq = core.taskSeq;
    crq.schedSeq = core.pickSeq;

    // Step 5: snapshots, occupation, and a reschedule of every sibling whose task changes.
    const bool inFi = core.forceIdleCount > 0;
    SchedEntity* next = nullptr;
    for (size_t k = 0; k < siblings.size(); ++k) {
        const int i = siblings[k];
        Rq& rqi = m_ctx.rq(i);
        CoreRqState& ci = m_ctx.rq(i).core;
        SchedEntity* p = picks[k];
        if (p && !(fiBefore && inFi) && !m_ctx.task(p->task.value).isRt())
            seFiUpdate(*p, core.forceIdleSeq, inFi);
        if (p)
            m_ctx.task(p->task.value).coreOccupation = occupation;
        else
            ci.idleOccupation = occupation;
        accountForcedIdle(i, !p && runnableOn(i) > 0);
        if (i == cpu) {
            next = p;
            ci.pickValid = false;
            ci.pick = nullptr;
            continue;
        }
        if (rqi.curr == p) {
            ci.pickValid = false;
            ci.pick = nullptr;
            continue;
        }
        ci.pickValid = true;
        ci.pick = p;
        m_ctx.resched(i); // the IPI
    }
    forcedIdle = !next && runnableOn(cpu) > 0;
    if (forcedIdle && core.cookie)
        queueBalance(cpu); // queue_core_balance(), run after the switch
    return next;
}

void CoreScheduler::accountForcedIdle(int cpu, bool forced)
{
    CoreRqState& c = m_ctx.rq(cpu).core;
    if (forced && c.forcedIdleSince < 0) {
        c.forcedIdleSince = m_ctx.clock();
    } else if (!forced && c.forcedIdleSince >= 0) {
        c.forcedIdleNs += m_ctx.clock() - c.forcedIdleSince;
        c.forcedIdleSince = -1;
    }
}

// --- task_tick_core() (§11.2 step 6) -----------------------------------------------------------

void CoreScheduler::taskTick(int cpu)
{
    if (!active())
        return;
    // One fair task on this CPU while a sibling is forced idle: the siblings act as one run
    // queue of at least MIN_NR_TASKS_DURING_FORCEIDLE = 2 tasks, so the task's share of its
    // slice is used up at half of it (__entity_slice_used(se, 2)).
    constexpr int64_t kMinNrTasksDuringForceIdle = 2;
    Rq& rq = m_ctx.rq(cpu);
    const CoreState& core = m_cores[static_cast<size_t>(m_topo.coreOf(cpu))];
    if (!rq.curr || !core.forceIdleCount || rq.cfs->eevdfQueued() != 1
        || m_ctx.task(rq.curr->task.value).isRt())
        return;
    const SchedEntity& se = *rq.curr;
    if ((se.sumExecRuntime - se.prevSumExecRuntime) * kMinNrTasksDuringForceIdle > se.slice)
        m_ctx.resched(cpu);
}

// --- core balance ------------------------------------------------------------------------------

void CoreScheduler::queueBalance(int cpu)
{
    // queue_core_balance() → queue_balance_callback(): sched_core_balance() runs as a
    // callback after the current switch (an event at the same instant, on @p cpu).
    m_ctx.startTimer(m_ctx.clock(), cpu, [this, cpu] { balance(cpu); });
}

void CoreScheduler::balance(int c)
{
    // sched_core_balance(), a balance callback after a forced-idle CPU switched to idle: steal
    // a task with the core's cookie, first from the SMT siblings, then from the LLC.
    const int first = m_topo.coreOf(c) * m_topo.threadsPerCore;
    const int last = std::min(first + m_topo.threadsPerCore, m_topo.cpus);
    for (int pass = 0; pass < 2; ++pass) {
        for (int k = 1; k < m_topo.cpus; ++k) {
            const int i = (c + k) % m_topo.cpus; // for_each_cpu_wrap(…, cpu + 1)
            const bool sibling = i >= first && i < last;
            if ((pass == 0 && !sibling)
                || (pass == 1 && (sibling || m_topo.llcOf(i) != m_topo.llcOf(c))))
                continue;
            if (m_ctx.rq(c).needResched)
                return;
            if (tryStealCookie(c, i))
                return;
        }
    }
}

bool CoreScheduler::tryStealCookie(int dst, int src)
{
    Rq& dstRq = m_ctx.rq(dst);
    const uint64_t cookie = m_cores[static_cast<size_t>(m_topo.coreOf(dst))].cookie;
    if (!cookie || dstRq.curr)
        return false;
    Rq& srcRq = m_ctx.rq(src);
    const CoreRqState& srcCore = m_ctx.rq(src).core;
    const int idleOccupation = m_ctx.rq(dst).core.idleOccupation;
    for (SchedEntity* se : srcCore.tree) {
        if (cookieOf(se) != cookie)
            continue;
        Task& p = m_ctx.task(se->task.value);
        if (p.isRt())
            continue; // (the kernel also moves RT tasks; the model steals fair ones)
        if ((srcCore.pickValid && srcCore.pick == se) || srcRq.curr == se)
            continue;
        if (!p.cpus.test(dst))
            continue;
        // A task that ran with more busy siblings than this idle CPU's core would now have
        // is left where it is.
        if (p.coreOccupation > idleOccupation)
            continue;
        // move_queued_task_locked(): a migration, lag and relative deadline kept (§8.1).
        m_ctx.moveQueuedTask(p, dst, MigrateReason::CoreSteal);
        m_ctx.resched(dst);
        return true;
    }
    return false;
}

// --- invariant ---------------------------------------------------------------------------------

std::string CoreScheduler::checkInvariants()
{
    if (!active())
        return {};
    // Every pair of busy siblings runs tasks of one cookie (the L1TF/MDS guarantee) — in user
    // mode: a sibling told to reschedule (the IPI) while in a non-preemptible kernel section
    // keeps its task until the section ends, as the kernel does (core scheduling does not
    // protect kernel mode).
    for (int first = 0; first < m_topo.cpus; first += m_topo.threadsPerCore) {
        const SchedEntity* seen = nullptr;
        for (int i = first; i < std::min(first + m_topo.threadsPerCore, m_topo.cpus); ++i) {
            const Rq& rq = m_ctx.rq(i);
            const SchedEntity* curr = rq.curr;
            // (A section that ends now still holds until its end event has run.)
            const bool inSection =
                !m_ctx.preemptible(i) || m_ctx.timerPending(m_ctx.rq(i).sections.end);
            if (!curr || (rq.needResched && inSection))
                continue;
            if (seen && cookieOf(seen) != cookieOf(curr))
                return "core " + std::to_string(m_topo.coreOf(first)) + ": siblings run cookies "
                    + std::to_string(cookieOf(seen)) + " and " + std::to_string(cookieOf(curr));
            seen = curr;
        }
    }
    return {};
}

} // namespace schedlab
