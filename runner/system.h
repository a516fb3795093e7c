// SPDX-License-Identifier: GPL-2.0-or-later
// The system side of schedlab-run: cgroup v2, tracefs, debugfs, processes, and what the run
// changes on the machine (listed by --check, journaled and undone: journal.h).
#pragma once

#include "journal.h"
#include "runner.h"

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace schedlab::runner {

struct RunConfig
{
    std::string traceOut; ///< trace text ("" = do not trace)
    std::string namesOut; ///< separate name map ("" = only in the trace)
    /// The directory standing for the scenario's "/" ("" = schedlab-PID below the cgroup v2
    /// mount, created by the run). A directory named here must exist; it is not removed.
    std::string cgroupBase;
    /// The cgroup v2 mount point ("" = found in /proc/self/mounts; tests name a fake one).
    std::string cgroupMount;
    std::string tracefs = "/sys/kernel/tracing";
    std::string debugfs = "/sys/kernel/debug";
    /// The journal file ("" = /run/schedlab-run-PID.journal, or beside the trace without /run).
    std::string journal;
    bool adopt = false; ///< use scenario cgroups that exist already (dangerous)
    /// Children the parent waits for run as light children (runner.h, lightFork()).
    bool lightChildren = false;
    /// Every task's run operations absorb the CPU time it spent between them (runner.h,
    /// CostLedger): a task costs what its program says.
    bool exactCosts = false;
    int pid = 0;            ///< names the run's subtree and trace instance (0 = getpid())
    int64_t durationNs = 0; ///< 0 = the scenario's
    int bufferKb = 16384;   ///< per-CPU trace buffer (of the run's own trace instance)
    ResourceLimits limits;  ///< liveTasks and createdTasks bound the task processes
};

/// One change the run makes to the machine.
struct SystemChange
{
    enum class Kind { Mount, Mkdir, Write };
    Kind kind = Kind::Write;
    std::string path;  ///< the file, directory or mount point
    std::string value; ///< Write: the value; Mount: the file system type
    OldValue how = OldValue::Plain;
    std::string why; ///< the scenario's JSON path or what it is for
};

/// What a run of a scenario changes here, found without changing anything (--check prints it).
struct SystemPlan
{
    std::string cgroupMount; ///< the cgroup v2 mount point (found or to mount)
    std::string base;        ///< the directory of the scenario's "/"
    bool baseCreated = false;
    /// Where tasks of the scenario's "/" are placed: the base, or base/.root when the run made
    /// the base and puts groups below it (a cgroup with controllers on has no processes).
    std::string rootTasks;
    std::string tracefs;              ///< "" without tracing
    std::string instance;             ///< the run's trace instance (tracefs/instances/schedlab-PID)
    std::string journal;              ///< the journal file
    std::vector<SystemChange> setup;  ///< before the tasks start, in order
    std::vector<SystemChange> during; ///< by actions (listed only; made when they happen)
    std::vector<std::string> existing; ///< existing cgroups the scenario names ("/A (DIR)")
    /// Groups of the machine with a scenario group's path, left alone because the run works in
    /// a subtree of its own ("/A (MOUNT/A)").
    std::vector<std::string> untouched;
    std::vector<std::string> notes;  ///< how the run differs from the model here
    std::vector<std::string> errors; ///< what stops the run (an existing cgroup without --adopt)
    std::string cgroupDir(const std::string& scenarioPath) const
    {
        return scenarioPath == "/" ? base : base + scenarioPath;
    }
};

SystemPlan planSystem(const Scenario& scenario, const Plan& plan, const RunConfig& config);
/// The plan as --check prints it: one line per change, "  mkdir DIR", "  write FILE VALUE" …
void printSystemPlan(const SystemPlan& plan, std::ostream& out);

/// The cgroup files of @p f as (file, value) pairs, in the order they are written (cpu.idle 0
/// first, cpu.idle 1 last: the kernel refuses a weight while the group is idle).
std::vector<std::pair<std::string, std::string>> cgroupFileValues(const CgroupFiles& f);

/// Where cgroup2 is mounted ("" if nowhere).
std::string cgroup2Mount();
/// Whether the cgroup v2 directory @p dir offers the cpu controller (cgroup.controllers).
bool hasCpuController(const std::string& dir);
/// tracefs directory with a "trace" file ("" if none).
std::string tracefsDir(const std::string& preferred);

/// Runs @p plan of @p scenario; progress and problems on @p err. Everything the run changes is
/// journaled first and undone on every exit path (normal end, error, exception, SIGINT, SIGTERM,
/// SIGHUP). Exit code: 0 ok, 3 the environment cannot run it (not root, no cgroup v2, no
/// tracefs, an existing cgroup without --adopt) or a task guard stopped the run, 128+N stopped
/// by signal N (after undoing the run).
int runScenario(
    const Scenario& scenario, const Plan& plan, const RunConfig& config, std::ostream& err);

} // namespace schedlab::runner
