// SPDX-License-Identifier: GPL-2.0-or-later
// struct rq: one logical CPU's run queue with the per-class queues inside (kernel/sched/sched.h),
// kernel-model.md §3, §7, §10, §11, and the per-CPU state of the machine around them.
#pragma once

#include "core/base/eventid.h"
#include "core/coresched/coresched.h"
#include "core/dl/dlclass.h"
#include "core/fair/cfsrq.h"
#include "core/kernel/costs.h"
#include "core/rt/dlserver.h"
#include "core/rt/rtclass.h"

#include <boost/intrusive/list.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace schedlab {

/// rq->cfs_tasks: the CPU's fair tasks, queued or running (delayed ones too), most recently
/// picked first (kernel-model.md §8.3).
using CfsTaskList = boost::intrusive::list<SchedEntity,
    boost::intrusive::member_hook<SchedEntity,
        boost::intrusive::list_member_hook<
            boost::intrusive::link_mode<boost::intrusive::auto_unlink>>,
        &SchedEntity::groupNode>,
    boost::intrusive::constant_time_size<false>>;

struct Rq
{
    explicit Rq(int cpuIndex, const ProfileChoices& choices)
        : cpu(cpuIndex)
        , cfs(std::make_unique<CfsRq>(choices))
    {
        cfs->cpu = cpuIndex;
    }

    int cpu = 0;
    std::unique_ptr<CfsRq> cfs;   ///< rq->cfs, the root cfs_rq
    DlRq dl;                      ///< rq->dl
    RtRq rt;                      ///< rq->rt
    DlServer fairServer;          ///< rq->fair_server (6.12+)
    CoreRqState core;             ///< core_tree, core_pick, … (CONFIG_SCHED_CORE)
    SchedEntity* curr = nullptr;  ///< running task's entity; null = idle
    int nrRunning = 0;            ///< rq->nr_running (fair tasks, incl. delayed ones)
    CfsTaskList cfsTasks;         ///< rq->cfs_tasks
    bool needResched = false;     ///< TIF_NEED_RESCHED
    bool needReschedLazy = false; ///< TIF_NEED_RESCHED_LAZY (PREEMPT_LAZY)
    /// The stopper took the CPU from its task (active balance): the next schedule() switches
    /// away from the stopper, and to idle when nothing is left.
    bool stopperRan = false;
    /// rq->misfit_task_load: task_h_load() of a running task too big for this CPU, else 0
    /// (update_misfit_status(), kernel-model.md §8.4).
    int64_t misfitTaskLoad = 0;

    EventId tick;                   ///< the periodic tick while the CPU is busy
    EventId hrtick;                 ///< rq->hrtick_timer
    KernelSections sections;        ///< cost-model sections (preempt/irqs off)
    int64_t lastBlockedUpdate = -1; ///< jiffy of the last blocked-load update
    /// leaf_cfs_rq_list (§6.6): task groups with a listed cfs_rq on this CPU, deepest first
    /// (descending group index; a child group is created after its parent).
    std::vector<int> leafGroups;
    int64_t busySince = -1; ///< start of the current busy stretch, -1 idle
    int64_t busyNs = 0;     ///< completed busy time
};

/// rq->nr_running of @p rq: its tasks of every class, the running one included (the machine's
/// MachineContext::nrRunning()).
inline int rqNrRunning(const Rq& rq)
{
    return rq.nrRunning + rq.rt.nrQueued + rq.dl.nrRunning();
}

/// idle_cpu() of @p rq: nothing runs and nothing is queued (the machine's
/// MachineContext::idleCpu()).
inline bool rqIdle(const Rq& rq)
{
    return !rq.curr && rqNrRunning(rq) == 0;
}

} // namespace schedlab
