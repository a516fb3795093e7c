// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli compare: one scenario under several variants (and a real-kernel trace), side by
// side.
#include "cli/commands.h"
#include "cli/importcli.h"
#include "cli/output.h"
#include "core/base/text.h"
#include "core/import/replay.h"
#include "core/kernel/variant.h"
#include "core/lesson/nochange.h"
#include "core/record/metricsdiff.h"
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

namespace schedlab::clicmd {

namespace {

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
        auto anyRun = [&](auto pred) {
            return std::any_of(results.begin(), results.end(), [&](const Metrics& m) {
                const auto* tm = find(m, name);
                return tm && pred(*tm);
            });
        };
        if (anyRun([](const TaskMetrics& t) { return t.migrations > 0; }))
            add(name + " migrations",
                cell([](const TaskMetrics& t) { return std::to_string(t.migrations); }));
        add(name + " longest run", cell([&](const TaskMetrics& t) { return dur(t.longestRunNs); }));
        // SCHED_DEADLINE jobs (kernel-model.md §15.8; a real trace's from its yield markers).
        if (anyRun([](const TaskMetrics& t) { return t.deadline.has_value(); })) {
            add(name + " dl jobs", cell([](const TaskMetrics& t) {
                return t.deadline ? std::to_string(t.deadline->jobs) : std::string("-");
            }));
            add(name + " dl worst response", cell([&](const TaskMetrics& t) {
                return t.deadline && t.deadline->jobs > 0 ? dur(t.deadline->worstResponseNs)
                                                          : std::string("-");
            }));
            add(name + " dl misses", cell([](const TaskMetrics& t) {
                return t.deadline ? std::to_string(t.deadline->misses) : std::string("-");
            }));
            add(name + " dl throttles", cell([](const TaskMetrics& t) {
                return t.deadline ? std::to_string(t.deadline->throttles) : std::string("-");
            }));
        }
        // Bug hunts (kernel-model.md §4.1): lag beyond vslice(slice + tick), samples and worst.
        if (anyRun([](const TaskMetrics& t) { return t.lagExcessSamples > 0; })) {
            add(name + " lag > slice+tick",
                cell([](const TaskMetrics& t) { return std::to_string(t.lagExcessSamples); }));
            add(name + " lag excess max",
                cell([&](const TaskMetrics& t) { return dur(t.lagExcessMaxNs) + " v"; }));
        }
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

} // namespace

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
    real.replayNames = replayTraceToModelNames(*scenario);
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
    if (!real.trace.empty() && !real.replayNames.empty()) {
        // A replay of the trace: how close each model run came to it, in one line.
        char line[256];
        for (size_t i = 0; i + 1 < results.size(); ++i) {
            const ReplayFidelity f = replayFidelity(results[i], results.back());
            std::snprintf(line, sizeof line,
                "fidelity %s: %d tasks, CPU-share error %.1f pp summed (max %.1f pp), wait "
                "p50 x%.2f, p99 x%.2f (model/real, geometric mean over %d tasks)",
                names[i].c_str(), f.tasks, f.shareErrorSumPp, f.shareErrorMaxPp, f.waitP50Ratio,
                f.waitP99Ratio, f.waitTasks);
            out << printable(line) << "\n";
        }
    }
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

} // namespace schedlab::clicmd
