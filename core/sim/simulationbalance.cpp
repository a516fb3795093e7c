// SPDX-License-Identifier: GPL-2.0-or-later
// Load balancing, simplified but affinity-exact (kernel-model.md §8): new-idle balance when a CPU
// is about to go idle and a periodic balance from the tick. Both pull one queued (not running,
// not delayed) task from the CPU with the most runnable tasks, if the imbalance is large enough
// and the task's affinity allows the destination. The task leaves with a non-sleep dequeue (lag
// and relative deadline kept) and is enqueued as a migration, as detach_task()/attach_task() do.
// Not modelled: sched domains' group load/capacity comparison, h_load, cache hotness (the task
// picked is the lowest-index migratable one, deterministic), active balance of running tasks.
#include "simulationimpl.h"

namespace schedlab {

bool SimulationImpl::pullOneTask(int dstCpu, int minImbalance, MigrateReason reason)
{
    const Rq& dst = *m_rqs[static_cast<size_t>(dstCpu)];
    if (m_cpus < 2)
        return false;
    int busiest = -1;
    int busiestRunnable = 0;
    for (int c = 0; c < m_cpus; ++c) {
        if (c == dstCpu)
            continue;
        const int runnable = m_rqs[static_cast<size_t>(c)]->cfs->hNrRunnable;
        if (runnable > busiestRunnable) {
            busiest = c;
            busiestRunnable = runnable;
        }
    }
    if (busiest < 0 || busiestRunnable - dst.cfs->hNrRunnable < minImbalance)
        return false;
    Rq& src = *m_rqs[static_cast<size_t>(busiest)];
    for (auto& t : m_tasks) {
        Task& task = *t;
        if (task.cpu != busiest || !task.se.onRq || task.se.schedDelayed || src.curr == &task.se
            || task.state != TaskRunState::Runnable || !task.cpus.test(dstCpu))
            continue;
        // Tasks are not moved into or out of throttled hierarchies (§9.2 step 6).
        const TaskGroup& g = m_groups[static_cast<size_t>(task.group)];
        if (task.se.cfsRq->throttleCount > 0
            || (task.group != 0 && g.cfsRq[static_cast<size_t>(dstCpu)]->throttleCount > 0))
            continue;
        m_fair->dequeueEntities(src, task.se, 0);
        migrateQueued(task, dstCpu, reason);
        Rq& dstRq = *m_rqs[static_cast<size_t>(dstCpu)];
        m_fair->enqueueTask(dstRq, task.se, EnqueueMigrated);
        if (dstRq.curr)
            wakeupPreempt(dstRq, task, 0);
        return true;
    }
    return false;
}

} // namespace schedlab
