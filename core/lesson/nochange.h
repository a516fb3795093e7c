// SPDX-License-Identifier: GPL-2.0-or-later
// "Why did nothing change?": a feature toggle, a behaviour choice or a compare
// variant that leaves a run (or one task) exactly as it was is a surprise a student should not
// meet unexplained. whyNothingChanged() runs the scenario as given and with the change, compares
// the switch sequences, and when nothing changed explains it from the model's own records:
//
// - PLACE_LAG: every placement of the task found a saved vlag of 0. With DELAY_DEQUEUE the task
//   blocked while ineligible, stayed queued until its negative lag was paid back and was dequeued
//   with vlag 0 (DELAY_ZERO clips a positive one); a third run with NO_DELAY_DEQUEUE gives the
//   lag PLACE_LAG would otherwise have placed it with.
// - DELAY_DEQUEUE / DELAY_ZERO: no entity was ever delayed / no delayed entity left with a
//   positive lag.
// - RUN_TO_PARITY: no task woke while another ran on its CPU (a tick reschedules only once curr's
//   slice is used up, when the protection has ended anyway).
// - PREEMPT_SHORT: no task with a shorter slice than curr's woke while curr ran.
// - lag_clamp: the largest saved |lag| was within both limits.
//
// whyEditChangedNothing() does the same for a live edit: the feature flipped (or choice set) at
// time t by an action, compared and explained from t on.
//
// Qt-free; the findings and the inspector show the lines (docs/lessons.md §7).
#pragma once

#include "core/kernel/runoptions.h"
#include "core/sim/scenariospec.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace schedlab::lesson {

struct NoChange
{
    std::string change;             ///< the variant as given ("NO_PLACE_LAG")
    std::string task;               ///< the task asked about, or empty for the whole run
    bool wholeRun = false;          ///< every switch of the run is the same
    std::vector<std::string> lines; ///< "PLACE_LAG had no effect on periodic: …"
};

/// Runs @p scenario with @p base and with @p base plus the compare variant @p variant
/// (kernel/variant.h syntax: "NO_PLACE_LAG", "lag_clamp=own_slice", several comma-separated).
/// nullopt when the change changed something: a switch of the run (@p task empty) or of @p task
/// (its switch-ins and CPU time), or when @p variant or @p task is invalid (@p error says which).
std::optional<NoChange> whyNothingChanged(const Scenario& scenario, const RunOptions& base,
    const std::string& variant, const std::string& task = {}, std::string* error = nullptr);

/// "PLACE_LAG off at 120.000 ms", "lag_clamp=own_slice at 50.000 ms": an edit in words.
std::string describeEdit(const Action& action);

/// A live edit (the sandbox, README.md): @p after is @p before with @p action added at
/// action.at. Runs both and, when every switch from action.at on is the same, explains it like
/// whyNothingChanged() from the records from action.at on ("PLACE_LAG off at 120.000 ms changed
/// nothing: …", then why). nullopt when the edit changed a switch, or (@p error) the run failed
/// or was cancelled: @p cancel, when given, is polled every 10 ms of simulated time of the two
/// runs (a later edit makes the answer useless; the GUI then stops the worker early).
std::optional<NoChange> whyEditChangedNothing(const Scenario& before, const Scenario& after,
    const RunOptions& options, const Action& action, std::string* error = nullptr,
    const std::atomic<bool>* cancel = nullptr);

} // namespace schedlab::lesson
