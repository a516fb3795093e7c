// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/cli/cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char* argv[])
{
    std::vector<std::string> args(argv + 1, argv + argc);
    return schedlab::runCli(args, std::cout, std::cerr);
}
