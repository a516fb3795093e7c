// SPDX-License-Identifier: GPL-2.0-or-later
// rt-app JSON -> scenario (docs/rtapp.md); the export is in rtappexport.cpp. rt-app's grammar is
// doc/tutorial.txt of rt-app; its events are matched by key prefix ("run0", "sleep1" …), so the
// longest known event name wins
// ("runtime2" is a runtime, not a run).
#include "rtapp.h"

#include "core/base/cpuset.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/dl/dlparams.h"
#include "core/rtapp/lenientjson.h"
#include "core/scenario/jsonreader.h"
#include "core/scenario/scenarioio.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace schedlab::rtapp {

namespace {

using scenariojson::child;

constexpr int kMaxForkDepth = 8; // forks of forks; the scenario nests at most 32 levels
constexpr int kMaxForkCopies = 10'000;

bool startsWith(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

/// The event a key names, by rt-app's prefix rule; "" when none.
std::string eventOf(const std::string& key)
{
    static const char* const kEvents[] = {"runtime", "run", "sleep", "timer", "lock", "unlock",
        "wait", "signal", "broad", "sync", "barrier", "suspend", "resume", "mem", "iorun", "yield",
        "fork"};
    std::string best;
    for (const char* e : kEvents)
        if (startsWith(key, e) && std::string(e).size() > best.size())
            best = e;
    return best;
}

bool isThreadAttribute(const std::string& key)
{
    static const std::set<std::string> kKeys{"instance", "loop", "phases", "policy", "priority",
        "cpus", "delay", "taskgroup", "nice", "dl-runtime", "dl-period", "dl-deadline", "util_min",
        "util_max", "numa_membind", "cpus_allowed"};
    return kKeys.contains(key);
}

bool isPhaseAttribute(const std::string& key)
{
    static const std::set<std::string> kKeys{"loop", "cpus", "taskgroup", "priority", "nice",
        "policy", "dl-runtime", "dl-period", "dl-deadline", "util_min", "util_max", "numa_membind"};
    return kKeys.contains(key);
}

// The CPU time an op takes when it runs undisturbed (timers subtract it from their period).
Nanoseconds workOf(const Op& op)
{
    switch (op.kind) {
    case Op::Kind::Run:
    case Op::Kind::Sleep:
        return op.duration.endless ? Nanoseconds(0) : op.duration.value;
    case Op::Kind::Loop:
        if (op.forTime)
            return op.forTime->value;
        else {
            Nanoseconds sum{0};
            for (const Op& o : op.body)
                sum = saturatingAdd(sum, workOf(o));
            return Nanoseconds(saturatingMul(sum.count(), op.count.value_or(1)));
        }
    default:
        return Nanoseconds(0);
    }
}

bool takesTime(const std::vector<Op>& ops)
{
    return std::any_of(ops.begin(), ops.end(), [](const Op& op) {
        if (op.kind == Op::Kind::Run || op.kind == Op::Kind::Sleep)
            return op.duration.endless || op.duration.value > Nanoseconds(0);
        if (op.kind == Op::Kind::Loop)
            return takesTime(op.body);
        if (op.kind == Op::Kind::Fork)
            return op.wait;
        return false;
    });
}

Op makeOp(Op::Kind kind)
{
    Op op;
    op.kind = kind;
    return op;
}

class Importer
{
public:
    Importer(const std::string& fileName, const ImportOptions& options)
        : m_file(fileName)
        , m_options(options)
    { }

    ImportResult run(const std::string& text)
    {
        // JSON is UTF-8 (names become scenario names, which must be): refused before parsing.
        if (const size_t bad = invalidUtf8At(text); bad != std::string::npos) {
            const auto line =
                1 + std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n');
            m_result.errors.push_back(m_file + ":" + std::to_string(line)
                + ": not UTF-8 text (byte " + printable(text.substr(bad, 1)) + " at offset "
                + std::to_string(bad) + ")");
            return std::move(m_result);
        }
        std::string error;
        auto root = parseLenient(text, &error);
        if (!root) {
            // "line N: expected …" → "FILE:N: expected …"
            if (error.starts_with("line ") && error.find(": ") != std::string::npos)
                m_result.errors.push_back(m_file + ":" + error.substr(5));
            else
                m_result.errors.push_back(m_file + ": " + error);
            return std::move(m_result);
        }
        if (!root->isObject()) {
            m_result.errors.push_back(m_file + ":" + std::to_string(root->line)
                + ": expected an rt-app object such as { \"tasks\": { … } }, got "
                + root->describe());
            return std::move(m_result);
        }
        scanCpus(*root);
        m_scenario.machine.cpus = m_options.cpus > 0 ? m_options.cpus : std::max(1, m_maxCpu + 1);
        std::filesystem::path p(m_file);
        m_scenario.name = m_options.name.empty() ? p.stem().string() : m_options.name;
        if (m_scenario.name.empty())
            m_scenario.name = "rt-app";
        m_scenario.title = "rt-app workload " + p.filename().string();
        m_scenario.description = "Imported from the rt-app file " + p.filename().string()
            + " by schedlab-cli import-rtapp (docs/rtapp.md describes the mapping).";

        m_tasks = root->find("tasks");
        if (m_tasks && m_tasks->isObject())
            for (const auto& [name, thread] : m_tasks->members)
                m_threads.try_emplace(name, &thread); // the first of a name, as Value::find
        for (const auto& [key, value] : root->members) {
            if (key == "global")
                global(value, "/global");
            else if (key == "resources")
                resources(value, "/resources");
            else if (key != "tasks")
                warn(child("", key), value, "unknown rt-app section: ignored");
        }
        if (!m_tasks)
            warn("", *root, "no \"tasks\" section: the scenario has no tasks");
        else if (!m_tasks->isObject())
            fail("/tasks", *m_tasks, "expected an object of threads, got " + m_tasks->describe());
        else
            tasks(*m_tasks);
        if (!m_result.errors.empty())
            return std::move(m_result);
        annotateDropped();
        // The scenario loader has the last word: every limit it checks holds for imports too.
        // Its errors name a path of the generated scenario: each is told at the line of the
        // rt-app thread (or task group) it came from.
        LoadResult check = parseScenario(writeScenario(m_scenario), m_file);
        if (!check.ok()) {
            for (const std::string& e : check.errors)
                m_result.errors.push_back(locate(e));
            return std::move(m_result);
        }
        m_result.scenario = std::move(m_scenario);
        return std::move(m_result);
    }

private:
    /// A synchronisation event of the thread being imported was dropped (the run
    /// summary and the findings name the threads, so "never ran" is connected to its cause).
    void noteDropped(const std::string& event)
    {
        auto& events = m_dropped[m_thread];
        if (std::find(events.begin(), events.end(), event) == events.end())
            events.push_back(event);
    }
    /// One annotation at 0 naming the threads whose sync events were dropped; it travels with
    /// the scenario file (scenario-format.md §1.9) and starts with kDroppedNote.
    void annotateDropped()
    {
        if (m_dropped.empty())
            return;
        std::string text = kDroppedNote;
        bool first = true;
        for (const auto& [thread, events] : m_dropped) {
            text += (first ? " " : ", ") + thread + " (";
            for (size_t i = 0; i < events.size(); ++i)
                text += (i ? "/" : "") + events[i];
            text += ")";
            first = false;
        }
        text += "; these threads do not wait there";
        m_scenario.annotations.insert(
            m_scenario.annotations.begin(), Annotation{Nanoseconds{0}, text});
    }
    std::map<std::string, std::vector<std::string>> m_dropped; ///< thread → dropped events
    std::string where(const std::string& path, const Value& v) const
    {
        return m_file + ":" + std::to_string(v.line) + ": " + (path.empty() ? "/" : path);
    }

    /// A loader error "FILE: /tasks/3/program/0: what" about the generated scenario as
    /// "FILE:LINE: /tasks/NAME: what (imported as /tasks/3/program/0)", LINE being the rt-app
    /// thread's (or the first "taskgroup" naming the cgroup).
    std::string locate(const std::string& error) const
    {
        const std::string head = m_file + ": ";
        if (!error.starts_with(head))
            return error;
        const std::string rest = error.substr(head.size());
        const size_t colon = rest.find(": ");
        const std::string path = colon == std::string::npos ? "" : rest.substr(0, colon);
        const std::string what = colon == std::string::npos ? rest : rest.substr(colon + 2);
        auto index = [&](const char* prefix) -> std::optional<size_t> {
            const std::string p = prefix;
            if (!path.starts_with(p))
                return std::nullopt;
            size_t end = p.size();
            while (end < path.size() && path[end] >= '0' && path[end] <= '9')
                ++end;
            if (end == p.size() || end - p.size() > 9 || (end < path.size() && path[end] != '/'))
                return std::nullopt;
            return std::stoul(path.substr(p.size(), end - p.size()));
        };
        if (const auto t = index("/tasks/"); t && *t < m_taskOrigins.size()) {
            const auto& [line, rtappPath] = m_taskOrigins[*t];
            return m_file + ":" + std::to_string(line) + ": " + rtappPath + ": " + what
                + " (imported as " + path + ")";
        }
        if (const auto c = index("/cgroups/"); c && *c < m_cgroupLines.size())
            return m_file + ":" + std::to_string(m_cgroupLines[*c]) + ": taskgroup: " + what
                + " (imported as " + path + ")";
        return m_file + ": " + (path.empty() ? what : what + " (imported as " + path + ")");
    }
    void warn(const std::string& path, const Value& v, const std::string& what)
    {
        m_result.warnings.push_back(where(path, v) + ": " + what);
    }
    void fail(const std::string& path, const Value& v, const std::string& what)
    {
        m_result.errors.push_back(where(path, v) + ": " + what);
    }

    void scanCpus(const Value& v)
    {
        for (const auto& [key, member] : v.members) {
            if (key == "cpus" && member.type == Value::Type::Array)
                for (const Value& item : member.items)
                    if (item.type == Value::Type::Integer && item.integer >= 0
                        && item.integer < ScenarioLimits::maxCpus)
                        m_maxCpu = std::max(m_maxCpu, static_cast<int>(item.integer));
            scanCpus(member);
        }
    }

    std::optional<int64_t> integer(const std::string& path, const Value& v, int64_t lo, int64_t hi)
    {
        if (v.type != Value::Type::Integer || v.integer < lo || v.integer > hi) {
            fail(path, v,
                "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi)
                    + "], got " + v.describe());
            return std::nullopt;
        }
        return v.integer;
    }

    // A duration in µs (rt-app's unit) as nanoseconds, up to the longest scenario.
    std::optional<Nanoseconds> usec(const std::string& path, const Value& v)
    {
        const int64_t maxUs = ScenarioLimits::maxDuration.count() / 1000;
        auto n = integer(path, v, 0, maxUs);
        if (!n)
            return std::nullopt;
        return Nanoseconds(*n * 1000);
    }

    void global(const Value& g, const std::string& path)
    {
        if (!g.isObject()) {
            fail(path, g, "expected an object, got " + g.describe());
            return;
        }
        static const std::set<std::string> kHostOnly{"lock_pages", "logdir", "log_basename",
            "log_size", "ftrace", "gnuplot", "io_device", "mem_buffer_size", "cumulative_slack",
            "frag"};
        for (const auto& [key, v] : g.members) {
            const std::string p = child(path, key);
            if (key == "duration") {
                if (v.type == Value::Type::Integer && v.integer < 0) {
                    warn(p, v,
                        "-1 (run until every thread ends): simulated for the scenario default, "
                            + formatDurationHuman(Scenario{}.durationOrDefault())
                            + " (schedlab-cli run --duration)");
                    continue;
                }
                const int64_t maxS = ScenarioLimits::maxDuration.count() / 1'000'000'000;
                if (auto s = integer(p, v, 1, maxS))
                    m_scenario.duration = Nanoseconds(*s * 1'000'000'000);
            } else if (key == "default_policy") {
                if (auto pol = policy(p, v))
                    m_defaultPolicy = *pol;
            } else if (key == "calibration") {
                // ns per loop or the CPU to calibrate on: run events are CPU work in units of the
                // calibrated CPU, and every simulated CPU has that capacity, so run = CPU time.
                if (v.type != Value::Type::String && v.type != Value::Type::Integer)
                    fail(p, v, "expected \"CPUn\" or ns per loop, got " + v.describe());
            } else if (key == "pi_enabled") {
                if (v.type == Value::Type::Bool && v.boolean)
                    warn(p, v, "priority inheritance is not modelled: mutexes do not boost");
            } else if (!kHostOnly.contains(key)) {
                warn(p, v, "unknown global setting: ignored");
            }
        }
    }

    void resources(const Value& r, const std::string& path)
    {
        // Resources are created on use; only mutexes are modelled (the events say what is not).
        if (!r.isObject())
            fail(path, r, "expected an object, got " + r.describe());
    }

    std::optional<Policy> policy(const std::string& path, const Value& v)
    {
        static const std::pair<const char*, Policy> kPolicies[] = {{"SCHED_OTHER", Policy::Normal},
            {"SCHED_NORMAL", Policy::Normal}, {"SCHED_BATCH", Policy::Batch},
            {"SCHED_IDLE", Policy::Idle}, {"SCHED_FIFO", Policy::Fifo},
            {"SCHED_RR", Policy::RoundRobin}, {"SCHED_DEADLINE", Policy::Deadline}};
        if (v.type == Value::Type::String) {
            for (const auto& [name, pol] : kPolicies)
                if (v.text == name)
                    return pol;
        }
        fail(path, v,
            "expected SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR or "
            "SCHED_DEADLINE, "
            "got "
                + (v.type == Value::Type::String ? "\"" + printable(v.text) + "\"" : v.describe()));
        return std::nullopt;
    }

    std::optional<std::string> cpulist(const std::string& path, const Value& v)
    {
        CpuSet set;
        if (v.type == Value::Type::Integer) {
            Value array;
            array.type = Value::Type::Array;
            array.items.push_back(v);
            array.line = v.line;
            return cpulist(path, array);
        }
        if (v.type != Value::Type::Array || v.items.empty()) {
            fail(path, v, "expected an array of CPU numbers such as [0, 2], got " + v.describe());
            return std::nullopt;
        }
        const int cpus = m_scenario.machine.cpuCount();
        for (size_t i = 0; i < v.items.size(); ++i) {
            auto n = integer(path + "/" + std::to_string(i), v.items[i], 0, cpus - 1);
            if (!n)
                return std::nullopt;
            set.set(static_cast<int>(*n));
        }
        return set.toString();
    }

    std::optional<std::string> taskgroup(const std::string& path, const Value& v)
    {
        if (v.type != Value::Type::String || v.text.empty() || v.text[0] != '/') {
            fail(path, v, "expected a cgroup path such as \"/tg1\", got " + v.describe());
            return std::nullopt;
        }
        std::string cg = v.text;
        while (cg.size() > 1 && cg.back() == '/')
            cg.pop_back();
        // List the ancestors before the group (the loader wants parents first).
        for (size_t pos = 1; pos != std::string::npos && cg != "/";) {
            pos = cg.find('/', pos + 1);
            const std::string prefix = cg.substr(0, pos);
            if (m_cgroups.insert(prefix).second) {
                CgroupSpec spec;
                spec.path = prefix;
                m_scenario.cgroups.push_back(spec);
                m_cgroupLines.push_back(v.line);
            }
        }
        return cg;
    }

    // Scheduling attributes, of a thread or (changes) of a phase.
    struct Attributes
    {
        Policy policy = Policy::Normal;
        int nice = 0;
        int rtPriority = 0;
        std::optional<std::string> cpus;
        std::optional<std::string> cgroup;
    };

    // Reads priority/nice for @p pol into @p a (policy already set).
    void priority(const std::string& path, const Value& v, Attributes& a, bool isNice)
    {
        const bool rt = a.policy == Policy::Fifo || a.policy == Policy::RoundRobin;
        if (v.type != Value::Type::Integer) {
            fail(path, v, "expected an integer, got " + v.describe());
            return;
        }
        if (rt && !isNice) {
            const int64_t p = std::clamp<int64_t>(v.integer, 1, 99);
            if (p != v.integer)
                warn(path, v, "RT priority out of 1…99: " + std::to_string(p) + " used");
            a.rtPriority = static_cast<int>(p);
        } else {
            const int64_t n = std::clamp<int64_t>(v.integer, -20, 19);
            if (n != v.integer)
                warn(path, v, "nice out of -20…19: " + std::to_string(n) + " used");
            a.nice = static_cast<int>(n);
        }
    }

    void ignoredAttribute(const std::string& key, const std::string& path, const Value& v)
    {
        if (startsWith(key, "dl-"))
            warn(path, v,
                "SCHED_DEADLINE parameters of a thread that is not SCHED_DEADLINE: ignored (as "
                "rt-app does)");
        else if (startsWith(key, "util_"))
            warn(path, v, "utilization clamping (uclamp) is not modelled: ignored");
        else if (key == "numa_membind")
            warn(path, v, "NUMA memory binding is not modelled: ignored");
    }

    // Events of one phase, in file order. A timer becomes a sleep of its period minus the other
    // events' time between it and the previous timer of the phase (cyclically: the phase repeats).
    std::vector<Op> events(
        const Value& phase, const std::string& path, bool threadLevel, int forkDepth)
    {
        struct Item
        {
            Op op;
            bool timer = false;
            bool present = true;
            Nanoseconds period{0};
            std::string path;
            const Value* value = nullptr;
        };
        std::vector<Item> items;
        for (const auto& [key, v] : phase.members) {
            const std::string p = child(path, key);
            if (threadLevel ? isThreadAttribute(key) : isPhaseAttribute(key))
                continue;
            const std::string ev = eventOf(key);
            if (key == "sleep" && v.type == Value::Type::Bool) {
                continue; // rt-app's older syntax "sleep": false — no event
            } else if (key == "deadline" || key == "lock_order" || key == "resources") {
                warn(p, v,
                    "rt-app's older resource syntax (" + key
                        + ") is not imported: no locks or deadline");
            } else if (ev == "run" || ev == "sleep") {
                auto d = usec(p, v);
                if (!d || *d == Nanoseconds(0))
                    continue;
                Op op = makeOp(ev == "run" ? Op::Kind::Run : Op::Kind::Sleep);
                op.duration = DurationSpec::fixed(*d);
                items.push_back({op, false, true, {}, p, &v});
            } else if (ev == "runtime") {
                auto d = usec(p, v);
                if (!d || *d == Nanoseconds(0))
                    continue;
                Op loop = makeOp(Op::Kind::Loop);
                Op run = makeOp(Op::Kind::Run);
                run.duration = DurationSpec::fixed(std::min(*d, kRuntimeQuantum));
                loop.body.push_back(run);
                loop.forTime = DurationSpec::fixed(*d);
                items.push_back({loop, false, true, {}, p, &v});
            } else if (ev == "timer") {
                const Value* period = v.isObject() ? v.find("period") : nullptr;
                if (!period) {
                    fail(p, v, "expected { \"ref\": …, \"period\": µs }, got " + v.describe());
                    continue;
                }
                auto d = usec(child(p, "period"), *period);
                if (!d)
                    continue;
                if (const Value* mode = v.find("mode"); mode
                    && (mode->type != Value::Type::String
                        || (mode->text != "relative" && mode->text != "absolute")))
                    fail(child(p, "mode"), *mode,
                        "expected \"relative\" or \"absolute\", got " + mode->describe());
                Item it{makeOp(Op::Kind::Sleep), true, true, *d, p, &v};
                items.push_back(it);
            } else if (ev == "lock" || ev == "unlock") {
                if (v.type != Value::Type::String || v.text.empty()) {
                    fail(p, v, "expected a mutex name, got " + v.describe());
                    continue;
                }
                Op op = makeOp(ev == "lock" ? Op::Kind::Lock : Op::Kind::Unlock);
                op.name = v.text;
                items.push_back({op, false, true, {}, p, &v});
            } else if (ev == "yield") {
                items.push_back({makeOp(Op::Kind::Yield), false, true, {}, p, &v});
            } else if (ev == "fork") {
                if (auto op = fork(p, v, forkDepth))
                    items.push_back({*op, false, true, {}, p, &v});
            } else if (ev == "suspend" || ev == "resume") {
                // A condition variable named by the resource: suspend waits on it, resume
                // broadcasts (a resume with no thread suspended is lost, as in rt-app).
                // No name (or ""): the thread's own resource, as rt-app fills it in.
                if (v.type != Value::Type::Null && v.type != Value::Type::String) {
                    fail(p, v, "expected a resource name, got " + v.describe());
                    continue;
                }
                Op op = makeOp(ev == "suspend" ? Op::Kind::Suspend : Op::Kind::Resume);
                op.name = v.type == Value::Type::String && !v.text.empty() ? v.text : m_thread;
                items.push_back({op, false, true, {}, p, &v});
            } else if (ev == "wait" || ev == "signal" || ev == "broad" || ev == "sync"
                || ev == "barrier") {
                warn(p, v,
                    ev
                        + ": condition variables and barriers are not modelled: dropped (the "
                          "thread does not wait here)");
                noteDropped(ev);
            } else if (ev == "mem" || ev == "iorun") {
                warn(p, v,
                    ev
                        + ": memory and I/O load are not modelled: dropped (no CPU time is "
                          "spent)");
            } else if (key == "exec" || key == "period") {
                // rt-app's older thread syntax (doc/examples/merge): exec µs every period µs.
                auto d = usec(p, v);
                if (!d || *d == Nanoseconds(0))
                    continue;
                if (key == "exec") {
                    Op op = makeOp(Op::Kind::Run);
                    op.duration = DurationSpec::fixed(*d);
                    items.push_back({op, false, true, {}, p, &v});
                } else {
                    items.push_back({makeOp(Op::Kind::Sleep), true, true, *d, p, &v});
                }
            } else {
                warn(p, v, "unknown event or setting: ignored");
            }
        }
        // Timers.
        const auto timers =
            std::count_if(items.begin(), items.end(), [](const Item& i) { return i.timer; });
        for (size_t i = 0; i < items.size(); ++i) {
            if (!items[i].timer)
                continue;
            Nanoseconds work{0};
            for (size_t k = 1; k <= items.size(); ++k) {
                const Item& prev = items[(i + items.size() - k) % items.size()];
                if (prev.timer)
                    break;
                work = saturatingAdd(work, workOf(prev.op));
            }
            Item& t = items[i];
            if (t.period > work) {
                t.op.duration = DurationSpec::fixed(t.period - work);
                warn(t.path, *t.value,
                    "periodic timer of " + formatDurationHuman(t.period) + " approximated as a "
                        + "sleep of " + formatDurationHuman(t.period - work)
                        + " (the period minus the phase's own run/sleep time"
                        + (timers > 1 ? " since the previous timer" : "")
                        + "): the period stretches when the thread waits for a CPU");
            } else {
                t.present = false;
                warn(t.path, *t.value,
                    "periodic timer of " + formatDurationHuman(t.period)
                        + " is shorter than the phase's own time (" + formatDurationHuman(work)
                        + "): it never sleeps (rt-app misses it too)");
            }
        }
        std::vector<Op> ops;
        for (auto& it : items)
            if (it.present)
                ops.push_back(std::move(it.op));
        return ops;
    }

    std::optional<Op> fork(const std::string& path, const Value& v, int forkDepth)
    {
        if (v.type != Value::Type::String || !m_tasks || !m_tasks->isObject()) {
            fail(path, v, "expected the name of a thread in \"tasks\", got " + v.describe());
            return std::nullopt;
        }
        const auto found = m_threads.find(v.text); // not a linear search per fork event
        const Value* target = found == m_threads.end() ? nullptr : found->second;
        if (!target || !target->isObject()) {
            fail(path, v, "no thread named \"" + printable(v.text) + "\" in \"tasks\"");
            return std::nullopt;
        }
        if (forkDepth >= kMaxForkDepth
            || std::find(m_forkStack.begin(), m_forkStack.end(), v.text) != m_forkStack.end()) {
            warn(path, v,
                "fork of \"" + printable(v.text) + "\" inside its own forks (or deeper than "
                    + std::to_string(kMaxForkDepth) + " levels): dropped");
            return std::nullopt;
        }
        // Each fork event copies the forked thread's description: bound the copies, so that a
        // small file cannot describe an exponential tree of them.
        if (++m_forkCopies > kMaxForkCopies) {
            fail(path, v,
                "more than " + std::to_string(kMaxForkCopies)
                    + " fork events in all, counting those inside forked threads");
            return std::nullopt;
        }
        m_forkStack.push_back(v.text);
        TaskSpec childSpec = thread(v.text, *target, child("/tasks", v.text), forkDepth + 1);
        m_forkStack.pop_back();
        childSpec.name.clear();
        childSpec.count.reset();
        childSpec.start.reset();
        Op op = makeOp(Op::Kind::Fork);
        op.fork.push_back(std::move(childSpec));
        return op;
    }

    // The phase-level attribute changes of @p phase as operations at its start; @p changed says
    // which attributes an earlier phase changed, so that a phase without them goes back to the
    // thread's values (rt-app's rule for "cpus").
    void phaseAttributes(const Value& phase, const std::string& path, const Attributes& thread,
        Attributes& current, std::vector<Op>& ops, std::set<std::string>& changed)
    {
        Attributes a = thread;
        a.policy = thread.policy;
        std::set<std::string> set;
        for (const auto& [key, v] : phase.members) {
            const std::string p = child(path, key);
            if (key == "cpus") {
                if (auto c = cpulist(p, v))
                    a.cpus = *c, set.insert(key);
            } else if (key == "taskgroup") {
                if (auto c = taskgroup(p, v))
                    a.cgroup = *c, set.insert(key);
            } else if (key == "priority" || key == "nice") {
                if (thread.policy == Policy::Fifo || thread.policy == Policy::RoundRobin) {
                    warn(p, v, "a phase's RT priority change is not modelled: ignored");
                    continue;
                }
                priority(p, v, a, key == "nice");
                set.insert("nice");
            } else if (key == "policy") {
                warn(p, v, "a phase's policy change is not modelled: ignored");
            } else if (startsWith(key, "dl-")) {
                warn(p, v, "a phase's SCHED_DEADLINE parameters are not modelled: ignored");
            } else {
                ignoredAttribute(key, p, v);
            }
        }
        const int cpus = m_scenario.machine.cpuCount();
        if (set.contains("cpus") || changed.contains("cpus")) {
            Op op = makeOp(Op::Kind::Cpus);
            op.name = a.cpus.value_or(CpuSet::all(cpus).toString());
            if (op.name != current.cpus.value_or(CpuSet::all(cpus).toString()))
                ops.push_back(op);
            current.cpus = op.name;
        }
        if (set.contains("taskgroup") || changed.contains("taskgroup")) {
            Op op = makeOp(Op::Kind::Cgroup);
            op.name = a.cgroup.value_or("/");
            if (op.name != current.cgroup.value_or("/"))
                ops.push_back(op);
            current.cgroup = op.name;
        }
        if (set.contains("nice") || changed.contains("nice")) {
            Op op = makeOp(Op::Kind::Nice);
            op.nice = a.nice;
            if (op.nice != current.nice)
                ops.push_back(op);
            current.nice = op.nice;
        }
        changed.insert(set.begin(), set.end());
    }

    TaskSpec thread(const std::string& name, const Value& t, const std::string& path, int forkDepth)
    {
        TaskSpec spec;
        spec.name = name;
        struct Restore // a forked thread's events are imported inside its parent's
        {
            std::string& current;
            std::string outer;
            ~Restore() { current = std::move(outer); }
        } restore{m_thread, std::exchange(m_thread, name)};
        Attributes a;
        a.policy = m_defaultPolicy;
        if (const Value* v = t.find("policy"))
            if (auto pol = policy(child(path, "policy"), *v))
                a.policy = *pol;
        const bool deadline = a.policy == Policy::Deadline;
        a.rtPriority = 10;
        std::optional<Nanoseconds> dlRuntime, dlPeriod, dlDeadline;
        int64_t loops = -1;
        for (const auto& [key, v] : t.members) {
            const std::string p = child(path, key);
            if (key == "instance") {
                if (auto n = integer(p, v, 0, ScenarioLimits::maxTasks))
                    spec.count = static_cast<int>(*n);
            } else if (key == "loop") {
                if (auto n = integer(p, v, -1, ScenarioLimits::maxLoopCount))
                    loops = *n;
            } else if (key == "priority" || key == "nice") {
                if (!deadline)
                    priority(p, v, a, key == "nice");
            } else if (key == "cpus") {
                a.cpus = cpulist(p, v);
            } else if (key == "delay") {
                if (auto d = usec(p, v); d && *d > Nanoseconds(0))
                    spec.start = DurationSpec::fixed(*d);
            } else if (key == "taskgroup") {
                a.cgroup = taskgroup(p, v);
            } else if (deadline
                && (key == "dl-runtime" || key == "dl-period" || key == "dl-deadline")) {
                auto d = usec(p, v);
                (key == "dl-runtime" ? dlRuntime : key == "dl-period" ? dlPeriod : dlDeadline) = d;
            } else if (isThreadAttribute(key)) {
                ignoredAttribute(key, p, v);
            }
        }
        if (a.policy != Policy::Normal)
            spec.policy = a.policy;
        if (deadline) {
            // rt-app's defaults: dl-period = dl-runtime, dl-deadline = dl-period (µs); what
            // sched_setattr() would refuse (EINVAL) stops rt-app, so it is an error here.
            DlParams dl;
            dl.runtime = dlRuntime.value_or(Nanoseconds(0)).count();
            dl.period = dlPeriod.value_or(Nanoseconds(dl.runtime)).count();
            dl.deadline = dlDeadline.value_or(Nanoseconds(dl.period)).count();
            if (const std::string why = checkDlParams(dl); !why.empty()) {
                const Value* at = t.find("dl-runtime") ? t.find("dl-runtime") : t.find("policy");
                fail(child(path, t.find("dl-runtime") ? "dl-runtime" : "policy"), *at,
                    "SCHED_DEADLINE parameters that sched_setattr() refuses (EINVAL): " + why);
            }
            spec.dl = dl;
        }
        if (a.policy == Policy::Fifo || a.policy == Policy::RoundRobin)
            spec.rtPriority = a.rtPriority;
        else if (a.nice != 0)
            spec.nice = a.nice;
        spec.cpus = a.cpus;
        if (a.cgroup && *a.cgroup != "/")
            spec.cgroup = a.cgroup;

        std::vector<Op> body;
        const Value* phases = t.find("phases");
        if (phases) {
            const std::string pp = child(path, "phases");
            if (!phases->isObject() || phases->members.empty()) {
                fail(pp, *phases, "expected an object of phases, got " + phases->describe());
                return spec;
            }
            for (const auto& [key, v] : t.members)
                if (!isThreadAttribute(key))
                    warn(child(path, key), v, "an event beside \"phases\": ignored (rt-app too)");
            Attributes current = a;
            std::set<std::string> changed;
            for (const auto& [key, phase] : phases->members) {
                const std::string p = child(pp, key);
                if (!phase.isObject()) {
                    fail(p, phase, "expected a phase object, got " + phase.describe());
                    continue;
                }
                phaseAttributes(phase, p, a, current, body, changed);
                int64_t count = 1;
                if (const Value* l = phase.find("loop"))
                    if (auto n = integer(child(p, "loop"), *l, -1, ScenarioLimits::maxLoopCount))
                        count = *n;
                std::vector<Op> ops = events(phase, p, false, forkDepth);
                if (count == 1 || ops.empty()) {
                    body.insert(body.end(), ops.begin(), ops.end());
                } else if (count == 0) {
                    continue;
                } else {
                    Op loop = makeOp(Op::Kind::Loop);
                    loop.body = std::move(ops);
                    if (count > 0)
                        loop.count = count;
                    else if (!takesTime(loop.body)) {
                        warn(child(p, "loop"), *phase.find("loop"),
                            "an endless phase without run, sleep or timer: runs once");
                        loop.count = 1;
                    }
                    body.push_back(std::move(loop));
                }
            }
        } else {
            body = events(t, path, true, forkDepth);
        }
        if (loops == 1 || body.empty() || loops == 0) {
            if (loops != 0)
                spec.program = std::move(body);
            return spec;
        }
        Op loop = makeOp(Op::Kind::Loop);
        loop.body = std::move(body);
        if (loops > 0) {
            loop.count = loops;
        } else if (!takesTime(loop.body)) {
            warn(path, t,
                "an endless thread without run, sleep or timer (after what is not modelled "
                "was dropped): its events run once");
            loop.count = 1;
        }
        spec.program.push_back(std::move(loop));
        return spec;
    }

    void tasks(const Value& tasks)
    {
        std::set<std::string> names;
        for (const auto& [name, t] : tasks.members) {
            const std::string p = child("/tasks", name);
            if (!t.isObject()) {
                fail(p, t, "expected a thread object, got " + t.describe());
                continue;
            }
            if (!names.insert(name).second) {
                fail(p, t, "a second thread named \"" + printable(name) + "\"");
                continue;
            }
            TaskSpec spec = thread(name, t, p, 0);
            if (spec.count && *spec.count == 0)
                continue; // instance 0: created only by fork events
            if (spec.count && *spec.count == 1)
                spec.count.reset();
            m_scenario.tasks.push_back(std::move(spec));
            m_taskOrigins.emplace_back(t.line, p);
        }
    }

    std::string m_file;
    ImportOptions m_options;
    ImportResult m_result;
    Scenario m_scenario;
    const Value* m_tasks = nullptr;
    std::unordered_map<std::string, const Value*> m_threads; ///< m_tasks' members by name
    Policy m_defaultPolicy = Policy::Normal;
    int m_maxCpu = -1;
    std::set<std::string> m_cgroups;
    std::vector<int> m_cgroupLines; ///< per scenario cgroup: the line of its "taskgroup"
    /// per scenario task: the line and JSON path of the rt-app thread it was imported from
    std::vector<std::pair<int, std::string>> m_taskOrigins;
    std::vector<std::string> m_forkStack;
    int m_forkCopies = 0;
    std::string m_thread; ///< the thread being imported (its own suspend resource)
};

} // namespace

std::vector<std::pair<std::string, std::string>> droppedSyncThreads(const Scenario& scenario)
{
    std::vector<std::pair<std::string, std::string>> out;
    const std::string prefix = kDroppedNote;
    for (const Annotation& a : scenario.annotations) {
        if (a.text.rfind(prefix, 0) != 0)
            continue;
        // " THREAD (EVENTS), THREAD (EVENTS); these threads do not wait there"
        std::string rest = a.text.substr(prefix.size());
        rest = rest.substr(0, rest.rfind(';'));
        size_t pos = 0;
        while (pos < rest.size()) {
            const size_t open = rest.find(" (", pos);
            const size_t close = open == std::string::npos ? open : rest.find(')', open);
            if (close == std::string::npos)
                break;
            std::string thread = rest.substr(pos, open - pos);
            thread.erase(0, thread.find_first_not_of(", "));
            out.emplace_back(thread, rest.substr(open + 2, close - open - 2));
            pos = close + 1;
        }
    }
    return out;
}

bool taskOfThread(const std::string& task, const std::string& thread)
{
    if (task == thread)
        return true;
    if (task.size() <= thread.size() + 1 || task.rfind(thread + "-", 0) != 0)
        return false;
    return std::all_of(task.begin() + static_cast<std::ptrdiff_t>(thread.size() + 1), task.end(),
        [](char c) { return c >= '0' && c <= '9'; });
}

ImportResult importRtApp(
    const std::string& text, const std::string& fileName, const ImportOptions& options)
{
    return Importer(fileName, options).run(text);
}

ImportResult importRtAppFile(const std::string& path, const ImportOptions& options)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ImportResult r;
        r.errors.push_back(path + ": cannot read the file");
        return r;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (ss.str().size() > ScenarioLimits::maxFileBytes) {
        ImportResult r;
        r.errors.push_back(path + ": larger than " + std::to_string(ScenarioLimits::maxFileBytes)
            + " bytes (docs/limits.md)");
        return r;
    }
    return importRtApp(ss.str(), path, options);
}

} // namespace schedlab::rtapp
