// SPDX-License-Identifier: GPL-2.0-or-later
// The docks describe the time shown: Findings after Run to… (not the state at t = 0), the
// inspector after an edit and an undo, the log naming undo and redo as such, and branches named
// by the edit that made them and its time.
#include "support/uitest.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"
#include "ui/machine/scenarioeditor.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/mainwindow.h"

#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

using namespace schedlab;
using namespace schedlab::ui;

using schedlab::test::waitIdle;

class TestLiveState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void findingsFollowRunTo()
    {
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(QStringLiteral(SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json")));
        QVERIFY(w.findings()->summaryText().contains(QStringLiteral("t = 0")));
        w.controller()->seek(Nanoseconds{40'000'000});
        waitIdle(w.controller());
        QVERIFY2(w.findings()->summaryText().contains(QStringLiteral("t = 40")),
            qPrintable(w.findings()->summaryText()));
        // A rewind too.
        w.controller()->seek(Nanoseconds{10'000'000});
        waitIdle(w.controller());
        QVERIFY2(w.findings()->summaryText().contains(QStringLiteral("t = 10")),
            qPrintable(w.findings()->summaryText()));
    }

    void inspectorLogAndBranchesAfterEdits()
    {
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(QStringLiteral(SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json")));
        SimulationController* c = w.controller();
        c->seek(Nanoseconds{20'000'000});
        waitIdle(c);
        w.timeline()->setCursorTime(Nanoseconds{5'000'000});
        w.inspector()->inspectAt(Nanoseconds{5'000'000});
        QTRY_VERIFY_WITH_TIMEOUT(w.inspector()->tree()->topLevelItemCount() > 0, 60000);
        // An edit after rewinding to 10 ms: a new run, a branch kept, the inspector still
        // showing 5 ms.
        c->seek(Nanoseconds{10'000'000});
        waitIdle(c);
        Action feature;
        feature.kind = Action::Kind::Feature;
        feature.features = {{"PLACE_LAG", false}};
        QVERIFY(w.editor()->submit(feature, QStringLiteral("NO_PLACE_LAG")));
        waitIdle(c);
        QTRY_VERIFY_WITH_TIMEOUT(w.inspector()->tree()->topLevelItemCount() > 0, 60000);
        QCOMPARE(c->branches().size(), size_t{1});
        // The branch is the timeline before the edit: no edit of its own, run to 20 ms.
        QVERIFY2(c->branches()[0].label.contains(QStringLiteral("no edit"))
                && c->branches()[0].label.contains(QStringLiteral("20")),
            qPrintable(c->branches()[0].label));
        // Undo and redo are logged as such, not as new edits.
        w.editor()->undoStack()->undo();
        waitIdle(c);
        QTRY_VERIFY_WITH_TIMEOUT(w.inspector()->tree()->topLevelItemCount() > 0, 60000);
        QVERIFY2(
            w.logText().contains(QStringLiteral("undo: NO_PLACE_LAG")), qPrintable(w.logText()));
        w.editor()->undoStack()->redo();
        waitIdle(c);
        QVERIFY2(
            w.logText().contains(QStringLiteral("redo: NO_PLACE_LAG")), qPrintable(w.logText()));
        // A branch made by an edit is named after it and its time.
        c->seek(Nanoseconds{5'000'000});
        waitIdle(c);
        Action back;
        back.kind = Action::Kind::Feature;
        back.features = {{"RUN_TO_PARITY", false}};
        QVERIFY(w.editor()->submit(back, QStringLiteral("NO_RUN_TO_PARITY")));
        waitIdle(c);
        bool named = false;
        for (const auto& b : c->branches())
            named = named || b.label.contains(QStringLiteral("NO_PLACE_LAG at 10"));
        QVERIFY2(named, qPrintable(c->branches().back().label));
    }
};

QTEST_MAIN(TestLiveState)
#include "tst_livestate.moc"
