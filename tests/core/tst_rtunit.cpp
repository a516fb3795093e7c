// SPDX-License-Identifier: GPL-2.0-or-later
// The RT class (core/rt/rtclass.*) and the fair deadline server (core/rt/dlserver.*) on their
// own, on the tests' FakeMachine (tests/support/fakemachine.h): queue order, pick, RT bandwidth
// throttling and refill, SCHED_RR slices, wakeup preemption, CPU selection and push/pull, the RT
// class's cgroup files (SchedGroupOps; kernel-model.md §10). Every expected value is worked out
// by hand in the comments.
#include <QObject>

#ifndef Q_MOC_RUN
#include "core/kernel/cgroupfiles.h"
#include "core/rt/dlserver.h"
#include "core/rt/rtclass.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"
#include "support/fakemachine.h"
#endif

#include <QTest>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

using namespace schedlab;

class TestRtUnit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void queueOrder();
    void pickSkipsThrottledAndYieldsToServer();
    void bandwidthThrottlesAndRefills();
    void roundRobinSlice();
    void wakeupPreempt();
    void selectLowestCpu();
    void pushToIdleCpu();
    void fairServerDefersThenBoosts();
    void admissionControl_data();
    void admissionControl();
    void groupFiles();
};

namespace {

using test::FakeMachine;

/// An RT task of priority @p rtPriority on @p cpu.
Task& rtTask(FakeMachine& m, int rtPriority, int cpu, Policy policy = Policy::Fifo, int group = 0)
{
    return m.addTask(cpu, policy, rtPriority, group);
}

/// The migrations asked for: (task, destination CPU).
std::vector<std::pair<int, int>> movesOf(const FakeMachine& m)
{
    std::vector<std::pair<int, int>> moves;
    for (const FakeMachine::Move& mv : m.moves)
        moves.emplace_back(mv.task, mv.cpu);
    return moves;
}

/// The timers armed: (CPU, expiry).
std::vector<std::pair<int, int64_t>> timersOf(const FakeMachine& m)
{
    std::vector<std::pair<int, int64_t>> timers;
    for (const FakeMachine::Timer& t : m.timers)
        timers.emplace_back(t.cpu, t.at);
    return timers;
}

std::vector<int> queueOf(RtClass& rt, const Rq& rq)
{
    return rt.queuedTasks(rq);
}

} // namespace

void TestRtUnit::queueOrder()
{
    FakeMachine m(1);
    RtClass rt(m, 1000, false);
    m.sched = &rt;
    Rq& rq = m.rq(0);
    Task& a = rtTask(m, 10, 0);
    Task& b = rtTask(m, 50, 0);
    Task& c = rtTask(m, 10, 0);
    Task& d = rtTask(m, 10, 0);
    rt.enqueueTask(rq, a, 0);
    rt.enqueueTask(rq, b, 0);
    rt.enqueueTask(rq, c, 0);             // behind its equal a
    rt.enqueueTask(rq, d, RtEnqueueHead); // ENQUEUE_HEAD: before its equals a and c
    QCOMPARE(queueOf(rt, rq), (std::vector<int>{b.index, d.index, a.index, c.index}));
    QCOMPARE(rt.queued(), 4);
    QVERIFY(a.rtQueued);
    rt.dequeueTask(rq, d, 0);
    rt.dequeueTask(rq, d, 0); // a second dequeue is a no-op
    QCOMPARE(queueOf(rt, rq), (std::vector<int>{b.index, a.index, c.index}));
    QCOMPARE(rt.queued(), 3);
    QVERIFY(!d.rtQueued);
}

void TestRtUnit::pickSkipsThrottledAndYieldsToServer()
{
    FakeMachine m(1);
    m.addGroup("/g1"); // group 1 under the root
    RtClass rt(m, 1000, true);
    m.sched = &rt;
    rt.groups().emplace_back();
    Rq& rq = m.rq(0);
    QCOMPARE(rt.pickTask(rq), nullptr); // nothing queued
    Task& high = rtTask(m, 80, 0, Policy::Fifo, 1);
    Task& low = rtTask(m, 20, 0);
    rt.enqueueTask(rq, high, 0);
    rt.enqueueTask(rq, low, 0);
    QCOMPARE(rt.pickTask(rq), &high.se);
    // Group 1's rt_rq throttled on CPU 0: its task is skipped, the root's task is picked.
    rt.group(1).cpu.resize(1);
    rt.group(1).cpu[0].throttled = true;
    QVERIFY(rt.throttled(high));
    QVERIFY(!rt.throttled(low));
    QCOMPARE(rt.pickTask(rq), &low.se);
    // While the fair server boosts, the RT class declines.
    rq.fairServer.running = true;
    QCOMPARE(rt.pickTask(rq), nullptr);
    QCOMPARE(rt.pickFirst(0), &low);
}

void TestRtUnit::bandwidthThrottlesAndRefills()
{
    // Group 1: cpu.rt_runtime_us 10 ms per 100 ms. The task runs 11 ms: rt_time 11 ms > 10 ms
    // throttles the rt_rq and reschedules CPU 0. The period timer subtracts min(rt_time,
    // runtime) = 10 ms: rt_time 1 ms < 10 ms unthrottles (resched again); 1 ms left keeps the
    // timer armed; the next refill empties it and the timer stops.
    FakeMachine m(1);
    m.addGroup("/g1");
    RtClass rt(m, 1000, true); // 6.12+: the root rt_rq is not limited
    m.sched = &rt;
    rt.groups().emplace_back();
    rt.group(1).runtimeNs = 10'000'000;
    rt.group(1).periodNs = 100'000'000;
    QVERIFY(rt.applies(1));
    QVERIFY(!rt.applies(0));
    Rq& rq = m.rq(0);
    Task& t = rtTask(m, 50, 0, Policy::Fifo, 1);
    rt.enqueueTask(rq, t, 0);
    // start_rt_bandwidth() at enqueue: group 1's period timer, one period (100 ms) from now.
    QCOMPARE(m.pendingTimers(), std::vector<int64_t>{100'000'000});
    m.run(t);
    rt.setNextTask(rq, t, true);
    m.now = 11'000'000;
    rt.updateCurr(rq);
    QCOMPARE(m.executed, int64_t{11'000'000});
    QCOMPARE(t.se.sumExecRuntime, int64_t{11'000'000});
    QCOMPARE(rt.group(1).cpu[0].rtTime, int64_t{11'000'000});
    QVERIFY(rt.throttled(t));
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    // The period timer fires with the task still current (no time passed since the update).
    m.reschedCpus.clear();
    QVERIFY(m.fire(0));
    QCOMPARE(rt.group(1).cpu[0].rtTime, int64_t{1'000'000});
    QVERIFY(!rt.throttled(t));
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    // 1 ms left: re-armed, one period after the clock (11 ms + 100 ms).
    QCOMPARE(m.pendingTimers(), std::vector<int64_t>{111'000'000});
    m.run(t);
    rq.curr = nullptr; // the task stopped running
    QVERIFY(m.fire(1));
    QCOMPARE(rt.group(1).cpu[0].rtTime, int64_t{0});
    QVERIFY(m.pendingTimers().empty()); // nothing left: the timer stops
}

void TestRtUnit::roundRobinSlice()
{
    // HZ = 250: RR_TIMESLICE = 100 ms = 25 ticks. With a peer of equal priority the 25th tick
    // requeues the task behind it and reschedules; alone, it keeps running with a new slice.
    FakeMachine m(1);
    RtClass rt(m, 250, false);
    m.sched = &rt;
    QCOMPARE(rt.rrTicks(), 25);
    Rq& rq = m.rq(0);
    Task& a = rtTask(m, 30, 0, Policy::RoundRobin);
    rt.enqueueTask(rq, a, 0);
    QCOMPARE(a.rtTicksLeft, 25);
    m.run(a);
    for (int i = 0; i < 25; ++i)
        rt.taskTick(rq, a);
    QVERIFY(m.reschedCpus.empty()); // alone: no requeue
    QCOMPARE(a.rtTicksLeft, 25);
    Task& b = rtTask(m, 30, 0, Policy::RoundRobin);
    rt.enqueueTask(rq, b, 0);
    for (int i = 0; i < 24; ++i)
        rt.taskTick(rq, a);
    QVERIFY(m.reschedCpus.empty());
    QCOMPARE(queueOf(rt, rq), (std::vector<int>{a.index, b.index}));
    rt.taskTick(rq, a);
    QCOMPARE(queueOf(rt, rq), (std::vector<int>{b.index, a.index}));
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
}

void TestRtUnit::wakeupPreempt()
{
    FakeMachine m(1);
    RtClass rt(m, 1000, true);
    m.sched = &rt;
    Rq& rq = m.rq(0);
    Task& mid = rtTask(m, 50, 0);
    Task& low = rtTask(m, 10, 0);
    Task& high = rtTask(m, 90, 0);
    Task& fair = rtTask(m, 0, 0, Policy::Normal);
    rt.wakeupPreempt(rq, mid, 0); // idle CPU
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    m.reschedCpus.clear();
    m.run(mid);
    rt.wakeupPreempt(rq, low, 0); // lower priority: no preemption
    rt.wakeupPreempt(rq, mid, 0); // the running task itself
    QVERIFY(m.reschedCpus.empty());
    rt.wakeupPreempt(rq, high, 0);
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    m.reschedCpus.clear();
    m.run(fair); // a fair task runs: any RT wakeup preempts it…
    rt.wakeupPreempt(rq, low, 0);
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    m.reschedCpus.clear();
    rq.fairServer.running = true; // …unless the fair server boosts it above RT
    rt.wakeupPreempt(rq, high, 0);
    QVERIFY(m.reschedCpus.empty());
}

void TestRtUnit::selectLowestCpu()
{
    // CPU 0 (prev) runs prio 60, CPU 1 prio 20, CPU 2 a fair task (cpupri 0), CPU 3 is idle (-1).
    FakeMachine m(4);
    RtClass rt(m, 1000, false);
    m.sched = &rt;
    Task& on0 = rtTask(m, 60, 0);
    Task& on1 = rtTask(m, 20, 1);
    Task& on2 = rtTask(m, 0, 2, Policy::Normal);
    m.run(on0);
    m.run(on1);
    m.run(on2);
    QCOMPARE(rt.cpuPrio(0), 60);
    QCOMPARE(rt.cpuPrio(1), 20);
    QCOMPARE(rt.cpuPrio(2), 0);
    QCOMPARE(rt.cpuPrio(3), -1);
    Task& w = rtTask(m, 40, 0);
    QCOMPARE(rt.selectTaskRq(w, false), 3); // the lowest: idle CPU 3
    w.cpus = CpuSet::single(0);
    w.cpus.set(1);
    QCOMPARE(rt.selectTaskRq(w, false), 1); // allowed 0,1: CPU 1 runs 20 < 40
    Task& v = rtTask(m, 70, 0);
    QCOMPARE(rt.selectTaskRq(v, false), 0); // prev runs 60 < 70: stays
    Task& u = rtTask(m, 10, 0);
    u.cpus = CpuSet::single(0);
    u.cpus.set(1);
    QCOMPARE(rt.selectTaskRq(u, false), 0); // nothing lower than 10 allowed: prev
}

void TestRtUnit::pushToIdleCpu()
{
    // CPU 0 runs prio 50 with prio 40 queued behind it; CPU 1 is idle. push_rt_task() moves the
    // waiting task to CPU 1 and preempts CPU 1's idle; then CPU 1 has nothing to pull.
    FakeMachine m(2);
    RtClass rt(m, 1000, false);
    m.sched = &rt;
    Rq& rq0 = m.rq(0);
    Task& running = rtTask(m, 50, 0);
    Task& waiting = rtTask(m, 40, 0);
    rt.enqueueTask(rq0, running, 0);
    rt.enqueueTask(rq0, waiting, 0);
    m.run(running);
    rt.balance(rq0);
    QCOMPARE(movesOf(m), (std::vector<std::pair<int, int>>{{waiting.index, 1}}));
    QCOMPARE(queueOf(rt, rq0), std::vector<int>{running.index});
    QCOMPARE(queueOf(rt, m.rq(1)), std::vector<int>{waiting.index});
    QCOMPARE(m.reschedCpus, std::vector<int>{1});
    // Pull: CPU 1 went idle again with the task still queued there; CPU 0 runs nothing RT and
    // pulls it (the highest waiting RT task of another CPU).
    m.reschedCpus.clear();
    m.moves.clear();
    rq0.curr = nullptr;
    rt.dequeueTask(rq0, running, 0);
    rt.balance(rq0);
    QCOMPARE(movesOf(m), (std::vector<std::pair<int, int>>{{waiting.index, 0}}));
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
}

void TestRtUnit::fairServerDefersThenBoosts()
{
    // 50 ms per 1 s, defer mode: starved at t = 0 arms the zero-laxity timer at 1 s − 50 ms =
    // 950 ms. Still starved then, the server boosts (resched) and re-arms for the period end.
    // 30 ms of fair execution leave 20 ms; 20 ms more end the boost (resched).
    FakeMachine m(1);
    RtClass rt(m, 1000, true);
    m.sched = &rt;
    SchedEntity* served = nullptr; // what pick_task_fair() returns
    DlServerClass server(m, true, [&served](Rq&) { return served; });
    Rq& rq = m.rq(0);
    Task& hog = rtTask(m, 50, 0);
    m.run(hog);
    rq.nrRunning = 1; // a fair task is runnable
    server.starve(0);
    QCOMPARE(rq.fairServer.periodEnd, int64_t{1'000'000'000});
    QCOMPARE(rq.fairServer.runtime, int64_t{50'000'000});
    QCOMPARE(timersOf(m), (std::vector<std::pair<int, int64_t>>{{0, 950'000'000}}));
    QVERIFY(!rq.fairServer.running);
    QCOMPARE(server.pickTask(rq), nullptr);
    m.now = 950'000'000;
    QVERIFY(m.fire(0)); // the zero-laxity timer
    QVERIFY(rq.fairServer.running);
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    QCOMPARE(timersOf(m).back(), (std::pair<int, int64_t>{0, 1'000'000'000}));
    Task& fair = rtTask(m, 0, 0, Policy::Normal);
    served = &fair.se;
    QCOMPARE(server.pickTask(rq), &fair.se); // the walk's first class picks the fair task
    QCOMPARE(rt.pickTask(rq), nullptr);
    m.reschedCpus.clear();
    server.account(0, 30'000'000);
    QCOMPARE(rq.fairServer.runtime, int64_t{20'000'000});
    QVERIFY(m.reschedCpus.empty());
    server.account(0, 20'000'000);
    QVERIFY(!rq.fairServer.running);
    QCOMPARE(m.reschedCpus, std::vector<int>{0});
    rq.nrRunning = 0;
    rq.fairServer.running = true;
    server.stopIfIdle(rq); // dl_server_stop(): no fair task left
    QVERIFY(!rq.fairServer.running);
}

void TestRtUnit::admissionControl_data()
{
    QTest::addColumn<bool>("walkAll");
    QTest::addColumn<int>("tasksVisited");
    QTest::addColumn<int>("hasRtCalls");
    // walk_all_tasks: /b (runtime 0 → 0) is checked too, each check iterates the whole thread
    // list (2 threads; /b has no RT task: 2; /a's RT task is the 2nd thread: 2) = 4 in 2 calls.
    QTest::newRow("walk_all_tasks") << true << 4 << 2;
    // patched: only /a (500 ms → 0) is checked, over its own tasks: its RT task is the 1st.
    QTest::newRow("patched") << false << 1 << 1;
}

void TestRtUnit::admissionControl()
{
    // tg_set_rt_bandwidth() under the root (950 ms / 1 s, to_ratio = 950000000 << 20 / 1e9 =
    // 996147): /a and /b start at runtime 0. /a to 500 ms / 1 s (ratio 524288) passes; /b to
    // 500 ms too would make the root's children 1048576 > 996147: -EINVAL at the root. /a back
    // to 0 with an RT task inside: -EBUSY.
    QFETCH(bool, walkAll);
    QFETCH(int, tasksVisited);
    QFETCH(int, hasRtCalls);
    FakeMachine m(1);
    m.addGroup("/a");
    m.addGroup("/b");
    m.choices.rtConstraintCheck =
        walkAll ? RtConstraintCheck::WalkAllTasks : RtConstraintCheck::Patched;
    RtClass rt(m, 1000, false);
    rt.setChoices(&m.choices);
    m.sched = &rt;
    rt.groups().resize(3);
    rt.group(0).children = {1, 2};
    QCOMPARE(toRatio(kRtDefaultPeriodNs, kRtDefaultRuntimeNs), uint64_t{996147});
    RtWalkCount count;
    std::string why;
    QCOMPARE(rt.setBandwidth(1, 1'000'000'000, 500'000'000, &count, &why), 0);
    QCOMPARE(rt.group(1).runtimeNs, int64_t{500'000'000});
    QCOMPARE(count.groups, int64_t{3}); // root, /b, /a (walk_tg_tree, newest child first)
    count = {};
    QCOMPARE(rt.setBandwidth(2, 1'000'000'000, 500'000'000, &count, &why), -EINVAL);
    QCOMPARE(why, std::string("/: the children's runtimes exceed the group's"));
    QCOMPARE(rt.group(2).runtimeNs, int64_t{0}); // unchanged
    QCOMPARE(rt.setBandwidth(1, 0, 1, &count, &why), -EINVAL);
    QCOMPARE(why, std::string("period 0"));
    Task& fair = rtTask(m, 0, 0, Policy::Normal, 0);
    Task& inA = rtTask(m, 10, 0, Policy::Fifo, 1);
    fair.alive = true;
    inA.alive = true;
    count = {};
    QCOMPARE(rt.setBandwidth(1, 1'000'000'000, 0, &count, &why), -EBUSY);
    QCOMPARE(why, std::string("/a has RT tasks"));
    QCOMPARE(count.tasks, int64_t{tasksVisited});
    QCOMPARE(count.hasRtTaskCalls, int64_t{hasRtCalls});
    QCOMPARE(rt.group(1).runtimeNs, int64_t{500'000'000});
}

void TestRtUnit::groupFiles()
{
    // The RT class's side of the cpu controller (SchedGroupOps), as the machine uses it: the
    // groups the machine creates, the RT files it hands over, the attach test. Same numbers as
    // admissionControl(): /a at 500 ms / 1 s passes, /b at 500 ms too exceeds the root's
    // 996147 and is refused with -EINVAL, named like the shell's write.
    FakeMachine m(1);
    m.addGroup("/a");
    m.addGroup("/b");
    RtClass rt(m, 1000, false);
    m.sched = &rt;
    SchedGroupOps& ops = *static_cast<SchedClass&>(rt).groupOps();
    ops.groupCreated(1, 0);
    ops.groupCreated(2, 0);
    QCOMPARE(rt.groups().size(), size_t{3});
    QCOMPARE(rt.group(0).children, (std::vector<int>{1, 2}));
    QCOMPARE(rt.group(1).runtimeNs, int64_t{0}); // a new group has no RT runtime (§10.1)
    QVERIFY(ops.admits(0));                      // the root always has RT runtime
    QVERIFY(!ops.admits(1));
    std::vector<std::string> refused;
    CgroupFiles half;
    half.rtRuntimeUs = 500'000; // µs
    const RtWalkCount walk = ops.writeFiles(1, half, refused);
    QVERIFY(refused.empty());
    QCOMPARE(walk.groups, int64_t{3}); // root, /b, /a
    QCOMPARE(rt.group(1).runtimeNs, int64_t{500'000'000});
    QVERIFY(ops.admits(1));
    ops.writeFiles(2, half, refused);
    QCOMPARE(refused,
        (std::vector<std::string>{"write 500000 > /b/cpu.rt_runtime_us: EINVAL (/: the "
                                  "children's runtimes exceed the group's)"}));
    QVERIFY(!ops.admits(2));
    // cpu.rt_period_us keeps the runtime: /a at 500 ms / 2 s (ratio 262144) still fits.
    CgroupFiles period;
    period.rtPeriodUs = 2'000'000;
    refused.clear();
    ops.writeFiles(1, period, refused);
    QVERIFY(refused.empty());
    QCOMPARE(rt.group(1).periodNs, int64_t{2'000'000'000});
    QCOMPARE(rt.group(1).runtimeNs, int64_t{500'000'000});
    // Files of another class are not the RT class's: nothing is written or refused.
    CgroupFiles weight;
    weight.weight = 200;
    const RtWalkCount none = ops.writeFiles(1, weight, refused);
    QVERIFY(refused.empty());
    QCOMPARE(none.groups, int64_t{0});
}

QTEST_GUILESS_MAIN(TestRtUnit)
#include "tst_rtunit.moc"
