// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli: the headless front end (architecture.md §7). Exit codes: 0 ok, 1 findings
// requested by --fail-on-starvation, 2 bad input.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace schedlab {

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace schedlab
