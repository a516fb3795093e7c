// SPDX-License-Identifier: GPL-2.0-or-later
// Per-Entity Load Tracking (kernel-model.md §6.6): geometric series over 1024 µs periods with
// y^32 = 1/2, in the kernel's integer form (runnable_avg_yN_inv table, LOAD_AVG_MAX = 47742).
#pragma once

#include <cstdint>

namespace schedlab {

constexpr uint32_t kLoadAvgMax = 47742;
constexpr int kLoadAvgPeriod = 32;
constexpr int64_t kPeltPeriodNs = 1024 * 1024; ///< 1024 µs of 1024 ns "µs" (the kernel's >>10)

struct PeltAvg
{
    uint64_t lastUpdateTime = 0; ///< ns, multiple of 1024 ns units as the kernel keeps it
    uint64_t loadSum = 0;
    uint64_t runnableSum = 0;
    uint32_t utilSum = 0;
    uint32_t periodContrib = 0;  ///< µs accumulated in the current, incomplete period
    uint64_t loadAvg = 0;
    uint64_t runnableAvg = 0;
    uint64_t utilAvg = 0;
};

/// decay_load(val, n): val * y^n (exact integer form).
uint64_t peltDecayLoad(uint64_t val, uint64_t n);

/// ___update_load_sum(): advances @p sa to @p now (ns). @p load, @p runnable, @p running are the
/// state held during the elapsed interval (load/runnable as 0/1 or a count for cfs_rq's).
/// Returns true when at least one 1024 µs period boundary was crossed.
bool peltUpdateSum(uint64_t now, PeltAvg& sa, uint64_t load, uint64_t runnable, bool running);
/// ___update_load_avg(): averages from the sums; @p loadWeight is ŵ (unscaled) for entities,
/// 1 for cfs_rq's whose load sums already carry weights.
void peltUpdateAvg(PeltAvg& sa, uint64_t loadWeight);
/// get_pelt_divider()
inline uint32_t peltDivider(const PeltAvg& sa) { return kLoadAvgMax - 1024 + sa.periodContrib; }

} // namespace schedlab
