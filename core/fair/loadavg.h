// SPDX-License-Identifier: GPL-2.0-or-later
// PELT load tracking of the fair class's entities and cfs_rq's and the tg->load_avg that drives
// group shares (kernel/sched/fair.c, kernel-model.md §6.3, §6.6).
#pragma once

#include "core/fair/cfsrq.h"
#include "core/fair/pelt.h"
#include "core/fair/taskgroup.h"
#include "core/kernel/profile.h"
#include "core/sched/machinecontext.h"

#include <cstdint>
#include <vector>

namespace schedlab {

struct Rq;
struct SchedEntity;

class LoadTracker
{
public:
    LoadTracker(MachineContext& ctx, std::vector<TaskGroup>& groups, int cpus, int64_t tickNs);

    /// update_load_avg() of @p se and its @p cfsRq (DO_ATTACH; UPDATE_TG with @p updateTg).
    void updateLoadAvg(CfsRq& cfsRq, SchedEntity& se, bool updateTg)
    {
        updateLoadAvg(cfsRq, se, updateTg, peltClock(cfsRq.cpu)); // cfs_rq_clock_pelt()
    }
    /// The same at @p now, the PELT clock of their CPU read once by a caller that updates
    /// several levels at one instant (a switch). The rare cases are told apart here, so the
    /// common one calls the two sums' update directly, and not even that when nothing accrues:
    /// both were updated less than one 1024 ns PELT "µs" ago (the put_prev that follows a tick
    /// at the same instant).
    void updateLoadAvg(CfsRq& cfsRq, SchedEntity& se, bool updateTg, uint64_t now)
    {
        listLeaf(cfsRq);
        if (se.myQ)
            listLeaf(*se.myQ); // the group entity's own average changes too
        // An entity not attached yet (DO_ATTACH), removed load on its cfs_rq, or a group entity
        // whose cfs_rq has something to propagate.
        if (!se.peltAttached || (cfsRq.removedLoad | cfsRq.removedUtil | cfsRq.removedRunnable)
            || (!se.isTask() && se.myQ->propagate)) [[unlikely]] {
            updateLoadAvgAt(cfsRq, se, updateTg, now);
            return;
        }
        if (peltNothingAccrues(now, se.avg) && peltNothingAccrues(now, cfsRq.avg))
            return;
        updateLoadAvgSums(cfsRq, se, updateTg, now);
    }
    /// attach_entity_load_avg().
    void attach(CfsRq& cfsRq, SchedEntity& se);
    /// online_fair_sched_group() of group @p group: attach_entity_cfs_rq() of its entity on every
    /// CPU, with the empty averages of a new group (kernel-model.md §6.6).
    void onlineGroup(int group);
    /// remove_entity_load_avg(): the load leaves with the task (exit, migration).
    void remove(SchedEntity& se);
    /// sync_entity_load_avg(): a blocked entity decayed to its cfs_rq's last update.
    void syncEntityLoadAvg(SchedEntity& se);
    /// post_init_entity_util_avg() of a new fair task on its cfs_rq; @p cpuScale is the CPU's
    /// arch_scale_cpu_capacity().
    void postInitUtil(SchedEntity& se, int64_t cpuScale);
    /// update_cfs_rq_load_avg(); true if the average decayed or changed.
    bool updateCfsRqLoad(CfsRq& cfsRq);
    /// update_tg_load_avg(): publish the cfs_rq's contribution to tg->load_avg.
    void updateTgLoadAvg(CfsRq& cfsRq);
    /// update_blocked_averages() of @p cpu (its callers are the balancer's: the balance softirq,
    /// the new-idle balance and the NOHZ stats update, kernel-model.md §6.6); true while some
    /// cfs_rq of the CPU still has blocked load or utilization to decay (rq->has_blocked_load).
    bool updateBlockedAverages(int cpu);
    /// The profile's traits (read at every publication: a profile action may switch them).
    void setTraits(const ProfileTraits* traits) { m_traits = traits; }
    /// The behaviour choices, read at every update (delayed_runnable; a profile action may
    /// switch them). Without them the runnable signal follows h_nr_runnable.
    void setChoices(const ProfileChoices* choices) { m_choices = choices; }
    /// The sched features, read at every update (UTIL_EST).
    void setFeatures(const FeatureSet* features) { m_features = features; }
    /// arch_scale_cpu_capacity() of every CPU, for the PELT clock (all 1024 if never set).
    void setCapacities(const std::vector<int64_t>& capacities);
    /// rq_clock_pelt() of @p cpu (ns): clock_task while the CPU is idle; while it runs, time
    /// scaled by its capacity; minus the idle time lost to an always-running CPU (§6.6).
    uint64_t peltClock(int cpu) const
    {
        // update_rq_clock_pelt() scales the time a CPU runs by arch_scale_cpu_capacity() (no
        // frequency scaling: every CPU runs at its top frequency), so a task accrues utilization
        // by the work it does; an idle CPU's clock catches up with clock_task. Kept lazily here:
        // one scaling of the whole busy stretch instead of one per rq clock update (a few ns of
        // rounding).
        const int64_t now = m_ctx.clock();
        const PeltClock& pc = m_peltClock[static_cast<size_t>(cpu)];
        int64_t clock = now;
        if (pc.scaled && pc.busySince >= 0) [[unlikely]] // most CPUs are not scaled: tested first
            clock = pc.busySince
                + ((now - pc.busySince) * pc.capacity >> kSchedCapacityShift); // cap_scale()
        return static_cast<uint64_t>(clock - pc.lostIdleTime);
    }
    /// The CPU switches from idle to a task: its PELT clock has been following clock_task.
    void cpuBusy(int cpu);
    /// update_idle_rq_clock_pelt(): the CPU is about to go idle.
    void cpuIdle(int cpu);

private:
    /// list_add_leaf_cfs_rq(): a group cfs_rq whose load may change joins its CPU's leaf list.
    void listLeaf(CfsRq& cfsRq)
    {
        if (!cfsRq.onLeafList && cfsRq.groupIndex != 0)
            addLeaf(cfsRq);
    }
    void addLeaf(CfsRq& cfsRq);
    /// updateCfsRqLoad() at the PELT clock @p now (its CPU's, read once by the caller).
    bool updateCfsRqLoadAt(CfsRq& cfsRq, uint64_t now);
    /// Its body, inlined into updateLoadAvg() (defined in loadavg.cpp, used there only).
    bool updateCfsRqLoadBody(CfsRq& cfsRq, uint64_t now);
    /// __update_load_avg_cfs_rq(), the part of the body without removed load (inline).
    bool updateCfsRqSum(CfsRq& cfsRq, uint64_t now);
    /// __update_load_avg_se() of attached entity @p se on @p cfsRq (inline).
    void updateEntitySum(const CfsRq& cfsRq, SchedEntity& se, uint64_t now);
    /// updateLoadAvg() at @p now of an attached entity and a cfs_rq with no rare case (out of
    /// line): only the two sums move.
    void updateLoadAvgSums(CfsRq& cfsRq, SchedEntity& se, bool updateTg, uint64_t now);
    /// updateLoadAvg() at @p now when the entity is not attached, its cfs_rq has removed load or
    /// its own cfs_rq something to propagate (out of line: rare).
    void updateLoadAvgAt(CfsRq& cfsRq, SchedEntity& se, bool updateTg, uint64_t now);
    /// propagate_entity_load_avg() of group entity @p se into its parent @p cfsRq: false at once
    /// for a task or a group with nothing to pass on (the common case, inline).
    bool propagateEntityLoadAvg(CfsRq& cfsRq, SchedEntity& se)
    {
        if (se.isTask() || !se.myQ->propagate)
            return false;
        return propagateGroupLoadAvg(cfsRq, se);
    }
    bool propagateGroupLoadAvg(CfsRq& cfsRq, SchedEntity& se);
    /// attach_entity_cfs_rq(): @p se joins its cfs_rq's sums now, and the change is passed up.
    void attachEntityCfsRq(SchedEntity& se);
    /// propagate_entity_cfs_rq(): the ancestors of @p se take the change of its cfs_rq.
    void propagateEntityCfsRq(SchedEntity& se);

    MachineContext& m_ctx;
    std::vector<TaskGroup>& m_groups;
    int m_cpus = 1;
    int64_t m_tickNs = 1000000;
    const ProfileTraits* m_traits = nullptr;
    const ProfileChoices* m_choices = nullptr;
    const FeatureSet* m_features = nullptr;
    /// rq->clock_pelt, kept lazily: the clock_task at which the CPU last became busy (−1 while
    /// idle), rq->lost_idle_time, and the CPU's capacity (read with them at every update).
    struct PeltClock
    {
        int64_t busySince = -1;
        int64_t lostIdleTime = 0;
        int64_t capacity = 0; ///< arch_scale_cpu_capacity(), if scaled
        bool scaled = false;  ///< a capacity other than 1024 was set (otherwise time is not scaled)
    };
    std::vector<PeltClock> m_peltClock;
    /// The last PELT sum step of update_load_avg() (peltUpdateSumShared()).
    PeltStep m_step;
};

} // namespace schedlab
