// SPDX-License-Identifier: GPL-2.0-or-later
// The read-only view of the machine that metrics (core/record/metricsbuilder.h) and the
// invariant checker (core/record/invariants.h) are computed from: the machine context's clock,
// run queues, tasks and task groups (read through a const reference), plus the figures only the
// recording needs. The machine (core/sim) implements it; a test may implement it with a
// hand-built state (tests/support/fakemachine.h).
#pragma once

#include "core/sched/machinecontext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

struct ExitedTaskSummary;
struct FoldedForks;

class MachineView : public MachineContext
{
public:
    /// Every group's CPU time, hierarchical (a group's includes its descendants'), indexed by
    /// group: one pass over the groups, so a caller that needs several asks once.
    virtual std::vector<int64_t> groupCpuTimes() const = 0;
    virtual uint64_t eventsExecuted() const = 0;
    /// The core scheduler's own consistency check: "" or what is wrong.
    virtual std::string coreSchedInvariants() const = 0;
    /// The tasks released at their exit (Simulation::releaseExitedTasks), in index order: their
    /// metrics rows. A released task's index has no task any more (findTask() is null).
    virtual std::vector<const ExitedTaskSummary*> releasedTasks() const { return {}; }
    /// The folds of released forked tasks (Simulation::releaseExitedTasks(true)), ordered by
    /// their lastIndex.
    virtual std::vector<const FoldedForks*> foldedForks() const { return {}; }
};

} // namespace schedlab
