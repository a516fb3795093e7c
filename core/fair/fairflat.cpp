// SPDX-License-Identifier: GPL-2.0-or-later
// The 7.3 flat run queue ("sched/eevdf: Move to a single runqueue"), kernel-model.md §6.1 and
// §6.4 D. The cgroup hierarchy is still walked at every enqueue, dequeue, tick and switch, but
// only for accounting: each level's load.weight, nr_queued, h_nr_* counters, PELT, shares
// (update_cfs_group) and the h_curr of the level (CfsRq::curr). EEVDF itself runs once per CPU,
// on rq->cfs: its tree holds the CPU's tasks of every group, each weighted by its effective
// weight h_load (hierarchicalWeight()), which is recomputed at enqueue, set_next_task and tick
// and applied with the 7.1 rescale math (reweightEevdf()). Group entities never enter a tree and
// keep no lag, deadline or vruntime; only tasks can be delayed. Read when choice `flat` is true.
#include "fairclass.h"
#include "muldiv.h"

#include <algorithm>

namespace schedlab {

namespace {

const SchedEntity& topOf(const SchedEntity& se)
{
    const SchedEntity* s = &se;
    while (s->parent)
        s = s->parent;
    return *s;
}

// Is @p se on @p task's path to the root (the task itself or one of its group entities)?
bool onPath(const SchedEntity& se, const SchedEntity* task)
{
    for (const SchedEntity* s = task; s; s = s->parent)
        if (s == &se)
            return true;
    return false;
}

} // namespace

CfsRq& FairClass::eevdfRq(const SchedEntity& se) const
{
    // The top-level entity of a hierarchy is queued on rq->cfs.
    return m_p.choices->flat ? *topOf(se).cfsRq : *se.cfsRq;
}

// §6.1: __calc_prop_weight() applied from the task up: start at NICE_0_LOAD; at every level
// multiply by the entity's own weight (nice weight for the task, shares for a group entity) and
// divide by the weight of the queue it is accounted on -- except at the top level, which divides
// by NICE_0_LOAD (the root queue's weight is not a fraction anybody owns); floor MIN_SHARES at
// every level. A root task gets its nice weight; a task alone in a group gets the group's
// shares. Unsigned 64-bit arithmetic like the kernel's.
uint64_t FairClass::hierarchicalWeight(const SchedEntity& taskSe) const
{
    uint64_t weight = kNice0Load;
    for (const SchedEntity* se = &taskSe; se; se = se->parent) {
        weight *= se->load.weight;
        weight /= se->parent ? std::max<uint64_t>(se->cfsRq->loadWeight, 1) : kNice0Load;
        weight = std::max(weight, kMinShares);
    }
    return weight;
}

// §6.4 D on h_load (7.3 reweight_eevdf()): a queued task keeps its virtual lag and its deadline
// relative to V, both scaled by old/new; V does not move (no place_entity(), no inflation). A
// task off the queue only has its saved lag (and a relative deadline) rescaled.
void FairClass::reweightEevdf(CfsRq& root, SchedEntity& se, uint64_t weight, bool onRq)
{
    const uint64_t old = se.hLoad.weight;
    if (old == weight || weight == 0)
        return;
    const bool isCurr = root.taskCurr == &se;
    const bool relVprot =
        onRq && isCurr && m_p.choices->protection == Protection::Vprot && isProtected(se);
    uint64_t avg = 0;
    if (onRq) {
        avg = root.avgVruntime();
        const int64_t limit = lagLimit(root, se); // with the old h_load (entity_lag())
        se.vlag = std::clamp(vdiff(avg, se.vruntime), -limit, limit);
        se.deadline -= avg;
        se.relDeadline = true;
        if (relVprot)
            se.vprot -= avg;
        --root.hNrQueued;
        if (!isCurr)
            root.dequeueTree(se);
    }
    if (old) { // rescale_entity()
        se.vlag = mulDivS64(se.vlag, old, weight);
        if (se.relDeadline)
            se.deadline =
                static_cast<uint64_t>(mulDivS64(static_cast<int64_t>(se.deadline), old, weight));
        if (relVprot)
            se.vprot =
                static_cast<uint64_t>(mulDivS64(static_cast<int64_t>(se.vprot), old, weight));
    }
    se.hLoad = LoadWeight{weight, 0};
    if (onRq) {
        if (relVprot)
            se.vprot += avg;
        se.deadline += avg;
        se.relDeadline = false;
        se.vruntime = avg - static_cast<uint64_t>(se.vlag);
        if (!isCurr)
            root.enqueueTree(se);
        ++root.hNrQueued;
    }
}

// 7.3 reweight_entity(): only the level's accounting (load.weight of the queue); vruntime, lag
// and deadline are untouched -- the task's h_load follows at its next enqueue, switch or tick.
void FairClass::reweightLoadOnly(CfsRq& cfsRq, SchedEntity& se, uint64_t weight, uint32_t invWeight)
{
    const uint64_t old = se.load.weight;
    if (weight == old || weight == 0)
        return;
    if (se.onRq)
        cfsRq.loadWeight -= old;
    se.load = LoadWeight{weight, invWeight};
    if (se.peltAttached)
        peltReweight(cfsRq.avg, se.avg, scaleLoadDown(old), scaleLoadDown(weight));
    if (se.onRq)
        cfsRq.loadWeight += weight;
    m_ctx.record(RecordKind::Reweight, se, static_cast<int64_t>(old), static_cast<int64_t>(weight));
    if (se.isTask())
        m_ctx.sample(se);
}

// 7.3 update_curr(cfs_rq) is FairClass::updateCurr() (fairclass.cpp): it charges the level's
// running entity (h_curr) and its bandwidth; only when that entity is the task does its vruntime
// advance, in rq->cfs, by calc_delta_fair() on h_load. (So update_curr(rq->cfs) with a grouped
// task running charges only the top-level group entity, as the kernel's pick and yield paths do.)

// 7.3 enqueue_task_fair() + enqueue_hierarchy(): every level is updated (entities that were not
// queued are accounted, the others refresh PELT and shares), the counters go up to the root,
// and the product of the weight fractions is the task's new h_load. Then the task is placed in
// rq->cfs with that weight (its saved lag first rescaled to it) and inserted.
void FairClass::enqueueTaskFlat(Rq& rq, SchedEntity& taskSe, int flags)
{
    CfsRq& root = *rq.cfs;
    if (flags & EnqueueDelayed) {
        requeueDelayedFlat(root, taskSe);
        taskQueued(rq, taskSe, true, flags);
        return;
    }
    if (!taskSe.hLoad.weight)
        taskSe.hLoad = taskSe.load; // a task that never competed yet: its own weight
    const bool isCurr = root.taskCurr == &taskSe;
    if (isCurr)
        placeEntity(root, taskSe, flags);    // before the counters include it
    int hNrIdle = taskSe.idlePolicy ? 1 : 0; // 1 above a cpu.idle group's queue
    const int hNrRunnable = (taskSe.schedDelayed && !(flags & EnqueueWakeup)) ? 0 : 1; // §5.4
    int levelFlags = flags;
    for (SchedEntity* se = &taskSe; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        updateCurr(cfsRq);
        if (!se->onRq) {
            // enqueue_entity(): PELT attach, shares before the accounting, no tree.
            updateLoadAvg(cfsRq, *se, true);
            updateCfsGroup(*se);
            accountEnqueue(cfsRq, *se);
            se->onRq = true;
            if (cfsRq.nrQueued == 1)
                checkEnqueueThrottle(cfsRq); // §9.2 step 4
            m_ctx.record(RecordKind::Enqueue, *se, levelFlags);
        } else {
            updateLoadAvg(cfsRq, *se, true);
            updateCfsGroup(*se);
        }
        ++cfsRq.hNrQueued;
        cfsRq.hNrRunnable += hNrRunnable;
        cfsRq.hNrIdle += hNrIdle;
        if (cfsRq.isIdle())
            hNrIdle = 1;
        levelFlags = EnqueueWakeup;
    }
    if (!isCurr) {
        // Each level's fraction depends only on that level's own entity and queue, so the
        // product can be taken once every level is updated.
        reweightEevdf(root, taskSe, hierarchicalWeight(taskSe), false);
        placeEntity(root, taskSe, flags | EnqueueQueued);
        root.enqueueTree(taskSe);
    }
    addNrRunning(rq, 1);
    m_ctx.sample(taskSe);
    taskQueued(rq, taskSe, true, flags);
}

// 7.3 requeue_delayed_entity() on rq->cfs: the 7.2 lag rules decide whether to place again.
void FairClass::requeueDelayedFlat(CfsRq& root, SchedEntity& se)
{
    if (updateEntityLag(root, se)) {
        const bool isCurr = &se == root.taskCurr;
        --root.hNrQueued;
        if (!isCurr)
            root.dequeueTree(se);
        placeEntity(root, se, 0);
        if (!isCurr)
            root.enqueueTree(se);
        ++root.hNrQueued;
    }
    updateLoadAvg(*se.cfsRq, se, false);
    clearDelayed(se);
    m_ctx.record(RecordKind::Enqueue, se, EnqueueDelayed);
    m_ctx.sample(se);
}

// 7.3 __dequeue_task() + dequeue_hierarchy(): the lag is saved in rq->cfs first; an ineligible
// sleeper stays queued, delayed (only tasks can be); otherwise every level is updated: entities
// are un-accounted up to the first queue that keeps other weight, the rest refresh PELT and
// shares; the counters go down to the root; finally the task leaves the flat tree. No next
// buddy is set for the sleeper's group any more.
int FairClass::dequeueTaskFlat(Rq& rq, SchedEntity& taskSe, int flags)
{
    CfsRq& root = *rq.cfs;
    const bool taskSleep = flags & DequeueSleep;
    const bool taskDelayed = flags & DequeueDelayed;
    if (!taskSe.schedDelayed)
        taskQueued(rq, taskSe, false, flags);
    clearBuddies(root, taskSe);
    updateCurr(*taskSe.cfsRq);
    updateEntityLag(root, taskSe);
    if (!taskDelayed) {
        const bool delay = taskSleep && !(flags & (DequeueSpecial | DequeueThrottle));
        if (m_p.choices->delayRules != DelayRules::None && feature(Feature::DelayDequeue) && delay
            && !root.entityEligible(taskSe)) {
            updateLoadAvg(*taskSe.cfsRq, taskSe, false);
            setDelayed(taskSe);
            m_ctx.record(RecordKind::Delay, taskSe);
            m_ctx.sample(taskSe);
            return -1;
        }
    }
    const int hNrRunnable = (taskSleep || taskDelayed || !taskSe.schedDelayed) ? 1 : 0;
    int hNrIdle = taskSe.idlePolicy ? 1 : 0; // 1 above a cpu.idle group's queue
    bool dequeue = true;
    int levelFlags = flags;
    for (SchedEntity* se = &taskSe; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        updateCurr(cfsRq);
        if (dequeue) {
            // dequeue_entity(): PELT (detach on migration), accounting, slack, shares.
            updateLoadAvg(cfsRq, *se, true);
            se->onRq = false;
            accountDequeue(cfsRq, *se);
            if (se == &taskSe) // account_entity_dequeue(): off rq->cfs_tasks (§8.3)
                taskSe.groupNode.unlink();
            returnCfsRqRuntime(cfsRq); // §9.3 slack on the last dequeue
            updateCfsGroup(*se);
            if (se != &taskSe)
                m_ctx.record(RecordKind::Dequeue, *se, levelFlags);
            if (cfsRq.loadWeight)
                dequeue = false; // the parent keeps other entities
        } else {
            updateLoadAvg(cfsRq, *se, true);
            updateCfsGroup(*se);
        }
        cfsRq.hNrRunnable -= hNrRunnable;
        --cfsRq.hNrQueued;
        cfsRq.hNrIdle -= hNrIdle;
        if (cfsRq.isIdle())
            hNrIdle = 1;
        levelFlags |= DequeueSleep;
        levelFlags &= ~(DequeueDelayed | DequeueSpecial);
    }
    if (feature(Feature::PlaceRelDeadline) && !taskSleep) {
        taskSe.deadline -= taskSe.vruntime; // relative deadline across migration/save-restore
        taskSe.relDeadline = true;
    }
    if (&taskSe != root.taskCurr)
        root.dequeueTree(taskSe);
    subNrRunning(rq, 1);
    if (taskDelayed)
        clearDelayed(taskSe);
    if (m_p.choices->v0 == V0Mode::MinVruntime
        && (flags & (DequeueSave | DequeueMove)) != DequeueSave)
        root.updateMinVruntime();
    m_ctx.record(RecordKind::Dequeue, taskSe, flags);
    m_ctx.sample(taskSe);
    return 1;
}

// 7.3 pick_next_entity(): one pick_eevdf() on rq->cfs; a delayed task is dequeued for good.
SchedEntity* FairClass::pickNextEntityFlat(Rq& rq, bool protect)
{
    SchedEntity* se = pickEevdfInline(*rq.cfs, protect);
    if (se && se->schedDelayed) {
        dequeueTaskFlat(rq, *se, DequeueSleep | DequeueDelayed);
        return nullptr;
    }
    return se;
}

// 7.3 pick_task_fair(): a single level, no descent.
SchedEntity* FairClass::pickTaskFlat(Rq& rq)
{
    CfsRq& root = *rq.cfs;
    for (int guard = 0; guard < 1 << 20; ++guard) {
        if (!root.hNrQueued)
            return nullptr;
        if (root.taskCurr && root.taskCurr->onRq)
            updateCurr(root); // root's h_curr: the top-level entity of the running task
        if (SchedEntity* se = pickNextEntityFlat(rq, true))
            return se;
    }
    return nullptr;
}

// 7.3 put_prev_task_fair(): put_prev_entity() on every level of prev's path that @p keepFor
// (the next task, or null) does not share, then prev goes back into rq->cfs's tree.
void FairClass::putPrevTaskFlat(Rq& rq, SchedEntity& taskSe, const SchedEntity* keepFor)
{
    for (SchedEntity* se = &taskSe; se; se = se->parent) {
        if (keepFor && onPath(*se, keepFor))
            break; // shared with next: stays the level's h_curr
        CfsRq& cfsRq = *se->cfsRq;
        if (se->onRq) {
            updateCurr(cfsRq);
            updateLoadAvg(cfsRq, *se, false);
        }
        cfsRq.curr = nullptr;
    }
    CfsRq& root = *rq.cfs;
    root.taskCurr = nullptr;
    if (taskSe.onRq)
        root.enqueueTreeInline(taskSe);
    m_ctx.sample(taskSe);
}

// 7.3 set_next_task_fair(): out of the tree, set_next_entity() on each level that has no h_curr
// yet (all of them unless this is a genuine pick), then the fresh h_load is applied and, at a
// genuine pick, the slice protection set (§3.7).
void FairClass::setNextTaskFlat(Rq& rq, SchedEntity& taskSe, bool first)
{
    CfsRq& root = *rq.cfs;
    clearBuddies(root, taskSe);
    const bool onRq = taskSe.onRq;
    if (onRq)
        root.dequeueTreeInline(taskSe);
    for (SchedEntity* se = &taskSe; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        if (!first || !cfsRq.curr) {
            if (se->onRq)
                updateLoadAvg(cfsRq, *se, true); // with UPDATE_TG (§7.3)
            cfsRq.curr = se;
            se->prevSumExecRuntime = se->sumExecRuntime;
            se->execStart = m_ctx.clock();
        }
    }
    root.taskCurr = &taskSe;
    if (onRq) {
        reweightEevdf(root, taskSe, hierarchicalWeight(taskSe), true);
        if (first)
            setProtectSlice(root, taskSe);
    }
    m_ctx.sample(taskSe);
}

// 7.3 task_tick_fair(): entity_tick() at every level (update_curr, PELT with UPDATE_TG, shares),
// then the running task's h_load is refreshed from the new fractions.
void FairClass::taskTickFlat(Rq& rq)
{
    SchedEntity* taskSe = rq.curr;
    if (!taskSe || !taskSe->onRq)
        return;
    for (SchedEntity* se = taskSe; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        updateCurr(cfsRq);
        updateLoadAvg(cfsRq, *se, true);
        updateCfsGroup(*se);
    }
    reweightEevdf(*rq.cfs, *taskSe, hierarchicalWeight(*taskSe), taskSe->onRq);
}

} // namespace schedlab
