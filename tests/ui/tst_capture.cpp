// SPDX-License-Identifier: GPL-2.0-or-later
// Captures (ui/capture.h): PNG at the requested size and DPI and not blank, the task colours of
// the lanes where the tasks ran, SVG and PDF files that render, and `schedlab-cli capture`.
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/common/taskpalette.h"
#include "ui/export/capture.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/model/envelope.h"
#include "ui/timeline/qcp.h"
#include "ui/timeline/timelineview.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace schedlab;
using namespace schedlab::ui;

namespace {

// Two nice-0 hogs on one CPU at HZ 1000: hog-1 runs [0,1) ms, hog-2 [1,2) ms, and so on.
const char* kTwoHogs = R"({ "schedlab": 1, "name": "two-hogs", "duration": "20ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] } ] })";

// The issue's scenario: four hogs in /A (weight 100) and one in /B (400) on 2 CPUs. b has CPU 0
// to itself; a-1 … a-4 share CPU 1, each picked for a slice in turn.
const char* kGroups = R"({"schedlab": 1, "name": "groups-4v1", "duration": "2s",
 "kernel": {"profile": "7.1"}, "machine": {"cpus": 2},
 "cgroups": [{"path": "/A", "cpu.weight": 100}, {"path": "/B", "cpu.weight": 400}],
 "tasks": [{"name": "a", "count": 4, "cgroup": "/A", "program": [{"run": "forever"}]},
           {"name": "b", "cgroup": "/B", "program": [{"run": "forever"}]}]})";

Scenario parsed(const char* json)
{
    LoadResult r = parseScenario(json, "test.json");
    if (!r.ok())
        qFatal("scenario");
    return *r.scenario;
}

/// The graph on @p rect's axes drawn in @p colour (a task's lag line), or nullptr.
QCPGraph* graphIn(QCPAxisRect* rect, QColor colour)
{
    for (QCPGraph* g : rect->graphs())
        if (g->pen().color() == colour)
            return g;
    return nullptr;
}

Scenario scenario()
{
    LoadResult r = parseScenario(kTwoHogs, "two-hogs.json");
    if (!r.ok())
        qFatal("scenario");
    return *r.scenario;
}

/// Distinct colours and the share of pixels that are not (near) white.
QPair<int, double> content(const QImage& image)
{
    QSet<QRgb> colours;
    qint64 ink = 0;
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) {
            const QRgb c = img.pixel(x, y);
            colours.insert(c);
            ink += qRed(c) + qGreen(c) + qBlue(c) < 3 * 240;
        }
    return {int(colours.size()), double(ink) / (double(img.width() / 2) * (img.height() / 2))};
}

bool near(QColor a, QColor b)
{
    return qAbs(a.red() - b.red()) + qAbs(a.green() - b.green()) + qAbs(a.blue() - b.blue()) < 40;
}

} // namespace

class TestCapture : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        sim = std::make_unique<Simulation>(scenario());
        sim->run();
    }
    void formatFromSuffix();
    void pngHasSizeAndContent();
    void pngDpiScalesPixels();
    void titleNamesTheVariant();
    void titleNamesMidRunChanges();
    void peltPaneAndBandsPerTask();
    void groupEntityInThePeltPane();
    void svgAndPdfRender();
    void badRequestsFail();
    void cliCapture();
    void windowAndCaptureDrawTheSame();
    void captureDrawsTheRecordedLag();
    void vectorFormatsMatchThePng();
    void layoutAtAnySize();

private:
    std::unique_ptr<Simulation> sim;
    QTemporaryDir dir;
};

void TestCapture::formatFromSuffix()
{
    QCOMPARE(captureFormatFor(QStringLiteral("a.PNG")), CaptureFormat::Png);
    QCOMPARE(captureFormatFor(QStringLiteral("x/y.svg")), CaptureFormat::Svg);
    QCOMPARE(captureFormatFor(QStringLiteral("z.pdf")), CaptureFormat::Pdf);
    QVERIFY(!captureFormatFor(QStringLiteral("z.jpg")));
}

void TestCapture::pngHasSizeAndContent()
{
    const QString path = dir.filePath(QStringLiteral("a.png"));
    CaptureOptions o;
    o.from = Nanoseconds(0);
    o.to = Nanoseconds(4'000'000);
    o.size = QSize(900, 560);
    o.title = QStringLiteral("two hogs");
    QString error;
    QVERIFY2(captureRecording(sim->recording(), sim->now(), path, o, &error), qPrintable(error));
    QImage img(path);
    QCOMPARE(img.size(), QSize(900, 560));
    const auto [colours, ink] = content(img);
    QVERIFY2(colours > 20, qPrintable(QString::number(colours)));
    QVERIFY2(ink > 0.10, qPrintable(QString::number(ink)));
    // The window is 4 ms: hog-1 runs in the first and third quarter, hog-2 in the second and
    // fourth. Find the lanes' vertical centre by scanning a column in the first quarter for
    // hog-1's colour, then check the other quarters on that row.
    const QColor c1 = taskColor(0), c2 = taskColor(1);
    int laneY = -1, x0 = -1, x1 = -1;
    for (int y = 0; y < img.height() / 2 && laneY < 0; ++y) {
        int first = -1, last = -1;
        for (int x = 0; x < img.width(); ++x) {
            const bool is1 = near(img.pixelColor(x, y), c1);
            if (is1 && first < 0)
                first = x;
            if (is1)
                last = x;
        }
        if (first >= 0 && last - first > img.width() / 2) { // hog-1 in quarters 1 and 3
            laneY = y;
            x0 = first;
        }
    }
    QVERIFY2(laneY >= 0, "no lane row with hog-1's colour");
    // The plot spans x0 … x1 where the last quarter (hog-2) ends.
    for (int x = img.width() - 1; x > x0; --x)
        if (near(img.pixelColor(x, laneY), c2)) {
            x1 = x;
            break;
        }
    QVERIFY(x1 > x0);
    const double quarter = (x1 - x0) / 4.0;
    for (int q = 0; q < 4; ++q) {
        const int x = x0 + int(quarter * (q + 0.5));
        QVERIFY2(near(img.pixelColor(x, laneY), q % 2 ? c2 : c1), qPrintable(QString::number(q)));
    }
}

void TestCapture::pngDpiScalesPixels()
{
    // --size is the layout at 96 dpi: at 192 dpi the image has twice the pixels each way and
    // the same layout (the lanes where they were, at twice the coordinates).
    CaptureOptions o;
    o.from = Nanoseconds(0);
    o.to = Nanoseconds(10'000'000);
    o.size = QSize(800, 500);
    QString error;
    const QString lo = dir.filePath(QStringLiteral("lo.png"));
    QVERIFY2(captureRecording(sim->recording(), sim->now(), lo, o, &error), qPrintable(error));
    o.dpi = 192;
    const QString hi = dir.filePath(QStringLiteral("hi.png"));
    QVERIFY2(captureRecording(sim->recording(), sim->now(), hi, o, &error), qPrintable(error));
    const QImage a(lo), b(hi);
    QCOMPARE(a.size(), QSize(800, 500));
    QCOMPARE(b.size(), QSize(1600, 1000));
    QCOMPARE(qRound(b.dotsPerMeterX() * 0.0254), 192);
    QVERIFY(content(b).second > 0.10);
    // Bounding box of hog-1's colour (its runs in the lane) in each.
    const auto box = [](const QImage& img) {
        QRect r;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                if (img.pixelColor(x, y) == taskColor(0))
                    r |= QRect(x, y, 1, 1);
        return r;
    };
    const QRect ra = box(a), rb = box(b);
    QVERIFY(ra.width() > 100 && ra.height() > 10);
    for (const auto& [x, y] : {std::pair{ra.left(), rb.left()}, {ra.top(), rb.top()},
             {ra.right(), rb.right()}, {ra.bottom(), rb.bottom()}})
        QVERIFY2(std::abs(2 * x - y) <= 4, qPrintable(QStringLiteral("%1 vs %2").arg(x).arg(y)));
    // Too many pixels is refused, not attempted.
    o.size = QSize(20000, 500);
    o.dpi = 300;
    QVERIFY(!captureRecording(
        sim->recording(), sim->now(), dir.filePath(QStringLiteral("huge.png")), o, &error));
    QVERIFY2(error.contains(QStringLiteral("too large")), qPrintable(error));
}

void TestCapture::titleNamesTheVariant()
{
    // The profile, and what differs from its defaults: a feature and a model choice.
    RunOptions options;
    options.profile = "7.1";
    options.features = {"NO_PLACE_LAG"};
    options.overrides = {{"lag_clamp", "own_slice"}};
    Simulation variant(scenario(), options);
    const QString label = runLabel(variant);
    QVERIFY2(label.startsWith(QStringLiteral("7.1")), qPrintable(label));
    QVERIFY2(label.contains(QStringLiteral("NO_PLACE_LAG")), qPrintable(label));
    QVERIFY2(label.contains(QStringLiteral("lag_clamp=own_slice")), qPrintable(label));
    // The defaults: the profile alone.
    RunOptions plain;
    plain.profile = "7.1";
    Simulation base(scenario(), plain);
    QCOMPARE(runLabel(base), QStringLiteral("7.1"));
    QVERIFY(captureTitle(variant, "two-hogs", Nanoseconds{0}, Nanoseconds{5'000'000})
                .startsWith(QStringLiteral("two-hogs — 7.1, NO_PLACE_LAG")));
}

void TestCapture::titleNamesMidRunChanges()
{
    // Issue 39: a profile override and a feature toggled mid-run are named with their times,
    // never as if they held for the whole run; a change after the window's end is left out.
    Scenario sc = parsed(R"({"schedlab": 1, "name": "midrun", "duration": "400ms",
        "kernel": {"profile": "6.13"}, "machine": {"cpus": 1},
        "tasks": [{"name": "hog", "program": [{"run": "forever"}]}],
        "actions": [{"at": "100ms", "feature": {"PLACE_LAG": false}},
                    {"at": "200ms", "profile": {"overrides": {"lag_clamp": "max_slice_tick"}}},
                    {"at": "300ms", "feature": {"PLACE_LAG": true}}]})");
    Simulation run(sc);
    run.run();
    QCOMPARE(runLabel(run, sc.actions, Nanoseconds{250'000'000}),
        QStringLiteral("6.13, NO_PLACE_LAG from 100.000 ms, lag_clamp=max_slice_tick from "
                       "200.000 ms"));
    QCOMPARE(runLabel(run, sc.actions),
        QStringLiteral("6.13, NO_PLACE_LAG from 100.000 ms, lag_clamp=max_slice_tick from "
                       "200.000 ms, PLACE_LAG from 300.000 ms"));
    // The run as it started, not as it ended (the end has lag_clamp=max_slice_tick).
    QCOMPARE(runLabel(run, {}), QStringLiteral("6.13"));
    QVERIFY(captureTitle(run, "midrun", Nanoseconds{0}, Nanoseconds{150'000'000}, sc.actions)
                .startsWith(QStringLiteral("midrun — 6.13, NO_PLACE_LAG from 100.000 ms, 0")));
}

void TestCapture::peltPaneAndBandsPerTask()
{
    // The capture's view (the window's TimelineView): with PELT in the recording the PELT pane
    // is shown, its lines at the recorded values; each plotted task has its own lag band. A
    // 10 ms custom slice beside a default one, profile 6.13 (own_slice), lag_clamp switched to
    // max_slice_tick at 20 ms; HZ 1000, base slice 0.7 ms (one CPU), both nice 0.
    const Scenario sc = parsed(R"({"schedlab": 1, "name": "bands", "duration": "40ms",
        "kernel": {"profile": "6.13", "hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "long", "slice": "10ms", "program": [{"run": "forever"}]},
                  {"name": "short", "program": [{"run": "forever"}]}],
        "actions": [{"at": "20ms", "profile": {"overrides": {"lag_clamp": "max_slice_tick"}}}]})");
    RunOptions options;
    options.recordPelt = true;
    options.recordMaxSlice = true;
    Simulation run(sc, options);
    run.run();
    CaptureOptions o;
    o.from = Nanoseconds{0};
    o.to = Nanoseconds{40'000'000};
    o.fromSimulation(run, sc.actions);
    TimelineView view;
    setUpCaptureView(view, run.recording(), run.now(), o);
    QString error;
    QVERIFY2(savePlot(view.plot(), dir.filePath(QStringLiteral("bands.png")), QSize(1200, 900), 96,
                 QString(), QString(), &error),
        qPrintable(error));
    QVERIFY(view.peltRect()->visible());
    // The last util_avg each task's samples recorded is the value its solid line ends at.
    std::map<int, uint32_t> lastUtil;
    for (size_t i = 0; i + 1 < run.recording().records().size(); ++i) {
        const Record& r = run.recording().records()[i];
        const Record& p = run.recording().records()[i + 1];
        if (r.kind == RecordKind::Sample && r.entity.isTask() && p.kind == RecordKind::Pelt)
            lastUtil[r.entity.taskIndex()] = p.payload.pelt.utilAvg;
    }
    QCOMPARE(lastUtil.size(), size_t{2});
    for (const auto& [task, util] : lastUtil) {
        QCPGraph* line = nullptr;
        for (QCPGraph* g : view.peltRect()->axis(QCPAxis::atLeft)->graphs())
            if (g->pen().color() == taskColor(task) && g->pen().style() == Qt::SolidLine
                && g->dataCount() > 0)
                line = g;
        QVERIFY(line);
        QCOMPARE((line->data()->constEnd() - 1)->value, static_cast<double>(util));
    }
    // Bands: long ±20 ms (2 · 10) before 20 ms and ±11 ms (10 + 1) after; short ±1.4 ms
    // (2 · 0.7) before, and after 20 ms ±11 ms as well: max_slice_tick clamps with the largest
    // slice queued on the cfs_rq, long's 10 ms (both hogs are always queued), plus the tick
    // (kernel-model.md §4.1; `capture` records it: RunOptions::recordMaxSlice). lag_band values
    // at 10 and 30 ms of the four edges.
    const auto valueAt = [](QCPGraph* g, double ms) {
        double v = std::numeric_limits<double>::quiet_NaN();
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            if (it->key <= ms && !std::isnan(it->value))
                v = it->value;
        return v;
    };
    std::vector<std::pair<double, double>> bands; // (value at 10 ms, at 30 ms) per edge
    for (QCPGraph* g : view.lagRect()->graphs())
        if (g->dataCount() > 0 && g->pen().style() == Qt::DotLine)
            bands.emplace_back(valueAt(g, 10), valueAt(g, 30));
    const auto has = [&](double before, double after) {
        return std::any_of(bands.begin(), bands.end(), [&](const auto& b) {
            return std::abs(b.first - before) < 1e-9 && std::abs(b.second - after) < 1e-9;
        });
    };
    QVERIFY(has(20.0, 11.0));
    QVERIFY(has(-20.0, -11.0));
    QVERIFY(has(1.4, 11.0));
    QVERIFY(has(-1.4, -11.0));
    // Without PELT in the recording there is no PELT pane.
    Simulation plain(sc);
    plain.run();
    TimelineView without;
    setUpCaptureView(without, plain.recording(), plain.now(), o);
    QVERIFY(!without.peltRect()->visible());
}

void TestCapture::groupEntityInThePeltPane()
{
    // A group entity selected alone (`capture --entities /g@1`, the window's machine tree): the
    // PELT pane draws its own averages and its cfs_rq's, no task is plotted, its util line (the
    // key names it) ends at the last recorded value and is drawn there in its colour (the weight
    // pane's: the first group entity of the recording gets taskColor(3)).
    const Scenario sc = parsed(R"({"schedlab": 1, "name": "group", "duration": "40ms",
        "kernel": {"profile": "7.1", "hz": 1000}, "machine": {"cpus": 2},
        "cgroups": [{"path": "/g"}],
        "tasks": [{"name": "a", "cgroup": "/g", "cpus": "1", "program": [{"run": "forever"}]},
                  {"name": "b", "cpus": "0", "program": [{"run": "forever"}]}]})");
    RunOptions options;
    options.recordPelt = true;
    Simulation run(sc, options);
    run.run();
    const Recording& rec = run.recording();
    const auto g = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), "/g");
    QVERIFY(g != rec.groupPaths.end());
    const int32_t raw = EntityRef::group(static_cast<int32_t>(g - rec.groupPaths.begin()), 1).raw;
    uint32_t lastUtil = 0, lastRqUtil = 0;
    int groupEntities = 0;
    std::set<int32_t> seen;
    for (size_t i = 0; i + 1 < rec.records().size(); ++i) {
        const Record& r = rec.records()[i];
        const Record& p = rec.records()[i + 1];
        if (r.kind == RecordKind::Sample && r.entity.isGroup() && seen.insert(r.entity.raw).second)
            ++groupEntities;
        if (r.kind == RecordKind::Sample && r.entity.raw == raw && p.kind == RecordKind::Pelt) {
            lastUtil = p.payload.pelt.utilAvg;
            lastRqUtil = p.payload.pelt.rqUtilAvg;
        }
    }
    QCOMPARE(groupEntities, 1); // /g@1 only: the group has no task on CPU 0
    QVERIFY(lastUtil > 512);    // it ran for 40 ms: util grows from 512 towards 1024
    CaptureOptions o;
    o.from = Nanoseconds{0};
    o.to = Nanoseconds{40'000'000};
    o.groupEntities = {raw};
    o.fromSimulation(run, sc.actions);
    TimelineView view;
    setUpCaptureView(view, rec, run.now(), o);
    const QString path = dir.filePath(QStringLiteral("group.png"));
    QString error;
    QVERIFY2(savePlot(view.plot(), path, QSize(1200, 900), 96, QString(), QString(), &error),
        qPrintable(error));
    QVERIFY(view.peltRect()->visible());
    QVERIFY(view.plottedTasks().isEmpty());
    QCOMPARE(view.plottedGroupEntities(), std::vector<int32_t>{raw});
    const auto& graphs = view.groupPeltGraphs(0);
    QCOMPARE(graphs[2]->name(), QStringLiteral("/g@1"));
    QCOMPARE((graphs[2]->data()->constEnd() - 1)->value, static_cast<double>(lastUtil));
    QCOMPARE((graphs[5]->data()->constEnd() - 1)->value, static_cast<double>(lastRqUtil));
    QCOMPARE(graphs[2]->pen().color(), taskColor(3));
    // In the picture: the util line's colour in the PELT pane near the value's row, at 35 ms.
    const QImage img = QImage(path).convertToFormat(QImage::Format_RGB32);
    QCPAxis* key = view.peltRect()->axis(QCPAxis::atBottom);
    QCPAxis* value = view.peltRect()->axis(QCPAxis::atLeft);
    const int x = qRound(key->coordToPixel(35.0));
    double util35 = 0;
    for (auto it = graphs[2]->data()->constBegin(); it != graphs[2]->data()->constEnd(); ++it)
        if (it->key <= 35.0)
            util35 = it->value;
    const int y = qRound(value->coordToPixel(util35));
    QVERIFY(view.peltRect()->rect().contains(x, y));
    bool found = false;
    for (int dy = -3; dy <= 3 && !found; ++dy)
        for (int dx = -2; dx <= 2 && !found; ++dx) {
            const QColor c = img.pixelColor(x + dx, y + dy);
            const QColor want = taskColor(3);
            found = std::abs(c.red() - want.red()) + std::abs(c.green() - want.green())
                    + std::abs(c.blue() - want.blue())
                < 40;
        }
    QVERIFY2(found, qPrintable(QStringLiteral("no util line at (%1, %2)").arg(x).arg(y)));
}

void TestCapture::svgAndPdfRender()
{
    CaptureOptions o;
    o.from = Nanoseconds(0);
    o.to = Nanoseconds(10'000'000);
    o.size = QSize(800, 500);
    o.title = QStringLiteral("vector");
    QString error;
    const QString svg = dir.filePath(QStringLiteral("a.svg"));
    QVERIFY2(captureRecording(sim->recording(), sim->now(), svg, o, &error), qPrintable(error));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBox(), QRect(0, 0, 800, 500));
    QImage img(800, 500, QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    renderer.render(&p);
    p.end();
    QVERIFY(content(img).second > 0.10);

    const QString pdf = dir.filePath(QStringLiteral("a.pdf"));
    QVERIFY2(captureRecording(sim->recording(), sim->now(), pdf, o, &error), qPrintable(error));
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.startsWith("%PDF-"));
    QVERIFY(bytes.size() > 5000);
}

void TestCapture::badRequestsFail()
{
    CaptureOptions o;
    o.from = Nanoseconds(5'000'000);
    o.to = Nanoseconds(5'000'000);
    QString error;
    QVERIFY(!captureRecording(
        sim->recording(), sim->now(), dir.filePath(QStringLiteral("e.png")), o, &error));
    QVERIFY(error.contains(QStringLiteral("empty time window")));
    o.to = Nanoseconds(6'000'000);
    QVERIFY(!captureRecording(
        sim->recording(), sim->now(), dir.filePath(QStringLiteral("e.gif")), o, &error));
    QVERIFY(error.contains(QStringLiteral(".png, .svg or .pdf")));
    o.size = QSize(10, 10);
    QVERIFY(!captureRecording(
        sim->recording(), sim->now(), dir.filePath(QStringLiteral("e.png")), o, &error));
}

void TestCapture::cliCapture()
{
    QFile scenarioFile(dir.filePath(QStringLiteral("two-hogs.json")));
    QVERIFY(scenarioFile.open(QIODevice::WriteOnly));
    scenarioFile.write(kTwoHogs);
    scenarioFile.close();
    const QString out = dir.filePath(QStringLiteral("cli.png"));
    QProcess cli;
    cli.start(QStringLiteral(SCHEDLAB_CLI),
        {QStringLiteral("capture"), scenarioFile.fileName(), QStringLiteral("--from"),
            QStringLiteral("1ms"), QStringLiteral("--to"), QStringLiteral("5ms"),
            QStringLiteral("--out"), out, QStringLiteral("--size"), QStringLiteral("640x400"),
            QStringLiteral("--entities"), QStringLiteral("hog-2")});
    QVERIFY(cli.waitForFinished(120000)); // an upper bound only
    QCOMPARE(cli.exitCode(), 0);
    QImage img(out);
    QCOMPARE(img.size(), QSize(640, 400));
    QVERIFY(content(img).second > 0.10);

    QProcess bad;
    bad.start(QStringLiteral(SCHEDLAB_CLI),
        {QStringLiteral("capture"), scenarioFile.fileName(), QStringLiteral("--from"),
            QStringLiteral("0"), QStringLiteral("--to"), QStringLiteral("5ms"),
            QStringLiteral("--out"), out, QStringLiteral("--entities"), QStringLiteral("nope")});
    QVERIFY(bad.waitForFinished(120000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("no task \"nope\""));

    // Every option that shapes a run (schedlab-cli --help) is accepted by capture too, and a bad
    // value is refused with the run's message.
    QProcess shaped;
    shaped.start(QStringLiteral(SCHEDLAB_CLI),
        {QStringLiteral("capture"), scenarioFile.fileName(), QStringLiteral("--from"),
            QStringLiteral("0"), QStringLiteral("--to"), QStringLiteral("5ms"),
            QStringLiteral("--out"), out, QStringLiteral("--profile"), QStringLiteral("6.12"),
            QStringLiteral("--feature"), QStringLiteral("NO_PLACE_LAG"),
            QStringLiteral("--override"), QStringLiteral("yield=forfeit_always"),
            QStringLiteral("--duration"), QStringLiteral("1s"), QStringLiteral("--seed"),
            QStringLiteral("3"), QStringLiteral("--watchdog"), QStringLiteral("2s"),
            QStringLiteral("--limit"), QStringLiteral("tasks=1000")});
    QVERIFY(shaped.waitForFinished(120000));
    QCOMPARE(shaped.exitCode(), 0);
    QProcess negative;
    negative.start(QStringLiteral(SCHEDLAB_CLI),
        {QStringLiteral("capture"), scenarioFile.fileName(), QStringLiteral("--from"),
            QStringLiteral("0"), QStringLiteral("--to"), QStringLiteral("5ms"),
            QStringLiteral("--out"), out, QStringLiteral("--seed"), QStringLiteral("-1")});
    QVERIFY(negative.waitForFinished(120000));
    QCOMPARE(negative.exitCode(), 2);
    QVERIFY(negative.readAllStandardError().contains("--seed expects an integer"));

    // Scenario edits for a picture: a task's nice at t = 0; a bad one is refused.
    const auto runFile = [&](const QString& file, const QStringList& extra) {
        QProcess p;
        p.start(QStringLiteral(SCHEDLAB_CLI),
            QStringList{QStringLiteral("capture"), file, QStringLiteral("--from"),
                QStringLiteral("0"), QStringLiteral("--to"), QStringLiteral("5ms"),
                QStringLiteral("--out"), out}
                + extra);
        p.waitForFinished(120000);
        return std::pair{p.exitCode(), p.readAllStandardError()};
    };
    const auto run = [&](const QStringList& extra) {
        return runFile(scenarioFile.fileName(), extra);
    };
    QCOMPARE(run({QStringLiteral("--set"), QStringLiteral("hog.nice=5")}).first, 0);
    const auto badNice = run({QStringLiteral("--set"), QStringLiteral("hog.nice=99")});
    QCOMPARE(badNice.first, 2);
    QVERIFY(badNice.second.contains("--set expects TASK.nice=N"));
    const auto badGroup = run({QStringLiteral("--weight"), QStringLiteral("/nope=100")});
    QCOMPARE(badGroup.first, 2);
    QVERIFY(badGroup.second.contains("--weight expects CGROUP=W"));
    // An idle group weighs 3 whatever its cpu.weight (sched_group_set_idle()): refused.
    QFile idleFile(dir.filePath(QStringLiteral("idle.json")));
    QVERIFY(idleFile.open(QIODevice::WriteOnly));
    idleFile.write(R"({"schedlab": 1, "name": "idle", "duration": "5ms", "machine": {"cpus": 1},
        "cgroups": [{"path": "/i", "cpu.idle": 1}],
        "tasks": [{"name": "t", "cgroup": "/i", "program": [{"run": "forever"}]}]})");
    idleFile.close();
    const auto idle =
        runFile(idleFile.fileName(), {QStringLiteral("--weight"), QStringLiteral("/i=500")});
    QCOMPARE(idle.first, 2);
    QVERIFY(idle.second.contains("/i has cpu.idle 1"));

    // A run stopped by a guard: the picture of what happened up to the stop is written, the
    // reason is on stderr and the exit code is 3, as for `run` (docs/limits.md). Each of the
    // 2 tasks forks one child at t = 0: 4 live tasks pass a limit of 3.
    QFile forks(dir.filePath(QStringLiteral("forks.json")));
    QVERIFY(forks.open(QIODevice::WriteOnly));
    forks.write(R"({"schedlab": 1, "name": "forks", "duration": "5ms", "machine": {"cpus": 1},
        "tasks": [{"name": "parent", "count": 2,
                   "program": [{"fork": {"program": [{"run": "forever"}]}}, {"run": "forever"}]}]})");
    forks.close();
    QFile::remove(out);
    QProcess stopped;
    stopped.start(QStringLiteral(SCHEDLAB_CLI),
        {QStringLiteral("capture"), forks.fileName(), QStringLiteral("--from"), QStringLiteral("0"),
            QStringLiteral("--to"), QStringLiteral("5ms"), QStringLiteral("--out"), out,
            QStringLiteral("--limit"), QStringLiteral("live-tasks=3")});
    QVERIFY(stopped.waitForFinished(120000));
    const QByteArray why = stopped.readAllStandardError();
    QCOMPARE(stopped.exitCode(), 3);
    QVERIFY2(why.contains("run stopped at t=") && why.contains("live"), why.constData());
    QVERIFY(QFileInfo::exists(out));
}

void TestCapture::windowAndCaptureDrawTheSame()
{
    // One renderer: the same view shown in a window (replot into its buffers, grabbed as
    // --screenshot does) and drawn by the capture path (savePlot(), as `capture` and File >
    // Export do) at the same size gives the same pixels and the same plotted data.
    const Scenario sc = parsed(kGroups);
    Simulation groups(sc);
    groups.run();
    const auto setUp = [&](TimelineView& v) {
        v.setRecording(&groups.recording(), groups.endTime());
        v.setNow(groups.now());
        v.setHintsVisible(false);
        v.setTaskCgroups(taskCgroups(sc), taskMoves(sc));
        v.setLagClamp(groups.choices().lagClamp, groups.baseSlice(), groups.hz());
        v.setSelectedTasks({1, 2, 4});
        v.setViewRange(Nanoseconds{0}, Nanoseconds{2'000'000'000});
    };
    TimelineView window;
    setUp(window);
    window.resize(1000, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QImage shown = window.plot()->grab().toImage().convertToFormat(QImage::Format_RGB32);
    QVERIFY(shown.width() >= 1000);

    TimelineView offscreen; // never shown, never resized: the capture's size decides
    setUp(offscreen);
    const QString path = dir.filePath(QStringLiteral("same.png"));
    QString error;
    QVERIFY2(savePlot(offscreen.plot(), path, shown.size(), 96, QString(), QString(), &error),
        qPrintable(error));
    const QImage captured = QImage(path).convertToFormat(QImage::Format_RGB32);
    QCOMPARE(captured.size(), shown.size());
    // The same points in every graph (the decimation ran for the same columns).
    QCOMPARE(offscreen.plot()->graphCount(), window.plot()->graphCount());
    int points = 0;
    for (int g = 0; g < window.plot()->graphCount(); ++g) {
        const auto a = window.plot()->graph(g)->data();
        const auto b = offscreen.plot()->graph(g)->data();
        QCOMPARE(b->size(), a->size());
        for (int i = 0; i < a->size(); ++i) {
            const QCPGraphData& p = *(a->constBegin() + i);
            const QCPGraphData& q = *(b->constBegin() + i);
            QCOMPARE(q.key, p.key);
            QVERIFY(q.value == p.value || (std::isnan(q.value) && std::isnan(p.value)));
        }
        points += a->size();
    }
    QVERIFY(points > 1000);
    // Pixel for pixel.
    qint64 differ = 0;
    for (int y = 0; y < shown.height(); ++y)
        for (int x = 0; x < shown.width(); ++x)
            differ += shown.pixel(x, y) != captured.pixel(x, y);
    QVERIFY2(differ == 0, qPrintable(QStringLiteral("%1 pixels differ").arg(differ)));
}

void TestCapture::captureDrawsTheRecordedLag()
{
    // The issue's case: a-2 over 0–2 s. Its samples (scanned from the recording) have lags
    // from −0.25 to +1.25 ms in every 20 ms after the first 40 ms (the slice is 0.7 ms, the
    // clamp limit is far above): the capture's lag line must span that band, column by
    // column, at several widths and dpi — every sample inside its pixel column's drawn
    // extent.
    const Scenario sc = parsed(kGroups);
    Simulation groups(sc);
    groups.run();
    const Recording& rec = groups.recording();
    const int a2 = 1;
    QCOMPARE(QString::fromStdString(rec.taskNames[a2]), QStringLiteral("a-2"));
    std::vector<std::pair<int64_t, int32_t>> lags; // a-2's samples in [0, 2 s]
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Sample && r.entity.isTask() && r.entity.taskIndex() == a2)
            lags.emplace_back(r.time, r.payload.sample.vlag);
    int32_t lo = 0, hi = 0;
    for (const auto& [t, lag] : lags)
        if (t >= 40'000'000) {
            lo = std::min(lo, lag);
            hi = std::max(hi, lag);
        }
    QCOMPARE(lo, -250'000);
    QCOMPARE(hi, 1'250'000);
    for (const auto& [width, dpi] : {std::pair{1200, 96}, {700, 96}, {700, 300}, {2400, 96}}) {
        CaptureOptions o;
        o.from = Nanoseconds{0};
        o.to = Nanoseconds{2'000'000'000};
        o.size = QSize(width, 700);
        o.dpi = dpi;
        o.fromSimulation(groups);
        o.cgroups = taskCgroups(sc);
        o.moves = taskMoves(sc);
        o.tasks = {a2};
        TimelineView view;
        setUpCaptureView(view, rec, groups.now(), o);
        QString error;
        QVERIFY2(savePlot(view.plot(), dir.filePath(QStringLiteral("lag.png")), o.size, o.dpi,
                     QString(), QString(), &error),
            qPrintable(error));
        QCPGraph* line = graphIn(view.lagRect(), taskColor(a2));
        QVERIFY(line);
        // The drawn line's extent per device pixel column of the capture.
        const int columns = qRound(view.lagRect()->width() * dpi / 96.0);
        std::map<int, std::pair<double, double>> drawn;
        for (auto it = line->data()->constBegin(); it != line->data()->constEnd(); ++it) {
            if (std::isnan(it->value))
                continue;
            const int c = columnOf(msToNs(it->key), o.from, o.to, columns);
            auto [d, added] = drawn.try_emplace(c, it->value, it->value);
            d->second.first = std::min(d->second.first, it->value);
            d->second.second = std::max(d->second.second, it->value);
        }
        int checked = 0;
        for (const auto& [t, lag] : lags) {
            if (t < 40'000'000 || t > o.to.count())
                continue;
            const auto d = drawn.find(columnOf(Nanoseconds{t}, o.from, o.to, columns));
            QVERIFY2(d != drawn.end(), qPrintable(QString::number(t)));
            const double ms = lag / 1e6;
            QVERIFY2(d->second.first <= ms + 1e-9 && ms - 1e-9 <= d->second.second,
                qPrintable(QStringLiteral("%1x%2 dpi: sample %3 ms at %4 ns outside [%5, %6]")
                               .arg(width)
                               .arg(dpi)
                               .arg(ms)
                               .arg(t)
                               .arg(d->second.first)
                               .arg(d->second.second)));
            ++checked;
        }
        QVERIFY(checked > 900);
        // And the band as a whole: −0.25 … +1.25 ms after the start.
        double low = 0, high = 0;
        for (const auto& [c, d] : drawn)
            if (c > columns / 20) {
                low = std::min(low, d.first);
                high = std::max(high, d.second);
            }
        QCOMPARE(low, -0.25);
        QCOMPARE(high, 1.25);
    }
}

/// Tolerant comparison of two renderings of one figure: both cut into blocks of @p block pixels,
/// the share of blocks whose mean colours differ by more than @p tolerance (sum of channels).
double blocksDiffering(const QImage& a, const QImage& b, int block, int tolerance)
{
    const QImage x = a.convertToFormat(QImage::Format_RGB32);
    const QImage y = b.convertToFormat(QImage::Format_RGB32);
    const int w = std::min(x.width(), y.width()), h = std::min(x.height(), y.height());
    int blocks = 0, differ = 0;
    for (int by = 0; by + block <= h; by += block)
        for (int bx = 0; bx + block <= w; bx += block) {
            qint64 sum[2][3] = {};
            for (int yy = by; yy < by + block; ++yy)
                for (int xx = bx; xx < bx + block; ++xx)
                    for (int k = 0; k < 2; ++k) {
                        const QRgb c = (k ? y : x).pixel(xx, yy);
                        sum[k][0] += qRed(c);
                        sum[k][1] += qGreen(c);
                        sum[k][2] += qBlue(c);
                    }
            qint64 d = 0;
            for (int c = 0; c < 3; ++c)
                d += std::abs(sum[0][c] - sum[1][c]);
            ++blocks;
            differ += d / (block * block) > tolerance;
        }
    return blocks ? double(differ) / blocks : 1.0;
}

void TestCapture::vectorFormatsMatchThePng()
{
    // SVG and PDF of the issue's capture hold the PNG's figure: rasterized at the PNG's
    // resolution (QSvgRenderer; pdftoppm from poppler-utils) they match it block by block —
    // the panes' fills where the PNG has them and nowhere else, text of the PNG's size, lines
    // inside their panes — and all three have the physical size size / 96 inches.
    if (QStandardPaths::findExecutable(QStringLiteral("pdftoppm")).isEmpty())
        QSKIP("pdftoppm (Debian poppler-utils, in the Makefile's PACKAGES) is not installed");
    const Scenario sc = parsed(kGroups);
    Simulation groups(sc);
    groups.run();
    for (const int dpi : {96, 300}) {
        CaptureOptions o;
        o.from = Nanoseconds{0};
        o.to = Nanoseconds{2'000'000'000};
        o.size = QSize(700, 400);
        o.dpi = dpi;
        o.title = QStringLiteral("groups-4v1");
        o.fromSimulation(groups);
        o.cgroups = taskCgroups(sc);
        o.moves = taskMoves(sc);
        o.tasks = {1};
        QString error;
        const QString base = dir.filePath(QStringLiteral("v%1").arg(dpi));
        for (const char* suffix : {".png", ".svg", ".pdf"})
            QVERIFY2(captureRecording(
                         groups.recording(), groups.now(), base + QLatin1String(suffix), o, &error),
                qPrintable(error));
        const QImage png(base + QStringLiteral(".png"));
        const QSize pixels(qRound(700 * dpi / 96.0), qRound(400 * dpi / 96.0));
        QCOMPARE(png.size(), pixels);
        // 700 x 400 layout pixels are 7.29 x 4.17 inches: 185.2 x 105.8 mm, 525 x 300 pt.
        QVERIFY(std::abs(png.width() / (png.dotsPerMeterX() / 1000.0) - 185.208) < 0.1);

        QFile svgFile(base + QStringLiteral(".svg"));
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svg = svgFile.readAll();
        QVERIFY2(
            svg.contains("width=\"185.208mm\" height=\"105.833mm\""), svg.left(300).constData());
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QImage svgImage(pixels, QImage::Format_RGB32);
        svgImage.fill(Qt::white);
        {
            QPainter painter(&svgImage);
            renderer.render(&painter);
        }
        if (qEnvironmentVariableIsSet("SCHEDLAB_KEEP_CAPTURES")) { // to look at
            const QString keep = qEnvironmentVariable("SCHEDLAB_KEEP_CAPTURES");
            svgImage.save(keep + QStringLiteral("/v%1-svg.png").arg(dpi));
            png.save(keep + QStringLiteral("/v%1.png").arg(dpi));
        }
        const double svgDiff = blocksDiffering(png, svgImage, dpi / 12, 40);
        // Measured: 96 dpi SVG 3.5 %, PDF 3.1 % (unsmoothed axes and lanes on whole pixels fill
        // one row in the PNG, two half-grey rows in the rasterized vector formats; the entities'
        // lines are smooth and on the same pixel centres in every format); 300 dpi 0.6 % / 0.2 %
        // (lines are 1/96 inch wide in every format). A fill over the whole figure, missing
        // shading, text 3 x too large or hairlines in a 300 dpi PNG differ in well over 5 %.
        qInfo("%d dpi: SVG %.1f %% of blocks differ from the PNG", dpi, svgDiff * 100);
        QVERIFY2(svgDiff < 0.05,
            qPrintable(QStringLiteral("%1 dpi SVG: %2 % of blocks differ from the PNG")
                           .arg(dpi)
                           .arg(svgDiff * 100)));

        QProcess pdftoppm;
        pdftoppm.start(QStringLiteral("pdftoppm"),
            {QStringLiteral("-r"), QString::number(dpi), QStringLiteral("-png"),
                QStringLiteral("-singlefile"), base + QStringLiteral(".pdf"),
                base + QStringLiteral("-pdf")});
        QVERIFY(pdftoppm.waitForFinished(120000));
        QCOMPARE(pdftoppm.exitCode(), 0);
        const QImage pdfImage(base + QStringLiteral("-pdf.png"));
        QCOMPARE(pdfImage.size(), pixels); // 525 x 300 pt at dpi
        if (qEnvironmentVariableIsSet("SCHEDLAB_KEEP_CAPTURES"))
            pdfImage.save(qEnvironmentVariable("SCHEDLAB_KEEP_CAPTURES")
                + QStringLiteral("/v%1-pdf.png").arg(dpi));
        const double pdfDiff = blocksDiffering(png, pdfImage, dpi / 12, 40);
        qInfo("%d dpi: PDF %.1f %% of blocks differ from the PNG", dpi, pdfDiff * 100);
        QVERIFY2(pdfDiff < 0.05,
            qPrintable(QStringLiteral("%1 dpi PDF: %2 % of blocks differ from the PNG")
                           .arg(dpi)
                           .arg(pdfDiff * 100)));
    }
}

void TestCapture::layoutAtAnySize()
{
    // From 480 x 320 up: every pane's value axis title fits its pane's height (so it cannot
    // run into a neighbour's), the tick labels of every axis keep apart (boxes from the font
    // metrics at the ticks' pixel positions), and the task legend holds every plotted task,
    // whole and inside the figure.
    const Scenario sc = parsed(kGroups);
    RunOptions withPelt; // as `capture` runs: the PELT pane is shown too
    withPelt.recordPelt = true;
    Simulation groups(sc, withPelt);
    groups.run();
    for (const QSize size :
        {QSize(1000, 700), QSize(480, 320), QSize(700, 400), QSize(1200, 700), QSize(1600, 1000)}) {
        CaptureOptions o;
        o.from = Nanoseconds{0};
        o.to = Nanoseconds{2'000'000'000};
        o.size = size;
        o.title = QStringLiteral("groups-4v1");
        o.fromSimulation(groups);
        o.cgroups = taskCgroups(sc);
        TimelineView view;
        setUpCaptureView(view, groups.recording(), groups.now(), o);
        QString error;
        QVERIFY2(savePlot(view.plot(), dir.filePath(QStringLiteral("layout.png")), size, 96,
                     QString(), QString(), &error),
            qPrintable(error));
        const QString where = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        for (QCPAxisRect* rect : view.plot()->axisRects()) {
            if (!rect->visible())
                continue;
            QCPAxis* value = rect->axis(QCPAxis::atLeft);
            QVERIFY2(QFontMetrics(value->labelFont()).horizontalAdvance(value->label())
                    <= rect->height(),
                qPrintable(where + QStringLiteral(": title \"%1\"").arg(value->label())));
            for (QCPAxis* axis : {value, rect->axis(QCPAxis::atBottom)}) {
                if (!axis->tickLabels())
                    continue;
                const QFontMetrics metrics(axis->tickLabelFont());
                const QVector<double> ticks = axis->tickVector();
                const QVector<QString> labels = axis->tickVectorLabels();
                QRectF previous;
                for (int i = 0; i < ticks.size(); ++i) {
                    if (!axis->range().contains(ticks[i]))
                        continue;
                    const double at = axis->coordToPixel(ticks[i]);
                    const QSizeF box(metrics.horizontalAdvance(labels[i]), metrics.height());
                    const QRectF r = axis->orientation() == Qt::Vertical
                        ? QRectF(0, at - box.height() / 2, box.width(), box.height())
                        : QRectF(at - box.width() / 2, 0, box.width(), box.height());
                    QVERIFY2(previous.isNull() || !r.intersects(previous),
                        qPrintable(where
                            + QStringLiteral(": tick labels \"%1\" and the one before")
                                  .arg(labels[i])));
                    previous = r;
                }
            }
        }
        QCPLegend* legend = view.plot()->legend;
        QVERIFY(legend->visible());
        QCOMPARE(legend->itemCount(), 5); // a-1 … a-4 and b: all plotted (≤ 8 tasks)
        const QRect figure(QPoint(0, 0), size);
        QVERIFY2(figure.contains(legend->outerRect()), qPrintable(where));
        // Every entry whole, inside the figure, over no pane and no other entry.
        for (int i = 0; i < legend->itemCount(); ++i) {
            const QRect item = legend->item(i)->outerRect();
            QVERIFY2(figure.contains(item), qPrintable(where));
            for (QCPAxisRect* rect : view.plot()->axisRects())
                QVERIFY2(!rect->visible() || !rect->rect().intersects(item),
                    qPrintable(where + QStringLiteral(": legend entry over a pane")));
            for (int j = 0; j < i; ++j)
                QVERIFY2(!legend->item(j)->outerRect().intersects(item),
                    qPrintable(where + QStringLiteral(": legend entries overlap")));
        }
    }
}

QTEST_MAIN(TestCapture)
#include "tst_capture.moc"
