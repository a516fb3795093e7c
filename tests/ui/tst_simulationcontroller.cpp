// SPDX-License-Identifier: GPL-2.0-or-later
// The core↔Qt bridge: loading (and refusing) scenarios, stepping, running in bounded slices from
// the event loop, playing at a chosen speed, reset, runs stopped by a resource guard, and core
// errors turned into signals. Wall time comes from a fake clock: no outcome depends on how fast
// the machine is (QTRY timeouts are upper bounds only).
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/run/simulationcontroller.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>

using schedlab::Nanoseconds;
using schedlab::Scenario;
using schedlab::ui::SimulationController;

namespace {

Scenario hogs(Nanoseconds duration, int cpus = 2)
{
    Scenario s;
    s.name = "hogs";
    s.duration = duration;
    s.machine.cpus = cpus;
    schedlab::TaskSpec t;
    t.name = "hog";
    t.count = 3;
    schedlab::Op run;
    run.kind = schedlab::Op::Kind::Run;
    run.duration = schedlab::DurationSpec::forEver();
    t.program = {run};
    s.tasks = {t};
    return s;
}

/// A wall clock owned by the test: it reads @c now and then moves it by @c perRead, so it stands
/// still (perRead 0) until the test advances it, or every read "takes" perRead nanoseconds.
struct FakeClock
{
    qint64 now = 0;
    qint64 perRead = 0;
};

SimulationController::Clock clockOf(const std::shared_ptr<FakeClock>& fake)
{
    return [fake] {
        const qint64 t = fake->now;
        fake->now += fake->perRead;
        return t;
    };
}

QList<qint64> times(const QSignalSpy& progressed)
{
    QList<qint64> out;
    for (const QList<QVariant>& args : progressed)
        out.append(args.at(0).value<Nanoseconds>().count());
    return out;
}

constexpr qint64 kMs = 1'000'000;
constexpr int kUpperBoundMs = 120'000; // QTRY timeouts: never reached unless something hangs

// One forker that forks a hog every millisecond of its own run time: the fourth task alive
// (forker.3) would exceed a live-task limit of 3.
const char* const kForker = R"({
  "schedlab": 1, "name": "forker", "duration": "1s", "machine": { "cpus": 2 },
  "tasks": [ { "name": "forker", "program": [ { "loop": [ { "run": "1ms" },
      { "fork": { "program": [ { "run": "forever" } ] } } ] } ] } ]
})";

} // namespace

class TestSimulationController : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void loadAndRefuse()
    {
        SimulationController c;
        QCOMPARE(c.simulation(), nullptr);
        QCOMPARE(c.now(), Nanoseconds{0});
        c.step(); // nothing loaded: a no-op, not a crash
        QSignalSpy reset(&c, &SimulationController::simulationReset);
        QString error;
        QVERIFY(c.load(hogs(Nanoseconds{100'000'000}), &error));
        QVERIFY(error.isEmpty());
        QCOMPARE(reset.size(), 1);
        const schedlab::Simulation* first = c.simulation();
        QVERIFY(first);
        QCOMPARE(c.endTime(), Nanoseconds{100'000'000});

        Scenario bad = hogs(Nanoseconds{100'000'000});
        bad.tasks[0].cgroup = "/nowhere"; // the loader would catch it; the simulation throws
        QVERIFY(!c.load(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("nowhere")), qPrintable(error));
        QCOMPARE(reset.size(), 1);
        QCOMPARE(c.simulation(), first);
        QCOMPARE(c.scenario().tasks[0].cgroup, std::optional<std::string>{});
    }

    void stepAndStepBy()
    {
        SimulationController c;
        QVERIFY(c.load(hogs(Nanoseconds{100'000'000})));
        QSignalSpy progressed(&c, &SimulationController::progressed);
        Nanoseconds last{0};
        for (int i = 0; i < 50; ++i) {
            c.step();
            QVERIFY(c.now() >= last); // never backwards
            last = c.now();
        }
        QVERIFY(c.now() > Nanoseconds{0});
        QCOMPARE(progressed.size(), 50);
        QCOMPARE(progressed.last().at(0).value<Nanoseconds>(), c.now());
        QVERIFY(c.simulation()->eventsExecuted() >= 50);

        const Nanoseconds before = c.now();
        c.stepBy(Nanoseconds{7'000'000});
        QCOMPARE(c.now(), before + Nanoseconds{7'000'000});
        c.stepBy(Nanoseconds{10'000'000'000}); // clamped to the end
        QCOMPARE(c.now(), c.endTime());
        QVERIFY(c.isFinished());
    }

    void runToEndInSlices()
    {
        SimulationController c;
        QVERIFY(c.load(hogs(Nanoseconds{2'000'000'000}, 4)));
        // Every read of the clock takes 1 ms and a slice may take 1 ms: each timer slice runs
        // exactly one chunk (1 ms of simulated time, neither cheap enough to grow nor slow enough
        // to shrink), however fast the machine is.
        auto wall = std::make_shared<FakeClock>();
        wall->perRead = kMs;
        c.setClock(clockOf(wall));
        c.setTickBudget(1);
        QSignalSpy progressed(&c, &SimulationController::progressed);
        QSignalSpy playing(&c, &SimulationController::playingChanged);
        QSignalSpy finished(&c, &SimulationController::finished);
        QSignalSpy stopped(&c, &SimulationController::stoppedEarly);
        c.runToEnd();
        QVERIFY(c.isPlaying());
        QCOMPARE(c.now(), Nanoseconds{0}); // nothing ran yet: the work happens in timer slices
        QTRY_VERIFY_WITH_TIMEOUT(c.isFinished(), kUpperBoundMs);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(stopped.size(), 0);
        QVERIFY(c.stopReason().isEmpty());
        const QList<qint64> at = times(progressed);
        QCOMPARE(at.size(), 2000);
        for (int i = 0; i < at.size(); ++i)
            QCOMPARE(at[i], (i + 1) * kMs);
        QCOMPARE(c.now(), c.endTime());
        QVERIFY(!c.isPlaying());
        QCOMPARE(playing.size(), 2);
        QCOMPARE(playing.at(0).at(0).toBool(), true);
        QCOMPARE(playing.at(1).at(0).toBool(), false);

        c.play(); // finished: stays stopped
        QVERIFY(!c.isPlaying());

        QSignalSpy reset(&c, &SimulationController::simulationReset);
        c.reset();
        QCOMPARE(reset.size(), 1);
        QCOMPARE(c.now(), Nanoseconds{0});
        QVERIFY(!c.isFinished());
        QVERIFY(c.simulation()->recording().size() < 16);
    }

    // The chunk of simulated time per runUntil() call adapts to what the clock says it cost.
    void chunksFollowTheClock()
    {
        SimulationController c;
        QVERIFY(c.load(hogs(Nanoseconds{2'000'000'000}, 4)));
        auto wall = std::make_shared<FakeClock>();
        c.setClock(clockOf(wall));
        c.setTickBudget(30);

        // Slow: each chunk "takes" 40 ms, over the 30 ms budget: one chunk per slice, and the
        // chunk halves every time (1, 0.5, 0.25 … ms).
        wall->perRead = 40 * kMs;
        QSignalSpy slow(&c, &SimulationController::progressed);
        c.runToEnd();
        QTRY_VERIFY_WITH_TIMEOUT(slow.size() >= 4, kUpperBoundMs);
        c.pause();
        const QList<qint64> at = times(slow);
        QCOMPARE(at.mid(0, 4), (QList<qint64>{kMs, 1'500'000, 1'750'000, 1'875'000}));

        // Cheap: each chunk "takes" 1 ms (8 × 1 < 30), so the chunk doubles every time (1, 2,
        // 4 … ms): 2 s are done in one slice of 11 chunks, 11 ms of its 30 ms budget.
        c.reset();
        QTRY_VERIFY_WITH_TIMEOUT(!c.isSeeking(), kUpperBoundMs);
        wall->perRead = kMs;
        QSignalSpy cheap(&c, &SimulationController::progressed);
        c.runToEnd();
        QTRY_VERIFY_WITH_TIMEOUT(c.isFinished(), kUpperBoundMs);
        QCOMPARE(cheap.size(), 1);
        QCOMPARE(c.now(), c.endTime());
    }

    void playFollowsSpeed()
    {
        SimulationController c;
        QVERIFY(c.load(hogs(Nanoseconds{1'000'000'000})));
        auto wall = std::make_shared<FakeClock>();
        c.setClock(clockOf(wall)); // stands still until the test moves it
        c.setSpeed(0.1);           // 100 ms of simulated time per wall second
        QSignalSpy progressed(&c, &SimulationController::progressed);
        c.play();
        QVERIFY(c.isPlaying());
        QCOMPARE(c.now(), Nanoseconds{0});

        wall->now += 200 * kMs; // 20 ms simulated
        QTRY_COMPARE_WITH_TIMEOUT(c.now(), Nanoseconds{20 * kMs}, kUpperBoundMs);
        // While the clock stands still, frames go by and nothing more runs.
        int frames = static_cast<int>(progressed.size());
        QTRY_VERIFY_WITH_TIMEOUT(progressed.size() >= frames + 3, kUpperBoundMs);
        QCOMPARE(c.now(), Nanoseconds{20 * kMs});

        // Fractions of a nanosecond are owed, not lost: 5 ns of wall time are 0.5 ns.
        wall->now += 5;
        frames = static_cast<int>(progressed.size());
        QTRY_VERIFY_WITH_TIMEOUT(progressed.size() >= frames + 3, kUpperBoundMs);
        QCOMPARE(c.now(), Nanoseconds{20 * kMs});
        wall->now += 5;
        QTRY_COMPARE_WITH_TIMEOUT(c.now(), Nanoseconds{20 * kMs + 1}, kUpperBoundMs);

        // Paused, wall time passes without effect, and playing again does not catch up.
        c.pause();
        QVERIFY(!c.isPlaying());
        wall->now += 10'000 * kMs;
        QCoreApplication::processEvents();
        QCOMPARE(c.now(), Nanoseconds{20 * kMs + 1});
        c.play();
        wall->now += 100 * kMs - 10; // 10 ms - 1 ns simulated
        QTRY_COMPARE_WITH_TIMEOUT(c.now(), Nanoseconds{30 * kMs}, kUpperBoundMs);

        // Never past the end: a long stall plays to the end and stops.
        QSignalSpy finished(&c, &SimulationController::finished);
        wall->now += 3'600'000 * kMs;
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kUpperBoundMs);
        QCOMPARE(c.now(), c.endTime());
        QVERIFY(!c.isPlaying());
    }

    // A run a resource guard stops early is finished: it shows why, and never plays or spins.
    void resourceGuardStopsTheRun()
    {
        const schedlab::LoadResult loaded = schedlab::parseScenario(kForker, "forker.json");
        QVERIFY(loaded.ok());
        SimulationController c;
        schedlab::ResourceLimits limits;
        limits.liveTasks = 3;
        c.setResourceLimits(limits);
        QCOMPARE(c.runOptions().limits.liveTasks, 3);
        QVERIFY(c.load(*loaded.scenario));
        QVERIFY(c.stopReason().isEmpty());
        QSignalSpy stopped(&c, &SimulationController::stoppedEarly);
        QSignalSpy finished(&c, &SimulationController::finished);
        QSignalSpy playing(&c, &SimulationController::playingChanged);
        c.runToEnd();
        QTRY_VERIFY_WITH_TIMEOUT(c.isFinished(), kUpperBoundMs);
        QCOMPARE(stopped.size(), 1);
        QCOMPARE(finished.size(), 1);
        const QString reason = stopped.first().at(0).toString();
        QCOMPARE(reason, c.stopReason());
        QVERIFY2(reason.contains(QStringLiteral("forker.3"))
                && reason.contains(QStringLiteral("more than 3 live tasks")),
            qPrintable(reason));
        QVERIFY2(c.now() < Nanoseconds{10 * kMs}, qPrintable(QString::number(c.now().count())));
        QVERIFY(c.now() < c.endTime());
        QVERIFY(!c.isPlaying());
        QCOMPARE(playing.size(), 2);
        bool found = false;
        for (const schedlab::Finding& f : c.simulation()->metrics().findings)
            found = found || f.kind == "resource_limit";
        QVERIFY(found);

        // Stopped means stopped: play, run to end, step and stepBy do nothing and emit nothing.
        const Nanoseconds at = c.now();
        const uint64_t events = c.simulation()->eventsExecuted();
        c.play();
        QVERIFY(!c.isPlaying());
        c.runToEnd();
        QVERIFY(!c.isPlaying());
        c.step();
        c.stepBy(Nanoseconds{100 * kMs});
        c.seek(c.endTime());
        QVERIFY(!c.isSeeking());
        QCOMPARE(c.now(), at);
        QCOMPARE(c.simulation()->eventsExecuted(), events);
        QCOMPARE(playing.size(), 2);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(stopped.size(), 1);

        // A rewind is a fresh run: before the stop it is an ordinary run again.
        c.seek(Nanoseconds{kMs / 2});
        QTRY_VERIFY_WITH_TIMEOUT(!c.isSeeking(), kUpperBoundMs);
        QCOMPARE(c.now(), Nanoseconds{kMs / 2});
        QVERIFY(!c.isFinished());
        QVERIFY(c.stopReason().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSimulationController)
#include "tst_simulationcontroller.moc"
