// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of the fair class's formulas (core/fair/fairclass.h) on hand-built cfs_rq's, one
// kernel-model.md rule per test function. Every expected value is worked out by hand from the
// spec next to the row that uses it (notation of kernel-model.md §0: w scaled weight,
// ŵ = w >> 10, v vruntime, d deadline, vl saved virtual lag, V the weighted average vruntime).
// "trunc" is C division (toward zero, div_s64), "floor" the §3.2 floor of avg_vruntime().
#include <QTest>

#include <array>
#include <memory>
#include <vector>

// moc 6.4 cannot parse the C++20 core headers: hide them from it (the test class needs none).
#ifndef Q_MOC_RUN
#include "core/fair/fairclass.h"
#include "core/fair/taskgroup.h"
#include "core/fair/weights.h"
#include "core/kernel/catalogue.h"
#include "core/kernel/profile.h"
#include "core/sched/rq.h"
#include "support/fakemachine.h"
#endif

using namespace schedlab;

namespace {

// Row values use Qt's quint64/qint64 (unsigned/signed long long), the column types.
constexpr quint64 kW0 = quint64{1024} << 10;    // nice 0
constexpr quint64 kWm5 = quint64{3121} << 10;   // nice -5
constexpr quint64 kW5 = quint64{335} << 10;     // nice 5
constexpr quint64 kWm20 = quint64{88761} << 10; // nice -20
constexpr qint64 kSlice = 700000;               // base slice of 6.12+ on one CPU

/// A load_weight as the kernel would hold it: nice weights carry their sched_prio_to_wmult
/// inverse (set_load_weight()), anything else (group entities) gets it computed lazily.
LoadWeight lw(uint64_t weight)
{
    if (weight % 1024 == 0)
        for (size_t i = 0; i < kPrioToWeight.size(); ++i)
            if (scaleLoad(kPrioToWeight[i]) == weight)
                return {weight, kPrioToWmult[i]};
    return loadWeightOf(weight);
}

using test::FakeMachine;
using Rec = FakeMachine::Record;

/// One CPU's run queue with a fair class configured like a profile. Members are declared so that
/// the cfs_rq (whose destructor unlinks the trees) dies before the entities it may still hold.
struct Bench
{
    explicit Bench(
        const QString& profile, const QStringList& features = {}, int64_t tickNs = 1000000)
    {
        const KernelProfile* p = findProfile(profile.toStdString());
        if (!p)
            qFatal("unknown profile");
        choices = p->choices;
        traits = p->traits;
        featureSet = p->features;
        for (const QString& f : features) {
            const qsizetype eq = f.indexOf(u'=');
            if (eq >= 0) { // an override: a behaviour choice or a catalogue trait
                if (!applyOverride(
                        choices, traits, f.left(eq).toStdString(), f.mid(eq + 1).toStdString()))
                    qFatal("unknown override");
            } else if (!featureSet.apply(f.toStdString())) {
                qFatal("unknown feature");
            }
        }
        rq = std::make_unique<Rq>(0, choices);
        FairParams params;
        params.choices = &choices;
        params.traits = &traits;
        params.features = &featureSet;
        params.tickNs = tickNs;
        params.baseSlice = p->baseSlice.count();
        params.normalizedBaseSlice = p->baseSlice.count();
        fair = std::make_unique<FairClass>(params, hooks, groups);
    }
    ~Bench()
    {
        cfs().curr = nullptr;
        cfs().clearTrees();
    }
    Bench(const Bench&) = delete;
    Bench& operator=(const Bench&) = delete;

    CfsRq& cfs() { return *rq->cfs; }

    SchedEntity& make(size_t i, uint64_t v, uint64_t weight, uint64_t d = 0, int64_t slice = kSlice)
    {
        SchedEntity& e = se.at(i);
        e.vruntime = v;
        e.deadline = d;
        e.load = lw(weight);
        e.slice = slice;
        e.cfsRq = &cfs();
        return e;
    }
    /// Puts @p e into the tree as enqueue_entity() would (tree, sums, load, nr_queued).
    void queue(SchedEntity& e)
    {
        e.onRq = true;
        cfs().enqueueTree(e);
        cfs().loadWeight += e.load.weight;
        ++cfs().nrQueued;
    }
    /// Makes @p e the queued, running entity (not in the tree, counted in V explicitly).
    void setCurr(SchedEntity& e)
    {
        e.onRq = true;
        e.execStart = hooks.now;
        cfs().curr = &e;
        rq->curr = &e;
        cfs().loadWeight += e.load.weight;
        ++cfs().nrQueued;
    }

    ProfileChoices choices;
    ProfileTraits traits;
    FeatureSet featureSet;
    FakeMachine hooks{0}; // the machine context: a clock the test sets, what the class asked
    std::vector<TaskGroup> groups;
    std::array<SchedEntity, 4> se;
    std::unique_ptr<Rq> rq;
    std::unique_ptr<FairClass> fair;
};

} // namespace

class TestFairFormulas : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void placeEntity_data();
    void placeEntity();
    void updateEntityLag_data();
    void updateEntityLag();
    void updateDeadline_data();
    void updateDeadline();
    void reweightEntity_data();
    void reweightEntity();
    void reweightOffRq_data();
    void reweightOffRq();
    void pickEevdf_data();
    void pickEevdf();
    void checkPreemptWakeup_data();
    void checkPreemptWakeup();
    void updateProtectSlice_data();
    void updateProtectSlice();
    void setProtectSlice_data();
    void setProtectSlice();
    void calcGroupShares_data();
    void calcGroupShares();
    void calcDelta_data();
    void calcDelta();
};

// --- §4.2 place_entity ---------------------------------------------------------------------------

void TestFairFormulas::placeEntity_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("features");
    QTest::addColumn<quint64>("currW"); // 0: no curr
    QTest::addColumn<quint64>("currV");
    QTest::addColumn<quint64>("treeW"); // 0: empty tree
    QTest::addColumn<quint64>("treeV");
    QTest::addColumn<qint64>("vlag");        // saved lag of the placed nice-0 entity
    QTest::addColumn<qint64>("relDeadline"); // -1: absolute deadline (a sleeper)
    QTest::addColumn<int>("flags");
    QTest::addColumn<quint64>("expV");
    QTest::addColumn<qint64>("expLag");
    QTest::addColumn<quint64>("expVruntime");
    QTest::addColumn<quint64>("expDeadline");

    const QStringList none;
    // curr nice 0 at 1 000 000, tree nice 0 at 1 600 000: V = (1.0e6 + 1.6e6)/2 = 1 300 000;
    // L = ŵ_tree + ŵ_curr = 2048 (curr counts in V, so it counts in L).
    // lag = 300 000 · (2048 + 1024)/2048 = 450 000; v = 1 300 000 − 450 000 = 850 000;
    // d = v + vslice(0.7 ms) = 1 550 000. Check: after insertion V' = (1.0e6 + 1.6e6 + 0.85e6)/3
    // = 1 150 000 and V' − v = 300 000 = the saved lag, which is what the inflation is for.
    QTest::addRow("6.12 inflation vl·(L+w)/L, L includes curr")
        << "6.12" << none << kW0 << quint64(1000000) << kW0 << quint64(1600000) << qint64(300000)
        << qint64(-1) << 0 << quint64(1300000) << qint64(450000) << quint64(850000)
        << quint64(1550000);
    // Without curr, L = 1024: lag = 300 000 · 2048/1024 = 600 000; V = 1 000 000;
    // v = 400 000; d = 1 100 000.
    QTest::addRow("6.12 inflation, tree only (L=1024)")
        << "6.12" << none << quint64(0) << quint64(0) << kW0 << quint64(1000000) << qint64(300000)
        << qint64(-1) << 0 << quint64(1000000) << qint64(600000) << quint64(400000)
        << quint64(1100000);
    // Negative lag, heavy curr (nice −5, ŵ 3121) at 2 000 000, tree nice 0 at 1 000 000:
    // V = floor((2e6·3121 + 1e6·1024)/4145) = floor(7 266 000 000/4145) = 1 752 955;
    // lag = trunc(−200 000 · (4145 + 1024)/4145) = trunc(−249 408.9) = −249 408;
    // v = 1 752 955 + 249 408 = 2 002 363; d = v + 700 000 = 2 702 363.
    QTest::addRow("6.12 negative lag, nice -5 curr")
        << "6.12" << none << kWm5 << quint64(2000000) << kW0 << quint64(1000000) << qint64(-200000)
        << qint64(-1) << 0 << quint64(1752955) << qint64(-249408) << quint64(2002363)
        << quint64(2702363);
    // ŵ precision: a group curr of w = 3000 (ŵ = max(2, 3000>>10) = 2) at 2 000 000, tree nice 0
    // at 1 000 000. V = floor((2e6·2 + 1e6·1024)/1026) = floor(1 028 000 000/1026) = 1 001 949;
    // L = 1026: lag = trunc(300 000 · 2050/1026) = trunc(599 415.2) = 599 415;
    // v = 402 534; d = 1 102 534.
    QTest::addRow("6.12 scaled_down weights (curr w=3000 counts as 2)")
        << "6.12" << none << quint64(3000) << quint64(2000000) << kW0 << quint64(1000000)
        << qint64(300000) << qint64(-1) << 0 << quint64(1001949) << qint64(599415)
        << quint64(402534) << quint64(1102534);
    // 7.1 full weights, same layout: V = floor((2e6·3000 + 1e6·1 048 576)/1 051 576)
    // = floor(1 054 576 000 000/1 051 576) = 1 002 852; L = 1 051 576, w = 1 048 576:
    // lag = trunc(300 000 · 2 100 152/1 051 576) = trunc(599 144.1) = 599 144;
    // v = 1 002 852 − 599 144 = 403 708; d = 1 103 708.
    QTest::addRow("7.1 full weights (curr w=3000 counts as 3000)")
        << "7.1" << none << quint64(3000) << quint64(2000000) << kW0 << quint64(1000000)
        << qint64(300000) << qint64(-1) << 0 << quint64(1002852) << qint64(599144)
        << quint64(403708) << quint64(1103708);
    // NO_PLACE_LAG: v = V = 1 300 000 whatever the saved lag; d = 2 000 000.
    QTest::addRow("NO_PLACE_LAG puts v at V")
        << "6.12" << QStringList{"NO_PLACE_LAG"} << kW0 << quint64(1000000) << kW0
        << quint64(1600000) << qint64(300000) << qint64(-1) << 0 << quint64(1300000) << qint64(0)
        << quint64(1300000) << quint64(2000000);
    // A new task (ENQUEUE_INITIAL, vl = 0): v = V = 1 300 000, d = v + 700 000/2 = 1 650 000.
    QTest::addRow("PLACE_DEADLINE_INITIAL halves the first request")
        << "6.12" << none << kW0 << quint64(1000000) << kW0 << quint64(1600000) << qint64(0)
        << qint64(-1) << int(EnqueueInitial) << quint64(1300000) << qint64(0) << quint64(1300000)
        << quint64(1650000);
    QTest::addRow("NO_PLACE_DEADLINE_INITIAL: full request")
        << "6.12" << QStringList{"NO_PLACE_DEADLINE_INITIAL"} << kW0 << quint64(1000000) << kW0
        << quint64(1600000) << qint64(0) << qint64(-1) << int(EnqueueInitial) << quint64(1300000)
        << qint64(0) << quint64(1300000) << quint64(2000000);
    // Relative deadline 400 000 kept across a migration: d = 850 000 + 400 000 = 1 250 000.
    QTest::addRow("PLACE_REL_DEADLINE restores d = v + d_rel")
        << "6.12" << none << kW0 << quint64(1000000) << kW0 << quint64(1600000) << qint64(300000)
        << qint64(400000) << 0 << quint64(1300000) << qint64(450000) << quint64(850000)
        << quint64(1250000);
    // 6.12 gates the branch on the feature: a fresh d = v + 700 000 = 1 550 000.
    QTest::addRow("6.12 NO_PLACE_REL_DEADLINE ignores d_rel")
        << "6.12" << QStringList{"NO_PLACE_REL_DEADLINE"} << kW0 << quint64(1000000) << kW0
        << quint64(1600000) << qint64(300000) << qint64(400000) << 0 << quint64(1300000)
        << qint64(450000) << quint64(850000) << quint64(1550000);
    // 6.13–7.0 ran the branch regardless of the feature bit (§4.2 step 5): d = 1 250 000.
    QTest::addRow("6.13 NO_PLACE_REL_DEADLINE still uses d_rel")
        << "6.13" << QStringList{"NO_PLACE_REL_DEADLINE"} << kW0 << quint64(1000000) << kW0
        << quint64(1600000) << qint64(300000) << qint64(400000) << 0 << quint64(1300000)
        << qint64(450000) << quint64(850000) << quint64(1250000);
    // placeLagSkipZero (~6.15+): vl == 0 skips the inflation; either way v = V exactly.
    QTest::addRow("7.1 vl=0 (skip-zero) lands on V")
        << "7.1" << none << kW0 << quint64(1000000) << kW0 << quint64(1600000) << qint64(0)
        << qint64(-1) << 0 << quint64(1300000) << qint64(0) << quint64(1300000) << quint64(2000000);
    QTest::addRow("6.12 vl=0 (no skip) lands on V")
        << "6.12" << none << kW0 << quint64(1000000) << kW0 << quint64(1600000) << qint64(0)
        << qint64(-1) << 0 << quint64(1300000) << qint64(0) << quint64(1300000) << quint64(2000000);
    // ... but any non-zero lag is inflated: trunc(2 · 3072/2048) = 3; v = 1 299 997.
    QTest::addRow("7.1 vl=2 is inflated to 3")
        << "7.1" << none << kW0 << quint64(1000000) << kW0 << quint64(1600000) << qint64(2)
        << qint64(-1) << 0 << quint64(1300000) << qint64(3) << quint64(1299997) << quint64(1999997);
    // First entity of an empty cfs_rq: nr_queued == 0, no inflation; V = v0 (initially 0).
    QTest::addRow("empty cfs_rq: lag ignored")
        << "6.12" << none << quint64(0) << quint64(0) << quint64(0) << quint64(0) << qint64(300000)
        << qint64(-1) << 0 << quint64(0) << qint64(0) << quint64(0) << quint64(700000);
}

void TestFairFormulas::placeEntity()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, features);
    QFETCH(quint64, currW);
    QFETCH(quint64, currV);
    QFETCH(quint64, treeW);
    QFETCH(quint64, treeV);
    QFETCH(qint64, vlag);
    QFETCH(qint64, relDeadline);
    QFETCH(int, flags);
    QFETCH(quint64, expV);
    QFETCH(qint64, expLag);
    QFETCH(quint64, expVruntime);
    QFETCH(quint64, expDeadline);

    Bench b(profile, features);
    if (currW)
        b.setCurr(b.make(0, currV, currW, currV + kSlice));
    if (treeW)
        b.queue(b.make(1, treeV, treeW, treeV + kSlice));
    SchedEntity& se = b.make(2, 0, kW0);
    se.vlag = vlag;
    if (relDeadline >= 0) {
        se.deadline = static_cast<uint64_t>(relDeadline);
        se.relDeadline = true;
    }
    b.fair->placeEntity(b.cfs(), se, flags);

    const Rec* place = b.hooks.last(RecordKind::Place);
    QVERIFY(place);
    QCOMPARE(quint64(place->a), expV);
    QCOMPARE(qint64(place->b), expLag);
    QCOMPARE(qint64(place->c), vlag);
    QCOMPARE(quint64(se.vruntime), expVruntime);
    QCOMPARE(quint64(se.deadline), expDeadline);
    QCOMPARE(se.slice, kSlice);
}

// --- §4.1 update_entity_lag -------------------------------------------------------------------

void TestFairFormulas::updateEntityLag_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("features");
    QTest::addColumn<qint64>("tick");
    QTest::addColumn<quint64>("seW");
    QTest::addColumn<quint64>("seV");
    QTest::addColumn<quint64>("otherV"); // a nice-0 entity in the tree
    QTest::addColumn<qint64>("otherSlice");
    QTest::addColumn<bool>("delayed");
    QTest::addColumn<qint64>("saved"); // se.vlag before the call
    QTest::addColumn<qint64>("expLimit");
    QTest::addColumn<qint64>("expVlag");
    QTest::addColumn<bool>("expDiffers");

    const QStringList none;
    const qint64 tick1000 = 1000000;
    // own_slice (≤6.19): limit = vslice(max(2·0.7 ms, 1 ms)) = 1 400 000 for nice 0.
    // se at 0, other at 4e6: V = 2e6, V − v = +2e6 → clamped to +1 400 000.
    QTest::addRow("own_slice positive clamped")
        << "6.12" << none << tick1000 << kW0 << quint64(0) << quint64(4000000) << kSlice << false
        << qint64(0) << qint64(1400000) << qint64(1400000) << false;
    // se at 4e6, other at 0: V − v = −2e6 → −1 400 000.
    QTest::addRow("own_slice negative clamped")
        << "6.12" << none << tick1000 << kW0 << quint64(4000000) << quint64(0) << kSlice << false
        << qint64(0) << qint64(1400000) << qint64(-1400000) << false;
    // se at 1e6, other at 2e6: V = 1.5e6, lag +500 000 (inside the limit).
    QTest::addRow("own_slice inside the limit")
        << "6.12" << none << tick1000 << kW0 << quint64(1000000) << quint64(2000000) << kSlice
        << false << qint64(0) << qint64(1400000) << qint64(500000) << false;
    // HZ=250: TICK = 4 ms > 2·slice → limit = 4 000 000; se at 0, other at 1e7: V − v = 5e6 → 4e6.
    QTest::addRow("own_slice HZ=250 (tick dominates)")
        << "6.12" << none << qint64(4000000) << kW0 << quint64(0) << quint64(10000000) << kSlice
        << false << qint64(0) << qint64(4000000) << qint64(4000000) << false;
    // 7.0 max_slice_tick: the other entity has a 3 ms custom slice → limit = vslice(3 ms + 1 ms)
    // = 4 000 000, although se's own slice is 0.7 ms. V − v = 5e6 → 4e6.
    QTest::addRow("7.0 max_slice_tick uses the largest slice")
        << "7.0" << none << tick1000 << kW0 << quint64(0) << quint64(10000000) << qint64(3000000)
        << false << qint64(0) << qint64(4000000) << qint64(4000000) << false;
    // Same layout under 6.13 (own_slice): limit stays 1 400 000.
    QTest::addRow("6.13 own_slice ignores the other's slice")
        << "6.13" << none << tick1000 << kW0 << quint64(0) << quint64(10000000) << qint64(3000000)
        << false << qint64(0) << qint64(1400000) << qint64(1400000) << false;
    // Heavy entity nice −20 (ŵ 88761, wmult 48388): limit = vslice(1.4 ms) fixed point:
    // fact = 1024·48388 = 49 549 312 (< 2^32), (1 400 000 · 49 549 312) >> 32 = 16 151.
    // se at 0, other nice 0 at 1e7: V = floor(1e7·1024/89785) = floor(114 050.2) = 114 050 → 16
    // 151.
    QTest::addRow("heavy nice -20: tiny virtual limit (+)")
        << "6.12" << none << tick1000 << kWm20 << quint64(0) << quint64(10000000) << kSlice << false
        << qint64(0) << qint64(16151) << qint64(16151) << false;
    // se at 1e7, other at 0: V = floor(1e7·88761/89785) = 9 885 949 → V − v = −114 051 → −16 151.
    QTest::addRow("heavy nice -20: tiny virtual limit (-)")
        << "6.12" << none << tick1000 << kWm20 << quint64(10000000) << quint64(0) << kSlice << false
        << qint64(0) << qint64(16151) << qint64(-16151) << false;
    // 7.1: exact calc_delta, max_slice_tick: limit = floor(1.7e6 · 2^20/(88761·2^10)) = 19 612.
    QTest::addRow("7.1 heavy nice -20 exact limit")
        << "7.1" << none << tick1000 << kWm20 << quint64(0) << quint64(10000000) << kSlice << false
        << qint64(0) << qint64(19612) << qint64(19612) << false;
    // 7.2 delayed rules (profile 7.1): limit = vslice(0.7 + 1 ms) = 1 700 000.
    // se at 1.6e6, other at 0: fresh lag −800 000; saved −500 000 → max(−800k, −500k) = −500 000;
    // differs from V − v → true (the requeue must re-place it).
    QTest::addRow("7.2 delayed: negative lag may not grow")
        << "7.1" << none << tick1000 << kW0 << quint64(1600000) << quint64(0) << kSlice << true
        << qint64(-500000) << qint64(1700000) << qint64(-500000) << true;
    // se at 0, other at 600 000: fresh +300 000 → max(300k, −500k) = 300k → DELAY_ZERO min 0 = 0.
    QTest::addRow("7.2 delayed: DELAY_ZERO clips positive lag")
        << "7.1" << none << tick1000 << kW0 << quint64(0) << quint64(600000) << kSlice << true
        << qint64(-500000) << qint64(1700000) << qint64(0) << true;
    QTest::addRow("7.2 delayed: NO_DELAY_ZERO keeps positive lag")
        << "7.1" << QStringList{"NO_DELAY_ZERO"} << tick1000 << kW0 << quint64(0) << quint64(600000)
        << kSlice << true << qint64(-500000) << qint64(1700000) << qint64(300000) << false;
    // se at 600 000, other at 0: fresh −300 000 > saved −500 000 → −300 000, unchanged.
    QTest::addRow("7.2 delayed: smaller debt taken as is")
        << "7.1" << none << tick1000 << kW0 << quint64(600000) << quint64(0) << kSlice << true
        << qint64(-500000) << qint64(1700000) << qint64(-300000) << false;
    // Not delayed: the saved value is irrelevant, fresh −800 000.
    QTest::addRow("7.1 not delayed: fresh lag")
        << "7.1" << none << tick1000 << kW0 << quint64(1600000) << quint64(0) << kSlice << false
        << qint64(-500000) << qint64(1700000) << qint64(-800000) << false;
    // 6.12 has no delayed rule in update_entity_lag (the DELAY_ZERO clip happens elsewhere).
    QTest::addRow("6.12 delayed: fresh lag")
        << "6.12" << none << tick1000 << kW0 << quint64(1600000) << quint64(0) << kSlice << true
        << qint64(-500000) << qint64(1400000) << qint64(-800000) << false;
}

void TestFairFormulas::updateEntityLag()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, features);
    QFETCH(qint64, tick);
    QFETCH(quint64, seW);
    QFETCH(quint64, seV);
    QFETCH(quint64, otherV);
    QFETCH(qint64, otherSlice);
    QFETCH(bool, delayed);
    QFETCH(qint64, saved);
    QFETCH(qint64, expLimit);
    QFETCH(qint64, expVlag);
    QFETCH(bool, expDiffers);

    Bench b(profile, features, tick);
    b.queue(b.make(1, otherV, kW0, otherV + uint64_t(otherSlice), otherSlice));
    SchedEntity& se = b.make(2, seV, seW, seV + kSlice);
    b.queue(se);
    se.schedDelayed = delayed;
    se.vlag = saved;
    QCOMPARE(qint64(b.fair->lagLimit(b.cfs(), se)), expLimit);
    const bool differs = b.fair->updateEntityLag(b.cfs(), se);
    QCOMPARE(qint64(se.vlag), expVlag);
    QCOMPARE(differs, expDiffers);
}

// --- §3.8 update_deadline --------------------------------------------------------------------

void TestFairFormulas::updateDeadline_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<quint64>("weight");
    QTest::addColumn<quint64>("v");
    QTest::addColumn<quint64>("d");
    QTest::addColumn<qint64>("slice");
    QTest::addColumn<bool>("custom");
    QTest::addColumn<bool>("expRenewed");
    QTest::addColumn<quint64>("expDeadline");
    QTest::addColumn<qint64>("expSlice");

    QTest::addRow("v < d: nothing") << "6.12" << kW0 << quint64(100) << quint64(200) << kSlice
                                    << false << false << quint64(200) << kSlice;
    // v == d: (s64)(v − d) < 0 is false → renew: d = 1e6 + 700 000.
    QTest::addRow("v == d renews") << "6.12" << kW0 << quint64(1000000) << quint64(1000000)
                                   << kSlice << false << true << quint64(1700000) << kSlice;
    // From the current vruntime, not from the old deadline: 5e6 + 0.7e6, not 1e6 + 0.7e6.
    QTest::addRow("renewal from current v")
        << "6.12" << kW0 << quint64(5000000) << quint64(1000000) << kSlice << false << true
        << quint64(5700000) << kSlice;
    // A stale non-custom slice of 3 ms is refreshed to the base slice: d = 5e6 + 0.7e6.
    QTest::addRow("non-custom slice refreshed")
        << "6.12" << kW0 << quint64(5000000) << quint64(1000000) << qint64(3000000) << false << true
        << quint64(5700000) << kSlice;
    // A custom 3 ms slice is kept: d = 5e6 + 3e6.
    QTest::addRow("custom slice kept")
        << "6.12" << kW0 << quint64(5000000) << quint64(1000000) << qint64(3000000) << true << true
        << quint64(8000000) << qint64(3000000);
    // 6.6 base slice 0.75 ms: d = 5e6 + 750 000.
    QTest::addRow("6.6 base slice 0.75 ms")
        << "6.6" << kW0 << quint64(5000000) << quint64(1000000) << qint64(750000) << false << true
        << quint64(5750000) << qint64(750000);
    // nice 5: vslice(0.7 ms) = 2 139 701 in both precisions (see calcDelta): d = 5e6 + 2 139 701.
    QTest::addRow("nice 5 slice in virtual time")
        << "7.1" << kW5 << quint64(5000000) << quint64(1000000) << kSlice << false << true
        << quint64(7139701) << kSlice;
}

void TestFairFormulas::updateDeadline()
{
    QFETCH(QString, profile);
    QFETCH(quint64, weight);
    QFETCH(quint64, v);
    QFETCH(quint64, d);
    QFETCH(qint64, slice);
    QFETCH(bool, custom);
    QFETCH(bool, expRenewed);
    QFETCH(quint64, expDeadline);
    QFETCH(qint64, expSlice);

    Bench b(profile);
    SchedEntity& se = b.make(0, v, weight, d, slice);
    se.customSlice = custom;
    QCOMPARE(b.fair->updateDeadline(b.cfs(), se), expRenewed);
    QCOMPARE(quint64(se.deadline), expDeadline);
    QCOMPARE(se.slice, expSlice);
    const Rec* renew = b.hooks.last(RecordKind::DeadlineRenew);
    QCOMPARE(renew != nullptr, expRenewed);
    if (renew)
        QCOMPARE(quint64(renew->a), expDeadline);
}

// --- §6.4 reweight_entity ----------------------------------------------------------------------

void TestFairFormulas::reweightEntity_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("where"); // "tree", "curr" or "off" (not queued)
    QTest::addColumn<quint64>("xV");
    QTest::addColumn<quint64>("xD");
    QTest::addColumn<quint64>("oldW");
    QTest::addColumn<quint64>("newW");
    QTest::addColumn<quint64>("aV"); // the other entity, nice 0, in the tree
    QTest::addColumn<quint64>("aW");
    QTest::addColumn<quint64>("vprot"); // 0: not protected (vprot profiles only)
    QTest::addColumn<quint64>("expV");
    QTest::addColumn<quint64>("expD");
    QTest::addColumn<quint64>("expVprot");   // 0: not checked
    QTest::addColumn<quint64>("expAvg");     // V after the reweight
    QTest::addColumn<qint64>("expPlaceLag"); // lag used by place_entity (rule C), else 0

    // Common layout: A nice 0 at 1 000 000 in the tree; X nice 0 at v = 2 000 000,
    // d = 2 700 000, reweighted to nice −5 (w' = 3121·1024). Before: V = 1 500 000, X's lag
    // vl = −500 000 (inside every clamp: 6.x 1.4e6, 7.x 1.7e6 for a nice-0 entity).
    const quint64 v = 2000000;
    const quint64 d = 2700000;
    const quint64 a = 1000000;

    // A (6.6): v and d unchanged; V moves: floor((1e6·1024 + 2e6·3121)/4145) = 1 752 955.
    for (const char* where : {"tree", "curr"})
        QTest::addRow("keep_vruntime %s", where)
            << "6.6" << where << v << d << kW0 << kWm5 << a << kW0 << quint64(0) << v << d
            << quint64(0) << quint64(1752955) << qint64(0);
    // B (6.12): vl' = trunc(−500 000 · 1024/3121) = −164 049 → v' = 1.5e6 + 164 049 = 1 664 049;
    // d' = 1.5e6 + trunc(1 200 000 · 1024/3121) = 1.5e6 + 393 719 = 1 893 719;
    // V' = floor((1e6·1024 + 1 664 049·3121)/4145) = 1 499 999 (invariant up to rounding).
    for (const char* where : {"tree", "curr"})
        QTest::addRow("eevdf %s", where)
            << "6.12" << where << v << d << kW0 << kWm5 << a << kW0 << quint64(0)
            << quint64(1664049) << quint64(1893719) << quint64(0) << quint64(1499999) << qint64(0);
    // B with the clamp: X at 5e6 → V = 3e6, vl = −2e6 clamped to −1.4e6 (own slice, old weight);
    // vl' = trunc(−1 400 000 · 1024/3121) = trunc(−459 339.96) = −459 339 → v' = 3 459 339;
    // d = 5.7e6: d' = 3e6 + trunc(2 700 000 · 1024/3121) = 3e6 + 885 869 = 3 885 869;
    // V' = floor((1e6·1024 + 3 459 339·3121)/4145) = 2 851 772 (the clamp drops lag: V moves).
    QTest::addRow("eevdf clamped lag")
        << "6.12"
        << "tree" << quint64(5000000) << quint64(5700000) << kW0 << kWm5 << a << kW0 << quint64(0)
        << quint64(3459339) << quint64(3885869) << quint64(0) << quint64(2851772) << qint64(0);
    // C (6.13), X in the tree: vl = −500 000, d_rel = 700 000; scaled: vl' = −164 049,
    // d_rel' = trunc(700 000 · 1024/3121) = 229 669. place_entity without X: V_p = 1 000 000,
    // L = 1024: lag = trunc(−164 049 · (1024 + 3121)/1024) = trunc(−664 046.8) = −664 046;
    // v' = 1 664 046; d' = v' + 229 669 = 1 893 715;
    // V' = floor((1e6·1024 + 1 664 046·3121)/4145) = 1 499 997 (fine for a non-curr entity).
    QTest::addRow("place tree") << "6.13"
                                << "tree" << v << d << kW0 << kWm5 << a << kW0 << quint64(0)
                                << quint64(1664046) << quint64(1893715) << quint64(0)
                                << quint64(1499997) << qint64(-664046);
    // C on curr: V_p still contains X (old v, new ŵ 3121): floor((2e6·3121 + 1e6·1024)/4145)
    // = 1 752 955, and L = 1024 + 3121 = 4145 already contains X:
    // lag = trunc(−164 049 · (4145 + 3121)/4145) = trunc(−287 570.6) = −287 570;
    // v' = 1 752 955 + 287 570 = 2 040 525; d' = 2 040 525 + 229 669 = 2 270 194;
    // V' = floor((1e6·1024 + 2 040 525·3121)/4145) = 1 783 468 — not 1.5e6: X's lag grew from
    // −164 049 (what rescaling preserves) to 1 783 468 − 2 040 525 = −257 057.
    QTest::addRow("place curr") << "6.13"
                                << "curr" << v << d << kW0 << kWm5 << a << kW0 << quint64(0)
                                << quint64(2040525) << quint64(2270194) << quint64(0)
                                << quint64(1783468) << qint64(-287570);
    // 7.0 (same rule C, max_slice_tick clamp 1.7e6 does not bind) with a live protection:
    // vprot = 2 350 000 → relative to v: 350 000 → scaled trunc(350 000 · 1024/3121) = 114 834
    // → re-absolutised on v': 2 040 525 + 114 834 = 2 155 359.
    QTest::addRow("place curr 7.0 vprot")
        << "7.0"
        << "curr" << v << d << kW0 << kWm5 << a << kW0 << quint64(2350000) << quint64(2040525)
        << quint64(2270194) << quint64(2155359) << quint64(1783468) << qint64(-287570);
    // D (7.1): same numbers as B here (vl and d − V scaled around V = 1.5e6), V' = 1 499 999.
    for (const char* where : {"tree", "curr"})
        QTest::addRow("rescale %s", where)
            << "7.1" << where << v << d << kW0 << kWm5 << a << kW0 << quint64(0) << quint64(1664049)
            << quint64(1893719) << quint64(0) << quint64(1499999) << qint64(0);
    // D with protection: vprot − V = 850 000 → trunc(850 000 · 1024/3121) = 278 884
    // → vprot' = 1.5e6 + 278 884 = 1 778 884.
    QTest::addRow("rescale curr vprot")
        << "7.1"
        << "curr" << v << d << kW0 << kWm5 << a << kW0 << quint64(2350000) << quint64(1664049)
        << quint64(1893719) << quint64(1778884) << quint64(1499999) << qint64(0);

    // The §12 mechanism: a running group entity ŵ = 20480 (cpu.weight 2000) at v = 1 000 000,
    // d = 1 035 000, and one nice-0 entity at 1 500 000; reweighted to ŵ' = 20000.
    // V = floor((1e6·20480 + 1.5e6·1024)/21504) = floor(22 016 000 000/21504) = 1 023 809;
    // vl = 23 809 (limit vslice(1.4 ms) = 69 999 fixed point does not bind); d_rel = 35 000.
    // Scaled: vl' = trunc(23 809 · 20480/20000) = 24 380; d_rel' = 35 000 · 20480/20000 = 35 840.
    // place_entity: V_p = floor((1e6·20000 + 1.5e6·1024)/21024) = 1 024 353 (X counted with
    // its old v), L = 1024 + 20000 = 21024 (X counted again):
    // lag = trunc(24 380 · 41024/21024) = 47 572 = vl' · (W_o + 2ŵ')/(W_o + ŵ') — nearly ×2.
    // v' = 1 024 353 − 47 572 = 976 781 (it moved 23 219 *left* of where it was);
    // d' = 976 781 + 35 840 = 1 012 621; V' = floor((976 781·20000 + 1.5e6·1024)/21024)
    // = 1 002 265: V fell by 21 544, so the nice-0 entity's lag went from −476 191 to −497 735.
    const quint64 g = quint64{20480} << 10;
    const quint64 g2 = quint64{20000} << 10;
    QTest::addRow("place curr group 20480->20000 (6.13 bug)")
        << "6.13"
        << "curr" << quint64(1000000) << quint64(1035000) << g << g2 << quint64(1500000) << kW0
        << quint64(0) << quint64(976781) << quint64(1012621) << quint64(0) << quint64(1002265)
        << qint64(47572);
    // The same reweight under 7.1: v' = 1 023 809 − 24 380 = 999 429;
    // d' = 1 023 809 + trunc((1 035 000 − 1 023 809) · 20480/20000) = 1 023 809 + 11 459;
    // V' = floor((999 429·20000 + 1.5e6·1024)/21024) = 1 023 809: invariant.
    QTest::addRow("rescale curr group 20480->20000 (7.1)")
        << "7.1"
        << "curr" << quint64(1000000) << quint64(1035000) << g << g2 << quint64(1500000) << kW0
        << quint64(0) << quint64(999429) << quint64(1035268) << quint64(0) << quint64(1023809)
        << qint64(0);
}

void TestFairFormulas::reweightEntity()
{
    QFETCH(QString, profile);
    QFETCH(QString, where);
    QFETCH(quint64, xV);
    QFETCH(quint64, xD);
    QFETCH(quint64, oldW);
    QFETCH(quint64, newW);
    QFETCH(quint64, aV);
    QFETCH(quint64, aW);
    QFETCH(quint64, vprot);
    QFETCH(quint64, expV);
    QFETCH(quint64, expD);
    QFETCH(quint64, expVprot);
    QFETCH(quint64, expAvg);
    QFETCH(qint64, expPlaceLag);

    Bench b(profile);
    b.queue(b.make(1, aV, aW, aV + kSlice));
    SchedEntity& x = b.make(0, xV, oldW, xD);
    if (where == "curr")
        b.setCurr(x);
    else
        b.queue(x);
    x.vprot = vprot;
    const LoadWeight nw = lw(newW);
    b.fair->reweightEntity(b.cfs(), x, nw.weight, nw.invWeight);

    QCOMPARE(quint64(x.load.weight), newW);
    QCOMPARE(quint64(x.vruntime), expV);
    QCOMPARE(quint64(x.deadline), expD);
    if (expVprot)
        QCOMPARE(quint64(x.vprot), expVprot);
    QCOMPARE(quint64(b.cfs().peekAvgVruntime()), expAvg);
    QCOMPARE(b.cfs().loadWeight, aW + newW);
    QCOMPARE(b.cfs().nrQueued, 2);
    QCOMPARE(b.cfs().inTree(x), where != "curr");
    QVERIFY(!x.relDeadline);
    QCOMPARE(b.cfs().checkInvariants(), std::string());
    const Rec* place = b.hooks.last(RecordKind::Place);
    QCOMPARE(place ? qint64(place->b) : qint64(0), expPlaceLag);
}

void TestFairFormulas::reweightOffRq_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<bool>("relDeadline"); // left with a relative deadline (non-sleep dequeue)
    QTest::addColumn<quint64>("expDeadline");

    // A sleeping (or migrating) nice-0 entity with saved vl = 300 000 becomes nice 5. The lag is
    // stored virtual, so every version rescales it: trunc(300 000 · 1024/335) = 917 014.
    // A sleeper's absolute deadline (2 700 000) is meaningless and left alone. A relative one
    // (700 000) is kept by 6.12 and rescaled from 6.13 on: trunc(700 000 · 1024/335) = 2 139 701.
    for (const char* p : {"6.6", "6.12", "6.13", "7.0", "7.1"})
        QTest::addRow("%s sleeper", p) << p << false << quint64(2700000);
    QTest::addRow("6.12 relative deadline kept") << "6.12" << true << quint64(700000);
    for (const char* p : {"6.13", "7.0", "7.1"})
        QTest::addRow("%s relative deadline rescaled", p) << p << true << quint64(2139701);
}

void TestFairFormulas::reweightOffRq()
{
    QFETCH(QString, profile);
    QFETCH(bool, relDeadline);
    QFETCH(quint64, expDeadline);

    Bench b(profile);
    b.queue(b.make(1, 1000000, kW0, 1700000));
    SchedEntity& x = b.make(0, 2000000, kW0, relDeadline ? 700000 : 2700000);
    x.vlag = 300000;
    x.relDeadline = relDeadline;
    const LoadWeight nw = lw(kW5);
    b.fair->reweightEntity(b.cfs(), x, nw.weight, nw.invWeight);

    QCOMPARE(quint64(x.load.weight), kW5);
    QCOMPARE(qint64(x.vlag), qint64(917014));
    QCOMPARE(quint64(x.deadline), expDeadline);
    QCOMPARE(x.relDeadline, relDeadline); // consumed by the next placement, not here
    QCOMPARE(quint64(x.vruntime), quint64(2000000));
    // The cfs_rq is untouched.
    QCOMPARE(b.cfs().loadWeight, kW0);
    QCOMPARE(b.cfs().nrQueued, 1);
    QCOMPARE(quint64(b.cfs().peekAvgVruntime()), quint64(1000000));
    QVERIFY(!b.cfs().inTree(x));
}

// --- §3.5 pick_eevdf and §3.7 protection
// ----------------------------------------------------------

void TestFairFormulas::pickEevdf_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("features");
    QTest::addColumn<qint64>("currV"); // -1: no curr; curr is nice 0
    QTest::addColumn<qint64>("currD");
    QTest::addColumn<qint64>("currMark");    // vlag (deadline hack) or vprot; -1 leaves it 0
    QTest::addColumn<QList<qint64>>("tree"); // nice-0 entities t0, t1, … as v, d pairs, in order
    QTest::addColumn<int>("buddy");          // tree index of cfs_rq->next, -1 none
    QTest::addColumn<bool>("protect");
    QTest::addColumn<bool>(
        "viaPickTask"); // go through pick_task_fair (6.12 checks the buddy there)
    QTest::addColumn<QString>("expected"); // "curr", "t0", "t1", …

    const QStringList none;
    // t0 (v 0, d 3e6), t1 (v 2e6, d 1e6), t2 (v 0.5e6, d 2e6): V = 2.5e6/3 = 833 333.
    // Eligible: t0, t2 (v ≤ V); t1 has the earliest deadline but is not eligible → t2.
    const QList<qint64> three{0, 3000000, 2000000, 1000000, 500000, 2000000};
    for (const char* p : {"6.6", "6.12", "7.1"})
        QTest::addRow("%s earliest eligible deadline", p)
            << p << none << qint64(-1) << qint64(0) << qint64(-1) << three << -1 << true << false
            << "t2";
    // curr (v 0, d 700 000) protected, t0 (v 0, d 350 000) eligible with an earlier deadline.
    // 6.12 deadline hack: protected ⇔ vlag == deadline.
    const QList<qint64> early{0, 350000};
    QTest::addRow("6.12 RUN_TO_PARITY keeps curr")
        << "6.12" << none << qint64(0) << qint64(700000) << qint64(700000) << early << -1 << true
        << false << "curr";
    QTest::addRow("6.12 NO_RUN_TO_PARITY picks the earlier deadline")
        << "6.12" << QStringList{"NO_RUN_TO_PARITY"} << qint64(0) << qint64(700000)
        << qint64(700000) << early << -1 << true << false << "t0";
    QTest::addRow("6.12 cancelled protection (vlag = d + 1)")
        << "6.12" << none << qint64(0) << qint64(700000) << qint64(700001) << early << -1 << true
        << false << "t0";
    QTest::addRow("6.12 protect=false ignores protection")
        << "6.12" << none << qint64(0) << qint64(700000) << qint64(700000) << early << -1 << false
        << false << "t0";
    // 7.x vprot: protected ⇔ v < vprot; the pick does not look at the feature bit.
    QTest::addRow("7.1 vprot protects curr")
        << "7.1" << none << qint64(0) << qint64(700000) << qint64(700000) << early << -1 << true
        << false << "curr";
    QTest::addRow("7.1 NO_RUN_TO_PARITY: live vprot still protects")
        << "7.1" << QStringList{"NO_RUN_TO_PARITY"} << qint64(0) << qint64(700000) << qint64(700000)
        << early << -1 << true << false << "curr";
    QTest::addRow("7.1 expired vprot (v >= vprot)")
        << "7.1" << none << qint64(0) << qint64(700000) << qint64(0) << early << -1 << true << false
        << "t0";
    // An ineligible curr is never protected: curr v 2e6, t0 v 0 → V = 1e6 < curr.v.
    QTest::addRow("7.1 ineligible curr loses its protection")
        << "7.1" << none << qint64(2000000) << qint64(2700000) << qint64(2700000)
        << QList<qint64>{0, 3000000} << -1 << true << false << "t0";
    // PICK_BUDDY: t0 (v 0, d 350 000), t1 (v 0, d 700 000) = next buddy, both eligible (V = 0).
    const QList<qint64> pair{0, 350000, 0, 700000};
    QTest::addRow("7.1 PICK_BUDDY returns the eligible buddy")
        << "7.1" << none << qint64(-1) << qint64(0) << qint64(-1) << pair << 1 << true << false
        << "t1";
    QTest::addRow("7.1 buddy needs protect=true")
        << "7.1" << none << qint64(-1) << qint64(0) << qint64(-1) << pair << 1 << false << false
        << "t0";
    QTest::addRow("7.1 NO_PICK_BUDDY")
        << "7.1" << QStringList{"NO_PICK_BUDDY"} << qint64(-1) << qint64(0) << qint64(-1) << pair
        << 1 << true << false << "t0";
    // Ineligible buddy: t1 at v 1e6 with V = 0.5e6 → ignored.
    QTest::addRow("7.1 ineligible buddy ignored")
        << "7.1" << none << qint64(-1) << qint64(0) << qint64(-1)
        << QList<qint64>{0, 350000, 1000000, 700000} << 1 << true << false << "t0";
    // 6.12 checks the buddy in pick_next_entity(), before pick_eevdf().
    QTest::addRow("6.12 pick_eevdf itself ignores the buddy")
        << "6.12" << none << qint64(-1) << qint64(0) << qint64(-1) << pair << 1 << true << false
        << "t0";
    QTest::addRow("6.12 pick_task_fair takes the buddy")
        << "6.12" << none << qint64(-1) << qint64(0) << qint64(-1) << pair << 1 << true << true
        << "t1";
    // 6.6 honours a buddy only with NEXT_BUDDY.
    QTest::addRow("6.6 buddy ignored without NEXT_BUDDY")
        << "6.6" << none << qint64(-1) << qint64(0) << qint64(-1) << pair << 1 << true << false
        << "t0";
    // ... and like 6.12 it does so in pick_next_entity(), not in pick_eevdf() (which the 6.6
    // wakeup-preemption check calls directly).
    QTest::addRow("6.6 NEXT_BUDDY: pick_eevdf ignores the buddy")
        << "6.6" << QStringList{"NEXT_BUDDY"} << qint64(-1) << qint64(0) << qint64(-1) << pair << 1
        << true << false << "t0";
    QTest::addRow("6.6 NEXT_BUDDY: pick_task_fair takes it")
        << "6.6" << QStringList{"NEXT_BUDDY"} << qint64(-1) << qint64(0) << qint64(-1) << pair << 1
        << true << true << "t1";
    // Exact deadline tie between an unprotected curr and a tree entity (both v 0, d 700 000):
    // 6.6 keeps curr (best starts as curr), 6.8+ returns the tree entity.
    const QList<qint64> tie{0, 700000};
    QTest::addRow("6.6 tie: curr wins") << "6.6" << none << qint64(0) << qint64(700000)
                                        << qint64(-1) << tie << -1 << true << false << "curr";
    QTest::addRow("6.12 tie: tree entity wins") << "6.12" << none << qint64(0) << qint64(700000)
                                                << qint64(-1) << tie << -1 << true << false << "t0";
    // Tree key: t0 (v 100 000, d 800 000) inserted before t1 (v 0, d 800 000), t2 (v 200 000,
    // d 900 000). V = 100 000: t0 and t1 eligible, equal deadlines. The deadline tree puts ties
    // right, so t0 comes first; the 6.6 vruntime walk meets t1 (smaller v) first.
    const QList<qint64> keyTie{100000, 800000, 0, 800000, 200000, 900000};
    QTest::addRow("6.6 vruntime key: walk order")
        << "6.6" << none << qint64(-1) << qint64(0) << qint64(-1) << keyTie << -1 << true << false
        << "t1";
    QTest::addRow("6.12 deadline key: insertion order")
        << "6.12" << none << qint64(-1) << qint64(0) << qint64(-1) << keyTie << -1 << true << false
        << "t0";
}

void TestFairFormulas::pickEevdf()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, features);
    QFETCH(qint64, currV);
    QFETCH(qint64, currD);
    QFETCH(qint64, currMark);
    QFETCH(QList<qint64>, tree);
    QFETCH(int, buddy);
    QFETCH(bool, protect);
    QFETCH(bool, viaPickTask);
    QFETCH(QString, expected);

    Bench b(profile, features);
    SchedEntity* curr = nullptr;
    if (currV >= 0) {
        curr = &b.make(0, uint64_t(currV), kW0, uint64_t(currD));
        b.setCurr(*curr);
        if (currMark >= 0) {
            if (b.choices.protection == Protection::DeadlineHack)
                curr->vlag = currMark;
            else
                curr->vprot = uint64_t(currMark);
        }
    }
    QVERIFY(tree.size() / 2 + 1 <= qsizetype(b.se.size()));
    std::vector<SchedEntity*> t;
    for (qsizetype i = 0; i + 1 < tree.size(); i += 2) {
        SchedEntity& e = b.make(size_t(1 + i / 2), uint64_t(tree[i]), kW0, uint64_t(tree[i + 1]));
        b.queue(e);
        t.push_back(&e);
    }
    if (buddy >= 0)
        b.cfs().next = t.at(size_t(buddy));
    SchedEntity* picked =
        viaPickTask ? b.fair->pickTask(*b.rq) : b.fair->pickEevdf(b.cfs(), protect);
    QVERIFY(picked);
    QString name = picked == curr ? QStringLiteral("curr") : QString();
    for (size_t i = 0; i < t.size(); ++i)
        if (picked == t[i])
            name = QStringLiteral("t%1").arg(i);
    QCOMPARE(name, expected);
}

// --- §7.1 wakeup preemption ---------------------------------------------------------------------

void TestFairFormulas::checkPreemptWakeup_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("features");
    QTest::addColumn<qint64>("currMark"); // vlag (deadline hack) or vprot of curr; -1: none
    QTest::addColumn<qint64>("otherD");   // deadline of another queued entity, -1: none
    QTest::addColumn<qint64>("wakeeD");
    QTest::addColumn<qint64>("wakeeSlice");
    QTest::addColumn<int>("wakeFlags");
    QTest::addColumn<bool>("expPreempt");
    QTest::addColumn<bool>("expBuddy"); // cfs_rq->next == wakee afterwards

    // Everybody nice 0 at v 0 (V = 0, all eligible); curr has d 700 000 and slice 0.7 ms.
    const QStringList none;
    // The wakee has the earliest deadline and curr is not protected: preempt.
    QTest::addRow("6.6 earliest deadline") << "6.6" << none << qint64(-1) << qint64(-1)
                                           << qint64(350000) << kSlice << 0 << true << false;
    // 6.6 NEXT_BUDDY marks the wakee, but the decision is pick_eevdf() == wakee, and pick_eevdf()
    // does not look at buddies: the other entity (d 350 000) is the EEVDF pick → no preemption.
    QTest::addRow("6.6 NEXT_BUDDY buddy is not the EEVDF pick")
        << "6.6" << QStringList{"NEXT_BUDDY"} << qint64(-1) << qint64(350000) << qint64(500000)
        << kSlice << 0 << false << true;
    // 6.12: a protected curr (vlag == d) is kept although the wakee's deadline is earlier ...
    QTest::addRow("6.12 protected curr") << "6.12" << none << qint64(700000) << qint64(-1)
                                         << qint64(350000) << kSlice << 0 << false << false;
    // ... unless PREEMPT_SHORT: a wakee with a shorter slice (0.1 ms → d 100 000), eligible and
    // with an earlier deadline, cancels the protection first.
    QTest::addRow("6.12 PREEMPT_SHORT") << "6.12" << none << qint64(700000) << qint64(-1)
                                        << qint64(100000) << qint64(100000) << 0 << true << false;
    QTest::addRow("6.12 NO_PREEMPT_SHORT")
        << "6.12" << QStringList{"NO_PREEMPT_SHORT"} << qint64(700000) << qint64(-1)
        << qint64(100000) << qint64(100000) << 0 << false << false;
    // 7.x: protection is v < vprot.
    QTest::addRow("7.1 protected curr") << "7.1" << none << qint64(700000) << qint64(-1)
                                        << qint64(350000) << kSlice << 0 << false << false;
    QTest::addRow("7.1 PREEMPT_SHORT") << "7.1" << none << qint64(700000) << qint64(-1)
                                       << qint64(100000) << qint64(100000) << 0 << true << false;
    // 6.19+: never on WF_FORK (equal slices), even against an unprotected curr.
    QTest::addRow("7.1 WF_FORK") << "7.1" << none << qint64(-1) << qint64(-1) << qint64(350000)
                                 << kSlice << int(WakeFork) << false << false;
    QTest::addRow("7.1 unprotected curr") << "7.1" << none << qint64(-1) << qint64(-1)
                                          << qint64(350000) << kSlice << 0 << true << false;
}

void TestFairFormulas::checkPreemptWakeup()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, features);
    QFETCH(qint64, currMark);
    QFETCH(qint64, otherD);
    QFETCH(qint64, wakeeD);
    QFETCH(qint64, wakeeSlice);
    QFETCH(int, wakeFlags);
    QFETCH(bool, expPreempt);
    QFETCH(bool, expBuddy);

    Bench b(profile, features);
    SchedEntity& curr = b.make(0, 0, kW0, 700000);
    b.setCurr(curr);
    if (currMark >= 0) {
        if (b.choices.protection == Protection::DeadlineHack)
            curr.vlag = currMark;
        else
            curr.vprot = uint64_t(currMark);
    }
    if (otherD >= 0)
        b.queue(b.make(1, 0, kW0, uint64_t(otherD)));
    SchedEntity& wakee = b.make(2, 0, kW0, uint64_t(wakeeD), wakeeSlice);
    wakee.customSlice = wakeeSlice != kSlice;
    b.queue(wakee);
    QCOMPARE(b.fair->checkPreemptWakeup(*b.rq, wakee, wakeFlags), expPreempt);
    QCOMPARE(!b.hooks.reschedCpus.empty(), expPreempt);
    QCOMPARE(b.cfs().next == &wakee, expBuddy);
}

void TestFairFormulas::updateProtectSlice_data()
{
    // curr (v, slice, d = vprot = the end of its request) runs; one other entity is queued; a
    // wakee arrives and does not preempt. What is left of curr's
    // protection (vprot; kernel-model.md §3.7)?
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<qint64>("currV");
    QTest::addColumn<qint64>("currSlice");
    QTest::addColumn<qint64>("otherV");
    QTest::addColumn<qint64>("otherSlice");
    QTest::addColumn<qint64>("wakeeV");
    QTest::addColumn<qint64>("wakeeSlice");
    QTest::addColumn<quint64>("expVprot");

    const QStringList none;
    // A: curr v 0 with a 3 ms request (vprot 3 000 000), a 0.1 ms entity queued (v 0), a wakee
    // with curr's own 3 ms slice. 6.17–6.18 shrink protection only for a shorter-slice wakee:
    // unchanged. 6.19+ shrink it at every wakeup that does not preempt, to
    // v + vslice(cfs_rq_min_slice 0.1 ms) = 100 000.
    QTest::addRow("6.18.15, equal-slice wakee")
        << "6.18.15" << none << qint64(0) << qint64(3000000) << qint64(0) << qint64(100000)
        << qint64(0) << qint64(3000000) << quint64(3000000);
    QTest::addRow("7.1, equal-slice wakee")
        << "7.1" << none << qint64(0) << qint64(3000000) << qint64(0) << qint64(100000) << qint64(0)
        << qint64(3000000) << quint64(100000);
    // B: a 0.1 ms wakee at v 300 000 against curr at 0 and the other (3 ms) at 0: V = 100 000,
    // so the wakee is not eligible and the unprotected pick is still curr; 6.18 shrinks
    // protection to v + vslice(0.1 ms) = 100 000.
    QTest::addRow("6.18.15, shorter-slice wakee not eligible")
        << "6.18.15" << none << qint64(0) << qint64(3000000) << qint64(0) << qint64(3000000)
        << qint64(300000) << qint64(100000) << quint64(100000);
    // C: the base. curr at v 400 000 (0.7 ms request: vprot 1 100 000), the other at 0, the
    // wakee at 200 000 (all 0.7 ms): V = 200 000, so curr is not eligible and the pick is the
    // other entity (d 700 000), not the wakee. 7.1 starts from v: min(1 100 000, 400 000 +
    // 700 000) = unchanged; 7.3 (protect_ineligible) from min(v, V) = 200 000: 900 000.
    QTest::addRow("7.1, base v") << "7.1" << none << qint64(400000) << kSlice << qint64(0) << kSlice
                                 << qint64(200000) << kSlice << quint64(1100000);
    QTest::addRow("7.1 + protect_ineligible, base min(v, V)")
        << "7.1" << QStringList{"protect_ineligible=true"} << qint64(400000) << kSlice << qint64(0)
        << kSlice << qint64(200000) << kSlice << quint64(900000);
}

void TestFairFormulas::updateProtectSlice()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, overrides);
    QFETCH(qint64, currV);
    QFETCH(qint64, currSlice);
    QFETCH(qint64, otherV);
    QFETCH(qint64, otherSlice);
    QFETCH(qint64, wakeeV);
    QFETCH(qint64, wakeeSlice);
    QFETCH(quint64, expVprot);

    Bench b(profile, overrides);
    QVERIFY(b.choices.protection != Protection::DeadlineHack);
    SchedEntity& curr = b.make(0, uint64_t(currV), kW0, uint64_t(currV + currSlice), currSlice);
    curr.customSlice = currSlice != kSlice;
    curr.vprot = curr.deadline;
    b.setCurr(curr);
    SchedEntity& other =
        b.make(1, uint64_t(otherV), kW0, uint64_t(otherV + otherSlice), otherSlice);
    other.customSlice = otherSlice != kSlice;
    b.queue(other);
    SchedEntity& wakee =
        b.make(2, uint64_t(wakeeV), kW0, uint64_t(wakeeV + wakeeSlice), wakeeSlice);
    wakee.customSlice = wakeeSlice != kSlice;
    b.queue(wakee);
    QVERIFY(!b.fair->checkPreemptWakeup(*b.rq, wakee, 0));
    QVERIFY(b.hooks.reschedCpus.empty());
    QCOMPARE(quint64(curr.vprot), expVprot);
}

void TestFairFormulas::setProtectSlice_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("features");
    QTest::addColumn<qint64>("seSlice");    // the picked entity: v 0, d = slice
    QTest::addColumn<qint64>("otherSlice"); // the other queued entity: v 200 000
    QTest::addColumn<bool>("first");        // a genuine pick (7.0+ sets protection only then)
    QTest::addColumn<quint64>("expMark");   // vlag (6.12 hack) or vprot after set_next_entity

    const QStringList none;
    // 6.6–6.16: stash the deadline in vlag at every set_next_entity().
    QTest::addRow("6.12 vlag := d")
        << "6.12" << none << kSlice << kSlice << true << quint64(700000);
    QTest::addRow("6.12 also when not first")
        << "6.12" << none << kSlice << kSlice << false << quint64(700000);
    // 7.x, equal slices: vprot = d.
    QTest::addRow("7.1 equal slices")
        << "7.1" << none << kSlice << kSlice << true << quint64(700000);
    // A 0.1 ms entity queued: slice = min(cfs_rq_min_slice, own) = 0.1 ms ≠ own →
    // 6.17–7.2: vprot = min(d, v + vslice(0.1 ms)) = 100 000, PREEMPT_SHORT or not.
    QTest::addRow("7.1 shorter slice queued, PREEMPT_SHORT")
        << "7.1" << none << kSlice << qint64(100000) << true << quint64(100000);
    // 7.3 (protect_ineligible): with PREEMPT_SHORT, vprot = min(d, ineligible_vruntime) where,
    // without the picked entity, the average is the other one's v: 200 000 + 1 = 200 001.
    QTest::addRow("7.1 + protect_ineligible, shorter slice queued, PREEMPT_SHORT")
        << "7.1" << QStringList{"protect_ineligible=true"} << kSlice << qint64(100000) << true
        << quint64(200001);
    // NO_PREEMPT_SHORT: vprot = min(d, v + vslice(0.1 ms)) = 100 000.
    QTest::addRow("7.1 shorter slice queued, NO_PREEMPT_SHORT")
        << "7.1" << QStringList{"NO_PREEMPT_SHORT"} << kSlice << qint64(100000) << true
        << quint64(100000);
    // NO_RUN_TO_PARITY protects min(normalised base slice, own slice): a 3 ms request is
    // protected for 0.7 ms only: vprot = min(3e6, 0 + 700 000).
    QTest::addRow("7.1 NO_RUN_TO_PARITY, 3 ms request")
        << "7.1" << QStringList{"NO_RUN_TO_PARITY", "NO_PREEMPT_SHORT"} << qint64(3000000)
        << qint64(3000000) << true << quint64(700000);
    // With RUN_TO_PARITY the same request is protected up to the smallest queued slice
    // (0.7 ms of the other entity): again 700 000; with only 3 ms requests, the whole 3 ms.
    QTest::addRow("7.1 RUN_TO_PARITY, 3 ms requests")
        << "7.1" << QStringList{"NO_PREEMPT_SHORT"} << qint64(3000000) << qint64(3000000) << true
        << quint64(3000000);
    QTest::addRow("7.1 RUN_TO_PARITY, 3 ms vs 0.7 ms")
        << "7.1" << QStringList{"NO_PREEMPT_SHORT"} << qint64(3000000) << kSlice << true
        << quint64(700000);
    // 7.0+: the put/set "sched_change" dance (first = false) leaves vprot alone (here 12 345).
    QTest::addRow("7.1 not first: unchanged")
        << "7.1" << none << kSlice << kSlice << false << quint64(12345);
}

void TestFairFormulas::setProtectSlice()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, features);
    QFETCH(qint64, seSlice);
    QFETCH(qint64, otherSlice);
    QFETCH(bool, first);
    QFETCH(quint64, expMark);

    Bench b(profile, features);
    SchedEntity& other = b.make(1, 200000, kW0, 200000 + uint64_t(otherSlice), otherSlice);
    other.customSlice = otherSlice != kSlice;
    b.queue(other);
    SchedEntity& se = b.make(0, 0, kW0, uint64_t(seSlice), seSlice);
    se.customSlice = seSlice != kSlice;
    b.queue(se);
    se.vprot = 12345;
    b.fair->setNextEntity(b.cfs(), se, first);
    QCOMPARE(b.cfs().curr, &se);
    QVERIFY(!b.cfs().inTree(se));
    if (b.choices.protection == Protection::DeadlineHack)
        QCOMPARE(quint64(se.vlag), expMark);
    else
        QCOMPARE(quint64(se.vprot), expMark);
    b.cfs().curr = nullptr; // the bench only unlinks tree entities
}

// --- §6.2 calc_group_shares ---------------------------------------------------------------------

void TestFairFormulas::calcGroupShares_data()
{
    QTest::addColumn<quint64>("shares"); // tg->shares, scaled
    QTest::addColumn<quint64>("grqWeight");
    QTest::addColumn<quint64>("grqLoadAvg");
    QTest::addColumn<qint64>("tgLoadAvg");
    QTest::addColumn<quint64>("contrib");
    QTest::addColumn<quint64>("expected");

    const quint64 s100 = quint64{1024} << 10;
    const quint64 s2000 = quint64{20480} << 10;
    // load = max(ŵ 1024, 600) = 1024; tg_weight = 3072 − 1024 + 1024 = 3072;
    // shares = 1 048 576 · 1024/3072 = 349 525 (trunc).
    QTest::addRow("a third of the group's load")
        << s100 << kW0 << quint64(600) << qint64(3072) << quint64(1024) << quint64(349525);
    // load = max(ŵ 0, 512) = 512 (blocked load still counts); tg_weight = 2048 − 512 + 512;
    // shares = 1 048 576 · 512/2048 = 262 144.
    QTest::addRow("PELT load of an empty grq")
        << s100 << quint64(0) << quint64(512) << qint64(2048) << quint64(512) << quint64(262144);
    // Only this CPU: tg_weight = load → shares = S (the UP limit).
    QTest::addRow("UP limit") << s100 << kW0 << quint64(0) << qint64(1024) << quint64(1024) << s100;
    // The contribution is replaced by the fresher load: TG 1536 (1024 stale here + 512 elsewhere),
    // load now 2048 (two nice-0 tasks): tg_weight = 1536 − 1024 + 2048 = 2560;
    // shares = 1 048 576 · 2048/2560 = 838 860 (trunc of 838 860.8).
    QTest::addRow("stale contribution replaced")
        << s100 << (kW0 * 2) << quint64(0) << qint64(1536) << quint64(1024) << quint64(838860);
    // cpu.weight 2000: S = 20 971 520; load 1024, TG 1536 incl. own 1024: tg_weight = 1536;
    // shares = 20 971 520 · 1024/1536 = 13 981 013 (trunc of ...013.3).
    QTest::addRow("cpu.weight 2000")
        << s2000 << kW0 << quint64(0) << qint64(1536) << quint64(1024) << quint64(13981013);
    // Tiny share: load 1, tg_weight 10^7 → 1 048 576/10^7 = 0 → clamped to MIN_SHARES = 2.
    QTest::addRow("clamp to MIN_SHARES")
        << s100 << quint64(0) << quint64(1) << qint64(10000000) << quint64(0) << quint64(2);
    // TG behind (100) while this CPU's stale contrib is 600: tg_weight = 100 − 600 + 1024 = 524 <
    // load → S · 1024/524 > S → clamped to S.
    QTest::addRow("clamp to S") << s100 << kW0 << quint64(0) << qint64(100) << quint64(600) << s100;
    // tg_weight == 0 (everything 0): shares = S · 0 = 0 → 2.
    QTest::addRow("tg_weight 0") << s100 << quint64(0) << quint64(0) << qint64(0) << quint64(0)
                                 << quint64(2);
}

void TestFairFormulas::calcGroupShares()
{
    QFETCH(quint64, shares);
    QFETCH(quint64, grqWeight);
    QFETCH(quint64, grqLoadAvg);
    QFETCH(qint64, tgLoadAvg);
    QFETCH(quint64, contrib);
    QFETCH(quint64, expected);

    Bench b("7.1");
    b.groups.resize(2);
    b.groups[1].index = 1;
    b.groups[1].shares = shares;
    b.groups[1].loadAvg = tgLoadAvg;
    CfsRq grq(b.choices);
    grq.groupIndex = 1;
    grq.loadWeight = grqWeight;
    grq.avg.loadAvg = grqLoadAvg;
    grq.tgLoadAvgContrib = contrib;
    QCOMPARE(quint64(b.fair->calcGroupShares(grq)), expected);
}

// --- §2.2 calc_delta_fair
// --------------------------------------------------------------------------

void TestFairFormulas::calcDelta_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<qint64>("delta");
    QTest::addColumn<quint64>("expected");

    // nice 5: w = 335·1024, wmult 12 820 798. Fixed point (≤7.0):
    // fact = 1024 · 12 820 798 = 13 128 497 152 ≥ 2^32 → fact>>32 = 3 (2 bits): shift 30,
    // fact = 3 282 124 288. Exact (7.1): delta · 1024/335.
    // 0.7 ms: (700 000 · 3 282 124 288) >> 30 = floor(2 139 701.49) = 2 139 701;
    //         exact 716 800 000/335 = 2 139 701.49 → 2 139 701 (same).
    QTest::addRow("6.12 nice 5, 0.7 ms") << "6.12" << qint64(700000) << quint64(2139701);
    QTest::addRow("7.1 nice 5, 0.7 ms") << "7.1" << qint64(700000) << quint64(2139701);
    // 1.4 ms (the own-slice lag limit): fixed floor(4 279 403.03) = 4 279 403;
    // exact 1 433 600 000/335 = 4 279 402.98 → 4 279 402.
    QTest::addRow("6.12 nice 5, 1.4 ms") << "6.12" << qint64(1400000) << quint64(4279403);
    QTest::addRow("7.1 nice 5, 1.4 ms") << "7.1" << qint64(1400000) << quint64(4279402);
    // 100 ms: fixed floor(305 671 644.4) = 305 671 644; exact floor(305 671 641.8) = 305 671 641.
    QTest::addRow("6.12 nice 5, 100 ms") << "6.12" << qint64(100000000) << quint64(305671644);
    QTest::addRow("7.1 nice 5, 100 ms") << "7.1" << qint64(100000000) << quint64(305671641);
}

void TestFairFormulas::calcDelta()
{
    QFETCH(QString, profile);
    QFETCH(qint64, delta);
    QFETCH(quint64, expected);

    Bench b(profile);
    SchedEntity& se = b.make(0, 0, kW5);
    QCOMPARE(quint64(b.fair->vslice(delta, se)), expected);
    // A nice-0 entity is never scaled (calc_delta_fair shortcut).
    SchedEntity& n0 = b.make(1, 0, kW0);
    QCOMPARE(quint64(b.fair->vslice(delta, n0)), quint64(delta));
}

QTEST_APPLESS_MAIN(TestFairFormulas)
#include "tst_fairformulas.moc"
