// SPDX-License-Identifier: GPL-2.0-or-later
// The busy and wait bookkeeping behind the metrics (core/record/metricsbuilder.h): a task's wait
// from becoming runnable to running (its kept waits and the starvation watchdog), and a CPU's
// busy time from leaving idle to entering idle. Not kernel state: schedstats-like accounting the
// machine does at enqueue, pick and switch.
#pragma once

#include "core/record/metrics.h"
#include "core/sched/rq.h"
#include "core/sim/resourceguard.h"
#include "core/workload/task.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

class WaitBook
{
public:
    /// Each kept wait is counted against @p guard's memory estimate; a wait longer than
    /// @p watchdogNs is a starvation finding.
    WaitBook(ResourceGuard& guard, int64_t watchdogNs)
        : m_guard(guard)
        , m_watchdogNs(watchdogNs)
    { }

    /// @p task became runnable on @p cpu at @p now (a wait already running goes on).
    static void markWaiting(Task& task, int cpu, int64_t now)
    {
        if (task.waitStart < 0) {
            task.waitStart = now;
            task.waitCpu = cpu;
        }
    }
    /// @p task runs at @p now: its wait ends and is kept (inline: at every switch).
    void endWaiting(Task& task, int64_t now)
    {
        if (task.waitStart < 0)
            return;
        const int64_t wait = now - task.waitStart;
        task.waits.push_back(wait);
        m_guard.waitKept();
        if (wait > m_watchdogNs) [[unlikely]] // a starvation finding, named when read
            m_starved.push_back({task.index, task.waitCpu, task.waitStart, wait});
        task.waitStart = -1;
    }
    /// A context switch on @p rq at @p now, from a task (or idle) to a task (or idle) (inline:
    /// at every switch).
    static void switched(Rq& rq, bool fromTask, bool toTask, int64_t now)
    {
        // Busy time: from leaving idle to entering idle.
        int64_t& since = rq.busySince;
        if (!fromTask && toTask)
            since = now;
        if (fromTask && !toTask && since >= 0) {
            rq.busyNs += now - since;
            since = -1;
        }
    }
    /// The completed waits longer than the threshold, as findings; @p taskNames by task index
    /// (Recording::taskNames).
    std::vector<Finding> watchdog(const std::vector<std::string>& taskNames) const;

private:
    /// A wait longer than the threshold, kept compact (no strings) until the findings are read.
    struct Starvation
    {
        int task = 0;
        int cpu = 0;
        int64_t fromNs = 0;
        int64_t waitNs = 0;
    };

    ResourceGuard& m_guard;
    int64_t m_watchdogNs;
    std::vector<Starvation> m_starved;
};

} // namespace schedlab
