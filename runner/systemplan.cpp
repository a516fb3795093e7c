// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run's system plan: where cgroup v2 and tracefs are, the cgroups, files and settings a
// run changes (planSystem, printed by --check). The process control is in system.cpp.
#include "core/base/cpuset.h"
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/scenario/jsonvalues.h"
#include "system.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace schedlab::runner {

namespace {

const char* const kEvents[] = {"sched_switch", "sched_wakeup", "sched_wakeup_new",
    "sched_migrate_task", "sched_process_fork", "sched_process_exit"};

std::string parentPath(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

} // namespace

// The cgroup files of @p f as (file, value) pairs, in the order they are written: cpu.idle 0
// before the weights and cpu.idle 1 after them, since the kernel refuses a weight while the group
// is idle (EINVAL); the model writes them in the same order (writeWeightFiles(),
// docs/scenario-format.md §1.5).
std::vector<std::pair<std::string, std::string>> cgroupFileValues(const CgroupFiles& f)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (f.idle && !*f.idle)
        out.emplace_back("cpu.idle", "0");
    if (f.weight)
        out.emplace_back("cpu.weight", std::to_string(*f.weight));
    if (f.weightNice)
        out.emplace_back("cpu.weight.nice", std::to_string(*f.weightNice));
    if (f.cpuMax)
        out.emplace_back("cpu.max",
            (f.cpuMax->quotaUs ? std::to_string(*f.cpuMax->quotaUs) : "max") + " "
                + std::to_string(f.cpuMax->periodUs));
    if (f.idle && *f.idle)
        out.emplace_back("cpu.idle", "1");
    return out;
}

std::string cgroup2Mount()
{
    std::ifstream mounts("/proc/self/mounts");
    std::string dev, dir, type, rest;
    while (mounts >> dev >> dir >> type && std::getline(mounts, rest))
        if (type == "cgroup2")
            return dir;
    return {};
}

bool hasCpuController(const std::string& dir)
{
    std::istringstream words(readKernelFile(dir + "/cgroup.controllers").value_or(""));
    for (std::string w; words >> w;)
        if (w == "cpu")
            return true;
    return false;
}

std::string tracefsDir(const std::string& preferred)
{
    for (const std::string& d : {preferred, std::string("/sys/kernel/debug/tracing")})
        if (pathExists(d + "/trace"))
            return d;
    return {};
}

SystemPlan planSystem(const Scenario& s, const Plan& plan, const RunConfig& config)
{
    SystemPlan sp;
    const int pid = config.pid > 0 ? config.pid : static_cast<int>(getpid());
    const std::string tag = "schedlab-" + std::to_string(pid);
    auto add = [&sp](SystemChange::Kind kind, const std::string& path, const std::string& value,
                   OldValue how, const std::string& why) {
        sp.setup.push_back({kind, path, value, how, why});
    };
    auto strip = [](std::string p) {
        while (p.size() > 1 && p.back() == '/')
            p.pop_back();
        return p;
    };

    // The journal: /run (a tmpfs, root's) or beside the trace.
    if (!config.journal.empty()) {
        sp.journal = config.journal;
    } else {
        struct stat st
        { };
        if (::stat("/run", &st) == 0 && S_ISDIR(st.st_mode)) {
            sp.journal = "/run/schedlab-run-" + std::to_string(pid) + ".journal";
        } else {
            const size_t slash = config.traceOut.rfind('/');
            const std::string dir =
                slash == std::string::npos ? "." : config.traceOut.substr(0, slash + 1);
            sp.journal = (dir == "." ? std::string("./") : dir) + "schedlab-run-"
                + std::to_string(pid) + ".journal";
        }
    }

    // Mounts, only where nothing is mounted.
    sp.cgroupMount = strip(config.cgroupMount.empty() ? cgroup2Mount() : config.cgroupMount);
    if (sp.cgroupMount.empty()) {
        sp.cgroupMount = "/sys/fs/cgroup";
        add(SystemChange::Kind::Mount, sp.cgroupMount, "cgroup2", OldValue::None,
            "no cgroup v2 hierarchy is mounted");
    }
    bool needDebugfs = !s.kernel.features.empty() || s.kernel.baseSlice || s.kernel.preempt;
    for (const Action& a : s.actions)
        needDebugfs = needDebugfs || a.kind == Action::Kind::Feature;
    if (needDebugfs && !pathExists(config.debugfs + "/sched"))
        add(SystemChange::Kind::Mount, config.debugfs, "debugfs", OldValue::None,
            "sched features, base_slice_ns and preempt are in debugfs");
    if (!config.traceOut.empty()) {
        sp.tracefs = tracefsDir(config.tracefs);
        if (sp.tracefs.empty()) {
            sp.tracefs = config.tracefs;
            add(SystemChange::Kind::Mount, sp.tracefs, "tracefs", OldValue::None, "tracing");
        }
        sp.instance = sp.tracefs + "/instances/" + tag;
    }

    // Kernel settings.
    const std::string featuresFile = config.debugfs + "/sched/features";
    for (const auto& [name, on] : s.kernel.features)
        add(SystemChange::Kind::Write, featuresFile, (on ? "" : "NO_") + name, OldValue::Feature,
            "/kernel/features/" + name);
    if (s.kernel.baseSlice)
        add(SystemChange::Kind::Write, config.debugfs + "/sched/base_slice_ns",
            std::to_string(s.kernel.baseSlice->count()), OldValue::Plain, "/kernel/base_slice");
    if (s.kernel.preempt) {
        add(SystemChange::Kind::Write, config.debugfs + "/sched/preempt",
            std::string(enumName(*s.kernel.preempt)), OldValue::Preempt, "/kernel/preempt");
    }

    // The cgroups: a subtree of the run's own, or below a directory the user named.
    std::set<std::string> made;    // directories the scenario's groups use
    std::set<std::string> created; // of which the run creates (files in them are not journaled)
    auto inCreated = [&created](const std::string& file) {
        return created.count(file.substr(0, file.rfind('/'))) ? OldValue::None : OldValue::Plain;
    };
    if (config.cgroupBase.empty()) {
        sp.base = sp.cgroupMount + "/" + tag;
        if (pathExists(sp.base)) {
            sp.existing.push_back("/ (" + sp.base + ")");
            if (!config.adopt)
                sp.errors.push_back(sp.base
                    + " exists already (left by a killed run? undo it "
                      "with schedlab-run --restore JOURNAL)");
        } else {
            // Without groups the tasks need no controller: the subtree is then no cpu group,
            // and its tasks compete as tasks of the root, as in the model.
            if (!plan.cgroups.empty())
                add(SystemChange::Kind::Write, sp.cgroupMount + "/cgroup.subtree_control", "+cpu",
                    OldValue::SubtreeCpu, "the cpu controller for the run's subtree");
            add(SystemChange::Kind::Mkdir, sp.base, {}, OldValue::None,
                "the run's subtree (the scenario's /)");
            sp.baseCreated = true;
            made.insert(sp.base);
            created.insert(sp.base);
        }
    } else {
        sp.base = strip(config.cgroupBase);
        struct stat st
        { };
        if (::stat(sp.base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            sp.errors.push_back("--cgroup-base " + sp.base + ": no such directory");
    }
    sp.rootTasks = sp.base;
    if (!plan.cgroups.empty()) {
        add(SystemChange::Kind::Write, sp.base + "/cgroup.subtree_control", "+cpu",
            sp.baseCreated ? OldValue::None : OldValue::SubtreeCpu,
            "the cpu controller for the scenario's groups");
        if (sp.baseCreated) {
            // A cgroup with a controller on in subtree_control holds no processes (the
            // no-internal-process rule; the real root is exempt).
            sp.rootTasks = sp.base + "/.root";
            add(SystemChange::Kind::Mkdir, sp.rootTasks, {}, OldValue::None,
                "the tasks of the scenario's /");
            made.insert(sp.rootTasks);
            created.insert(sp.rootTasks);
            bool rootTasks = false;
            for (const TaskPlan& t : plan.tasks)
                rootTasks = rootTasks || t.cgroup == "/";
            if (rootTasks)
                sp.notes.push_back("/tasks: the tasks of / run in " + sp.rootTasks
                    + ", a group of their own beside the scenario's groups (in the model they "
                      "are tasks of the root beside the groups); --cgroup-base "
                    + sp.cgroupMount + " runs them in the real root (the lab does)");
        }
        std::set<std::string> withController; // groups whose children need +cpu
        for (const std::string& path : plan.cgroups) {
            for (size_t p = 1; p <= path.size(); ++p) {
                if (p != path.size() && path[p] != '/')
                    continue;
                const std::string sub = path.substr(0, p);
                const std::string dir = sp.cgroupDir(sub);
                if (made.count(dir))
                    continue;
                const std::string parent = parentPath(sub);
                if (parent != "/" && withController.insert(parent).second)
                    add(SystemChange::Kind::Write, sp.cgroupDir(parent) + "/cgroup.subtree_control",
                        "+cpu",
                        created.count(sp.cgroupDir(parent)) ? OldValue::None : OldValue::SubtreeCpu,
                        "the cpu controller for " + parent + "'s groups");
                made.insert(dir);
                if (sp.baseCreated && pathExists(sp.cgroupMount + sub))
                    sp.untouched.push_back(sub + " (" + sp.cgroupMount + sub + ")");
                if (pathExists(dir)) {
                    sp.existing.push_back(sub + " (" + dir + ")");
                    if (!config.adopt)
                        sp.errors.push_back("cgroup " + sub + ": " + dir
                            + " exists; the run would write its cpu.* files and move tasks "
                              "into it. Refused: name another --cgroup-base, or --adopt it "
                              "(dangerous)");
                } else {
                    add(SystemChange::Kind::Mkdir, dir, {}, OldValue::None, "/cgroups: " + sub);
                    created.insert(dir);
                }
            }
        }
    }
    for (size_t i = 0; i < s.cgroups.size(); ++i) {
        const CgroupSpec& g = s.cgroups[i];
        const int n = g.count.value_or(0);
        for (int k = 0; k < std::max(n, 1); ++k) {
            const std::string path = n ? g.path + "-" + std::to_string(k + 1) : g.path;
            for (const auto& [file, value] : cgroupFileValues(g.files)) {
                const std::string f = sp.cgroupDir(path) + "/" + file;
                add(SystemChange::Kind::Write, f, value, inCreated(f),
                    "/cgroups/" + std::to_string(i));
            }
        }
    }

    // Tracing: an instance of the run's own, so the top-level buffer, its tracer, events and
    // buffer size are never touched.
    if (!sp.instance.empty()) {
        add(SystemChange::Kind::Mkdir, sp.instance, {}, OldValue::None, "the run's trace instance");
        add(SystemChange::Kind::Write, sp.instance + "/tracing_on", "0", OldValue::None, "tracing");
        add(SystemChange::Kind::Write, sp.instance + "/buffer_size_kb",
            std::to_string(config.bufferKb), OldValue::None, "tracing");
        for (const char* e : kEvents)
            add(SystemChange::Kind::Write, sp.instance + "/events/sched/" + e + "/enable", "1",
                OldValue::None, "tracing");
    }

    // What the actions change when they happen.
    const int64_t duration =
        config.durationNs > 0 ? config.durationNs : s.durationOrDefault().count();
    for (size_t i = 0; i < s.actions.size(); ++i) {
        const Action& a = s.actions[i];
        if (a.at.count() >= duration)
            continue;
        const std::string why = "/actions/" + std::to_string(i) + " at " + formatDuration(a.at);
        if (a.kind == Action::Kind::Feature)
            for (const auto& [name, on] : a.features)
                sp.during.push_back({SystemChange::Kind::Write, featuresFile,
                    (on ? "" : "NO_") + name, OldValue::Feature, why});
        if (a.kind == Action::Kind::Move)
            sp.during.push_back({SystemChange::Kind::Write,
                (a.cgroup == "/" ? sp.rootTasks : sp.cgroupDir(a.cgroup)) + "/cgroup.procs",
                "the pids of " + a.task, OldValue::None, why});
        if (a.kind == Action::Kind::Set && a.set.cgroup)
            for (const auto& [file, value] : cgroupFileValues(a.set.files)) {
                const std::string f = sp.cgroupDir(*a.set.cgroup) + "/" + file;
                sp.during.push_back({SystemChange::Kind::Write, f, value, inCreated(f), why});
            }
    }
    return sp;
}

void printSystemPlan(const SystemPlan& sp, std::ostream& out)
{
    const auto isProcs = [](const std::string& path) {
        const std::string procs = "/cgroup.procs";
        return path.size() > procs.size()
            && path.compare(path.size() - procs.size(), procs.size(), procs) == 0;
    };
    auto line = [&out, &isProcs](const SystemChange& c) {
        switch (c.kind) {
        case SystemChange::Kind::Mount:
            out << "  mount -t " << c.value << " " << c.path;
            break;
        case SystemChange::Kind::Mkdir:
            out << "  mkdir " << c.path;
            break;
        case SystemChange::Kind::Write:
            out << "  write " << c.path << " \"" << c.value << "\"";
            if (c.how == OldValue::SubtreeCpu)
                out << " (unless cpu is on already)";
            break;
        }
        out << "   # " << c.why
            << (c.kind != SystemChange::Kind::Write ? ", removed at the end"
                       : isProcs(c.path)            ? " (the run's own processes)"
                       : c.how == OldValue::None    ? " (in what the run made)"
                                                    : ", old value journaled")
            << "\n";
    };
    out << "schedlab-run: the run would change (journal " << sp.journal
        << "; all undone at its end):\n";
    for (const SystemChange& c : sp.setup)
        line(c);
    if (!sp.during.empty())
        out << "schedlab-run: and during the run:\n";
    for (const SystemChange& c : sp.during)
        line(c);
    out << "schedlab-run: tasks of / go into " << sp.rootTasks << ", group /G into " << sp.base
        << "/G\n";
    for (const std::string& u : sp.untouched)
        out << "schedlab-run: the machine's cgroup " << u
            << " is not touched: the scenario's group of that name is made in the run's subtree\n";
    for (const std::string& e : sp.existing)
        out << "schedlab-run: existing cgroup " << e
            << (sp.errors.empty() ? ": adopted (--adopt): its cpu.* files are journaled and "
                                    "restored, tasks are moved into it"
                                  : ": refused (--adopt would use it)")
            << "\n";
}

} // namespace schedlab::runner
