// SPDX-License-Identifier: GPL-2.0-or-later
// BackgroundJob (ui/common/background.h), the one helper for the GUI's background work: the
// newest request wins, a stale job is told to stop, nothing reaches a widget that is gone, and
// start() never waits for the work. Gates, not clocks: every wait is for an event that must come.
#include "ui/common/background.h"

#include <QTest>

#include <atomic>
#include <memory>

using namespace schedlab::ui;

namespace {

constexpr int kUpperBoundMs = 60'000; // QTRY timeouts: reached only when something hangs

} // namespace

class TestBackground : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void resultReachesTheGuiThread();
    void newestRequestWins();
    void staleJobIsToldToStop();
    void nothingReachesAWidgetThatIsGone();
};

void TestBackground::resultReachesTheGuiThread()
{
    QObject owner;
    BackgroundJob job(&owner);
    auto gate = std::make_shared<std::atomic<bool>>(false);
    QThread* workThread = nullptr;
    QThread* doneThread = nullptr;
    int got = 0;
    job.start(
        [gate, &workThread] {
            workThread = QThread::currentThread();
            while (!*gate)
                QThread::yieldCurrentThread();
            return 42;
        },
        [&](int v) {
            got = v;
            doneThread = QThread::currentThread();
        });
    // start() returned while the work is held at its gate: the caller did not wait for it.
    QVERIFY(job.busy());
    QCOMPARE(got, 0);
    *gate = true;
    QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kUpperBoundMs);
    QCOMPARE(got, 42);
    QCOMPARE(doneThread, QThread::currentThread());
    QVERIFY(workThread != QThread::currentThread());
}

void TestBackground::newestRequestWins()
{
    QObject owner;
    BackgroundJob job(&owner);
    auto gate = std::make_shared<std::atomic<bool>>(false);
    QList<int> results;
    job.start(
        [gate] {
            while (!*gate)
                QThread::yieldCurrentThread();
            return 1;
        },
        [&](int v) { results << v; });
    job.start([] { return 2; }, [&](int v) { results << v; });
    *gate = true;
    QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kUpperBoundMs);
    QCOMPARE(results, QList<int>{2}); // the first result came back stale and was dropped

    job.start([] { return 3; }, [&](int v) { results << v; });
    job.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kUpperBoundMs);
    QCOMPARE(results, QList<int>{2}); // cancelled: no result, however far the work got
}

void TestBackground::staleJobIsToldToStop()
{
    QObject owner;
    BackgroundJob job(&owner);
    auto stopped = std::make_shared<std::atomic<bool>>(false);
    auto started = std::make_shared<std::atomic<bool>>(false);
    job.start(
        [stopped, started](const std::atomic<bool>& stop) {
            *started = true;
            while (!stop) // runs until told: the test hangs unless the flag is set
                QThread::yieldCurrentThread();
            *stopped = true;
            return 0;
        },
        [](int) { QFAIL("a stopped job's result was delivered"); });
    QTRY_VERIFY_WITH_TIMEOUT(*started, kUpperBoundMs);
    job.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(*stopped, kUpperBoundMs);
    QTRY_VERIFY_WITH_TIMEOUT(!job.busy(), kUpperBoundMs);
}

void TestBackground::nothingReachesAWidgetThatIsGone()
{
    auto gate = std::make_shared<std::atomic<bool>>(false);
    auto started = std::make_shared<std::atomic<bool>>(false);
    auto finished = std::make_shared<std::atomic<bool>>(false);
    bool delivered = false;
    {
        QObject owner;
        BackgroundJob job(&owner);
        job.start(
            [gate, started, finished] {
                *started = true; // a job still queued when its owner goes is never run
                while (!*gate)
                    QThread::yieldCurrentThread();
                *finished = true;
                return 1;
            },
            [&](int) { delivered = true; });
        QTRY_VERIFY_WITH_TIMEOUT(*started, kUpperBoundMs);
    } // owner and job gone while the work runs
    *gate = true;
    // The result is posted before the pool thread is free: once the pool is idle, whatever was
    // posted is in the queue.
    QVERIFY(backgroundPool()->waitForDone(kUpperBoundMs));
    QVERIFY(*finished);
    QCoreApplication::sendPostedEvents();
    QVERIFY(!delivered);
}

QTEST_GUILESS_MAIN(TestBackground)
#include "tst_background.moc"
