// SPDX-License-Identifier: GPL-2.0-or-later
// The lag pane's clamp band, per task (issue 39 part 4): ±limit of update_entity_lag()
// (docs/kernel-model.md §4.1 step 3), the clamp in force for the task at each time — the limit
// the kernel would apply if the task left its queue then:
//   lag_clamp=own_slice (6.6–6.19):       limit = calc_delta_fair(max(2·slice, TICK_NSEC), se)
//   lag_clamp=max_slice_tick (7.0+):      limit = calc_delta_fair(max_slice + TICK_NSEC, se)
// with `slice` the task's own slice (the one the recording's deadline renewals report: custom
// `slice`, a `set` action's, the base slice) and `max_slice` the largest slice queued on the
// task's cfs_rq (cfs_rq_max_slice(), `curr` and the task itself included: the kernel takes it
// while the task is still queued). max_slice comes from the recording's MaxSlice records
// (RunOptions::recordMaxSlice, per cfs_rq where a sample saw it change) for the queue each of
// the task's queued samples is on (its CPU and cgroup; a migration or move changes queue);
// while the task is dequeued the band holds the limit its saved lag was clamped with (the one
// in force just before it left). Without MaxSlice records the task's own slice stands in for
// max_slice: the least the limit can be (max_slice ≥ its own slice while it is queued), the
// bound the bug-hunt measure lag_excess checks (§4.1). The rule follows the run's profile
// actions and overrides (the clamp may change mid-run). calc_delta_fair(x, se) =
// x · NICE_0_LOAD / w with scaled weights (NICE_0_LOAD = 2^20), in integers; display only.
// Qt-free, like the rest of ui/timeline/model.
#pragma once

#include "core/base/time.h"
#include "core/kernel/profile.h"
#include "core/sim/scenariospec.h"
#include "ui/timeline/model/entitylines.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace schedlab::ui {

/// The profile and model choices in force from @p at on.
struct ChoiceEpoch
{
    Nanoseconds at{0};
    std::string profile;
    ProfileChoices choices;
    /// What the action at @p at changed, as "profile 7.0" / "lag_clamp=max_slice_tick" (empty
    /// for the first epoch).
    std::vector<std::string> changes;
};

/// The choices over a run: @p start (the run's profile and choices at t = 0: profile, scenario
/// overrides, run options) then each profile action of @p actions in time order, applied as the
/// machine applies it (Machine::apply: a known profile's choices replace all, then the action's
/// overrides; the run-queue layout stays the run's). Actions that change nothing add no epoch.
std::vector<ChoiceEpoch> choiceEpochs(const std::string& startProfile, const ProfileChoices& start,
    const std::vector<Action>& actions);

/// The lag clamp rule from a time on.
using ClampRules = std::vector<std::pair<Nanoseconds, LagClamp>>;
/// The rule of each epoch where it changes.
ClampRules clampRules(const std::vector<ChoiceEpoch>& epochs);

/// The band's half width (virtual ns) for @p rule, a slice of @p sliceNs (own_slice: the task's
/// own; max_slice_tick: the largest queued), a tick of @p tickNs and a scaled load weight
/// @p weight (0 for weight 0).
int64_t lagBandLimit(LagClamp rule, int64_t sliceNs, int64_t tickNs, uint32_t weight);

/// One cfs_rq's largest queued slice over time: (time, ns) in record order
/// (SampleIndex::maxSlices()).
using SliceSteps = std::vector<std::pair<Nanoseconds, int64_t>>;
/// The largest slice queued on a task's cfs_rq while it is queued, from its samples in time order
/// (EntitySample::cpu, ::group — −1 counts as the root —, ::flags' kQueued) and @p queue(cpu,
/// group), the MaxSlice steps of that cfs_rq (nullptr if none; then the root's of that CPU is
/// tried: a flat run queue, 7.3, keeps every task in rq->cfs). From each queued sample: the
/// queue's value at its time (its last step at or before it), then the queue's steps up to the
/// next sample; nothing after a dequeued sample, so the value held is the one in force when the
/// task left. Steps where the value changes only; empty without MaxSlice records.
SliceSteps queueMaxSlices(const std::vector<EntitySample>& samples,
    const std::function<const SliceSteps*(int cpu, int group)>& queue);

/// The upper edge of a task's band (the lower is its negation) as a held line: a step at every
/// point of @p weight (the task's weight line, held between samples: entityLines()), every rule
/// change of @p rules, every slice change of @p slices ((time, slice ns), time order; the
/// first slice holds before its time too, @p defaultSlice when there is none) and every step
/// of @p queueSlices (queueMaxSlices(); max_slice_tick takes max(own slice, its value) from its
/// first step on, the own slice before), up to @p until. Starts at the weight line's first point
/// (the band exists where the task has samples).
std::vector<LinePoint> lagBand(const std::vector<LinePoint>& weight, const ClampRules& rules,
    const std::vector<std::pair<Nanoseconds, int64_t>>& slices, int64_t defaultSlice,
    int64_t tickNs, Nanoseconds until, const SliceSteps& queueSlices = {});

} // namespace schedlab::ui
