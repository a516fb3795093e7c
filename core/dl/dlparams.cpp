// SPDX-License-Identifier: GPL-2.0-or-later
// __checkparam_dl(), kernel-model.md §15.1.
#include "core/dl/dlparams.h"

namespace schedlab {

std::string checkDlParams(const DlParams& p)
{
    if (p.deadline == 0)
        return "sched_deadline is 0";
    if (p.runtime < (int64_t{1} << kDlScale))
        return "sched_runtime below 1024 ns (1 << DL_SCALE)";
    if (p.deadline < 0 || p.period < 0 || p.runtime < 0)
        return "a value with bit 63 set";
    const int64_t period = p.effectivePeriod();
    if (p.runtime > p.deadline)
        return "sched_runtime above sched_deadline";
    if (p.deadline > period)
        return "sched_deadline above sched_period";
    if (period < kDlPeriodMinNs || period > kDlPeriodMaxNs)
        return "sched_period outside sched_dl_period_min_us…sched_dl_period_max_us (100 µs…"
               "4194304 µs)";
    if ((p.flags & ~(kDlFlagReclaim | kDlFlagOverrun)) != 0)
        return "unknown sched_flags";
    return {};
}

} // namespace schedlab
