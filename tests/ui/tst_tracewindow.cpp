// SPDX-License-Identifier: GPL-2.0-or-later
// File ▸ Open trace: an imported trace in its own window (ui/tracewindow.h) with the CPU lanes,
// the per-task metrics (hand-computed in tst_ftraceimport) and vruntime/lag marked absent.
#include "ui/analysis/tracewindow.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
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
