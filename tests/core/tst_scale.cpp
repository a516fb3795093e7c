// SPDX-License-Identifier: GPL-2.0-or-later
// Valid input at the limits stays linear and within memory (docs/limits.md, "Memory" and
// "Scale"). Nothing here reads a clock: each test counts what the code does (queue entries
// visited, group sums asked for, bytes allocated) or asserts the structure that makes it cheap.
//   - the RT run queue is the kernel's rt_prio_array: enqueue, dequeue and the RR requeue
//     visit no other task; pick, push and pull stop at the first task that decides;
//   - the metrics ask for the groups' CPU times once, not once per group;
//   - a task's copies and its forked children share its program;
//   - the memory estimate refuses a scenario (naming the JSON path) or stops a run;
//   - sweep --param values get the scenario file's nesting bound.
#include <QObject>

#ifndef Q_MOC_RUN
#include "cli/cli.h"
#include "cli/sweep.h"
#include "core/base/limits.h"
#include "core/fair/taskgroup.h"
#include "core/record/machineview.h"
#include "core/record/metrics.h"
#include "core/record/metricsbuilder.h"
#include "core/rt/rtclass.h"
#include "core/scenario/scenarioio.h"
#include "core/sched/rq.h"
#include "core/sim/simulation.h"
#include "core/workload/task.h"
#include "support/fakemachine.h"
#include "support/simlookup.h"
#endif

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <bit>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// Bytes allocated through operator new in this test binary (the counting is the test's own: it
// replaces the global operator new of this executable only).
namespace {
std::atomic<uint64_t> g_allocatedBytes{0};
}

void* operator new(std::size_t size)
{
    g_allocatedBytes.fetch_add(size, std::memory_order_relaxed);
    if (void* p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

using namespace schedlab;

class TestScale : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rtQueueIsPerPriority();
    void rtQueueWalksStopAtTheDecidingTask();
    void metricsSumGroupCpuTimeOnce();
    void taskCopiesShareTheirProgram();
    void forkedChildrenShareTheParentsProgram();
    void hundredThousandForkingCopiesStopAtTheGuard();
    void memoryEstimateRefusesWithThePath();
    void memoryGuardStopsAForkLoop();
    void sweepParamDepthIsBounded();
};

namespace {

using test::FakeMachine;

/// An RT task of priority @p rtPriority on @p cpu.
Task& rtTask(FakeMachine& m, int rtPriority, int cpu, Policy policy = Policy::Fifo)
{
    return m.addTask(cpu, policy, rtPriority);
}

/// The migrations the RT class asked for.
int migrations(const FakeMachine& m)
{
    return static_cast<int>(m.moves.size());
}

bool bitSet(const RtRq& q, int rtPriority)
{
    const int i = RtRq::indexOf(rtPriority);
    return (q.bitmap[static_cast<size_t>(i / 64)] >> (i % 64)) & 1U;
}

/// A metrics view of @p depth groups in a chain (/g1/g2/…), no CPU, no task; it counts how often
/// the group CPU times are asked for.
class ChainView final : public FakeMachine
{
public:
    explicit ChainView(int depth)
        : FakeMachine(0)
    {
        now = 1000;
        for (int g = 1; g <= depth; ++g)
            addGroup("/g" + std::to_string(g), g - 1);
    }
    std::vector<int64_t> groupCpuTimes() const override
    {
        ++calls;
        // Each group ran 1 ns itself: a group's hierarchical time is 1 + its descendants'.
        std::vector<int64_t> t(groups.size());
        for (size_t g = 0; g < t.size(); ++g)
            t[g] = static_cast<int64_t>(t.size() - g);
        return t;
    }

    mutable int calls = 0;
};

std::optional<Scenario> load(const std::string& json)
{
    return test::loadScenario(json, "tst_scale");
}

/// One task entry, @p count copies (no "count" if 0), whose program is @p forks forks of a
/// child that runs @p childOps times 1 ms, then runs forever.
std::string forkingTasks(int count, int forks, int childOps, const char* duration = "1ms")
{
    std::string child;
    for (int i = 0; i < childOps; ++i)
        child += std::string(i ? ", " : "") + R"({ "run": "1ms" })";
    std::string program;
    for (int i = 0; i < forks; ++i)
        program += R"({ "fork": { "program": [ )" + child + " ] } }, ";
    program += R"({ "run": "forever" })";
    return std::string(R"({ "schedlab": 1, "name": "forks", "duration": ")") + duration
        + R"(", "tasks": [ { "name": "t", )"
        + (count ? "\"count\": " + std::to_string(count) + ", " : std::string())
        + R"("program": [ )" + program + " ] } ] }";
}

} // namespace

void TestScale::rtQueueIsPerPriority()
{
    // 10 000 tasks at priorities 10, 50 and 99 on one CPU: the queue is three lists behind a
    // bitmap of three bits; building it, requeueing an RR task and emptying it visit no task.
    FakeMachine m(1);
    RtClass rt(m, 1000, false);
    m.sched = &rt;
    Rq& rq = m.rq(0);
    const int prios[] = {10, 50, 99};
    for (int i = 0; i < 10'000; ++i)
        rt.enqueueTask(rq, rtTask(m, prios[i % 3], 0, Policy::RoundRobin), 0);
    QCOMPARE(rq.rt.nrQueued, 10'000);
    QCOMPARE(rt.queuedTasks(rq).size(), size_t(10'000)); // (queuedTasks does not count visits)
    QCOMPARE(rt.queueVisits(), uint64_t{0});
    QCOMPARE(std::popcount(rq.rt.bitmap[0]) + std::popcount(rq.rt.bitmap[1]), 3);
    QVERIFY(bitSet(rq.rt, 10) && bitSet(rq.rt, 50) && bitSet(rq.rt, 99));
    QCOMPARE(rq.rt.firstIndex(), 0); // prio 99 is index 0: the highest first
    // FIFO within a priority: task 0 (prio 10) heads its list, task 9999 (prio 10) ends it.
    QCOMPARE(rq.rt.head[static_cast<size_t>(RtRq::indexOf(10))], 0);
    QCOMPARE(rq.rt.tail[static_cast<size_t>(RtRq::indexOf(10))], 9999);
    QCOMPARE(rq.rt.head[static_cast<size_t>(RtRq::indexOf(99))], 2);
    // The pick is the head of prio 99: one visit.
    QCOMPARE(rt.pickFirst(0), m.tasks[2].get());
    QCOMPARE(rt.queueVisits(), uint64_t{1});
    // Task 2 runs out its RR slice: it goes behind its 3332 equals (tasks 2, 5, …, 9998) without
    // a walk; task 5 heads the list.
    Task& t2 = *m.tasks[2];
    rq.curr = &t2.se;
    t2.rtTicksLeft = 1;
    rt.taskTick(rq, t2);
    QCOMPARE(rq.rt.head[static_cast<size_t>(RtRq::indexOf(99))], 5);
    QCOMPARE(rq.rt.tail[static_cast<size_t>(RtRq::indexOf(99))], 2);
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    QCOMPARE(rt.queueVisits(), uint64_t{1});
    rq.curr = nullptr;
    // Dequeue everything, prio 99 first: its bit clears with its last task; none is visited.
    for (int i = 2; i < 10'000; i += 3)
        rt.dequeueTask(rq, *m.tasks[static_cast<size_t>(i)], 0);
    QVERIFY(!bitSet(rq.rt, 99));
    QCOMPARE(rq.rt.firstIndex(), RtRq::indexOf(50));
    for (int i = 0; i < 10'000; ++i)
        rt.dequeueTask(rq, *m.tasks[static_cast<size_t>(i)], 0);
    QCOMPARE(rq.rt.nrQueued, 0);
    QCOMPARE(rq.rt.bitmap[0] | rq.rt.bitmap[1], uint64_t{0});
    QCOMPARE(rq.rt.firstIndex(), -1);
    QCOMPARE(rt.queueVisits(), uint64_t{1});
}

void TestScale::rtQueueWalksStopAtTheDecidingTask()
{
    // CPU 0 runs a prio-50 task with 5000 prio-50 and 5000 prio-40 tasks queued behind it;
    // CPU 1 runs prio 60. No queued task is above 60: the push looks at the running task (50 is
    // not above the lowest other CPU's 60) and stops, 1 visit; CPU 0 runs RT, so no pull.
    FakeMachine m(2);
    RtClass rt(m, 1000, false);
    m.sched = &rt;
    Rq& rq0 = m.rq(0);
    Task& running = rtTask(m, 50, 0);
    rt.enqueueTask(rq0, running, 0);
    for (int i = 0; i < 10'000; ++i)
        rt.enqueueTask(rq0, rtTask(m, i < 5000 ? 50 : 40, 0), 0);
    Task& other = rtTask(m, 60, 1);
    rt.enqueueTask(m.rq(1), other, 0);
    rq0.curr = &running.se;
    m.rq(1).curr = &other.se;
    rt.balance(rq0);
    QCOMPARE(migrations(m), 0);
    QCOMPARE(rt.queueVisits(), uint64_t{1});
    // CPU 1's task leaves (it blocks): CPU 1 is idle and pulls. CPU 0's queue: the running task
    // (not waiting), then the first waiting prio-50 task, task 1: 2 visits, one migration.
    rt.dequeueTask(m.rq(1), other, 0);
    m.rq(1).curr = nullptr;
    rt.balance(m.rq(1));
    QCOMPARE(migrations(m), 1);
    QCOMPARE(m.tasks[1]->cpu, 1);
    QCOMPARE(rt.queueVisits(), uint64_t{3});
    QCOMPARE(m.reschedCpus, std::vector<int>{1});
    // CPU 0 balances again: CPU 1 is now idle with task 1 queued (prio -1 as cpupri sees a CPU
    // that runs nothing): CPU 0 pushes its waiting tasks while one is above CPU 1's level.
    // cpuPrio(1) stays -1 (nothing runs there yet), so every waiting task goes: 9999 pushes.
    rt.balance(rq0);
    QCOMPARE(migrations(m), 1 + 9999);
    QCOMPARE(rq0.rt.nrQueued, 1);
    // The walk looked at each task of CPU 0 once (the running one and 9999 pushed).
    QCOMPARE(rt.queueVisits(), uint64_t{3 + 10'000});
}

void TestScale::metricsSumGroupCpuTimeOnce()
{
    // 10 000 nested groups: the metrics ask for the hierarchical sums once, and each cgroup's
    // entry is its own sum (group g's: 10 001 − g in this view).
    ChainView view(10'000);
    Metrics m;
    addMachineMetrics(m, view, 1'000'000'000, RunFindings{});
    QCOMPARE(view.calls, 1);
    QCOMPARE(m.cgroups.size(), size_t(10'000));
    QCOMPARE(m.cgroups.front().path, std::string("/g1"));
    QCOMPARE(m.cgroups.front().cpuTimeNs, int64_t{10'000});
    QCOMPARE(m.cgroups.back().cpuTimeNs, int64_t{1});
}

void TestScale::taskCopiesShareTheirProgram()
{
    // 1000 copies of a task whose program has 100 forks of a 20-operation child: about 100 × 21
    // operations (over 500 KB as Op structs). A copy per task would allocate over 500 MB; shared,
    // building the simulation allocates less than ScenarioLimits::bytesPerTask per task plus two
    // copies of the program (the simulation keeps the scenario; the tasks share one more) and
    // 1 MB for the fixed parts (1 CPU, no cgroup).
    const auto s = load(forkingTasks(1000, 100, 20));
    QVERIFY(s);
    const uint64_t programBytes = 100 * 21 * sizeof(Op) + 100 * sizeof(TaskSpec);
    QVERIFY(programBytes > 500'000);
    const uint64_t before = g_allocatedBytes.load();
    {
        Simulation sim(*s);
        const uint64_t used = g_allocatedBytes.load() - before;
        QVERIFY2(
            used < 1000 * uint64_t{ScenarioLimits::bytesPerTask} + 2 * programBytes + 1'000'000,
            std::to_string(used).c_str());
    }
}

void TestScale::forkedChildrenShareTheParentsProgram()
{
    // One task forks 100 children at t = 0, each with a 200-operation program (over 50 KB as
    // Op structs). The run to 1 ms allocates less than 100 × 50 KB: the children alias the
    // parent's program instead of copying it (the recording and events of 101 tasks in 1 ms
    // are far below 2 MB).
    const auto s = load(forkingTasks(0, 100, 200));
    QVERIFY(s);
    const uint64_t childProgram = 200 * sizeof(Op);
    QVERIFY(childProgram > 50'000);
    Simulation sim(*s);
    const uint64_t before = g_allocatedBytes.load();
    sim.run();
    QVERIFY(sim.stopReason().empty());
    QCOMPARE(sim.tasks().size(), size_t(101));
    const uint64_t used = g_allocatedBytes.load() - before;
    QVERIFY2(used < 100 * 4096 + 2'000'000, std::to_string(used).c_str());
    QVERIFY(used < 100 * childProgram);
}

void TestScale::hundredThousandForkingCopiesStopAtTheGuard()
{
    // The issue's file: 100 000 copies of a task with 100 forks (copying the program gave ~140 KB
    // per copy, 14 GB). It loads (estimate: 100 000 × 2066 bytes + one CPU = 198 MiB, below the
    // 1.5 GiB model-bytes guard) and the first fork would make 100 001 live tasks: the run stops
    // at t = 0 with the live-task guard (schedlab-cli exits 3).
    const auto s = load(forkingTasks(100'000, 100, 1));
    QVERIFY(s);
    Simulation sim(*s);
    sim.run();
    QVERIFY2(sim.stopReason().find("more than 100000 live tasks") != std::string::npos,
        sim.stopReason().c_str());
    QCOMPARE(sim.now(), Nanoseconds(0));
    QCOMPARE(sim.tasks().size(), size_t(100'000));
    // The same through schedlab-cli: exit 3 with the reason; with model-bytes at 100 MiB the file
    // is refused before the run, exit 2, the message naming the file and the JSON path.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string file = dir.filePath(QStringLiteral("forks.json")).toStdString();
    {
        std::ofstream f(file);
        f << forkingTasks(100'000, 100, 1);
    }
    std::ostringstream out, err;
    QCOMPARE(runCli({"run", file}, out, err), 3);
    QVERIFY2(err.str().find("creating t-1.1 would make more than 100000 live tasks")
            != std::string::npos,
        err.str().c_str());
    std::ostringstream out2, err2;
    QCOMPARE(runCli({"run", file, "--limit", "model-bytes=104857600"}, out2, err2), 2);
    QVERIFY2(err2.str().starts_with(file + ": /tasks/0/count: 100000 copies of a task bring "),
        err2.str().c_str());
}

void TestScale::memoryEstimateRefusesWithThePath()
{
    // The same file with model-bytes at 100 MiB: 1 CPU is 16 384 + 896 bytes, each copy
    // 2048 + 2 × (1 + 8) = 2066: 17 280 + 206 600 000 = 206 617 280 bytes, 198 MiB rounded up.
    const auto s = load(forkingTasks(100'000, 100, 1));
    QVERIFY(s);
    RunOptions o;
    o.limits.modelBytes = uint64_t{100} << 20U;
    try {
        Simulation sim(*s, o);
        QFAIL("loaded above the model-bytes limit");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(std::string(e.what()),
            std::string("/tasks/0/count: 100000 copies of a task bring the estimated memory of the "
                        "simulation to 198 MiB, more than the model-bytes limit of 100 MiB "
                        "(docs/limits.md, Memory; --limit model-bytes=N)"));
    }
    // 50 000 copies: 17 280 + 50 000 × 2066 = 103 317 280 bytes ≤ 104 857 600, it loads.
    const auto fits = load(forkingTasks(50'000, 1, 1));
    QVERIFY(fits);
    Simulation ok(*fits, o);
    // 10 000 cgroups on 8 CPUs cost 10 000 × (1024 + 2 × (2 + 8) + 8 × 896) bytes = 82.1 MB:
    // with 8 CPUs (8 × (16 384 + 896)) and an 80 MB guard the cgroup entry is the one named.
    const auto groups = load(R"({ "schedlab": 1, "name": "g", "duration": "1ms",
      "machine": { "cpus": 8 }, "cgroups": [ { "path": "/g", "count": 10000 } ],
      "tasks": [ { "name": "t", "program": [ { "run": "forever" } ] } ] })");
    QVERIFY(groups);
    o.limits.modelBytes = 80'000'000;
    try {
        Simulation sim(*groups, o);
        QFAIL("loaded above the model-bytes limit");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).starts_with("/cgroups/0/count: 10000 cgroups on 8 CPUs "),
            e.what());
    }
}

void TestScale::memoryGuardStopsAForkLoop()
{
    // A parent forks a 10 µs child every 100 µs for 100 ms (about 1000 children without a
    // guard). 2 CPUs are 2 × 17 280 bytes, the parent 2048 + 2 × 1: 36 610. A guard of
    // 36 610 + 9 × 2054 (p.1 … p.9) + 2056 (p.10) = 57 152 bytes leaves room for at most ten
    // children (less, as the kept waits count too): the run stops at a fork, on the guard.
    const std::string loop = R"({ "schedlab": 1, "name": "forks", "duration": "100ms",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
      "tasks": [ { "name": "p", "program": [ { "loop": [
          { "fork": { "program": [ { "run": "10us" } ] } }, { "run": "100us" } ] } ] } ] })";
    const auto s = load(loop);
    QVERIFY(s);
    Simulation unbounded(*s);
    unbounded.run();
    QVERIFY(unbounded.stopReason().empty());
    QVERIFY(unbounded.tasks().size() > 500);
    RunOptions o;
    o.limits.modelBytes = 57'152;
    Simulation sim(*s, o);
    sim.run();
    QVERIFY2(
        sim.stopReason().find("model-bytes limit") != std::string::npos, sim.stopReason().c_str());
    QVERIFY(sim.tasks().size() <= 11);
    QVERIFY(sim.tasks().size() >= 2);
    QVERIFY(sim.now() < Nanoseconds(100'000'000));
}

void TestScale::sweepParamDepthIsBounded()
{
    // A value is nested at most 512 levels (the scenario file's bound), checked before parsing.
    const auto nested = [](size_t depth) {
        return std::string(depth, '[') + std::string(depth, ']');
    };
    sweep::Param p;
    std::string error;
    QVERIFY2(sweep::parseParam("/x-deep=" + nested(512), p, &error), error.c_str());
    QVERIFY(!sweep::parseParam("/x-deep=" + nested(513), p, &error));
    QCOMPARE(error,
        std::string("--param /x-deep: a value is nested more than 512 levels deep (arrays and "
                    "objects), the limit of a scenario file"));
    // Nesting inside a string does not count.
    QVERIFY(sweep::parseParam("/name=\"" + nested(600) + "\"", p, &error));
    // The issue's 60 000 levels: exit 2 with the message, before the scenario is read.
    std::ostringstream out, err;
    const int rc = sweep::runSweepCli(
        {"sweep", "no-such-file.json", "--param", "/tasks/0/x-v=" + nested(60'000)}, out, err);
    QCOMPARE(rc, 2);
    QVERIFY2(err.str().find("nested more than 512 levels") != std::string::npos, err.str().c_str());
    QCOMPARE(jsonNestingTooDeep(nested(3), 3), std::nullopt);
    QCOMPARE(jsonNestingTooDeep(nested(4), 3), std::optional<size_t>(3));
}

QTEST_GUILESS_MAIN(TestScale)
#include "tst_scale.moc"
