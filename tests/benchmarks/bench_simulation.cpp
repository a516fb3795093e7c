// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmarks (CTest label "bench", not part of `make test`): simulated events per second and the
// simulated-time / wall-time ratio (budget: a 10 s run within 10 s of wall time). Run with `make
// bench`.
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

using namespace schedlab;

namespace {

Scenario parseOrFail(const std::string& json)
{
    LoadResult r = parseScenario(json, "bench");
    if (!r.ok()) {
        for (const auto& e : r.errors)
            std::fprintf(stderr, "%s\n", e.c_str());
        qFatal("benchmark scenario does not load");
    }
    return *r.scenario;
}

struct Figures
{
    double wallSeconds = 0;
    uint64_t events = 0;
    uint64_t recorded = 0;
    uint64_t bytes = 0;
};

/// @p keep false: the recording is neither kept nor written (streamed to no sink), as in
/// `schedlab-cli run` without exports; the metrics do not need it.
Figures timeRun(const Scenario& s, bool samples, bool events = true, bool keep = true)
{
    RunOptions o;
    o.recordSamples = samples;
    o.recordEvents = events;
    const auto t0 = std::chrono::steady_clock::now();
    Simulation sim(s, o);
    if (!keep)
        sim.streamRecording(nullptr);
    sim.run();
    const auto t1 = std::chrono::steady_clock::now();
    Figures f;
    f.wallSeconds = std::chrono::duration<double>(t1 - t0).count();
    f.events = sim.eventsExecuted();
    f.recorded = sim.recording().size();
    f.bytes = sim.recording().bytes();
    return f;
}

void report(const char* name, const Scenario& s, const Figures& f)
{
    const double simSeconds = static_cast<double>(s.durationOrDefault().count()) / 1e9;
    std::printf("BENCH %-34s wall %8.3f s  events %10llu  %12.0f events/s  sim/real %8.1fx  "
                "records %9llu (%llu bytes, %.1f B/record)\n",
        name, f.wallSeconds, static_cast<unsigned long long>(f.events),
        static_cast<double>(f.events) / f.wallSeconds, simSeconds / f.wallSeconds,
        static_cast<unsigned long long>(f.recorded), static_cast<unsigned long long>(f.bytes),
        f.recorded ? static_cast<double>(f.bytes) / static_cast<double>(f.recorded) : 0.0);
}

std::string hogsOnOneCpu(int tasks)
{
    // Half hogs, half tasks that sleep, so wakeups, placement and delayed dequeue are exercised.
    return R"({ "schedlab": 1, "name": "bench-1cpu", "duration": "10s",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
      "tasks": [
        { "name": "hog", "count": )"
        + std::to_string((tasks + 1) / 2) + R"(, "program": [ { "run": "forever" } ] })"
        + (tasks / 2 ? R"(, { "name": "sleeper", "count": )" + std::to_string(tasks / 2)
                    + R"(, "program": [ { "loop": [ { "run": { "uniform": ["100us", "2ms"] } },
                                         { "sleep": { "uniform": ["1ms", "20ms"] } } ] } ] })"
                     : std::string())
        + "] }";
}

std::string bigMachine(
    int cpus = 64, int totalTasks = 2000, const char* duration = "10s", int hogsPerLeaf = -1)
{
    // 64 CPUs (32 cores x 2 threads, 2 LLCs), 50 cgroups three levels deep, 2000 tasks; the
    // scaling table keeps the same shape on other CPU counts (SMT pairs, LLCs of 16 cores).
    std::string cgroups;
    std::vector<std::string> leaves;
    int n = 0;
    for (int a = 0; a < 5; ++a) {
        const std::string pa = "/g" + std::to_string(a);
        cgroups += std::string(n++ ? "," : "") + R"({ "path": ")" + pa + R"(", "cpu.weight": )"
            + std::to_string(50 + 50 * a) + " }";
        for (int b = 0; b < 3; ++b) {
            const std::string pb = pa + "/m" + std::to_string(b);
            cgroups += R"(,{ "path": ")" + pb + R"(" })";
            ++n;
            for (int c = 0; c < 2; ++c) {
                const std::string pc = pb + "/l" + std::to_string(c);
                cgroups += R"(,{ "path": ")" + pc + R"(", "cpu.weight": )"
                    + std::to_string(100 + 100 * c) + " }";
                ++n;
                leaves.push_back(pc);
            }
        }
    }
    std::string tasks;
    const int perLeaf = std::max(4, totalTasks / static_cast<int>(leaves.size()));
    for (size_t i = 0; i < leaves.size(); ++i) {
        tasks += std::string(i ? "," : "") + R"({ "name": "h)" + std::to_string(i)
            + R"(", "count": )" + std::to_string(hogsPerLeaf >= 0 ? hogsPerLeaf : perLeaf / 4)
            + R"(, "cgroup": ")" + leaves[i] + R"(", "program": [ { "run": "forever" } ] })";
        tasks += R"(,{ "name": "s)" + std::to_string(i) + R"(", "count": )"
            + std::to_string(perLeaf - perLeaf / 4) + R"(, "cgroup": ")" + leaves[i]
            + R"(", "start": { "uniform": ["0s", "100ms"] }, "program": [ { "loop": [ { "run": { "uniform": ["50us", "1ms"] } }, { "sleep": { "uniform": ["2ms", "50ms"] } } ] } ] })";
    }
    const int threads = cpus >= 2 ? 2 : 1;
    const int coresPerLlc = std::min(16, cpus / threads);
    return R"({ "schedlab": 1, "name": "bench-)" + std::to_string(cpus) + R"(cpu", "duration": ")"
        + duration + R"(", "kernel": { "profile": "6.13", "hz": 1000 },
      "machine": { "cpus": )"
        + std::to_string(cpus) + R"(, "threads_per_core": )" + std::to_string(threads)
        + R"(, "cores_per_llc": )" + std::to_string(coresPerLlc) + R"( }, "cgroups": [ )" + cgroups
        + R"( ], "tasks": [ )" + tasks + " ] }";
}

} // namespace

class BenchSimulation : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void oneCpu_data()
    {
        QTest::addColumn<int>("tasks");
        QTest::addRow("1 task") << 1;
        QTest::addRow("10 tasks") << 10;
        QTest::addRow("100 tasks") << 100;
        QTest::addRow("1000 tasks") << 1000;
    }
    void oneCpu()
    {
        QFETCH(int, tasks);
        const Scenario s = parseOrFail(hogsOnOneCpu(tasks));
        const Figures f = timeRun(s, true);
        report(("1 CPU, " + std::to_string(tasks) + " tasks, 10s").c_str(), s, f);
        QVERIFY(f.events > 0);
        QVERIFY(f.recorded == 0 || f.bytes / f.recorded <= 48);
    }
    void seedScenario()
    {
        const LoadResult r =
            loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/cgroup-weight-starvation.json");
        QVERIFY(r.ok());
        const Figures f = timeRun(*r.scenario, true);
        report("seed starvation, 60s, full recording", *r.scenario, f);
        QVERIFY(f.events > 0);
    }
    void bigMachine()
    {
        const Scenario s = parseOrFail(::bigMachine());
        const Figures f = timeRun(s, false, false, false);
        report("64 CPUs, 2000 tasks, 50 cgroups, 10s", s, f);
        QVERIFY(f.events > 0);
    }
    /// The scaling table: the same workload shape (31 tasks per CPU, 50 cgroups three deep,
    /// half the tasks sleeping) on 1 … 256 CPUs; the cost per event should not grow with the
    /// machine.
    void scaling_data()
    {
        QTest::addColumn<int>("cpus");
        QTest::addColumn<int>("tasks");
        for (int cpus : {1, 4, 16, 64})
            QTest::addRow("%d CPUs", cpus) << cpus << cpus * 2000 / 64;
        QTest::addRow("256 CPUs") << 256 << 10000;
    }
    void scaling()
    {
        QFETCH(int, cpus);
        QFETCH(int, tasks);
        const Scenario s = parseOrFail(::bigMachine(cpus, tasks));
        const Figures f = timeRun(s, false, false, false);
        const double simSeconds = static_cast<double>(s.durationOrDefault().count()) / 1e9;
        int total = 0;
        for (const auto& t : s.tasks)
            total += t.count.value_or(1);
        std::printf("SCALING %4d CPUs %6d tasks  wall %8.3f s  events %10llu  %11.0f events/s  "
                    "%6.3f us/event  sim/real %6.1fx\n",
            cpus, total, f.wallSeconds, static_cast<unsigned long long>(f.events),
            static_cast<double>(f.events) / f.wallSeconds,
            f.wallSeconds * 1e6 / static_cast<double>(f.events), simSeconds / f.wallSeconds);
        QVERIFY(f.events > 0);
    }
    /// The task count at a fixed machine: 64 CPUs, the 1500 sleepers of bigMachine (so the
    /// mix of wakeups, ticks and switches stays alike) and 16 … 1066 hogs per leaf group (480 …
    /// 31 980 hogs, 8 … 500 runnable tasks per CPU), 2 s each.
    void taskCount_data()
    {
        QTest::addColumn<int>("hogsPerLeaf");
        for (int hogs : {16, 66, 266, 1066})
            QTest::addRow("%d hogs", hogs * 30) << hogs;
    }
    void taskCount()
    {
        QFETCH(int, hogsPerLeaf);
        const Scenario s = parseOrFail(::bigMachine(64, 2000, "2s", hogsPerLeaf));
        const Figures f = timeRun(s, false, false, false);
        int total = 0;
        for (const auto& t : s.tasks)
            total += t.count.value_or(1);
        std::printf("TASKS   64 CPUs %6d tasks  wall %8.3f s  events %10llu  %6.3f us/event  "
                    "sim/real %6.1fx\n",
            total, f.wallSeconds, static_cast<unsigned long long>(f.events),
            f.wallSeconds * 1e6 / static_cast<double>(f.events), 2.0 / f.wallSeconds);
        QVERIFY(f.events > 0);
    }
};

QTEST_APPLESS_MAIN(BenchSimulation)
#include "bench_simulation.moc"
