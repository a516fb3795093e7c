// SPDX-License-Identifier: GPL-2.0-or-later
// Loading, validating and writing scenario files (docs/scenario-format.md §1).
// Errors name the file, the JSON path and what was expected:
//   scenarios/x.json: /tasks/2/cpus: CPU 7 does not exist (machine has 4 CPUs)
// Implemented in this folder by: jsonreader (the diagnostics reader: JSON text, single values,
// messages), fieldtable + scenariofields (one table per flat struct: key, check, write),
// scenarioreader (sections and cross-field checks), scenariowriter (with its pretty-printer) and
// scenariofile (reading a file, atomic save through core/base/atomicfile).
#pragma once

#include "core/sim/scenariospec.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

struct LoadResult
{
    std::optional<Scenario> scenario; ///< set when there were no errors
    std::vector<std::string> errors;  ///< "file: /json/path: what was expected", one per problem
    /// Fields accepted but whose behaviour is not simulated yet, each reported once:
    /// "file: not simulated yet: cpu.max".
    std::vector<std::string> notices;
    bool ok() const { return scenario.has_value(); }
};

/// Parses and validates @p text. @p fileName is only used in messages.
LoadResult parseScenario(const std::string& text, const std::string& fileName);
/// Byte offset of the first array or object of @p text nested deeper than @p limit (strings
/// skipped), or nullopt: one pass, no recursion, syntax left to the parser. The loader refuses a
/// file deeper than ScenarioLimits::maxJsonDepth with it; other readers of JSON text from the
/// user (sweep --param values) use the same bound.
std::optional<size_t> jsonNestingTooDeep(std::string_view text, size_t limit);
/// Reads @p path and parses it; an unreadable file is an error naming the file.
LoadResult loadScenarioFile(const std::string& path);

/// Serialises to JSON text (2-space indentation, stable key order, trailing newline).
/// parseScenario(writeScenario(s)) yields a scenario equal to s.
std::string writeScenario(const Scenario& scenario);

/// Writes atomically: a temporary file in the same directory, then rename(2).
/// Returns an empty string on success, else the error message.
std::string saveScenarioFile(const Scenario& scenario, const std::string& path);

} // namespace schedlab
