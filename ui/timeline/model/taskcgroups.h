// SPDX-License-Identifier: GPL-2.0-or-later
// The cgroup of each task over time, from the scenario that ran: its spec's cgroup, then its
// move actions in the order the simulation applies them (time, then list order). The recording
// names groups but does not say which cgroup a task's samples were taken in; the views need
// it to find the cfs_rq a waiting task is queued on.
#pragma once

#include "core/base/time.h"

#include <functional>
#include <vector>

namespace schedlab {
class Recording;
struct Scenario;
} // namespace schedlab

namespace schedlab::ui {

/// (recording, task index, time) → index of the task's cgroup in recording.groupPaths, or −1
/// when unknown (a task the scenario does not name, e.g. a forked child).
using TaskCgroups = std::function<int(const Recording&, int, Nanoseconds)>;

TaskCgroups taskCgroups(const Scenario& scenario);

/// (recording, task index) → the times the scenario moves the task to another cgroup, in order
/// (its cfs_rq changes there: the timeline breaks its lines).
using TaskMoves = std::function<std::vector<Nanoseconds>(const Recording&, int)>;

TaskMoves taskMoves(const Scenario& scenario);

/// Index of the parent cgroup of group @p group in @p recording.groupPaths (0 is the root, its
/// own parent), −1 when unknown.
int parentGroup(const Recording& recording, int group);

} // namespace schedlab::ui
