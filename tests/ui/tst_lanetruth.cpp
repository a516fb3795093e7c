// SPDX-License-Identifier: GPL-2.0-or-later
// The CPU lanes tell the truth: every pixel column shows each task that ran in it in proportion
// to its run time (stacked, ±1 px of its exact share, at least one pixel when it ran at all), so
// a task that gets a third of a CPU is a third of the lane at any zoom. The expected shares are
// recomputed here from the recording's switch records, not from the index under test; the
// picture test renders the lanes offscreen and counts pixels of each task's colour.
#include "core/base/prng.h"
#include "core/kernel/variant.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/recordings.h"
#include "ui/common/taskpalette.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/model/entitylines.h"
#include "ui/timeline/model/sampleindex.h"
#include "ui/timeline/model/taskcgroups.h"
#include "ui/timeline/model/timelinelayout.h"
#include "ui/timeline/qcp.h"
#include "ui/timeline/timelineview.h"

#include <QRandomGenerator>
#include <QTest>

#include <map>

using namespace schedlab;
using namespace schedlab::ui;

using schedlab::test::switchRecord;

namespace {

struct Run
{
    int64_t start, end;
    int task;
};

/// Runs per CPU straight from the switch records (idle between), the current one to @p now.
std::vector<std::vector<Run>> runsOf(const Recording& rec, int64_t now)
{
    std::vector<std::vector<Run>> lanes(static_cast<size_t>(rec.cpus));
    std::vector<std::pair<int, int64_t>> current(static_cast<size_t>(rec.cpus), {-1, 0});
    for (const Record& r : rec.records()) {
        if (r.kind != RecordKind::Switch)
            continue;
        auto& [task, since] = current[r.cpu];
        if (task >= 0 && r.time > since)
            lanes[r.cpu].push_back({since, r.time, task});
        task = static_cast<int>(r.payload.generic.a);
        since = r.time;
    }
    for (size_t cpu = 0; cpu < current.size(); ++cpu)
        if (current[cpu].first >= 0 && now > current[cpu].second)
            lanes[cpu].push_back({current[cpu].second, now, current[cpu].first});
    return lanes;
}

/// Run time per task in [from, to), by brute force.
std::map<int, int64_t> sharesIn(const std::vector<Run>& runs, int64_t from, int64_t to)
{
    std::map<int, int64_t> out;
    for (const Run& r : runs) {
        const int64_t s = std::max(r.start, from), e = std::min(r.end, to);
        if (e > s)
            out[r.task] += e - s;
    }
    return out;
}

/// A random lane: runs of 1 ns … 3 ms of tasks 0…@p tasks−1 with idle gaps.
Recording randomLanes(uint64_t seed, int cpus, int tasks, int64_t length)
{
    Prng prng(seed);
    Recording rec;
    rec.cpus = cpus;
    for (int t = 0; t < tasks; ++t)
        rec.taskNames.push_back("t" + std::to_string(t));
    std::vector<Record> all;
    for (int cpu = 0; cpu < cpus; ++cpu) {
        int64_t t = 0;
        while (t < length) {
            const bool idle = prng.below(5) == 0;
            const int64_t len =
                1 + static_cast<int64_t>(prng.below(prng.below(2) ? 3'000'000 : 2000));
            all.push_back(switchRecord(t, cpu, idle ? -1 : static_cast<int>(prng.below(tasks))));
            t += len;
        }
        all.push_back(switchRecord(length, cpu, -1));
    }
    std::stable_sort(
        all.begin(), all.end(), [](const Record& a, const Record& b) { return a.time < b.time; });
    for (const Record& r : all)
        rec.append(r);
    return rec;
}

Recording runScenario(
    const QString& file, Nanoseconds until, const std::vector<std::string>& variant = {})
{
    LoadResult loaded =
        loadScenarioFile((QStringLiteral(SCHEDLAB_SOURCE_DIR "/scenarios/") + file).toStdString());
    if (!loaded.ok())
        qFatal("cannot load %s", qPrintable(file));
    RunOptions options;
    for (const auto& v : variant) {
        std::string error;
        if (!applyVariant(v, options, &error))
            qFatal("variant %s: %s", v.c_str(), error.c_str());
    }
    Simulation sim(*loaded.scenario, options);
    sim.runUntil(until);
    return sim.recording();
}

} // namespace

class TestLaneTruth : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void binSharesAreExact_data();
    void binSharesAreExact();
    void stackWithinOnePixel();
    void oneStackOrderAcrossColumns();
    void vruntimePaneAgainstOwnQueue();
    void vruntimePaneComparesQueues();
    void pictureMatchesData_data();
    void pictureMatchesData();
    void seriesPointsAreSamples();
    void migrationBreaksTheLines();
    void waitingLagFollowsTheQueue();
    void starvingTaskLagIsDrawn();
    void manyCpusStayReadable();
    void noDeadlineSpikesAtMigrations();
};

void TestLaneTruth::binSharesAreExact_data()
{
    QTest::addColumn<quint64>("seed");
    for (quint64 seed = 1; seed <= 12; ++seed)
        QTest::addRow("seed %llu", seed) << seed;
}

void TestLaneTruth::binSharesAreExact()
{
    QFETCH(quint64, seed);
    const int64_t length = 200'000'000;
    const Recording rec = randomLanes(seed, 2, 5, length);
    RunSegmentIndex index;
    index.update(rec);
    const auto lanes = runsOf(rec, length);
    Prng prng(seed * 7 + 1);
    for (int round = 0; round < 6; ++round) {
        const auto from = static_cast<int64_t>(prng.below(length / 2));
        const int64_t to = from + 1 + static_cast<int64_t>(prng.below(length / 2));
        const int bins = 1 + static_cast<int>(prng.below(round % 2 ? 50 : 2000));
        for (int cpu = 0; cpu < 2; ++cpu) {
            const auto got =
                index.binShares(cpu, Nanoseconds{from}, Nanoseconds{to}, Nanoseconds{length}, bins);
            size_t next = 0;
            for (int b = 0; b < bins; ++b) {
                const int64_t b0 = from + (to - from) * b / bins;
                const int64_t b1 = from + (to - from) * (b + 1) / bins;
                const auto want = sharesIn(lanes[static_cast<size_t>(cpu)], b0, b1);
                if (want.empty())
                    continue;
                QVERIFY2(next < got.size(), "a bin where tasks ran is missing");
                const LaneBin& bin = got[next++];
                QCOMPARE(bin.start.count(), b0);
                QCOMPARE(bin.end.count(), b1);
                QCOMPARE(bin.tasks.size(), want.size());
                size_t k = 0;
                for (const auto& [task, busy] : want) { // std::map: task order
                    QCOMPARE(bin.tasks[k].first, task);
                    QCOMPARE(bin.tasks[k].second, busy);
                    ++k;
                }
            }
            QCOMPARE(next, got.size()); // no bin where nothing ran
        }
    }
}

void TestLaneTruth::stackWithinOnePixel()
{
    // One bin of 1000 ns, 30 px tall: 340 ns (10.2 px), 5 ns (0.15 px: one row anyway), 600 ns
    // (18 px); 55 ns idle on top.
    const LaneBin bin{Nanoseconds{0}, Nanoseconds{1000}, {{0, 340}, {1, 5}, {2, 600}}};
    const auto columns = stackBins({bin}, 30, Nanoseconds{0}, Nanoseconds{1000}, 1);
    QCOMPARE(columns.size(), size_t{1});
    const auto& p = columns[0].pieces;
    QCOMPARE(p.size(), size_t{3});
    // Running sums 340, 345, 945 ns of 1000 → rows 10.2, 10.35, 28.35 → 10, (10 → 11: one row
    // at least), 28.
    QCOMPARE(p[0], (StackPiece{0, 0, 10}));
    QCOMPARE(p[1], (StackPiece{1, 10, 11}));
    QCOMPARE(p[2], (StackPiece{2, 11, 28}));
    // Two rows of idle on top (28, 29) where 1.65 rows of idle time are.

    // Group order: stacked by key, stable.
    const auto byKey = stackBins({bin}, 30, Nanoseconds{0}, Nanoseconds{1000}, 1,
        [](int task, Nanoseconds) { return task == 2 ? 0 : 1; });
    QCOMPARE(byKey[0].pieces[0].task, 2);
    QCOMPARE(byKey[0].pieces[1].task, 0);
    QCOMPARE(byKey[0].pieces[2].task, 1);
}

void TestLaneTruth::oneStackOrderAcrossColumns()
{
    // Task 0 moves from group 1 to group 0 at 500 ns; task 1 stays in group 0. A key read per
    // bin would stack 1 under 0 in the first column and 0 under 1 (a tie, task order) in the
    // second: one window, one order — by the key at each task's first bin: 1 (key 0), 0 (key 1).
    const auto group = [](int task, Nanoseconds at) {
        return task == 0 && at < Nanoseconds{500} ? 1 : 0;
    };
    const std::vector<LaneBin> moved{{Nanoseconds{0}, Nanoseconds{500}, {{0, 200}, {1, 200}}},
        {Nanoseconds{500}, Nanoseconds{1000}, {{0, 200}, {1, 200}}}};
    const auto two = stackBins(moved, 20, Nanoseconds{0}, Nanoseconds{1000}, 2, group);
    QCOMPARE(two.size(), size_t{2});
    for (const StackColumn& c : two) {
        QCOMPARE(c.pieces.size(), size_t{2});
        QCOMPARE(c.pieces[0].task, 1);
        QCOMPARE(c.pieces[1].task, 0);
    }
    // Without a key: by first appearance. Task 3 appears before task 1.
    const std::vector<LaneBin> late{{Nanoseconds{0}, Nanoseconds{500}, {{3, 100}}},
        {Nanoseconds{500}, Nanoseconds{1000}, {{1, 100}, {3, 100}}}};
    const auto byFirst = stackBins(late, 20, Nanoseconds{0}, Nanoseconds{1000}, 2);
    QCOMPARE(byFirst[1].pieces[0].task, 3);
    QCOMPARE(byFirst[1].pieces[1].task, 1);

    // Random bins (tasks entering and leaving, keys changing with time, like cgroup moves): any
    // two tasks present in two columns are stacked in the same order in both, and every piece
    // keeps its rows from its own share (within a pixel of the running sum).
    QRandomGenerator rng(7);
    for (int round = 0; round < 50; ++round) {
        std::vector<LaneBin> bins;
        const int columns = 40;
        for (int b = 0; b < columns; ++b) {
            LaneBin bin{Nanoseconds{b * 1000}, Nanoseconds{(b + 1) * 1000}, {}};
            int64_t left = 1000;
            // At least 100 ns (6 rows) each: no piece needs the one-row minimum.
            for (int task = 0; task < 6 && left >= 100; ++task) {
                if (rng.bounded(2) == 0)
                    continue;
                const int64_t busy = 100 + rng.bounded(static_cast<int>(left) - 99);
                bin.tasks.emplace_back(task, busy);
                left -= busy;
            }
            if (!bin.tasks.empty())
                bins.push_back(bin);
        }
        const auto key = [](int task, Nanoseconds at) {
            return (task * 7 + static_cast<int>(at.count() / 3000)) % 3;
        };
        const auto stacked =
            stackBins(bins, 60, Nanoseconds{0}, Nanoseconds{columns * 1000}, columns, key);
        QCOMPARE(stacked.size(), bins.size());
        std::map<std::pair<int, int>, bool> below; // (a, b) -> a under b where both seen
        for (const StackColumn& c : stacked) {
            for (size_t i = 0; i < c.pieces.size(); ++i)
                for (size_t j = i + 1; j < c.pieces.size(); ++j) {
                    const int a = c.pieces[i].task;
                    const int b = c.pieces[j].task;
                    QVERIFY(c.pieces[i].top <= c.pieces[j].bottom);
                    const auto seen = below.find({b, a});
                    QVERIFY2(seen == below.end(), "two tasks swapped places between columns");
                    below[{a, b}] = true;
                }
        }
        for (size_t k = 0; k < bins.size(); ++k) {
            // Each piece within a pixel of its exact share.
            for (const StackPiece& p : stacked[k].pieces) {
                int64_t busy = 0;
                for (const auto& [task, ns] : bins[k].tasks)
                    if (task == p.task)
                        busy = ns;
                const double rows = static_cast<double>(busy) * 60 / 1000;
                QVERIFY2(std::abs((p.top - p.bottom) - rows) <= 1.0 + 1e-9,
                    qPrintable(
                        QStringLiteral("piece %1 rows, share %2").arg(p.top - p.bottom).arg(rows)));
            }
        }
    }
}

void TestLaneTruth::vruntimePaneAgainstOwnQueue()
{
    // By hand: v − V and deadline − V of each queued sample; nothing while dequeued; a break
    // after a dequeued stretch and at a migration; wrap-safe.
    const auto sample = [](int64_t t, uint64_t v, uint64_t d, uint64_t avg, bool queued,
                            uint16_t cpu) {
        EntitySample s;
        s.time = Nanoseconds{t};
        s.vruntime = v;
        s.deadline = d;
        s.avgVruntime = avg;
        s.flags = queued ? Record::kQueued : 0;
        s.cpu = cpu;
        return s;
    };
    const std::vector<EntitySample> samples{sample(10, 1000, 4000, 400, true, 0),
        sample(20, 1500, 4000, 900, false, 0), sample(30, 2000, 5000, 2500, true, 0),
        sample(40, 100, 300, 50, true, 1), sample(50, 5, 105, ~uint64_t{0} - 4, true, 1)};
    const QueueRelativeLines lines = relativeToQueue(samples);
    const std::vector<LinePoint> v{{Nanoseconds{10}, 600, false}, {Nanoseconds{30}, -500, true},
        {Nanoseconds{40}, 50, true}, {Nanoseconds{50}, 10, false}};
    const std::vector<LinePoint> d{{Nanoseconds{10}, 3600, false}, {Nanoseconds{30}, 2500, true},
        {Nanoseconds{40}, 250, true}, {Nanoseconds{50}, 110, false}};
    QCOMPARE(lines.vruntime, v);
    QCOMPARE(lines.deadline, d);
}

void TestLaneTruth::vruntimePaneComparesQueues()
{
    // The seed scenario on 6.13: root-spin on the root cfs_rq, test-spin on /testgroup's. Their
    // raw vruntimes are in unrelated frames (seconds apart); the pane's v − V of the own cfs_rq
    // puts both within their lag clamp of 0, and each drawn point is one recorded sample's
    // vruntime − avg_vruntime.
    LoadResult loaded =
        loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/cgroup-weight-starvation.json");
    QVERIFY(loaded.ok());
    RunOptions options;
    options.profile = "6.13";
    Simulation sim(*loaded.scenario, options);
    sim.runUntil(Nanoseconds{2'000'000'000});
    const Recording& rec = sim.recording();
    const auto indexOf = [&](const char* name) {
        return static_cast<int>(
            std::find(rec.taskNames.begin(), rec.taskNames.end(), name) - rec.taskNames.begin());
    };
    const int root = indexOf("root-spin");
    const int test = indexOf("test-spin");
    QVERIFY(root < static_cast<int>(rec.taskNames.size()));
    QVERIFY(test < static_cast<int>(rec.taskNames.size()));
    // The last queued sample of each: raw vruntimes more than a second apart.
    const Record* last[2] = {nullptr, nullptr};
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Sample && r.entity.isTask() && (r.flags & Record::kQueued))
            for (int k = 0; k < 2; ++k)
                if (r.entity.taskIndex() == (k == 0 ? root : test))
                    last[k] = &r;
    QVERIFY(last[0] && last[1]);
    const auto raw =
        static_cast<int64_t>(last[1]->payload.sample.vruntime - last[0]->payload.sample.vruntime);
    QVERIFY2(std::abs(raw) > 1'000'000'000, qPrintable(QString::number(raw)));

    SampleIndex index;
    index.update(rec);
    for (int k = 0; k < 2; ++k) {
        const int task = k == 0 ? root : test;
        const auto series = index.series(rec, task, Nanoseconds{0}, Nanoseconds{2'000'000'000});
        const QueueRelativeLines lines = relativeToQueue(series);
        QVERIFY(!lines.vruntime.empty());
        for (const LinePoint& p : lines.vruntime)
            // Within 50 ms of its queue's V (the lag clamp of a nice-0 task is a few ms).
            QVERIFY2(std::abs(p.value) < 50'000'000, qPrintable(QString::number(p.value)));
        // The last queued sample, by hand from the record's fields.
        const Record& r = *last[k];
        const int64_t want = static_cast<int64_t>(r.payload.sample.vruntime)
            - static_cast<int64_t>(r.payload.sample.avgVruntime);
        QCOMPARE(lines.vruntime.back().time, Nanoseconds{r.time});
        QCOMPARE(lines.vruntime.back().value, want);
    }
}

void TestLaneTruth::pictureMatchesData_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("to");
    QTest::addColumn<int>("width");
    QTest::addRow("random, whole")
        << QStringLiteral("random") << qint64(0) << qint64(200'000'000) << 900;
    QTest::addRow("random, zoomed")
        << QStringLiteral("random") << qint64(3'000'000) << qint64(9'000'000) << 700;
    QTest::addRow("two-groups-1cpu, whole")
        << QStringLiteral("two-groups-1cpu.json") << qint64(0) << qint64(20'000'000'000) << 1000;
    QTest::addRow("two-groups-4cpu, whole")
        << QStringLiteral("two-groups-4cpu.json") << qint64(0) << qint64(10'000'000'000) << 800;
}

void TestLaneTruth::pictureMatchesData()
{
    QFETCH(QString, source);
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(int, width);
    const Recording rec = source == QLatin1String("random") ? randomLanes(99, 3, 6, 200'000'000)
                                                            : runScenario(source, Nanoseconds{to});
    const int64_t now = to;
    RunSegmentIndex index;
    index.update(rec);
    const auto lanes = runsOf(rec, now);

    const int height = 60 * rec.cpus + 60;
    QCustomPlot plot;
    plot.setViewport(QRect(0, 0, width, height));
    auto* lanesPlot = new CpuLanesPlottable(plot.xAxis, plot.yAxis);
    lanesPlot->setSource(&index, &rec, rec.cpus);
    lanesPlot->setNow(Nanoseconds{now});
    plot.xAxis->setRange(nsToMs(Nanoseconds{from}), nsToMs(Nanoseconds{to}));
    plot.yAxis->setRange(-0.5, rec.cpus - 0.5);
    plot.yAxis->setRangeReversed(true);
    for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) { // no tick marks over the lanes
        axis->setTickLengthIn(0);
        axis->setSubTickLengthIn(0);
    }
    const QImage image =
        plot.toPixmap(width, height).toImage().convertToFormat(QImage::Format_RGB32);
    if (qEnvironmentVariableIsSet("SCHEDLAB_KEEP_PICTURES"))
        image.save(QString::fromLatin1(QTest::currentDataTag())
                       .replace(QLatin1Char(' '), QLatin1Char('_'))
                       .replace(QLatin1Char(','), QLatin1Char('_'))
            + QStringLiteral(".png"));

    const QColor base = plot.palette().color(QPalette::Base);
    const QRgb laneBack = (base.lightnessF() > 0.5 ? base.darker(106) : base.lighter(140)).rgb();
    const TimelineLayout lay = lanesPlot->layout();
    const int x0 = static_cast<int>(std::lround(lay.left()));
    const int bins = static_cast<int>(std::lround(lay.right())) - x0;
    QVERIFY(bins > 100);
    int checkedPieces = 0;
    for (int cpu = 0; cpu < rec.cpus; ++cpu) {
        const double ya = plot.yAxis->coordToPixel(cpu - CpuLanesPlottable::kLaneHalfHeight);
        const double yb = plot.yAxis->coordToPixel(cpu + CpuLanesPlottable::kLaneHalfHeight);
        const int top = static_cast<int>(std::lround(std::min(ya, yb)));
        const int laneHeight = static_cast<int>(std::lround(std::abs(yb - ya)));
        // Column 0 is under the value axis' line (drawn over the plottables).
        for (int b = 1; b < bins; ++b) {
            const int64_t b0 = from + (to - from) * b / bins;
            const int64_t b1 = from + (to - from) * (b + 1) / bins;
            const auto want = sharesIn(lanes[static_cast<size_t>(cpu)], b0, b1);
            // Pixels of each colour in the column, against the exact share of the tasks of
            // that colour.
            std::map<QRgb, int> pixels;
            int ink = 0;
            for (int y = top; y < top + laneHeight; ++y) {
                const QRgb c = image.pixel(x0 + b, y);
                ++pixels[c];
                ink += c != laneBack;
            }
            if (want.size() == 1) {
                // One task: everything that is not background is its (a wide run has an edge
                // and a name in other colours).
                const double rows = static_cast<double>(want.begin()->second)
                    / static_cast<double>(b1 - b0) * laneHeight;
                QVERIFY2(ink >= 1 && std::abs(ink - rows) <= 1.0,
                    qPrintable(QStringLiteral("cpu %1 column %2: %3 px drawn for %4 px of run time")
                                   .arg(cpu)
                                   .arg(b)
                                   .arg(ink)
                                   .arg(rows)));
                ++checkedPieces;
                continue;
            }
            if (want.empty()) {
                QCOMPARE(ink, 0);
                continue;
            }
            // A task with less than a row of run time still gets one, taken from its
            // neighbours: each such task may shift the others by a row.
            std::map<QRgb, std::pair<double, int>> expected; // rows, tasks
            int forced = 0;
            for (const auto& [task, busy] : want) {
                auto& e = expected[taskColor(task).rgb()];
                const double rows =
                    static_cast<double>(busy) / static_cast<double>(b1 - b0) * laneHeight;
                e.first += rows;
                ++e.second;
                forced += rows < 1.0;
            }
            for (const auto& [colour, rows] : expected) {
                const int drawn = pixels.count(colour) ? pixels[colour] : 0;
                QVERIFY2(drawn >= rows.second,
                    qPrintable(QStringLiteral("cpu %1 column %2: a task that ran is not drawn")
                                   .arg(cpu)
                                   .arg(b)));
                QVERIFY2(std::abs(drawn - rows.first) <= rows.second + forced,
                    qPrintable(QStringLiteral("cpu %1 column %2: %3 px drawn for %4 px of run time")
                                   .arg(cpu)
                                   .arg(b)
                                   .arg(drawn)
                                   .arg(rows.first)));
                ++checkedPieces;
            }
        }
    }
    QVERIFY(checkedPieces > bins);
}

// Every point the vruntime, deadline and lag panes draw is a real sample's value at its time,
// or, where the entity did not run between two consecutive samples, the earlier one's value held
// to the later one's time; whatever the number of bins (the pane's width).
void TestLaneTruth::seriesPointsAreSamples()
{
    const Recording rec =
        runScenario(QStringLiteral("two-groups-1cpu.json"), Nanoseconds{20'000'000'000});
    SampleIndex index;
    index.update(rec);
    const int task = static_cast<int>(
        std::find(rec.taskNames.begin(), rec.taskNames.end(), "hog-b") - rec.taskNames.begin());
    QVERIFY(task < static_cast<int>(rec.taskNames.size()));
    std::vector<const Record*> all; // the task's samples, in time order
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Sample && r.entity == EntityRef::task(task))
            all.push_back(&r);
    QVERIFY(all.size() > 5000);
    const uint64_t reference = all.front()->payload.sample.vruntime;
    for (const int bins : {40, 333, 1000}) {
        for (const auto& [from, to] :
            {std::pair<int64_t, int64_t>{0, 20'000'000'000}, {1'000'000'000, 1'300'000'000}}) {
            const auto series =
                index.decimatedSeries(rec, task, Nanoseconds{from}, Nanoseconds{to}, bins);
            const EntityLines lines = entityLines(series, reference, Nanoseconds{to});
            const auto check = [&](const std::vector<LinePoint>& line, auto value,
                                   const char* what) {
                size_t k = 0;
                for (const LinePoint& p : line) {
                    if (p.time.count() == to && &p == &line.back())
                        continue; // held to the window's end
                    while (k < all.size() && all[k]->time < p.time.count())
                        ++k;
                    bool ok = false;
                    // Any sample at this time (several at one instant), or the one before them.
                    for (size_t j = k; j < all.size() && all[j]->time == p.time.count(); ++j)
                        ok = ok || value(*all[j]) == p.value;
                    ok = ok || (k > 0 && value(*all[k - 1]) == p.value);
                    QVERIFY2(ok,
                        qPrintable(QStringLiteral("%1, %2 bins: %3 at %4 ns is no sample's")
                                       .arg(QLatin1String(what))
                                       .arg(bins)
                                       .arg(p.value)
                                       .arg(p.time.count())));
                }
            };
            check(
                lines.vruntime,
                [&](const Record& r) {
                    return static_cast<int64_t>(r.payload.sample.vruntime - reference);
                },
                "vruntime");
            check(
                lines.deadline,
                [&](const Record& r) {
                    return static_cast<int64_t>(r.payload.sample.deadline - reference);
                },
                "deadline");
            check(
                lines.lag, [](const Record& r) { return int64_t{r.payload.sample.vlag}; }, "lag");
        }
    }
}

void TestLaneTruth::migrationBreaksTheLines()
{
    // A task runs on CPU 0 (vruntime 0 → 10), migrates (dequeued at 20, enqueued on CPU 1 at
    // 30 with another queue's vruntime 500) and runs there: the vruntime, deadline and V lines
    // break at 30 (no step or slope from one queue's frame to the other), lag does not.
    constexpr uint8_t curr = Record::kCurr | Record::kQueued;
    const auto at = [](int64_t t, uint64_t v, uint16_t cpu, uint8_t flags) {
        EntitySample s{Nanoseconds{t}, v, v + 100, v, flags, 0, 1024};
        s.cpu = cpu;
        return s;
    };
    const std::vector<EntitySample> samples{at(0, 0, 0, curr), at(10, 10, 0, curr),
        at(20, 10, 0, 0), at(30, 500, 1, curr), at(40, 510, 1, curr)};
    const EntityLines lines = entityLines(samples, 0, Nanoseconds{40});
    const auto breaks = [](const std::vector<LinePoint>& line) {
        QStringList out;
        for (const LinePoint& p : line)
            out << QStringLiteral("%1%2:%3")
                       .arg(p.breakBefore ? "|" : "")
                       .arg(p.time.count())
                       .arg(p.value);
        return out.join(QLatin1Char(' '));
    };
    // Held from the dequeue at 20 up to … nothing: the hold would draw the old frame's value
    // at the new queue's time. The deadline of the dequeued sample at 20 is not drawn (it may be
    // relative, PLACE_REL_DEADLINE).
    QCOMPARE(breaks(lines.vruntime), QStringLiteral("0:0 10:10 20:10 |30:500 40:510"));
    QCOMPARE(breaks(lines.deadline), QStringLiteral("0:100 10:110 |30:600 40:610"));
    QCOMPARE(breaks(lines.avg), QStringLiteral("0:0 10:10 20:10 |30:500 40:510"));
    QVERIFY(!breaks(lines.lag).contains(QLatin1Char('|')));
    // A cgroup move on the same CPU is another cfs_rq too.
    std::vector<EntitySample> moved{at(0, 0, 0, curr), at(10, 10, 0, curr), at(20, 300, 0, curr)};
    moved[0].group = moved[1].group = 1;
    moved[2].group = 2;
    QCOMPARE(breaks(entityLines(moved, 0, Nanoseconds{20}).vruntime),
        QStringLiteral("0:0 10:10 |20:300"));
}

void TestLaneTruth::waitingLagFollowsTheQueue()
{
    // A task waits from 0 (v = 100, V = 100) to its pick at 50: its queue's V is 120 at 10, 150
    // at 30; after a run it waits again from 60 (v = 160, V = 170) with no sample of its own up
    // to the present at 100, while V is 200 at 80.
    constexpr uint8_t queued = Record::kQueued, curr = Record::kCurr | Record::kQueued;
    const auto at = [](int64_t t, uint64_t v, uint64_t avg, uint8_t flags) {
        return EntitySample{
            Nanoseconds{t}, v, v + 1000, avg, flags, static_cast<int32_t>(avg - v), 1024};
    };
    const std::vector<EntitySample> samples{
        at(0, 100, 100, queued), at(50, 100, 160, curr), at(60, 160, 170, queued)};
    const std::vector<std::pair<Nanoseconds, uint64_t>> queue{
        {Nanoseconds{10}, 120}, {Nanoseconds{30}, 150}, {Nanoseconds{80}, 200}};
    const QueueV queueV = [&](const EntitySample& w, Nanoseconds end) {
        std::vector<std::pair<Nanoseconds, uint64_t>> out;
        for (const auto& p : queue)
            if (p.first > w.time && p.first <= end)
                out.push_back(p);
        return out;
    };
    const EntityLines lines = entityLines(samples, 0, Nanoseconds{100}, queueV);
    QStringList lag;
    for (const LinePoint& p : lines.lag)
        lag << QStringLiteral("%1:%2").arg(p.time.count()).arg(p.value);
    // V − v at every V the queue reports while the task waits: 20, 50 (v = 100), then 40 at 80
    // (v = 160); the picked and placed samples themselves in between.
    QCOMPARE(lag.join(QLatin1Char(' ')), QStringLiteral("0:0 10:20 30:50 50:60 60:10 80:40"));
    // Without the queue: straight joins, nothing past the last sample.
    QCOMPARE(entityLines(samples, 0, Nanoseconds{100}).lag.size(), size_t{3});
}

void TestLaneTruth::starvingTaskLagIsDrawn()
{
    // cgroup-weight-starvation under 6.13: root-spin waits on CPU 3 from about 4.8 s to 10.1 s
    // (a starvation episode) and has no sample of its own in it; its lag is drawn from the V that
    // /testgroup@3's samples report on the root cfs_rq, each point V − v of a real sample.
    LoadResult loaded =
        loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/cgroup-weight-starvation.json");
    QVERIFY(loaded.ok());
    RunOptions options;
    options.profile = "6.13";
    Simulation sim(*loaded.scenario, options);
    sim.runUntil(Nanoseconds{10'000'000'000});
    const Recording& rec = sim.recording();
    SampleIndex index;
    index.update(rec);
    const int task = static_cast<int>(
        std::find(rec.taskNames.begin(), rec.taskNames.end(), "root-spin") - rec.taskNames.begin());
    const auto cgroups = taskCgroups(*loaded.scenario);
    QCOMPARE(cgroups(rec, task, Nanoseconds{0}), 0); // the root
    const auto series = index.series(rec, task, Nanoseconds{0}, Nanoseconds{10'000'000'000});
    QVERIFY(!series.empty());
    const EntitySample last = series.back();
    QVERIFY(last.time < Nanoseconds{5'000'000'000}); // it starves: no samples later
    QVERIFY((last.flags & Record::kQueued) && !(last.flags & Record::kCurr));
    const QueueV queueV = [&](const EntitySample& w, Nanoseconds end) {
        return index.queueV(rec, w.cpu, w.time, end, 100, [&](const Record& r) {
            return r.cpu == w.cpu && r.entity.isGroup()
                && parentGroup(rec, r.entity.groupIndex()) == 0;
        });
    };
    const EntityLines lines = entityLines(series, 0, Nanoseconds{10'000'000'000}, queueV);
    std::vector<LinePoint> after;
    for (const LinePoint& p : lines.lag)
        if (p.time > last.time)
            after.push_back(p);
    QVERIFY2(after.size() > 50, qPrintable(QString::number(after.size())));
    QVERIFY(after.back().time > Nanoseconds{9'900'000'000});
    // Each is V − v for a real sample of /testgroup@3 at that time.
    for (const LinePoint& p : after) {
        bool found = false;
        for (const Record& r : rec.records())
            if (r.time == p.time.count() && r.kind == RecordKind::Sample && r.entity.isGroup()
                && r.cpu == last.cpu
                && static_cast<int64_t>(r.payload.sample.avgVruntime - last.vruntime) == p.value)
                found = true;
        QVERIFY2(found, qPrintable(QString::number(p.time.count())));
    }
}

void TestLaneTruth::manyCpusStayReadable()
{
    // A timeline as high as one of Compare's (1200 × 480) showing 16 CPUs: at least 12 px a lane.
    const Recording rec = randomLanes(5, 16, 20, 50'000'000);
    TimelineView view;
    view.resize(1200, 480);
    view.setRecording(&rec, Nanoseconds{50'000'000});
    view.setNow(Nanoseconds{50'000'000});
    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QImage image = view.plot()->toPixmap(1200, 480).toImage();
    QCPAxisRect* lanes = view.plot()->axisRect(0);
    QVERIFY2(lanes->height() >= 12 * 16,
        qPrintable(QStringLiteral("%1 px for 16 lanes").arg(lanes->height())));
    QVERIFY(!image.isNull());
}

// The GUI's default scenario with hog-1 dragged into /web at 300 ms (docs/sandbox-drag.png) and
// then moved between the CPUs by taskset: its migrations dequeue it with a deadline relative to its
// vruntime (PLACE_REL_DEADLINE, about 1.4 ms); the deadline line must not drop there (it used to
// fall to ~0 on screen).
void TestLaneTruth::noDeadlineSpikesAtMigrations()
{
    LoadResult loaded = loadScenarioFile(SCHEDLAB_SOURCE_DIR "/resources/default.json");
    QVERIFY(loaded.ok());
    Scenario s = *loaded.scenario;
    Action move;
    move.kind = Action::Kind::Move;
    move.at = Nanoseconds{300'000'000};
    move.task = "hog-1";
    move.cgroup = "/web";
    s.actions.push_back(move);
    // Migrations after the move: taskset flips hog-1 between the two CPUs (the load balancer
    // alone need not move it; kernel-model.md §8.1: a moved task keeps a relative deadline).
    for (int i = 0; i < 4; ++i) {
        Action pin;
        pin.kind = Action::Kind::Set;
        pin.at = Nanoseconds{350'000'000 + 50'000'000 * i};
        pin.set.task = "hog-1";
        pin.set.cpus = i % 2 ? "0" : "1";
        s.actions.push_back(pin);
    }
    Simulation sim(s);
    sim.runUntil(Nanoseconds{600'000'000});
    const Recording& rec = sim.recording();
    SampleIndex index;
    index.update(rec);
    const int task = static_cast<int>(
        std::find(rec.taskNames.begin(), rec.taskNames.end(), "hog-1") - rec.taskNames.begin());
    const auto series = index.series(rec, task, Nanoseconds{200'000'000}, Nanoseconds{600'000'000});
    // The situation exists: dequeued samples whose deadline is relative (far below the
    // vruntime); none of those values is drawn.
    const uint64_t reference = series.front().vruntime;
    std::vector<LinePoint> relative;
    for (const EntitySample& e : series)
        if (!(e.flags & Record::kQueued)
            && static_cast<int64_t>(e.vruntime - e.deadline) > 100'000'000)
            relative.push_back({e.time, static_cast<int64_t>(e.deadline - reference)});
    QVERIFY(!relative.empty());
    const EntityLines lines = entityLines(series, reference, Nanoseconds{600'000'000});
    for (const LinePoint& d : lines.deadline)
        for (const LinePoint& r : relative)
            QVERIFY2(d.value != r.value,
                qPrintable(QStringLiteral("a relative deadline drawn at %1 ms")
                               .arg(d.time.count() / 1e6)));
}

QTEST_MAIN(TestLaneTruth)
#include "tst_lanetruth.moc"
