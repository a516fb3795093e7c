// SPDX-License-Identifier: GPL-2.0-or-later
// A real trace's workload as a scenario (replay.h).
#include "core/import/replay.h"

#include "core/base/cpuset.h"
#include "core/base/limits.h"
#include "core/kernel/profile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <unordered_set>

namespace schedlab {

namespace {

using Kind = TraceActivity::Kind;

/// Forks inside forks: a scenario nests programs up to ScenarioLimits::maxProgramNesting levels;
/// a child deeper than this starts as a task of its own at its fork time.
constexpr int kMaxForkDepth = 24;

/// Scenario names are free text, but a replay keeps them readable and unique: comm characters
/// other than letters, digits and ._-+:/# become '_'.
std::string cleanName(const std::string& s)
{
    std::string out;
    for (const char c : s)
        out += std::isalnum(static_cast<unsigned char>(c))
                || std::string_view("._-+:/#").find(c) != std::string_view::npos
            ? c
            : '_';
    if (out.empty())
        out = "task";
    return out.substr(0, ScenarioLimits::maxNameBytes - 16);
}

/// The kernel's p->prio as a policy: 0…99 RT (rt_priority = 99 − prio), 100…139 nice − 20…19,
/// -1 a deadline task (with its reservation when the runner's header gives it, else replayed
/// as a normal task, noted).
void applyPrio(TaskSpec& spec, std::optional<int> p, const std::optional<DlParams>& dl)
{
    const int prio = p.value_or(120);
    if (dl && (prio == -1 || !p)) {
        spec.policy = Policy::Deadline;
        spec.dl = dl;
    } else if (prio >= 0 && prio < 100) {
        spec.policy = Policy::Fifo;
        spec.rtPriority = 99 - prio;
    } else if (prio >= 100 && prio <= 139 && prio != 120) {
        spec.nice = prio - 120;
    }
}

/// The profile that models the release: the point release MAJOR.MINOR.PATCH itself when the fix
/// catalogue resolves it (kernel-model.md §1.4), else the profile of MAJOR.MINOR
/// (core/kernel/profile.cpp's `covers`).
std::string profileForRelease(const std::string& kernel)
{
    size_t p = 0;
    while (p < kernel.size() && !std::isdigit(static_cast<unsigned char>(kernel[p])))
        ++p;
    int major = 0;
    int minor = 0;
    int patch = 0;
    const int parts = std::sscanf(kernel.c_str() + p, "%d.%d.%d", &major, &minor, &patch);
    if (parts < 2)
        return {};
    if (parts == 3) {
        const std::string release =
            std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
        if (findProfile(release))
            return release;
    }
    const int v = major * 100 + minor;
    if (v < 612)
        return "6.6";
    if (v == 612)
        return "6.12";
    if (v < 700)
        return "6.13";
    if (v == 700)
        return "7.0";
    if (v < 703)
        return "7.1";
    return "7.3";
}

Op runOp(int64_t ns)
{
    Op op;
    op.kind = Op::Kind::Run;
    op.duration = DurationSpec::fixed(Nanoseconds(ns));
    return op;
}

Op sleepOp(int64_t ns)
{
    Op op;
    op.kind = Op::Kind::Sleep;
    op.duration = DurationSpec::fixed(Nanoseconds(ns));
    return op;
}

Op namedOp(Op::Kind kind, std::string name)
{
    Op op;
    op.kind = kind;
    op.name = std::move(name);
    return op;
}

/// One task's history turned into operations.
struct Builder
{
    enum class Phase { Unseen, Running, Runnable, Blocked, Dead };
    Phase phase = Phase::Unseen;
    std::vector<Op> ops;
    std::vector<std::pair<size_t, int>> forks; ///< (index in ops, child task)
    int64_t burst = 0;    ///< CPU time since it last became runnable, not yet emitted
    int64_t runStart = 0; ///< while Running
    int64_t blockedAt = 0;
    std::optional<int64_t> start; ///< creation time for a task not forked in the trace
    bool woken = false;           ///< its first event was a wakeup of a task asleep before
    int64_t runnableSince = 0;    ///< when it last became runnable (0: runnable from the start)

    void flush()
    {
        if (burst > 0)
            ops.push_back(runOp(burst));
        burst = 0;
    }
    void ranUntil(int64_t t)
    {
        if (phase == Phase::Running) {
            burst += std::max<int64_t>(0, t - runStart);
            runStart = t;
        }
    }
};

std::string completionOf(const std::string& name)
{
    return "wake:" + name;
}

} // namespace

bool isKernelThreadComm(const std::string& comm, int* cpu)
{
    static const char* const prefixes[] = {"kworker/", "ksoftirqd/", "migration/", "rcu_", "rcuc/",
        "rcuop/", "rcuos/", "kthreadd", "watchdog/", "cpuhp/", "idle_inject/", "irq/", "kcompactd",
        "kswapd", "khugepaged", "jbd2/", "kauditd", "oom_reaper", "writeback", "kblockd", "ksmd",
        "kintegrityd", "kdevtmpfs", "scsi_eh_", "khungtaskd", "pr/"};
    bool match = false;
    for (const char* p : prefixes)
        match = match || comm.rfind(p, 0) == 0;
    if (cpu) {
        *cpu = -1;
        // Per-CPU threads: "ksoftirqd/3", "migration/3", "cpuhp/3", "kworker/3:1" (not "u8:2").
        const size_t slash = comm.find('/');
        if (match && slash != std::string::npos && slash + 1 < comm.size()
            && std::isdigit(static_cast<unsigned char>(comm[slash + 1]))) {
            size_t e = slash + 1;
            int n = 0;
            while (e < comm.size() && std::isdigit(static_cast<unsigned char>(comm[e])) && n < 4096)
                n = n * 10 + (comm[e++] - '0');
            if (n < 4096 && (e == comm.size() || comm[e] == ':'))
                *cpu = n;
        }
    }
    return match;
}

ReplayScenario deriveScenario(const TraceImport& trace, const ReplayOptions& options)
{
    ReplayScenario out;
    Scenario& sc = out.scenario;
    const Metrics& m = trace.metrics;
    const size_t n = m.tasks.size();
    const int64_t end = std::max<int64_t>(m.durationNs, 1);
    const bool chainsWanted = options.wakeups == ReplayOptions::Wakeups::Chains;
    int machineCpus = options.cpus.value_or(0);
    if (machineCpus <= 0)
        machineCpus = trace.machineCpus > 0 ? trace.machineCpus
            : trace.scenarioCpus > 0        ? trace.scenarioCpus
                                            : trace.recording.cpus;
    machineCpus = std::clamp(machineCpus, 1, ScenarioLimits::maxCpus);

    // Each task's events, in order (the import keeps each task's own events in time order).
    std::vector<std::vector<uint32_t>> events(n);
    for (size_t i = 0; i < trace.activity.size(); ++i) {
        const auto task = static_cast<size_t>(trace.activity[i].task);
        if (task < n)
            events[task].push_back(static_cast<uint32_t>(i));
    }

    // Names: scenario task names are the trace's (cleaned, unique); forked children get the
    // model's PARENT.N names below.
    std::vector<std::string> names(n);
    {
        std::set<std::string> used;
        for (size_t i = 0; i < n; ++i) {
            std::string name = cleanName(m.tasks[i].name);
            for (int k = 2; used.count(name); ++k)
                name = cleanName(m.tasks[i].name) + "#" + std::to_string(k);
            used.insert(name);
            names[i] = name;
        }
    }

    // Pass 1: which wakeups are wake chains — a wakeup of a blocked task (or of one asleep since
    // before the trace) by a traced task, outside interrupt context. The sleeper's phase decides,
    // so it is followed through the sleeper's events first; the waker's side looks the pair up.
    std::unordered_set<uint32_t> chainAt; // activity index of the sleeper's Woken
    if (chainsWanted) {
        for (size_t i = 0; i < n; ++i) {
            bool blocked = true; // before its first event: asleep, if a wakeup comes first
            for (const uint32_t e : events[i]) {
                const TraceActivity& a = trace.activity[e];
                switch (a.kind) {
                case Kind::On:
                    blocked = false;
                    break;
                case Kind::Off:
                    blocked = a.detail != 0;
                    break;
                case Kind::Woken:
                    if (blocked && a.detail == 0 && a.other >= 0 && static_cast<size_t>(a.other) < n
                        && a.other != static_cast<int32_t>(i))
                        chainAt.insert(e);
                    blocked = false;
                    break;
                case Kind::Wakes:
                case Kind::Fork:
                    blocked = false;
                    break;
                }
            }
        }
    }

    // The run's own marks in the trace, per task and in time order: a task's `cpus` operation and
    // a SCHED_DEADLINE task's yields go into its program at the point of its CPU time they were
    // made; an affinity set by the run from outside becomes a `set` action at its time.
    struct Mark
    {
        int64_t time;
        const std::string* cpus; ///< null: a yield
    };
    std::vector<std::vector<Mark>> marks(n);
    std::vector<const TraceAffinity*> external;
    for (const TraceAffinity& c : trace.affinity)
        if (c.task >= 0 && static_cast<size_t>(c.task) < n) {
            if (c.self)
                marks[static_cast<size_t>(c.task)].push_back({c.time, &c.cpus});
            else
                external.push_back(&c);
        }
    for (size_t i = 0; i < n; ++i) {
        if (!trace.taskInfo[i].dl)
            continue;
        for (const int64_t y : trace.taskInfo[i].yields)
            marks[i].push_back({y, nullptr});
        std::stable_sort(marks[i].begin(), marks[i].end(),
            [](const Mark& x, const Mark& y) { return x.time < y.time; });
    }

    // Pass 2: the programs.
    std::vector<Builder> b(n);
    for (size_t i = 0; i < n; ++i) {
        Builder& t = b[i];
        const bool forked = trace.taskInfo[i].parent >= 0;
        size_t nextMark = 0;
        auto marksUpTo = [&](int64_t time) {
            for (; nextMark < marks[i].size() && marks[i][nextMark].time <= time; ++nextMark) {
                if (t.phase == Builder::Phase::Unseen || t.phase == Builder::Phase::Dead)
                    continue;
                const Mark& mk = marks[i][nextMark];
                t.ranUntil(mk.time);
                t.flush();
                if (mk.cpus) {
                    t.ops.push_back(namedOp(Op::Kind::Cpus, *mk.cpus));
                    ++out.affinityOps;
                } else {
                    Op y;
                    y.kind = Op::Kind::Yield;
                    t.ops.push_back(y);
                }
            }
        };
        for (const uint32_t e : events[i]) {
            const TraceActivity& a = trace.activity[e];
            if (t.phase == Builder::Phase::Dead)
                break;
            marksUpTo(a.time);
            if (t.phase == Builder::Phase::Unseen) {
                if (!forked && !t.start)
                    t.start = (a.kind == Kind::Woken && a.detail == 2) ? a.time : 0;
                if (a.kind == Kind::Woken && a.detail != 2) {
                    t.phase = Builder::Phase::Blocked; // asleep since before the trace
                    t.blockedAt = 0;
                } else if (a.kind == Kind::Woken) {
                    t.phase = Builder::Phase::Runnable;
                    t.runnableSince = a.time;
                    continue;
                } else if (a.kind == Kind::On) {
                    t.phase = Builder::Phase::Runnable;
                } else {
                    // Off, Wakes or Fork first: it was running when the trace began.
                    t.phase = Builder::Phase::Running;
                    t.runStart = a.kind == Kind::Off ? 0 : a.time;
                }
            }
            switch (a.kind) {
            case Kind::On:
                if (t.phase != Builder::Phase::Running) {
                    t.phase = Builder::Phase::Running;
                    t.runStart = a.time;
                }
                break;
            case Kind::Off:
                t.ranUntil(a.time);
                if (a.detail == 0) {
                    t.phase = Builder::Phase::Runnable;
                } else {
                    const bool exiting = a.detail != 1;
                    if (exiting && t.burst > 0 && !t.ops.empty()
                        && t.ops.back().kind == Op::Kind::Complete) {
                        // The end of an exit: the wake-up of its parent (exit_notify()) and what
                        // follows until the last switch are kernel work, so a preemption that
                        // wakeup asks for waits for it, as it does in the kernel under
                        // PREEMPT_LAZY; as a plain complete and run the woken parent took the CPU
                        // from its dying child, which stayed runnable until the parent's next
                        // fork picked it again.
                        Op section;
                        section.kind = Op::Kind::Kernel;
                        section.body.push_back(std::move(t.ops.back()));
                        section.body.push_back(runOp(t.burst));
                        t.ops.back() = std::move(section);
                        t.burst = 0;
                    } else {
                        t.flush();
                    }
                    t.phase = exiting ? Builder::Phase::Dead : Builder::Phase::Blocked;
                    t.blockedAt = a.time;
                }
                break;
            case Kind::Woken:
                if (t.phase != Builder::Phase::Blocked)
                    break; // already runnable (a wakeup racing the switch-out)
                if (chainAt.count(e)) {
                    t.ops.push_back(namedOp(Op::Kind::WaitCompletion, completionOf(names[i])));
                    ++out.chains;
                } else if (a.time > t.blockedAt) {
                    t.ops.push_back(sleepOp(a.time - t.blockedAt));
                    ++out.timedSleeps;
                }
                t.runnableSince = a.time;
                t.phase = Builder::Phase::Runnable;
                break;
            case Kind::Wakes:
                if (e == 0 || !chainAt.count(e - 1)) // its Woken directly precedes it
                    break;
                t.ranUntil(a.time);
                t.flush();
                t.ops.push_back(namedOp(Op::Kind::Complete, completionOf(names[a.other])));
                break;
            case Kind::Fork:
                t.ranUntil(a.time);
                t.flush();
                t.forks.emplace_back(t.ops.size(), a.other);
                t.ops.push_back(namedOp(Op::Kind::Fork, {}));
                ++out.forks;
                break;
            }
        }
        marksUpTo(end);
        // The end of the trace.
        switch (t.phase) {
        case Builder::Phase::Running:
        case Builder::Phase::Runnable:
            t.ranUntil(end);
            if (2 * (end - t.runnableSince) < end) {
                // Runnable only for the last part of the trace (a periodic thread woken just
                // before the end, a sleeper preempted there): the CPU time it had since its last
                // wakeup, then asleep past the end; what it would have done after the trace is
                // not in it. `run forever` here had it spin from wherever the model reached that
                // point, seconds before the end when the model ran its sleeps' wake-ups sooner
                // than the trace did (an `rcu_preempt` at 13 % of a CPU in the last 10 s of a
                // 120 s replay).
                t.flush();
                t.ops.push_back(sleepOp(end));
                break;
            }
            // Runnable through at least the second half of the trace: a CPU-bound task (perhaps
            // after a short block at its start), runnable until the end and past it.
            t.burst = 0;
            t.ops.push_back(runOp(0));
            t.ops.back().duration = DurationSpec::forEver();
            break;
        case Builder::Phase::Blocked:
            t.ops.push_back(sleepOp(end)); // asleep past the end
            break;
        case Builder::Phase::Unseen:
        case Builder::Phase::Dead:
            break;
        }
    }

    // Specs. A forked child is spliced into its parent's fork operation, deepest first (a
    // child's index is above its parent's); a child nested too deep starts on its own.
    std::vector<int> depth(n, 0);
    std::vector<bool> nested(n, false);
    for (size_t i = 0; i < n; ++i) {
        const int parent = trace.taskInfo[i].parent;
        if (parent >= 0 && static_cast<size_t>(parent) < i) {
            depth[i] = depth[static_cast<size_t>(parent)] + 1;
            nested[i] = depth[i] <= kMaxForkDepth;
            if (!nested[i])
                depth[i] = 0;
        }
    }
    std::vector<TaskSpec> specs(n);
    std::set<std::string> cgroups;
    int perCpuPinned = 0;
    int headerPinned = 0;
    int kernelThreads = 0;
    int prioChanged = 0;
    int deadline = 0;
    int reservations = 0;
    for (size_t i = 0; i < n; ++i) {
        TaskSpec& s = specs[i];
        const TraceTaskInfo& info = trace.taskInfo[i];
        s.name = names[i];
        applyPrio(s, info.prio, info.dl);
        deadline += info.prio == -1 && !info.dl ? 1 : 0;
        reservations += info.dl ? 1 : 0;
        prioChanged += info.prioChanged ? 1 : 0;
        if (!m.tasks[i].cgroup.empty() && m.tasks[i].cgroup != "/") {
            s.cgroup = m.tasks[i].cgroup;
            cgroups.insert(m.tasks[i].cgroup);
        }
        // The affinity the runner's header gives (the task's at its start), when it is not
        // every CPU of the replayed machine.
        if (!info.cpus.empty())
            if (const auto set = CpuSet::parse(info.cpus, machineCpus);
                set && !set->empty() && set->count() < machineCpus) {
                s.cpus = set->toString();
                ++headerPinned;
            }
        int cpu = -1;
        if (isKernelThreadComm(info.comm, &cpu)) {
            ++kernelThreads;
            if (!nested[i])
                s.kernelThread = true;
            if (cpu >= 0) {
                s.cpus = std::to_string(cpu);
                ++perCpuPinned;
            }
        }
    }
    // Tasks forked too deep start at their fork, as their own tasks.
    for (size_t i = 0; i < n; ++i) {
        const int parent = trace.taskInfo[i].parent;
        if (parent >= 0 && !nested[i]) {
            ++out.flattened;
            for (size_t e : events[i]) {
                b[i].start = trace.activity[e].time;
                break;
            }
        }
    }
    for (size_t k = n; k-- > 0;) {
        Builder& t = b[k];
        for (auto it = t.forks.rbegin(); it != t.forks.rend(); ++it) {
            const auto [at, child] = *it;
            if (static_cast<size_t>(child) >= n || !nested[static_cast<size_t>(child)]) {
                t.ops.erase(t.ops.begin() + static_cast<std::ptrdiff_t>(at));
                continue;
            }
            TaskSpec c = std::move(specs[static_cast<size_t>(child)]); // program set above
            c.name.clear();
            c.kernelThread = false;
            // A child inherits what it does not set: say what the trace showed.
            if (c.cgroup == specs[k].cgroup)
                c.cgroup.reset();
            else if (!c.cgroup)
                c.cgroup = "/";
            if (!c.nice && specs[k].nice)
                c.nice = 0;
            if (!c.policy && specs[k].policy)
                c.policy = Policy::Normal;
            if (!c.cpus && specs[k].cpus)
                c.cpus = "0-" + std::to_string(machineCpus - 1);
            t.ops[at].fork.push_back(std::move(c));
        }
        specs[k].program = std::move(t.ops);
        if (t.start && *t.start > 0)
            specs[k].start = DurationSpec::fixed(Nanoseconds(*t.start));
    }
    // Model names of forked children: PARENT.N, N counting the parent's forks in order.
    for (size_t i = 0; i < n; ++i) {
        if (nested[i])
            continue;
        // Walk this top-level task's fork tree, naming as the machine will.
        std::vector<std::pair<size_t, std::string>> stack{{i, names[i]}};
        while (!stack.empty()) {
            auto [task, modelName] = stack.back();
            stack.pop_back();
            out.traceNames[modelName] = m.tasks[task].name;
            int forkNo = 0; // the machine counts the forks it executes (flattened ones are gone)
            for (const auto& [at, child] : b[task].forks) {
                (void)at;
                if (static_cast<size_t>(child) < n && nested[static_cast<size_t>(child)])
                    stack.emplace_back(
                        static_cast<size_t>(child), modelName + "." + std::to_string(++forkNo));
            }
        }
    }
    for (size_t i = 0; i < n; ++i)
        if (!nested[i])
            sc.tasks.push_back(std::move(specs[i]));
    // Affinity set from outside during the run (taskset -p, a `set` action): the same action.
    int externalLost = 0;
    for (const TraceAffinity* c : external) {
        if (nested[static_cast<size_t>(c->task)]) {
            ++externalLost; // a forked child has no name an action can give
            continue;
        }
        Action act;
        act.kind = Action::Kind::Set;
        act.at = Nanoseconds(c->time);
        act.set.task = names[static_cast<size_t>(c->task)];
        act.set.cpus = c->cpus;
        sc.actions.push_back(std::move(act));
        ++out.affinityActions;
    }

    // The machine and the kernel.
    std::string base = m.scenario.substr(m.scenario.find_last_of('/') + 1);
    if (const size_t dot = base.rfind('.'); dot != std::string::npos && dot > 0)
        base.resize(dot);
    sc.name = options.name.empty() ? cleanName(base) + "-replay" : options.name;
    sc.machine.cpus = machineCpus;
    sc.duration = Nanoseconds(end);
    std::string profile = options.profile.value_or(profileForRelease(trace.kernel));
    if (!profile.empty() && findProfile(profile))
        sc.kernel.profile = profile;
    if (trace.hz > 0)
        sc.kernel.hz = trace.hz;
    if (!trace.preempt.empty())
        sc.kernel.preempt = enumFromName<Preempt>(trace.preempt);
    // The sched features the run started with and those its actions changed, at their times.
    sc.kernel.features = trace.features;
    for (const auto& [time, features] : trace.featureChanges) {
        Action act;
        act.kind = Action::Kind::Feature;
        act.at = Nanoseconds(time);
        act.features = features;
        sc.actions.push_back(std::move(act));
    }
    std::set<std::string> ancestors; // every ancestor too; std::set orders "/a" before "/a/b"
    for (const std::string& g : cgroups)
        for (size_t p = g.find('/', 1); p != std::string::npos; p = g.find('/', p + 1))
            ancestors.insert(g.substr(0, p));
    cgroups.merge(ancestors);
    int groupFiles = 0;
    for (const std::string& g : cgroups) {
        const auto it = trace.cgroupFiles.find(g);
        const CgroupFiles files = it != trace.cgroupFiles.end() ? it->second : CgroupFiles{};
        groupFiles += files != CgroupFiles{} ? 1 : 0;
        sc.cgroups.push_back({g, files, std::nullopt});
    }

    // What the trace does not say.
    auto& u = out.unknowns;
    u.push_back("CPU topology: " + std::to_string(*sc.machine.cpus)
        + " CPUs, no SMT or LLC structure (the trace does not record it)");
    if (trace.hz > 0 && !trace.preempt.empty())
        u.push_back("HZ " + std::to_string(trace.hz) + " and preemption " + trace.preempt
            + ": as the runner's header gives them");
    else
        u.push_back(std::string("HZ ")
            + (trace.hz > 0 ? std::to_string(trace.hz) + " from the runner's header"
                            : "the profile's default (the trace does not record it)")
            + ", the preemption model "
            + (!trace.preempt.empty() ? trace.preempt + " from the runner's header"
                                      : "the default (the trace does not record it)"));
    if (trace.kernel.empty())
        u.push_back("kernel release unknown: profile " + sc.kernel.profile.value_or("default"));
    else
        u.push_back("kernel " + trace.kernel + ": profile " + sc.kernel.profile.value_or("default")
            + " (releases between profiles differ by " + "the overrides of docs/kernel-model.md)");
    u.push_back("affinity: " + std::to_string(headerPinned)
        + " tasks pinned as the runner's header gives it (their affinity at their start), "
        + std::to_string(out.affinityOps) + " changes a task made itself and "
        + std::to_string(out.affinityActions)
        + " made from outside as the runner marked them in the trace"
        + (externalLost > 0
                ? " (" + std::to_string(externalLost) + " more on forked children not replayed)"
                : std::string())
        + "; a change by anything else is not in the trace; " + std::to_string(perCpuPinned)
        + " per-CPU kernel threads pinned by their name, every other task on every CPU");
    if (!cgroups.empty() && groupFiles > 0)
        u.push_back("cgroup files: " + std::to_string(groupFiles) + " of "
            + std::to_string(cgroups.size())
            + " groups as the runner set them at the start (a change during the run is not in "
              "the trace), the others at their defaults");
    else if (!cgroups.empty())
        u.push_back("cgroup weights and limits: defaults (the name map gives membership only)");
    else
        u.push_back("cgroups: none known (every task in the root; give a name map with cgroups)");
    u.push_back("interrupts, softirqs and untraced kernel threads: not replayed (their CPU time "
                "is missing from the model)");
    u.push_back("CPU frequency and capacity: constant (run times are the traced ones)");
    if (kernelThreads > 0)
        u.push_back(std::to_string(kernelThreads)
            + " traced kernel threads are replayed as tasks marked kernel_thread");
    if (prioChanged > 0)
        u.push_back(std::to_string(prioChanged)
            + " tasks printed more than one priority (PI boost, nice or chrt during the trace): "
              "the first is used");
    if (!trace.contextFlags)
        u.push_back("wakeup context: the trace has no irq-info flag column, so a wakeup from an "
                    "interrupt is taken as by the task it interrupted");
    u.push_back("time before the first event of each task: asleep, or runnable from 0");
    if (reservations > 0)
        u.push_back(std::to_string(reservations)
            + " SCHED_DEADLINE tasks with the reservation the runner's header gives, their jobs "
              "ending at their marked yields");
    if (deadline > 0)
        u.push_back(std::to_string(deadline)
            + " SCHED_DEADLINE tasks without a reservation in the trace (no runner header): "
              "replayed as normal tasks");
    std::string d = "Replay of " + m.scenario + " (" + std::to_string(n) + " tasks, "
        + std::to_string(out.chains) + " wake chains, " + std::to_string(out.timedSleeps)
        + " timed sleeps, " + std::to_string(out.forks) + " forks). Not in the trace:";
    for (const std::string& line : u)
        d += "\n- " + line;
    sc.description = d;
    nlohmann::ordered_json nameMap = nlohmann::ordered_json::object();
    for (const auto& [model, traced] : out.traceNames)
        nameMap[model] = traced;
    sc.userKeys[kReplayNamesKey] =
        nameMap.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return out;
}

std::map<std::string, std::string> replayTraceToModelNames(const Scenario& scenario)
{
    std::map<std::string, std::string> out;
    const auto it = scenario.userKeys.find(kReplayNamesKey);
    if (it == scenario.userKeys.end())
        return out;
    const auto j = nlohmann::json::parse(it->second, nullptr, false);
    if (!j.is_object())
        return out;
    for (auto e = j.begin(); e != j.end(); ++e)
        if (e.value().is_string())
            out[e.value().get<std::string>()] = e.key();
    return out;
}

ReplayFidelity replayFidelity(const Metrics& model, const Metrics& real)
{
    // Presentation figures (floating point is fine here: no scheduling decision reads them).
    ReplayFidelity f;
    std::map<std::string, const TaskMetrics*> byName;
    for (const TaskMetrics& t : real.tasks)
        byName[t.name] = &t;
    double log50 = 0;
    double log99 = 0;
    for (const TaskMetrics& m : model.tasks) {
        const auto it = byName.find(m.name);
        if (it == byName.end())
            continue;
        const TaskMetrics& r = *it->second;
        ++f.tasks;
        const double e = std::abs(m.share - r.share) * 100.0;
        f.shareErrorSumPp += e;
        if (e > f.shareErrorMaxPp) {
            f.shareErrorMaxPp = e;
            f.worstTask = m.name;
        }
        if (m.waitP50Ns > 0 && r.waitP50Ns > 0 && m.waitP99Ns > 0 && r.waitP99Ns > 0) {
            ++f.waitTasks;
            log50 += std::log(static_cast<double>(m.waitP50Ns) / static_cast<double>(r.waitP50Ns));
            log99 += std::log(static_cast<double>(m.waitP99Ns) / static_cast<double>(r.waitP99Ns));
        }
    }
    if (f.waitTasks > 0) {
        f.waitP50Ratio = std::exp(log50 / f.waitTasks);
        f.waitP99Ratio = std::exp(log99 / f.waitTasks);
    }
    return f;
}

} // namespace schedlab
