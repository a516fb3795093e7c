// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run's process control: the Runner that starts the scenario's tasks, runs its
// programs and actions, traces and undoes the run. What it changes on the system is planned in
// systemplan.cpp.
#include "system.h"

#include "core/base/atomicfile.h"
#include "core/base/cpuset.h"
#include "core/base/text.h"
#include "core/base/time.h"
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
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <signal.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62 // linux/prctl.h, Linux 5.14+
#endif

namespace schedlab::runner {

namespace {

// The name map (pid, scenario name, cgroup of every task and forked child): its own mapping, so
// only the entries used take memory. 2^18 entries (a fork every 1 ms for over 4 minutes); a run
// that forks more is told so, and the later children import as comm-pid.
constexpr int kMaxEntries = 1 << 18;
constexpr int kMaxMutexes = 256;

struct SharedEntry
{
    int pid;
    char name[96];
    char cgroup[96];
    char cpus[64]; ///< allowed CPUs once the task's attributes are set (a cpulist), or empty
    /// SCHED_DEADLINE runtime, deadline, period (ns) once set, else 0; flags (sched_attr)
    int64_t dl[3];
    uint32_t dlFlags;
};

// Shared by the runner and every task process (MAP_SHARED before the first fork).
struct Shared
{
    std::atomic<int64_t> t0;
    std::atomic<int> count;
    TaskCounters tasks;          ///< the task guards' counters
    std::atomic<bool> guardStop; ///< a task's fork was refused: the run stops (exit 3)
    char guardReason[256];
    SharedEntry* entries; ///< kMaxEntries, a MAP_SHARED | MAP_NORESERVE mapping of its own
    pthread_mutex_t mutexes[kMaxMutexes];
    // The wait queues of suspend/resume: a condition variable and its mutex each.
    struct WaitQueue
    {
        pthread_mutex_t lock;
        pthread_cond_t cond;
    } waitQueues[kMaxMutexes];
    // The completions of complete/wait_for_completion: a count, its mutex and condition.
    struct Completion
    {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        int64_t done;
    } completions[kMaxMutexes];
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
    case Policy::Deadline:
        return 6; // SCHED_DEADLINE
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
    std::optional<DlParams> dl; ///< SCHED_DEADLINE runtime/deadline/period/flags
};

const char* signalName(int sig)
{
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    default:
        return "a signal";
    }
}

class Runner
{
public:
    Runner(const Scenario& s, const Plan& p, const SystemPlan& sys, const RunConfig& c,
        std::ostream& err)
        : m_s(s)
        , m_plan(p)
        , m_sys(sys)
        , m_config(c)
        , m_err(err)
        , m_changer(m_journal)
    { }
    ~Runner() { finish(); }
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;
    int run();

private:
    std::string cgroupDir(const std::string& path) const { return m_sys.cgroupDir(path); }
    /// Where a process of scenario group @p path goes (tasks of "/" may have a leaf of their own).
    std::string procsDir(const std::string& path) const
    {
        return path == "/" ? m_sys.rootTasks : cgroupDir(path);
    }
    void warn(const std::string& what) { m_err << "schedlab-run: " << what << "\n" << std::flush; }
    /// With @p inherit, unset CPUs keep the inherited affinity (a forked child).
    std::string applyAttributes(pid_t pid, const Attributes& a, bool inherit = false) const;
    std::string writeCgroupFiles(const std::string& path, const CgroupFiles& f);
    /// In a new child: the death signal first, then whether the parent (@p parent, its pid
    /// before the fork) is still there; the runner's signal setup undone.
    void childSetup(pid_t parent);
    /// -1 when the task guard refuses it (the reason is in the shared memory).
    pid_t startTask(const TaskSpec& spec, const std::string& name, const std::string& cgroup,
        int64_t startNs, bool waitForGo);
    /// @p inCgroup: the process is in @p cgroup already (a child forked there), so it is not
    /// moved: a write to cgroup.procs migrates even to the same group and waits for an RCU
    /// grace period, several milliseconds under emulation.
    [[noreturn]] void taskMain(const TaskSpec& spec, const std::string& name,
        const std::string& cgroup, int64_t startNs, bool waitForGo, bool inCgroup = false);
    int registerTask(const std::string& name, const std::string& cgroup);
    std::vector<pid_t> pidsOf(const std::string& name) const;
    /// Stops the run: a task's fork was refused by the guard.
    void guardStop(const std::string& why);
    void action(const Action& a, int index);
    /// The run's trace instance's trace_marker opened for writing, -1 without tracing.
    int openTraceMarker() const;
    /// One line into the run's trace (its instance's trace_marker); nothing without tracing.
    void traceMark(const std::string& text) const;
    /// CONFIG_HZ of the running kernel (/boot/config-RELEASE), 0 when unknown.
    int kernelHz(const std::string& release) const;
    std::string features(const std::map<std::string, bool>& f);
    /// Waits until CLOCK_MONOTONIC @p ns; the signal that ended the wait early, else 0.
    int waitUntil(int64_t ns);
    /// A signal already pending (0 if none).
    int pendingSignal();
    bool writeTrace();
    void stopTasks();
    /// Kills the tasks and undoes the journal (once; every exit path ends here).
    void finish();

    const Scenario& m_s;
    const Plan& m_plan;
    const SystemPlan& m_sys;
    const RunConfig& m_config;
    std::ostream& m_err;
    Journal m_journal;
    Changer m_changer;
    pid_t m_runnerPid = 0;
    int m_sigfd = -1;
    /// Exact costs of light children (runner.h, CostLedger): what a light child owed and
    /// prepaid, written by the child into its parent's memory (CLONE_VM; the parent sleeps
    /// until it has exited), and the parent's estimate of a child's exit from the ones before.
    struct LightExit
    {
        int64_t prepay = 0, owed = 0, prepaid = 0;
    };
    LightExit* m_lightExit = nullptr; ///< set in a light child only
    int64_t m_exitEstimate = 0;       ///< ns, 0 until a light child has been measured
    sigset_t m_oldMask{};
    bool m_finished = false;
    Shared* m_shared = nullptr;
    std::map<std::string, int> m_mutexIndex;
    std::map<std::string, int> m_waitQueueIndex;
    std::map<std::string, int> m_completionIndex;
    int m_readyPipe[2] = {-1, -1};
    int m_goPipe[2] = {-1, -1};
    pid_t m_pgid = 0;
    std::vector<std::pair<std::string, std::string>> m_cpuStat; ///< group → cpu.stat at the end
};

Attributes attributesOf(const TaskSpec& t)
{
    return {t.cpus, t.nice, t.policy, t.rtPriority, t.slice, t.dl};
}

std::string Runner::applyAttributes(pid_t pid, const Attributes& a, bool inherit) const
{
    std::string problems;
    const bool deadline = a.policy == Policy::Deadline && a.dl;
    if (deadline) {
        // sched_setattr(SCHED_DEADLINE) first: the kernel refuses it (EPERM) for a task whose
        // affinity does not span its root domain, and refuses to narrow a DL task's affinity
        // afterwards (EBUSY): the scenario's CPUs must be the whole machine (the plan says so).
        SchedAttr attr{};
        attr.size = sizeof attr;
        attr.policy = linuxPolicy(Policy::Deadline);
        attr.flags = a.dl->flags;
        attr.runtime = static_cast<uint64_t>(a.dl->runtime);
        attr.deadline = static_cast<uint64_t>(a.dl->deadline);
        attr.period = static_cast<uint64_t>(a.dl->effectivePeriod());
        if (syscall(SYS_sched_setattr, pid, &attr, 0) != 0)
            problems += std::string(" sched_setattr(deadline): ") + std::strerror(errno)
                + (errno == EBUSY ? " (admission control refused the bandwidth)" : "") + ";";
    }
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
    if (deadline) {
        // done above
    } else if (a.policy || a.slice || a.rtPriority) {
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

int Runner::registerTask(const std::string& name, const std::string& cgroup)
{
    const int i = m_shared->count.fetch_add(1);
    if (i >= kMaxEntries)
        return -1;
    SharedEntry& e = m_shared->entries[i];
    e.pid = static_cast<int>(getpid());
    std::snprintf(e.name, sizeof e.name, "%s", name.c_str());
    std::snprintf(e.cgroup, sizeof e.cgroup, "%s", cgroup.c_str());
    return i;
}

namespace {

/// The calling task's allowed CPUs as a cpulist ("0-1,3"), empty when it cannot be read.
std::string allowedCpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return {};
    std::string out;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, &set) || (c > 0 && CPU_ISSET(c - 1, &set)))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            ++last;
        if (!out.empty())
            out += ',';
        out += std::to_string(c);
        if (last > c)
            out += '-' + std::to_string(last);
    }
    return out;
}

} // namespace

std::vector<pid_t> Runner::pidsOf(const std::string& name) const
{
    std::vector<pid_t> pids;
    const int n = std::min(m_shared->count.load(), kMaxEntries);
    for (int i = 0; i < n; ++i)
        if (name == m_shared->entries[i].name)
            pids.push_back(m_shared->entries[i].pid);
    return pids;
}

std::string Runner::writeCgroupFiles(const std::string& path, const CgroupFiles& f)
{
    const std::string dir = cgroupDir(path);
    std::string problems;
    for (const auto& [file, value] : cgroupFileValues(f))
        if (const std::string e = m_changer.write(dir + "/" + file, value, OldValue::Plain);
            !e.empty())
            problems += " " + e + ";";
    return problems;
}

void Runner::childSetup(pid_t parent)
{
    // The death signal is set first and the parent checked after: a parent that died between
    // fork() and prctl() would not send it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    if (m_sigfd >= 0)
        ::close(m_sigfd);
    m_sigfd = -1;
    sigprocmask(SIG_SETMASK, &m_oldMask, nullptr);
}

void Runner::guardStop(const std::string& why)
{
    if (m_shared->guardStop.exchange(true))
        return;
    std::snprintf(m_shared->guardReason, sizeof m_shared->guardReason, "%s", why.c_str());
    ::kill(m_runnerPid, SIGUSR1);
}

void Runner::taskMain(const TaskSpec& spec, const std::string& name, const std::string& cgroup,
    int64_t startNs, bool waitForGo, bool inCgroup)
{
    prctl(PR_SET_NAME, name.substr(0, 15).c_str());
    const int entry = registerTask(name, cgroup);
    std::string problems;
    if (!inCgroup)
        if (const std::string e = writeKernelFile(procsDir(cgroup) + "/cgroup.procs", "0");
            !e.empty())
            problems += " " + e + ";";
    problems += applyAttributes(0, attributesOf(spec), !waitForGo && startNs < 0);
    // The affinity the task starts with, for the trace's header (a replay pins it the same).
    if (entry >= 0)
        std::snprintf(m_shared->entries[entry].cpus, sizeof m_shared->entries[entry].cpus, "%s",
            allowedCpus().c_str());
    // A SCHED_DEADLINE task: its reservation goes into the header, and each sched_yield() (the
    // end of a job) is marked in the trace, so that the importer can derive its jobs' response
    // times; a `cpus` operation marks the affinity it set (docs/real-kernels.md). The marker
    // file is our own trace instance's.
    const bool deadline = spec.policy == Policy::Deadline && spec.dl
        && problems.find("sched_setattr") == std::string::npos;
    if (deadline && entry >= 0) {
        SharedEntry& e = m_shared->entries[entry];
        e.dl[0] = spec.dl->runtime;
        e.dl[1] = spec.dl->deadline;
        e.dl[2] = spec.dl->effectivePeriod();
        e.dlFlags = spec.dl->flags;
    }
    const int markerFd = openTraceMarker();
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
    hooks.completion = [this](const std::string& completionName, bool complete) {
        // struct completion: complete() counts and wakes one waiter; a wait takes one count,
        // sleeping until there is one. Never lost, unlike resume.
        const auto it = m_completionIndex.find(completionName);
        if (it == m_completionIndex.end())
            return;
        Shared::Completion& c = m_shared->completions[it->second];
        pthread_mutex_lock(&c.lock);
        if (complete) {
            ++c.done;
            pthread_cond_signal(&c.cond);
        } else {
            while (c.done == 0)
                pthread_cond_wait(&c.cond, &c.lock);
            --c.done;
        }
        pthread_mutex_unlock(&c.lock);
    };
    std::string current = cgroup; // where this process is now (a program may move itself)
    hooks.fork = [&](const TaskSpec& child, bool wait) {
        if (const std::string why = admitTask(m_shared->tasks, m_config.limits); !why.empty()) {
            guardStop("task " + name + ": fork refused by the guard: " + why);
            return false;
        }
        const std::string childName = name + "." + std::to_string(++forks);
        const std::string childCgroup = child.cgroup.value_or(cgroup);
        const pid_t self = getpid();
        if (wait && m_config.lightChildren && lightChildProgram(child.program)) {
            // A light child (runner.h): it runs on its own stack in this process's memory
            // while this process sleeps, and is reaped here.
            struct Start
            {
                Runner* runner;
                const TaskSpec* spec;
                const std::string* name;
                const std::string* cgroup;
                bool inCgroup;
                pid_t parent;
                LightExit* exit;
            };
            LightExit childExit{m_exitEstimate, 0, 0};
            Start start{
                this, &child, &childName, &childCgroup, childCgroup == current, self, &childExit};
            pid_t pid = -1;
            int64_t childCpu = 0;
            if (!lightFork(
                    [](void* p) {
                        const Start& s = *static_cast<const Start*>(p);
                        s.runner->m_lightExit = s.exit; // the shared memory: undone below
                        s.runner->childSetup(s.parent);
                        s.runner->taskMain(*s.spec, *s.name, *s.cgroup, -1, false, s.inCgroup);
                    },
                    &start, &pid, &childCpu)) {
                taskExited(m_shared->tasks);
                warn("task " + name + ": clone: " + std::strerror(errno));
            }
            m_lightExit = nullptr;
            // The child's exit: its CPU time in all beyond what it spent up to its last run.
            if (m_config.exactCosts && childCpu > 0) {
                const int64_t cost =
                    std::max<int64_t>(0, childCpu - (childExit.owed - childExit.prepaid));
                m_exitEstimate =
                    m_exitEstimate == 0 ? cost : m_exitEstimate + (cost - m_exitEstimate) / 4;
            }
            return true;
        }
        const pid_t pid = ::fork();
        if (pid == 0) {
            childSetup(self);
            taskMain(child, childName, childCgroup, -1, false, childCgroup == current);
        }
        if (pid < 0) {
            taskExited(m_shared->tasks);
            warn("task " + name + ": fork: " + std::strerror(errno));
        }
        if (pid > 0 && wait)
            while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) { }
        return true;
    };
    hooks.cookie = [this, name](const Op& op) {
        // prctl(PR_SCHED_CORE, …, PR_SCHED_CORE_SCOPE_THREAD) as the model's Machine applies
        // it. A task named by a share is found by its name in the run's table; a child forked
        // just before registers itself when it starts, so it is waited for (up to 1 s).
        constexpr int kCmdCreate = 1, kCmdShareTo = 2, kCmdShareFrom = 3, kScopeThread = 0;
        pid_t target = 0;
        if (op.cookie != Op::CookieCmd::Create) {
            for (int i = 0; i < 1000 && target == 0; ++i) {
                const std::vector<pid_t> pids = pidsOf(op.name);
                if (!pids.empty())
                    target = pids.back();
                else
                    sleepUntil(monotonicNs() + 1'000'000);
            }
            if (target == 0) {
                warn("task " + name + ": cookie: no task named " + op.name);
                return;
            }
        }
        const int cmd = op.cookie == Op::CookieCmd::Create ? kCmdCreate
            : op.cookie == Op::CookieCmd::ShareTo          ? kCmdShareTo
                                                           : kCmdShareFrom;
        if (prctl(PR_SCHED_CORE, cmd, target, kScopeThread, 0) != 0)
            warn("task " + name + ": prctl(PR_SCHED_CORE): " + std::strerror(errno)
                + (errno == EINVAL ? " (no CONFIG_SCHED_CORE, or no SMT)" : ""));
    };
    hooks.moveToCgroup = [this, &current](const std::string& path) {
        const std::string e = writeKernelFile(procsDir(path) + "/cgroup.procs", "0");
        if (!e.empty())
            warn(e);
        else
            current = path;
    };
    hooks.warn = [this, name](const std::string& what) { warn("task " + name + ": " + what); };
    if (markerFd >= 0)
        hooks.mark = [markerFd](const std::string& text) {
            const std::string line = text + "\n";
            (void)!::write(markerFd, line.data(), line.size());
        };
    hooks.markYields = deadline;
    // Exact costs: a forked child's CPU clock starts at its creation (0), so its start-up is
    // the workload's; a task the run started begins owing from here, as in the model.
    CostLedger ledger;
    if (startNs >= 0)
        ledger.base = threadCpuNs();
    ledger.program = &spec.program;
    if (m_lightExit) // a light child prepays its exit, as measured on its siblings
        ledger.exitPrepay = m_lightExit->prepay;
    if (m_config.exactCosts)
        hooks.ledger = &ledger;
    runProgram(spec.program, prng, hooks);
    if (m_lightExit) {
        m_lightExit->owed = ledger.owed;
        m_lightExit->prepaid = ledger.prepaid;
    }
    taskExited(m_shared->tasks);
    _exit(0);
}

pid_t Runner::startTask(const TaskSpec& spec, const std::string& name, const std::string& cgroup,
    int64_t startNs, bool waitForGo)
{
    if (const std::string why = admitTask(m_shared->tasks, m_config.limits); !why.empty()) {
        guardStop("task " + name + " not started: " + why);
        return -1;
    }
    m_err.flush();
    const pid_t pid = ::fork();
    if (pid == 0) {
        try {
            childSetup(m_runnerPid);
            // Only the runner holds the go pipe's write end: its close is every task's start.
            if (m_goPipe[1] >= 0)
                ::close(m_goPipe[1]);
            ::close(m_readyPipe[0]);
            setpgid(0, m_pgid);
            taskMain(spec, name, cgroup, startNs, waitForGo);
        } catch (...) {
            _exit(1); // never unwind into the runner's clean-up in a task process
        }
    }
    if (pid < 0) {
        taskExited(m_shared->tasks);
        warn("task " + name + ": fork: " + std::strerror(errno));
    }
    if (pid > 0) {
        if (m_pgid == 0)
            m_pgid = pid;
        setpgid(pid, m_pgid);
    }
    return pid;
}

std::string Runner::features(const std::map<std::string, bool>& f)
{
    std::string problems;
    for (const auto& [name, on] : f) {
        const std::string e = m_changer.write(
            m_config.debugfs + "/sched/features", (on ? "" : "NO_") + name, OldValue::Feature);
        if (!e.empty())
            problems += " " + e + ";";
    }
    return problems;
}

int Runner::openTraceMarker() const
{
    // Not writeKernelFile(): no O_TRUNC on a tracefs file.
    return m_sys.instance.empty()
        ? -1
        : ::open((m_sys.instance + "/trace_marker").c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
}

void Runner::traceMark(const std::string& text) const
{
    const int fd = openTraceMarker();
    if (fd < 0)
        return;
    const std::string line = text + "\n";
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
}

void Runner::action(const Action& a, int index)
{
    const std::string where = "/actions/" + std::to_string(index) + ": ";
    std::string problems;
    switch (a.kind) {
    case Action::Kind::Feature:
        problems = features(a.features);
        if (problems.empty()) { // the change in the trace: a replay makes it at this time too
            std::string mark = "schedlab-features";
            for (const auto& [name, on] : a.features)
                mark += " " + name + "=" + (on ? "1" : "0");
            traceMark(mark);
        }
        break;
    case Action::Kind::Profile:
        break; // reported by the plan
    case Action::Kind::Set:
        if (a.set.cgroup) {
            problems = writeCgroupFiles(*a.set.cgroup, a.set.files);
        } else if (a.set.task) {
            for (const pid_t pid : pidsOf(*a.set.task)) {
                const std::string p = applyAttributes(pid,
                    {a.set.cpus, a.set.nice, a.set.policy, std::nullopt, a.set.slice,
                        std::nullopt});
                problems += p;
                // The new affinity in the trace: a replay sets it at this time too.
                if (a.set.cpus && p.find("affinity") == std::string::npos)
                    if (const auto set = CpuSet::parse(*a.set.cpus, m_plan.cpus))
                        traceMark("schedlab-cpus pid=" + std::to_string(pid)
                            + " cpus=" + set->toString());
            }
        }
        break;
    case Action::Kind::Move:
        for (const pid_t pid : pidsOf(a.task)) {
            const std::string e =
                writeKernelFile(procsDir(a.cgroup) + "/cgroup.procs", std::to_string(pid));
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

int Runner::waitUntil(int64_t ns)
{
    for (;;) {
        const int64_t now = monotonicNs();
        if (now >= ns)
            return 0;
        const int64_t left = ns - now;
        timespec ts{
            static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
        pollfd p{m_sigfd, POLLIN, 0};
        const int n = ppoll(&p, 1, &ts, nullptr);
        if (n > 0)
            if (const int sig = pendingSignal(); sig != 0) {
                if (sig == SIGUSR1 && !m_shared->guardStop.load())
                    continue; // not from a task: only the guard stops the run this way
                return sig;
            }
    }
}

int Runner::pendingSignal()
{
    if (m_sigfd < 0)
        return 0;
    signalfd_siginfo info{};
    pollfd p{m_sigfd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0 || ::read(m_sigfd, &info, sizeof info) != sizeof info)
        return 0;
    return static_cast<int>(info.ssi_signo);
}

namespace {

/// A "CONFIG_NAME=value" line of the running kernel's /boot/config-RELEASE, or "".
std::string kernelConfig(const std::string& release, const std::string& name)
{
    std::ifstream in("/boot/config-" + release);
    const std::string key = name + "=";
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(key))
            return line.substr(key.size());
    return {};
}

} // namespace

int Runner::kernelHz(const std::string& release) const
{
    const std::string v = kernelConfig(release, "CONFIG_HZ");
    const int hz = v.empty() ? 0 : std::atoi(v.c_str());
    return isConfigHz(hz) ? hz : 0;
}

bool Runner::writeTrace()
{
    AtomicFile out(m_config.traceOut);
    utsname u{};
    uname(&u);
    std::ostream& s = out.stream();
    s << "# schedlab-kernel: " << u.release << "\n# schedlab-scenario: " << m_s.name << "\n";
    // The scenario's "/" on this machine (the task and cgroup lines name scenario paths).
    s << "# schedlab-run-cgroups: " << m_sys.base << "\n";
    s << "# schedlab-cpus: " << m_s.machine.cpuCount() << "\n"; // compare --real checks it
    // HZ and the preemption model the run had, where the kernel says (a replay uses them).
    if (const int hz = kernelHz(u.release); hz > 0)
        s << "# schedlab-hz: " << hz << "\n";
    if (const std::string mode = preemptModeInEffect(m_config.debugfs, u.release); !mode.empty())
        s << "# schedlab-preempt: " << mode << "\n";
    // The sched features the scenario set at the start (a replay starts with them; a feature
    // action during the run is a "schedlab-features" marker at its time).
    if (!m_s.kernel.features.empty()) {
        s << "# schedlab-features:";
        for (const auto& [name, on] : m_s.kernel.features)
            s << " " << name << "=" << (on ? 1 : 0);
        s << "\n";
    }
    std::ostringstream names;
    const int n = std::min(m_shared->count.load(), kMaxEntries);
    for (int i = 0; i < n; ++i) {
        const SharedEntry& e = m_shared->entries[i];
        names << e.pid << " " << e.name << " " << e.cgroup << "\n";
        s << "# schedlab-task: " << e.pid << " " << e.name << " " << e.cgroup;
        if (e.cpus[0])
            s << " cpus=" << e.cpus;
        if (e.dl[0] > 0) // the reservation: the importer derives its jobs (docs/real-kernels.md)
            s << " dl=" << e.dl[0] << "/" << e.dl[1] << "/" << e.dl[2]
              << ((e.dlFlags & kDlFlagReclaim) ? "/reclaim" : "");
        s << "\n";
    }
    // The cgroup files the run set at its start (a replay gives its groups the same; changes
    // by actions during the run are not here).
    for (const CgroupSpec& g : m_s.cgroups) {
        const std::vector<std::string> paths = g.count
            ? [&] {
                  std::vector<std::string> all;
                  for (int k = 1; k <= *g.count; ++k)
                      all.push_back(g.path + "-" + std::to_string(k));
                  return all;
              }()
            : std::vector<std::string>{g.path};
        const auto values = cgroupFileValues(g.files);
        if (values.empty())
            continue;
        for (const std::string& path : paths) {
            s << "# schedlab-cgroup-files: " << path;
            for (auto [file, value] : values) {
                std::replace(value.begin(), value.end(), ' ', ',');
                s << " " << file << "=" << value;
            }
            s << "\n";
        }
    }
    if (const int all = m_shared->count.load(); all > kMaxEntries)
        warn(std::to_string(all - kMaxEntries) + " of " + std::to_string(all)
            + " tasks are not in the name map (it holds " + std::to_string(kMaxEntries)
            + "): they import as comm-pid");
    for (const auto& [path, stat] : m_cpuStat)
        s << "# schedlab-cgroup: " << path << stat << "\n";
    std::ifstream trace(m_sys.instance + "/trace");
    if (!trace) {
        warn(m_sys.instance + "/trace: cannot read");
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

void Runner::stopTasks()
{
    if (m_pgid > 0)
        ::kill(-m_pgid, SIGKILL);
    const int n = m_shared && m_shared->entries ? std::min(m_shared->count.load(), kMaxEntries) : 0;
    for (int i = 0; i < n; ++i)
        if (m_shared->entries[i].pid > 1)
            ::kill(m_shared->entries[i].pid, SIGKILL);
    // The runner is the tasks' subreaper: orphaned children of tasks are reaped here too.
    while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) { }
    m_pgid = 0;
}

void Runner::finish()
{
    if (m_finished || m_runnerPid != getpid())
        return; // done, or never started, or (never) a task process
    m_finished = true;
    stopTasks();
    // Reverse order: the trace instance, the groups (children first, each after its tasks
    // are gone), subtree_control, the kernel settings, the mounts.
    const std::vector<std::string> problems = m_journal.undo();
    for (const auto& p : problems)
        warn("not restored: " + p);
    if (!problems.empty())
        warn("the journal " + m_journal.path()
            + " keeps what is left; retry with schedlab-run "
              "--restore "
            + m_journal.path());
}

int Runner::run()
{
    if (geteuid() != 0) {
        warn("must run as root (cgroups, scheduling policies, tracefs)");
        return 3;
    }
    for (const auto& e : m_sys.errors)
        warn("cannot run: " + e);
    if (!m_sys.errors.empty())
        return 3;
    m_runnerPid = getpid();

    // SIGINT, SIGTERM and SIGHUP (and SIGUSR1, the guard) are read from a signalfd in the waits:
    // the run stops, the tasks are killed and everything is put back.
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1})
        sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &m_oldMask);
    m_sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_sigfd < 0) {
        warn(std::string("signalfd: ") + std::strerror(errno));
        sigprocmask(SIG_SETMASK, &m_oldMask, nullptr);
        return 3;
    }
    // On the way out of run() (every return, an exception): the run is undone first, with the
    // signals still blocked, then the signal mask is put back.
    struct Unwind
    {
        Runner& r;
        ~Unwind()
        {
            r.finish();
            if (r.m_sigfd >= 0)
                ::close(r.m_sigfd);
            r.m_sigfd = -1;
            sigprocmask(SIG_SETMASK, &r.m_oldMask, nullptr);
        }
    } unwind{*this};
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    if (const std::string e = m_journal.create(m_sys.journal, m_runnerPid); !e.empty()) {
        warn(e + " (--journal FILE names another place)");
        return 3;
    }
    warn("journal " + m_sys.journal
        + " (if this run is killed, undo it with schedlab-run "
          "--restore "
        + m_sys.journal + ")");

    // Shared memory, process-shared mutexes and the start pipes, before any fork.
    void* mem =
        mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        warn(std::string("mmap: ") + std::strerror(errno));
        return 3;
    }
    m_shared = new (mem) Shared();
    void* entries = mmap(nullptr, sizeof(SharedEntry) * kMaxEntries, PROT_READ | PROT_WRITE,
        MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (entries == MAP_FAILED) {
        warn(std::string("mmap (name map): ") + std::strerror(errno));
        return 3;
    }
    m_shared->entries = static_cast<SharedEntry*>(entries); // zero-filled: no constructor run
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
    for (const auto& [what, n] : {std::pair<const char*, size_t>{"mutexes", m_plan.mutexes.size()},
             {"wait queues", m_plan.waitQueues.size()}, {"completions", m_plan.completions.size()}})
        if (n > static_cast<size_t>(kMaxMutexes))
            warn(std::to_string(n) + " " + what + ": only the first " + std::to_string(kMaxMutexes)
                + " are shared between the tasks; operations on " + "the others do nothing");
    for (size_t i = 0; i < m_plan.completions.size() && i < kMaxMutexes; ++i) {
        pthread_mutex_init(&m_shared->completions[i].lock, &ma);
        pthread_cond_init(&m_shared->completions[i].cond, &ca);
        m_shared->completions[i].done = 0;
        m_completionIndex[m_plan.completions[i]] = static_cast<int>(i);
    }
    if (pipe2(m_readyPipe, O_CLOEXEC) != 0 || pipe2(m_goPipe, O_CLOEXEC) != 0) {
        warn(std::string("pipe: ") + std::strerror(errno));
        return 3;
    }

    // The system changes of the plan (--check lists the same), each journaled first. A
    // directory or mount that cannot be made stops the run; a file that cannot be written is
    // reported and the run goes on, as before.
    for (const SystemChange& c : m_sys.setup) {
        if (const int sig = pendingSignal(); sig != 0 && sig != SIGUSR1) {
            finish();
            warn(std::string("stopped by ") + signalName(sig) + " during the set-up; undone");
            return 128 + sig;
        }
        std::string e;
        switch (c.kind) {
        case SystemChange::Kind::Mount:
            e = m_changer.mount(c.value == "cgroup2" ? "none" : c.value, c.path, c.value);
            break;
        case SystemChange::Kind::Mkdir:
            e = m_changer.makeDir(c.path);
            break;
        case SystemChange::Kind::Write:
            e = m_changer.write(c.path, c.value, c.how);
            break;
        }
        if (e.empty())
            continue;
        if (c.kind == SystemChange::Kind::Write) {
            warn(c.why + ": " + e);
            continue;
        }
        warn(e);
        return 3;
    }

    // Every task process is set up (cgroup, attributes), then all start together.
    m_shared->t0.store(INT64_MAX);
    int started = 0;
    for (const TaskPlan& t : m_plan.tasks) {
        const pid_t pid = startTask(*t.spec, t.name, t.cgroup, t.startNs, true);
        if (pid > 0)
            ++started;
        else if (m_shared->guardStop.load())
            break;
    }
    ::close(m_readyPipe[1]);
    m_readyPipe[1] = -1;
    int stopSignal = 0;
    for (int i = 0; i < started && !stopSignal;) {
        pollfd p[2] = {{m_readyPipe[0], POLLIN, 0}, {m_sigfd, POLLIN, 0}};
        if (::poll(p, 2, -1) < 0)
            continue;
        if (p[1].revents)
            stopSignal = pendingSignal();
        if (p[0].revents) {
            char c = 0;
            const ssize_t r = ::read(m_readyPipe[0], &c, 1);
            if (r <= 0 && errno != EINTR)
                break;
            i += r > 0 ? 1 : 0;
        }
    }
    const int64_t duration =
        m_config.durationNs > 0 ? m_config.durationNs : m_s.durationOrDefault().count();
    const int64_t t0 = monotonicNs() + 20'000'000;
    m_shared->t0.store(t0);
    // Tracing starts just before the tasks are released, so the traced span is the run's.
    if (!stopSignal)
        stopSignal = waitUntil(t0 - 2'000'000);
    if (!m_sys.instance.empty() && !stopSignal)
        writeKernelFile(m_sys.instance + "/tracing_on", "1");
    ::close(m_goPipe[1]);
    m_goPipe[1] = -1;

    std::vector<std::pair<int64_t, int>> order;
    for (size_t i = 0; i < m_s.actions.size(); ++i)
        if (m_s.actions[i].at.count() < duration)
            order.emplace_back(m_s.actions[i].at.count(), static_cast<int>(i));
    std::stable_sort(order.begin(), order.end());
    for (const auto& [at, index] : order) {
        if (stopSignal || (stopSignal = waitUntil(t0 + at)) != 0)
            break;
        action(m_s.actions[static_cast<size_t>(index)], index);
    }
    if (!stopSignal)
        stopSignal = waitUntil(t0 + duration);
    if (m_shared->guardStop.load())
        stopSignal = SIGUSR1; // a refused start ends the run as a refused fork does
    if (!m_sys.instance.empty())
        writeKernelFile(m_sys.instance + "/tracing_on", "0");
    if (stopSignal && stopSignal != SIGUSR1) {
        finish();
        warn(std::string("stopped by ") + signalName(stopSignal)
            + ": the tasks were killed and every change undone; no trace written");
        return 128 + stopSignal;
    }
    // cpu.stat of every group (throttling counts for the import), one line each.
    for (const std::string& path : m_plan.cgroups) {
        std::string stat = readKernelFile(cgroupDir(path) + "/cpu.stat").value_or("");
        std::replace(stat.begin(), stat.end(), '\n', ' ');
        std::string line;
        std::istringstream words(stat);
        for (std::string key, value; words >> key >> value;)
            line += " " + key + "=" + value;
        m_cpuStat.emplace_back(path, line);
    }
    stopTasks();
    bool ok = true;
    if (!m_sys.instance.empty())
        ok = writeTrace();
    finish();
    if (stopSignal == SIGUSR1) {
        warn(std::string("guard: ") + m_shared->guardReason
            + " (docs/limits.md; --limit live-tasks=N / tasks=N); the run stopped there"
            + (m_sys.instance.empty() ? ""
                                      : ", the trace up to the stop is in " + m_config.traceOut));
        return 3;
    }
    m_err << "schedlab-run: " << m_s.name << ": " << m_shared->count.load() << " tasks ran for "
          << duration / 1'000'000 << " ms"
          << (m_sys.instance.empty() ? "" : ", trace in " + m_config.traceOut) << "\n";
    if (const int sig = pendingSignal(); sig != 0 && sig != SIGUSR1)
        return 128 + sig; // arrived while the trace was written: everything is undone anyway
    return ok ? 0 : 3;
}

} // namespace

std::string preemptModeInEffect(const std::string& debugfs, const std::string& release)
{
    // PREEMPT_DYNAMIC: debugfs shows the modes with the current one in parentheses. It is read
    // even when the scenario set a mode: a kernel without that mode refuses the write (6.12 has
    // no "lazy") and runs on in its own, which is what the trace's header must say.
    if (const auto text = readKernelFile(debugfs + "/sched/preempt")) {
        const size_t open = text->find('(');
        const size_t close = text->find(')', open);
        if (open != std::string::npos && close != std::string::npos)
            if (const auto mode = enumFromName<Preempt>(text->substr(open + 1, close - open - 1)))
                return std::string(enumName(*mode));
    }
    if (kernelConfig(release, "CONFIG_PREEMPT_LAZY") == "y")
        return "lazy";
    if (kernelConfig(release, "CONFIG_PREEMPT") == "y")
        return "full";
    if (kernelConfig(release, "CONFIG_PREEMPT_VOLUNTARY") == "y")
        return "voluntary";
    if (kernelConfig(release, "CONFIG_PREEMPT_NONE") == "y")
        return "none";
    return {};
}

int runScenario(
    const Scenario& scenario, const Plan& plan, const RunConfig& config, std::ostream& err)
{
    const SystemPlan sys = planSystem(scenario, plan, config);
    for (const std::string& n : sys.notes)
        err << "not reproduced: " << n << "\n";
    if (pathExists(sys.cgroupMount + "/cgroup.controllers") && !hasCpuController(sys.cgroupMount))
        err << "schedlab-run: the cgroup v2 hierarchy at " << sys.cgroupMount
            << " has no cpu controller (it is bound to cgroup v1?): cpu.weight, cpu.max and "
               "cpu.idle cannot be set\n";
    Runner r(scenario, plan, sys, config, err);
    return r.run();
}

} // namespace schedlab::runner
