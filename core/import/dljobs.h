// SPDX-License-Identifier: GPL-2.0-or-later
// The jobs of a real SCHED_DEADLINE task, derived from its trace (docs/real-kernels.md,
// "Deadline tasks"): the trace shows when the task ran, blocked and woke; schedlab-run marks the
// end of each job that ends in sched_yield(). When a job was released the trace does not show (a
// replenishment has no tracepoint), so the constant bandwidth server is followed along the
// trace with the task's reservation, as kernel-model.md §15.4–§15.5 describe it: a yield
// releases the next job at the next period (dl_next_period()), a wakeup after the deadline or
// with too much runtime left (dl_entity_overflow()) starts a new deadline, a run that used the
// budget up is replenished by periods. Response times are then job end − job release, as the
// model measures them (§15.8).
#pragma once

#include "core/dl/dlparams.h"
#include "core/import/ftrace.h"
#include "core/record/metrics.h"

#include <cstdint>
#include <vector>

namespace schedlab {

/// The jobs of one task with reservation @p params: @p activity is that task's events in time
/// order (On, Off, Woken; others are ignored), @p yields the times of its yield markers (sorted).
/// The first job is released at the task's first event. Jobs whose end the trace does not show
/// are not counted.
DlTaskMetrics deriveDlJobs(const DlParams& params, const std::vector<TraceActivity>& activity,
    const std::vector<int64_t>& yields);

} // namespace schedlab
