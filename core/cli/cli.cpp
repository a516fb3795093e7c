// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"

#include "core/kernel/profile.h"
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace schedlab {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitBadInput = 2;

void printHelp(std::ostream& out)
{
    out << "schedlab-cli " SCHEDLAB_VERSION
           " - headless runs of the schedlab EEVDF scheduler model\n\n"
           "Usage:\n"
           "  schedlab-cli validate FILE...\n"
           "  schedlab-cli run FILE [options]\n"
           "  schedlab-cli compare FILE --variant SPEC [--variant SPEC]... [options]\n"
           "  schedlab-cli --help | --version\n\n"
           "Options of run and compare:\n"
           "  --profile NAME          kernel profile (see below)\n"
           "  --feature NAME|NO_NAME  toggle a sched feature, as in "
           "/sys/kernel/debug/sched/features\n"
           "  --override CHOICE=VAL   set one behaviour choice of the profile\n"
           "  --duration D            simulated time, e.g. 10s, 250ms\n"
           "  --seed N                PRNG seed (default: the scenario's)\n"
           "  --metrics OUT           metrics JSON to OUT ('-' = stdout)\n"
           "  --records OUT           the recording as text, one event per line ('-' = stdout)\n"
           "  --no-samples            do not record entity samples (smaller, faster)\n"
           "  --watchdog D            starvation threshold (default 1s)\n"
           "  --fail-on-starvation    exit 1 if the watchdog reported a starved task\n"
           "  --quiet                 no summary on stdout\n"
           "A compare SPEC is a comma-separated list of NAME/NO_NAME (feature), profile=NAME,\n"
           "seed=N and CHOICE=VALUE, e.g. --variant NO_PLACE_LAG --variant profile=6.12.\n\n"
           "Exit codes: 0 ok, 1 findings requested by --fail-on-starvation, 2 bad input.\n\n"
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
    std::vector<std::string> variants;
    bool quiet = false;
    bool failOnStarvation = false;
};

bool writeText(
    const std::string& path, const std::string& text, std::ostream& out, std::ostream& err)
{
    if (path == "-") {
        out << text;
        return true;
    }
    std::ofstream file(path, std::ios::binary);
    if (!file || !(file << text)) {
        err << path << ": cannot write\n";
        return false;
    }
    return true;
}

bool parseOverride(const std::string& spec, RunOptions& options, std::string* error)
{
    const auto eq = spec.find('=');
    if (eq == std::string::npos) {
        *error = "expected CHOICE=VALUE, got \"" + spec + "\"";
        return false;
    }
    const std::string name = spec.substr(0, eq);
    const std::string value = spec.substr(eq + 1);
    ProfileChoices probe;
    if (!applyChoice(probe, name, value, error))
        return false;
    options.overrides.emplace_back(name, value);
    return true;
}

bool parseFeature(const std::string& spec, RunOptions& options, std::string* error)
{
    FeatureSet probe;
    if (!probe.apply(spec, error))
        return false;
    options.features.push_back(spec);
    return true;
}

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
        if (a == "--profile") {
            if (!value(v))
                return false;
            if (!findProfile(v)) {
                *error = "unknown profile \"" + v + "\" (known: " + profileNameList() + ")";
                return false;
            }
            ra.options.profile = v;
        } else if (a == "--feature") {
            if (!value(v) || !parseFeature(v, ra.options, error))
                return false;
        } else if (a == "--override") {
            if (!value(v) || !parseOverride(v, ra.options, error))
                return false;
        } else if (a == "--duration" || a == "--watchdog") {
            if (!value(v))
                return false;
            auto d = parseDuration(v, error);
            if (!d)
                return false;
            if (a == "--duration")
                ra.options.duration = *d;
            else
                ra.options.watchdogThreshold = *d;
        } else if (a == "--seed") {
            if (!value(v))
                return false;
            try {
                size_t used = 0;
                ra.options.seed = std::stoull(v, &used);
                if (used != v.size())
                    throw std::invalid_argument(v);
            } catch (const std::exception&) {
                *error = "--seed expects a non-negative integer, got \"" + v + "\"";
                return false;
            }
        } else if (a == "--metrics") {
            if (!value(ra.metricsOut))
                return false;
        } else if (a == "--records") {
            if (!value(ra.recordsOut))
                return false;
        } else if (a == "--variant") {
            if (!value(v))
                return false;
            ra.variants.push_back(v);
        } else if (a == "--no-samples") {
            ra.options.recordSamples = false;
        } else if (a == "--quiet") {
            ra.quiet = true;
        } else if (a == "--fail-on-starvation") {
            ra.failOnStarvation = true;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            *error = "unknown option " + a + " (see --help)";
            return false;
        } else if (ra.file.empty()) {
            ra.file = a;
        } else {
            *error = "unexpected argument \"" + a + "\"";
            return false;
        }
    }
    if (ra.file.empty()) {
        *error = "missing scenario FILE";
        return false;
    }
    return true;
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

void printSummary(const Metrics& m, std::ostream& out)
{
    out << "scenario " << m.scenario << ", profile " << m.profile << ", "
        << formatDuration(Nanoseconds(m.durationNs)) << " simulated, " << m.run.events
        << " events, " << m.run.contextSwitches << " context switches\n";
    out << std::left << std::setw(22) << "task" << std::setw(14) << "cgroup" << std::right
        << std::setw(12) << "cpu" << std::setw(9) << "share" << std::setw(14) << "wait max"
        << std::setw(14) << "wait p99" << std::setw(9) << "switches"
        << "\n";
    int64_t forkedCount = 0;
    int64_t forkedCpu = 0;
    for (const auto& t : m.tasks) {
        if (t.forked) {
            ++forkedCount;
            forkedCpu += t.cpuTimeNs;
            continue;
        }
        out << std::left << std::setw(22) << t.name << std::setw(14) << t.cgroup << std::right
            << std::setw(12) << formatDurationHuman(Nanoseconds(t.cpuTimeNs)) << std::setw(9)
            << percent(t.share) << std::setw(14) << formatDurationHuman(Nanoseconds(t.waitMaxNs))
            << std::setw(14) << formatDurationHuman(Nanoseconds(t.waitP99Ns)) << std::setw(9)
            << t.switches << "\n";
    }
    if (forkedCount)
        out << "(+ " << forkedCount << " forked tasks, "
            << formatDurationHuman(Nanoseconds(forkedCpu)) << " of CPU in all)\n";
    for (const auto& p : m.probes)
        out << "probe " << p.name << ": "
            << (p.latencyNs ? formatDurationHuman(Nanoseconds(*p.latencyNs)) : "not finished")
            << "\n";
    for (const auto& f : m.findings)
        out << "finding " << f.kind << ": " << f.task << " cpu" << f.cpu << " from "
            << formatDurationHuman(Nanoseconds(f.fromNs)) << " for "
            << formatDurationHuman(Nanoseconds(f.durationNs)) << " " << f.detail << "\n";
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

int cmdRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    RunArgs ra;
    std::string error;
    if (!parseRunArgs(args, 1, ra, &error)) {
        err << "run: " << error << "\n";
        return kExitBadInput;
    }
    auto scenario = loadOrReport(ra.file, err);
    if (!scenario)
        return kExitBadInput;
    try {
        Simulation sim(*scenario, ra.options);
        sim.run();
        const Metrics m = sim.metrics();
        if (!ra.metricsOut.empty() && !writeText(ra.metricsOut, metricsToJson(m), out, err))
            return kExitBadInput;
        if (!ra.recordsOut.empty()) {
            std::string text;
            const Recording& rec = sim.recording();
            for (const Record& r : rec.records())
                text += formatRecord(r, rec) + "\n";
            if (!writeText(ra.recordsOut, text, out, err))
                return kExitBadInput;
        }
        if (!ra.quiet && ra.metricsOut != "-" && ra.recordsOut != "-")
            printSummary(m, out);
        if (ra.failOnStarvation && hasStarvation(m))
            return kExitFindings;
    } catch (const std::invalid_argument& e) {
        err << ra.file << ": " << e.what() << "\n";
        return kExitBadInput;
    }
    return kExitOk;
}

// Applies one compare SPEC ("NO_PLACE_LAG,profile=6.12,seed=3,reweight=eevdf") on top of base.
bool applyVariant(const std::string& spec, RunOptions& options, std::string* error)
{
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos) {
            if (!parseFeature(item, options, error))
                return false;
        } else if (item.compare(0, eq, "profile") == 0) {
            const std::string name = item.substr(eq + 1);
            if (!findProfile(name)) {
                *error = "unknown profile \"" + name + "\" (known: " + profileNameList() + ")";
                return false;
            }
            options.profile = name;
        } else if (item.compare(0, eq, "seed") == 0) {
            try {
                options.seed = std::stoull(item.substr(eq + 1));
            } catch (const std::exception&) {
                *error = "seed expects a non-negative integer in \"" + item + "\"";
                return false;
            }
        } else if (!parseOverride(item, options, error)) {
            return false;
        }
    }
    return true;
}

int cmdCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    RunArgs ra;
    std::string error;
    if (!parseRunArgs(args, 1, ra, &error)) {
        err << "compare: " << error << "\n";
        return kExitBadInput;
    }
    if (ra.variants.empty()) {
        err << "compare: give at least one --variant SPEC\n";
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
    try {
        for (const auto& o : runs) {
            Simulation sim(*scenario, o);
            sim.run();
            results.push_back(sim.metrics());
        }
    } catch (const std::invalid_argument& e) {
        err << ra.file << ": " << e.what() << "\n";
        return kExitBadInput;
    }
    if (!ra.metricsOut.empty()) {
        std::string json = "{\n  \"runs\": [\n";
        for (size_t i = 0; i < results.size(); ++i) {
            std::string m = metricsToJson(results[i]);
            // Indent the nested object by 6 spaces.
            std::string indented;
            for (size_t p = 0; p < m.size(); ++p) {
                indented += m[p];
                if (m[p] == '\n' && p + 1 < m.size())
                    indented += "      ";
            }
            while (!indented.empty() && indented.back() == '\n')
                indented.pop_back();
            json += "    {\n      \"variant\": \"" + names[i] + "\",\n      \"metrics\": "
                + indented + "\n    }" + (i + 1 < results.size() ? "," : "") + "\n";
        }
        json += "  ]\n}\n";
        if (!writeText(ra.metricsOut, json, out, err))
            return kExitBadInput;
    }
    if (ra.metricsOut == "-")
        return kExitOk;
    // One table: rows are tasks, cgroups, probes, findings; columns are runs.
    const int w = 20;
    out << std::left << std::setw(34) << "metric";
    for (const auto& n : names)
        out << std::right << std::setw(w) << n.substr(0, w - 1);
    out << "\n";
    auto row = [&](const std::string& label, auto cell) {
        out << std::left << std::setw(34) << label.substr(0, 33);
        for (const auto& m : results)
            out << std::right << std::setw(w) << cell(m);
        out << "\n";
    };
    for (size_t t = 0; t < results.front().tasks.size(); ++t) {
        const std::string name = results.front().tasks[t].name;
        auto find = [&](const Metrics& m) -> const TaskMetrics* {
            for (const auto& tm : m.tasks)
                if (tm.name == name)
                    return &tm;
            return nullptr;
        };
        // Forked children usually differ between runs (their parents are listed); a child that
        // every run has (a fixed fork, e.g. core-sched-yield's yielder) gets its rows.
        if (results.front().tasks[t].forked
            && !std::all_of(
                results.begin(), results.end(), [&](const Metrics& m) { return find(m); }))
            continue;
        row(name + " share", [&](const Metrics& m) {
            const auto* tm = find(m);
            return tm ? percent(tm->share) : std::string("-");
        });
        row(name + " wait p99", [&](const Metrics& m) {
            const auto* tm = find(m);
            return tm ? formatDurationHuman(Nanoseconds(tm->waitP99Ns)) : std::string("-");
        });
        row(name + " wait max", [&](const Metrics& m) {
            const auto* tm = find(m);
            return tm ? formatDurationHuman(Nanoseconds(tm->waitMaxNs)) : std::string("-");
        });
    }
    for (size_t g = 0; g < results.front().cgroups.size(); ++g)
        row("cgroup " + results.front().cgroups[g].path + " cpu", [&](const Metrics& m) {
            return g < m.cgroups.size() ? formatDurationHuman(Nanoseconds(m.cgroups[g].cpuTimeNs))
                                        : std::string("-");
        });
    for (size_t p = 0; p < results.front().probes.size(); ++p)
        row("probe " + results.front().probes[p].name, [&](const Metrics& m) {
            if (p >= m.probes.size() || !m.probes[p].latencyNs)
                return std::string("not finished");
            return formatDurationHuman(Nanoseconds(*m.probes[p].latencyNs));
        });
    // Core scheduling: forced-idle time of each CPU, when some run had any.
    for (size_t c = 0; c < results.front().cpus.size(); ++c) {
        const bool any = std::any_of(results.begin(), results.end(),
            [&](const Metrics& m) { return c < m.cpus.size() && m.cpus[c].forcedIdleNs > 0; });
        if (any)
            row("cpu " + std::to_string(results.front().cpus[c].cpu) + " forced idle",
                [&](const Metrics& m) {
                    return c < m.cpus.size()
                        ? formatDurationHuman(Nanoseconds(m.cpus[c].forcedIdleNs))
                        : std::string("-");
                });
    }
    row("starvation findings", [&](const Metrics& m) {
        int n = 0;
        for (const auto& f : m.findings)
            n += f.kind == "starvation";
        return std::to_string(n);
    });
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
    err << "unknown command \"" << cmd << "\" (see --help)\n";
    return kExitBadInput;
}

} // namespace schedlab
