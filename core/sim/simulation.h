// SPDX-License-Identifier: GPL-2.0-or-later
// The simulation facade (style.md §2): built from a Scenario, advanced by step()/runUntil(),
// observed through read-only views and the Recording. An ordinary object: no globals, so a test
// can build ten of them. Same scenario + options ⇒ byte-identical recording.
#pragma once

#include "core/base/time.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenario.h"
#include "core/sim/inspect.h"

#include <memory>
#include <string>
#include <vector>

namespace schedlab {

/// Resource guards (docs/limits.md): a run that would exceed one stops at once with a
/// "resource_limit" finding and Simulation::stopReason(), instead of exhausting the machine.
struct ResourceLimits
{
    /// Events per simulated second, checked per simulated millisecond (a thousandth of it): a
    /// runaway of zero-time events (a loop that takes no time) stops within a millisecond.
    uint64_t eventsPerSecond = 1'000'000'000;
    /// Tasks alive at once (not exited), forked children and spawned tasks included.
    int liveTasks = 100'000;
    /// Tasks created in all (exited ones stay in the recording and the metrics): a program that
    /// forks short-lived children in a loop stops here rather than filling memory.
    int createdTasks = 1'000'000;
    /// Bytes of the recording (48 per record); the run stops before its storage grows past it.
    uint64_t recordingBytes = uint64_t{1} << 30;
};

/// Run-time overrides of a scenario (CLI flags, compare variants, GUI toggles).
struct RunOptions
{
    std::optional<std::string> profile;
    std::vector<std::string> features;                          ///< "NAME" / "NO_NAME", in order
    std::vector<std::pair<std::string, std::string>> overrides; ///< choice=value, in order
    std::optional<Nanoseconds> duration;
    std::optional<uint64_t> seed;
    bool recordSamples = true; ///< entity samples in the recording (large runs may turn off)
    bool recordEvents = true;  ///< scheduler events other than switches (enqueue, place, ...)
    Nanoseconds watchdogThreshold{1'000'000'000};
    ResourceLimits limits;
};

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
    int weight = 100; ///< cpu.weight
};

class SimulationImpl;

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
    std::vector<TaskView> tasks() const;
    std::vector<CgroupView> cgroups() const;
    int cpuCount() const;
    std::string profileName() const;
    /// The sched features in force now (profile defaults, scenario, options and actions so far).
    FeatureSet features() const;
    /// The model choices in force now (kernel-model.md §13), e.g. the lag clamp rule.
    ProfileChoices choices() const;
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
    std::unique_ptr<SimulationImpl> m_impl;
};

} // namespace schedlab
