// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli import TRACE and the real-run column of compare --real (docs/real-kernels.md).
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace schedlab {

struct Metrics;

/// `schedlab-cli import TRACE [--names MAP] [--metrics OUT] [--records OUT] [--quiet]`.
int runImportCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// compare's real-run options.
struct RealOptions
{
    std::string trace; ///< --real TRACE
    std::string names; ///< --names MAP
    /// --replay FILE: the trace's replay (import --scenario), run beside the scenario as the
    /// model at the trace's own measured costs
    std::string replay;
    bool force = false; ///< --force: compare a trace whose header names another scenario
    /// A replay scenario's trace name → model name (replayTraceToModelNames()): the real rows
    /// take the model's names, and the trace need not be a run of this scenario.
    std::map<std::string, std::string> replayNames;
};

/// Removes "--real TRACE", "--names MAP", "--replay FILE" and "--force" from @p args (compare's
/// options); false with a message when one lacks its value.
bool takeRealOptions(std::vector<std::string>& args, RealOptions& options, std::string* error);

/// Imports the trace of @p options for compare's real column beside @p model: cgroups in the
/// model's order (@p absent: true for each the trace knows nothing of — no task placed in it,
/// no cpu.stat — so that it is shown as absent, not as 0), probes (a probe task's latency is
/// from its first event to its exit). The trace's header (the runner's "# schedlab-scenario:",
/// "# schedlab-cpus:", the tracer's "#P:") must match the model's scenario name and CPU count
/// unless --force. Messages go to @p err. False when the trace cannot be used.
bool importForCompare(const RealOptions& options, const Metrics& model, Metrics& real,
    std::vector<bool>& absent, std::ostream& err);

} // namespace schedlab
