// SPDX-License-Identifier: GPL-2.0-or-later
// PELT bookkeeping of entities and cfs_rq's and the tg->load_avg publication that drives group
// shares (kernel-model.md §6.3, §6.6): update_load_avg(), attach/detach/remove,
// update_tg_load_avg() with its 1/64 threshold and 1 ms rate limit, update_blocked_averages()
// and the leaf cfs_rq list. When blocked averages are updated is the balancer's business
// (core/fair/loadbalance.cpp).
#include "core/fair/loadavg.h"

#include "core/fair/utilest.h"
#include "core/sched/rq.h"

#include <algorithm>
#include <cstdlib>

namespace schedlab {

LoadTracker::LoadTracker(
    MachineContext& ctx, std::vector<TaskGroup>& groups, int cpus, int64_t tickNs)
    : m_ctx(ctx)
    , m_groups(groups)
    , m_cpus(cpus)
    , m_tickNs(tickNs)
    , m_peltClock(static_cast<size_t>(cpus))
{ }

void LoadTracker::setCapacities(const std::vector<int64_t>& capacities)
{
    // A CPU of capacity 1024 is not scaled: cap_scale(delta, 1024) is delta (kernel-model.md
    // §6.6; delta · 1024 cannot overflow, a busy stretch being shorter than the 24 h clock).
    constexpr int64_t unscaled = int64_t{1} << kSchedCapacityShift;
    for (size_t cpu = 0; cpu < m_peltClock.size(); ++cpu) {
        m_peltClock[cpu].scaled = cpu < capacities.size() && capacities[cpu] != unscaled;
        m_peltClock[cpu].capacity = m_peltClock[cpu].scaled ? capacities[cpu] : 0;
    }
}

void LoadTracker::cpuBusy(int cpu)
{
    PeltClock& pc = m_peltClock[static_cast<size_t>(cpu)];
    if (pc.busySince < 0)
        pc.busySince = m_ctx.clock();
}

void LoadTracker::cpuIdle(int cpu)
{
    // update_idle_rq_clock_pelt(): a CPU whose utilization reached the maximum had no idle time
    // to be stolen by running slower: the difference to clock_task is lost for good.
    PeltClock& pc = m_peltClock[static_cast<size_t>(cpu)];
    if (pc.busySince < 0)
        return;
    const int64_t now = m_ctx.clock();
    const int64_t clockPelt = static_cast<int64_t>(peltClock(cpu)) + pc.lostIdleTime;
    constexpr uint64_t divider = (uint64_t{kPeltMinDivider} << kSchedCapacityShift) - kLoadAvgMax;
    if (m_ctx.rq(cpu).cfs->avg.utilSum >= divider)
        pc.lostIdleTime += now - clockPelt;
    pc.busySince = -1;
}

namespace {

constexpr int64_t kTgUpdateRatelimitNs = 1000000; ///< NSEC_PER_MSEC (6.7+)

// The task count a cfs_rq's runnable signal follows (kernel-model.md §5.4): h_nr_runnable
// since 76f2f783294d (6.13, 6.12.7); before it h_nr_running, which counts delayed tasks too.
int runnableCount(const CfsRq& cfsRq, const ProfileChoices* choices)
{
    const bool queued = choices && choices->delayedRunnable == DelayedRunnable::HNrRunning;
    return std::max(0, queued ? cfsRq.hNrQueued : cfsRq.hNrRunnable);
}

// se_runnable() (kernel-model.md §5.4): 0 for a delayed entity (fc1892becd56, every release with
// delayed dequeue: it is dequeued the moment it is picked, so it no longer waits to run); a task
// is runnable while queued, a group entity by the runnable count of its cfs_rq (runnable_weight).
uint64_t entityRunnable(const SchedEntity& se, const ProfileChoices* choices)
{
    if (!se.onRq || se.schedDelayed)
        return 0;
    if (se.isTask())
        return 1;
    return static_cast<uint64_t>(runnableCount(*se.myQ, choices));
}

// sub_positive(), add_positive(): no wrap below zero.
template <typename T> void subPositive(T& value, uint64_t delta)
{
    value = value > delta ? static_cast<T>(value - delta) : T{0};
}

template <typename T> void addPositive(T& value, int64_t delta)
{
    if (delta >= 0)
        value = static_cast<T>(value + static_cast<uint64_t>(delta));
    else
        subPositive(value, static_cast<uint64_t>(-delta));
}

// add_tg_cfs_propagate(): a load_sum change of @p cfsRq to pass on to its group entity.
void addTgCfsPropagate(CfsRq& cfsRq, int64_t runnableSum)
{
    cfsRq.propagate = true;
    cfsRq.propRunnableSum += runnableSum;
}

// update_tg_cfs_util()/update_tg_cfs_runnable(): the group entity takes its cfs_rq's average
// (sum rebuilt with the parent's divider) and the parent gets the difference (§6.6).
template <typename Sum>
void takeGroupAverage(PeltAvg& parent, uint64_t& seAvg, Sum& seSum, uint64_t groupAvg,
    uint64_t& parentAvg, Sum& parentSum)
{
    const int64_t deltaAvg = static_cast<int64_t>(groupAvg) - static_cast<int64_t>(seAvg);
    if (deltaAvg == 0)
        return;
    const uint32_t divider = peltDivider(parent);
    seAvg = groupAvg;
    const auto newSum = static_cast<Sum>(seAvg * divider);
    const int64_t deltaSum = static_cast<int64_t>(newSum) - static_cast<int64_t>(seSum);
    seSum = newSum;
    addPositive(parentAvg, deltaAvg);
    addPositive(parentSum, deltaSum);
    parentSum = std::max<Sum>(parentSum, static_cast<Sum>(parentAvg * kPeltMinDivider));
}

} // namespace

bool LoadTracker::propagateGroupLoadAvg(CfsRq& cfsRq, SchedEntity& se)
{
    // propagate_entity_load_avg(): a group cfs_rq that gained or lost entities (attach, detach,
    // removal) passes the change to its group entity and so to the parent cfs_rq (§6.6). The
    // caller (propagateEntityLoadAvg()) has checked that se is a group entity whose cfs_rq has
    // something to pass on.
    CfsRq& g = *se.myQ;
    g.propagate = false;
    addTgCfsPropagate(cfsRq, g.propRunnableSum);
    PeltAvg& pa = cfsRq.avg;
    takeGroupAverage(pa, se.avg.utilAvg, se.avg.utilSum, g.avg.utilAvg, pa.utilAvg, pa.utilSum);
    takeGroupAverage(pa, se.avg.runnableAvg, se.avg.runnableSum, g.avg.runnableAvg, pa.runnableAvg,
        pa.runnableSum);
    // update_tg_cfs_load(): the entity's load_sum follows the runnable time the group gained (up
    // to a full divider) or, on a loss, the group's load_sum per unit of its queued weight;
    // never below its running time.
    int64_t runnableSum = g.propRunnableSum;
    if (runnableSum == 0)
        return true;
    g.propRunnableSum = 0;
    const uint32_t divider = peltDivider(pa);
    if (runnableSum >= 0) {
        runnableSum = std::min<int64_t>(
            runnableSum + static_cast<int64_t>(se.avg.loadSum), static_cast<int64_t>(divider));
    } else {
        const uint64_t gw = scaleLoadDown(g.loadWeight);
        const uint64_t perWeight = gw ? g.avg.loadSum / gw : 0;
        runnableSum = static_cast<int64_t>(std::min(se.avg.loadSum, perWeight));
    }
    runnableSum = std::max<int64_t>(runnableSum, se.avg.utilSum >> 10);
    const uint64_t w = scaleLoadDown(se.load.weight);
    const uint64_t loadSum = w * static_cast<uint64_t>(runnableSum);
    const uint64_t loadAvg = loadSum / divider;
    const int64_t deltaAvg = static_cast<int64_t>(loadAvg) - static_cast<int64_t>(se.avg.loadAvg);
    if (deltaAvg == 0)
        return true;
    const int64_t deltaSum =
        static_cast<int64_t>(loadSum) - static_cast<int64_t>(w * se.avg.loadSum);
    se.avg.loadSum = static_cast<uint64_t>(runnableSum);
    se.avg.loadAvg = loadAvg;
    addPositive(pa.loadAvg, deltaAvg);
    addPositive(pa.loadSum, deltaSum);
    pa.loadSum = std::max<uint64_t>(pa.loadSum, pa.loadAvg * kPeltMinDivider);
    return true;
}

bool LoadTracker::updateCfsRqLoad(CfsRq& cfsRq)
{
    return updateCfsRqLoadAt(cfsRq, peltClock(cfsRq.cpu));
}

__attribute__((always_inline)) inline bool LoadTracker::updateCfsRqLoadBody(
    CfsRq& cfsRq, uint64_t now)
{
    bool decayed = false;
    if (cfsRq.removedLoad || cfsRq.removedUtil || cfsRq.removedRunnable) {
        // update_cfs_rq_load_avg(): take out what entities that left (exit, migration) had
        // contributed; the sums stay at least avg · PELT_MIN_DIVIDER. Out of line: rare.
        auto takeRemoved = [&cfsRq]() __attribute__((noinline))
        {
            PeltAvg& sa = cfsRq.avg;
            const uint64_t divider = peltDivider(sa);
            subPositive(sa.loadAvg, cfsRq.removedLoad);
            subPositive(sa.loadSum, cfsRq.removedLoad * divider);
            sa.loadSum = std::max<uint64_t>(sa.loadSum, sa.loadAvg * kPeltMinDivider);
            subPositive(sa.utilAvg, cfsRq.removedUtil);
            subPositive(sa.utilSum, cfsRq.removedUtil * divider);
            sa.utilSum =
                std::max<uint32_t>(sa.utilSum, static_cast<uint32_t>(sa.utilAvg * kPeltMinDivider));
            subPositive(sa.runnableAvg, cfsRq.removedRunnable);
            subPositive(sa.runnableSum, cfsRq.removedRunnable * divider);
            sa.runnableSum = std::max<uint64_t>(sa.runnableSum, sa.runnableAvg * kPeltMinDivider);
            // removed_runnable is the unweighted removed load: its sum estimates the load_sum
            // lost.
            addTgCfsPropagate(cfsRq, -static_cast<int64_t>(cfsRq.removedRunnable * divider) >> 10);
            cfsRq.removedLoad = cfsRq.removedUtil = cfsRq.removedRunnable = 0;
        };
        takeRemoved();
        decayed = true;
    }
    return updateCfsRqSum(cfsRq, now) || decayed;
}

__attribute__((always_inline)) inline bool LoadTracker::updateCfsRqSum(CfsRq& cfsRq, uint64_t now)
{
    // __update_load_avg_cfs_rq(): the queued weight accrues, the rest (blocked load) decays.
    // Updated less than one 1024 ns "µs" ago (an entity's update after its cfs_rq's at the same
    // instant), nothing accrues: checked before the inputs are read.
    if (peltNothingAccrues(now, cfsRq.avg))
        return false;
    if (!peltUpdateSumShared(now, cfsRq.avg, scaleLoadDown(cfsRq.loadWeight),
            static_cast<uint64_t>(runnableCount(cfsRq, m_choices)), cfsRq.curr != nullptr, m_step))
        return false;
    peltUpdateAvg(cfsRq.avg, 1);
    return true;
}

bool LoadTracker::updateCfsRqLoadAt(CfsRq& cfsRq, uint64_t now)
{
    return updateCfsRqLoadBody(cfsRq, now);
}

void LoadTracker::attach(CfsRq& cfsRq, SchedEntity& se)
{
    // attach_entity_load_avg(): align with the cfs_rq's clock, derive the sums from the averages.
    const uint32_t divider = peltDivider(cfsRq.avg);
    se.avg.lastUpdateTime = cfsRq.avg.lastUpdateTime;
    se.avg.periodContrib = cfsRq.avg.periodContrib;
    // load_sum = load_avg · divider / weight, but never 0 (40f5aa4c5eae, 5.18): an entity whose
    // load_avg · divider does not exceed its weight, an empty one included (a task whose load
    // decayed to 0, a new group's entity), is attached with load_sum 1 (§6.6).
    const uint64_t w = scaleLoadDown(se.load.weight);
    const uint64_t loadSum = se.avg.loadAvg * divider;
    se.avg.loadSum = w > 0 && w < loadSum ? loadSum / w : 1;
    se.avg.utilSum = static_cast<uint32_t>(se.avg.utilAvg * divider);
    se.avg.runnableSum = se.avg.runnableAvg * divider;
    cfsRq.avg.loadAvg += se.avg.loadAvg;
    cfsRq.avg.loadSum += w * se.avg.loadSum;
    cfsRq.avg.utilAvg += se.avg.utilAvg;
    cfsRq.avg.utilSum += se.avg.utilSum;
    cfsRq.avg.runnableAvg += se.avg.runnableAvg;
    cfsRq.avg.runnableSum += se.avg.runnableSum;
    addTgCfsPropagate(cfsRq, static_cast<int64_t>(se.avg.loadSum));
    se.peltAttached = true;
}

void LoadTracker::onlineGroup(int group)
{
    // online_fair_sched_group(), when the cgroup is created (kernel-model.md §6.6): on every CPU
    // the group's entity joins its parent's cfs_rq with the empty averages of
    // init_entity_runnable_average() (a group entity starts without load). From then on it is
    // attached (last_update_time set), so its first enqueue does not attach it again: it only
    // takes its cfs_rq's averages by propagation, and the parent gains them once.
    for (const auto& se : m_groups[static_cast<size_t>(group)].se)
        attachEntityCfsRq(*se);
}

void LoadTracker::attachEntityCfsRq(SchedEntity& se)
{
    // attach_entity_cfs_rq(): update_load_avg() without DO_ATTACH (an entity that was never
    // attached is not aged), attach_entity_load_avg(), update_tg_load_avg(), then the ancestors.
    // Groups are created before anything runs, so no cfs_rq on the way is throttled.
    CfsRq& cfsRq = *se.cfsRq;
    const uint64_t now = peltClock(cfsRq.cpu);
    if (se.peltAttached
        && peltUpdateSum(
            now, se.avg, se.onRq ? 1 : 0, entityRunnable(se, m_choices), cfsRq.curr == &se))
        peltUpdateAvg(se.avg, scaleLoadDown(se.load.weight));
    updateCfsRqLoadAt(cfsRq, now);
    propagateEntityLoadAvg(cfsRq, se);
    attach(cfsRq, se);
    updateTgLoadAvg(cfsRq);
    propagateEntityCfsRq(se);
}

void LoadTracker::propagateEntityCfsRq(SchedEntity& se)
{
    // propagate_entity_cfs_rq(): the cfs_rq joins the leaf list, and each ancestor entity is
    // updated with UPDATE_TG, which passes the change of its cfs_rq one level up.
    listLeaf(*se.cfsRq);
    for (SchedEntity* p = se.parent; p; p = p->parent)
        updateLoadAvg(*p->cfsRq, *p, true);
}

void LoadTracker::postInitUtil(SchedEntity& se, int64_t cpuScale)
{
    // post_init_entity_util_avg(): a new fair task starts with its cfs_rq's utilization per unit
    // of load times its weight, at most half the CPU's spare capacity (all of that half when the
    // cfs_rq has none); runnable_avg starts equal (§6.6).
    const CfsRq& cfsRq = *se.cfsRq;
    const int64_t cap = (cpuScale - static_cast<int64_t>(cfsRq.avg.utilAvg)) / 2;
    if (cap > 0) {
        uint64_t util = static_cast<uint64_t>(cap);
        if (cfsRq.avg.utilAvg != 0)
            util = std::min(
                util, cfsRq.avg.utilAvg * scaleLoadDown(se.load.weight) / (cfsRq.avg.loadAvg + 1));
        se.avg.utilAvg = util;
    }
    se.avg.runnableAvg = se.avg.utilAvg;
}

void LoadTracker::syncEntityLoadAvg(SchedEntity& se)
{
    // sync_entity_load_avg(): decay a blocked entity to its cfs_rq's last update.
    if (se.peltAttached && se.cfsRq
        && peltUpdateSum(se.cfsRq->avg.lastUpdateTime, se.avg, 0, 0, false))
        peltUpdateAvg(se.avg, scaleLoadDown(se.load.weight));
}

void LoadTracker::remove(SchedEntity& se)
{
    // remove_entity_load_avg(): the load leaves with the task (exit, migration), applied to the
    // old cfs_rq at its next update.
    if (!se.peltAttached || !se.cfsRq)
        return;
    // Decayed first, so the load that leaves, and is attached on the next CPU, is today's and
    // not the value of the entity's own last update (e.g. when it went to sleep).
    syncEntityLoadAvg(se);
    se.cfsRq->removedLoad += se.avg.loadAvg;
    se.cfsRq->removedUtil += se.avg.utilAvg;
    se.cfsRq->removedRunnable += se.avg.runnableAvg;
    se.peltAttached = false;
}

void LoadTracker::updateTgLoadAvg(CfsRq& cfsRq)
{
    if (cfsRq.groupIndex == 0)
        return;
    const int64_t delta =
        static_cast<int64_t>(cfsRq.avg.loadAvg) - static_cast<int64_t>(cfsRq.tgLoadAvgContrib);
    // 7.3 (group_shares=concur, kernel-model.md §6.2): tg->runnable_avg is published with
    // tg->load_avg, and a 1/64 change of either publishes both.
    const bool concur = cfsRq.choices().groupShares == GroupShares::Concur;
    const int64_t deltaRunnable = concur ? static_cast<int64_t>(cfsRq.avg.runnableAvg)
            - static_cast<int64_t>(cfsRq.tgRunnableAvgContrib)
                                         : 0;
    if (std::abs(delta) <= static_cast<int64_t>(cfsRq.tgLoadAvgContrib / 64)
        && std::abs(deltaRunnable) <= static_cast<int64_t>(cfsRq.tgRunnableAvgContrib / 64))
        return;
    // A change to publish, at most once per 1 ms (6.7+; the kernel tests the rate limit first,
    // the same result: the clock is read only when there is something to publish).
    const int64_t now = m_ctx.clock();
    const bool ratelimit = !m_traits || m_traits->tgLoadAvgRatelimit;
    if (ratelimit && cfsRq.lastTgUpdate >= 0 && now - cfsRq.lastTgUpdate < kTgUpdateRatelimitNs)
        return;
    TaskGroup& tg = m_groups[static_cast<size_t>(cfsRq.groupIndex)];
    tg.loadAvg += delta;
    cfsRq.tgLoadAvgContrib = cfsRq.avg.loadAvg;
    if (concur) {
        tg.runnableAvg += deltaRunnable;
        cfsRq.tgRunnableAvgContrib = cfsRq.avg.runnableAvg;
    }
    cfsRq.lastTgUpdate = now;
}

void LoadTracker::addLeaf(CfsRq& cfsRq)
{
    cfsRq.onLeafList = true;
    auto& leaves = m_ctx.rq(cfsRq.cpu).leafGroups;
    leaves.insert(
        std::lower_bound(leaves.begin(), leaves.end(), cfsRq.groupIndex, std::greater<>()),
        cfsRq.groupIndex);
}

__attribute__((always_inline)) inline void LoadTracker::updateEntitySum(
    const CfsRq& cfsRq, SchedEntity& se, uint64_t now)
{
    // __update_load_avg_se(): load while queued, runnable as se_runnable(), util while running.
    if (peltNothingAccrues(now, se.avg))
        return; // a put after the tick at the same instant
    if (!peltUpdateSumShared(
            now, se.avg, se.onRq ? 1 : 0, entityRunnable(se, m_choices), cfsRq.curr == &se, m_step))
        return;
    peltUpdateAvg(se.avg, scaleLoadDown(se.load.weight));
    if (se.isTask() && m_features && m_features->has(Feature::UtilEst))
        utilEstUtilChanged(se.avg); // cfs_se_util_change() (§6.8)
}

void LoadTracker::updateLoadAvgSums(CfsRq& cfsRq, SchedEntity& se, bool updateTg, uint64_t now)
{
    updateEntitySum(cfsRq, se, now);
    if (updateCfsRqSum(cfsRq, now) && updateTg)
        updateTgLoadAvg(cfsRq);
}

__attribute__((noinline)) void LoadTracker::updateLoadAvgAt(
    CfsRq& cfsRq, SchedEntity& se, bool updateTg, uint64_t now)
{
    if (se.peltAttached)
        updateEntitySum(cfsRq, se, now);
    bool decayed = updateCfsRqLoadBody(cfsRq, now); // the same CPU's PELT clock
    decayed = propagateEntityLoadAvg(cfsRq, se) || decayed;
    // DO_ATTACH: a new or migrated task is attached when it is enqueued (enqueue_entity() calls
    // this before setting on_rq), not later when it is first picked. A group entity was attached
    // when its group was created (onlineGroup()); one that was not (a hierarchy built by hand in
    // a unit test) is attached here, after the propagation above, as the kernel would: its
    // parent then counts its cfs_rq's averages twice (kernel-model.md §6.6).
    if (!se.peltAttached && (se.onRq || se.isTask())) {
        attach(cfsRq, se);
        updateTgLoadAvg(cfsRq);
    } else if (!se.peltAttached && !se.isTask()) {
        attach(cfsRq, se);
    } else if (decayed && updateTg) {
        updateTgLoadAvg(cfsRq);
    }
}

bool LoadTracker::updateBlockedAverages(int cpu)
{
    // update_blocked_load_tick(): the jiffy of this update (update_nohz_stats() skips a CPU
    // updated in the same jiffy).
    m_ctx.rq(cpu).lastBlockedUpdate = m_ctx.clock() / m_tickNs;
    bool blocked = false; // cfs_rq_has_blocked() of any cfs_rq visited: !done
    // update_blocked_averages(): decay every group cfs_rq of this CPU (leaves first) and publish
    // the result in tg->load_avg; then the root cfs_rq.
    // Only the group cfs_rq's on this CPU's leaf list are visited (leaves first: descending group
    // index, children are created after their parents), like rq->leaf_cfs_rq_list.
    auto& leaves = m_ctx.rq(cpu).leafGroups;
    size_t kept = 0;
    for (size_t i = 0; i < leaves.size(); ++i) {
        const int group = leaves[i];
        const auto it = m_groups.begin() + group;
        CfsRq& rq = *it->cfsRq[static_cast<size_t>(cpu)];
        SchedEntity& ge = *it->se[static_cast<size_t>(cpu)];
        // cfs_rq_is_decayed(): a cfs_rq with no weight, zero sums and nothing published is off
        // the leaf list, so the walk skips it (thousands of empty groups stay cheap). PELT's
        // period phase is derived from the elapsed time, so a later update gives the same result.
        auto zero = [](const PeltAvg& a) {
            return a.loadSum == 0 && a.runnableSum == 0 && a.utilSum == 0 && a.loadAvg == 0
                && a.runnableAvg == 0 && a.utilAvg == 0;
        };
        if (rq.loadWeight == 0 && rq.removedLoad == 0 && rq.removedUtil == 0
            && rq.removedRunnable == 0 && !rq.propagate && rq.tgLoadAvgContrib == 0 && !rq.curr
            && zero(rq.avg) && (!ge.peltAttached || zero(ge.avg))) {
            rq.onLeafList = false;
            continue; // list_del_leaf_cfs_rq()
        }
        leaves[kept++] = group;
        if (updateCfsRqLoad(rq))
            updateTgLoadAvg(rq);
        // The group entity and its parent cfs_rq, with what the group passes on (unless there
        // is nothing: skip_blocked_update()).
        if (ge.peltAttached && (ge.avg.loadAvg || ge.avg.utilAvg || rq.propagate))
            updateLoadAvg(*ge.cfsRq, ge, true);
        blocked = blocked || rq.avg.loadAvg || rq.avg.utilAvg;
    }
    leaves.resize(kept);
    CfsRq& root = *m_ctx.rq(cpu).cfs;
    updateCfsRqLoad(root);
    return blocked || root.avg.loadAvg || root.avg.utilAvg;
}

} // namespace schedlab
