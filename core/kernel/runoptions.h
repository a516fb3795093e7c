// SPDX-License-Identifier: GPL-2.0-or-later
// What a run may override in a scenario (RunOptions: profile, features, choices, duration, seed,
// recording switches) and the resource guards that stop a runaway run (docs/limits.md). The text
// form of these options is parsed in core/kernel/variant.h; core/sim/simulation.h includes this
// header, so users of Simulation see them as before.
#pragma once

#include "core/base/time.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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
    /// The estimated memory of the simulated machine (tasks, cgroups, CPUs, kept waits;
    /// ScenarioLimits::bytesPer…): a scenario above it does not load, a run that would grow
    /// past it (forks, waits) stops. 1.5 GiB: every file within the scenario limits loads.
    uint64_t modelBytes = uint64_t{3} << 29;
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
    /// A Pelt record after each entity sample: its PELT averages and its cfs_rq's, with
    /// h_nr_queued and h_nr_runnable (kernel-model.md §6.6, §5.4). Off by default: it doubles
    /// the samples; `run --csv` turns it on for samples.csv.
    bool recordPelt = false;
    /// A MaxSlice record wherever the largest slice queued on a cfs_rq (cfs_rq_max_slice(),
    /// `curr` included: the slice lag_clamp=max_slice_tick clamps with, kernel-model.md §4.1)
    /// is seen to change at an entity sample, for the lag band of the timeline. Off by default;
    /// the window and `capture` turn it on.
    bool recordMaxSlice = false;
    /// The bug-hunt measure lag_excess_samples / lag_excess_max_ns of the metrics (kernel-model.md
    /// §4.1): every sample of a queued task checks its lag |V − v| against its bound. On by
    /// default; `run` turns it off when it writes no metrics file, the only output that reads it.
    bool lagBoundMetric = true;
    Nanoseconds watchdogThreshold{1'000'000'000};
    ResourceLimits limits;
};

} // namespace schedlab
