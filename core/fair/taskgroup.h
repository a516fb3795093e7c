// SPDX-License-Identifier: GPL-2.0-or-later
// struct task_group: a cgroup with the cpu controller (kernel-model.md §6.1). One cfs_rq and one
// group entity per CPU; the root group uses each CPU's rq->cfs and has no entities.
#pragma once

#include "core/fair/bandwidth.h"
#include "core/fair/cfsrq.h"
#include "core/kernel/cgroupfiles.h"

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
    uint64_t shares = kNice0Load; ///< tg->shares, scaled (§2.1); WEIGHT_IDLEPRIO while idle
    bool idle = false;            ///< cpu.idle (tg->idle)
    int64_t loadAvg = 0;          ///< tg->load_avg: Σ of the per-CPU tg_load_avg_contrib (§6.3)
    int64_t runnableAvg = 0; ///< tg->runnable_avg (group_shares=concur, 7.3): Σ of the contribs
    CfsBandwidth bandwidth;  ///< cpu.max pool and cpu.stat (§9)
    std::vector<std::unique_ptr<CfsRq>> cfsRq;    ///< per CPU (empty for root)
    std::vector<std::unique_ptr<SchedEntity>> se; ///< per CPU (empty for root)
};

/// cpu.weight (1…10000) → tg->shares (§2.1): round(weight·1024/100), scaled, clamped.
uint64_t sharesFromCpuWeight(int cpuWeight);

/// cpu.weight as read (cpu_weight_read_u64()): sched_weight_to_cgroup() of the unscaled shares,
/// round(w·100/1024) clamped to [1, 10000]; an idle group (shares 3) reads 1.
int cpuWeightRead(uint64_t shares);

/// What a group's weight files did (writeWeightFiles()).
struct WeightWrite
{
    bool sharesChanged = false; ///< tg->shares took another value: propagate it
    bool idleChanged = false;   ///< tg->idle flipped
};

/// The weight files of @p files (cpu.weight, cpu.weight.nice, cpu.idle) written to the non-root
/// group @p path of shares @p shares and idle flag @p idle, in the order a tool writes them
/// (schedlab-run, docs/scenario-format.md §1.5): cpu.idle 0 first, then cpu.weight and
/// cpu.weight.nice, cpu.idle 1 last. sched_group_set_shares() refuses a weight while the group is
/// idle (EINVAL, nothing changes); sched_group_set_idle() sets the shares to WEIGHT_IDLEPRIO when
/// the group becomes idle and to NICE_0_LOAD (cpu.weight 100, not the weight it had) when it stops
/// being idle; a write of the flag it already has changes nothing. Each refused write adds
/// "write V > PATH/FILE: EINVAL (why)" to @p refused (when not null).
WeightWrite writeWeightFiles(uint64_t& shares, bool& idle, const CgroupFiles& files,
    const std::string& path, std::vector<std::string>* refused);

} // namespace schedlab
