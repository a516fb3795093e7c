// SPDX-License-Identifier: GPL-2.0-or-later
// select_task_rq_fair() and its helpers (kernel-model.md §8.2). Integer arithmetic as in
// kernel/sched/fair.c; every scan is in the kernel's order (for_each_cpu_wrap() from target + 1
// in select_idle_cpu(), ascending inside a core or a group), so the choice is deterministic.
#include "core/fair/placement.h"

#include "core/fair/fairclass.h"
#include "core/workload/task.h"

#include <algorithm>
#include <climits>

namespace schedlab {

namespace {
constexpr uint64_t kCapacityScale = 1024; // SCHED_CAPACITY_SCALE

struct GroupStats
{
    uint64_t load = 0, util = 0, runnable = 0, capacity = 0, avgLoad = 0;
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
    case GroupType::HasSpare:
        if (idlest.idleCpus > s.idleCpus)
            return false;
        return !(idlest.idleCpus == s.idleCpus && idlest.util <= s.util);
    default:
        return false;
    }
}
} // namespace

Placement::Placement(const PlacementServices& services, CpuTopology topology, int hz)
    : m_s(services)
    , m_topo(topology)
    , m_hz(hz)
    , m_idleTasks(static_cast<size_t>(topology.cpus))
    , m_idleStamp(static_cast<size_t>(topology.cpus), 0)
    , m_distributePrev(static_cast<size_t>(topology.cpus), 0)
{
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
    return m_llcs[static_cast<size_t>(m_topo.llcOf(cpu))];
}

const Placement::LlcState& Placement::llc(int cpu) const
{
    return m_llcs[static_cast<size_t>(m_topo.llcOf(cpu))];
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

std::vector<PlacementDomain> Placement::domainsOf(int cpu) const
{
    // sd_init(): SMT domains have imbalance_pct 110, the LLC (MC) and package levels 117.
    std::vector<PlacementDomain> out;
    auto add = [&](DomainLevel level, int pct, int first, int weight) {
        weight = std::min(weight, m_topo.cpus - first);
        const int below = out.empty() ? 1 : out.back().weight;
        if (weight > below)
            out.push_back({level, pct, first, weight});
    };
    const int tpc = m_topo.threadsPerCore;
    add(DomainLevel::Smt, 110, m_topo.coreOf(cpu) * tpc, tpc);
    const int llcCpus = tpc * m_topo.coresPerLlc;
    add(DomainLevel::Mc, 117, m_topo.llcOf(cpu) * llcCpus, llcCpus);
    add(DomainLevel::Pkg, 117, 0, m_topo.cpus);
    return out;
}

int Placement::llcSize(int cpu) const
{
    const int llcCpus = m_topo.threadsPerCore * m_topo.coresPerLlc;
    const int first = m_topo.llcOf(cpu) * llcCpus;
    return std::max(1, std::min(llcCpus, m_topo.cpus - first));
}

std::vector<std::pair<int, int>> Placement::groupsOf(const PlacementDomain& sd, int cpu) const
{
    // The groups of a level are its child level's spans (single CPUs at the lowest level), in
    // the order build_sched_groups() links them: the local group first, then wrapping around.
    const std::vector<PlacementDomain> doms = domainsOf(cpu);
    const PlacementDomain* child = nullptr;
    for (const PlacementDomain& d : doms)
        if (d.weight < sd.weight)
            child = &d;
    std::vector<std::pair<int, int>> out;
    const int tpc = m_topo.threadsPerCore;
    const int llcCpus = tpc * m_topo.coresPerLlc;
    auto spanAt = [&](int c) -> std::pair<int, int> {
        if (!child)
            return {c, 1};
        const bool smt = child->level == DomainLevel::Smt;
        const int first = smt ? m_topo.coreOf(c) * tpc : m_topo.llcOf(c) * llcCpus;
        return {first, std::min(smt ? tpc : llcCpus, m_topo.cpus - first)};
    };
    for (int k = 0; k < sd.weight; ++k) {
        const auto g = spanAt(sd.first + (cpu - sd.first + k) % sd.weight);
        if (std::find(out.begin(), out.end(), g) == out.end())
            out.push_back(g);
    }
    return out;
}

// --- select_task_rq_fair() ----------------------------------------------------------------------

PlacementResult Placement::selectTaskRq(const Task& p, const WakeContext& ctx)
{
    PlacementResult r;
    const bool fork = ctx.flags & (WakeFork | WakeExec);
    const int prev = fork ? ctx.thisCpu : p.cpu;
    r.cpu = prev;
    if (p.cpus.count() > 1) {
        int cpu = ctx.thisCpu;
        bool wantAffine = false;
        if (ctx.flags & WakeTtwu) {
            recordWakee(p, ctx);
            wantAffine = !wakeWide(p, ctx) && p.cpus.test(cpu);
        }
        // The domain walk from the waker's CPU: the lowest SD_WAKE_AFFINE domain spanning prev
        // ends it for an affine wakeup; fork and exec take the widest domain (every level has
        // SD_BALANCE_FORK/EXEC, none SD_BALANCE_WAKE).
        const PlacementDomain* sd = nullptr;
        const std::vector<PlacementDomain> doms = domainsOf(cpu);
        int newCpu = prev;
        WakePath path = WakePath::None;
        for (const PlacementDomain& d : doms) {
            if (wantAffine && prev >= d.first && prev < d.first + d.weight) {
                if (cpu != prev)
                    newCpu = wakeAffine(d, p, cpu, prev, ctx.flags & WakeSync, ctx.waker);
                r.detail.level = d.level;
                sd = nullptr;
                break;
            }
            if (fork)
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
    if (r.cpu < 0 || r.cpu >= m_topo.cpus || !p.cpus.test(r.cpu)) {
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
    const PlacementDomain& sd, const Task& p, int thisCpu, int prevCpu, bool sync, int waker)
{
    int target = wakeAffineIdle(thisCpu, prevCpu, sync); // WA_IDLE
    if (target < 0)
        target = wakeAffineWeight(sd, p, thisCpu, prevCpu, sync, waker); // WA_WEIGHT
    return target == thisCpu ? thisCpu : prevCpu;
}

int Placement::wakeAffineIdle(int thisCpu, int prevCpu, bool sync)
{
    // An idle waker CPU means an interrupt woke the task: move only within the cache.
    if (m_s.idleCpu(thisCpu) && sharesCache(thisCpu, prevCpu))
        return m_s.idleCpu(prevCpu) ? prevCpu : thisCpu;
    if (sync) {
        const int running =
            m_s.nrRunning(thisCpu) - (syncDiscountsDelayed ? m_s.nrDelayed(thisCpu) : 0);
        if (running == 1)
            return thisCpu; // the waker is about to sleep: its CPU frees up
    }
    if (m_s.idleCpu(prevCpu))
        return prevCpu;
    return -1;
}

int Placement::wakeAffineWeight(
    const PlacementDomain& sd, const Task& p, int thisCpu, int prevCpu, bool sync, int waker)
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
    thisEff *= static_cast<int64_t>(m_s.capacity(prevCpu));
    int64_t prevEff = static_cast<int64_t>(m_s.cpuLoad(prevCpu)) - taskLoad;
    prevEff *= 100 + (sd.imbalancePct - 100) / 2; // WA_BIAS: half the imbalance margin
    prevEff *= static_cast<int64_t>(m_s.capacity(thisCpu));
    if (sync)
        prevEff += 1; // a tie stacks the wakee on the waker
    return thisEff < prevEff ? thisCpu : -1;
}

// --- select_idle_sibling() ----------------------------------------------------------------------

bool Placement::idleOrSchedIdle(int cpu) const
{
    return m_s.idleCpu(cpu) || m_s.schedIdleCpu(cpu);
}

int Placement::selectIdleSibling(const Task& p, int prev, int target, WakePath& path)
{
    path = WakePath::TargetIdle;
    if (idleOrSchedIdle(target))
        return target;
    path = WakePath::PrevIdle;
    if (prev != target && sharesCache(prev, target) && idleOrSchedIdle(prev))
        return prev;
    // recent_used_cpu: the CPU before prev, remembered for the next wakeup.
    WakeeState& w = wakee(p.index);
    const int recent = w.recentUsedCpu;
    w.recentUsedCpu = prev;
    path = WakePath::RecentUsed;
    if (recent >= 0 && recent != prev && recent != target && sharesCache(recent, target)
        && idleOrSchedIdle(recent) && p.cpus.test(recent))
        return recent;
    path = WakePath::Fallback;
    if (llcSize(target) < 2)
        return target; // no sd_llc
    bool hasIdleCore = false;
    if (m_topo.threadsPerCore > 1) { // sched_smt_active()
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

int Placement::selectIdleSmt(const Task& p, int target)
{
    const int first = m_topo.coreOf(target) * m_topo.threadsPerCore;
    for (int c = first; c < std::min(first + m_topo.threadsPerCore, m_topo.cpus); ++c)
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
    // sd_llc span ∩ p->cpus_ptr: the LLC is the contiguous range [first, first + weight).
    const int first = m_topo.llcFirst(target);
    const int weight = m_topo.llcSize(target);
    std::vector<bool>& cpus = m_scanMask;
    cpus.assign(static_cast<size_t>(m_topo.cpus), false);
    for (int c = first; c < first + weight; ++c)
        cpus[static_cast<size_t>(c)] = p.cpus.test(c);
    int idleCpu = -1;
    for (int k = 0; k < weight; ++k) {
        const int c = first + (target - first + 1 + k) % weight; // for_each_cpu_wrap(…, target + 1)
        if (!cpus[static_cast<size_t>(c)])
            continue;
        if (hasIdleCore) {
            const int i = selectIdleCore(p, c, cpus, idleCpu);
            if (i >= 0) {
                path = WakePath::IdleCore;
                return i;
            }
        } else {
            if (--nr <= 0)
                return -1;
            if (idleOrSchedIdle(c)) {
                idleCpu = c;
                break;
            }
        }
    }
    if (hasIdleCore)
        llc(target).hasIdleCores = false; // the hint was stale: no allowed idle core found
    path = WakePath::IdleCpu;
    return idleCpu;
}

int Placement::selectIdleCore(const Task& /*p*/, int core, std::vector<bool>& cpus, int& idleCpu)
{
    const int first = m_topo.coreOf(core) * m_topo.threadsPerCore;
    const int end = std::min(first + m_topo.threadsPerCore, m_topo.cpus);
    bool idle = true;
    for (int c = first; c < end; ++c) {
        if (!m_s.idleCpu(c)) {
            idle = false;
            if (idleCpu == -1) {
                if (m_s.schedIdleCpu(c) && cpus[static_cast<size_t>(c)]) {
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
    std::vector<PlacementDomain> doms = domainsOf(cpu);
    if (doms.empty())
        return prevCpu;
    int newCpu = cpu;
    int idx = static_cast<int>(doms.size()) - 1;
    bool moved = false;
    while (idx >= 0) {
        const PlacementDomain sd = doms[static_cast<size_t>(idx)];
        int first = 0;
        int weight = 0;
        if (findDstGroup(sd, p, cpu, first, weight) < 0) {
            --idx; // try a lower level of cpu
            continue;
        }
        newCpu = findDstGroupCpu(first, weight, p, cpu);
        if (newCpu == cpu) {
            --idx;
            continue;
        }
        if (!moved)
            level = sd.level;
        moved = true;
        // Go on below the chosen CPU's level of the same width.
        cpu = newCpu;
        doms = domainsOf(cpu);
        idx = -1;
        for (size_t j = 0; j < doms.size() && doms[j].weight < sd.weight; ++j)
            idx = static_cast<int>(j);
    }
    return newCpu;
}

int Placement::findDstGroup(
    const PlacementDomain& sd, const Task& p, int thisCpu, int& groupFirst, int& groupWeight)
{
    bool haveLocal = false;
    bool haveIdlest = false;
    GroupStats local;
    GroupStats idlest;
    idlest.type = GroupType::Overloaded;
    idlest.avgLoad = UINT64_MAX;
    for (const auto& [first, weight] : groupsOf(sd, thisCpu)) {
        bool allowed = false;
        for (int c = first; c < first + weight; ++c)
            allowed = allowed || p.cpus.test(c);
        if (!allowed)
            continue;
        // update_sg_wakeup_stats(): a new task counts nowhere yet (task_running_on_cpu() and
        // the *_without() corrections are zero for it).
        GroupStats s;
        s.weight = weight;
        for (int c = first; c < first + weight; ++c) {
            s.load += m_s.cpuLoad(c);
            s.util += m_s.cpuUtil(c);
            s.runnable += m_s.cpuRunnable(c);
            s.capacity += m_s.capacity(c);
            const int nr = m_s.nrRunning(c);
            s.sumNrRunning += nr;
            if (nr == 0 && m_s.idleCpu(c))
                ++s.idleCpus;
        }
        s.type = isOverloaded(sd.imbalancePct, s) ? GroupType::Overloaded
            : !hasCapacity(sd.imbalancePct, s)    ? GroupType::FullyBusy
                                                  : GroupType::HasSpare;
        if (s.type == GroupType::FullyBusy || s.type == GroupType::Overloaded)
            s.avgLoad = s.load * kCapacityScale / s.capacity;
        const bool isLocal = thisCpu >= first && thisCpu < first + weight;
        if (isLocal) {
            local = s;
            haveLocal = true;
        } else if (pickIdlest(idlest, s)) {
            idlest = s;
            haveIdlest = true;
            groupFirst = first;
            groupWeight = weight;
        }
    }
    if (!haveIdlest)
        return -1;
    if (!haveLocal)
        return 0; // the local group is not allowed: the idlest one
    if (local.type < idlest.type)
        return -1;
    if (local.type > idlest.type)
        return 0;
    switch (local.type) {
    case GroupType::Overloaded:
    case GroupType::FullyBusy: {
        // Move only past an imbalance of a NICE_0 task's load scaled by the margin.
        const uint64_t imbalance = 1024 * uint64_t(sd.imbalancePct - 100) / 100;
        if (idlest.avgLoad >= local.avgLoad + imbalance)
            return -1;
        if (100 * local.avgLoad <= uint64_t(sd.imbalancePct) * idlest.avgLoad)
            return -1;
        break;
    }
    case GroupType::HasSpare:
        if (local.idleCpus >= idlest.idleCpus)
            return -1; // stay local unless the other group has more idle CPUs
        break;
    default:
        return -1;
    }
    return 0;
}

int Placement::findDstGroupCpu(int first, int weight, const Task& p, int thisCpu)
{
    if (weight == 1)
        return first;
    uint64_t minLoad = UINT64_MAX;
    int64_t latestIdle = -1;
    int leastLoaded = thisCpu;
    int shallowest = -1;
    for (int c = first; c < first + weight; ++c) {
        if (!p.cpus.test(c))
            continue;
        if (m_s.schedIdleCpu(c))
            return c;
        if (m_s.idleCpu(c)) {
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
    int& rotor = m_distributePrev[static_cast<size_t>(std::clamp(callingCpu, 0, m_topo.cpus - 1))];
    for (int k = 1; k <= m_topo.cpus; ++k) {
        const int c = (rotor + k) % m_topo.cpus;
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
    if (m_topo.threadsPerCore < 2)
        return;
    // update_idle_core(): a CPU entering idle with all its siblings idle sets the LLC's hint.
    const int first = m_topo.coreOf(cpu) * m_topo.threadsPerCore;
    for (int c = first; c < std::min(first + m_topo.threadsPerCore, m_topo.cpus); ++c)
        if (c != cpu && !m_s.idleCpu(c))
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
    const std::vector<PlacementDomain> doms = domainsOf(cpu);
    int pct = 117;
    for (const PlacementDomain& d : doms)
        if (d.weight == weight)
            pct = d.imbalancePct;
    const uint64_t x = sumUtil / uint64_t(weight);
    uint64_t tmp = x * x * uint64_t(pct) * uint64_t(pct) / (10000 * kCapacityScale);
    tmp = std::min<uint64_t>(tmp, kCapacityScale);
    const uint64_t y = (kCapacityScale - tmp) * uint64_t(weight) / kCapacityScale;
    llc(cpu).nrIdleScan = static_cast<int>(y);
}

} // namespace schedlab
