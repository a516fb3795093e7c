// SPDX-License-Identifier: GPL-2.0-or-later
// The table of metric differences between two runs (GUI compare view, tests).
#pragma once

#include "core/record/metrics.h"

#include <optional>
#include <string>
#include <vector>

namespace schedlab {

struct MetricDiffRow
{
    std::string metric; ///< "t1 share", "t1 wait p99", "cgroup /a cpu", "probe p latency", …
    enum class Unit { Ns, Percent, Count } unit = Unit::Ns;
    std::optional<double> base;    ///< absent: the run has no such task/probe, or no value
    std::optional<double> variant; ///< ns, percent (0–100) or count
    /// variant − base when both exist.
    std::optional<double> delta() const
    {
        if (base && variant)
            return *variant - *base;
        return std::nullopt;
    }
};

/// Rows for tasks (forked children folded out: they differ between runs), cgroups, probes and
/// findings, matched by name.
std::vector<MetricDiffRow> diffMetrics(const Metrics& base, const Metrics& variant);

/// "12.50%", "3.200 ms", "4"; "-" when absent. Delta cells get a sign.
std::string formatDiffValue(MetricDiffRow::Unit unit, std::optional<double> v, bool sign = false);

} // namespace schedlab
