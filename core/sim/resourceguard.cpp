// SPDX-License-Identifier: GPL-2.0-or-later
// The resource guards of a run (docs/limits.md). See resourceguard.h.
#include "core/sim/resourceguard.h"

#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/fair/cfsrq.h"
#include "core/fair/taskgroup.h"
#include "core/record/metricsbuilder.h"
#include "core/rt/rtclass.h"
#include "core/sched/rq.h"
#include "core/sim/scenariospec.h"
#include "core/workload/task.h"

#include <algorithm>
#include <stdexcept>

namespace schedlab {

// The fixed parts of the per-object estimates (docs/limits.md, "Memory") hold with room for the
// allocator's headers and the containers that index the objects.
static_assert(sizeof(Task) + sizeof(Task::Frame) + 3 * sizeof(std::string) + 64
        <= ScenarioLimits::bytesPerTask,
    "ScenarioLimits::bytesPerTask is below a task's size");
static_assert(sizeof(ExitedTaskSummary) + sizeof(std::unique_ptr<Task>) + sizeof(std::string)
            + 32 /* Placement's wakee state */ + 16
        <= ScenarioLimits::bytesPerReleasedTask,
    "ScenarioLimits::bytesPerReleasedTask is below a released task's size");
static_assert(sizeof(TaskGroup) + sizeof(RtGroup) + 2 * sizeof(std::string) + 128
        <= ScenarioLimits::bytesPerCgroup,
    "ScenarioLimits::bytesPerCgroup is below a cgroup's size");
static_assert(sizeof(CfsRq) + sizeof(SchedEntity) + 2 * 16 + 2 * sizeof(void*)
        <= ScenarioLimits::bytesPerCgroupCpu,
    "ScenarioLimits::bytesPerCgroupCpu is below a cgroup's size on one CPU");
static_assert(sizeof(Rq) + sizeof(CfsRq) <= ScenarioLimits::bytesPerCpu / 4,
    "ScenarioLimits::bytesPerCpu is below a CPU's size");

void ResourceGuard::checkScenario(const Scenario& scenario)
{
    // Summed in file order: the entry that takes the estimate past the guard is the one named.
    const uint64_t limit = m_limits.modelBytes;
    const auto cpus = static_cast<uint64_t>(std::max(1, scenario.machine.cpuCount()));
    auto mib = [](uint64_t bytes) { return std::to_string((bytes + (1U << 20U) - 1) >> 20U); };
    auto check = [&](const std::string& path, const std::string& what, uint64_t n) {
        if (m_modelBytes > limit)
            throw std::invalid_argument(path + ": " + what + (n == 1 ? " brings" : " bring")
                + " the estimated memory of the simulation to " + mib(m_modelBytes)
                + " MiB, more than the model-bytes limit of " + mib(limit)
                + " MiB (docs/limits.md, Memory; --limit model-bytes=N)");
    };
    // The root cgroup is one on every CPU.
    m_modelBytes = cpus
        * (static_cast<uint64_t>(ScenarioLimits::bytesPerCpu) + ScenarioLimits::bytesPerCgroupCpu);
    check("/machine/cpus", std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs"), cpus);
    for (size_t i = 0; i < scenario.cgroups.size(); ++i) {
        const CgroupSpec& spec = scenario.cgroups[i];
        if (spec.path == "/")
            continue;
        const auto n = static_cast<uint64_t>(std::max(1, spec.count.value_or(1)));
        m_modelBytes += n
            * (ScenarioLimits::bytesPerCgroup + 2 * (spec.path.size() + 8)
                + cpus * ScenarioLimits::bytesPerCgroupCpu);
        check("/cgroups/" + std::to_string(i) + (spec.count ? "/count" : ""),
            std::to_string(n) + (n == 1 ? " cgroup" : " cgroups") + " on " + std::to_string(cpus)
                + (cpus == 1 ? " CPU" : " CPUs"),
            n);
    }
    const uint64_t withoutTasks = m_modelBytes;
    for (size_t i = 0; i < scenario.tasks.size(); ++i) {
        const TaskSpec& spec = scenario.tasks[i];
        const auto n = static_cast<uint64_t>(std::max(1, spec.count.value_or(1)));
        m_modelBytes += n * (ScenarioLimits::bytesPerTask + 2 * (spec.name.size() + 8));
        check("/tasks/" + std::to_string(i) + (spec.count ? "/count" : ""),
            n == 1 ? "a task" : std::to_string(n) + " copies of a task", n);
    }
    m_modelBytes = withoutTasks; // createTask() counts each task as it is made
}

void ResourceGuard::checkTaskCount(const Scenario& scenario) const
{
    int64_t fileTasks = 0;
    for (const TaskSpec& spec : scenario.tasks)
        fileTasks += std::max(spec.count.value_or(1), 0);
    const int64_t taskLimit = std::min<int64_t>(m_limits.liveTasks, m_limits.createdTasks);
    if (fileTasks > taskLimit)
        throw std::invalid_argument("the scenario has " + std::to_string(fileTasks)
            + " tasks, more than the limit of " + std::to_string(taskLimit)
            + " tasks (docs/limits.md)");
}

void ResourceGuard::taskCreated(const std::string& name)
{
    ++m_liveTasks;
    m_modelBytes += ScenarioLimits::bytesPerTask + 2 * name.size();
}

void ResourceGuard::taskReleased(size_t nameBytes, size_t waits)
{
    const uint64_t freed =
        ScenarioLimits::bytesPerTask + nameBytes + waits * ScenarioLimits::bytesPerWait;
    const uint64_t kept = ScenarioLimits::bytesPerReleasedTask + nameBytes;
    m_modelBytes -= std::min(m_modelBytes, freed - std::min(freed, kept));
}

void ResourceGuard::stop(const std::string& task, int cpu, const std::string& reason, int64_t now)
{
    if (!m_stopReason.empty())
        return;
    m_stopReason = "stopped at t=" + formatDuration(Nanoseconds(now)) + ": " + reason;
    m_findings.push_back({"resource_limit", task, std::max(cpu, 0), now, 0, reason});
}

void ResourceGuard::checkSlow(int64_t now, int cpu, uint64_t recordingBytes)
{
    const ResourceLimits& limits = m_limits;
    const int64_t window = now / 1'000'000;
    if (window != m_eventWindow) {
        m_eventWindow = window;
        m_eventsInWindow = 0;
    }
    const uint64_t perMs = std::max<uint64_t>(limits.eventsPerSecond / 1000, 1);
    if (++m_eventsInWindow > perMs)
        stop("", cpu,
            "more than " + std::to_string(perMs)
                + " events in one simulated millisecond (the limit is "
                + std::to_string(limits.eventsPerSecond)
                + " per simulated second; a schedule() counts as one): a program that loops "
                  "without using time, or CPUs handing work back and forth?",
            now);
    else if (recordingBytes >= limits.recordingBytes)
        stop("", cpu,
            "the recording reached " + std::to_string(recordingBytes) + " bytes (the limit is "
                + std::to_string(limits.recordingBytes)
                + "); record less (no samples) or simulate a shorter time",
            now);
    else if (m_modelBytes > limits.modelBytes)
        stop("", cpu,
            "the estimated memory of the simulation reached " + std::to_string(m_modelBytes)
                + " bytes (the model-bytes limit is " + std::to_string(limits.modelBytes)
                + "; the waits kept for the metrics grow with the run): simulate a shorter "
                  "time or fewer tasks",
            now);
}

bool ResourceGuard::canCreateTask(
    const std::string& name, int cpu, int64_t createdTasks, int64_t now)
{
    const ResourceLimits& limits = m_limits;
    const uint64_t bytes = m_modelBytes + ScenarioLimits::bytesPerTask + 2 * name.size();
    if (m_liveTasks < limits.liveTasks && createdTasks < limits.createdTasks
        && bytes <= limits.modelBytes)
        return true;
    const std::string limit = m_liveTasks >= limits.liveTasks
        ? std::to_string(limits.liveTasks) + " live tasks"
        : createdTasks >= limits.createdTasks
        ? std::to_string(limits.createdTasks) + " tasks in all (forked ones included)"
        : "the model-bytes limit of " + std::to_string(limits.modelBytes)
            + " bytes of estimated memory (tasks, cgroups, CPUs, kept waits)";
    stop(name, cpu, "creating " + printable(name) + " would make more than " + limit, now);
    return false;
}

} // namespace schedlab
