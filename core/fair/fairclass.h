// SPDX-License-Identifier: GPL-2.0-or-later
// The EEVDF fair class (kernel/sched/fair.c), per kernel-model.md §3–§7, on the hierarchical
// cfs_rq's of each CPU. Every version-dependent step reads the profile's choices/traits and the
// sched features; nothing here knows profile names.
//
// The class mutates Rq/CfsRq/SchedEntity state only. The machine (clock, recording, task
// accounting, rescheduling the CPU) is reached through MachineContext; PELT (LoadTracker) and
// CFS bandwidth (CfsBandwidthControl) are called directly; FairHooks is the task-level part of
// enqueue_task()/dequeue_task() (FairSchedClass).
#pragma once

#include "core/fair/pickexplain.h"
#include "core/fair/taskgroup.h"
#include "core/kernel/profile.h"
#include "core/record/recording.h"
#include "core/sched/machinecontext.h"
#include "core/sched/rq.h"

#include <algorithm>
#include <vector>

namespace schedlab {

// enqueue_task()/dequeue_task() flags (subset of kernel/sched/sched.h).
enum EnqueueFlag : int {
    EnqueueWakeup = 0x01,
    EnqueueRestore = 0x02,
    EnqueueMigrated = 0x04,
    EnqueueInitial = 0x08,
    EnqueueDelayed = 0x10,
    EnqueueQueued = 0x20, ///< 7.3: place_entity() of a task h_nr_queued already counts
};
enum DequeueFlag : int {
    DequeueSleep = 0x01,
    DequeueSave = 0x02,
    DequeueMove = 0x04,
    DequeueSpecial = 0x08,
    DequeueDelayed = 0x10,
    DequeueMigrating = 0x20,
    DequeueThrottle = 0x40, ///< 6.18+: a task parked by the task-based throttle (never delayed)
};
/// wake_flags (WF_*): the path that asks select_task_rq() and wakeup_preempt().
enum WakeFlag : int { WakeFork = 0x01, WakeSync = 0x02, WakeTtwu = 0x04, WakeExec = 0x08 };

/// The task-level part of enqueue_task()/dequeue_task() of a fair task entity
/// (sched_core_enqueue/dequeue, util_est, rq->cfs_tasks and the root domain's overload flag),
/// served by FairSchedClass; not called for the final dequeue of a delayed task, which left at
/// its sleep dequeue. Unit tests of the entity level leave it unset.
class FairHooks
{
public:
    virtual ~FairHooks() = default;
    virtual void taskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags) = 0;
    /// The CPU's first fair task was queued (@p any true) or its last one left (false):
    /// dl_server_start() / dl_server_stop() of the fair server (kernel-model.md §15.6).
    virtual void fairQueued(Rq& rq, bool any) = 0;
};

class CfsBandwidthControl;
class LoadTracker;

struct FairParams
{
    const ProfileChoices* choices = nullptr;
    const ProfileTraits* traits = nullptr;
    const FeatureSet* features = nullptr;
    int64_t tickNs = 1000000;   ///< TICK_NSEC
    int64_t baseSlice = 700000; ///< sysctl_sched_base_slice (scaled by CPU count)
    int64_t normalizedBaseSlice = 700000;
};

class FairClass
{
public:
    FairClass(FairParams params, MachineContext& ctx, std::vector<TaskGroup>& groups);
    /// The units the class calls: the task-level enqueue/dequeue part, PELT load tracking
    /// (update_load_avg()) and CFS bandwidth control (§9); each may be left unset (null) in a
    /// unit test, its calls are then no-ops.
    void setHooks(FairHooks* hooks) { m_hooks = hooks; }
    void setLoadTracker(LoadTracker* load) { m_load = load; }
    void setBandwidth(CfsBandwidthControl* bw) { m_bw = bw; }
    /// add_nr_running() / sub_nr_running() of @p n fair tasks reaching the root.
    void addNrRunning(Rq& rq, int n);
    void subNrRunning(Rq& rq, int n);

    FairParams& params() { return m_p; }
    const FairParams& params() const { return m_p; }
    /// The task groups (the machine's hierarchy; the fair state of each group is the class's).
    std::vector<TaskGroup>& groups() { return m_groups; }

    // --- entity level (§3.6–§5) -------------------------------------------------------------
    /// update_curr(): the common early return inline (no running entity, or no time since its
    /// last update: a second call at the same clock, as put_prev and the pick make after the
    /// tick), the accounting out of line (updateCurrRan()).
    void updateCurr(CfsRq& cfsRq)
    {
        SchedEntity* curr = cfsRq.curr;
        if (curr && m_ctx.clock() > curr->execStart)
            updateCurrRan(cfsRq, *curr);
    }
    bool updateDeadline(CfsRq& cfsRq, SchedEntity& se);
    /// §4.1; returns true when (7.2 rules) the stored lag differs from V − v.
    bool updateEntityLag(CfsRq& cfsRq, SchedEntity& se);
    int64_t lagLimit(const CfsRq& cfsRq, SchedEntity& se) const;
    void placeEntity(CfsRq& cfsRq, SchedEntity& se, int flags);
    /// reweight_entity()'s update_entity_lag() and place_entity() for a group entity running
    /// alone on its cfs_rq, where V is its own vruntime (6.13–7.0's rule).
    void placeLoneCurrLag(CfsRq& cfsRq, SchedEntity& se);
    void placeLoneCurr(SchedEntity& se);
    /// place_entity()'s end, shared by both: the Place record and the deadline.
    void placeDeadline(SchedEntity& se, uint64_t v, int64_t lag, bool initial);
    void enqueueEntity(CfsRq& cfsRq, SchedEntity& se, int flags);
    /// Returns false when the entity stays queued as delayed (§5.1).
    bool dequeueEntity(CfsRq& cfsRq, SchedEntity& se, int flags);
    void requeueDelayedEntity(SchedEntity& se);
    /// reweight_entity() for every profile (§6.4 A–D).
    void reweightEntity(CfsRq& cfsRq, SchedEntity& se, uint64_t weight, uint32_t invWeight = 0);
    SchedEntity* pickEevdf(CfsRq& cfsRq, bool protect);
    /// pickEevdf() of __schedule()'s pick (pick_next_entity()): the steps inline, nothing traced.
    SchedEntity* pickEevdfInline(const CfsRq& cfsRq, bool protect) const
    {
        PickTrace unread;
        return pickSteps(cfsRq, pickPolicy(), protect, unread);
    }
    void setNextEntity(CfsRq& cfsRq, SchedEntity& se, bool first);
    void setNextEntityInline(CfsRq& cfsRq, SchedEntity& se, bool first);
    void putPrevEntity(CfsRq& cfsRq, SchedEntity& se);

    // --- slice protection (§3.7) -------------------------------------------------------------
    bool isProtected(const SchedEntity& se) const;
    /// set_protect_slice() (inline: at every set_next_entity(); a protection shorter than the
    /// deadline out of line).
    void setProtectSlice(CfsRq& cfsRq, SchedEntity& se)
    {
        if (m_p.choices->protection == Protection::DeadlineHack) {
            se.vlag = static_cast<int64_t>(se.deadline); // stash the deadline at pick time
            return;
        }
        int64_t slice = feature(Feature::RunToParity) ? cfsRq.minSlice() : m_p.normalizedBaseSlice;
        slice = std::min(slice, se.slice);
        se.vprot = se.deadline;
        if (slice != se.slice)
            protectShorterSlice(cfsRq, se, slice);
    }
    void protectShorterSlice(CfsRq& cfsRq, SchedEntity& se, int64_t slice);
    void cancelProtectSlice(SchedEntity& se);
    void updateProtectSlice(CfsRq& cfsRq, SchedEntity& se);

    // --- task level / hierarchy (§3.5, §6.5, §7) ---------------------------------------------
    void enqueueTask(Rq& rq, SchedEntity& taskSe, int flags);
    /// pick_task_fair(): descends from rq->cfs; may dequeue delayed entities on the way.
    SchedEntity* pickTask(Rq& rq);
    void putPrevTask(Rq& rq, SchedEntity& taskSe);
    void setNextTask(Rq& rq, SchedEntity& taskSe, bool first);
    /// pick_next_task_fair()'s switch: put/set only the levels where prev and next differ.
    void switchTasks(Rq& rq, SchedEntity* prevSe, SchedEntity& nextSe);
    /// dequeue_entities(): a task or (delayed) group entity, walking up the hierarchy.
    int dequeueEntities(Rq& rq, SchedEntity& se, int flags);
    void taskTick(Rq& rq);
    void yieldTask(Rq& rq);
    /// check_preempt_wakeup_fair()/wakeup_preempt_fair(): returns true if curr is preempted.
    bool checkPreemptWakeup(Rq& rq, SchedEntity& pse, int wakeFlags);
    /// update_cfs_group(): recompute a group entity's weight from calc_group_shares (§6.3).
    void updateCfsGroup(SchedEntity& se);
    /// calc_group_shares() (§6.2), scaled units.
    uint64_t calcGroupShares(const CfsRq& groupRq) const;

    // --- CFS bandwidth, ≤6.17 group-dequeue model (§9.2 step 5, §9.3; fairbandwidth.cpp) -------
    /// throttle_cfs_rq()'s dequeue of the group entity chain above @p cfsRq.
    void throttleDequeue(Rq& rq, CfsRq& cfsRq);
    /// unthrottle_cfs_rq()'s re-enqueue of the group entity chain above @p cfsRq.
    void unthrottleEnqueue(Rq& rq, CfsRq& cfsRq);

    // --- 7.3 flat run queue (choice flat, kernel-model.md §6.1; fairflat.cpp) -----------------
    /// __calc_prop_weight() over the whole hierarchy: the task's effective weight h_load.
    uint64_t hierarchicalWeight(const SchedEntity& taskSe) const;
    /// reweight_eevdf(): applies a new h_load to a task in rq->cfs (§6.4 D math on h_load).
    void reweightEevdf(CfsRq& root, SchedEntity& se, uint64_t weight, bool onRq);
    /// The queue whose EEVDF an entity competes in: its cfs_rq, or (flat) rq->cfs.
    CfsRq& eevdfRq(const SchedEntity& se) const;
    /// The weight calc_delta_fair() uses: se.load, or (flat) the task's h_load.
    LoadWeight& eevdfLoad(SchedEntity& se) const { return m_p.choices->flat ? se.hLoad : se.load; }

    bool feature(Feature f) const { return m_p.features->has(f); }
    PickPolicy pickPolicy() const { return {m_p.choices, m_p.traits, m_p.features}; }
    uint64_t vslice(int64_t slice, SchedEntity& se) const;

private:
    void clearBuddies(CfsRq& cfsRq, const SchedEntity& se);
    void setNextBuddy(SchedEntity* se);
    SchedEntity* pickNextEntity(Rq& rq, CfsRq& cfsRq, bool protect);
    void setDelayed(SchedEntity& se);
    void clearDelayed(SchedEntity& se);
    void accountEnqueue(CfsRq& cfsRq, SchedEntity& se);
    void accountDequeue(CfsRq& cfsRq, SchedEntity& se);
    bool didPreemptShort(CfsRq& cfsRq, SchedEntity& curr) const;
    bool doPreemptShort(CfsRq& cfsRq, SchedEntity& pse, SchedEntity& se) const;
    bool isIdleEntity(const SchedEntity& se) const;

    // 7.3 flat run queue (fairflat.cpp).
    bool flat() const { return m_p.choices->flat; }
    void enqueueTaskFlat(Rq& rq, SchedEntity& taskSe, int flags);
    int dequeueTaskFlat(Rq& rq, SchedEntity& taskSe, int flags);
    void requeueDelayedFlat(CfsRq& root, SchedEntity& se);
    SchedEntity* pickNextEntityFlat(Rq& rq, bool protect);
    SchedEntity* pickTaskFlat(Rq& rq);
    void putPrevTaskFlat(Rq& rq, SchedEntity& taskSe, const SchedEntity* keepFor);
    void setNextTaskFlat(Rq& rq, SchedEntity& taskSe, bool first);
    void taskTickFlat(Rq& rq);
    void reweightLoadOnly(CfsRq& cfsRq, SchedEntity& se, uint64_t weight, uint32_t invWeight);

    // The calls into the units set above (no-ops while unset).
    /// update_load_avg() of @p se and @p cfsRq; @p updateTg publishes tg->load_avg (UPDATE_TG).
    void updateLoadAvg(CfsRq& cfsRq, SchedEntity& se, bool updateTg);
    void taskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags);
    void accountCfsRqRuntime(CfsRq& cfsRq, int64_t delta); ///< account_cfs_rq_runtime()
    bool checkCfsRqRuntime(CfsRq& cfsRq);                  ///< check_cfs_rq_runtime() (≤6.17)
    void checkEnqueueThrottle(CfsRq& cfsRq);               ///< check_enqueue_throttle()
    void returnCfsRqRuntime(CfsRq& cfsRq);                 ///< return_cfs_rq_runtime()

    FairParams m_p;
    /// update_curr() once @p curr ran since its last update.
    void updateCurrRan(CfsRq& cfsRq, SchedEntity& curr);
    /// update_deadline() with the choices the caller read (inline into updateCurrRan()).
    bool renewDeadline(CfsRq& cfsRq, SchedEntity& se, const ProfileChoices& choices);

    MachineContext& m_ctx;
    FairHooks* m_hooks = nullptr;
    LoadTracker* m_load = nullptr;
    CfsBandwidthControl* m_bw = nullptr;
    std::vector<TaskGroup>& m_groups;
};

} // namespace schedlab
