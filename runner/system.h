// SPDX-License-Identifier: GPL-2.0-or-later
// The system side of schedlab-run: cgroup v2, tracefs, debugfs, processes.
#pragma once

#include "runner.h"

#include <iosfwd>
#include <string>

namespace schedlab::runner {

struct RunConfig
{
    std::string traceOut;   ///< trace text ("" = do not trace)
    std::string namesOut;   ///< separate name map ("" = only in the trace)
    std::string cgroupBase; ///< scenario "/" ("" = the cgroup v2 mount point)
    std::string tracefs = "/sys/kernel/tracing";
    std::string debugfs = "/sys/kernel/debug";
    int64_t durationNs = 0; ///< 0 = the scenario's
    int bufferKb = 16384;   ///< per-CPU trace buffer
};

/// Where cgroup2 is mounted ("" if nowhere); mounts it at /sys/fs/cgroup when @p mount and
/// nothing is mounted there.
std::string cgroup2Mount(bool mount);
/// Whether the cgroup v2 directory @p dir offers the cpu controller (cgroup.controllers).
bool hasCpuController(const std::string& dir);
/// tracefs directory with a "trace" file ("" if none); mounts it when @p mount.
std::string tracefsDir(const std::string& preferred, bool mount);

/// Runs @p plan of @p scenario; progress and problems on @p err. Exit code: 0 ok, 3 the
/// environment cannot run it (not root, no cgroup v2, no tracefs).
int runScenario(
    const Scenario& scenario, const Plan& plan, const RunConfig& config, std::ostream& err);

} // namespace schedlab::runner
