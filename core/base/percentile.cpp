// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/base/percentile.h"

#include <algorithm>

namespace schedlab {

int64_t nearestRankPercentile(std::vector<int64_t> values, int pct)
{
    if (values.empty())
        return 0;
    const size_t n = values.size();
    const size_t rank = std::max<size_t>((n * static_cast<size_t>(pct) + 99) / 100, 1);
    // Only the rank-th smallest is needed: O(n) instead of sorting.
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(rank, n) - 1);
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

} // namespace schedlab
