// SPDX-License-Identifier: GPL-2.0-or-later
#include "importcli.h"

#include "cli/output.h"
#include "core/base/args.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/import/ftrace.h"
#include "core/import/replay.h"
#include "core/kernel/profile.h"
#include "core/kernel/variant.h"
#include "core/scenario/scenarioio.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <optional>
#include <ostream>
#include <set>

namespace schedlab {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;

bool loadNames(const std::string& path, TraceNameMap& names, std::ostream& err)
{
    std::ifstream in(path);
    if (!in) {
        err << printable(path) << ": cannot open the name map\n";
        return false;
    }
    std::string error;
    if (!parseNameMap(in, path, names, &error)) {
        err << printable(error) << "\n";
        return false;
    }
    return true;
}

void report(const TraceImport& r, std::ostream& err)
{
    for (const auto& e : r.errors)
        err << printable(e) << "\n";
    for (const auto& w : r.warnings)
        err << "warning: " << printable(w) << "\n";
}

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", share * 100.0);
    return buf;
}

void printImportSummary(const TraceImport& r, std::ostream& out)
{
    const Metrics& m = r.metrics;
    out << "trace " << printable(m.scenario) << (r.kernel.empty() ? "" : ", kernel ")
        << printable(r.kernel) << ": " << formatDurationHuman(Nanoseconds(m.durationNs))
        << " traced on " << m.cpus.size() << " CPUs, " << r.events << " scheduler events, "
        << m.run.contextSwitches << " context switches\n";
    int64_t skipped = 0;
    for (const auto& [name, n] : r.unknownEvents)
        skipped += n;
    if (skipped) {
        out << "skipped " << skipped << " other events:";
        for (const auto& [name, n] : r.unknownEvents)
            out << " " << printable(name) << " " << n;
        out << "\n";
    }
    if (r.lostEvents)
        out << "the tracer lost " << r.lostEvents << " events\n";
    // Busiest tasks first (ties by name), so a system trace's hundred idle threads stay below.
    std::vector<const TaskMetrics*> tasks;
    for (const auto& t : m.tasks)
        tasks.push_back(&t);
    std::stable_sort(tasks.begin(), tasks.end(), [](const TaskMetrics* a, const TaskMetrics* b) {
        return a->cpuTimeNs != b->cpuTimeNs ? a->cpuTimeNs > b->cpuTimeNs : a->name < b->name;
    });
    out << std::left << std::setw(26) << "task" << std::setw(10) << "cgroup" << std::right
        << std::setw(12) << "cpu" << std::setw(9) << "share" << std::setw(14) << "wait max"
        << std::setw(14) << "wait p99" << std::setw(9) << "switches"
        << "\n";
    size_t shown = 0;
    for (const auto* t : tasks) {
        if (++shown > 40) {
            out << "(+ " << tasks.size() - 40 << " more tasks in --metrics)\n";
            break;
        }
        out << std::left << std::setw(26) << printable(t->name).substr(0, 25) << std::setw(10)
            << printable(t->cgroup.empty() ? "-" : t->cgroup) << std::right << std::setw(12)
            << formatDurationHuman(Nanoseconds(t->cpuTimeNs)) << std::setw(9) << percent(t->share)
            << std::setw(14) << formatDurationHuman(Nanoseconds(t->waitMaxNs)) << std::setw(14)
            << formatDurationHuman(Nanoseconds(t->waitP99Ns)) << std::setw(9) << t->switches
            << "\n";
    }
    for (const auto& c : m.cpus)
        out << "cpu" << c.cpu << " busy " << formatDurationHuman(Nanoseconds(c.busyNs)) << " ("
            << percent(m.durationNs > 0
                       ? static_cast<double>(c.busyNs) / static_cast<double>(m.durationNs)
                       : 0.0)
            << ")\n";
}

} // namespace

int runImportCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string trace;
    std::string namesFile;
    std::string metricsOut;
    std::string recordsOut;
    std::string scenarioOut;
    ReplayOptions replay;
    bool replayOption = false; // --wakeups, --cpus or --profile given
    bool quiet = false;
    ArgReader ar(args, 1);
    while (ar.next()) {
        auto value = [&](std::string& v) {
            if (!ar.value(v)) {
                err << "import: " << ar.error() << "\n";
                return false;
            }
            return true;
        };
        if (ar.option("--metrics")) {
            if (!value(metricsOut))
                return kExitBadInput;
        } else if (ar.option("--records")) {
            if (!value(recordsOut))
                return kExitBadInput;
        } else if (ar.option("--names")) {
            if (!value(namesFile))
                return kExitBadInput;
        } else if (ar.option("--scenario")) {
            if (!value(scenarioOut))
                return kExitBadInput;
        } else if (ar.option("--wakeups")) {
            std::string w;
            if (!value(w))
                return kExitBadInput;
            if (w != "chains" && w != "timed") {
                err << "import: --wakeups: expected chains or timed, got \"" << printable(w)
                    << "\"\n";
                return kExitBadInput;
            }
            replay.wakeups =
                w == "timed" ? ReplayOptions::Wakeups::Timed : ReplayOptions::Wakeups::Chains;
            replayOption = true;
        } else if (ar.option("--cpus")) {
            std::string c;
            if (!value(c))
                return kExitBadInput;
            uint64_t n = 0;
            if (!parseSeed(c, n) || n == 0 || n > ScenarioLimits::maxCpus) {
                err << "import: --cpus expects 1…" << ScenarioLimits::maxCpus << ", got \""
                    << printable(c) << "\"\n";
                return kExitBadInput;
            }
            replay.cpus = static_cast<int>(n);
            replayOption = true;
        } else if (ar.option("--profile")) {
            std::string p;
            if (!value(p))
                return kExitBadInput;
            if (!findProfile(p)) {
                err << "import: --profile: unknown profile \"" << printable(p)
                    << "\" (known: " << profileNameList() << ")\n";
                return kExitBadInput;
            }
            replay.profile = p;
            replayOption = true;
        } else if (ar.flag("--quiet")) {
            quiet = true;
        } else if (ar.isOption()) {
            err << "import: unknown option " << printable(ar.word()) << " (see --help)\n";
            return kExitBadInput;
        } else if (trace.empty()) {
            trace = ar.word();
        } else {
            err << "import: unexpected argument \"" << printable(ar.word()) << "\"\n";
            return kExitBadInput;
        }
    }
    if (trace.empty()) {
        err << "import: missing TRACE (ftrace text or trace-cmd report output)\n";
        return kExitBadInput;
    }
    if ((metricsOut == "-") + (recordsOut == "-") + (scenarioOut == "-") > 1) {
        err << "import: only one of --metrics, --records and --scenario can write to '-' "
               "(stdout)\n";
        return kExitBadInput;
    }
    if (replayOption && scenarioOut.empty()) {
        err << "import: --wakeups, --cpus and --profile shape the replay scenario: give "
               "--scenario OUT.json\n";
        return kExitBadInput;
    }
    std::string error;
    if (!checkOutputs(
            {{"--metrics", metricsOut}, {"--records", recordsOut}, {"--scenario", scenarioOut}},
            {trace, namesFile}, &error)) {
        err << "import: " << error << "\n";
        return kExitBadInput;
    }
    TraceNameMap names;
    if (!namesFile.empty() && !loadNames(namesFile, names, err))
        return kExitBadInput;
    const TraceImport r = importFtraceFile(trace, namesFile.empty() ? nullptr : &names);
    report(r, err);
    if (!r.ok())
        return kExitBadInput;
    // Both outputs or neither (OutputSet).
    OutputSet outputs(out);
    if (!metricsOut.empty())
        outputs.open(metricsOut) << metricsToJson(r.metrics);
    if (!recordsOut.empty()) {
        std::ostream& records = outputs.open(recordsOut);
        for (const Record& rec : r.recording.records())
            records << formatRecord(rec, r.recording) << "\n";
    }
    if (!scenarioOut.empty()) {
        const ReplayScenario derived = deriveScenario(r, replay);
        outputs.open(scenarioOut) << writeScenario(derived.scenario);
        err << "replay: " << derived.scenario.tasks.size() << " tasks ("
            << derived.traceNames.size() << " with forked ones), " << derived.chains
            << " wake chains, " << derived.timedSleeps << " timed sleeps, " << derived.forks
            << " forks; not in the trace:\n";
        for (const std::string& u : derived.unknowns)
            err << "  - " << printable(u) << "\n";
    }
    if (!outputs.commit(err))
        return kExitBadInput;
    if (!quiet && metricsOut != "-" && recordsOut != "-" && scenarioOut != "-")
        printImportSummary(r, out);
    return kExitOk;
}

bool takeRealOptions(std::vector<std::string>& args, RealOptions& options, std::string* error)
{
    std::vector<std::string> kept;
    ArgReader ar(args);
    bool endSeen = false;
    while (ar.next()) {
        if (ar.endOfOptions() && !endSeen) {
            kept.push_back("--"); // the words after it are the command's, not ours
            endSeen = true;
        }
        if (ar.flag("--force")) {
            options.force = true;
        } else if (ar.option("--real") || ar.option("--names") || ar.option("--replay")) {
            std::string& into = ar.option("--real") ? options.trace
                : ar.option("--names")              ? options.names
                                                    : options.replay;
            if (!ar.value(into)) {
                *error = ar.error();
                return false;
            }
        } else {
            kept.push_back(ar.word());
        }
    }
    args.swap(kept);
    return true;
}

bool importForCompare(const RealOptions& options, const Metrics& model, Metrics& real,
    std::vector<bool>& absent, std::ostream& err)
{
    TraceNameMap names;
    if (!options.names.empty() && !loadNames(options.names, names, err))
        return false;
    TraceImport r = importFtraceFile(options.trace, options.names.empty() ? nullptr : &names);
    report(r, err);
    if (!r.ok())
        return false;
    // Is it a run of this scenario? The runner's header says which and on how many CPUs.
    const std::string file = printable(options.trace);
    const int cpus = static_cast<int>(model.cpus.size());
    std::vector<std::string> mismatches;
    const bool replay = !options.replayNames.empty();
    if (replay)
        for (TaskMetrics& t : r.metrics.tasks)
            if (const auto it = options.replayNames.find(t.name); it != options.replayNames.end())
                t.name = it->second;
    if (!replay && !r.scenario.empty() && r.scenario != model.scenario)
        mismatches.push_back("the trace is a run of scenario \"" + printable(r.scenario)
            + "\" (its \"# schedlab-scenario:\" line), not of \"" + printable(model.scenario)
            + "\"");
    if (r.scenarioCpus > 0 && r.scenarioCpus != cpus)
        mismatches.push_back("the trace's run had " + std::to_string(r.scenarioCpus)
            + " CPUs (its \"# schedlab-cpus:\" line), the scenario has " + std::to_string(cpus));
    else if (r.scenarioCpus == 0 && r.machineCpus > 0 && r.machineCpus < cpus)
        mismatches.push_back("the traced machine had " + std::to_string(r.machineCpus)
            + " CPUs (the tracer's header), the scenario has " + std::to_string(cpus));
    for (const std::string& m : mismatches)
        err << (options.force ? "warning: " : "compare: ") << file << ": " << m
            << (options.force ? " (compared anyway: --force)\n" : "\n");
    if (!mismatches.empty() && !options.force) {
        err << "compare: " << file << ": not a run of this scenario; --force compares it anyway\n";
        return false;
    }
    if (r.scenario.empty() && !replay)
        err << "warning: " << file
            << ": the trace does not name its scenario (no \"# schedlab-scenario:\" line, as "
               "schedlab-run writes): not checked that it is a run of \""
            << printable(model.scenario) << "\"\n";
    real = std::move(r.metrics);
    // A trace does not say which tasks a scenario's fork operations made: a real task whose name
    // is a listed task's child (PARENT.N, as the runner's name map and the replay names give) is
    // folded with the model's forked children of that parent (the compare table's rows).
    std::set<std::string> listed;
    for (const TaskMetrics& t : model.tasks)
        if (!t.forked)
            listed.insert(t.name);
    for (TaskMetrics& t : real.tasks)
        if (!listed.contains(t.name) && listed.contains(forkRoot(t.name, listed)))
            t.forked = true;
    // compare's rows go by position: the real run's groups and probes in the model's order.
    std::vector<CgroupMetrics> groups;
    absent.clear();
    for (const auto& g : model.cgroups) {
        const auto it = std::find_if(real.cgroups.begin(), real.cgroups.end(),
            [&](const CgroupMetrics& c) { return c.path == g.path; });
        groups.push_back(it != real.cgroups.end() ? *it : CgroupMetrics{g.path, 0, 0, {}, {}});
        absent.push_back(it == real.cgroups.end());
    }
    real.cgroups = std::move(groups);
    real.probes.clear();
    for (const auto& p : model.probes) {
        ProbeMetrics pm{p.name, 0, std::nullopt};
        for (size_t i = 0; i < real.tasks.size(); ++i)
            if (real.tasks[i].name == p.name) {
                pm.spawnedAtNs = r.firstEventNs[i];
                if (real.tasks[i].exitedAtNs)
                    pm.latencyNs = *real.tasks[i].exitedAtNs - pm.spawnedAtNs;
            }
        real.probes.push_back(pm);
    }
    return true;
}

} // namespace schedlab
