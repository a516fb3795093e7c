// SPDX-License-Identifier: GPL-2.0-or-later
// "Why did this task move?" in the GUI (kernel-model.md §8.2): the event log's lines and tooltips
// and the inspector's "last move" column say what the Migrate/Spawn records carry (reason,
// domain, group and migration type, wake path), read from the recording, not recomputed.
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sched/migration.h"
#include "core/sim/inspect.h"
#include "core/sim/simulation.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"

#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace schedlab;
using namespace schedlab::ui;

namespace {

constexpr int kUpperBoundMs = 120'000; // QTRY timeout: reached only when something hangs

// Two CPUs sharing an LLC, profile 6.6 (no delayed dequeue: under 6.12+ the sleeper, still
// delayed when its timer fires, would be requeued where it is without any selection). "sleeper"
// starts on CPU 0 (fork balancing from CPU 0: both CPUs idle, the local group has as many idle CPUs
// as the other, so it stays). "hog", pinned to CPU 0, joins at 0.5 ms and runs for ever. When the
// sleeper's timer fires on CPU 0 the hog runs there: this_cpu = prev = 0, no wake_affine();
// select_idle_sibling(): target 0 busy, no recent CPU, select_idle_cpu() scans from 1: CPU 1 is
// idle. So its first migration is 0 → 1 at a wakeup, in the MC domain, by the idle-CPU scan;
// afterwards it sleeps and wakes on the idle CPU 1.
const char* const kWakeMove = R"({ "schedlab": 1, "name": "wake-move", "duration": "12ms",
  "kernel": { "profile": "6.6", "hz": 1000 }, "machine": { "cpus": 2 },
  "tasks": [
    { "name": "sleeper", "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "1ms" } ] } ] },
    { "name": "hog", "cpus": "0", "start": "500us", "program": [ { "run": "forever" } ] } ] })";

Scenario parse(const char* text)
{
    LoadResult r = parseScenario(text, "test.json");
    if (!r.ok())
        qFatal("scenario");
    return *r.scenario;
}

Record migrateRecord(int64_t time, int task, int from, int to, MigrateReason why, MigrateDetail d)
{
    Record r;
    r.time = time;
    r.entity = EntityRef::task(task);
    r.cpu = static_cast<uint16_t>(from);
    r.kind = RecordKind::Migrate;
    r.payload.generic.a = from;
    r.payload.generic.b = to;
    r.payload.generic.c = int64_t(why);
    r.payload.generic.d = d.pack();
    return r;
}

} // namespace

class TestMigrationReasons : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wakeupMigrationIsRecordedWithItsPath()
    {
        Simulation sim(parse(kWakeMove), RunOptions{});
        sim.run();
        const Recording& rec = sim.recording();
        const Record* first = nullptr;
        int wakeups = 0;
        int sleeper = -1;
        for (size_t i = 0; i < rec.taskNames.size(); ++i)
            if (rec.taskNames[i] == "sleeper")
                sleeper = static_cast<int>(i);
        QVERIFY(sleeper >= 0);
        for (const Record& r : rec.records()) {
            if (r.kind != RecordKind::Migrate || r.entity.taskIndex() != sleeper)
                continue;
            if (!first)
                first = &r;
            wakeups += r.payload.generic.c == int64_t(MigrateReason::Wakeup);
        }
        QVERIFY(first);
        QCOMPARE(first->payload.generic.a, 0);
        QCOMPARE(first->payload.generic.b, 1);
        QCOMPARE(first->payload.generic.c, int64_t(MigrateReason::Wakeup));
        const MigrateDetail d = MigrateDetail::unpack(first->payload.generic.d);
        QCOMPARE(d.wake, WakePath::IdleCpu);
        QCOMPARE(d.level, DomainLevel::Mc);

        // The metrics count the migrations by the reasons the records carry.
        const Metrics m = sim.metrics();
        for (const TaskMetrics& t : m.tasks)
            if (t.name == "sleeper") {
                QCOMPARE(t.migrationsByReason.at("wakeup"), int64_t(wakeups));
                QCOMPARE(t.migrations, int64_t(wakeups));
            }

        // The event log shows the record's reason on the line and explains it in the tooltip.
        FindingsDock dock;
        dock.setSimulation(&sim);
        EventLogModel* events = dock.eventModel();
        events->setFilter(QStringLiteral("migrate sleeper"));
        events->finishScan();
        QCOMPARE(events->rowCount(), wakeups);
        const QModelIndex row = events->index(0);
        QVERIFY(events->data(row, Qt::DisplayRole)
                    .toString()
                    .contains(QStringLiteral("migrate sleeper 0 1 wakeup MC idle-cpu")));
        const QString tip = events->data(row, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("sleeper moved from CPU 0 to CPU 1 at a wakeup")),
            qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("select_idle_cpu() found an idle CPU")));
    }

    // A hand-made recording with a reason the simulation cannot produce here (a periodic
    // balance in a PKG domain, overloaded group, load migration): the GUI shows exactly that,
    // so the text comes from the recording.
    void shownTextComesFromTheRecording()
    {
        Recording rec;
        rec.cpus = 2;
        rec.taskNames = {"t0"};
        Record spawn;
        spawn.time = 0;
        spawn.entity = EntityRef::task(0);
        spawn.kind = RecordKind::Spawn;
        spawn.payload.generic.a = -1;
        rec.append(spawn);
        rec.append(migrateRecord(5'000'000, 0, 0, 1, MigrateReason::Periodic,
            {DomainLevel::Pkg, GroupType::Overloaded, MigrationType::Load, WakePath::None}));

        EventLogModel events;
        events.setRecording(&rec);
        events.setFilter(QStringLiteral("migrate"));
        events.finishScan();
        QCOMPARE(events.rowCount(), 1);
        QCOMPARE(events.data(events.index(0), Qt::DisplayRole).toString(),
            QStringLiteral("t=5000000 cpu0 migrate t0 0 1 periodic PKG overloaded/load"));
        QCOMPARE(events.data(events.index(0), Qt::ToolTipRole).toString(),
            QStringLiteral("t0 moved from CPU 0 to CPU 1 by the periodic load balance: PKG "
                           "domain, busiest group overloaded, migrating load"));

        // The inspector at 6 ms: t0 queued on CPU 1, its row says why it is there.
        InspectorDock dock;
        dock.setRecording(&rec);
        Inspection in;
        in.at = Nanoseconds(6'000'000);
        in.profile = "7.1";
        for (int c = 0; c < 2; ++c) {
            CpuInspection cpu;
            cpu.cpu = c;
            cpu.running = c == 1 ? "t0" : "idle";
            CfsRqInspection root;
            root.cpu = c;
            root.path = "/";
            if (c == 1) {
                EntityInspection e;
                e.ref = EntityRef::task(0);
                e.name = "t0";
                e.curr = true;
                e.eligible = true;
                root.entities.push_back(e);
                root.picked = "t0";
            }
            cpu.rqs.push_back(root);
            in.cpus.push_back(cpu);
        }
        dock.showInspection(in);
        QTreeWidgetItem* row = dock.tree()->topLevelItem(1)->child(0);
        QVERIFY(row);
        QCOMPARE(row->text(0), QStringLiteral("t0"));
        QVERIFY2(row->text(9).startsWith(QStringLiteral("0 → 1 periodic PKG overloaded/load")),
            qPrintable(row->text(9)));
        dock.tree()->setCurrentItem(row);
        QVERIFY(dock.explanationText().contains(
            QStringLiteral("t0 moved from CPU 0 to CPU 1 by the periodic load balance")));
        // Before the move (4 ms) the task has only its spawn: no move shown.
        in.at = Nanoseconds(4'000'000);
        dock.showInspection(in);
        QCOMPARE(dock.tree()->topLevelItem(1)->child(0)->text(9), QString());
    }

    // The whole path through the GUI: the inspector of a real run, given that run's recording,
    // at a time the sleeper runs after its first move (found in the recording).
    void inspectorRowOfARealRun()
    {
        Simulation sim(parse(kWakeMove), RunOptions{});
        sim.run();
        const Recording& rec = sim.recording();
        int sleeper = -1;
        for (size_t i = 0; i < rec.taskNames.size(); ++i)
            if (rec.taskNames[i] == "sleeper")
                sleeper = static_cast<int>(i);
        int64_t moved = -1;
        int64_t at = -1;
        for (const Record& r : rec.records()) {
            if (moved < 0 && r.kind == RecordKind::Migrate && r.entity.taskIndex() == sleeper)
                moved = r.time;
            else if (moved >= 0 && r.kind == RecordKind::Switch && r.payload.generic.a == sleeper) {
                at = r.time + 100'000; // 0.1 ms into a run (its runs last 1 ms)
                break;
            }
        }
        QVERIFY(at > 0);
        InspectorDock dock;
        dock.setScenario(parse(kWakeMove));
        dock.setRecording(&rec);
        QSignalSpy spy(&dock, &InspectorDock::inspected);
        dock.inspectAt(Nanoseconds(at));
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, kUpperBoundMs);
        QTreeWidgetItem* cpu1 = dock.tree()->topLevelItem(1);
        QVERIFY(cpu1->text(0).contains(QStringLiteral("running sleeper")));
        QCOMPARE(cpu1->child(0)->text(0), QStringLiteral("sleeper"));
        QVERIFY2(cpu1->child(0)->text(9).startsWith(QStringLiteral("0 → 1 wakeup MC idle-cpu")),
            qPrintable(cpu1->child(0)->text(9)));
    }
};

QTEST_MAIN(TestMigrationReasons)
#include "tst_migrationreasons.moc"
