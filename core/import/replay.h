// SPDX-License-Identifier: GPL-2.0-or-later
// Replay (docs/real-kernels.md, "Replay your own trace"): the workload of a real trace as a
// scenario, so that the model can run what a real machine ran — under another profile, with a
// feature toggled — and be scored against the trace.
//
// Each traced task becomes a task whose program is its own history: the CPU time it received
// between becoming runnable and blocking (a `run`), its blocked time (a `sleep`, or a wait for the
// task that woke it), its forks (a `fork` of the child's own program) and its end. A wakeup by
// another traced task, outside interrupt context, becomes a wake chain: the sleeper waits on a
// completion the waker completes at the same point of its own CPU time, so who wakes whom stays in
// the model; a wakeup by an interrupt, the idle task or an untraced context is a timed sleep.
// What the trace cannot say (interrupts, untraced kernel threads, CPU frequency, affinity, cgroup
// weights, HZ) is listed in the scenario's description, never guessed silently.
#pragma once

#include "core/import/ftrace.h"
#include "core/sim/scenariospec.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

struct ReplayOptions
{
    enum class Wakeups {
        Chains, ///< wakeups by a traced task: the waker completes what the sleeper waits for
        Timed,  ///< every blocked period is a sleep of its traced length
    };
    Wakeups wakeups = Wakeups::Chains;
    std::optional<int> cpus;            ///< machine.cpus; default: what the trace shows
    std::optional<std::string> profile; ///< kernel profile; default: the one covering the kernel
    std::string name;                   ///< scenario name; default: the trace's
};

struct ReplayScenario
{
    Scenario scenario;
    /// Scenario task name (forked children are PARENT.N) → the trace's task name, for scoring.
    std::map<std::string, std::string> traceNames;
    /// What the trace cannot tell, one line each (also in the scenario's description).
    std::vector<std::string> unknowns;
    int64_t chains = 0;          ///< wakeups replayed as wake chains
    int64_t timedSleeps = 0;     ///< blocked periods replayed as sleeps
    int64_t forks = 0;           ///< fork operations
    int64_t flattened = 0;       ///< forks nested too deep, replayed as tasks started at the fork
    int64_t affinityOps = 0;     ///< `cpus` operations from a task's own marked changes
    int64_t affinityActions = 0; ///< `set` actions from changes made from outside
};

/// The scenario's user key that keeps ReplayScenario::traceNames ({"MODEL NAME": "TRACE NAME"}),
/// so that `compare --real` can put each trace task beside its replay.
inline constexpr const char* kReplayNamesKey = "x-replay-trace-names";

/// The scenario that replays @p trace (which must be ok()).
ReplayScenario deriveScenario(const TraceImport& trace, const ReplayOptions& options = {});

/// Kernel threads by their comm (kworker/…, ksoftirqd/N, migration/N, rcu_…): replayed like any
/// task but marked kernel_thread, so that schedlab-run never starts them. For per-CPU ones
/// ("NAME/N") @p cpu gets N, else -1.
bool isKernelThreadComm(const std::string& comm, int* cpu = nullptr);

/// The trace name → model name map a replay scenario keeps (kReplayNamesKey); empty for any
/// other scenario or an unreadable value.
std::map<std::string, std::string> replayTraceToModelNames(const Scenario& scenario);

/// How close a replay came to its trace: one line for CI jobs and sweeps. Over the tasks both
/// have (by the map): the CPU-share error summed (percentage points) and its largest term, and
/// the geometric means of the model/real ratios of the p50 and p99 waits (tasks that waited in
/// both).
struct ReplayFidelity
{
    int tasks = 0;
    double shareErrorSumPp = 0;
    double shareErrorMaxPp = 0;
    std::string worstTask;
    double waitP50Ratio = 1;
    double waitP99Ratio = 1;
    int waitTasks = 0;
};
ReplayFidelity replayFidelity(const Metrics& model, const Metrics& real);

} // namespace schedlab
