// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"

#include "cli/importcli.h"
#include "cli/output.h"
#include "cli/sweep.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/kernel/profile.h"
#include "core/kernel/variant.h"
#include "core/lesson/nochange.h"
#include "core/record/metrics.h"
#include "core/record/metricsdiff.h"
#include "core/record/streamexport.h"
#include "core/record/traceexport.h"
#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <nlohmann/json.hpp>

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

namespace schedlab {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitStopped = 3;   // a resource guard stopped the run (docs/limits.md)
constexpr int kExitInvariant = 4; // a checked build found a broken scheduler invariant

void printHelp(std::ostream& out)
{
    out << "schedlab-cli " SCHEDLAB_VERSION
           " - headless runs of the schedlab EEVDF scheduler model\n\n"
           "Usage:\n"
           "  schedlab-cli validate FILE...\n"
           "  schedlab-cli run FILE [options]\n"
           "  schedlab-cli compare FILE --variant SPEC [--variant SPEC]... [options]\n"
           "  schedlab-cli compare FILE --real TRACE [--names MAP] [--force] [--variant SPEC]...\n"
           "      [options]\n"
           "  schedlab-cli import TRACE [--names MAP] [--metrics OUT] [--records OUT] [--quiet]\n"
           "  schedlab-cli import-rtapp RTAPP.json [--out scenario.json] [--cpus N] [--name NAME]\n"
           "  schedlab-cli export-rtapp FILE [--out rtapp.json]\n"
           "  schedlab-cli capture FILE --from T --to T --out x.png|svg|pdf [--entities A,B]\n"
           "               [--size WxH] [--dpi N] [--title TEXT] [--set TASK.nice=N]\n"
           "               [--weight CGROUP=W] [options that shape a run]\n"
           "               (WxH in pixels at 96 dpi; a PNG at --dpi N has WxH * N/96 pixels)\n"
           "  schedlab-cli sweep FILE --param KEY=V1,V2,... [--param ...] [--seeds N] [--jobs N]\n"
           "               [--shard i/n] --out results.csv [--plot METRIC --x KEY [--series KEY]\n"
           "               --plot-out plot.png|svg] [options that shape a run] (docs/sweeps.md)\n"
           "  schedlab-cli sweep-merge A.csv B.csv ... --out all.csv\n"
           "  schedlab-cli plot-sweep results.csv --plot METRIC --x KEY [--series KEY]\n"
           "               --out plot.png|svg\n"
           "  schedlab-cli --help | --version\n\n"
           "Options that shape a run (run, compare and capture):\n"
           "  --profile NAME          kernel profile (see below)\n"
           "  --feature NAME|NO_NAME  toggle a sched feature, as in "
           "/sys/kernel/debug/sched/features\n"
           "  --override CHOICE=VAL   set one behaviour choice of the profile\n"
           "  --duration D            simulated time, e.g. 10s, 250ms\n"
           "  --seed N                PRNG seed (default: the scenario's)\n"
           "  --watchdog D            starvation threshold (default 1s)\n"
           "  --limit NAME=N          a resource guard: events-per-second (1e9), live-tasks\n"
           "                          (100000), tasks (1000000, forked ones included),\n"
           "                          recording-bytes (1 GiB), model-bytes (1.5 GiB, the\n"
           "                          estimated memory of tasks, cgroups, CPUs); a run that\n"
           "                          reaches one stops, a scenario above model-bytes does\n"
           "                          not load\n"
           "Options of run and compare:\n"
           "  --metrics OUT           metrics JSON to OUT ('-' = stdout)\n"
           "  --records OUT           the recording as text, one event per line ('-' = stdout)\n"
           "  --trace OUT             Perfetto-compatible trace (Chrome trace-event JSON)\n"
           "  --csv DIR               DIR/samples.csv (entity samples), DIR/slices.csv (runs)\n"
           "  --from T, --to T        --trace, --csv and --records cover only [T1, T2] of the\n"
           "                          run (a time such as 1.5s or 250ms; default the whole run)\n"
           "  --entities NAME[,NAME…] --trace, --csv and --records cover only these tasks and\n"
           "                          cgroups: a task name or a cgroup path (its entity on every\n"
           "                          CPU), with wildcards * ? [..] (e.g. 'spawner.*' for forked\n"
           "                          children)\n"
           "  --no-samples            do not record entity samples (smaller, faster)\n"
           "  --fail-on-starvation    exit 1 if the watchdog reported a starved task\n"
           "  --quiet                 no summary on stdout\n"
           "  --all                   every row: no folding of forked tasks, idle tasks and\n"
           "                          cgroups or findings; compare: also rows equal in all runs\n"
           "Long runs show their progress on stderr when it is a terminal. --trace, --csv and\n"
           "--records are written while the run goes, in bounded memory (docs/exports.md).\n"
           "A compare SPEC is a comma-separated list of NAME/NO_NAME (feature), profile=NAME,\n"
           "seed=N and CHOICE=VALUE, e.g. --variant NO_PLACE_LAG --variant profile=6.12.\n"
           "compare --real TRACE adds a column for a real kernel's run of the scenario: ftrace\n"
           "text (/sys/kernel/tracing/trace or trace-cmd report) as written by schedlab-run;\n"
           "a trace whose header names another scenario or CPU count is refused (exit 2)\n"
           "unless --force; cgroups the trace knows nothing of show as n/a. import reads such\n"
           "a trace into the metrics of a run (docs/real-kernels.md).\n\n"
           "Output files are written whole or not at all (a temporary file, then rename),\n"
           "all of a command together at its end; a killed run leaves no temporary file.\n"
           "'-', devices and FIFOs are written in place (/dev/null stays a device). A\n"
           "symbolic link is followed only to a file in its own directory (or to a pipe),\n"
           "else refused. The directory of every OUT must exist (--csv DIR is created if its\n"
           "parent exists); an OUT may not be an input file or another OUT (docs/limits.md,\n"
           "\"Output files\").\n\n"
           "Exit codes: 0 ok, 1 findings requested by --fail-on-starvation, 2 bad input or an\n"
           "output that cannot be written, 3 a resource guard stopped the run early (events per\n"
           "simulated second, live tasks, recording size; the reason is on stderr), 4 a checked\n"
           "build found a broken scheduler invariant (listed on stderr).\n\n"
           "import-rtapp reads an rt-app workload (rt-app's JSON dialect: repeated keys, "
           "comments)\n"
           "and writes a scenario; export-rtapp writes a scenario's workload for rt-app. What the\n"
           "other side cannot express is listed on stderr, one line per JSON path "
           "(docs/rtapp.md).\n"
           "Without --out the result goes to stdout.\n\n"
           "Kernel profiles:\n";
    for (const auto& p : kernelProfiles())
        out << "  " << std::left << std::setw(6) << p.name << " " << p.covers << "\n         "
            << p.description << "\n";
    out << "\nSched features: " << featureNameList() << "\n\nBehaviour choices (--override):\n";
    for (const auto& c : choiceNames())
        out << "  " << std::left << std::setw(26) << c << choiceValues(c) << "\n";
    out << "\nExamples:\n"
           "  schedlab-cli validate scenarios/*.json\n"
           "  schedlab-cli run scenarios/equal-hogs.json --metrics -\n"
           "  schedlab-cli run scenarios/sleeper-lag.json --profile 6.6 --feature NO_PLACE_LAG\n"
           "  schedlab-cli run scenarios/nice-levels.json --override reweight=eevdf --duration 2s\n"
           "  schedlab-cli compare scenarios/cgroup-weight-starvation.json \\\n"
           "      --variant NO_PLACE_LAG --variant profile=6.12 --variant profile=7.1\n";
}

struct RunArgs
{
    std::string file;
    RunOptions options;
    std::string metricsOut;
    std::string recordsOut;
    std::string traceOut;
    std::string csvDir;
    std::optional<Nanoseconds> exportFrom; ///< --from
    std::optional<Nanoseconds> exportTo;   ///< --to
    std::string entities;                  ///< --entities
    std::vector<std::string> variants;
    bool quiet = false;
    bool failOnStarvation = false;
    bool all = false; ///< --all: every row, nothing folded
};

// Parses run/compare options after the command word. Returns false with a message on error.
bool parseRunArgs(
    const std::vector<std::string>& args, size_t from, RunArgs& ra, std::string* error)
{
    for (size_t i = from; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= args.size()) {
                *error = a + " needs a value";
                return false;
            }
            out = args[++i];
            return true;
        };
        std::string v;
        if (const int r = parseRunOption(args, i, ra.options, error); r != 0) {
            if (r < 0)
                return false;
        } else if (a == "--metrics") {
            if (!value(ra.metricsOut))
                return false;
        } else if (a == "--records") {
            if (!value(ra.recordsOut))
                return false;
        } else if (a == "--trace") {
            if (!value(ra.traceOut))
                return false;
        } else if (a == "--csv") {
            if (!value(ra.csvDir))
                return false;
        } else if (a == "--from" || a == "--to") {
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
        } else if (a == "--entities") {
            if (!value(ra.entities))
                return false;
            if (!EntitySelection::parse(ra.entities, &v)) {
                *error = "--entities " + v;
                return false;
            }
        } else if (a == "--variant") {
            if (!value(v))
                return false;
            ra.variants.push_back(v);
        } else if (a == "--no-samples") {
            ra.options.recordSamples = false;
        } else if (a == "--quiet") {
            ra.quiet = true;
        } else if (a == "--all") {
            ra.all = true;
        } else if (a == "--fail-on-starvation") {
            ra.failOnStarvation = true;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            *error = "unknown option " + printable(a) + " (see --help)";
            return false;
        } else if (ra.file.empty()) {
            ra.file = a;
        } else {
            *error = "unexpected argument \"" + printable(a) + "\"";
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

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", share * 100.0);
    return buf;
}

// Forked children are named PARENT.N (PARENT.N.M for theirs): the root is the longest task of
// the scenario's own list whose name, followed by '.', starts the child's name.
std::string forkRoot(const std::string& name, const std::set<std::string>& listed)
{
    std::string best;
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
        if (listed.contains(name.substr(0, dot)))
            best = name.substr(0, dot);
    if (!best.empty())
        return best;
    const size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

std::set<std::string> listedTasks(const Metrics& m)
{
    std::set<std::string> names;
    for (const auto& t : m.tasks)
        if (!t.forked)
            names.insert(t.name);
    return names;
}

// "a, b, c and 4 more": names of a folded line, at most @p max of them.
std::string nameList(const std::vector<std::string>& names, size_t max = 6)
{
    std::string out;
    for (size_t i = 0; i < names.size() && i < max; ++i) {
        if (i)
            out += ", ";
        out += printable(names[i]);
    }
    if (names.size() > max)
        out += " and " + std::to_string(names.size() - max) + " more";
    return out;
}

struct FindingSummary
{
    int count = 0;
    const Finding* worst = nullptr;
};

std::map<std::string, FindingSummary> findingsByKind(const Metrics& m)
{
    std::map<std::string, FindingSummary> kinds;
    for (const auto& f : m.findings) {
        FindingSummary& k = kinds[f.kind];
        ++k.count;
        if (!k.worst || f.durationNs > k.worst->durationNs)
            k.worst = &f;
    }
    return kinds;
}

void printFinding(const Finding& f, std::ostream& out)
{
    out << printable(f.task) << " cpu" << f.cpu << " from "
        << formatDurationHuman(Nanoseconds(f.fromNs)) << " for "
        << formatDurationHuman(Nanoseconds(f.durationNs));
    if (!f.detail.empty())
        out << " " << printable(f.detail);
}

// An rt-app import that dropped sync events (its kDroppedNote annotation) is named in
// the summary with the threads affected and, of their tasks, those that never switched in.
void printImportNotes(const Scenario& scenario, const Metrics& m, std::ostream& out)
{
    for (const auto& [thread, events] : rtapp::droppedSyncThreads(scenario)) {
        std::vector<std::string> never, noTime;
        for (const auto& t : m.tasks)
            if (rtapp::taskOfThread(t.name, thread) && t.cpuTimeNs == 0)
                (t.switches == 0 ? never : noTime).push_back(t.name);
        out << "import: rt-app " << printable(events) << " of " << printable(thread)
            << " dropped (not modelled: it does not wait there)";
        if (!never.empty())
            out << "; never ran: " << nameList(never);
        if (!noTime.empty())
            out << "; switched in but no CPU time: " << nameList(noTime);
        out << "\n";
    }
}

// The summary of a run. Folded unless @p all: forked children per parent (count, CPU, worst
// wait), tasks that never ran in one line, findings per kind (count and the worst).
void printSummary(const Metrics& m, std::ostream& out, bool all)
{
    out << "scenario " << printable(m.scenario) << ", profile " << m.profile << ", "
        << formatDuration(Nanoseconds(m.durationNs)) << " simulated, " << m.run.events
        << " events, " << m.run.contextSwitches << " context switches\n";
    struct Line
    {
        std::string name, cgroup;
        int64_t cpu = 0;
        double share = 0;
        int64_t waitMax = 0;
        std::string waitP99;
        int64_t switches = 0;
    };
    std::vector<Line> lines;
    const std::set<std::string> listed = listedTasks(m);
    std::map<std::string, Line> forks;
    std::map<std::string, int> forkCount;
    std::vector<std::string> idle;   ///< never switched in
    std::vector<std::string> noTime; ///< switched in, no CPU time: not "never ran"
    for (const auto& t : m.tasks) {
        if (!all && t.forked) {
            const std::string root = forkRoot(t.name, listed);
            Line& f = forks[root];
            ++forkCount[root];
            f.cgroup = printable(t.cgroup);
            f.cpu += t.cpuTimeNs;
            f.share += t.share;
            f.waitMax = std::max(f.waitMax, t.waitMaxNs);
            f.switches += t.switches;
        }
    }
    // Each parent's folded children right below it; those of parents not shown at the end.
    auto forkLine = [&](const std::string& root) {
        Line f = forks.at(root);
        f.name = printable(root) + ".* (" + std::to_string(forkCount[root]) + " forked)";
        f.waitP99 = "-";
        lines.push_back(f);
        forks.erase(root);
    };
    for (const auto& t : m.tasks) {
        if (!all && t.forked)
            continue;
        if (!all && t.cpuTimeNs == 0) {
            // Never switched in, or switched in without a measurable nanosecond of CPU time.
            (t.switches == 0 ? idle : noTime).push_back(t.name);
            continue;
        }
        lines.push_back({printable(t.name), printable(t.cgroup), t.cpuTimeNs, t.share, t.waitMaxNs,
            formatDurationHuman(Nanoseconds(t.waitP99Ns)), t.switches});
        if (forks.contains(t.name))
            forkLine(t.name);
    }
    while (!forks.empty())
        forkLine(forks.begin()->first);
    // At least the historical widths (22 and 14), wider when a name needs it: nothing is cut.
    size_t nameWidth = 20;
    size_t groupWidth = 12;
    for (const Line& l : lines) {
        nameWidth = std::max(nameWidth, l.name.size());
        groupWidth = std::max(groupWidth, l.cgroup.size());
    }
    nameWidth += 2;
    groupWidth += 2;
    out << std::left << std::setw(static_cast<int>(nameWidth)) << "task"
        << std::setw(static_cast<int>(groupWidth)) << "cgroup" << std::right << std::setw(12)
        << "cpu" << std::setw(9) << "share" << std::setw(14) << "wait max" << std::setw(14)
        << "wait p99" << std::setw(9) << "switches"
        << "\n";
    for (const Line& l : lines)
        out << std::left << std::setw(static_cast<int>(nameWidth)) << l.name
            << std::setw(static_cast<int>(groupWidth)) << l.cgroup << std::right << std::setw(12)
            << formatDurationHuman(Nanoseconds(l.cpu)) << std::setw(9) << percent(l.share)
            << std::setw(14) << formatDurationHuman(Nanoseconds(l.waitMax)) << std::setw(14)
            << l.waitP99 << std::setw(9) << l.switches << "\n";
    if (!idle.empty())
        out << "never ran: " << idle.size() << (idle.size() == 1 ? " task (" : " tasks (")
            << nameList(idle) << ")\n";
    if (!noTime.empty())
        out << "switched in but no CPU time: " << noTime.size()
            << (noTime.size() == 1 ? " task (" : " tasks (") << nameList(noTime) << ")\n";
    for (const auto& t : m.tasks)
        if (t.lockWaitNs && (all || !t.forked))
            out << "lock wait " << printable(t.name) << ": "
                << formatDurationHuman(Nanoseconds(*t.lockWaitNs)) << "\n";
    for (const auto& g : m.cgroups)
        if (g.nrPeriods) // cpu.stat of a group with a finite cpu.max
            out << "cgroup " << printable(g.path) << ": cpu "
                << formatDurationHuman(Nanoseconds(g.cpuTimeNs)) << ", throttled "
                << formatDurationHuman(Nanoseconds(g.throttledNs)) << " (nr_periods "
                << *g.nrPeriods << ", nr_throttled " << g.nrThrottled.value_or(0) << ")\n";
    // Why tasks moved: the machine's migrations by reason (per task with --all).
    std::map<std::string, int64_t> byReason;
    for (const auto& t : m.tasks) {
        for (const auto& [reason, count] : t.migrationsByReason)
            byReason[reason] += count;
        if (all && !t.migrationsByReason.empty()) {
            out << "migrations " << printable(t.name) << ":";
            for (const auto& [reason, count] : t.migrationsByReason)
                out << " " << reason << " " << count;
            out << "\n";
        }
    }
    if (!all && !byReason.empty()) {
        out << "migrations:";
        for (const auto& [reason, count] : byReason)
            out << " " << reason << " " << count;
        out << "\n";
    }
    for (const auto& p : m.probes)
        out << "probe " << printable(p.name) << ": "
            << (p.latencyNs ? formatDurationHuman(Nanoseconds(*p.latencyNs)) : "not finished")
            << "\n";
    if (all) {
        for (const auto& f : m.findings) {
            out << "finding " << f.kind << ": ";
            printFinding(f, out);
            out << "\n";
        }
        return;
    }
    for (const auto& [kind, k] : findingsByKind(m)) {
        out << "findings " << kind << ": " << k.count << ", worst ";
        printFinding(*k.worst, out);
        out << "\n";
    }
}

bool hasStarvation(const Metrics& m)
{
    for (const auto& f : m.findings)
        if (f.kind == "starvation")
            return true;
    return false;
}

int cmdValidate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.size() < 2) {
        err << "validate: missing FILE\n";
        return kExitBadInput;
    }
    int rc = kExitOk;
    for (size_t i = 1; i < args.size(); ++i) {
        LoadResult result = loadScenarioFile(args[i]);
        for (const auto& e : result.errors)
            err << e << "\n";
        for (const auto& n : result.notices)
            err << n << "\n";
        if (!result.ok())
            rc = kExitBadInput;
        else
            out << args[i] << ": ok\n";
    }
    return rc;
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

// --entities: a name without wildcards must be a task or cgroup of the scenario (or a forked
// child of a task, PARENT.N…); patterns with wildcards are checked after the run
// (anyNameMatches), against every task the run forked.
bool checkEntityNames(const EntitySelection& only, const Scenario& scenario, std::string* error)
{
    std::vector<std::string> tasks, groups{"/"};
    for (const auto& t : scenario.tasks)
        for (int i = 1; i <= t.count.value_or(1); ++i)
            tasks.push_back(t.count ? t.name + "-" + std::to_string(i) : t.name);
    for (const auto& g : scenario.cgroups)
        for (int i = 1; i <= g.count.value_or(1); ++i)
            groups.push_back(g.count ? g.path + "-" + std::to_string(i) : g.path);
    for (const auto& p : only.patternList()) {
        if (EntitySelection::isGlob(p))
            continue;
        const bool listed = std::find(tasks.begin(), tasks.end(), p) != tasks.end()
            || std::find(groups.begin(), groups.end(), p) != groups.end()
            || std::any_of(tasks.begin(), tasks.end(),
                [&](const std::string& t) { return p.starts_with(t + "."); });
        if (!listed) {
            *error = "no task or cgroup \"" + printable(p) + "\" in the scenario (tasks: "
                + nameList(tasks, 12) + "; cgroups: " + nameList(groups, 12) + ")";
            return false;
        }
    }
    return true;
}

bool anyNameMatches(const std::string& pattern, const Recording& rec)
{
    const EntitySelection one = EntitySelection::patterns({pattern});
    return std::any_of(rec.taskNames.begin(), rec.taskNames.end(),
               [&](const std::string& n) { return one.matchesName(n); })
        || std::any_of(rec.groupPaths.begin(), rec.groupPaths.end(),
            [&](const std::string& n) { return one.matchesName(n); });
}

int cmdRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    RunArgs ra;
    std::string error;
    if (!parseRunArgs(args, 1, ra, &error) || !checkRunOutputs(ra, {ra.file}, &error)) {
        err << "run: " << error << "\n";
        return kExitBadInput;
    }
    auto scenario = loadOrReport(ra.file, err);
    if (!scenario)
        return kExitBadInput;
    try {
        Simulation sim(*scenario, ra.options);
        std::optional<EntitySelection> only;
        if (!ra.entities.empty()) {
            only = EntitySelection::parse(ra.entities, &error);
            if (!checkEntityNames(*only, *scenario, &error)) {
                err << "run: --entities: " << error << "\n";
                return kExitBadInput;
            }
        }
        // The exports are written while the simulation runs: the recording is streamed to them
        // (or dropped when there is none) instead of being kept, so memory does not grow with
        // the run (docs/exports.md). Metrics do not use the recording.
        ExportWindow window;
        if (ra.exportFrom)
            window.from = *ra.exportFrom;
        if (ra.exportTo)
            window.to = *ra.exportTo;
        const EntitySelection selection = only ? *only : EntitySelection();
        // Every output is opened before the run (a file that cannot be created costs nothing)
        // and committed together after it (OutputSet): a failed one leaves every old file.
        OutputSet outputs(out);
        std::vector<std::unique_ptr<ExportWriter>> writers;
        ExportFanout fanout;
        auto open = [&](const std::string& path) -> std::ostream& { return outputs.open(path); };
        std::ostream* metricsStream = ra.metricsOut.empty() ? nullptr : &open(ra.metricsOut);
        if (!ra.recordsOut.empty())
            writers.push_back(
                std::make_unique<RecordsTextWriter>(open(ra.recordsOut), window, selection));
        if (!ra.traceOut.empty())
            writers.push_back(std::make_unique<ChromeTraceWriter>(
                open(ra.traceOut), window, selection, scenario->name));
        if (!ra.csvDir.empty()) {
            std::error_code ec;
            std::filesystem::create_directory(ra.csvDir, ec);
            const std::string dir = ra.csvDir + "/";
            writers.push_back(
                std::make_unique<SamplesCsvWriter>(open(dir + "samples.csv"), window, selection));
            writers.push_back(
                std::make_unique<SlicesCsvWriter>(open(dir + "slices.csv"), window, selection));
        }
        if (const std::string e = outputs.openError(); !e.empty()) {
            err << "run: " << printable(e) << "\n";
            return kExitBadInput;
        }
        for (const auto& w : writers)
            fanout.add(w.get());
        sim.streamRecording(fanout.empty() ? nullptr : &fanout);
        runWithProgress(sim, err, "");
        sim.flushRecording();
        fanout.finish(sim.recording(), sim.now());
        const Metrics m = sim.metrics();
        if (only)
            for (const auto& p : only->patternList())
                if (!anyNameMatches(p, sim.recording())) {
                    err << "run: --entities: \"" << printable(p)
                        << "\" matched no task or cgroup of the run; nothing written\n";
                    return kExitBadInput;
                }
        if (metricsStream)
            *metricsStream << metricsToJson(m);
        if (!outputs.commit(err))
            return kExitBadInput;
        if (!ra.quiet && ra.metricsOut != "-" && ra.recordsOut != "-" && ra.traceOut != "-") {
            printSummary(m, out, ra.all);
            printImportNotes(*scenario, m, out);
        }
        if (const int rc = runProblems(sim, err); rc != kExitOk)
            return rc;
        if (ra.failOnStarvation && hasStarvation(m))
            return kExitFindings;
    } catch (const std::invalid_argument& e) {
        err << printable(ra.file) << ": " << printable(e.what()) << "\n";
        return kExitBadInput;
    } catch (const std::runtime_error& e) { // a temporary file of an export
        err << "run: " << printable(e.what()) << "\n";
        return kExitBadInput;
    }
    return kExitOk;
}

// import-rtapp IN [--out OUT] [--cpus N] [--name NAME] / export-rtapp FILE [--out OUT].
int cmdRtApp(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const std::string& cmd = args.front();
    const bool import = cmd == "import-rtapp";
    std::string in;
    std::string outPath = "-";
    rtapp::ImportOptions options;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--out" && hasValue) {
            outPath = args[++i];
        } else if (import && a == "--name" && hasValue) {
            options.name = args[++i];
        } else if (import && a == "--cpus" && hasValue) {
            uint64_t n = 0;
            if (!parseSeed(args[++i], n) || n == 0 || n > ScenarioLimits::maxCpus) {
                err << cmd << ": --cpus expects 1…" << ScenarioLimits::maxCpus << ", got \""
                    << printable(args[i]) << "\"\n";
                return kExitBadInput;
            }
            options.cpus = static_cast<int>(n);
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            err << cmd << ": unknown option or missing value: " << printable(a)
                << " (see --help)\n";
            return kExitBadInput;
        } else if (in.empty()) {
            in = a;
        } else {
            err << cmd << ": unexpected argument \"" << printable(a) << "\"\n";
            return kExitBadInput;
        }
    }
    if (in.empty()) {
        err << cmd << ": missing input FILE\n";
        return kExitBadInput;
    }
    std::string error;
    if (!checkOutputs({{"--out", outPath}}, {in}, &error)) {
        err << cmd << ": " << error << "\n";
        return kExitBadInput;
    }
    if (import) {
        const rtapp::ImportResult r = rtapp::importRtAppFile(in, options);
        for (const auto& e : r.errors)
            err << "error: " << printable(e) << "\n";
        for (const auto& w : r.warnings)
            err << "warning: " << printable(w) << "\n";
        if (!r.ok())
            return kExitBadInput;
        return writeText(outPath, writeScenario(*r.scenario), out, err) ? kExitOk : kExitBadInput;
    }
    auto scenario = loadOrReport(in, err);
    if (!scenario)
        return kExitBadInput;
    const rtapp::ExportResult r = rtapp::exportRtApp(*scenario);
    for (const auto& e : r.errors)
        err << "error: " << printable(in) << ": " << printable(e) << "\n";
    for (const auto& w : r.warnings)
        err << "warning: " << printable(in) << ": " << printable(w) << "\n";
    if (!r.ok())
        return kExitBadInput;
    return writeText(outPath, r.json, out, err) ? kExitOk : kExitBadInput;
}

// The compare table: rows are tasks (forked children folded per parent), cgroups, probes, CPUs
// and findings per kind; columns are runs. Unless @p all, only rows that differ between runs are
// printed, and tasks that never ran and cgroups that never had CPU time are one line each.
// @p absent (per run, per cgroup; may be shorter): the run knows nothing of that cgroup (a real
// trace without it), shown as "n/a" rather than as 0.
void printComparison(const std::vector<std::string>& names, const std::vector<Metrics>& results,
    bool all, std::ostream& out, const std::vector<std::vector<bool>>& absent = {})
{
    struct Row
    {
        std::string label;
        std::vector<std::string> cells;
    };
    std::vector<Row> rows;
    auto add = [&](const std::string& label, auto cell) {
        Row r{label, {}};
        for (const auto& m : results)
            r.cells.push_back(cell(m));
        rows.push_back(std::move(r));
    };
    auto dur = [](int64_t ns) { return formatDurationHuman(Nanoseconds(ns)); };

    // Tasks listed by the scenario (in the first run's order, then any other run's).
    std::vector<std::string> order;
    std::set<std::string> listed;
    for (const auto& m : results)
        for (const auto& t : m.tasks)
            if (!t.forked && listed.insert(t.name).second)
                order.push_back(t.name);
    auto find = [](const Metrics& m, const std::string& name) -> const TaskMetrics* {
        for (const auto& tm : m.tasks)
            if (tm.name == name)
                return &tm;
        return nullptr;
    };
    std::vector<std::string> idle;
    for (const auto& name : order) {
        const bool ran = std::any_of(results.begin(), results.end(), [&](const Metrics& m) {
            const auto* tm = find(m, name);
            return tm && tm->cpuTimeNs > 0;
        });
        if (!ran && !all) {
            idle.push_back(name);
            continue;
        }
        auto cell = [&](auto get) {
            return [&, get](const Metrics& m) {
                const auto* tm = find(m, name);
                return tm ? get(*tm) : std::string("-");
            };
        };
        add(name + " share", cell([](const TaskMetrics& t) { return percent(t.share); }));
        add(name + " wait p99", cell([&](const TaskMetrics& t) { return dur(t.waitP99Ns); }));
        add(name + " wait max", cell([&](const TaskMetrics& t) { return dur(t.waitMaxNs); }));
        if (std::any_of(results.begin(), results.end(), [&](const Metrics& m) {
                const auto* tm = find(m, name);
                return tm && tm->lockWaitNs;
            }))
            add(name + " lock wait", cell([&](const TaskMetrics& t) {
                return t.lockWaitNs ? dur(*t.lockWaitNs) : std::string("-");
            }));
    }
    // Forked children, per parent: how many, their CPU time, the worst wait of any.
    std::set<std::string> roots;
    for (const auto& m : results)
        for (const auto& t : m.tasks)
            if (t.forked)
                roots.insert(forkRoot(t.name, listed));
    for (const auto& root : roots) {
        auto fold = [&, root](const Metrics& m, int what) {
            int64_t count = 0, cpu = 0, wait = 0;
            for (const auto& t : m.tasks)
                if (t.forked && forkRoot(t.name, listed) == root) {
                    ++count;
                    cpu += t.cpuTimeNs;
                    wait = std::max(wait, t.waitMaxNs);
                }
            return what == 0 ? std::to_string(count) : dur(what == 1 ? cpu : wait);
        };
        add(root + ".* forked", [&](const Metrics& m) { return fold(m, 0); });
        add(root + ".* cpu", [&](const Metrics& m) { return fold(m, 1); });
        add(root + ".* wait max", [&](const Metrics& m) { return fold(m, 2); });
    }
    std::vector<std::string> emptyGroups;
    const auto& groups = results.front().cgroups;
    for (size_t g = 0; g < groups.size(); ++g) {
        const bool used = std::any_of(results.begin(), results.end(),
            [&](const Metrics& m) { return g < m.cgroups.size() && m.cgroups[g].cpuTimeNs > 0; });
        if (!used && !all) {
            emptyGroups.push_back(groups[g].path);
            continue;
        }
        auto isAbsent = [&](const Metrics& m) {
            const auto run = static_cast<size_t>(&m - results.data());
            return run < absent.size() && g < absent[run].size() && absent[run][g];
        };
        add("cgroup " + groups[g].path + " cpu", [&](const Metrics& m) {
            if (isAbsent(m))
                return std::string("n/a");
            return g < m.cgroups.size() ? dur(m.cgroups[g].cpuTimeNs) : std::string("-");
        });
        if (std::none_of(results.begin(), results.end(),
                [&](const Metrics& m) { return g < m.cgroups.size() && m.cgroups[g].nrPeriods; }))
            continue; // never limited: no cpu.stat rows
        add("cgroup " + groups[g].path + " throttled", [&](const Metrics& m) {
            if (isAbsent(m))
                return std::string("n/a");
            return g < m.cgroups.size() ? dur(m.cgroups[g].throttledNs) : std::string("-");
        });
        add("cgroup " + groups[g].path + " nr_throttled", [&](const Metrics& m) {
            if (isAbsent(m))
                return std::string("n/a");
            return g < m.cgroups.size() && m.cgroups[g].nrThrottled
                ? std::to_string(*m.cgroups[g].nrThrottled)
                : std::string("-");
        });
    }
    for (size_t p = 0; p < results.front().probes.size(); ++p)
        add("probe " + results.front().probes[p].name, [&](const Metrics& m) {
            if (p >= m.probes.size() || !m.probes[p].latencyNs)
                return std::string("not finished");
            return dur(*m.probes[p].latencyNs);
        });
    // Core scheduling: forced-idle time of each CPU, when some run had any.
    for (size_t c = 0; c < results.front().cpus.size(); ++c)
        if (std::any_of(results.begin(), results.end(),
                [&](const Metrics& m) { return c < m.cpus.size() && m.cpus[c].forcedIdleNs > 0; }))
            add("cpu " + std::to_string(results.front().cpus[c].cpu) + " forced idle",
                [&](const Metrics& m) {
                    return c < m.cpus.size() ? dur(m.cpus[c].forcedIdleNs) : std::string("-");
                });
    // Findings per kind: how many, and the longest.
    std::set<std::string> kinds{"starvation"};
    for (const auto& m : results)
        for (const auto& f : m.findings)
            kinds.insert(f.kind);
    for (const auto& kind : kinds) {
        add("findings " + kind, [&](const Metrics& m) {
            const auto k = findingsByKind(m);
            return std::to_string(k.contains(kind) ? k.at(kind).count : 0);
        });
        add("findings " + kind + " worst", [&](const Metrics& m) {
            const auto k = findingsByKind(m);
            return k.contains(kind) ? dur(k.at(kind).worst->durationNs) : std::string("-");
        });
    }

    size_t hidden = 0;
    std::vector<const Row*> shown;
    for (const auto& r : rows) {
        const bool same = std::all_of(
            r.cells.begin(), r.cells.end(), [&](const std::string& c) { return c == r.cells[0]; });
        if (same && !all)
            ++hidden;
        else
            shown.push_back(&r);
    }
    // Widths: nothing is cut. Variant names longer than 24 characters become A, B, … with a legend.
    size_t labelWidth = 6;
    for (const Row* r : shown)
        labelWidth = std::max(labelWidth, printable(r->label).size());
    bool legend = false;
    for (const auto& n : names)
        legend = legend || printable(n).size() > 24;
    std::vector<std::string> headers;
    for (size_t i = 0; i < names.size(); ++i)
        headers.push_back(legend ? std::string(1, static_cast<char>('A' + i % 26))
                    + (i >= 26 ? std::to_string(i / 26) : "")
                                 : printable(names[i]));
    std::vector<size_t> widths;
    for (size_t i = 0; i < names.size(); ++i) {
        size_t w = headers[i].size();
        for (const Row* r : shown)
            w = std::max(w, r->cells[i].size());
        widths.push_back(w + 2);
    }
    if (legend)
        for (size_t i = 0; i < names.size(); ++i)
            out << headers[i] << " = " << printable(names[i]) << "\n";
    out << std::left << std::setw(static_cast<int>(labelWidth)) << "metric";
    for (size_t i = 0; i < names.size(); ++i)
        out << std::right << std::setw(static_cast<int>(widths[i])) << headers[i];
    out << "\n";
    for (const Row* r : shown) {
        out << std::left << std::setw(static_cast<int>(labelWidth)) << printable(r->label);
        for (size_t i = 0; i < r->cells.size(); ++i)
            out << std::right << std::setw(static_cast<int>(widths[i])) << r->cells[i];
        out << "\n";
    }
    if (shown.empty())
        out << "(every run gave the same numbers)\n";
    if (!idle.empty())
        out << "never ran in any run: " << idle.size()
            << (idle.size() == 1 ? " task (" : " tasks (") << nameList(idle) << ")\n";
    if (!emptyGroups.empty())
        out << "no CPU time in any run: " << emptyGroups.size()
            << (emptyGroups.size() == 1 ? " cgroup (" : " cgroups (") << nameList(emptyGroups)
            << ")\n";
    if (hidden)
        out << hidden << (hidden == 1 ? " row" : " rows")
            << " equal in every run not shown (--all shows them)\n";
}

int cmdCompare(std::vector<std::string> args, std::ostream& out, std::ostream& err)
{
    RunArgs ra;
    std::string error;
    RealOptions real; // --real TRACE: a real kernel's run as the last column
    if (!takeRealOptions(args, real, &error) || !parseRunArgs(args, 1, ra, &error)
        || !checkRunOutputs(ra, {ra.file, real.trace, real.names}, &error)) {
        err << "compare: " << error << "\n";
        return kExitBadInput;
    }
    if (ra.variants.empty() && real.trace.empty()) {
        err << "compare: give at least one --variant SPEC or --real TRACE\n";
        return kExitBadInput;
    }
    auto scenario = loadOrReport(ra.file, err);
    if (!scenario)
        return kExitBadInput;
    std::vector<std::string> names{"as written"};
    std::vector<RunOptions> runs{ra.options};
    for (const auto& spec : ra.variants) {
        RunOptions o = ra.options;
        if (!applyVariant(spec, o, &error)) {
            err << "compare: --variant " << spec << ": " << error << "\n";
            return kExitBadInput;
        }
        names.push_back(spec);
        runs.push_back(o);
    }
    std::vector<Metrics> results;
    int problems = kExitOk;
    try {
        for (size_t i = 0; i < runs.size(); ++i) {
            Simulation sim(*scenario, runs[i]);
            runWithProgress(sim, err, names[i] + ": ");
            results.push_back(sim.metrics());
            std::ostringstream why;
            if (const int rc = runProblems(sim, why); rc != kExitOk) {
                err << "variant " << printable(names[i]) << ": " << why.str();
                problems = std::max(problems, rc);
            }
        }
    } catch (const std::invalid_argument& e) {
        err << printable(ra.file) << ": " << printable(e.what()) << "\n";
        return kExitBadInput;
    }
    std::vector<std::vector<bool>> absent(results.size());
    if (!real.trace.empty()) {
        Metrics metrics;
        absent.emplace_back();
        if (!importForCompare(real, results.front(), metrics, absent.back(), err))
            return kExitBadInput;
        names.push_back("real");
        results.push_back(std::move(metrics));
    }
    if (!ra.metricsOut.empty()) {
        std::string json = "{\n  \"runs\": [\n";
        for (size_t i = 0; i < results.size(); ++i) {
            Metrics present = results[i]; // cgroups a real trace knows nothing of are left out
            if (i < absent.size() && !absent[i].empty()) {
                present.cgroups.clear();
                for (size_t g = 0; g < results[i].cgroups.size(); ++g)
                    if (g >= absent[i].size() || !absent[i][g])
                        present.cgroups.push_back(results[i].cgroups[g]);
            }
            std::string m = metricsToJson(present);
            // Indent the nested object by 6 spaces.
            std::string indented;
            for (size_t p = 0; p < m.size(); ++p) {
                indented += m[p];
                if (m[p] == '\n' && p + 1 < m.size())
                    indented += "      ";
            }
            while (!indented.empty() && indented.back() == '\n')
                indented.pop_back();
            json += "    {\n      \"variant\": " + nlohmann::json(names[i]).dump()
                + ",\n      \"metrics\": " + indented + "\n    }"
                + (i + 1 < results.size() ? "," : "") + "\n";
        }
        json += "  ]\n}\n";
        if (!writeText(ra.metricsOut, json, out, err))
            return kExitBadInput;
    }
    if (ra.metricsOut == "-")
        return problems;
    printComparison(names, results, ra.all, out, absent);
    // A variant that changed nothing is explained from the model's records.
    for (size_t i = 1; i < runs.size(); ++i) {
        const auto rows = diffMetrics(results.front(), results[i]);
        if (std::any_of(rows.begin(), rows.end(),
                [](const MetricDiffRow& r) { return !r.delta() || *r.delta() != 0.0; }))
            continue;
        if (auto why = lesson::whyNothingChanged(*scenario, ra.options, names[i]))
            for (const std::string& line : why->lines)
                out << "why: " << printable(line) << "\n";
    }
    if (problems != kExitOk)
        return problems;
    if (ra.failOnStarvation)
        for (const auto& m : results)
            if (hasStarvation(m))
                return kExitFindings;
    return kExitOk;
}

} // namespace

int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty()) {
        printHelp(err);
        return kExitBadInput;
    }
    const std::string& cmd = args.front();
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        printHelp(out);
        return kExitOk;
    }
    if (cmd == "--version") {
        out << "schedlab-cli " SCHEDLAB_VERSION "\n";
        return kExitOk;
    }
    if (cmd == "validate")
        return cmdValidate(args, out, err);
    if (cmd == "run")
        return cmdRun(args, out, err);
    if (cmd == "compare")
        return cmdCompare(args, out, err);
    if (cmd == "import")
        return runImportCli(args, out, err);
    if (cmd == "import-rtapp" || cmd == "export-rtapp")
        return cmdRtApp(args, out, err);
    if (cmd == "sweep")
        return sweep::runSweepCli(args, out, err);
    if (cmd == "sweep-merge")
        return sweep::runSweepMergeCli(args, out, err);
    err << "unknown command \"" << cmd << "\" (see --help)\n";
    return kExitBadInput;
}

} // namespace schedlab
