// SPDX-License-Identifier: GPL-2.0-or-later
// The lag pane's clamp band, per task (issue 39 part 4): ±limit of update_entity_lag()
// (docs/kernel-model.md §4.1 step 3) for the task's own slice, its weight and the clamp rule in
// force at each time:
//   lag_clamp=own_slice (6.6–6.19):       limit = calc_delta_fair(max(2·slice, TICK_NSEC), se)
//   lag_clamp=max_slice_tick (7.0+):      limit = calc_delta_fair(max_slice + TICK_NSEC, se)
// For max_slice_tick the kernel takes the largest slice queued on the cfs_rq (curr included);
// the band takes the task's own slice there: the limit when the task's slice is the largest
// queued one, and the least the limit can be otherwise (max_slice ≥ its own slice while it is
// queued) — the bound the bug-hunt measure lag_excess checks (§4.1). The slice is the one the
// recording's deadline renewals report (custom `slice`, a `set` action's, the base slice), the
// rule follows the run's profile actions and overrides (the clamp may change mid-run).
// calc_delta_fair(x, se) = x · NICE_0_LOAD / w with scaled weights (NICE_0_LOAD = 2^20), in
// integers; display only. Qt-free, like the rest of ui/timeline/model.
#pragma once

#include "core/base/time.h"
#include "core/kernel/profile.h"
#include "core/sim/scenariospec.h"
#include "ui/timeline/model/entitylines.h"

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

/// The band's half width (virtual ns) for @p rule, a slice of @p sliceNs, a tick of @p tickNs and
/// a scaled load weight @p weight (0 for weight 0).
int64_t lagBandLimit(LagClamp rule, int64_t sliceNs, int64_t tickNs, uint32_t weight);

/// The upper edge of a task's band (the lower is its negation) as a held line: a step at every
/// point of @p weight (the task's weight line, held between samples: entityLines()), every rule
/// change of @p rules and every slice change of @p slices ((time, slice ns), time order; the
/// first slice holds before its time too, @p defaultSlice when there is none), up to @p until.
/// Starts at the weight line's first point (the band exists where the task has samples).
std::vector<LinePoint> lagBand(const std::vector<LinePoint>& weight, const ClampRules& rules,
    const std::vector<std::pair<Nanoseconds, int64_t>>& slices, int64_t defaultSlice,
    int64_t tickNs, Nanoseconds until);

} // namespace schedlab::ui
