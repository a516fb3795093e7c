// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli run in-process for tests: its exit code and what it wrote to stdout and stderr.
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

inline CliResult runCliCaptured(const std::vector<std::string>& args)
{
    std::ostringstream out;
    std::ostringstream err;
    CliResult r;
    r.code = runCli(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace schedlab::test
