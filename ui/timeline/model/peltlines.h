// SPDX-License-Identifier: GPL-2.0-or-later
// The PELT pane's lines (issue 39): an entity's load_avg, runnable_avg and util_avg, those of the
// cfs_rq it is queued on, and that cfs_rq's h_nr_queued and h_nr_runnable, from the Pelt records
// that follow its samples (RunOptions::recordPelt; docs/kernel-model.md §6.6, §5.4).
//
// What the values do between two samples: a sample holds the averages at their last update
// (PELT is updated at enqueue, dequeue, tick and pick, not at every sample), so each value is
// what the kernel's se->avg / cfs_rq->avg holds from that sample until the next one: a step,
// held. Across left-out (decimated) samples the held line stays true to the pixel column: the
// decimation keeps every column's first, last, lowest and highest sample, so what is held inside
// a column stays within that column's extremes, and the last sample of a column and the first of
// the next are consecutive samples. The cfs_rq's lines and counts break where the entity changes
// cfs_rq (another CPU or another cgroup): they are another queue's from there on. The entity's own
// averages go with it (they are detached from one queue and attached to the next). Values are the
// recorded integers, so the rules can be tested exactly.
#pragma once

#include "ui/timeline/model/entitylines.h"

#include <vector>

namespace schedlab::ui {

struct PeltLines
{
    std::vector<LinePoint> load, runnable, util;       ///< the entity's averages
    std::vector<LinePoint> rqLoad, rqRunnable, rqUtil; ///< its cfs_rq's averages
    std::vector<LinePoint> hNrQueued, hNrRunnable;     ///< its cfs_rq's task counts
};

/// Lines of one entity from its samples in time order (those without PELT are skipped), each
/// value held to the next sample and the last one to @p until (the present, or the window's end).
PeltLines peltLines(const std::vector<EntitySample>& samples, Nanoseconds until);

} // namespace schedlab::ui
