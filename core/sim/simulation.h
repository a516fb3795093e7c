// SPDX-License-Identifier: GPL-2.0-or-later
// The simulation facade (core/README.md): built from a Scenario, advanced by step()/runUntil(),
// observed through read-only views and the Recording. An ordinary object: no globals, so a test
// can build ten of them. Same scenario + options ⇒ byte-identical recording.
#pragma once

#include "core/base/time.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/kernel/runoptions.h"
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/sim/inspect.h"
#include "core/sim/scenariospec.h"

#include <memory>
#include <string>
#include <vector>

namespace schedlab {

enum class TaskState { NotStarted, Runnable, Running, Sleeping, Blocked, Exited };

/// Read-only view of a task for UIs and tests.
struct TaskView
{
    int index = 0;
    std::string name;
    std::string cgroup;
    TaskState state = TaskState::NotStarted;
    int cpu = 0;
    int nice = 0;
    uint64_t weight = 0;
    uint64_t vruntime = 0;
    uint64_t deadline = 0;
    int64_t vlag = 0;
    bool eligible = false;
    bool delayed = false;
    int64_t sumExecRuntime = 0;
    uint64_t cookie = 0; ///< core-scheduling cookie (0 = untagged)
};

struct CgroupView
{
    int index = 0;
    std::string path;
    int parent = -1;
    int weight = 100; ///< cpu.weight as the kernel reads it (1 while cpu.idle is 1)
};

class Machine;

class Simulation
{
public:
    /// Builds the machine, groups and tasks. Throws std::invalid_argument with a message for
    /// inputs the loader cannot catch (e.g. an override valid in syntax but not in combination).
    explicit Simulation(const Scenario& scenario, const RunOptions& options = {});
    ~Simulation();
    Simulation(const Simulation&) = delete;
    Simulation& operator=(const Simulation&) = delete;

    /// Runs one event; false when the run is over (end time reached or nothing left to do).
    bool step();
    /// Runs every event up to and including @p t (clamped to the end time).
    void runUntil(Nanoseconds t);
    /// Runs to the end.
    void run();

    Nanoseconds now() const;
    Nanoseconds endTime() const;
    bool finished() const;
    uint64_t eventsExecuted() const;

    const Recording& recording() const;
    /// Streams the recording to @p sink (nullptr: drops it) instead of keeping it: memory stays
    /// bounded however long the run (Recording::streamTo). Metrics are unchanged. After the run,
    /// flushRecording() hands over the last chunk.
    void streamRecording(RecordSink* sink);
    void flushRecording();
    /// From now on a forked task is freed soon after it exits (the end of the event it exits in)
    /// and only a summary of its metrics row is kept (ExitedTaskSummary, docs/limits.md, Memory),
    /// so a run that forks short-lived tasks all along no longer grows by a whole task per fork.
    /// Metrics and the recording are unchanged; tasks() shows a released task by its name and
    /// state only. For runs that read nothing of an exited task but its metrics (schedlab-cli
    /// run). With @p fold, the rows of exited forked tasks are summed per fork root instead
    /// (TaskMetrics::folded): for a run that writes no per-task metrics, only the run summary,
    /// whose folded lines they give unchanged, so memory no longer grows with each fork.
    void releaseExitedTasks(bool fold = false);
    /// Task objects the machine holds: every task created minus those released at their exit.
    int tasksHeld() const;
    std::vector<TaskView> tasks() const;
    std::vector<CgroupView> cgroups() const;
    int cpuCount() const;
    std::string profileName() const;
    /// The sched features in force now (profile defaults, scenario, options and actions so far).
    FeatureSet features() const;
    /// The model choices in force now (kernel-model.md §13), e.g. the lag clamp rule.
    ProfileChoices choices() const;
    /// The profile and choices the run started with (profile, scenario overrides and run options,
    /// before any action): with the scenario's profile actions they give the choices at any time.
    const std::string& startProfileName() const { return m_startProfile; }
    const ProfileChoices& startChoices() const { return m_startChoices; }
    /// The sched features the run started with (before any action).
    const FeatureSet& startFeatures() const { return m_startFeatures; }
    /// sysctl_sched_base_slice in force (normalised value scaled for the CPU count), and HZ.
    Nanoseconds baseSlice() const;
    int hz() const;

    /// Applies an action now (GUI edits and scenario actions use the same path).
    void apply(const Action& action);

    /// Metrics of the run so far (scenario-format.md §3).
    Metrics metrics() const;
    /// Snapshot of the run queues with explained picks (core/sim/inspect.h). With @p settle,
    /// every level's curr is first brought up to date (update_curr), which changes later
    /// rounding: settle only a throwaway simulation (inspectAt() does).
    Inspection inspect(bool settle = false);
    /// Invariant violations found so far in checked builds (empty when all held).
    const std::vector<std::string>& invariantViolations() const;
    /// Why the run stopped before its end time (a resource guard), or empty.
    const std::string& stopReason() const;

private:
    std::unique_ptr<Machine> m_impl;
    std::string m_startProfile;
    ProfileChoices m_startChoices;
    FeatureSet m_startFeatures;
};

} // namespace schedlab
