// SPDX-License-Identifier: GPL-2.0-or-later
// The decision steps of pick_eevdf() (kernel-model.md §3.5) as one function that both the
// scheduler (FairClass::pickEevdf / pickNextEntity) and the explanation use, so the explanation
// cannot drift from the real pick. pickEevdfSteps() takes an optional PickTrace that records which
// step decided; explainPick() adds the eligible set, the earliest-deadline candidate, the
// protection and buddy decisions, PREEMPT_SHORT and a plain-words text.
//
// Pure: reads a cfs_rq, the profile's choices/traits and the feature set; changes nothing.
#pragma once

#include "core/fair/cfsrq.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"

#include <functional>
#include <string>
#include <vector>

namespace schedlab {

/// What a pick depends on besides the cfs_rq.
struct PickPolicy
{
    const ProfileChoices* choices = nullptr;
    const ProfileTraits* traits = nullptr;
    const FeatureSet* features = nullptr;
    bool feature(Feature f) const { return features->has(f); }
};

/// §3.7: "protected" ⇔ vlag == deadline (6.6–6.16) or v < vprot (6.17+).
inline bool entityProtected(const SchedEntity& se, Protection protection)
{
    // 6.6–6.16 stash the deadline in vlag at pick time; 6.17+ compare v with vprot.
    if (protection == Protection::DeadlineHack)
        return se.vlag == static_cast<int64_t>(se.deadline);
    return vdiff(se.vruntime, se.vprot) < 0;
}

/// The step of pick_eevdf()/pick_next_entity() that decided.
enum class PickStep {
    None,                ///< nothing queued
    Single,              ///< the only queued entity (§3.5 step 1)
    BuddyPickNext,       ///< 6.6 NEXT_BUDDY / 6.12 PICK_BUDDY in pick_next_entity()
    Buddy,               ///< 6.14+ PICK_BUDDY inside pick_eevdf() (§3.5 step 2)
    ProtectedCurr,       ///< curr eligible and protected (RUN_TO_PARITY, §3.5 step 4)
    EarliestDeadline,    ///< the eligible tree entity with the earliest deadline (steps 5–7)
    CurrEarlierDeadline, ///< curr is eligible and its deadline is earlier (step 7)
    CurrOnlyEligible,    ///< no tree entity is eligible, curr is (step 7, best == NULL)
    Fallback,            ///< nothing eligible: leftmost (cannot happen in exact arithmetic)
};
const char* pickStepName(PickStep step);

/// Which caller's pick: __schedule's pick_next_entity(), or pick_eevdf() alone (wakeup check).
enum class PickSite { PickNextEntity, PickEevdf };

/// What the steps saw, recorded while they run.
struct PickTrace
{
    PickStep step = PickStep::None;
    const SchedEntity* buddy = nullptr; ///< cfs_rq->next
    bool buddyEligible = false;
    bool buddyHonoured = false; ///< the profile/features/protect flag let the buddy step run
    const SchedEntity* curr = nullptr;
    bool currQueued = false;
    bool currEligible = false;
    bool currProtected = false;        ///< protection test result (only meaningful with protect)
    bool protectionChecked = false;    ///< protect was true and curr was still considered
    const SchedEntity* best = nullptr; ///< the tree walk's earliest eligible deadline
};

/// §3.5: the steps of pick_eevdf(), recording into @p t. Inlined into both paths of
/// pickEevdfSteps() and into the scheduler's pick (FairClass::pickNextEntity()): without a trace,
/// t is a local nothing reads, and its stores vanish.
[[gnu::always_inline]] inline SchedEntity* pickSteps(
    const CfsRq& cfsRq, const PickPolicy& p, bool protect, PickTrace& t)
{
    const bool deadlineKey = p.choices->treeKey == TreeKey::Deadline;
    SchedEntity* curr = cfsRq.eevdfCurr();
    t.curr = curr;
    t.currQueued = curr && curr->onRq;
    t.buddy = cfsRq.next;
    // Step 1: a single queued entity.
    if (cfsRq.eevdfQueued() == 1) {
        t.step = PickStep::Single;
        if (curr && curr->onRq)
            return curr;
        return deadlineKey ? cfsRq.leftmostDeadline() : cfsRq.leftmostVruntime();
    }
    // The sums do not change during the pick: read once for every eligibility test below.
    const CfsRq::Eligibility eligible(cfsRq);
    // Step 2: 6.14+ PICK_BUDDY (7.x: only with protect).
    SchedEntity* next = cfsRq.next;
    if (next) {
        t.buddyEligible = eligible(*next);
        t.buddyHonoured = p.traits->pickBuddy && p.traits->buddyInPickEevdf
            && p.feature(Feature::PickBuddy) && (protect || !p.traits->pickBuddyNeedsProtect);
        if (t.buddyEligible && t.buddyHonoured) {
            t.step = PickStep::Buddy;
            return next;
        }
    }
    // Step 3: curr only while queued and eligible.
    t.currEligible = curr && curr->onRq && eligible(*curr);
    if (!t.currEligible)
        curr = nullptr;
    // Step 4: protection (6.8–6.16 gated on RUN_TO_PARITY inside the pick, 6.17+ not).
    if (curr && protect) {
        t.protectionChecked = true;
        t.currProtected = p.choices->protection == Protection::DeadlineHack
            ? p.feature(Feature::RunToParity) && entityProtected(*curr, p.choices->protection)
            : entityProtected(*curr, p.choices->protection);
        if (t.currProtected) {
            t.step = PickStep::ProtectedCurr;
            return curr;
        }
    }
    // Steps 5–6 (6.8+) or 3–4 (6.6): the tree walk.
    SchedEntity* best = deadlineKey ? cfsRq.firstEligibleByDeadline(eligible)
                                    : cfsRq.earliestDeadlineInEligiblePrefix(eligible);
    t.best = best;
    if (!best) {
        if (curr) {
            t.step = PickStep::CurrOnlyEligible;
            return curr;
        }
        t.step = PickStep::Fallback;
        return deadlineKey ? cfsRq.leftmostDeadline() : cfsRq.leftmostVruntime();
    }
    // Step 7: curr against best. 6.6: curr wins an exact tie (best starts as curr); 6.8+: the
    // tree entity wins.
    if (curr) {
        const int64_t diff = vdiff(curr->deadline, best->deadline);
        if (diff < 0 || (p.traits->pick66 && diff == 0)) {
            t.step = PickStep::CurrEarlierDeadline;
            return curr;
        }
    }
    t.step = PickStep::EarliestDeadline;
    return best;
}

/// The steps of pick_eevdf(cfs_rq, protect) (§3.5); @p trace may be null (the scheduler's path).
SchedEntity* pickEevdfSteps(
    const CfsRq& cfsRq, const PickPolicy& policy, bool protect, PickTrace* trace);
/// pick_next_entity()'s buddy check before pick_eevdf (6.6 NEXT_BUDDY, 6.12 PICK_BUDDY); inline:
/// asked at every pick.
inline bool buddyCheckedInPickNextEntity(const PickPolicy& p)
{
    // 6.12: PICK_BUDDY in pick_next_entity(); 6.6: NEXT_BUDDY there (§3.5 step 2 note).
    return (p.traits->pickBuddy && !p.traits->buddyInPickEevdf && p.feature(Feature::PickBuddy))
        || (p.traits->pick66 && p.feature(Feature::NextBuddy));
}

struct PickExplanation
{
    SchedEntity* chosen = nullptr;
    PickStep step = PickStep::None;
    PickTrace trace;
    uint64_t avgVruntime = 0; ///< V
    uint64_t v0 = 0;
    /// Queued entities that are eligible / not eligible, curr first, then in walk order.
    std::vector<const SchedEntity*> eligible;
    std::vector<const SchedEntity*> ineligible;
    /// Earliest deadline among all eligible entities (curr included), before protection/buddies.
    const SchedEntity* earliestEligibleDeadline = nullptr;
    bool chosenDelayed = false; ///< pick_next_entity dequeues it and the pick starts over (§5.2)
    bool preemptShort = false;  ///< PREEMPT_SHORT on
    /// An eligible queued entity with a shorter slice than curr that would cancel curr's
    /// protection if it woke now (§3.7, do_preempt_short), or null.
    const SchedEntity* shortSliceWaiter = nullptr;
    std::vector<std::string> lines; ///< plain words, one reason per line
    std::string text() const;
};

using EntityNamer = std::function<std::string(const SchedEntity&)>;

/// Explains the pick that @p site would make now on @p cfsRq (protect = true, as __schedule and
/// the wakeup check pass it). Pure. The chosen entity equals the scheduler's.
PickExplanation explainPick(const CfsRq& cfsRq, const PickPolicy& policy, PickSite site,
    bool protect, const EntityNamer& name);

} // namespace schedlab
