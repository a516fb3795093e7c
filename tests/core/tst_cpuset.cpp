// SPDX-License-Identifier: GPL-2.0-or-later
// core/base/cpuset.h: cpulist parsing ("0-3,7", the taskset -c syntax), canonical printing and the
// bit operations.

#include <QTest>

// moc 6.4 runs with C++17 predefines and cannot parse <concepts> (via <compare>): hide the core
// headers from it; the test class itself needs none of their declarations.
#ifndef Q_MOC_RUN
#include "core/base/cpuset.h"
#endif

using namespace schedlab;

class TestCpuSet : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void parseErrors_data();
    void parseErrors();
    void bitOps_data();
    void bitOps();
    void clearAndEquality();
    void factories_data();
    void factories();
};

void TestCpuSet::parse_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("cpus");
    QTest::addColumn<QByteArray>("canonical");
    QTest::addColumn<QList<int>>("members");

    QTest::addRow("range and single")
        << QByteArray("0-3,7") << 8 << QByteArray("0-3,7") << QList<int>{0, 1, 2, 3, 7};
    QTest::addRow("single") << QByteArray("5") << 8 << QByteArray("5") << QList<int>{5};
    QTest::addRow("single then range")
        << QByteArray("0,2-3") << 4 << QByteArray("0,2-3") << QList<int>{0, 2, 3};
    QTest::addRow("unsorted singles merge")
        << QByteArray("3,1,2") << 4 << QByteArray("1-3") << QList<int>{1, 2, 3};
    QTest::addRow("one-element range")
        << QByteArray("0-0") << 1 << QByteArray("0") << QList<int>{0};
    QTest::addRow("duplicates") << QByteArray("1,1") << 2 << QByteArray("1") << QList<int>{1};
    QTest::addRow("overlapping ranges")
        << QByteArray("0-1,1-2") << 4 << QByteArray("0-2") << QList<int>{0, 1, 2};
    QTest::addRow("adjacent singles")
        << QByteArray("4,5") << 8 << QByteArray("4-5") << QList<int>{4, 5};
    QTest::addRow("across a 64-bit word")
        << QByteArray("63-65") << 128 << QByteArray("63-65") << QList<int>{63, 64, 65};
    QTest::addRow("first and last of 128")
        << QByteArray("127,0") << 128 << QByteArray("0,127") << QList<int>{0, 127};
    QTest::addRow("last CPU of the machine")
        << QByteArray("3") << 4 << QByteArray("3") << QList<int>{3};
}

void TestCpuSet::parse()
{
    QFETCH(QByteArray, text);
    QFETCH(int, cpus);
    QFETCH(QByteArray, canonical);
    QFETCH(QList<int>, members);

    std::string error;
    const auto set = CpuSet::parse(text.toStdString(), cpus, &error);
    QVERIFY2(set.has_value(), error.c_str());
    QCOMPARE(QByteArray::fromStdString(set->toString()), canonical);
    QCOMPARE(set->count(), int(members.size()));
    for (int cpu = 0; cpu < cpus; ++cpu)
        QCOMPARE(set->test(cpu), members.contains(cpu));
    // The canonical form parses back to the same set.
    const auto again = CpuSet::parse(set->toString(), cpus);
    QVERIFY(again.has_value());
    QVERIFY(*again == *set);
}

void TestCpuSet::parseErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("cpus");
    QTest::addColumn<QByteArray>("message");

    const QByteArray garbage = "expected a CPU list such as \"0-3,7\", got \"";
    QTest::addRow("reversed range")
        << QByteArray("3-1") << 8 << QByteArray("CPU range 3-1 is reversed");
    QTest::addRow("CPU beyond the machine")
        << QByteArray("0-7") << 4 << QByteArray("CPU 7 does not exist (machine has 4 CPUs)");
    QTest::addRow("single CPU beyond the machine")
        << QByteArray("1,4") << 4 << QByteArray("CPU 4 does not exist (machine has 4 CPUs)");
    QTest::addRow("empty") << QByteArray("") << 4 << QByteArray("empty CPU list");
    QTest::addRow("garbage") << QByteArray("abc") << 4 << garbage + "abc\"";
    QTest::addRow("trailing comma") << QByteArray("0,") << 4 << garbage + "0,\"";
    QTest::addRow("leading comma") << QByteArray(",0") << 4 << garbage + ",0\"";
    QTest::addRow("open range") << QByteArray("0-") << 4 << garbage + "0-\"";
    QTest::addRow("negative") << QByteArray("-1") << 4 << garbage + "-1\"";
    QTest::addRow("double range") << QByteArray("1-2-3") << 4 << garbage + "1-2-3\"";
    QTest::addRow("space") << QByteArray("0, 1") << 4 << garbage + "0, 1\"";
    QTest::addRow("hex") << QByteArray("0x1") << 4 << garbage + "0x1\"";
}

void TestCpuSet::parseErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(int, cpus);
    QFETCH(QByteArray, message);

    std::string error;
    QVERIFY(!CpuSet::parse(text.toStdString(), cpus, &error).has_value());
    QCOMPARE(QByteArray::fromStdString(error), message);
    QVERIFY(!CpuSet::parse(text.toStdString(), cpus).has_value()); // error pointer is optional
}

void TestCpuSet::bitOps_data()
{
    QTest::addColumn<QList<int>>("cpus"); // sorted, unique
    QTest::addColumn<QByteArray>("canonical");

    QTest::addRow("empty") << QList<int>{} << QByteArray("");
    QTest::addRow("cpu 0") << QList<int>{0} << QByteArray("0");
    QTest::addRow("sparse") << QList<int>{1, 3, 5} << QByteArray("1,3,5");
    QTest::addRow("word edges") << QList<int>{0, 63, 64, 127, 128} << QByteArray("0,63-64,127-128");
    QTest::addRow("high only") << QList<int>{200} << QByteArray("200");
    QTest::addRow("dense") << QList<int>{2, 3, 4, 5, 6, 7, 8} << QByteArray("2-8");
    QList<int> wide; // across two word boundaries
    for (int c = 10; c < 140; ++c)
        wide.append(c);
    QTest::addRow("wide") << wide << QByteArray("10-139");
}

void TestCpuSet::bitOps()
{
    QFETCH(QList<int>, cpus);
    QFETCH(QByteArray, canonical);

    CpuSet set;
    // Insert in reverse order: the result must not depend on it.
    for (auto it = cpus.rbegin(); it != cpus.rend(); ++it)
        set.set(*it);
    set.set(cpus.isEmpty() ? 0 : cpus.front()); // setting twice changes nothing
    if (cpus.isEmpty())
        set.clear(0);

    QCOMPARE(set.count(), int(cpus.size()));
    QCOMPARE(set.empty(), cpus.isEmpty());
    QCOMPARE(set.first(), cpus.isEmpty() ? -1 : cpus.front());
    QCOMPARE(set.highest(), cpus.isEmpty() ? -1 : cpus.back());
    QCOMPARE(QByteArray::fromStdString(set.toString()), canonical);

    QList<int> walked;
    for (int c = set.first(); c >= 0; c = set.next(c))
        walked.append(c);
    QCOMPARE(walked, cpus);

    for (int c = -1; c <= 260; ++c)
        QCOMPARE(set.test(c), cpus.contains(c));

    QCOMPARE(set.moreThanOne(), set.count() > 1);
    for (int first = 0; first <= 200; first += 5) {
        for (const int n : {0, 1, 2, 16, 32, 59, 63, 64, 65, 128, 130}) {
            bool all = true;
            for (int c = first; c < first + n; ++c)
                all = all && cpus.contains(c);
            QCOMPARE(set.containsRange(first, n), all);
        }
    }
}

void TestCpuSet::clearAndEquality()
{
    CpuSet a;
    a.set(100);
    a.set(2);
    a.clear(100);
    a.clear(500); // beyond the stored words: no effect
    CpuSet b = CpuSet::single(2);
    QVERIFY(a == b); // equal although a keeps more (zero) words
    QCOMPARE(a.highest(), 2);
    QCOMPARE(a.next(2), -1);
    a.clear(2);
    QVERIFY(a.empty());
    QVERIFY(a == CpuSet());
    QCOMPARE(QByteArray::fromStdString(a.toString()), QByteArray(""));
    QVERIFY(!(b == CpuSet()));
}

void TestCpuSet::factories_data()
{
    QTest::addColumn<bool>("all"); // all(n) or single(n)
    QTest::addColumn<int>("n");
    QTest::addColumn<QByteArray>("canonical");
    QTest::addColumn<int>("count");

    QTest::addRow("all(4)") << true << 4 << QByteArray("0-3") << 4;
    QTest::addRow("all(65) spans two words") << true << 65 << QByteArray("0-64") << 65;
    QTest::addRow("all(64) fills one word") << true << 64 << QByteArray("0-63") << 64;
    QTest::addRow("all(256) fills four words") << true << 256 << QByteArray("0-255") << 256;
    QTest::addRow("all(0) is empty") << true << 0 << QByteArray("") << 0;
    QTest::addRow("single(5)") << false << 5 << QByteArray("5") << 1;
    QTest::addRow("single(64)") << false << 64 << QByteArray("64") << 1;
}

void TestCpuSet::factories()
{
    QFETCH(bool, all);
    QFETCH(int, n);
    QFETCH(QByteArray, canonical);
    QFETCH(int, count);

    const CpuSet set = all ? CpuSet::all(n) : CpuSet::single(n);
    QCOMPARE(QByteArray::fromStdString(set.toString()), canonical);
    QCOMPARE(set.count(), count);
    QCOMPARE(set.empty(), count == 0);
    if (all) { // every CPU below n, none from n on
        QVERIFY(!set.test(n));
        QVERIFY(n == 0 || set.test(n - 1));
        QCOMPARE(set.highest(), n - 1);
    }
}

QTEST_APPLESS_MAIN(TestCpuSet)
#include "tst_cpuset.moc"
