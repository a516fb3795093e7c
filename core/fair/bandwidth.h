// SPDX-License-Identifier: GPL-2.0-or-later
// CFS bandwidth control (cpu.max), kernel-model.md §9: the per-task-group pool (struct
// cfs_bandwidth) and its constants. The per-CPU side (runtime_enabled, runtime_remaining,
// throttled, throttle_count, the limbo list of the task-based model) lives in CfsRq; the
// mechanism (accounting, throttle/unthrottle, period and slack timers, distribution) in
// core/fair/cfsbandwidth.cpp and core/fair/fairbandwidth.cpp.
//
// Units: nanoseconds. A quota of -1 is RUNTIME_INF ("max").
#pragma once

#include <cstdint>
#include <vector>

namespace schedlab {

class CfsRq;

/// sched_cfs_bandwidth_slice_us default: what a cfs_rq takes from the pool at a time (§9.2).
constexpr int64_t kCfsBandwidthSliceNs = 5000000;
/// min_cfs_rq_runtime: what an emptied cfs_rq keeps when it returns slack (§9.3).
constexpr int64_t kMinCfsRqRuntimeNs = 1000000;
/// cfs_bandwidth_slack_period: delay of the slack timer (§9.3).
constexpr int64_t kCfsSlackPeriodNs = 5000000;
/// min_bandwidth_expiration: no slack distribution this close to a period refresh (§9.3).
constexpr int64_t kMinBandwidthExpirationNs = 2000000;

struct CfsBandwidth
{
    int64_t quota = -1;         ///< ns per period; -1 = RUNTIME_INF
    int64_t period = 100000000; ///< ns
    int64_t runtime = 0;        ///< the global pool (cfs_b->runtime)
    bool periodActive = false;  ///< the period timer is armed
    int64_t periodExpires = 0;  ///< when the armed period timer fires
    bool idle = false;          ///< no runtime handed out during the last period
    bool slackStarted = false;  ///< the slack timer is armed
    /// cfs_b->throttled_cfs_rq: throttled cfs_rq's, in throttle order (list_add_tail).
    std::vector<CfsRq*> throttledList;
    // cpu.stat
    int64_t nrPeriods = 0;
    int64_t nrThrottled = 0;
    int64_t throttledTime = 0; ///< Σ over CPUs of completed throttled intervals
    bool everLimited = false;  ///< cpu.max was finite at some time (metrics show cpu.stat)

    bool limited() const { return quota >= 0; }
};

} // namespace schedlab
