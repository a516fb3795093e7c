// SPDX-License-Identifier: GPL-2.0-or-later
// The fair class, kernel-model.md §3–§7. Section references name where each rule is specified.
#include "fairclass.h"

#include "core/fair/cfsbandwidth.h"
#include "core/fair/loadavg.h"
#include "muldiv.h"

#include <algorithm>

namespace schedlab {

FairClass::FairClass(FairParams params, MachineContext& ctx, std::vector<TaskGroup>& groups)
    : m_p(params)
    , m_ctx(ctx)
    , m_groups(groups)
{ }

void FairClass::updateLoadAvg(CfsRq& cfsRq, SchedEntity& se, bool updateTg)
{
    if (m_load)
        m_load->updateLoadAvg(cfsRq, se, updateTg);
}

void FairClass::taskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags)
{
    if (m_hooks)
        m_hooks->taskQueued(rq, taskSe, enqueued, flags);
}

void FairClass::accountCfsRqRuntime(CfsRq& cfsRq, int64_t delta)
{
    if (m_bw && cfsRq.runtimeEnabled) // accountRuntime()'s first test, without the call
        m_bw->accountRuntime(cfsRq, delta);
}

bool FairClass::checkCfsRqRuntime(CfsRq& cfsRq)
{
    return m_bw && m_bw->checkRuntime(cfsRq);
}

void FairClass::checkEnqueueThrottle(CfsRq& cfsRq)
{
    if (m_bw)
        m_bw->checkEnqueueThrottle(cfsRq);
}

void FairClass::returnCfsRqRuntime(CfsRq& cfsRq)
{
    if (m_bw)
        m_bw->returnRuntime(cfsRq);
}

uint64_t FairClass::vslice(int64_t slice, SchedEntity& se) const
{
    return calcDeltaFair(static_cast<uint64_t>(slice), eevdfLoad(se), m_p.choices->weightPrecision);
}

// --- §3.6 update_curr, §3.8 update_deadline ---------------------------------------------------

// update_deadline(), inline into update_curr() (once per tick) and behind updateDeadline().
__attribute__((always_inline)) inline bool FairClass::renewDeadline(
    CfsRq& cfsRq, SchedEntity& se, const ProfileChoices& choices)
{
    if (vdiff(se.vruntime, se.deadline) < 0)
        return false;
    if (!se.customSlice)
        se.slice = m_p.baseSlice; // sysctl changes take effect at renewal
    // d := v + vslice — from the current vruntime, missed periods are not caught up (§3.8).
    se.deadline = se.vruntime
        + calcDeltaFairInline(static_cast<uint64_t>(se.slice), choices.flat ? se.hLoad : se.load,
            choices.weightPrecision);
    m_ctx.record(RecordKind::DeadlineRenew, se, static_cast<int64_t>(se.deadline), se.slice);
    if (choices.v0 == V0Mode::ZeroVruntimeAvg)
        cfsRq.avgVruntime(); // 7.0+: moves zero_vruntime
    return true;
}

void FairClass::updateCurrRan(CfsRq& cfsRq, SchedEntity& curr)
{
    // update_curr(): one function for both run-queue layouts. With a flat run queue (7.3, §6.1)
    // every level is charged for bandwidth, but only a task has EEVDF state: its vruntime
    // advances at its h_load in rq->cfs. The choices are read once: nothing below changes them.
    const ProfileChoices& choices = *m_p.choices;
    const bool flatRq = choices.flat;
    const int64_t now = m_ctx.clock();
    const int64_t delta = now - curr.execStart;
    curr.execStart = now;
    curr.sumExecRuntime += delta;
    if (flatRq) {
        accountCfsRqRuntime(cfsRq, delta); // §9.2 step 1, every level
        if (!curr.isTask())
            return;
    }
    CfsRq& q = flatRq ? eevdfRq(curr) : cfsRq; // the queue curr's EEVDF runs in
    curr.vruntime += calcDeltaFairInline(
        static_cast<uint64_t>(delta), flatRq ? curr.hLoad : curr.load, choices.weightPrecision);
    const bool resched = renewDeadline(q, curr, choices);
    if (choices.v0 == V0Mode::MinVruntime)
        q.updateMinVruntime();
    if (curr.isTask())
        m_ctx.accountExec(curr, delta);
    if (!flatRq)
        accountCfsRqRuntime(cfsRq, delta); // §9.2 step 1, every level
    m_ctx.sample(curr);
    if ((flatRq ? q.hNrQueued : q.nrQueued) == 1)
        return;
    bool doResched = resched;
    if (!doResched) {
        if (m_p.traits->resched617)
            doResched = !isProtected(curr); // 6.17+: end of a protected period
        else if (m_p.traits->customSlices)
            doResched = didPreemptShort(q, curr); // 6.12–6.16 PREEMPT_SHORT
    }
    if (doResched) {
        m_ctx.resched(q.cpu, true);
        clearBuddies(q, curr);
    }
}

bool FairClass::updateDeadline(CfsRq& cfsRq, SchedEntity& se)
{
    return renewDeadline(cfsRq, se, *m_p.choices);
}

// --- §4.1 lag -------------------------------------------------------------------------------

int64_t FairClass::lagLimit(const CfsRq& cfsRq, SchedEntity& se) const
{
    int64_t span = 0;
    if (m_p.choices->lagClamp == LagClamp::OwnSlice)
        span = std::max<int64_t>(2 * se.slice, m_p.tickNs); // 6.6–6.19: own slice
    else
        span = cfsRq.maxSlice() + m_p.tickNs; // 7.0+: max slice on the rq + one tick
    return static_cast<int64_t>(vslice(span, se));
}

bool FairClass::updateEntityLag(CfsRq& cfsRq, SchedEntity& se)
{
    const uint64_t v = cfsRq.avgVruntime();
    const int64_t limit = lagLimit(cfsRq, se);
    const int64_t fresh = std::clamp(vdiff(v, se.vruntime), -limit, limit);
    int64_t vl = fresh;
    bool differs = false;
    if (m_p.choices->delayRules == DelayRules::V72 && se.schedDelayed) {
        // 7.2: negative lag may not grow while delayed; DELAY_ZERO clips positive lag.
        vl = std::max(vl, se.vlag);
        if (feature(Feature::DelayZero))
            vl = std::min<int64_t>(vl, 0);
        differs = vl != fresh;
    }
    se.vlag = vl;
    if (m_p.choices->protection == Protection::VprotUnion && cfsRq.eevdfCurr() == &se)
        se.vprot = se.vruntime; // vprot shares storage with vlag (6.17–6.19): protection lost
    return differs;
}

// reweight_entity() of a group entity alone on its cfs_rq (no tree entity, curr): its V is its
// own vruntime, so update_entity_lag() saves 0 (clamped by any limit); 7.0's avg_vruntime() pulls
// v0 to it, and 6.17–6.19's curr loses its protection (vprot shares vlag's storage).
void FairClass::placeLoneCurrLag(CfsRq& cfsRq, SchedEntity& se)
{
    if (m_p.choices->v0 == V0Mode::ZeroVruntimeAvg)
        cfsRq.avgVruntime(); // moves zero_vruntime to se.vruntime (a second call: no move)
    se.vlag = 0;
    if (m_p.choices->protection == Protection::VprotUnion)
        se.vprot = se.vruntime;
}

// place_entity() of the same entity after the change: V is still its vruntime, no other entity
// is queued (no lag to inflate), so it stays where it is; the relative deadline comes back.
void FairClass::placeLoneCurr(SchedEntity& se)
{
    if (!se.customSlice)
        se.slice = m_p.baseSlice;
    placeDeadline(se, se.vruntime, 0, false);
}

// The end of place_entity() once the vruntime is placed: the Place record (V @p v, the inflated
// @p lag), then the relative deadline kept across the move (PLACE_REL_DEADLINE) or a new one a
// slice on, half a slice for a new task (@p initial: PLACE_DEADLINE_INITIAL and ENQUEUE_INITIAL).
void FairClass::placeDeadline(SchedEntity& se, uint64_t v, int64_t lag, bool initial)
{
    m_ctx.record(RecordKind::Place, se, static_cast<int64_t>(v), lag, se.vlag);
    if (se.relDeadline && (feature(Feature::PlaceRelDeadline) || m_p.traits->relDeadlineUngated)) {
        se.deadline += se.vruntime; // relative deadline kept across the move (PLACE_REL_DEADLINE)
        se.relDeadline = false;
        return;
    }
    uint64_t vs = vslice(se.slice, se);
    if (initial)
        vs /= 2; // new tasks start with half a slice
    se.deadline = se.vruntime + vs;
}

// --- §4.2 placement -------------------------------------------------------------------------

void FairClass::placeEntity(CfsRq& cfsRq, SchedEntity& se, int flags)
{
    // V before the entity is counted (callers guarantee it is neither in the tree nor curr).
    const uint64_t v = cfsRq.avgVruntime();
    if (!se.customSlice)
        se.slice = m_p.baseSlice;
    int64_t lag = 0;
    // 7.3 (flat): the other tasks are h_nr_queued of rq->cfs, less the entity itself when the
    // caller already counted it (ENQUEUE_QUEUED).
    const int others =
        flat() ? cfsRq.hNrQueued - ((flags & EnqueueQueued) ? 1 : 0) : cfsRq.nrQueued;
    if (feature(Feature::PlaceLag) && others > 0
        && (!m_p.traits->placeLagSkipZero || se.vlag != 0)) {
        // Inflate so that the lag after insertion equals the saved lag: vl·(L + w)/L.
        Int128 load = cfsRq.countedWeight();
        const Int128 w = cfsRq.avgWeight(se);
        if (load == 0)
            load = 1;
        lag = mulDivS128(se.vlag, load + w, load);
    }
    se.vruntime = v - static_cast<uint64_t>(lag);
    placeDeadline(se, v, lag, feature(Feature::PlaceDeadlineInitial) && (flags & EnqueueInitial));
}

// --- §6.5 enqueue_entity / dequeue_entity ------------------------------------------------------

void FairClass::accountEnqueue(CfsRq& cfsRq, SchedEntity& se)
{
    cfsRq.loadWeight += se.load.weight;
    ++cfsRq.nrQueued;
}

void FairClass::accountDequeue(CfsRq& cfsRq, SchedEntity& se)
{
    cfsRq.loadWeight -= se.load.weight;
    --cfsRq.nrQueued;
}

void FairClass::enqueueEntity(CfsRq& cfsRq, SchedEntity& se, int flags)
{
    const bool isCurr = cfsRq.curr == &se;
    if (isCurr)
        placeEntity(cfsRq, se, flags); // before update_curr, so V does not contain it
    updateCurr(cfsRq);
    updateLoadAvg(cfsRq, se, true);
    updateCfsGroup(se); // group weight refresh before placement
    if (!isCurr)
        placeEntity(cfsRq, se, flags);
    accountEnqueue(cfsRq, se);
    if (!isCurr)
        cfsRq.enqueueTree(se);
    se.onRq = true;
    if (cfsRq.nrQueued == 1)
        checkEnqueueThrottle(cfsRq); // §9.2 step 4
    m_ctx.record(RecordKind::Enqueue, se, flags);
    m_ctx.sample(se);
}

bool FairClass::dequeueEntity(CfsRq& cfsRq, SchedEntity& se, int flags)
{
    const bool sleep = flags & DequeueSleep;
    updateCurr(cfsRq);
    clearBuddies(cfsRq, se);
    if (!(flags & DequeueDelayed)) {
        const bool delay = sleep && !(flags & (DequeueSpecial | DequeueThrottle));
        // §5.1: an ineligible sleeper stays queued, burning off its negative lag.
        if (m_p.choices->delayRules != DelayRules::None && feature(Feature::DelayDequeue) && delay
            && !cfsRq.entityEligible(se)) {
            if (m_p.choices->delayRules == DelayRules::V72)
                updateEntityLag(cfsRq, se); // 7.2: save the (negative) lag now
            updateLoadAvg(cfsRq, se, false);
            setDelayed(se);
            m_ctx.record(RecordKind::Delay, se);
            m_ctx.sample(se);
            return false;
        }
    }
    updateLoadAvg(cfsRq, se, true);
    updateEntityLag(cfsRq, se);
    if (feature(Feature::PlaceRelDeadline) && !sleep) {
        se.deadline -= se.vruntime; // keep a relative deadline across migration/save-restore
        se.relDeadline = true;
    }
    if (&se != cfsRq.curr)
        cfsRq.dequeueTree(se);
    se.onRq = false;
    accountDequeue(cfsRq, se);
    updateCfsGroup(se);
    if (m_p.choices->v0 == V0Mode::MinVruntime
        && (flags & (DequeueSave | DequeueMove)) != DequeueSave)
        cfsRq.updateMinVruntime();
    if (flags & DequeueDelayed) {
        clearDelayed(se);
        // 6.12 finish_delayed_dequeue_entity(): DELAY_ZERO clips positive lag after the fact.
        if (m_p.choices->delayRules == DelayRules::V612 && feature(Feature::DelayZero)
            && se.vlag > 0)
            se.vlag = 0;
    }
    returnCfsRqRuntime(cfsRq); // §9.3 slack: return excess runtime on last dequeue
    m_ctx.record(RecordKind::Dequeue, se, flags);
    m_ctx.sample(se);
    return true;
}

void FairClass::setDelayed(SchedEntity& se)
{
    se.schedDelayed = true;
    if (!se.isTask())
        return;
    for (SchedEntity* s = &se; s; s = s->parent) {
        --s->cfsRq->hNrRunnable;
        if (s->cfsRq->throttleDequeued)
            break; // ≤6.17: counts above a throttled cfs_rq left with its entity
    }
}

void FairClass::clearDelayed(SchedEntity& se)
{
    se.schedDelayed = false;
    if (!se.isTask())
        return;
    for (SchedEntity* s = &se; s; s = s->parent) {
        ++s->cfsRq->hNrRunnable;
        if (s->cfsRq->throttleDequeued)
            break; // ≤6.17: counts above a throttled cfs_rq left with its entity
    }
}

// §5.2 B: a delayed entity is woken (ttwu_runnable / enqueue walk meeting a delayed group).
void FairClass::requeueDelayedEntity(SchedEntity& se)
{
    if (flat()) {
        requeueDelayedFlat(eevdfRq(se), se);
        return;
    }
    CfsRq& cfsRq = *se.cfsRq;
    bool replace = false;
    if (m_p.choices->delayRules == DelayRules::V72) {
        replace = updateEntityLag(cfsRq, se);
    } else if (feature(Feature::DelayZero)) {
        updateEntityLag(cfsRq, se);
        if (se.vlag > 0) {
            se.vlag = 0;
            replace = true;
        }
    }
    if (replace) {
        const bool isCurr = &se == cfsRq.curr;
        --cfsRq.nrQueued;
        if (!isCurr)
            cfsRq.dequeueTree(se);
        placeEntity(cfsRq, se, 0);
        if (!isCurr)
            cfsRq.enqueueTree(se);
        ++cfsRq.nrQueued;
    }
    updateLoadAvg(cfsRq, se, false);
    clearDelayed(se);
    m_ctx.record(RecordKind::Enqueue, se, EnqueueDelayed);
    m_ctx.sample(se);
}

// --- §6.4 reweight_entity -------------------------------------------------------------------

void FairClass::reweightEntity(CfsRq& cfsRq, SchedEntity& se, uint64_t weight, uint32_t invWeight)
{
    if (flat()) {
        reweightLoadOnly(cfsRq, se, weight, invWeight); // 7.3: h_load follows separately
        return;
    }
    const uint64_t old = se.load.weight;
    if (weight == old || weight == 0)
        return;
    const bool isCurr = cfsRq.curr == &se;
    const ReweightRule rule = m_p.choices->reweight;
    const bool protectedCurr =
        isCurr && m_p.choices->protection == Protection::Vprot && isProtected(se);
    uint64_t avg = 0;
    int64_t relDeadline = 0;
    int64_t relVprot = 0;
    // A group entity running alone on its cfs_rq (nothing in the tree, so the tree's sums are
    // zero): V = v0 + ⌊key·ŵ / ŵ⌋ = its own vruntime before and after the change, whatever the
    // weight, so update_entity_lag() saves a lag of 0 and place_entity() (no other entity: no
    // inflation) puts it back where it is. Taken without the two V and the lag clamp; the
    // records, the deadline's rescale and every other step as below (6.13–7.0's rule).
    const bool lone = rule == ReweightRule::Place && isCurr && se.onRq && se.myQ
        && cfsRq.nrQueued == 1 && cfsRq.sumWeight == 0 && cfsRq.sumWVruntime == 0
        && !(m_p.choices->delayRules == DelayRules::V72 && se.schedDelayed);

    if (se.onRq) {
        updateCurr(cfsRq);
        switch (rule) {
        case ReweightRule::KeepVruntime:
            break;
        case ReweightRule::Eevdf:
            avg = cfsRq.avgVruntime(); // 6.9: V taken before se leaves the sums
            break;
        case ReweightRule::Place:
            if (lone)
                placeLoneCurrLag(cfsRq, se); // V is se's own vruntime: lag 0
            else
                updateEntityLag(cfsRq, se); // V includes se (as curr or in the tree)
            se.deadline -= se.vruntime;
            se.relDeadline = true;
            if (protectedCurr)
                relVprot = vdiff(se.vprot, se.vruntime); // 7.0 ff38424030f9
            --cfsRq.nrQueued;                            // c70fc32f4443
            break;
        case ReweightRule::Rescale:
            avg = cfsRq.avgVruntime();
            se.vlag =
                std::clamp(vdiff(avg, se.vruntime), -lagLimit(cfsRq, se), lagLimit(cfsRq, se));
            relDeadline = vdiff(se.deadline, avg);
            if (protectedCurr)
                relVprot = vdiff(se.vprot, avg);
            --cfsRq.nrQueued;
            break;
        }
        if (!isCurr)
            cfsRq.dequeueTree(se);
        cfsRq.loadWeight -= old;
    }

    if (se.onRq && rule == ReweightRule::Eevdf) {
        // reweight_eevdf(): V-invariant; lag clamped with the old weight, then scaled (§6.4 B).
        if (avg != se.vruntime) {
            const int64_t limit = lagLimit(cfsRq, se);
            int64_t vlag = std::clamp(vdiff(avg, se.vruntime), -limit, limit);
            vlag = mulDivS64(vlag, old, weight);
            se.vruntime = avg - static_cast<uint64_t>(vlag);
        }
        const int64_t vslag = mulDivS64(vdiff(se.deadline, avg), old, weight);
        se.deadline = avg + static_cast<uint64_t>(vslag);
    } else if (!se.onRq || rule == ReweightRule::Place || rule == ReweightRule::Rescale) {
        // Lag is stored virtual: rescale it with the weight (all versions for !on_rq).
        se.vlag = mulDivS64(se.vlag, old, weight);
        if (se.relDeadline && rule != ReweightRule::Eevdf && rule != ReweightRule::KeepVruntime)
            se.deadline =
                static_cast<uint64_t>(mulDivS64(static_cast<int64_t>(se.deadline), old, weight));
        if (rule == ReweightRule::Rescale && se.onRq)
            relDeadline = mulDivS64(relDeadline, old, weight);
        relVprot = mulDivS64(relVprot, old, weight);
    }

    se.load = LoadWeight{weight, invWeight}; // tasks: sched_prio_to_wmult; groups: lazily
    if (se.peltAttached)
        peltReweight(cfsRq.avg, se.avg, scaleLoadDown(old), scaleLoadDown(weight));
    m_ctx.record(RecordKind::Reweight, se, static_cast<int64_t>(old), static_cast<int64_t>(weight));

    if (se.onRq) {
        switch (rule) {
        case ReweightRule::KeepVruntime:
        case ReweightRule::Eevdf:
            break;
        case ReweightRule::Place:
            if (lone)
                placeLoneCurr(se);
            else
                placeEntity(cfsRq, se, 0); // 6.13–7.0: lag inflated again, V contains curr
            if (protectedCurr)
                se.vprot = se.vruntime + static_cast<uint64_t>(relVprot);
            ++cfsRq.nrQueued;
            break;
        case ReweightRule::Rescale:
            se.vruntime = avg - static_cast<uint64_t>(se.vlag);
            se.deadline = avg + static_cast<uint64_t>(relDeadline);
            if (protectedCurr)
                se.vprot = avg + static_cast<uint64_t>(relVprot);
            ++cfsRq.nrQueued;
            break;
        }
        if (!isCurr)
            cfsRq.enqueueTree(se);
        cfsRq.loadWeight += weight;
        if (m_p.choices->v0 == V0Mode::MinVruntime && rule != ReweightRule::KeepVruntime)
            cfsRq.updateMinVruntime();
    }
    m_ctx.sample(se);
}

// --- §3.7 protection --------------------------------------------------------------------------

bool FairClass::isProtected(const SchedEntity& se) const
{
    return entityProtected(se, m_p.choices->protection);
}

void FairClass::protectShorterSlice(CfsRq& cfsRq, SchedEntity& se, int64_t slice)
{
    uint64_t limit = 0;
    if (m_p.traits->protectIneligible && feature(Feature::PreemptShort))
        limit = cfsRq.ineligibleVruntime();
    else
        limit = se.vruntime + vslice(slice, se);
    if (vdiff(limit, se.vprot) < 0)
        se.vprot = limit;
}

void FairClass::cancelProtectSlice(SchedEntity& se)
{
    if (!isProtected(se))
        return;
    if (m_p.choices->protection == Protection::DeadlineHack)
        se.vlag = static_cast<int64_t>(se.deadline) + 1;
    else
        se.vprot = se.vruntime;
}

void FairClass::updateProtectSlice(CfsRq& cfsRq, SchedEntity& se)
{
    if (m_p.choices->protection == Protection::DeadlineHack)
        return;
    const int64_t slice = cfsRq.minSlice();
    uint64_t base = se.vruntime; // 6.17–7.2: from curr's own v
    if (m_p.traits->protectIneligible) {
        const uint64_t avg = cfsRq.peekAvgVruntime(); // 7.3: from min(v, V)
        if (vdiff(avg, base) < 0)
            base = avg;
    }
    const uint64_t limit = base + vslice(slice, se);
    if (vdiff(limit, se.vprot) < 0)
        se.vprot = limit;
}

bool FairClass::didPreemptShort(CfsRq& cfsRq, SchedEntity& curr) const
{
    if (!feature(Feature::PreemptShort) || isProtected(curr))
        return false;
    return !cfsRq.entityEligible(curr);
}

bool FairClass::doPreemptShort(CfsRq& cfsRq, SchedEntity& pse, SchedEntity& se) const
{
    if (!feature(Feature::PreemptShort) || pse.slice >= se.slice)
        return false;
    if (!cfsRq.entityEligible(pse))
        return false;
    if (vdiff(pse.deadline, se.deadline) < 0)
        return true;
    return !cfsRq.entityEligible(se);
}

// --- §3.5 pick --------------------------------------------------------------------------------

SchedEntity* FairClass::pickEevdf(CfsRq& cfsRq, bool protect)
{
    // The steps live in pickexplain.h, shared with the pick explanation.
    return pickEevdfSteps(cfsRq, pickPolicy(), protect, nullptr);
}

SchedEntity* FairClass::pickNextEntity(Rq& rq, CfsRq& cfsRq, bool protect)
{
    if (flat())
        return pickNextEntityFlat(rq, protect);
    SchedEntity* se = nullptr;
    SchedEntity* next = cfsRq.next;
    // 6.12: PICK_BUDDY, 6.6: NEXT_BUDDY, are checked in pick_next_entity() before pick_eevdf()
    // (so the wakeup-preemption check, which calls pick_eevdf() directly, ignores the buddy).
    const bool buddyHere = buddyCheckedInPickNextEntity(pickPolicy());
    if (cfsRq.boostPick && cfsRq.boostPick->onRq && cfsRq.boostPick->cfsRq == &cfsRq
        && !cfsRq.boostPick->schedDelayed)
        se = cfsRq.boostPick; // boost_throttled_on_wakeup: the boosted task's path goes first
    else if (buddyHere && next && cfsRq.entityEligible(*next))
        se = next;
    else
        se = pickEevdfInline(cfsRq, protect);
    if (se && se->schedDelayed) {
        // §5.2 A: a picked delayed entity is eligible; dequeue it for real and restart.
        dequeueEntities(rq, *se, DequeueSleep | DequeueDelayed);
        return nullptr;
    }
    return se;
}

void FairClass::clearBuddies(CfsRq& cfsRq, const SchedEntity& se)
{
    if (flat()) { // 7.3: only rq->cfs has a next buddy
        CfsRq& root = eevdfRq(se);
        if (root.next == &se)
            root.next = nullptr;
        return;
    }
    if (cfsRq.next != &se)
        return;
    for (SchedEntity* s = cfsRq.next; s; s = s->parent) {
        if (s->cfsRq->next != s)
            break;
        s->cfsRq->next = nullptr;
    }
}

void FairClass::setNextBuddy(SchedEntity* se)
{
    if (flat()) { // 7.3: the task itself, in rq->cfs
        if (se && se->onRq && !se->schedDelayed && !isIdleEntity(*se))
            eevdfRq(*se).next = se;
        return;
    }
    for (; se; se = se->parent) {
        if (!se->onRq || isIdleEntity(*se))
            return;
        se->cfsRq->next = se;
    }
}

bool FairClass::isIdleEntity(const SchedEntity& se) const
{
    return se.idlePolicy;
}

// --- §7.3 set_next_entity / put_prev_entity ----------------------------------------------------

// set_next_entity() and put_prev_entity() inline into their walks (switchTasks(), setNextTask(),
// putPrevTask()): a switch calls each once per level.
[[gnu::always_inline]] inline void FairClass::setNextEntityInline(
    CfsRq& cfsRq, SchedEntity& se, bool first)
{
    clearBuddies(cfsRq, se);
    if (se.onRq) {
        cfsRq.dequeueTreeInline(se); // curr is never in the tree
        // PELT with UPDATE_TG (§7.3); put_prev_entity() updates without it.
        updateLoadAvg(cfsRq, se, true);
        // 6.6–6.19: protection set at every set_next; 7.0+ (bcd74b2ffdd0 "Only set slice
        // protection at pick time"): not when a sched_change (a nice, affinity or group change
        // of the running task, the exit's group move, §8.2) sets it again.
        if (first || m_p.choices->protection != Protection::Vprot)
            setProtectSlice(cfsRq, se);
    }
    cfsRq.curr = &se;
    se.prevSumExecRuntime = se.sumExecRuntime;
    se.execStart = m_ctx.clock();
    m_ctx.sample(se);
}

void FairClass::setNextEntity(CfsRq& cfsRq, SchedEntity& se, bool first)
{
    // (The walks below take the inline body.)
    setNextEntityInline(cfsRq, se, first);
}

[[gnu::always_inline]] inline void FairClass::putPrevEntity(CfsRq& cfsRq, SchedEntity& se)
{
    if (se.onRq)
        updateCurr(cfsRq);
    if (se.onRq) {
        cfsRq.enqueueTreeInline(se); // while curr still points to se (6.19 double count, §3.2)
        updateLoadAvg(cfsRq, se, false);
    }
    cfsRq.curr = nullptr;
    m_ctx.sample(se);
}

// --- §6.5 hierarchy ---------------------------------------------------------------------------

void FairClass::enqueueTask(Rq& rq, SchedEntity& taskSe, int flags)
{
    if (flat()) {
        enqueueTaskFlat(rq, taskSe, flags);
        return;
    }
    if (flags & EnqueueDelayed) {
        requeueDelayedEntity(taskSe);
        taskQueued(rq, taskSe, true, flags);
        return;
    }
    // Counted idle from the level above a cpu.idle group's queue on (h_nr_idle = 1 there).
    int hNrIdle = taskSe.idlePolicy ? 1 : 0;
    // A delayed task enqueued without ENQUEUE_WAKEUP (moved by the balancer, §5.4) stays delayed:
    // queued, not runnable (enqueue_task_fair(): task_new && sched_delayed).
    const int hNrRunnable = (taskSe.schedDelayed && !(flags & EnqueueWakeup)) ? 0 : 1;
    int64_t slice = 0;
    SchedEntity* se = &taskSe;
    for (; se; se = se->parent) {
        if (se->onRq) {
            if (se->schedDelayed)
                requeueDelayedEntity(*se);
            break;
        }
        CfsRq& cfsRq = *se->cfsRq;
        if (slice && m_p.traits->customSlices) {
            se->slice = slice; // group slice = min child slice (6.12+)
            se->customSlice = true;
        }
        enqueueEntity(cfsRq, *se, flags);
        slice = cfsRq.minSlice();
        ++cfsRq.hNrQueued;
        cfsRq.hNrRunnable += hNrRunnable;
        cfsRq.hNrIdle += hNrIdle;
        if (cfsRq.isIdle())
            hNrIdle = 1;
        if (cfsRq.throttleDequeued)
            return; // ≤6.17: the walk ends at a throttled cfs_rq (§6.7)
        flags = EnqueueWakeup;
    }
    for (; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        updateLoadAvg(cfsRq, *se, true);
        updateCfsGroup(*se);
        if (m_p.traits->customSlices && slice) {
            cfsRq.setSlice(*se, slice);
            se->customSlice = true;
        }
        slice = cfsRq.minSlice();
        ++cfsRq.hNrQueued;
        cfsRq.hNrRunnable += hNrRunnable;
        cfsRq.hNrIdle += hNrIdle;
        if (cfsRq.isIdle())
            hNrIdle = 1;
        if (cfsRq.throttleDequeued)
            return;
    }
    addNrRunning(rq, 1);
    taskQueued(rq, taskSe, true, flags);
}

int FairClass::dequeueEntities(Rq& rq, SchedEntity& start, int flags)
{
    if (flat())
        return dequeueTaskFlat(rq, start, flags); // only tasks are ever dequeued (7.3)
    const bool taskSleep = flags & DequeueSleep;
    const bool taskDelayed = flags & DequeueDelayed;
    int hNrQueued = 0;
    int hNrRunnable = 0;
    int hNrIdle = 0;
    int64_t slice = 0;
    const bool isTask = start.isTask();
    if (isTask && !start.schedDelayed)
        taskQueued(rq, start, false, flags);
    if (isTask) {
        hNrQueued = 1;
        hNrIdle = start.idlePolicy ? 1 : 0;
        if (taskSleep || taskDelayed || !start.schedDelayed)
            hNrRunnable = 1;
    } else {
        slice = start.myQ->minSlice();
    }

    SchedEntity* se = &start;
    for (; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        if (!dequeueEntity(cfsRq, *se, flags)) {
            if (isTask && se == &start)
                return -1; // the task stays queued, delayed
            slice = cfsRq.minSlice();
            break;
        }
        if (isTask && se == &start)
            start.groupNode.unlink(); // account_entity_dequeue(): off rq->cfs_tasks (§8.3)
        cfsRq.hNrQueued -= hNrQueued;
        cfsRq.hNrRunnable -= hNrRunnable;
        cfsRq.hNrIdle -= hNrIdle;
        if (cfsRq.isIdle())
            hNrIdle = hNrQueued; // the tasks below an idle group's queue are idle above it
        if (cfsRq.throttleDequeued)
            return 1; // ≤6.17: the walk ends at a throttled cfs_rq (§6.7)
        if (cfsRq.loadWeight) {
            // The cfs_rq still has weight: bias the next pick toward this group (§6.5).
            slice = cfsRq.minSlice();
            se = se->parent;
            if (taskSleep && se && !cfsRq.throttled)
                setNextBuddy(se);
            break;
        }
        flags |= DequeueSleep;
        flags &= ~(DequeueDelayed | DequeueSpecial);
    }
    for (; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        updateLoadAvg(cfsRq, *se, true);
        updateCfsGroup(*se);
        if (m_p.traits->customSlices && slice && slice != CfsRq::kNoSlice) {
            cfsRq.setSlice(*se, slice);
            se->customSlice = true;
        }
        slice = cfsRq.minSlice();
        cfsRq.hNrQueued -= hNrQueued;
        cfsRq.hNrRunnable -= hNrRunnable;
        cfsRq.hNrIdle -= hNrIdle;
        if (cfsRq.isIdle())
            hNrIdle = hNrQueued;
        if (cfsRq.throttleDequeued)
            return 1;
    }
    subNrRunning(rq, hNrQueued);
    return 1;
}

void FairClass::addNrRunning(Rq& rq, int n)
{
    const bool none = rq.nrRunning == 0;
    rq.nrRunning += n;
    if (none && rq.nrRunning > 0 && m_hooks)
        m_hooks->fairQueued(rq, true);
}

void FairClass::subNrRunning(Rq& rq, int n)
{
    const bool some = rq.nrRunning > 0;
    rq.nrRunning -= n;
    if (some && rq.nrRunning == 0 && m_hooks)
        m_hooks->fairQueued(rq, false);
}

SchedEntity* FairClass::pickTask(Rq& rq)
{
    if (flat())
        return pickTaskFlat(rq);
    for (int guard = 0; guard < 1 << 20; ++guard) {
        CfsRq* cfsRq = rq.cfs.get();
        if (!cfsRq->nrQueued)
            return nullptr;
        SchedEntity* se = nullptr;
        do {
            if (cfsRq->curr && cfsRq->curr->onRq)
                updateCurr(*cfsRq);
            if (checkCfsRqRuntime(*cfsRq)) {
                se = nullptr; // ≤6.17: throttled on the way down; pick again from the root
                break;
            }
            se = pickNextEntity(rq, *cfsRq, true);
            if (!se)
                break;
            cfsRq = se->myQ;
        } while (cfsRq);
        if (se)
            return se;
    }
    return nullptr;
}

void FairClass::putPrevTask(Rq& rq, SchedEntity& taskSe)
{
    if (flat()) {
        putPrevTaskFlat(rq, taskSe, nullptr);
        return;
    }
    for (SchedEntity* se = &taskSe; se; se = se->parent)
        putPrevEntity(*se->cfsRq, *se);
}

void FairClass::setNextTask(Rq& rq, SchedEntity& taskSe, bool first)
{
    if (flat()) {
        setNextTaskFlat(rq, taskSe, first);
        return;
    }
    for (SchedEntity* se = &taskSe; se; se = se->parent)
        setNextEntityInline(*se->cfsRq, *se, first);
}

void FairClass::switchTasks(Rq& rq, SchedEntity* prevSe, SchedEntity& nextSe)
{
    if (!prevSe) {
        setNextTask(rq, nextSe, true);
        return;
    }
    if (flat()) { // put prev's levels that next does not share, then set next's (§7.3)
        putPrevTaskFlat(rq, *prevSe, &nextSe);
        setNextTaskFlat(rq, nextSe, true);
        return;
    }
    SchedEntity* se = &nextSe;
    SchedEntity* pse = prevSe;
    while (se->cfsRq != pse->cfsRq) {
        const int seDepth = se->depth;
        const int pseDepth = pse->depth;
        if (seDepth <= pseDepth) {
            putPrevEntity(*pse->cfsRq, *pse);
            pse = pse->parent;
        }
        if (seDepth >= pseDepth) {
            setNextEntityInline(*se->cfsRq, *se, true);
            se = se->parent;
        }
    }
    putPrevEntity(*pse->cfsRq, *pse);
    setNextEntityInline(*se->cfsRq, *se, true);
}

// --- §7.2 tick ----------------------------------------------------------------------------------

void FairClass::taskTick(Rq& rq)
{
    if (flat()) {
        taskTickFlat(rq);
        return;
    }
    for (SchedEntity* se = rq.curr; se; se = se->parent) {
        CfsRq& cfsRq = *se->cfsRq;
        updateCurr(cfsRq);
        updateLoadAvg(cfsRq, *se, true);
        updateCfsGroup(*se); // every level of the running hierarchy, every tick
    }
}

// --- §7.4 yield ---------------------------------------------------------------------------------

void FairClass::yieldTask(Rq& rq)
{
    SchedEntity* se = rq.curr;
    if (!se || rq.nrRunning == 1)
        return;
    CfsRq& cfsRq = eevdfRq(*se); // 7.3: rq->cfs
    clearBuddies(cfsRq, *se);
    updateCurr(cfsRq);
    switch (m_p.choices->yield) {
    case YieldRule::DeadlineBump: // 6.6–6.18: push the deadline, vruntime unchanged
        se->deadline += vslice(se->slice, *se);
        break;
    case YieldRule::ForfeitAlways: // Sieber v2
        se->vruntime = se->deadline;
        se->deadline += vslice(se->slice, *se);
        break;
    case YieldRule::ForfeitEligible: // 6.19+: only an eligible entity forfeits
        if (cfsRq.entityEligible(*se)) {
            se->vruntime = se->deadline;
            updateDeadline(cfsRq, *se);
        }
        break;
    case YieldRule::DeadlineClamp: // Sieber v1: deadline at most one slice ahead
        se->deadline = se->vruntime + vslice(se->slice, *se);
        break;
    }
    if (m_p.choices->v0 == V0Mode::MinVruntime)
        cfsRq.updateMinVruntime();
    m_ctx.record(RecordKind::Yield, *se);
    m_ctx.sample(*se);
}

// --- §7.1 wakeup preemption ---------------------------------------------------------------------

bool FairClass::checkPreemptWakeup(Rq& rq, SchedEntity& wakee, int wakeFlags)
{
    SchedEntity* se = rq.curr;
    if (!se) {
        m_ctx.resched(rq.cpu, false); // idle always yields to a fair task
        return true;
    }
    if (se == &wakee)
        return false;
    if (wakee.cfsRq && wakee.cfsRq->throttleCount > 0)
        return false; // a wakee in a throttled hierarchy preempts nothing
    const bool v619 = m_p.traits->wakeupPreempt619;
    if (!v619 && feature(Feature::NextBuddy) && !(wakeFlags & WakeFork) && !wakee.schedDelayed)
        setNextBuddy(&wakee);
    if (rq.needResched)
        return false;
    if (!feature(Feature::WakeupPreemption))
        return false;
    auto preempt = [&] {
        m_ctx.resched(rq.cpu, true);
        return true;
    };
    const bool matchedIdle = m_p.traits->idlePreemptMatched;
    if (!matchedIdle) {
        if (se->idlePolicy && !wakee.idlePolicy)
            return preempt(); // idle tasks are by definition preempted by non-idle tasks
        if (wakee.batchPolicy || wakee.idlePolicy)
            return false; // batch and idle tasks do not wakeup-preempt (the tick does)
    }
    SchedEntity* pse = &wakee;
    // find_matching_se(): walk both up to siblings on one cfs_rq (7.3: both are in rq->cfs).
    while (!flat() && se->depth > pse->depth)
        se = se->parent;
    while (!flat() && pse->depth > se->depth)
        pse = pse->parent;
    while (!flat() && se->cfsRq != pse->cfsRq) {
        se = se->parent;
        pse = pse->parent;
    }
    const bool cseIdle = isIdleEntity(*se);
    const bool pseIdle = isIdleEntity(*pse);
    if (cseIdle && !pseIdle) {
        // 6.12+ (with custom slices, 85e511df3cec): an idle entity keeps no slice protection
        // when a non-idle one preempts it, or the pick would hand the CPU back to it.
        if (m_p.traits->customSlices)
            cancelProtectSlice(*se);
        return preempt();
    }
    if (cseIdle != pseIdle)
        return false;
    if (matchedIdle && (wakee.batchPolicy || wakee.idlePolicy))
        return false; // 6.12.117: !normal_policy(p->policy), tested after the idle entities
    CfsRq& cfsRq = eevdfRq(*se);
    if (flat()) {
        for (SchedEntity* s = se; s; s = s->parent) // update_curr_fair(): every level
            updateCurr(*s->cfsRq);
    } else {
        updateCurr(cfsRq);
    }

    if (!v619 && m_p.choices->protection == Protection::DeadlineHack) {
        // 6.12–6.16 check_preempt_wakeup_fair(): an eligible shorter-slice wakee cancels curr's
        // protection before the pick, whether or not it preempts.
        if (doPreemptShort(cfsRq, *pse, *se))
            cancelProtectSlice(*se);
        return pickEevdf(cfsRq, true) == pse ? preempt() : false;
    }
    if (!v619) {
        // 6.17–6.18 (the 6.17 run-to-parity series, §3.7): a shorter-slice wakee is picked
        // against curr unprotected; curr's protection is cancelled only if it preempts, and
        // shrunk to the shortest slice (update_protect_slice()) if it does not.
        const bool preemptShort = feature(Feature::PreemptShort) && pse->slice < se->slice;
        if (pickEevdf(cfsRq, !preemptShort) == pse) {
            if (preemptShort)
                cancelProtectSlice(*se);
            return preempt();
        }
        if (feature(Feature::RunToParity) && preemptShort)
            updateProtectSlice(cfsRq, *se);
        return false;
    }
    // 6.19+ wakeup_preempt_fair().
    auto pickIgnoringDelayed = [&](bool protect) {
        SchedEntity* picked = nullptr;
        for (int i = 0; i < 64 && !picked; ++i) {
            picked = pickNextEntity(rq, cfsRq, protect);
            if (!cfsRq.eevdfQueued())
                break;
        }
        return picked;
    };
    if (feature(Feature::PreemptShort) && pse->slice < se->slice) {
        // PREEMPT_WAKEUP_SHORT goes straight to the unprotected pick (fork or not); if the
        // wakee is not picked, protection only shrinks.
        if (pickIgnoringDelayed(false) == pse) {
            cancelProtectSlice(*se);
            clearBuddies(cfsRq, *se);
            return preempt();
        }
        if (feature(Feature::RunToParity))
            updateProtectSlice(cfsRq, *se);
        return false;
    }
    if ((wakeFlags & WakeFork) || pse->schedDelayed)
        return false;
    if (feature(Feature::NextBuddy))
        setNextBuddy(pse);
    if (pickIgnoringDelayed(true) == pse)
        return preempt();
    if (feature(Feature::RunToParity))
        updateProtectSlice(cfsRq, *se);
    return false;
}

// --- §6.2, §6.3 group shares --------------------------------------------------------------------

uint64_t FairClass::calcGroupShares(const CfsRq& groupRq) const
{
    const TaskGroup& tg = m_groups[static_cast<size_t>(groupRq.groupIndex)];
    int64_t tgShares = static_cast<int64_t>(tg.shares);
    if (m_p.choices->groupShares == GroupShares::Concur) {
        // 7.3 calc_concur_shares(): tg->shares times nr = min(tasks, CPUs), where tasks =
        // max(1, tg->runnable_avg >> 10) (runnable_avg counts 1024 per runnable task) and CPUs
        // are the online ones (cpuset limits not modelled); the cap is nr·tg->shares too.
        const int64_t tasks = std::max<int64_t>(1, tg.runnableAvg >> 10);
        const int64_t cpus = std::max<int64_t>(1, static_cast<int64_t>(tg.cfsRq.size()));
        tgShares *= std::min(tasks, cpus);
    }
    const int64_t load = std::max<int64_t>(static_cast<int64_t>(scaleLoadDown(groupRq.loadWeight)),
        static_cast<int64_t>(groupRq.avg.loadAvg));
    const int64_t tgWeight = tg.loadAvg - static_cast<int64_t>(groupRq.tgLoadAvgContrib) + load;
    int64_t shares = tgShares * load;
    if (tgWeight)
        shares /= tgWeight;
    return static_cast<uint64_t>(
        std::clamp<int64_t>(shares, static_cast<int64_t>(kMinShares), tgShares));
}

void FairClass::updateCfsGroup(SchedEntity& se)
{
    CfsRq* groupRq = se.myQ;
    if (!groupRq)
        return;
    if (m_p.choices->throttle == ThrottleModel::Group && groupRq->throttleCount)
        return; // ≤6.17: throttled hierarchies are skipped
    if (m_p.choices->emptyGroupKeepWeight && !groupRq->loadWeight)
        return; // 66951e4860d3: empty (delayed) groups keep their weight
    const uint64_t shares = calcGroupShares(*groupRq);
    if (shares != se.load.weight)
        reweightEntity(*se.cfsRq, se, shares);
}

} // namespace schedlab
