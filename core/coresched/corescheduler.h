// SPDX-License-Identifier: GPL-2.0-or-later
// Core scheduling (CONFIG_SCHED_CORE, kernel/sched/core.c, kernel-model.md §11): cookies, the
// per-CPU core_tree, the core-wide pick with forced idle, prio_less()/cfs_prio_less(),
// task_tick_core() and the core balance. The machine is reached through MachineContext.
#pragma once

#include "core/coresched/coresched.h"
#include "core/sched/machinecontext.h"
#include "core/sched/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct Rq;
struct SchedEntity;
struct Task;

class CoreScheduler
{
public:
    CoreScheduler(MachineContext& ctx, CpuTopology topology);

    /// sched_core_enabled() with SMT: the core-wide pick is in use.
    bool active() const { return m_enabled && m_topo.threadsPerCore > 1; }
    bool enabled() const { return m_enabled; }
    /// sched_core_get(): the first cookie turns core scheduling on.
    void enable();
    /// sched_core_update_cookie().
    void setCookie(Task& task, uint64_t cookie);
    uint64_t cookieOf(const SchedEntity* se);
    /// pick_next_task() with core scheduling: the core-wide pick over every class.
    /// @p forcedIdle is set when the CPU is left idle although it has runnable tasks.
    SchedEntity* pickNextTask(int cpu, bool& forcedIdle);
    /// Under core scheduling, may @p task be moved to @p cpu: the core's cookie is the task's, or
    /// every SMT sibling is idle (the RT balance's check, docs: RT balance simplification).
    bool cookieFits(const Task& task, int cpu) const;
    /// sched_core_enqueue()/dequeue() of an RT task.
    void rtTaskQueued(Task& task, bool enqueued);
    /// sched_core_enqueue()/dequeue() of a fair task entity (FairSchedClass::taskQueued).
    void fairTaskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags);
    /// task_tick_core().
    void taskTick(int cpu);
    /// sched_core_balance() of @p cpu (run from the machine's callback).
    void balance(int cpu);
    /// SMT siblings never run tasks with different cookies at once; "" when that holds.
    std::string checkInvariants();
    const CoreState& core(int coreIndex) const { return m_cores[static_cast<size_t>(coreIndex)]; }
    /// prio_less(a, b): @p a has lower priority than @p b (null = the idle task).
    bool corePrioLess(const SchedEntity* a, const SchedEntity* b, bool inFi);
    int corePrio(const SchedEntity& se); ///< __task_prio()
    int runnableOn(int cpu);             ///< queued fair + RT tasks of the CPU
    const CpuTopology& topology() const { return m_topo; }

private:
    bool cfsPrioLess(const SchedEntity& a, const SchedEntity& b, bool inFi);
    void seFiUpdate(const SchedEntity& se, uint64_t fiSeq, bool forceIdle);
    SchedEntity* coreFind(int cpu, uint64_t cookie);
    void coreTreeInsert(int cpu, SchedEntity& se);
    bool coreTreeErase(int cpu, const SchedEntity& se);
    void queueBalance(int cpu);
    bool tryStealCookie(int dst, int src);
    void accountForcedIdle(int cpu, bool forced);

    MachineContext& m_ctx;
    CpuTopology m_topo;
    bool m_enabled = false;         ///< sched_core_enabled(): some task has had a cookie
    std::vector<CoreState> m_cores; ///< per core (rq->core)
};

} // namespace schedlab
