// SPDX-License-Identifier: GPL-2.0-or-later
// The run's metrics computed from the machine's state (docs/metrics.md): per task CPU time,
// waits (nearest-rank percentiles), switches, migrations, lock waits, probes; per group CPU and
// throttled time; per CPU busy and forced-idle time; the findings of the run, sorted by time.
#pragma once

#include "core/record/metrics.h"
#include "core/sched/migration.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace schedlab {

class MachineView;
struct Task;

/// What the metrics keep of a task released at its exit (Simulation::releaseExitedTasks): its
/// row, final once it has exited with no wait, stretch on a CPU or lock wait open, in about 160
/// bytes instead of the Task's 1.2 KB and its waits. The row is built from it at the end of the
/// run exactly as from the task (only the share depends on the run's length).
struct ExitedTaskSummary
{
    std::string name;
    int32_t index = 0; ///< the task's index (rows are in index order)
    int32_t group = 0;
    int64_t cpuTimeNs = 0;
    int64_t waitMaxNs = 0;
    int64_t waitP50Ns = 0;
    int64_t waitP99Ns = 0;
    int64_t switches = 0;
    int64_t migrations = 0;
    int64_t exitedAtNs = 0;
    int64_t spawnedAtNs = 0;
    int64_t longestRunNs = 0;
    int64_t lagExcessSamples = 0;
    int64_t lagExcessMaxNs = 0;
    int64_t lockWaitNs = -1; ///< -1: the task used no lock
    bool forked = false;
    bool probe = false;
    /// Migrations by MigrateReason, only for a task that migrated.
    std::unique_ptr<std::array<int64_t, kMigrateReasonCount>> migrationsByReason;
    std::unique_ptr<DlTaskMetrics> deadline; ///< SCHED_DEADLINE tasks only
};

/// Exited forked tasks of one fork root (forkRoot()) summed while the run goes
/// (Simulation::releaseExitedTasks(true)): the row the run summary folds them into.
struct FoldedForks
{
    std::string root;
    int32_t lastIndex = -1; ///< the highest task index folded (the row's place in index order)
    int32_t group = 0;      ///< the cgroup of that task (the summary shows the last one's)
    int64_t count = 0;
    int64_t cpuTimeNs = 0;
    int64_t waitMaxNs = 0;
    int64_t switches = 0;
    int64_t migrations = 0;
    std::array<int64_t, kMigrateReasonCount> migrationsByReason{};
    /// The sum of the tasks' shares of a run ending at endNs, added in index order as the run
    /// summary adds its rows' (the same double); a run that ends elsewhere (stopped by a guard)
    /// gets the share of the summed CPU time instead.
    double shareAtEnd = 0.0;
    int64_t endNs = 0;
};

/// Adds the exited task @p task, whose metrics are final, to @p fold, for a run ending at
/// @p endNs.
void foldExited(FoldedForks& fold, const Task& task, int64_t endNs);

/// The metrics of @p task are final: it has exited and no wait, stretch on a CPU or lock wait of
/// it is still open (the rows of such a task depend on the run's end).
bool metricsFinal(const Task& task);
/// The summary of a task whose metrics are final (metricsFinal()).
ExitedTaskSummary summarizeExited(const Task& task);

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
