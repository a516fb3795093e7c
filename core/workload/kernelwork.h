// SPDX-License-Identifier: GPL-2.0-or-later
// The cost model of kernel work done by task actions (cgroup file writes, fork under
// tasklist_lock) with its non-preemptible and interrupts-off sections (cost constants:
// core/kernel/costs.h, documented in docs/scenarios/rt-group-constraints.md). The machine's side
// is reached through MachineContext (its clock, the per-CPU sections in struct Rq) and
// KernelWorkServices (the event that ends a section, the fork and the cgroup writes
// themselves), so the unit can be tested with a fake machine.
#pragma once

#include "core/base/eventid.h"
#include "core/kernel/costs.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct CgroupFiles;
struct Finding;
struct Op;
struct RtWalkCount;
struct Task;

/// What the kernel-work cost model asks of the machine beyond MachineContext (a fake in
/// tests/core/tst_kernelwork.cpp).
class KernelWorkServices
{
public:
    virtual ~KernelWorkServices() = default;
    /// Arms the event ending @p cpu's current section (rq->sections) at @p at; at its end the
    /// machine clears KernelSections::end and honours a need_resched set meanwhile
    /// (preempt_enable()).
    virtual EventId startSectionEnd(int cpu, int64_t at) = 0;
    /// Under preempt none/voluntary a task inside a kernel section of its program is not
    /// preempted (the workload's "kernel" op, not the cost model's sections).
    virtual bool kernelSectionPreemptible(int cpu) const = 0;
    virtual void addFinding(const Finding& finding) = 0;
    /// The groups a write to @p pattern reaches: the group of that path, or with a '*' one per
    /// matching cgroup (like the shell), in the machine's group order.
    virtual std::vector<int> groupsMatching(const std::string& pattern) const = 0;
    /// Writes @p files to @p group on behalf of task @p by; returns the RT admission walk
    /// (tg_set_rt_bandwidth(), §10.2–§10.3) that the cpu.rt_* files caused.
    virtual RtWalkCount writeCgroupFiles(
        int group, const CgroupFiles& files, const std::string& by) = 0;
    /// The fork itself (copy_process() done): creates the child; true if @p task stops here.
    virtual bool completeFork(Task& task, const Op& op) = 0;
};

class MachineContext;

class KernelWork
{
public:
    /// @p walkAllTasks: the profile's rt_constraint_check walks every task under
    /// tasklist_lock (before b4fb015eeff7); @p rcuDisablesPreemption: PREEMPT_NONE/VOLUNTARY,
    /// where rcu_read_lock() disables preemption.
    KernelWork(MachineContext& ctx, KernelWorkServices& services, const KernelCosts& costs,
        bool walkAllTasks, bool rcuDisablesPreemption);

    const KernelCosts& costs() const { return m_costs; }

    /// Neither a cost-model section nor a kernel section (preempt none/voluntary) blocks
    /// preemption on @p cpu.
    bool preemptible(int cpu) const;
    /// Starts a non-preemptible (and with @p irqsOff, interrupts-off) section on @p cpu until
    /// @p until; long irqs-off sections are reported as findings by @p who with @p what.
    void beginSection(
        int cpu, int64_t until, bool irqsOff, const std::string& who, const std::string& what);
    /// The tasklist_lock part of copy_process() for @p task: true if it takes time (the child
    /// appears when it is done, continueWork()), false for an instantaneous fork.
    bool startFork(Task& task, const Op& op);
    /// copy_process() done: the machine creates the child; true if @p task stops here (it
    /// waits for the child).
    bool completeFork(Task& task, const Op& op) { return m_s.completeFork(task, op); }
    /// Starts the cgroup writes of @p op (one per matching group) for @p task.
    void startWrite(Task& task, const Op& op);
    /// Continues @p task's kernel work (a pending fork, the remaining writes): true while it
    /// has work left (Task::workLeft set), false when done.
    bool continueWork(Task& task);
    /// A timer interrupt for @p task due at @p due on @p cpu was held off for @p late ns.
    void timerHeldOff(const std::string& task, int cpu, int64_t due, int64_t late);

private:
    MachineContext& m_ctx;
    KernelWorkServices& m_s;
    KernelCosts m_costs;
    bool m_walkAllTasks = false;
    bool m_rcuDisablesPreemption = false;
    int64_t m_tasklistReadUntil = 0;  ///< tasklist_lock read-held (constraint walk) until
    int64_t m_tasklistWriteUntil = 0; ///< tasklist_lock write-held (fork) until
};

} // namespace schedlab
