// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/cli.h"
#include "core/base/atomicfile.h"
#include "ui/common/headless.h"
#include "ui/export/capture.h"
#include "ui/export/sweepplot.h"

#include <QApplication>

#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace {

int runCommand(int argc, char* argv[])
{
    // A run killed by SIGINT, SIGTERM, SIGHUP… removes its temporary output files first.
    schedlab::installTempFileCleanup();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "capture") {
        // Captures use the GUI's plotting code: a QApplication, offscreen unless told otherwise.
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        schedlab::ui::quietHeadlessNotes();
        QApplication app(argc, argv);
        return schedlab::ui::runCaptureCli(args, std::cout, std::cerr);
    }
    if (schedlab::ui::sweepPlotWanted(args)) {
        // A sweep's plot is drawn by the GUI's plotting library too (docs/sweeps.md).
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        schedlab::ui::quietHeadlessNotes();
        QApplication app(argc, argv);
        return schedlab::ui::runSweepPlotCli(args, std::cout, std::cerr);
    }
    return schedlab::runCli(args, std::cout, std::cerr);
}

} // namespace

int main(int argc, char* argv[])
{
    // The last resort: the model-bytes guard and the scenario limits (docs/limits.md) keep the
    // simulation's memory bounded; if the machine has less than that, say so and stop like a
    // guard (exit 3) instead of aborting. Outputs not committed yet keep their old files.
    try {
        return runCommand(argc, argv);
    } catch (const std::bad_alloc&) {
        std::cerr << "schedlab-cli: out of memory (this machine has less than the run needs): "
                     "lower --limit model-bytes=N to stop at a guard, or simulate fewer tasks, "
                     "cgroups or CPUs (docs/limits.md, Memory)\n";
        return 3;
    }
}
