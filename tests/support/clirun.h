// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli (or another command-line front end) run in-process for tests: its exit code and
// what it wrote to stdout and stderr.
#pragma once

#include "cli/cli.h"

#include <sstream>
#include <string>
#include <vector>

namespace schedlab::test {

struct CliResult
{
    int code = -1;
    std::string out;
    std::string err;
};

/// @p command (a front end's `int (const std::vector<std::string>&, std::ostream& out,
/// std::ostream& err)`: runCli, ui::runCaptureCli, ui::runSweepPlotCli, ...) run in-process.
template <typename Command>
CliResult runCaptured(Command command, const std::vector<std::string>& args)
{
    std::ostringstream out;
    std::ostringstream err;
    CliResult r;
    r.code = command(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline CliResult runCliCaptured(const std::vector<std::string>& args)
{
    return runCaptured(runCli, args);
}

inline bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace schedlab::test
