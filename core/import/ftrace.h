// SPDX-License-Identifier: GPL-2.0-or-later
// Import of a real kernel's scheduler trace (docs/real-kernels.md): ftrace text as read from
// /sys/kernel/tracing/trace (with or without the irqs-off / need-resched / hardirq /
// preempt-depth / migrate-disable flag columns) or as printed by `trace-cmd report`, turned into
// the project's Recording and the same Metrics as a simulated run.
//
// Events used: sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task,
// sched_process_fork, sched_process_exit. Every other event is skipped and counted. The traced
// span runs from the first to the last event; record times are relative to its start.
#pragma once

#include "core/dl/dlparams.h"
#include "core/kernel/cgroupfiles.h"
#include "core/record/metrics.h"
#include "core/record/recording.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

/// Limits of what a trace may say (docs/real-kernels.md, "Importing any trace"); a value beyond
/// them is an error naming FILE:LINE, never wrapped or clamped.
/// Pids: 0 (the idle task) up to the kernel's PID_MAX_LIMIT (4 Mi on 64-bit kernels).
inline constexpr int64_t kTraceMaxPid = 4 * 1024 * 1024;
/// CPU numbers 0 … 4095: the column, target_cpu=, orig_cpu=, dest_cpu= (the scenario's limit).
inline constexpr int64_t kTraceMaxCpus = 4096;
/// Clocks of different CPUs may disagree a little (trace_clock "local", TSC skew): an event up to
/// this much older than an earlier one of another CPU is taken at the earlier one's time, with a
/// warning; more is an error. One CPU's own clock never goes back.
inline constexpr int64_t kTraceMaxClockSkewNs = 1'000'000;

/// Names for traced threads (the runner writes one; comm is only 15 characters long):
/// pid → scenario task name and cgroup. A line is "PID NAME [CGROUP [cpus=LIST]]"; '#' starts a
/// comment. In a trace the same entries can appear as "# schedlab-task: PID NAME [CGROUP
/// [cpus=LIST]]" lines (LIST: the CPUs the task was allowed when it started), the runner adds
/// the cgroup files it set at the start as "# schedlab-cgroup-files: PATH cpu.weight=N
/// cpu.max=QUOTA,PERIOD …" and each group's cpu.stat at the end of the run as
/// "# schedlab-cgroup: PATH nr_periods=N nr_throttled=N throttled_usec=N …".
struct TraceNameMap
{
    struct Entry
    {
        std::string name;
        std::string cgroup;
        std::string cpus; ///< allowed CPUs at the start (a canonical cpulist), or empty
        /// "dl=RUNTIME/DEADLINE/PERIOD[/reclaim]" (ns): a SCHED_DEADLINE task's reservation
        std::optional<DlParams> dl;
    };
    std::map<int, Entry> byPid;
};

/// Parses a name map; false with "FILE:LINE: what was expected" in @p error.
bool parseNameMap(
    std::istream& in, const std::string& fileName, TraceNameMap& map, std::string* error);

/// One scheduling event of one task, as a replay needs them (core/import/replay.h): when it
/// ran, blocked, was woken and by whom, forked. Kept per task in time order (a run whose start the
/// trace shows only at its end gets its On at the time the import credits it from).
struct TraceActivity
{
    enum class Kind : uint8_t {
        On,    ///< starts running on `cpu`
        Off,   ///< stops running; detail: 0 preempted (still runnable), 1 blocked, 2 dead
        Woken, ///< becomes runnable; other: the task that woke it, -1 for none known (idle, an
               ///< interrupt, an untraced context); detail: 1 interrupt context, 2 a new task
        Wakes, ///< woke task `other`: the waker's side of a Woken with a known waker, which it
               ///< directly follows in `activity`
        Fork,  ///< forked task `other`
    };
    int64_t time = 0;
    int32_t task = 0; ///< index into metrics.tasks
    int32_t other = -1;
    uint16_t cpu = 0;
    Kind kind = Kind::On;
    uint8_t detail = 0;
};

/// An affinity change schedlab-run marked in the trace ("schedlab-cpus pid=PID cpus=LIST"):
/// a task's own `cpus` operation (@p self) or a `set` action of the run on it.
struct TraceAffinity
{
    int64_t time = 0;
    int32_t task = 0; ///< index into metrics.tasks
    bool self = false;
    std::string cpus; ///< canonical cpulist
};

/// What the trace says about a task beyond its metrics (same order as metrics.tasks).
struct TraceTaskInfo
{
    int pid = 0;
    std::string comm;
    /// The kernel's p->prio at its first event that printed one (-1: SCHED_DEADLINE).
    std::optional<int> prio;
    bool prioChanged = false;   ///< a later event printed another prio (PI boost, nice, chrt)
    int parent = -1;            ///< the forking task's index when the fork was traced
    std::string cpus;           ///< allowed CPUs at the start from the name map (cpulist), or empty
    std::optional<DlParams> dl; ///< SCHED_DEADLINE reservation from the name map
    /// Trace times (record time) of its "schedlab-yield" markers: the ends of its jobs.
    std::vector<int64_t> yields;
};

struct TraceImport
{
    Recording recording;
    Metrics metrics;
    /// "FILE:LINE: what was expected". Any error makes the import unusable (ok() is false).
    std::vector<std::string> errors;
    /// "FILE:LINE: …" for things skipped that do not spoil the result (a truncated last line,
    /// lost events reported by the tracer, a switch from a task the CPU was not running).
    std::vector<std::string> warnings;
    std::map<std::string, int64_t> unknownEvents; ///< skipped event name → count
    int64_t lines = 0;
    int64_t events = 0;     ///< scheduler events used
    int64_t lostEvents = 0; ///< "[LOST N EVENTS]" markers summed
    int64_t startNs = 0;    ///< trace timestamp of the first event (record time 0)
    std::string kernel;     ///< "# schedlab-kernel: …" when the runner wrote it
    std::string scenario;   ///< "# schedlab-scenario: NAME" when the runner wrote it
    int scenarioCpus = 0;   ///< "# schedlab-cpus: N" (the scenario's CPUs), 0 when absent
    int hz = 0;             ///< "# schedlab-hz: N" (CONFIG_HZ of the traced kernel), 0 unknown
    std::string preempt;    ///< "# schedlab-preempt: MODE" (none/voluntary/full/lazy) or ""
    /// "# schedlab-features: NAME=0|1 …": the sched features the run set at its start.
    std::map<std::string, bool> features;
    /// "schedlab-features NAME=0|1 …" markers: features a run's action changed, at record times.
    std::vector<std::pair<int64_t, std::map<std::string, bool>>> featureChanges;

    int machineCpus = 0; ///< CPUs the tracer had ("#P:N", trace-cmd's "cpus=N"), 0 unknown
    /// The cgroup files the runner set at the start ("# schedlab-cgroup-files:"), by path.
    std::map<std::string, CgroupFiles> cgroupFiles;
    /// Record time of each task's first event (same order as metrics.tasks): when a task the
    /// runner started at a scenario time was first woken.
    std::vector<int64_t> firstEventNs;
    std::vector<TraceTaskInfo> taskInfo; ///< same order as metrics.tasks
    std::vector<TraceActivity> activity; ///< every task's events, each task's in time order
    std::vector<TraceAffinity> affinity; ///< marked affinity changes, in time order
    /// The trace had the irq-info flag columns, so wakeups from interrupts are known as such.
    bool contextFlags = false;
    bool ok() const { return errors.empty(); }
};

/// Reads a whole trace. @p fileName is used in messages and as the metrics' "scenario" (unless
/// the trace names its scenario). @p names (optional) adds to the map found in the trace.
TraceImport importFtrace(
    std::istream& in, const std::string& fileName, const TraceNameMap* names = nullptr);

namespace detail {
/// The tokens of a name-map entry after NAME and CGROUP: "cpus=LIST" (canonical, "0-1,3"; left
/// empty when not a valid cpulist) and "dl=RUNTIME/DEADLINE/PERIOD[/reclaim]" (left unset unless
/// the kernel would accept the parameters, __checkparam_dl()).
void nameMapExtras(std::istream& fields, TraceNameMap::Entry& entry);
/// The CPU column of a trace line: the first "[DIGITS]" after a space and followed by a space or
/// the end of the line; false when there is none. In time linear in the line's length:
/// @p steps (optional) adds the characters examined, for tests.
bool findCpuColumn(std::string_view line, size_t& open, size_t& close, uint64_t* steps = nullptr);
} // namespace detail

/// Opens @p path (an unreadable file is an error naming it) and imports it.
TraceImport importFtraceFile(const std::string& path, const TraceNameMap* names = nullptr);

} // namespace schedlab
