// SPDX-License-Identifier: GPL-2.0-or-later
// util_est (kernel-model.md §6.8): a task's estimated utilization, kept across its sleeps, and
// the root cfs_rq's sum of the estimates of its queued tasks. cpu_util() takes the larger of a
// CPU's util_avg and that sum, task_util_est() the larger of a task's util_avg and its estimate,
// so a task that has just woken counts with what it used in its last activations instead of a
// util_avg that decayed while it slept. The callers apply them only with the UTIL_EST feature
// on; cfsCpuUtil() and cfsTaskUtil() take the feature as an argument.
#pragma once

#include "core/fair/pelt.h"

#include <cstdint>

namespace schedlab {

class CfsRq;
struct SchedEntity;

/// UTIL_AVG_UNCHANGED: set in a task's estimate at its last dequeue, cleared when its PELT
/// utilization moves (cfs_se_util_change()); an estimate still flagged is not updated again.
constexpr uint32_t kUtilAvgUnchanged = 0x80000000u;
/// UTIL_EST_MARGIN: 1 % of SCHED_CAPACITY_SCALE.
constexpr uint32_t kUtilEstMargin = 1024 / 100;
/// UTIL_EST_WEIGHT_SHIFT: the EWMA's new sample weighs 1/4.
constexpr int kUtilEstWeightShift = 2;

/// _task_util_est(): the estimate without the flag.
uint32_t taskUtilEstRaw(const SchedEntity& taskSe);
/// task_util_est(): max(util_avg, estimate).
uint64_t taskUtilEst(const SchedEntity& taskSe);
/// util_est_enqueue(): the root cfs_rq's sum gains the task's estimate.
void utilEstEnqueue(CfsRq& root, const SchedEntity& taskSe);
/// util_est_dequeue(): ... and loses it (never below 0).
void utilEstDequeue(CfsRq& root, const SchedEntity& taskSe);
/// util_est_update() at a dequeue of the task (@p taskSleep: it goes to sleep); @p cpuCapacity
/// is arch_scale_cpu_capacity() of its CPU.
void utilEstUpdate(SchedEntity& taskSe, bool taskSleep, int64_t cpuCapacity);
/// cfs_se_util_change(): the task's util_avg was updated, its estimate may be updated again.
inline void utilEstUtilChanged(PeltAvg& avg)
{
    avg.utilEst &= ~kUtilAvgUnchanged;
}
/// cpu_util_cfs() (§8.2): the root cfs_rq's util_avg, with @p utilEst at least its util_est, at
/// most @p capacity (arch_scale_cpu_capacity()).
uint64_t cfsCpuUtil(const PeltAvg& rootAvg, bool utilEst, int64_t capacity);
/// The utilization a task is placed and balanced by: task_util_est() with @p utilEst, else its
/// util_avg.
uint64_t cfsTaskUtil(const SchedEntity& taskSe, bool utilEst);

} // namespace schedlab
