// SPDX-License-Identifier: GPL-2.0-or-later
// The resource guards of a run (docs/limits.md): the memory estimate of the scenario before
// anything is allocated, the live/created task counts, the events per simulated millisecond and
// the recording's size. A guard that trips stops the run with a reason and a finding; the machine
// asks stopped() in its event loop.
#pragma once

#include "core/base/limits.h"
#include "core/kernel/runoptions.h"
#include "core/record/metrics.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct Scenario;

class ResourceGuard
{
public:
    explicit ResourceGuard(const ResourceLimits& limits)
        : m_limits(limits)
        , m_eventsPerMs(std::max<uint64_t>(limits.eventsPerSecond / 1000, 1))
    { }

    /// The memory estimate of @p scenario's machine and cgroups (the tasks are counted as they
    /// are created); throws std::invalid_argument naming the JSON path of the entry that takes
    /// it past the model-bytes guard.
    void checkScenario(const Scenario& scenario);
    /// More tasks in the file than the live or created task limit: std::invalid_argument.
    void checkTaskCount(const Scenario& scenario) const;

    /// A task named @p name may be created; otherwise the run stops (blamed on @p name, @p cpu).
    bool canCreateTask(const std::string& name, int cpu, int64_t createdTasks, int64_t now);
    void taskCreated(const std::string& name);
    void taskExited() { --m_liveTasks; }
    /// An exited task of a @p nameBytes name that completed @p waits waits is freed: its summary
    /// stays (ScenarioLimits::bytesPerReleasedTask), and its name in the recording.
    void taskReleased(size_t nameBytes, size_t waits);
    /// A completed wait kept for the metrics.
    void waitKept() { m_modelBytes += ScenarioLimits::bytesPerWait; }

    /// Counts one event (or schedule()) at @p now and checks every guard.
    void check(int64_t now, int cpu, uint64_t recordingBytes)
    {
        // The common case inline: every guard far from its limit.
        if (const int64_t window = now / 1'000'000; window != m_eventWindow) {
            m_eventWindow = window; // a new simulated millisecond: its count starts again
            m_eventsInWindow = 0;
        }
        if (m_eventsInWindow < m_eventsPerMs && recordingBytes < m_limits.recordingBytes
            && m_modelBytes <= m_limits.modelBytes) {
            ++m_eventsInWindow;
            return;
        }
        checkSlow(now, cpu, recordingBytes);
    }
    /// Stops the run (the first reason stays).
    void stop(const std::string& task, int cpu, const std::string& reason, int64_t now);

    bool stopped() const { return !m_stopReason.empty(); }
    const std::string& stopReason() const { return m_stopReason; }
    const std::vector<Finding>& findings() const { return m_findings; }

private:
    void checkSlow(int64_t now, int cpu, uint64_t recordingBytes);
    ResourceLimits m_limits;
    uint64_t m_eventsPerMs = 1;    ///< max(events-per-second / 1000, 1)
    std::string m_stopReason;      ///< set when a guard stopped the run
    int64_t m_eventWindow = -1;    ///< simulated millisecond being counted
    uint64_t m_eventsInWindow = 0; ///< events executed in it
    int m_liveTasks = 0;           ///< created and not exited
    uint64_t m_modelBytes = 0;     ///< the memory estimate (ScenarioLimits::bytesPer…)
    std::vector<Finding> m_findings;
};

} // namespace schedlab
