// SPDX-License-Identifier: GPL-2.0-or-later
// Inside the cli library: schedlab-cli's commands and what they share. cli.cpp has the help, the
// dispatch, validate and the rt-app commands; runargs.cpp the options of the commands that run a
// scenario; run.cpp `run` and its summary; compare.cpp `compare`. Exit codes: schedlab-cli --help.
#pragma once

#include "core/base/time.h"
#include "core/kernel/runoptions.h"
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {
class Simulation;
}

namespace schedlab::clicmd {

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitStopped = 3;   // a resource guard stopped the run (docs/limits.md)
constexpr int kExitInvariant = 4; // a checked build found a broken scheduler invariant

struct RunArgs
{
    std::string file;
    RunOptions options;
    std::string metricsOut;
    std::string recordsOut;
    std::string traceOut;
    std::string csvDir;
    std::optional<Nanoseconds> exportFrom; ///< --from
    std::optional<Nanoseconds> exportTo;   ///< --to
    std::string entities;                  ///< --entities
    std::vector<std::string> variants;
    bool quiet = false;
    bool failOnStarvation = false;
    bool all = false; ///< --all: every row, nothing folded
};

// Parses run/compare options after the command word. Returns false with a message on error.
bool parseRunArgs(
    const std::vector<std::string>& args, size_t from, RunArgs& ra, std::string* error);
// Every output of run/compare, checked before anything is simulated (checkOutputs).
bool checkRunOutputs(const RunArgs& ra, const std::vector<std::string>& inputs, std::string* error);
/// The scenario of @p file, or its errors on @p err and nullopt.
std::optional<Scenario> loadOrReport(const std::string& file, std::ostream& err);
/// The exit code of a run that ended: 0, or 3/4 with the guard or invariant report on @p err.
int runProblems(const Simulation& sim, std::ostream& err);
/// Runs @p sim to its end; a progress line on @p err when the run takes long (a terminal).
void runWithProgress(Simulation& sim, std::ostream& err, const std::string& label);

/// "12.34%".
std::string percent(double share);
// "a, b, c and 4 more": names of a folded line, at most @p max of them.
std::string nameList(const std::vector<std::string>& names, size_t max = 6);

struct FindingSummary
{
    int count = 0;
    const Finding* worst = nullptr;
};

std::map<std::string, FindingSummary> findingsByKind(const Metrics& m);
bool hasStarvation(const Metrics& m);

int cmdRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmdCompare(std::vector<std::string> args, std::ostream& out, std::ostream& err);

} // namespace schedlab::clicmd
