// SPDX-License-Identifier: GPL-2.0-or-later
// SCHED_DEADLINE parameters as sched_setattr() takes them and the kernel's fixed-point bandwidth
// (kernel/sched/deadline.c, sched.h), kernel-model.md §15.1–§15.2. Plain values: the scenario
// (core/workload/program.h) holds them, the class (dlclass.h) runs them.
#pragma once

#include <cstdint>
#include <string>

namespace schedlab {

constexpr int kDlScale = 10;                ///< DL_SCALE: the runtime is at least 1 << 10 ns
constexpr int kDlBwShift = 20;              ///< BW_SHIFT
constexpr uint64_t kDlBwUnit = 1ULL << 20;  ///< BW_UNIT
constexpr int kDlRatioShift = 8;            ///< RATIO_SHIFT (GRUB's bw_ratio)
constexpr int64_t kDlPeriodMinNs = 100'000; ///< sysctl_sched_dl_period_min = 100 µs
constexpr int64_t kDlPeriodMaxNs = (int64_t{1} << 22) * 1000; ///< sched_dl_period_max, 2^22 µs
constexpr uint32_t kDlFlagReclaim = 0x02;                     ///< SCHED_FLAG_RECLAIM (GRUB)
constexpr uint32_t kDlFlagOverrun = 0x04; ///< SCHED_FLAG_DL_OVERRUN (SIGXCPU, not modelled)

/// sched_attr's deadline part (ns). A period of 0 means "the deadline" (__checkparam_dl()).
struct DlParams
{
    int64_t runtime = 0;
    int64_t deadline = 0;
    int64_t period = 0;
    uint32_t flags = 0;
    /// The period the kernel uses: sched_period, or sched_deadline when 0.
    int64_t effectivePeriod() const { return period != 0 ? period : deadline; }
    bool reclaim() const { return (flags & kDlFlagReclaim) != 0; }
    friend bool operator==(const DlParams&, const DlParams&) = default;
};

/// to_ratio(period, runtime) = (runtime << BW_SHIFT) / period, 0 for a period of 0.
inline uint64_t dlToRatio(uint64_t period, uint64_t runtime)
{
    return period == 0 ? 0 : (runtime << kDlBwShift) / period;
}

/// dl_bw of @p p: to_ratio(period, runtime), kernel-model.md §15.1.
inline uint64_t dlBandwidth(const DlParams& p)
{
    return dlToRatio(static_cast<uint64_t>(p.effectivePeriod()), static_cast<uint64_t>(p.runtime));
}

/// dl_density of @p p: to_ratio(deadline, runtime).
inline uint64_t dlDensity(const DlParams& p)
{
    return dlToRatio(static_cast<uint64_t>(p.deadline), static_cast<uint64_t>(p.runtime));
}

/// __checkparam_dl() (kernel-model.md §15.1): empty when @p p is valid, else why it is EINVAL.
std::string checkDlParams(const DlParams& p);

// The CBS rules on one entity's absolute deadline and runtime left, shared by the deadline
// class, the fair server and the importer that follows a real task's server along its trace.

/// dl_entity_overflow() (§15.5): runtime / (deadline − now) > Q / D, both sides scaled down by
/// DL_SCALE.
bool dlEntityOverflow(const DlParams& p, int64_t deadline, int64_t runtime, int64_t now);
/// update_dl_entity() at a wakeup at @p now (§15.5): a passed deadline, or an overflow, starts a
/// new period (deadline now + D, runtime Q); a constrained entity (D < P) before its deadline
/// keeps it and has its runtime cut to dl_density · (deadline − now) >> BW_SHIFT.
void dlUpdateEntity(const DlParams& p, int64_t& deadline, int64_t& runtime, int64_t now);
/// replenish_dl_entity() at @p now (§15.4): a period at a time until the runtime is positive;
/// a deadline still before @p now then restarts the reservation (deadline now + D, runtime Q:
/// replenish_dl_new_period()).
void dlReplenish(const DlParams& p, int64_t& deadline, int64_t& runtime, int64_t now);
/// task_non_contending()'s 0-lag time (§15.6): deadline − runtime · P / Q (128-bit product).
int64_t dlZeroLagTime(const DlParams& p, int64_t deadline, int64_t runtime);

} // namespace schedlab
