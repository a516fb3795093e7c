// SPDX-License-Identifier: GPL-2.0-or-later
// core/base/time.h: duration parsing and exact formatting. Expected values are worked out by hand
// from the unit definitions (1us = 1000ns, 1ms = 10^6 ns, 1s = 10^9 ns).
#include "core/base/prng.h"
#include "core/base/time.h"

#include <QTest>

#include <limits>

using namespace schedlab;

class TestTime : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseDuration_data();
    void parseDuration();
    void parseDurationRejects_data();
    void parseDurationRejects();
    void formatDuration_data();
    void formatDuration();
    void roundTrip_data();
    void roundTrip();
    void formatDurationHuman_data();
    void formatDurationHuman();
    void saturating_data();
    void saturating();
    void saturatingDurations();
};

void TestTime::parseDuration_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<qint64>("ns");

    QTest::addRow("0.7ms") << QByteArray("0.7ms") << qint64(700000);
    QTest::addRow("1s") << QByteArray("1s") << qint64(1000000000);
    QTest::addRow("50us") << QByteArray("50us") << qint64(50000);
    QTest::addRow("1234ns") << QByteArray("1234ns") << qint64(1234);
    QTest::addRow("1.5us") << QByteArray("1.5us") << qint64(1500);
    QTest::addRow("0.000001ms is 1ns") << QByteArray("0.000001ms") << qint64(1);
    QTest::addRow("0ns") << QByteArray("0ns") << qint64(0);
    QTest::addRow("0s") << QByteArray("0s") << qint64(0);
    QTest::addRow("2.5s") << QByteArray("2.5s") << qint64(2500000000);
    QTest::addRow("trailing zeros below 1ns") << QByteArray("1.0000us") << qint64(1000);
    QTest::addRow("1.000ns") << QByteArray("1.000ns") << qint64(1);
    QTest::addRow("all nine decimals of a second")
        << QByteArray("1.234567891s") << qint64(1234567891);
    QTest::addRow("100ms") << QByteArray("100ms") << qint64(100000000);
    QTest::addRow("int64 max in ns")
        << QByteArray("9223372036854775807ns") << std::numeric_limits<qint64>::max();
    QTest::addRow("int64 max in ms")
        << QByteArray("9223372036854.775807ms") << std::numeric_limits<qint64>::max();
    QTest::addRow("int64 max in s")
        << QByteArray("9223372036.854775807s") << std::numeric_limits<qint64>::max();
}

void TestTime::parseDuration()
{
    QFETCH(QByteArray, text);
    QFETCH(qint64, ns);

    std::string error;
    const auto parsed = schedlab::parseDuration(text.toStdString(), &error);
    QVERIFY2(parsed.has_value(), error.c_str());
    QCOMPARE(qint64(parsed->count()), ns);
    QVERIFY(error.empty());
}

void TestTime::parseDurationRejects_data()
{
    QTest::addColumn<QByteArray>("text");

    QTest::addRow("empty") << QByteArray("");
    QTest::addRow("no unit") << QByteArray("10");
    QTest::addRow("decimal without unit") << QByteArray("1.5");
    QTest::addRow("unit only") << QByteArray("ms");
    QTest::addRow("seconds unit only") << QByteArray("s");
    QTest::addRow("negative") << QByteArray("-1ms");
    QTest::addRow("dot without decimals") << QByteArray("1.ms");
    QTest::addRow("finer than 1ns") << QByteArray("0.0000001ms");
    QTest::addRow("fraction of a ns") << QByteArray("0.5ns");
    QTest::addRow("ten decimals of a second") << QByteArray("9.2233720368s");
    QTest::addRow("exponent") << QByteArray("1e3ms");
    QTest::addRow("space before unit") << QByteArray("1 ms");
    QTest::addRow("trailing space") << QByteArray("1ms ");
    QTest::addRow("unknown unit") << QByteArray("1m");
    QTest::addRow("two dots") << QByteArray("1.5.5ms");
    QTest::addRow("garbage") << QByteArray("fast");
    QTest::addRow("plus sign") << QByteArray("+1ms");
    QTest::addRow("overflow of the integer part") << QByteArray("9223372036854775808ns");
    QTest::addRow("overflow by the unit") << QByteArray("9223372036854776ms");
    QTest::addRow("overflow of 10^10 s") << QByteArray("10000000000s");
    QTest::addRow("overflow by the fraction (ms)") << QByteArray("9223372036854.775808ms");
    QTest::addRow("overflow by the fraction (s)") << QByteArray("9223372036.854775808s");
}

void TestTime::parseDurationRejects()
{
    QFETCH(QByteArray, text);

    std::string error;
    const auto parsed = schedlab::parseDuration(text.toStdString(), &error);
    QVERIFY2(!parsed.has_value(), qPrintable(QString::number(parsed ? parsed->count() : 0)));
    QVERIFY2(!error.empty(), "a rejection must explain itself");
    // The error out-parameter is optional.
    QVERIFY(!schedlab::parseDuration(text.toStdString()).has_value());
}

void TestTime::formatDuration_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QByteArray>("text");

    // The rule (time.h): the shortest exact rendering, the larger unit on a tie in length.
    QTest::addRow("0.7ms beats 700us on the tie") << qint64(700000) << QByteArray("0.7ms");
    QTest::addRow("1s") << qint64(1000000000) << QByteArray("1s");
    QTest::addRow("1.5us beats 1500ns") << qint64(1500) << QByteArray("1.5us");
    QTest::addRow("zero") << qint64(0) << QByteArray("0s");
    QTest::addRow("1ns") << qint64(1) << QByteArray("1ns");
    QTest::addRow("999ns") << qint64(999) << QByteArray("999ns");
    QTest::addRow("1us") << qint64(1000) << QByteArray("1us");
    QTest::addRow("1001ns beats 1.001us") << qint64(1001) << QByteArray("1001ns");
    QTest::addRow("2.5us") << qint64(2500) << QByteArray("2.5us");
    QTest::addRow("0.1ms beats 100us on the tie") << qint64(100000) << QByteArray("0.1ms");
    QTest::addRow("750us beats 0.75ms") << qint64(750000) << QByteArray("750us");
    QTest::addRow("1.5ms") << qint64(1500000) << QByteArray("1.5ms");
    QTest::addRow("1000001ns beats 1.000001ms") << qint64(1000001) << QByteArray("1000001ns");
    QTest::addRow("12345us beats 12.345ms") << qint64(12345000) << QByteArray("12345us");
    QTest::addRow("999999999ns is shortest") << qint64(999999999) << QByteArray("999999999ns");
    QTest::addRow("0.5s") << qint64(500000000) << QByteArray("0.5s");
    QTest::addRow("1.234567891s ties with ns") << qint64(1234567891) << QByteArray("1.234567891s");
    QTest::addRow("60s") << qint64(60000000000) << QByteArray("60s");
    QTest::addRow("int64 max") << std::numeric_limits<qint64>::max()
                               << QByteArray("9223372036.854775807s");
}

void TestTime::formatDuration()
{
    QFETCH(qint64, ns);
    QFETCH(QByteArray, text);

    QCOMPARE(QByteArray::fromStdString(schedlab::formatDuration(Nanoseconds(ns))), text);
}

void TestTime::roundTrip_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<int>("maxDigits");
    QTest::addColumn<int>("zeroDigits");

    // Values below 10^maxDigits, multiplied by 10^zeroDigits to exercise trailing-zero trimming.
    QTest::addRow("below 1us") << quint64(1) << 3 << 0;
    QTest::addRow("below 1ms") << quint64(2) << 6 << 0;
    QTest::addRow("below 1s") << quint64(3) << 9 << 0;
    QTest::addRow("up to 10^18") << quint64(4) << 18 << 0;
    QTest::addRow("round microseconds") << quint64(5) << 6 << 3;
    QTest::addRow("round milliseconds") << quint64(6) << 5 << 6;
    QTest::addRow("round hundreds of ns") << quint64(7) << 8 << 2;
}

void TestTime::roundTrip()
{
    QFETCH(quint64, seed);
    QFETCH(int, maxDigits);
    QFETCH(int, zeroDigits);

    int64_t bound = 1;
    for (int i = 0; i < maxDigits; ++i)
        bound *= 10;
    int64_t multiplier = 1;
    for (int i = 0; i < zeroDigits; ++i)
        multiplier *= 10;

    Prng prng(seed);
    for (int i = 0; i < 5000; ++i) {
        const int64_t value = prng.uniform(0, bound - 1) * multiplier;
        const std::string text = schedlab::formatDuration(Nanoseconds(value));
        std::string error;
        const auto parsed = schedlab::parseDuration(text, &error);
        QVERIFY2(parsed.has_value(), (text + ": " + error).c_str());
        QVERIFY2(parsed->count() == value, (std::to_string(value) + " -> " + text).c_str());
    }
}

void TestTime::formatDurationHuman_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QByteArray>("text");

    QTest::addRow("ns") << qint64(999) << QByteArray("999 ns");
    QTest::addRow("us") << qint64(1500) << QByteArray("1.500 us");
    QTest::addRow("ms rounds") << qint64(12345678) << QByteArray("12.346 ms");
    QTest::addRow("s") << qint64(2000000000) << QByteArray("2.000 s");
}

void TestTime::formatDurationHuman()
{
    QFETCH(qint64, ns);
    QFETCH(QByteArray, text);

    QCOMPARE(QByteArray::fromStdString(schedlab::formatDurationHuman(Nanoseconds(ns))), text);
}

void TestTime::saturating_data()
{
    // Columns: a, b, a + b, a - b, a * b, each clamped to the int64 range.
    QTest::addColumn<qint64>("a");
    QTest::addColumn<qint64>("b");
    QTest::addColumn<qint64>("sum");
    QTest::addColumn<qint64>("difference");
    QTest::addColumn<qint64>("product");
    constexpr qint64 kMax = std::numeric_limits<qint64>::max();
    constexpr qint64 kMin = std::numeric_limits<qint64>::min();

    QTest::addRow("small") << qint64(3) << qint64(-5) << qint64(-2) << qint64(8) << qint64(-15);
    QTest::addRow("zero") << qint64(0) << kMax << kMax << -kMax << qint64(0);
    QTest::addRow("max + 1 saturates") << kMax << qint64(1) << kMax << kMax - 1 << kMax;
    QTest::addRow("max + max") << kMax << kMax << kMax << qint64(0) << kMax;
    QTest::addRow("min - 1 saturates") << kMin << qint64(-1) << kMin << kMin + 1 << kMax;
    QTest::addRow("min + min") << kMin << kMin << kMin << qint64(0) << kMax;
    QTest::addRow("0 - min saturates") << qint64(0) << kMin << kMin << kMax << qint64(0);
    QTest::addRow("exact product at max")
        << qint64(3074457345618258602) << qint64(3) << qint64(3074457345618258605)
        << qint64(3074457345618258599) << qint64(9223372036854775806);
    QTest::addRow("product one past max")
        << qint64(4611686018427387904) << qint64(2) << qint64(4611686018427387906)
        << qint64(4611686018427387902) << kMax;
    QTest::addRow("negative product below min")
        << qint64(-4611686018427387905) << qint64(2) << qint64(-4611686018427387903)
        << qint64(-4611686018427387907) << kMin;
    QTest::addRow("min times -1 saturates") << kMin << qint64(-1) << kMin << kMin + 1 << kMax;
    // 24 h in ns (the loader's bound on one duration) times 100 000 (its bound on tasks) fits.
    QTest::addRow("24h times 100000")
        << qint64(86400000000000) << qint64(100000) << qint64(86400000100000)
        << qint64(86399999900000) << qint64(8640000000000000000);
}

void TestTime::saturating()
{
    QFETCH(qint64, a);
    QFETCH(qint64, b);
    QFETCH(qint64, sum);
    QFETCH(qint64, difference);
    QFETCH(qint64, product);
    QCOMPARE(saturatingAdd(int64_t{a}, int64_t{b}), int64_t{sum});
    QCOMPARE(saturatingAdd(int64_t{b}, int64_t{a}), int64_t{sum});
    QCOMPARE(saturatingSub(int64_t{a}, int64_t{b}), int64_t{difference});
    QCOMPARE(saturatingMul(int64_t{a}, int64_t{b}), int64_t{product});
    QCOMPARE(saturatingMul(int64_t{b}, int64_t{a}), int64_t{product});
}

void TestTime::saturatingDurations()
{
    constexpr Nanoseconds kMax = Nanoseconds::max();
    static_assert(saturatingAdd(1_s, 500_ms) == 1500_ms);
    QCOMPARE(saturatingAdd(kMax, 1_ns).count(), kMax.count());
    QCOMPARE(saturatingAdd(Nanoseconds(9223372036854775807), 1_s).count(), kMax.count());
    QCOMPARE(saturatingSub(Nanoseconds::min(), 1_ns).count(), Nanoseconds::min().count());
    QCOMPARE(saturatingSub(5_ms, 7_ms).count(), int64_t{-2000000});
    QCOMPARE(saturatingMul(100_ms, 10).count(), int64_t{1000000000});
    QCOMPARE(saturatingMul(1_s, 10'000'000'000).count(), kMax.count());
    QCOMPARE(saturatingMul(1_s, -10'000'000'000).count(), Nanoseconds::min().count());
}

QTEST_APPLESS_MAIN(TestTime)
#include "tst_time.moc"
