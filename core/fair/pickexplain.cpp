// SPDX-License-Identifier: GPL-2.0-or-later
#include "pickexplain.h"

#include <cstdio>

namespace schedlab {
const char* pickStepName(PickStep step)
{
    switch (step) {
    case PickStep::None:
        return "none";
    case PickStep::Single:
        return "single";
    case PickStep::BuddyPickNext:
        return "buddy (pick_next_entity)";
    case PickStep::Buddy:
        return "buddy";
    case PickStep::ProtectedCurr:
        return "protected curr";
    case PickStep::EarliestDeadline:
        return "earliest eligible deadline";
    case PickStep::CurrEarlierDeadline:
        return "curr has the earliest eligible deadline";
    case PickStep::CurrOnlyEligible:
        return "curr is the only eligible entity";
    case PickStep::Fallback:
        return "fallback (nothing eligible)";
    }
    return "?";
}

SchedEntity* pickEevdfSteps(const CfsRq& cfsRq, const PickPolicy& p, bool protect, PickTrace* trace)
{
    if (trace)
        return pickSteps(cfsRq, p, protect, *trace);
    PickTrace unread;
    return pickSteps(cfsRq, p, protect, unread);
}

namespace {

std::string vrel(int64_t d)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.3f ms", static_cast<double>(d) / 1e6);
    return buf;
}

/// An absolute vruntime in ms, exact to the nanosecond (as the inspector's header prints V).
std::string vtime(uint64_t v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu.%06llu ms", static_cast<unsigned long long>(v / 1000000),
        static_cast<unsigned long long>(v % 1000000));
    return buf;
}

std::string ms(int64_t d)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(d) / 1e6);
    return buf;
}

} // namespace

std::string PickExplanation::text() const
{
    std::string s;
    for (const std::string& l : lines) {
        s += l;
        s += '\n';
    }
    return s;
}

PickExplanation explainPick(
    const CfsRq& cfsRq, const PickPolicy& p, PickSite site, bool protect, const EntityNamer& name)
{
    PickExplanation e;
    e.avgVruntime = cfsRq.peekAvgVruntime();
    e.v0 = cfsRq.v0;
    e.preemptShort = p.feature(Feature::PreemptShort);
    const uint64_t V = e.avgVruntime;
    auto rel = [&](uint64_t v) { return vrel(vdiff(v, V)); };

    // The eligible set (curr first, then tree entities in deadline order).
    const SchedEntity* curr =
        cfsRq.eevdfCurr() && cfsRq.eevdfCurr()->onRq ? cfsRq.eevdfCurr() : nullptr;
    auto classify = [&](const SchedEntity& se) {
        if (cfsRq.entityEligible(se)) {
            e.eligible.push_back(&se);
            if (!e.earliestEligibleDeadline
                || vdiff(se.deadline, e.earliestEligibleDeadline->deadline) < 0)
                e.earliestEligibleDeadline = &se;
        } else {
            e.ineligible.push_back(&se);
        }
    };
    if (curr)
        classify(*curr);
    cfsRq.forEachTree(classify);

    // The decision, by the scheduler's own steps.
    const bool buddyFirst = site == PickSite::PickNextEntity && buddyCheckedInPickNextEntity(p);
    if (buddyFirst && cfsRq.next && cfsRq.entityEligible(*cfsRq.next)) {
        e.chosen = cfsRq.next;
        e.step = PickStep::BuddyPickNext;
        e.trace.buddy = cfsRq.next;
        e.trace.buddyEligible = true;
        e.trace.buddyHonoured = true;
        e.trace.curr = cfsRq.eevdfCurr();
        e.trace.currQueued = curr != nullptr;
        e.trace.currEligible = curr && cfsRq.entityEligible(*curr);
    } else {
        e.chosen = pickEevdfSteps(cfsRq, p, protect, &e.trace);
        e.step = e.trace.step;
        if (buddyFirst && cfsRq.next)
            e.trace.buddyHonoured = true; // checked (and found ineligible) before pick_eevdf
    }
    e.chosenDelayed = e.chosen && e.chosen->schedDelayed && site == PickSite::PickNextEntity;

    // PREEMPT_SHORT (§3.7): a queued entity with a shorter slice that is eligible and either has
    // an earlier deadline than curr or curr is ineligible would cancel curr's protection.
    if (e.preemptShort && curr) {
        const bool currEligible = cfsRq.entityEligible(*curr);
        cfsRq.forEachTree([&](const SchedEntity& se) {
            if (e.shortSliceWaiter || se.slice >= curr->slice || !cfsRq.entityEligible(se))
                return;
            if (vdiff(se.deadline, curr->deadline) < 0 || !currEligible)
                e.shortSliceWaiter = &se;
        });
    }

    // Plain words.
    auto& L = e.lines;
    if (!e.chosen) {
        L.push_back("Nothing is queued on this cfs_rq.");
        return e;
    }
    const std::string chosenName = name(*e.chosen);
    L.push_back("V = " + vtime(V) + " (weighted mean of the queued vruntimes), v0 = " + vtime(e.v0)
        + "; an entity is eligible when its vruntime is at most V (lag " + "≥ 0).");
    {
        std::string el = "Eligible: ";
        for (size_t i = 0; i < e.eligible.size(); ++i) {
            const SchedEntity& se = *e.eligible[i];
            el += (i ? ", " : "") + name(se) + " (v−V " + rel(se.vruntime) + ", deadline "
                + rel(se.deadline) + ")";
        }
        if (e.eligible.empty())
            el += "none";
        L.push_back(el + ".");
        if (!e.ineligible.empty()) {
            std::string in = "Not eligible (ran ahead of V): ";
            for (size_t i = 0; i < e.ineligible.size(); ++i)
                in += (i ? ", " : "") + name(*e.ineligible[i]) + " (v−V "
                    + rel(e.ineligible[i]->vruntime) + ")";
            L.push_back(in + ".");
        }
    }
    if (e.earliestEligibleDeadline)
        L.push_back("Earliest deadline among the eligible: " + name(*e.earliestEligibleDeadline)
            + (p.choices->treeKey == TreeKey::Vruntime
                    ? " (6.6 walk: the eligible prefix of the vruntime-ordered tree)."
                    : " (first eligible entity of the deadline-ordered tree)."));
    // Buddy.
    if (e.trace.buddy) {
        const std::string b = name(*e.trace.buddy);
        if (!e.trace.buddyHonoured)
            L.push_back("Next buddy " + b + " is set but not considered here ("
                + (p.traits->pick66                      ? std::string("NEXT_BUDDY is off")
                        : !p.feature(Feature::PickBuddy) ? std::string("PICK_BUDDY is off")
                        : site == PickSite::PickEevdf && !p.traits->buddyInPickEevdf
                        ? std::string("this profile checks it in pick_next_entity only")
                        : std::string("this profile honours it only when protect is set"))
                + ").");
        else if (!e.trace.buddyEligible)
            L.push_back("Next buddy " + b + " is not eligible, so it is ignored.");
    }
    // Protection.
    const SchedEntity* rcurr = cfsRq.eevdfCurr();
    if (rcurr && rcurr->onRq) {
        const std::string c = name(*rcurr);
        if (!e.trace.currEligible && e.step != PickStep::BuddyPickNext && e.step != PickStep::Single
            && e.step != PickStep::Buddy)
            L.push_back("curr " + c + " is not eligible any more, so it cannot keep the CPU.");
        else if (e.trace.protectionChecked) {
            if (p.choices->protection == Protection::DeadlineHack) {
                if (!p.feature(Feature::RunToParity))
                    L.push_back("RUN_TO_PARITY is off: curr " + c + " has no slice protection.");
                else if (e.trace.currProtected)
                    L.push_back("curr " + c
                        + " is protected (RUN_TO_PARITY: its deadline has not moved since it "
                          "was picked, vlag == deadline).");
                else
                    L.push_back("curr " + c
                        + "'s protection is over (its deadline was renewed or PREEMPT_SHORT "
                          "cancelled it).");
            } else if (e.trace.currProtected) {
                L.push_back("curr " + c + " is protected: v−V " + rel(rcurr->vruntime)
                    + " < vprot−V " + rel(rcurr->vprot) + " (slice protection, §3.7).");
            } else {
                L.push_back("curr " + c + "'s protection has ended: v ≥ vprot (vprot−V "
                    + rel(rcurr->vprot) + ").");
            }
        }
    }
    if (e.preemptShort && e.shortSliceWaiter && rcurr)
        L.push_back("PREEMPT_SHORT: " + name(*e.shortSliceWaiter) + " (slice "
            + ms(e.shortSliceWaiter->slice) + " < curr's " + ms(rcurr->slice)
            + ") is eligible and beats curr, so a wakeup of such an entity cancels curr's "
              "protection.");
    else if (!e.preemptShort && rcurr)
        L.push_back("PREEMPT_SHORT is off: shorter slices do not cut curr's protection.");
    else if (rcurr && rcurr->onRq)
        L.push_back("PREEMPT_SHORT: no eligible queued entity has a shorter slice than curr's "
            + ms(rcurr->slice) + " and beats it, so nothing would cut its protection short.");

    // The decision.
    std::string why;
    switch (e.step) {
    case PickStep::None:
        why = "nothing queued";
        break;
    case PickStep::Single:
        why = "it is the only queued entity";
        break;
    case PickStep::BuddyPickNext:
        why = std::string("it is the eligible next buddy, checked in pick_next_entity() before "
                          "pick_eevdf() (")
            + (p.traits->pick66 ? "NEXT_BUDDY" : "PICK_BUDDY") + ")";
        break;
    case PickStep::Buddy:
        why = "it is the eligible next buddy (PICK_BUDDY, checked first in pick_eevdf())";
        break;
    case PickStep::ProtectedCurr:
        why = "it is the current entity, still eligible and inside its protected slice";
        break;
    case PickStep::EarliestDeadline:
        why = "it has the earliest virtual deadline among the eligible entities";
        if (rcurr && e.trace.currEligible && e.chosen != rcurr
            && rcurr->deadline == e.chosen->deadline)
            why += " (an exact tie with curr goes to the tree entity since 6.8)";
        break;
    case PickStep::CurrEarlierDeadline:
        why = "it is the current entity and its deadline is the earliest among the eligible";
        if (e.trace.best && e.trace.best->deadline == e.chosen->deadline)
            why += " (6.6 keeps curr on an exact tie)";
        break;
    case PickStep::CurrOnlyEligible:
        why = "it is the current entity and no queued entity is eligible";
        break;
    case PickStep::Fallback:
        why = "nothing was eligible (rounding); the leftmost entity is taken";
        break;
    }
    L.push_back("Picked " + chosenName + ": " + why + ".");
    if (e.chosenDelayed)
        L.push_back(chosenName
            + " is delayed (DELAY_DEQUEUE): picking it dequeues it for real and the pick starts "
              "over.");
    return e;
}

} // namespace schedlab
