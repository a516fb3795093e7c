// SPDX-License-Identifier: GPL-2.0-or-later
// The ≤6.17 "group dequeue" throttle model's run-queue surgery (kernel-model.md §9.2 step 5,
// §9.3 "Unthrottle", §6.7): the throttled cfs_rq's group entity leaves its parent (and
// ancestors that become empty), with the h_nr_* counts of every ancestor and rq->nr_running
// reduced by the throttled cfs_rq's counts; unthrottling re-enqueues the chain with
// ENQUEUE_WAKEUP (lag-based placement, §4.2). The tasks inside stay queued on the detached
// cfs_rq. Pool accounting and timers are in core/fair/cfsbandwidth.cpp.
#include "fairclass.h"

namespace schedlab {

void FairClass::throttleDequeue(Rq& rq, CfsRq& cfsRq)
{
    const int queuedDelta = cfsRq.hNrQueued;
    const int runnableDelta = cfsRq.hNrRunnable;
    int idleDelta = cfsRq.hNrIdle; // every task once a cpu.idle group's queue is left behind
    cfsRq.throttleDequeued = true;
    SchedEntity* se = cfsRq.owner;
    for (; se; se = se->parent) {
        CfsRq& qcfsRq = *se->cfsRq;
        if (!se->onRq)
            return; // an ancestor is already throttled (or the chain is being enqueued)
        // SPECIAL: never delayed; a delayed group entity is finished off (§9.2 step 5).
        int flags = DequeueSleep | DequeueSpecial;
        if (se->schedDelayed)
            flags |= DequeueDelayed;
        dequeueEntity(qcfsRq, *se, flags);
        if (se->myQ->isIdle())
            idleDelta = queuedDelta;
        qcfsRq.hNrQueued -= queuedDelta;
        qcfsRq.hNrRunnable -= runnableDelta;
        qcfsRq.hNrIdle -= idleDelta;
        if (qcfsRq.throttleDequeued)
            return;
        if (qcfsRq.loadWeight) {
            se = se->parent; // the parent keeps other entities: only counts change above
            break;
        }
    }
    for (; se; se = se->parent) {
        CfsRq& qcfsRq = *se->cfsRq;
        if (!se->onRq)
            return;
        updateLoadAvg(qcfsRq, *se, false);
        if (se->myQ->isIdle())
            idleDelta = queuedDelta;
        qcfsRq.hNrQueued -= queuedDelta;
        qcfsRq.hNrRunnable -= runnableDelta;
        qcfsRq.hNrIdle -= idleDelta;
        if (qcfsRq.throttleDequeued)
            return;
    }
    subNrRunning(rq, queuedDelta); // reached the root
}

void FairClass::unthrottleEnqueue(Rq& rq, CfsRq& cfsRq)
{
    cfsRq.throttleDequeued = false;
    if (!cfsRq.loadWeight)
        return; // nothing queued: nothing to put back
    const int queuedDelta = cfsRq.hNrQueued;
    const int runnableDelta = cfsRq.hNrRunnable;
    int idleDelta = cfsRq.hNrIdle;
    SchedEntity* se = cfsRq.owner;
    for (; se; se = se->parent) {
        CfsRq& qcfsRq = *se->cfsRq;
        if (se->schedDelayed)
            dequeueEntity(qcfsRq, *se, DequeueSleep | DequeueDelayed); // unfinished delay
        else if (se->onRq)
            break;
        enqueueEntity(qcfsRq, *se, EnqueueWakeup);
        if (se->myQ->isIdle())
            idleDelta = queuedDelta;
        qcfsRq.hNrQueued += queuedDelta;
        qcfsRq.hNrRunnable += runnableDelta;
        qcfsRq.hNrIdle += idleDelta;
        if (qcfsRq.throttleDequeued)
            return;
    }
    for (; se; se = se->parent) {
        CfsRq& qcfsRq = *se->cfsRq;
        updateLoadAvg(qcfsRq, *se, true);
        updateCfsGroup(*se);
        if (se->myQ->isIdle())
            idleDelta = queuedDelta;
        qcfsRq.hNrQueued += queuedDelta;
        qcfsRq.hNrRunnable += runnableDelta;
        qcfsRq.hNrIdle += idleDelta;
        if (qcfsRq.throttleDequeued)
            return;
    }
    addNrRunning(rq, queuedDelta); // reached the root
}

} // namespace schedlab
