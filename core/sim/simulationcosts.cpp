// SPDX-License-Identifier: GPL-2.0-or-later
// The cost model of kernel work done by task actions (cgroup file writes, fork under
// tasklist_lock) with its non-preemptible and interrupts-off sections, and timer interrupts held
// off by such sections. The cost constants are in core/kernel/costs.h.
#include "core/scenario/jsonvalues.h"
#include "simulationimpl.h"

#include <algorithm>

namespace schedlab {

namespace {

/// Kernel sections and delayed interrupts shorter than this are not reported as findings.
constexpr int64_t kReportSectionNs = 1'000'000;

std::string formatNs(int64_t ns)
{
    return formatDurationHuman(Nanoseconds(ns));
}

} // namespace

// --- the cost model: kernel work done by actions ----------------------------------------------

bool SimulationImpl::preemptible(int cpu) const
{
    return m_rqs[static_cast<size_t>(cpu)]->sections.nonPreemptUntil <= clock()
        && kernelSectionPreemptible(cpu);
}

void SimulationImpl::beginSection(
    int cpu, int64_t until, bool irqsOff, const std::string& who, const std::string& what)
{
    const int64_t now = clock();
    if (until <= now)
        return;
    KernelSections& rc = m_rqs[static_cast<size_t>(cpu)]->sections;
    rc.nonPreemptUntil = std::max(rc.nonPreemptUntil, until);
    if (irqsOff) {
        rc.irqsOffUntil = std::max(rc.irqsOffUntil, until);
        if (until - now > kReportSectionNs)
            m_rtFindings.push_back({"irqs_off", who, cpu, now, until - now, what});
    }
    m_events.cancel(rc.end);
    rc.end = m_events.schedule(Nanoseconds(rc.nonPreemptUntil), [this, cpu] {
        m_eventCpu = cpu;
        m_rqs[static_cast<size_t>(cpu)]->sections.end = {};
        // need_resched set during the section is honoured now (preempt_enable()).
        if (m_rqs[static_cast<size_t>(cpu)]->needResched)
            m_reschedPending.push_back(cpu);
    });
}

bool SimulationImpl::startFork(Task& task, const Op&)
{
    // copy_process() takes write_lock_irq(&tasklist_lock): with interrupts disabled it spins
    // until the readers are gone (queued rwlock: new readers queue behind a waiting writer).
    const int64_t now = clock();
    const int64_t locked = std::max(now, m_tasklistReadUntil);
    const int64_t end = locked + m_costs.forkNs;
    if (end <= now)
        return false; // an instantaneous fork, as without the cost model
    m_tasklistWriteUntil = std::max(m_tasklistWriteUntil, end);
    task.workLeft = end - now;
    beginSection(task.cpu, end, true, task.name,
        locked > now ? "fork: write_lock_irq(tasklist_lock) spun " + formatNs(locked - now)
                + " behind a reader, interrupts off"
                     : "fork: tasklist_lock held for writing, interrupts off");
    return true;
}

void SimulationImpl::startWrite(Task& task, const Op& op)
{
    task.writeOp = &op;
    task.writeGroups.clear();
    task.writeNext = 0;
    if (op.name.find('*') == std::string::npos) {
        const int g = groupByPath(op.name);
        if (g >= 0)
            task.writeGroups.push_back(g);
        return;
    }
    for (const TaskGroup& g : m_groups) // like the shell, one write per matching cgroup
        if (cgroupMatches(op.name, g.path))
            task.writeGroups.push_back(g.index);
}

bool SimulationImpl::continueKernelWork(Task& task)
{
    if (const Op* fork = task.pendingFork) {
        task.pendingFork = nullptr;
        if (completeFork(task, *fork))
            return true;
    }
    while (task.writeOp && task.writeNext < task.writeGroups.size()) {
        const Op& op = *task.writeOp;
        const int g = task.writeGroups[task.writeNext++];
        CgroupFiles other = op.files;
        other.rtRuntimeUs.reset();
        other.rtPeriodUs.reset();
        applyCgroupFiles(g, other);
        const RtWalkCount walk = applyRtFiles(g, op.files, task.name);
        // The walk costs rt_walk_group per group and rt_walk_task per thread visited (§10.3).
        const int64_t walkNs =
            walk.groups * m_costs.rtWalkGroupNs + walk.tasks * m_costs.rtWalkTaskNs;
        const int64_t now = clock();
        int64_t sectionEnd = now;
        if (walkNs > 0) {
            if (m_choices.rtConstraintCheck == RtConstraintCheck::WalkAllTasks) {
                // read_lock(&tasklist_lock) around the whole walk: preemption off, interrupts
                // on; a writer holding the lock (fork) is waited for first.
                sectionEnd = std::max(now, m_tasklistWriteUntil) + walkNs;
                m_tasklistReadUntil = std::max(m_tasklistReadUntil, sectionEnd);
                beginSection(task.cpu, sectionEnd, false, task.name, "");
            } else {
                // No tasklist_lock; the walk runs under rcu_read_lock(), which disables
                // preemption only in kernels without preemptible RCU (PREEMPT_NONE/VOLUNTARY).
                sectionEnd = now + walkNs;
                if (m_preempt == Preempt::None || m_preempt == Preempt::Voluntary)
                    beginSection(task.cpu, sectionEnd, false, task.name, "");
            }
        }
        const int64_t cost = (sectionEnd - now) + m_costs.cgroupWriteNs;
        if (cost > 0) {
            task.workLeft = cost;
            return true;
        }
    }
    task.writeOp = nullptr;
    task.writeGroups.clear();
    task.writeNext = 0;
    return false;
}

void SimulationImpl::timerWakeUp(int taskIndex, int64_t due)
{
    Task& t = *m_tasks[static_cast<size_t>(taskIndex)];
    const int cpu = t.sleepCpu;
    m_eventCpu = cpu;
    const int64_t irqsOn = m_rqs[static_cast<size_t>(cpu)]->sections.irqsOffUntil;
    if (irqsOn > clock()) {
        // The hrtimer interrupt cannot be taken while the CPU has interrupts disabled.
        t.timer = m_events.schedule(
            Nanoseconds(irqsOn), [this, taskIndex, due] { timerWakeUp(taskIndex, due); });
        return;
    }
    const int64_t late = clock() - due;
    if (late > 0 && t.waitStart < 0 && t.state == TaskRunState::Sleeping) {
        // The wake-up latency counts from the timer's expiry.
        t.waitStart = due;
        t.waitCpu = cpu;
        if (late > kReportSectionNs)
            m_rtFindings.push_back({"irq_latency", t.name, cpu, due, late,
                "timer interrupt held off " + formatNs(late) + ": interrupts disabled on CPU "
                    + std::to_string(cpu)});
    }
    tryToWakeUp(t);
}

} // namespace schedlab
