// SPDX-License-Identifier: GPL-2.0-or-later
// The core↔Qt bridge: loading (and refusing) scenarios, stepping, running in bounded slices from
// the event loop, playing at a chosen speed, reset, and core errors turned into signals.
#include "core/sim/simulation.h"
#include "ui/simulationcontroller.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

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
        c.setTickBudget(1); // force many slices
        QSignalSpy progressed(&c, &SimulationController::progressed);
        QSignalSpy playing(&c, &SimulationController::playingChanged);
        QSignalSpy finished(&c, &SimulationController::finished);
        c.runToEnd();
        QVERIFY(c.isPlaying());
        QCOMPARE(c.now(), Nanoseconds{0}); // nothing ran yet: the work happens in timer slices
        QTRY_VERIFY_WITH_TIMEOUT(c.isFinished(), 30000);
        QCOMPARE(finished.size(), 1);
        QVERIFY2(progressed.size() > 2, "the run should be split into several slices");
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

    void playFollowsSpeed()
    {
        SimulationController c;
        QVERIFY(c.load(hogs(Nanoseconds{10'000'000'000})));
        c.setSpeed(0.1); // 100 ms of simulated time per wall second
        QElapsedTimer wall;
        wall.start();
        c.play();
        QTRY_VERIFY_WITH_TIMEOUT(c.now() >= Nanoseconds{20'000'000}, 5000);
        c.pause();
        const qint64 elapsedNs = wall.nsecsElapsed();
        QVERIFY(!c.isPlaying());
        // Never ahead of the chosen speed (one frame of slack), and it did not jump to the end.
        QVERIFY2(c.now().count() <= elapsedNs / 10 + 20'000'000,
            qPrintable(
                QStringLiteral("%1 ns simulated in %2 ns").arg(c.now().count()).arg(elapsedNs)));
        const Nanoseconds paused = c.now();
        QTest::qWait(100);
        QCOMPARE(c.now(), paused);
    }
};

QTEST_GUILESS_MAIN(TestSimulationController)
#include "tst_simulationcontroller.moc"
