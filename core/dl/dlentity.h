// SPDX-License-Identifier: GPL-2.0-or-later
// struct sched_dl_entity of a task (kernel/sched/sched.h), kernel-model.md §15: its reservation,
// its CBS state, its timers, and the job statistics of the model's findings and metrics (§15.8).
#pragma once

#include "core/base/eventid.h"
#include "core/dl/dlparams.h"

#include <cstdint>

namespace schedlab {

struct DlEntity
{
    DlParams params;            ///< dl_runtime, dl_deadline, dl_period, flags
    uint64_t bw = 0;            ///< dl_bw = to_ratio(P, Q)
    uint64_t density = 0;       ///< dl_density = to_ratio(D, Q)
    bool admitted = false;      ///< counted in the root domain's total_bw
    int64_t runtime = 0;        ///< budget left (may be negative after an overrun)
    int64_t deadline = 0;       ///< absolute scheduling deadline
    bool onRq = false;          ///< task_on_rq_queued() while in the class (throttled included)
    bool inTree = false;        ///< on_dl_rq(): in its CPU's EDF tree
    bool throttled = false;     ///< dl_throttled: waits for its replenishment timer
    bool yielded = false;       ///< dl_yielded
    bool nonContending = false; ///< dl_non_contending: blocked, in running_bw until 0-lag
    bool active = false;        ///< its bandwidth is in its CPU's running_bw
    bool inThisBw = false;      ///< its bandwidth is in its CPU's this_bw
    uint64_t treeSeq = 0;       ///< tie order in the tree (equal deadlines: enqueue order)
    int64_t execStart = 0;      ///< start of the execution not yet charged
    EventId timer;              ///< dl_timer (replenishment)
    EventId inactiveTimer;      ///< inactive_timer (0-lag)

    // Jobs (kernel-model.md §15.8): a job runs from a wakeup to the next block.
    int64_t jobStart = -1; ///< -1: no job running
    int64_t jobs = 0;
    int64_t misses = 0;
    int64_t throttles = 0;
    int64_t worstResponse = 0;
};

} // namespace schedlab
