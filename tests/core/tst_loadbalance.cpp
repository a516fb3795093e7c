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
#include "core/fair/loadbalance.h"
#include "core/record/metrics.h"
#include "core/record/migration.h"
#include "core/record/recording.h"
#include "core/sched/domains.h"
#include "core/sched/rq.h"
#include "core/sim/simulation.h"
#include "support/simlookup.h"
#endif

#include <QTest>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace schedlab;

class TestLoadBalance : public QObject
{
    Q_OBJECT

private Q_SLOTS:
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
    void heavyLightTwoCpus();
    void cgroupsSpreadOnFourCpus();
    void smtHogsSpreadToIdleCore();
};

namespace {

constexpr int64_t kS = 1000000000;

// A machine of Rq's with hand-set PELT averages and cfs_tasks lists; moveTask() moves the
// entity between the lists and records it.
class FakeMachine : public BalanceServices
{
public:
    explicit FakeMachine(int cpus)
    {
        static const ProfileChoices choices{};
        for (int c = 0; c < cpus; ++c)
            rqs.push_back(std::make_unique<Rq>(c, choices));
        nr.assign(static_cast<size_t>(cpus), 0);
    }
    ~FakeMachine() override
    {
        for (auto& rq : rqs)
            rq->cfsTasks.clear();
    }
    /// A queued task with load_avg @p load on @p cpu, last run at @p lastRan.
    SchedEntity& addTask(int cpu, uint64_t load, int64_t lastRan, bool running = false)
    {
        auto se = std::make_unique<SchedEntity>();
        Rq& rq = *rqs[static_cast<size_t>(cpu)];
        se->cfsRq = rq.cfs.get();
        se->avg.loadAvg = load;
        se->onRq = true;
        se->execStart = lastRan;
        se->task = TaskId(static_cast<uint32_t>(tasks.size()));
        rq.cfsTasks.push_front(*se);
        rq.cfs->avg.loadAvg += load;
        rq.cfs->avg.utilAvg = 1024; // always busy
        rq.cfs->avg.runnableAvg += 1024;
        ++rq.cfs->hNrRunnable;
        ++nr[static_cast<size_t>(cpu)];
        if (running)
            rq.curr = se.get();
        tasks.push_back(std::move(se));
        allowed.push_back(CpuSet::all(static_cast<int>(rqs.size())));
        return *tasks.back();
    }
    int64_t clock() const override { return now; }
    Rq& runQueue(int cpu) override { return *rqs[static_cast<size_t>(cpu)]; }
    int nrRunning(int cpu) const override { return nr[static_cast<size_t>(cpu)]; }
    bool cpuIdle(int cpu) const override
    {
        return nr[static_cast<size_t>(cpu)] == 0 && !rqs[static_cast<size_t>(cpu)]->curr;
    }
    bool taskAllowed(const SchedEntity& se, int cpu) const override
    {
        return allowed[se.task.index()].test(cpu);
    }
    bool cookieMatch(const SchedEntity&, int) const override { return true; }
    bool migratable(const SchedEntity&) const override { return true; }
    bool throttledPair(const SchedEntity&, int, int) const override { return false; }
    void moveTask(SchedEntity& se, int dst, MigrateReason reason, MigrateDetail detail) override
    {
        const int src = se.cfsRq->cpu;
        se.groupNode.unlink();
        rqs[static_cast<size_t>(dst)]->cfsTasks.push_front(se);
        --nr[static_cast<size_t>(src)];
        ++nr[static_cast<size_t>(dst)];
        moves.push_back({static_cast<int>(se.task.index()), dst, reason, detail});
    }
    bool stopperPreempt(int) override { return false; }

    struct Move
    {
        int task;
        int dst;
        MigrateReason reason;
        MigrateDetail detail;
    };
    int64_t now = kS;
    std::vector<std::unique_ptr<Rq>> rqs;
    std::vector<int> nr;
    std::vector<std::unique_ptr<SchedEntity>> tasks;
    std::vector<CpuSet> allowed;
    std::vector<Move> moves;
};

CpuTopology topology(int cpus, int threads, int coresPerLlc)
{
    CpuTopology t;
    t.cpus = cpus;
    t.threadsPerCore = threads;
    t.coresPerLlc = coresPerLlc;
    return t;
}

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
    FakeMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, d, 1000, 1000000);
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
    QCOMPARE(m.moves[0].dst, 1);
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
    FakeMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, d, 1000, 1000000);
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
    FakeMachine c(2);
    SchedDomains e(topology(2, 1, 2));
    LoadBalancer lc(c, e, 1000, 1000000);
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
    FakeMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, d, 1000, 1000000);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, m.now, true);
    m.addTask(1, 1024, m.now, true);
    m.allowed[0] = CpuSet::single(0);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 1);
    QCOMPARE(m.moves[0].task, 1);
}

void TestLoadBalance::allPinnedBacksOff()
{
    // Every waiting task is pinned: nothing moves, the balance counts as balanced (LBF_ALL_PINNED:
    // nr_balance_failed 0) and balance_interval doubles (2 → 4 ms).
    FakeMachine m(2);
    SchedDomains d(topology(2, 1, 2));
    LoadBalancer lb(m, d, 1000, 1000000);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, 0);
    m.addTask(0, 1024, m.now, true);
    m.addTask(1, 1024, m.now, true);
    m.allowed[0] = CpuSet::single(0);
    m.allowed[1] = CpuSet::single(0);
    m.allowed[2] = CpuSet::single(0);
    QCOMPARE(lb.balanceRq(1, 0, CpuIdleType::NotIdle, MigrateReason::Periodic), 0);
    QVERIFY(m.moves.empty());
    QCOMPARE(d.domains(1)[0].nrBalanceFailed, 0);
    QCOMPARE(d.domains(1)[0].balanceInterval, 4);
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
    const auto scenario = parse(R"({
      "schedlab": 1, "name": "smt-2hogs", "seed": 1, "duration": "2s",
      "kernel": { "hz": 1000 }, "machine": { "cpus": 4, "threads_per_core": 2 },
      "tasks": [
        { "name": "h0", "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "h1", "cpus": "1", "program": [ { "run": "forever" } ] }
      ],
      "actions": [
        { "at": "10ms", "set": { "task": "h0", "cpus": "0-3" } },
        { "at": "10ms", "set": { "task": "h1", "cpus": "0-3" } }
      ]
    })");
    QVERIFY(scenario);
    Simulation sim(*scenario, RunOptions{});
    sim.run();
    const auto h0 = test::taskView(sim, "h0");
    const auto h1 = test::taskView(sim, "h1");
    QVERIFY(h0 && h1);
    QVERIFY2(h0->cpu / 2 != h1->cpu / 2,
        qPrintable(QStringLiteral("h0 on %1, h1 on %2").arg(h0->cpu).arg(h1->cpu)));
    int active = 0;
    for (const Record& r : sim.recording().records())
        if (r.kind == RecordKind::Migrate && r.payload.generic.c == int64_t(MigrateReason::Active))
            ++active;
    QVERIFY(active >= 1);
}

QTEST_APPLESS_MAIN(TestLoadBalance)
#include "tst_loadbalance.moc"
