// SPDX-License-Identifier: GPL-2.0-or-later
// The scheduler invariants of kernel-model.md §13 (checked builds): per cfs_rq h_nr_queued,
// h_nr_runnable and h_nr_idle match the queued tasks, nr_running per CPU, Σ ŵ·(V − v) within
// rounding of 0, the running task out of the tree, each cfs_rq's own checks, the core scheduler's.
#pragma once

#include <string>
#include <vector>

namespace schedlab {

class MachineView;

/// Checks @p machine and appends what is broken to @p violations ("t=NS what"), at most 50.
/// On a large machine a sweep runs every k-th event (k growing with the size) and checks the
/// group cfs_rq's on the paths of queued tasks, all of them every 1024th event.
void checkInvariants(const MachineView& machine, std::vector<std::string>& violations);

} // namespace schedlab
