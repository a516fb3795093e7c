// SPDX-License-Identifier: GPL-2.0-or-later
// The plan (what a real kernel can reproduce) and the program interpreter of schedlab-run.
#include "core/base/cpuset.h"
#include "core/scenario/jsonvalues.h"
#include "runner.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <map>
#include <sched.h>
#include <set>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedlab::runner {

namespace {

int64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void sleepNs(int64_t ns)
{
    if (ns <= 0)
        return;
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) { }
}

class Planner
{
public:
    Planner(Plan& plan, int kernelCode)
        : m_plan(plan)
        , m_kernel(kernelCode)
    { }

    void program(const std::vector<Op>& ops, const std::string& where)
    {
        for (size_t i = 0; i < ops.size(); ++i) {
            const Op& op = ops[i];
            const std::string at = where + "/" + std::to_string(i);
            switch (op.kind) {
            case Op::Kind::Lock:
            case Op::Kind::Unlock:
                if (m_mutexes.insert(op.name).second)
                    m_plan.mutexes.push_back(op.name);
                break;
            case Op::Kind::Suspend:
            case Op::Kind::Resume:
                if (m_waitQueues.insert(op.name).second)
                    m_plan.waitQueues.push_back(op.name);
                break;
            case Op::Kind::Complete:
            case Op::Kind::WaitCompletion:
                if (m_completions.insert(op.name).second)
                    m_plan.completions.push_back(op.name);
                break;
            case Op::Kind::Loop:
                program(op.body, at + "/loop");
                break;
            case Op::Kind::Kernel:
                note(at,
                    "kernel section: its operations run in user mode (preemptible, "
                    "interrupts on); the model's in-kernel costs are not reproduced");
                program(op.body, at + "/kernel");
                break;
            case Op::Kind::Cookie:
                note(at,
                    "core-scheduling cookie: prctl(PR_SCHED_CORE) needs a kernel with "
                    "CONFIG_SCHED_CORE and SMT siblings to matter (a refused call is reported "
                    "when it runs)");
                break;
            case Op::Kind::Write:
                note(at, "cgroup write operation not run (the cost model's kernel work)");
                break;
            case Op::Kind::Fork:
                if (!op.fork.empty())
                    task(op.fork.front(), at + "/fork");
                break;
            default:
                break;
            }
        }
    }

    void task(const TaskSpec& t, const std::string& where)
    {
        if (t.cookie)
            note(where + "/cookie", "core-scheduling cookie not set (not supported)");
        if (t.slice && m_kernel > 0 && m_kernel < 6012)
            note(where + "/slice", "custom slices need Linux 6.12+; this kernel ignores them");
        if (t.policy && (*t.policy == Policy::Fifo || *t.policy == Policy::RoundRobin)
            && !t.rtPriority)
            note(where + "/policy", std::string(enumName(*t.policy)) + " without priority: 1");
        if (t.policy == Policy::Deadline) {
            // sched_setattr(SCHED_DEADLINE): root only; the task's affinity must span its root
            // domain (EPERM otherwise) and cannot be narrowed afterwards (EBUSY).
            note(where + "/policy",
                "SCHED_DEADLINE is set with sched_setattr() before the affinity: it needs root "
                "and every online CPU in the task's affinity (run on a machine with exactly the "
                "scenario's CPUs); a \"cpus\" field or operation is refused by the kernel");
            if (t.dl && t.dl->flags & kDlFlagOverrun)
                note(where + "/flags", "dl_overrun: the SIGXCPU it asks for ends the task");
        }
        program(t.program, where + "/program");
    }

    void note(const std::string& where, const std::string& what)
    {
        m_plan.notes.push_back(where + ": " + what);
    }

private:
    Plan& m_plan;
    int m_kernel;
    std::set<std::string> m_mutexes;
    std::set<std::string> m_waitQueues;
    std::set<std::string> m_completions;
};

} // namespace

int kernelVersionCode(const std::string& release)
{
    int major = 0;
    int minor = 0;
    if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2)
        return 0;
    return major * 1000 + minor;
}

int64_t drawDuration(const DurationSpec& d, Prng& prng)
{
    if (d.endless)
        return -1;
    if (d.isUniform())
        return prng.uniform(d.value.count(), d.upper->count());
    return d.value.count();
}

Plan makePlan(const Scenario& s, int onlineCpus, const std::string& kernelRelease)
{
    Plan plan;
    plan.cpus = s.machine.cpuCount();
    Planner planner(plan, kernelVersionCode(kernelRelease));
    if (plan.cpus > onlineCpus)
        plan.errors.push_back("/machine/cpus: the scenario needs " + std::to_string(plan.cpus)
            + " CPUs, this machine has " + std::to_string(onlineCpus) + " online");
    else if (plan.cpus < onlineCpus)
        planner.note("/machine/cpus",
            "every task is confined to CPUs 0-" + std::to_string(plan.cpus - 1)
                + " (the machine has " + std::to_string(onlineCpus)
                + "); other tasks of the system may still run there");
    if (s.machine.threadsPerCore.value_or(1) > 1 || s.machine.coresPerLlc)
        planner.note("/machine", "SMT and LLC topology are the real machine's, not the scenario's");
    if (s.kernel.profile)
        planner.note("/kernel/profile",
            "the running kernel's own scheduler is used (profile " + *s.kernel.profile
                + " only selects the model)");
    if (s.kernel.hz)
        planner.note("/kernel/hz",
            "HZ=" + std::to_string(*s.kernel.hz) + " is modelled; the kernel's CONFIG_HZ applies");
    if (s.kernel.tunableScaling)
        planner.note("/kernel/tunable_scaling", "not set (a boot-time sysctl)");
    for (const auto& [name, value] : s.kernel.overrides)
        planner.note("/kernel/overrides/" + name, "a model choice, not reproducible");
    for (const auto& [name, value] : s.kernel.costs)
        planner.note("/kernel/costs/" + name, "a model cost, the real kernel has its own");

    Prng prng(s.seedOrDefault());
    for (size_t i = 0; i < s.cgroups.size(); ++i) {
        const CgroupSpec& g = s.cgroups[i];
        const int n = g.count.value_or(0);
        for (int k = 0; k < std::max(n, 1); ++k)
            plan.cgroups.push_back(n ? g.path + "-" + std::to_string(k + 1) : g.path);
        if (g.files.rtRuntimeUs || g.files.rtPeriodUs)
            planner.note("/cgroups/" + std::to_string(i),
                "cpu.rt_runtime_us/cpu.rt_period_us are cgroup v1 files (RT group scheduling), "
                "not set");
    }
    for (size_t i = 0; i < s.tasks.size(); ++i) {
        const TaskSpec& t = s.tasks[i];
        if (t.kernelThread) {
            planner.note("/tasks/" + std::to_string(i),
                "stands for a kernel thread: not started (the kernel runs its own)");
            continue;
        }
        const int n = t.count.value_or(0);
        for (int k = 0; k < std::max(n, 1); ++k) {
            TaskPlan tp;
            tp.name = n ? t.name + "-" + std::to_string(k + 1) : t.name;
            tp.cgroup = t.cgroup.value_or("/");
            tp.spec = &t;
            tp.startNs = t.start ? std::max<int64_t>(0, drawDuration(*t.start, prng)) : 0;
            plan.tasks.push_back(tp);
        }
        planner.task(t, "/tasks/" + std::to_string(i));
    }
    for (size_t i = 0; i < s.actions.size(); ++i) {
        const Action& a = s.actions[i];
        const std::string where = "/actions/" + std::to_string(i);
        switch (a.kind) {
        case Action::Kind::Profile:
            planner.note(where, "profile switch not reproducible (the kernel is what it is)");
            break;
        case Action::Kind::Set:
            if (a.set.cgroup && (a.set.files.rtRuntimeUs || a.set.files.rtPeriodUs))
                planner.note(where, "cpu.rt_* writes not reproducible on cgroup v2");
            break;
        case Action::Kind::Spawn:
            if (!a.spawn.empty())
                planner.task(a.spawn.front(), where + "/spawn");
            break;
        default:
            break;
        }
    }
    return plan;
}

int64_t threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void busyFor(int64_t ns)
{
    busyFor(ns, BusyClocks{monotonicNs, threadCpuNs});
}

void busyFor(int64_t ns, const BusyClocks& clocks)
{
    if (ns == 0)
        return;
    volatile uint64_t sink = 0;
    const auto spin = [&sink] {
        for (int i = 0; i < 200; ++i)
            sink = sink + static_cast<uint64_t>(i);
    };
    if (ns < 0)
        for (;;)
            spin(); // "run": "forever": a pure CPU hog, no clock reads at all
    // CLOCK_THREAD_CPUTIME_ID is a system call, not a vDSO read, and it runs the scheduler's
    // update_curr() for the caller (task_sched_runtime()): polled in the loop it ended every
    // slice at the first read after it expired, as HRTICK would, where a plain spinner runs
    // on to the next tick. So the work is counted on the vDSO monotonic clock instead: the
    // time between two reads counts when it is short (the thread ran throughout); a longer gap
    // is time the thread was preempted and does not count. The CPU clock is read once at each
    // end, and the rest it still asks for (a short preemption counted as work) is topped up.
    constexpr int64_t kRunningGap = 500'000;
    const int64_t until = clocks.threadCpu() + ns;
    int64_t counted = 0;
    int64_t last = clocks.monotonic();
    while (counted < ns) {
        spin();
        const int64_t now = clocks.monotonic();
        if (now - last < kRunningGap)
            counted += now - last;
        last = now;
    }
    while (clocks.threadCpu() < until)
        spin();
}

void busyForExact(int64_t ns, CostLedger& ledger, const BusyClocks& clocks, bool last)
{
    if (ns < 0) {
        busyFor(ns, clocks);
        return;
    }
    ledger.owed += ns;
    if (last)
        ledger.prepaid = std::clamp<int64_t>(ledger.exitPrepay, 0, ns);
    const int64_t left = ledger.base + ledger.owed - ledger.prepaid - clocks.threadCpu();
    if (left > 0)
        busyFor(left, clocks);
}

bool lightChildProgram(const std::vector<Op>& ops)
{
    for (const Op& op : ops) {
        switch (op.kind) {
        case Op::Kind::Run:
        case Op::Kind::Sleep:
        case Op::Kind::Yield:
        case Op::Kind::CpuClock:
        case Op::Kind::Exit:
        case Op::Kind::Nice:
        case Op::Kind::Cpus:
        case Op::Kind::Cgroup:
        case Op::Kind::Write:
            break;
        case Op::Kind::Loop:
        case Op::Kind::Kernel:
            if (!lightChildProgram(op.body))
                return false;
            break;
        case Op::Kind::Lock:
        case Op::Kind::Unlock:
        case Op::Kind::Fork:
        case Op::Kind::Cookie:
        case Op::Kind::Suspend:
        case Op::Kind::Resume:
        case Op::Kind::Complete:
        case Op::Kind::WaitCompletion:
            return false;
        }
    }
    return true;
}

namespace {

struct LightChild
{
    void (*body)(void*);
    void* arg;
};

int lightChildEntry(void* p)
{
    const LightChild* c = static_cast<const LightChild*>(p);
    c->body(c->arg);
    _exit(0); // the body should not return; if it does, the child ends here
}

} // namespace

bool lightFork(void (*body)(void*), void* arg, pid_t* pid, int64_t* cpuNs)
{
    constexpr size_t kStack = size_t{1} << 20; // the child's own stack, freed once it is reaped
    void* stack = mmap(
        nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return false;
    LightChild c{body, arg};
    // No CLONE_VFORK: a vfork parent is woken when the child releases its memory (before its
    // exit, and not as a synchronous wakeup), while a forking parent that waits is woken by
    // the child's exit (exit_notify(): a WF_SYNC wakeup) — the scenario's fork and wait, which
    // the model runs. So this process goes straight into wait4(), running nothing else while
    // the child shares its memory (and its thread-local storage: errno is not read until the
    // child is reaped; an interrupted wait is told from a missing child by waitid()).
    const pid_t child =
        ::clone(lightChildEntry, static_cast<char*>(stack) + kStack, CLONE_VM | SIGCHLD, &c);
    const int err = errno;
    rusage ru{};
    if (child > 0)
        for (;;) {
            if (wait4(child, nullptr, 0, &ru) == child)
                break;
            siginfo_t info{};
            if (waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOHANG | WNOWAIT) < 0)
                break; // not our child any more (reaped elsewhere): nothing to wait for
        }
    if (cpuNs)
        *cpuNs = (int64_t{ru.ru_utime.tv_sec} + ru.ru_stime.tv_sec) * 1'000'000'000
            + (int64_t{ru.ru_utime.tv_usec} + ru.ru_stime.tv_usec) * 1000;
    munmap(stack, kStack);
    if (pid)
        *pid = child;
    errno = err;
    return child > 0;
}

std::string admitTask(TaskCounters& counters, const ResourceLimits& limits)
{
    const int64_t created = counters.created.fetch_add(1) + 1;
    const int64_t live = counters.live.fetch_add(1) + 1;
    std::string why;
    if (live > limits.liveTasks)
        why = "live tasks: " + std::to_string(live - 1) + " task processes are alive, the limit is "
            + std::to_string(limits.liveTasks);
    else if (created > limits.createdTasks)
        why = "tasks: " + std::to_string(created - 1)
            + " task processes were started, the limit is " + std::to_string(limits.createdTasks);
    if (!why.empty()) {
        counters.created.fetch_sub(1);
        counters.live.fetch_sub(1);
    }
    return why;
}

void taskExited(TaskCounters& counters)
{
    counters.live.fetch_sub(1);
}

bool runProgram(const std::vector<Op>& ops, Prng& prng, const ProgramHooks& hooks)
{
    for (const Op& op : ops) {
        switch (op.kind) {
        case Op::Kind::Run:
            if (hooks.ledger)
                busyForExact(drawDuration(op.duration, prng), *hooks.ledger,
                    BusyClocks{monotonicNs, threadCpuNs},
                    &ops == hooks.ledger->program && &op == &ops.back());
            else
                busyFor(drawDuration(op.duration, prng));
            break;
        case Op::Kind::Sleep: {
            const int64_t d = drawDuration(op.duration, prng);
            if (d < 0)
                for (;;)
                    sleepNs(1'000'000'000);
            sleepNs(d);
            break;
        }
        case Op::Kind::Loop: {
            const int64_t start = monotonicNs();
            const int64_t forNs = op.forTime ? drawDuration(*op.forTime, prng) : -1;
            for (int64_t i = 0; !op.count || i < *op.count; ++i) {
                if (forNs >= 0 && monotonicNs() - start >= forNs)
                    break;
                if (!runProgram(op.body, prng, hooks))
                    return false;
            }
            break;
        }
        case Op::Kind::CpuClock:
            threadCpuNs(); // a system call (not the vDSO): update_curr(), then back to user mode
            break;
        case Op::Kind::Yield:
            if (hooks.markYields && hooks.mark)
                hooks.mark("schedlab-yield");
            sched_yield();
            break;
        case Op::Kind::Lock:
        case Op::Kind::Unlock:
            if (hooks.lock)
                hooks.lock(op.name, op.kind == Op::Kind::Lock);
            break;
        case Op::Kind::Suspend:
        case Op::Kind::Resume:
            if (hooks.waitQueue)
                hooks.waitQueue(op.name, op.kind == Op::Kind::Resume);
            break;
        case Op::Kind::Complete:
        case Op::Kind::WaitCompletion:
            if (hooks.completion)
                hooks.completion(op.name, op.kind == Op::Kind::Complete);
            break;
        case Op::Kind::Fork:
            if (hooks.fork && !op.fork.empty() && !hooks.fork(op.fork.front(), op.wait))
                return false; // the task guard refused it
            break;
        case Op::Kind::Exit:
            return false;
        case Op::Kind::Nice:
            if (setpriority(PRIO_PROCESS, 0, op.nice) != 0 && hooks.warn)
                hooks.warn("nice " + std::to_string(op.nice) + " failed");
            break;
        case Op::Kind::Cpus: {
            const auto set = CpuSet::parse(op.name, hooks.cpus);
            cpu_set_t mask;
            CPU_ZERO(&mask);
            for (int c = set ? set->first() : -1; c >= 0; c = set->next(c))
                CPU_SET(c, &mask);
            if (!set || sched_setaffinity(0, sizeof mask, &mask) != 0) {
                if (hooks.warn)
                    hooks.warn("cpus " + op.name + " failed");
            } else if (hooks.mark) {
                // A replay turns it into the same operation (docs/real-kernels.md).
                hooks.mark(
                    "schedlab-cpus pid=" + std::to_string(getpid()) + " cpus=" + set->toString());
            }
            break;
        }
        case Op::Kind::Cgroup:
            if (hooks.moveToCgroup)
                hooks.moveToCgroup(op.name);
            break;
        case Op::Kind::Kernel: // reported by the plan: runs in user mode
            if (!runProgram(op.body, prng, hooks))
                return false;
            break;
        case Op::Kind::Cookie:
            if (hooks.cookie)
                hooks.cookie(op);
            break;
        case Op::Kind::Write: // reported by the plan
            break;
        }
    }
    return true;
}

} // namespace schedlab::runner
