// SPDX-License-Identifier: GPL-2.0-or-later
// File ▸ Open trace: an imported trace in its own window (ui/tracewindow.h) with the CPU lanes,
// the per-task metrics (hand-computed in tst_ftraceimport) and vruntime/lag marked absent.
#include "core/sim/scenariospec.h"
#include "ui/analysis/tracewindow.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QTest>

using namespace schedlab;
using namespace schedlab::ui;

class TestTraceWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void opensATrace()
    {
        QString error;
        TraceWindow* w = TraceWindow::open(
            QStringLiteral(SCHEDLAB_SOURCE_DIR "/tests/data/ftrace/basic-flags.txt"), nullptr,
            &error);
        QVERIFY2(w, qPrintable(error));
        QCOMPARE(w->traceImport().recording.cpus, 2);
        QCOMPARE(w->table()->rowCount(), 3);
        // Busiest first: hog-101 with 7.980 ms of CPU.
        QCOMPARE(w->table()->item(0, 0)->text(), QStringLiteral("hog-101"));
        QCOMPARE(w->table()->item(0, 2)->text(), QStringLiteral("7.980 ms"));
        QVERIFY(w->absentNote()->text().contains(QStringLiteral("lag: absent")));
        QVERIFY(w->timeline() != nullptr);
        w->show();
        QVERIFY(w->isVisible());
        delete w;
    }

    // Re-simulate: replay-chain.txt (tst_replay's chain trace: w-10 runs 4 ms, s-11 1.5 ms,
    // woken by w, on one CPU in an 8.5 ms span) becomes a scenario, is handed to the opener,
    // and the model's run gets each task exactly its traced CPU time (tst_replay computes it by
    // hand), so the score is 0 pp of share error.
    void resimulatesTheTrace()
    {
        QString error;
        TraceWindow* w = TraceWindow::open(
            QStringLiteral(SCHEDLAB_SOURCE_DIR "/tests/data/ftrace/replay-chain.txt"), nullptr,
            &error);
        QVERIFY2(w, qPrintable(error));
        std::vector<std::string> opened;
        w->setScenarioOpener([&](const Scenario& scenario, const QString&) {
            for (const auto& t : scenario.tasks)
                opened.push_back(t.name);
            return true;
        });
        QVERIFY(w->profileBox()->count() > 1);
        QCOMPARE(w->wakeupsBox()->currentIndex(), 0); // wake chains
        w->resimulateAction()->trigger();
        QCOMPARE(opened, (std::vector<std::string>{"w-10", "s-11"}));
        QVERIFY(QTest::qWaitFor([w] { return !w->resimulating(); }, 120'000));
        const QString score = w->fidelityLabel()->text();
        QVERIFY2(score.contains(QStringLiteral("2 tasks, CPU-share error 0.0 pp summed")),
            qPrintable(score));
        if (const QByteArray keep = qgetenv("SCHEDLAB_KEEP_CAPTURES"); !keep.isEmpty()) {
            w->show();
            w->grab().save(QString::fromLocal8Bit(keep) + QStringLiteral("/tracewindow.png"));
        }
        // An opener that refuses (the user cancelled): said so, no run.
        w->setScenarioOpener([](const Scenario&, const QString&) { return false; });
        w->resimulateAction()->trigger();
        QVERIFY(!w->resimulating());
        QVERIFY(w->fidelityLabel()->text().contains(QStringLiteral("could not be opened")));
        delete w;
    }

    void refusesABadTrace()
    {
        QString error;
        QVERIFY(!TraceWindow::open(
            QStringLiteral(SCHEDLAB_SOURCE_DIR "/tests/data/ftrace/bad.txt"), nullptr, &error));
        QVERIFY(error.contains(QStringLiteral("bad.txt:16:")));
    }
};

QTEST_MAIN(TestTraceWindow)
#include "tst_tracewindow.moc"
