// SPDX-License-Identifier: GPL-2.0-or-later
// The fair class as a SchedClass (fair_sched_class, kernel/sched/fair.c): the task-level entry
// points over FairClass (EEVDF on the hierarchical cfs_rq's) and select_task_rq_fair().
#pragma once

#include "core/fair/cfsbandwidth.h"
#include "core/fair/fairclass.h"
#include "core/fair/placement.h"
#include "core/kernel/profile.h"
#include "core/sched/rq.h"
#include "core/sched/schedclass.h"
#include "core/sched/topology.h"
#include "core/workload/task.h"

namespace schedlab {

class CfsBandwidthControl;
class CoreScheduler;
class DlServerClass;
class LoadBalancer;
class LoadTracker;

class FairSchedClass final : public SchedClass,
                             private FairHooks,
                             private PlacementServices,
                             private SchedGroupOps
{
public:
    /// @p domains: the machine's sched domains (shared with the load balancer; must outlive
    /// the class).
    FairSchedClass(FairClass& fair, MachineContext& ctx, const SchedDomains& domains, int hz);
    /// The units the class calls: the fair server (dl_server_start()), PELT load tracking
    /// (remove_entity_load_avg(), sync_entity_load_avg()), CFS bandwidth (the wakeup boost) and
    /// core scheduling (task_tick_core(), sched_core_enqueue()) and the load balancer (the
    /// root domain's overload flag); each may be null in a unit test (no call then).
    void setUnits(DlServerClass* server, LoadTracker* load, CfsBandwidthControl* bw,
        CoreScheduler* core, LoadBalancer* balancer)
    {
        m_server = server;
        m_load = load;
        m_bw = bw;
        m_core = core;
        m_balancer = balancer;
    }

    const char* name() const override { return "fair"; }
    void enqueueTask(Rq& rq, Task& task, int flags) override;
    void dequeueTask(Rq& rq, Task& task, int flags) override;
    /// pick_task_fair(); null while the fair server boosts (it picked through the server).
    SchedEntity* pickTask(Rq& rq) override;
    /// put_prev_task_fair(): put_prev_entity() on every level.
    void putPrevTask(Rq& rq, Task& prev) override;
    /// set_next_task_fair(); with @p first (a pick) also update_misfit_status().
    void setNextTask(Rq& rq, Task& next, bool first) override;
    /// Before the pick: block_task()'s dequeue_task_fair(DEQUEUE_SLEEP) (and task_dead_fair()'s
    /// completion of a delayed dequeue) of a task that blocks or dies; for one that stays, the
    /// ≤6.17 runtime check of put_prev_entity() and the 6.18+ throttle task work. Returns false:
    /// put_prev_task_fair() waits for the pick. (Inline: the machine calls it directly for a
    /// fair prev at every switch; the dequeue of one that blocks or dies out of line.)
    bool schedulePrev(Rq& rq, Task& prev) override
    {
        if (prev.blocking || prev.exiting) {
            blockPrev(rq, prev);
        } else {
            m_bw->checkPrevRuntime(prev); // ≤6.17 put_prev_entity(): throttle an exhausted group
            if (m_bw->shouldPark(prev))
                m_bw->parkTask(prev); // 6.18+: task work at return to user
        }
        return false;
    }
    /// pick_next_task_fair()'s put/set: only the levels where @p prev and @p next differ
    /// (is_same_group()), nothing when prev is picked again; set_next_task_fair() moves the
    /// picked task to the front of rq->cfs_tasks.
    /// (Inline: the machine's fair-to-fair switch calls it directly.)
    void putPrevSetNextTask(Rq& rq, Task* prev, Task& next) override
    {
        if (prev != &next || !prev->se.onRq)
            m_fair.switchTasks(rq, prev ? &prev->se : nullptr, next.se);
        if (next.se.groupNode.is_linked()) { // list_move(&se->group_node, &rq->cfs_tasks)
            next.se.groupNode.unlink();
            rq.cfsTasks.push_front(next.se);
        }
    }
    /// 6.18+ task-based throttle: a task of a throttled hierarchy picked in user mode is parked.
    bool parkPicked(Rq& /*rq*/, Task& next) override
    {
        if (!m_bw->shouldPark(next))
            return false;
        m_bw->parkTask(next);
        return true;
    }
    /// balance_fair(): sched_balance_newidle() (core/fair/loadbalance.h).
    bool newIdleBalance(Rq& rq) override;
    void cpuIdleChanged(Rq& rq, bool idle) override;
    void wokenOnCpu(Rq& rq) override;
    /// task_dead_fair(): a killed task is dequeued as a sleeping one, never left delayed.
    void taskDead(Rq& rq, Task& task) override;
    /// yield_task_fair().
    void yieldTask(Rq& rq) override;
    /// reweight_task_fair(): reweight_entity() to the weight of the task's nice and policy.
    void reweightTask(Rq& rq, Task& task) override;
    /// prio_changed_fair().
    void prioChanged(Rq& rq, Task& task, int oldNice) override;
    /// post_init_entity_util_avg(): a new fair task starts with its full weight as load.
    void postInitTask(Task& task, int cpu) override;
    int64_t hrtickDelay(const Rq& rq) const override;
    SchedGroupOps* groupOps() override { return this; }
    /// fair_server_pick_task(): pick_task_fair() for the fair deadline server.
    SchedEntity* serverPickTask(Rq& rq) override { return m_fair.pickTask(rq); }
    void taskTick(Rq& rq, Task& curr) override;
    /// check_preempt_wakeup_fair(); under a higher class's task the server is started instead.
    void wakeupPreempt(Rq& rq, Task& task, int wakeFlags) override;
    /// select_task_rq_fair() (placement.h): wake_affine() and select_idle_sibling() at a
    /// wakeup, find_idlest for fork and exec. The step taken is kept for lastPlacement().
    int selectTaskRq(const Task& task, int wakeFlags) override;
    /// Why the last selectTaskRq() chose its CPU (domain level, wake path).
    MigrateDetail lastPlacement() const override { return m_lastPlacement; }
    Placement& placement() { return m_placement; }
    /// migrate_task_rq_fair(): the task's load leaves its old CPU.
    void migrateTaskRq(Task& task, int newCpu) override;
    int affinityCpu(const Task& task, int thisCpu) override;
    void taskWoken(Rq& rq, Task& task) override;
    /// task_change_group_fair(): detach_task_cfs_rq(), the load leaves the old group's cfs_rq
    /// (it is attached to the new one at the enqueue).
    void taskChangeGroup(Task& task) override;
    /// switched_from_fair(): detach_task_cfs_rq(), the task's load leaves the cfs_rq.
    void switchedFrom(Rq& rq, Task& task) override;
    /// switched_to_fair(), model: the task's CPU reschedules.
    void switchedTo(Rq& rq, Task& task) override;
    /// The fair class's balancing is the machine's load balancer (machinebalance.cpp).
    void balance(Rq&) override { }
    void updateCurr(Rq& rq) override;
    /// The profile's traits, read at each use; null: the newest kernels' rules.
    void setTraits(const ProfileTraits* traits) { m_traits = traits; }
    /// update_misfit_status() for @p curr running on @p rq (null: none).
    void updateMisfitStatus(Rq& rq, const Task* curr);

private:
    /// FairHooks: sched_core_enqueue()/dequeue(), util_est_enqueue()/dequeue()/update(),
    /// account_entity_enqueue()'s rq->cfs_tasks and add_nr_running()'s set_rd_overloaded().
    void taskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags) override;
    void fairQueued(Rq& rq, bool any) override;
    // SchedGroupOps: online_fair_sched_group() (the group entities' PELT attach); cpu.weight,
    // cpu.weight.nice (sched_group_set_shares()), cpu.max (tg_set_cfs_bandwidth()), cpu.idle
    // (sched_group_set_idle())
    void groupCreated(int group, int parent) override;
    RtWalkCount writeFiles(
        int group, const CgroupFiles& files, std::vector<std::string>& refused) override;

    // PlacementServices over the run queues
    bool schedIdleCpu(int cpu) const override;
    int nrDelayed(int cpu) const override;
    uint64_t cpuLoad(int cpu) const override;
    uint64_t cpuUtil(int cpu) const override;
    uint64_t taskUtil(const Task& p) const override;
    uint64_t cpuRunnable(int cpu) const override;
    uint64_t taskHLoad(int task) const override;

    /// schedulePrev() of a task that blocks or dies: block_task() / task_dead_fair().
    void blockPrev(Rq& rq, Task& prev);

    FairClass& m_fair;
    MachineContext& m_ctx;
    DlServerClass* m_server = nullptr;
    LoadTracker* m_load = nullptr;
    CfsBandwidthControl* m_bw = nullptr;
    CoreScheduler* m_core = nullptr;
    LoadBalancer* m_balancer = nullptr;
    const SchedDomains& m_domains;
    const ProfileTraits* m_traits = nullptr;
    CpuTopology m_topo;
    int m_hz;
    Placement m_placement;
    MigrateDetail m_lastPlacement;
};

} // namespace schedlab
