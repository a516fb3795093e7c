// SPDX-License-Identifier: GPL-2.0-or-later
// core/fair/weights.h: the nice tables, scale_load/scale_load_down and __calc_delta
// (kernel-model.md §2.1, §2.2). Expected values were computed step by step with the §2.2 integer
// rules in a separate Python model; the comments show the steps for the rows that exercise each
// rule.
#include <QTest>

#include <cmath>
#include <limits>

// moc 6.4 runs with C++17 predefines and cannot parse <concepts> (via <compare>): hide the core
// headers from it; the test class itself needs none of their declarations.
#ifndef Q_MOC_RUN
#include "core/fair/weights.h"
#endif

using namespace schedlab;

Q_DECLARE_METATYPE(WeightPrecision)

class TestWeights : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tableSpotValues_data();
    void tableSpotValues();
    void tableProperties();
    void scaleLoad_data();
    void scaleLoad();
    void taskLoadWeight_data();
    void taskLoadWeight();
    void calcDeltaFixed_data();
    void calcDeltaFixed();
    void calcDeltaExact_data();
    void calcDeltaExact();
    void calcDeltaFair_data();
    void calcDeltaFair();
};

void TestWeights::tableSpotValues_data()
{
    QTest::addColumn<int>("nice");
    QTest::addColumn<quint32>("weight");
    QTest::addColumn<quint32>("wmult");

    QTest::addRow("nice -20") << -20 << 88761u << 48388u;
    QTest::addRow("nice -1") << -1 << 1277u << 3363326u;
    QTest::addRow("nice 0") << 0 << 1024u << 4194304u;
    QTest::addRow("nice 1") << 1 << 820u << 5237765u;
    QTest::addRow("nice 5") << 5 << 335u << 12820798u;
    QTest::addRow("nice 10") << 10 << 110u << 39045157u;
    QTest::addRow("nice 19") << 19 << 15u << 286331153u;
}

void TestWeights::tableSpotValues()
{
    QFETCH(int, nice);
    QFETCH(quint32, weight);
    QFETCH(quint32, wmult);

    const auto idx = static_cast<size_t>(nice + 20);
    QCOMPARE(kPrioToWeight[idx], weight);
    QCOMPARE(kPrioToWmult[idx], wmult);
}

// Independent sanity of the whole tables: wmult is 2^32/weight to within 1, and successive nice
// levels differ by a factor of about 1.25 (within 5%, the table's worst case).
void TestWeights::tableProperties()
{
    for (size_t i = 0; i < kPrioToWeight.size(); ++i) {
        const double inv = 4294967296.0 / kPrioToWeight[i];
        QVERIFY2(std::fabs(kPrioToWmult[i] - inv) < 1.0, qPrintable(QString::number(i)));
        if (i + 1 < kPrioToWeight.size()) {
            const double ratio = double(kPrioToWeight[i]) / kPrioToWeight[i + 1];
            QVERIFY2(std::fabs(ratio - 1.25) <= 0.0501, qPrintable(QString::number(i)));
        }
    }
}

void TestWeights::scaleLoad_data()
{
    QTest::addColumn<quint64>("scaled");
    QTest::addColumn<quint64>("down");

    QTest::addRow("0 stays 0") << quint64(0) << quint64(0);
    QTest::addRow("1 floors to 2") << quint64(1) << quint64(2);
    QTest::addRow("2047 floors to 2") << quint64(2047) << quint64(2);
    QTest::addRow("3072 is 3") << quint64(3072) << quint64(3);
    QTest::addRow("nice 0") << quint64(1024 << 10) << quint64(1024);
    QTest::addRow("1025 drops the low bits") << quint64((1024 << 10) + 1023) << quint64(1024);
    QTest::addRow("MAX_SHARES") << quint64(uint64_t{1} << 28) << quint64(uint64_t{1} << 18);
}

void TestWeights::scaleLoad()
{
    QFETCH(quint64, scaled);
    QFETCH(quint64, down);

    QCOMPARE(quint64(scaleLoadDown(scaled)), down);
    if (down > 2)
        QCOMPARE(quint64(schedlab::scaleLoad(down)), scaled & ~quint64(1023));
}

void TestWeights::taskLoadWeight_data()
{
    QTest::addColumn<int>("nice");
    QTest::addColumn<bool>("idle");
    QTest::addColumn<quint64>("weight");
    QTest::addColumn<quint32>("inv");

    QTest::addRow("nice 0") << 0 << false << quint64(1u << 20) << 4194304u;
    QTest::addRow("nice -20") << -20 << false << quint64(88761u << 10) << 48388u;
    QTest::addRow("nice 19") << 19 << false << quint64(15u << 10) << 286331153u;
    QTest::addRow("SCHED_IDLE ignores nice") << 5 << true << quint64(3u << 10) << 1431655765u;
}

void TestWeights::taskLoadWeight()
{
    QFETCH(int, nice);
    QFETCH(bool, idle);
    QFETCH(quint64, weight);
    QFETCH(quint32, inv);

    const LoadWeight lw = schedlab::taskLoadWeight(nice, idle);
    QCOMPARE(quint64(lw.weight), weight);
    QCOMPARE(lw.invWeight, inv);
}

void TestWeights::calcDeltaFixed_data()
{
    QTest::addColumn<quint64>("delta");
    QTest::addColumn<quint64>("weight");
    QTest::addColumn<quint64>("lwWeight");
    QTest::addColumn<quint32>("lwInv"); // 0 = not computed yet (lazy)
    QTest::addColumn<quint32>("invAfter");
    QTest::addColumn<quint64>("expected");

    const quint64 nice0 = 1u << 20;
    // fact = ŵ(2^20) = 1024; 1024 · 12820798 = 13128497152 ≥ 2^32 → fact >> 32 = 3 has bit length
    // 2: shift = 30, fact = 3282124288; 10^6 · 3282124288 >> 30 = 3056716 (3056716.44…).
    QTest::addRow("1ms on nice 5 (335)") << quint64(1000000) << nice0 << quint64(335u << 10)
                                         << 12820798u << 12820798u << quint64(3056716);
    // 1024 · 48388 = 49549312 < 2^32: no normalisation; 10^6 · 49549312 >> 32 = 11536.
    QTest::addRow("1ms on nice -20")
        << quint64(1000000) << nice0 << quint64(88761u << 10) << 48388u << 48388u << quint64(11536);
    // 1024 · 286331153 = 293203100672; >> 32 = 68 (bit length 7): shift 25, fact 2290649224.
    QTest::addRow("1ms on nice 19") << quint64(1000000) << nice0 << quint64(15u << 10) << 286331153u
                                    << 286331153u << quint64(68266666);
    QTest::addRow("1ms on SCHED_IDLE") << quint64(1000000) << nice0 << quint64(3u << 10)
                                       << 1431655765u << 1431655765u << quint64(341333333);
    QTest::addRow("4ms on nice 1") << quint64(4000000) << nice0 << quint64(820u << 10) << 5237765u
                                   << 5237765u << quint64(4995121);
    // Lazy inverse: ŵ = 20480, inv = floor((2^32 − 1) / 20480) = 209715; fact = 1024 · 209715 =
    // 214748160 < 2^32; 10^6 · 214748160 >> 32 = 49999 (the exact quotient is 50000).
    QTest::addRow("1ms on a cpu.weight 2000 group (lazy inverse)")
        << quint64(1000000) << nice0 << quint64(20480u << 10) << 0u << 209715u << quint64(49999);
    // ŵ(2) = 2: inv = 2147483647; 1024 · inv = 2199023254528, >> 32 = 511 (bit length 9): shift 23,
    // fact = 4294967294; 10^6 · 4294967294 >> 23 = 511999999 (exact would be 524288000000).
    QTest::addRow("1ms on a MIN_SHARES group (2 scaled)")
        << quint64(1000000) << nice0 << quint64(2) << 0u << 2147483647u << quint64(511999999);
    QTest::addRow("weight 1 scaled counts as 2")
        << quint64(1000000) << nice0 << quint64(1) << 0u << 2147483647u << quint64(511999999);
    // 1024 · 4194304 = 2^32 exactly: bit length of 1 is 1 → shift 31, fact 2^31: identity.
    QTest::addRow("nice 0 through the fixed path")
        << quint64(1000000) << nice0 << nice0 << 4194304u << 4194304u << quint64(1000000);
    // fact = 88761 · 4194304 = 372290617344, >> 32 = 86 (bit length 7): shift 25,
    // fact = 2908520448; 10^6 · 2908520448 >> 25 = 86680664.
    QTest::addRow("nice -20 weight over nice 0")
        << quint64(1000000) << quint64(88761u << 10) << nice0 << 4194304u << 4194304u
        << quint64(86680664);
    // Step 3: ŵ = 5·2^32 ≥ 2^32 → bit length of 5 is 3: shift 29, fact 5·2^29; then
    // fact · 2^22 = 5·2^51, >> 32 = 5·2^19 (bit length 22): shift 7, fact 5·2^29 again.
    QTest::addRow("weight needing the step-3 normalisation")
        << quint64(1000000) << (quint64(5) << 42) << nice0 << 4194304u << 4194304u
        << quint64(20971520000000);
    // ŵ = 2^32 − 1 ≥ WMULT_CONST → inv = 1; fact = 1024; 10^10 · 1024 >> 32 = 2384.
    QTest::addRow("inverse saturates at 1")
        << quint64(10000000000) << nice0 << (quint64(0xffffffffu) << 10) << 0u << 1u
        << quint64(2384);
    // ŵ = 0 → inv = 2^32 − 1; 1024 · (2^32 − 1) >> 32 = 1023 (bit length 10): shift 22,
    // fact = 4294967295; 10^6 · 4294967295 >> 22 = 1023999999.
    QTest::addRow("zero weight") << quint64(1000000) << nice0 << quint64(0) << 0u << 0xffffffffu
                                 << quint64(1023999999);
    // 10^12 · 3282124288 >> 30 = 3056716442108; the 32-bit inverse drifts from the exact
    // 3056716417910 by 24198 ns over 1000 s.
    QTest::addRow("1000s on nice 5") << quint64(1000000000000) << nice0 << quint64(335u << 10)
                                     << 12820798u << 12820798u << quint64(3056716442108);
}

void TestWeights::calcDeltaFixed()
{
    QFETCH(quint64, delta);
    QFETCH(quint64, weight);
    QFETCH(quint64, lwWeight);
    QFETCH(quint32, lwInv);
    QFETCH(quint32, invAfter);
    QFETCH(quint64, expected);

    LoadWeight lw{lwWeight, lwInv};
    QCOMPARE(quint64(schedlab::calcDeltaFixed(delta, weight, lw)), expected);
    QCOMPARE(lw.invWeight, invAfter); // computed once and kept (__update_inv_weight)
    QCOMPARE(quint64(lw.weight), lwWeight);
    QCOMPARE(quint64(schedlab::calcDeltaFixed(delta, weight, lw)), expected);
}

void TestWeights::calcDeltaExact_data()
{
    QTest::addColumn<quint64>("delta");
    QTest::addColumn<quint64>("weight");
    QTest::addColumn<quint64>("lwWeight");
    QTest::addColumn<quint64>("expected");

    const quint64 nice0 = 1u << 20;
    // floor(10^6 · 1024 / 335) = 3056716
    QTest::addRow("1ms on nice 5")
        << quint64(1000000) << nice0 << quint64(335u << 10) << quint64(3056716);
    QTest::addRow("1ms on a cpu.weight 2000 group")
        << quint64(1000000) << nice0 << quint64(20480u << 10) << quint64(50000);
    // 10^6 · 2^20 / 2 = 524288000000: the full weight 2 is 1024× lighter than ŵ = 2.
    QTest::addRow("1ms on a MIN_SHARES group")
        << quint64(1000000) << nice0 << quint64(2) << quint64(524288000000);
    QTest::addRow("1000s on nice 5")
        << quint64(1000000000000) << nice0 << quint64(335u << 10) << quint64(3056716417910);
    // 128-bit intermediate: (2^64 − 1) · 1 / 2 = 2^63 − 1, and (2^64 − 1) · w / w = 2^64 − 1.
    QTest::addRow("no 64-bit overflow (halving)")
        << std::numeric_limits<quint64>::max() << quint64(1) << quint64(2)
        << quint64(std::numeric_limits<qint64>::max());
    QTest::addRow("no 64-bit overflow (identity)") << std::numeric_limits<quint64>::max() << nice0
                                                   << nice0 << std::numeric_limits<quint64>::max();
    QTest::addRow("floor") << quint64(1000000) << quint64(3) << quint64(7) << quint64(428571);
}

void TestWeights::calcDeltaExact()
{
    QFETCH(quint64, delta);
    QFETCH(quint64, weight);
    QFETCH(quint64, lwWeight);
    QFETCH(quint64, expected);

    QCOMPARE(quint64(schedlab::calcDeltaExact(delta, weight, lwWeight)), expected);
}

void TestWeights::calcDeltaFair_data()
{
    QTest::addColumn<quint64>("delta");
    QTest::addColumn<quint64>("lwWeight");
    QTest::addColumn<quint32>("lwInv");
    QTest::addColumn<WeightPrecision>("precision");
    QTest::addColumn<quint64>("expected");

    const quint64 nice0 = 1u << 20;
    const quint64 huge = std::numeric_limits<quint64>::max();
    for (const auto precision : {WeightPrecision::ScaledDown, WeightPrecision::Full}) {
        const char* p = precision == WeightPrecision::Full ? "full" : "scaled-down";
        // The nice-0 shortcut returns delta untouched, whatever its size.
        QTest::addRow("%s: nice 0 shortcut", p)
            << quint64(1000000) << nice0 << 0u << precision << quint64(1000000);
        QTest::addRow("%s: nice 0 shortcut, 2^64-1", p) << huge << nice0 << 0u << precision << huge;
        QTest::addRow("%s: nice 5", p) << quint64(1000000) << quint64(335u << 10) << 12820798u
                                       << precision << quint64(3056716);
    }
    QTest::addRow("scaled-down: cpu.weight 2000 group")
        << quint64(1000000) << quint64(20480u << 10) << 0u << WeightPrecision::ScaledDown
        << quint64(49999);
    QTest::addRow("full: cpu.weight 2000 group") << quint64(1000000) << quint64(20480u << 10) << 0u
                                                 << WeightPrecision::Full << quint64(50000);
    QTest::addRow("scaled-down: MIN_SHARES group")
        << quint64(1000000) << quint64(2) << 0u << WeightPrecision::ScaledDown
        << quint64(511999999);
    QTest::addRow("full: MIN_SHARES group")
        << quint64(1000000) << quint64(2) << 0u << WeightPrecision::Full << quint64(524288000000);
    QTest::addRow("scaled-down: 1000s on nice 5")
        << quint64(1000000000000) << quint64(335u << 10) << 12820798u << WeightPrecision::ScaledDown
        << quint64(3056716442108);
    QTest::addRow("full: 1000s on nice 5")
        << quint64(1000000000000) << quint64(335u << 10) << 12820798u << WeightPrecision::Full
        << quint64(3056716417910);
}

void TestWeights::calcDeltaFair()
{
    QFETCH(quint64, delta);
    QFETCH(quint64, lwWeight);
    QFETCH(quint32, lwInv);
    QFETCH(WeightPrecision, precision);
    QFETCH(quint64, expected);

    LoadWeight lw{lwWeight, lwInv};
    QCOMPARE(quint64(schedlab::calcDeltaFair(delta, lw, precision)), expected);
}

QTEST_APPLESS_MAIN(TestWeights)
#include "tst_weights.moc"
