// SPDX-License-Identifier: GPL-2.0-or-later
// The fair class as a SchedClass (fair_sched_class, kernel/sched/fair.c): the task-level entry
// points over FairClass (EEVDF on the hierarchical cfs_rq's) and select_task_rq_fair().
#pragma once

#include "core/fair/fairclass.h"
#include "core/fair/placement.h"
#include "core/kernel/profile.h"
#include "core/sched/schedclass.h"
#include "core/sched/topology.h"

namespace schedlab {

class CfsBandwidthControl;
class CoreScheduler;
class DlServerClass;
class LoadBalancer;
class LoadTracker;

class FairSchedClass final : public SchedClass, private FairHooks, private PlacementServices
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
    void putPrevTask(Rq& rq, Task& prev) override;
    void setNextTask(Rq& rq, Task& next) override;
    void taskTick(Rq& rq, Task& curr) override;
    /// check_preempt_wakeup_fair(); under a higher class's task the server is started instead.
    void wakeupPreempt(Rq& rq, Task& task, int wakeFlags) override;
    /// select_task_rq_fair() (placement.h): wake_affine() and select_idle_sibling() at a
    /// wakeup, find_idlest for fork and exec. The step taken is kept for lastPlacement().
    int selectTaskRq(const Task& task, int wakeFlags) override;
    /// Why the last selectTaskRq() chose its CPU (domain level, wake path).
    MigrateDetail lastPlacement() const { return m_lastPlacement; }
    Placement& placement() { return m_placement; }
    void migrateTaskRq(Task& task, int newCpu) override;
    void taskWoken(Rq& rq, Task& task) override;
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

    // PlacementServices over the run queues
    bool schedIdleCpu(int cpu) const override;
    int nrDelayed(int cpu) const override;
    uint64_t cpuLoad(int cpu) const override;
    uint64_t cpuUtil(int cpu) const override;
    uint64_t taskUtil(const Task& p) const override;
    uint64_t cpuRunnable(int cpu) const override;
    uint64_t taskHLoad(int task) const override;

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
