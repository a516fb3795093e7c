// SPDX-License-Identifier: GPL-2.0-or-later
// struct rq: one logical CPU's run queue (fair class only), kernel-model.md §3, §7.
#pragma once

#include "core/fair/cfsrq.h"

#include <memory>

namespace schedlab {

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
    SchedEntity* curr = nullptr;  ///< running task's entity; null = idle
    int nrRunning = 0;            ///< rq->nr_running (fair tasks, incl. delayed ones)
    bool needResched = false;     ///< TIF_NEED_RESCHED
    bool needReschedLazy = false; ///< TIF_NEED_RESCHED_LAZY (PREEMPT_LAZY)
};

} // namespace schedlab
