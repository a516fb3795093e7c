// SPDX-License-Identifier: GPL-2.0-or-later
// The one percentile of the metrics (wait p50/p99 of a model run and of an imported trace).
#pragma once

#include <cstdint>
#include <vector>

namespace schedlab {

/// Nearest-rank percentile: the smallest value with at least @p pct % of @p values at or below
/// it, i.e. the value at 1-based rank ceil(pct * n / 100) of the sorted values (rank 1 for
/// pct = 0). Always one of the values, never interpolated; 0 for no values. @p pct in 0…100.
/// Examples: {10, 20, 30, 40} p50 is 20 (rank 2), p99 is 40 (rank ceil(3.96) = 4).
int64_t nearestRankPercentile(std::vector<int64_t> values, int pct);

} // namespace schedlab
