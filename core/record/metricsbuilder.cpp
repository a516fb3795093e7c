// SPDX-License-Identifier: GPL-2.0-or-later
#include "metricsbuilder.h"

#include "core/base/percentile.h"
#include "core/fair/taskgroup.h"
#include "core/record/machineview.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>

namespace schedlab {

namespace {

double shareOf(int64_t cpuTime, int64_t now)
{
    return now > 0 ? static_cast<double>(cpuTime) / static_cast<double>(now) : 0.0;
}

void addReasons(TaskMetrics& tm, const std::array<int64_t, kMigrateReasonCount>& byReason)
{
    for (size_t r = 0; r < byReason.size(); ++r)
        if (byReason[r] > 0)
            tm.migrationsByReason[r == 0 ? "unknown"
                                         : migrateReasonName(MigrateReason(uint8_t(r)))] =
                byReason[r];
}

DlTaskMetrics deadlineOf(const Task& t)
{
    DlTaskMetrics dm;
    dm.runtimeNs = t.dl.params.runtime;
    dm.deadlineNs = t.dl.params.deadline;
    dm.periodNs = t.dl.params.effectivePeriod();
    dm.reclaim = t.dl.params.reclaim();
    dm.jobs = t.dl.jobs;
    dm.misses = t.dl.misses;
    dm.throttles = t.dl.throttles;
    dm.worstResponseNs = t.dl.worstResponse;
    return dm;
}

// The row of a released task: what the loop of addMachineMetrics() computes from a task whose
// metrics are final (no open wait, stretch on a CPU or lock wait).
void addReleasedRow(
    Metrics& m, const ExitedTaskSummary& e, const std::vector<TaskGroup>& groups, int64_t now)
{
    TaskMetrics tm;
    tm.name = e.name;
    tm.cgroup = groups[static_cast<size_t>(e.group)].path;
    tm.cpuTimeNs = e.cpuTimeNs;
    tm.share = shareOf(e.cpuTimeNs, now);
    tm.waitMaxNs = e.waitMaxNs;
    tm.waitP50Ns = e.waitP50Ns;
    tm.waitP99Ns = e.waitP99Ns;
    tm.switches = e.switches;
    tm.migrations = e.migrations;
    if (e.migrationsByReason)
        addReasons(tm, *e.migrationsByReason);
    tm.exitedAtNs = e.exitedAtNs;
    tm.forked = e.forked;
    tm.longestRunNs = e.longestRunNs;
    tm.lagExcessSamples = e.lagExcessSamples;
    tm.lagExcessMaxNs = e.lagExcessMaxNs;
    if (e.deadline)
        tm.deadline = *e.deadline;
    if (e.lockWaitNs >= 0)
        tm.lockWaitNs = e.lockWaitNs;
    m.tasks.push_back(tm);
    if (e.probe)
        m.probes.push_back({e.name, e.spawnedAtNs, e.exitedAtNs - e.spawnedAtNs});
}

// A fold's row, where the summary's folding of per-task rows would have put its last task.
void addFoldRow(Metrics& m, const FoldedForks& f, const std::vector<TaskGroup>& groups, int64_t now)
{
    TaskMetrics tm;
    tm.name = f.root;
    tm.cgroup = groups[static_cast<size_t>(f.group)].path;
    tm.cpuTimeNs = f.cpuTimeNs;
    tm.share = now == f.endNs ? f.shareAtEnd : shareOf(f.cpuTimeNs, now);
    tm.waitMaxNs = f.waitMaxNs;
    tm.switches = f.switches;
    tm.migrations = f.migrations;
    addReasons(tm, f.migrationsByReason);
    tm.forked = true;
    tm.folded = f.count;
    m.tasks.push_back(std::move(tm));
}

} // namespace

void foldExited(FoldedForks& fold, const Task& t, int64_t endNs)
{
    fold.endNs = endNs;
    fold.shareAtEnd += shareOf(t.cpuTime, endNs);
    if (t.index > fold.lastIndex) {
        fold.lastIndex = t.index;
        fold.group = t.group;
    }
    ++fold.count;
    fold.cpuTimeNs += t.cpuTime;
    if (!t.waits.empty())
        fold.waitMaxNs =
            std::max(fold.waitMaxNs, *std::max_element(t.waits.begin(), t.waits.end()));
    fold.switches += t.switches;
    fold.migrations += t.migrations;
    for (size_t r = 0; r < fold.migrationsByReason.size(); ++r)
        fold.migrationsByReason[r] += t.migrationsByReason[r];
}

bool metricsFinal(const Task& t)
{
    return t.state == TaskRunState::Exited && t.waitStart < 0 && t.onCpuSince < 0
        && t.lockWaitStart < 0;
}

ExitedTaskSummary summarizeExited(const Task& t)
{
    ExitedTaskSummary e;
    e.name = t.name;
    e.index = t.index;
    e.group = t.group;
    e.cpuTimeNs = t.cpuTime;
    e.waitMaxNs = t.waits.empty() ? 0 : *std::max_element(t.waits.begin(), t.waits.end());
    e.waitP50Ns = nearestRankPercentile(t.waits, 50);
    e.waitP99Ns = nearestRankPercentile(t.waits, 99);
    e.switches = t.switches;
    e.migrations = t.migrations;
    if (std::any_of(t.migrationsByReason.begin(), t.migrationsByReason.end(),
            [](int64_t n) { return n > 0; }))
        e.migrationsByReason =
            std::make_unique<std::array<int64_t, kMigrateReasonCount>>(t.migrationsByReason);
    e.exitedAtNs = t.exitedAt;
    e.spawnedAtNs = t.spawnedAt;
    e.longestRunNs = t.longestRunNs;
    e.lagExcessSamples = t.lagExcessSamples;
    e.lagExcessMaxNs = t.lagExcessMaxNs;
    if (t.usedLocks)
        e.lockWaitNs = t.lockWaitNs;
    e.forked = t.parent >= 0;
    e.probe = t.probe;
    if (t.isDl())
        e.deadline = std::make_unique<DlTaskMetrics>(deadlineOf(t));
    return e;
}

std::string forkRoot(const std::string& name, const std::set<std::string>& listed)
{
    std::string best;
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
        if (listed.contains(name.substr(0, dot)))
            best = name.substr(0, dot);
    if (!best.empty())
        return best;
    const size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

void addMachineMetrics(
    Metrics& m, const MachineView& machine, int64_t watchdogThresholdNs, const RunFindings& runs)
{
    const int64_t now = machine.clock();
    const std::vector<TaskGroup>& groups = machine.taskGroups();
    m.durationNs = now;
    const std::vector<const ExitedTaskSummary*> released = machine.releasedTasks();
    const std::vector<const FoldedForks*> folds = machine.foldedForks();
    auto nextReleased = released.begin();
    auto nextFold = folds.begin();
    for (int i = 0; i < machine.taskCount(); ++i) {
        const Task* t = machine.findTask(i);
        if (!t) { // released at its exit: its row was summarised or folded then
            if (nextReleased != released.end() && (*nextReleased)->index == i)
                addReleasedRow(m, **nextReleased++, groups, now);
            if (nextFold != folds.end() && (*nextFold)->lastIndex == i)
                addFoldRow(m, **nextFold++, groups, now);
            continue;
        }
        TaskMetrics tm;
        tm.name = t->name;
        tm.cgroup = groups[static_cast<size_t>(t->group)].path;
        tm.cpuTimeNs = t->cpuTime;
        tm.share = shareOf(t->cpuTime, now);
        std::vector<int64_t> waits = t->waits;
        if (t->waitStart >= 0)
            waits.push_back(now - t->waitStart); // still waiting at the end of the run
        tm.waitMaxNs = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
        tm.waitP50Ns = nearestRankPercentile(waits, 50);
        tm.waitP99Ns = nearestRankPercentile(waits, 99);
        tm.switches = t->switches;
        tm.migrations = t->migrations;
        addReasons(tm, t->migrationsByReason);
        if (t->exitedAt >= 0)
            tm.exitedAtNs = t->exitedAt;
        tm.forked = t->parent >= 0;
        tm.longestRunNs = t->longestRunNs;
        if (t->onCpuSince >= 0) // still running at the end of the run
            tm.longestRunNs = std::max(tm.longestRunNs, now - t->onCpuSince);
        tm.lagExcessSamples = t->lagExcessSamples;
        tm.lagExcessMaxNs = t->lagExcessMaxNs;
        if (t->isDl())
            tm.deadline = deadlineOf(*t);
        if (t->usedLocks) {
            int64_t lockWait = t->lockWaitNs;
            if (t->lockWaitStart >= 0)
                lockWait += now - t->lockWaitStart; // still waiting at the end of the run
            tm.lockWaitNs = lockWait;
        }
        m.tasks.push_back(tm);
        if (t->probe) {
            ProbeMetrics pm;
            pm.name = t->name;
            pm.spawnedAtNs = t->spawnedAt;
            if (t->exitedAt >= 0)
                pm.latencyNs = t->exitedAt - t->spawnedAt;
            m.probes.push_back(pm);
        }
        if (t->waitStart >= 0 && now - t->waitStart > watchdogThresholdNs)
            m.findings.push_back({"starvation", t->name, t->waitCpu, t->waitStart,
                now - t->waitStart, "runnable, not run (still waiting)"});
    }
    // Completed waits longer than the threshold (recorded by the watchdog as they ended),
    // resource guards, failed actions, long irqs-off sections, late timers.
    for (const std::vector<Finding>* list : runs.lists)
        for (const auto& f : *list)
            m.findings.push_back(f);
    std::sort(m.findings.begin(), m.findings.end(),
        [](const Finding& a, const Finding& b) { return a.fromNs < b.fromNs; });
    // Summed once for all groups (asking per group would walk every group per group).
    const std::vector<int64_t> groupCpu = machine.groupCpuTimes();
    for (const auto& g : groups) {
        if (g.index == 0)
            continue;
        CgroupMetrics cm{g.path, groupCpu[static_cast<size_t>(g.index)], 0, {}, {}};
        // cpu.stat throttled time: completed intervals plus the ones still open (§9.3).
        cm.throttledNs = g.bandwidth.throttledTime;
        for (const auto& c : g.cfsRq)
            if (c->throttledClock >= 0)
                cm.throttledNs += now - c->throttledClock;
        if (g.bandwidth.everLimited) {
            cm.nrPeriods = g.bandwidth.nrPeriods;
            cm.nrThrottled = g.bandwidth.nrThrottled;
        }
        m.cgroups.push_back(std::move(cm));
    }
    for (int c = 0; c < machine.cpuCount(); ++c) {
        int64_t busy = machine.rq(c).busyNs;
        if (machine.rq(c).busySince >= 0)
            busy += now - machine.rq(c).busySince;
        int64_t forcedIdle = 0;
        const CoreRqState& cr = machine.rq(c).core;
        forcedIdle = cr.forcedIdleNs + (cr.forcedIdleSince >= 0 ? now - cr.forcedIdleSince : 0);
        m.cpus.push_back({c, busy, forcedIdle});
    }
    if (runs.violations)
        for (const auto& v : *runs.violations)
            m.findings.push_back({"invariant", "", 0, 0, 0, v});
}

} // namespace schedlab
