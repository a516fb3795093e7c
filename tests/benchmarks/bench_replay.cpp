// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark (label "bench"): replaying a real trace at scale — a 60 s trace of 8 CPUs and 2 000
// tasks (about a million events, generated here in ftrace's text form) imported, derived into
// a scenario (core/import/replay.h) and run by the model. Each step's time is printed (CPU time
// of this thread and wall time); the target is "in seconds". Run with `make bench`.
// BENCH_REPLAY_SECONDS shortens the trace for a quick look.
#include "core/import/ftrace.h"
#include "core/import/replay.h"
#include "core/sim/simulation.h"

#include <QtTest>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>

using namespace schedlab;

namespace {

struct Clock
{
    std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    double cpu0 = cpuSeconds();
    static double cpuSeconds()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
    }
    double wallSeconds() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    }
    double cpuSecondsSince() const { return cpuSeconds() - cpu0; }
};

/// 8 CPUs, 250 tasks each in a fixed round: every task runs 1 ms and blocks; the next one was
/// woken 0.5 ms before its turn, by a timer (even tasks: a timed sleep in the replay) or by the
/// running task (odd tasks: a wake chain). About 1.9 events per ms per CPU.
std::string generateTrace(int seconds)
{
    constexpr int kCpus = 8;
    constexpr int kPerCpu = 250;
    std::ostringstream out;
    out << "# tracer: nop\n#P:" << kCpus << "\n";
    char line[320];
    const auto pidOf = [](int cpu, int k) { return 1000 + cpu * kPerCpu + k; };
    const int64_t steps = int64_t{seconds} * 1000;
    for (int64_t step = 0; step < steps; ++step) {
        for (int cpu = 0; cpu < kCpus; ++cpu) {
            const int k = static_cast<int>(step % kPerCpu);
            const int next = (k + 1) % kPerCpu;
            const int pid = pidOf(cpu, k);
            const int nextPid = pidOf(cpu, next);
            const int64_t us = step * 1000;
            // The next task's wake-up half-way through this one's millisecond.
            const bool chain = next % 2 == 1;
            std::snprintf(line, sizeof line,
                "%16s-%-7d [%03d] %s %6lld.%06lld: sched_wakeup: comm=t%d pid=%d prio=120 "
                "target_cpu=%03d\n",
                chain ? ("t" + std::to_string(pid)).c_str() : "<idle>", chain ? pid : 0, cpu,
                chain ? "d..3." : "d.h2.", static_cast<long long>((us + 500) / 1'000'000),
                static_cast<long long>((us + 500) % 1'000'000), nextPid, nextPid, cpu);
            out << line;
            std::snprintf(line, sizeof line,
                "%16s-%-7d [%03d] d..2. %6lld.%06lld: sched_switch: prev_comm=t%d prev_pid=%d "
                "prev_prio=120 prev_state=S ==> next_comm=t%d next_pid=%d next_prio=120\n",
                ("t" + std::to_string(pid)).c_str(), pid, cpu,
                static_cast<long long>((us + 1000) / 1'000'000),
                static_cast<long long>((us + 1000) % 1'000'000), pid, pid, nextPid, nextPid);
            out << line;
        }
    }
    return out.str();
}

} // namespace

class BenchReplay : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void replayAtScale()
    {
        const int seconds = qEnvironmentVariableIsSet("BENCH_REPLAY_SECONDS")
            ? qEnvironmentVariableIntValue("BENCH_REPLAY_SECONDS")
            : 60;
        const std::string text = generateTrace(seconds);
        std::istringstream in(text);
        Clock c;
        const TraceImport trace = importFtrace(in, "generated.txt");
        QVERIFY(trace.ok());
        std::printf("BENCH replay: import of %d s, 8 CPUs, %zu tasks, %lld events (%.0f MB of "
                    "text): %.2f s CPU (%.2f s wall)\n",
            seconds, trace.metrics.tasks.size(), static_cast<long long>(trace.events),
            static_cast<double>(text.size()) / 1e6, c.cpuSecondsSince(), c.wallSeconds());
        c = Clock{};
        const ReplayScenario replay = deriveScenario(trace);
        std::printf("BENCH replay: derive %zu tasks (%lld wake chains, %lld timed sleeps): %.2f s "
                    "CPU (%.2f s wall)\n",
            replay.scenario.tasks.size(), static_cast<long long>(replay.chains),
            static_cast<long long>(replay.timedSleeps), c.cpuSecondsSince(), c.wallSeconds());
        QVERIFY(replay.chains > 0 && replay.timedSleeps > 0);
        c = Clock{};
        Simulation sim(replay.scenario);
        sim.run();
        const Metrics m = sim.metrics();
        const ReplayFidelity f = replayFidelity(m, trace.metrics);
        std::printf("BENCH replay: model run of %lld ms, %llu events: %.2f s CPU (%.2f s wall); "
                    "fidelity: CPU-share error %.1f pp summed over %d tasks (max %.2f pp)\n",
            static_cast<long long>(sim.now().count() / 1'000'000),
            static_cast<unsigned long long>(sim.eventsExecuted()), c.cpuSecondsSince(),
            c.wallSeconds(), f.shareErrorSumPp, f.tasks, f.shareErrorMaxPp);
    }
};

QTEST_GUILESS_MAIN(BenchReplay)
#include "bench_replay.moc"
