// SPDX-License-Identifier: GPL-2.0-or-later
// The fair class as a SchedClass (fair_sched_class, kernel/sched/fair.c): the task-level entry
// points over FairClass (EEVDF on the hierarchical cfs_rq's) and select_task_rq_fair().
#pragma once

#include "core/fair/fairclass.h"
#include "core/sched/schedclass.h"
#include "core/sched/topology.h"

namespace schedlab {

/// The machine-side services of the class-level fair operations (FairHooks serve FairClass).
class FairSchedServices
{
public:
    virtual ~FairSchedServices() = default;
    virtual Rq& runQueue(int cpu) = 0;
    virtual Task& taskAt(int index) = 0;
    /// dl_server_start(): fair work arrived on @p cpu while a higher class runs.
    virtual void serverStart(int cpu) = 0;
    virtual void resched(int cpu) = 0; ///< resched_curr()
    /// migrate_task_rq_fair(): the load of @p task leaves its old CPU.
    virtual void removeLoad(Task& task) = 0;
    /// A task woken inside a kernel section is lifted out of its throttled hierarchy
    /// (CfsBandwidthControl::boostTask).
    virtual void boostWoken(Task& task) = 0;
    /// task_tick_core(): core scheduling's part of the tick (forced-idle accounting).
    virtual void taskTickCore(int /*cpu*/) { }
};

class FairSchedClass final : public SchedClass
{
public:
    FairSchedClass(FairClass& fair, FairSchedServices& services, CpuTopology topology);

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
    /// select_task_rq_fair(), simplified: fork balancing or select_idle_sibling().
    int selectTaskRq(const Task& task, bool fork) override;
    void migrateTaskRq(Task& task, int newCpu) override;
    void taskWoken(Rq& rq, Task& task) override;
    /// switched_from_fair(): detach_task_cfs_rq(), the task's load leaves the cfs_rq.
    void switchedFrom(Rq& rq, Task& task) override;
    /// switched_to_fair(), model: the task's CPU reschedules.
    void switchedTo(Rq& rq, Task& task) override;
    /// The fair class's balancing is the machine's load balancer (simulationbalance.cpp).
    void balance(Rq&) override { }
    void updateCurr(Rq& rq) override;

private:
    bool cpuIdle(int cpu);
    bool coreIdle(int cpu);

    FairClass& m_fair;
    FairSchedServices& m_s;
    CpuTopology m_topo;
};

} // namespace schedlab
