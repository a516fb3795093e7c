// SPDX-License-Identifier: GPL-2.0-or-later
// scenario -> rt-app JSON (docs/rtapp.md, "Export"); the import is in rtapp.cpp.
#include "core/base/cpuset.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/scenario/jsonreader.h"
#include "core/scenario/scenarioio.h"
#include "rtapp.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

namespace schedlab::rtapp {

namespace {

using scenariojson::child;

class Exporter
{
public:
    using Json = nlohmann::ordered_json;

    explicit Exporter(const Scenario& s)
        : m_s(s)
    { }

    ExportResult run()
    {
        Json root = Json::object();
        Json tasks = Json::object();
        for (const TaskSpec& t : m_s.tasks)
            m_names.insert(t.name);
        for (size_t i = 0; i < m_s.tasks.size() && !m_full; ++i) {
            m_current = m_s.tasks[i].name;
            m_taskIndex = i;
            append(tasks, m_s.tasks[i].name, task(m_s.tasks[i], "/tasks/" + std::to_string(i)));
        }
        if (m_full) {
            ExportResult r;
            r.errors.push_back("/tasks/" + std::to_string(m_fullTask)
                + ": the rt-app file would hold more than " + std::to_string(kMaxExportEvents)
                + " events (loops unrolled, forked threads written out): not exported "
                  "(docs/rtapp.md)");
            return r;
        }
        for (auto& [name, t] : m_templates.items())
            append(tasks, name, std::move(t));
        root["tasks"] = std::move(tasks);
        Json global = Json::object();
        const int64_t ns = m_s.durationOrDefault().count();
        const int64_t seconds = (ns + 999'999'999) / 1'000'000'000;
        if (ns % 1'000'000'000)
            warn("/duration",
                "rt-app counts whole seconds: " + std::to_string(seconds) + " s written");
        global["duration"] = seconds;
        global["calibration"] = "CPU0";
        global["default_policy"] = "SCHED_OTHER";
        global["log_basename"] = m_s.name;
        root["global"] = global;
        for (size_t i = 0; i < m_s.cgroups.size(); ++i)
            if (m_s.cgroups[i].files != CgroupFiles{} || m_s.cgroups[i].count)
                warn("/cgroups/" + std::to_string(i),
                    "rt-app creates task groups but sets no cgroup files (cpu.weight, cpu.max, "
                    "…) and no counts: set them on the board");
        for (size_t i = 0; i < m_s.actions.size(); ++i)
            warn("/actions/" + std::to_string(i),
                "actions (changes at a given time) have no rt-app equivalent: not exported");
        if (!m_s.kernel.features.empty() || !m_s.kernel.overrides.empty())
            warn("/kernel",
                "sched features and behaviour choices are kernel settings, not workload: set "
                "them on the board");
        ExportResult r;
        try {
            r.json = root.dump(1, '\t') + "\n";
        } catch (const Json::type_error&) {
            // Loaded scenarios are UTF-8; one built otherwise may not be.
            r.json.clear();
            r.errors.push_back("/: a name or path is not valid UTF-8: not exported");
        }
        r.warnings = std::move(m_warnings);
        return r;
    }

private:
    void warn(const std::string& path, const std::string& what)
    {
        // The same warning of a loop unrolled inside another is given once.
        if (m_warned.insert(path + ": " + what).second)
            m_warnings.push_back(path + ": " + what);
    }

    /// KEY: VALUE at the end of @p object, whose keys are unique by construction: without the
    /// linear key search of ordered_json's operator[], which made a large phase quadratic.
    static void append(Json& object, std::string key, Json value)
    {
        object.get_ref<Json::object_t&>().emplace_back(std::move(key), std::move(value));
    }

    int64_t usOf(const DurationSpec& d, const std::string& path)
    {
        if (d.endless)
            return m_s.durationOrDefault().count() / 1000; // forever, as far as the run goes
        int64_t ns = d.value.count();
        if (d.isUniform()) {
            ns = d.value.count() + (d.upper->count() - d.value.count()) / 2;
            warn(path, "a uniform random duration: its midpoint is written");
        }
        if (ns % 1000)
            warn(path, "rt-app counts whole µs: rounded");
        return (ns + 500) / 1000;
    }

    static bool isRuntime(const Op& op)
    {
        return op.kind == Op::Kind::Loop && op.forTime && !op.forTime->isUniform() && !op.count
            && op.body.size() == 1 && op.body[0].kind == Op::Kind::Run
            && !op.body[0].duration.endless && !op.body[0].duration.isUniform()
            && op.body[0].duration.value == std::min(op.forTime->value, kRuntimeQuantum);
    }

    struct Phases
    {
        Json phases = Json::object();
        Json current = Json::object();
        int64_t events = 0;
        Json attrs = Json::object(); ///< attributes every later phase carries
        bool attrsChanged = false;
        int64_t* total = nullptr; ///< events of the whole file (kMaxExportEvents)

        void flush()
        {
            if (current.empty())
                return;
            Json phase = Json::object();
            for (auto& [k, v] : attrs.items())
                phase[k] = v;
            phase["loop"] = 1;
            for (auto& [k, v] : current.items())
                append(phase, k, std::move(v));
            append(phases, "p" + std::to_string(phases.size()), std::move(phase));
            current = Json::object();
        }
        void event(const std::string& kind, Json value)
        {
            append(current, kind + std::to_string(events++), std::move(value));
            ++*total;
        }
    };

    /// Events flat() writes for @p ops inside a loop (nested loops unrolled or written once,
    /// as flat() does), saturating.
    static int64_t eventsOf(const std::vector<Op>& ops)
    {
        int64_t n = 0;
        for (const Op& op : ops) {
            switch (op.kind) {
            case Op::Kind::Run:
            case Op::Kind::Sleep:
            case Op::Kind::Yield:
            case Op::Kind::Lock:
            case Op::Kind::Unlock:
            case Op::Kind::Suspend:
            case Op::Kind::Resume:
            case Op::Kind::Fork:
                n = saturatingAdd(n, 1);
                break;
            case Op::Kind::Loop:
                if (isRuntime(op)) {
                    n = saturatingAdd(n, 1);
                } else {
                    const int64_t body = eventsOf(op.body);
                    n = saturatingAdd(n, unrolls(op, body) ? *op.count * body : body);
                }
                break;
            case Op::Kind::Kernel:
                n = saturatingAdd(n, eventsOf(op.body));
                break;
            case Op::Kind::Exit:
                return n;
            default:
                break;
            }
        }
        return n;
    }

    /// A loop nested below a phase is unrolled when it has a count and its unrolled events
    /// (@p bodyEvents each time) are at most kMaxUnrolledEvents.
    static bool unrolls(const Op& loop, int64_t bodyEvents)
    {
        return !loop.forTime && loop.count
            && saturatingMul(*loop.count, bodyEvents) <= kMaxUnrolledEvents;
    }

    /// The file's event budget is spent: stop writing (run() refuses the export).
    bool full()
    {
        if (m_total > kMaxExportEvents && !m_full) {
            m_full = true;
            m_fullTask = m_taskIndex;
        }
        return m_full;
    }

    // Flat events of @p ops into the current phase; loops become phases of their own.
    void flat(const std::vector<Op>& ops, Phases& ph, const std::string& path, bool top)
    {
        ph.total = &m_total;
        for (size_t i = 0; i < ops.size() && !full(); ++i) {
            const Op& op = ops[i];
            const std::string p = path + "/" + std::to_string(i);
            switch (op.kind) {
            case Op::Kind::Run:
                if (op.duration.endless && top) {
                    // Nothing after a run that never ends is reached: a phase of its own that
                    // rt-app repeats for good, so the thread runs up to the end of the run
                    // instead of exiting there.
                    ph.flush();
                    ph.event("run", usOf(op.duration, p));
                    ph.flush();
                    ph.phases.back()["loop"] = -1;
                    return;
                }
                ph.event("run", usOf(op.duration, p));
                break;
            case Op::Kind::Sleep:
                ph.event("sleep", usOf(op.duration, p));
                break;
            case Op::Kind::Yield:
                ph.event("yield", "");
                break;
            case Op::Kind::Lock:
            case Op::Kind::Unlock:
            case Op::Kind::Suspend:
            case Op::Kind::Resume:
                ph.event(std::string(enumName(op.kind)), op.name); // rt-app's events of that name
                break;
            case Op::Kind::Loop:
                if (isRuntime(op)) {
                    ph.event("runtime", usOf(*op.forTime, p));
                } else if (top && !op.forTime && hasNoLoop(op.body)) {
                    ph.flush();
                    Phases inner;
                    inner.total = &m_total;
                    inner.events = ph.events;
                    flat(op.body, inner, p + "/loop", false);
                    ph.events = inner.events;
                    Json phase = Json::object();
                    for (auto& [k, v] : ph.attrs.items())
                        phase[k] = v;
                    phase["loop"] = op.count.value_or(-1);
                    if (!op.count)
                        warn(p,
                            "an endless loop inside the program: a phase with \"loop\": -1 (rt-app "
                            "repeats it for good)");
                    for (auto& [k, v] : inner.current.items())
                        append(phase, k, std::move(v));
                    append(ph.phases, "p" + std::to_string(ph.phases.size()), std::move(phase));
                } else if (!unrolls(op, eventsOf(op.body))) {
                    warn(p,
                        "a loop nested this deep (bounded by time, endless, or of more than "
                            + std::to_string(kMaxUnrolledEvents)
                            + " events unrolled) has no rt-app equivalent: its body is written "
                              "once");
                    flat(op.body, ph, p + "/loop", false);
                } else {
                    const int64_t count = *op.count;
                    warn(p, "a nested loop: unrolled (" + std::to_string(count) + " times)");
                    for (int64_t k = 0; k < count && !full(); ++k)
                        flat(op.body, ph, p + "/loop", false);
                }
                break;
            case Op::Kind::Kernel:
                warn(p,
                    "a modelled kernel section: its steps are written as user-space events "
                    "(rt-app cannot enter the kernel)");
                flat(op.body, ph, p + "/kernel", false);
                break;
            case Op::Kind::Nice:
            case Op::Kind::Cpus:
            case Op::Kind::Cgroup:
                ph.flush();
                if (op.kind == Op::Kind::Nice)
                    ph.attrs["priority"] = op.nice;
                else if (op.kind == Op::Kind::Cpus)
                    ph.attrs["cpus"] = cpuArray(op.name);
                else
                    ph.attrs["taskgroup"] = op.name;
                break;
            case Op::Kind::Fork: {
                // rt-app forks a named thread description: the child becomes a thread with
                // "instance": 0 (created only by the fork).
                std::string name = m_current + "_fork";
                for (int k = 1; m_names.contains(name); ++k)
                    name = m_current + "_fork" + std::to_string(k);
                m_names.insert(name);
                if (op.wait)
                    warn(p,
                        "fork with wait: rt-app does not wait for the child, the parent goes on");
                const std::string parent = m_current;
                m_current = name;
                Json child = Json::object();
                child["instance"] = 0;
                const Json body = task(op.fork.at(0), p + "/fork/0");
                for (const auto& [k, v] : body.items())
                    child[k] = v;
                m_current = parent;
                append(m_templates, name, std::move(child));
                ph.event("fork", name);
                break;
            }
            case Op::Kind::Exit:
                warn(p, "exit: the thread's events stop here (later ones are not exported)");
                return;
            case Op::Kind::Cookie:
                warn(p, "core-scheduling cookies have no rt-app equivalent: not exported");
                break;
            case Op::Kind::Write:
                warn(p, "cgroup writes have no rt-app equivalent: not exported");
                break;
            case Op::Kind::Complete:
            case Op::Kind::WaitCompletion:
                warn(p,
                    "completions have no rt-app equivalent (its suspend/resume lose a resume "
                    "that comes first): not exported");
                break;
            case Op::Kind::CpuClock:
                warn(p, "CPU-clock reads have no rt-app equivalent: not exported");
                break;
            }
        }
    }

    static bool hasNoLoop(const std::vector<Op>& ops)
    {
        return std::all_of(ops.begin(), ops.end(), [](const Op& o) {
            return (o.kind != Op::Kind::Loop || isRuntime(o)) && o.kind != Op::Kind::Kernel
                && o.kind != Op::Kind::Nice && o.kind != Op::Kind::Cpus
                && o.kind != Op::Kind::Cgroup && o.kind != Op::Kind::Exit;
        });
    }

    Json cpuArray(const std::string& list)
    {
        Json a = Json::array();
        if (auto set = CpuSet::parse(list, ScenarioLimits::maxCpus))
            for (int c = set->first(); c >= 0; c = set->next(c))
                a.push_back(c);
        return a;
    }

    Json task(const TaskSpec& t, const std::string& path)
    {
        Json j = Json::object();
        if (t.count)
            j["instance"] = *t.count;
        const Policy pol = t.policy.value_or(Policy::Normal);
        static const char* const kPolicy[] = {
            "SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE", "SCHED_FIFO", "SCHED_RR", "SCHED_DEADLINE"};
        if (pol != Policy::Normal)
            j["policy"] = kPolicy[static_cast<int>(pol)];
        if (pol == Policy::Deadline && t.dl) {
            // dl-runtime, dl-period, dl-deadline in µs (rt-app's unit).
            j["dl-runtime"] =
                usOf(DurationSpec::fixed(Nanoseconds(t.dl->runtime)), path + "/runtime");
            j["dl-period"] =
                usOf(DurationSpec::fixed(Nanoseconds(t.dl->effectivePeriod())), path + "/period");
            j["dl-deadline"] =
                usOf(DurationSpec::fixed(Nanoseconds(t.dl->deadline)), path + "/deadline");
            if (t.dl->flags)
                warn(path + "/flags", "rt-app sets no sched_flags (reclaim): not exported");
        }
        if (pol == Policy::Fifo || pol == Policy::RoundRobin)
            j["priority"] = t.rtPriority.value_or(10);
        else if (t.nice)
            j["priority"] = *t.nice;
        if (t.cpus)
            j["cpus"] = cpuArray(*t.cpus);
        if (t.cgroup && *t.cgroup != "/")
            j["taskgroup"] = *t.cgroup;
        if (t.start)
            j["delay"] = usOf(*t.start, path + "/start");
        if (t.slice)
            warn(path + "/slice",
                "a custom slice (sched_attr.sched_runtime) is not an rt-app "
                "setting: not exported");
        if (t.cookie)
            warn(path + "/cookie", "core-scheduling cookies have no rt-app equivalent");
        if (t.probe)
            warn(path + "/probe",
                "a probe's latency measurement has no rt-app equivalent: "
                "exported as a plain thread");
        const std::vector<Op>* body = &t.program;
        int64_t loops = 1;
        if (t.program.size() == 1 && t.program[0].kind == Op::Kind::Loop && !t.program[0].forTime
            && !isRuntime(t.program[0])) {
            loops = t.program[0].count.value_or(-1);
            body = &t.program[0].body;
        }
        j["loop"] = loops;
        Phases ph;
        flat(*body, ph, path + "/program" + (body == &t.program ? "" : "/0/loop"), true);
        ph.flush();
        // One phase without phase attributes: its events go straight into the thread object.
        if (ph.phases.size() == 1 && ph.attrs.empty()) {
            Json only = std::move(ph.phases.begin().value());
            const Json count = only["loop"];
            if (count == 1 || loops == 1) {
                if (loops == 1)
                    j["loop"] = count;
                for (auto& [k, v] : only.items())
                    if (k != "loop")
                        append(j, k, std::move(v)); // event keys: none of j's attributes
                return j;
            }
            ph.phases.begin().value() = std::move(only);
        }
        if (ph.phases.empty()) {
            j["loop"] = 1;
            return j;
        }
        j["phases"] = std::move(ph.phases);
        return j;
    }

    const Scenario& m_s;
    std::vector<std::string> m_warnings;
    std::set<std::string> m_warned;
    int64_t m_total = 0; ///< events written so far (kMaxExportEvents)
    bool m_full = false;
    size_t m_taskIndex = 0;        ///< the scenario task being written
    size_t m_fullTask = 0;         ///< the task during which the budget ran out
    std::string m_current;         ///< the thread being written (fork templates are named after it)
    std::set<std::string> m_names; ///< thread names in use
    Json m_templates = Json::object(); ///< forked children, "instance": 0
};

} // namespace

ExportResult exportRtApp(const Scenario& scenario)
{
    return Exporter(scenario).run();
}

} // namespace schedlab::rtapp
