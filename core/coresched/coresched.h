// SPDX-License-Identifier: GPL-2.0-or-later
// Core scheduling state (CONFIG_SCHED_CORE, kernel-model.md §11): the per-core part of
// `rq->core` and the per-CPU core_tree / core_pick. The mechanism is in machinecore.cpp.
#pragma once

#include <cstdint>
#include <vector>

namespace schedlab {

struct SchedEntity;

/// Cookies created by a program's `{ "cookie": "create" }` (PR_SCHED_CORE_CREATE) are allocated
/// from here upwards, so they never equal the small integers written in scenario files.
inline constexpr uint64_t kFirstCreatedCookie = uint64_t{1} << 62;

/// The shared part of the SMT siblings' run queues (fields of `rq->core` in the kernel).
struct CoreState
{
    uint64_t cookie = 0;         ///< core_cookie: cookie of the last core-wide selection
    uint64_t taskSeq = 0;        ///< core_task_seq: bumped by every enqueue/dequeue and pick
    uint64_t pickSeq = 0;        ///< core_pick_seq: taskSeq at the last core-wide selection
    int forceIdleCount = 0;      ///< core_forceidle_count: siblings forced idle
    uint64_t forceIdleSeq = 0;   ///< core_forceidle_seq: bumped on a !FI → FI transition
    int forceIdleOccupation = 0; ///< core_forceidle_occupation: busy siblings while in FI
};

/// Per-CPU core-scheduling state.
struct CoreRqState
{
    /// core_tree: the CPU's runnable (not delayed) tasks with a cookie, ordered at insertion by
    /// (cookie, priority highest first) — an rbtree in the kernel, never re-sorted afterwards.
    std::vector<SchedEntity*> tree;
    bool pickValid = false;       ///< core_pick != NULL
    SchedEntity* pick = nullptr;  ///< core_pick; null with pickValid = the idle task
    uint64_t schedSeq = 0;        ///< core_sched_seq: the pick sequence this CPU consumed
    int idleOccupation = 0;       ///< rq->idle->core_occupation
    int64_t forcedIdleSince = -1; ///< start of the current forced-idle stretch, -1 none
    int64_t forcedIdleNs = 0;     ///< completed forced-idle time
};

} // namespace schedlab
