// SPDX-License-Identifier: GPL-2.0-or-later
// core/fair/pelt.h: the kernel's integer PELT (kernel/sched/pelt.c, kernel-model.md §6.6).
// Pinned values come from a separate Python model written from the same rules (1024 ns units,
// 1024-unit periods, decay_load through runnable_avg_yN_inv, c1 + c2 + c3 segments, divider
// LOAD_AVG_MAX − 1024 + period_contrib); the short cases are also derived by hand in the comments.
#include <QTest>

#include <cmath>
#include <limits>
#include <utility>

// moc 6.4 runs with C++17 predefines and cannot parse <concepts> (via <compare>): hide the core
// headers from it; the test class itself needs none of their declarations.
#ifndef Q_MOC_RUN
#include "core/fair/loadavg.h"
#include "core/fair/loadbalance.h"
#include "core/fair/pelt.h"
#include "core/fair/utilest.h"
#include "core/kernel/catalogue.h"
#include "core/kernel/profile.h"
#include "core/kernel/runoptions.h"
#include "core/scenario/scenarioio.h"
#include "core/sched/rq.h"
#include "core/sim/inspect.h"
#include "support/fakemachine.h"
#endif

using namespace schedlab;

namespace {

constexpr quint64 kPeriod = kPeltPeriodNs; // 1024 · 1024 ns (quint64: QTest columns are typed)

/// Advances @p sa to @p until in steps of @p step ns with a constant state, updating the averages
/// whenever a period boundary was crossed (as __update_load_avg_se() does).
void run(PeltAvg& sa, uint64_t until, uint64_t step, uint64_t load, uint64_t runnable, bool running,
    uint64_t weight)
{
    uint64_t t = sa.lastUpdateTime;
    while (t < until) {
        t = std::min(t + step, until);
        if (peltUpdateSum(t, sa, load, runnable, running))
            peltUpdateAvg(sa, weight);
    }
}

} // namespace

class TestPelt : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void yNTable_data();
    void yNTable();
    void decayLoad_data();
    void decayLoad();
    void decayHalvesEvery32Periods();
    void accumulateSegments_data();
    void accumulateSegments();
    void updateSum_data();
    void updateSum();
    void convergence_data();
    void convergence();
    void halving_data();
    void halving();
    void incrementalEqualsOneStep_data();
    void incrementalEqualsOneStep();
    void tgLoadAvgPublication_data();
    void tgLoadAvgPublication();
    void reweightSwapsContribution();
    void newTaskUtilAndPropagation();
    void attachKeepsLoadSumPositive();
    void groupEntityAttachedAtCreation();
    void newGroupsFirstTaskCountedOnce_data();
    void newGroupsFirstTaskCountedOnce();
    void utilEstRules();
    void delayedRunnable_data();
    void delayedRunnable();
    void delayedRunnableClassification_data();
    void delayedRunnableClassification();
};

// The table constants (copied as data from the kernel's generated sched-pelt.h) must be
// floor((2^32 − 1) · y^n) with y = 2^(−1/32); every entry's fractional part is ≥ 0.04 away from
// an integer, far above long double error.
void TestPelt::yNTable_data()
{
    QTest::addColumn<int>("n");
    for (int n = 0; n < kLoadAvgPeriod; ++n)
        QTest::addRow("y^%d", n) << n;
}

void TestPelt::yNTable()
{
    QFETCH(int, n);
    const long double exact = 4294967295.0L * std::exp2l(-static_cast<long double>(n) / 32.0L);
    QCOMPARE(quint64(kRunnableAvgYNInv[size_t(n)]), quint64(std::floor(exact)));
}

void TestPelt::decayLoad_data()
{
    QTest::addColumn<quint64>("val");
    QTest::addColumn<quint64>("n");
    QTest::addColumn<quint64>("expected");

    const quint64 max = std::numeric_limits<quint64>::max();
    // y^0 is 2^32 − 1 in the table: the kernel loses one unit even without decay.
    QTest::addRow("1024 · y^0 = 1023") << quint64(1024) << quint64(0) << quint64(1023);
    // 1024 · 0xfa83b2da >> 32 = 1002.1… → 1002.
    QTest::addRow("1024 · y") << quint64(1024) << quint64(1) << quint64(1002);
    // n = 32: 1024 >> 1 = 512, then · (2^32 − 1) >> 32 = 511. The kernel gives 511, not 512.
    QTest::addRow("1024 · y^32 = 511 (kernel rounding)")
        << quint64(1024) << quint64(32) << quint64(511);
    QTest::addRow("LOAD_AVG_MAX · y") << quint64(kLoadAvgMax) << quint64(1) << quint64(46718);
    QTest::addRow("LOAD_AVG_MAX · y^32") << quint64(kLoadAvgMax) << quint64(32) << quint64(23870);
    QTest::addRow("1000 · y^33") << quint64(1000) << quint64(33) << quint64(489);
    // 2^40 >> 2 = 2^38; · (2^32 − 1) >> 32 = 2^38 − 2^6.
    QTest::addRow("2^40 · y^64") << (quint64(1) << 40) << quint64(64) << quint64(274877906880);
    QTest::addRow("2^64−1 · y needs 128 bits")
        << max << quint64(1) << quint64(18051468380803694591ULL);
    // 62 halvings leave 3; 3 · (2^32 − 1) >> 32 = 2.
    QTest::addRow("62 halvings") << max << quint64(62 * 32) << quint64(2);
    // 63 halvings leave 1, and 1 · (2^32 − 1) >> 32 = 0.
    QTest::addRow("63 halvings") << max << quint64(63 * 32) << quint64(0);
    QTest::addRow("beyond 63 periods of 32 is 0") << max << quint64(63 * 32 + 1) << quint64(0);
    QTest::addRow("huge n") << max << (quint64(1) << 40) << quint64(0);
    QTest::addRow("zero stays zero") << quint64(0) << quint64(5) << quint64(0);
    QTest::addRow("1024 · y^345 is gone") << quint64(1024) << quint64(345) << quint64(0);
    QTest::addRow("LOAD_AVG_MAX · y^345") << quint64(kLoadAvgMax) << quint64(345) << quint64(26);
}

void TestPelt::decayLoad()
{
    QFETCH(quint64, val);
    QFETCH(quint64, n);
    QFETCH(quint64, expected);

    QCOMPARE(quint64(peltDecayLoad(val, n)), expected);
}

// y^(n+32) = y^n / 2: within the kernel's rounding (one unit for each floor).
void TestPelt::decayHalvesEvery32Periods()
{
    const uint64_t val = uint64_t{1} << 50;
    for (uint64_t n = 0; n + 32 <= 63 * 32; ++n) {
        const uint64_t a = peltDecayLoad(val, n);
        const uint64_t b = peltDecayLoad(val, n + 32);
        QVERIFY2(b <= a / 2 + 1 && b + 1 >= a / 2, qPrintable(QString::number(n)));
        QVERIFY(b <= a); // monotonic
    }
}

void TestPelt::accumulateSegments_data()
{
    QTest::addColumn<quint64>("periods");
    QTest::addColumn<quint32>("d1");
    QTest::addColumn<quint32>("d3");
    QTest::addColumn<quint32>("expected");

    // c1 = decay(1024, 1) = 1002; c2 = 47742 − decay(47742, 1) − 1024 = 47742 − 46718 − 1024 = 0.
    QTest::addRow("one full period") << quint64(1) << 1024u << 0u << 1002u;
    // c1 = decay(24, 1) = 23, c2 = 0, c3 = 1000.
    QTest::addRow("d1 + d3 across one boundary") << quint64(1) << 24u << 1000u << 1023u;
    // c1 = decay(500, 2) = 479; c2 = 47742 − decay(47742, 2) − 1024 = 1000; c3 = 100.
    QTest::addRow("two boundaries") << quint64(2) << 500u << 100u << 1579u;
    QTest::addRow("32 periods") << quint64(32) << 1024u << 0u << 23359u;
    QTest::addRow("345 periods (LOAD_AVG_MAX_N)") << quint64(345) << 1024u << 0u << 46692u;
    // c1 = 0, c2 = 47742 − 0 − 1024.
    QTest::addRow("1000 periods saturate") << quint64(1000) << 1u << 0u << 46718u;
}

void TestPelt::accumulateSegments()
{
    QFETCH(quint64, periods);
    QFETCH(quint32, d1);
    QFETCH(quint32, d3);
    QFETCH(quint32, expected);

    QCOMPARE(peltAccumulateSegments(periods, d1, d3), expected);
}

void TestPelt::updateSum_data()
{
    QTest::addColumn<QList<quint64>>("nows");
    QTest::addColumn<quint64>("load");
    QTest::addColumn<quint64>("runnable");
    QTest::addColumn<bool>("running");
    QTest::addColumn<quint64>("weight"); // passed to peltUpdateAvg
    QTest::addColumn<QList<bool>>("returns");
    // lastUpdateTime, loadSum, runnableSum, utilSum, periodContrib, loadAvg, runnableAvg, utilAvg
    QTest::addColumn<QList<quint64>>("expected");

    const quint64 p = kPeriod;
    QTest::addRow("less than 1024 ns is not accounted")
        << QList<quint64>{1023} << quint64(1) << quint64(1) << true << quint64(1024)
        << QList<bool>{false} << QList<quint64>{0, 0, 0, 0, 0, 0, 0, 0};
    QTest::addRow("one 1024 ns unit")
        << QList<quint64>{1024} << quint64(1) << quint64(1) << true << quint64(1024)
        << QList<bool>{false} << QList<quint64>{1024, 1, 1024, 1024, 1, 0, 0, 0};
    // 3000 ns = 2 units + 952 ns carried (lastUpdateTime advances by whole units only).
    QTest::addRow("partial units are carried")
        << QList<quint64>{3000} << quint64(1) << quint64(1) << true << quint64(1024)
        << QList<bool>{false} << QList<quint64>{2048, 2, 2048, 2048, 2, 0, 0, 0};
    // 1024 units: one boundary; contrib = c1 = decay(1024, 1) = 1002; divider 46718;
    // load_avg = 1024 · 1002 / 46718 = 21.96 → 21; util = (1002 << 10) / 46718 = 21.
    QTest::addRow("exactly one period")
        << QList<quint64>{p} << quint64(1) << quint64(1) << true << quint64(1024)
        << QList<bool>{true} << QList<quint64>{p, 1002, 1002 << 10, 1002 << 10, 0, 21, 21, 21};
    // The second step (512 units) crosses nothing: sums grow, averages stay.
    QTest::addRow("then half a period")
        << QList<quint64>{p, p + 512 * 1024} << quint64(1) << quint64(1) << true << quint64(1024)
        << QList<bool>{true, false}
        << QList<quint64>{p + 512 * 1024, 1514, 1514 << 10, 1514 << 10, 512, 21, 21, 21};
    // 1000 units, then 100 more: 1100 = 1 period + 76; old sum 1000 → decay(1000, 1) = 978,
    // contrib = decay(24, 1) + 0 + 76 = 99 → 1077; divider 46794 → 1024 · 1077 / 46794 = 23.
    QTest::addRow("straddling a boundary")
        << QList<quint64>{1000 * 1024, 1100 * 1024} << quint64(1) << quint64(1) << true
        << quint64(1024) << QList<bool>{false, true}
        << QList<quint64>{1100 * 1024, 1077, 1103433, 1103433, 76, 23, 23, 23};
    QTest::addRow("time going backwards resynchronises")
        << QList<quint64>{p, p - 5000} << quint64(1) << quint64(1) << true << quint64(1024)
        << QList<bool>{true, false}
        << QList<quint64>{p - 5000, 1002, 1002 << 10, 1002 << 10, 0, 21, 21, 21};
    QTest::addRow("no load: runnable and running are ignored")
        << QList<quint64>{p} << quint64(0) << quint64(1) << true << quint64(1024)
        << QList<bool>{true} << QList<quint64>{p, 0, 0, 0, 0, 0, 0, 0};
    // 3 periods + 100 units runnable but not running: util stays 0.
    QTest::addRow("runnable, not running")
        << QList<quint64>{3 * p + 100 * 1024} << quint64(1) << quint64(1) << false << quint64(1024)
        << QList<bool>{true}
        << QList<quint64>{3 * p + 100 * 1024, 3039, 3111936, 0, 100, 66, 66, 0};
    // A cfs_rq with ŵ sum 2048 and two runnable tasks, one running: load_sum carries the weight
    // (2048 · 1002) and the average divides by 1; runnable = 2 · 1002 << 10 → 43.
    QTest::addRow("cfs_rq: weighted load, two runnable")
        << QList<quint64>{p} << quint64(2048) << quint64(2) << true << quint64(1)
        << QList<bool>{true} << QList<quint64>{p, 2052096, 2052096, 1026048, 0, 43, 43, 21};
}

void TestPelt::updateSum()
{
    QFETCH(QList<quint64>, nows);
    QFETCH(quint64, load);
    QFETCH(quint64, runnable);
    QFETCH(bool, running);
    QFETCH(quint64, weight);
    QFETCH(QList<bool>, returns);
    QFETCH(QList<quint64>, expected);

    PeltAvg sa;
    for (qsizetype i = 0; i < nows.size(); ++i) {
        const bool crossed = peltUpdateSum(nows[i], sa, load, runnable, running);
        QCOMPARE(crossed, returns[i]);
        if (crossed)
            peltUpdateAvg(sa, weight);
    }
    const QList<quint64> got{sa.lastUpdateTime, sa.loadSum, sa.runnableSum, sa.utilSum,
        sa.periodContrib, sa.loadAvg, sa.runnableAvg, sa.utilAvg};
    QCOMPARE(got, expected);

    // peltUpdateSumShared() (update_load_avg()'s path): the same figures, for the sum that
    // computes the step and for a second one at the same last update and period position, which
    // is served the kept step.
    PeltAvg first;
    PeltAvg second;
    PeltStep step;
    for (qsizetype i = 0; i < nows.size(); ++i) {
        for (PeltAvg* a : {&first, &second}) {
            const bool crossed = peltUpdateSumShared(nows[i], *a, load, runnable, running, step);
            QCOMPARE(crossed, returns[i]);
            if (crossed)
                peltUpdateAvg(*a, weight);
        }
    }
    for (const PeltAvg* a : {&first, &second}) {
        const QList<quint64> shared{a->lastUpdateTime, a->loadSum, a->runnableSum, a->utilSum,
            a->periodContrib, a->loadAvg, a->runnableAvg, a->utilAvg};
        QCOMPARE(shared, expected);
    }
}

// A constantly runnable, running entity: after ~350 ms (345 periods saturate the series) the
// averages sit just below their maxima. load_avg = w · load_sum / divider stays below w because
// every decay rounds down: with 1 ms updates load_sum = 47485 against a divider of 47522
// (period_contrib 804); with period-aligned updates 46715 against 46718.
void TestPelt::convergence_data()
{
    QTest::addColumn<quint64>("weight");
    QTest::addColumn<quint64>("step");
    QTest::addColumn<quint64>("until");
    QTest::addColumn<quint64>("loadSum");
    QTest::addColumn<quint64>("loadAvg");
    QTest::addColumn<quint64>("utilAvg");

    QTest::addRow("nice 0, 1 ms updates, 350 ms")
        << quint64(1024) << quint64(1000000) << quint64(350000000) << quint64(47485)
        << quint64(1023) << quint64(1023);
    QTest::addRow("nice 0, 4 ms ticks, 350 ms")
        << quint64(1024) << quint64(4000000) << quint64(350000000) << quint64(47481)
        << quint64(1023) << quint64(1023);
    QTest::addRow("nice 0, per period, 400 periods")
        << quint64(1024) << kPeriod << 400 * kPeriod << quint64(46715) << quint64(1023)
        << quint64(1024);
    QTest::addRow("nice 5, 1 ms updates") << quint64(335) << quint64(1000000) << quint64(350000000)
                                          << quint64(47485) << quint64(334) << quint64(1023);
    QTest::addRow("nice -20, 1 ms updates")
        << quint64(88761) << quint64(1000000) << quint64(350000000) << quint64(47485)
        << quint64(88691) << quint64(1023);
    QTest::addRow("nice -20, per period") << quint64(88761) << kPeriod << 400 * kPeriod
                                          << quint64(46715) << quint64(88755) << quint64(1024);
}

void TestPelt::convergence()
{
    QFETCH(quint64, weight);
    QFETCH(quint64, step);
    QFETCH(quint64, until);
    QFETCH(quint64, loadSum);
    QFETCH(quint64, loadAvg);
    QFETCH(quint64, utilAvg);

    PeltAvg sa;
    run(sa, until, step, 1, 1, true, weight);
    QCOMPARE(quint64(sa.loadSum), loadSum);
    QCOMPARE(quint64(sa.loadAvg), loadAvg);
    QCOMPARE(quint64(sa.utilAvg), utilAvg);
    QCOMPARE(quint64(sa.runnableAvg), utilAvg); // one runnable entity: runnable == util
    // The properties behind the pinned numbers: load_avg never above the weight and below it by
    // at most one unit plus 0.1 % (one unit for nice 0); util within one unit of 1024.
    QVERIFY(sa.loadAvg <= weight);
    QVERIFY(weight - sa.loadAvg <= 1 + weight / 1000);
    QVERIFY(sa.utilAvg + 1 >= 1024 && sa.utilAvg <= 1024);
    QVERIFY(sa.loadSum <= kLoadAvgMax);
}

// Runs 400 periods, then is idle for 32 (and 64) periods: y^32 = 1/2, so the averages halve
// within the kernel's rounding.
void TestPelt::halving_data()
{
    QTest::addColumn<quint64>("weight");
    QTest::addColumn<quint64>("idleStep"); // ns per update while idle
    QTest::addColumn<quint64>("after32");
    QTest::addColumn<quint64>("after64");

    // 1023 → 511 (= floor(1023 / 2)) → 255.
    QTest::addRow("nice 0, updates every period")
        << quint64(1024) << kPeriod << quint64(511) << quint64(255);
    QTest::addRow("nice 0, one update after 32 periods")
        << quint64(1024) << 32 * kPeriod << quint64(511) << quint64(255);
    // 88755 → 44355, not 44377: load_sum drops from 46715 to 23346, 11.5 below an exact halving,
    // because every per-period decay rounds down.
    QTest::addRow("nice -20, updates every period")
        << quint64(88761) << kPeriod << quint64(44355) << quint64(22157);
    QTest::addRow("nice 5, 1 ms updates")
        << quint64(335) << quint64(1000000) << quint64(167) << quint64(83);
}

void TestPelt::halving()
{
    QFETCH(quint64, weight);
    QFETCH(quint64, idleStep);
    QFETCH(quint64, after32);
    QFETCH(quint64, after64);

    PeltAvg sa;
    run(sa, 400 * kPeriod, kPeriod, 1, 1, true, weight);
    const uint64_t busy = sa.loadAvg;
    run(sa, 432 * kPeriod, idleStep, 0, 0, false, weight);
    QCOMPARE(quint64(sa.loadAvg), after32);
    QVERIFY2(sa.loadAvg * 2 <= busy + 2 && sa.loadAvg * 2 + 2 * weight / 1000 + 2 >= busy,
        qPrintable(QStringLiteral("%1 -> %2").arg(busy).arg(sa.loadAvg)));
    const uint64_t half = sa.loadAvg;
    run(sa, 464 * kPeriod, idleStep, 0, 0, false, weight);
    QCOMPARE(quint64(sa.loadAvg), after64);
    QVERIFY(sa.loadAvg * 2 <= half + 2 && sa.loadAvg * 2 + 2 * weight / 1000 + 2 >= half);
    QCOMPARE(quint64(sa.utilAvg), quint64(256)); // 1024 → 512 → 256
}

// The same 100.012345 ms of constant running, accounted in one update or in many: the sums agree
// within 0.1 % (each decay floors separately) and the averages within one unit.
void TestPelt::incrementalEqualsOneStep_data()
{
    QTest::addColumn<quint64>("step");
    QTest::addColumn<quint64>("loadSum"); // the one-step update gives 41138

    QTest::addRow("3333 ns steps") << quint64(3333) << quint64(41119);
    QTest::addRow("777777 ns steps") << quint64(777777) << quint64(41136);
    QTest::addRow("1 ms steps") << quint64(1000000) << quint64(41140);
    QTest::addRow("4 ms steps") << quint64(4000000) << quint64(41132);
    QTest::addRow("period steps") << kPeriod << quint64(41157);
}

void TestPelt::incrementalEqualsOneStep()
{
    QFETCH(quint64, step);
    QFETCH(quint64, loadSum);

    const uint64_t until = 100012345;
    PeltAvg big;
    QVERIFY(peltUpdateSum(until, big, 1, 1, true));
    peltUpdateAvg(big, 1024);
    QCOMPARE(quint64(big.loadSum), quint64(41138));
    QCOMPARE(quint64(big.loadAvg), quint64(894));
    QCOMPARE(quint64(big.lastUpdateTime), quint64(100012032)); // whole 1024 ns units only
    QCOMPARE(big.periodContrib, 388u);

    PeltAvg small;
    run(small, until, step, 1, 1, true, 1024);
    peltUpdateAvg(small, 1024);
    QCOMPARE(quint64(small.loadSum), loadSum);
    QCOMPARE(small.lastUpdateTime, big.lastUpdateTime);
    QCOMPARE(small.periodContrib, big.periodContrib);
    const auto near = [](uint64_t a, uint64_t b, uint64_t tol) {
        return a <= b + tol && b <= a + tol;
    };
    QVERIFY(near(small.loadSum, big.loadSum, big.loadSum / 1000));
    QVERIFY(near(small.runnableSum, big.runnableSum, big.runnableSum / 1000));
    QVERIFY(near(small.utilSum, big.utilSum, big.utilSum / 1000));
    QVERIFY(near(small.loadAvg, big.loadAvg, 1));
    QVERIFY(near(small.runnableAvg, big.runnableAvg, 1));
    QVERIFY(near(small.utilAvg, big.utilAvg, 1));
}

namespace {

using test::FakeMachine;

/// The root group and group 1 with its cfs_rq on CPU 0.
std::vector<TaskGroup> rootAndOneGroup(const ProfileChoices& choices)
{
    std::vector<TaskGroup> groups(2);
    groups[1].index = 1;
    groups[1].parent = 0;
    groups[1].cfsRq.push_back(std::make_unique<CfsRq>(choices));
    groups[1].cfsRq[0]->groupIndex = 1;
    return groups;
}

/// Two nice-0 tasks queued on CPU 0's root cfs_rq with their PELT attached: A running, B
/// delayed (on_rq, sched_delayed; h_nr_runnable 1 of h_nr_queued 2).
std::pair<Task&, Task&> runningAndDelayed(FakeMachine& services, CfsRq& root)
{
    Task& a = services.addTask(0);
    Task& b = services.addTask(0);
    for (Task* t : {&a, &b}) {
        t->se.cfsRq = &root;
        t->se.load.weight = 1024ULL << 10;
        t->se.onRq = true;
        t->se.peltAttached = true;
    }
    b.se.schedDelayed = true;
    root.loadWeight = 2048ULL << 10;
    root.nrQueued = 2;
    root.hNrQueued = 2;
    root.hNrRunnable = 1;
    root.curr = &a.se;
    return {a, b};
}

} // namespace

// update_tg_load_avg() (kernel-model.md §6.3): a group cfs_rq publishes its load_avg in
// tg->load_avg only when it moved by more than 1/64 of the last published value, and from 6.7 on
// (1528c661c24b) at most once per ms. The cfs_rq's load_avg is set by hand and the publication
// called directly: 1000 is published at 0 (nothing published yet); +10 at 0.2 ms is within
// 1000/64 = 15 and stays unpublished; 2000 at 0.5 ms is published only without the rate limit
// (6.6); at 1 ms the rate limit has passed, so 2000 is published in both.
void TestPelt::tgLoadAvgPublication_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<qint64>("at05ms"); // tg->load_avg after the update at 0.5 ms
    QTest::addRow("6.6") << "6.6" << qint64(2000);
    QTest::addRow("6.12") << "6.12" << qint64(1000);
    QTest::addRow("7.1") << "7.1" << qint64(1000);
}

void TestPelt::tgLoadAvgPublication()
{
    QFETCH(QString, profile);
    QFETCH(qint64, at05ms);
    const KernelProfile* p = findProfile(profile.toStdString());
    QVERIFY(p);
    FakeMachine services(1, p->choices); // a clock and one CPU
    std::vector<TaskGroup> groups = rootAndOneGroup(p->choices);
    CfsRq& rq = *groups[1].cfsRq[0];
    LoadTracker load(services, groups, 1, 1000000);
    load.setTraits(&p->traits);

    auto publishAt = [&](int64_t ns, uint64_t loadAvg) {
        services.now = ns;
        rq.avg.loadAvg = loadAvg;
        load.updateTgLoadAvg(rq);
        return groups[1].loadAvg;
    };
    QCOMPARE(publishAt(0, 1000), 1000);
    QCOMPARE(publishAt(200000, 1010), 1000);
    QCOMPARE(publishAt(500000, 2000), at05ms);
    QCOMPARE(publishAt(1000000, 2000), 2000);
    QCOMPARE(rq.tgLoadAvgContrib, uint64_t(2000));
}

// reweight_entity() (kernel-model.md §6.6): an entity runnable half the time (load_sum 23871,
// divider 47742 − 1024 = 46718) goes from weight 1024 to 2048. Its load_avg becomes
// 2048 · 23871 / 46718 = 1046 (it was 1024 · 23871 / 46718 = 523). The queue (load_avg 3000,
// load_sum 3000 · 46718 = 140154000) drops the old contribution: load_avg 2477, load_sum
// 140154000 − 1024 · 23871 = 115710096, raised to 2477 · 46718 = 115720486 (the sum never falls
// below avg · PELT_MIN_DIVIDER); then adds the new one: load_avg 3523, load_sum
// 115720486 + 2048 · 23871 = 164608294.
void TestPelt::reweightSwapsContribution()
{
    PeltAvg se;
    se.loadSum = 23871;
    se.loadAvg = 523;
    PeltAvg queue;
    queue.loadAvg = 3000;
    queue.loadSum = 140154000;
    peltReweight(queue, se, 1024, 2048);
    QCOMPARE(se.loadAvg, uint64_t(1046));
    QCOMPARE(se.loadSum, uint64_t(23871)); // unweighted: the weight does not enter the sum
    QCOMPARE(queue.loadAvg, uint64_t(3523));
    QCOMPARE(queue.loadSum, uint64_t(164608294));
    // Back to 1024: 1024 · 23871 / 46718 = 523 again; the queue returns to 3000 and its sum
    // to 164608294 − 2048 · 23871 + 1024 · 23871 = 140164390 (the clamp's 10390 stays).
    peltReweight(queue, se, 2048, 1024);
    QCOMPARE(se.loadAvg, uint64_t(523));
    QCOMPARE(queue.loadAvg, uint64_t(3000));
    QCOMPARE(queue.loadSum, uint64_t(140164390));
}

// post_init_entity_util_avg(), attach/remove and propagate_entity_load_avg() (kernel-model.md
// §6.6), all at time 0 so that nothing decays (divider 47742 − 1024 = 46718). The group /g has
// util 300, runnable 400, load 2047 on CPU 0; its entity (weight 2048, runnable half the time:
// load_sum 23359, load_avg 1024) is the root's only contribution.
void TestPelt::newTaskUtilAndPropagation()
{
    const KernelProfile* p = findProfile("6.13");
    QVERIFY(p);
    FakeMachine services(1, p->choices); // a clock and one CPU
    std::vector<TaskGroup> groups = rootAndOneGroup(p->choices);
    CfsRq& g = *groups[1].cfsRq[0];
    CfsRq& root = *services.rq(0).cfs;
    LoadTracker load(services, groups, 1, 1000000);
    load.setTraits(&p->traits);
    constexpr uint64_t kDiv = 46718;
    g.avg.utilAvg = 300;
    g.avg.utilSum = 300 * kDiv;
    g.avg.runnableAvg = 400;
    g.avg.runnableSum = 400 * kDiv;
    g.avg.loadAvg = 2047;
    g.avg.loadSum = 2047 * kDiv;
    SchedEntity ge;
    ge.myQ = &g;
    ge.cfsRq = &root;
    ge.load.weight = 2048ULL << 10;
    ge.peltAttached = true;
    ge.avg.utilAvg = 300;
    ge.avg.utilSum = 300 * kDiv;
    ge.avg.runnableAvg = 400;
    ge.avg.runnableSum = 400 * kDiv;
    ge.avg.loadSum = 23359;
    ge.avg.loadAvg = 1024;
    root.avg = ge.avg;
    root.avg.loadSum = 2048 * 23359;

    // A new nice-0 task on /g: util = min((1024 − 300) / 2, 300 · 1024 / (2047 + 1)) = 150.
    SchedEntity task;
    task.cfsRq = &g;
    task.load.weight = 1024ULL << 10;
    task.avg.loadAvg = 1024;
    load.postInitUtil(task, 1024);
    QCOMPARE(task.avg.utilAvg, uint64_t(150));
    QCOMPARE(task.avg.runnableAvg, uint64_t(150));
    // On a cfs_rq without utilization it gets half the capacity; on a full one nothing.
    SchedEntity other;
    CfsRq empty(p->choices);
    other.cfsRq = &empty;
    other.load.weight = 1024ULL << 10;
    load.postInitUtil(other, 512);
    QCOMPARE(other.avg.utilAvg, uint64_t(256));
    empty.avg.utilAvg = 1100;
    SchedEntity third;
    third.cfsRq = &empty;
    third.load.weight = 1024ULL << 10;
    load.postInitUtil(third, 1024);
    QCOMPARE(third.avg.utilAvg, uint64_t(0));

    // attach_entity_load_avg(): /g gains the task's util, runnable and load at once, and
    // records load_sum 1024 · 46718 / 1024 = 46718 to pass on.
    load.attach(g, task);
    QCOMPARE(g.avg.utilAvg, uint64_t(450));
    QCOMPARE(g.avg.runnableAvg, uint64_t(550));
    QCOMPARE(g.avg.loadAvg, uint64_t(3071));
    QVERIFY(g.propagate);
    QCOMPARE(g.propRunnableSum, int64_t(46718));
    // The group entity's next update takes /g's util and runnable (the root gains 150 of each)
    // and a load_sum of min(46718 + 23359, 46718) = 46718: load_avg 2048 · 46718 / 46718 = 2048.
    load.updateLoadAvg(root, ge, true);
    QCOMPARE(ge.avg.utilAvg, uint64_t(450));
    QCOMPARE(root.avg.utilAvg, uint64_t(450));
    QCOMPARE(root.avg.utilSum, uint32_t(450 * kDiv));
    QCOMPARE(root.avg.runnableAvg, uint64_t(550));
    QCOMPARE(ge.avg.loadAvg, uint64_t(2048));
    QCOMPARE(root.avg.loadAvg, uint64_t(2048));
    QCOMPARE(root.avg.loadSum, uint64_t(2048 * kDiv));
    QVERIFY(!g.propagate);
    QVERIFY(root.propagate); // passed on upwards

    // remove_entity_load_avg() (exit): applied at /g's next update, with −(150 · 46718) >> 10 =
    // −6844 to pass on. /g has nothing queued (weight 0), so the entity keeps only its running
    // time: load_sum max(min(46718, 0), 300 · 46718 >> 10 = 13686) = 13686, load_avg
    // 2048 · 13686 / 46718 = 599; the root drops to 300 util, 400 runnable, 599 load.
    task.peltAttached = true;
    load.remove(task);
    QVERIFY(load.updateCfsRqLoad(g));
    QCOMPARE(g.avg.utilAvg, uint64_t(300));
    QCOMPARE(g.avg.runnableAvg, uint64_t(400));
    QCOMPARE(g.avg.loadAvg, uint64_t(2047));
    QCOMPARE(g.propRunnableSum, int64_t(-6844));
    load.updateLoadAvg(root, ge, true);
    QCOMPARE(root.avg.utilAvg, uint64_t(300));
    QCOMPARE(root.avg.runnableAvg, uint64_t(400));
    QCOMPARE(ge.avg.loadSum, uint64_t(13686));
    QCOMPARE(ge.avg.loadAvg, uint64_t(599));
    QCOMPARE(root.avg.loadAvg, uint64_t(599));
    QCOMPARE(root.avg.loadSum, uint64_t(2048 * 13686));
}

// attach_entity_load_avg() (kernel-model.md §6.6) derives load_sum = load_avg · divider / ŵ but
// never leaves it 0 (40f5aa4c5eae): with divider 46718 (period_contrib 0),
//  - load_avg 0 (a sleeper whose load decayed away): 0 does not exceed ŵ 1024, load_sum 1, and
//    the cfs_rq's load_sum grows by ŵ · 1 = 1024 while its load_avg stays; the mark is +1;
//  - load_avg 1 at nice 0: 46718 > 1024, load_sum 46718 / 1024 = 45;
//  - load_avg 1 at nice −20 (ŵ 88761): 46718 does not exceed 88761, load_sum 1;
//  - load_avg 1024 at nice 0: 1024 · 46718 / 1024 = 46718.
void TestPelt::attachKeepsLoadSumPositive()
{
    const KernelProfile* p = findProfile("7.1");
    QVERIFY(p);
    FakeMachine services(1, p->choices);
    std::vector<TaskGroup> groups = rootAndOneGroup(p->choices);
    LoadTracker load(services, groups, 1, 1000000);
    load.setTraits(&p->traits);
    struct Attached
    {
        uint64_t loadSum, rqLoadAvg, rqLoadSum;
        int64_t mark;
    };
    const auto attach = [&](uint64_t weight, uint64_t loadAvg) {
        CfsRq rq(p->choices);
        SchedEntity se;
        se.cfsRq = &rq;
        se.load.weight = weight << 10;
        se.avg.loadAvg = loadAvg;
        load.attach(rq, se);
        return Attached{se.avg.loadSum, rq.avg.loadAvg, rq.avg.loadSum, rq.propRunnableSum};
    };
    const Attached empty = attach(1024, 0);
    QCOMPARE(empty.loadSum, uint64_t(1));
    QCOMPARE(empty.rqLoadAvg, uint64_t(0));
    QCOMPARE(empty.rqLoadSum, uint64_t(1024));
    QCOMPARE(empty.mark, int64_t(1));
    const Attached one = attach(1024, 1);
    QCOMPARE(one.loadSum, uint64_t(45));
    QCOMPARE(one.rqLoadAvg, uint64_t(1));
    QCOMPARE(one.rqLoadSum, uint64_t(1024 * 45));
    QCOMPARE(one.mark, int64_t(45));
    QCOMPARE(attach(88761, 1).loadSum, uint64_t(1));
    const Attached full = attach(1024, 1024);
    QCOMPARE(full.loadSum, uint64_t(46718));
    QCOMPARE(full.rqLoadSum, uint64_t(1024 * 46718));
    QCOMPARE(full.mark, int64_t(46718));
}

// online_fair_sched_group() → attach_entity_cfs_rq() (kernel-model.md §6.6): a new group's entity
// joins the root's sums when the group is created, with empty averages; its queue's averages
// then reach the root once, by propagation at its first enqueue. By hand, divider 46718 (no
// period started: period_contrib 0):
//  - at creation the entity's load_avg is 0, so attach_entity_load_avg() gives it load_sum 1
//    (load_avg · divider = 0 does not exceed its weight 1024) and the root gains
//    load_sum 1024 · 1 = 1024, load_avg 0, and a mark of +1;
//  - a new nice-0 task on /g: load_avg 1024, util = runnable = (1024 − 0) / 2 = 512 (an empty
//    cfs_rq), attached to /g at its enqueue with load_sum 1024 · 46718 / 1024 = 46718;
//  - the group entity's update: util and runnable 512 from /g (the root gains 512 each), load_sum
//    min(46718 + 1, 46718) = 46718, load_avg 1024 · 46718 / 46718 = 1024; the root's load_sum
//    1024 + (1024 · 46718 − 1024 · 1) = 1024 · 46718.
// So the root has load_avg 1024 and util_avg 512, not 2048 and 1024 (attached again afterwards).
void TestPelt::groupEntityAttachedAtCreation()
{
    const KernelProfile* p = findProfile("7.1");
    QVERIFY(p);
    FakeMachine services(1, p->choices);
    std::vector<TaskGroup> groups = rootAndOneGroup(p->choices);
    CfsRq& g = *groups[1].cfsRq[0];
    CfsRq& root = *services.rq(0).cfs;
    groups[1].se.push_back(std::make_unique<SchedEntity>());
    SchedEntity& ge = *groups[1].se[0];
    ge.myQ = &g;
    ge.cfsRq = &root;
    ge.load.weight = 1024ULL << 10; // init_tg_cfs_entry(): NICE_0_LOAD
    g.owner = &ge;
    LoadTracker load(services, groups, 1, 1000000);
    load.setTraits(&p->traits);
    load.setChoices(&p->choices);
    constexpr uint64_t kDiv = 46718;

    load.onlineGroup(1);
    QVERIFY(ge.peltAttached);
    QCOMPARE(ge.avg.loadAvg, uint64_t(0));
    QCOMPARE(ge.avg.loadSum, uint64_t(1));
    QCOMPARE(root.avg.loadAvg, uint64_t(0));
    QCOMPARE(root.avg.loadSum, uint64_t(1024));
    QCOMPARE(root.avg.utilAvg, uint64_t(0));
    QVERIFY(root.propagate);
    QCOMPARE(root.propRunnableSum, int64_t(1));

    // The first task, enqueued as enqueue_task_fair() does: its own level, then the group's.
    SchedEntity task;
    task.cfsRq = &g;
    task.parent = &ge;
    task.load.weight = 1024ULL << 10;
    task.avg.loadAvg = 1024; // init_entity_runnable_average()
    load.postInitUtil(task, 1024);
    QCOMPARE(task.avg.utilAvg, uint64_t(512));
    load.updateLoadAvg(g, task, true); // DO_ATTACH
    task.onRq = true;
    g.loadWeight += task.load.weight;
    g.hNrQueued = g.hNrRunnable = 1;
    QCOMPARE(g.avg.loadAvg, uint64_t(1024));
    QCOMPARE(g.propRunnableSum, int64_t(kDiv));
    load.updateLoadAvg(root, ge, true);
    QCOMPARE(ge.avg.loadAvg, uint64_t(1024));
    QCOMPARE(ge.avg.loadSum, kDiv);
    QCOMPARE(ge.avg.utilAvg, uint64_t(512));
    QCOMPARE(root.avg.loadAvg, uint64_t(1024));
    QCOMPARE(root.avg.loadSum, 1024 * kDiv);
    QCOMPARE(root.avg.utilAvg, uint64_t(512));
    QCOMPARE(root.avg.utilSum, uint32_t(512 * kDiv));
    QCOMPARE(root.avg.runnableAvg, uint64_t(512));
}

// The same through whole runs, for every profile (the kernels from 6.6 to 7.3 online a group
// the same way; 7.3's flat run queue keeps the group levels' PELT) and for a group one and two
// levels deep: one CPU, cgroups /a and /a/b created at 0, a nice-0 hog started at 0 in one of
// them. At 0.5 ms no PELT period has ended, so every average is still what the enqueue at 0 left
// (above): the root's load_avg 1024, runnable_avg and util_avg 512. Two levels deep the mark of
// each level is min(46718 + 1, 46718) again, so the root gets the same. (With tg_shares 1024 on
// one CPU, calc_group_shares() leaves every group entity at 1024: no reweight at the enqueue.)
void TestPelt::newGroupsFirstTaskCountedOnce_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("cgroup");
    for (const char* profile : {"6.6", "6.12", "6.13", "7.0", "7.1", "7.3"})
        for (const char* cgroup : {"/a", "/a/b"})
            QTest::addRow("%s %s", profile, cgroup) << QString(profile) << QString(cgroup);
}

void TestPelt::newGroupsFirstTaskCountedOnce()
{
    QFETCH(QString, profile);
    QFETCH(QString, cgroup);
    const std::string json = R"({"schedlab": 1, "name": "new group", "duration": "10ms",
        "kernel": {"profile": ")"
        + profile.toStdString() + R"(", "hz": 1000}, "machine": {"cpus": 1},
        "cgroups": [{"path": "/a"}, {"path": "/a/b"}],
        "tasks": [{"name": "hog", "cgroup": ")"
        + cgroup.toStdString() + R"(", "program": [{"run": "forever"}]}]})";
    const LoadResult loaded = parseScenario(json, "new-group.json");
    QVERIFY(loaded.ok());
    const Inspection at = inspectAt(*loaded.scenario, RunOptions{}, Nanoseconds{500000});
    QCOMPARE(at.cpus.size(), size_t(1));
    const CfsRqInspection& root = at.cpus[0].rqs.at(0);
    QCOMPARE(root.group, 0);
    QCOMPARE(root.loadAvg, uint64_t(1024));
    QCOMPARE(root.runnableAvg, uint64_t(512));
    QCOMPARE(root.utilAvg, uint64_t(512));
}

// util_est (kernel-model.md §6.8), worked by hand: the estimate follows increases at once and
// decreases by a quarter of the difference, only at a sleep and once util_avg moved since the
// last update, and not when the drop is under 1 % (10), the task did not get the CPU it wanted
// (runnable_avg more than 10 above util_avg) or the CPU had no idle time (util above capacity).
void TestPelt::utilEstRules()
{
    SchedEntity p;
    p.avg.utilAvg = 300;
    p.avg.runnableAvg = 300;
    utilEstUpdate(p, false, 1024); // not a sleep: nothing
    QCOMPARE(p.avg.utilEst, 0u);
    utilEstUpdate(p, true, 1024); // 0 ≤ 300: taken whole, flagged
    QCOMPARE(p.avg.utilEst, 300u | kUtilAvgUnchanged);
    QCOMPARE(taskUtilEstRaw(p), 300u);
    p.avg.utilAvg = 200;
    p.avg.runnableAvg = 200;
    utilEstUpdate(p, true, 1024); // flagged: util_avg has not moved since, kept
    QCOMPARE(taskUtilEstRaw(p), 300u);
    utilEstUtilChanged(p.avg);
    QCOMPARE(p.avg.utilEst, 300u);
    utilEstUpdate(p, true, 1024); // (4·300 − 100) / 4 = 275
    QCOMPARE(p.avg.utilEst, 275u | kUtilAvgUnchanged);
    QCOMPARE(taskUtilEst(p), uint64_t{275}); // max(200, 275)
    utilEstUtilChanged(p.avg);
    p.avg.utilAvg = 270; // 275 − 270 = 5 < 10: kept
    utilEstUpdate(p, true, 1024);
    QCOMPARE(p.avg.utilEst, 275u | kUtilAvgUnchanged);
    utilEstUtilChanged(p.avg);
    p.avg.utilAvg = 100;
    p.avg.runnableAvg = 300; // 100 + 10 < 300: it waited, kept
    utilEstUpdate(p, true, 1024);
    QCOMPARE(p.avg.utilEst, 275u | kUtilAvgUnchanged);
    utilEstUtilChanged(p.avg);
    p.avg.runnableAvg = 100; // (4·275 − 175) / 4 = 231 (925/4, floored)
    utilEstUpdate(p, true, 1024);
    QCOMPARE(p.avg.utilEst, 231u | kUtilAvgUnchanged);
    utilEstUtilChanged(p.avg);
    p.avg.utilEst = 800;
    p.avg.utilAvg = 600;
    p.avg.runnableAvg = 600;
    utilEstUpdate(p, true, 512); // 600 > capacity 512: left alone, not even flagged
    QCOMPARE(p.avg.utilEst, 800u);

    // The root cfs_rq's sum of its queued tasks' estimates, never below 0.
    const KernelProfile* profile = findProfile("6.13");
    QVERIFY(profile);
    CfsRq root(profile->choices);
    p.avg.utilEst = 231u | kUtilAvgUnchanged;
    utilEstEnqueue(root, p);
    QCOMPARE(root.avg.utilEst, 231u);
    utilEstEnqueue(root, p);
    QCOMPARE(root.avg.utilEst, 462u);
    utilEstDequeue(root, p);
    utilEstDequeue(root, p);
    utilEstDequeue(root, p);
    QCOMPARE(root.avg.utilEst, 0u);
}

// se_runnable() and the cfs_rq runnable signal with a delayed task (kernel-model.md §5.4). On
// one CPU task A runs and task B is delayed, both queued on the root from t = 0 with empty sums;
// one update at t = 2 periods (2 · 1024 · 1024 ns) accrues, by ___update_load_sum() with d1 =
// 1024, two periods crossed and d3 = 0: c1 = decay_load(1024, 2) = 1024 · 0xf5257d14 >> 32 =
// 980, c2 = LOAD_AVG_MAX − decay_load(47742, 2) − 1024 = 47742 − 45717 − 1024 = 1001, so
// contrib = 1981 and the divider is 47742 − 1024 = 46718.
// * B (delayed): load_sum 1981 (on_rq), load_avg 1024 · 1981 / 46718 = 43; runnable 0 in every
//   profile (fc1892becd56: a delayed entity is not runnable);
// * the root: load 2048 · 1981 / 46718 = 86, util (1981 << 10) / 46718 = 43 (A runs); runnable
//   counts h_nr_runnable = 1 task since 76f2f783294d (6.13, 6.12.7): (1981 << 10) / 46718 = 43;
//   before it (6.12.0–6.12.6) h_nr_running = 2, delayed B included: (2 · 1981 << 10) / 46718 = 86.
void TestPelt::delayedRunnable_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<quint64>("rootRunnable");
    QTest::addRow("h_nr_running (6.12.0-6.12.6)") << "h_nr_running" << quint64(86);
    QTest::addRow("h_nr_runnable (6.12.7+, 6.13+)") << "h_nr_runnable" << quint64(43);
}

void TestPelt::delayedRunnable()
{
    QFETCH(QString, value);
    QFETCH(quint64, rootRunnable);
    const KernelProfile* p = findProfile("6.12");
    QVERIFY(p);
    ProfileChoices choices = p->choices;
    QVERIFY(applyChoice(choices, "delayed_runnable", value.toStdString()));
    FakeMachine services(1, choices);
    std::vector<TaskGroup> groups(1);
    LoadTracker load(services, groups, 1, 1000000);
    load.setTraits(&p->traits);
    load.setChoices(&choices);
    CfsRq& root = *services.rq(0).cfs;
    auto [a, b] = runningAndDelayed(services, root);
    services.now = 2 * 1024 * 1024;
    load.updateLoadAvg(root, b.se, false);
    QCOMPARE(b.se.avg.loadSum, uint64_t(1981));
    QCOMPARE(b.se.avg.loadAvg, uint64_t(43));
    QCOMPARE(b.se.avg.runnableSum, uint64_t(0));
    QCOMPARE(b.se.avg.runnableAvg, uint64_t(0));
    QCOMPARE(root.avg.loadAvg, uint64_t(86));
    QCOMPARE(root.avg.utilAvg, uint64_t(43));
    QCOMPARE(quint64(root.avg.runnableAvg), rootRunnable);
    // A, running and not delayed, is runnable in both: (1981 << 10) / 46718 = 43.
    load.updateLoadAvg(root, a.se, false);
    QCOMPARE(a.se.avg.runnableAvg, uint64_t(43));
    QCOMPARE(a.se.avg.utilAvg, uint64_t(43));
}

// The balancer's view of the same state on the point releases of 76f2f783294d (issue 39: 6.12.6
// against 6.12.7; kernel-model.md §5.4, §8.3). A runs and B is delayed on one CPU for 48 periods
// from empty sums, one update at t = 48 · 1024 · 1024 ns: d1 = 1024, 48 periods, d3 = 0;
// c1 = decay_load(1024, 48) = (1024 >> 1) · 0xb504f333 >> 32 = 362, c2 = 47742 −
// decay_load(47742, 48) − 1024 = 47742 − ((47742 >> 1) · 0xb504f333 >> 32) − 1024 = 47742 −
// 16879 − 1024 = 29839: contrib 30201, divider 46718. The root's util is (30201 << 10) / 46718 =
// 661 in both; its runnable counts h_nr_running = 2 on 6.12.6, (2 · 30201 << 10) / 46718 =
// 1323, and h_nr_runnable = 1 on 6.12.7, 661. The CPU as a one-CPU group of its MC domain
// (imbalance_pct 117, capacity 1024, rq->nr_running 2: the delayed task is still queued):
// * 6.12.6: nr 2 > 1; util 661 · 117 = 77337 ≤ 102400; runnable 1323 · 100 = 132300 >
//   1024 · 117 = 119808: group_overloaded (a migrate_load balance from a CPU with one task that
//   runs 65 % of the time);
// * 6.12.7: runnable 66100 ≤ 119808, so not overloaded; has capacity: runnable not above and
//   102400 > 77337: group_has_spare.
void TestPelt::delayedRunnableClassification_data()
{
    QTest::addColumn<QString>("release");
    QTest::addColumn<quint64>("rootRunnable");
    QTest::addColumn<int>("type");
    QTest::addRow("6.12.6") << "6.12.6" << quint64(1323) << int(GroupType::Overloaded);
    QTest::addRow("6.12.7") << "6.12.7" << quint64(661) << int(GroupType::HasSpare);
}

void TestPelt::delayedRunnableClassification()
{
    QFETCH(QString, release);
    QFETCH(quint64, rootRunnable);
    QFETCH(int, type);
    const KernelProfile* p = findProfile(release.toStdString());
    QVERIFY(p);
    QCOMPARE(p->name, release.toStdString());
    FakeMachine services(1, p->choices);
    std::vector<TaskGroup> groups(1);
    LoadTracker load(services, groups, 1, 1000000);
    load.setTraits(&p->traits);
    load.setChoices(&p->choices);
    CfsRq& root = *services.rq(0).cfs;
    auto [a, b] = runningAndDelayed(services, root);
    services.now = 48 * 1024 * 1024;
    load.updateLoadAvg(root, a.se, false);
    QCOMPARE(root.avg.utilAvg, uint64_t(661));
    QCOMPARE(quint64(root.avg.runnableAvg), rootRunnable);
    SgLbStats s;
    s.groupWeight = 1;
    s.groupCapacity = 1024;
    s.sumNrRunning = 2;
    s.sumHNrRunning = root.hNrRunnable;
    s.groupUtil = int64_t(root.avg.utilAvg);
    s.groupRunnable = int64_t(root.avg.runnableAvg);
    QCOMPARE(int(groupClassify(117, s, false)), type);
}

QTEST_APPLESS_MAIN(TestPelt)
#include "tst_pelt.moc"
