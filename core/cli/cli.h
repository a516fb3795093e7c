// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli: the headless front end. Exit codes: 0 ok, 1 findings requested by
// --fail-on-starvation, 2 bad input or unwritable output, 3 a resource guard stopped the run,
// 4 a checked build found a broken scheduler invariant.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace schedlab {

struct RunOptions;

/// Applies one compare variant SPEC ("NO_PLACE_LAG,profile=6.12,seed=3,reweight=eevdf") on top of
/// @p options; false with a message for an unknown name or value.
bool applyVariant(const std::string& spec, RunOptions& options, std::string* error);

/// Parses args[i] when it is an option that shapes a run (--profile, --feature, --override,
/// --duration, --seed, --watchdog, --limit; see schedlab-cli --help) and advances i past its value.
/// Returns 1 when parsed, 0 when args[i] is not such an option, -1 on a bad value (*error says
/// why).
int parseRunOption(
    const std::vector<std::string>& args, size_t& i, RunOptions& options, std::string* error);

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace schedlab
