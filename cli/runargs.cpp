// SPDX-License-Identifier: GPL-2.0-or-later
// The options of the commands that run a scenario (run, compare) and running it.
#include "cli/commands.h"
#include "cli/output.h"
#include "core/base/args.h"
#include "core/base/text.h"
#include "core/kernel/variant.h"
#include "core/record/streamexport.h"
#include "core/sim/simulation.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace schedlab::clicmd {

// Parses run/compare options after the command word. Returns false with a message on error.
bool parseRunArgs(
    const std::vector<std::string>& args, size_t from, RunArgs& ra, std::string* error)
{
    ArgReader ar(args, from);
    while (ar.next()) {
        const std::string a = ar.name();
        auto value = [&](std::string& out) {
            if (!ar.value(out)) {
                *error = ar.error();
                return false;
            }
            return true;
        };
        std::string v;
        if (const int rc = parseRunOption(ar, ra.options, error); rc != 0) {
            if (rc < 0)
                return false;
        } else if (ar.option("--metrics") || ar.option("--records") || ar.option("--trace")
            || ar.option("--csv")) {
            std::string& path = a == "--metrics" ? ra.metricsOut
                : a == "--records"               ? ra.recordsOut
                : a == "--trace"                 ? ra.traceOut
                                                 : ra.csvDir;
            if (!value(path))
                return false;
        } else if (ar.option("--from") || ar.option("--to")) {
            if (!value(v))
                return false;
            std::string why;
            const auto t =
                v == "0" ? std::optional<Nanoseconds>(Nanoseconds(0)) : parseDuration(v, &why);
            if (!t) {
                *error = a
                    + " expects a time from the start of the run such as 0, 1.5s or 250ms, got \""
                    + printable(v) + "\" (" + why + ")";
                return false;
            }
            (a == "--from" ? ra.exportFrom : ra.exportTo) = *t;
        } else if (ar.option("--entities")) {
            if (!value(ra.entities))
                return false;
            if (!EntitySelection::parse(ra.entities, &v)) {
                *error = "--entities " + v;
                return false;
            }
        } else if (ar.option("--variant")) {
            if (!value(v))
                return false;
            ra.variants.push_back(v);
        } else if (ar.flag("--no-samples")) {
            ra.options.recordSamples = false;
        } else if (ar.flag("--quiet")) {
            ra.quiet = true;
        } else if (ar.flag("--all")) {
            ra.all = true;
        } else if (ar.flag("--fail-on-starvation")) {
            ra.failOnStarvation = true;
        } else if (ar.isOption()) {
            *error = "unknown option " + printable(ar.word()) + " (see --help)";
            return false;
        } else if (ra.file.empty()) {
            ra.file = ar.word();
        } else {
            *error = "unexpected argument \"" + printable(ar.word()) + "\"";
            return false;
        }
    }
    if (ra.file.empty()) {
        *error = "missing scenario FILE";
        return false;
    }
    if ((ra.exportFrom || ra.exportTo || !ra.entities.empty()) && ra.traceOut.empty()
        && ra.csvDir.empty() && ra.recordsOut.empty()) {
        *error = "--from, --to and --entities select what --trace, --csv and --records write: give "
                 "one of them";
        return false;
    }
    if (ra.exportFrom && ra.exportTo && *ra.exportFrom > *ra.exportTo) {
        *error = "--from " + formatDuration(*ra.exportFrom) + " is after --to "
            + formatDuration(*ra.exportTo);
        return false;
    }
    const int toStdout = (ra.metricsOut == "-") + (ra.recordsOut == "-") + (ra.traceOut == "-");
    if (toStdout > 1) {
        *error = "only one of --metrics, --records and --trace can write to '-' (stdout)";
        return false;
    }
    return true;
}

// Every output of run/compare, checked before anything is simulated (checkOutputs).
bool checkRunOutputs(const RunArgs& ra, const std::vector<std::string>& inputs, std::string* error)
{
    return checkOutputs({{"--metrics", ra.metricsOut}, {"--records", ra.recordsOut},
                            {"--trace", ra.traceOut}, {"--csv", ra.csvDir, true}},
        inputs, error);
}

std::optional<Scenario> loadOrReport(const std::string& file, std::ostream& err)
{
    LoadResult result = loadScenarioFile(file);
    for (const auto& e : result.errors)
        err << e << "\n";
    if (!result.ok())
        return std::nullopt;
    return std::move(result.scenario);
}

// What the checked run found that is not a scheduling outcome: a resource guard stopped it
// (exit 3) or a kernel invariant broke (exit 4). Both are reported on stderr.
int runProblems(const Simulation& sim, std::ostream& err)
{
    for (const auto& v : sim.invariantViolations())
        err << "invariant violated: " << printable(v) << "\n";
    if (!sim.stopReason().empty()) {
        err << "run " << printable(sim.stopReason()) << "\n";
        return kExitStopped;
    }
    return sim.invariantViolations().empty() ? kExitOk : kExitInvariant;
}

// Progress of a long run on stderr — simulated time, events per second, ETA — only when stderr
// is a terminal (never in files, pipes or tests). Wall-clock time is read for this display only:
// the run advances in the same steps as sim.run() and its results do not depend on it.
void runWithProgress(Simulation& sim, std::ostream& err, const std::string& label)
{
    if (&err != &std::cerr || !isatty(STDERR_FILENO)) {
        sim.run();
        return;
    }
    using Clock = std::chrono::steady_clock;
    const Nanoseconds end = sim.endTime();
    const Nanoseconds chunk = std::max(end / 1000, Nanoseconds(1'000'000));
    const auto start = Clock::now();
    auto last = start;
    uint64_t lastEvents = sim.eventsExecuted();
    bool shown = false;
    while (sim.now() < end && sim.stopReason().empty()) {
        sim.runUntil(std::min(end, saturatingAdd(sim.now(), chunk)));
        const auto wall = Clock::now();
        const double sinceLast = std::chrono::duration<double>(wall - last).count();
        if (sinceLast < 0.25 || std::chrono::duration<double>(wall - start).count() < 0.5)
            continue;
        const double elapsed = std::chrono::duration<double>(wall - start).count();
        const double done =
            static_cast<double>(sim.now().count()) / static_cast<double>(end.count());
        const double rate = static_cast<double>(sim.eventsExecuted() - lastEvents) / sinceLast;
        char line[160];
        std::snprintf(line, sizeof line, "\r%s%s / %s simulated, %.3g events/s, ETA %.0f s \033[K",
            label.c_str(), formatDurationHuman(sim.now()).c_str(), formatDurationHuman(end).c_str(),
            rate, done > 0 ? elapsed * (1 - done) / done : 0.0);
        err << line << std::flush;
        shown = true;
        last = wall;
        lastEvents = sim.eventsExecuted();
    }
    sim.run();
    if (shown)
        err << "\r\033[K" << std::flush;
}

} // namespace schedlab::clicmd
