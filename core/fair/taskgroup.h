// SPDX-License-Identifier: GPL-2.0-or-later
// struct task_group: a cgroup with the cpu controller (kernel-model.md §6.1). One cfs_rq and one
// group entity per CPU; the root group uses each CPU's rq->cfs and has no entities.
#pragma once

#include "core/fair/bandwidth.h"
#include "core/fair/cfsrq.h"

#include <memory>
#include <string>
#include <vector>

namespace schedlab {

struct TaskGroup
{
    int index = 0; ///< 0 = root
    int parent = -1;
    int depth = 0; ///< root 0, its children 1, …
    std::string path;
    uint64_t shares = kNice0Load; ///< tg->shares, scaled (§2.1)
    int cpuWeight = 100;          ///< cpu.weight as written
    bool idle = false;            ///< cpu.idle
    int64_t loadAvg = 0;          ///< tg->load_avg: Σ of the per-CPU tg_load_avg_contrib (§6.3)
    int64_t runnableAvg = 0; ///< tg->runnable_avg (group_shares=concur, 7.3): Σ of the contribs
    CfsBandwidth bandwidth;  ///< cpu.max pool and cpu.stat (§9)
    std::vector<std::unique_ptr<CfsRq>> cfsRq;    ///< per CPU (empty for root)
    std::vector<std::unique_ptr<SchedEntity>> se; ///< per CPU (empty for root)
};

/// cpu.weight (1…10000) → tg->shares (§2.1): round(weight·1024/100), scaled, clamped.
uint64_t sharesFromCpuWeight(int cpuWeight);

} // namespace schedlab
