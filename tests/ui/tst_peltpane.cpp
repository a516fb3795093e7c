// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline's PELT pane and per-task lag band (issue 39 parts 3 and 4), in the Qt-free model
// layer (ui/timeline/model): the series the panes draw, checked against hand-computed values.
//  - peltLines(): each value held from one sample to the next, the cfs_rq's lines broken where
//    the entity changes cfs_rq; hand-made samples.
//  - one nice-0 hog alone on one CPU from t = 0: its PELT averages and its cfs_rq's at every
//    sample, against the kernel's integer PELT written out here from docs/kernel-model.md §6.6
//    (1024 µs periods, y^32 = 1/2, LOAD_AVG_MAX = 47742, the decay table floor((2^32 − 1)·y^n)),
//    and against the geometric series itself: util_avg = 1024 − 512·y^p after p periods;
//  - decimation keeps every PELT excursion (min/max per pixel column) and invents none;
//  - a group entity's own averages (/g@0) in the pane's series and in samples.csv, against the
//    same hand-derived sums;
//  - the lag band per task: the clamp in force (§4.1): its own slice (own_slice) or the largest
//    slice queued on its cfs_rq (max_slice_tick, from the MaxSlice records), its weight, the
//    rule at that time.
#include "core/record/recording.h"
#include "core/record/streamexport.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/timeline/model/entitylines.h"
#include "ui/timeline/model/envelope.h"
#include "ui/timeline/model/lagband.h"
#include "ui/timeline/model/peltlines.h"
#include "ui/timeline/model/sampleindex.h"

#include <QTest>

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

using namespace schedlab;
using namespace schedlab::ui;

namespace {

constexpr int64_t kMs = 1'000'000;

EntitySample peltSample(int64_t t, uint16_t cpu, PeltValues p)
{
    EntitySample s;
    s.time = Nanoseconds{t};
    s.cpu = cpu;
    s.hasPelt = true;
    s.pelt = p;
    return s;
}

/// The kernel's integer PELT (kernel/sched/pelt.c), written from docs/kernel-model.md §6.6.
struct RefPelt
{
    static constexpr uint64_t kLoadAvgMax = 47742;
    static constexpr uint64_t kMinDivider = kLoadAvgMax - 1024;
    static uint32_t yInv(uint64_t n) // floor((2^32 − 1) · y^n), y = 2^(−1/32), n < 32
    {
        return static_cast<uint32_t>(
            std::floor(4294967295.0L * std::pow(2.0L, -static_cast<long double>(n) / 32)));
    }
    static uint64_t decay(uint64_t val, uint64_t n)
    {
        if (n > 32 * 63)
            return 0;
        val >>= n / 32;
        n %= 32;
        // mul_u64_u32_shr(val, yInv, 32): the product in two halves (val < 2^64, yInv < 2^32).
        const uint64_t m = yInv(n);
        return (val >> 32) * m + (((val & 0xffffffffu) * m) >> 32);
    }
    uint64_t loadSum = 0, runnableSum = 0, utilSum = 0;
    uint64_t loadAvg = 0, runnableAvg = 0, utilAvg = 0;
    uint32_t periodContrib = 0;
    int64_t lastUpdate = 0;
    /// ___update_load_sum() then, when a period ended, ___update_load_avg().
    void update(int64_t now, uint64_t load, uint64_t runnable, bool running, uint64_t avgLoad)
    {
        uint64_t delta = static_cast<uint64_t>(now - lastUpdate) >> 10;
        if (!delta)
            return;
        lastUpdate += static_cast<int64_t>(delta << 10);
        uint64_t contrib = delta;
        delta += periodContrib;
        const uint64_t periods = delta / 1024;
        if (periods) {
            loadSum = decay(loadSum, periods);
            runnableSum = decay(runnableSum, periods);
            utilSum = decay(utilSum, periods);
            delta %= 1024;
            // __accumulate_pelt_segments(periods, 1024 − period_contrib, delta)
            contrib = decay(1024 - periodContrib, periods)
                + (kLoadAvgMax - decay(kLoadAvgMax, periods) - 1024) + delta;
        }
        periodContrib = static_cast<uint32_t>(delta);
        loadSum += load * contrib;
        runnableSum += (runnable * contrib) << 10;
        if (running)
            utilSum += contrib << 10;
        if (!periods)
            return;
        const uint64_t divider = kMinDivider + periodContrib;
        loadAvg = avgLoad * loadSum / divider;
        runnableAvg = runnableSum / divider;
        utilAvg = utilSum / divider;
    }
};

LoadResult load(const char* json)
{
    return parseScenario(json, "test.json");
}

/// @p scenario run to its end with PELT recorded.
std::unique_ptr<Simulation> runWithPelt(const Scenario& scenario)
{
    RunOptions options;
    options.recordPelt = true;
    auto sim = std::make_unique<Simulation>(scenario, options);
    sim->run();
    return sim;
}

/// One nice-0 entity that runs alone on one CPU from t = 0 (HZ 1000) and its cfs_rq: their
/// six averages (load, runnable, util; the cfs_rq's load, runnable, util) at the sample of
/// each tick k = 0…@p ticks, from the kernel's integer PELT (RefPelt).
///
/// At t = 0 the entity is attached (§6.6: a new task's load_avg is its weight, 1024; its
/// util_avg half the empty CPU's spare capacity, (1024 − 0) / 2 = 512; runnable_avg = util_avg)
/// with sums avg · divider, divider = LOAD_AVG_MAX − 1024 + period_contrib = 46718 (the
/// unweighted load_sum: 1024 · 46718 / 1024); its cfs_rq gains the same (load_sum weighted).
/// PELT is updated at every tick (entity_tick(): update_curr(), whose sample is recorded, then
/// update_load_avg()), so the sample at tick k shows the averages of tick k − 1.
std::map<int64_t, std::array<uint64_t, 6>> loneRunnerAverages(int64_t ticks)
{
    RefPelt se, rq;
    se.loadSum = 46718;
    se.runnableSum = se.utilSum = 512 * 46718;
    rq.loadSum = 1024 * 46718;
    rq.runnableSum = rq.utilSum = 512 * 46718;
    se.loadAvg = rq.loadAvg = 1024;
    se.runnableAvg = se.utilAvg = rq.runnableAvg = rq.utilAvg = 512;
    std::map<int64_t, std::array<uint64_t, 6>> expected; // sample time → the six averages
    for (int64_t k = 0; k <= ticks; ++k) {
        expected[k * kMs] = {
            se.loadAvg, se.runnableAvg, se.utilAvg, rq.loadAvg, rq.runnableAvg, rq.utilAvg};
        se.update(k * kMs, 1, 1, true, 1024); // the entity: load_sum unweighted
        rq.update(k * kMs, 1024, 1, true, 1); // its cfs_rq: weighted by its load
    }
    return expected;
}

} // namespace

class TstPeltPane : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void peltLinesHoldBetweenSamples();
    void hogFollowsTheKernelSums();
    void linesEndAtExit();
    void groupEntityFollowsTheKernelSums();
    void groupSummariesBuiltWhileIndexingAreTheSame();
    void decimationKeepsEveryExcursion();
    void bandLimitFormula();
    void bandFollowsSliceWeightAndRule();
    void queueMaxSliceFollowsTheQueue();
    void choiceEpochsFollowActions();
    void bandPerTaskInARun();
};

void TstPeltPane::peltLinesHoldBetweenSamples()
{
    // Three samples on CPU 0, then one on CPU 1 (a migration): the values hold to the next
    // sample; the cfs_rq's lines and counts break at the move, the entity's do not.
    std::vector<EntitySample> s{
        peltSample(0, 0, {100, 200, 300, 1000, 2000, 3000, 2, 1}),
        peltSample(10, 0, {110, 210, 310, 1100, 2100, 3100, 3, 2}),
        peltSample(10, 0, {120, 220, 320, 1200, 2200, 3200, 2, 2}), // same instant: both kept
        peltSample(30, 1, {130, 230, 330, 500, 600, 700, 1, 1}),
    };
    EntitySample noPelt;
    noPelt.time = Nanoseconds{20};
    s.insert(s.begin() + 3, noPelt); // a sample without PELT is skipped
    const PeltLines l = peltLines(s, Nanoseconds{40});
    const std::vector<LinePoint> util{{Nanoseconds{0}, 300}, {Nanoseconds{10}, 300},
        {Nanoseconds{10}, 310}, {Nanoseconds{10}, 320}, {Nanoseconds{30}, 320},
        {Nanoseconds{30}, 330}, {Nanoseconds{40}, 330}};
    QCOMPARE(l.util, util);
    // The cfs_rq's util: held to 10, then broken before 30 (another CPU's queue), held to 40.
    const std::vector<LinePoint> rqUtil{{Nanoseconds{0}, 3000}, {Nanoseconds{10}, 3000},
        {Nanoseconds{10}, 3100}, {Nanoseconds{10}, 3200}, {Nanoseconds{30}, 700, true},
        {Nanoseconds{40}, 700}};
    QCOMPARE(l.rqUtil, rqUtil);
    const std::vector<LinePoint> queued{{Nanoseconds{0}, 2}, {Nanoseconds{10}, 2},
        {Nanoseconds{10}, 3}, {Nanoseconds{10}, 2}, {Nanoseconds{30}, 1, true},
        {Nanoseconds{40}, 1}};
    QCOMPARE(l.hNrQueued, queued);
    QCOMPARE(l.load.back(), (LinePoint{Nanoseconds{40}, 130}));
    QCOMPARE(l.hNrRunnable.front(), (LinePoint{Nanoseconds{0}, 1}));
}

void TstPeltPane::linesEndAtExit()
{
    // HZ 100 (no tick before 10 ms): a runs first, 3 ms, and exits at 3 ms (no exit move:
    // exit_group_move false); b spins to 20 ms. The
    // index knows a's exit, not b's; a's lag, weight and PELT lines end at 3 ms where the view
    // holds them (it passes min(present, exit) as their end), b's run on to the present.
    const LoadResult loaded = load(R"({"schedlab": 1, "name": "exit", "duration": "20ms",
        "kernel": {"profile": "7.1", "hz": 100, "overrides": {"exit_group_move": false}},
        "machine": {"cpus": 1},
        "tasks": [{"name": "a", "program": [{"run": "3ms"}]},
                  {"name": "b", "program": [{"run": "forever"}]}]})");
    QVERIFY(loaded.ok());
    const auto sim = runWithPelt(*loaded.scenario);
    SampleIndex index;
    index.update(sim->recording());
    QCOMPARE(index.exitTime(0), Nanoseconds{3 * kMs});
    QCOMPARE(index.exitTime(1), Nanoseconds{-1});
    const Nanoseconds now{20 * kMs};
    const auto a = index.series(sim->recording(), 0, Nanoseconds{0}, now);
    QVERIFY(!a.empty());
    const Nanoseconds until = std::min(now, index.exitTime(0));
    const EntityLines lines = entityLines(a, 0, until);
    QVERIFY(!lines.lag.empty() && !lines.weight.empty());
    QCOMPARE(lines.lag.back().time, Nanoseconds{3 * kMs});
    QCOMPARE(lines.weight.back().time, Nanoseconds{3 * kMs});
    const PeltLines p = peltLines(a, until);
    QVERIFY(!p.util.empty());
    QCOMPARE(p.util.back().time, Nanoseconds{3 * kMs});
    // Held to the present without the exit (what the lines showed before): past it.
    QVERIFY(entityLines(a, 0, now).lag.back().time > Nanoseconds{3 * kMs});
}

void TstPeltPane::hogFollowsTheKernelSums()
{
    // One nice-0 hog alone on one CPU, HZ 1000, from t = 0.
    const LoadResult loaded = load(R"({"schedlab": 1, "name": "hog", "duration": "70ms",
        "kernel": {"profile": "7.1", "hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "hog", "program": [{"run": "forever"}]}]})");
    QVERIFY(loaded.ok());
    const auto sim = runWithPelt(*loaded.scenario);
    SampleIndex index;
    index.update(sim->recording());
    QVERIFY(index.hasPelt());
    const std::vector<EntitySample> samples =
        index.series(sim->recording(), 0, Nanoseconds{0}, Nanoseconds{70 * kMs});
    QVERIFY(samples.size() >= 70);

    const auto expected = loneRunnerAverages(70);
    int checked = 0;
    for (const EntitySample& s : samples) {
        if (s.time <= Nanoseconds{0} || s.time.count() % kMs != 0)
            continue; // the enqueue at 0 (counted before it is queued)
        const auto& e = expected.at(s.time.count());
        const std::array<uint64_t, 6> got{s.pelt.load, s.pelt.runnable, s.pelt.util, s.pelt.rqLoad,
            s.pelt.rqRunnable, s.pelt.rqUtil};
        if (got != e)
            qWarning() << "t" << s.time.count() << "expected" << e[0] << e[1] << e[2] << e[3]
                       << e[4] << e[5];
        QCOMPARE(got, e);
        QCOMPARE(s.pelt.hNrQueued, 1);
        QCOMPARE(s.pelt.hNrRunnable, 1);
        ++checked;
    }
    QVERIFY(checked >= 69);

    // The series itself: util_avg approaches 1024 as 1024 − 512·y^p after p periods of 1024 µs
    // (y^32 = 1/2): at the sample of 35 ms (the update of 34 ms: 34e6 / 1048576 = 32.4 periods)
    // 1024 − 512 · 2^(−32.42/32) = 770.3; at 68 ms (67 ms: 63.9 periods) 895.7. Integer
    // truncation and the divider's period_contrib keep the kernel within 3 of these.
    const auto utilAt = [&](int64_t t) {
        for (const EntitySample& s : samples)
            if (s.time.count() == t)
                return static_cast<double>(s.pelt.util);
        return -1.0;
    };
    QVERIFY(std::abs(utilAt(35 * kMs) - 770.3) <= 3);
    QVERIFY(std::abs(utilAt(68 * kMs) - 895.7) <= 3);

    // The pane's lines: the samples' values held, to the end of the run.
    const PeltLines lines = peltLines(samples, Nanoseconds{70 * kMs});
    QCOMPARE(lines.util.back().time, Nanoseconds{70 * kMs});
    QCOMPARE(static_cast<uint64_t>(lines.util.back().value), expected.at(70 * kMs)[2]);
    for (size_t i = 1; i < lines.util.size(); ++i)
        QVERIFY(lines.util[i].value >= lines.util[i - 1].value); // a hog's util only grows
}

void TstPeltPane::groupEntityFollowsTheKernelSums()
{
    // The group entity /g@0 of a cgroup whose only task is a nice-0 hog, alone on one CPU from
    // t = 0, HZ 1000. By hand (§6.2, §6.6):
    //  - its weight is tg_shares = 1024 at all times: calc_group_shares() with one CPU gives
    //    tg_shares · load / (tg->load_avg − contrib + load) = tg_shares · load / load;
    //  - when /g is created the group entity is attached to the root's queue with empty averages
    //    (online_fair_sched_group(); load_sum 1, so the root's load_sum is 1024);
    //  - at t = 0 the hog attaches to /g's queue with load 1024, util = runnable = 512 (as above)
    //    and marks the change; the group entity, enqueued on the root's queue next, takes its
    //    queue's util_avg 512 and runnable_avg 512 and load_sum = min(marked 46718 + its own 1,
    //    divider 46718) = 46718, so load_avg = 1024 · 46718 / 46718 = 1024, and the root gains
    //    the same once: load_avg 1024 (load_sum 1024 + 1024 · 46718 − 1024 · 1), util 512;
    //  - from then on it runs exactly when the hog runs, its runnable weight is /g's
    //    h_nr_runnable = 1, and nothing attaches or detaches again.
    // So its averages and its cfs_rq's (the root's, loaded by its weight 1024) follow the same
    // recurrence as a lone task's and its queue's: loneRunnerAverages(), sample for sample at
    // each tick (entity_tick() samples and updates every level, the task's first). The root's
    // h_nr_queued and h_nr_runnable count the hog: 1 and 1.
    const LoadResult loaded = load(R"({"schedlab": 1, "name": "group hog", "duration": "70ms",
        "kernel": {"profile": "7.1", "hz": 1000}, "machine": {"cpus": 1},
        "cgroups": [{"path": "/g"}],
        "tasks": [{"name": "hog", "cgroup": "/g", "program": [{"run": "forever"}]}]})");
    QVERIFY(loaded.ok());
    const auto sim = runWithPelt(*loaded.scenario);
    const Recording& rec = sim->recording();
    const auto g = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), "/g");
    QVERIFY(g != rec.groupPaths.end());
    const int32_t raw = EntityRef::group(static_cast<int32_t>(g - rec.groupPaths.begin()), 0).raw;
    QCOMPARE(entityName(EntityRef{raw}, rec), std::string("/g@0"));
    SampleIndex index;
    index.update(rec);
    // The pane's series: every sample of the group entity (no decimation: 0 bins).
    const std::vector<EntitySample> samples = index.groupSeries(
        rec, raw, Nanoseconds{0}, Nanoseconds{70 * kMs}, 0, SampleIndex::KeepPelt);
    const auto expected = loneRunnerAverages(70);
    int checked = 0;
    for (const EntitySample& s : samples) {
        QVERIFY(s.hasPelt);
        if (s.time <= Nanoseconds{0} || s.time.count() % kMs != 0)
            continue; // the enqueue at 0 (counted before it is queued)
        const auto& e = expected.at(s.time.count());
        const std::array<uint64_t, 6> got{s.pelt.load, s.pelt.runnable, s.pelt.util, s.pelt.rqLoad,
            s.pelt.rqRunnable, s.pelt.rqUtil};
        if (got != e)
            qWarning() << "t" << s.time.count() << "expected" << e[0] << e[1] << e[2] << e[3]
                       << e[4] << e[5] << "got" << got[0] << got[1] << got[2] << got[3] << got[4]
                       << got[5];
        QCOMPARE(got, e);
        QCOMPARE(s.pelt.hNrQueued, 1);
        QCOMPARE(s.pelt.hNrRunnable, 1);
        QCOMPARE(s.weight, 1u << 20); // tg_shares, scaled
        ++checked;
    }
    QVERIFY(checked >= 69);
    // What the pane draws: the values held to the end of the run.
    const PeltLines lines = peltLines(samples, Nanoseconds{70 * kMs});
    QCOMPARE(lines.util.back(),
        (LinePoint{Nanoseconds{70 * kMs}, static_cast<int64_t>(expected.at(70 * kMs)[2])}));
    QCOMPARE(lines.load.back().value, static_cast<int64_t>(expected.at(70 * kMs)[0]));

    // samples.csv carries the same series: the group entity's rows at the ticks, columns
    // load_avg … rq_util_avg, h_nr_queued, h_nr_runnable (the 13th to the 20th).
    std::ostringstream csv;
    SamplesCsvWriter writer(csv);
    writer.consume(rec.records().data(), rec.records().size(), rec);
    writer.finish(rec, sim->now());
    std::istringstream lines2(csv.str());
    std::string line;
    int rows = 0;
    while (std::getline(lines2, line)) {
        std::vector<std::string> f;
        std::stringstream cells(line);
        for (std::string c; std::getline(cells, c, ',');)
            f.push_back(c);
        if (f.size() < 20 || f[1] != "/g@0" || f[2] != "group")
            continue;
        const int64_t t = std::stoll(f[0]);
        if (t <= 0 || t % kMs != 0)
            continue;
        const auto& e = expected.at(t);
        for (size_t k = 0; k < 3; ++k) // the entity's own (the root's: see above)
            QCOMPARE(std::stoull(f[12 + k]), e[k]);
        // The root's columns are the pane's values, sample for sample.
        const auto it = std::find_if(samples.begin(), samples.end(),
            [&](const EntitySample& x) { return x.time.count() == t; });
        QVERIFY(it != samples.end());
        QCOMPARE(std::stoull(f[15]), uint64_t{it->pelt.rqLoad});
        QCOMPARE(std::stoull(f[17]), uint64_t{it->pelt.rqUtil});
        QCOMPARE(f[18], std::string("1"));
        QCOMPARE(f[19], std::string("1"));
        ++rows;
    }
    QCOMPARE(rows, checked);
}

void TstPeltPane::groupSummariesBuiltWhileIndexingAreTheSame()
{
    // The weight pane's group entities are summarized in the indexing pass
    // (SampleIndex::summarizeGroupsWhileIndexing()) instead of when first drawn: the decimated
    // series must be the very ones the lazily built summaries give, sample for sample, in every
    // window and at every column count. Two groups on two CPUs, so the shares (and the group
    // entities' weights) move at every tick; the second index summarizes only the first group
    // entity in its pass, so both ways are read from it as well.
    const LoadResult loaded = load(R"({"schedlab": 1, "name": "two groups", "duration": "400ms",
        "kernel": {"profile": "7.1", "hz": 1000}, "machine": {"cpus": 2},
        "cgroups": [{"path": "/a", "cpu.weight": 100}, {"path": "/b", "cpu.weight": 300}],
        "tasks": [{"name": "a", "count": 3, "cgroup": "/a", "program": [{"run": "forever"}]},
                  {"name": "b", "count": 2, "cgroup": "/b", "program": [{"loop": [
                      {"run": "3ms"}, {"sleep": "2ms"}]}]}]})");
    QVERIFY(loaded.ok());
    const auto sim = runWithPelt(*loaded.scenario);
    const Recording& rec = sim->recording();
    SampleIndex lazy;
    lazy.update(rec);
    SampleIndex inPass;
    inPass.summarizeGroupsWhileIndexing(1);
    inPass.update(rec);
    std::vector<int32_t> groups;
    for (int32_t g = 0; g < static_cast<int32_t>(rec.groupPaths.size()); ++g)
        if (rec.groupPaths[static_cast<size_t>(g)] != "/")
            for (int32_t cpu = 0; cpu < 2; ++cpu)
                groups.push_back(EntityRef::group(g, cpu).raw);
    QVERIFY(groups.size() >= 4);
    int decimated = 0;
    for (const int32_t raw : groups) {
        for (const auto& [from, to] : {std::pair{0, 400}, std::pair{37, 211}, std::pair{300, 400}})
            for (const int bins : {0, 7, 50, 333}) {
                const auto a = lazy.groupSeries(rec, raw, Nanoseconds{from * kMs},
                    Nanoseconds{to * kMs}, bins, SampleIndex::KeepWeight);
                const auto b = inPass.groupSeries(rec, raw, Nanoseconds{from * kMs},
                    Nanoseconds{to * kMs}, bins, SampleIndex::KeepWeight);
                QCOMPARE(b.size(), a.size());
                for (size_t i = 0; i < a.size(); ++i) {
                    QCOMPARE(b[i].time, a[i].time);
                    QCOMPARE(b[i].weight, a[i].weight);
                    QCOMPARE(b[i].afterGap, a[i].afterGap);
                }
                const auto all = lazy.groupSeries(rec, raw, Nanoseconds{from * kMs},
                    Nanoseconds{to * kMs}, 0, SampleIndex::KeepWeight);
                if (bins > 0 && a.size() < all.size())
                    ++decimated;
            }
    }
    QVERIFY(decimated > 0); // the summaries were read, not only every sample
}

void TstPeltPane::decimationKeepsEveryExcursion()
{
    // A task's samples every 10 µs for 100 ms with PELT values that zig-zag (util) and spike
    // (h_nr_queued once to 9): through the decimation of 50 columns and the held line, each
    // column drawn spans exactly what the full held line spans there.
    Recording rec;
    rec.taskNames = {"t"};
    rec.cpus = 1;
    constexpr int64_t kStep = 10'000;
    for (int64_t i = 0; i <= 10'000; ++i) {
        Record s;
        s.time = i * kStep;
        s.kind = RecordKind::Sample;
        s.entity = EntityRef::task(0);
        s.flags = Record::kQueued;
        rec.append(s);
        Record p = s;
        p.kind = RecordKind::Pelt;
        p.flags = 0;
        const auto zig = static_cast<uint32_t>((i * 37) % 1000);
        p.payload.pelt = {zig / 2, zig, zig, 1000 + zig, 2000, 3000 - zig, i == 4321 ? 9 : 2, 1};
        rec.append(p);
    }
    SampleIndex index;
    index.update(rec);
    const Nanoseconds from{0}, to{100 * kMs};
    constexpr int kColumns = 50;
    const auto decimated = index.decimatedSeries(rec, 0, from, to, kColumns, SampleIndex::KeepPelt);
    QVERIFY(decimated.size() < 10'001 / 4); // it did decimate
    const auto full = index.series(rec, 0, from, to);
    const PeltLines drawn = peltLines(decimated, to);
    const PeltLines truth = peltLines(full, to);
    const auto extents = [&](const std::vector<LinePoint>& line) {
        std::vector<std::pair<int64_t, int64_t>> e(kColumns, {INT64_MAX, INT64_MIN});
        for (const LinePoint& p : envelope(line, from, to, kColumns)) {
            const int c = std::min(columnOf(p.time, from, to, kColumns), kColumns - 1);
            e[static_cast<size_t>(c)].first = std::min(e[static_cast<size_t>(c)].first, p.value);
            e[static_cast<size_t>(c)].second = std::max(e[static_cast<size_t>(c)].second, p.value);
        }
        return e;
    };
    QCOMPARE(extents(drawn.util), extents(truth.util));
    QCOMPARE(extents(drawn.rqUtil), extents(truth.rqUtil));
    QCOMPARE(extents(drawn.hNrQueued), extents(truth.hNrQueued));
    const auto spike = extents(drawn.hNrQueued)[static_cast<size_t>(
        columnOf(Nanoseconds{4321 * kStep}, from, to, kColumns))];
    QCOMPARE(spike.second, int64_t{9});
}

void TstPeltPane::bandLimitFormula()
{
    // §4.1 step 3 with calc_delta_fair(x) = x · 2^20 / w (scaled weights; nice 0: w = 2^20).
    constexpr uint32_t kNice0 = 1u << 20;
    // A 10 ms custom slice, tick 1 ms: own_slice max(20, 1) = 20 ms; max_slice_tick 11 ms.
    QCOMPARE(lagBandLimit(LagClamp::OwnSlice, 10 * kMs, kMs, kNice0), 20 * kMs);
    QCOMPARE(lagBandLimit(LagClamp::MaxSliceTick, 10 * kMs, kMs, kNice0), 11 * kMs);
    // The base slice 0.7 ms: own_slice max(1.4, 1) = 1.4 ms; max_slice_tick 1.7 ms. At HZ 250
    // (tick 4 ms) own_slice gives max(1.4, 4) = 4 ms.
    QCOMPARE(lagBandLimit(LagClamp::OwnSlice, 700'000, kMs, kNice0), int64_t{1'400'000});
    QCOMPARE(lagBandLimit(LagClamp::MaxSliceTick, 700'000, kMs, kNice0), int64_t{1'700'000});
    QCOMPARE(lagBandLimit(LagClamp::OwnSlice, 700'000, 4 * kMs, kNice0), 4 * kMs);
    // Weight 2048 (scaled 2^21, nice −5 is 3121): half the virtual limit; weight 0: none.
    QCOMPARE(lagBandLimit(LagClamp::MaxSliceTick, 10 * kMs, kMs, kNice0 * 2), 5'500'000);
    QCOMPARE(lagBandLimit(LagClamp::MaxSliceTick, 10 * kMs, kMs, 0), int64_t{0});
}

void TstPeltPane::bandFollowsSliceWeightAndRule()
{
    constexpr int64_t kNice0 = 1 << 20;
    // Weight held at nice 0 from 0 to 50 ms, then 2^21 (held line: old value, then the new).
    const std::vector<LinePoint> weight{{Nanoseconds{0}, kNice0}, {Nanoseconds{50 * kMs}, kNice0},
        {Nanoseconds{50 * kMs}, 2 * kNice0}, {Nanoseconds{100 * kMs}, 2 * kNice0}};
    // own_slice until 30 ms, max_slice_tick from then; a slice of 10 ms from the first renewal
    // at 5 ms (held before it too), 3 ms from 70 ms.
    const ClampRules rules{
        {Nanoseconds{0}, LagClamp::OwnSlice}, {Nanoseconds{30 * kMs}, LagClamp::MaxSliceTick}};
    const std::vector<std::pair<Nanoseconds, int64_t>> slices{
        {Nanoseconds{5 * kMs}, 10 * kMs}, {Nanoseconds{70 * kMs}, 3 * kMs}};
    const auto band = lagBand(weight, rules, slices, 700'000, kMs, Nanoseconds{100 * kMs});
    // 0–30: own_slice 2·10 = 20 ms; 30–50: 10 + 1 = 11 ms; 50–70: 11 / 2 = 5.5 ms (weight ×2);
    // 70–100: (3 + 1) / 2 = 2 ms.
    const auto at = [&](int64_t t) { // the band's value just after t (the last point at t)
        int64_t v = -1;
        for (const LinePoint& p : band)
            if (p.time.count() <= t)
                v = p.value;
        return v;
    };
    QCOMPARE(at(0), 20 * kMs);
    QCOMPARE(at(29 * kMs), 20 * kMs);
    QCOMPARE(at(30 * kMs), 11 * kMs);
    QCOMPARE(at(50 * kMs), int64_t{5'500'000});
    QCOMPARE(at(70 * kMs), 2 * kMs);
    QCOMPARE(band.back(), (LinePoint{Nanoseconds{100 * kMs}, 2 * kMs}));
    // A step, never a ramp: before each change the old value is held to the change's time.
    for (size_t i = 1; i < band.size(); ++i)
        QVERIFY(band[i].time > band[i - 1].time || band[i].time == band[i - 1].time);
    QVERIFY(std::find(band.begin(), band.end(), LinePoint{Nanoseconds{30 * kMs}, 20 * kMs})
        != band.end());
    // No slice known: the default slice (0.7 ms; own_slice: 1.4 ms).
    QCOMPARE(lagBand(weight, rules, {}, 700'000, kMs, Nanoseconds{10 * kMs}).front().value,
        int64_t{1'400'000});
}

void TstPeltPane::queueMaxSliceFollowsTheQueue()
{
    // A task's samples: queued on CPU 0's root queue at 0 and 4 ms, dequeued at 8 ms (asleep),
    // queued on CPU 1's cfs_rq of group 2 at 12 ms (a migration into a cgroup), dequeued at 20 ms.
    const auto sample = [](int64_t t, uint16_t cpu, int16_t group, bool queued) {
        EntitySample e;
        e.time = Nanoseconds{t};
        e.cpu = cpu;
        e.group = group;
        e.flags = queued ? Record::kQueued : 0;
        return e;
    };
    const std::vector<EntitySample> samples{sample(0, 0, 0, true), sample(4 * kMs, 0, 0, true),
        sample(8 * kMs, 0, 0, false), sample(12 * kMs, 1, 2, true), sample(20 * kMs, 1, 2, false)};
    // CPU 0's root queue: 10 ms from 0 (a 10 ms slice queued), 3 ms from 6 ms (it left),
    // 20 ms from 9 ms (while the task sleeps: not its clamp), 0.7 ms at 8 ms (recorded after the
    // task's dequeue at the same time: the queue without it). CPU 1's group-2 queue: 5 ms from
    // 1 ms, 0.7 ms from 15 ms, 30 ms from 25 ms (after the task left).
    const SliceSteps cpu0{{Nanoseconds{0}, 10 * kMs}, {Nanoseconds{6 * kMs}, 3 * kMs},
        {Nanoseconds{8 * kMs}, 700'000}, {Nanoseconds{9 * kMs}, 20 * kMs}};
    const SliceSteps cpu1g2{{Nanoseconds{1 * kMs}, 5 * kMs}, {Nanoseconds{15 * kMs}, 700'000},
        {Nanoseconds{25 * kMs}, 30 * kMs}};
    const auto queue = [&](int cpu, int group) -> const SliceSteps* {
        if (cpu == 0 && group == 0)
            return &cpu0;
        if (cpu == 1 && group == 2)
            return &cpu1g2;
        return nullptr;
    };
    // 10 ms from 0, 3 ms from 6 (held through the sleep: the clamp its saved lag got at 8 ms),
    // 5 ms from 12 (the value in force on the new queue when it arrives), 0.7 ms from 15.
    const SliceSteps expected{{Nanoseconds{0}, 10 * kMs}, {Nanoseconds{6 * kMs}, 3 * kMs},
        {Nanoseconds{12 * kMs}, 5 * kMs}, {Nanoseconds{15 * kMs}, 700'000}};
    QCOMPARE(queueMaxSlices(samples, queue), expected);
    // A flat run queue (7.3) records the root's only: a sample in group 2 on CPU 0 reads it.
    // Its only sample is queued and nothing follows: every later step of the queue applies.
    const std::vector<EntitySample> flat{sample(0, 0, 2, true)};
    QCOMPARE(queueMaxSlices(flat, queue), cpu0);
    // No records: nothing (the band falls back to the own slice).
    QVERIFY(queueMaxSlices(samples, [](int, int) -> const SliceSteps* { return nullptr; }).empty());

    // The band from them (§4.1 step 3, nice 0: calc_delta_fair is the identity; tick 1 ms), own
    // slice 0.7 ms, max_slice_tick throughout: max(0.7, max_slice) + 1 ms.
    constexpr int64_t kNice0 = 1 << 20;
    const std::vector<LinePoint> weight{{Nanoseconds{0}, kNice0}, {Nanoseconds{30 * kMs}, kNice0}};
    const ClampRules rules{{Nanoseconds{0}, LagClamp::MaxSliceTick}};
    const auto band = lagBand(weight, rules, {}, 700'000, kMs, Nanoseconds{30 * kMs}, expected);
    const auto at = [&](int64_t t) {
        int64_t v = -1;
        for (const LinePoint& p : band)
            if (p.time.count() <= t)
                v = p.value;
        return v;
    };
    QCOMPARE(at(1 * kMs), 11 * kMs);            // 10 + 1
    QCOMPARE(at(7 * kMs), 4 * kMs);             // 3 + 1
    QCOMPARE(at(10 * kMs), 4 * kMs);            // asleep: held
    QCOMPARE(at(13 * kMs), 6 * kMs);            // 5 + 1
    QCOMPARE(at(16 * kMs), int64_t{1'700'000}); // max(0.7, 0.7) + 1
    // own_slice ignores the queue: max(2 · 0.7, 1) = 1.4 ms.
    const ClampRules own{{Nanoseconds{0}, LagClamp::OwnSlice}};
    QCOMPARE(lagBand(weight, own, {}, 700'000, kMs, Nanoseconds{30 * kMs}, expected).front().value,
        int64_t{1'400'000});
}

void TstPeltPane::choiceEpochsFollowActions()
{
    ProfileChoices start = findProfile("6.13")->choices;
    QCOMPARE(start.lagClamp, LagClamp::OwnSlice);
    Action a;
    a.at = Nanoseconds{200 * kMs};
    a.kind = Action::Kind::Profile;
    a.overrides = {{"lag_clamp", "max_slice_tick"}};
    Action same = a; // the same again later: no change, no epoch
    same.at = Nanoseconds{300 * kMs};
    const auto epochs = choiceEpochs("6.13", start, {same, a});
    QCOMPARE(epochs.size(), size_t{2});
    QCOMPARE(epochs[1].at, Nanoseconds{200 * kMs});
    QCOMPARE(epochs[1].choices.lagClamp, LagClamp::MaxSliceTick);
    QCOMPARE(epochs[1].changes, std::vector<std::string>{"lag_clamp=max_slice_tick"});
    const ClampRules rules = clampRules(epochs);
    QCOMPARE(rules.size(), size_t{2});
    QCOMPARE(rules[0].second, LagClamp::OwnSlice);
    QCOMPARE(rules[1].first, Nanoseconds{200 * kMs});
}

void TstPeltPane::bandPerTaskInARun()
{
    // Issue 39's reproducer of 6e3c0a4e1ad1: a 10 ms custom slice beside a default-slice
    // worker on one CPU (HZ 1000, base slice 0.7 ms: kernel-model.md §1.2's table), profile 6.13
    // (lag_clamp=own_slice), switched to max_slice_tick at 200 ms by an override; the long-slice
    // task is killed at 250 ms.
    const LoadResult loaded = load(R"({"schedlab": 1, "name": "clamp", "duration": "300ms",
        "kernel": {"profile": "6.13", "hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "long", "slice": "10ms", "program": [{"run": "forever"}]},
                  {"name": "w5", "program": [{"loop": [{"run": "0.5ms"}, {"sleep": "0.5ms"}]}]}],
        "actions": [{"at": "200ms", "profile": {"overrides": {"lag_clamp": "max_slice_tick"}}},
                    {"at": "250ms", "kill": "long"}]})");
    QVERIFY(loaded.ok());
    RunOptions options;
    options.recordMaxSlice = true; // as the window and `capture` run
    Simulation sim(*loaded.scenario, options);
    sim.run();
    SampleIndex index;
    index.update(sim.recording());
    const ClampRules rules = clampRules(
        choiceEpochs(sim.startProfileName(), sim.startChoices(), loaded.scenario->actions));
    QCOMPARE(rules.size(), size_t{2});
    const auto bandOf = [&](int task) {
        const auto samples =
            index.series(sim.recording(), task, Nanoseconds{0}, Nanoseconds{300 * kMs});
        const EntityLines lines = entityLines(samples, 0, Nanoseconds{300 * kMs});
        const SliceSteps queued = queueMaxSlices(
            samples, [&](int cpu, int group) { return index.maxSlices(cpu, group); });
        return lagBand(lines.weight, rules, index.sliceChanges(task), 700'000, kMs,
            Nanoseconds{300 * kMs}, queued);
    };
    const auto at = [](const std::vector<LinePoint>& band, int64_t t) {
        int64_t v = -1;
        for (const LinePoint& p : band)
            if (p.time.count() <= t)
                v = p.value;
        return v;
    };
    // Both nice 0 (calc_delta_fair is the identity). own_slice before 200 ms: long ±20 ms
    // (2 · 10), w5 ±1.4 ms (2 · 0.7, more than a tick). max_slice_tick from 200 ms: the largest
    // slice queued is long's 10 ms (a hog: always queued), so both ±11 ms (10 + 1) — w5 too,
    // also while it sleeps (the clamp its saved lag got) —; after long is killed at 250 ms w5's
    // queue holds its own 0.7 ms only: ±1.7 ms (0.7 + 1) from its next enqueue on.
    const auto longBand = bandOf(0);
    const auto w5Band = bandOf(1);
    QCOMPARE(at(longBand, 100 * kMs), 20 * kMs);
    QCOMPARE(at(longBand, 220 * kMs), 11 * kMs);
    QCOMPARE(at(w5Band, 100 * kMs), int64_t{1'400'000});
    for (int64_t t = 201 * kMs; t < 250 * kMs; t += kMs / 4)
        QCOMPARE(at(w5Band, t), 11 * kMs);
    QCOMPARE(at(w5Band, 260 * kMs), int64_t{1'700'000});
    QCOMPARE(at(w5Band, 299 * kMs), int64_t{1'700'000});
    // Without MaxSlice records (a recording made without recordMaxSlice) the band takes w5's
    // own slice: 0.7 + 1 = 1.7 ms after 200 ms, the least the clamp can be.
    Simulation plain(*loaded.scenario);
    plain.run();
    SampleIndex plainIndex;
    plainIndex.update(plain.recording());
    const auto plainSamples =
        plainIndex.series(plain.recording(), 1, Nanoseconds{0}, Nanoseconds{300 * kMs});
    const auto plainBand = lagBand(entityLines(plainSamples, 0, Nanoseconds{300 * kMs}).weight,
        rules, plainIndex.sliceChanges(1), 700'000, kMs, Nanoseconds{300 * kMs},
        queueMaxSlices(
            plainSamples, [&](int cpu, int group) { return plainIndex.maxSlices(cpu, group); }));
    QCOMPARE(at(plainBand, 220 * kMs), int64_t{1'700'000});
}

QTEST_GUILESS_MAIN(TstPeltPane)
#include "tst_peltpane.moc"
