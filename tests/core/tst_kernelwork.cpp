// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel-work cost model (core/workload/kernelwork.*) on its own, behind a fake machine: fork
// under tasklist_lock with interrupts off, cgroup writes with the RT admission walk under
// tasklist_lock (walk_all_tasks) or RCU (patched), sections and the findings they produce
// (kernel-model.md §10.3). Every expected value is worked out by hand in the comments.
#include <QObject>

#ifndef Q_MOC_RUN
#include "core/record/metrics.h"
#include "core/rt/rtclass.h"
#include "core/sim/scenariospec.h"
#include "core/workload/kernelwork.h"
#include "core/workload/task.h"
#include "support/fakemachine.h"
#endif

#include <QTest>

#include <string>
#include <vector>

using namespace schedlab;

class TestKernelWork : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void instantForkWithoutCost();
    void forkIsAnIrqsOffSection();
    void walkUnderTasklistLockWaitsForFork();
    void patchedWalkPreemptibleUnderPreemptRcu();
    void sectionsBlockPreemption();
};

namespace {

constexpr int64_t kUs = 1000;

/// One-CPU FakeMachine (a settable clock, rq->sections of CPU 0) with the cost model's own
/// services: writes that report a fixed walk, forks counted.
class WorkMachine final : public test::FakeMachine, public KernelWorkServices
{
public:
    WorkMachine()
        : test::FakeMachine(1)
    { }
    KernelSections& cpu0() { return rq(0).sections; }
    std::vector<Finding> found;
    std::vector<int64_t> sectionEnds; ///< times of armed section-end events
    RtWalkCount walk;                 ///< what each write walks
    int writes = 0;
    int forks = 0;
    bool programPreemptible = true;

    EventId startSectionEnd(int, int64_t at) override
    {
        sectionEnds.push_back(at);
        return EventId{static_cast<uint64_t>(sectionEnds.size())};
    }
    bool kernelSectionPreemptible(int) const override { return programPreemptible; }
    void addFinding(const Finding& f) override { found.push_back(f); }
    std::vector<int> groupsMatching(const std::string&) const override { return {1, 2}; }
    RtWalkCount writeCgroupFiles(int, const CgroupFiles&, const std::string&) override
    {
        ++writes;
        return walk;
    }
    bool completeFork(Task&, const Op&) override
    {
        ++forks;
        return false;
    }
};

KernelCosts costs(int64_t forkNs)
{
    KernelCosts c; // cgroup_write 2 µs, rt_walk_group 20 ns, rt_walk_task 10 ns
    c.forkNs = forkNs;
    return c;
}

} // namespace

void TestKernelWork::instantForkWithoutCost()
{
    // fork cost 0 (the default): no section, no work, the fork completes at once.
    WorkMachine m;
    KernelWork w(m, m, costs(0), true, false);
    Task t;
    Op op;
    QVERIFY(!w.startFork(t, op));
    QCOMPARE(t.workLeft, int64_t{0});
    QVERIFY(m.sectionEnds.empty());
}

void TestKernelWork::forkIsAnIrqsOffSection()
{
    // fork 2 ms at t = 1 ms: write-held tasklist_lock with interrupts off until 3 ms; the task
    // works 2 ms; an irqs-off section longer than 1 ms is a finding. When the work is done the
    // pending fork completes (once) and nothing is left.
    WorkMachine m;
    m.now = 1000 * kUs;
    KernelWork w(m, m, costs(2000 * kUs), true, false);
    Task t;
    t.name = "forker";
    Op op;
    QVERIFY(w.startFork(t, op));
    QCOMPARE(t.workLeft, 2000 * kUs);
    QCOMPARE(m.cpu0().irqsOffUntil, 3000 * kUs);
    QCOMPARE(m.cpu0().nonPreemptUntil, 3000 * kUs);
    QCOMPARE(m.sectionEnds, std::vector<int64_t>{3000 * kUs});
    QCOMPARE(static_cast<int>(m.found.size()), 1);
    QCOMPARE(m.found[0].kind, std::string("irqs_off"));
    QCOMPARE(m.found[0].durationNs, 2000 * kUs);
    QVERIFY(!w.preemptible(0));
    t.pendingFork = &op;
    m.now = 3000 * kUs;
    QVERIFY(!w.continueWork(t));
    QCOMPARE(m.forks, 1);
    QVERIFY(w.preemptible(0));
}

void TestKernelWork::walkUnderTasklistLockWaitsForFork()
{
    // A fork of 30 µs at t = 0 holds tasklist_lock for writing until 30 µs. A write at 10 µs
    // whose walk visits 100 groups and 1000 threads costs 100·20 + 1000·10 = 12 000 ns; under
    // walk_all_tasks it first waits for the writer: read-held from 30 µs to 42 µs, preemption
    // off until 42 µs. The task works 32 µs (until 42 µs) + cgroup_write 2 µs = 34 µs, for each
    // of the two matching groups.
    WorkMachine m;
    KernelWork w(m, m, costs(30 * kUs), true, false);
    Task forker;
    Op forkOp;
    QVERIFY(w.startFork(forker, forkOp));
    m.now = 10 * kUs;
    m.walk = {100, 1000, 100};
    Task writer;
    Op write;
    write.kind = Op::Kind::Write;
    w.startWrite(writer, write);
    QCOMPARE(writer.writeGroups, (std::vector<int>{1, 2}));
    QVERIFY(w.continueWork(writer));
    QCOMPARE(m.writes, 1);
    QCOMPARE(writer.workLeft, 34 * kUs);
    QCOMPARE(m.cpu0().nonPreemptUntil, 42 * kUs);
    QCOMPARE(m.cpu0().irqsOffUntil, 30 * kUs); // the fork's section only
    // Second group at 44 µs: the lock is free, the walk alone: 12 µs + 2 µs.
    m.now = 44 * kUs;
    QVERIFY(w.continueWork(writer));
    QCOMPARE(writer.workLeft, 14 * kUs);
    QCOMPARE(m.cpu0().nonPreemptUntil, 56 * kUs);
    m.now = 58 * kUs;
    QVERIFY(!w.continueWork(writer)); // both groups written
    QCOMPARE(m.writes, 2);
    QVERIFY(writer.writeOp == nullptr);
}

void TestKernelWork::patchedWalkPreemptibleUnderPreemptRcu()
{
    // patched: no tasklist_lock; with preemptible RCU (full/lazy) the walk of 12 µs is
    // preemptible work: 12 + 2 = 14 µs, no section at all.
    WorkMachine m;
    KernelWork w(m, m, costs(0), false, false);
    m.walk = {100, 1000, 100};
    Task writer;
    Op write;
    w.startWrite(writer, write);
    QVERIFY(w.continueWork(writer));
    QCOMPARE(writer.workLeft, 14 * kUs);
    QVERIFY(m.sectionEnds.empty());
    QVERIFY(w.preemptible(0));
}

void TestKernelWork::sectionsBlockPreemption()
{
    // A section ending in the past is ignored; the machine's own kernel-section rule (a task in
    // a "kernel" block under preempt none/voluntary) also blocks preemption; an irqs-off section
    // of exactly 1 ms is not reported (only longer ones).
    WorkMachine m;
    m.now = 5000 * kUs;
    KernelWork w(m, m, costs(0), true, true);
    w.beginSection(0, 4000 * kUs, true, "x", "old");
    QVERIFY(m.sectionEnds.empty());
    w.beginSection(0, 6000 * kUs, true, "x", "one ms");
    QVERIFY(m.found.empty());
    QVERIFY(!w.preemptible(0));
    m.now = 6000 * kUs;
    QVERIFY(w.preemptible(0));
    m.programPreemptible = false;
    QVERIFY(!w.preemptible(0));
}

QTEST_GUILESS_MAIN(TestKernelWork)
#include "tst_kernelwork.moc"
