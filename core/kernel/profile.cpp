// SPDX-License-Identifier: GPL-2.0-or-later
// Profile data: kernel-model.md §1.1 (behaviour matrix) and §13 (switches).
#include "profile.h"

#include "core/kernel/catalogue.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace schedlab {

namespace {

FeatureSet features(std::initializer_list<Feature> on)
{
    FeatureSet set;
    for (Feature f : on)
        set.set(f, true);
    return set;
}

std::vector<KernelProfile> buildProfiles()
{
    using F = Feature;
    std::vector<KernelProfile> out;

    KernelProfile p66;
    p66.name = "6.6";
    p66.covers = "6.6 LTS";
    p66.description = "First EEVDF kernel: rbtree by vruntime with min_deadline, min_vruntime as "
                      "reference, no reweight correction of on-rq entities, no delayed dequeue, "
                      "RUN_TO_PARITY via the vlag==deadline hack, yield pushes the deadline.";
    p66.baseSlice = Nanoseconds(750000);
    p66.choices = {
        .treeKey = TreeKey::Vruntime,
        .v0 = V0Mode::MinVruntime,
        .weightPrecision = WeightPrecision::ScaledDown,
        .lagClamp = LagClamp::OwnSlice,
        .reweight = ReweightRule::KeepVruntime,
        .delayRules = DelayRules::None,
        .protection = Protection::DeadlineHack,
        .yield = YieldRule::DeadlineBump,
        .throttle = ThrottleModel::Group,
        .boostThrottledOnWakeup = false,
        .rtConstraintCheck = RtConstraintCheck::Patched,
        .flat = false,
        .emptyGroupKeepWeight = false,
        .groupShares = GroupShares::Smp,
        .delayedRunnable = DelayedRunnable::HNrRunnable,
        .lbDelayed = LbDelayed::Any,
        .lbIneligible = LbIneligible::Any,
        .exitGroupMove = false, // eff6c8ce8d4d (6.4) skips the move of a task staying in its group
    };
    p66.traits = {
        .customSlices = false,
        .placeLagSkipZero = false,
        .wakeupPreempt619 = false,
        .resched617 = false,
        .pickBuddy = false,
        .pickBuddyNeedsProtect = false,
        .relDeadlineUngated = false,
        .pick66 = true,
        .buddyInPickEevdf = false,
        .hrtickFromDeadline = false,
        .fairDeadlineServer = false, // the fair dl_server arrived in 6.12 (§10.4)
        .misfitFittingCpu = false,   // max_allowed_capacity arrived in 6.10 (§8.4)
        .tgLoadAvgRatelimit = false, // the 1 ms rate limit arrived in 6.7 (§6.3)
    };
    p66.features = features(
        {F::PlaceLag, F::PlaceDeadlineInitial, F::RunToParity, F::WakeupPreemption, F::UtilEst});
    out.push_back(p66);

    KernelProfile p612;
    p612.name = "6.12";
    p612.covers = "6.12.y LTS (as of 6.12.117, with stable backports)";
    p612.description = "Deadline-sorted tree, reweight_eevdf() (V-invariant), delayed dequeue, "
                       "custom slices, PREEMPT_SHORT; stable backports: zero_vruntime inside "
                       "avg_vruntime(), PICK_BUDDY, forfeit-on-yield, 0.70 ms slice, empty groups "
                       "keep weight. Checked against the 6.12.117 source.";
    p612.baseSlice = Nanoseconds(700000);
    p612.choices = {
        .treeKey = TreeKey::Deadline,
        // 6.12.117 (read in its source): avg_vruntime() moves zero_vruntime itself, as 7.0
        .v0 = V0Mode::ZeroVruntimeAvg,
        .weightPrecision = WeightPrecision::ScaledDown,
        .lagClamp = LagClamp::OwnSlice,
        .reweight = ReweightRule::Eevdf,
        .delayRules = DelayRules::V612,
        .protection = Protection::DeadlineHack,
        .yield = YieldRule::ForfeitEligible,
        .throttle = ThrottleModel::Group,
        .boostThrottledOnWakeup = false,
        .rtConstraintCheck = RtConstraintCheck::Patched,
        .flat = false,
        .emptyGroupKeepWeight = true,
        .groupShares = GroupShares::Smp,
        .delayedRunnable = DelayedRunnable::HNrRunnable,
        .lbDelayed = LbDelayed::Any,
        .lbIneligible = LbIneligible::Any,
    };
    p612.traits = {
        .customSlices = true,
        .placeLagSkipZero = false,
        .wakeupPreempt619 = false,
        .resched617 = false,
        .pickBuddy = true,
        .pickBuddyNeedsProtect = false,
        .relDeadlineUngated = false,
        .pick66 = false,
        .buddyInPickEevdf = false,
        .hrtickFromDeadline = false,
        .fairDeadlineServer = true,
        .misfitFittingCpu = true,
        .tgLoadAvgRatelimit = true,
        // The SCHED_IDLE tests on the matched entities, the wakee's policy after them: read in
        // 6.12.117's check_preempt_wakeup_fair() and 7.2's and 7.3's wakeup_preempt_fair().
        .idlePreemptMatched = true,
    };
    p612.features =
        features({F::PlaceLag, F::PlaceDeadlineInitial, F::PlaceRelDeadline, F::RunToParity,
            F::PreemptShort, F::PickBuddy, F::DelayDequeue, F::DelayZero, F::WakeupPreemption,
            F::UtilEst, F::NiRandom}); // NI_RANDOM since 6.12.65 (kernel-model.md §8.3)
    out.push_back(p612);

    KernelProfile p613;
    p613.name = "6.13";
    p613.covers = "6.13–6.19 (modelled on 6.14–6.16; 6.17–6.19 via overrides)";
    p613.description = "6d71a9c61604: reweight of an on-rq entity saves lag and calls "
                       "place_entity() (lag inflated again for curr) -- the cgroup weight "
                       "starvation bug. Group entities of empty groups keep their weight.";
    p613.baseSlice = Nanoseconds(700000);
    p613.choices = {
        .treeKey = TreeKey::Deadline,
        .v0 = V0Mode::MinVruntime,
        .weightPrecision = WeightPrecision::ScaledDown,
        .lagClamp = LagClamp::OwnSlice,
        .reweight = ReweightRule::Place,
        .delayRules = DelayRules::V612,
        .protection = Protection::DeadlineHack,
        .yield = YieldRule::DeadlineBump,
        .throttle = ThrottleModel::Group,
        .boostThrottledOnWakeup = false,
        .rtConstraintCheck = RtConstraintCheck::Patched,
        .flat = false,
        .emptyGroupKeepWeight = true,
        .groupShares = GroupShares::Smp,
        .delayedRunnable = DelayedRunnable::HNrRunnable,
        .lbDelayed = LbDelayed::LoadOnly,
        .lbIneligible = LbIneligible::SoftLimit,
    };
    p613.traits = {
        .customSlices = true,
        .placeLagSkipZero = true,
        .wakeupPreempt619 = false,
        .resched617 = false,
        .pickBuddy = true,
        .pickBuddyNeedsProtect = false,
        .relDeadlineUngated = true,
        .pick66 = false,
        .buddyInPickEevdf = true,
        .hrtickFromDeadline = false,
        .fairDeadlineServer = true,
        .misfitFittingCpu = true,
        .tgLoadAvgRatelimit = true,
        .idlePreemptMatched = true, // as 6.12 (§1.5)
    };
    p613.features = p612.features;
    p613.features.set(F::NiRandom, false); // 33cf66d88306 came with 6.19 (6.18.5 by the catalogue)
    out.push_back(p613);

    KernelProfile p70;
    p70.name = "7.0";
    p70.covers = "7.0";
    p70.description = "Still the 6.13 reweight (place_entity), but zero_vruntime tracked inside "
                      "avg_vruntime(), lag clamp max_slice+tick, separate vprot, forfeit on "
                      "yield, task-based CFS throttling.";
    p70.baseSlice = Nanoseconds(700000);
    p70.choices = {
        .treeKey = TreeKey::Deadline,
        .v0 = V0Mode::ZeroVruntimeAvg,
        .weightPrecision = WeightPrecision::ScaledDown,
        .lagClamp = LagClamp::MaxSliceTick,
        .reweight = ReweightRule::Place,
        .delayRules = DelayRules::V612,
        .protection = Protection::Vprot,
        .yield = YieldRule::ForfeitEligible,
        .throttle = ThrottleModel::Task,
        .boostThrottledOnWakeup = false,
        .rtConstraintCheck = RtConstraintCheck::Patched,
        .flat = false,
        .emptyGroupKeepWeight = true,
        .groupShares = GroupShares::Smp,
        .delayedRunnable = DelayedRunnable::HNrRunnable,
        .lbDelayed = LbDelayed::LoadOnly,
        .lbIneligible = LbIneligible::SoftLimit,
    };
    p70.traits = {
        .customSlices = true,
        .placeLagSkipZero = true,
        .wakeupPreempt619 = true,
        .resched617 = true,
        .pickBuddy = true,
        .pickBuddyNeedsProtect = true,
        .relDeadlineUngated = true,
        .pick66 = false,
        .buddyInPickEevdf = true,
        .hrtickFromDeadline = true,
        .fairDeadlineServer = true,
        .misfitFittingCpu = true,
        .tgLoadAvgRatelimit = true,
        .idlePreemptMatched = true, // as 6.12 (§1.5)
    };
    p70.features = p612.features;
    out.push_back(p70);

    KernelProfile p71;
    p71.name = "7.1";
    p71.covers = "7.1–7.2";
    p71.description = "Revert of 6d71a9c61604 (V-invariant rescale), full weights in V and "
                      "exact calc_delta, int128 eligibility, delayed entities keep their "
                      "saved negative lag (7.2 rules).";
    p71.baseSlice = Nanoseconds(700000);
    p71.choices = {
        .treeKey = TreeKey::Deadline,
        .v0 = V0Mode::ZeroVruntimeAvg,
        .weightPrecision = WeightPrecision::Full,
        .lagClamp = LagClamp::MaxSliceTick,
        .reweight = ReweightRule::Rescale,
        .delayRules = DelayRules::V72,
        .protection = Protection::Vprot,
        .yield = YieldRule::ForfeitEligible,
        .throttle = ThrottleModel::Task,
        .boostThrottledOnWakeup = false,
        .rtConstraintCheck = RtConstraintCheck::Patched,
        .flat = false,
        .emptyGroupKeepWeight = true,
        .groupShares = GroupShares::Smp,
        .delayedRunnable = DelayedRunnable::HNrRunnable,
        .lbDelayed = LbDelayed::LoadOnly,
        .lbIneligible = LbIneligible::SoftLimit,
    };
    p71.traits = {
        .customSlices = true,
        .placeLagSkipZero = true,
        .wakeupPreempt619 = true,
        .resched617 = true,
        .pickBuddy = true,
        .pickBuddyNeedsProtect = true,
        .relDeadlineUngated = false,
        .pick66 = false,
        .buddyInPickEevdf = true,
        .hrtickFromDeadline = true,
        .fairDeadlineServer = true,
        .misfitFittingCpu = true,
        .tgLoadAvgRatelimit = true,
        .idlePreemptMatched = true, // as 6.12 (§1.5)
    };
    p71.features = p612.features;
    out.push_back(p71);

    KernelProfile p73;
    p73.name = "7.3";
    p73.covers = "7.3";
    p73.description = "Flattened EEVDF (\"sched/eevdf: Move to a single runqueue\"): one tree per "
                      "CPU holding the tasks of every cgroup, each weighted by its effective "
                      "h_load (product of the weight fractions up its hierarchy, refreshed at "
                      "enqueue, switch and tick, applied with the 7.1 rescale); group entities "
                      "only carry load, PELT and shares; only tasks are delayed.";
    p73.baseSlice = Nanoseconds(700000);
    p73.choices = p71.choices;
    p73.choices.flat = true;
    p73.choices.groupShares = GroupShares::Concur; // fb1050ac8e40: default cgroup_mode concur
    p73.traits = p71.traits;
    p73.traits.protectIneligible = true;
    p73.features = p612.features;
    out.push_back(p73);
    return out;
}

struct ChoiceDef
{
    std::string_view name;
    std::vector<std::string_view> values;
    std::function<int(const ProfileChoices&)> get;
    std::function<void(ProfileChoices&, int)> set;
};

template <typename E>
ChoiceDef enumChoice(
    std::string_view name, std::vector<std::string_view> values, E ProfileChoices::*member)
{
    return {name, std::move(values),
        [member](const ProfileChoices& c) { return static_cast<int>(c.*member); },
        [member](ProfileChoices& c, int v) { c.*member = static_cast<E>(v); }};
}

ChoiceDef boolChoice(std::string_view name, bool ProfileChoices::*member)
{
    return {name, {"false", "true"},
        [member](const ProfileChoices& c) { return c.*member ? 1 : 0; },
        [member](ProfileChoices& c, int v) { c.*member = v != 0; }};
}

const std::vector<ChoiceDef>& choiceDefs()
{
    static const std::vector<ChoiceDef> defs{
        enumChoice("tree_key", {"vruntime", "deadline"}, &ProfileChoices::treeKey),
        enumChoice("v0", {"min_vruntime", "zero_vruntime_enqueue", "zero_vruntime_avg"},
            &ProfileChoices::v0),
        enumChoice("weight_precision", {"scaled_down", "full"}, &ProfileChoices::weightPrecision),
        enumChoice("lag_clamp", {"own_slice", "max_slice_tick"}, &ProfileChoices::lagClamp),
        enumChoice(
            "reweight", {"keep_vruntime", "eevdf", "place", "rescale"}, &ProfileChoices::reweight),
        enumChoice("delay_dequeue_rules", {"none", "6.12", "7.2"}, &ProfileChoices::delayRules),
        enumChoice(
            "protection", {"deadline_hack", "vprot_union", "vprot"}, &ProfileChoices::protection),
        enumChoice("yield",
            {"deadline_bump", "forfeit_always", "forfeit_eligible", "deadline_clamp"},
            &ProfileChoices::yield),
        enumChoice("throttle", {"group", "task"}, &ProfileChoices::throttle),
        boolChoice("boost_throttled_on_wakeup", &ProfileChoices::boostThrottledOnWakeup),
        enumChoice("rt_constraint_check", {"walk_all_tasks", "patched"},
            &ProfileChoices::rtConstraintCheck),
        boolChoice("flat", &ProfileChoices::flat),
        boolChoice("empty_group_keep_weight", &ProfileChoices::emptyGroupKeepWeight),
        enumChoice("group_shares", {"smp", "concur"}, &ProfileChoices::groupShares),
        enumChoice("delayed_runnable", {"h_nr_running", "h_nr_runnable"},
            &ProfileChoices::delayedRunnable),
        enumChoice("lb_delayed", {"any", "load_only"}, &ProfileChoices::lbDelayed),
        enumChoice("lb_ineligible", {"any", "soft_limit"}, &ProfileChoices::lbIneligible),
        boolChoice("exit_group_move", &ProfileChoices::exitGroupMove),
    };
    return defs;
}

const ChoiceDef* findChoice(std::string_view name)
{
    for (const auto& def : choiceDefs())
        if (def.name == name)
            return &def;
    return nullptr;
}

std::string joinValues(const std::vector<std::string_view>& values)
{
    std::string out;
    for (auto v : values) {
        if (!out.empty())
            out += "|";
        out += v;
    }
    return out;
}

} // namespace

const std::vector<KernelProfile>& kernelProfiles()
{
    static const std::vector<KernelProfile> profiles = buildProfiles();
    return profiles;
}

const KernelProfile* findProfile(std::string_view name)
{
    for (const auto& p : kernelProfiles())
        if (p.name == name)
            return &p;
    // A point release "X.Y.Z" (kernel-model.md §1.4): resolved once, kept for the process.
    const auto release = parseRelease(name, true);
    if (!release)
        return nullptr;
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<KernelProfile>, std::less<>> resolved;
    const std::lock_guard lock(mutex);
    if (auto it = resolved.find(name); it != resolved.end())
        return it->second.get();
    auto profile = resolveRelease(*release);
    if (!profile)
        return nullptr;
    profile->name = std::string(name); // "6.13.0" keeps its ".0"
    auto& slot = resolved[std::string(name)];
    slot = std::make_unique<KernelProfile>(std::move(*profile));
    return slot.get();
}

std::string profileNameList()
{
    std::string out;
    for (const auto& p : kernelProfiles()) {
        if (!out.empty())
            out += ", ";
        out += p.name;
    }
    return out;
}

const KernelProfile& defaultProfile()
{
    return *findProfile("7.1");
}

std::vector<std::string> choiceNames()
{
    std::vector<std::string> names;
    for (const auto& def : choiceDefs())
        names.emplace_back(def.name);
    return names;
}

std::string choiceValues(std::string_view choice)
{
    const ChoiceDef* def = findChoice(choice);
    return def ? joinValues(def->values) : std::string{};
}

bool applyChoice(
    ProfileChoices& choices, std::string_view choice, std::string_view value, std::string* error)
{
    const ChoiceDef* def = findChoice(choice);
    if (!def) {
        if (error) {
            std::string names;
            for (const auto& n : choiceNames())
                names += (names.empty() ? "" : ", ") + n;
            *error =
                "unknown behaviour choice \"" + std::string(choice) + "\" (known: " + names + ")";
        }
        return false;
    }
    for (size_t i = 0; i < def->values.size(); ++i) {
        if (def->values[i] == value) {
            def->set(choices, static_cast<int>(i));
            return true;
        }
    }
    if (error)
        *error = "invalid value \"" + std::string(value) + "\" for " + std::string(choice)
            + " (expected " + joinValues(def->values) + ")";
    return false;
}

std::string choiceValue(const ProfileChoices& choices, std::string_view choice)
{
    const ChoiceDef* def = findChoice(choice);
    if (!def)
        return {};
    return std::string(def->values[static_cast<size_t>(def->get(choices))]);
}

} // namespace schedlab
