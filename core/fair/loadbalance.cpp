// SPDX-License-Identifier: GPL-2.0-or-later
// The fair class's load balancer (kernel/sched/fair.c; kernel-model.md §8.3). See loadbalance.h.
#include "core/fair/loadbalance.h"

#include "core/base/cpuset.h"
#include "core/coresched/corescheduler.h"
#include "core/fair/pelt.h"
#include "core/fair/placement.h"
#include "core/fair/taskgroup.h"
#include "core/fair/utilest.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>
#include <climits>

namespace schedlab {

namespace {

/// LBF_* flags of struct lb_env.
enum LbfFlag : int {
    LbfAllPinned = 0x01,
    LbfNeedBreak = 0x02,
    LbfDstPinned = 0x04,
    LbfSomePinned = 0x08,
    LbfActiveLb = 0x10,
};

/// capacity_greater(): @p a exceeds @p b by more than ~5 %.
bool capacityGreater(int64_t a, int64_t b)
{
    return a * 1024 > b * 1078;
}

} // namespace

// --- group statistics and classification (pure; tested by hand) ------------------------------

bool groupIsOverloaded(int imbalancePct, const SgLbStats& s)
{
    if (s.sumNrRunning <= s.groupWeight)
        return false;
    if (s.groupCapacity * 100 < s.groupUtil * imbalancePct)
        return true;
    if (s.groupCapacity * imbalancePct < s.groupRunnable * 100)
        return true;
    return false;
}

bool groupHasCapacity(int imbalancePct, const SgLbStats& s)
{
    if (s.sumNrRunning < s.groupWeight)
        return true;
    if (s.groupCapacity * imbalancePct < s.groupRunnable * 100)
        return false;
    if (s.groupCapacity * 100 > s.groupUtil * imbalancePct)
        return true;
    return false;
}

GroupType groupClassify(int imbalancePct, const SgLbStats& s, bool groupImbalanced)
{
    if (groupIsOverloaded(imbalancePct, s))
        return GroupType::Overloaded;
    if (groupImbalanced)
        return GroupType::Imbalanced;
    if (s.asymPacking)
        return GroupType::AsymPacking;
    if (s.smtBalance)
        return GroupType::SmtBalance;
    if (s.groupMisfitTaskLoad)
        return GroupType::MisfitTask;
    if (!groupHasCapacity(imbalancePct, s))
        return GroupType::FullyBusy;
    return GroupType::HasSpare;
}

int64_t siblingImbalance(const SdLbStats& sds, CpuIdleType idle)
{
    const SgLbStats& busiest = sds.busiestStat;
    const SgLbStats& local = sds.localStat;
    if (idle == CpuIdleType::NotIdle || !busiest.sumNrRunning)
        return 0;
    const int64_t nb = busiest.cores;
    const int64_t nl = local.cores;
    if (nb == nl)
        return std::max<int64_t>(0, busiest.sumNrRunning - local.sumNrRunning);
    // Balance so that the tasks per core are the same on both sides; twice the difference,
    // rounded, so that the caller's halving gives the number of tasks to move.
    int64_t imbalance = std::max<int64_t>(0, nl * busiest.sumNrRunning - nb * local.sumNrRunning);
    imbalance = (2 * imbalance + nl + nb) / (nl + nb);
    // Take advantage of an empty group.
    if (imbalance <= 1 && local.sumNrRunning == 0 && busiest.sumNrRunning > 1)
        imbalance = 2;
    return imbalance;
}

int64_t misfitTaskLoad(const MisfitInput& in)
{
    if (in.nrCpusAllowed == 1)
        return 0;
    if (in.fittingCpuRule && in.capacity == in.maxAllowedCapacity)
        return 0; // already on the biggest CPU it may use
    if (fitsCapacity(in.util, in.capacity))
        return 0;                          // task_fits_cpu()
    return std::max<int64_t>(in.hLoad, 1); // never 0 for a misfit task
}

int64_t calculateImbalance(SdLbStats& sds, int sdFlags, CpuIdleType idle, MigrationType& type)
{
    SgLbStats& local = sds.localStat;
    SgLbStats& busiest = sds.busiestStat;
    type = MigrationType::None;
    if (busiest.type == GroupType::MisfitTask) {
        if (sdFlags & SdAsymCpuCapacity) {
            type = MigrationType::Misfit; // move the misfit task (kernel-model.md §8.4)
            return 1;
        }
        type = MigrationType::Load; // a CPU of reduced capacity (not modelled: never here)
        return busiest.groupMisfitTaskLoad;
    }
    if (busiest.type == GroupType::AsymPacking) {
        type = MigrationType::Task; // move every task to the preferred CPU (§8.5)
        return busiest.sumHNrRunning;
    }
    if (busiest.type == GroupType::SmtBalance || busiest.type == GroupType::Imbalanced) {
        type = MigrationType::Task; // move one task
        return 1;
    }
    if (local.type == GroupType::HasSpare) {
        if (busiest.type > GroupType::FullyBusy && !(sdFlags & SdShareLlc)) {
            // Across LLCs: fill the local group's spare capacity (utilization).
            type = MigrationType::Util;
            int64_t imbalance = std::max(local.groupCapacity, local.groupUtil) - local.groupUtil;
            if (idle != CpuIdleType::NotIdle && imbalance == 0) {
                type = MigrationType::Task;
                imbalance = 1;
            }
            return imbalance;
        }
        type = MigrationType::Task;
        int64_t imbalance = 0;
        if (busiest.groupWeight == 1 || sds.preferSibling)
            imbalance = siblingImbalance(sds, idle); // spread the tasks evenly
        else
            imbalance = std::max(0, local.idleCpus - busiest.idleCpus); // even the idle CPUs
        return imbalance >> 1;
    }
    // The local group is at least fully busy: balance the average load per capacity.
    if (local.type < GroupType::Overloaded) {
        local.avgLoad = local.groupLoad * kSchedCapacityScale / local.groupCapacity;
        if (local.avgLoad >= busiest.avgLoad)
            return 0;
        sds.avgLoad = sds.totalLoad * kSchedCapacityScale / sds.totalCapacity;
        if (local.avgLoad >= sds.avgLoad)
            return 0;
    }
    type = MigrationType::Load;
    return std::min((busiest.avgLoad - sds.avgLoad) * busiest.groupCapacity,
               (sds.avgLoad - local.avgLoad) * local.groupCapacity)
        / kSchedCapacityScale;
}

int64_t findImbalance(
    SdLbStats& sds, int sdFlags, int imbalancePct, CpuIdleType idle, MigrationType& type)
{
    type = MigrationType::None;
    if (sds.busiest < 0)
        return 0;
    SgLbStats& busiest = sds.busiestStat;
    SgLbStats& local = sds.localStat;
    // A misfit task is dealt with regardless of the average load.
    if (busiest.type == GroupType::MisfitTask)
        return calculateImbalance(sds, sdFlags, idle, type);
    // Asymmetric packing bypasses the load checks (§8.5).
    bool force = busiest.type == GroupType::AsymPacking || busiest.type == GroupType::Imbalanced;
    if (!force) {
        if (local.type > busiest.type)
            return 0;
        if (local.type == GroupType::Overloaded) {
            // Both overloaded: pull only if the busiest group is imbalance_pct above us and we
            // are below the domain's average.
            if (local.avgLoad >= busiest.avgLoad)
                return 0;
            sds.avgLoad = sds.totalLoad * kSchedCapacityScale / sds.totalCapacity;
            if (local.avgLoad >= sds.avgLoad)
                return 0;
            if (100 * busiest.avgLoad <= imbalancePct * local.avgLoad)
                return 0;
        }
        if (sds.preferSibling && local.type == GroupType::HasSpare
            && siblingImbalance(sds, idle) > 1)
            force = true;
    }
    if (!force && busiest.type != GroupType::Overloaded) {
        if (idle == CpuIdleType::NotIdle)
            return 0; // a busy CPU only pulls from an overloaded group
        const bool smtVsNonSmt = (local.flags ^ busiest.flags) & SdShareCpuCapacity;
        if (!(busiest.type == GroupType::SmtBalance && smtVsNonSmt)) {
            if (busiest.groupWeight > 1 && local.idleCpus <= busiest.idleCpus + 1)
                return 0; // moving one task would just move the imbalance
            if (busiest.sumHNrRunning == 1)
                return 0;
        }
    }
    return calculateImbalance(sds, sdFlags, idle, type);
}

// --- the balancer ----------------------------------------------------------------------------

struct LoadBalancer::LbEnv
{
    SchedDomain* sd = nullptr;
    SchedDomain* parent = nullptr;
    const SchedDomain* child = nullptr;
    const SchedGroup* localGroup = nullptr; ///< dst_grpmask
    int level = 0;
    int dstCpu = 0;
    int srcCpu = -1;
    int newDstCpu = -1;
    CpuIdleType idle = CpuIdleType::NotIdle;
    int64_t imbalance = 0;
    CpuSet cpus; ///< env->cpus: the CPUs still considered
    int flags = 0;
    int loop = 0;
    int loopBreak = kSchedNrMigrate;
    int loopMax = 0;
    MigrationType type = MigrationType::None;
    GroupType busiestType = GroupType::None;
    MigrateReason reason = MigrateReason::Periodic;
    MigrateDetail detail() const
    {
        MigrateDetail d;
        d.level = sd->level;
        d.busiestGroup = busiestType;
        d.migration = type;
        return d;
    }
};

LoadBalancer::LoadBalancer(
    MachineContext& ctx, BalanceServices& services, SchedDomains& domains, int hz, int64_t tickNs)
    : m_ctx(ctx)
    , m_s(services)
    , m_sd(domains)
    , m_hz(hz)
    , m_tickNs(tickNs)
    , m_nextBalance(static_cast<size_t>(domains.cpus()), 0)
    , m_tickStopped(static_cast<size_t>(domains.cpus()), 1) // every CPU starts idle
    , m_nrTickStopped(domains.cpus())
    , m_hasBlockedLoad(static_cast<size_t>(domains.cpus()), 0)
    , m_newIlbKick(static_cast<size_t>(domains.cpus()), 0)
    , m_avgIdle(static_cast<size_t>(domains.cpus()), 2 * kSchedMigrationCostNs)
    , m_maxIdleBalanceCost(static_cast<size_t>(domains.cpus()), kSchedMigrationCostNs)
{ }

bool LoadBalancer::utilEst() const
{
    return m_features && m_features->has(Feature::UtilEst);
}

bool LoadBalancer::taskAllowed(const SchedEntity& taskSe, int cpu) const
{
    return m_ctx.task(static_cast<int>(taskSe.task.index())).cpus.test(cpu);
}

bool LoadBalancer::cookieMatch(const SchedEntity& taskSe, int cpu) const
{
    return !m_core || m_core->cookieFits(m_ctx.task(static_cast<int>(taskSe.task.index())), cpu);
}

bool LoadBalancer::migratable(const SchedEntity& taskSe) const
{
    // can_migrate_task() over rq->cfs_tasks: fair tasks only. The running task is on the list
    // too: it is refused only after the affinity test, so it clears LBF_ALL_PINNED (§8.3). A
    // delayed task is queued while its task sleeps (§5.4).
    const Task& task = m_ctx.task(static_cast<int>(taskSe.task.index()));
    return taskSe.onRq && !task.isRt()
        && (task.state == TaskRunState::Runnable || task.state == TaskRunState::Running
            || taskSe.schedDelayed)
        && !task.parked;
}

bool LoadBalancer::throttledLbPair(const SchedEntity& taskSe, int srcCpu, int dstCpu) const
{
    // Tasks are not moved into or out of throttled hierarchies (§9.2 step 6).
    const Task& task = m_ctx.task(static_cast<int>(taskSe.task.index()));
    if (task.group == 0)
        return false;
    const TaskGroup& g = m_ctx.taskGroups()[static_cast<size_t>(task.group)];
    return g.cfsRq[static_cast<size_t>(srcCpu)]->throttleCount > 0
        || g.cfsRq[static_cast<size_t>(dstCpu)]->throttleCount > 0;
}

bool LoadBalancer::taskIneligibleOnDst(const SchedEntity& taskSe, int srcCpu, int dstCpu) const
{
    // task_is_ineligible_on_dst_cpu() (§8.3): PLACE_LAG, the destination's queue of the task's
    // group holds an entity (nr_queued, delayed ones included), and the task is not eligible on
    // its own queue. 7.3's flat run queue (§6.1): rq->cfs of both CPUs, h_nr_queued.
    if (!m_features || !m_features->has(Feature::PlaceLag))
        return false;
    if (m_choices && m_choices->flat) {
        if (m_ctx.rq(dstCpu).cfs->hNrQueued == 0)
            return false;
        return !m_ctx.rq(srcCpu).cfs->entityEligible(taskSe);
    }
    const Task& task = m_ctx.task(static_cast<int>(taskSe.task.index()));
    const CfsRq* dst = task.group == 0 ? m_ctx.rq(dstCpu).cfs.get()
                                       : m_ctx.taskGroups()[static_cast<size_t>(task.group)]
                                             .cfsRq[static_cast<size_t>(dstCpu)]
                                             .get();
    if (dst->nrQueued == 0)
        return false;
    return !taskSe.cfsRq->entityEligible(taskSe);
}

int64_t LoadBalancer::jiffies() const
{
    return m_ctx.clock() / m_tickNs;
}

void LoadBalancer::moveTask(SchedEntity& se, int dstCpu, MigrateReason reason, MigrateDetail detail)
{
    // detach_task(): a non-sleep dequeue keeps lag and relative deadline; attach_task(): an
    // ENQUEUE_MIGRATED enqueue and the wakeup-preemption check on the destination.
    Task& task = m_ctx.task(static_cast<int>(se.task.index()));
    m_ctx.moveQueuedTask(task, dstCpu, reason, detail);
    Rq& dst = m_ctx.rq(dstCpu);
    if (dst.curr)
        m_ctx.wakeupPreempt(dst, task);
    else if (reason != MigrateReason::NewIdle)
        m_ctx.resched(dstCpu); // an idle CPU balanced by the NOHZ balancer wakes up
    // (a new-idle destination is in schedule() and picks right after the pull)
}

int64_t LoadBalancer::balanceIntervalJiffies(const SchedDomain& sd, bool cpuBusy) const
{
    int64_t interval = sd.balanceInterval;
    if (cpuBusy)
        interval *= sd.busyFactor;
    interval = msecsToJiffies(interval);
    if (cpuBusy)
        interval -= 1; // a busy CPU balances just before its tick, not just after
    const int64_t maxInterval = std::max<int64_t>(1, int64_t{m_hz} * m_sd.cpus() / 10);
    return std::clamp<int64_t>(interval, 1, maxInterval);
}

int64_t LoadBalancer::cpuLoad(int cpu)
{
    return static_cast<int64_t>(m_ctx.rq(cpu).cfs->avg.loadAvg); // cfs_rq_load_avg()
}

int64_t LoadBalancer::cpuUtil(int cpu)
{
    return static_cast<int64_t>(
        cfsCpuUtil(m_ctx.rq(cpu).cfs->avg, utilEst(), m_sd.topology().capacityOf(cpu)));
}

int64_t LoadBalancer::taskUtil(const SchedEntity& se) const
{
    return static_cast<int64_t>(cfsTaskUtil(se, utilEst()));
}

bool LoadBalancer::coreIdle(int cpu) const
{
    const CpuTopology& t = m_sd.topology();
    for (int c = t.coreFirst(cpu); c < t.coreFirst(cpu) + t.coreSize(cpu); ++c)
        if (c != cpu && !m_ctx.idleCpu(c))
            return false;
    return true;
}

bool LoadBalancer::useAsymPrio(const SchedDomain& sd, int cpu) const
{
    // Between cores of an SMT machine only a CPU whose whole core is idle goes by priority.
    if (!(sd.flags & SdAsymPacking))
        return false;
    if (m_sd.topology().threadsPerCore < 2) // sched_smt_active()
        return true;
    return (sd.flags & SdShareCpuCapacity) || coreIdle(cpu);
}

bool LoadBalancer::schedAsym(const SchedDomain& sd, int dstCpu, int srcCpu) const
{
    return useAsymPrio(sd, dstCpu) && m_sd.topology().asymPrefer(dstCpu, srcCpu);
}

int64_t LoadBalancer::taskHLoad(const SchedEntity& taskSe)
{
    // update_cfs_rq_h_load(): from the root down, each level's h_load is its share of the
    // parent's h_load, as the group entity's load is a share of the parent cfs_rq's load.
    const CfsRq* chain[64];
    int depth = 0;
    const SchedEntity* owner = taskSe.cfsRq ? taskSe.cfsRq->owner : nullptr;
    for (; owner && depth < 64; owner = owner->cfsRq->owner)
        chain[depth++] = owner->cfsRq;
    const CfsRq* root = depth ? chain[depth - 1] : taskSe.cfsRq;
    if (!root)
        return static_cast<int64_t>(taskSe.avg.loadAvg);
    uint64_t hLoad = root->avg.loadAvg;
    for (int i = depth - 1; i >= 0; --i) {
        const CfsRq& parent = *chain[i];
        const SchedEntity& ge = i > 0 ? *chain[i - 1]->owner : *taskSe.cfsRq->owner;
        hLoad = hLoad * ge.avg.loadAvg / (parent.avg.loadAvg + 1);
    }
    return static_cast<int64_t>(taskSe.avg.loadAvg * hLoad / (taskSe.cfsRq->avg.loadAvg + 1));
}

bool LoadBalancer::shouldWeBalance(LbEnv& env)
{
    if (!env.cpus.test(env.dstCpu))
        return false;
    if (env.idle == CpuIdleType::NewlyIdle)
        return m_ctx.nrRunning(env.dstCpu) == 0;
    // The first idle CPU of the local group balances (6.6+: preferring one whose whole core is
    // idle), else the group's first CPU.
    const SchedGroup& g = *env.localGroup;
    int idleSmt = -1;
    for (int c = g.first; c < g.first + g.weight; ++c) {
        if (!env.cpus.test(c) || !m_ctx.idleCpu(c))
            continue;
        if (!(env.sd->flags & SdShareCpuCapacity) && !coreIdle(c)) {
            if (idleSmt == -1)
                idleSmt = c;
            continue;
        }
        return c == env.dstCpu;
    }
    if (idleSmt != -1)
        return idleSmt == env.dstCpu;
    return g.first == env.dstCpu;
}

void LoadBalancer::updateSgLbStats(
    LbEnv& env, const SchedGroup& group, SgLbStats& sgs, bool local, bool& overloaded)
{
    sgs = SgLbStats{};
    for (int i = group.first; i < group.first + group.weight; ++i) {
        if (!env.cpus.test(i))
            continue;
        const Rq& rq = m_ctx.rq(i);
        sgs.groupLoad += cpuLoad(i);
        sgs.groupUtil += cpuUtil(i);
        sgs.groupRunnable += static_cast<int64_t>(rq.cfs->avg.runnableAvg);
        sgs.sumHNrRunning += rq.cfs->hNrRunnable;
        const int nr = m_ctx.nrRunning(i);
        sgs.sumNrRunning += nr;
        if (nr > 1)
            overloaded = true;
        if (!nr && m_ctx.idleCpu(i))
            ++sgs.idleCpus;
        // A misfit task on a CPU of another group (kernel-model.md §8.4).
        if (!local && (env.sd->flags & SdAsymCpuCapacity)
            && sgs.groupMisfitTaskLoad < rq.misfitTaskLoad) {
            sgs.groupMisfitTaskLoad = rq.misfitTaskLoad;
            overloaded = true;
        }
    }
    sgs.groupCapacity = group.capacity;
    sgs.groupWeight = group.weight;
    sgs.cores = group.cores;
    sgs.flags = group.flags;
    // smt_balance(): an SMT core running two or more tasks, seen by an idle CPU.
    sgs.smtBalance = !local && env.idle != CpuIdleType::NotIdle
        && (group.flags & SdShareCpuCapacity) && sgs.sumHNrRunning > 1;
    // sched_group_asym() (§8.5): an idle destination of higher priority than the group's
    // preferred CPU; not for an SMT core with more than one busy sibling.
    sgs.asymPreferCpu = group.asymPreferCpu;
    sgs.asymPacking = !local && env.idle != CpuIdleType::NotIdle && sgs.sumHNrRunning
        && !((group.flags & SdShareCpuCapacity) && sgs.groupWeight - sgs.idleCpus != 1)
        && schedAsym(*env.sd, env.dstCpu, group.asymPreferCpu);
    sgs.type = groupClassify(env.sd->imbalancePct, sgs, group.imbalance);
    // avg_load is computed for overloaded groups only.
    if (sgs.type == GroupType::Overloaded)
        sgs.avgLoad = sgs.groupLoad * kSchedCapacityScale / sgs.groupCapacity;
}

bool LoadBalancer::updateSdPickBusiest(
    const LbEnv& env, const SdLbStats& sds, const SgLbStats& sgs, const SchedGroup& group)
{
    const SgLbStats& busiest = sds.busiestStat;
    if (!sgs.sumHNrRunning)
        return false; // nothing to pull
    const int64_t dstCapacity = m_sd.topology().capacityOf(env.dstCpu);
    // A misfit task we cannot help: this CPU is not bigger than the group's biggest, or the
    // local group has no spare capacity.
    if ((env.sd->flags & SdAsymCpuCapacity) && sgs.type == GroupType::MisfitTask
        && (!capacityGreater(dstCapacity, group.maxCapacity)
            || sds.localStat.type != GroupType::HasSpare))
        return false;
    if (sgs.type > busiest.type)
        return true;
    if (sgs.type < busiest.type)
        return false;
    bool hasSpare = false;
    switch (sgs.type) {
    case GroupType::Overloaded:
        if (sgs.avgLoad <= busiest.avgLoad)
            return false;
        break;
    case GroupType::Imbalanced:
        return false; // the first one will do
    case GroupType::AsymPacking:
        // The group of lowest priority first.
        return m_sd.topology().asymPrefer(busiest.asymPreferCpu, sgs.asymPreferCpu);
    case GroupType::MisfitTask:
        if (sgs.groupMisfitTaskLoad < busiest.groupMisfitTaskLoad)
            return false; // the biggest misfit task
        break;
    case GroupType::SmtBalance:
        if (sgs.idleCpus != 0 || busiest.idleCpus != 0) {
            hasSpare = true;
            break;
        }
        [[fallthrough]];
    case GroupType::FullyBusy:
        if (sgs.avgLoad < busiest.avgLoad)
            return false;
        if (sgs.avgLoad == busiest.avgLoad && sds.busiest >= 0
            && (m_sd.group(sds.busiest).flags & SdShareCpuCapacity))
            return false; // SMT groups need more help than others
        break;
    case GroupType::HasSpare:
        hasSpare = true;
        break;
    default:
        break;
    }
    if (hasSpare) {
        // Select the group with the fewest idle CPUs, then the most tasks.
        if (sgs.idleCpus > busiest.idleCpus)
            return false;
        if (sgs.idleCpus == busiest.idleCpus && sgs.sumNrRunning <= busiest.sumNrRunning)
            return false;
    }
    // Asymmetric capacity: do not pull from a group of bigger CPUs that is not overloaded.
    if ((env.sd->flags & SdAsymCpuCapacity) && sgs.type <= GroupType::FullyBusy
        && capacityGreater(group.minCapacity, dstCapacity))
        return false;
    return true;
}

void LoadBalancer::updateSdLbStats(LbEnv& env, SdLbStats& sds)
{
    sds = SdLbStats{};
    sds.busiestStat.idleCpus = INT_MAX;
    sds.busiestStat.type = GroupType::HasSpare;
    bool overloaded = false;
    uint64_t sumUtil = 0;
    for (const int gi : env.sd->groups) {
        const SchedGroup& g = m_sd.group(gi);
        const bool local = g.contains(env.dstCpu);
        SgLbStats tmp;
        SgLbStats& sgs = local ? sds.localStat : tmp;
        if (local)
            sds.local = gi;
        updateSgLbStats(env, g, sgs, local, overloaded);
        if (!local && updateSdPickBusiest(env, sds, sgs, g)) {
            sds.busiest = gi;
            sds.busiestStat = sgs;
        }
        sds.totalLoad += sgs.groupLoad;
        sds.totalCapacity += sgs.groupCapacity;
        sumUtil += static_cast<uint64_t>(sgs.groupUtil);
    }
    sds.preferSibling = env.child && (env.child->flags & SdPreferSibling);
    // update_idle_cpu_scan() (§8.2): the LLC level's statistics refresh SIS_UTIL's scan limit,
    // except in a new-idle balance.
    if (const SchedDomain* llc = m_sd.llc(env.dstCpu);
        env.idle != CpuIdleType::NewlyIdle && llc && llc->weight == env.sd->weight)
        if (m_placement)
            m_placement->updateIdleCpuScan(env.dstCpu, sumUtil);
    if (!env.parent)
        m_rdOverloaded = overloaded; // the root domain's overload flag
}

int LoadBalancer::findSrcRq(LbEnv& env, const SchedGroup& group)
{
    // sched_balance_find_src_rq()
    int busiest = -1;
    int64_t busiestLoad = 0;
    int64_t busiestCapacity = 1;
    int64_t busiestUtil = 0;
    int busiestNr = 0;
    const CpuTopology& topo = m_sd.topology();
    for (int i = group.first; i < group.first + group.weight; ++i) {
        if (!env.cpus.test(i))
            continue;
        const int nr = m_ctx.rq(i).cfs->hNrRunnable;
        if (!nr)
            continue;
        const int64_t capacity = topo.capacityOf(i);
        if ((env.sd->flags & SdAsymCpuCapacity)
            && !capacityGreater(topo.capacityOf(env.dstCpu), capacity) && nr == 1)
            continue; // a lone task on a CPU at least as big stays
        if (schedAsym(*env.sd, i, env.dstCpu) && nr == 1)
            continue; // a lone task on a CPU of higher priority stays (§8.5)
        switch (env.type) {
        case MigrationType::Load: {
            const int64_t load = cpuLoad(i);
            if (nr == 1 && load > env.imbalance)
                break; // moving its only task would only move the imbalance
            if (load * busiestCapacity > busiestLoad * capacity) {
                busiestLoad = load;
                busiestCapacity = capacity;
                busiest = i;
            }
            break;
        }
        case MigrationType::Util: {
            const int64_t util = cpuUtil(i);
            if (nr <= 1)
                break;
            if (busiestUtil < util) {
                busiestUtil = util;
                busiest = i;
            }
            break;
        }
        case MigrationType::Task:
            if (busiestNr < nr) {
                busiestNr = nr;
                busiest = i;
            }
            break;
        case MigrationType::Misfit: {
            // The biggest misfit task.
            const int64_t misfit = m_ctx.rq(i).misfitTaskLoad;
            if (misfit > busiestLoad) {
                busiestLoad = misfit;
                busiest = i;
            }
            break;
        }
        default:
            break;
        }
    }
    return busiest;
}

bool LoadBalancer::taskHot(const SchedEntity& se, LbEnv& env)
{
    if (se.idlePolicy)
        return false;
    if (env.sd->flags & SdShareCpuCapacity)
        return false; // SMT siblings share the cache
    // CACHE_HOT_BUDDY: the next buddy is hot when the destination has work.
    if (m_ctx.nrRunning(env.dstCpu) && se.cfsRq && se.cfsRq->next == &se)
        return true;
    if (!cookieMatch(se, env.dstCpu))
        return true;
    return m_ctx.clock() - se.execStart < kSchedMigrationCostNs;
}

bool LoadBalancer::canMigrateTask(SchedEntity& se, LbEnv& env)
{
    // A delayed task (§5.4): ≤6.13 no rule, it moves like any queued task; 6.14+ (61b82dfb6b7e)
    // only in a migrate_load balance (the active balance's env is one: migration_type 0). Tasks
    // caught in a state change stay.
    if (se.schedDelayed && (!m_choices || m_choices->lbDelayed == LbDelayed::LoadOnly)
        && env.type != MigrationType::Load && !(env.flags & LbfActiveLb))
        return false;
    if (!migratable(se))
        return false;
    if (throttledLbPair(se, env.srcCpu, env.dstCpu))
        return false;
    // 873199d27bb2 (6.14, §8.3): a task not eligible where it is queued keeps its lag when
    // placed on the destination (§4.2), so it would wait there too; it is soft-limited, taken
    // only once the domain has failed a balance. Checked before the affinity test, as in the
    // kernel: a refused task leaves LBF_ALL_PINNED set.
    if ((!m_choices || m_choices->lbIneligible == LbIneligible::SoftLimit)
        && env.sd->nrBalanceFailed == 0 && taskIneligibleOnDst(se, env.srcCpu, env.dstCpu))
        return false;
    if (!taskAllowed(se, env.dstCpu)) {
        env.flags |= LbfSomePinned;
        if (env.idle == CpuIdleType::NewlyIdle || (env.flags & (LbfDstPinned | LbfActiveLb)))
            return false;
        // Remember another CPU of the local group the task could go to.
        const SchedGroup& g = *env.localGroup;
        for (int c = g.first; c < g.first + g.weight; ++c) {
            if (env.cpus.test(c) && taskAllowed(se, c)) {
                env.flags |= LbfDstPinned;
                env.newDstCpu = c;
                break;
            }
        }
        return false;
    }
    env.flags &= ~LbfAllPinned; // at least one task may run on dst_cpu
    if (m_ctx.rq(env.srcCpu).curr == &se)
        return false; // running
    if (env.flags & LbfActiveLb)
        return true;
    return !taskHot(se, env) || env.sd->nrBalanceFailed > env.sd->cacheNiceTries;
}

int LoadBalancer::detachTasks(LbEnv& env)
{
    Rq& src = m_ctx.rq(env.srcCpu);
    auto& tasks = src.cfsTasks;
    if (env.imbalance <= 0)
        return 0;
    int detached = 0;
    while (!tasks.empty()) {
        // Do not take the last task of an idle balance's source.
        if (env.idle != CpuIdleType::NotIdle && m_ctx.nrRunning(env.srcCpu) <= 1)
            break;
        ++env.loop;
        if (env.loop > env.loopMax)
            break; // every task seen once
        if (env.loop > env.loopBreak) {
            env.loopBreak += kSchedNrMigrate;
            env.flags |= LbfNeedBreak;
            break;
        }
        SchedEntity& se = tasks.back(); // the least recently run first
        bool move = canMigrateTask(se, env);
        if (move) {
            switch (env.type) {
            case MigrationType::Load: {
                const int64_t load = std::max<int64_t>(taskHLoad(se), 1);
                // Each failed balance halves the load compared against the imbalance.
                if (shrBound(load, env.sd->nrBalanceFailed) > env.imbalance)
                    move = false;
                else
                    env.imbalance -= load;
                break;
            }
            case MigrationType::Util: {
                const int64_t util = taskUtil(se);
                if (shrBound(util, env.sd->nrBalanceFailed) > env.imbalance)
                    move = false;
                else
                    env.imbalance -= util;
                break;
            }
            case MigrationType::Task:
                --env.imbalance;
                break;
            case MigrationType::Misfit:
                // Only a task that does not fit the source CPU.
                if (fitsCapacity(static_cast<uint64_t>(taskUtil(se)),
                        m_sd.topology().capacityOf(env.srcCpu)))
                    move = false;
                else
                    env.imbalance = 0;
                break;
            default:
                move = false;
                break;
            }
        }
        if (!move) {
            // list_move() to the head: try the others first next time.
            se.groupNode.unlink();
            tasks.push_front(se);
            continue;
        }
        moveTask(se, env.dstCpu, env.reason, env.detail());
        ++detached;
        // CONFIG_PREEMPTION: a new-idle balance stops after one task.
        if (env.idle == CpuIdleType::NewlyIdle)
            break;
        if (env.imbalance <= 0)
            break;
    }
    return detached;
}

bool LoadBalancer::needActiveBalance(const LbEnv& env) const
{
    // asym_active_balance() (§8.5): an idle CPU of higher priority takes the running task, or
    // a CPU that may go by priority helps a core whose siblings are busy.
    if (env.idle != CpuIdleType::NotIdle && useAsymPrio(*env.sd, env.dstCpu)
        && (m_sd.topology().asymPrefer(env.dstCpu, env.srcCpu)
            || !useAsymPrio(*env.sd, env.srcCpu)))
        return true;
    // imbalanced_active_balance(): tasks should be spread but balancing keeps failing.
    if (env.type == MigrationType::Task && env.sd->nrBalanceFailed > env.sd->cacheNiceTries + 2)
        return true;
    return env.type == MigrationType::Misfit;
}

bool LoadBalancer::activeBalance(int busiestCpu, int targetCpu, MigrateDetail detail)
{
    // active_load_balance_cpu_stop(): the stopper preempts the running task, then detaches the
    // first movable task from the tail of cfs_tasks (the preempted one is no longer running).
    if (!m_s.stopperPreempt(busiestCpu))
        return false;
    if (m_ctx.nrRunning(busiestCpu) < 1)
        return false;
    const SchedDomain* sd = m_sd.spanning(targetCpu, busiestCpu);
    if (!sd)
        return false;
    LbEnv env;
    env.sd = const_cast<SchedDomain*>(sd);
    env.dstCpu = targetCpu;
    env.srcCpu = busiestCpu;
    env.idle = CpuIdleType::Idle;
    env.flags = LbfActiveLb;
    env.localGroup = &m_sd.group(sd->groups.front());
    env.cpus = CpuSet::all(m_sd.cpus());
    auto& tasks = m_ctx.rq(busiestCpu).cfsTasks;
    for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) {
        SchedEntity& se = *it;
        if (!canMigrateTask(se, env))
            continue;
        moveTask(se, targetCpu, MigrateReason::Active, detail);
        return true;
    }
    return false;
}

int LoadBalancer::balanceRq(
    int dstCpu, int level, CpuIdleType idle, MigrateReason reason, bool* continueBalancing)
{
    // sched_balance_rq() (load_balance())
    auto& domains = m_sd.domains(dstCpu);
    LbEnv env;
    env.sd = &domains[static_cast<size_t>(level)];
    env.parent = static_cast<size_t>(level) + 1 < domains.size()
        ? &domains[static_cast<size_t>(level) + 1]
        : nullptr;
    env.child = level > 0 ? &domains[static_cast<size_t>(level) - 1] : nullptr;
    env.level = level;
    env.dstCpu = dstCpu;
    env.idle = idle;
    env.reason = reason;
    env.localGroup = &m_sd.group(env.sd->groups.front());
    for (int c = env.sd->first; c < env.sd->first + env.sd->weight; ++c)
        env.cpus.set(c);
    SchedDomain& sd = *env.sd;
    // sgc->imbalance of the parent's local group: this domain's span as a group.
    bool* groupImbalance = env.parent ? &m_sd.group(env.parent->groups.front()).imbalance : nullptr;
    int moved = 0;
    bool active = false;
    bool onePinned = false;
    bool allPinnedOut = false;
    int busiest = -1;
    for (;;) { // redo
        bool balanced = false;
        if (!shouldWeBalance(env)) {
            if (continueBalancing)
                *continueBalancing = false;
            balanced = true;
        }
        SdLbStats sds;
        if (!balanced) {
            updateSdLbStats(env, sds);
            env.imbalance = findImbalance(sds, sd.flags, sd.imbalancePct, env.idle, env.type);
            env.busiestType = sds.busiestStat.type;
            if (env.imbalance <= 0 || sds.busiest < 0)
                balanced = true;
        }
        if (!balanced) {
            busiest = findSrcRq(env, m_sd.group(sds.busiest));
            if (busiest < 0)
                balanced = true;
        }
        if (balanced) {
            if (groupImbalance && !(env.flags & LbfAllPinned))
                *groupImbalance = false;
            sd.nrBalanceFailed = 0;
            onePinned = true;
            break;
        }
        env.srcCpu = busiest;
        env.flags |= LbfAllPinned;
        bool redo = false;
        if (m_ctx.nrRunning(busiest) > 1) {
            env.loopMax = std::min(kSchedNrMigrate, m_ctx.nrRunning(busiest));
            for (;;) { // more_balance
                moved += detachTasks(env);
                if (env.flags & LbfNeedBreak) {
                    env.flags &= ~LbfNeedBreak;
                    continue;
                }
                // Some tasks could not run on dst_cpu: try another CPU of the local group.
                if ((env.flags & LbfDstPinned) && env.imbalance > 0) {
                    env.cpus.clear(env.dstCpu);
                    env.dstCpu = env.newDstCpu;
                    env.flags &= ~LbfDstPinned;
                    env.loop = 0;
                    env.loopBreak = kSchedNrMigrate;
                    continue;
                }
                break;
            }
            // Pinned tasks left an imbalance: the parent level sees this group as imbalanced.
            if (groupImbalance && (env.flags & LbfSomePinned) && env.imbalance > 0)
                *groupImbalance = true;
            if (env.flags & LbfAllPinned) {
                env.cpus.clear(busiest);
                const SchedGroup& lg = *env.localGroup;
                bool subset = true;
                for (int c = env.sd->first; c < env.sd->first + env.sd->weight; ++c)
                    if (env.cpus.test(c) && !lg.contains(c))
                        subset = false;
                if (!subset) {
                    env.loop = 0;
                    env.loopBreak = kSchedNrMigrate;
                    redo = true;
                } else {
                    sd.nrBalanceFailed = 0;
                    onePinned = true;
                    allPinnedOut = true;
                }
            }
        }
        if (redo)
            continue;
        break;
    }
    if (!onePinned) {
        if (!moved) {
            // 6.10+: a misfit balance is not a failed load balance (kernel-model.md §8.4).
            if (idle != CpuIdleType::NewlyIdle
                && !(env.type == MigrationType::Misfit && misfitFittingCpu()))
                ++sd.nrBalanceFailed;
            if (needActiveBalance(env)) {
                const SchedEntity* curr = m_ctx.rq(env.srcCpu).curr;
                if (curr && !taskAllowed(*curr, dstCpu)) {
                    onePinned = true; // the running task cannot come here
                } else {
                    env.flags &= ~LbfAllPinned;
                    MigrateDetail d = env.detail();
                    active = activeBalance(env.srcCpu, env.dstCpu, d);
                    if (active)
                        moved = 1;
                }
            }
        } else {
            sd.nrBalanceFailed = 0;
        }
        if (!onePinned) {
            // We were unbalanced: balance again soon.
            if (!active || needActiveBalance(env))
                sd.balanceInterval = sd.minInterval;
            return moved;
        }
    }
    (void)allPinnedOut;
    // Balanced (or pinned): back off, except for new-idle balancing (and, 6.10+, a misfit
    // balance).
    if (idle == CpuIdleType::NewlyIdle || (env.type == MigrationType::Misfit && misfitFittingCpu()))
        return 0;
    if (((env.flags & LbfAllPinned) && sd.balanceInterval < kMaxPinnedInterval)
        || sd.balanceInterval < sd.maxInterval)
        sd.balanceInterval *= 2;
    return 0;
}

} // namespace schedlab
