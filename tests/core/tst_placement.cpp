// SPDX-License-Identifier: GPL-2.0-or-later
// Placement of fair tasks (core/fair/placement.*, kernel-model.md §8.2) behind a fake machine:
// select_idle_sibling() (idle core before an idle sibling, prev, the has_idle_cores hint,
// SIS_UTIL's scan limit), wake_affine() (WA_IDLE, WA_WEIGHT with the imbalance_pct bias, sync),
// wake_wide(), find_idlest for fork, and affinity. Every expected value is worked out by hand in
// the comments from the kernel's rules as the model doc states them.
#include <QObject>

#ifndef Q_MOC_RUN
#include "core/fair/fairclass.h"
#include "core/fair/placement.h"
#include "core/workload/task.h"
#include "support/fakemachine.h"
#endif

#include <QTest>

#include <vector>

using namespace schedlab;

class TestPlacement : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void domainsOfTheTopology();
    void idleCoreBeforeIdleSibling();
    void staleIdleCoreHintTakesTheSibling();
    void prevIdlePreferred();
    void wakeAffineWeight();
    void wakeAffineSync();
    void wakeWideKeepsPrev();
    void sisUtilLimitsTheScan();
    void forkFindsTheIdlestCpu();
    void forkRemembersTheParentsCpu();
    void forkOnSmtPicksTheIdleCoreLatestIdle();
    void affinityRespected();
    void affinityDistribute();
    void bigTaskWakesOnIdleBigCpu();
    void selectIdleCapacityFirstFitFromTarget();
    void execOfMisfitTaskGoesToBigCpu();
};

namespace {

/// The FakeMachine with per-CPU numbers set by hand (the fair class's figures of
/// PlacementServices too).
struct PlaceMachine final : test::FakeMachine, PlacementServices
{
    explicit PlaceMachine(int cpus)
        : test::FakeMachine(cpus)
        , busy(static_cast<size_t>(cpus), 0)
        , nr(static_cast<size_t>(cpus), 0)
        , nrIdle(static_cast<size_t>(cpus), 0)
        , delayed(static_cast<size_t>(cpus), 0)
        , load(static_cast<size_t>(cpus), 0)
        , util(static_cast<size_t>(cpus), 0)
    { }
    /// A CPU running one nice-0 hog: nr_running 1, load/util/runnable 1024.
    void runHog(int cpu)
    {
        busy[static_cast<size_t>(cpu)] = 1;
        nr[static_cast<size_t>(cpu)] = 1;
        load[static_cast<size_t>(cpu)] = 1024;
        util[static_cast<size_t>(cpu)] = 1024;
    }
    void makeIdle(int cpu)
    {
        busy[static_cast<size_t>(cpu)] = 0;
        nr[static_cast<size_t>(cpu)] = 0;
        load[static_cast<size_t>(cpu)] = 0;
        util[static_cast<size_t>(cpu)] = 0;
    }
    bool idleCpu(int cpu) const override
    {
        return !busy[static_cast<size_t>(cpu)] && nr[static_cast<size_t>(cpu)] == 0;
    }
    bool schedIdleCpu(int cpu) const override
    {
        const int n = nr[static_cast<size_t>(cpu)];
        return n > 0 && n == nrIdle[static_cast<size_t>(cpu)];
    }
    int nrRunning(int cpu) const override { return nr[static_cast<size_t>(cpu)]; }
    int nrDelayed(int cpu) const override { return delayed[static_cast<size_t>(cpu)]; }
    uint64_t cpuLoad(int cpu) const override { return load[static_cast<size_t>(cpu)]; }
    uint64_t cpuUtil(int cpu) const override { return util[static_cast<size_t>(cpu)]; }
    uint64_t taskUtil(const Task& p) const override { return p.se.avg.utilAvg; }
    uint64_t cpuRunnable(int cpu) const override { return util[static_cast<size_t>(cpu)]; }
    uint64_t taskHLoad(int task) const override
    {
        return task < static_cast<int>(hLoad.size()) ? hLoad[static_cast<size_t>(task)] : 0;
    }

    std::vector<int> busy, nr, nrIdle, delayed;
    std::vector<uint64_t> load, util;
    std::vector<uint64_t> hLoad = std::vector<uint64_t>(16, 0);
};

Task makeTask(int index, int prev, int cpus)
{
    Task t;
    t.index = index;
    t.cpu = prev;
    t.cpus = CpuSet::all(cpus);
    return t;
}

WakeContext wake(int thisCpu, int waker, int flags = WakeTtwu)
{
    WakeContext c;
    c.flags = flags;
    c.thisCpu = thisCpu;
    c.waker = waker;
    return c;
}

constexpr int kWaker = 9; // task index of the waking task

} // namespace

void TestPlacement::domainsOfTheTopology()
{
    // 8 CPUs, 2 threads per core, 2 cores per LLC: SMT {2,3}, MC {0..3}, PKG {0..7}.
    PlaceMachine m(8);
    Placement p(m, m, CpuTopology{8, 2, 2, {}, {}}, 1000);
    const auto d = p.domainsOf(3);
    QCOMPARE(d.size(), size_t(3));
    QCOMPARE(d[0].level, DomainLevel::Smt);
    QCOMPARE(d[0].first, 2);
    QCOMPARE(d[0].imbalancePct, 110);
    QCOMPARE(d[1].level, DomainLevel::Mc);
    QCOMPARE(d[1].weight, 4);
    QCOMPARE(d[2].level, DomainLevel::Pkg);
    QCOMPARE(d[2].weight, 8);
    QCOMPARE(p.llcSize(5), 4);
    // One LLC per core (cores_per_llc 1): MC has SMT's span and is left out.
    Placement q(m, m, CpuTopology{8, 2, 1, {}, {}}, 1000);
    QCOMPARE(q.domainsOf(0).size(), size_t(2));
    QCOMPARE(q.domainsOf(0)[1].level, DomainLevel::Pkg);
    QCOMPARE(q.llcSize(0), 2);
}

void TestPlacement::idleCoreBeforeIdleSibling()
{
    // 4 CPUs, threads_per_core 2, one LLC: cores {0,1} and {2,3}. CPU 0 runs a hog, 1–3 idle.
    // The wakee slept on CPU 0 and its timer fires there (this_cpu = prev = 0): no
    // wake_affine(), target = 0. select_idle_sibling(): target and prev busy, no recent CPU;
    // has_idle_cores is set (the machine started idle), so select_idle_cpu() scans cores from
    // target + 1 = 1: core {0,1} is not idle (CPU 1 is only remembered as an idle CPU), core
    // {2,3} is: the first CPU scanned there, 2, is returned — not the hog's idle sibling 1.
    PlaceMachine m(4);
    m.runHog(0);
    Placement p(m, m, CpuTopology{4, 2, 2, {}, {}}, 1000);
    QVERIFY(p.hasIdleCores(0));
    const Task t = makeTask(0, 0, 4);
    const PlacementResult r = p.selectTaskRq(t, wake(0, kWaker));
    QCOMPARE(r.cpu, 2);
    QCOMPARE(r.detail.wake, WakePath::IdleCore);
    QCOMPARE(r.detail.level, DomainLevel::Smt); // prev is in this_cpu's SMT domain

    // CPU 3 busy too: no idle core. The core scan still remembered CPU 1 (the first idle CPU
    // met), returns it, and clears the stale has_idle_cores hint.
    m.runHog(3);
    const PlacementResult r2 = p.selectTaskRq(t, wake(0, kWaker));
    QCOMPARE(r2.cpu, 1);
    QCOMPARE(r2.detail.wake, WakePath::IdleCpu);
    QVERIFY(!p.hasIdleCores(0));
}

void TestPlacement::staleIdleCoreHintTakesTheSibling()
{
    // As above, after the failed core scan cleared has_idle_cores: CPU 3 goes idle without
    // passing through cpuEnteredIdle() (the hint stays clear). select_idle_sibling() then tries
    // select_idle_smt(prev = 0) first: sibling 1 is idle and taken although core {2,3} is idle.
    PlaceMachine m(4);
    m.runHog(0);
    m.runHog(3);
    Placement p(m, m, CpuTopology{4, 2, 2, {}, {}}, 1000);
    const Task t = makeTask(0, 0, 4);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 1); // clears the hint
    m.makeIdle(3);
    const PlacementResult r = p.selectTaskRq(t, wake(0, kWaker));
    QCOMPARE(r.cpu, 1);
    QCOMPARE(r.detail.wake, WakePath::IdleSibling);
    // CPU 3 entering idle with its sibling 2 idle sets the hint again (update_idle_core()):
    // the next wakeup finds the idle core {2,3}; the scan from 1 reaches CPU 2 first.
    p.cpuEnteredIdle(3, 5000);
    QVERIFY(p.hasIdleCores(0));
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 2);
}

void TestPlacement::prevIdlePreferred()
{
    // 4 CPUs, no SMT, one LLC. The waker runs on CPU 0; the wakee's prev CPU 2 is idle, CPUs 1
    // and 3 idle too. wake_affine() in MC: WA_IDLE — this_cpu 0 busy, not sync, prev 2 idle:
    // prev. select_idle_sibling(prev 2, target 2): target idle → 2.
    PlaceMachine m(4);
    m.runHog(0);
    Placement p(m, m, CpuTopology{4, 1, 4, {}, {}}, 1000);
    const PlacementResult r = p.selectTaskRq(makeTask(0, 2, 4), wake(0, kWaker));
    QCOMPARE(r.cpu, 2);
    QCOMPARE(r.detail.wake, WakePath::PrevIdle);
    QCOMPARE(r.detail.level, DomainLevel::Mc);
}

void TestPlacement::wakeAffineWeight()
{
    // 2 CPUs in one LLC, both busy. Waker on CPU 0 (load 300), wakee prev CPU 1 (load 1000),
    // task_h_load(wakee) = 200. WA_IDLE: neither CPU idle, not sync: no answer. WA_WEIGHT with
    // MC's imbalance_pct 117 (prev biased by 100 + 17/2 = 108):
    //   this_eff = (300 + 200)·100·1024 = 51 200 000
    //   prev_eff = (1000 − 200)·108·1024 = 88 473 600  → this_eff < prev_eff: the waker's CPU.
    // select_idle_sibling(prev 1, target 0): nothing idle (SIS_UTIL lets it scan CPUs 1 and 0,
    // both busy): target 0.
    PlaceMachine m(2);
    m.runHog(0);
    m.runHog(1);
    m.load = {300, 1000};
    m.hLoad[0] = 200;
    Placement p(m, m, CpuTopology{2, 1, 2, {}, {}}, 1000);
    const Task t = makeTask(0, 1, 2);
    const PlacementResult r = p.selectTaskRq(t, wake(0, kWaker));
    QCOMPARE(r.cpu, 0);
    QCOMPARE(r.detail.wake, WakePath::AffineWaker);
    // Prev's load 500: prev_eff = 300·108·1024 = 33 177 600 < this_eff: stays on prev 1.
    m.load = {300, 500};
    const PlacementResult r2 = p.selectTaskRq(t, wake(0, kWaker));
    QCOMPARE(r2.cpu, 1);
    QCOMPARE(r2.detail.wake, WakePath::Fallback);
}

void TestPlacement::wakeAffineSync()
{
    // A sync wakeup from CPU 0, which runs only the waker (nr_running 1): wake_affine_idle()
    // returns this_cpu at once, whatever the loads (prev load 300 < the waker side's).
    PlaceMachine m(2);
    m.runHog(0);
    m.runHog(1);
    m.load = {300, 300};
    m.hLoad[0] = 200;
    m.hLoad[kWaker] = 300;
    Placement p(m, m, CpuTopology{2, 1, 2, {}, {}}, 1000);
    const Task t = makeTask(0, 1, 2);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker, WakeTtwu | WakeSync)).cpu, 0);
    // A delayed task also sits on CPU 0 (nr_running 2, one delayed). 6.13+ discounts it: still
    // this_cpu. Before (syncDiscountsDelayed off) nr_running 2 ≠ 1 and WA_WEIGHT decides:
    //   this_eff = (300 − 300 + 200)·100·1024 = 20 480 000
    //   prev_eff = (300 − 200)·108·1024 + 1 = 11 059 201  → prev (CPU 1).
    m.nr[0] = 2;
    m.delayed[0] = 1;
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker, WakeTtwu | WakeSync)).cpu, 0);
    p.syncDiscountsDelayed = false;
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker, WakeTtwu | WakeSync)).cpu, 1);
}

void TestPlacement::wakeWideKeepsPrev()
{
    // The loads of wakeAffineWeight() would pull the wakee (task 0) to the waker's CPU 0. Make
    // the wakeup "wide": the waker (task 9) wakes tasks 1…5 (flips 5) and task 0 wakes tasks 1
    // and 2 alternately (flips 4). LLC size 2: slave = 4 ≥ 2, master = 5 + 1 (waking task 0
    // is a new wakee) = 6 < 4·2 = 8 → still affine. Two more flips of the waker: 8 ≥ 8 → wide.
    PlaceMachine m(2);
    m.runHog(0);
    m.runHog(1);
    m.load = {300, 1000};
    m.hLoad[0] = 200;
    Placement p(m, m, CpuTopology{2, 1, 2, {}, {}}, 1000);
    for (int w = 1; w <= 5; ++w)
        p.selectTaskRq(makeTask(w, 1, 2), wake(0, kWaker));
    for (int k = 0; k < 4; ++k)
        p.selectTaskRq(makeTask(1 + k % 2, 1, 2), wake(1, 0));
    QCOMPARE(p.wakeeFlips(kWaker), 5u);
    QCOMPARE(p.wakeeFlips(0), 4u);
    const Task t = makeTask(0, 1, 2);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 0);          // master 6 < 8: affine
    p.selectTaskRq(makeTask(3, 1, 2), wake(0, kWaker));           // flips 7
    const PlacementResult r = p.selectTaskRq(t, wake(0, kWaker)); // flips 8: wide
    QCOMPARE(p.wakeeFlips(kWaker), 8u);
    QCOMPARE(r.cpu, 1);                          // no wake_affine(): target = prev
    QCOMPARE(r.detail.level, DomainLevel::None); // no affine domain
}

void TestPlacement::sisUtilLimitsTheScan()
{
    // update_idle_cpu_scan() for a 4-CPU LLC (pct 117):
    //   sum_util 2048: x = 512, x²·117²/(10000·1024) = 262144·13689/10240000 = 350,
    //   nr = (1024 − 350)·4/1024 = 2.
    //   sum_util 3500: x = 875, 765625·13689/10240000 = 1023, nr = 1·4/1024 = 0.
    PlaceMachine m(4);
    Placement p(m, m, CpuTopology{4, 1, 4, {}, {}}, 1000);
    QCOMPARE(p.nrIdleScan(0), 4); // an idle LLC's value at start
    p.updateIdleCpuScan(0, 2048);
    QCOMPARE(p.nrIdleScan(2), 2);
    // CPUs 0–2 busy, 3 idle; wakeup on prev = target = 0. nr = 2 + 1: the scan from 1 looks at
    // CPU 1 (nr 2) and CPU 2 (nr 1), stops before CPU 3: the target stays.
    m.runHog(0);
    m.runHog(1);
    m.runHog(2);
    const Task t = makeTask(0, 0, 4);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 0);
    // CPU 2 idle instead of 3: found within the two.
    m.makeIdle(2);
    m.runHog(3);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 2);
    // An overloaded LLC (nr_idle_scan 0) is not scanned at all.
    p.updateIdleCpuScan(0, 3500);
    QCOMPARE(p.nrIdleScan(0), 0);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 0);
}

void TestPlacement::forkFindsTheIdlestCpu()
{
    // 4 CPUs, one LLC without SMT: one domain (MC, PKG degenerate), groups of one CPU. The
    // parent runs on CPU 0 (load, util, runnable 1024). Local group {0}: 1 task on 1 CPU, not
    // more tasks than CPUs (not overloaded), but 1024·117 < 1024·100 is false and
    // 1024·100 > 1024·117 is false: no capacity left → fully_busy. {1},{2},{3}: has_spare with
    // one idle CPU each and util 0; the first one met after the local group, {1}, stays the
    // idlest (ties are not better). fully_busy > has_spare: the child goes to CPU 1.
    PlaceMachine m(4);
    m.runHog(0);
    Placement p(m, m, CpuTopology{4, 1, 4, {}, {}}, 1000);
    const Task child = makeTask(5, 0, 4);
    const PlacementResult r = p.selectTaskRq(child, wake(0, kWaker, WakeFork));
    QCOMPARE(r.cpu, 1);
    QCOMPARE(r.detail.wake, WakePath::Idlest);
    QCOMPARE(r.detail.level, DomainLevel::Mc);
    // From CPU 2 (parent there) the group order starts at 2: {3} is met first and wins.
    m.makeIdle(0);
    m.runHog(2);
    QCOMPARE(p.selectTaskRq(child, wake(2, kWaker, WakeFork)).cpu, 3);
}

void TestPlacement::forkRemembersTheParentsCpu()
{
    // wake_up_new_task() sets the child's recent_used_cpu to task_cpu(), the parent's CPU,
    // before the fork balance. 2 CPUs, one LLC. The parent forks on CPU 0 (a hog there); CPU 1
    // is idle, so sched_balance_find_dst_cpu() puts the child on CPU 1 (has_spare beats
    // fully_busy, as in forkFindsTheIdlestCpu).
    PlaceMachine m(2);
    m.runHog(0);
    Placement p(m, m, CpuTopology{2, 1, 2, {}, {}}, 1000);
    Task child = makeTask(5, 0, 2);
    QCOMPARE(p.selectTaskRq(child, wake(0, kWaker, WakeFork)).cpu, 1);
    QCOMPARE(p.recentUsedCpu(5), 0);
    // The child sleeps on CPU 1; CPU 1 then runs a hog and CPU 0 goes idle. An LLC 85 % busy
    // stops SIS_UTIL's scan: sum_util 1800, x = 900, 810000·13689/10240000 = 1082 ≥ 1024, so
    // nr_idle_scan = 0. The child's timer fires on CPU 1 (this_cpu = prev = target = 1): target
    // and prev busy, recent_used_cpu 0 is idle, shares the cache and is neither: CPU 0.
    child.cpu = 1;
    m.makeIdle(0);
    m.runHog(1);
    p.updateIdleCpuScan(1, 1800);
    QCOMPARE(p.nrIdleScan(1), 0);
    const PlacementResult r = p.selectTaskRq(child, wake(1, kWaker));
    QCOMPARE(r.cpu, 0);
    QCOMPARE(r.detail.wake, WakePath::RecentUsed);
    // That pass replaced recent_used_cpu by prev (1): the same wakeup from CPU 1 again finds
    // recent = prev and no scan, and stays on the busy target.
    QCOMPARE(p.recentUsedCpu(5), 1);
    QCOMPARE(p.selectTaskRq(child, wake(1, kWaker)).cpu, 1);
}

void TestPlacement::forkOnSmtPicksTheIdleCoreLatestIdle()
{
    // 4 CPUs, 2 threads per core, one LLC per core: SMT {0,1}/{2,3} and PKG {0..3}. The parent
    // runs on CPU 0. PKG: local group {0,1} has 1 task on 2 CPUs (has_spare, 1 idle CPU); group
    // {2,3} has_spare with 2 idle CPUs > 1: the idlest group is {2,3}. Inside it both CPUs are
    // idle; CPU 3 went idle last (stamp 1000 > 0): CPU 3. Then SMT {2,3} seen from 3: local {3}
    // and {2} both have 1 idle CPU: stay. Result 3.
    PlaceMachine m(4);
    m.runHog(0);
    Placement p(m, m, CpuTopology{4, 2, 1, {}, {}}, 1000);
    p.cpuEnteredIdle(3, 1000);
    const PlacementResult r = p.selectTaskRq(makeTask(5, 0, 4), wake(0, kWaker, WakeFork));
    QCOMPARE(r.cpu, 3);
    QCOMPARE(r.detail.level, DomainLevel::Pkg);
    // A task woken on CPU 3 clears its idle stamp: CPU 2 (stamp 0) is then the latest idle.
    p.taskWokenOn(3);
    QCOMPARE(p.selectTaskRq(makeTask(6, 0, 4), wake(0, kWaker, WakeFork)).cpu, 2);
}

void TestPlacement::affinityRespected()
{
    // The idle-core machine of idleCoreBeforeIdleSibling(), wakee allowed on {0,1} only: the
    // core scan covers only allowed CPUs, remembers CPU 1 and returns it (not core {2,3}).
    PlaceMachine m(4);
    m.runHog(0);
    Placement p(m, m, CpuTopology{4, 2, 2, {}, {}}, 1000);
    Task t = makeTask(0, 0, 4);
    t.cpus = *CpuSet::parse("0-1", 4);
    QCOMPARE(p.selectTaskRq(t, wake(0, kWaker)).cpu, 1);
    // Fork of a child allowed on {0,1} on the 4-CPU flat machine with CPU 0 busy: groups {2}
    // and {3} are skipped, {1} is the idlest.
    PlaceMachine flat(4);
    flat.runHog(0);
    Placement q(flat, flat, CpuTopology{4, 1, 4, {}, {}}, 1000);
    QCOMPARE(q.selectTaskRq(t, wake(0, kWaker, WakeFork)).cpu, 1);
    // A single allowed CPU: cpumask_any(), whatever the machine looks like.
    t.cpus = CpuSet::single(3);
    flat.runHog(3);
    QCOMPARE(q.selectTaskRq(t, wake(0, kWaker)).cpu, 3);
    // The mask changed while the task slept on CPU 2 (now {0,1}): its timer fires on CPU 2,
    // which is not allowed, so no wake_affine(); select_idle_sibling() returns the idle target
    // 2, and select_fallback_rq() then takes the first allowed CPU, 0.
    t = makeTask(0, 2, 4);
    t.cpus = *CpuSet::parse("0-1", 4);
    const PlacementResult r = q.selectTaskRq(t, wake(2, -1));
    QCOMPARE(r.cpu, 0);
    QCOMPARE(r.detail.wake, WakePath::Fallback);
}

void TestPlacement::affinityDistribute()
{
    // cpumask_any_and_distribute(): per calling CPU a rotor starting at 0; each call takes the
    // next allowed CPU after it. Mask {1,3} from CPU 0: 1, then 3, then 1 again (wrap).
    PlaceMachine m(4);
    Placement p(m, m, CpuTopology{4, 1, 4, {}, {}}, 1000);
    const CpuSet mask = *CpuSet::parse("1,3", 4);
    QCOMPARE(p.anyAndDistribute(mask, 0), 1);
    QCOMPARE(p.anyAndDistribute(mask, 0), 3);
    QCOMPARE(p.anyAndDistribute(mask, 0), 1);
    QCOMPARE(p.anyAndDistribute(mask, 2), 1); // CPU 2's own rotor starts at 0
}

void TestPlacement::bigTaskWakesOnIdleBigCpu()
{
    // big.LITTLE (kernel-model.md §8.4): capacities [1024, 1024, 512, 512], one LLC: MC {0-3}
    // holds both capacities (SD_ASYM_CPUCAPACITY_FULL) and is sd_asym_cpucapacity. CPU 0 runs
    // a hog; 1, 2, 3 are idle. A hog (util_avg 1000) sleeping on little CPU 2 is woken by its
    // timer there (this_cpu = prev = 2): want_affine, MC spans prev = this_cpu, so target 2.
    // asym_fits_cpu(2): 1000·1280 = 1280000 ≥ 512·1024 = 524288, no. recent_used_cpu: none.
    // select_idle_capacity() from 2: 2 and 3 idle but 1000 fits no 512 CPU (best so far 2,
    // capacity 512); 0 busy; 1 idle, 1000·1280 ≥ 1024·1024 = 1048576 fits neither, but its
    // capacity 1024 > 512: CPU 1.
    PlaceMachine m(4);
    m.runHog(0);
    Placement p(m, m, CpuTopology{4, 1, 4, {1024, 1024, 512, 512}, {}}, 1000);
    QVERIFY(p.domainsOf(2)[0].flags & SdAsymCpuCapacityFull);
    Task hog = makeTask(0, 2, 4);
    hog.se.avg.utilAvg = 1000;
    PlacementResult r = p.selectTaskRq(hog, wake(2, -1));
    QCOMPARE(r.cpu, 1);
    QCOMPARE(r.detail.wake, WakePath::IdleCapacity);
    // A small task fits the little CPU up to util 409 (523520 < 524288): prev 2 is kept.
    Task small = makeTask(1, 2, 4);
    small.se.avg.utilAvg = 409;
    r = p.selectTaskRq(small, wake(2, -1));
    QCOMPARE(r.cpu, 2);
    QCOMPARE(r.detail.wake, WakePath::PrevIdle);
    // At 410 (524800 ≥ 524288) it does not: 2, 3 no; 0 busy; 1 fits (524800 < 1048576).
    Task medium = makeTask(2, 2, 4);
    medium.se.avg.utilAvg = 410;
    r = p.selectTaskRq(medium, wake(2, -1));
    QCOMPARE(r.cpu, 1);
    QCOMPARE(r.detail.wake, WakePath::IdleCapacity);
    // The same machine with equal capacities keeps the hog on its idle prev.
    Placement q(m, m, CpuTopology{4, 1, 4, {}, {}}, 1000);
    QCOMPARE(q.selectTaskRq(hog, wake(2, -1)).cpu, 2);
}

void TestPlacement::selectIdleCapacityFirstFitFromTarget()
{
    // Capacities [1024, 1024, 512, 512], every CPU idle but 3 (the wakee's prev; a hog runs
    // there and wakes it). A task of util 600 (fits 1024: 768000 < 1048576; not 512: 768000 ≥
    // 524288): wake_affine() is not called (this_cpu = prev), target 3, busy.
    // select_idle_capacity() from 3 with wrap-around: 3 busy, 0 idle and fits: CPU 0 (not 1,
    // met later). With util 1000 (fits nothing) the biggest idle CPU met first wins: 0 (1 has
    // the same capacity, not a larger one).
    PlaceMachine m(4);
    m.runHog(3);
    Placement p(m, m, CpuTopology{4, 1, 4, {1024, 1024, 512, 512}, {}}, 1000);
    Task t = makeTask(0, 3, 4);
    t.se.avg.utilAvg = 600;
    PlacementResult r = p.selectTaskRq(t, wake(3, kWaker));
    QCOMPARE(r.cpu, 0);
    QCOMPARE(r.detail.wake, WakePath::IdleCapacity);
    Task big = makeTask(1, 3, 4);
    big.se.avg.utilAvg = 1000;
    r = p.selectTaskRq(big, wake(3, kWaker));
    QCOMPARE(r.cpu, 0);
    // A task allowed only the little CPUs 2-3: CPU 2 is idle but too small; the best idle
    // capacity among the allowed CPUs is 2's 512.
    Task pinned = makeTask(2, 3, 4);
    pinned.cpus = CpuSet();
    pinned.cpus.set(2);
    pinned.cpus.set(3);
    pinned.se.avg.utilAvg = 600;
    r = p.selectTaskRq(pinned, wake(3, kWaker));
    QCOMPARE(r.cpu, 2);
}

void TestPlacement::execOfMisfitTaskGoesToBigCpu()
{
    // update_sg_wakeup_stats() on an SD_ASYM_CPUCAPACITY domain (kernel-model.md §8.4):
    // capacities [1024, 1024, 512, 512], every CPU idle, a task of util 600 execs on little
    // CPU 2 (its own load left out, as the kernel's *_without() do). 600 fits no 512 CPU
    // (768000 ≥ 524288): groups {2} (local) and {3} are misfit_task, {0} and {1} has_spare
    // with one idle CPU each; {0}, met first after the wrap, is the idlest. misfit_task >
    // has_spare: the task goes to CPU 0. Without the test {2} would be has_spare with as many
    // idle CPUs and the task would stay.
    PlaceMachine m(4);
    Placement p(m, m, CpuTopology{4, 1, 4, {1024, 1024, 512, 512}, {}}, 1000);
    Task big = makeTask(0, 2, 4);
    big.se.avg.utilAvg = 600;
    const PlacementResult r = p.selectTaskRq(big, wake(2, kWaker, WakeExec));
    QCOMPARE(r.cpu, 0);
    QCOMPARE(r.detail.wake, WakePath::Idlest);
    // util 409 fits the little CPU (523520 < 524288): every group has_spare, it stays.
    Task small = makeTask(1, 2, 4);
    small.se.avg.utilAvg = 409;
    QCOMPARE(p.selectTaskRq(small, wake(2, kWaker, WakeExec)).cpu, 2);
    // Equal capacities: no SD_ASYM_CPUCAPACITY, no misfit group; the big task stays too.
    Placement q(m, m, CpuTopology{4, 1, 4, {}, {}}, 1000);
    QCOMPARE(q.selectTaskRq(big, wake(2, kWaker, WakeExec)).cpu, 2);
}

QTEST_APPLESS_MAIN(TestPlacement)
#include "tst_placement.moc"
