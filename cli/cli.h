// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli: the headless front end. Exit codes: 0 ok, 1 findings requested by
// --fail-on-starvation, 2 bad input or unwritable output, 3 a resource guard stopped the run,
// 4 a checked build found a broken scheduler invariant.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace schedlab {

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace schedlab
