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
bool entityProtected(const SchedEntity& se, Protection protection);

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
