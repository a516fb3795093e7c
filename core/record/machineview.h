// SPDX-License-Identifier: GPL-2.0-or-later
// The read-only view of the machine that metrics (core/record/metricsbuilder.h) and the
// invariant checker (core/record/invariants.h) are computed from: its clock, run queues, tasks
// and task groups. The machine (core/sim) implements it; a test may implement it with a
// hand-built state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct Rq;
struct Task;
struct TaskGroup;

class MachineView
{
public:
    virtual ~MachineView() = default;
    virtual int64_t clock() const = 0;
    virtual int cpuCount() const = 0;
    virtual const Rq& cpuRq(int cpu) const = 0;
    virtual int taskCount() const = 0; ///< tasks ever created, in fork order
    virtual const Task& taskView(int index) const = 0;
    virtual const std::vector<TaskGroup>& taskGroups() const = 0;
    /// Every group's CPU time, hierarchical (a group's includes its descendants'), indexed by
    /// group: one pass over the groups, so a caller that needs several asks once.
    virtual std::vector<int64_t> groupCpuTimes() const = 0;
    virtual uint64_t eventsExecuted() const = 0;
    /// The core scheduler's own consistency check: "" or what is wrong.
    virtual std::string coreSchedInvariants() const = 0;
};

} // namespace schedlab
