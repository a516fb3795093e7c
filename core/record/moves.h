// SPDX-License-Identifier: GPL-2.0-or-later
// "Why is this task on this CPU?" read back from a recording: the last Migrate record of each
// task (or its Spawn record when fork balancing placed it), and a sentence for the reason and
// detail that a Migrate record carries (core/sched/migration.h, kernel-model.md §8). Used by
// the GUI's inspector and event log.
#pragma once

#include "core/sched/migration.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

class Recording;
struct Record;

struct TaskMove
{
    int64_t time = -1; ///< -1: no move or spawn recorded up to the time asked
    int from = -1;     ///< -1 for a spawn placed on the parent's CPU
    int to = -1;
    bool spawn = false;
    int64_t reason = 0; ///< MigrateReason
    int64_t detail = 0; ///< MigrateDetail::pack()
};

/// The move a Migrate or Spawn record describes.
TaskMove moveOf(const Record& record);

/// For every task of @p rec (indexed like taskNames), its last Migrate or Spawn record at or
/// before @p t.
std::vector<TaskMove> lastMoves(const Recording& rec, int64_t t);

/// One sentence: "moved from CPU 0 to CPU 2 at a wakeup: select_idle_sibling() found an idle
/// core (wake_affine() in the MC domain)". Empty for a move without a recorded reason.
std::string explainMove(const TaskMove& move);

} // namespace schedlab
