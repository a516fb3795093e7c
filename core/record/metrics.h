// SPDX-License-Identifier: GPL-2.0-or-later
// Metrics of a run (scenario-format.md §3). No wall-clock values: identical inputs give
// byte-identical metrics.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace schedlab {

/// A SCHED_DEADLINE task's reservation and jobs (kernel-model.md §15.8; JSON "deadline").
struct DlTaskMetrics
{
    int64_t runtimeNs = 0;
    int64_t deadlineNs = 0;
    int64_t periodNs = 0;
    bool reclaim = false;
    int64_t jobs = 0;   ///< completed jobs (wakeup or replenishment after a yield → block/yield)
    int64_t misses = 0; ///< jobs that ended after their start + deadline
    int64_t throttles = 0;       ///< budget exhausted while the task still had work
    int64_t worstResponseNs = 0; ///< longest job
};

struct TaskMetrics
{
    std::string name;
    std::string cgroup;
    int64_t cpuTimeNs = 0;
    double share = 0.0; ///< cpu time / run duration (reporting only, never used in decisions)
    int64_t waitMaxNs = 0;
    int64_t waitP50Ns = 0;
    int64_t waitP99Ns = 0;
    int64_t switches = 0;
    int64_t migrations = 0;
    /// Migrations by MigrateReason name ("wakeup", "periodic", …), only the reasons that occurred
    /// (JSON "migrations_by_reason"; absent when the run cannot say, e.g. an imported trace).
    std::map<std::string, int64_t> migrationsByReason;
    std::optional<int64_t> exitedAtNs;
    std::optional<int64_t> lockWaitNs; ///< time blocked on mutexes (tasks that used locks only)
    int64_t longestRunNs = 0; ///< longest stretch on a CPU between switches (JSON when > 0)
    /// Samples with lag |V − v| beyond vslice(slice + tick), and the worst excess in virtual ns
    /// (kernel-model.md §4.1; JSON only when some sample was outside).
    int64_t lagExcessSamples = 0;
    int64_t lagExcessMaxNs = 0;
    std::optional<DlTaskMetrics> deadline; ///< SCHED_DEADLINE tasks only
    bool forked = false; ///< created by a fork operation (not written to JSON; tables fold these)
    /// More than 0: this row is not one task but the sum of that many exited forked tasks of the
    /// fork root `name` (forkRoot()), folded while the run went because nothing but the run
    /// summary reads them (Simulation::releaseExitedTasks(true), schedlab-cli run without
    /// --metrics or --all). Only the CPU time, share, worst wait, switches and migrations are
    /// meaningful. Never in JSON: a run whose metrics are written keeps one row per task.
    int64_t folded = 0;
};

struct CgroupMetrics
{
    std::string path;
    int64_t cpuTimeNs = 0;
    int64_t throttledNs = 0;
    /// cpu.stat nr_periods / nr_throttled (groups that had a finite cpu.max only).
    std::optional<int64_t> nrPeriods;
    std::optional<int64_t> nrThrottled;
};

struct CpuMetrics
{
    int cpu = 0;
    int64_t busyNs = 0;
    int64_t forcedIdleNs = 0; ///< core scheduling: idle with runnable tasks (§11.2 forced idle)
};

struct ProbeMetrics
{
    std::string name;
    int64_t spawnedAtNs = 0;
    std::optional<int64_t> latencyNs;
};

struct Finding
{
    /// "starvation", "invariant" (checked builds), "resource_limit" (a run guard stopped the
    /// run), "program_error" (a workload mistake such as unlocking a mutex not held),
    /// "failed_action", "irq_latency", "irqs_off", "ignored_setting" (a custom slice under a
    /// profile without custom slices)
    std::string kind;
    std::string task;
    int cpu = 0;
    int64_t fromNs = 0;
    int64_t durationNs = 0;
    std::string detail;
};

struct RunStats
{
    uint64_t events = 0;
    uint64_t contextSwitches = 0;
    uint64_t recordedEvents = 0;
    uint64_t recordedBytes = 0;
};

struct Metrics
{
    std::string scenario;
    std::string profile;
    std::map<std::string, bool> features;
    /// Behaviour choices (kernel-model.md §13) set on top of the profile when the run started:
    /// the scenario's kernel "overrides", then --override / a compare variant's.
    std::map<std::string, std::string> overrides;
    uint64_t seed = 0;
    int64_t durationNs = 0;
    std::vector<TaskMetrics> tasks;
    std::vector<CgroupMetrics> cgroups;
    std::vector<CpuMetrics> cpus;
    std::vector<ProbeMetrics> probes;
    std::vector<Finding> findings;
    RunStats run;
};

/// The task a forked child's row folds into. Forked children are named PARENT.N (PARENT.N.M for
/// theirs): the root is the longest name of @p listed (the scenario's own tasks) that, followed by
/// '.', starts @p name; with none, the part of @p name before its first '.' (the whole name
/// without one). The run summary, compare and the sweep CSV fold with it.
std::string forkRoot(const std::string& name, const std::set<std::string>& listed);

/// JSON text of scenario-format.md §3 (2-space indentation, trailing newline).
std::string metricsToJson(const Metrics& m);

} // namespace schedlab
