// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"

#include <ostream>

namespace schedlab {

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    (void)args;
    (void)out;
    err << "not implemented yet\n";
    return 2;
}

} // namespace schedlab
