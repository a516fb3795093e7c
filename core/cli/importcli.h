// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli import TRACE and the real-run column of compare --real (docs/real-kernels.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace schedlab {

struct Metrics;

/// `schedlab-cli import TRACE [--names MAP] [--metrics OUT] [--records OUT] [--quiet]`.
int runImportCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Removes "--real TRACE" and "--names MAP" from @p args (compare's options); false with a
/// message when one lacks its value.
bool takeRealOptions(
    std::vector<std::string>& args, std::string& trace, std::string& names, std::string* error);

/// Imports @p trace (and @p names, may be empty) for compare's real column beside @p model:
/// cgroups in the model's order, probes (a probe task's latency is from its first event to its
/// exit). Messages go to @p err. False when the trace cannot be used.
bool importForCompare(const std::string& trace, const std::string& names, const Metrics& model,
    Metrics& real, std::ostream& err);

} // namespace schedlab
