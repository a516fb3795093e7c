// SPDX-License-Identifier: GPL-2.0-or-later
// core/fair/cfsrq.h against tests/support/naiverunqueue.h (an obvious reference version), plus
// small cases whose V and eligibility were worked out by hand from kernel-model.md §3.2–§3.3.
#include <QTest>

#include <array>
#include <vector>

// moc 6.4 runs with C++17 predefines and cannot parse <concepts> (via <compare>): hide the core
// headers from it; the test class itself needs none of their declarations.
#ifndef Q_MOC_RUN
#include "core/base/prng.h"
#include "core/fair/cfsrq.h"
#include "support/naiverunqueue.h"
#endif

using namespace schedlab;
using schedlab::test::NaiveRunQueue;

Q_DECLARE_METATYPE(WeightPrecision)
Q_DECLARE_METATYPE(V0Mode)

namespace {

constexpr uint64_t kNice0 = uint64_t{1} << 20;

ProfileChoices choicesFor(WeightPrecision precision, V0Mode v0 = V0Mode::MinVruntime)
{
    ProfileChoices c;
    c.weightPrecision = precision;
    c.v0 = v0;
    return c;
}

/// Queues @p se in the tree as the fair class would, keeping load.weight and nr_queued.
void enqueue(CfsRq& rq, SchedEntity& se)
{
    se.onRq = true;
    se.cfsRq = &rq;
    rq.enqueueTree(se);
    rq.loadWeight += se.load.weight;
    ++rq.nrQueued;
}

void dequeue(CfsRq& rq, SchedEntity& se)
{
    rq.dequeueTree(se);
    se.onRq = false;
    rq.loadWeight -= se.load.weight;
    --rq.nrQueued;
}

SchedEntity& entity(SchedEntity& se, uint64_t v, uint64_t w, uint64_t d = 0, int64_t slice = 700000)
{
    se.vruntime = v;
    se.load = loadWeightOf(w);
    se.deadline = d;
    se.slice = slice;
    return se;
}

/// Takes every entity off the trees before the test's entities go out of scope (safe_link hooks
/// assert when a linked node is destroyed).
void unlinkAll(CfsRq& rq)
{
    rq.curr = nullptr;
    rq.clearTrees();
}

const char* precisionName(WeightPrecision p)
{
    return p == WeightPrecision::Full ? "full" : "scaled-down";
}

const char* v0Name(V0Mode m)
{
    switch (m) {
    case V0Mode::MinVruntime:
        return "min_vruntime";
    case V0Mode::ZeroVruntimeEnqueue:
        return "zero_vruntime_enqueue";
    case V0Mode::ZeroVruntimeAvg:
        return "zero_vruntime_avg";
    }
    return "?";
}

} // namespace

class TestCfsRq : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void handComputedV_data();
    void handComputedV();
    void currCountedOnlyWhenQueued();
    void updateMinVruntimeIsMonotonic();
    void zeroVruntimeEnqueueTracksV();
    void avgVruntimeSideEffect_data();
    void avgVruntimeSideEffect();
    void slices();
    void pickTieBreaks_data();
    void pickTieBreaks();
    void invariantsDetectCorruption_data();
    void invariantsDetectCorruption();
    void differential_data();
    void differential();
    void augmentedPickHandComputed();
    void augmentedPickDeep_data();
    void augmentedPickDeep();
    void augmentedPickWrapFallsBackToWalk();
    void vruntimeTreeBuiltOnDemand();
};

// Three (or two) entities in the tree, no curr. Expected values are by hand:
// V = v0 + floor(Σ(v_i − v0)·w_i / Σ w_i), eligible ⇔ Σ(v_i − v0)·w_i ≥ (v − v0)·Σ w_i.
void TestCfsRq::handComputedV_data()
{
    QTest::addColumn<WeightPrecision>("precision");
    QTest::addColumn<quint64>("v0");
    QTest::addColumn<QList<quint64>>("vruntimes");
    QTest::addColumn<QList<quint64>>("weights"); // scaled
    QTest::addColumn<quint64>("expectedV");
    QTest::addColumn<QList<bool>>("eligible");
    QTest::addColumn<QList<bool>>("probesEligible"); // at V − 1, V, V + 1

    const QList<quint64> threeW{kNice0, 335u << 10, 3121u << 10};
    for (const auto p : {WeightPrecision::ScaledDown, WeightPrecision::Full}) {
        // (0·1024 + 3000·335 + 600·3121) / (1024 + 335 + 3121) = 2877600 / 4480 = 642.32…
        // → V = 1642 in both precisions (task weights are ŵ << 10, the ratios are the same).
        QTest::addRow("%s: nice 0, 5, -5", precisionName(p))
            << p << quint64(1000) << QList<quint64>{1000, 4000, 1600} << threeW << quint64(1642)
            << QList<bool>{true, false, true} << QList<bool>{true, true, false};
        // Keys −1000 and −3 with equal weights: −1003·1024 / 2048 = −501.5 → floor −502 (not the
        // truncated −501): V = 9498. At 9499: −501·2048 = −1026048 > −1027072 → not eligible.
        QTest::addRow("%s: negative keys floor toward -inf", precisionName(p))
            << p << quint64(10000) << QList<quint64>{9000, 9997} << QList<quint64>{kNice0, kNice0}
            << quint64(9498) << QList<bool>{true, false} << QList<bool>{true, true, false};
        // v0 = 2^64 − 100; keys −100 and +150 (v = 50 after the wrap): V = v0 + 25 = 2^64 − 75.
        QTest::addRow("%s: keys across the u64 wrap", precisionName(p))
            << p << quint64(-100) << QList<quint64>{quint64(-200), 50}
            << QList<quint64>{kNice0, kNice0} << quint64(-75) << QList<bool>{true, false}
            << QList<bool>{true, true, false};
    }
    // A MIN_SHARES group entity (w = 2 scaled) next to a nice-0 task 2^20 ahead:
    // scaled-down ŵ = 2: 2·2^20 / 1026 = 2044.007… → V = 2044;
    // full w = 2:        2·2^20 / (2^20 + 2) = 1.99999… → V = 1.
    QTest::addRow("scaled-down: weight-2 group counts as 2")
        << WeightPrecision::ScaledDown << quint64(0) << QList<quint64>{0, kNice0}
        << QList<quint64>{kNice0, 2} << quint64(2044) << QList<bool>{true, false}
        << QList<bool>{true, true, false};
    QTest::addRow("full: weight-2 group counts as 2/2^20")
        << WeightPrecision::Full << quint64(0) << QList<quint64>{0, kNice0}
        << QList<quint64>{kNice0, 2} << quint64(1) << QList<bool>{true, false}
        << QList<bool>{true, true, false}; // at 2: 2·1048578 = 2097156 > 2097152
    // Exact mean: 3 entities at 0, 300, 600 with equal weight → V = 300 exactly; an entity exactly
    // at V is eligible (lag 0), one ns later is not.
    QTest::addRow("entity exactly at V is eligible")
        << WeightPrecision::ScaledDown << quint64(0) << QList<quint64>{0, 300, 600}
        << QList<quint64>{kNice0, kNice0, kNice0} << quint64(300) << QList<bool>{true, true, false}
        << QList<bool>{true, true, false};
}

void TestCfsRq::handComputedV()
{
    QFETCH(WeightPrecision, precision);
    QFETCH(quint64, v0);
    QFETCH(QList<quint64>, vruntimes);
    QFETCH(QList<quint64>, weights);
    QFETCH(quint64, expectedV);
    QFETCH(QList<bool>, eligible);
    QFETCH(QList<bool>, probesEligible);

    std::array<SchedEntity, 3> se;
    const ProfileChoices choices = choicesFor(precision);
    CfsRq rq(choices);
    rq.v0 = v0;
    for (qsizetype i = 0; i < vruntimes.size(); ++i)
        enqueue(rq, entity(se[size_t(i)], vruntimes[i], weights[i], 1000000 + quint64(i)));

    QCOMPARE(quint64(rq.peekAvgVruntime()), expectedV);
    for (qsizetype i = 0; i < vruntimes.size(); ++i)
        QVERIFY2(rq.entityEligible(se[size_t(i)]) == eligible[i], qPrintable(QString::number(i)));
    QCOMPARE(rq.vruntimeEligible(expectedV - 1), probesEligible[0]);
    QCOMPARE(rq.vruntimeEligible(expectedV), probesEligible[1]);
    QCOMPARE(rq.vruntimeEligible(expectedV + 1), probesEligible[2]);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());

    // V does not depend on the reference point.
    rq.moveV0(-123456);
    QCOMPARE(quint64(rq.peekAvgVruntime()), expectedV);
    rq.moveV0(1000000);
    QCOMPARE(quint64(rq.peekAvgVruntime()), expectedV);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

void TestCfsRq::currCountedOnlyWhenQueued()
{
    SchedEntity a;
    SchedEntity b;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    CfsRq rq(choices);

    // Nothing queued: V = v0.
    rq.v0 = 500;
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(500));
    QCOMPARE(rq.minSlice(), CfsRq::kNoSlice);
    QCOMPARE(rq.maxSlice(), int64_t(0));

    // curr alone and queued: V = its vruntime.
    entity(b, 3500, kNice0);
    b.onRq = true;
    b.cfsRq = &rq;
    rq.curr = &b;
    rq.loadWeight = kNice0;
    rq.nrQueued = 1;
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(3500));
    QVERIFY(rq.entityEligible(b));
    QCOMPARE(rq.countedWeight(), Int128(1024));

    // Tree entity at 500 and curr at 3500, equal weights: V = 500 + floor(3000/2) = 2000.
    enqueue(rq, entity(a, 500, kNice0));
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(2000));
    QVERIFY(rq.entityEligible(a));
    QVERIFY(!rq.entityEligible(b));
    QCOMPARE(rq.countedWeight(), Int128(2048));
    // Without curr, the tree alone: ineligible_vruntime = 500 + 0 + 1.
    QCOMPARE(quint64(rq.ineligibleVruntime()), quint64(501));
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());

    // curr dequeued (on_rq = 0 while still cfs_rq->curr): no longer counted.
    b.onRq = false;
    rq.loadWeight -= kNice0;
    --rq.nrQueued;
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(500));
    QVERIFY(!rq.entityEligible(b));
    QCOMPARE(rq.countedWeight(), Int128(1024));
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());

    dequeue(rq, a);
    rq.curr = nullptr;
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
}

void TestCfsRq::updateMinVruntimeIsMonotonic()
{
    SchedEntity a;
    SchedEntity b;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown, V0Mode::MinVruntime);
    CfsRq rq(choices);
    rq.v0 = 100;

    // min(curr 300, leftmost 500) = 300 > 100 → v0 = 300.
    enqueue(rq, entity(a, 500, kNice0));
    entity(b, 300, kNice0);
    b.onRq = true;
    b.cfsRq = &rq;
    rq.curr = &b;
    rq.loadWeight += kNice0;
    ++rq.nrQueued;
    const uint64_t v = rq.peekAvgVruntime(); // 400
    QCOMPARE(quint64(v), quint64(400));
    rq.updateMinVruntime();
    QCOMPARE(quint64(rq.v0), quint64(300));
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(v)); // rebasing keeps V
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());

    // curr moves backwards (cannot happen in the kernel, but min_vruntime must not follow).
    b.vruntime = 200;
    rq.updateMinVruntime();
    QCOMPARE(quint64(rq.v0), quint64(300));

    // curr no longer queued: only the tree counts → leftmost 500.
    b.onRq = false;
    rq.loadWeight -= kNice0;
    --rq.nrQueued;
    rq.updateMinVruntime();
    QCOMPARE(quint64(rq.v0), quint64(500));

    // Nothing counted at all: v0 stays.
    dequeue(rq, a);
    rq.curr = nullptr;
    rq.updateMinVruntime();
    QCOMPARE(quint64(rq.v0), quint64(500));

    // Across the u64 wrap: leftmost at 2^64 − 10 is "before" v0 = 500 → no move; at 20 → moves.
    enqueue(rq, entity(a, quint64(-10), kNice0));
    rq.updateMinVruntime();
    QCOMPARE(quint64(rq.v0), quint64(500));
    dequeue(rq, a);
    enqueue(rq, entity(a, 520, kNice0));
    rq.updateMinVruntime();
    QCOMPARE(quint64(rq.v0), quint64(520));
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

void TestCfsRq::zeroVruntimeEnqueueTracksV()
{
    std::array<SchedEntity, 4> se;
    const ProfileChoices choices =
        choicesFor(WeightPrecision::ScaledDown, V0Mode::ZeroVruntimeEnqueue);
    CfsRq rq(choices);

    enqueue(rq, entity(se[0], 1000, kNice0));
    QCOMPARE(quint64(rq.v0), quint64(1000));
    enqueue(rq, entity(se[1], 4000, kNice0));
    QCOMPARE(quint64(rq.v0), quint64(2500)); // (1000 + 4000) / 2
    dequeue(rq, se[0]);
    QCOMPARE(quint64(rq.v0), quint64(4000));
    // A queued curr counts: curr at 0, tree at 4000 and (new) 2000: V = 6000/3 = 2000.
    entity(se[2], 0, kNice0);
    se[2].onRq = true;
    se[2].cfsRq = &rq;
    rq.curr = &se[2];
    rq.loadWeight += kNice0;
    ++rq.nrQueued;
    enqueue(rq, entity(se[3], 2000, kNice0));
    QCOMPARE(quint64(rq.v0), quint64(2000));
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(2000));
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

void TestCfsRq::avgVruntimeSideEffect_data()
{
    QTest::addColumn<V0Mode>("mode");
    QTest::addColumn<bool>("movesV0");

    QTest::addRow("min_vruntime: a pure read") << V0Mode::MinVruntime << false;
    QTest::addRow("zero_vruntime_enqueue: a pure read") << V0Mode::ZeroVruntimeEnqueue << false;
    QTest::addRow("zero_vruntime_avg: pulls v0 to V") << V0Mode::ZeroVruntimeAvg << true;
}

void TestCfsRq::avgVruntimeSideEffect()
{
    QFETCH(V0Mode, mode);
    QFETCH(bool, movesV0);

    std::array<SchedEntity, 2> se;
    const ProfileChoices choices = choicesFor(WeightPrecision::Full, mode);
    CfsRq rq(choices);
    // 900 and 1200 with weights 2:1: (900·2 + 1200·1) / 3 = 1000.
    enqueue(rq, entity(se[0], 900, 2 * kNice0));
    enqueue(rq, entity(se[1], 1200, kNice0));
    rq.moveV0(-77); // v0 somewhere else than V in every mode
    const uint64_t before = rq.v0;
    QCOMPARE(quint64(rq.avgVruntime()), quint64(1000));
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(1000));
    QCOMPARE(quint64(rq.v0), movesV0 ? quint64(1000) : quint64(before));
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

void TestCfsRq::slices()
{
    std::array<SchedEntity, 4> se;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    CfsRq rq(choices);
    enqueue(rq, entity(se[0], 0, kNice0, 0, 700000));
    enqueue(rq, entity(se[1], 0, kNice0, 0, 3000000));
    enqueue(rq, entity(se[2], 0, kNice0, 0, 700000));
    QCOMPARE(rq.minSlice(), int64_t(700000));
    QCOMPARE(rq.maxSlice(), int64_t(3000000));
    dequeue(rq, se[0]); // the other 0.7 ms entity keeps the minimum
    QCOMPARE(rq.minSlice(), int64_t(700000));
    dequeue(rq, se[2]);
    QCOMPARE(rq.minSlice(), int64_t(3000000));
    // A queued curr with a shorter and then a longer slice.
    entity(se[3], 0, kNice0, 0, 100000);
    se[3].onRq = true;
    se[3].cfsRq = &rq;
    rq.curr = &se[3];
    QCOMPARE(rq.minSlice(), int64_t(100000));
    QCOMPARE(rq.maxSlice(), int64_t(3000000));
    se[3].slice = 5000000;
    QCOMPARE(rq.minSlice(), int64_t(3000000));
    QCOMPARE(rq.maxSlice(), int64_t(5000000));
    se[3].onRq = false; // not queued: ignored
    QCOMPARE(rq.maxSlice(), int64_t(3000000));
    dequeue(rq, se[1]);
    QCOMPARE(rq.minSlice(), CfsRq::kNoSlice); // cfs_rq_min_slice() of an empty cfs_rq is ~0
    QCOMPARE(rq.maxSlice(), int64_t(0));
    unlinkAll(rq);
}

// Pick tie-breaks: entities are inserted in the listed order.
void TestCfsRq::pickTieBreaks_data()
{
    QTest::addColumn<QList<quint64>>("vruntimes");
    QTest::addColumn<QList<quint64>>("deadlines");
    QTest::addColumn<int>("pick68"); // index, −1 for none
    QTest::addColumn<int>("pick66");

    // All at V = 100 (all eligible), equal deadlines: 6.8 takes the first inserted, 6.6 the
    // smallest vruntime and then the first inserted.
    QTest::addRow("equal deadlines, equal vruntimes")
        << QList<quint64>{100, 100, 100} << QList<quint64>{900, 900, 900} << 0 << 0;
    // V = (90 + 100 + 110) / 3 = 100: the entity at 110 is not eligible.
    QTest::addRow("equal deadlines, vruntime breaks the 6.6 tie")
        << QList<quint64>{100, 90, 110} << QList<quint64>{900, 900, 900} << 0 << 1;
    // The earliest deadline (index 2) is not eligible; the next one (index 0) wins.
    QTest::addRow("earliest deadline ineligible")
        << QList<quint64>{90, 100, 110} << QList<quint64>{800, 900, 700} << 0 << 0;
    QTest::addRow("later insertion, earlier deadline")
        << QList<quint64>{100, 100, 100} << QList<quint64>{900, 900, 899} << 2 << 2;
}

void TestCfsRq::pickTieBreaks()
{
    QFETCH(QList<quint64>, vruntimes);
    QFETCH(QList<quint64>, deadlines);
    QFETCH(int, pick68);
    QFETCH(int, pick66);

    std::array<SchedEntity, 3> se;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    CfsRq rq(choices);
    for (size_t i = 0; i < 3; ++i)
        enqueue(rq, entity(se[i], vruntimes[qsizetype(i)], kNice0, deadlines[qsizetype(i)]));
    auto index = [&](const SchedEntity* p) { return p ? int(p - se.data()) : -1; };
    QCOMPARE(index(rq.firstEligibleByDeadline()), pick68);
    QCOMPARE(index(rq.earliestDeadlineInEligiblePrefix()), pick66);
    unlinkAll(rq);
}

void TestCfsRq::invariantsDetectCorruption_data()
{
    QTest::addColumn<QString>("corruption");
    QTest::addColumn<QString>("fragment");

    QTest::addRow("load.weight off by one") << "load"
                                            << "load.weight";
    QTest::addRow("nr_queued off by one") << "nr"
                                          << "nr_queued";
    QTest::addRow("tree entity not marked queued") << "onrq"
                                                   << "not marked queued";
    QTest::addRow("sum_weight drifted") << "sum"
                                        << "sum_weight";
}

void TestCfsRq::invariantsDetectCorruption()
{
    QFETCH(QString, corruption);
    QFETCH(QString, fragment);

    std::array<SchedEntity, 2> se;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    CfsRq rq(choices);
    enqueue(rq, entity(se[0], 0, kNice0));
    enqueue(rq, entity(se[1], 10, kNice0));
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    if (corruption == QLatin1String("load"))
        rq.loadWeight += 1;
    else if (corruption == QLatin1String("nr"))
        rq.nrQueued += 1;
    else if (corruption == QLatin1String("onrq"))
        se[1].onRq = false;
    else
        rq.sumWeight += 1;
    const QString message = QString::fromStdString(rq.checkInvariants());
    QVERIFY2(message.contains(fragment), qPrintable(message));
    unlinkAll(rq);
}

void TestCfsRq::differential_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<WeightPrecision>("precision");
    QTest::addColumn<V0Mode>("v0Mode");
    QTest::addColumn<quint64>("base");  // starting vruntime
    QTest::addColumn<qint64>("grid");   // vruntimes/deadlines are multiples of this (ties)
    QTest::addColumn<qint64>("spread"); // new entities land within ±spread of V (¼: ±16·spread)

    quint64 seed = 1;
    for (const auto p : {WeightPrecision::ScaledDown, WeightPrecision::Full}) {
        for (const auto m :
            {V0Mode::MinVruntime, V0Mode::ZeroVruntimeEnqueue, V0Mode::ZeroVruntimeAvg}) {
            QTest::addRow("%s, %s", precisionName(p), v0Name(m))
                << seed++ << p << m << (quint64(1) << 40) << qint64(1) << qint64(3000000);
            QTest::addRow("%s, %s, many ties", precisionName(p), v0Name(m))
                << seed++ << p << m << quint64(1000000) << qint64(250000) << qint64(3000000);
            QTest::addRow("%s, %s, across the u64 wrap", precisionName(p), v0Name(m))
                << seed++ << p << m << quint64(0) - 2000000000 << qint64(1) << qint64(3000000);
        }
    }
    // Full weights (up to 102400 << 10) with keys up to ~10^11: Σ(v − v0)·w no longer fits in
    // 64 bits, which the 7.1+ arithmetic (int128) must still get right.
    for (const auto m : {V0Mode::MinVruntime, V0Mode::ZeroVruntimeAvg})
        QTest::addRow("full, %s, sums beyond 64 bits", v0Name(m))
            << seed++ << WeightPrecision::Full << m << (quint64(1) << 50) << qint64(1)
            << qint64(6000000000);
}

void TestCfsRq::differential()
{
    QFETCH(quint64, seed);
    QFETCH(WeightPrecision, precision);
    QFETCH(V0Mode, v0Mode);
    QFETCH(quint64, base);
    QFETCH(qint64, grid);
    QFETCH(qint64, spread);

    constexpr size_t kPool = 48;
    constexpr int kOps = 4000;
    // Weights: the nice table, SCHED_IDLE, MIN_SHARES-like group weights and heavy groups.
    const std::vector<uint64_t> weightMenu{kNice0, 88761u << 10, 15u << 10, 335u << 10, 3u << 10, 2,
        1, 1000, 20480u << 10, 102400u << 10, 3121u << 10, 1277u << 10};
    const std::vector<int64_t> sliceMenu{100000, 700000, 750000, 3000000, 100000000};

    std::vector<SchedEntity> pool(kPool); // outlives rq
    const ProfileChoices choices = choicesFor(precision, v0Mode);
    CfsRq rq(choices);
    rq.v0 = base;
    NaiveRunQueue naive(precision);
    Prng prng(seed);

    // On a grid > 1, vruntimes and deadlines are multiples of it, so equal keys are common.
    auto snap = [&](int64_t x) { return grid > 1 ? x / grid * grid : x; };
    auto snapAbs = [&](uint64_t x) { return grid > 1 ? x - x % uint64_t(grid) : x; };
    auto pickTree = [&]() -> SchedEntity* {
        const auto& e = naive.entries();
        return const_cast<SchedEntity*>(e[prng.below(e.size())].se);
    };
    auto offRq = [&]() -> SchedEntity* {
        std::vector<SchedEntity*> off;
        for (SchedEntity& se : pool)
            if (!rq.inTree(se) && &se != rq.curr)
                off.push_back(&se);
        return off.empty() ? nullptr : off[prng.below(off.size())];
    };
    // Runs one tree change; false if zero_vruntime (6.19 mode) failed to follow V right after it.
    bool v0FollowsV = true;
    auto treeOp = [&](auto&& op) {
        op();
        if (v0Mode == V0Mode::ZeroVruntimeEnqueue && rq.v0 != rq.peekAvgVruntime())
            v0FollowsV = false;
    };

    int checks = 0;
    size_t target = 0; // the queue grows or shrinks toward a target that changes now and then
    for (int step = 0; step < kOps; ++step) {
        if (step % 400 == 0)
            target = prng.below(kPool - 7);
        const uint64_t vNow = naive.avgVruntime(rq.v0);
        const int op = int(prng.below(100));
        if (op < 45 && naive.size() < target) { // insert a new entity around V
            if (SchedEntity* se = offRq()) {
                const int64_t s = prng.below(4) == 0 ? 16 * spread : spread;
                const uint64_t v = snapAbs(vNow + uint64_t(prng.uniform(-s, s)));
                entity(*se, v, weightMenu[prng.below(weightMenu.size())],
                    v + uint64_t(snap(prng.uniform(0, 6000000))),
                    sliceMenu[prng.below(sliceMenu.size())]);
                treeOp([&] { enqueue(rq, *se); });
                naive.insert(*se);
            }
        } else if (op < 45) { // dequeue a tree entity
            if (naive.size()) {
                SchedEntity* se = pickTree();
                naive.erase(*se);
                treeOp([&] { dequeue(rq, *se); });
            }
        } else if (op < 55) { // set_next_entity: a tree entity becomes curr
            if (!rq.curr && naive.size()) {
                SchedEntity* se = prng.below(2)
                    ? pickTree()
                    : const_cast<SchedEntity*>(naive.pickByDeadline(rq.v0));
                if (!se)
                    se = pickTree();
                naive.erase(*se);
                treeOp([&] { rq.dequeueTree(*se); });
                rq.curr = se;
                naive.setCurr(se);
            }
        } else if (op < 67) { // update_curr: curr advances (and may renew its deadline)
            if (rq.curr && rq.curr->onRq) {
                SchedEntity& c = *rq.curr;
                c.vruntime += uint64_t(snap(prng.uniform(0, 3000000)));
                if (vdiff(c.vruntime, c.deadline) >= 0)
                    c.deadline = snapAbs(c.vruntime) + uint64_t(snap(prng.uniform(0, 6000000)));
            }
        } else if (op < 75) { // put_prev_entity: curr goes back to the tree (or leaves)
            if (rq.curr) {
                SchedEntity* c = rq.curr;
                rq.curr = nullptr;
                naive.setCurr(nullptr);
                if (c->onRq) {
                    treeOp([&] { rq.enqueueTree(*c); });
                    naive.insert(*c);
                }
            }
        } else if (op < 79) { // curr is dequeued (sleep) but stays cfs_rq->curr for now
            if (rq.curr && rq.curr->onRq) {
                rq.curr->onRq = false;
                rq.loadWeight -= rq.curr->load.weight;
                --rq.nrQueued;
            }
        } else if (op < 81) { // a queued entity (tree or curr) gets a new slice
            SchedEntity* se = naive.size() && prng.below(2) ? pickTree() : rq.curr;
            if (se)
                rq.setSlice(*se, sliceMenu[prng.below(sliceMenu.size())]);
        } else if (op < 84) { // reweight a tree entity (dequeue, new weight, enqueue)
            if (naive.size()) {
                SchedEntity* se = pickTree();
                naive.erase(*se);
                treeOp([&] { dequeue(rq, *se); });
                se->load = loadWeightOf(weightMenu[prng.below(weightMenu.size())]);
                treeOp([&] { enqueue(rq, *se); });
                naive.insert(*se);
            }
        } else if (op < 90) { // move the reference point
            const uint64_t vBefore = rq.peekAvgVruntime();
            if (v0Mode == V0Mode::MinVruntime) {
                const uint64_t old = rq.v0;
                rq.updateMinVruntime();
                QVERIFY(vdiff(rq.v0, old) >= 0); // monotonic
            } else {
                rq.moveV0(prng.uniform(-10000000, 10000000));
            }
            if (rq.countedWeight() > 0) // with nothing counted V is just v0
                QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(vBefore));
        } else { // avg_vruntime(): V, and in 7.0+ mode v0 := V
            const uint64_t v = rq.avgVruntime();
            QCOMPARE(quint64(v), quint64(vNow));
            if (v0Mode == V0Mode::ZeroVruntimeAvg)
                QCOMPARE(quint64(rq.v0), quint64(v));
        }

        // --- compare everything after every operation ---
        // (plain comparisons collected into one message: QCOMPARE per entity and op is slow)
        std::string failure;
        auto check = [&](bool ok, const std::string& what) {
            if (!ok && failure.empty())
                failure = "step " + std::to_string(step) + ": " + what;
        };
        const uint64_t v0 = rq.v0;
        const uint64_t expectedV = naive.avgVruntime(v0);
        Int128 num;
        Int128 den;
        naive.sums(v0, num, den);
        check(v0FollowsV, "v0 != V right after a tree change");
        check(rq.peekAvgVruntime() == expectedV,
            "V " + std::to_string(rq.peekAvgVruntime()) + " != " + std::to_string(expectedV));
        check(den == 0 || naive.avgVruntime(base) == expectedV, "V depends on the reference point");
        check(rq.treeSize() == naive.size(), "tree size");
        for (const auto& e : naive.entries())
            check(rq.entityEligible(*e.se) == NaiveRunQueue::eligible(e.se->vruntime, v0, num, den),
                "eligibility of a tree entity");
        if (rq.curr)
            check(rq.entityEligible(*rq.curr)
                    == NaiveRunQueue::eligible(rq.curr->vruntime, v0, num, den),
                "eligibility of curr");
        for (const int64_t d : {-1, 0, 1})
            check(rq.vruntimeEligible(expectedV + uint64_t(d))
                    == NaiveRunQueue::eligible(expectedV + uint64_t(d), v0, num, den),
                "eligibility of V" + std::to_string(d));
        check(rq.firstEligibleByDeadline() == naive.pickByDeadline(v0), "6.8+ pick");
        check(rq.earliestDeadlineInEligiblePrefix() == naive.pickEligiblePrefix(v0), "6.6 pick");
        const auto byDeadline = naive.byDeadline();
        const auto byVruntime = naive.byVruntime();
        check(rq.leftmostDeadline() == (byDeadline.empty() ? nullptr : byDeadline.front()),
            "leftmost by deadline");
        check(rq.leftmostVruntime() == (byVruntime.empty() ? nullptr : byVruntime.front()),
            "leftmost by vruntime");
        std::vector<const SchedEntity*> walk;
        rq.forEachTree([&](const SchedEntity& se) { walk.push_back(&se); });
        check(walk == byDeadline, "deadline-tree walk order");
        check(rq.minSlice() == naive.minSlice(), "min slice");
        check(rq.maxSlice() == naive.maxSlice(), "max slice");
        check(rq.countedWeight() == den, "counted weight");
        check(naive.size() == 0
                || rq.ineligibleVruntime() == naive.avgVruntime(v0, /*withCurr=*/false) + 1,
            "ineligible_vruntime");
        const std::string problem = rq.checkInvariants();
        check(problem.empty(), "checkInvariants: " + problem);
        if (!failure.empty())
            QFAIL(failure.c_str());
        ++checks;
    }
    QCOMPARE(checks, kOps);
    unlinkAll(rq);
}

// Seven entities, equal weights, v0 = 0, no curr: V = (0+10+20+30+40+50+60)/7 = 30, so the
// entities at vruntime 0…30 are eligible and those at 40…60 are not (kernel-model.md §3.3).
// Deadlines (by vruntime): 0→500, 10→300, 20→300, 30→400, 40→100, 50→200, 60→300.
//   6.8+ (first eligible in deadline order): the order is 40(100), 50(200), 10(300), 20(300),
//   60(300), 30(400), 0(500); 40 and 50 are not eligible, 10 is: the entity at vruntime 10.
//   6.6 (earliest deadline in the eligible vruntime prefix 0, 10, 20, 30): 300 at 10 and at 20,
//   the first met in vruntime order wins: the entity at vruntime 10.
// Then the entity at 10 leaves: 6.8+ takes 20 (300, inserted before 60's 300 but 60 is not
// eligible anyway), and V = (0+20+30+40+50+60)/6 = 33 keeps 0, 20, 30 eligible: 6.6 takes 20.
// Then 20 leaves too: V = 180/5 = 36, eligible 0 and 30; both picks take 30 (400 < 500).
void TestCfsRq::augmentedPickHandComputed()
{
    std::array<SchedEntity, 7> se;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    CfsRq rq(choices);
    const std::array<uint64_t, 7> deadline{500, 300, 300, 400, 100, 200, 300};
    // Inserted in an order unrelated to either key, so that the tree has to be rebalanced.
    for (const size_t i : {3u, 6u, 0u, 5u, 1u, 4u, 2u})
        enqueue(rq, entity(se[i], 10 * i, kNice0, deadline[i]));
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(30));
    auto index = [&](const SchedEntity* p) { return p ? int(p - se.data()) : -1; };
    QCOMPARE(index(rq.firstEligibleByDeadline()), 1);
    QCOMPARE(index(rq.earliestDeadlineInEligiblePrefix()), 1);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    dequeue(rq, se[1]);
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(33));
    QCOMPARE(index(rq.firstEligibleByDeadline()), 2);
    QCOMPARE(index(rq.earliestDeadlineInEligiblePrefix()), 2);
    dequeue(rq, se[2]);
    QCOMPARE(quint64(rq.peekAvgVruntime()), quint64(36));
    QCOMPARE(index(rq.firstEligibleByDeadline()), 3);
    QCOMPARE(index(rq.earliestDeadlineInEligiblePrefix()), 3);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

void TestCfsRq::augmentedPickDeep_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<WeightPrecision>("precision");
    QTest::addColumn<int>("size");    // entities in the pool
    QTest::addColumn<qint64>("grid"); // keys are multiples of this: many equal keys
    quint64 seed = 100;
    for (const auto p : {WeightPrecision::ScaledDown, WeightPrecision::Full}) {
        QTest::addRow("%s, 4096 entities", precisionName(p)) << seed++ << p << 4096 << qint64(1);
        QTest::addRow("%s, 2000 entities, many ties", precisionName(p))
            << seed++ << p << 2000 << qint64(500000);
        QTest::addRow("%s, 300 entities, keys on a coarse grid", precisionName(p))
            << seed++ << p << 300 << qint64(3000000);
    }
}

// Deep queues (the O(log n) walks of §3.5 against the brute-force picks of the reference): a full
// queue, then entities leave, come back, become curr and return, with equal keys common.
void TestCfsRq::augmentedPickDeep()
{
    QFETCH(quint64, seed);
    QFETCH(WeightPrecision, precision);
    QFETCH(int, size);
    QFETCH(qint64, grid);

    std::vector<SchedEntity> pool(static_cast<size_t>(size)); // outlives rq
    const ProfileChoices choices = choicesFor(precision);
    CfsRq rq(choices);
    rq.v0 = uint64_t(1) << 40;
    NaiveRunQueue naive(precision);
    Prng prng(seed);
    const std::vector<uint64_t> weightMenu{kNice0, 88761u << 10, 15u << 10, 335u << 10, 3u << 10};
    auto place = [&](SchedEntity& se) {
        const uint64_t vNow = naive.avgVruntime(rq.v0);
        const int64_t off = prng.uniform(-20000000, 20000000) / grid * grid;
        const uint64_t v = vNow - vNow % uint64_t(grid) + uint64_t(off);
        entity(se, v, weightMenu[prng.below(weightMenu.size())],
            v + uint64_t(prng.uniform(0, 12000000) / grid * grid));
    };
    for (SchedEntity& se : pool) {
        place(se);
        enqueue(rq, se);
        naive.insert(se);
    }
    std::string failure;
    auto compare = [&](int step) {
        const uint64_t v0 = rq.v0;
        const SchedEntity* p68 = rq.firstEligibleByDeadline();
        const SchedEntity* p66 = rq.earliestDeadlineInEligiblePrefix();
        if (failure.empty() && p68 != naive.pickByDeadline(v0))
            failure = "step " + std::to_string(step) + ": 6.8+ pick differs from the reference";
        if (failure.empty() && p68 != rq.firstEligibleByDeadlineWalk())
            failure = "step " + std::to_string(step) + ": 6.8+ pick differs from the walk";
        if (failure.empty() && p66 != naive.pickEligiblePrefix(v0))
            failure = "step " + std::to_string(step) + ": 6.6 pick differs from the reference";
        if (failure.empty() && p66 != rq.earliestDeadlineInEligiblePrefixWalk())
            failure = "step " + std::to_string(step) + ": 6.6 pick differs from the walk";
    };
    compare(-1);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    for (int step = 0; step < 1500 && failure.empty(); ++step) {
        const int op = int(prng.below(4));
        if (op == 0 && naive.size() > 1) { // leave
            SchedEntity* se =
                const_cast<SchedEntity*>(naive.entries()[prng.below(naive.size())].se);
            naive.erase(*se);
            dequeue(rq, *se);
        } else if (op == 1) { // come back, placed around V
            for (SchedEntity& se : pool)
                if (!se.onRq) {
                    place(se);
                    enqueue(rq, se);
                    naive.insert(se);
                    break;
                }
        } else if (op == 2 && !rq.curr) { // the pick becomes curr
            SchedEntity* se = const_cast<SchedEntity*>(naive.pickByDeadline(rq.v0));
            if (se) {
                naive.erase(*se);
                rq.dequeueTree(*se);
                rq.curr = se;
                naive.setCurr(se);
            }
        } else if (rq.curr) { // curr ran and goes back
            SchedEntity* c = rq.curr;
            c->vruntime += uint64_t(prng.uniform(0, 4000000) / grid * grid);
            c->deadline = c->vruntime + uint64_t(prng.uniform(0, 12000000) / grid * grid);
            rq.curr = nullptr;
            naive.setCurr(nullptr);
            rq.enqueueTree(*c);
            naive.insert(*c);
        }
        compare(step);
        if (step % 100 == 0 && failure.empty())
            failure = rq.checkInvariants();
    }
    if (!failure.empty())
        QFAIL(failure.c_str());
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

// ≤7.0 eligibility is a 64-bit product that wraps (kernel-model.md §3.3): when k·Σŵ leaves the
// int64 range eligibility is no longer monotone in vruntime, and the picks fall back to the walks
// in tree order (what they computed before the trees were augmented). v0 = 0, ŵ = 1024 each,
// Σŵ = 3072 = 3·2^10, keys X = −(2^52 + 2^40), A = 2^40, B = 2^52: Σ k·ŵ = 0.
//   X: −(2^52 + 2^40)·3072 = −(3·2^62 + 3·2^50) wraps to 2^62 − 3·2^50 > 0: not eligible.
//   A: 2^40·3072 = 3·2^50 > 0, no wrap: not eligible.
//   B: 2^52·3072 = 3·2^62 ≥ 2^63 wraps to −2^62 ≤ 0: eligible (the kernel's overflow).
// Deadlines A 100, B 200, X 300. 6.8+: first eligible in deadline order is B. 6.6: the vruntime
// order starts with X, which is not eligible: the prefix is empty, no tree entity.
void TestCfsRq::augmentedPickWrapFallsBackToWalk()
{
    std::array<SchedEntity, 3> se; // X, A, B
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    CfsRq rq(choices);
    const uint64_t a = uint64_t(1) << 40;
    const uint64_t b = uint64_t(1) << 52;
    enqueue(rq, entity(se[0], 0 - (a + b), kNice0, 300));
    enqueue(rq, entity(se[1], a, kNice0, 100));
    enqueue(rq, entity(se[2], b, kNice0, 200));
    QVERIFY(!rq.entityEligible(se[0]));
    QVERIFY(!rq.entityEligible(se[1]));
    QVERIFY(rq.entityEligible(se[2]));
    QCOMPARE(rq.firstEligibleByDeadline(), &se[2]);
    QCOMPARE(rq.earliestDeadlineInEligiblePrefix(), static_cast<SchedEntity*>(nullptr));
    unlinkAll(rq);
}

void TestCfsRq::vruntimeTreeBuiltOnDemand()
{
    // A deadline-key profile keeps no vruntime tree until something reads it; built then from
    // the insertion order, it must hold equal vruntimes in insertion order, as if kept all along.
    SchedEntity a;
    SchedEntity b;
    SchedEntity c;
    SchedEntity d;
    const ProfileChoices choices = choicesFor(WeightPrecision::ScaledDown);
    QVERIFY(choices.treeKey == TreeKey::Deadline);
    CfsRq rq(choices);
    enqueue(rq, entity(a, 100, kNice0, 600));
    enqueue(rq, entity(b, 100, kNice0, 500));
    enqueue(rq, entity(c, 50, kNice0, 700));
    enqueue(rq, entity(d, 100, kNice0, 500));
    dequeue(rq, c);
    enqueue(rq, entity(c, 100, kNice0, 500)); // now after d
    dequeue(rq, b);
    enqueue(rq, entity(b, 100, kNice0, 500)); // now after c
    // Every vruntime is 100 = V: all eligible. Vruntime order by insertion: a, d, c, b. The 6.6
    // pick takes the earliest deadline (500), the first met in that order: d.
    QCOMPARE(rq.leftmostVruntime(), &a);
    QCOMPARE(rq.earliestDeadlineInEligiblePrefix(), &d);
    QCOMPARE(rq.earliestDeadlineInEligiblePrefixWalk(), &d);
    // The deadline order among the 500s is the same insertion order: d, c, b.
    QCOMPARE(rq.firstEligibleByDeadline(), &d);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    // Kept from now on: d leaves (c is first among the 500s), comes back last (still c).
    dequeue(rq, d);
    QCOMPARE(rq.earliestDeadlineInEligiblePrefix(), &c);
    enqueue(rq, entity(d, 100, kNice0, 500));
    QCOMPARE(rq.earliestDeadlineInEligiblePrefix(), &c);
    QCOMPARE(rq.leftmostVruntime(), &a);
    QCOMPARE(QString::fromStdString(rq.checkInvariants()), QString());
    unlinkAll(rq);
}

QTEST_APPLESS_MAIN(TestCfsRq)
#include "tst_cfsrq.moc"
