// SPDX-License-Identifier: GPL-2.0-or-later
// The run's metrics computed from the machine's state (docs/metrics.md): per task CPU time,
// waits (nearest-rank percentiles), switches, migrations, lock waits, probes; per group CPU and
// throttled time; per CPU busy and forced-idle time; the findings of the run, sorted by time.
#pragma once

#include "core/record/metrics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

class MachineView;

/// What the machine collected while running, beyond its state.
struct RunFindings
{
    /// Finding lists in the order they are merged before the sort by time (completed long
    /// waits, resource guards, failed actions and kernel-work sections, …).
    std::vector<const std::vector<Finding>*> lists;
    /// Invariant violations (checked builds), appended after the sorted findings.
    const std::vector<std::string>* violations = nullptr;
};

/// Adds the machine's measurements to @p m (whose identification — scenario, profile, features,
/// seed, overrides — and recording counters the caller fills): tasks still waiting longer than
/// @p watchdogThresholdNs become "starvation" findings.
void addMachineMetrics(
    Metrics& m, const MachineView& machine, int64_t watchdogThresholdNs, const RunFindings& runs);

} // namespace schedlab
