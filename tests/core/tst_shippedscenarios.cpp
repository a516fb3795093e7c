// SPDX-License-Identifier: GPL-2.0-or-later
// The shipped teaching scenarios show what their descriptions promise (kernel-model.md §4, §5).
#include <QObject>

#ifndef Q_MOC_RUN
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/simlookup.h"
#endif

#include <QTest>

#include <string>

using namespace schedlab;

class TestShippedScenarios : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void delayedDequeueDelaysThenStops();
    void sleeperLagPlacesWithInflatedLag();
};

namespace {

Scenario load(const char* name)
{
    const LoadResult r = loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR "/scenarios/") + name);
    if (!r.ok())
        qFatal("%s does not load", name);
    return *r.scenario;
}

double shareOf(const Metrics& m, const std::string& task)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == task)
            return static_cast<double>(t.cpuTimeNs) / static_cast<double>(m.durationNs);
    return -1.0;
}

constexpr int64_t kSwitchAt = 10'000'000'000; // both scenarios toggle a feature at 10 s

} // namespace

void TestShippedScenarios::delayedDequeueDelaysThenStops()
{
    // Workers run 4 ms, which ends exactly on a 1 ms tick: they must block (ineligible) before
    // the tick preempts them, so DELAY_DEQUEUE keeps them queued until 10 s, and never after.
    RunOptions first10s;
    first10s.duration = Nanoseconds(kSwitchAt);
    Simulation sim(load("delayed-dequeue.json"), first10s);
    sim.run();
    int before = 0;
    for (const Record& r : sim.recording().records())
        before += r.kind == RecordKind::Delay;
    QVERIFY(before > 1000);
    // A delayed sleeper keeps its place: 1/3 each (§5.3), within 0.5 %.
    const Metrics m = sim.metrics();
    QVERIFY(qAbs(shareOf(m, "hog") - 1.0 / 3) < 0.005);
    QVERIFY(qAbs(shareOf(m, "worker-1") - 1.0 / 3) < 0.005);
    QVERIFY(sim.invariantViolations().empty());

    Simulation whole(load("delayed-dequeue.json"));
    whole.run();
    int after = 0;
    for (const Record& r : whole.recording().records())
        after += r.kind == RecordKind::Delay && r.time > kSwitchAt;
    QCOMPARE(after, 0);
}

void TestShippedScenarios::sleeperLagPlacesWithInflatedLag()
{
    // Two nice-0 hogs and a sleeper: a saved lag vl is placed as vl·(W + w)/W with W = 2048
    // (ŵ of the two hogs) and w = 1024, i.e. ×1.5 (§4.2), while PLACE_LAG is on; at 0 after.
    Simulation sim(load("sleeper-lag.json"));
    sim.run();
    const EntityRef sleeper = test::taskRef(sim.recording(), "sleeper");
    int inflated = 0;
    int afterNonZero = 0;
    for (const Record& r : sim.recording().records()) {
        if (r.kind != RecordKind::Place || r.entity != sleeper)
            continue;
        const int64_t lag = r.payload.generic.b;
        const int64_t vlag = r.payload.generic.c;
        if (r.time < kSwitchAt && vlag > 0) {
            QCOMPARE(lag, vlag * 3 / 2);
            ++inflated;
        }
        if (r.time > kSwitchAt && lag != 0)
            ++afterNonZero;
    }
    QVERIFY(inflated > 100);
    QCOMPARE(afterNonZero, 0);
    QVERIFY(sim.invariantViolations().empty());
}

QTEST_APPLESS_MAIN(TestShippedScenarios)
#include "tst_shippedscenarios.moc"
