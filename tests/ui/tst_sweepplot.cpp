// SPDX-License-Identifier: GPL-2.0-or-later
// The sweep plot (ui/export/sweepplot.h): rows grouped into series and x values with the mean,
// min and max over the seeds (hand-computed below), the files it writes, and its errors.
#include "core/base/csv.h"
#include "ui/export/sweepplot.h"
#include "ui/timeline/qcp.h"

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace schedlab;
using namespace schedlab::ui;

namespace {

// Two profiles × two periods × two seeds, as `sweep` writes them (run, runs, params, seed, …).
const char* const kCsv = "run,runs,/p,profile,seed,status,task:a:share\n"
                         "0,8,1s,6.12,1,ok,0.10\n"
                         "1,8,1s,6.12,2,ok,0.20\n"
                         "2,8,1s,7.1,1,ok,0.30\n"
                         "3,8,1s,7.1,2,ok,0.50\n"
                         "4,8,250ms,6.12,1,ok,0.40\n"
                         "5,8,250ms,6.12,2,ok,\n" // the task did not exist: skipped
                         "6,8,250ms,7.1,1,ok,0.60\n"
                         "7,8,250ms,7.1,2,ok,0.80\n";

CsvTable table()
{
    CsvTable t;
    std::string error;
    parseCsv(kCsv, t, &error);
    return t;
}

} // namespace

class TestSweepPlot : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seriesMeans();
    void writesPngAndSvg();
    void errors();
    void legendKeepsOffTheData();
};

void TestSweepPlot::seriesMeans()
{
    SweepPlotOptions o;
    o.metric = "task:a:share";
    o.x = "/p";
    o.series = "profile";
    std::vector<SweepSeries> s;
    std::string error;
    QVERIFY2(sweepSeries(table(), o, s, &error), error.c_str());
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(s[0].name, std::string("6.12")); // in CSV order
    QCOMPARE(s[0].points.size(), size_t(2));
    QCOMPARE(s[0].points[0].x, std::string("1s"));
    QCOMPARE(s[0].points[0].mean, (0.10 + 0.20) / 2);
    QCOMPARE(s[0].points[0].min, 0.10);
    QCOMPARE(s[0].points[0].max, 0.20);
    QCOMPARE(s[0].points[1].n, 1); // the empty cell is not a zero
    QCOMPARE(s[0].points[1].mean, 0.40);
    QCOMPARE(s[1].points[1].mean, (0.60 + 0.80) / 2);
    // Without --series: one series, the mean over everything with that x.
    o.series.clear();
    QVERIFY(sweepSeries(table(), o, s, &error));
    QCOMPARE(s.size(), size_t(1));
    QCOMPARE(s[0].points[0].mean, (0.10 + 0.20 + 0.30 + 0.50) / 4);
    QCOMPARE(s[0].points[0].n, 4);
}

void TestSweepPlot::writesPngAndSvg()
{
    QTemporaryDir dir;
    SweepPlotOptions o;
    o.metric = "task:a:share";
    o.x = "/p";
    o.series = "profile";
    o.size = QSize(400, 300);
    o.dpi = 192; // twice the pixels
    QString error;
    const QString png = dir.filePath(QStringLiteral("p.png"));
    QVERIFY2(plotSweep(table(), png, o, &error), qPrintable(error));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(800, 600));
    const QString svg = dir.filePath(QStringLiteral("p.svg"));
    QVERIFY2(plotSweep(table(), svg, o, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("<svg"));
}

// The legend lies outside the axes, so no point can hide under it (7.1 at 250 ms, the highest
// mean (0.70) at the highest x, is where a top-right legend went), and the subtitle counts the
// runs per point as they are: 6.12 at 250 ms has one, the others two.
void TestSweepPlot::legendKeepsOffTheData()
{
    SweepPlotOptions o;
    o.metric = "task:a:share";
    o.x = "/p";
    o.series = "profile";
    o.size = QSize(600, 400);
    QString error;
    QCustomPlot plot;
    QVERIFY2(buildSweepPlot(plot, table(), o, &error), qPrintable(error));
    QVERIFY(plot.legend->visible());
    QCOMPARE(plot.legend->itemCount(), 2);
    const QRect axes = plot.axisRect()->outerRect();
    const QRect legend = plot.legend->outerRect();
    QVERIFY(!legend.isEmpty());
    QVERIFY2(!axes.intersects(legend), "the legend overlaps the axes");
    QVERIFY(legend.top() >= axes.bottom());
    for (int i = 0; i < plot.graphCount(); ++i) {
        const QCPGraph* g = plot.graph(i);
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            const QPointF px = g->coordsToPixels(it->key, it->value);
            QVERIFY(axes.contains(px.toPoint()));
            QVERIFY(!legend.contains(px.toPoint()));
        }
    }
    bool subtitle = false;
    for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
        if (auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i)))
            subtitle = subtitle || t->text().contains(QStringLiteral("mean of 1–2 runs per point"));
    QVERIFY(subtitle);
}

void TestSweepPlot::errors()
{
    QTemporaryDir dir;
    SweepPlotOptions o;
    o.metric = "task:zz:share";
    o.x = "/p";
    QString error;
    const QString png = dir.filePath(QStringLiteral("e.png"));
    QVERIFY(!plotSweep(table(), png, o, &error));
    QVERIFY2(
        error.contains(QStringLiteral("\"task:zz:share\" is not a column")), qPrintable(error));
    o.metric = "task:a:share";
    o.x = "/q";
    QVERIFY(!plotSweep(table(), png, o, &error));
    QVERIFY2(error.contains(QStringLiteral("parameters: /p, profile")), qPrintable(error));
    o.x = "/p";
    QVERIFY(!plotSweep(table(), dir.filePath(QStringLiteral("e.gif")), o, &error));
    QVERIFY2(error.contains(QStringLiteral(".png, .svg or .pdf")), qPrintable(error));
    QVERIFY(!QFile::exists(png));
}

QTEST_MAIN(TestSweepPlot)
#include "tst_sweepplot.moc"
