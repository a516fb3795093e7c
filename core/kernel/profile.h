// SPDX-License-Identifier: GPL-2.0-or-later
// Kernel profiles: named sets of behaviour choices (kernel-model.md §1.1, §13) plus default sched
// features. Every version-dependent behaviour of the model is read from here, by what it models,
// never by comparing version names. Choice names/values are those of scenario-format.md §4.
#pragma once

#include "core/base/time.h"
#include "core/kernel/features.h"

#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

enum class TreeKey { Vruntime, Deadline };                               // tree_key
enum class V0Mode { MinVruntime, ZeroVruntimeEnqueue, ZeroVruntimeAvg }; // v0
enum class WeightPrecision { ScaledDown, Full };                         // weight_precision
enum class LagClamp { OwnSlice, MaxSliceTick };                          // lag_clamp
enum class ReweightRule { KeepVruntime, Eevdf, Place, Rescale };         // reweight
enum class DelayRules { None, V612, V72 };                               // delay_dequeue_rules
enum class Protection { DeadlineHack, VprotUnion, Vprot };               // protection
enum class YieldRule { DeadlineBump, ForfeitAlways, ForfeitEligible, DeadlineClamp }; // yield
enum class ThrottleModel { Group, Task };                                             // throttle
enum class RtConstraintCheck { WalkAllTasks, Patched }; // rt_constraint_check
/// calc_group_shares() (7.3's debugfs cgroup_mode): "smp" = tg->shares split by load (all
/// versions); "concur" = tg->shares times min(tasks, CPUs) of the group, split by load (7.3).
enum class GroupShares { Smp, Concur }; // group_shares
/// What the runnable signal of a cfs_rq and of a group entity counts (kernel-model.md §5.4):
/// "h_nr_running" = every queued task, delayed ones included (6.12.0–6.12.6); "h_nr_runnable" =
/// queued minus delayed (76f2f783294d "More PELT vs DELAYED_DEQUEUE", 6.13, 6.12.7).
enum class DelayedRunnable { HNrRunning, HNrRunnable }; // delayed_runnable
/// Which balances may move a delayed task (kernel-model.md §5.4): "any" (6.12–6.13:
/// can_migrate_task() has no rule for them), "load_only" (61b82dfb6b7e "Do not try to migrate
/// delayed dequeue task", 6.14: only a migrate_load balance, the active balance included).
enum class LbDelayed { Any, LoadOnly }; // lb_delayed
/// Whether a task balance may take a task that is not eligible where it is queued (kernel-model.md
/// §8.3): "any" (≤6.13: no such rule), "soft_limit" (873199d27bb2 "Prioritize migrating eligible
/// tasks in sched_balance_rq()", 6.14: only once the domain has failed a balance, or when the
/// destination's queue of the task's group is empty).
enum class LbIneligible { Any, SoftLimit }; // lb_ineligible

struct ProfileChoices
{
    TreeKey treeKey = TreeKey::Deadline;
    V0Mode v0 = V0Mode::ZeroVruntimeAvg;
    WeightPrecision weightPrecision = WeightPrecision::Full;
    LagClamp lagClamp = LagClamp::MaxSliceTick;
    ReweightRule reweight = ReweightRule::Rescale;
    DelayRules delayRules = DelayRules::V72;
    Protection protection = Protection::Vprot;
    YieldRule yield = YieldRule::ForfeitEligible;
    ThrottleModel throttle = ThrottleModel::Task;
    bool boostThrottledOnWakeup = false;
    RtConstraintCheck rtConstraintCheck = RtConstraintCheck::Patched;
    bool flat = false;
    bool emptyGroupKeepWeight = true;
    GroupShares groupShares = GroupShares::Smp;
    DelayedRunnable delayedRunnable = DelayedRunnable::HNrRunnable;
    LbDelayed lbDelayed = LbDelayed::LoadOnly;
    LbIneligible lbIneligible = LbIneligible::SoftLimit;
    /// CONFIG_SCHED_AUTOGROUP (kernel-model.md §8.2 "Exit"): do_exit() moves the exiting task to
    /// its own group again (sched_autogroup_exit_task() → sched_move_task()) before it wakes its
    /// parent. A build option, on in Debian's, Ubuntu's and Fedora's kernels.
    bool exitGroupMove = true;
    friend bool operator==(const ProfileChoices&, const ProfileChoices&) = default;
};

/// Behaviour differences that are not user-selectable choices but still follow the version.
struct ProfileTraits
{
    bool customSlices = true;          ///< sched_attr.sched_runtime honoured (6.12+)
    bool placeLagSkipZero = true;      ///< place_entity skips inflation when vlag == 0 (~6.15+)
    bool wakeupPreempt619 = true;      ///< 6.19+ wakeup_preempt_fair() structure (§7.1 step 5)
    bool resched617 = true;            ///< update_curr reschedules at end of protection (6.17+)
    bool pickBuddy = true;             ///< cfs_rq->next honoured by pick (PICK_BUDDY exists, 6.14+)
    bool pickBuddyNeedsProtect = true; ///< 7.x: buddy only considered when protect is true
    bool relDeadlineUngated = false;   ///< 6.13–7.0: rel-deadline branch ignores the feature bit
    /// 6.6: exact deadline tie keeps curr; buddy only with NEXT_BUDDY.
    bool pick66 = false;
    /// 6.14+: PICK_BUDDY inside pick_eevdf (6.12: in pick_next_entity).
    bool buddyInPickEevdf = true;
    /// 7.x: HRTICK fires at (d − v)·w/NICE0 real ns (earlier: slice − ran since the pick).
    bool hrtickFromDeadline = false;
    /// 6.12+: each CPU's fair deadline server (50 ms / 1 s, defer mode) protects fair tasks from
    /// RT starvation, and the root rt_rq is no longer throttled by sched_rt_runtime_us
    /// (kernel-model.md §10.4). Earlier: the root rt_rq is throttled at 950 ms per 1 s.
    bool fairDeadlineServer = true;
    /// 6.10+: misfit needs a bigger CPU the task may use (p->max_allowed_capacity); a misfit
    /// balance neither counts as a failed balance nor backs the interval off; the NOHZ kick
    /// checks only rq->misfit_task_load (kernel-model.md §8.4). Earlier: a task too big for the
    /// biggest CPU is misfit too, and the kick needs a CPU below rd->max_cpu_capacity.
    bool misfitFittingCpu = true;
    /// 6.7+ (1528c661c24b "sched/fair: Ratelimit update to tg->load_avg"): a cfs_rq publishes
    /// its load in tg->load_avg at most once per ms (kernel-model.md §6.3). Earlier: whenever it
    /// moved by more than 1/64.
    bool tgLoadAvgRatelimit = true;
    /// 7.3: with PREEMPT_SHORT and a shorter queued slice, set_protect_slice() ends protection
    /// where curr turns ineligible (ineligible_vruntime()), and update_protect_slice() starts
    /// from min(v, V) (kernel-model.md §3.7). 6.17–7.2: both from curr's own v + vslice.
    bool protectIneligible = false;
    /// check_preempt_wakeup_fair() as in 6.12.117's source (kernel-model.md §7.1, §1.5): no
    /// SCHED_IDLE-curr shortcut before find_matching_se(); the idle test is made on the matched
    /// entities (a group entity is idle by its cpu.idle), and a BATCH or IDLE wakee is turned
    /// away only after it. Off: the 6.6 order (idle curr preempted by any non-idle wakee, batch
    /// and idle wakees turned away first). On for every profile from 6.12 on (7.2's and 7.3's
    /// sources have the same order as 6.12.117); off for 6.6.
    bool idlePreemptMatched = false;
};

struct KernelProfile
{
    std::string name;        ///< "6.6", "6.12", "6.13", "7.0", "7.1"
    std::string covers;      ///< "6.13–6.19"
    std::string description; ///< one paragraph for --help and the GUI
    Nanoseconds baseSlice;   ///< normalised sysctl_sched_base_slice default
    ProfileChoices choices;
    ProfileTraits traits;
    FeatureSet features; ///< defaults of /sys/kernel/debug/sched/features
};

const std::vector<KernelProfile>& kernelProfiles();
const KernelProfile* findProfile(std::string_view name);
std::string profileNameList();
/// The profile a scenario gets when it names none.
const KernelProfile& defaultProfile();

/// Choice names, in scenario-format.md §4 order.
std::vector<std::string> choiceNames();
/// Valid values of one choice, "|"-separated, for messages; empty if the choice is unknown.
std::string choiceValues(std::string_view choice);
/// Sets one choice from its string form; false (with a message) for an unknown name or value.
bool applyChoice(ProfileChoices& choices, std::string_view choice, std::string_view value,
    std::string* error = nullptr);
/// String form of a choice's current value (for metrics, help and the GUI).
std::string choiceValue(const ProfileChoices& choices, std::string_view choice);

} // namespace schedlab
