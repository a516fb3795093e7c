// SPDX-License-Identifier: GPL-2.0-or-later
#include "kernelwork.h"

#include "core/base/time.h"
#include "core/record/metrics.h"
#include "core/rt/rtclass.h"
#include "core/sched/machinecontext.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

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

KernelWork::KernelWork(MachineContext& ctx, KernelWorkServices& services, const KernelCosts& costs,
    bool walkAllTasks, bool rcuDisablesPreemption)
    : m_ctx(ctx)
    , m_s(services)
    , m_costs(costs)
    , m_walkAllTasks(walkAllTasks)
    , m_rcuDisablesPreemption(rcuDisablesPreemption)
{ }

bool KernelWork::preemptible(int cpu) const
{
    return m_ctx.rq(cpu).sections.nonPreemptUntil <= m_ctx.clock()
        && m_s.kernelSectionPreemptible(cpu);
}

void KernelWork::beginSection(
    int cpu, int64_t until, bool irqsOff, const std::string& who, const std::string& what)
{
    const int64_t now = m_ctx.clock();
    if (until <= now)
        return;
    KernelSections& rc = m_ctx.rq(cpu).sections;
    rc.nonPreemptUntil = std::max(rc.nonPreemptUntil, until);
    if (irqsOff) {
        rc.irqsOffUntil = std::max(rc.irqsOffUntil, until);
        if (until - now > kReportSectionNs)
            m_s.addFinding({"irqs_off", who, cpu, now, until - now, what});
    }
    m_ctx.cancelTimer(rc.end);
    rc.end = m_s.startSectionEnd(cpu, rc.nonPreemptUntil);
}

bool KernelWork::startFork(Task& task, const Op&)
{
    // copy_process() takes write_lock_irq(&tasklist_lock): with interrupts disabled it spins
    // until the readers are gone (queued rwlock: new readers queue behind a waiting writer).
    const int64_t now = m_ctx.clock();
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

void KernelWork::startWrite(Task& task, const Op& op)
{
    task.writeOp = &op;
    task.writeGroups = m_s.groupsMatching(op.name);
    task.writeNext = 0;
}

bool KernelWork::continueWork(Task& task)
{
    if (const Op* fork = task.pendingFork) {
        task.pendingFork = nullptr;
        if (m_s.completeFork(task, *fork))
            return true;
    }
    while (task.writeOp && task.writeNext < task.writeGroups.size()) {
        const Op& op = *task.writeOp;
        const int g = task.writeGroups[task.writeNext++];
        const RtWalkCount walk = m_s.writeCgroupFiles(g, op.files, task.name);
        // The walk costs rt_walk_group per group and rt_walk_task per thread visited (§10.3).
        const int64_t walkNs =
            walk.groups * m_costs.rtWalkGroupNs + walk.tasks * m_costs.rtWalkTaskNs;
        const int64_t now = m_ctx.clock();
        int64_t sectionEnd = now;
        if (walkNs > 0) {
            if (m_walkAllTasks) {
                // read_lock(&tasklist_lock) around the whole walk: preemption off, interrupts
                // on; a writer holding the lock (fork) is waited for first.
                sectionEnd = std::max(now, m_tasklistWriteUntil) + walkNs;
                m_tasklistReadUntil = std::max(m_tasklistReadUntil, sectionEnd);
                beginSection(task.cpu, sectionEnd, false, task.name, "");
            } else {
                // No tasklist_lock; the walk runs under rcu_read_lock(), which disables
                // preemption only in kernels without preemptible RCU (PREEMPT_NONE/VOLUNTARY).
                sectionEnd = now + walkNs;
                if (m_rcuDisablesPreemption)
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

void KernelWork::timerHeldOff(const std::string& task, int cpu, int64_t due, int64_t late)
{
    if (late > kReportSectionNs)
        m_s.addFinding({"irq_latency", task, cpu, due, late,
            "timer interrupt held off " + formatNs(late) + ": interrupts disabled on CPU "
                + std::to_string(cpu)});
}

} // namespace schedlab
