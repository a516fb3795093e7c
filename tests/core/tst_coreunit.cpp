// SPDX-License-Identifier: GPL-2.0-or-later
// Core scheduling (core/coresched/corescheduler.*) on its own, behind fake machine services:
// __task_prio()/prio_less() across classes, the core-wide pick with forced idle and the sibling's
// pending core_pick, sched_core_update_cookie() of a running task, task_tick_core() and the
// sibling invariant (kernel-model.md §11). Expected values are worked out in the comments.
#include <QObject>

#ifndef Q_MOC_RUN
#include "core/coresched/corescheduler.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"
#include "support/fakemachine.h"
#endif

#include <QTest>

#include <memory>
#include <vector>

using namespace schedlab;

class TestCoreUnit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void taskPrioAcrossClasses();
    void corePickForcesIdleSibling();
    void untaggedPickWithoutCoreCookie();
    void cookieChangeReschedulesRunningTask();
    void tickUsesHalfSliceInForcedIdle();
    void invariantCatchesMixedCookies();
};

namespace {

constexpr uint64_t kCookieA = 1;
constexpr uint64_t kCookieB = 2;

/// One SMT core of two CPUs on the FakeMachine; pickTask() returns what the test puts in
/// `picks`.
class CoreMachine final : public test::FakeMachine
{
public:
    CoreMachine()
        : test::FakeMachine(2)
    {
        picks = {nullptr, nullptr};
    }
    Task& addTask(int cpu, uint64_t cookie, int rtPriority = 0)
    {
        Task& t =
            test::FakeMachine::addTask(cpu, rtPriority ? Policy::Fifo : Policy::Normal, rtPriority);
        t.cookie = cookie;
        t.state = TaskRunState::Runnable;
        return t;
    }
    /// The CPUs whose sched_core_balance() callback was queued (timers at the current time).
    std::vector<int> balanced() const
    {
        std::vector<int> cpus;
        for (const Timer& t : timers)
            cpus.push_back(t.cpu);
        return cpus;
    }
};

} // namespace

void TestCoreUnit::taskPrioAcrossClasses()
{
    // __task_prio(): RT 99 - rt_priority, fair MAX_RT_PRIO + MAX_NICE = 119. prio_less(a, b) is
    // "a below b": idle (null) below everything, a fair task below any RT task, a lower RT
    // priority below a higher one, two RT tasks of one priority unordered.
    CoreMachine m;
    CoreScheduler core(m, CpuTopology{2, 2, 1, {}, {}});
    Task& rt50 = m.addTask(0, 0, 50);
    Task& rt10 = m.addTask(0, 0, 10);
    Task& rt50b = m.addTask(1, 0, 50);
    Task& fair = m.addTask(0, 0);
    QCOMPARE(core.corePrio(rt50.se), 49);
    QCOMPARE(core.corePrio(rt10.se), 89);
    QCOMPARE(core.corePrio(fair.se), 119);
    QVERIFY(core.corePrioLess(nullptr, &fair.se, false));
    QVERIFY(!core.corePrioLess(&fair.se, nullptr, false));
    QVERIFY(core.corePrioLess(&fair.se, &rt10.se, false));
    QVERIFY(!core.corePrioLess(&rt10.se, &fair.se, false));
    QVERIFY(core.corePrioLess(&rt10.se, &rt50.se, false));
    QVERIFY(!core.corePrioLess(&rt50.se, &rt50b.se, false));
    QVERIFY(!core.corePrioLess(&rt50b.se, &rt50.se, false));
}

void TestCoreUnit::corePickForcesIdleSibling()
{
    // CPU 0's class pick is a fair task with cookie A, CPU 1's an RT task with cookie B. The RT
    // task wins the core (prio_less), so the core cookie is B; CPU 0 has no task with cookie B
    // in its core_tree but one runnable task: it is forced idle (and queues a core balance),
    // while CPU 1 gets the RT task as its pending core_pick and an IPI (resched).
    CoreMachine m;
    CoreScheduler core(m, CpuTopology{2, 2, 1, {}, {}});
    core.enable();
    QVERIFY(core.active());
    Task& fairA = m.addTask(0, kCookieA);
    Task& rtB = m.addTask(1, kCookieB, 40);
    core.fairTaskQueued(m.rq(0), fairA.se, true, 0);
    core.rtTaskQueued(rtB, true);
    m.rq(0).nrRunning = 1;
    ++m.rq(1).rt.nrQueued; // rtB queued (the core scheduler reads only the count)
    m.picks = {&fairA.se, &rtB.se};
    m.now = 5000;
    bool forcedIdle = false;
    QCOMPARE(core.pickNextTask(0, forcedIdle), nullptr);
    QVERIFY(forcedIdle);
    QCOMPARE(core.core(0).cookie, kCookieB);
    QCOMPARE(core.core(0).forceIdleCount, 1);
    QCOMPARE(core.core(0).forceIdleOccupation, 1); // one busy sibling
    QCOMPARE(m.balanced(), std::vector<int>{0});
    QCOMPARE(m.reschedCpus, std::vector<int>{1});
    QVERIFY(m.rq(1).core.pickValid);
    QCOMPARE(m.rq(1).core.pick, &rtB.se);
    QCOMPARE(rtB.coreOccupation, 1);
    QCOMPARE(m.rq(0).core.idleOccupation, 1);
    QCOMPARE(m.rq(0).core.forcedIdleSince, int64_t{5000});
    // CPU 1 schedules: nothing changed since, so it takes the pending pick (step 1).
    m.picks = {nullptr, nullptr}; // a fresh selection would give something else
    forcedIdle = true;
    QCOMPARE(core.pickNextTask(1, forcedIdle), &rtB.se);
    QVERIFY(!forcedIdle);
    QVERIFY(!m.rq(1).core.pickValid);
}

void TestCoreUnit::untaggedPickWithoutCoreCookie()
{
    // No core cookie and no forced idle: an untagged per-CPU pick is taken as it is (step 2),
    // and no sibling is disturbed. (The caller clears forcedIdle before each pick.)
    CoreMachine m;
    CoreScheduler core(m, CpuTopology{2, 2, 1, {}, {}});
    core.enable();
    Task& plain = m.addTask(0, 0, 20);
    m.picks = {&plain.se, nullptr};
    bool forcedIdle = false;
    QCOMPARE(core.pickNextTask(0, forcedIdle), &plain.se);
    QVERIFY(!forcedIdle);
    QVERIFY(m.reschedCpus.empty());
    QCOMPARE(core.core(0).cookie, uint64_t{0});
}

void TestCoreUnit::cookieChangeReschedulesRunningTask()
{
    // sched_core_update_cookie(): a queued task leaves the core_tree and re-enters with its new
    // cookie (core_task_seq bumped twice); if it is running, its CPU reschedules. The first
    // cookie enables core scheduling.
    CoreMachine m;
    CoreScheduler core(m, CpuTopology{2, 2, 1, {}, {}});
    Task& t = m.addTask(1, 0);
    t.se.onRq = true;
    m.rq(1).curr = &t.se;
    QVERIFY(!core.enabled());
    core.setCookie(t, kCookieA);
    QVERIFY(core.enabled());
    QCOMPARE(t.cookie, kCookieA);
    QCOMPARE(core.core(0).taskSeq, uint64_t{2});
    QCOMPARE(m.rq(1).core.tree, std::vector<SchedEntity*>{&t.se});
    QCOMPARE(m.reschedCpus, std::vector<int>{1});
    core.setCookie(t, 0); // untagged: out of the tree
    QVERIFY(m.rq(1).core.tree.empty());
}

void TestCoreUnit::tickUsesHalfSliceInForcedIdle()
{
    // task_tick_core(): one fair task on a CPU whose sibling is forced idle uses its slice up at
    // half of it (MIN_NR_TASKS_DURING_FORCEIDLE = 2): with a 3 ms slice, 1.5 ms is not yet more
    // than half, 1.5 ms + 1 ns is.
    CoreMachine m;
    CoreScheduler core(m, CpuTopology{2, 2, 1, {}, {}});
    core.enable();
    Task& fairA = m.addTask(0, kCookieA);
    Task& rtB = m.addTask(1, kCookieB, 40);
    core.fairTaskQueued(m.rq(0), fairA.se, true, 0);
    m.rq(0).nrRunning = 1;
    m.rq(1).nrRunning = 1; // CPU 1 has fair work that cookie A keeps off the core
    m.picks = {&fairA.se, &rtB.se};
    bool forcedIdle = false;
    ++m.rq(1).rt.nrQueued;            // rtB queued (the core scheduler reads only the count)
    core.pickNextTask(0, forcedIdle); // RT cookie B wins; CPU 0 forced idle
    QCOMPARE(core.core(0).forceIdleCount, 1);
    Rq& rq = m.rq(1);
    Task& f = m.addTask(1, kCookieB);
    rq.curr = &f.se;
    rq.cfs->nrQueued = 1;
    f.se.slice = 3'000'000;
    f.se.prevSumExecRuntime = 0;
    f.se.sumExecRuntime = 1'500'000;
    m.reschedCpus.clear();
    core.taskTick(1);
    QVERIFY(m.reschedCpus.empty());
    f.se.sumExecRuntime = 1'500'001;
    core.taskTick(1);
    QCOMPARE(m.reschedCpus, std::vector<int>{1});
}

void TestCoreUnit::invariantCatchesMixedCookies()
{
    CoreMachine m;
    CoreScheduler core(m, CpuTopology{2, 2, 1, {}, {}});
    core.enable();
    Task& a = m.addTask(0, kCookieA);
    Task& b = m.addTask(1, kCookieB);
    Task& a2 = m.addTask(1, kCookieA);
    m.rq(0).curr = &a.se;
    m.rq(1).curr = &a2.se;
    QCOMPARE(core.checkInvariants(), std::string());
    m.rq(1).curr = &b.se;
    QCOMPARE(core.checkInvariants(), std::string("core 0: siblings run cookies 1 and 2"));
}

QTEST_GUILESS_MAIN(TestCoreUnit)
#include "tst_coreunit.moc"
