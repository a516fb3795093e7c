// SPDX-License-Identifier: GPL-2.0-or-later
// The fair class's load balancer (kernel/sched/fair.c, kernel-model.md §8.3): the periodic
// balance from the tick over the sched-domain hierarchy (sched_balance_domains /
// sched_balance_rq), the new-idle balance (sched_balance_newidle), the NOHZ idle balance run for
// idle CPUs, and active balance through the stopper. Group statistics and classification
// (update_sd_lb_stats), the busiest group and queue, calculate_imbalance() and detach_tasks()
// over the busiest CPU's cfs_tasks list. Integer math throughout; the machine is reached only
// through BalanceServices, so the balancer can be tested with fakes.
#pragma once

#include "core/base/prng.h"
#include "core/kernel/profile.h"
#include "core/sched/domains.h"
#include "core/sched/machinecontext.h"
#include "core/sched/migration.h"

#include <cstdint>
#include <vector>

namespace schedlab {

class CoreScheduler;
class Placement;
struct Rq;
struct SchedEntity;

/// enum cpu_idle_type
enum class CpuIdleType { NotIdle, Idle, NewlyIdle };

/// sysctl_sched_nr_migrate (SCHED_NR_MIGRATE_BREAK is the same 32 without PREEMPT_RT).
constexpr int kSchedNrMigrate = 32;
/// sysctl_sched_migration_cost: a task that ran within it is cache hot.
constexpr int64_t kSchedMigrationCostNs = 500000;
/// MAX_PINNED_INTERVAL (ms): the back-off limit while every task is pinned.
constexpr int kMaxPinnedInterval = 512;

/// What the load balancer asks of the machine beyond MachineContext: the stopper and the
/// blocked-load update (a fake in tests/core/tst_loadbalance.cpp).
class BalanceServices
{
public:
    virtual ~BalanceServices() = default;
    /// The stopper of @p cpu preempts the running fair task (it stays queued as the first
    /// candidate); false if no fair task runs there.
    virtual bool stopperPreempt(int cpu) = 0;
    /// sched_balance_update_blocked_averages(): decay and publish @p cpu's blocked load
    /// (nothing for a machine without group load tracking); true while blocked load is left
    /// (rq->has_blocked_load).
    virtual bool updateBlockedAverages(int cpu)
    {
        (void)cpu;
        return false;
    }
};

/// struct sg_lb_stats
struct SgLbStats
{
    int64_t avgLoad = 0;   ///< group_load · SCHED_CAPACITY_SCALE / group_capacity
    int64_t groupLoad = 0; ///< Σ cpu_load()
    int64_t groupCapacity = 0;
    int64_t groupUtil = 0;     ///< Σ cpu_util_cfs()
    int64_t groupRunnable = 0; ///< Σ cpu_runnable()
    int idleCpus = 0;
    int groupWeight = 0;
    int sumNrRunning = 0;            ///< Σ rq->nr_running
    int sumHNrRunning = 0;           ///< Σ rq->cfs.h_nr_runnable
    int64_t groupMisfitTaskLoad = 0; ///< max rq->misfit_task_load (SD_ASYM_CPUCAPACITY)
    int cores = 1;
    int flags = 0;            ///< the group's flags (its child domain's)
    bool smtBalance = false;  ///< group_smt_balance candidate
    bool asymPacking = false; ///< group_asym_packing: an idle CPU of higher priority may pull
    int asymPreferCpu = -1;   ///< the group's sg->asym_prefer_cpu
    GroupType type = GroupType::HasSpare;
};

/// struct sd_lb_stats
struct SdLbStats
{
    int busiest = -1; ///< group index, -1 none
    int local = -1;
    int64_t totalLoad = 0;
    int64_t totalCapacity = 0;
    int64_t avgLoad = 0;
    SgLbStats busiestStat;
    SgLbStats localStat;
    bool preferSibling = false;
};

/// group_is_overloaded(): more tasks than CPUs and the util or runnable pressure shows it.
bool groupIsOverloaded(int imbalancePct, const SgLbStats& s);
/// group_has_capacity()
bool groupHasCapacity(int imbalancePct, const SgLbStats& s);
/// group_classify(); @p groupImbalanced is sg_imbalanced() (sgc->imbalance).
GroupType groupClassify(int imbalancePct, const SgLbStats& s, bool groupImbalanced);
/// sibling_imbalance(): twice the task difference normalised by the groups' core counts.
int64_t siblingImbalance(const SdLbStats& sds, CpuIdleType idle);
/// The decision of sched_balance_find_src_group() once the statistics are gathered, with
/// calculate_imbalance(): returns env->imbalance (0 = balanced) and sets @p type. @p sdFlags are
/// the domain's flags.
int64_t findImbalance(
    SdLbStats& sds, int sdFlags, int imbalancePct, CpuIdleType idle, MigrationType& type);
/// calculate_imbalance()
int64_t calculateImbalance(SdLbStats& sds, int sdFlags, CpuIdleType idle, MigrationType& type);
/// What update_misfit_status() reads of the running task and its CPU (kernel-model.md §8.4).
struct MisfitInput
{
    uint64_t util = 0;          ///< task_util_est(): util_avg (no util_est, no uclamp)
    int64_t hLoad = 0;          ///< task_h_load()
    int capacity = 1024;        ///< arch_scale_cpu_capacity() of the task's CPU
    int nrCpusAllowed = 1;      ///< p->nr_cpus_allowed
    int maxAllowedCapacity = 0; ///< p->max_allowed_capacity (6.10+)
    bool fittingCpuRule = true; ///< 6.10+: misfit only if a bigger allowed CPU exists
};
/// update_misfit_status() of a running task: rq->misfit_task_load (0: it fits or cannot move
/// anywhere better), at least 1 for a misfit task.
int64_t misfitTaskLoad(const MisfitInput& in);
/// shr_bound(): val >> min(shift, 63).
inline int64_t shrBound(int64_t val, int shift)
{
    return val >> (shift < 63 ? shift : 63);
}

class LoadBalancer
{
public:
    LoadBalancer(MachineContext& ctx, BalanceServices& services, SchedDomains& domains, int hz,
        int64_t tickNs);

    /// sched_balance_trigger() from the tick of busy @p cpu: the periodic balance of its domains
    /// when rq->next_balance is due, then nohz_balancer_kick() (the idle balance of idle CPUs).
    /// A CPU without domains (a one-CPU machine) has nothing to balance: tested inline.
    void tick(int cpu)
    {
        if (!m_sd.domains(cpu).empty())
            tickBalance(cpu);
    }
    /// sched_balance_newidle(): @p cpu is about to go idle; true if it pulled a task.
    bool newIdle(int cpu);
    /// The per-CPU streams of sched_rng() (NI_RANDOM), derived from the run's @p seed.
    void seedRng(uint64_t seed);
    /// add_nr_running(): a run queue reached two tasks (sets the root domain's overload flag).
    void noteOverloaded() { m_rdOverloaded = true; }
    /// do_idle() of @p cpu after it switched to idle: the NOHZ stats update a new-idle balance
    /// asked for (nohz_run_idle_balance()), then the tick stops (nohz_balance_enter_idle()).
    void cpuEnteredIdle(int cpu);
    /// ttwu_do_activate() on @p cpu that had been idle for @p idleNs (rq->idle_stamp set):
    /// rq->avg_idle moves by 1/8 of the difference, at most 2 · max_idle_balance_cost.
    void idleEnded(int cpu, int64_t idleNs);
    /// rq->avg_idle (ns).
    int64_t avgIdle(int cpu) const { return m_avgIdle[static_cast<size_t>(cpu)]; }
    /// rq->max_idle_balance_cost (ns): avg_idle's cap is twice this.
    int64_t maxIdleBalanceCost(int cpu) const
    {
        return m_maxIdleBalanceCost[static_cast<size_t>(cpu)];
    }
    /// What sched_clock measures over one domain's new-idle balance (the scenario's
    /// kernel.costs.newidle_balance): it feeds the cost gate of §8.3 and takes no simulated time.
    void setNewidleCost(int64_t ns) { m_newidleCostNs = ns; }
    /// The profile's traits, read at each use (the profile may change during a run); null:
    /// the newest kernels' rules.
    void setTraits(const ProfileTraits* traits) { m_traits = traits; }
    /// The profile's choices, read at each use; null: the newest kernels' rules.
    void setChoices(const ProfileChoices* choices) { m_choices = choices; }
    /// The units the balancer reads: the sched features (UTIL_EST, read at each use), core
    /// scheduling (sched_core_cookie_match()) and the fair class's placement (SIS_UTIL's
    /// update_idle_cpu_scan()); each may be null (no UTIL_EST, every cookie matches, no scan).
    void setUnits(const FeatureSet* features, const CoreScheduler* core, Placement* placement)
    {
        m_features = features;
        m_core = core;
        m_placement = placement;
    }

    /// sched_balance_domains() of @p cpu (tests call it directly).
    void balanceDomains(int cpu, CpuIdleType idle, MigrateReason reason);
    /// sched_balance_rq() of one domain level of @p dstCpu; the number of tasks moved.
    int balanceRq(int dstCpu, int level, CpuIdleType idle, MigrateReason reason,
        bool* continueBalancing = nullptr);
    /// task_h_load(): the task's load as seen from the root (its cfs_rq's share of the CPU).
    static int64_t taskHLoad(const SchedEntity& taskSe);
    /// get_sd_balance_interval() in jiffies.
    int64_t balanceIntervalJiffies(const SchedDomain& sd, bool cpuBusy) const;
    int64_t jiffies() const;
    /// Per-CPU rq->next_balance (jiffies).
    int64_t nextBalance(int cpu) const { return m_nextBalance[static_cast<size_t>(cpu)]; }

private:
    struct LbEnv;
    void updateSdLbStats(LbEnv& env, SdLbStats& sds);
    void updateSgLbStats(
        LbEnv& env, const SchedGroup& group, SgLbStats& sgs, bool local, bool& overloaded);
    bool updateSdPickBusiest(
        const LbEnv& env, const SdLbStats& sds, const SgLbStats& sgs, const SchedGroup& group);
    bool shouldWeBalance(LbEnv& env);
    int findSrcRq(LbEnv& env, const SchedGroup& group);
    bool canMigrateTask(SchedEntity& se, LbEnv& env);
    /// task_is_ineligible_on_dst_cpu() (873199d27bb2, kernel-model.md §8.3).
    bool taskIneligibleOnDst(const SchedEntity& taskSe, int srcCpu, int dstCpu) const;
    bool taskHot(const SchedEntity& se, LbEnv& env);
    int detachTasks(LbEnv& env);
    bool needActiveBalance(const LbEnv& env) const;
    bool activeBalance(int busiestCpu, int targetCpu, MigrateDetail detail);
    void nohzBalancerKick(int cpu);
    /// kick_ilb() from @p cpu with NOHZ_STATS_KICK / NOHZ_BALANCE_KICK @p flags.
    void kickIlb(int cpu, unsigned flags);
    void nohzIdleBalance(int ilbCpu, unsigned flags);
    /// update_nohz_stats(): true while @p cpu still has blocked load.
    bool updateNohzStats(int cpu);
    /// The CPU's blocked averages; true while blocked load is left (rq->has_blocked_load).
    bool updateBlocked(int cpu);
    int64_t msecsToJiffies(int64_t ms) const;
    int64_t cpuLoad(int cpu);
    int64_t cpuUtil(int cpu);
    int64_t taskUtil(const SchedEntity& se) const;
    bool coreIdle(int cpu) const;
    /// sched_use_asym_prio(): @p cpu may balance by ITMT priority at @p sd (§8.5).
    bool useAsymPrio(const SchedDomain& sd, int cpu) const;
    /// sched_asym(): @p dstCpu may pull from @p srcCpu by ITMT priority at @p sd.
    bool schedAsym(const SchedDomain& sd, int dstCpu, int srcCpu) const;
    bool misfitFittingCpu() const { return !m_traits || m_traits->misfitFittingCpu; }

    /// detach_task() + attach_task(): MachineContext::moveQueuedTask() and wakeup_preempt() on
    /// @p dstCpu (an idle destination is rescheduled, except a new-idle one: it is picking).
    void moveTask(SchedEntity& se, int dstCpu, MigrateReason reason, MigrateDetail detail);
    /// tick() of a CPU with domains.
    void tickBalance(int cpu);

    MachineContext& m_ctx;
    BalanceServices& m_s;
    SchedDomains& m_sd;
    int m_hz = 1000;
    int64_t m_tickNs = 1000000;
    std::vector<int64_t> m_nextBalance;        ///< rq->next_balance (jiffies)
    bool m_rdOverloaded = false;               ///< rd->overloaded
    int64_t m_nohzNextBalance = 0;             ///< nohz.next_balance (jiffies)
    int64_t m_nohzNextBlocked = 0;             ///< nohz.next_blocked (jiffies)
    bool m_nohzHasBlocked = false;             ///< nohz.has_blocked
    bool m_nohzNeedsUpdate = false;            ///< nohz.needs_update
    std::vector<uint8_t> m_tickStopped;        ///< rq->nohz_tick_stopped: in nohz.idle_cpus_mask
    int m_nrTickStopped = 0;                   ///< nohz.nr_cpus: the CPUs with m_tickStopped set
    std::vector<uint8_t> m_hasBlockedLoad;     ///< rq->has_blocked_load
    std::vector<uint8_t> m_newIlbKick;         ///< NOHZ_NEWILB_KICK set by the new-idle balance
    std::vector<int64_t> m_avgIdle;            ///< rq->avg_idle (ns)
    std::vector<int64_t> m_maxIdleBalanceCost; ///< rq->max_idle_balance_cost (ns)
    int64_t m_newidleCostNs = 0;               ///< one domain's new-idle balance (ns)
    const ProfileTraits* m_traits = nullptr;
    const ProfileChoices* m_choices = nullptr;
    const FeatureSet* m_features = nullptr;
    std::vector<Prng> m_rng; ///< sched_rng() per CPU (seedRng())
    void updateNewidleStats(SchedDomain& sd, uint32_t success);
    bool updateNewidleCost(SchedDomain& sd, int64_t cost);
    uint32_t schedRng(int cpu);
    const CoreScheduler* m_core = nullptr;
    Placement* m_placement = nullptr;
    /// sched_feat(UTIL_EST): utilizations count the tasks' estimates (§6.8).
    bool utilEst() const;
    /// p->cpus_ptr of the task of @p taskSe allows @p cpu.
    bool taskAllowed(const SchedEntity& taskSe, int cpu) const;
    /// sched_core_cookie_match() of the task of @p taskSe on @p cpu (true without core
    /// scheduling).
    bool cookieMatch(const SchedEntity& taskSe, int cpu) const;
    /// Model guard: a queued, runnable fair task, not in the middle of a state change (parked).
    bool migratable(const SchedEntity& taskSe) const;
    /// throttled_lb_pair(): the task's group is throttled on the source or destination CPU.
    bool throttledLbPair(const SchedEntity& taskSe, int srcCpu, int dstCpu) const;
};

} // namespace schedlab
