// SPDX-License-Identifier: GPL-2.0-or-later
// select_task_rq_fair() and its helpers (kernel-model.md §8.2). Integer arithmetic as in
// kernel/sched/fair.c; every scan is in the kernel's order (for_each_cpu_wrap() from target + 1
// in select_idle_cpu(), ascending inside a core or a group), so the choice is deterministic.
#include "core/fair/placement.h"

#include "core/fair/fairclass.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>
#include <climits>

namespace schedlab {

namespace {
constexpr uint64_t kCapacityScale = 1024; // SCHED_CAPACITY_SCALE

struct GroupStats
{
    uint64_t load = 0, util = 0, runnable = 0, capacity = 0, avgLoad = 0;
    int64_t maxCapacity = 0; ///< sgc->max_capacity: the group's largest CPU capacity
    int sumNrRunning = 0, idleCpus = 0, weight = 0;
    GroupType type = GroupType::HasSpare;
};

// group_has_capacity() / group_is_overloaded() (kernel-model.md §8.2, find the idlest group).
bool hasCapacity(int pct, const GroupStats& s)
{
    if (s.sumNrRunning < s.weight)
        return true;
    if (s.capacity * uint64_t(pct) < s.runnable * 100)
        return false;
    return s.capacity * 100 > s.util * uint64_t(pct);
}

bool isOverloaded(int pct, const GroupStats& s)
{
    if (s.sumNrRunning <= s.weight)
        return false;
    if (s.capacity * 100 < s.util * uint64_t(pct))
        return true;
    return s.capacity * uint64_t(pct) < s.runnable * 100;
}

// update_pick_idlest(): is @p s a better idlest candidate than @p idlest?
bool pickIdlest(const GroupStats& idlest, const GroupStats& s)
{
    if (s.type < idlest.type)
        return true;
    if (s.type > idlest.type)
        return false;
    switch (s.type) {
    case GroupType::Overloaded:
    case GroupType::FullyBusy:
        return idlest.avgLoad > s.avgLoad;
    case GroupType::MisfitTask:
        return idlest.maxCapacity < s.maxCapacity; // the group with the biggest CPU
    case GroupType::HasSpare:
        if (idlest.idleCpus > s.idleCpus)
            return false;
        return !(idlest.idleCpus == s.idleCpus && idlest.util <= s.util);
    default:
        return false;
    }
}
} // namespace

Placement::Placement(const MachineContext& ctx, const PlacementServices& services,
    const SchedDomains& domains, int hz)
    : m_ctx(ctx)
    , m_s(services)
    , m_sd(&domains)
    , m_hz(hz)
{
    init();
}

Placement::Placement(const MachineContext& ctx, const PlacementServices& services,
    const CpuTopology& topology, int hz)
    : m_ctx(ctx)
    , m_s(services)
    , m_ownDomains(std::make_unique<SchedDomains>(topology))
    , m_sd(m_ownDomains.get())
    , m_hz(hz)
{
    init();
}

void Placement::init()
{
    const CpuTopology& topology = topo();
    const auto n = static_cast<size_t>(topology.cpus);
    m_idleTasks.resize(n);
    m_idleStamp.assign(n, 0);
    m_distributePrev.assign(n, 0);
    // The machine starts idle as if every CPU went idle at time 0 (the kernel's idle_stamp of a
    // CPU that never ran would be 0, which find_idlest never picks; on a running system every
    // CPU has been idle before). Likewise nr_idle_scan starts at the LLC size (an idle LLC's
    // value; the kernel's zero-initialised field is only seen right after boot).
    const int llcs = topology.llcOf(topology.cpus - 1) + 1;
    m_llcs.resize(static_cast<size_t>(llcs));
    for (int c = 0; c < topology.cpus; ++c) {
        LlcState& l = llc(c);
        l.nrIdleScan = llcSize(c);
        l.hasIdleCores = topology.threadsPerCore > 1;
    }
}

Placement::WakeeState& Placement::wakee(int task)
{
    if (task >= static_cast<int>(m_tasks.size()))
        m_tasks.resize(static_cast<size_t>(task) + 1);
    return m_tasks[static_cast<size_t>(task)];
}

Placement::WakeeState& Placement::current(const WakeContext& ctx)
{
    return ctx.waker >= 0 ? wakee(ctx.waker) : m_idleTasks[static_cast<size_t>(ctx.thisCpu)];
}

Placement::LlcState& Placement::llc(int cpu)
{
    return m_llcs[static_cast<size_t>(topo().llcOf(cpu))];
}

const Placement::LlcState& Placement::llc(int cpu) const
{
    return m_llcs[static_cast<size_t>(topo().llcOf(cpu))];
}

int Placement::recentUsedCpu(int task) const
{
    return task < static_cast<int>(m_tasks.size())
        ? m_tasks[static_cast<size_t>(task)].recentUsedCpu
        : -1;
}

unsigned Placement::wakeeFlips(int task) const
{
    return task < static_cast<int>(m_tasks.size()) ? m_tasks[static_cast<size_t>(task)].flips : 0;
}

int Placement::llcSize(int cpu) const
{
    const SchedDomain* sd = m_sd->llc(cpu);
    return sd ? sd->weight : 1;
}

bool Placement::sharesCache(int a, int b) const
{
    if (a == b)
        return true;
    const SchedDomain* sd = m_sd->llc(a);
    return sd && sd->contains(b);
}

// --- select_task_rq_fair() ----------------------------------------------------------------------

PlacementResult Placement::selectTaskRq(const Task& p, const WakeContext& ctx)
{
    PlacementResult r;
    const bool fork = ctx.flags & (WakeFork | WakeExec);
    const int prev = fork ? ctx.thisCpu : p.cpu;
    // wake_up_new_task(): a new task's recent_used_cpu is the CPU it was forked on (task_cpu()
    // set by sched_cgroup_fork() to the parent's CPU), before the fork balance moves it
    // (kernel-model.md §8.2).
    if (ctx.flags & WakeFork)
        wakee(p.index).recentUsedCpu = ctx.thisCpu;
    r.cpu = prev;
    if (p.cpus.moreThanOne()) {
        int cpu = ctx.thisCpu;
        bool wantAffine = false;
        if (ctx.flags & WakeTtwu) {
            recordWakee(p, ctx);
            wantAffine = !wakeWide(p, ctx) && p.cpus.test(cpu);
        }
        // The domain walk from the waker's CPU: the lowest SD_WAKE_AFFINE domain spanning prev
        // ends it for an affine wakeup; fork and exec take the widest domain with
        // SD_BALANCE_FORK/EXEC (every level; none has SD_BALANCE_WAKE).
        const int sdFlag = (ctx.flags & WakeFork) ? SdBalanceFork
            : (ctx.flags & WakeExec)              ? SdBalanceExec
                                                  : 0;
        const SchedDomain* sd = nullptr;
        int newCpu = prev;
        WakePath path = WakePath::None;
        for (const SchedDomain& d : domainsOf(cpu)) {
            if (wantAffine && (d.flags & SdWakeAffine) && d.contains(prev)) {
                if (cpu != prev)
                    newCpu = wakeAffine(d, p, cpu, prev, ctx.flags & WakeSync, ctx.waker);
                r.detail.level = d.level;
                sd = nullptr;
                break;
            }
            if (d.flags & sdFlag)
                sd = &d;
            else if (!wantAffine)
                break;
        }
        if (sd) {
            newCpu = findDstCpu(p, cpu, prev, r.detail.level);
            r.detail.wake = WakePath::Idlest;
        } else if (ctx.flags & WakeTtwu) {
            const int target = newCpu;
            newCpu = selectIdleSibling(p, prev, target, path);
            if ((path == WakePath::TargetIdle || path == WakePath::Fallback) && target != prev)
                path = WakePath::AffineWaker; // wake_affine() pulled the wakee to the waker
            else if (path == WakePath::TargetIdle)
                path = WakePath::PrevIdle;
            r.detail.wake = path;
        }
        r.cpu = newCpu;
    } else {
        r.cpu = std::max(0, p.cpus.first()); // cpumask_any(): select_task_rq_fair() not called
    }
    if (r.cpu < 0 || r.cpu >= topo().cpus || !p.cpus.test(r.cpu)) {
        // select_fallback_rq(): the first allowed CPU (one node).
        r.cpu = std::max(0, p.cpus.first());
        r.detail.wake = WakePath::Fallback;
    }
    return r;
}

// record_wakee(): the waker's flips decay once per second and count changes of wakee.
void Placement::recordWakee(const Task& p, const WakeContext& ctx)
{
    WakeeState& cur = current(ctx);
    if (ctx.jiffies > cur.decayTs + m_hz) {
        cur.flips >>= 1;
        cur.decayTs = ctx.jiffies;
    }
    if (cur.lastWakee != p.index) {
        cur.lastWakee = p.index;
        ++cur.flips;
    }
}

// wake_wide(): a waker switching among many wakees (and they among wakers) spreads them.
bool Placement::wakeWide(const Task& p, const WakeContext& ctx)
{
    unsigned master = current(ctx).flips;
    unsigned slave = wakee(p.index).flips;
    const unsigned factor = static_cast<unsigned>(llcSize(ctx.thisCpu));
    if (master < slave)
        std::swap(master, slave);
    return !(slave < factor || master < slave * factor);
}

int Placement::wakeAffine(
    const SchedDomain& sd, const Task& p, int thisCpu, int prevCpu, bool sync, int waker)
{
    int target = wakeAffineIdle(thisCpu, prevCpu, sync); // WA_IDLE
    if (target < 0)
        target = wakeAffineWeight(sd, p, thisCpu, prevCpu, sync, waker); // WA_WEIGHT
    return target == thisCpu ? thisCpu : prevCpu;
}

int Placement::wakeAffineIdle(int thisCpu, int prevCpu, bool sync)
{
    // An idle waker CPU means an interrupt woke the task: move only within the cache.
    if (m_ctx.idleCpu(thisCpu) && sharesCache(thisCpu, prevCpu))
        return m_ctx.idleCpu(prevCpu) ? prevCpu : thisCpu;
    if (sync) {
        const int running =
            m_ctx.nrRunning(thisCpu) - (syncDiscountsDelayed ? m_s.nrDelayed(thisCpu) : 0);
        if (running == 1)
            return thisCpu; // the waker is about to sleep: its CPU frees up
    }
    if (m_ctx.idleCpu(prevCpu))
        return prevCpu;
    return -1;
}

int Placement::wakeAffineWeight(
    const SchedDomain& sd, const Task& p, int thisCpu, int prevCpu, bool sync, int waker)
{
    int64_t thisEff = static_cast<int64_t>(m_s.cpuLoad(thisCpu));
    if (sync) {
        const int64_t currentLoad = waker >= 0 ? static_cast<int64_t>(m_s.taskHLoad(waker)) : 0;
        if (currentLoad > thisEff)
            return thisCpu;
        thisEff -= currentLoad;
    }
    const int64_t taskLoad = static_cast<int64_t>(m_s.taskHLoad(p.index));
    thisEff += taskLoad;
    thisEff *= 100; // WA_BIAS
    thisEff *= capacity(prevCpu);
    int64_t prevEff = static_cast<int64_t>(m_s.cpuLoad(prevCpu)) - taskLoad;
    prevEff *= 100 + (sd.imbalancePct - 100) / 2; // WA_BIAS: half the imbalance margin
    prevEff *= capacity(thisCpu);
    if (sync)
        prevEff += 1; // a tie stacks the wakee on the waker
    return thisEff < prevEff ? thisCpu : -1;
}

// --- select_idle_sibling() ----------------------------------------------------------------------

bool Placement::cpuIdle(int cpu) const
{
    if (m_rqs)
        return rqIdle(*(*m_rqs)[static_cast<size_t>(cpu)]); // the machine's idle_cpu()
    return m_ctx.idleCpu(cpu);
}

bool Placement::schedIdleCpu(int cpu) const
{
    if (m_rqs) {
        // FairSchedClass::schedIdleCpu() of the same run queue.
        const Rq& rq = *(*m_rqs)[static_cast<size_t>(cpu)];
        const int idle = rq.cfs->hNrIdle;
        return idle > 0 && rqNrRunning(rq) == idle;
    }
    return m_s.schedIdleCpu(cpu);
}

namespace {

/// The machine's idle_cpu() || FairSchedClass::schedIdleCpu() of @p rq, its nr_running counted
/// once.
inline bool rqIdleOrSchedIdle(const Rq& rq)
{
    const int nr = rqNrRunning(rq);
    if (nr == 0 && !rq.curr)
        return true;
    const int idle = rq.cfs->hNrIdle;
    return idle > 0 && nr == idle;
}

} // namespace

bool Placement::idleOrSchedIdle(int cpu) const
{
    if (m_rqs)
        return rqIdleOrSchedIdle(*(*m_rqs)[static_cast<size_t>(cpu)]);
    return m_ctx.idleCpu(cpu) || m_s.schedIdleCpu(cpu);
}

bool Placement::asymFits(const Task& p, int cpu) const
{
    // util_fits_cpu() of task_util_est() (no uclamp): kernel-model.md §8.4, §6.8.
    return !m_sd->asymCapacity() || fitsCapacity(m_s.taskUtil(p), capacity(cpu));
}

int Placement::selectIdleSibling(const Task& p, int prev, int target, WakePath& path)
{
    path = WakePath::TargetIdle;
    if (idleOrSchedIdle(target) && asymFits(p, target))
        return target;
    path = WakePath::PrevIdle;
    if (prev != target && sharesCache(prev, target) && idleOrSchedIdle(prev) && asymFits(p, prev))
        return prev;
    // recent_used_cpu: the CPU before prev, remembered for the next wakeup.
    WakeeState& w = wakee(p.index);
    const int recent = w.recentUsedCpu;
    w.recentUsedCpu = prev;
    path = WakePath::RecentUsed;
    if (recent >= 0 && recent != prev && recent != target && sharesCache(recent, target)
        && idleOrSchedIdle(recent) && p.cpus.test(recent) && asymFits(p, recent))
        return recent;
    // Differing capacities: the domain of interest is sd_asym_cpucapacity, not sd_llc.
    if (m_sd->asymCapacity()) {
        if (const SchedDomain* sd = m_sd->asymCapacityDomain(target)) {
            const int i = selectIdleCapacity(p, *sd, target);
            path = i >= 0 ? WakePath::IdleCapacity : WakePath::Fallback;
            return i >= 0 ? i : target;
        }
    }
    path = WakePath::Fallback;
    if (llcSize(target) < 2)
        return target; // no sd_llc
    bool hasIdleCore = false;
    if (topo().threadsPerCore > 1) { // sched_smt_active()
        hasIdleCore = llc(target).hasIdleCores;
        if (!hasIdleCore && sharesCache(prev, target)) {
            const int i = selectIdleSmt(p, prev);
            if (i >= 0) {
                path = WakePath::IdleSibling;
                return i;
            }
        }
    }
    const int i = selectIdleCpu(p, hasIdleCore, target, path);
    if (i >= 0)
        return i;
    path = WakePath::Fallback;
    return target;
}

int Placement::selectIdleCapacity(const Task& p, const SchedDomain& sd, int target)
{
    // The first idle CPU from target on (for_each_cpu_wrap()) that the task fits; failing that,
    // the idle CPU of the largest capacity (the first one of a tie). kernel-model.md §8.4.
    int64_t bestCap = 0;
    int bestCpu = -1;
    for (int k = 0; k < sd.weight; ++k) {
        const int c = sd.first + (target - sd.first + k) % sd.weight;
        if (!p.cpus.test(c) || !idleOrSchedIdle(c))
            continue;
        const int64_t cap = capacity(c);
        if (fitsCapacity(m_s.taskUtil(p), cap))
            return c;
        if (cap > bestCap) {
            bestCap = cap;
            bestCpu = c;
        }
    }
    return bestCpu;
}

int Placement::selectIdleSmt(const Task& p, int target)
{
    const int first = topo().coreFirst(target);
    for (int c = first; c < first + topo().coreSize(target); ++c)
        if (c != target && p.cpus.test(c) && idleOrSchedIdle(c))
            return c;
    return -1;
}

int Placement::selectIdleCpu(const Task& p, bool hasIdleCore, int target, WakePath& path)
{
    // SIS_UTIL: nr_idle_scan + 1 because the scan stops at !--nr; an overloaded LLC (0) is
    // not searched at all, not even for an idle core.
    int nr = llc(target).nrIdleScan + 1;
    if (nr == 1)
        return -1;
    // sd_llc span ∩ p->cpus_ptr: the LLC is the contiguous range [first, first + weight),
    // walked by for_each_cpu_wrap(…, target + 1).
    const int first = topo().llcFirst(target);
    const int weight = topo().llcSize(target);
    const int start = (target - first + 1) % weight;
    int idleCpu = -1;
    if (!hasIdleCore) {
        // The mask is only read: each CPU is tested against p->cpus_ptr as the walk reaches it,
        // without building the mask (the scan usually stops long before the LLC's end), and
        // not at all when the task may run on the whole LLC. The wrap as two ranges: from
        // target + 1 to the LLC's end, then from its start. -2: nr ran out.
        const bool allAllowed = p.cpus.containsRange(first, weight);
        auto scan = [&](int from, int to) {
            for (int c = from; c < to; ++c) {
                if (!allAllowed && !p.cpus.test(c))
                    continue;
                if (--nr <= 0)
                    return -2;
                // idleOrSchedIdle(), its run-queue test inline (the scan's per-CPU step).
                if (m_rqs ? rqIdleOrSchedIdle(*(*m_rqs)[static_cast<size_t>(c)])
                          : idleOrSchedIdle(c))
                    return c;
            }
            return -1;
        };
        int i = scan(first + start, first + weight);
        if (i == -1)
            i = scan(first, first + start);
        if (i == -2)
            return -1;
        path = WakePath::IdleCpu;
        return i;
    }
    // select_idle_core() takes the CPUs of each busy core it visits out of the mask.
    std::vector<bool>& cpus = m_scanMask;
    cpus.assign(static_cast<size_t>(topo().cpus), false);
    for (int c = first; c < first + weight; ++c)
        cpus[static_cast<size_t>(c)] = p.cpus.test(c);
    for (int k = 0, off = start; k < weight; ++k) {
        const int c = first + off;
        if (++off == weight)
            off = 0;
        if (!cpus[static_cast<size_t>(c)])
            continue;
        const int i = selectIdleCore(p, c, cpus, idleCpu);
        if (i >= 0) {
            path = WakePath::IdleCore;
            return i;
        }
    }
    llc(target).hasIdleCores = false; // the hint was stale: no allowed idle core found
    path = WakePath::IdleCpu;
    return idleCpu;
}

int Placement::selectIdleCore(const Task& /*p*/, int core, std::vector<bool>& cpus, int& idleCpu)
{
    const int first = topo().coreFirst(core);
    const int end = first + topo().coreSize(core);
    bool idle = true;
    for (int c = first; c < end; ++c) {
        if (!cpuIdle(c)) {
            idle = false;
            if (idleCpu == -1) {
                if (schedIdleCpu(c) && cpus[static_cast<size_t>(c)]) {
                    idleCpu = c;
                    break;
                }
                continue;
            }
            break;
        }
        if (idleCpu == -1 && cpus[static_cast<size_t>(c)])
            idleCpu = c;
    }
    if (idle)
        return core;
    for (int c = first; c < end; ++c)
        cpus[static_cast<size_t>(c)] = false;
    return -1;
}

// --- sched_balance_find_dst_cpu() (find_idlest) -------------------------------------------------

int Placement::findDstCpu(const Task& p, int cpu, int prevCpu, DomainLevel& level)
{
    const std::vector<SchedDomain>* doms = &domainsOf(cpu);
    if (doms->empty())
        return prevCpu;
    int newCpu = cpu;
    int idx = static_cast<int>(doms->size()) - 1;
    bool moved = false;
    while (idx >= 0) {
        const SchedDomain& sd = (*doms)[static_cast<size_t>(idx)];
        const SchedGroup* group = findDstGroup(sd, p, cpu);
        if (!group) {
            --idx; // try a lower level of cpu
            continue;
        }
        newCpu = findDstGroupCpu(*group, p, cpu);
        if (newCpu == cpu) {
            --idx;
            continue;
        }
        if (!moved)
            level = sd.level;
        moved = true;
        // Go on below the chosen CPU's level of the same width.
        const int weight = sd.weight;
        cpu = newCpu;
        doms = &domainsOf(cpu);
        idx = -1;
        for (size_t j = 0; j < doms->size() && (*doms)[j].weight < weight; ++j)
            idx = static_cast<int>(j);
    }
    return newCpu;
}

const SchedGroup* Placement::findDstGroup(const SchedDomain& sd, const Task& p, int thisCpu)
{
    bool haveLocal = false;
    GroupStats local;
    GroupStats idlest;
    idlest.type = GroupType::Overloaded;
    idlest.avgLoad = UINT64_MAX;
    const SchedGroup* idlestGroup = nullptr;
    for (const int gi : sd.groups) {
        const SchedGroup& g = m_sd->group(gi);
        const int first = g.first;
        const int weight = g.weight;
        bool allowed = false;
        for (int c = first; c < first + weight; ++c)
            allowed = allowed || p.cpus.test(c);
        if (!allowed)
            continue;
        // update_sg_wakeup_stats(): a new task counts nowhere yet (task_running_on_cpu() and
        // the *_without() corrections are zero for it).
        GroupStats s;
        s.weight = weight;
        s.capacity = static_cast<uint64_t>(g.capacity);
        for (int c = first; c < first + weight; ++c) {
            s.load += m_s.cpuLoad(c);
            s.util += m_s.cpuUtil(c);
            s.runnable += m_s.cpuRunnable(c);
            const int nr = m_ctx.nrRunning(c);
            s.sumNrRunning += nr;
            if (nr == 0 && m_ctx.idleCpu(c))
                ++s.idleCpus;
            s.maxCapacity = std::max(s.maxCapacity, capacity(c));
        }
        // On a domain of differing capacities a group whose first CPU the task does not fit
        // is misfit_task for it (task_fits_cpu(), kernel-model.md §8.4).
        const bool misfit =
            (sd.flags & SdAsymCpuCapacity) && !fitsCapacity(m_s.taskUtil(p), capacity(first));
        // group_classify() (imbalanced, asym_packing and smt_balance are not used here).
        s.type = isOverloaded(sd.imbalancePct, s) ? GroupType::Overloaded
            : misfit                              ? GroupType::MisfitTask
            : !hasCapacity(sd.imbalancePct, s)    ? GroupType::FullyBusy
                                                  : GroupType::HasSpare;
        if (s.type == GroupType::FullyBusy || s.type == GroupType::Overloaded)
            s.avgLoad = s.load * kCapacityScale / s.capacity;
        if (g.contains(thisCpu)) {
            local = s;
            haveLocal = true;
        } else if (pickIdlest(idlest, s)) {
            idlest = s;
            idlestGroup = &g;
        }
    }
    if (!idlestGroup)
        return nullptr;
    if (!haveLocal)
        return idlestGroup; // the local group is not allowed: the idlest one
    if (local.type < idlest.type)
        return nullptr;
    if (local.type > idlest.type)
        return idlestGroup;
    switch (local.type) {
    case GroupType::Overloaded:
    case GroupType::FullyBusy: {
        // Move only past an imbalance of a NICE_0 task's load scaled by the margin.
        const uint64_t imbalance = 1024 * uint64_t(sd.imbalancePct - 100) / 100;
        if (idlest.avgLoad >= local.avgLoad + imbalance)
            return nullptr;
        if (100 * local.avgLoad <= uint64_t(sd.imbalancePct) * idlest.avgLoad)
            return nullptr;
        break;
    }
    case GroupType::MisfitTask:
        if (local.maxCapacity >= idlest.maxCapacity)
            return nullptr; // stay unless the other group has a bigger CPU
        break;
    case GroupType::HasSpare:
        if (local.idleCpus >= idlest.idleCpus)
            return nullptr; // stay local unless the other group has more idle CPUs
        break;
    default:
        return nullptr;
    }
    return idlestGroup;
}

int Placement::findDstGroupCpu(const SchedGroup& group, const Task& p, int thisCpu)
{
    if (group.weight == 1)
        return group.first;
    uint64_t minLoad = UINT64_MAX;
    int64_t latestIdle = -1;
    int leastLoaded = thisCpu;
    int shallowest = -1;
    for (int c = group.first; c < group.first + group.weight; ++c) {
        if (!p.cpus.test(c))
            continue;
        if (m_s.schedIdleCpu(c))
            return c;
        if (m_ctx.idleCpu(c)) {
            // No cpuidle states modelled: the most recently idled CPU (its cache is warmest).
            const int64_t stamp = m_idleStamp[static_cast<size_t>(c)];
            if (stamp > latestIdle) {
                latestIdle = stamp;
                shallowest = c;
            }
        } else if (shallowest == -1) {
            const uint64_t load = m_s.cpuLoad(c);
            if (load < minLoad) {
                minLoad = load;
                leastLoaded = c;
            }
        }
    }
    return shallowest != -1 ? shallowest : leastLoaded;
}

int Placement::anyAndDistribute(const CpuSet& cpus, int callingCpu)
{
    const int n = topo().cpus;
    int& rotor = m_distributePrev[static_cast<size_t>(std::clamp(callingCpu, 0, n - 1))];
    for (int k = 1; k <= n; ++k) {
        const int c = (rotor + k) % n;
        if (cpus.test(c)) {
            rotor = c;
            return c;
        }
    }
    return std::max(0, cpus.first());
}

// --- state kept for placement -------------------------------------------------------------------

void Placement::cpuEnteredIdle(int cpu, int64_t now)
{
    m_idleStamp[static_cast<size_t>(cpu)] = now;
    if (topo().threadsPerCore < 2)
        return;
    // update_idle_core(): a CPU entering idle with all its siblings idle sets the LLC's hint.
    const int first = topo().coreFirst(cpu);
    for (int c = first; c < first + topo().coreSize(cpu); ++c)
        if (c != cpu && !m_ctx.idleCpu(c))
            return;
    llc(cpu).hasIdleCores = true;
}

void Placement::taskWokenOn(int cpu)
{
    m_idleStamp[static_cast<size_t>(cpu)] = -1;
}

void Placement::updateIdleCpuScan(int cpu, uint64_t sumUtil)
{
    // nr_scan = llc_weight · (1 − (x·pct/100)²), x = sum_util / (llc_weight · 1024), so the
    // scan stops at x = 100/pct (85 % for 117), all in integers as the kernel computes it.
    const int weight = llcSize(cpu);
    if (weight < 2)
        return;
    const int pct = m_sd->llc(cpu)->imbalancePct;
    const uint64_t x = sumUtil / uint64_t(weight);
    uint64_t tmp = x * x * uint64_t(pct) * uint64_t(pct) / (10000 * kCapacityScale);
    tmp = std::min<uint64_t>(tmp, kCapacityScale);
    const uint64_t y = (kCapacityScale - tmp) * uint64_t(weight) / kCapacityScale;
    llc(cpu).nrIdleScan = static_cast<int>(y);
}

} // namespace schedlab
