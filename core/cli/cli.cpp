// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli.h"

#include "core/base/atomicfile.h"
#include "core/base/text.h"
#include "core/kernel/profile.h"
#include "core/record/metrics.h"
#include "core/record/traceexport.h"
#include "core/scenario/limits.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace schedlab {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitStopped = 3;   // a resource guard stopped the run (docs/limits.md)
constexpr int kExitInvariant = 4; // a checked build found a broken scheduler invariant

// Largest --duration and --watchdog: the longest scenario the loader accepts (docs/limits.md).
constexpr Nanoseconds kMaxRunDuration = ScenarioLimits::maxDuration;

void printHelp(std::ostream& out)
{
    out << "schedlab-cli " SCHEDLAB_VERSION
           " - headless runs of the schedlab EEVDF scheduler model\n\n"
           "Usage:\n"
           "  schedlab-cli validate FILE...\n"
           "  schedlab-cli run FILE [options]\n"
           "  schedlab-cli compare FILE --variant SPEC [--variant SPEC]... [options]\n"
           "  schedlab-cli capture FILE --from T --to T --out x.png|svg|pdf [--entities A,B]\n"
           "               [--size WxH] [--dpi N] [--title TEXT] [run options]\n"
           "               (WxH in pixels at 96 dpi; a PNG at --dpi N has WxH * N/96 pixels)\n"
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
           "  --trace OUT             Perfetto-compatible trace (Chrome trace-event JSON)\n"
           "  --csv DIR               DIR/samples.csv (entity samples), DIR/slices.csv (runs)\n"
           "  --no-samples            do not record entity samples (smaller, faster)\n"
           "  --watchdog D            starvation threshold (default 1s)\n"
           "  --fail-on-starvation    exit 1 if the watchdog reported a starved task\n"
           "  --quiet                 no summary on stdout\n"
           "  --limit NAME=N          a resource guard: events-per-second (1e9), live-tasks\n"
           "                          (100000), tasks (1000000, forked ones included),\n"
           "                          recording-bytes (1 GiB); a run that reaches one stops\n"
           "A compare SPEC is a comma-separated list of NAME/NO_NAME (feature), profile=NAME,\n"
           "seed=N and CHOICE=VALUE, e.g. --variant NO_PLACE_LAG --variant profile=6.12.\n\n"
           "Output files are written whole or not at all (a temporary file, then rename); the\n"
           "directory of every OUT must exist (--csv DIR is created if its parent exists).\n\n"
           "Exit codes: 0 ok, 1 findings requested by --fail-on-starvation, 2 bad input or an\n"
           "output that cannot be written, 3 a resource guard stopped the run early (events per\n"
           "simulated second, live tasks, recording size; the reason is on stderr), 4 a checked\n"
           "build found a broken scheduler invariant (listed on stderr).\n\n"
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
    std::vector<std::string> variants;
    bool quiet = false;
    bool failOnStarvation = false;
};

// One output file, written whole or not at all (AtomicFile); "-" is the standard output.
class Output
{
public:
    Output(const std::string& path, std::ostream& out)
    {
        if (path == "-")
            m_stdout = &out;
        else
            m_file.emplace(path);
    }
    std::ostream& stream() { return m_stdout ? *m_stdout : m_file->stream(); }
    bool commit(std::ostream& err)
    {
        if (m_stdout)
            return static_cast<bool>(m_stdout->flush());
        const std::string error = m_file->commit();
        if (!error.empty())
            err << error << "\n";
        return error.empty();
    }

private:
    std::ostream* m_stdout = nullptr;
    std::optional<AtomicFile> m_file;
};

bool writeText(
    const std::string& path, const std::string& text, std::ostream& out, std::ostream& err)
{
    Output o(path, out);
    o.stream() << text;
    return o.commit(err);
}

// Checked before a run, so a typo in an output path costs nothing: every OUT needs an existing
// directory and must not itself be a directory. --csv DIR may be created, if its parent exists.
bool checkOutputPath(
    const std::string& option, const std::string& path, bool isDir, std::string* error)
{
    namespace fs = std::filesystem;
    if (path.empty() || (path == "-" && !isDir))
        return true;
    fs::path p(path);
    if (isDir && !p.has_filename() && p.has_parent_path())
        p = p.parent_path(); // "out/" names the directory out
    std::error_code ec;
    fs::path dir = p.parent_path();
    if (isDir && fs::is_directory(p, ec))
        return true;
    if (dir.empty())
        dir = ".";
    if (!fs::is_directory(dir, ec)) {
        *error = option + " " + printable(path) + ": directory " + printable(dir.string())
            + " does not exist";
        return false;
    }
    if (fs::exists(p, ec) && (isDir || fs::is_directory(p, ec))) {
        *error = option + " " + printable(path) + ": "
            + (isDir ? "exists and is not a directory" : "is a directory");
        return false;
    }
    return true;
}

// A seed is a decimal integer in [0, 2^64); "-1" is not silently 2^64 - 1.
bool parseSeed(const std::string& text, uint64_t& seed)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0')
        return false;
    seed = v;
    return true;
}

// --limit NAME=N: one resource guard (docs/limits.md), lowered or raised within a sane range.
bool parseLimit(const std::string& spec, ResourceLimits& limits, std::string* error)
{
    struct Guard
    {
        const char* name;
        uint64_t max;
        void (*set)(ResourceLimits&, uint64_t);
    };
    static const Guard kGuards[] = {
        {"events-per-second", uint64_t{1} << 40,
            [](ResourceLimits& l, uint64_t v) { l.eventsPerSecond = v; }},
        {"live-tasks", 10'000'000,
            [](ResourceLimits& l, uint64_t v) { l.liveTasks = static_cast<int>(v); }},
        {"tasks", 100'000'000,
            [](ResourceLimits& l, uint64_t v) { l.createdTasks = static_cast<int>(v); }},
        {"recording-bytes", uint64_t{1} << 40,
            [](ResourceLimits& l, uint64_t v) { l.recordingBytes = v; }}};
    const auto eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    const auto guard = std::find_if(
        std::begin(kGuards), std::end(kGuards), [&](const Guard& g) { return name == g.name; });
    uint64_t v = 0;
    if (eq == std::string::npos || guard == std::end(kGuards) || !parseSeed(spec.substr(eq + 1), v)
        || v == 0 || v > guard->max) {
        *error = "--limit expects NAME=N with NAME one of events-per-second, live-tasks, tasks, "
                 "recording-bytes and 0 < N <= its maximum (docs/limits.md), got \""
            + printable(spec) + "\"";
        return false;
    }
    guard->set(limits, v);
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
            if (!d) {
                *error = a + " " + printable(v) + ": " + *error;
                return false;
            }
            if (*d <= Nanoseconds(0) || *d > kMaxRunDuration) {
                *error = a + " expects a duration in (0, " + formatDuration(kMaxRunDuration)
                    + "], got " + printable(v);
                return false;
            }
            if (a == "--duration")
                ra.options.duration = *d;
            else
                ra.options.watchdogThreshold = *d;
        } else if (a == "--seed") {
            if (!value(v))
                return false;
            uint64_t seed = 0;
            if (!parseSeed(v, seed)) {
                *error = "--seed expects an integer in [0, 18446744073709551615], got \""
                    + printable(v) + "\"";
                return false;
            }
            ra.options.seed = seed;
        } else if (a == "--limit") {
            if (!value(v) || !parseLimit(v, ra.options.limits, error))
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
    const int toStdout = (ra.metricsOut == "-") + (ra.recordsOut == "-") + (ra.traceOut == "-");
    if (toStdout > 1) {
        *error = "only one of --metrics, --records and --trace can write to '-' (stdout)";
        return false;
    }
    return checkOutputPath("--metrics", ra.metricsOut, false, error)
        && checkOutputPath("--records", ra.recordsOut, false, error)
        && checkOutputPath("--trace", ra.traceOut, false, error)
        && checkOutputPath("--csv", ra.csvDir, true, error);
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
    out << "scenario " << printable(m.scenario) << ", profile " << m.profile << ", "
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
        out << std::left << std::setw(22) << printable(t.name) << std::setw(14)
            << printable(t.cgroup) << std::right << std::setw(12)
            << formatDurationHuman(Nanoseconds(t.cpuTimeNs)) << std::setw(9) << percent(t.share)
            << std::setw(14) << formatDurationHuman(Nanoseconds(t.waitMaxNs)) << std::setw(14)
            << formatDurationHuman(Nanoseconds(t.waitP99Ns)) << std::setw(9) << t.switches << "\n";
    }
    if (forkedCount)
        out << "(+ " << forkedCount << " forked tasks, "
            << formatDurationHuman(Nanoseconds(forkedCpu)) << " of CPU in all)\n";
    for (const auto& t : m.tasks)
        if (t.lockWaitNs && !t.forked)
            out << "lock wait " << printable(t.name) << ": "
                << formatDurationHuman(Nanoseconds(*t.lockWaitNs)) << "\n";
    for (const auto& g : m.cgroups)
        if (g.nrPeriods) // cpu.stat of a group with a finite cpu.max
            out << "cgroup " << printable(g.path) << ": cpu "
                << formatDurationHuman(Nanoseconds(g.cpuTimeNs)) << ", throttled "
                << formatDurationHuman(Nanoseconds(g.throttledNs)) << " (nr_periods "
                << *g.nrPeriods << ", nr_throttled " << g.nrThrottled.value_or(0) << ")\n";
    for (const auto& p : m.probes)
        out << "probe " << printable(p.name) << ": "
            << (p.latencyNs ? formatDurationHuman(Nanoseconds(*p.latencyNs)) : "not finished")
            << "\n";
    for (const auto& f : m.findings)
        out << "finding " << f.kind << ": " << printable(f.task) << " cpu" << f.cpu << " from "
            << formatDurationHuman(Nanoseconds(f.fromNs)) << " for "
            << formatDurationHuman(Nanoseconds(f.durationNs)) << " " << printable(f.detail) << "\n";
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
        const Recording& rec = sim.recording();
        // Exports stream from the recording: none is built whole in memory.
        if (!ra.metricsOut.empty() && !writeText(ra.metricsOut, metricsToJson(m), out, err))
            return kExitBadInput;
        if (!ra.recordsOut.empty()) {
            Output o(ra.recordsOut, out);
            for (const Record& r : rec.records())
                o.stream() << formatRecord(r, rec) << '\n';
            if (!o.commit(err))
                return kExitBadInput;
        }
        if (!ra.traceOut.empty()) {
            Output o(ra.traceOut, out);
            writeChromeTrace(o.stream(), rec, Nanoseconds(0), sim.now(), {}, scenario->name);
            if (!o.commit(err))
                return kExitBadInput;
        }
        if (!ra.csvDir.empty()) {
            std::error_code ec;
            std::filesystem::create_directory(ra.csvDir, ec);
            const std::string dir = ra.csvDir + "/";
            Output samples(dir + "samples.csv", out);
            writeSamplesCsv(samples.stream(), rec, Nanoseconds(0), sim.now());
            if (!samples.commit(err))
                return kExitBadInput;
            Output slices(dir + "slices.csv", out);
            writeSlicesCsv(slices.stream(), rec, Nanoseconds(0), sim.now());
            if (!slices.commit(err))
                return kExitBadInput;
        }
        if (!ra.quiet && ra.metricsOut != "-" && ra.recordsOut != "-" && ra.traceOut != "-")
            printSummary(m, out);
        if (const int rc = runProblems(sim, err); rc != kExitOk)
            return rc;
        if (ra.failOnStarvation && hasStarvation(m))
            return kExitFindings;
    } catch (const std::invalid_argument& e) {
        err << printable(ra.file) << ": " << printable(e.what()) << "\n";
        return kExitBadInput;
    }
    return kExitOk;
}

} // namespace

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
            uint64_t seed = 0;
            if (!parseSeed(item.substr(eq + 1), seed)) {
                *error = "seed expects an integer in [0, 18446744073709551615] in \""
                    + printable(item) + "\"";
                return false;
            }
            options.seed = seed;
        } else if (!parseOverride(item, options, error)) {
            return false;
        }
    }
    return true;
}

namespace {

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
    int problems = kExitOk;
    try {
        for (size_t i = 0; i < runs.size(); ++i) {
            Simulation sim(*scenario, runs[i]);
            sim.run();
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
        return problems;
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
        if (std::any_of(results.begin(), results.end(), [&](const Metrics& m) {
                const auto* tm = find(m);
                return tm && tm->lockWaitNs;
            }))
            row(name + " lock wait", [&](const Metrics& m) {
                const auto* tm = find(m);
                return tm && tm->lockWaitNs ? formatDurationHuman(Nanoseconds(*tm->lockWaitNs))
                                            : std::string("-");
            });
    }
    for (size_t g = 0; g < results.front().cgroups.size(); ++g)
        row("cgroup " + results.front().cgroups[g].path + " cpu", [&](const Metrics& m) {
            return g < m.cgroups.size() ? formatDurationHuman(Nanoseconds(m.cgroups[g].cpuTimeNs))
                                        : std::string("-");
        });
    for (size_t g = 0; g < results.front().cgroups.size(); ++g) {
        if (std::none_of(results.begin(), results.end(),
                [&](const Metrics& m) { return g < m.cgroups.size() && m.cgroups[g].nrPeriods; }))
            continue; // never limited: no cpu.stat rows
        row("cgroup " + results.front().cgroups[g].path + " throttled", [&](const Metrics& m) {
            return g < m.cgroups.size() ? formatDurationHuman(Nanoseconds(m.cgroups[g].throttledNs))
                                        : std::string("-");
        });
        row("cgroup " + results.front().cgroups[g].path + " nr_throttled", [&](const Metrics& m) {
            return g < m.cgroups.size() && m.cgroups[g].nrThrottled
                ? std::to_string(*m.cgroups[g].nrThrottled)
                : std::string("-");
        });
    }
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
    err << "unknown command \"" << cmd << "\" (see --help)\n";
    return kExitBadInput;
}

} // namespace schedlab
