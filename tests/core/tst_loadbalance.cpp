// SPDX-License-Identifier: GPL-2.0-or-later
// The load balancer (kernel-model.md §8.3): sched domains built from the topology, group
// classification and calculate_imbalance() worked by hand, detach_tasks()'s skip and retry rules
// on a fake machine, and whole runs (the heavy/light case of 2 CPUs, cgroups on 4 CPUs, two hogs
// on one SMT core). Loads are unscaled (nice 0 = 1024, nice -10 = 9548, nice 19 = 15);
// SCHED_CAPACITY_SCALE = 1024.
//
// The core headers come before <QTest> (Qt's `forever` macro).
#ifndef Q_MOC_RUN
#include "core/base/cpuset.h"
#include "core/fair/cfsrq.h"
#include "core/fair/loadbalance.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/sched/domains.h"
#include "core/sched/migration.h"
#include "core/sched/rq.h"
#include "core/sim/simulation.h"
#include "support/fakemachine.h"
#include "support/simlookup.h"
#endif

#include <QTest>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace schedlab;

class TestLoadBalance : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void avgIdle();
    void nohzStatsCadence();
    void newidleProportional_data();
    void newidleProportional();
    void newidleCostGate();
    void newidleCostDecay();
    void domainsTwoCpus();
    void domainsSmtMcPkg();
    void domainsSmtOneLlc();
    void classify_data();
    void classify();
    void imbalanceHeavyLight();
    void imbalanceWithinImbalancePct();
    void imbalanceSpareTasks();
    void imbalanceSpareUtilAcrossLlc();
    void imbalanceBusyCpuLeavesSpareGroup();
    void siblingImbalanceByCores();
    void taskHLoadInGroup();
    void loadAboveImbalanceRelaxedByFailures();
    void hotTaskMovedAfterFailures();
    void pinnedTaskSkipped();
    void allPinnedBacksOff();
    void ineligibleSoftLimit_data();
    void ineligibleSoftLimit();
    void heavyLightTwoCpus();
    void cgroupsSpreadOnFourCpus();
    void smtHogsSpreadToIdleCore();
    void domainsAsymCapacity();
    void reducedCapacityGroupLoad();
    void misfitStatusByHand();
    void misfitPushedByActiveBalance();
    void misfitHogMovesToBigCpu();
    void utilEstKeepsWakerOffLittleCpu_data();
    void utilEstKeepsWakerOffLittleCpu();
    void domainsItmt();
    void asymPackingPullsToPreferredCpu();
    void asymPackingNeedsAnIdleCore();
    void itmtHogsPackOnPreferredCpus();
};

namespace {

constexpr int64_t kS = 1000000000;

// The BalanceMachine with hand-set PELT averages and cfs_tasks lists; a migration moves the entity
// between the lists and is recorded (FakeMachine::moves).
class BalanceMachine : public test::FakeMachine, public BalanceServices
{
public:
    explicit BalanceMachine(int cpus)
        : test::FakeMachine(cpus)
    {
        now = kS;
        nr.assign(static_cast<size_t>(cpus), 0);
    }
    /// A queued task with load_avg @p load on @p cpu, last run at @p lastRan.
    SchedEntity& addTask(int cpu, uint64_t load, int64_t lastRan, bool running = false)
    {
        Task& task = test::FakeMachine::addTask(cpu);
        task.state = TaskRunState::Runnable; // queued: the balancer may move it
        SchedEntity& se = task.se;
        Rq& q = rq(cpu);
        se.cfsRq = q.cfs.get();
        se.avg.loadAvg = load;
        se.onRq = true;
        se.execStart = lastRan;
        q.cfsTasks.push_front(se);
        q.cfs->avg.loadAvg += load;
        q.cfs->avg.utilAvg = 1024; // always busy
        q.cfs->avg.runnableAvg += 1024;
        ++q.cfs->hNrRunnable;
        ++nr[static_cast<size_t>(cpu)];
        if (running)
            q.curr = &se;
        return se;
    }
    /// move_queued_task_locked(): the entity changes lists and CPUs; recorded.
    void moveQueuedTask(Task& task, int dst, MigrateReason reason, MigrateDetail detail) override
    {
        SchedEntity& se = task.se;
        const int src = se.cfsRq->cpu;
        se.groupNode.unlink();
        rqs[static_cast<size_t>(dst)]->cfsTasks.push_front(se);
        --nr[static_cast<size_t>(src)];
        ++nr[static_cast<size_t>(dst)];
        test::FakeMachine::moveQueuedTask(task, dst, reason, detail);
    }
    int nrRunning(int cpu) const override { return nr[static_cast<size_t>(cpu)]; }
    bool idleCpu(int cpu) const override
    {
        return nr[static_cast<size_t>(cpu)] == 0 && !rqs[static_cast<size_t>(cpu)]->curr;
    }
    /// The stopper preempts the running task (it stays queued) when @c stopperWorks.
    bool stopperPreempt(int cpu) override
    {
        if (!stopperWorks || !rqs[static_cast<size_t>(cpu)]->curr)
            return false;
        rqs[static_cast<size_t>(cpu)]->curr = nullptr;
        return true;
    }
    bool stopperWorks = false;
    /// sched_balance_update_blocked_averages(): recorded; blocked load always remains.
    bool updateBlockedAverages(int cpu) override
    {
        blockedUpdates.emplace_back(cpu, now);
        rqs[static_cast<size_t>(cpu)]->lastBlockedUpdate = now / 1000000;
        return true;
    }
    std::vector<std::pair<int, int64_t>> blockedUpdates;
    std::vector<int> nr;
};

CpuTopology topology(int cpus, int threads, int coresPerLlc, std::vector<int> capacities = {},
    std::vector<int> itmtPriorities = {})
{
    CpuTopology t;
    t.cpus = cpus;
    t.threadsPerCore = threads;
    t.coresPerLlc = coresPerLlc;
    t.capacities = std::move(capacities);
    t.itmtPriorities = std::move(itmtPriorities);
    return t;
}

/// A fake machine of @p t's CPUs with its domains and balancer (HZ=1000), the stopper working.
struct Rig
{
    explicit Rig(const CpuTopology& t)
        : m(t.cpus)
        , d(t)
        , lb(m, m, d, 1000, 1000000)
    {
        m.stopperWorks = true;
    }
    BalanceMachine m;
    SchedDomains d;
    LoadBalancer lb;
};

SgLbStats group(int weight, int nr, int64_t load, int64_t util, int64_t runnable, int idle = 0)
{
    SgLbStats s;
    s.groupWeight = weight;
    s.groupCapacity = 1024 * weight;
    s.sumNrRunning = nr;
    s.sumHNrRunning = nr;
    s.groupLoad = load;
    s.groupUtil = util;
    s.groupRunnable = runnable;
    s.idleCpus = idle;
    s.cores = weight;
    return s;
}

std::optional<Scenario> parse(const std::string& json)
{
    return test::loadScenario(json, "tst_loadbalance");
}

/// Two hogs pinned to CPUs 0 and 1 of @p machine (a JSON object) and let go at 10 ms.
std::optional<Scenario> twoHogsLetGo(
    const std::string& name, const std::string& machine, const std::string& duration)
{
    return parse(R"({ "schedlab": 1, "name": ")" + name + R"(", "seed": 1, "duration": ")"
        + duration + R"(", "kernel": { "hz": 1000 }, "machine": )" + machine + R"(,
      "tasks": [
        { "name": "h0", "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "h1", "cpus": "1", "program": [ { "run": "forever" } ] }
      ],
      "actions": [
        { "at": "10ms", "set": { "task": "h0", "cpus": "0-3" } },
        { "at": "10ms", "set": { "task": "h1", "cpus": "0-3" } }
      ]
    })");
}

/// The Migrate records of a run.
std::vector<const Record*> migrations(const Recording& rec)
{
    std::vector<const Record*> out;
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Migrate)
            out.push_back(&r);
    return out;
}

/// "task 3 -> 0: periodic PKG overloaded/load": a recorded move in one line.
QString moveText(const test::FakeMachine::Move& move)
{
    return QStringLiteral("task %1 -> %2: %3")
        .arg(move.task)
        .arg(move.cpu)
        .arg(QString::fromStdString(describeMigration(int64_t(move.reason), move.detail.pack())));
}

int64_t taskCpuTime(const Metrics& m, const std::string& name)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name)
            return t.cpuTimeNs;
    return -1;
}

} // namespace

// --- sched domains -----------------------------------------------------------------------------

void TestLoadBalance::domainsTwoCpus()
{
    // 2 CPUs, one thread per core, one LLC: SMT spans 1 CPU (degenerate), PKG spans what MC
    // spans (degenerate parent): only MC is left, groups {0} and {1}.
    SchedDomains d(topology(2, 1, 2));
    QCOMPARE(int(d.domains(0).size()), 1);
    const SchedDomain& mc = d.domains(0)[0];
    QCOMPARE(mc.level, DomainLevel::Mc);
    QCOMPARE(mc.weight, 2);
    QCOMPARE(mc.imbalancePct, 117);
    QCOMPARE(mc.cacheNiceTries, 1);
    QCOMPARE(mc.busyFactor, 16);
    QCOMPARE(mc.minInterval, 2); // sd_weight ms
    QCOMPARE(mc.maxInterval, 4);
    QCOMPARE(mc.balanceInterval, 2);
    QVERIFY(mc.flags & SdShareLlc);
    QCOMPARE(int(mc.groups.size()), 2);
    QCOMPARE(d.group(mc.groups[0]).first, 0); // local group first
    QCOMPARE(d.group(d.domains(1)[0].groups[0]).first, 1);
    QCOMPARE(d.group(mc.groups[0]).flags, 0); // no child domain
    QCOMPARE(d.llc(1), &d.domains(1)[0]);
}

void TestLoadBalance::domainsSmtMcPkg()
{
    // 8 CPUs = 2 LLCs × 2 cores × 2 threads: SMT {0,1}, MC {0-3}, PKG {0-7} for CPU 0.
    SchedDomains d(topology(8, 2, 2));
    const auto& c5 = d.domains(5);
    QCOMPARE(int(c5.size()), 3);
    QCOMPARE(c5[0].level, DomainLevel::Smt);
    QCOMPARE(c5[0].first, 4);
    QCOMPARE(c5[0].weight, 2);
    QCOMPARE(c5[0].imbalancePct, 110); // SD_SHARE_CPUCAPACITY
    QCOMPARE(c5[0].cacheNiceTries, 0);
    QVERIFY(c5[0].flags & SdShareCpuCapacity);
    QCOMPARE(c5[1].level, DomainLevel::Mc);
    QCOMPARE(c5[1].first, 4);
    QCOMPARE(c5[1].weight, 4);
    QCOMPARE(c5[1].minInterval, 4);
    QCOMPARE(c5[1].cacheNiceTries, 1);
    QCOMPARE(c5[2].level, DomainLevel::Pkg);
    QCOMPARE(c5[2].weight, 8);
    QCOMPARE(c5[2].imbalancePct, 117);
    QCOMPARE(c5[2].cacheNiceTries, 1);
    QVERIFY(!(c5[2].flags & SdShareLlc));
    // MC groups are the cores, local one ({4,5}) first, carrying the SMT flags.
    QCOMPARE(int(c5[1].groups.size()), 2);
    const SchedGroup& local = d.group(c5[1].groups[0]);
    QCOMPARE(local.first, 4);
    QCOMPARE(local.weight, 2);
    QCOMPARE(local.cores, 1);
    QCOMPARE(local.capacity, int64_t{2048});
    QVERIFY(local.flags & SdShareCpuCapacity);
    QCOMPARE(d.group(c5[1].groups[1]).first, 6);
    // PKG groups are the LLCs: {4-7} (local) then {0-3}, two cores each.
    QCOMPARE(d.group(c5[2].groups[0]).first, 4);
    QCOMPARE(d.group(c5[2].groups[1]).first, 0);
    QCOMPARE(d.group(c5[2].groups[1]).cores, 2);
    // Groups are shared between the CPUs of a span (sched_group_capacity).
    QCOMPARE(d.domains(4)[1].groups[0], c5[1].groups[0]);
    QCOMPARE(d.spanning(5, 2), &c5[2]);
    QCOMPARE(d.spanning(5, 7), &c5[1]);
    QCOMPARE(d.llc(5), &c5[1]);
}

void TestLoadBalance::domainsSmtOneLlc()
{
    // 4 CPUs, threads_per_core 2, one LLC: SMT {0,1}, MC {0-3}; PKG = MC span, removed.
    SchedDomains d(topology(4, 2, 2));
    QCOMPARE(int(d.domains(2).size()), 2);
    QCOMPARE(d.domains(2)[0].level, DomainLevel::Smt);
    QCOMPARE(d.domains(2)[1].level, DomainLevel::Mc);
    // One core per LLC: MC spans the core (removed), PKG groups are the cores.
    SchedDomains e(topology(4, 2, 1));
    QCOMPARE(int(e.domains(0).size()), 2);
    QCOMPARE(e.domains(0)[1].level, DomainLevel::Pkg);
    QVERIFY(e.group(e.domains(0)[1].groups[1]).flags & SdShareCpuCapacity);
}

// --- group classification ----------------------------------------------------------------------

void TestLoadBalance::classify_data()
{
    QTest::addColumn<int>("weight");
    QTest::addColumn<int>("nr");
    QTest::addColumn<int>("util");
    QTest::addColumn<int>("runnable");
    QTest::addColumn<bool>("imbalanced");
    QTest::addColumn<bool>("smt");
    QTest::addColumn<int>("expected");
    // 1 CPU, 2 tasks, util 1024: nr 2 > 1 and capacity·100 = 102400 < util·117 = 119808.
    QTest::newRow("two hogs on one CPU")
        << 1 << 2 << 1024 << 2048 << false << false << int(GroupType::Overloaded);
    // 2 CPUs, 3 tasks, util 1500: 204800 < 175500 no; runnable: 2048·117 = 239616 < 250000.
    QTest::newRow("overloaded by runnable")
        << 2 << 3 << 1500 << 2500 << false << false << int(GroupType::Overloaded);
    // 2 CPUs, 3 tasks, util 1500, runnable 2000: neither (239616 ≥ 200000) → not overloaded;
    // nr 3 ≥ 2, runnable ok, 204800 > 175500 → has capacity.
    QTest::newRow("more tasks, spare capacity")
        << 2 << 3 << 1500 << 2000 << false << false << int(GroupType::HasSpare);
    // 2 CPUs, 2 hogs: not more tasks than CPUs; has_capacity: 204800 > 2048·117 = 239616 no.
    QTest::newRow("two hogs on two CPUs")
        << 2 << 2 << 2048 << 2048 << false << false << int(GroupType::FullyBusy);
    QTest::newRow("SMT core with two tasks")
        << 2 << 2 << 2048 << 2048 << false << true << int(GroupType::SmtBalance);
    QTest::newRow("pinned below") << 2 << 2 << 2048 << 2048 << true << true
                                  << int(GroupType::Imbalanced);
    QTest::newRow("one task on four CPUs")
        << 4 << 1 << 1024 << 1024 << false << false << int(GroupType::HasSpare);
}

void TestLoadBalance::classify()
{
    QFETCH(int, weight);
    QFETCH(int, nr);
    QFETCH(int, util);
    QFETCH(int, runnable);
    QFETCH(bool, imbalanced);
    QFETCH(bool, smt);
    QFETCH(int, expected);
    SgLbStats s = group(weight, nr, 0, util, runnable);
    s.smtBalance = smt;
    QCOMPARE(int(groupClassify(117, s, imbalanced)), expected);
}

// --- calculate_imbalance ----------------------------------------------------------------------

void TestLoadBalance::imbalanceHeavyLight()
{
    // CPU 0: two nice −10 hogs (2 · 9548 = 19096), CPU 1: two nice 19 hogs (2 · 15 = 30), both
    // overloaded. avg_load: 19096·1024/1024 = 19096 and 30. Domain: 19126·1024/2048 = 9563.
    // 100·19096 > 117·30, so imbalance = min(19096 − 9563, 9563 − 30)·1024/1024 = 9533.
    SdLbStats sds;
    sds.busiest = 1;
    sds.busiestStat = group(1, 2, 19096, 1024, 2048);
    sds.busiestStat.type = GroupType::Overloaded;
    sds.busiestStat.avgLoad = 19096;
    sds.localStat = group(1, 2, 30, 1024, 2048);
    sds.localStat.type = GroupType::Overloaded;
    sds.localStat.avgLoad = 30;
    sds.totalLoad = 19126;
    sds.totalCapacity = 2048;
    MigrationType type{};
    QCOMPARE(findImbalance(sds, SdShareLlc, 117, CpuIdleType::NotIdle, type), int64_t{9533});
    QCOMPARE(type, MigrationType::Load);
    QCOMPARE(sds.avgLoad, int64_t{9563});
}

void TestLoadBalance::imbalanceWithinImbalancePct()
{
    // Both overloaded, local 1000, busiest 1100, domain 1050: 100·1100 = 110000 ≤ 117·1000 =
    // 117000, balanced.
    SdLbStats sds;
    sds.busiest = 1;
    sds.busiestStat = group(1, 2, 1100, 1024, 2048);
    sds.busiestStat.type = GroupType::Overloaded;
    sds.busiestStat.avgLoad = 1100;
    sds.localStat = group(1, 2, 1000, 1024, 2048);
    sds.localStat.type = GroupType::Overloaded;
    sds.localStat.avgLoad = 1000;
    sds.totalLoad = 2100;
    sds.totalCapacity = 2048;
    MigrationType type{};
    QCOMPARE(findImbalance(sds, SdShareLlc, 117, CpuIdleType::NotIdle, type), int64_t{0});
}

void TestLoadBalance::imbalanceSpareTasks()
{
    // Idle CPU 1 (has_spare, 0 tasks) against CPU 0 with 3 hogs (overloaded) in an LLC domain:
    // migrate_task, sibling_imbalance = 3 − 0 = 3 (same core counts), halved: 1 task.
    SdLbStats sds;
    sds.busiest = 0;
    sds.busiestStat = group(1, 3, 3072, 1024, 3072);
    sds.busiestStat.type = GroupType::Overloaded;
    sds.localStat = group(1, 0, 0, 0, 0, 1);
    sds.localStat.type = GroupType::HasSpare;
    sds.totalLoad = 3072;
    sds.totalCapacity = 2048;
    sds.preferSibling = false;
    MigrationType type{};
    QCOMPARE(findImbalance(sds, SdShareLlc, 117, CpuIdleType::Idle, type), int64_t{1});
    QCOMPARE(type, MigrationType::Task);
}

void TestLoadBalance::imbalanceSpareUtilAcrossLlc()
{
    // PKG level (no SD_SHARE_LLC), local LLC of 4 CPUs with util 1000 and spare capacity, the
    // other LLC overloaded: migrate_util, imbalance = max(4096, 1000) − 1000 = 3096.
    SdLbStats sds;
    sds.busiest = 1;
    sds.busiestStat = group(4, 6, 6144, 4096, 6144);
    sds.busiestStat.type = GroupType::Overloaded;
    sds.localStat = group(4, 1, 1024, 1000, 1024, 3);
    sds.localStat.type = GroupType::HasSpare;
    sds.totalLoad = 7168;
    sds.totalCapacity = 8192;
    MigrationType type{};
    QCOMPARE(findImbalance(sds, 0, 117, CpuIdleType::Idle, type), int64_t{3096});
    QCOMPARE(type, MigrationType::Util);
}

void TestLoadBalance::imbalanceBusyCpuLeavesSpareGroup()
{
    // A busy CPU does not pull from a group that is merely fully busy.
    SdLbStats sds;
    sds.busiest = 1;
    sds.busiestStat = group(2, 2, 2048, 2048, 2048);
    sds.busiestStat.type = GroupType::FullyBusy;
    sds.localStat = group(2, 1, 1024, 1024, 1024, 1);
    sds.localStat.type = GroupType::HasSpare;
    MigrationType type{};
    QCOMPARE(findImbalance(sds, SdShareLlc, 117, CpuIdleType::NotIdle, type), int64_t{0});
}

void TestLoadBalance::siblingImbalanceByCores()
{
    // Local group 2 cores, 0 tasks; busiest 4 cores, 6 tasks: 2·6 − 4·0 = 12, normalised
    // (2·12 + 2 + 4)/(2 + 4) = 30/6 = 5 (twice the tasks to move, rounded): 5 >> 1 = 2 tasks.
    SdLbStats sds;
    sds.busiestStat = group(4, 6, 6144, 4096, 6144);
    sds.busiestStat.cores = 4;
    sds.localStat = group(2, 0, 0, 0, 0, 2);
    sds.localStat.cores = 2;
    QCOMPARE(siblingImbalance(sds, CpuIdleType::Idle), int64_t{5});
    QCOMPARE(siblingImbalance(sds, CpuIdleType::NotIdle), int64_t{0});
    // Local 1 core with 0 tasks, busiest 3 cores with 2 tasks: 1·2 = 2, (4 + 4)/4 = 2.
    sds.busiestStat.cores = 3;
    sds.busiestStat.sumNrRunning = 2;
    sds.localStat.cores = 1;
    QCOMPARE(siblingImbalance(sds, CpuIdleType::Idle), int64_t{2});
}

void TestLoadBalance::taskHLoadInGroup()
{
    // Root cfs_rq load 2048: a group entity of load 1024 and a root task of 1024. The group's
    // cfs_rq holds two tasks of 512 (load 1024). h_load(group cfs_rq) = 2097152/2049 = 1023
    // (1023.5 floored); task_h_load = 512·1023/1025 = 523776/1025 = 511 (511.0009 floored).
    const ProfileChoices choices{};
    CfsRq root(choices);
    CfsRq groupRq(choices);
    SchedEntity ge;
    ge.cfsRq = &root;
    ge.myQ = &groupRq;
    ge.avg.loadAvg = 1024;
    groupRq.owner = &ge;
    root.avg.loadAvg = 2048;
    groupRq.avg.loadAvg = 1024;
    SchedEntity t;
    t.cfsRq = &groupRq;
    t.avg.loadAvg = 512;
    QCOMPARE(LoadBalancer::taskHLoad(t), int64_t{511});
    // A root task: 1024·2048/2049 = 1023.
    SchedEntity r;
    r.cfsRq = &root;
    r.avg.loadAvg = 1024;
    QCOMPARE(LoadBalancer::taskHLoad(r), int64_t{1023});
}

// --- detach_tasks() ----------------------------------------------------------------------------

void TestLoadBalance::loadAboveImbalanceRelaxedByFailures()
{
    // The heavy/light state: imbalance 9533 (above). The waiting heavy task's h_load is
    // 9548·19096/19097 = 9547 > 9533: skipped, the balance fails (nr_balance_failed 1). Next
    // time 9547 >> 1 = 4773 ≤ 9533: it moves.
    BalanceMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    m.addTask(0, 9548, 0);       // waiting, cold (last ran 1 s ago)
    m.addTask(0, 9548, 0, true); // running
    m.addTask(1, 15, 0);
    m.addTask(1, 15, 0, true);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QCOMPARE(d.domains(1)[0].nrBalanceFailed, 1);
    QCOMPARE(d.domains(1)[0].balanceInterval, 2); // unbalanced: back to min_interval
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 1);
    QCOMPARE(int(m.moves.size()), 1);
    QCOMPARE(m.moves[0].task, 0);
    QCOMPARE(m.moves[0].cpu, 1);
    QCOMPARE(m.moves[0].detail.level, DomainLevel::Mc);
    QCOMPARE(m.moves[0].detail.busiestGroup, GroupType::Overloaded);
    QCOMPARE(m.moves[0].detail.migration, MigrationType::Load);
    QCOMPARE(d.domains(1)[0].nrBalanceFailed, 0);
}

void TestLoadBalance::hotTaskMovedAfterFailures()
{
    // CPU 0: three nice-0 hogs (3072), CPU 1: one (1024, fully busy). avg 3072 vs 1024, domain
    // 4096·1024/2048 = 2048: imbalance min(1024, 1024) = 1024; task_h_load 1024·3072/3073 =
    // 1023 fits. Both waiting tasks ran 100 µs ago (< 500 µs): cache hot, skipped while
    // nr_balance_failed ≤ cache_nice_tries (1 for MC): attempts 1 and 2 fail, the 3rd moves.
    BalanceMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    const int64_t hot = m.now - 100000;
    m.addTask(0, 1024, hot);
    m.addTask(0, 1024, hot);
    m.addTask(0, 1024, m.now, true);
    m.addTask(1, 1024, m.now, true);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QCOMPARE(d.domains(1)[0].nrBalanceFailed, 2);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 1);
    // A cold task moves at once.
    BalanceMachine c(2);
    SchedDomains e(topology(2, 1, 2));
    LoadBalancer lc(c, c, e, 1000, 1000000);
    c.addTask(0, 1024, c.now - 600000);
    c.addTask(0, 1024, hot);
    c.addTask(0, 1024, c.now, true);
    c.addTask(1, 1024, c.now, true);
    QCOMPARE(lc.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 1);
    QCOMPARE(c.moves[0].task, 0); // the tail of cfs_tasks: the least recently queued
}

void TestLoadBalance::pinnedTaskSkipped()
{
    // Same loads, cold tasks; the tail task (0) is pinned to CPU 0: skipped (LBF_SOME_PINNED),
    // task 1 moves instead.
    BalanceMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, m.now, true);
    m.addTask(1, 1024, m.now, true);
    m.task(0).cpus = CpuSet::single(0);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 1);
    QCOMPARE(m.moves[0].task, 1);
}

void TestLoadBalance::allPinnedBacksOff()
{
    // Every waiting task is pinned: nothing moves, the balance counts as balanced (LBF_ALL_PINNED:
    // nr_balance_failed 0) and balance_interval doubles (2 → 4 ms).
    BalanceMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, m.now, true);
    m.addTask(1, 1024, m.now, true);
    m.task(0).cpus = CpuSet::single(0);
    m.task(1).cpus = CpuSet::single(0);
    m.task(2).cpus = CpuSet::single(0);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QVERIFY(m.moves.empty());
    QCOMPARE(d.domains(1)[0].nrBalanceFailed, 0);
    QCOMPARE(d.domains(1)[0].balanceInterval, 4);
}

// 873199d27bb2 (6.14, kernel-model.md §8.3, choice lb_ineligible): can_migrate_task() refuses a
// task that is not eligible on its own queue while the destination's queue of its group holds an
// entity, unless the domain has failed a balance (nr_balance_failed > 0). Equal nice-0 weights,
// v0 = 0, so V is the mean vruntime of the queued tasks, curr included; a task is eligible iff
// its vruntime ≤ V.
//   "two waiting": CPU 0 has A and B waiting (cold, vruntime 3 ms) and C running (0 ms), CPU 1
//     one running task (its queue: nr_queued 1). Loads as in hotTaskMovedAfterFailures:
//     imbalance 1024, task_h_load 1023 fits. V = (3 + 3 + 0)/3 = 2 ms: A and B are not
//     eligible, C is. `any`: the first balance takes the tail, A. `soft_limit`: A and B refused;
//     C passes the test, clears LBF_ALL_PINNED and is running: nothing moved, nr_balance_failed
//     1 (migrate_load: no active balance); the second balance takes A (1023 >> 1 = 511 ≤ 1024).
//   "curr too": A, B and C at 3 ms, E at 0 ms waiting but pinned to CPU 0: V = 9/4 = 2.25 ms,
//     only E eligible. Imbalance min(4096 − 2560, 2560 − 1024) = 1536. `soft_limit`: A, B, C are
//     refused before the affinity test, E by its affinity (LBF_SOME_PINNED only): LBF_ALL_PINNED
//     stays, the balance ends as all pinned, nr_balance_failed stays 0 and balance_interval
//     doubles (2 → 4 → 8 ms): nothing moves however often it runs. `any`: A moves at once.
//   "idle destination": as "two waiting" with CPU 1 empty (nr_queued 0): the rule does not
//     apply, A moves at once either way.
void TestLoadBalance::ineligibleSoftLimit_data()
{
    QTest::addColumn<QString>("setup");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QList<int>>("moved");  // tasks moved by balances 1, 2, 3 (-1: none)
    QTest::addColumn<QList<int>>("failed"); // nr_balance_failed after each
    QTest::addRow("two waiting, any") << "two"
                                      << "any" << QList<int>{0, -1, -1} << QList<int>{0, 0, 0};
    QTest::addRow("two waiting, soft_limit")
        << "two"
        << "soft_limit" << QList<int>{-1, 0, -1} << QList<int>{1, 0, 0};
    QTest::addRow("curr too, any") << "curr"
                                   << "any" << QList<int>{0, -1, -1} << QList<int>{0, 0, 0};
    QTest::addRow("curr too, soft_limit")
        << "curr"
        << "soft_limit" << QList<int>{-1, -1, -1} << QList<int>{0, 0, 0};
    QTest::addRow("idle destination, soft_limit")
        << "idle"
        << "soft_limit" << QList<int>{0, -1, -1} << QList<int>{0, 0, 0};
}

void TestLoadBalance::ineligibleSoftLimit()
{
    QFETCH(QString, setup);
    QFETCH(QString, value);
    QFETCH(QList<int>, moved);
    QFETCH(QList<int>, failed);
    constexpr uint64_t kMsV = 1000000;
    BalanceMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    ProfileChoices choices;
    QVERIFY(applyChoice(choices, "lb_ineligible", value.toStdString()));
    FeatureSet features;
    features.set(Feature::PlaceLag, true);
    lb.setChoices(&choices);
    lb.setUnits(&features, nullptr, nullptr);
    CfsRq& q0 = *m.rq(0).cfs;
    auto waiting = [&](uint64_t v) -> SchedEntity& {
        SchedEntity& se = m.addTask(0, 1024, 0); // cold: last ran 1 s ago
        se.vruntime = v;
        se.deadline = v + 700000;
        q0.enqueueTree(se);
        ++q0.nrQueued;
        return se;
    };
    const bool curr = setup == "curr";
    waiting(3 * kMsV); // A, task 0
    waiting(3 * kMsV); // B, task 1
    if (curr) {
        waiting(0); // E, task 2, pinned
        m.task(2).cpus = CpuSet::single(0);
    }
    SchedEntity& c = m.addTask(0, 1024, m.now, true);
    // As on the machine: the running task's state is Running. It stays on cfs_tasks and is
    // refused only after the affinity test, so an eligible one clears LBF_ALL_PINNED and the
    // first soft-limited balance fails instead of backing off as all pinned (the model refused
    // it first until December 2026: "two waiting, soft_limit" then moved nothing at all).
    m.task(static_cast<int>(c.task.index())).state = TaskRunState::Running;
    c.vruntime = curr ? 3 * kMsV : 0;
    q0.curr = &c; // counted in V as the running entity
    ++q0.nrQueued;
    if (setup != "idle") {
        m.addTask(1, 1024, m.now, true);
        m.rq(1).cfs->nrQueued = 1;
    }
    QCOMPARE(q0.entityEligible(m.task(0).se), false);
    QCOMPARE(q0.entityEligible(c), !curr);
    int interval = 2;
    for (int i = 0; i < 3; ++i) {
        const size_t before = m.moves.size();
        lb.balanceRq(1, 0, setup == "idle" ? CpuIdleType::Idle : CpuIdleType::NotIdle,
            MigrateReason::Periodic);
        if (moved[i] < 0) {
            QCOMPARE(m.moves.size(), before);
        } else {
            QCOMPARE(m.moves.size(), before + 1);
            QCOMPARE(m.moves.back().task, moved[i]);
            break; // the state changed: the rest is not planned
        }
        QCOMPARE(d.domains(1)[0].nrBalanceFailed, failed[i]);
        if (setup == "curr" && value == "soft_limit") {
            interval *= 2; // all pinned: backs off
            QCOMPARE(d.domains(1)[0].balanceInterval, interval);
        }
    }
}

// --- whole runs --------------------------------------------------------------------------------

void TestLoadBalance::heavyLightTwoCpus()
{
    // Two nice −10 hogs start on CPU 0 and two nice 19 hogs on CPU 1 (pinned), unpinned at
    // 10 ms. Balanced by load (§8.3), each heavy task ends on a CPU of its own with a light one:
    // 9548/(9548 + 15) = 99.8 % of a CPU, so over 20 s ≥ 90 % each (the count-based stand-in
    // gave 50 %).
    const auto scenario = parse(R"({
      "schedlab": 1, "name": "heavy-light", "seed": 1, "duration": "20s",
      "kernel": { "hz": 1000 }, "machine": { "cpus": 2 },
      "tasks": [
        { "name": "heavy", "count": 2, "nice": -10, "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "light", "count": 2, "nice": 19, "cpus": "1", "program": [ { "run": "forever" } ] }
      ],
      "actions": [
        { "at": "10ms", "set": { "task": "heavy-1", "cpus": "0-1" } },
        { "at": "10ms", "set": { "task": "heavy-2", "cpus": "0-1" } },
        { "at": "10ms", "set": { "task": "light-1", "cpus": "0-1" } },
        { "at": "10ms", "set": { "task": "light-2", "cpus": "0-1" } }
      ]
    })");
    QVERIFY(scenario);
    Simulation sim(*scenario, RunOptions{});
    sim.run();
    const Metrics m = sim.metrics();
    for (const char* name : {"heavy-1", "heavy-2"}) {
        const double share = double(taskCpuTime(m, name)) / double(20 * kS);
        QVERIFY2(share >= 0.90, qPrintable(QStringLiteral("%1: %2").arg(name).arg(share)));
    }
}

void TestLoadBalance::cgroupsSpreadOnFourCpus()
{
    // Four hogs in two cgroups of different weights (/A 100: 2 hogs, /B 300: 2 hogs) all start
    // on CPU 0 and are unpinned at 10 ms: idle CPUs pull until each runs one hog, so every hog
    // gets (nearly) a whole CPU, ≥ 90 % over 5 s.
    const auto scenario = parse(R"({
      "schedlab": 1, "name": "cgroups-4cpu", "seed": 1, "duration": "5s",
      "kernel": { "hz": 250 }, "machine": { "cpus": 4 },
      "cgroups": [ { "path": "/A", "cpu.weight": 100 }, { "path": "/B", "cpu.weight": 300 } ],
      "tasks": [
        { "name": "a", "count": 2, "cgroup": "/A", "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "b", "count": 2, "cgroup": "/B", "cpus": "0", "program": [ { "run": "forever" } ] }
      ],
      "actions": [
        { "at": "10ms", "set": { "task": "a-1", "cpus": "0-3" } },
        { "at": "10ms", "set": { "task": "a-2", "cpus": "0-3" } },
        { "at": "10ms", "set": { "task": "b-1", "cpus": "0-3" } },
        { "at": "10ms", "set": { "task": "b-2", "cpus": "0-3" } }
      ]
    })");
    QVERIFY(scenario);
    Simulation sim(*scenario, RunOptions{});
    sim.run();
    const Metrics m = sim.metrics();
    for (const char* name : {"a-1", "a-2", "b-1", "b-2"}) {
        const double share = double(taskCpuTime(m, name)) / double(5 * kS);
        QVERIFY2(share >= 0.90, qPrintable(QStringLiteral("%1: %2").arg(name).arg(share)));
    }
}

void TestLoadBalance::smtHogsSpreadToIdleCore()
{
    // 2 cores × 2 threads; two hogs on the siblings of core 0 (CPUs 0, 1), unpinned at 10 ms.
    // Each CPU runs one task, so only the stopper can move one (no queued task to detach): the
    // idle core's balance sees core 0 as group_smt_balance (migrate_task, 1), fails, and after
    // nr_balance_failed > cache_nice_tries + 2 = 3 pushes the running task: an Active
    // migration, after which the hogs run on different cores.
    const auto scenario =
        twoHogsLetGo("smt-2hogs", R"({ "cpus": 4, "threads_per_core": 2 })", "2s");
    QVERIFY(scenario);
    Simulation sim(*scenario, RunOptions{});
    sim.run();
    const auto h0 = test::taskView(sim, "h0");
    const auto h1 = test::taskView(sim, "h1");
    QVERIFY(h0 && h1);
    QVERIFY2(h0->cpu / 2 != h1->cpu / 2,
        qPrintable(QStringLiteral("h0 on %1, h1 on %2").arg(h0->cpu).arg(h1->cpu)));
    const auto moves = migrations(sim.recording());
    QVERIFY(std::any_of(moves.begin(), moves.end(),
        [](const Record* r) { return r->payload.generic.c == int64_t(MigrateReason::Active); }));
}

// --- asymmetric CPU capacity (kernel-model.md §8.4) ------------------------------------------

void TestLoadBalance::domainsAsymCapacity()
{
    // [1024, 1024, 512, 512] in two LLCs of two CPUs: MC {0,1} and {2,3} each hold one
    // capacity (symmetric); PKG holds both: SD_ASYM_CPUCAPACITY | _FULL, and its child MC loses
    // SD_PREFER_SIBLING. sd_asym_cpucapacity is PKG. The PKG groups: {2,3} capacity 1024, min
    // = max = 512; {0,1} capacity 2048.
    SchedDomains d(topology(4, 1, 2, {1024, 1024, 512, 512}));
    QVERIFY(d.asymCapacity());
    QCOMPARE(d.maxCapacity(), 1024);
    const auto& c2 = d.domains(2);
    QCOMPARE(int(c2.size()), 2);
    QVERIFY(!(c2[0].flags & SdAsymCpuCapacity));
    QVERIFY(!(c2[0].flags & SdPreferSibling));
    QVERIFY(c2[1].flags & SdAsymCpuCapacity);
    QVERIFY(c2[1].flags & SdAsymCpuCapacityFull);
    QCOMPARE(d.asymCapacityDomain(2), &c2[1]);
    const SchedGroup& little = d.group(c2[1].groups[0]);
    QCOMPARE(little.first, 2);
    QCOMPARE(little.capacity, int64_t{1024});
    QCOMPARE(little.minCapacity, int64_t{512});
    QCOMPARE(little.maxCapacity, int64_t{512});
    QCOMPARE(d.group(c2[1].groups[1]).capacity, int64_t{2048});
    // Three capacities [1024, 768, 512, 512]: MC {0,1} spans two of the three (asymmetric, not
    // full), PKG all three (full): sd_asym_cpucapacity of CPU 0 is PKG.
    SchedDomains e(topology(4, 1, 2, {1024, 768, 512, 512}));
    QVERIFY(e.domains(0)[0].flags & SdAsymCpuCapacity);
    QVERIFY(!(e.domains(0)[0].flags & SdAsymCpuCapacityFull));
    QCOMPARE(e.asymCapacityDomain(0), &e.domains(0)[1]);
    // Equal capacities: no flag anywhere.
    SchedDomains f(topology(4, 1, 2));
    QVERIFY(!f.asymCapacity());
    QCOMPARE(f.asymCapacityDomain(0), nullptr);
    QVERIFY(f.domains(0)[0].flags & SdPreferSibling);
}

void TestLoadBalance::reducedCapacityGroupLoad()
{
    // PKG of CPU 0 on [1024, 1024, 512, 512], two LLCs. Nice-0 tasks (load 1024, every CPU's
    // util_avg 1024): CPU 0 two (one running), CPU 1 one, CPUs 2 and 3 two each; the waiting
    // ones are cold. CPU 0 balances PKG (busy, first CPU of its group).
    //   local {0,1}: load 3072, util 1024 + 1024, capacity 2048, 3 tasks on 2 CPUs:
    //     2048·100 = 204800 < 2048·117 = 239616 → overloaded; avg_load 3072·1024/2048 = 1536.
    //   {2,3}: load 4096, util min(1024, 512)·2 = 1024, capacity 512 + 512 = 1024, 4 tasks:
    //     102400 < 1024·117 = 119808 → overloaded; avg_load 4096·1024/1024 = 4096.
    //   domain avg = 7168·1024/3072 = 2389; 1536 < 2389, 409600 > 117·1536 = 179712: unbalanced.
    //   migrate_load: min((4096 − 2389)·1024, (2389 − 1536)·2048)/1024 = min(1747968,
    //     1746944)/1024 = 1706. Source: CPU 2 (load 2048·1 > 0; CPU 3's 2048·512 is not more
    //     than 2048·512). Its waiting task: h_load 1024·2048/2049 = 1023 ≤ 1706 → moved.
    auto load = [](BalanceMachine& f) {
        for (int cpu : {0, 0, 1, 2, 2, 3, 3}) {
            const bool waiting = (cpu == 0 || cpu >= 2) && f.nr[size_t(cpu)] == 0;
            f.addTask(cpu, 1024, waiting ? 0 : f.now, !waiting); // the first of 0, 2, 3 waits
        }
    };
    BalanceMachine m(4);
    SchedDomains d(topology(4, 1, 2, {1024, 1024, 512, 512}));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    load(m); // task 3: CPU 2's waiting one
    QCOMPARE(lb.balanceRq(0, 1, CpuIdleType::NotIdle, MigrateReason::Periodic), 1);
    QCOMPARE(int(m.moves.size()), 1);
    QCOMPARE(moveText(m.moves[0]), QStringLiteral("task 3 -> 0: periodic PKG overloaded/load"));
    // Equal capacities: {2,3} has capacity 2048, util 2048, avg_load 2048, domain 7168·1024/
    // 4096 = 1792: imbalance min(256·2048, 256·2048)/1024 = 512 < 1023: nothing moves.
    BalanceMachine n(4);
    SchedDomains e(topology(4, 1, 2));
    LoadBalancer le(n, n, e, 1000, 1000000);
    load(n);
    QCOMPARE(le.balanceRq(0, 1, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QVERIFY(n.moves.empty());
    // The group arithmetic alone: two 512 CPUs with 3 tasks, util 1024, runnable 2200 are
    // overloaded (102400 < 119808); the same on two 1024 CPUs (204800 > 119808, 2048·117 =
    // 239616 ≥ 220000) has spare capacity.
    SgLbStats little = group(2, 3, 3072, 1024, 2200);
    little.groupCapacity = 1024;
    QCOMPARE(groupClassify(117, little, false), GroupType::Overloaded);
    QCOMPARE(groupClassify(117, group(2, 3, 3072, 1024, 2200), false), GroupType::HasSpare);
}

void TestLoadBalance::misfitStatusByHand()
{
    // update_misfit_status(): fits_capacity(util, 512) holds up to util 409 (523520 < 524288).
    // A nice-0 hog alone on its CPU: task_h_load = 1024·1024/(1024 + 1) = 1023.
    BalanceMachine m(4);
    SchedEntity& hog = m.addTask(2, 1024, 0, true);
    const int64_t hLoad = LoadBalancer::taskHLoad(hog);
    QCOMPARE(hLoad, int64_t{1023});
    MisfitInput in;
    in.hLoad = hLoad;
    in.capacity = 512;
    in.nrCpusAllowed = 4;
    in.maxAllowedCapacity = 1024;
    in.util = 409;
    QCOMPARE(misfitTaskLoad(in), int64_t{0});
    in.util = 410;
    QCOMPARE(misfitTaskLoad(in), int64_t{1023});
    in.hLoad = 0; // never 0 for a misfit task
    QCOMPARE(misfitTaskLoad(in), int64_t{1});
    in.hLoad = hLoad;
    in.nrCpusAllowed = 1; // pinned: cannot move
    QCOMPARE(misfitTaskLoad(in), int64_t{0});
    in.nrCpusAllowed = 2;
    in.maxAllowedCapacity = 512; // 6.10+: allowed only little CPUs
    QCOMPARE(misfitTaskLoad(in), int64_t{0});
    in.fittingCpuRule = false; // 6.6: misfit all the same
    QCOMPARE(misfitTaskLoad(in), int64_t{1023});
    // A hog of util 1000 on a 1024 CPU does not fit either (1280000 ≥ 1048576): misfit on 6.6,
    // not on 6.10+ where the CPU is the biggest it may use.
    in.util = 1000;
    in.capacity = 1024;
    in.maxAllowedCapacity = 1024;
    QCOMPARE(misfitTaskLoad(in), int64_t{1023});
    in.fittingCpuRule = true;
    QCOMPARE(misfitTaskLoad(in), int64_t{0});
}

void TestLoadBalance::misfitPushedByActiveBalance()
{
    // One LLC of [1024, 1024, 512, 512] (MC {0-3}: SD_ASYM_CPUCAPACITY). CPU 0 runs a hog, CPU
    // 2 (little) a misfit hog (misfit_task_load 1023 as above), 1 and 3 are idle. Idle CPU 1
    // balances MC (the first idle CPU of its group {1}):
    //   {2}: 1 task, util min(1024, 512) = 512, not overloaded (1 task on 1 CPU); misfit load
    //     1023 → misfit_task. Kept: 1024·1024 > 512·1078 (CPU 1 is bigger than the group's
    //     max_capacity) and the local group {1} has spare.
    //   {3}: no task. {0}: fully busy (102400 < 1024·117), less severe than misfit_task.
    // Misfit is balanced regardless of the loads: migrate_misfit, imbalance 1; source CPU 2 (the
    // largest misfit load). It runs one task: nothing to detach; need_active_balance() for
    // migrate_misfit: the stopper pushes the hog to CPU 1. 6.10+: no nr_balance_failed.
    BalanceMachine m(4);
    m.stopperWorks = true;
    SchedDomains d(topology(4, 1, 4, {1024, 1024, 512, 512}));
    LoadBalancer lb(m, m, d, 1000, 1000000);
    m.addTask(2, 1024, m.now, true); // task 0, the misfit hog
    m.addTask(0, 1024, m.now, true);
    m.rqs[2]->misfitTaskLoad = 1023;
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::Idle, MigrateReason::Periodic), 1);
    QCOMPARE(int(m.moves.size()), 1);
    QCOMPARE(moveText(m.moves[0]), QStringLiteral("task 0 -> 1: active MC misfit_task/misfit"));
    QCOMPARE(d.domains(1)[0].nrBalanceFailed, 0);
    // 6.6 counts the balance as failed.
    BalanceMachine o(4);
    o.stopperWorks = true;
    SchedDomains e(topology(4, 1, 4, {1024, 1024, 512, 512}));
    LoadBalancer lo(o, o, e, 1000, 1000000);
    lo.setTraits(&findProfile("6.6")->traits);
    o.addTask(2, 1024, o.now, true);
    o.addTask(0, 1024, o.now, true);
    o.rqs[2]->misfitTaskLoad = 1023;
    QCOMPARE(lo.balanceRq(1, 0, CpuIdleType::Idle, MigrateReason::Periodic), 1);
    QCOMPARE(e.domains(1)[0].nrBalanceFailed, 1);
    // A busy CPU 0 (no spare capacity in its group {0}) does not take the misfit task.
    BalanceMachine b(4);
    b.stopperWorks = true;
    SchedDomains f(topology(4, 1, 4, {1024, 1024, 512, 512}));
    LoadBalancer lbb(b, b, f, 1000, 1000000);
    b.addTask(2, 1024, b.now, true);
    b.addTask(0, 1024, b.now, true);
    b.addTask(1, 1024, b.now, true);
    b.addTask(3, 1024, b.now, true);
    b.rqs[2]->misfitTaskLoad = 1023;
    QCOMPARE(lbb.balanceRq(0, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QVERIFY(b.moves.empty());
}

void TestLoadBalance::misfitHogMovesToBigCpu()
{
    // A hog pinned to little CPU 2 of [1024, 1024, 512, 512] is let go at 10 ms. A new task
    // starts at half its CPU's spare capacity (post_init_entity_util_avg(), §6.6): 256 on the
    // idle 512 CPU. Its PELT clock runs at half speed there (capacity invariance, §6.6: 1 ms of
    // running counts 0.5 ms), so its util is about 1024 − 768 · 0.5^(p/32 periods) at PELT time
    // p = t/2 (times PELT's 47788/divider): it exceeds 409, the most a 512 CPU fits (409·1280 =
    // 523520 < 524288), once 0.5^(p/32) < 614/768 → p > 10.3 periods ≈ 10.8 ms (10.9 ms with the
    // divider at its largest), i.e. t ≈ 21.6–21.8 ms, seen at the 22 ms tick or, with the
    // divider's slack on a margin of 2–3 units, the 23 ms one. That tick makes it misfit; with
    // one task the CPU kicks the NOHZ idle balancer (sd_asym_cpucapacity and misfit_task_load
    // set), whose domain walk from an idle big CPU pulls it by active balance (reason active,
    // group misfit_task, migration misfit) in that tick or the next: at 22 to 24 ms. (Without
    // the invariance, 11 or 12 ms.) It then stays on a big CPU: there it is not misfit (6.10+:
    // the biggest capacity it may use).
    const auto scenario = parse(R"({
      "schedlab": 1, "name": "misfit", "seed": 1, "duration": "200ms",
      "kernel": { "hz": 1000 },
      "machine": { "cpus": 4, "capacities": [1024, 1024, 512, 512] },
      "tasks": [ { "name": "hog", "cpus": "2", "program": [ { "run": "forever" } ] } ],
      "actions": [ { "at": "10ms", "set": { "task": "hog", "cpus": "0-3" } } ]
    })");
    QVERIFY(scenario);
    Simulation sim(*scenario, RunOptions{});
    sim.run();
    const auto moves = migrations(sim.recording());
    QCOMPARE(int(moves.size()), 1);
    const Record& r = *moves[0];
    const MigrateDetail dt = MigrateDetail::unpack(r.payload.generic.d);
    QCOMPARE(r.payload.generic.c, int64_t(MigrateReason::Active));
    QCOMPARE(dt.busiestGroup, GroupType::MisfitTask);
    QCOMPARE(dt.migration, MigrationType::Misfit);
    QVERIFY2(r.time >= 22000000 && r.time <= 24000000, qPrintable(QString::number(r.time)));
    const auto hog = test::taskView(sim, "hog");
    QVERIFY(hog);
    QVERIFY(hog->cpu == 0 || hog->cpu == 1);
}

void TestLoadBalance::utilEstKeepsWakerOffLittleCpu_data()
{
    QTest::addColumn<bool>("utilEst");
    QTest::addRow("UTIL_EST") << true;
    QTest::addRow("NO_UTIL_EST") << false;
}

void TestLoadBalance::utilEstKeepsWakerOffLittleCpu()
{
    // util_est (kernel-model.md §6.8) on capacities [1024, 512]. p starts pinned to the little
    // CPU 1 with util 256 (half its spare capacity) and runs 40 ms there, 20 ms of PELT time
    // (the clock runs at half speed on a 512 CPU, §6.6): util ≈ 1024 − 768 · 0.5^(20/33.55) =
    // 516. Then it may use both CPUs and sleeps 30 ms; CPU 1 goes idle and its PELT clock
    // catches up with clock_task. q, pinned to CPU 1, runs there from 68 to 69 ms, so CPU 1's
    // cfs_rq was last updated at PELT time 68.5 ms. At the wakeup select_idle_sibling() syncs
    // p's averages to that update (sync_entity_load_avg(), §8.4): util ≈ 516 ·
    // 0.5^(48.5/33.55) = 189. A 512 CPU fits at most 409 (409·1280 < 512·1024). Its estimate,
    // taken at the dequeue for the sleep (util_est_update(): an increase is taken whole), is
    // 516. So with UTIL_EST task_util_est() = 516 does not fit CPU 1 and select_idle_sibling()
    // goes past the idle prev CPU to select_idle_capacity(): CPU 0; with NO_UTIL_EST the
    // decayed 189 fits and p stays on its idle prev CPU 1.
    QFETCH(bool, utilEst);
    const auto scenario = parse(R"({
      "schedlab": 1, "name": "util-est", "seed": 1, "duration": "100ms",
      "kernel": { "hz": 1000 },
      "machine": { "cpus": 2, "capacities": [1024, 512] },
      "tasks": [ { "name": "p", "cpus": "1", "program": [
                   { "run": "40ms" }, { "cpus": "0-1" }, { "sleep": "30ms" }, { "run": "5ms" } ] },
                 { "name": "q", "cpus": "1", "start": "68ms", "program": [ { "run": "1ms" } ] } ]
    })");
    QVERIFY(scenario);
    RunOptions options;
    if (!utilEst)
        options.features.push_back("NO_UTIL_EST");
    Simulation sim(*scenario, options);
    sim.run();
    // (Running on CPU 1 after a wakeup there, p turns misfit and is moved later by active
    // balance: only the wakeup's own placement is compared.)
    std::vector<const Record*> moves;
    for (const Record* r : migrations(sim.recording()))
        if (r->payload.generic.c == int64_t(MigrateReason::Wakeup))
            moves.push_back(r);
    if (utilEst) {
        QCOMPARE(int(moves.size()), 1);
        const Record& r = *moves[0];
        QCOMPARE(r.time, int64_t{70000000});
        QCOMPARE(r.payload.generic.c, int64_t(MigrateReason::Wakeup));
        QCOMPARE(r.payload.generic.a, int64_t{1});
        QCOMPARE(r.payload.generic.b, int64_t{0});
    } else {
        QCOMPARE(int(moves.size()), 0);
    }
    QVERIFY(sim.invariantViolations().empty());
}

// --- ITMT asymmetric packing (kernel-model.md §8.5) ------------------------------------------

void TestLoadBalance::domainsItmt()
{
    // One LLC of 4 CPUs, priorities 40/30/20/10: PKG spans what MC spans and is dropped; MC
    // has SD_ASYM_PACKING and is sd_asym_packing; its groups are single CPUs, each its own
    // preferred CPU.
    SchedDomains a(topology(4, 1, 4, {}, {40, 30, 20, 10}));
    QCOMPARE(int(a.domains(0).size()), 1);
    QVERIFY(a.domains(0)[0].flags & SdAsymPacking);
    QCOMPARE(a.asymPackingDomain(0), &a.domains(0)[0]);
    QCOMPARE(a.group(a.domains(0)[0].groups[3]).asymPreferCpu, 3);
    // 4 cores × 2 threads, 2 cores per LLC (SMT, MC, PKG), each core's siblings at one
    // priority: 10, 20, 30, 40 per core. No flag at SMT (6.5+), both MC and PKG have it;
    // sd_asym_packing is the highest (PKG). PKG's group {0-3} prefers CPU 2 (priority 20, the
    // first of the two), {4-7} prefers CPU 6; MC's group {2,3} prefers CPU 2.
    SchedDomains b(topology(8, 2, 2, {}, {10, 10, 20, 20, 30, 30, 40, 40}));
    const auto& d0 = b.domains(0);
    QCOMPARE(int(d0.size()), 3);
    QVERIFY(!(d0[0].flags & SdAsymPacking));
    QVERIFY(d0[1].flags & SdAsymPacking);
    QVERIFY(d0[2].flags & SdAsymPacking);
    QCOMPARE(b.asymPackingDomain(0), &d0[2]);
    QCOMPARE(b.group(d0[2].groups[0]).asymPreferCpu, 2);
    QCOMPARE(b.group(d0[2].groups[1]).asymPreferCpu, 6);
    QCOMPARE(b.group(d0[1].groups[1]).asymPreferCpu, 2);
    // Without ITMT: no flag, no sd_asym_packing.
    SchedDomains c(topology(8, 2, 2));
    QCOMPARE(c.asymPackingDomain(0), nullptr);
    QVERIFY(!(c.domains(0)[1].flags & SdAsymPacking));
}

void TestLoadBalance::asymPackingPullsToPreferredCpu()
{
    // One LLC of 4 CPUs, priorities 40/30/20/10 (CPU 0 preferred); one task runs alone on CPU 3.
    // Idle CPU 0 balances MC: group {3} has a task and CPU 0 (40) is preferred to its CPU 3
    // (10): group_asym_packing, which bypasses the load checks: migrate_task, imbalance =
    // sum_h_nr_running = 1. Source CPU 3 (its priority is lower than CPU 0's, so it is not
    // skipped). It runs its only task: nothing to detach; asym_active_balance() (idle, CPU 0
    // preferred) makes the stopper push it to CPU 0.
    const CpuTopology itmt = topology(4, 1, 4, {}, {40, 30, 20, 10});
    Rig one(itmt);
    one.m.addTask(3, 1024, one.m.now, true);
    QCOMPARE(one.lb.balanceRq(0, 0, CpuIdleType::Idle, MigrateReason::Periodic), 1);
    QCOMPARE(int(one.m.moves.size()), 1);
    QCOMPARE(moveText(one.m.moves[0]), QStringLiteral("task 0 -> 0: active MC asym_packing/task"));
    // Two candidates, CPU 1 (30) and CPU 3 (10): the group of lowest priority is the busiest,
    // so CPU 0 takes CPU 3's task even though the ring meets {1} first.
    Rig two(itmt);
    two.m.addTask(1, 1024, two.m.now, true); // task 0
    two.m.addTask(3, 1024, two.m.now, true); // task 1
    QCOMPARE(two.lb.balanceRq(0, 0, CpuIdleType::Idle, MigrateReason::Periodic), 1);
    QCOMPARE(
        moveText(two.m.moves.at(0)), QStringLiteral("task 1 -> 0: active MC asym_packing/task"));
    // A CPU of lower priority does not pull a lone task from a preferred one: idle CPU 3 sees
    // {0} as has_spare with one task on one CPU, and moving it would only move the imbalance.
    Rig low(itmt);
    low.m.addTask(0, 1024, low.m.now, true);
    QCOMPARE(low.lb.balanceRq(3, 0, CpuIdleType::Idle, MigrateReason::Periodic), 0);
    QVERIFY(low.m.moves.empty());
    // A busy CPU never packs: CPU 0 running a task of its own does not take CPU 3's.
    Rig busy(itmt);
    busy.m.addTask(3, 1024, busy.m.now, true);
    busy.m.addTask(0, 1024, busy.m.now, true);
    QCOMPARE(busy.lb.balanceRq(0, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QVERIFY(busy.m.moves.empty());
}

void TestLoadBalance::asymPackingNeedsAnIdleCore()
{
    // 2 cores × 2 threads in one LLC, core 0 (CPUs 0, 1) at priority 20, core 1 (2, 3) at 10.
    // A task runs on CPU 2. Idle CPU 0 balances MC: its whole core is idle, so it goes by
    // priority (sched_use_asym_prio); group {2,3} has one busy CPU (weight 2 − 1 idle = 1) and
    // prefers CPU 2 (10 < 20): group_asym_packing, and the stopper moves the task to CPU 0.
    const CpuTopology smt = topology(4, 2, 2, {}, {20, 20, 10, 10});
    Rig idleCore(smt);
    idleCore.m.addTask(2, 1024, idleCore.m.now, true);
    QCOMPARE(idleCore.lb.balanceRq(0, 1, CpuIdleType::Idle, MigrateReason::Periodic), 1);
    QCOMPARE(moveText(idleCore.m.moves.at(0)),
        QStringLiteral("task 0 -> 0: active MC asym_packing/task"));
    // With CPU 1 busy, core 0 is not idle: CPU 0 does not go by priority. Each core runs one
    // task (both groups has_spare, one idle CPU each): nothing to move.
    Rig halfBusy(smt);
    halfBusy.m.addTask(2, 1024, halfBusy.m.now, true);
    halfBusy.m.addTask(1, 1024, halfBusy.m.now, true);
    QCOMPARE(halfBusy.lb.balanceRq(0, 1, CpuIdleType::Idle, MigrateReason::Periodic), 0);
    QVERIFY(halfBusy.m.moves.empty());
}

void TestLoadBalance::itmtHogsPackOnPreferredCpus()
{
    // 4 CPUs in one LLC with ITMT priorities 10/20/30/40; two hogs start pinned to CPUs 0 and
    // 1 and are let go at 10 ms. The next tick of a busy CPU finds an idle CPU of higher
    // priority in sd_asym_packing and kicks the NOHZ idle balancer; idle CPUs 3 and 2 each
    // take one hog by active balance (group asym_packing, migrate_task). Then the hogs sit on
    // the two preferred CPUs; CPUs 0 and 1 (lower priority) never take a lone task back.
    const auto scenario =
        twoHogsLetGo("itmt", R"({ "cpus": 4, "itmt_priorities": [10, 20, 30, 40] })", "300ms");
    QVERIFY(scenario);
    Simulation sim(*scenario, RunOptions{});
    sim.run();
    const auto h0 = test::taskView(sim, "h0");
    const auto h1 = test::taskView(sim, "h1");
    QVERIFY(h0 && h1);
    QCOMPARE(std::min(h0->cpu, h1->cpu), 2);
    QCOMPARE(std::max(h0->cpu, h1->cpu), 3);
    const auto moves = migrations(sim.recording());
    QCOMPARE(int(moves.size()), 2);
    for (const Record* r : moves) {
        const MigrateDetail dt = MigrateDetail::unpack(r->payload.generic.d);
        QCOMPARE(r->payload.generic.c, int64_t(MigrateReason::Active));
        QCOMPARE(dt.busiestGroup, GroupType::AsymPacking);
        QCOMPARE(dt.migration, MigrationType::Task);
        QVERIFY2(r->time > 10000000 && r->time <= 13000000, qPrintable(QString::number(r->time)));
    }
}

// rq->avg_idle (kernel-model.md §8.3): starts at 2 · sysctl_sched_migration_cost = 1 ms, moves
// by 1/8 of each idle period's difference (truncated toward zero) and is capped at
// 2 · max_idle_balance_cost = 1 ms.
void TestLoadBalance::avgIdle()
{
    Rig r(topology(2, 1, 2));
    QCOMPARE(r.lb.avgIdle(0), int64_t{1000000});
    r.lb.idleEnded(0, 200000); // 1000000 + (200000 − 1000000)/8 = 900000
    QCOMPARE(r.lb.avgIdle(0), int64_t{900000});
    r.lb.idleEnded(0, 5000000); // 900000 + 4100000/8 = 1412500, capped
    QCOMPARE(r.lb.avgIdle(0), int64_t{1000000});
    r.lb.idleEnded(0, 3000); // 1000000 − 997000/8 = 875375
    QCOMPARE(r.lb.avgIdle(0), int64_t{875375});
    QCOMPARE(r.lb.avgIdle(1), int64_t{1000000}); // per CPU
}

// The NOHZ stats cadence (kernel-model.md §6.6): CPU 1 runs two tasks pinned to it, CPU 0 is idle
// with its tick stopped and keeps blocked load. CPU 1's ticks (HZ 1000) update CPU 0's blocked
// load only through the idle load balancer's kicks:
// * a balance kick (stats included) when CPU 0's balance is due: every balance finds only pinned
//   tasks, so its interval doubles, 4, 8, 16, 32, 64, 128 ms, up to max_load_balance_interval =
//   HZ · 2 CPUs / 10 = 200 ms: kicks at 1, 5, 13, 29, 61, 125, 253, 453, 653, 853 ms;
// * a stats kick once nohz.next_blocked, 32 jiffies after the last stats update, has passed:
//   33 ms after the previous update of either kind, unless a balance kick comes first.
void TestLoadBalance::nohzStatsCadence()
{
    Rig r(topology(2, 1, 2));
    const int64_t t0 = r.m.now;
    for (int k = 0; k < 2; ++k) {
        SchedEntity& se = r.m.addTask(1, 1024, t0, k == 0);
        r.m.task(static_cast<int>(se.task.index())).cpus = CpuSet::single(1);
    }
    r.lb.noteOverloaded();
    r.lb.cpuEnteredIdle(0);
    for (int ms = 1; ms < 1000; ++ms) {
        r.m.now = t0 + int64_t{ms} * 1000000;
        r.lb.tick(1);
    }
    QVERIFY(r.m.moves.empty());
    std::vector<int64_t> cpu0;
    for (const auto& [cpu, at] : r.m.blockedUpdates)
        if (cpu == 0)
            cpu0.push_back((at - t0) / 1000000);
    const std::vector<int64_t> expected{1, 5, 13, 29, 61, 94, 125, 158, 191, 224, 253, 286, 319,
        352, 385, 418, 451, 453, 486, 519, 552, 585, 618, 651, 653, 686, 719, 752, 785, 818, 851,
        853, 886, 919, 952, 985};
    QCOMPARE(cpu0, expected);
}

// NI_RANDOM (kernel-model.md §8.3, 33cf66d88306): CPU 1 runs a pinned task and has a second one
// waiting; CPU 0 goes newly idle again and again.
// * While the waiting task is pinned too, no balance can pull: each call counts, successes stay
//   0, and every 1024 calls the success count becomes the ratio and both halve. From sd_init()'s
//   512 / 256 / 512: after 512 calls ratio 256 (call 512, success 128), then 128, 64, and after
//   2048 calls ratio 32, call 512, success 16 -- with or without NI_RANDOM (the statistics are
//   kept either way).
// * Then, 300 times from that state, the waiting task may move. Without NI_RANDOM every one of
//   300 new-idle balances pulls it. With it a balance is tried only when a 1024-sided die shows
//   at most 1 + ratio = 33, probability 34 / 1024, so about 300 · 34 / 1024 = 10 pulls (the
//   ratio is not renewed before call 1024, 512 calls away); 1-30 is beyond doubt for any seed.
void TestLoadBalance::newidleProportional_data()
{
    QTest::addColumn<bool>("niRandom");
    QTest::newRow("NI_RANDOM") << true;
    QTest::newRow("NO_NI_RANDOM") << false;
}

void TestLoadBalance::newidleProportional()
{
    QFETCH(bool, niRandom);
    Rig r(topology(2, 1, 2));
    FeatureSet features;
    features.set(Feature::NiRandom, niRandom);
    r.lb.setUnits(&features, nullptr, nullptr);
    r.lb.seedRng(1);
    SchedEntity& running = r.m.addTask(1, 1024, r.m.now, true);
    SchedEntity& waiting = r.m.addTask(1, 1024, 0); // last ran long ago: not cache hot
    Task& waiter = r.m.task(static_cast<int>(waiting.task.index()));
    r.m.task(static_cast<int>(running.task.index())).cpus = CpuSet::single(1);
    waiter.cpus = CpuSet::single(1);
    r.lb.noteOverloaded();
    for (int i = 0; i < 2048; ++i)
        QVERIFY(!r.lb.newIdle(0));
    const SchedDomain& sd = r.d.domains(0)[0];
    QCOMPARE(sd.newidleRatio, 32u);
    QCOMPARE(sd.newidleCall, 512u);
    QCOMPARE(sd.newidleSuccess, 16u);
    QVERIFY(r.m.moves.empty());

    // Each try on a machine of its own in that state (a pull changes the queues), the die's
    // stream seeded differently each time.
    int pulls = 0;
    for (int i = 0; i < 300; ++i) {
        Rig t(topology(2, 1, 2));
        t.lb.setUnits(&features, nullptr, nullptr);
        t.lb.seedRng(static_cast<uint64_t>(i) + 2);
        SchedDomain& fresh = t.d.domains(0)[0];
        fresh.newidleCall = sd.newidleCall;
        fresh.newidleSuccess = sd.newidleSuccess;
        fresh.newidleRatio = sd.newidleRatio;
        SchedEntity& cur = t.m.addTask(1, 1024, t.m.now, true);
        t.m.task(static_cast<int>(cur.task.index())).cpus = CpuSet::single(1);
        SchedEntity& other = t.m.addTask(1, 1024, 0);
        t.lb.noteOverloaded();
        if (!t.lb.newIdle(0))
            continue;
        ++pulls;
        QCOMPARE(t.m.moves.size(), size_t{1});
        QCOMPARE(t.m.moves[0].task, static_cast<int>(other.task.index()));
        QCOMPARE(t.m.moves[0].cpu, 0);
    }
    qInfo("%s: %d pulls in 300", niRandom ? "NI_RANDOM" : "NO_NI_RANDOM", pulls);
    if (niRandom) {
        QVERIFY2(pulls >= 1 && pulls <= 30, qPrintable(QString::number(pulls)));
    } else {
        QCOMPARE(pulls, 300);
    }
}

// The new-idle cost gate (kernel-model.md §8.3): with a balance costing 300 µs, the first balance
// of CPU 0 (avg_idle at its start, 2 × 500 µs) runs and sets max_newidle_lb_cost; once avg_idle
// has fallen below 300 µs the next one is skipped, and after one long idle period it runs and
// pulls. At cost 0 it pulls at any avg_idle.
// avg_idle by hand (update_avg(): += (sample − avg) / 8, truncated toward 0), ten idle periods of
// 0 ns from 1 000 000: 875 000, 765 625, 669 922, 586 182, 512 910, 448 797, 392 698, 343 611,
// 300 660, 263 078; then one of 1 ms: 263 078 + 736 922 / 8 = 355 193.
void TestLoadBalance::newidleCostGate()
{
    Rig r(topology(2, 1, 2));
    r.lb.setNewidleCost(300000);
    r.lb.noteOverloaded();
    QVERIFY(!r.lb.newIdle(0)); // nothing to pull, but the balance ran and cost 300 µs
    const SchedDomain& sd = r.d.domains(0)[0];
    QCOMPARE(sd.maxNewidleLbCost, int64_t{300000});
    QCOMPARE(r.lb.maxIdleBalanceCost(0), int64_t{500000});    // 300 µs is below its floor
    QCOMPARE(r.d.domains(1)[0].maxNewidleLbCost, int64_t{0}); // CPU 1's own view of the level
    for (int k = 0; k < 9; ++k)
        r.lb.idleEnded(0, 0);
    QCOMPARE(r.lb.avgIdle(0), int64_t{300660});
    r.lb.idleEnded(0, 0);
    QCOMPARE(r.lb.avgIdle(0), int64_t{263078});
    SchedEntity& running = r.m.addTask(1, 1024, r.m.now, true);
    r.m.task(static_cast<int>(running.task.index())).cpus = CpuSet::single(1);
    SchedEntity& waiting = r.m.addTask(1, 1024, 0); // last ran long ago: not cache hot
    r.lb.noteOverloaded();     // CPU 1 has two tasks (the empty balance above cleared the flag)
    QVERIFY(!r.lb.newIdle(0)); // 263 078 < 300 000: skipped
    QVERIFY(r.m.moves.empty());
    r.lb.idleEnded(0, 1000000);
    QCOMPARE(r.lb.avgIdle(0), int64_t{355193});
    QVERIFY(r.lb.newIdle(0));
    QCOMPARE(r.m.moves.size(), size_t{1});
    QCOMPARE(r.m.moves[0].task, static_cast<int>(waiting.task.index()));
    QCOMPARE(r.m.moves[0].cpu, 0);

    // At cost 0 (the default) the gate never closes: avg_idle can fall to 0.
    Rig z(topology(2, 1, 2));
    z.lb.noteOverloaded();
    QVERIFY(!z.lb.newIdle(0));
    for (int k = 0; k < 200; ++k)
        z.lb.idleEnded(0, 0);
    QCOMPARE(z.lb.avgIdle(0), int64_t{7}); // 1 000 000 · (7/8)^k until (avg − 0) / 8 is 0
    SchedEntity& zr = z.m.addTask(1, 1024, z.m.now, true);
    z.m.task(static_cast<int>(zr.task.index())).cpus = CpuSet::single(1);
    z.m.addTask(1, 1024, 0);
    z.lb.noteOverloaded();
    QVERIFY(z.lb.newIdle(0));
}

// The costs' decay and avg_idle's cap (kernel-model.md §8.3): a 700 µs balance raises
// max_idle_balance_cost to 700 µs, so avg_idle may reach 1.4 ms; the periodic balance more than a
// second (HZ jiffies) later decays the domain's cost to 700 000 · 253 / 256 = 691 796 and sets
// max_idle_balance_cost to that sum (above the 500 µs floor); a 300 µs cost decays to 296 484,
// below the floor, so max_idle_balance_cost goes back to 500 µs.
void TestLoadBalance::newidleCostDecay()
{
    for (const auto& [cost, decayed, floorOrCost] :
        {std::tuple<int64_t, int64_t, int64_t>{700000, 691796, 691796}, {300000, 296484, 500000}}) {
        Rig r(topology(2, 1, 2));
        r.lb.setNewidleCost(cost);
        r.lb.noteOverloaded();
        QVERIFY(!r.lb.newIdle(0));
        QCOMPARE(r.lb.maxIdleBalanceCost(0), std::max<int64_t>(cost, 500000));
        r.lb.idleEnded(0, 5000000); // 1 000 000 + 4 000 000 / 8 = 1 500 000, capped
        QCOMPARE(r.lb.avgIdle(0), std::min<int64_t>(1500000, 2 * std::max<int64_t>(cost, 500000)));
        r.m.now += 1000 * 1000000; // HZ jiffies later: not yet after the decay's second
        r.lb.tick(0);
        QCOMPARE(r.d.domains(0)[0].maxNewidleLbCost, cost);
        r.m.now += 5 * 1000000; // past the second, and CPU 0's next balance (2 ms) is due
        r.lb.tick(0);
        QCOMPARE(r.d.domains(0)[0].maxNewidleLbCost, decayed);
        QCOMPARE(r.lb.maxIdleBalanceCost(0), floorOrCost);
    }
}

QTEST_APPLESS_MAIN(TestLoadBalance)
#include "tst_loadbalance.moc"
