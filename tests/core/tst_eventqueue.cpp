// SPDX-License-Identifier: GPL-2.0-or-later
// core/sim/eventqueue.h: (time, insertion sequence) order, lazy cancellation, runUntil bounds.

#include <QTest>

// moc 6.4 runs with C++17 predefines and cannot parse <concepts> (via <compare>): hide the core
// headers from it; the test class itself needs none of their declarations.
#ifndef Q_MOC_RUN
#include "core/base/prng.h"
#include "core/sim/eventqueue.h"
#endif

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace schedlab;

class TestEventQueue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void order_data();
    void order();
    void cancel_data();
    void cancel();
    void runUntil_data();
    void runUntil();
    void scheduleFromHandler();
    void scheduleInThePast_data();
    void scheduleInThePast();
    void nextTimeSkipsCancelled();
    void stepOnEmpty();
    void priorityBreaksTimeTies();
    void rearmedEventsStayBounded();
    void laneAndHeapKeepOneOrder_data();
    void laneAndHeapKeepOneOrder();
    void taggedEventsShareTheOrder();
};

void TestEventQueue::order_data()
{
    QTest::addColumn<QList<qint64>>("times"); // scheduling order
    QTest::addColumn<QList<int>>("expected"); // indices in execution order

    QTest::addRow("by time") << QList<qint64>{30, 10, 20} << QList<int>{1, 2, 0};
    QTest::addRow("ties in insertion order") << QList<qint64>{5, 5, 5} << QList<int>{0, 1, 2};
    QTest::addRow("mixed ties") << QList<qint64>{10, 5, 10, 5, 0} << QList<int>{4, 1, 3, 0, 2};
    QTest::addRow("all at time zero") << QList<qint64>{0, 0} << QList<int>{0, 1};
    QTest::addRow("descending") << QList<qint64>{4, 3, 2, 1} << QList<int>{3, 2, 1, 0};
}

void TestEventQueue::order()
{
    QFETCH(QList<qint64>, times);
    QFETCH(QList<int>, expected);

    EventQueue q;
    QList<int> ran;
    QList<qint64> clock;
    for (int i = 0; i < times.size(); ++i)
        q.schedule(Nanoseconds(times[i]), [&, i] {
            ran.append(i);
            clock.append(q.now().count());
        });
    QCOMPARE(q.pending(), size_t(times.size()));
    while (q.step()) { }
    QCOMPARE(ran, expected);
    for (int k = 0; k < ran.size(); ++k)
        QCOMPARE(clock[k], times[ran[k]]); // now() is the event's time inside its handler
    QVERIFY(q.empty());
    QCOMPARE(q.executed(), quint64(times.size()));
}

void TestEventQueue::cancel_data()
{
    QTest::addColumn<QString>("scenario");

    QTest::addRow("pending event") << "pending";
    QTest::addRow("event that already ran") << "ran";
    QTest::addRow("cancelled twice") << "twice";
    QTest::addRow("default id") << "none";
}

void TestEventQueue::cancel()
{
    QFETCH(QString, scenario);

    EventQueue q;
    int runs = 0;
    const EventId a = q.schedule(Nanoseconds(10), [&] { ++runs; });
    const EventId b = q.schedule(Nanoseconds(20), [&] { runs += 100; });
    QVERIFY(a.valid() && b.valid() && !(a == b));
    QVERIFY(q.isPending(a));

    if (scenario == QLatin1String("pending")) {
        QVERIFY(q.cancel(a));
        QVERIFY(!q.isPending(a));
        QCOMPARE(q.pending(), size_t(1));
        q.runUntil(Nanoseconds(100));
        QCOMPARE(runs, 100);
    } else if (scenario == QLatin1String("ran")) {
        q.runUntil(Nanoseconds(10));
        QCOMPARE(runs, 1);
        QVERIFY(!q.isPending(a));
        QVERIFY(!q.cancel(a));
        QCOMPARE(q.pending(), size_t(1));
        QVERIFY(q.isPending(b));
    } else if (scenario == QLatin1String("twice")) {
        QVERIFY(q.cancel(b));
        QVERIFY(!q.cancel(b));
        QCOMPARE(q.pending(), size_t(1));
        q.runUntil(Nanoseconds(100));
        QCOMPARE(runs, 1);
    } else {
        QVERIFY(!EventId{}.valid());
        QVERIFY(!q.isPending(EventId{}));
        QVERIFY(!q.cancel(EventId{}));
        QVERIFY(!q.cancel(EventId{12345})); // never issued
        QCOMPARE(q.pending(), size_t(2));
    }
    QVERIFY(q.empty() == (q.pending() == 0));
}

void TestEventQueue::runUntil_data()
{
    QTest::addColumn<QList<qint64>>("times");
    QTest::addColumn<qint64>("until");
    QTest::addColumn<int>("executed");

    const QList<qint64> times{10, 20, 20, 30};
    QTest::addRow("before everything") << times << qint64(5) << 0;
    QTest::addRow("exactly at the first event") << times << qint64(10) << 1;
    QTest::addRow("between events") << times << qint64(15) << 1;
    QTest::addRow("exactly at a tie runs both") << times << qint64(20) << 3;
    QTest::addRow("one ns before the last") << times << qint64(29) << 3;
    QTest::addRow("past the end") << times << qint64(1000) << 4;
    QTest::addRow("empty queue") << QList<qint64>{} << qint64(50) << 0;
    QTest::addRow("event at 0, until 0") << QList<qint64>{0} << qint64(0) << 1;
}

void TestEventQueue::runUntil()
{
    QFETCH(QList<qint64>, times);
    QFETCH(qint64, until);
    QFETCH(int, executed);

    EventQueue q;
    int ran = 0;
    for (qint64 t : times)
        q.schedule(Nanoseconds(t), [&] { ++ran; });
    q.runUntil(Nanoseconds(until));
    QCOMPARE(ran, executed);
    QCOMPARE(qint64(q.now().count()), until);
    QCOMPARE(q.pending(), size_t(times.size() - executed));
    // runUntil to an earlier time never moves the clock back.
    q.runUntil(Nanoseconds(until - 1));
    QCOMPARE(qint64(q.now().count()), until);
    QCOMPARE(ran, executed);
}

void TestEventQueue::scheduleFromHandler()
{
    EventQueue q;
    QList<QByteArray> log;
    q.schedule(Nanoseconds(10), [&] {
        log.append("a@10");
        // Same time: runs after everything already queued for t=10 (higher sequence number).
        q.schedule(q.now(), [&] { log.append("c@10"); });
        q.schedule(Nanoseconds(15), [&] { log.append("d@15"); });
        q.schedule(Nanoseconds(25), [&] { log.append("e@25"); });
    });
    q.schedule(Nanoseconds(10), [&] { log.append("b@10"); });
    q.runUntil(Nanoseconds(20));
    QCOMPARE(log, (QList<QByteArray>{"a@10", "b@10", "c@10", "d@15"}));
    QCOMPARE(qint64(q.now().count()), qint64(20));
    QCOMPARE(q.pending(), size_t(1));
    QCOMPARE(qint64(q.nextTime().count()), qint64(25));

    // A handler may not schedule before its own time.
    bool threw = false;
    q.schedule(Nanoseconds(30), [&] {
        try {
            q.schedule(Nanoseconds(29), [] {});
        } catch (const std::logic_error&) {
            threw = true;
        }
    });
    q.runUntil(Nanoseconds(30));
    QVERIFY(threw);
    QVERIFY(q.empty());
}

void TestEventQueue::scheduleInThePast_data()
{
    QTest::addColumn<qint64>("at");
    QTest::addColumn<bool>("throws");

    QTest::addRow("1ns in the past") << qint64(99) << true;
    QTest::addRow("far in the past") << qint64(0) << true;
    QTest::addRow("now is allowed") << qint64(100) << false;
    QTest::addRow("future") << qint64(101) << false;
}

void TestEventQueue::scheduleInThePast()
{
    QFETCH(qint64, at);
    QFETCH(bool, throws);

    EventQueue q;
    q.runUntil(Nanoseconds(100));
    bool threw = false;
    try {
        q.schedule(Nanoseconds(at), [] {});
    } catch (const std::logic_error&) {
        threw = true;
    }
    QCOMPARE(threw, throws);
    QCOMPARE(q.pending(), size_t(throws ? 0 : 1));
}

void TestEventQueue::nextTimeSkipsCancelled()
{
    EventQueue q;
    const EventId a = q.schedule(Nanoseconds(10), [] {});
    const EventId b = q.schedule(Nanoseconds(20), [] {});
    const EventId c = q.schedule(Nanoseconds(30), [] {});
    QCOMPARE(qint64(q.nextTime().count()), qint64(10));
    QVERIFY(q.cancel(a));
    QCOMPARE(qint64(q.nextTime().count()), qint64(20));
    QVERIFY(q.cancel(c)); // a cancelled event below the head changes nothing
    QCOMPARE(qint64(q.nextTime().count()), qint64(20));
    QVERIFY(q.cancel(b));
    QVERIFY(q.empty());
    QCOMPARE(q.nextTime(), Nanoseconds::max());
    QVERIFY(!q.step());
    QCOMPARE(q.executed(), quint64(0));
    QCOMPARE(qint64(q.now().count()), qint64(0)); // cancelled events do not move the clock
}

void TestEventQueue::stepOnEmpty()
{
    EventQueue q;
    QVERIFY(q.empty());
    QVERIFY(!q.step());
    QCOMPARE(q.nextTime(), Nanoseconds::max());
    q.schedule(Nanoseconds(7), [] {});
    QVERIFY(q.step());
    QCOMPARE(qint64(q.now().count()), qint64(7));
    QVERIFY(!q.step());
    QCOMPARE(qint64(q.now().count()), qint64(7));
}

void TestEventQueue::priorityBreaksTimeTies()
{
    // At one instant a lower priority runs first whatever the insertion order; equal priorities
    // keep insertion order; an earlier time always wins over a lower priority.
    schedlab::EventQueue q;
    std::string trace;
    q.schedule(
        schedlab::Nanoseconds(10), [&] { trace += "tick "; }, 1);
    q.schedule(schedlab::Nanoseconds(10), [&] { trace += "work "; });
    q.schedule(schedlab::Nanoseconds(10), [&] { trace += "wake "; });
    q.schedule(
        schedlab::Nanoseconds(5), [&] { trace += "early "; }, 1);
    while (q.step()) { }
    QCOMPARE(trace, std::string("early work wake tick "));
}

// A task preempted again and again re-arms its completion event far in the future: every
// cancelled entry would stay in the heap until its time, which never comes in a short run. The
// queue drops them once they outnumber the live ones (at most 2 × live + 4096 entries), and the
// order of what runs is unchanged: the survivors run at their times, in insertion order.
void TestEventQueue::rearmedEventsStayBounded()
{
    EventQueue q;
    std::vector<int> ran;
    EventId far;
    size_t maxStored = 0;
    for (int i = 0; i < 200000; ++i) {
        q.cancel(far);
        far = q.schedule(Nanoseconds(1'000'000'000), [&ran] { ran.push_back(-1); });
        q.schedule(Nanoseconds(i), [&ran, i] { ran.push_back(i); });
        q.step(); // runs event i (time i), the far one stays pending
        maxStored = std::max(maxStored, q.stored());
        QCOMPARE(q.pending(), size_t(1));
    }
    QVERIFY2(maxStored <= 2 * 1 + 4096 + 1, qPrintable(QString::number(maxStored)));
    QVERIFY(q.isPending(far));
    QVERIFY(q.step());
    QVERIFY(!q.step());
    QCOMPARE(ran.size(), size_t(200001));
    for (int i = 0; i < 200000; ++i)
        QCOMPARE(ran[static_cast<size_t>(i)], i);
    QCOMPARE(ran.back(), -1);
    QCOMPARE(q.now(), Nanoseconds(1'000'000'000));
}

void TestEventQueue::laneAndHeapKeepOneOrder_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<int>("spread"); // times land within now + [0, spread)
    // Of 10 operations 5 schedule, this many cancel and the rest step.
    QTest::addColumn<int>("cancels");
    QTest::addRow("ticks on a grid, short spread") << quint64(1) << 4 << 2;
    QTest::addRow("wide spread") << quint64(2) << 1000 << 2;
    QTest::addRow("cancels enough to compact") << quint64(3) << 100000 << 4;
}

// Ticks (nonzero priority, usually scheduled in key order) go to the FIFO lane, everything else
// to the heap. Whatever the mix (ticks out of order, cancels of either, events scheduled from
// handlers, compactions), what runs must be the least (time, priority, sequence) of the pending
// events, as a map ordered by that key says.
void TestEventQueue::laneAndHeapKeepOneOrder()
{
    QFETCH(quint64, seed);
    QFETCH(int, spread);
    QFETCH(int, cancels);
    using Key = std::tuple<int64_t, int, uint64_t>; // time, priority, schedule order
    EventQueue q;
    schedlab::Prng prng(seed);
    std::map<Key, int> reference;               // pending events in the order they must run
    std::map<int, std::pair<EventId, Key>> ids; // live event -> its id and key
    std::vector<int> ran;
    uint64_t order = 0;
    int nextName = 0;
    int64_t lastTick = 0;
    std::function<void()> scheduleOne;
    scheduleOne = [&] {
        const int name = nextName++;
        const bool tick = prng.below(3) == 0;
        int64_t at = q.now().count() + static_cast<int64_t>(prng.below(uint64_t(spread)));
        if (tick && prng.below(4) != 0)
            at = lastTick = std::max(lastTick, q.now().count()) + 1; // the usual in-order tick
        const int priority = tick ? 1 + static_cast<int>(prng.below(2)) : 0;
        const Key key{at, priority, order++};
        const EventId id = q.schedule(
            Nanoseconds(at),
            [&, name] {
                ran.push_back(name);
                ids.erase(name);
                if (prng.below(4) == 0)
                    scheduleOne(); // from a handler
            },
            priority);
        reference.emplace(key, name);
        ids.emplace(name, std::make_pair(id, key));
    };
    std::vector<int> expected;
    for (int step = 0; step < 20000; ++step) {
        const uint64_t op = prng.below(10);
        if (op < 5) {
            scheduleOne();
        } else if (op < 5 + uint64_t(cancels) && !ids.empty()) {
            auto it = ids.begin();
            std::advance(it, static_cast<long>(prng.below(ids.size())));
            QVERIFY(q.cancel(it->second.first));
            reference.erase(it->second.second);
            ids.erase(it);
        } else if (!reference.empty()) {
            const int want = reference.begin()->second;
            const int64_t wantTime = std::get<0>(reference.begin()->first);
            reference.erase(reference.begin());
            QCOMPARE(q.nextTime(), Nanoseconds(wantTime));
            expected.push_back(want);
            QVERIFY(q.step());
            QCOMPARE(ran.back(), want);
        }
        QCOMPARE(q.pending(), reference.size());
    }
    while (!reference.empty()) {
        expected.push_back(reference.begin()->second);
        reference.erase(reference.begin());
        QVERIFY(q.step()); // a handler that schedules more adds it to the reference too
    }
    QVERIFY(!q.step());
    QCOMPARE(ran, expected);
}

void TestEventQueue::taggedEventsShareTheOrder()
{
    // post() and schedule() take their keys from one sequence: at equal time and priority the
    // insertion order decides, whichever way an event was queued; a cancelled tagged event never
    // reaches the dispatcher. Expected order by hand: t=5 (a, c, d in insertion order), then t=7
    // (priority 1 after the priority-0 b), b cancelled.
    EventQueue q;
    struct Log
    {
        QStringList ran;
    } log;
    q.setDispatcher(&log, [](void* owner, const Event& e) {
        static_cast<Log*>(owner)->ran.append(
            QStringLiteral("k%1:%2:%3").arg(e.kind).arg(e.a).arg(e.b));
    });
    q.post(Nanoseconds(5), Event{1, 10, -1});                                   // a
    const EventId b = q.post(Nanoseconds(7), Event{2, 20, 200});                // b
    q.schedule(Nanoseconds(5), [&] { log.ran.append(QStringLiteral("fn")); });  // c
    q.post(Nanoseconds(5), Event{3, 30, 300});                                  // d
    q.post(Nanoseconds(7), Event{4, 40, 400}, 1);                               // e
    q.schedule(Nanoseconds(7), [&] { log.ran.append(QStringLiteral("fn7")); }); // f
    QVERIFY(q.isPending(b));
    QVERIFY(q.cancel(b));
    QVERIFY(!q.isPending(b));
    while (q.step()) { }
    QCOMPARE(log.ran,
        QStringList({QStringLiteral("k1:10:-1"), QStringLiteral("fn"), QStringLiteral("k3:30:300"),
            QStringLiteral("fn7"), QStringLiteral("k4:40:400")}));
    QCOMPARE(q.executed(), quint64(5));
    // Kind 0 is the queue's own (std::function events): refused for post().
    QVERIFY_THROWS_EXCEPTION(std::logic_error, q.post(Nanoseconds(9), Event{0, 0, 0}));
}

QTEST_APPLESS_MAIN(TestEventQueue)
#include "tst_eventqueue.moc"
