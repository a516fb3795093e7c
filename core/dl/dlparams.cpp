// SPDX-License-Identifier: GPL-2.0-or-later
// __checkparam_dl(), kernel-model.md §15.1.
#include "core/dl/dlparams.h"

#include <algorithm>

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

bool dlEntityOverflow(const DlParams& p, int64_t deadline, int64_t runtime, int64_t now)
{
    const uint64_t left = (static_cast<uint64_t>(p.deadline) >> kDlScale)
        * (static_cast<uint64_t>(std::max<int64_t>(0, runtime)) >> kDlScale);
    const uint64_t right = (static_cast<uint64_t>(deadline - now) >> kDlScale)
        * (static_cast<uint64_t>(p.runtime) >> kDlScale);
    return right < left;
}

void dlUpdateEntity(const DlParams& p, int64_t& deadline, int64_t& runtime, int64_t now)
{
    const bool passed = deadline < now;
    if (!passed && !dlEntityOverflow(p, deadline, runtime, now))
        return;
    if (!passed && p.deadline != p.effectivePeriod()) {
        // update_dl_revised_wakeup(): keep the deadline, cut the runtime to the density.
        runtime = static_cast<int64_t>(
            (dlDensity(p) * static_cast<uint64_t>(deadline - now)) >> kDlBwShift);
        return;
    }
    deadline = now + p.deadline; // replenish_dl_new_period()
    runtime = p.runtime;
}

void dlReplenish(const DlParams& p, int64_t& deadline, int64_t& runtime, int64_t now)
{
    while (runtime <= 0) {
        deadline += p.effectivePeriod();
        runtime += p.runtime;
    }
    if (deadline < now) { // lagging behind: a new period from now
        deadline = now + p.deadline;
        runtime = p.runtime;
    }
}

int64_t dlZeroLagTime(const DlParams& p, int64_t deadline, int64_t runtime)
{
    // (128-bit: runtime · period of seconds-long reservations does not fit in 64 bits.)
    __extension__ using Int128 = __int128;
    return deadline - static_cast<int64_t>(Int128{runtime} * p.effectivePeriod() / p.runtime);
}

} // namespace schedlab
