// SPDX-License-Identifier: GPL-2.0-or-later
#include "sweep.h"

#include "cli/output.h"
#include "core/base/args.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/kernel/variant.h"
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace schedlab::sweep {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitStopped = 3;
constexpr int kExitInvariant = 4;

using Json = nlohmann::ordered_json; // keeps the scenario's key order

// Finding kinds with columns of their own (metrics.h); any other kind counts as "other".
const char* const kFindingKinds[] = {"starvation", "resource_limit", "invariant", "program_error",
    "failed_action", "irq_latency", "irqs_off", "other"};

std::optional<bool> onOff(const std::string& v)
{
    if (v == "on" || v == "true" || v == "1" || v == "yes")
        return true;
    if (v == "off" || v == "false" || v == "0" || v == "no")
        return false;
    return std::nullopt;
}

std::string jsonTypeName(const Json& j)
{
    if (j.is_object())
        return "an object";
    if (j.is_array())
        return "an array";
    if (j.is_string())
        return "a string";
    if (j.is_boolean())
        return "a boolean";
    if (j.is_null())
        return "null";
    return "a number";
}

} // namespace

bool splitValues(const std::string& text, std::vector<std::string>& values, std::string* error)
{
    values.clear();
    std::string cur;
    int depth = 0;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '\\' && i + 1 < text.size()) {
                cur += c;
                cur += text[++i];
                continue;
            }
            quoted = c != '"';
        } else if (c == '"') {
            quoted = true;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            if (--depth < 0)
                break;
        } else if (c == ',' && depth == 0) {
            values.push_back(cur);
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (quoted || depth != 0) {
        *error = "unbalanced quotes or brackets in \"" + printable(text) + "\"";
        return false;
    }
    values.push_back(cur);
    for (const auto& v : values)
        if (v.empty()) {
            *error = "empty value in \"" + printable(text) + "\" (expected V1,V2,…)";
            return false;
        }
    return true;
}

bool parseParam(const std::string& text, Param& param, std::string* error)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
        *error = "--param " + printable(text) + ": expected KEY=V1,V2,…";
        return false;
    }
    param.key = text.substr(0, eq);
    const std::string& key = param.key;
    std::string why;
    if (!splitValues(text.substr(eq + 1), param.values, &why)) {
        *error = "--param " + printable(key) + ": " + why;
        return false;
    }
    std::set<std::string> seen;
    for (const auto& v : param.values)
        if (!seen.insert(v).second) {
            *error =
                "--param " + printable(key) + ": value \"" + printable(v) + "\" is listed twice";
            return false;
        }
    if (key[0] == '/')
        param.kind = Param::Kind::Pointer;
    else if (key == "profile")
        param.kind = Param::Kind::Profile;
    else if (featureFromName(key))
        param.kind = Param::Kind::Feature;
    else if (key == "duration" || key == "watchdog")
        param.kind = Param::Kind::RunOption;
    else if (const auto names = choiceNames();
             std::find(names.begin(), names.end(), key) != names.end())
        param.kind = Param::Kind::Choice;
    else if (key == "seed") {
        *error =
            "--param seed: the seeds are a dimension of their own: --seeds N (and --seed S for "
            "the first)";
        return false;
    } else {
        *error = "--param " + printable(key)
            + ": unknown KEY (expected profile, a sched feature such as PLACE_LAG, a behaviour "
              "choice such as reweight, duration, watchdog, or a JSON pointer into the scenario "
              "starting with /; see schedlab-cli --help)";
        return false;
    }
    if (param.kind == Param::Kind::Pointer) {
        // A value is JSON text put into the scenario: it gets the scenario file's nesting bound
        // before anything parses or copies it (both recurse per level).
        for (const auto& v : param.values)
            if (jsonNestingTooDeep(v, ScenarioLimits::maxJsonDepth)) {
                *error = "--param " + printable(key) + ": a value is nested more than "
                    + std::to_string(ScenarioLimits::maxJsonDepth)
                    + " levels deep (arrays and objects), the limit of a scenario file";
                return false;
            }
        return true; // checked against the scenario (applyPointer)
    }
    for (const auto& v : param.values) {
        RunOptions probe;
        if (!applyToOptions(param, v, probe, &why)) {
            *error = "--param " + printable(key) + "=" + printable(v) + ": " + why;
            return false;
        }
    }
    return true;
}

bool applyToOptions(
    const Param& param, const std::string& value, RunOptions& options, std::string* error)
{
    switch (param.kind) {
    case Param::Kind::Profile:
        return applyVariant("profile=" + value, options, error);
    case Param::Kind::Feature: {
        const auto on = onOff(value);
        if (!on) {
            *error = "a feature is on or off, not \"" + printable(value) + "\"";
            return false;
        }
        return applyFeatureSpec((*on ? "" : "NO_") + param.key, options, error);
    }
    case Param::Kind::Choice:
        return applyOverrideSpec(param.key + "=" + value, options, error);
    case Param::Kind::RunOption: {
        const std::vector<std::string> args{"--" + param.key, value};
        ArgReader ar(args);
        ar.next();
        return parseRunOption(ar, options, error) == 1;
    }
    case Param::Kind::Pointer:
        break;
    }
    *error = "a JSON pointer applies to the scenario, not to the run options";
    return false;
}

bool applyPointer(
    std::string& json, const std::string& pointer, const std::string& value, std::string* error)
{
    Json doc = Json::parse(json, nullptr, false);
    if (doc.is_discarded()) {
        *error = "the scenario is not valid JSON";
        return false;
    }
    if (pointer.empty() || pointer[0] != '/') {
        *error = "a JSON pointer starts with /, got \"" + printable(pointer) + "\"";
        return false;
    }
    // RFC 6901 tokens: '/'-separated, "~1" is '/', "~0" is '~'.
    std::vector<std::string> tokens;
    for (size_t pos = 1;;) {
        const size_t slash = pointer.find('/', pos);
        const std::string raw =
            pointer.substr(pos, slash == std::string::npos ? slash : slash - pos);
        std::string tok;
        for (size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] != '~') {
                tok += raw[i];
                continue;
            }
            if (i + 1 >= raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1')) {
                *error = "JSON pointer " + printable(pointer)
                    + ": '~' must be followed by 0 (for ~) or 1 (for /)";
                return false;
            }
            tok += raw[++i] == '0' ? '~' : '/';
        }
        tokens.push_back(tok);
        if (slash == std::string::npos)
            break;
        pos = slash + 1;
    }
    Json parsed = Json::parse(value, nullptr, false);
    const Json newValue = parsed.is_discarded() ? Json(value) : std::move(parsed);
    Json* cur = &doc;
    std::string at; // the pointer walked so far
    for (size_t t = 0; t < tokens.size(); ++t) {
        const std::string& tok = tokens[t];
        const bool last = t + 1 == tokens.size();
        const std::string where = at.empty() ? "the scenario's top level" : at;
        if (cur->is_object()) {
            if (!cur->contains(tok)) {
                if (last) {
                    (*cur)[tok] = newValue;
                    json = doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
                    return true;
                }
                std::string members;
                for (auto it = cur->begin(); it != cur->end(); ++it)
                    members += (members.empty() ? "" : ", ") + it.key();
                *error = "JSON pointer " + printable(pointer) + ": " + printable(where)
                    + " has no member \"" + printable(tok) + "\" (members: " + printable(members)
                    + ")";
                return false;
            }
            cur = &(*cur)[tok];
        } else if (cur->is_array()) {
            const bool digits = !tok.empty()
                && tok.find_first_not_of("0123456789") == std::string::npos
                && (tok.size() == 1 || tok[0] != '0') && tok.size() < 10;
            const size_t n = cur->size();
            if (!digits || std::stoul(tok) >= n) {
                *error = "JSON pointer " + printable(pointer) + ": " + printable(where)
                    + " is an array of " + std::to_string(n) + " element" + (n == 1 ? "" : "s")
                    + (n ? " (indices 0…" + std::to_string(n - 1) + ")" : "") + ", not \""
                    + printable(tok) + "\"";
                return false;
            }
            cur = &(*cur)[std::stoul(tok)];
        } else {
            *error = "JSON pointer " + printable(pointer) + ": " + printable(where) + " is "
                + jsonTypeName(*cur) + ", not an object or array (no \"" + printable(tok) + "\")";
            return false;
        }
        at += "/" + tok;
    }
    *cur = newValue;
    json = doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    return true;
}

size_t Grid::combinations() const
{
    size_t n = 1;
    for (const auto& p : params)
        n *= p.values.size();
    return n;
}

std::vector<size_t> Grid::combination(size_t c) const
{
    // Mixed radix, the last parameter the least significant digit.
    std::vector<size_t> idx(params.size());
    for (size_t p = params.size(); p-- > 0;) {
        idx[p] = c % params[p].values.size();
        c /= params[p].values.size();
    }
    return idx;
}

bool parseShard(const std::string& text, Shard& shard, std::string* error)
{
    const auto slash = text.find('/');
    uint64_t i = 0, n = 0;
    if (slash == std::string::npos || !parseSeed(text.substr(0, slash), i)
        || !parseSeed(text.substr(slash + 1), n) || n == 0 || i >= n || n > 1'000'000) {
        *error = "--shard expects i/n with 0 <= i < n (run k belongs to shard k mod n), got \""
            + printable(text) + "\"";
        return false;
    }
    shard.index = static_cast<size_t>(i);
    shard.count = static_cast<size_t>(n);
    return true;
}

std::vector<size_t> shardRuns(size_t runs, const Shard& shard)
{
    std::vector<size_t> out;
    for (size_t k = shard.index; k < runs; k += shard.count)
        out.push_back(k);
    return out;
}

namespace {

bool programForks(const std::vector<Op>& ops)
{
    return std::any_of(ops.begin(), ops.end(),
        [](const Op& op) { return op.kind == Op::Kind::Fork || programForks(op.body); });
}

std::string fixed6(double v)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    return buf;
}

std::string shareOf(int64_t cpuNs, int64_t durationNs)
{
    // Reporting only (never a scheduling decision): the fraction of one CPU over the run.
    return fixed6(
        durationNs > 0 ? static_cast<double>(cpuNs) / static_cast<double>(durationNs) : 0.0);
}

// One combination of parameter values: the scenario read with its pointers applied, the run
// options with the others applied, and what it contributes to the column set.
struct Combination
{
    Scenario scenario;
    RunOptions options;
    std::vector<std::string> label; ///< "KEY=VALUE" per parameter
    std::set<std::string> listed;   ///< task names of the scenario and its spawn actions
};

struct TaskColumns
{
    std::string name;
    bool forks = false;
};

// The column set of the whole grid, known before any run: the union over all combinations of
// the tasks listed by the scenario (count expanded) and its spawn actions, the cgroups and the
// probes, in grid order of first appearance. Shards thus share one header.
struct Columns
{
    std::vector<TaskColumns> tasks;
    std::vector<std::string> cgroups;
    std::vector<std::string> probes;
    std::set<std::string> seenTasks, seenGroups, seenProbes;

    void addTask(const TaskSpec& spec, const std::string& name)
    {
        if (seenTasks.insert(name).second)
            tasks.push_back({name, programForks(spec.program)});
        else if (programForks(spec.program))
            for (auto& t : tasks)
                if (t.name == name)
                    t.forks = true;
        if (spec.probe && seenProbes.insert(name).second)
            probes.push_back(name);
    }
};

std::vector<std::string> header(const Grid& grid, const Columns& cols)
{
    std::vector<std::string> h{"run", "runs"};
    for (const auto& p : grid.params)
        h.push_back(p.key);
    for (const char* c : {"seed", "status", "duration_ns", "events", "context_switches"})
        h.push_back(c);
    for (const auto& t : cols.tasks) {
        for (const char* m : {"share", "cpu_ns", "wait_p50_ns", "wait_p99_ns", "wait_max_ns",
                 "switches", "migrations"})
            h.push_back("task:" + t.name + ":" + m);
        if (t.forks)
            for (const char* m : {"count", "share", "cpu_ns", "wait_max_ns"})
                h.push_back("forked:" + t.name + ":" + m);
    }
    for (const auto& g : cols.cgroups)
        for (const char* m : {"share", "cpu_ns", "throttled_ns", "nr_throttled"})
            h.push_back("cgroup:" + g + ":" + m);
    for (const auto& p : cols.probes)
        h.push_back("probe:" + p + ":latency_ns");
    for (const char* k : kFindingKinds) {
        h.push_back(std::string("finding:") + k + ":count");
        h.push_back(std::string("finding:") + k + ":worst_ns");
    }
    return h;
}

std::string joinRow(const std::vector<std::string>& fields)
{
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i)
            line += ',';
        line += csvField(fields[i]);
    }
    return line + "\n";
}

// The CSV row of run @p k (without its line end's successor: joinRow adds "\n").
std::vector<std::string> rowOf(size_t k, const Grid& grid, const Combination& combo,
    const Columns& cols, const Metrics& m, const std::string& status)
{
    std::vector<std::string> r{std::to_string(k), std::to_string(grid.runs())};
    const auto idx = grid.combination(grid.combinationOfRun(k));
    for (size_t p = 0; p < grid.params.size(); ++p)
        r.push_back(grid.params[p].values[idx[p]]);
    r.push_back(std::to_string(grid.seedOfRun(k)));
    r.push_back(status);
    r.push_back(std::to_string(m.durationNs));
    r.push_back(std::to_string(m.run.events));
    r.push_back(std::to_string(m.run.contextSwitches));
    std::map<std::string, const TaskMetrics*> byName;
    struct Fold
    {
        int64_t count = 0, cpu = 0, waitMax = 0;
    };
    std::map<std::string, Fold> folds;
    for (const auto& t : m.tasks) {
        if (!t.forked) {
            byName.emplace(t.name, &t);
            continue;
        }
        Fold& f = folds[forkRoot(t.name, combo.listed)];
        ++f.count;
        f.cpu += t.cpuTimeNs;
        f.waitMax = std::max(f.waitMax, t.waitMaxNs);
    }
    for (const auto& tc : cols.tasks) {
        const auto it = byName.find(tc.name);
        if (it == byName.end()) {
            r.insert(r.end(), 7, "");
        } else {
            const TaskMetrics& t = *it->second;
            for (const std::string& v : {shareOf(t.cpuTimeNs, m.durationNs),
                     std::to_string(t.cpuTimeNs), std::to_string(t.waitP50Ns),
                     std::to_string(t.waitP99Ns), std::to_string(t.waitMaxNs),
                     std::to_string(t.switches), std::to_string(t.migrations)})
                r.push_back(v);
        }
        if (!tc.forks)
            continue;
        if (it == byName.end()) {
            r.insert(r.end(), 4, "");
            continue;
        }
        const Fold f = folds.contains(tc.name) ? folds.at(tc.name) : Fold{};
        r.push_back(std::to_string(f.count));
        r.push_back(shareOf(f.cpu, m.durationNs));
        r.push_back(std::to_string(f.cpu));
        r.push_back(std::to_string(f.waitMax));
    }
    for (const auto& path : cols.cgroups) {
        const auto g = std::find_if(m.cgroups.begin(), m.cgroups.end(),
            [&](const CgroupMetrics& c) { return c.path == path; });
        if (g == m.cgroups.end()) {
            r.insert(r.end(), 4, "");
            continue;
        }
        r.push_back(shareOf(g->cpuTimeNs, m.durationNs));
        r.push_back(std::to_string(g->cpuTimeNs));
        r.push_back(std::to_string(g->throttledNs));
        r.push_back(g->nrThrottled ? std::to_string(*g->nrThrottled) : "");
    }
    for (const auto& name : cols.probes) {
        const auto p = std::find_if(m.probes.begin(), m.probes.end(),
            [&](const ProbeMetrics& pm) { return pm.name == name; });
        r.push_back(p != m.probes.end() && p->latencyNs ? std::to_string(*p->latencyNs) : "");
    }
    std::map<std::string, std::pair<int64_t, int64_t>> kinds; // count, worst
    for (const auto& f : m.findings) {
        const bool known = std::any_of(std::begin(kFindingKinds), std::end(kFindingKinds) - 1,
            [&](const char* kind) { return f.kind == kind; });
        auto& [count, worst] = kinds[known ? f.kind : "other"];
        ++count;
        worst = std::max(worst, f.durationNs);
    }
    for (const char* kind : kFindingKinds) {
        const auto it = kinds.find(kind);
        r.push_back(std::to_string(it == kinds.end() ? 0 : it->second.first));
        r.push_back(it == kinds.end() ? "" : std::to_string(it->second.second));
    }
    return r;
}

bool readFile(const std::string& path, std::string& text, std::string* error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = printable(path) + ": cannot read";
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    return true;
}

const char* const kUsage =
    "usage: schedlab-cli sweep FILE --param KEY=V1,V2,… [--param …] [--seeds N] [--seed S]\n"
    "       [--jobs N] [--shard i/n] [--quiet] [options that shape a run] --out results.csv\n"
    "       KEY: profile, a sched feature (PLACE_LAG=on,off), a behaviour choice, duration,\n"
    "       watchdog, or a JSON pointer into the scenario (/cgroups/0/cpu.weight=100,2000)\n"
    "       (docs/sweeps.md)\n";

} // namespace

int runSweepCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string file, outPath;
    Grid grid;
    RunOptions base;
    uint64_t seedCount = 1;
    size_t jobs = std::max(1u, std::thread::hardware_concurrency());
    Shard shard;
    bool quiet = false;
    ArgReader ar(args, 1);
    while (ar.next()) {
        const std::string a = ar.name();
        std::string error, v;
        if (const int rc = parseRunOption(ar, base, &error); rc != 0) {
            if (rc < 0) {
                err << "sweep: " << error << "\n";
                return kExitBadInput;
            }
        } else if ((ar.option("--param") || ar.option("--out") || ar.option("--seeds")
                       || ar.option("--jobs") || ar.option("--shard"))
            && !ar.value(v)) {
            err << "sweep: " << ar.error() << "\n";
            return kExitBadInput;
        } else if (ar.option("--param")) {
            Param p;
            if (!parseParam(v, p, &error)) {
                err << "sweep: " << error << "\n";
                return kExitBadInput;
            }
            for (const auto& q : grid.params)
                if (q.key == p.key) {
                    err << "sweep: --param " << printable(p.key) << " is given twice\n";
                    return kExitBadInput;
                }
            grid.params.push_back(std::move(p));
        } else if (ar.option("--out")) {
            outPath = v;
        } else if (ar.option("--seeds") || ar.option("--jobs")) {
            uint64_t n = 0;
            if (!parseSeed(v, n) || n == 0 || n > 100'000) {
                err << "sweep: " << a << " expects a number in 1…100000, got \"" << printable(v)
                    << "\"\n";
                return kExitBadInput;
            }
            if (a == "--seeds")
                seedCount = n;
            else
                jobs = static_cast<size_t>(n);
        } else if (ar.option("--shard")) {
            if (!parseShard(v, shard, &error)) {
                err << "sweep: " << error << "\n";
                return kExitBadInput;
            }
        } else if (ar.flag("--quiet")) {
            quiet = true;
        } else if (ar.isOption()) {
            err << "sweep: unknown option " << printable(ar.word()) << "\n" << kUsage;
            return kExitBadInput;
        } else if (file.empty()) {
            file = ar.word();
        } else {
            err << "sweep: unexpected argument \"" << printable(ar.word()) << "\"\n";
            return kExitBadInput;
        }
    }
    if (file.empty() || outPath.empty()) {
        err << "sweep: " << (file.empty() ? "missing scenario FILE" : "missing --out FILE") << "\n"
            << kUsage;
        return kExitBadInput;
    }
    std::string error;
    if (!checkOutputs({{"--out", outPath}}, {file}, &error)) {
        err << "sweep: " << error << "\n";
        return kExitBadInput;
    }
    std::string text;
    if (!readFile(file, text, &error)) {
        err << "sweep: " << error << "\n";
        return kExitBadInput;
    }
    {
        LoadResult plain = parseScenario(text, file);
        for (const auto& e : plain.errors)
            err << e << "\n";
        if (!plain.ok())
            return kExitBadInput;
        const uint64_t first = base.seed.value_or(plain.scenario->seedOrDefault());
        for (uint64_t s = 0; s < seedCount; ++s)
            grid.seeds.push_back(first + s);
    }
    base.recordSamples = false; // metrics only: the runs keep no recording
    base.recordEvents = false;

    // Every combination is read and built before any run, so a bad value fails at once and all
    // shards agree on the columns.
    const size_t combos = grid.combinations();
    if (combos > 1'000'000 || grid.runs() > 10'000'000) {
        err << "sweep: the grid has " << combos << " combinations × " << grid.seeds.size()
            << " seeds, too many\n";
        return kExitBadInput;
    }
    std::vector<Combination> combinations;
    combinations.reserve(combos);
    Columns cols;
    for (size_t c = 0; c < combos; ++c) {
        Combination combo;
        combo.options = base;
        std::string scenarioText = text;
        const auto idx = grid.combination(c);
        std::string with;
        for (size_t p = 0; p < grid.params.size(); ++p) {
            const Param& param = grid.params[p];
            const std::string& v = param.values[idx[p]];
            combo.label.push_back(param.key + "=" + v);
            with += (with.empty() ? "" : ", ") + param.key + "=" + v;
            const bool ok = param.kind == Param::Kind::Pointer
                ? applyPointer(scenarioText, param.key, v, &error)
                : applyToOptions(param, v, combo.options, &error);
            if (!ok) {
                err << "sweep: --param " << printable(param.key) << "=" << printable(v) << ": "
                    << error << "\n";
                return kExitBadInput;
            }
        }
        LoadResult loaded = parseScenario(scenarioText, file);
        if (!loaded.ok()) {
            for (const auto& e : loaded.errors)
                err << "sweep: with " << printable(with) << ": " << e << "\n";
            return kExitBadInput;
        }
        combo.scenario = std::move(*loaded.scenario);
        for (const TaskSpec& spec : combo.scenario.tasks) {
            const int count = spec.count.value_or(1);
            for (int n = 1; n <= count; ++n) {
                const std::string name =
                    spec.count ? spec.name + "-" + std::to_string(n) : spec.name;
                combo.listed.insert(name);
                cols.addTask(spec, name);
            }
        }
        for (const Action& action : combo.scenario.actions)
            if (action.kind == Action::Kind::Spawn && !action.spawn.empty()) {
                combo.listed.insert(action.spawn.front().name);
                cols.addTask(action.spawn.front(), action.spawn.front().name);
            }
        try {
            // Built, not run: the cgroups of the machine (intermediate ones included) and the
            // checks a run makes when it starts (limits).
            RunOptions o = combo.options;
            o.seed = grid.seeds.front();
            const Simulation sim(combo.scenario, o);
            for (const auto& g : sim.metrics().cgroups)
                if (cols.seenGroups.insert(g.path).second)
                    cols.cgroups.push_back(g.path);
        } catch (const std::invalid_argument& e) {
            err << "sweep: with " << printable(with) << ": " << printable(file) << ": "
                << printable(e.what()) << "\n";
            return kExitBadInput;
        }
        combinations.push_back(std::move(combo));
    }

    const std::vector<size_t> runs = shardRuns(grid.runs(), shard);
    std::vector<std::string> rows(runs.size());
    std::vector<int> codes(runs.size(), kExitOk);
    std::atomic<size_t> next{0};
    std::mutex progress;
    size_t done = 0;
    const auto start = std::chrono::steady_clock::now();
    jobs = std::max<size_t>(1, std::min(jobs, runs.size()));
    if (!quiet)
        err << "sweep: " << runs.size() << " of " << grid.runs() << " runs (" << combos
            << " combinations × " << grid.seeds.size() << " seeds"
            << (shard.count > 1 ? ", shard " + std::to_string(shard.index) + "/"
                           + std::to_string(shard.count)
                                : std::string())
            << ") on " << jobs << (jobs == 1 ? " thread" : " threads") << "\n";
    auto worker = [&] {
        for (;;) {
            const size_t slot = next.fetch_add(1);
            if (slot >= runs.size())
                return;
            const size_t k = runs[slot];
            const Combination& combo = combinations[grid.combinationOfRun(k)];
            RunOptions o = combo.options;
            o.seed = grid.seedOfRun(k);
            std::string status = "ok", why;
            Metrics m;
            try {
                Simulation sim(combo.scenario, o);
                sim.run();
                m = sim.metrics();
                if (!sim.stopReason().empty()) {
                    status = "stopped";
                    why = sim.stopReason();
                    codes[slot] = kExitStopped;
                } else if (!sim.invariantViolations().empty()) {
                    status = "invariant";
                    why = sim.invariantViolations().front();
                    codes[slot] = kExitInvariant;
                }
            } catch (const std::exception& e) {
                status = "error";
                why = e.what();
                codes[slot] = kExitBadInput;
            }
            rows[slot] = joinRow(rowOf(k, grid, combo, cols, m, status));
            const std::lock_guard lock(progress);
            ++done;
            if (!quiet || status != "ok") {
                std::string label;
                for (const auto& l : combo.label)
                    label += l + ", ";
                err << "sweep: [" << done << "/" << runs.size() << "] run " << k << " ("
                    << printable(label) << "seed " << o.seed.value_or(0) << "): " << status
                    << (why.empty() ? "" : ": " + printable(why)) << "\n";
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t t = 1; t < jobs; ++t)
        threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
        t.join();

    std::string csv = joinRow(header(grid, cols));
    for (const auto& r : rows)
        csv += r;
    if (!writeText(outPath, csv, out, err))
        return kExitBadInput;
    if (!quiet) {
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        char line[64];
        std::snprintf(line, sizeof line, "%.1f s", secs);
        err << "sweep: " << runs.size() << " runs in " << line << ", " << printable(outPath) << ": "
            << header(grid, cols).size() << " columns\n";
    }
    return codes.empty() ? kExitOk : *std::max_element(codes.begin(), codes.end());
}

int runSweepMergeCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> files;
    std::string outPath = "-";
    for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--out" && i + 1 < args.size())
            outPath = args[++i];
        else if (!args[i].empty() && args[i][0] == '-' && args[i] != "-") {
            err << "sweep-merge: unknown option " << printable(args[i])
                << " (usage: schedlab-cli sweep-merge A.csv B.csv … --out all.csv)\n";
            return kExitBadInput;
        } else
            files.push_back(args[i]);
    }
    if (files.empty()) {
        err << "sweep-merge: usage: schedlab-cli sweep-merge A.csv B.csv … --out all.csv\n";
        return kExitBadInput;
    }
    std::string error;
    if (!checkOutputs({{"--out", outPath}}, files, &error)) {
        err << "sweep-merge: " << error << "\n";
        return kExitBadInput;
    }
    std::vector<std::string> head;
    std::map<uint64_t, std::pair<std::vector<std::string>, std::string>> byRun; // row, its file
    uint64_t total = 0;
    for (const auto& f : files) {
        std::string text;
        CsvTable t;
        if (!readFile(f, text, &error) || !parseCsv(text, t, &error)) {
            err << "sweep-merge: " << (error.starts_with(printable(f)) ? "" : printable(f) + ": ")
                << error << "\n";
            return kExitBadInput;
        }
        if (t.header.size() < 2 || t.header[0] != "run" || t.header[1] != "runs") {
            err << "sweep-merge: " << printable(f)
                << ": not a sweep CSV (the header starts with run,runs)\n";
            return kExitBadInput;
        }
        if (head.empty()) {
            head = t.header;
        } else if (t.header != head) {
            size_t c = 0;
            while (c < head.size() && c < t.header.size() && head[c] == t.header[c])
                ++c;
            err << "sweep-merge: " << printable(f) << ": its header differs from "
                << printable(files.front()) << "'s at column " << c + 1 << " ("
                << (c < t.header.size() ? "\"" + printable(t.header[c]) + "\"" : "missing")
                << " vs " << (c < head.size() ? "\"" + printable(head[c]) + "\"" : "missing")
                << "): not shards of one sweep\n";
            return kExitBadInput;
        }
        for (auto& row : t.rows) {
            uint64_t k = 0, n = 0;
            if (!parseSeed(row[0], k) || !parseSeed(row[1], n) || k >= n) {
                err << "sweep-merge: " << printable(f) << ": bad run index \"" << printable(row[0])
                    << "\" of \"" << printable(row[1]) << "\"\n";
                return kExitBadInput;
            }
            if (total != 0 && n != total) {
                err << "sweep-merge: " << printable(f) << ": run " << k << " is of a grid of " << n
                    << " runs, the others of " << total << "\n";
                return kExitBadInput;
            }
            total = n;
            if (byRun.contains(k)) {
                err << "sweep-merge: run " << k << " is in " << printable(byRun.at(k).second)
                    << " and in " << printable(f) << " (the same shard twice?)\n";
                return kExitBadInput;
            }
            byRun.emplace(k, std::make_pair(std::move(row), f));
        }
    }
    if (byRun.size() != total) {
        std::string missing;
        size_t listed = 0;
        for (uint64_t k = 0; k < total && listed < 8; ++k)
            if (!byRun.contains(k)) {
                missing += (missing.empty() ? "" : ", ") + std::to_string(k);
                ++listed;
            }
        err << "sweep-merge: " << (total - byRun.size()) << " of " << total
            << " runs missing (runs " << missing << (total - byRun.size() > listed ? ", …" : "")
            << "): a shard not given?\n";
        return kExitBadInput;
    }
    std::string csv = joinRow(head);
    for (const auto& [k, row] : byRun)
        csv += joinRow(row.first);
    if (!writeText(outPath, csv, out, err))
        return kExitBadInput;
    if (outPath != "-")
        out << outPath << ": " << total << " runs from " << files.size()
            << (files.size() == 1 ? " file\n" : " files\n");
    return kExitOk;
}

} // namespace schedlab::sweep
