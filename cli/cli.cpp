// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli: the help, the dispatch of the commands, validate, import-rtapp and export-rtapp.
#include "cli.h"

#include "cli/commands.h"
#include "cli/importcli.h"
#include "cli/output.h"
#include "cli/sweep.h"
#include "core/base/args.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/kernel/variant.h"
#include "core/rtapp/rtapp.h"
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

namespace schedlab {

using namespace clicmd;

namespace {

void printHelp(std::ostream& out)
{
    out << "schedlab-cli " SCHEDLAB_VERSION
           " - headless runs of the schedlab EEVDF scheduler model\n\n"
           "Usage:\n"
           "  schedlab-cli validate FILE...\n"
           "  schedlab-cli run FILE [options]\n"
           "  schedlab-cli compare FILE --variant SPEC [--variant SPEC]... [options]\n"
           "  schedlab-cli compare FILE --real TRACE [--names MAP] [--force] [--replay REPLAY]\n"
           "      [--variant SPEC]... [options]\n"
           "  schedlab-cli import TRACE [--names MAP] [--metrics OUT] [--records OUT] [--quiet]\n"
           "               [--scenario OUT.json [--wakeups chains|timed] [--cpus N]\n"
           "               [--profile NAME]]  (a replay of the traced workload)\n"
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
           "  schedlab-cli --help | --version\n"
           "An option's value follows it (--out x.csv) or is joined with '=' (--out=x.csv);\n"
           "\"--\" ends the options (for a FILE whose name starts with '-').\n\n"
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
           "unless --force; cgroups the trace knows nothing of show as n/a. --replay REPLAY\n"
           "(the trace's own replay, from import --scenario) adds a column between the two:\n"
           "the model at the costs the run measured. import reads such\n"
           "a trace into the metrics of a run (docs/real-kernels.md); with --scenario it also\n"
           "writes a scenario that replays the traced workload: each task's runs, sleeps,\n"
           "forks and wake chains (who woke whom, as completions), what the trace cannot\n"
           "say listed in its description and on stderr (\"Replay your own trace\").\n\n"
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
    out << "  X.Y.Z  a point release (6.12.6, 6.6.3, 6.18.15 ...): the profile of its series with\n"
           "         the catalogued upstream fixes that release carries (kernel-model.md 1.4)\n";
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

// import-rtapp IN [--out OUT] [--cpus N] [--name NAME] / export-rtapp FILE [--out OUT].
int cmdRtApp(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const std::string& cmd = args.front();
    const bool import = cmd == "import-rtapp";
    std::string in;
    std::string outPath = "-";
    rtapp::ImportOptions options;
    ArgReader ar(args, 1);
    while (ar.next()) {
        std::string v;
        if ((ar.option("--out") || (import && (ar.option("--name") || ar.option("--cpus"))))
            && !ar.value(v)) {
            err << cmd << ": " << ar.error() << "\n";
            return kExitBadInput;
        }
        if (ar.option("--out")) {
            outPath = v;
        } else if (import && ar.option("--name")) {
            options.name = v;
        } else if (import && ar.option("--cpus")) {
            uint64_t n = 0;
            if (!parseSeed(v, n) || n == 0 || n > ScenarioLimits::maxCpus) {
                err << cmd << ": --cpus expects 1…" << ScenarioLimits::maxCpus << ", got \""
                    << printable(v) << "\"\n";
                return kExitBadInput;
            }
            options.cpus = static_cast<int>(n);
        } else if (ar.isOption()) {
            err << cmd << ": unknown option " << printable(ar.word()) << " (see --help)\n";
            return kExitBadInput;
        } else if (in.empty()) {
            in = ar.word();
        } else {
            err << cmd << ": unexpected argument \"" << printable(ar.word()) << "\"\n";
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
