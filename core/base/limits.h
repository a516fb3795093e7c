// SPDX-License-Identifier: GPL-2.0-or-later
// Bounds on every duration, count and size the scenario loader accepts (docs/limits.md,
// "Scenario limits"). They keep each accepted value, and each sum or product the simulation forms
// from them (now + a duration, a cost times the tasks it visits, cgroups times CPUs), far from the
// 64-bit nanosecond clock's limit, and the work of loading a file linear in its size.
#pragma once

#include "core/base/time.h"

#include <cstddef>
#include <cstdint>

namespace schedlab {

struct ScenarioLimits
{
    /// Any one duration (run, sleep, start, loop "for", action and annotation "at", costs …) and
    /// the scenario's end. 24 h is 8.64e13 ns: 10^5 of them still fit into 63 bits.
    static constexpr Nanoseconds maxDuration{86'400'000'000'000};
    /// "count" of one task or cgroup entry.
    static constexpr int64_t maxEntryCount = 100'000;
    /// Tasks listed and spawned after count expansion (the simulation's live-task guard is the
    /// same number; forked children are bounded by that guard at run time).
    static constexpr size_t maxTasks = 100'000;
    /// cgroups after count expansion, the root not counted.
    static constexpr size_t maxCgroups = 100'000;
    /// cgroups (root included) times CPUs: each cgroup has a run queue and an entity per CPU.
    static constexpr int64_t maxGroupRunQueues = 1'000'000;
    /// Levels below the root in a cgroup path ("/a/b" has 2).
    static constexpr int maxCgroupDepth = 32;
    /// Iterations of one counted loop.
    static constexpr int64_t maxLoopCount = 1'000'000'000;
    /// Loops, kernel sections and forks inside each other in one program.
    static constexpr int maxProgramNesting = 32;
    /// Nesting of JSON arrays and objects anywhere in the file (checked before parsing).
    static constexpr size_t maxJsonDepth = 512;
    /// Nesting inside one "x-…" value.
    static constexpr size_t maxUserDepth = 256;
    /// machine.cpus.
    static constexpr int maxCpus = 4096;
    /// machine.threads_per_core.
    static constexpr int maxThreadsPerCore = 8;
    /// An entry of machine.itmt_priorities (x86 derives them from HWP performance levels,
    /// a few hundred at most).
    static constexpr int maxItmtPriority = 65535;
    /// Bytes of a name: the scenario's, a task's, a mutex's, one cgroup path component.
    static constexpr size_t maxNameBytes = 255;
    /// Bytes of a whole cgroup path or pattern.
    static constexpr size_t maxCgroupPathBytes = 4095;
    /// Bytes of a scenario file.
    static constexpr size_t maxFileBytes = size_t{64} << 20U;

    // The memory estimate of a simulation (docs/limits.md, "Memory"): an upper bound of what the
    // simulation allocates per object, checked against the model-bytes guard (ResourceLimits)
    // when the scenario is loaded into a simulation and again at every task creation. The fixed
    // parts are checked against the real sizes by static_asserts in core/sim/machine.cpp.
    /// One task, created or exited (Task, its frames, its recording name), plus its name's bytes
    /// twice. A program is shared between a task's copies and its forked children, so the size of
    /// a program does not count per task.
    static constexpr int64_t bytesPerTask = 2048;
    /// One completed wait kept for the percentiles of the metrics (8 bytes, twice for the
    /// vector's growth).
    static constexpr int64_t bytesPerWait = 16;
    /// One forked task released at its exit (Simulation::releaseExitedTasks): its metrics
    /// summary, its slot in the task table and its recording name, plus its name's bytes twice.
    static constexpr int64_t bytesPerReleasedTask = 256;
    /// One cgroup (TaskGroup, RT group, path index, recording path), plus its path's bytes twice.
    static constexpr int64_t bytesPerCgroup = 1024;
    /// One cgroup on one CPU: its cfs_rq and group entity.
    static constexpr int64_t bytesPerCgroupCpu = 896;
    /// One CPU: its run queue, the root cfs_rq, the balancer's per-CPU state.
    static constexpr int64_t bytesPerCpu = 16384;
};

} // namespace schedlab
