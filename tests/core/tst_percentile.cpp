// SPDX-License-Identifier: GPL-2.0-or-later
// core/base/percentile.h: the nearest-rank percentile of the wait metrics (model runs and imported
// traces). Expected values worked out by hand: rank = ceil(pct * n / 100), at least 1, 1-based in
// the sorted values.
#include "core/base/percentile.h"

#include <QTest>

#include <vector>

using namespace schedlab;

class TestPercentile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nearestRank_data();
    void nearestRank();
    void inputOrderDoesNotMatter();
};

void TestPercentile::nearestRank_data()
{
    QTest::addColumn<QList<qint64>>("values");
    QTest::addColumn<int>("pct");
    QTest::addColumn<qint64>("expected");

    QTest::addRow("empty") << QList<qint64>{} << 50 << qint64(0);
    QTest::addRow("one value p0") << QList<qint64>{7} << 0 << qint64(7);
    QTest::addRow("one value p99") << QList<qint64>{7} << 99 << qint64(7);
    // n = 4: p50 rank ceil(2) = 2 -> 20; p99 rank ceil(3.96) = 4 -> 40; p25 rank 1 -> 10;
    // p26 rank ceil(1.04) = 2 -> 20; p0 rank max(0, 1) = 1 -> 10; p100 rank 4 -> 40.
    const QList<qint64> four{10, 20, 30, 40};
    QTest::addRow("4 p50") << four << 50 << qint64(20);
    QTest::addRow("4 p99") << four << 99 << qint64(40);
    QTest::addRow("4 p25") << four << 25 << qint64(10);
    QTest::addRow("4 p26") << four << 26 << qint64(20);
    QTest::addRow("4 p0") << four << 0 << qint64(10);
    QTest::addRow("4 p100") << four << 100 << qint64(40);
    // n = 5: p50 rank ceil(2.5) = 3 -> the median 3 (no interpolation between 2 and 3 of n = 4).
    QTest::addRow("5 p50") << QList<qint64>{1, 2, 3, 4, 5} << 50 << qint64(3);
    // n = 200 values 1..200: p99 rank ceil(198) = 198 -> 198; p50 rank 100 -> 100.
    QList<qint64> many;
    for (qint64 v = 1; v <= 200; ++v)
        many.append(v);
    QTest::addRow("200 p99") << many << 99 << qint64(198);
    QTest::addRow("200 p50") << many << 50 << qint64(100);
    // Ties: {5, 5, 5, 9} p75 rank 3 -> 5, p76 rank ceil(3.04) = 4 -> 9.
    QTest::addRow("ties p75") << QList<qint64>{5, 9, 5, 5} << 75 << qint64(5);
    QTest::addRow("ties p76") << QList<qint64>{5, 9, 5, 5} << 76 << qint64(9);
}

void TestPercentile::nearestRank()
{
    QFETCH(QList<qint64>, values);
    QFETCH(int, pct);
    QFETCH(qint64, expected);
    const std::vector<int64_t> v(values.begin(), values.end());
    QCOMPARE(qint64(nearestRankPercentile(v, pct)), expected);
}

void TestPercentile::inputOrderDoesNotMatter()
{
    // The same multiset in three orders gives the same answer: 9 values, p50 rank ceil(4.5) = 5.
    const std::vector<std::vector<int64_t>> orders{
        {1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 7, 6, 5, 4, 3, 2, 1}, {5, 1, 9, 2, 8, 3, 7, 4, 6}};
    for (const auto& o : orders)
        QCOMPARE(nearestRankPercentile(o, 50), int64_t(5));
}

QTEST_APPLESS_MAIN(TestPercentile)
#include "tst_percentile.moc"
