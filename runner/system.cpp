// SPDX-License-Identifier: GPL-2.0-or-later
#include "system.h"

#include "core/base/atomicfile.h"
#include "core/base/cpuset.h"
#include "core/scenario/jsonvalues.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <ostream>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedlab::runner {

namespace {

constexpr int kMaxEntries = 4096;
constexpr int kMaxMutexes = 256;

struct SharedEntry
{
    int pid;
    char name[96];
    char cgroup[96];
};

// Shared by the runner and every task process (MAP_SHARED before the first fork).
struct Shared
{
    std::atomic<int64_t> t0;
    std::atomic<int> count;
    SharedEntry entries[kMaxEntries];
    pthread_mutex_t mutexes[kMaxMutexes];
    // The wait queues of suspend/resume: a condition variable and its mutex each.
    struct WaitQueue
    {
        pthread_mutex_t lock;
        pthread_cond_t cond;
    } waitQueues[kMaxMutexes];
};

// struct sched_attr of sched_setattr(2) (the first version, 48 bytes).
struct SchedAttr
{
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
};

int64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void sleepUntil(int64_t ns)
{
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) { }
}

/// Writes @p text to a kernel file in one write(2); "" on success, else the reason.
std::string writeKernelFile(const std::string& path, const std::string& text)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return path + ": " + std::strerror(errno);
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int e = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size()))
        return path + ": writing \"" + text + "\": " + std::strerror(n < 0 ? e : EIO);
    return {};
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool exists(const std::string& path)
{
    struct stat st
    { };
    return ::stat(path.c_str(), &st) == 0;
}

uint32_t linuxPolicy(Policy p)
{
    switch (p) {
    case Policy::Normal:
        return 0; // SCHED_OTHER
    case Policy::Fifo:
        return 1;
    case Policy::RoundRobin:
        return 2;
    case Policy::Batch:
        return 3;
    case Policy::Idle:
        return 5;
    }
    return 0;
}

/// Task attributes as set through sched_setattr, setpriority and sched_setaffinity.
struct Attributes
{
    std::optional<std::string> cpus;
    std::optional<int> nice;
    std::optional<Policy> policy;
    std::optional<int> rtPriority;
    std::optional<Nanoseconds> slice;
};

class Runner
{
public:
    Runner(const Scenario& s, const Plan& p, const RunConfig& c, std::ostream& err)
        : m_s(s)
        , m_plan(p)
        , m_config(c)
        , m_err(err)
    { }
    int run();

private:
    std::string cgroupDir(const std::string& path) const
    {
        return path == "/" ? m_base : m_base + path;
    }
    void warn(const std::string& what) { m_err << "schedlab-run: " << what << "\n"; }
    /// With @p inherit, unset CPUs keep the inherited affinity (a forked child).
    std::string applyAttributes(pid_t pid, const Attributes& a, bool inherit = false) const;
    std::string writeCgroupFiles(const std::string& path, const CgroupFiles& f) const;
    pid_t startTask(const TaskSpec& spec, const std::string& name, const std::string& cgroup,
        int64_t startNs, bool waitForGo);
    /// @p inCgroup: the process is in @p cgroup already (a child forked there), so it is not
    /// moved: a write to cgroup.procs migrates even to the same group and waits for an RCU
    /// grace period, several milliseconds under emulation.
    [[noreturn]] void taskMain(const TaskSpec& spec, const std::string& name,
        const std::string& cgroup, int64_t startNs, bool waitForGo, bool inCgroup = false);
    void registerTask(const std::string& name, const std::string& cgroup);
    std::vector<pid_t> pidsOf(const std::string& name) const;
    void action(const Action& a, int index);
    std::string features(const std::map<std::string, bool>& f) const;
    bool writeTrace();
    void cleanUp();

    const Scenario& m_s;
    const Plan& m_plan;
    const RunConfig& m_config;
    std::ostream& m_err;
    std::string m_base;
    std::string m_tracefs;
    Shared* m_shared = nullptr;
    std::map<std::string, int> m_mutexIndex;
    std::map<std::string, int> m_waitQueueIndex;
    int m_readyPipe[2] = {-1, -1};
    int m_goPipe[2] = {-1, -1};
    pid_t m_pgid = 0;
    std::vector<std::string> m_createdCgroups;
    std::vector<std::pair<std::string, std::string>> m_cpuStat; ///< group → cpu.stat at the end
    std::string m_oldFeatures; ///< debugfs sched/features before the run
    std::vector<std::pair<std::string, std::string>> m_restore; ///< debugfs files to restore
};

Attributes attributesOf(const TaskSpec& t)
{
    return {t.cpus, t.nice, t.policy, t.rtPriority, t.slice};
}

std::string Runner::applyAttributes(pid_t pid, const Attributes& a, bool inherit) const
{
    std::string problems;
    // The scenario's machine is CPUs 0 … cpus-1 of this one.
    const auto set = a.cpus ? CpuSet::parse(*a.cpus, m_plan.cpus) : CpuSet::all(m_plan.cpus);
    if (set && (a.cpus || !inherit)) {
        cpu_set_t mask;
        CPU_ZERO(&mask);
        for (int c = set->first(); c >= 0; c = set->next(c))
            CPU_SET(c, &mask);
        if (sched_setaffinity(pid, sizeof mask, &mask) != 0)
            problems += std::string(" affinity: ") + std::strerror(errno) + ";";
    }
    if (a.policy || a.slice || a.rtPriority) {
        SchedAttr attr{};
        attr.size = sizeof attr;
        const Policy p = a.policy.value_or(Policy::Normal);
        attr.policy = linuxPolicy(p);
        if (p == Policy::Fifo || p == Policy::RoundRobin)
            attr.priority = static_cast<uint32_t>(a.rtPriority.value_or(1));
        attr.nice = a.nice.value_or(0);
        if (a.slice && (p == Policy::Normal || p == Policy::Batch))
            attr.runtime = static_cast<uint64_t>(a.slice->count()); // custom slice (6.12+)
        if (syscall(SYS_sched_setattr, pid, &attr, 0) != 0)
            problems +=
                " sched_setattr(" + std::string(enumName(p)) + "): " + std::strerror(errno) + ";";
    } else if (a.nice) {
        if (setpriority(PRIO_PROCESS, static_cast<id_t>(pid), *a.nice) != 0)
            problems += std::string(" nice: ") + std::strerror(errno) + ";";
    }
    return problems;
}

std::string Runner::writeCgroupFiles(const std::string& path, const CgroupFiles& f) const
{
    const std::string dir = cgroupDir(path);
    std::string problems;
    auto put = [&](const char* file, const std::string& value) {
        const std::string e = writeKernelFile(dir + "/" + file, value);
        if (!e.empty())
            problems += " " + e + ";";
    };
    if (f.weight)
        put("cpu.weight", std::to_string(*f.weight));
    if (f.weightNice)
        put("cpu.weight.nice", std::to_string(*f.weightNice));
    if (f.cpuMax)
        put("cpu.max",
            (f.cpuMax->quotaUs ? std::to_string(*f.cpuMax->quotaUs) : "max") + " "
                + std::to_string(f.cpuMax->periodUs));
    if (f.idle)
        put("cpu.idle", *f.idle ? "1" : "0");
    return problems;
}

void Runner::registerTask(const std::string& name, const std::string& cgroup)
{
    const int i = m_shared->count.fetch_add(1);
    if (i >= kMaxEntries)
        return;
    SharedEntry& e = m_shared->entries[i];
    e.pid = static_cast<int>(getpid());
    std::snprintf(e.name, sizeof e.name, "%s", name.c_str());
    std::snprintf(e.cgroup, sizeof e.cgroup, "%s", cgroup.c_str());
}

std::vector<pid_t> Runner::pidsOf(const std::string& name) const
{
    std::vector<pid_t> pids;
    const int n = std::min(m_shared->count.load(), kMaxEntries);
    for (int i = 0; i < n; ++i)
        if (name == m_shared->entries[i].name)
            pids.push_back(m_shared->entries[i].pid);
    return pids;
}

void Runner::taskMain(const TaskSpec& spec, const std::string& name, const std::string& cgroup,
    int64_t startNs, bool waitForGo, bool inCgroup)
{
    prctl(PR_SET_NAME, name.substr(0, 15).c_str());
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    registerTask(name, cgroup);
    std::string problems;
    if (!inCgroup)
        if (const std::string e = writeKernelFile(cgroupDir(cgroup) + "/cgroup.procs", "0");
            !e.empty())
            problems += " " + e + ";";
    problems += applyAttributes(0, attributesOf(spec), !waitForGo && startNs < 0);
    if (!problems.empty())
        m_err << "schedlab-run: task " << name << ":" << problems << "\n" << std::flush;
    if (waitForGo) {
        char c = 0;
        (void)!::write(m_readyPipe[1], &c, 1);
        while (::read(m_goPipe[0], &c, 1) < 0 && errno == EINTR) { }
    }
    if (startNs >= 0) // a forked child (-1) starts at once
        sleepUntil(m_shared->t0.load() + startNs);
    Prng prng(m_s.seedOrDefault() ^ static_cast<uint64_t>(getpid()));
    int forks = 0;
    ProgramHooks hooks;
    hooks.cpus = m_plan.cpus;
    hooks.lock = [this](const std::string& mutex, bool lock) {
        const auto it = m_mutexIndex.find(mutex);
        if (it == m_mutexIndex.end())
            return;
        pthread_mutex_t* m = &m_shared->mutexes[it->second];
        if (lock)
            pthread_mutex_lock(m);
        else
            pthread_mutex_unlock(m);
    };
    hooks.waitQueue = [this](const std::string& queue, bool resume) {
        // rt-app's suspend/resume: a wait without a predicate, a broadcast that is lost when
        // nobody waits.
        const auto it = m_waitQueueIndex.find(queue);
        if (it == m_waitQueueIndex.end())
            return;
        Shared::WaitQueue& q = m_shared->waitQueues[it->second];
        pthread_mutex_lock(&q.lock);
        if (resume)
            pthread_cond_broadcast(&q.cond);
        else
            pthread_cond_wait(&q.cond, &q.lock);
        pthread_mutex_unlock(&q.lock);
    };
    std::string current = cgroup; // where this process is now (a program may move itself)
    hooks.fork = [&](const TaskSpec& child, bool wait) {
        const std::string childName = name + "." + std::to_string(++forks);
        const std::string childCgroup = child.cgroup.value_or(cgroup);
        const pid_t pid = ::fork();
        if (pid == 0)
            taskMain(child, childName, childCgroup, -1, false, childCgroup == current);
        if (pid > 0 && wait)
            while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) { }
    };
    hooks.moveToCgroup = [this, &current](const std::string& path) {
        const std::string e = writeKernelFile(cgroupDir(path) + "/cgroup.procs", "0");
        if (!e.empty())
            warn(e);
        else
            current = path;
    };
    hooks.warn = [this, name](const std::string& what) { warn("task " + name + ": " + what); };
    runProgram(spec.program, prng, hooks);
    _exit(0);
}

pid_t Runner::startTask(const TaskSpec& spec, const std::string& name, const std::string& cgroup,
    int64_t startNs, bool waitForGo)
{
    m_err.flush();
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Only the runner holds the go pipe's write end: its close is every task's start.
        if (m_goPipe[1] >= 0)
            ::close(m_goPipe[1]);
        ::close(m_readyPipe[0]);
        setpgid(0, m_pgid);
        taskMain(spec, name, cgroup, startNs, waitForGo);
    }
    if (pid > 0) {
        if (m_pgid == 0)
            m_pgid = pid;
        setpgid(pid, m_pgid);
    }
    return pid;
}

std::string Runner::features(const std::map<std::string, bool>& f) const
{
    std::string problems;
    for (const auto& [name, on] : f) {
        const std::string e =
            writeKernelFile(m_config.debugfs + "/sched/features", (on ? "" : "NO_") + name);
        if (!e.empty())
            problems += " " + e + ";";
    }
    return problems;
}

void Runner::action(const Action& a, int index)
{
    const std::string where = "/actions/" + std::to_string(index) + ": ";
    std::string problems;
    switch (a.kind) {
    case Action::Kind::Feature:
        problems = features(a.features);
        break;
    case Action::Kind::Profile:
        break; // reported by the plan
    case Action::Kind::Set:
        if (a.set.cgroup) {
            problems = writeCgroupFiles(*a.set.cgroup, a.set.files);
        } else if (a.set.task) {
            for (const pid_t pid : pidsOf(*a.set.task))
                problems += applyAttributes(
                    pid, {a.set.cpus, a.set.nice, a.set.policy, std::nullopt, a.set.slice});
        }
        break;
    case Action::Kind::Move:
        for (const pid_t pid : pidsOf(a.task)) {
            const std::string e =
                writeKernelFile(cgroupDir(a.cgroup) + "/cgroup.procs", std::to_string(pid));
            if (!e.empty())
                problems += " " + e + ";";
        }
        break;
    case Action::Kind::Spawn:
        if (!a.spawn.empty()) {
            const TaskSpec& t = a.spawn.front();
            startTask(t, t.name, t.cgroup.value_or("/"), 0, false);
        }
        break;
    case Action::Kind::Kill:
        for (const pid_t pid : pidsOf(a.task))
            ::kill(pid, SIGKILL);
        break;
    }
    if (!problems.empty())
        warn(where + problems);
}

bool Runner::writeTrace()
{
    AtomicFile out(m_config.traceOut);
    utsname u{};
    uname(&u);
    std::ostream& s = out.stream();
    s << "# schedlab-kernel: " << u.release << "\n# schedlab-scenario: " << m_s.name << "\n";
    std::ostringstream names;
    const int n = std::min(m_shared->count.load(), kMaxEntries);
    for (int i = 0; i < n; ++i) {
        const SharedEntry& e = m_shared->entries[i];
        names << e.pid << " " << e.name << " " << e.cgroup << "\n";
        s << "# schedlab-task: " << e.pid << " " << e.name << " " << e.cgroup << "\n";
    }
    for (const auto& [path, stat] : m_cpuStat)
        s << "# schedlab-cgroup: " << path << stat << "\n";
    std::ifstream trace(m_tracefs + "/trace");
    if (!trace) {
        warn(m_tracefs + "/trace: cannot read");
        return false;
    }
    s << trace.rdbuf();
    const std::string e = out.commit();
    if (!e.empty()) {
        warn(e);
        return false;
    }
    if (!m_config.namesOut.empty()) {
        AtomicFile map(m_config.namesOut);
        map.stream() << "# pid name cgroup (schedlab-run, scenario " << m_s.name << ")\n"
                     << names.str();
        if (const std::string me = map.commit(); !me.empty())
            warn(me);
    }
    return true;
}

void Runner::cleanUp()
{
    if (m_pgid > 0)
        ::kill(-m_pgid, SIGKILL);
    const int n = m_shared ? std::min(m_shared->count.load(), kMaxEntries) : 0;
    for (int i = 0; i < n; ++i)
        ::kill(m_shared->entries[i].pid, SIGKILL);
    while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) { }
    for (const auto& [file, value] : m_restore)
        writeKernelFile(file, value);
    // Groups children first; a group emptied a moment ago may still be busy: retry briefly.
    for (auto it = m_createdCgroups.rbegin(); it != m_createdCgroups.rend(); ++it)
        for (int attempt = 0; attempt < 50 && ::rmdir(it->c_str()) != 0 && errno == EBUSY;
             ++attempt)
            usleep(10'000);
}

int Runner::run()
{
    if (geteuid() != 0) {
        warn("must run as root (cgroups, scheduling policies, tracefs)");
        return 3;
    }
    const std::string mount = cgroup2Mount(true);
    if (mount.empty()) {
        warn("no cgroup v2 hierarchy (mount -t cgroup2 none /sys/fs/cgroup)");
        return 3;
    }
    m_base = m_config.cgroupBase.empty() ? mount : m_config.cgroupBase;
    if (!hasCpuController(m_base))
        warn("the cgroup v2 hierarchy at " + m_base
            + " has no cpu controller (it is bound to "
              "cgroup v1?): cpu.weight, cpu.max and cpu.idle cannot be set");
    if (!m_config.traceOut.empty()) {
        m_tracefs = tracefsDir(m_config.tracefs, true);
        if (m_tracefs.empty()) {
            warn("no tracefs (mount -t tracefs nodev /sys/kernel/tracing), or run with "
                 "--no-trace");
            return 3;
        }
    }
    if (!exists(m_config.debugfs + "/sched"))
        ::mount("debugfs", m_config.debugfs.c_str(), "debugfs", 0, nullptr);

    // Shared memory, process-shared mutexes and the start pipes, before any fork.
    void* mem =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        warn(std::string("mmap: ") + std::strerror(errno));
        return 3;
    }
    m_shared = new (mem) Shared();
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    for (size_t i = 0; i < m_plan.mutexes.size() && i < kMaxMutexes; ++i) {
        pthread_mutex_init(&m_shared->mutexes[i], &ma);
        m_mutexIndex[m_plan.mutexes[i]] = static_cast<int>(i);
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    for (size_t i = 0; i < m_plan.waitQueues.size() && i < kMaxMutexes; ++i) {
        pthread_mutex_init(&m_shared->waitQueues[i].lock, &ma);
        pthread_cond_init(&m_shared->waitQueues[i].cond, &ca);
        m_waitQueueIndex[m_plan.waitQueues[i]] = static_cast<int>(i);
    }
    if (pipe2(m_readyPipe, O_CLOEXEC) != 0 || pipe2(m_goPipe, O_CLOEXEC) != 0) {
        warn(std::string("pipe: ") + std::strerror(errno));
        return 3;
    }

    // Kernel settings: sched features, base slice, preemption mode (restored afterwards).
    const std::string featuresFile = m_config.debugfs + "/sched/features";
    if (!m_s.kernel.features.empty()) {
        m_oldFeatures = readFile(featuresFile);
        if (const std::string p = features(m_s.kernel.features); !p.empty())
            warn("/kernel/features:" + p);
        std::istringstream old(m_oldFeatures);
        for (std::string word; old >> word;)
            m_restore.emplace_back(featuresFile, word);
    }
    if (m_s.kernel.baseSlice) {
        const std::string f = m_config.debugfs + "/sched/base_slice_ns";
        const std::string old = readFile(f);
        if (const std::string e = writeKernelFile(f, std::to_string(m_s.kernel.baseSlice->count()));
            !e.empty())
            warn("/kernel/base_slice: " + e);
        else
            m_restore.emplace_back(f, old);
    }
    if (m_s.kernel.preempt) {
        static const char* kModes[] = {"none", "voluntary", "full", "lazy"};
        const std::string f = m_config.debugfs + "/sched/preempt";
        const std::string mode = kModes[static_cast<int>(*m_s.kernel.preempt)];
        if (const std::string e = writeKernelFile(f, mode); !e.empty())
            warn("/kernel/preempt: " + mode + " not set (" + e + ")");
    }

    // The cgroup hierarchy: each group's parent gets the cpu controller for its children.
    for (const std::string& path : m_plan.cgroups) {
        std::string parent = path.substr(0, path.rfind('/'));
        for (size_t p = 1; p <= path.size(); ++p) {
            if (p != path.size() && path[p] != '/')
                continue;
            const std::string dir = cgroupDir(path.substr(0, p));
            if (!exists(dir)) {
                if (::mkdir(dir.c_str(), 0755) != 0) {
                    warn("mkdir " + dir + ": " + std::strerror(errno));
                    cleanUp();
                    return 3;
                }
                m_createdCgroups.push_back(dir);
            }
        }
        const std::string parentDir = cgroupDir(parent.empty() ? "/" : parent);
        writeKernelFile(parentDir + "/cgroup.subtree_control", "+cpu");
    }
    for (const std::string& path : m_plan.cgroups)
        writeKernelFile(cgroupDir(path) + "/cgroup.subtree_control", "+cpu");
    for (size_t i = 0; i < m_s.cgroups.size(); ++i) {
        const CgroupSpec& g = m_s.cgroups[i];
        const int n = g.count.value_or(0);
        for (int k = 0; k < std::max(n, 1); ++k) {
            const std::string path = n ? g.path + "-" + std::to_string(k + 1) : g.path;
            if (const std::string p = writeCgroupFiles(path, g.files); !p.empty())
                warn("/cgroups/" + std::to_string(i) + ":" + p);
        }
    }

    // Tracing: the scheduler events only, a clean buffer.
    if (!m_tracefs.empty()) {
        writeKernelFile(m_tracefs + "/tracing_on", "0");
        writeKernelFile(m_tracefs + "/current_tracer", "nop");
        writeKernelFile(m_tracefs + "/buffer_size_kb", std::to_string(m_config.bufferKb));
        writeKernelFile(m_tracefs + "/set_event", "");
        for (const char* e : {"sched_switch", "sched_wakeup", "sched_wakeup_new",
                 "sched_migrate_task", "sched_process_fork", "sched_process_exit"}) {
            const std::string err =
                writeKernelFile(m_tracefs + "/events/sched/" + e + "/enable", "1");
            if (!err.empty())
                warn(err);
        }
        const int fd = ::open((m_tracefs + "/trace").c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd >= 0)
            ::close(fd);
    }

    // Every task process is set up (cgroup, attributes), then all start together.
    m_shared->t0.store(INT64_MAX);
    int started = 0;
    for (const TaskPlan& t : m_plan.tasks)
        if (startTask(*t.spec, t.name, t.cgroup, t.startNs, true) > 0)
            ++started;
    ::close(m_readyPipe[1]);
    for (int i = 0; i < started; ++i) {
        char c = 0;
        if (::read(m_readyPipe[0], &c, 1) <= 0 && errno != EINTR)
            break;
    }
    const int64_t duration =
        m_config.durationNs > 0 ? m_config.durationNs : m_s.durationOrDefault().count();
    const int64_t t0 = monotonicNs() + 20'000'000;
    m_shared->t0.store(t0);
    // Tracing starts just before the tasks are released, so the traced span is the run's.
    sleepUntil(t0 - 2'000'000);
    if (!m_tracefs.empty())
        writeKernelFile(m_tracefs + "/tracing_on", "1");
    ::close(m_goPipe[1]);
    m_goPipe[1] = -1;

    std::vector<std::pair<int64_t, int>> order;
    for (size_t i = 0; i < m_s.actions.size(); ++i)
        if (m_s.actions[i].at.count() < duration)
            order.emplace_back(m_s.actions[i].at.count(), static_cast<int>(i));
    std::stable_sort(order.begin(), order.end());
    for (const auto& [at, index] : order) {
        sleepUntil(t0 + at);
        action(m_s.actions[static_cast<size_t>(index)], index);
    }
    sleepUntil(t0 + duration);
    if (!m_tracefs.empty())
        writeKernelFile(m_tracefs + "/tracing_on", "0");
    // cpu.stat of every group (throttling counts for the import), one line each.
    for (const std::string& path : m_plan.cgroups) {
        std::string stat = readFile(cgroupDir(path) + "/cpu.stat");
        std::replace(stat.begin(), stat.end(), '\n', ' ');
        std::string line;
        std::istringstream words(stat);
        for (std::string key, value; words >> key >> value;)
            line += " " + key + "=" + value;
        m_cpuStat.emplace_back(path, line);
    }
    cleanUp();
    bool ok = true;
    if (!m_tracefs.empty()) {
        for (const char* e : {"sched_switch", "sched_wakeup", "sched_wakeup_new",
                 "sched_migrate_task", "sched_process_fork", "sched_process_exit"})
            writeKernelFile(m_tracefs + "/events/sched/" + e + "/enable", "0");
        ok = writeTrace();
    }
    m_err << "schedlab-run: " << m_s.name << ": " << m_shared->count.load() << " tasks ran for "
          << duration / 1'000'000 << " ms"
          << (m_tracefs.empty() ? "" : ", trace in " + m_config.traceOut) << "\n";
    return ok ? 0 : 3;
}

} // namespace

std::string cgroup2Mount(bool mount)
{
    std::ifstream mounts("/proc/self/mounts");
    std::string dev, dir, type, rest;
    while (mounts >> dev >> dir >> type && std::getline(mounts, rest))
        if (type == "cgroup2")
            return dir;
    if (mount && ::mount("none", "/sys/fs/cgroup", "cgroup2", 0, nullptr) == 0)
        return "/sys/fs/cgroup";
    return {};
}

bool hasCpuController(const std::string& dir)
{
    std::istringstream words(readFile(dir + "/cgroup.controllers"));
    for (std::string w; words >> w;)
        if (w == "cpu")
            return true;
    return false;
}

std::string tracefsDir(const std::string& preferred, bool mount)
{
    for (const std::string& d : {preferred, std::string("/sys/kernel/debug/tracing")})
        if (exists(d + "/trace"))
            return d;
    if (mount && ::mount("nodev", preferred.c_str(), "tracefs", 0, nullptr) == 0
        && exists(preferred + "/trace"))
        return preferred;
    return {};
}

int runScenario(
    const Scenario& scenario, const Plan& plan, const RunConfig& config, std::ostream& err)
{
    Runner r(scenario, plan, config, err);
    return r.run();
}

} // namespace schedlab::runner
