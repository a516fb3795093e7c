// SPDX-License-Identifier: GPL-2.0-or-later
// Analysing and sharing a run in the GUI: the inspector at a cursor time, the findings pane and
// event log (entries move the cursor), user annotations saved with the scenario, the compare view
// (synchronised axes, metric-difference table), and File > Export.
#include "core/record/traceexport.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/uitest.h"
#include "ui/analysis/compareview.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"
#include "ui/common/taskpalette.h"
#include "ui/export/exportmenu.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/qcp.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/mainwindow.h"

#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListView>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <cmath>

using namespace schedlab;
using namespace schedlab::ui;

using schedlab::test::write;

namespace {

constexpr int kUpperBoundMs = 120'000; // QTRY timeouts: reached only when something hangs

// Two nice-0 hogs on one CPU at HZ 1000: hog-1 runs [0,1) ms, hog-2 [1,2) ms, …; each waits
// 1 ms between its runs.
const char* const kTwoHogs = R"({ "schedlab": 1, "name": "two-hogs", "duration": "20ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] } ] })";
// The same machine with one hog: it gets the whole CPU.
const char* const kOneHog = R"({ "schedlab": 1, "name": "one-hog", "duration": "20ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 1, "program": [ { "run": "forever" } ] } ] })";

Scenario parse(const char* text)
{
    LoadResult r = parseScenario(text, "test.json");
    if (!r.ok())
        qFatal("scenario");
    return *r.scenario;
}

} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void darkThemeContrast()
    {
        // `schedlab --dark`: every text role over its background at least 4.5:1 (WCAG AA), and
        // the inspector's own colours (the picked row, a not-eligible value) in the dark and
        // the light palette. Hand check: #e0e0e0 (relative luminance 0.7454) on #1e1e1e (0.01297)
        // is (0.7454 + 0.05) / (0.01297 + 0.05) = 12.63:1.
        using schedlab::ui::contrastRatio;
        QVERIFY(std::abs(contrastRatio(QColor(0xe0, 0xe0, 0xe0), QColor(0x1e, 0x1e, 0x1e)) - 12.63)
            < 0.05);
        QVERIFY(std::abs(contrastRatio(Qt::black, Qt::white) - 21.0) < 1e-9);
        const QPalette dark = schedlab::ui::darkPalette();
        const std::pair<QPalette::ColorRole, QPalette::ColorRole> pairs[] = {
            {QPalette::Text, QPalette::Base}, {QPalette::Text, QPalette::AlternateBase},
            {QPalette::WindowText, QPalette::Window}, {QPalette::ButtonText, QPalette::Button},
            {QPalette::HighlightedText, QPalette::Highlight},
            {QPalette::PlaceholderText, QPalette::Base}};
        for (const auto& [text, back] : pairs)
            QVERIFY2(contrastRatio(dark.color(text), dark.color(back)) >= 4.5,
                qPrintable(QStringLiteral("roles %1 on %2: %3")
                               .arg(int(text))
                               .arg(int(back))
                               .arg(contrastRatio(dark.color(text), dark.color(back)))));
        for (const QPalette& pal : {dark, QPalette()}) {
            const QColor picked = schedlab::ui::pickedRowBackground(pal);
            QVERIFY(contrastRatio(pal.color(QPalette::Text), picked) >= 4.5);
            QVERIFY(
                contrastRatio(schedlab::ui::warningText(pal), pal.color(QPalette::Base)) >= 4.5);
            QVERIFY(contrastRatio(schedlab::ui::warningText(pal), picked) >= 4.5);
        }
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("schedlab-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_analysis"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
    }

    // At 1.5 ms hog-2 runs (v 0.5 ms), hog-1 (v 1 ms) is ahead of V = 0.75 ms: not eligible.
    void inspectorShowsTreeAndExplanation()
    {
        InspectorDock dock;
        dock.setScenario(parse(kTwoHogs));
        QSignalSpy spy(&dock, &InspectorDock::inspected);
        dock.inspectAt(Nanoseconds(1'500'000));
        QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 1, kUpperBoundMs);
        QVERIFY(!dock.busy());
        QTreeWidget* tree = dock.tree();
        QCOMPARE(tree->topLevelItemCount(), 1);
        QTreeWidgetItem* cpu = tree->topLevelItem(0);
        QVERIFY(cpu->text(0).contains(QStringLiteral("running hog-2")));
        QVERIFY(cpu->text(0).contains(QStringLiteral("V = 0.750000 ms"))); // 750 000 ns, in ms
        QCOMPARE(cpu->childCount(), 2);
        QCOMPARE(cpu->child(0)->text(0), QStringLiteral("hog-2"));
        QCOMPARE(cpu->child(0)->text(2), QStringLiteral("-0.250")); // v − V in ms
        QCOMPARE(cpu->child(1)->text(0), QStringLiteral("hog-1"));
        QCOMPARE(cpu->child(1)->text(7), QStringLiteral("no"));
        QCOMPARE(cpu->child(1)->text(4), QStringLiteral("-0.250")); // lag V − v
        QVERIFY(cpu->child(0)->text(8).contains(QStringLiteral("PICKED")));
        // PELT (kernel-model.md §6.6) at the last update: no 1024 µs period has ended by 1.5 ms
        // (the updates at 1 ms add 976 µs), so the averages are those of the attach at 0: load
        // 1024 each (the weight); util_avg 512 for hog-1 (half the empty CPU's spare capacity)
        // and min((1024 − 512) / 2, 512 · 1024 / (1024 + 1)) = 256 for hog-2; runnable = util.
        QCOMPARE(cpu->child(0)->text(10), QStringLiteral("1024 / 256 / 256"));
        QCOMPARE(cpu->child(1)->text(10), QStringLiteral("1024 / 512 / 512"));
        QVERIFY2(
            cpu->toolTip(0).contains(QStringLiteral(
                "load_avg 2048, runnable_avg 768, util_avg 768; h_nr_queued 2, h_nr_runnable 2")),
            qPrintable(cpu->toolTip(0)));
        QVERIFY(dock.explanationText().contains(QStringLiteral("Picked hog-2")));
        QVERIFY(dock.explanationText().contains(QStringLiteral("Not eligible")));
        // The explanation prints V in ms as the header does, not in raw ns.
        QVERIFY2(dock.explanationText().contains(QStringLiteral("V = 0.750000 ms (weighted")),
            qPrintable(dock.explanationText()));

        // Requests overtaken by newer ones are dropped: only the last time is shown.
        dock.inspectAt(Nanoseconds(2'500'000));
        dock.inspectAt(Nanoseconds(3'500'000)); // hog-2 runs [3, 4) ms
        QTRY_VERIFY_WITH_TIMEOUT(!dock.busy(), kUpperBoundMs);
        QTRY_VERIFY_WITH_TIMEOUT(spy.count() >= 2, kUpperBoundMs);
        QCOMPARE(spy.last().at(0).value<Nanoseconds>(), Nanoseconds(3'500'000));
        QVERIFY(dock.tree()->topLevelItem(0)->text(0).contains(QStringLiteral("running hog-2")));
    }

    void findingsAndEventLogMoveTheCursor()
    {
        RunOptions o;
        o.watchdogThreshold = Nanoseconds(500'000); // every 1 ms wait is "starvation"
        Simulation sim(parse(kTwoHogs), o);
        sim.run();
        FindingsDock dock;
        dock.setSimulation(&sim);
        int starvation = 0;
        for (const Finding& f : sim.metrics().findings)
            starvation += f.kind == "starvation";
        QVERIFY(starvation >= 10); // ~18 waits of 1 ms in 20 ms
        QCOMPARE(dock.findingsTable()->rowCount(), starvation);
        QSignalSpy spy(&dock, &FindingsDock::timeActivated);
        Q_EMIT dock.findingsTable()->cellClicked(2, 0);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.last().at(0).value<Nanoseconds>().count(), sim.metrics().findings[2].fromNs);

        EventLogModel* events = dock.eventModel();
        events->setFilter(QStringLiteral("SWITCH"));
        events->finishScan();
        int switches = 0;
        for (const Record& r : sim.recording().records())
            switches += r.kind == RecordKind::Switch;
        QCOMPARE(events->rowCount(), switches); // 21: idle→hog-1, then every ms
        QCOMPARE(events->timeAt(3), Nanoseconds(3'000'000));
        QVERIFY(events->data(events->index(3), Qt::DisplayRole)
                    .toString()
                    .contains(QStringLiteral("switch hog-1->hog-2")));
        Q_EMIT dock.eventView()->clicked(events->index(3));
        QCOMPARE(spy.last().at(0).value<Nanoseconds>(), Nanoseconds(3'000'000));
        events->setFilter(QStringLiteral("hog-2->"));
        events->finishScan();
        QCOMPARE(events->rowCount(), 10); // hog-2 hands over at 2, 4, …, 20 ms
    }

    void mainWindowCursorAnnotationsAndExport()
    {
        const QString path = write(m_dir, QStringLiteral("two-hogs.json"), kTwoHogs);
        MainWindow w;
        w.setErrorDialogsEnabled(false);
        QVERIFY(w.openFile(path));
        QSignalSpy finished(w.controller(), &SimulationController::finished);
        w.controller()->runToEnd();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kUpperBoundMs);

        QSignalSpy inspected(w.inspector(), &InspectorDock::inspected);
        w.moveCursorTo(Nanoseconds(2'500'000));
        QCOMPARE(w.timeline()->cursorTime(), Nanoseconds(2'500'000));
        QTRY_COMPARE_WITH_TIMEOUT(inspected.count(), 1, kUpperBoundMs);
        QVERIFY(w.inspector()->tree()->topLevelItem(0)->text(0).contains(
            QStringLiteral("running hog-1")));

        const int before = w.timeline()->annotationCount();
        w.addAnnotation(Nanoseconds(5'000'000), QStringLiteral("look here"));
        QCOMPARE(w.timeline()->annotationCount(), before + 1);
        QVERIFY(w.isWindowModified());
        const QString saved = m_dir.filePath(QStringLiteral("saved.json"));
        QVERIFY(w.saveFile(saved));
        LoadResult reloaded = loadScenarioFile(saved.toStdString());
        QVERIFY(reloaded.ok());
        QCOMPARE(reloaded.scenario->annotations.size(), size_t(1));
        QCOMPARE(reloaded.scenario->annotations[0].at, Nanoseconds(5'000'000));
        QCOMPARE(reloaded.scenario->annotations[0].text, std::string("look here"));

        w.timeline()->setViewRange(Nanoseconds(2'000'000), Nanoseconds(6'000'000));
        ExportMenu* ex = w.exportMenu();
        QString error;
        const QString png = m_dir.filePath(QStringLiteral("v.png"));
        QVERIFY2(ex->captureVisible(png, QSize(800, 450), 96, QStringLiteral("t"), &error),
            qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(800, 450));
        const QString trace = m_dir.filePath(QStringLiteral("v.json"));
        QVERIFY(ex->exportTrace(trace, &error));
        QFile tf(trace);
        QVERIFY(tf.open(QIODevice::ReadOnly));
        const QByteArray traceBytes = tf.readAll();
        // Written on a worker thread by the streamed writer: the same bytes as the
        // whole-recording writer gives for the visible window.
        const Simulation* sim = w.controller()->simulation();
        QCOMPARE(traceBytes,
            QByteArray::fromStdString(chromeTraceJson(sim->recording(), Nanoseconds(2'000'000),
                std::min(Nanoseconds(6'000'000), sim->now()), {},
                w.controller()->scenario().name)));
        const QJsonObject doc = QJsonDocument::fromJson(traceBytes).object();
        QCOMPARE(doc.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("from_ns"))
                     .toInteger(),
            2'000'000);
        const QString csv = m_dir.filePath(QStringLiteral("v.csv"));
        QVERIFY(ex->exportCsv(csv, &error));
        QFile slices(m_dir.filePath(QStringLiteral("v-slices.csv")));
        QVERIFY(slices.open(QIODevice::ReadOnly));
        // [2, 6) ms: four 1-ms runs.
        QCOMPARE(slices.readAll().count('\n'), 5);
        const QString metrics = m_dir.filePath(QStringLiteral("m.json"));
        QVERIFY(ex->exportMetrics(metrics, &error));
        QVERIFY(QFile::exists(metrics));
    }

    // A sleeper's vruntime is constant while it sleeps and jumps at the wakeup placement: the
    // plotted line must show a vertical step there, not a slope across the sleep.
    void vruntimeHoldsWhileSleeping()
    {
        const char* text = R"({ "schedlab": 1, "name": "sl", "duration": "30ms",
          "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
          "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] },
                     { "name": "s", "program": [ { "loop": [ { "run": "0.3ms" },
                                                           { "sleep": "5ms" } ] } ] } ] })";
        Simulation sim(parse(text));
        sim.run();
        TimelineView view;
        view.setRecording(&sim.recording(), sim.endTime());
        view.setNow(sim.now());
        view.setSelectedTasks({2});
        // The v − V line of task "s" (the panes also hold weight, V, band, deadline and lag):
        // broken while it sleeps (dequeued, on no queue), a point at each queued sample.
        QCPGraph* g = nullptr;
        for (int i = 0; i < view.plot()->graphCount() && !g; ++i)
            if (view.plot()->graph(i)->name() == QStringLiteral("s"))
                g = view.plot()->graph(i);
        QVERIFY(g && g->data()->size() > 4);
        int breaks = 0;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            if (std::isnan(it->value))
                ++breaks; // a sleep
        // Sleeps from ~0.3, 5.6, 10.9, … ms: a break at each wakeup after the first sleep.
        QVERIFY2(breaks >= 3, qPrintable(QString::number(breaks)));
    }

    // Two equal hogs: 50 % each. The variant file has one hog: 100 % for hog-1, no hog-2.
    void compareViewTableAndSyncedAxes()
    {
        const QString oneHog = write(m_dir, QStringLiteral("one-hog.json"), kOneHog);
        CompareView view;
        view.setBase(parse(kTwoHogs));
        QString error;
        QVERIFY2(view.compareNow(QStringLiteral("file=") + oneHog, &error), qPrintable(error));
        const auto& rows = view.rows();
        QCOMPARE(view.table()->rowCount(), int(rows.size()));
        auto find = [&](const QString& metric) -> int {
            for (int r = 0; r < view.table()->rowCount(); ++r)
                if (view.table()->item(r, 0)->text() == metric)
                    return r;
            return -1;
        };
        const int share = find(QStringLiteral("hog-1 share"));
        QVERIFY(share >= 0);
        QCOMPARE(view.table()->item(share, 1)->text(), QStringLiteral("50.00%"));
        QCOMPARE(view.table()->item(share, 2)->text(), QStringLiteral("100.00%"));
        QCOMPARE(view.table()->item(share, 3)->text(), QStringLiteral("+50.00%"));
        const int missing = find(QStringLiteral("hog-2 share"));
        QVERIFY(missing >= 0);
        QCOMPARE(view.table()->item(missing, 2)->text(), QStringLiteral("-"));

        view.baseTimeline()->setViewRange(Nanoseconds(3'000'000), Nanoseconds(7'000'000));
        QCOMPARE(view.variantTimeline()->viewStart(), Nanoseconds(3'000'000));
        QCOMPARE(view.variantTimeline()->viewEnd(), Nanoseconds(7'000'000));

        // A feature toggle that cannot matter here (no sleeper): identical runs, zero deltas.
        QVERIFY(view.compareNow(QStringLiteral("NO_PLACE_LAG"), &error));
        for (const MetricDiffRow& r : view.rows())
            QVERIFY2(r.delta() && *r.delta() == 0.0, r.metric.c_str());
        // Bad specs are reported, not run.
        QVERIFY(!view.compareNow(QStringLiteral("NO_SUCH_FEATURE"), &error));
        QVERIFY(!error.isEmpty());
        // The asynchronous path.
        QSignalSpy done(&view, &CompareView::finished);
        view.compare(QStringLiteral("profile=6.6"));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kUpperBoundMs);
        QCOMPARE(done.first().at(0).toBool(), true);
    }

    // At 1600 × 1000 the metrics table shows every row it has, up to what a third of the
    // splitter holds (it showed two).
    void compareTableUsesItsSpace()
    {
        CompareView view;
        view.resize(1600, 1000);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setBase(parse(kTwoHogs));
        QString error;
        QVERIFY2(view.compareNow(QStringLiteral("profile=6.6"), &error), qPrintable(error));
        QTableWidget* table = view.table();
        QVERIFY(table->rowCount() >= 4);
        int visible = 0;
        for (int r = 0; r < table->rowCount(); ++r) {
            const QRect rect = table->visualRect(table->model()->index(r, 0));
            if (table->viewport()->rect().contains(rect))
                ++visible; // wholly visible
        }
        // What fits in a third of the height the timelines and table share (≥ 800 px here), and
        // beside the two timelines' minimum, less header, frame and a scroll bar: at least
        // six rows (it showed two), and every row when they fit.
        auto* split = qobject_cast<QSplitter*>(table->parentWidget());
        QVERIFY(split);
        // Less what the two timelines need at least (their panes' minimum).
        const int total = split->height() - 2 * split->handleWidth();
        const int third = std::min(total / 3,
            total - split->widget(0)->minimumSizeHint().height()
                - split->widget(1)->minimumSizeHint().height());
        int fits = 0;
        while (view.tableHeightFor(fits + 1) <= third - 2)
            ++fits;
        QVERIFY2(fits >= 6, qPrintable(QString::number(fits)));
        QVERIFY2(visible >= std::min(table->rowCount(), fits),
            qPrintable(QStringLiteral("%1 of %2 rows visible, %3 fit; table %4 px, viewport %5 "
                                      "px, a third %6 px")
                           .arg(visible)
                           .arg(table->rowCount())
                           .arg(fits)
                           .arg(table->height())
                           .arg(table->viewport()->height())
                           .arg(third)));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestAnalysis)
#include "tst_analysis.moc"
