// SPDX-License-Identifier: GPL-2.0-or-later
// The run's resource guards (docs/limits.md): events per simulated millisecond, live tasks, tasks
// created, recording bytes and operations without time stop a run with a "resource_limit"
// finding and a reason, at a defined point, instead of exhausting the machine. Durations drawn
// by a program saturate instead of wrapping the 64-bit clock.
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/simlookup.h"

#include <QTest>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

using namespace schedlab;

namespace {

constexpr qint64 kMs = 1000000;

std::optional<Scenario> load(const std::string& json)
{
    return test::loadScenario(json, "tst_limits");
}

int findings(const Metrics& m, const std::string& kind)
{
    return static_cast<int>(std::count_if(
        m.findings.begin(), m.findings.end(), [&](const Finding& f) { return f.kind == kind; }));
}

int liveTasks(const Simulation& sim)
{
    int n = 0;
    for (const TaskView& t : sim.tasks())
        n += t.state != TaskState::Exited && t.state != TaskState::NotStarted;
    return n;
}

// A parent that forks a child every 100 us; each child runs forever (or for 10 us).
std::string forkLoop(const char* childRun)
{
    return std::string(R"({ "schedlab": 1, "name": "forks", "duration": "100ms",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
      "tasks": [ { "name": "p", "program": [ { "loop": [
          { "fork": { "program": [ { "run": ")")
        + childRun + R"(" } ] } }, { "run": "100us" } ] } ] } ] })";
}

} // namespace

class TestLimits : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsLetNormalRunsFinish();
    void liveTasksGuard();
    void createdTasksGuard();
    void fileWithTooManyTasksIsRefused();
    void eventRateGuard();
    void recordingGuard();
    void instantLoopGuard();
    void hugeDurationsSaturate();
};

void TestLimits::defaultsLetNormalRunsFinish()
{
    const auto s = load(forkLoop("10us"));
    QVERIFY(s);
    Simulation sim(*s);
    sim.run();
    QVERIFY(sim.stopReason().empty());
    QCOMPARE(sim.now(), Nanoseconds(100 * kMs));
    QCOMPARE(findings(sim.metrics(), "resource_limit"), 0);
}

// p forks a spinning child every ~100 us: with a limit of 20 live tasks the 20th creation
// (p + 19 children exist, the 20th child would make 21) stops the run; the clock stays there.
void TestLimits::liveTasksGuard()
{
    const auto s = load(forkLoop("forever"));
    QVERIFY(s);
    RunOptions o;
    o.limits.liveTasks = 20;
    Simulation sim(*s, o);
    sim.run();
    QVERIFY2(sim.stopReason().find("more than 20 live tasks") != std::string::npos,
        sim.stopReason().c_str());
    QVERIFY(sim.stopReason().find("p.20") != std::string::npos);
    QCOMPARE(liveTasks(sim), 20);
    QVERIFY(sim.now() < Nanoseconds(100 * kMs));
    const Nanoseconds stoppedAt = sim.now();
    QVERIFY(!sim.step()); // a stopped run stays stopped
    sim.runUntil(Nanoseconds(100 * kMs));
    QCOMPARE(sim.now(), stoppedAt);
    const Metrics m = sim.metrics();
    QCOMPARE(findings(m, "resource_limit"), 1);
    QVERIFY(sim.invariantViolations().empty());
}

// Children that exit at once never make 20 live tasks, but every one stays in the recording and
// the metrics: the total guard stops at 30 tasks in all.
void TestLimits::createdTasksGuard()
{
    const auto s = load(forkLoop("10us"));
    QVERIFY(s);
    RunOptions o;
    o.limits.createdTasks = 30;
    Simulation sim(*s, o);
    sim.run();
    QVERIFY2(sim.stopReason().find("more than 30 tasks in all") != std::string::npos,
        sim.stopReason().c_str());
    QCOMPARE(sim.tasks().size(), size_t(30));
    QVERIFY(liveTasks(sim) < 5);
}

void TestLimits::fileWithTooManyTasksIsRefused()
{
    const auto s = load(R"({ "schedlab": 1, "name": "many", "duration": "1ms",
      "machine": { "cpus": 1 },
      "tasks": [ { "name": "t", "count": 11, "program": [ { "run": "forever" } ] } ] })");
    QVERIFY(s);
    RunOptions o;
    o.limits.liveTasks = 10;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(*s, o));
    o.limits.liveTasks = 11;
    Simulation sim(*s, o);
    sim.run();
    QVERIFY(sim.stopReason().empty());
}

// Four tasks alternating 10 us of work and 10 us of sleep on one CPU need hundreds of events per
// simulated millisecond (two per task every 20 us or so: completion and wake-up); a limit of 100
// per millisecond stops the run within the first millisecond, and the limit of 10^9 does not.
void TestLimits::eventRateGuard()
{
    const auto s = load(R"({ "schedlab": 1, "name": "rate", "duration": "50ms",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
      "tasks": [ { "name": "t", "count": 4, "program": [ { "loop": [
          { "run": "10us" }, { "sleep": "10us" } ] } ] } ] })");
    QVERIFY(s);
    RunOptions o;
    o.limits.eventsPerSecond = 100'000;
    Simulation sim(*s, o);
    sim.run();
    QVERIFY2(sim.stopReason().find("more than 100 events in one simulated millisecond")
            != std::string::npos,
        sim.stopReason().c_str());
    QVERIFY(sim.now() < Nanoseconds(kMs));
    QCOMPARE(findings(sim.metrics(), "resource_limit"), 1);
    Simulation unlimited(*s);
    unlimited.run();
    QVERIFY(unlimited.stopReason().empty());
    QVERIFY(unlimited.metrics().run.events > 100 * 50);
}

// The recording stops growing at its limit (plus the slack the guard leaves for the event
// that crosses it) and the run stops.
void TestLimits::recordingGuard()
{
    const auto s = load(R"({ "schedlab": 1, "name": "rec", "duration": "10s",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
      "tasks": [ { "name": "t", "count": 4, "program": [ { "loop": [
          { "run": "50us" }, { "sleep": "50us" } ] } ] } ] })");
    QVERIFY(s);
    RunOptions o;
    o.limits.recordingBytes = 1 << 20;
    Simulation sim(*s, o);
    sim.run();
    QVERIFY2(sim.stopReason().find("recording") != std::string::npos, sim.stopReason().c_str());
    QVERIFY(sim.now() < Nanoseconds(10'000 * kMs));
    const Metrics m = sim.metrics();
    QVERIFY(m.run.recordedBytes >= uint64_t{1} << 20);
    QVERIFY(m.run.recordedBytes <= (uint64_t{1} << 20) + 4096 * sizeof(Record));
}

// A loop of 20 000 operations that take no time (cookie changes) at one instant: the guard stops
// the run at 10 000 operations instead of spinning there (an endless loop without time is
// refused by the loader; a counted one is not).
void TestLimits::instantLoopGuard()
{
    const auto s = load(R"({ "schedlab": 1, "name": "instant", "duration": "10ms",
      "machine": { "cpus": 2, "threads_per_core": 2 },
      "tasks": [ { "name": "spin", "program": [ { "loop": [ { "cookie": "create" } ], "count": 20000 },
                   { "run": "forever" } ] },
                 { "name": "other", "program": [ { "run": "forever" } ] } ] })");
    QVERIFY(s);
    Simulation sim(*s);
    sim.run();
    QVERIFY2(
        sim.stopReason().find("without using time") != std::string::npos, sim.stopReason().c_str());
    QCOMPARE(sim.now(), Nanoseconds(0));
    QVERIFY(sim.invariantViolations().empty());
}

// A run of 2^63 - 1 ns (the largest the 64-bit clock holds) and a sleep as long, one after the
// other. The loader refuses such values (docs/limits.md); the scenario is edited after loading,
// as a program of the GUI or a future format could produce it. The completion event saturates at
// the end of the clock instead of wrapping into the past, so the run simply lasts past the end.
void TestLimits::hugeDurationsSaturate()
{
    auto s = load(R"({ "schedlab": 1, "name": "huge", "duration": "10ms",
      "machine": { "cpus": 1 },
      "tasks": [ { "name": "a", "program": [ { "run": "1ms" },
          { "loop": [ { "run": "1ms" }, { "sleep": "1ms" } ] } ] },
        { "name": "b", "program": [ { "loop": [ { "sleep": "1ms" } ] } ] } ] })");
    QVERIFY(s);
    const DurationSpec huge = DurationSpec::fixed(Nanoseconds(std::numeric_limits<int64_t>::max()));
    s->tasks[0].program[1].body[0].duration = huge;
    s->tasks[0].program[1].body[1].duration = huge;
    s->tasks[1].program[0].body[0].duration = huge;
    Simulation sim(*s);
    sim.run();
    QVERIFY(sim.stopReason().empty());
    QCOMPARE(sim.now(), Nanoseconds(10 * kMs));
    const auto a = test::taskView(sim, "a");
    QVERIFY(a && a->state == TaskState::Running);
    const auto b = test::taskView(sim, "b");
    QVERIFY(b && b->state == TaskState::Sleeping);
}

QTEST_APPLESS_MAIN(TestLimits)
#include "tst_limits.moc"
