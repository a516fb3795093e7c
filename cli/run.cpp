// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli run: one scenario, its outputs and its summary.
#include "cli/commands.h"
#include "cli/output.h"
#include "core/base/text.h"
#include "core/record/streamexport.h"
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

namespace schedlab::clicmd {

namespace {

std::set<std::string> listedTasks(const Metrics& m)
{
    std::set<std::string> names;
    for (const auto& t : m.tasks)
        if (!t.forked)
            names.insert(t.name);
    return names;
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
    std::map<std::string, int64_t> forkCount;
    std::vector<std::string> idle;   ///< never switched in
    std::vector<std::string> noTime; ///< switched in, no CPU time: not "never ran"
    for (const auto& t : m.tasks) {
        if (!all && t.forked) {
            // A row the run folded already (TaskMetrics::folded) is its root's tasks.
            const std::string root = t.folded ? t.name : forkRoot(t.name, listed);
            Line& f = forks[root];
            forkCount[root] += t.folded ? t.folded : 1;
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
    for (const auto& t : m.tasks)
        if (t.deadline && (all || !t.forked))
            out << "deadline " << printable(t.name) << " "
                << formatDurationHuman(Nanoseconds(t.deadline->runtimeNs)) << "/"
                << formatDurationHuman(Nanoseconds(t.deadline->deadlineNs)) << "/"
                << formatDurationHuman(Nanoseconds(t.deadline->periodNs))
                << (t.deadline->reclaim ? " reclaim" : "") << ": " << t.deadline->jobs << " jobs, "
                << t.deadline->misses << " missed, " << t.deadline->throttles
                << " throttled, worst response "
                << formatDurationHuman(Nanoseconds(t.deadline->worstResponseNs)) << "\n";
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

} // namespace

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", share * 100.0);
    return buf;
}

// "a, b, c and 4 more": names of a folded line, at most @p max of them.
std::string nameList(const std::vector<std::string>& names, size_t max)
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

bool hasStarvation(const Metrics& m)
{
    for (const auto& f : m.findings)
        if (f.kind == "starvation")
            return true;
    return false;
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
        if (!ra.csvDir.empty() || !ra.traceOut.empty())
            ra.options.recordPelt = true; // samples.csv's PELT columns, the trace's counters
        // Only the metrics file reads the lag-bound measure (lag_excess_*): without one the
        // samples are not checked against it.
        ra.options.lagBoundMetric = !ra.metricsOut.empty();
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
        // Nothing of run reads an exited task but its metrics row: a forked task is freed after
        // its exit, its row summarised, or folded into its root's line when only the summary
        // reads it (docs/limits.md, Memory).
        sim.releaseExitedTasks(ra.metricsOut.empty() && !ra.all);
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

} // namespace schedlab::clicmd
