// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline's level of detail over long runs: the SummaryPyramid (blocks of 16, 256, …
// items), lanes binned from it (exact busy share, the majority task of a bin always shown) and
// decimated sample series (real samples only, in time order, every bin's first, last and
// extreme samples kept). Expected values are worked out by hand or recomputed by brute force
// from the items themselves, never taken from the code under test.
#include "core/base/prng.h"
#include "core/record/recording.h"
#include "support/recordings.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/model/entitylines.h"
#include "ui/timeline/model/envelope.h"
#include "ui/timeline/model/sampleindex.h"
#include "ui/timeline/model/summarypyramid.h"
#include "ui/timeline/model/timelinelayout.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <type_traits>

using schedlab::EntityRef;
using schedlab::Nanoseconds;
using schedlab::Prng;
using schedlab::Record;
using schedlab::Recording;
using schedlab::RecordKind;
using schedlab::ui::EntitySample;
using schedlab::ui::RunSegment;
using schedlab::ui::RunSegmentIndex;
using schedlab::ui::SampleIndex;
using schedlab::ui::SummaryPyramid;

using schedlab::test::switchRecord;

namespace {

/// Sum and count of a block of integers (merge = concatenation).
struct SumNode
{
    int64_t sum = 0;
    int64_t count = 0;
    int64_t first = 0;
    void merge(const SumNode& next)
    {
        sum += next.sum;
        count += next.count;
    }
};

Record sampleRecord(int64_t time, int task, uint64_t vruntime, int32_t vlag, uint32_t weight)
{
    Record r;
    r.time = time;
    r.kind = RecordKind::Sample;
    r.entity = EntityRef::task(task);
    r.payload.sample.vruntime = vruntime;
    r.payload.sample.deadline = vruntime + 3'000'000;
    r.payload.sample.vlag = vlag;
    r.payload.sample.weight = weight;
    return r;
}

/// One lane of runs [start, end) of @p task, written as switch records (idle between).
struct Run
{
    int64_t start, end;
    int task;
};

Recording laneRecording(const std::vector<Run>& runs)
{
    Recording rec;
    rec.cpus = 1;
    for (const Run& r : runs) {
        rec.append(switchRecord(r.start, 0, r.task));
        rec.append(switchRecord(r.end, 0, -1));
    }
    return rec;
}

} // namespace

class TestLevelOfDetail : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pyramidBuildsCompleteBlocks()
    {
        SummaryPyramid<SumNode> p;
        const int n = 16 * 16 + 5; // one block of 256, 16 + … blocks of 16, 5 left over
        for (int i = 0; i < n; ++i)
            p.push({i, 1, i});
        QCOMPARE(p.levelCount(), size_t{3}); // level 2 has started (pending) but holds nothing
        QCOMPARE(p.level(0).size(), size_t{16});
        QCOMPARE(p.level(1).size(), size_t{1});
        QCOMPARE(p.level(2).size(), size_t{0});
        // Block k of level 0 holds items 16k … 16k+15: sum = 256k + 120.
        for (size_t k = 0; k < 16; ++k) {
            QCOMPARE(p.level(0)[k].sum, static_cast<int64_t>(256 * k + 120));
            QCOMPARE(p.level(0)[k].count, int64_t{16});
            QCOMPARE(p.level(0)[k].first, static_cast<int64_t>(16 * k));
        }
        QCOMPARE(p.level(1)[0].sum, int64_t{255 * 256 / 2});
        QCOMPARE(p.level(1)[0].count, int64_t{256});
    }

    /// reserve() makes each level's room exactly the nodes the reserved items will complete,
    /// also for levels created after it; shrinkToFit() gives back room a doubling left unused.
    void pyramidReserveIsExact()
    {
        SummaryPyramid<SumNode> p;
        const int n = 16 * 16 + 5; // as above: 16 blocks of 16, 1 of 256
        p.reserve(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i)
            p.push({i, 1, i});
        QCOMPARE(p.level(0).capacity(), size_t{16});
        QCOMPARE(p.level(1).capacity(), size_t{1});
        QCOMPARE(p.level(2).capacity(), size_t{0});
        QCOMPARE(p.bytes(), size_t{17} * sizeof(SumNode));

        SummaryPyramid<SumNode> grown; // no reserve: 17 blocks of 16 double level 0's room
        for (int i = 0; i < 16 * 17; ++i)
            grown.push({i, 1, i});
        QCOMPARE(grown.level(0).size(), size_t{17});
        QVERIFY(grown.level(0).capacity() > 17);
        grown.shrinkToFit();
        QCOMPARE(grown.level(0).capacity(), size_t{17});
        QCOMPARE(grown.bytes(), size_t{17 + 1} * sizeof(SumNode));
        QCOMPARE(grown.level(0)[16].sum, int64_t{16 * 16 * 16 + 120}); // block 16 unchanged
    }

    void pyramidLargestAt()
    {
        SummaryPyramid<SumNode> p;
        for (int i = 0; i < 600; ++i)
            p.push({1, 1, i});
        const auto any = [](const SumNode&) { return true; };
        // Item 0 starts blocks of 256 and 16; item 256 as well; item 16 only one of 16.
        QCOMPARE(p.largestAt(0, any).second, size_t{256});
        QCOMPARE(p.largestAt(256, any).second, size_t{256});
        QCOMPARE(p.largestAt(16, any).second, size_t{16});
        QCOMPARE(p.largestAt(17, any).first, nullptr); // starts no block
        // Item 512 starts a block of 256 that is not complete (600 items): only 16.
        QCOMPARE(p.largestAt(512, any).second, size_t{16});
        QCOMPARE(p.largestAt(592, any).first, nullptr); // its 16 are not all there
        // The predicate picks the largest accepted block.
        const auto small = [](const SumNode& n) { return n.count <= 16; };
        QCOMPARE(p.largestAt(0, small).second, size_t{16});
        const auto none = [](const SumNode&) { return false; };
        QCOMPARE(p.largestAt(0, none).first, nullptr);
        QVERIFY(p.nodeAt(0, 32) == &p.level(0)[2]);
        QVERIFY(p.nodeAt(0, 33) == nullptr);
        QVERIFY(p.nodeAt(5, 0) == nullptr); // no such level
    }

    void lanesBinsFromSummaries()
    {
        // 4096 runs of 1 ns, one every 2 ns, task 3 on three of every four, task 4 on the rest:
        // [0, 8192) in 4 bins of 2048 ns, each 1024 runs. Busy half of each bin; task 3 has
        // 3/4 of the busy time, a majority, so every bin must show it, whichever blocks it is
        // read from.
        std::vector<Run> runs;
        for (int i = 0; i < 4096; ++i)
            runs.push_back({2 * i, 2 * i + 1, i % 4 == 3 ? 4 : 3});
        RunSegmentIndex index;
        index.update(laneRecording(runs));
        const auto bins =
            index.binnedSegments(0, Nanoseconds{0}, Nanoseconds{8192}, Nanoseconds{8192}, 4);
        QCOMPARE(bins.size(), size_t{4});
        for (int b = 0; b < 4; ++b) {
            const RunSegment& s = bins[static_cast<size_t>(b)];
            QCOMPARE(s.start, Nanoseconds{2048 * b});
            QCOMPARE(s.end, Nanoseconds{2048 * b + 2048});
            QCOMPARE(s.busy, 0.5);
            QCOMPARE(s.task, 3);
        }
        // An offset window cuts runs and blocks: [1001, 7001) in 3 bins of 2000 ns. Busy time
        // counted by hand: runs start at even times, so a bin [a, a + 2000) with a odd holds
        // 1000 whole runs.
        const auto offset =
            index.binnedSegments(0, Nanoseconds{1001}, Nanoseconds{7001}, Nanoseconds{8192}, 3);
        QCOMPARE(offset.size(), size_t{3});
        for (const RunSegment& s : offset) {
            QCOMPARE((s.end - s.start).count(), int64_t{2000});
            QCOMPARE(s.busy, 0.5);
            QCOMPARE(s.task, 3);
        }
    }

    void lanesMajorityNotFirstSeen()
    {
        // Blocks of 16 runs: tasks 1 … 6 run 3 ns each, then task 0 runs ten times 2 ns (1 ns
        // idle after every run). Task 0 has 20 of every 38 busy ns, a majority, though each of
        // its runs is shorter than the others': the bins must show it (keeping the longest run
        // seen first would show task 1). 256 blocks of 54 ns in 4 bins of 64 blocks.
        std::vector<Run> runs;
        int64_t t = 0;
        for (int block = 0; block < 256; ++block) {
            for (int i = 0; i < 16; ++i) {
                const int task = i < 6 ? i + 1 : 0;
                const int64_t length = i < 6 ? 3 : 2;
                runs.push_back({t, t + length, task});
                t += length + 1;
            }
        }
        QCOMPARE(t, int64_t{256 * 54});
        RunSegmentIndex index;
        index.update(laneRecording(runs));
        const auto bins =
            index.binnedSegments(0, Nanoseconds{0}, Nanoseconds{t}, Nanoseconds{t}, 4);
        QCOMPARE(bins.size(), size_t{4});
        for (const RunSegment& s : bins) {
            QCOMPARE(s.task, 0);
            QCOMPARE(s.busy, 38.0 / 54.0);
        }
    }

    void lanesBinsMatchBruteForce()
    {
        // Random runs (1 … 40 ns, idle gaps 0 … 30 ns, 6 tasks, one of them favoured) and
        // random windows: every bin's busy share equals the run time counted run by run, and a
        // task that ran more than half of a bin's busy time is the one shown.
        Prng prng(7);
        std::vector<Run> runs;
        int64_t t = 0;
        for (int i = 0; i < 10000; ++i) {
            t += prng.uniform(0, 30);
            const int64_t length = prng.uniform(1, 40);
            const int task = prng.below(3) == 0 ? static_cast<int>(prng.below(6)) : 0;
            runs.push_back({t, t + length, task});
            t += length;
        }
        const int64_t end = t;
        RunSegmentIndex index;
        index.update(laneRecording(runs));
        int majorityBins = 0;
        for (int round = 0; round < 40; ++round) {
            const int64_t from = prng.uniform(0, end / 2);
            const int64_t to = prng.uniform(from + 1000, end);
            const int bins = static_cast<int>(prng.uniform(3, 60));
            const auto out =
                index.binnedSegments(0, Nanoseconds{from}, Nanoseconds{to}, Nanoseconds{end}, bins);
            QVERIFY(!out.empty());
            for (const RunSegment& s : out) {
                std::map<int, int64_t> perTask;
                int64_t busy = 0;
                for (const Run& r : runs) {
                    const int64_t a = std::max(r.start, s.start.count());
                    const int64_t b = std::min(r.end, s.end.count());
                    if (b > a) {
                        perTask[r.task] += b - a;
                        busy += b - a;
                    }
                }
                QCOMPARE(s.busy,
                    static_cast<double>(busy) / static_cast<double>((s.end - s.start).count()));
                for (const auto& [task, time] : perTask) {
                    if (2 * time > busy) {
                        QCOMPARE(s.task, task);
                        ++majorityBins;
                    }
                }
                QVERIFY(perTask.count(s.task) == 1); // a task that ran in the bin
            }
        }
        QVERIFY(majorityBins > 100); // the property was exercised
    }

    void partlyIdleBinShade()
    {
        // A bin busy a third of the time is painted at opacity 0.25 + 0.75/3 = 0.5 over the
        // lane, mixed by hand into an opaque colour: (200, 100, 0) over (0, 0, 100).
        using schedlab::ui::CpuLanesPlottable;
        QCOMPARE(
            CpuLanesPlottable::mix(qRgb(200, 100, 0), qRgb(0, 0, 100), 0.5), qRgb(100, 50, 50));
        QCOMPARE(
            CpuLanesPlottable::mix(qRgb(200, 100, 0), qRgb(0, 0, 100), 0.25), qRgb(50, 25, 75));
        QCOMPARE(CpuLanesPlottable::mix(qRgb(1, 2, 3), qRgb(9, 9, 9), 1.0), qRgb(1, 2, 3));
    }

    void linesBetweenSamples()
    {
        // A task waits (queued), is picked with lag 10, runs 10 ns, sleeps (saved vlag −5; still
        // curr, no longer queued, until the next pick) and is placed again at 50 ns with vlag 2
        // and a new weight. Reference vruntime 100,
        // present at 60.
        using schedlab::ui::entityLines;
        using schedlab::ui::LinePoint;
        constexpr uint8_t queued = Record::kQueued, curr = Record::kCurr | Record::kQueued;
        const auto at = [](int64_t t, uint64_t v, uint64_t d, uint64_t avg, int32_t lag, uint32_t w,
                            uint8_t flags) {
            return EntitySample{Nanoseconds{t}, v, d, avg, flags, lag, w};
        };
        const std::vector<EntitySample> samples{at(0, 100, 800, 100, 0, 1024, queued),
            at(10, 100, 800, 110, 10, 1024, curr), at(20, 120, 800, 115, -5, 1024, curr),
            at(30, 120, 800, 115, -5, 1024, Record::kCurr), at(50, 118, 818, 120, 2, 2048, queued)};
        const auto lines = entityLines(samples, 100, Nanoseconds{60});
        const auto pts = [](std::initializer_list<std::pair<int64_t, int64_t>> list) {
            std::vector<LinePoint> out;
            for (const auto& [t, v] : list)
                out.push_back({Nanoseconds{t}, v});
            return out;
        };
        // vruntime holds after samples that are not curr (waiting, sleeping): steps at 10 (the
        // pick) and at 50 (the placement), flat to the present.
        QVERIFY(lines.vruntime
            == pts({{0, 0}, {10, 0}, {10, 0}, {20, 20}, {30, 20}, {50, 20}, {50, 18}, {60, 18}}));
        // The deadline is not drawn while dequeued (30: asleep), and breaks until 50.
        auto deadline = pts({{0, 700}, {10, 700}, {10, 700}, {20, 700}, {50, 718}, {60, 718}});
        deadline[4].breakBefore = true;
        QVERIFY(lines.deadline == deadline);
        // Lag moves with V while queued (straight joins), holds while dequeued (30 → 50), and
        // is not drawn past the last sample of a queued entity (V moves on, unknown).
        QVERIFY(lines.lag == pts({{0, 0}, {10, 10}, {20, -5}, {30, -5}, {50, -5}, {50, 2}}));
        QVERIFY(lines.avg == pts({{0, 0}, {10, 10}, {20, 15}, {30, 15}, {50, 20}}));
        QVERIFY(lines.weight
            == pts({{0, 1024}, {10, 1024}, {10, 1024}, {20, 1024}, {20, 1024}, {30, 1024},
                {30, 1024}, {50, 1024}, {50, 2048}, {60, 2048}}));
        // vruntime relative to a reference near 2^64 (the kernel's initial min_vruntime).
        const auto wrapped =
            entityLines({at(0, 4, 4, 4, 0, 1024, curr)}, UINT64_MAX - 5, Nanoseconds{0});
        QCOMPARE(wrapped.vruntime.front().value, int64_t{10});
    }

    void decimatedKeepsExtremes()
    {
        // 64 samples of task 0 at t = 10 i; vruntime 1000 i; lag 0 except a dip of −500 at
        // i = 20 and a peak of +700 at i = 41; weight 1024 except 2048 at i = 50. Window
        // [0, 640] in 2 bins [0, 320) and [320, 640]: the samples inside are i = 1 … 63 (time 0
        // is not after `from`), so i = 0 is the left edge. Bin 1 (i = 1 … 31) keeps its first
        // (1), last (31), lowest lag (20) and highest lag (0, first seen at 1); bin 2
        // (i = 32 … 63) its first (32), last (63), lowest lag (0 at 32) and highest (41).
        // Vruntime only rises, so its extremes are each bin's first and last; the weight adds
        // i = 50 in bin 2.
        Recording rec;
        for (int i = 0; i < 64; ++i) {
            const int32_t lag = i == 20 ? -500 : (i == 41 ? 700 : 0);
            rec.append(sampleRecord(
                10 * i, 0, 1000 * static_cast<uint64_t>(i), lag, i == 50 ? 2048 : 1024));
        }
        SampleIndex index;
        index.update(rec);
        const auto times = [&](unsigned keep, int64_t from, int64_t to, int bins) {
            QStringList out;
            for (const EntitySample& s :
                index.decimatedSeries(rec, 0, Nanoseconds{from}, Nanoseconds{to}, bins, keep))
                out << QString::number(s.time.count() / 10);
            return out.join(QLatin1Char(' '));
        };
        QCOMPARE(times(SampleIndex::KeepLag, 0, 640, 2), QStringLiteral("0 1 20 31 32 41 63"));
        QCOMPARE(times(SampleIndex::KeepAll, 0, 640, 2), QStringLiteral("0 1 20 31 32 41 50 63"));
        QCOMPARE(times(SampleIndex::KeepVruntime, 0, 640, 2), QStringLiteral("0 1 31 32 63"));
        // Few samples per bin (≤ 4 · bins): all of them, plus one beyond each edge.
        QCOMPARE(times(SampleIndex::KeepLag, 95, 125, 2), QStringLiteral("9 10 11 12 13"));
        // A window inside the run gets the samples just outside it as edges: [105, 625] in 2
        // bins [105, 365) and [365, 625] (i = 11 … 62 inside, 10 and 63 the edges). A block of
        // the summary is read whole only where it lies inside one bin: the block 32 … 47
        // crosses 365 and is read sample by sample, so bin 1 is 11 … 36 (first 11, dip 20, last
        // 36; highest lag 0, first seen at 11) and bin 2 is 37 … 62 (first 37, lowest lag 0
        // first seen at 37, peak 41, last 62).
        QCOMPARE(
            times(SampleIndex::KeepLag, 105, 625, 2), QStringLiteral("10 11 20 36 37 41 62 63"));
    }

    void envelopeByHand()
    {
        using schedlab::ui::envelope;
        using schedlab::ui::LinePoint;
        // Window [100, 200] in 4 columns of 25 ns: [100, 125), [125, 150), [150, 175),
        // [175, 200]. The line enters from (90, 0) to (110, 20): the edge point at 100 is
        // interpolated (10). Column 0 holds 100:10, 110:20, 115:-30, 120:5 (first 100, low 115,
        // high 110, last 120: all kept); column 1 holds 130:0, 131:7, 132:3, 133:9, 140:1: kept
        // first 130 (0, also the lowest), high 133 and last 140 (131 and 132 are neither).
        // A break before 160 starts a new piece in column 2: 150:4 | 160:8, 170:8. Column 3:
        // 180:2, then (220, 42) leaves the window: the edge point at 200 is 22.
        const auto pt = [](int64_t t, int64_t v, bool brk = false) {
            return LinePoint{Nanoseconds{t}, v, brk};
        };
        const std::vector<LinePoint> line{pt(90, 0), pt(110, 20), pt(115, -30), pt(120, 5),
            pt(130, 0), pt(131, 7), pt(132, 3), pt(133, 9), pt(140, 1), pt(150, 4),
            pt(160, 8, true), pt(170, 8), pt(180, 2), pt(220, 42), pt(230, 0)};
        const auto out = envelope(line, Nanoseconds{100}, Nanoseconds{200}, 4);
        const std::vector<LinePoint> expected{pt(100, 10), pt(110, 20), pt(115, -30), pt(120, 5),
            pt(130, 0), pt(133, 9), pt(140, 1), pt(150, 4), pt(160, 8, true), pt(170, 8),
            pt(180, 2), pt(200, 22)};
        QCOMPARE(out.size(), expected.size());
        for (size_t i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i].time, expected[i].time);
            QCOMPARE(out[i].value, expected[i].value);
            QCOMPARE(out[i].breakBefore, expected[i].breakBefore);
        }
        // A segment crossing the whole window: two edge points. A break at the first point
        // inside: no edge point before it.
        const auto across =
            envelope({pt(0, 0), pt(1000, 1000)}, Nanoseconds{100}, Nanoseconds{200}, 4);
        QCOMPARE(across.size(), size_t{2});
        QCOMPARE(across[0].value, int64_t{100});
        QCOMPARE(across[1].value, int64_t{200});
        const auto broken =
            envelope({pt(0, 0), pt(150, 7, true)}, Nanoseconds{100}, Nanoseconds{200}, 4);
        QCOMPARE(broken.size(), size_t{1});
        QCOMPARE(broken[0].time, Nanoseconds{150});
        QVERIFY(!broken[0].breakBefore);
        // Column edges: ⌈span·c / columns⌉ from `from`; t in column ⌊(t − from)·columns / span⌋.
        QCOMPARE(schedlab::ui::columnEdge(Nanoseconds{0}, Nanoseconds{10}, 3, 1), Nanoseconds{4});
        QCOMPARE(schedlab::ui::columnOf(Nanoseconds{3}, Nanoseconds{0}, Nanoseconds{10}, 3), 0);
        QCOMPARE(schedlab::ui::columnOf(Nanoseconds{4}, Nanoseconds{0}, Nanoseconds{10}, 3), 1);
        QCOMPARE(schedlab::ui::columnOf(Nanoseconds{10}, Nanoseconds{0}, Nanoseconds{10}, 3), 2);
    }

    void envelopePerColumnProperty()
    {
        // Random series (long quiet stretches, bursts of dense samples, wild lags) and random
        // windows and widths: the line drawn from the decimated samples, column by column,
        // (1) holds every sample of the column inside its drawn extent, (2) reaches each end of
        // that extent with a sample of the column (the only other points are the window's two
        // edge crossings), (3) starts and ends each column with the column's first and last
        // sample, and (4) is the very line drawn from all the samples.
        using schedlab::ui::columnOf;
        using schedlab::ui::envelope;
        using schedlab::ui::LinePoint;
        Prng prng(33);
        int decimatedRounds = 0; // rounds where the summaries left samples out
        for (int series = 0; series < 6; ++series) {
            Recording rec;
            std::vector<Record> all;
            int64_t t = 0;
            for (int i = 0; i < 20000; ++i) {
                t += prng.below(50) == 0 ? prng.uniform(1000, 200000) : prng.uniform(1, 40);
                const Record r = sampleRecord(t, 0, static_cast<uint64_t>(t),
                    static_cast<int32_t>(prng.uniform(-2000000, 2000000)), 1024);
                rec.append(r);
                all.push_back(r);
            }
            SampleIndex index;
            index.update(rec);
            for (int round = 0; round < 40; ++round) {
                const int64_t from = prng.uniform(0, t - 10);
                const int64_t to = prng.uniform(from + 10, t + 1000);
                const int columns = static_cast<int>(prng.uniform(1, 1500));
                const Nanoseconds f{from}, e{to};
                const auto lagLine = [](const std::vector<EntitySample>& samples) {
                    std::vector<LinePoint> line;
                    for (const EntitySample& s : samples)
                        line.push_back({s.time, s.vlag});
                    return line;
                };
                const auto decimated =
                    index.decimatedSeries(rec, 0, f, e, columns, SampleIndex::KeepLag);
                decimatedRounds += decimated.size() < index.series(rec, 0, f, e).size();
                const auto drawn = envelope(lagLine(decimated), f, e, columns);
                // (4) the same as from every sample.
                const auto full = envelope(lagLine(index.series(rec, 0, f, e)), f, e, columns);
                QVERIFY(drawn == full);
                // Per column: the samples' first, last, min, max; the drawn points' likewise.
                struct Col
                {
                    int64_t lo = INT64_MAX, hi = INT64_MIN, first = 0, last = 0;
                    int n = 0;
                };
                std::map<int, Col> samples, points;
                const auto add = [](Col& c, int64_t v) {
                    if (c.n++ == 0)
                        c.first = v;
                    c.last = v;
                    c.lo = std::min(c.lo, v);
                    c.hi = std::max(c.hi, v);
                };
                for (const Record& r : all)
                    if (r.time >= from && r.time <= to)
                        add(samples[columnOf(Nanoseconds{r.time}, f, e, columns)],
                            r.payload.sample.vlag);
                bool edgeIn = false, edgeOut = false; // interpolated edge crossings
                for (const LinePoint& p : drawn) {
                    QVERIFY(p.time.count() >= from && p.time.count() <= to);
                    const bool isSample = std::binary_search(
                        all.begin(), all.end(), p.time.count(), [](const auto& a, const auto& b) {
                            if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Record>)
                                return a.time < b;
                            else
                                return a < b.time;
                        });
                    if (!isSample) {
                        QVERIFY(p.time.count() == from || p.time.count() == to);
                        (p.time.count() == from ? edgeIn : edgeOut) = true;
                        continue;
                    }
                    add(points[columnOf(p.time, f, e, columns)], p.value);
                }
                Q_UNUSED(edgeIn);
                Q_UNUSED(edgeOut);
                QCOMPARE(points.size(), samples.size()); // (1): no column left empty
                for (const auto& [c, s] : samples) {
                    const Col& d = points[c];
                    QCOMPARE(d.lo, s.lo); // (1) and (2)
                    QCOMPARE(d.hi, s.hi);
                    QCOMPARE(d.first, s.first); // (3)
                    QCOMPARE(d.last, s.last);
                    QVERIFY(d.n <= 4);
                }
            }
        }
        QVERIFY2(decimatedRounds > 60, qPrintable(QString::number(decimatedRounds)));
    }

    void linesBreakAtEveryQueueChange()
    {
        // Random series whose entity changes CPU now and then (a migration) and is moved to
        // another cgroup at random times: vruntime encodes the queue (its frame: CPU · 100 +
        // moves before, times 10^9), so a drawn piece joining two queues shows as a value
        // leaving its band. At every zoom, from the decimated samples: every change of queue
        // between two samples inside the window is a break in the drawn line, and no piece
        // joins two queues.
        using schedlab::ui::entityLines;
        using schedlab::ui::envelope;
        using schedlab::ui::LinePoint;
        Prng prng(44);
        Recording rec;
        std::vector<Nanoseconds> moves;
        std::vector<int> frames; // per sample of task 0
        std::vector<int64_t> times;
        int64_t t = 0;
        int cpu = 0;
        constexpr int64_t kBand = 1'000'000'000;
        for (int i = 0; i < 40000; ++i) {
            t += prng.uniform(1, 30);
            if (prng.below(300) == 0)
                cpu = static_cast<int>(prng.below(4));
            if (prng.below(2000) == 0)
                moves.push_back(Nanoseconds{t - 1}); // between two samples
            const int frame = cpu * 100 + static_cast<int>(moves.size());
            Record r = sampleRecord(t, 0,
                static_cast<uint64_t>(frame) * static_cast<uint64_t>(kBand)
                    + static_cast<uint64_t>(t),
                0, 1024);
            r.cpu = static_cast<uint16_t>(cpu);
            r.flags = Record::kQueued | Record::kCurr; // running: vruntime joins straight
            rec.append(r);
            frames.push_back(frame);
            times.push_back(t);
        }
        QVERIFY(moves.size() > 5);
        SampleIndex index;
        index.update(rec);
        for (int round = 0; round < 60; ++round) {
            const int64_t from = prng.uniform(0, t - 100);
            const int64_t to = prng.uniform(from + 100, t);
            const int columns = static_cast<int>(prng.uniform(2, 1200));
            auto series = index.decimatedSeries(
                rec, 0, Nanoseconds{from}, Nanoseconds{to}, columns, SampleIndex::KeepAll, moves);
            for (EntitySample& s : series) // the view's cgroup of each sample
                s.group = static_cast<int16_t>(std::count_if(
                    moves.begin(), moves.end(), [&](Nanoseconds m) { return m < s.time; }));
            const auto line = envelope(entityLines(series, 0, Nanoseconds{to}).vruntime,
                Nanoseconds{from}, Nanoseconds{to}, columns);
            int breaks = 0;
            for (size_t i = 0; i < line.size(); ++i) {
                if (line[i].breakBefore) {
                    ++breaks;
                    continue;
                }
                if (i > 0)
                    QVERIFY2(line[i].value / kBand == line[i - 1].value / kBand,
                        qPrintable(QStringLiteral("joined across a queue change at %1")
                                       .arg(line[i].time.count())));
            }
            int changes = 0;
            for (size_t i = 1; i < times.size(); ++i)
                changes += times[i - 1] >= from && times[i] <= to && frames[i] != frames[i - 1];
            QCOMPARE(breaks, changes);
        }
    }

    void decimatedMatchesBruteForce()
    {
        // Random samples of two tasks and random windows: every decimated point is a real
        // sample, in time order, at most 4 per bin plus the edges; the window's first and last
        // samples, its lowest and highest lag (found by scanning) and the samples beyond each
        // edge are kept.
        Prng prng(11);
        Recording rec;
        int64_t t = 0;
        std::vector<Record> task0;
        for (int i = 0; i < 30000; ++i) {
            t += prng.uniform(1, 20);
            const int task = static_cast<int>(prng.below(2));
            const Record r = sampleRecord(t, task, static_cast<uint64_t>(t) * 3,
                static_cast<int32_t>(prng.uniform(-100000, 100000)),
                static_cast<uint32_t>(prng.uniform(1, 100)) * 1024);
            rec.append(r);
            if (task == 0)
                task0.push_back(r);
        }
        SampleIndex index;
        index.update(rec);
        for (int round = 0; round < 30; ++round) {
            const int64_t from = prng.uniform(0, t / 2);
            const int64_t to = prng.uniform(from + 5000, t);
            const int bins = static_cast<int>(prng.uniform(5, 50));
            const auto out = index.decimatedSeries(
                rec, 0, Nanoseconds{from}, Nanoseconds{to}, bins, SampleIndex::KeepLag);
            // The full series of the window, by scanning.
            std::vector<const Record*> inside;
            for (const Record& r : task0)
                if (r.time > from && r.time <= to)
                    inside.push_back(&r);
            QVERIFY(inside.size() > static_cast<size_t>(4 * bins)); // decimation is exercised
            QVERIFY(out.size() <= static_cast<size_t>(4 * bins + 2));
            // Real samples in time order.
            size_t k = 0;
            for (const EntitySample& s : out) {
                while (k < task0.size() && task0[k].time < s.time.count())
                    ++k;
                QVERIFY(k < task0.size());
                QCOMPARE(task0[k].payload.sample.vlag, s.vlag);
                QCOMPARE(task0[k].payload.sample.vruntime, s.vruntime);
            }
            for (size_t i = 1; i < out.size(); ++i)
                QVERIFY(out[i - 1].time < out[i].time);
            // The window's lowest and highest lag are drawn, and so are its first and last
            // samples and one sample beyond each edge.
            const auto [lo, hi] = std::minmax_element(
                inside.begin(), inside.end(), [](const Record* a, const Record* b) {
                    return a->payload.sample.vlag < b->payload.sample.vlag;
                });
            const auto hasLag = [&](int32_t lag) {
                return std::any_of(
                    out.begin(), out.end(), [&](const EntitySample& s) { return s.vlag == lag; });
            };
            const auto has = [&](const Record* r) {
                return std::any_of(out.begin(), out.end(),
                    [&](const EntitySample& s) { return s.time.count() == r->time; });
            };
            QVERIFY(hasLag((*lo)->payload.sample.vlag));
            QVERIFY(hasLag((*hi)->payload.sample.vlag));
            QVERIFY(has(inside.front()));
            QVERIFY(has(inside.back()));
            if (task0.front().time <= from)
                QVERIFY(out.front().time.count() <= from);
            if (task0.back().time > to)
                QVERIFY(out.back().time.count() > to);
        }
    }
};

QTEST_APPLESS_MAIN(TestLevelOfDetail)
#include "tst_levelofdetail.moc"
