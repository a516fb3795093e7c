// SPDX-License-Identifier: GPL-2.0-or-later
// Timeline math: time ↔ x mapping, run segments per CPU lane from switch records (clipping,
// idle, open segments), level of detail, incremental updates, and per-task sample series.
#include "core/record/recording.h"
#include "ui/timeline/model/sampleindex.h"
#include "ui/timeline/model/timelinelayout.h"

#include <QTest>

#include <atomic>
#include <cstdlib>
#include <new>

// Heap allocations through operator new in this test binary (the counting is the test's own: it
// replaces the global operator new of this executable only).
namespace {
std::atomic<uint64_t> g_allocations{0};
}

void* operator new(std::size_t size)
{
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

using schedlab::EntityRef;
using schedlab::Nanoseconds;
using schedlab::Record;
using schedlab::Recording;
using schedlab::RecordKind;
using schedlab::ui::RunSegment;
using schedlab::ui::RunSegmentIndex;
using schedlab::ui::SampleIndex;
using schedlab::ui::TimelineLayout;

namespace {

Record switchRecord(int64_t time, int cpu, int prev, int next)
{
    Record r;
    r.time = time;
    r.cpu = static_cast<uint16_t>(cpu);
    r.kind = RecordKind::Switch;
    r.entity = prev >= 0 ? EntityRef::task(prev) : EntityRef{};
    r.payload.generic.a = next;
    return r;
}

/// "time:cpu:next ..." (next -1 = idle); prev is tracked here so the records look real.
Recording switches(const QString& text, int cpus = 2)
{
    Recording rec;
    rec.cpus = cpus;
    std::vector<int> current(static_cast<size_t>(cpus), -1);
    const QStringList items = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString& item : items) {
        const QStringList f = item.split(QLatin1Char(':'));
        const int cpu = f[1].toInt();
        const int next = f[2].toInt();
        rec.append(switchRecord(f[0].toLongLong(), cpu, current[static_cast<size_t>(cpu)], next));
        current[static_cast<size_t>(cpu)] = next;
        // Unrelated records in between must be ignored.
        Record wake;
        wake.time = f[0].toLongLong();
        wake.kind = RecordKind::Wakeup;
        wake.entity = EntityRef::task(next >= 0 ? next : 0);
        wake.payload.generic.a = 7;
        rec.append(wake);
    }
    return rec;
}

/// "task@start-end ..."
QString format(const std::vector<RunSegment>& segments)
{
    QStringList out;
    for (const RunSegment& s : segments) {
        QString item =
            QStringLiteral("%1@%2-%3").arg(s.task).arg(s.start.count()).arg(s.end.count());
        if (s.busy < 1.0) // percentage of the bin that was busy
            item += QLatin1Char('~') + QString::number(qRound(s.busy * 100));
        out << item;
    }
    return out.join(QLatin1Char(' '));
}

std::vector<RunSegment> parseSegments(const QString& text)
{
    std::vector<RunSegment> out;
    for (const QString& item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QStringList a = item.split(QLatin1Char('@'));
        const QStringList b = a[1].split(QLatin1Char('-'));
        out.push_back(
            {0, a[0].toInt(), Nanoseconds{b[0].toLongLong()}, Nanoseconds{b[1].toLongLong()}});
    }
    return out;
}

Record sample(int64_t time, int task, uint64_t vruntime)
{
    Record r;
    r.time = time;
    r.kind = RecordKind::Sample;
    r.entity = EntityRef::task(task);
    r.payload.sample.vruntime = vruntime;
    r.payload.sample.deadline = vruntime + 3000000;
    r.payload.sample.avgVruntime = vruntime / 2;
    return r;
}

} // namespace

class TestTimelineLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void mapping_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<double>("left");
        QTest::addColumn<double>("right");
        QTest::addColumn<qint64>("time");
        QTest::addColumn<double>("x");

        QTest::addRow("start maps to left") << 0LL << 1000LL << 10.0 << 110.0 << 0LL << 10.0;
        QTest::addRow("end maps to right") << 0LL << 1000LL << 10.0 << 110.0 << 1000LL << 110.0;
        QTest::addRow("middle") << 0LL << 1000LL << 10.0 << 110.0 << 500LL << 60.0;
        QTest::addRow("offset window")
            << 2000000LL << 3000000LL << 0.0 << 1000.0 << 2500000LL << 500.0;
        QTest::addRow("before the window is left of it")
            << 1000LL << 2000LL << 0.0 << 100.0 << 500LL << -50.0;
        QTest::addRow("after the window is right of it")
            << 1000LL << 2000LL << 0.0 << 100.0 << 3000LL << 200.0;
        QTest::addRow("60 s run on 1200 px")
            << 0LL << 60000000000LL << 100.0 << 1300.0 << 30000000000LL << 700.0;
        QTest::addRow("empty window does not divide by zero")
            << 5LL << 5LL << 0.0 << 100.0 << 5LL << 0.0;
    }

    void mapping()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(double, left);
        QFETCH(double, right);
        QFETCH(qint64, time);
        QFETCH(double, x);

        const TimelineLayout layout(Nanoseconds{start}, Nanoseconds{end}, left, right);
        QCOMPARE(layout.mapTimeToX(Nanoseconds{time}), x);
        QCOMPARE(layout.mapXToTime(x).count(), time);
    }

    void segments_data()
    {
        QTest::addColumn<QString>("records");
        QTest::addColumn<int>("cpu");
        QTest::addColumn<qint64>("from");
        QTest::addColumn<qint64>("to");
        QTest::addColumn<qint64>("now");
        QTest::addColumn<QString>("expected");

        const QString twoCpus = QStringLiteral("0:0:0 0:1:1 10:0:2 25:0:-1 30:1:-1 40:0:0 45:1:3");
        QTest::addRow("whole run of cpu0, open segment runs to now")
            << twoCpus << 0 << 0LL << 100LL << 50LL << QStringLiteral("0@0-10 2@10-25 0@40-50");
        QTest::addRow("cpu1") << twoCpus << 1 << 0LL << 100LL << 60LL
                              << QStringLiteral("1@0-30 3@45-60");
        QTest::addRow("clipped on both sides")
            << twoCpus << 0 << 5LL << 42LL << 50LL << QStringLiteral("0@5-10 2@10-25 0@40-42");
        QTest::addRow("window inside idle time is empty")
            << twoCpus << 0 << 26LL << 39LL << 50LL << QString();
        QTest::addRow("window ending on a boundary excludes the next run")
            << twoCpus << 0 << 0LL << 10LL << 50LL << QStringLiteral("0@0-10");
        QTest::addRow("window starting on a boundary excludes the previous run")
            << twoCpus << 0 << 10LL << 20LL << 50LL << QStringLiteral("2@10-20");
        QTest::addRow("zero-length runs are dropped")
            << QStringLiteral("0:0:1 5:0:2 5:0:3 9:0:-1") << 0 << 0LL << 100LL << 100LL
            << QStringLiteral("1@0-5 3@5-9");
        QTest::addRow("unknown cpu is empty") << twoCpus << 5 << 0LL << 100LL << 50LL << QString();
        QTest::addRow("empty window is empty") << twoCpus << 0 << 20LL << 20LL << 50LL << QString();
        QTest::addRow("no records") << QString() << 0 << 0LL << 100LL << 50LL << QString();
    }

    void segments()
    {
        QFETCH(QString, records);
        QFETCH(int, cpu);
        QFETCH(qint64, from);
        QFETCH(qint64, to);
        QFETCH(qint64, now);
        QFETCH(QString, expected);

        const Recording rec = switches(records);
        RunSegmentIndex index;
        index.update(rec);
        QCOMPARE(index.cpuCount(), 2);
        const auto segs = index.segments(cpu, Nanoseconds{from}, Nanoseconds{to}, Nanoseconds{now});
        QCOMPARE(format(segs), expected);
        for (const RunSegment& s : segs)
            QCOMPARE(s.cpu, cpu);
    }

    void busyTime()
    {
        // cpu0 runs 0@0-10, 2@10-25, idle 25-40, 0@40-now.
        const Recording rec = switches(QStringLiteral("0:0:0 0:1:1 10:0:2 25:0:-1 30:1:-1 40:0:0"));
        RunSegmentIndex index;
        index.update(rec);
        const auto busy = [&](int64_t from, int64_t to, int64_t now) {
            return index.busyTime(0, Nanoseconds{from}, Nanoseconds{to}, Nanoseconds{now}).count();
        };
        QCOMPARE(busy(0, 100, 50), int64_t{10 + 15 + 10});
        QCOMPARE(busy(5, 30, 50), int64_t{5 + 15}); // clipped inside runs and idle
        QCOMPARE(busy(26, 39, 50), int64_t{0});     // idle only
        QCOMPARE(busy(45, 100, 60), int64_t{15});   // the open run up to now
        QCOMPARE(busy(20, 20, 60), int64_t{0});     // empty window
        QCOMPARE(index.busyTime(1, Nanoseconds{0}, Nanoseconds{100}, Nanoseconds{50}).count(),
            int64_t{30});
    }

    void binnedSegments()
    {
        // 200 alternating runs of 1 ns with 1 ns idle between: task 7 on even, 8 on odd runs.
        QString text;
        for (int i = 0; i < 200; ++i)
            text += QStringLiteral("%1:0:%2 %3:0:-1 ").arg(2 * i).arg(7 + i % 2).arg(2 * i + 1);
        text += QStringLiteral("400:0:9 "); // then task 9 alone from 400 on
        const Recording rec = switches(text, 1);
        RunSegmentIndex index;
        index.update(rec);
        // Few runs per bin: exact segments.
        QCOMPARE(
            index.binnedSegments(0, Nanoseconds{0}, Nanoseconds{6}, Nanoseconds{500}, 10).size(),
            size_t{3});
        // 10 bins over [0, 500): 8 bins half busy, then 400-450 and 450-500 fully task 9.
        const auto bins =
            index.binnedSegments(0, Nanoseconds{0}, Nanoseconds{500}, Nanoseconds{500}, 10);
        QCOMPARE(bins.size(), size_t{10});
        for (int b = 0; b < 8; ++b) {
            QCOMPARE(bins[static_cast<size_t>(b)].start, Nanoseconds{50 * b});
            QCOMPARE(bins[static_cast<size_t>(b)].end, Nanoseconds{50 * b + 50});
            QCOMPARE(bins[static_cast<size_t>(b)].busy, 0.5);
            QVERIFY(
                bins[static_cast<size_t>(b)].task == 7 || bins[static_cast<size_t>(b)].task == 8);
        }
        QCOMPARE(bins[8].task, 9);
        QCOMPARE(bins[8].busy, 1.0);
        QCOMPARE(bins[9].busy, 1.0);
        // An idle stretch produces no bin.
        const Recording gap = switches(text + QStringLiteral("600:0:-1"), 1);
        RunSegmentIndex gapped;
        gapped.update(gap);
        const auto g =
            gapped.binnedSegments(0, Nanoseconds{0}, Nanoseconds{1000}, Nanoseconds{1000}, 10);
        QCOMPARE(g.back().end, Nanoseconds{600});
    }

    void segmentAt_data()
    {
        QTest::addColumn<int>("cpu");
        QTest::addColumn<qint64>("time");
        QTest::addColumn<QString>("expected");

        QTest::addRow("inside a closed run") << 0 << 12LL << QStringLiteral("2@10-25");
        QTest::addRow("a run starts at its first ns") << 0 << 10LL << QStringLiteral("2@10-25");
        QTest::addRow("and ends before its last") << 0 << 25LL << QString();
        QTest::addRow("idle") << 0 << 30LL << QString();
        QTest::addRow("open run up to now") << 0 << 49LL << QStringLiteral("0@40-50");
        QTest::addRow("not after now") << 0 << 50LL << QString();
        QTest::addRow("other cpu") << 1 << 29LL << QStringLiteral("1@0-30");
        QTest::addRow("no such cpu") << 3 << 1LL << QString();
    }

    void segmentAt()
    {
        QFETCH(int, cpu);
        QFETCH(qint64, time);
        QFETCH(QString, expected);

        RunSegmentIndex index;
        index.update(switches(QStringLiteral("0:0:0 0:1:1 10:0:2 25:0:-1 30:1:-1 40:0:0")));
        const auto hit = index.segmentAt(cpu, Nanoseconds{time}, Nanoseconds{50});
        QCOMPARE(hit ? format({*hit}) : QString(), expected);
    }

    void incremental()
    {
        const QString all = QStringLiteral("0:0:0 0:1:1 10:0:2 25:0:-1 30:1:-1 40:0:0 45:1:3");
        const Recording full = switches(all);
        RunSegmentIndex oneShot;
        oneShot.update(full);

        // Feed the same records a few at a time, as the live view does.
        Recording growing;
        growing.cpus = full.cpus;
        RunSegmentIndex live;
        for (const Record& r : full.records()) {
            growing.append(r);
            live.update(growing);
        }
        QCOMPARE(live.consumedRecords(), full.size());
        for (int cpu = 0; cpu < 2; ++cpu)
            QCOMPARE(format(live.segments(cpu, Nanoseconds{0}, Nanoseconds{100}, Nanoseconds{70})),
                format(oneShot.segments(cpu, Nanoseconds{0}, Nanoseconds{100}, Nanoseconds{70})));
        QCOMPARE(live.lastSwitch().count(), 45);

        // A reset simulation starts a new, shorter recording: the index starts over.
        const Recording restarted = switches(QStringLiteral("0:0:4"));
        live.update(restarted);
        QCOMPARE(format(live.segments(0, Nanoseconds{0}, Nanoseconds{100}, Nanoseconds{8})),
            QStringLiteral("4@0-8"));
        QCOMPARE(
            format(live.segments(1, Nanoseconds{0}, Nanoseconds{100}, Nanoseconds{8})), QString());
    }

    void levelOfDetail_data()
    {
        QTest::addColumn<QString>("segments");
        QTest::addColumn<qint64>("viewEnd"); // window [0, viewEnd) on 100 px
        QTest::addColumn<double>("minPixels");
        QTest::addColumn<QString>("expected");

        QTest::addRow("wide runs pass unchanged")
            << QStringLiteral("1@0-30 2@30-60") << 100LL << 1.0 << QStringLiteral("1@0-30 2@30-60");
        // 1000 ns on 100 px: 10 ns per pixel.
        QTest::addRow("tiny runs in one pixel become the dominant task") << QStringLiteral(
            "1@0-3 2@3-4 1@4-7 2@7-8") << 1000LL << 1.0 << QStringLiteral("1@0-8");
        QTest::addRow("bins are about one pixel wide")
            << QStringLiteral("1@0-4 2@4-8 2@10-14 2@14-18") << 1000LL << 1.0
            << QStringLiteral("1@0-8 2@10-18");
        QTest::addRow("mostly idle bins are kept, marked sparse")
            << QStringLiteral("1@0-1 1@8-9") << 1000LL << 1.0 << QStringLiteral("1@0-9~22");
        QTest::addRow("a wide run flushes the pending bin")
            << QStringLiteral("1@0-2 2@2-5 3@5-100 1@100-103") << 1000LL << 1.0
            << QStringLiteral("2@0-5 3@5-100 1@100-103");
        QTest::addRow("coarser detail merges more")
            << QStringLiteral("1@0-10 2@10-15 1@15-30 3@30-35") << 1000LL << 4.0
            << QStringLiteral("1@0-35");
        QTest::addRow("empty") << QString() << 1000LL << 1.0 << QString();
    }

    void levelOfDetail()
    {
        QFETCH(QString, segments);
        QFETCH(qint64, viewEnd);
        QFETCH(double, minPixels);
        QFETCH(QString, expected);

        const TimelineLayout layout(Nanoseconds{0}, Nanoseconds{viewEnd}, 0.0, 100.0);
        QCOMPARE(format(layout.levelOfDetail(parseSegments(segments), minPixels)), expected);
    }

    void samples()
    {
        Recording rec;
        rec.cpus = 1;
        rec.append(switchRecord(0, 0, -1, 0));
        rec.append(sample(0, 0, 100));
        rec.append(sample(0, 1, 200));
        Record running = sample(10, 0, 110);
        running.flags = Record::kCurr | Record::kEligible;
        rec.append(running);
        Record group = sample(15, 0, 999);
        group.entity = EntityRef::group(1, 0); // group entities are not task series
        rec.append(group);
        rec.append(sample(20, 0, 120));
        rec.append(sample(30, 0, 130));
        rec.append(sample(40, 1, 240));

        SampleIndex index;
        index.update(rec);
        QCOMPARE(index.sampleCount(0), size_t(4));
        QCOMPARE(index.sampleCount(1), size_t(2));
        QCOMPARE(index.sampleCount(2), size_t(0));

        auto times = [&](int task, int64_t from, int64_t to) {
            QStringList out;
            for (const auto& s : index.series(rec, task, Nanoseconds{from}, Nanoseconds{to}))
                out << QStringLiteral("%1=%2").arg(s.time.count()).arg(s.vruntime);
            return out.join(QLatin1Char(' '));
        };
        QCOMPARE(times(0, 0, 100), QStringLiteral("0=100 10=110 20=120 30=130"));
        // One sample beyond each edge so lines reach the window's borders.
        QCOMPARE(times(0, 12, 18), QStringLiteral("10=110 20=120"));
        QCOMPARE(times(0, 20, 25), QStringLiteral("20=120 30=130"));
        QCOMPARE(times(1, 5, 6), QStringLiteral("0=200 40=240"));
        QCOMPARE(times(2, 0, 100), QString());

        const auto s = index.series(rec, 0, Nanoseconds{0}, Nanoseconds{0});
        QVERIFY(!s.empty());
        QCOMPARE(s.front().deadline, uint64_t(3000100));
        QCOMPARE(s.front().avgVruntime, uint64_t(50));
        QCOMPARE(s.front().flags, uint8_t(0));
        const auto atTen = index.series(rec, 0, Nanoseconds{10}, Nanoseconds{10});
        QCOMPARE(atTen.front().flags, uint8_t(Record::kCurr | Record::kEligible));

        Recording shorter;
        shorter.append(sample(5, 2, 7));
        index.update(shorter);
        QCOMPARE(index.sampleCount(0), size_t(0));
        QCOMPARE(index.sampleCount(2), size_t(1));
    }

    /// Indexing a long run costs no heap allocation per record (only the vectors' doublings)
    /// and keeps one copy of each run's times: a task's runs are positions in its lane's runs.
    /// Throttled intervals are read in the indexing pass (the lanes draw them from the index):
    /// per CPU, from each Throttle of a group's cfs_rq to its Unthrottle, −1 while still open; a
    /// second Throttle of an open one, or an Unthrottle of one not throttled, changes nothing.
    void throttledIntervals()
    {
        const auto record = [](int64_t time, int cpu, int group, RecordKind kind) {
            Record r;
            r.time = time;
            r.cpu = static_cast<uint16_t>(cpu);
            r.kind = kind;
            r.entity = EntityRef::group(group, cpu);
            return r;
        };
        Recording rec;
        rec.cpus = 2;
        rec.append(switchRecord(0, 0, -1, 0));
        rec.append(record(10, 0, 1, RecordKind::Throttle));
        rec.append(record(12, 1, 1, RecordKind::Unthrottle)); // not throttled on CPU 1
        rec.append(record(15, 0, 1, RecordKind::Throttle));   // already throttled
        rec.append(record(20, 1, 2, RecordKind::Throttle));
        rec.append(record(30, 0, 1, RecordKind::Unthrottle));
        rec.append(record(40, 0, 2, RecordKind::Throttle));
        RunSegmentIndex lanes;
        SampleIndex samples;
        schedlab::ui::updateIndexes(rec, lanes, samples);
        using Intervals = std::vector<std::pair<int64_t, int64_t>>;
        QCOMPARE(lanes.throttled(0), (Intervals{{10, 30}, {40, -1}}));
        QCOMPARE(lanes.throttled(1), (Intervals{{20, -1}}));
        QVERIFY(lanes.throttled(2).empty());

        // More records later (a live run): the open intervals close.
        rec.append(record(50, 1, 2, RecordKind::Unthrottle));
        rec.append(record(55, 0, 2, RecordKind::Unthrottle));
        schedlab::ui::updateIndexes(rec, lanes, samples);
        QCOMPARE(lanes.throttled(0), (Intervals{{10, 30}, {40, 55}}));
        QCOMPARE(lanes.throttled(1), (Intervals{{20, 50}}));
        lanes.clear();
        QVERIFY(lanes.throttled(0).empty());
    }

    /// Once a series is summarized, its time searches start from the blocks of 16 (their first
    /// and last times) and read samples only inside one block or after the last: the samples of
    /// a window are still those inside it plus the nearest one on each side, at a block's edge,
    /// inside a block, after the last block and before the first sample.
    void searchWithinSummaryBlocks()
    {
        // 40 samples of task 0 at 0, 10, 20, … 390, except the 17th (index 16, the first of the
        // second block) at 150 like the one before it: blocks [0, 150] and [150, 310], and 8
        // samples (320 … 390) after them.
        Recording rec;
        rec.cpus = 1;
        for (int i = 0; i < 40; ++i)
            rec.append(sample(i == 16 ? 150 : int64_t{i} * 10, 0, 1000));
        RunSegmentIndex lanes;
        SampleIndex samples;
        schedlab::ui::updateIndexes(rec, lanes, samples);
        // 40 samples in 2 columns: decimated, which builds the summaries.
        QVERIFY(!samples.decimatedSeries(rec, 0, Nanoseconds{0}, Nanoseconds{400}, 2).empty());
        const auto times = [&](int64_t from, int64_t to) {
            QString out;
            for (const auto& s : samples.series(rec, 0, Nanoseconds{from}, Nanoseconds{to}))
                out += QString::number(s.time.count()) + QLatin1Char(' ');
            return out.trimmed();
        };
        QCOMPARE(times(150, 150), QStringLiteral("150 170")); // from the second 150 on
        QCOMPARE(times(140, 145), QStringLiteral("140 150"));
        QCOMPARE(times(145, 160), QStringLiteral("140 150 150 170"));
        QCOMPARE(times(315, 335), QStringLiteral("310 320 330 340"));
        QCOMPARE(times(-5, 5), QStringLiteral("0 10"));
        QCOMPARE(times(385, 500), QStringLiteral("380 390"));
    }

    void indexMemory()
    {
        // 4096 runs on CPU 0, tasks 0 and 1 in turn (a switch every 1000 ns, from 0 to 4096000),
        // and per switch a sample of the task switched in and one of its group entity on each
        // of 4 CPUs (/g1 and /g2 in turn): 4097 switches, 4097 task samples and 16388 group
        // samples.
        constexpr int kRuns = 4096;
        Recording rec;
        rec.cpus = 4;
        rec.reserve(size_t{kRuns + 1} * 6);
        for (int i = 0; i <= kRuns; ++i) {
            const int64_t t = int64_t{i} * 1000;
            rec.append(switchRecord(t, 0, i == 0 ? -1 : (i - 1) % 2, i % 2));
            rec.append(sample(t, i % 2, static_cast<uint64_t>(t)));
            for (int cpu = 0; cpu < 4; ++cpu) {
                Record group = sample(t, 0, static_cast<uint64_t>(t));
                group.entity = EntityRef::group(1 + i % 2, cpu);
                group.cpu = static_cast<uint16_t>(cpu);
                rec.append(group);
            }
        }
        RunSegmentIndex lanes;
        SampleIndex samples;
        const uint64_t before = g_allocations.load();
        schedlab::ui::updateIndexes(rec, lanes, samples);
        const uint64_t allocations = g_allocations.load() - before;
        // Each of the index's vectors doubles about log2(24 582) = 15 times: the lanes' 4
        // lanes (runs, prefix sums, two tasks' positions and prefix sums, three summary levels
        // and their pending nodes), 2 task and 8 group entity series, 4 CPUs' queued samples
        // and the slot tables: well under 100 vectors, so fewer than 1 500 allocations where
        // one per record would be 24 582.
        QVERIFY2(allocations < 1500, qPrintable(QString::number(allocations)));
        QCOMPARE(samples.sampleCount(0), size_t{kRuns / 2 + 1});
        QCOMPARE(samples.groupEntities().size(), size_t{8});
        QCOMPARE(samples.groupEntities().front(), EntityRef::group(1, 0).raw);

        // The 4096 closed runs of CPU 0 cost, by hand: a run 24 bytes (start, end, task), its
        // lane's run time before it 8, its position among its task's runs 4 and its task's run
        // time before it 8 (44 bytes a run; each vector's capacity is a power of two: 4096 or
        // 2048 exactly, the prefix sums' 2049 entries take 4096), plus the summaries (256 + 16
        // + 1 nodes of 40 bytes): 98 304 + 32 768 + 16 384 + 65 536 + 10 920 = 223 912 bytes,
        // under 56 bytes a run. A second copy of each run's start and end per task (16 bytes
        // instead of 4) would be 49 152 bytes more, 66 bytes a run.
        QVERIFY2(lanes.bytes() <= size_t{kRuns} * 56, qPrintable(QString::number(lanes.bytes())));
        QCOMPARE(lanes
                     .taskBusyTime(
                         0, 1, Nanoseconds{0}, Nanoseconds{kRuns * 1000}, Nanoseconds{kRuns * 1000})
                     .count(),
            int64_t{kRuns / 2 * 1000});
    }

    /// A run indexed whole holds no room beyond its contents: every vector of both indexes is
    /// shrunk to its size after the pass, and a series' summaries, built when first drawn, are
    /// allocated once at their exact size. The bytes are counted by hand from the records.
    void indexHoldsNoSpareRoom()
    {
        // 32 768 runs on CPU 0, tasks 0 and 1 in turn (a switch every 1000 ns), and per switch
        // a sample (not queued) of the task switched in: 2 · 32 769 = 65 538 records, just
        // over kShrinkAfter.
        constexpr int kRuns = 32768;
        Recording rec;
        rec.cpus = 1;
        for (int i = 0; i <= kRuns; ++i) {
            const int64_t t = int64_t{i} * 1000;
            rec.append(switchRecord(t, 0, i == 0 ? -1 : (i - 1) % 2, i % 2));
            rec.append(sample(t, i % 2, static_cast<uint64_t>(t)));
        }
        QVERIFY(rec.records().size() >= schedlab::ui::kShrinkAfter);
        RunSegmentIndex lanes;
        SampleIndex samples;
        schedlab::ui::updateIndexes(rec, lanes, samples);

        // Lanes: per run 24 bytes (start, end, task), its lane's run time before it 8, its
        // position among its task's runs 4; per task its run time before each run and the
        // total (16 385 · 8); summaries of 40 bytes: 2 048 blocks of 16, 128 of 256, 8 of 4 096.
        QCOMPARE(sizeof(RunSegmentIndex::RunSummary), size_t{40});
        constexpr size_t kRunBytes = 24 + 8 + 4;
        const size_t laneBytes =
            size_t{kRuns} * kRunBytes + 2 * size_t{kRuns / 2 + 1} * 8 + size_t{2048 + 128 + 8} * 40;
        QCOMPARE(lanes.bytes(), laneBytes); // 1 179 648 + 262 160 + 87 360
        // Samples: task 0 has 16 385 (switched in at even i), task 1 16 384; 4 bytes each.
        QCOMPARE(samples.sampleCount(0), size_t{kRuns / 2 + 1});
        QCOMPARE(samples.sampleCount(1), size_t{kRuns / 2});
        QCOMPARE(samples.bytes(), size_t{kRuns + 1} * 4);

        // Drawing task 0's whole series in 10 columns builds its summaries: 16 385 samples make
        // 1 024 blocks of 16, 64 of 256 and 4 of 4 096 (no PELT: no PELT summaries).
        const auto drawn =
            samples.decimatedSeries(rec, 0, Nanoseconds{0}, Nanoseconds{int64_t{kRuns} * 1000}, 10);
        QVERIFY(!drawn.empty());
        QCOMPARE(samples.bytes(),
            size_t{kRuns + 1} * 4 + size_t{1024 + 64 + 4} * sizeof(SampleIndex::SampleSummary));

        // A live run's small passes do not shrink: one more switch and sample grow the vectors
        // by doubling again (the bytes exceed the contents).
        rec.append(switchRecord(int64_t{kRuns + 1} * 1000, 0, kRuns % 2, (kRuns + 1) % 2));
        schedlab::ui::updateIndexes(rec, lanes, samples);
        QVERIFY(lanes.bytes() > laneBytes + kRunBytes + 8);
    }
};

QTEST_APPLESS_MAIN(TestTimelineLayout)
#include "tst_timelinelayout.moc"
