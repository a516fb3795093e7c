// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel-work cost model: CPU time that actions performed by tasks (cgroup file writes, fork)
// cost in the kernel, on the acting task's CPU. These are model constants, not kernel constants:
// the defaults are order-of-magnitude figures for a current x86 server (documented in
// docs/scenarios/rt-group-constraints.md) and every one can be set in a scenario under
// "kernel": { "costs": { NAME: DURATION } }. Only the counts the constants multiply come from the
// model's state (groups and threads visited, kernel-model.md §10.2–§10.3).
#pragma once

#include "core/base/eventid.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

/// Kernel sections of the cost model on one CPU: the CPU cannot reschedule (preempt off) and,
/// for irqs-off sections, cannot take interrupts (ticks, timer wake-ups) until these times.
struct KernelSections
{
    int64_t nonPreemptUntil = 0;
    int64_t irqsOffUntil = 0;
    EventId end; ///< end of the current section
};

struct KernelCosts
{
    /// cgroup_write: one write(2) to a cgroup file, outside any lock (syscall, kernfs, parsing).
    int64_t cgroupWriteNs = 2000;
    /// rt_walk_group: one group visited by walk_tg_tree() in __rt_schedulable() (tg_rt_schedulable
    /// without tg_has_rt_tasks: ratio arithmetic, the children sum).
    int64_t rtWalkGroupNs = 20;
    /// rt_walk_task: one thread visited by tg_has_rt_tasks() (for_each_process_thread or the
    /// cgroup task iterator): a dependent pointer chase, usually a cache miss.
    int64_t rtWalkTaskNs = 10;
    /// fork: the part of copy_process() done with tasklist_lock held for writing, irqs off.
    /// 0 (the default) keeps forks instantaneous, as in scenarios written before the cost model.
    int64_t forkNs = 0;
    /// newidle_balance: what sched_clock measures over one domain's new-idle balance
    /// (sched_balance_rq(CPU_NEWLY_IDLE), the first domain's with the blocked-load update before
    /// it). It feeds the kernel's cost gate (max_newidle_lb_cost, max_idle_balance_cost,
    /// kernel-model.md §8.3) and takes no simulated time. 0 (the default): the gate always passes.
    int64_t newidleBalanceNs = 0;
};

/// Cost names as used in scenario files, in a stable order.
const std::vector<std::string_view>& costNames();
/// Sets one cost; false for an unknown name.
bool applyCost(KernelCosts& costs, std::string_view name, int64_t ns);
/// "cgroup_write, rt_walk_group, …" for messages.
std::string costNameList();

} // namespace schedlab
