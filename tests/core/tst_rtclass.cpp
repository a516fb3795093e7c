// SPDX-License-Identifier: GPL-2.0-or-later
// The RT class and RT group bandwidth (kernel-model.md §10, S9) and the kernel-work cost model of
// the rt_runtime constraint-check stall (seeds/rt-group-constraints-tasklist-lock.txt).
// Expected values are derived by hand in the comments (HZ = 1000: ticks every 1 ms).
//
// The core headers come before <QTest>: Qt's `forever` macro would mangle DurationSpec::forever.
#ifndef Q_MOC_RUN
#include "core/record/metrics.h"
#include "core/rt/rtclass.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#endif

#include <QTest>

#include <optional>
#include <string>

using namespace schedlab;

class TestRtClass : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void toRatio();
    void admissionRules_data();
    void admissionRules();
    void constraintWalkCost_data();
    void constraintWalkCost();
    void rtThrottlingDutyCycle();
    void fairServerShare();
    void fairServerIdleWithoutFairTasks();
    void groupThrottling();
    void roundRobinSlices();
    void fifoRunsToCompletion();
    void rtPreemptsFair();
    void pushToIdleCpu();
    void policyChangeSwitchesClass_data();
    void policyChangeSwitchesClass();
    void seedContrast();
    void cgroupCountAndWriteRoundTrip();
};

namespace {

constexpr int64_t kMs = 1000000;

std::optional<Scenario> parse(const std::string& json)
{
    LoadResult r = parseScenario(json, "tst_rtclass");
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    return r.scenario;
}

Metrics run(const std::string& json, const std::string& profile = {},
    const std::vector<std::pair<std::string, std::string>>& overrides = {})
{
    auto s = parse(json);
    if (!s)
        qFatal("scenario does not load");
    RunOptions o;
    if (!profile.empty())
        o.profile = profile;
    o.overrides = overrides;
    Simulation sim(*s, o);
    sim.run();
    return sim.metrics();
}

const TaskMetrics& task(const Metrics& m, const std::string& name)
{
    for (const auto& t : m.tasks)
        if (t.name == name)
            return t;
    qFatal("no task %s", name.c_str());
}

std::vector<Finding> findings(const Metrics& m, const std::string& kind)
{
    std::vector<Finding> out;
    for (const auto& f : m.findings)
        if (f.kind == kind)
            out.push_back(f);
    return out;
}

int64_t maxDuration(const std::vector<Finding>& fs)
{
    int64_t out = 0;
    for (const auto& f : fs)
        out = std::max(out, f.durationNs);
    return out;
}

} // namespace

void TestRtClass::toRatio()
{
    // to_ratio(): runtime << 20 / period (BW_SHIFT = 20).
    QCOMPARE(schedlab::toRatio(1000000000, 950000000), uint64_t{996147}); // 0.95 · 2^20 floored
    QCOMPARE(schedlab::toRatio(1000000000, 500000000), uint64_t{1} << 19);
    QCOMPARE(schedlab::toRatio(1000000000, kRtRuntimeInf), uint64_t{1} << 20);
    QCOMPARE(schedlab::toRatio(100000, 0), uint64_t{0});
}

void TestRtClass::admissionRules_data()
{
    // Each row: cgroups and actions; the failed_action findings expected (by errno, in order).
    QTest::addColumn<QString>("cgroups");
    QTest::addColumn<QString>("extra");
    QTest::addColumn<QStringList>("errors");
    QTest::addRow("fits under the global ratio")
        << R"({ "path": "/a", "cpu.rt_runtime_us": 100000 })"
        << "" << QStringList{};
    QTest::addRow("above the global 0.95") << R"({ "path": "/a", "cpu.rt_runtime_us": 960000 })"
                                           << "" << QStringList{"EINVAL"};
    QTest::addRow("siblings sum above the root")
        << R"({ "path": "/a", "cpu.rt_runtime_us": 500000 },
              { "path": "/b", "cpu.rt_runtime_us": 500000 })"
        << "" << QStringList{"EINVAL"};
    QTest::addRow("child above its parent") << R"({ "path": "/a", "cpu.rt_runtime_us": 100000 },
              { "path": "/a/c", "cpu.rt_runtime_us": 200000 })"
                                            << "" << QStringList{"EINVAL"};
    QTest::addRow("child at its parent's ratio")
        << R"({ "path": "/a", "cpu.rt_runtime_us": 100000 },
              { "path": "/a/c", "cpu.rt_runtime_us": 100000 })"
        << "" << QStringList{};
    QTest::addRow("root runtime 0") << R"({ "path": "/", "cpu.rt_runtime_us": 0 })"
                                    << "" << QStringList{"EINVAL"};
    QTest::addRow("period below the runtime")
        << R"({ "path": "/a", "cpu.rt_runtime_us": 100000 })"
        << R"(, "actions": [ { "at": "1ms", "set": { "cgroup": "/a", "cpu.rt_period_us": 50000 } } ])"
        << QStringList{"EINVAL"};
    QTest::addRow("zeroing a group with an RT task")
        << R"({ "path": "/a", "cpu.rt_runtime_us": 100000 })"
        << R"(, "tasks": [ { "name": "rt", "cgroup": "/a", "policy": "fifo", "rt_priority": 10,
                            "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "9ms" } ] } ] } ],
              "actions": [ { "at": "5ms", "set": { "cgroup": "/a", "cpu.rt_runtime_us": 0 } } ])"
        << QStringList{"EBUSY"};
    QTest::addRow("zeroing a group without RT tasks")
        << R"({ "path": "/a", "cpu.rt_runtime_us": 100000 })"
        << R"(, "actions": [ { "at": "5ms", "set": { "cgroup": "/a", "cpu.rt_runtime_us": 0 } } ])"
        << QStringList{};
    QTest::addRow("RT task in a group without runtime")
        << R"({ "path": "/a" })"
        << R"(, "tasks": [ { "name": "rt", "cgroup": "/a", "policy": "fifo",
                            "program": [ { "run": "1ms" } ] } ])"
        << QStringList{"EPERM"};
    QTest::addRow("moving an RT task into a group without runtime")
        << R"({ "path": "/a" })"
        << R"(, "tasks": [ { "name": "rt", "policy": "rr", "program": [ { "run": "50ms" } ] } ],
              "actions": [ { "at": "5ms", "move": { "task": "rt", "cgroup": "/a" } } ])"
        << QStringList{"EINVAL"};
}

void TestRtClass::admissionRules()
{
    QFETCH(QString, cgroups);
    QFETCH(QString, extra);
    QFETCH(QStringList, errors);
    for (const char* check : {"walk_all_tasks", "patched"}) {
        const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "20ms",
            "cgroups": [ )"
            + cgroups.toStdString() + " ]" + extra.toStdString() + " }";
        const Metrics m = run(json, "6.12", {{"rt_constraint_check", check}});
        const auto failed = findings(m, "failed_action");
        QStringList got;
        for (const auto& f : failed)
            for (const char* e : {"EINVAL", "EBUSY", "EPERM"})
                if (f.detail.find(e) != std::string::npos)
                    got << e;
        QCOMPARE(got, errors);
    }
}

void TestRtClass::constraintWalkCost_data()
{
    QTest::addColumn<QString>("check");
    QTest::addColumn<qint64>("cpuTime");
    // 100 groups + root, 10 sleeping tasks + the writer = 11 threads, costs 20 ns per group,
    // 10 ns per thread visited, 2 µs per write; one write of 0 to /g-1:
    // walk_all_tasks: 101 groups visited; the 100 groups at runtime 0 each walk all 11 threads:
    //   101·20 + 100·11·10 + 2000 = 2020 + 11000 + 2000 = 15 020 ns.
    // patched: no group goes from non-zero to 0: 101·20 + 2000 = 4 020 ns.
    QTest::addRow("walk_all_tasks") << "walk_all_tasks" << qint64{15020};
    QTest::addRow("patched") << "patched" << qint64{4020};
}

void TestRtClass::constraintWalkCost()
{
    QFETCH(QString, check);
    QFETCH(qint64, cpuTime);
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "10ms",
        "kernel": { "costs": { "rt_walk_group": "20ns", "rt_walk_task": "10ns",
                               "cgroup_write": "2us" } },
        "cgroups": [ { "path": "/g", "count": 100 } ],
        "tasks": [ { "name": "d", "count": 10, "program": [ { "sleep": "1s" } ] },
                   { "name": "w", "start": "1ms",
                     "program": [ { "write": { "cgroup": "/g-1", "cpu.rt_runtime_us": 0 } } ] } ] })";
    const Metrics m = run(json, "6.12", {{"rt_constraint_check", check.toStdString()}});
    QCOMPARE(task(m, "w").cpuTimeNs, cpuTime);
    QVERIFY(findings(m, "failed_action").empty());
}

void TestRtClass::rtThrottlingDutyCycle()
{
    // 6.6 (no fair server): the root rt_rq is throttled at 950 ms per 1 s period. The period
    // timer starts with the first RT enqueue at 0, the tick charges rt_time every 1 ms and
    // throttles once rt_time > 950 ms: at 951 ms in the first period; the refill at 1 s leaves
    // 1 ms, so the next periods throttle at +950 ms. RT: 951 + 950 + 950 = 2 851 ms over 3 s;
    // the fair hog gets the rest, 149 ms.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "3s",
        "tasks": [ { "name": "rt", "policy": "fifo", "rt_priority": 50,
                     "program": [ { "run": "forever" } ] },
                   { "name": "fair", "program": [ { "run": "forever" } ] } ] })";
    const Metrics m = run(json, "6.6");
    QVERIFY2(std::abs(task(m, "rt").cpuTimeNs - 2851 * kMs) <= 2 * kMs,
        std::to_string(task(m, "rt").cpuTimeNs).c_str());
    QVERIFY2(std::abs(task(m, "fair").cpuTimeNs - 149 * kMs) <= 2 * kMs,
        std::to_string(task(m, "fair").cpuTimeNs).c_str());
    // Without a fair task the throttled CPU idles: RT still gets 2 851 ms.
    const std::string alone = R"({ "schedlab": 1, "name": "t", "duration": "3s",
        "tasks": [ { "name": "rt", "policy": "fifo", "rt_priority": 50,
                     "program": [ { "run": "forever" } ] } ] })";
    QVERIFY(std::abs(task(run(alone, "6.6"), "rt").cpuTimeNs - 2851 * kMs) <= 2 * kMs);
}

void TestRtClass::fairServerShare()
{
    // 6.12+: the fair server (50 ms / 1 s, defer mode) starts when the fair task is starved at
    // 0, its zero-laxity timer fires at 1 s − 50 ms, and it runs the fair task for 50 ms, then
    // the next period starts at 1 s: 3 × 50 ms = 150 ms (5 %) over 3 s, the RT task the rest.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "3s",
        "tasks": [ { "name": "rt", "policy": "fifo", "rt_priority": 50,
                     "program": [ { "run": "forever" } ] },
                   { "name": "fair", "program": [ { "run": "forever" } ] } ] })";
    for (const char* profile : {"6.12", "6.13", "7.1"}) {
        const Metrics m = run(json, profile);
        QVERIFY2(std::abs(task(m, "fair").cpuTimeNs - 150 * kMs) <= 2 * kMs,
            (std::string(profile) + ": " + std::to_string(task(m, "fair").cpuTimeNs)).c_str());
        QVERIFY(std::abs(task(m, "rt").cpuTimeNs - 2850 * kMs) <= 2 * kMs);
    }
}

void TestRtClass::fairServerIdleWithoutFairTasks()
{
    // 6.12+: no root RT throttling; an RT hog alone keeps the CPU for the whole run.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "3s",
        "tasks": [ { "name": "rt", "policy": "rr", "program": [ { "run": "forever" } ] } ] })";
    QCOMPARE(task(run(json, "6.12"), "rt").cpuTimeNs, 3000 * kMs);
}

void TestRtClass::groupThrottling()
{
    // A group with cpu.rt_runtime_us 100 ms per 1 s period: its RT hog runs 101 ms per period
    // in the first (throttled at the tick where rt_time > 100 ms), then 100 ms (the refill
    // leaves 1 ms), and the fair hog gets the rest: RT = 101 + 100 = 201 ms over 2 s.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "2s",
        "cgroups": [ { "path": "/rt", "cpu.rt_runtime_us": 100000 } ],
        "tasks": [ { "name": "rt", "cgroup": "/rt", "policy": "fifo", "rt_priority": 10,
                     "program": [ { "run": "forever" } ] },
                   { "name": "fair", "program": [ { "run": "forever" } ] } ] })";
    for (const char* profile : {"6.6", "6.13"}) {
        const Metrics m = run(json, profile);
        QVERIFY2(std::abs(task(m, "rt").cpuTimeNs - 201 * kMs) <= 2 * kMs,
            std::to_string(task(m, "rt").cpuTimeNs).c_str());
        QVERIFY(std::abs(task(m, "fair").cpuTimeNs - 1799 * kMs) <= 2 * kMs);
    }
}

void TestRtClass::roundRobinSlices()
{
    // Two SCHED_RR tasks of equal priority on one CPU alternate every RR_TIMESLICE (100 ms):
    // over 1 s each runs 500 ms in 5 slices; with HZ = 250 the slice is 25 ticks = 100 ms too.
    for (int hz : {1000, 250}) {
        const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "1s",
            "kernel": { "hz": )"
            + std::to_string(hz) + R"( },
            "tasks": [ { "name": "a", "policy": "rr", "rt_priority": 5,
                         "program": [ { "run": "forever" } ] },
                       { "name": "b", "policy": "rr", "rt_priority": 5,
                         "program": [ { "run": "forever" } ] } ] })";
        const Metrics m = run(json, "6.12");
        QVERIFY(std::abs(task(m, "a").cpuTimeNs - 500 * kMs) <= 5 * kMs);
        QVERIFY(std::abs(task(m, "b").cpuTimeNs - 500 * kMs) <= 5 * kMs);
        QVERIFY(task(m, "a").switches >= 4 && task(m, "a").switches <= 6);
    }
}

void TestRtClass::fifoRunsToCompletion()
{
    // SCHED_FIFO of equal priority: no time slice, the first runs until it is done (300 ms),
    // then the second; a higher priority task that wakes at 100 ms preempts at once.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "1s",
        "tasks": [ { "name": "a", "policy": "fifo", "rt_priority": 5,
                     "program": [ { "run": "300ms" } ] },
                   { "name": "b", "policy": "fifo", "rt_priority": 5,
                     "program": [ { "run": "300ms" } ] },
                   { "name": "hi", "policy": "fifo", "rt_priority": 6, "start": "100ms",
                     "program": [ { "run": "10ms" } ] } ] })";
    const Metrics m = run(json, "6.12");
    QCOMPARE(task(m, "a").exitedAtNs.value_or(-1), 310 * kMs);
    QCOMPARE(task(m, "b").exitedAtNs.value_or(-1), 610 * kMs);
    QCOMPARE(task(m, "hi").waitMaxNs, int64_t{0});
}

void TestRtClass::rtPreemptsFair()
{
    // A periodic RT task preempts fair hogs at once on wakeup (wait 0), whatever their number.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "500ms",
        "tasks": [ { "name": "hog", "count": 3, "program": [ { "run": "forever" } ] },
                   { "name": "rt", "policy": "fifo", "rt_priority": 1,
                     "program": [ { "loop": [ { "sleep": "7ms" }, { "run": "1ms" } ] } ] } ] })";
    const Metrics m = run(json, "6.13");
    QCOMPARE(task(m, "rt").waitMaxNs, int64_t{0});
    QVERIFY(task(m, "rt").cpuTimeNs >= 60 * kMs); // 500 / 8 = 62 cycles of 1 ms
}

void TestRtClass::pushToIdleCpu()
{
    // Two RT hogs start on CPU 0 (both pinned there first); when the affinity of the second is
    // widened, it runs on the idle CPU 1 at once instead of waiting behind the first.
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "100ms",
        "machine": { "cpus": 2 },
        "tasks": [ { "name": "a", "policy": "fifo", "rt_priority": 10, "cpus": "0",
                     "program": [ { "run": "forever" } ] },
                   { "name": "b", "policy": "fifo", "rt_priority": 10, "cpus": "0",
                     "program": [ { "run": "forever" } ] } ],
        "actions": [ { "at": "10ms", "set": { "task": "b", "cpus": "0-1" } } ] })";
    const Metrics m = run(json, "6.12");
    QCOMPARE(task(m, "a").cpuTimeNs, 100 * kMs);
    QCOMPARE(task(m, "b").cpuTimeNs, 90 * kMs);
}

void TestRtClass::policyChangeSwitchesClass_data()
{
    // At 10 ms one of the two hogs runs and the other waits: switching either covers both the
    // running (put_prev/set_next) and the queued (dequeue/enqueue) path of __sched_setscheduler.
    QTest::addColumn<QString>("switched");
    QTest::addColumn<QString>("other");
    QTest::newRow("a") << "a"
                       << "b";
    QTest::newRow("b") << "b"
                       << "a";
}

void TestRtClass::policyChangeSwitchesClass()
{
    // One CPU, two fair hogs; one becomes SCHED_FIFO at 10 ms and SCHED_NORMAL again at 50 ms.
    // Derivation: [0, 10 ms) the two share the CPU (about 5 ms each, within a 1 ms tick);
    // [10, 50 ms) the RT task runs alone (no throttling: 40 ms < 950 ms, 6.6 has no fair
    // server), so the other gets nothing; [50, 100 ms) they share again, each within a few ms
    // of 25 ms (the returning task is placed with its saved lag, at most a slice). So the other
    // runs 5 + 0 + 25 = 30 ms give or take the slice and tick effects: 20..36 ms. Without the
    // switch it would run 50 ms; if the task stayed RT, about 5 ms; if it were lost on the way
    // back to fair, about 55 ms.
    QFETCH(QString, switched);
    QFETCH(QString, other);
    const std::string name = switched.toStdString();
    const std::string json = R"({ "schedlab": 1, "name": "t", "duration": "100ms",
        "tasks": [ { "name": "a", "program": [ { "run": "forever" } ] },
                   { "name": "b", "program": [ { "run": "forever" } ] } ],
        "actions": [ { "at": "10ms", "set": { "task": ")"
        + name + R"(", "policy": "fifo" } },
                     { "at": "50ms", "set": { "task": ")"
        + name + R"(", "policy": "normal" } } ] })";
    const Metrics m = run(json, "6.6");
    const int64_t otherNs = task(m, other.toStdString()).cpuTimeNs;
    QVERIFY2(otherNs >= 20 * kMs && otherNs <= 36 * kMs, std::to_string(otherNs).c_str());
    QCOMPARE(task(m, name).cpuTimeNs + otherNs, 100 * kMs); // the CPU never idles
    QVERIFY(findings(m, "failed_action").empty());
}

void TestRtClass::seedContrast()
{
    // The shipped scenario: before the patch a fork spins >100 ms with interrupts off and the
    // ping's timer wake-up is held off >100 ms; after it both stay far below 1 ms.
    LoadResult r =
        loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/rt-group-constraints.json");
    QVERIFY(r.ok());
    QCOMPARE(r.scenario->cgroups.front().count.value_or(0), 10000);
    auto runWith = [&](const char* check) {
        RunOptions o;
        o.overrides = {{"rt_constraint_check", check}};
        o.recordSamples = false;
        Simulation sim(*r.scenario, o);
        sim.run();
        return sim.metrics();
    };
    const Metrics before = runWith("walk_all_tasks");
    QVERIFY(maxDuration(findings(before, "irqs_off")) > 100 * kMs);
    QVERIFY(maxDuration(findings(before, "irq_latency")) > 100 * kMs);
    QVERIFY(task(before, "ping-reply").waitMaxNs > 100 * kMs);
    const Metrics after = runWith("patched");
    QVERIFY(findings(after, "irqs_off").empty());
    QVERIFY(findings(after, "irq_latency").empty());
    QVERIFY(task(after, "ping-reply").waitMaxNs < kMs / 10);
    // All 10 000 writes finish in the 4 s run after the patch, about 20 before it.
    QVERIFY(task(after, "tee").exitedAtNs.has_value());
    QVERIFY(!task(before, "tee").exitedAtNs.has_value());
}

void TestRtClass::cgroupCountAndWriteRoundTrip()
{
    const std::string json = R"({ "schedlab": 1, "name": "t",
        "kernel": { "costs": { "fork": "30us" } },
        "cgroups": [ { "path": "/g", "count": 3, "cpu.weight": 200 }, { "path": "/g-2/x" } ],
        "tasks": [ { "name": "w", "program": [
            { "write": { "cgroup": "/g-*", "cpu.rt_runtime_us": 0 } },
            { "write": { "cgroup": "/g-2/x", "cpu.weight": 50 } } ] } ] })";
    auto s = parse(json);
    QVERIFY(s);
    const auto again = parse(writeScenario(*s));
    QVERIFY(again);
    QVERIFY(*again == *s);
    // Errors: a pattern that matches nothing, an unknown cost.
    LoadResult bad = parseScenario(R"({ "schedlab": 1, "name": "t",
        "kernel": { "costs": { "walk": "1ns" } },
        "tasks": [ { "name": "w", "program": [
            { "write": { "cgroup": "/nope-*", "cpu.rt_runtime_us": 0 } } ] } ] })",
        "t.json");
    QCOMPARE(bad.errors.size(), size_t{2});
    QVERIFY(bad.errors[0].find("/kernel/costs/walk: unknown kernel cost") != std::string::npos);
    QVERIFY(bad.errors[1].find("matches no cgroup") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestRtClass)
#include "tst_rtclass.moc"
