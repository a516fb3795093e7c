// SPDX-License-Identifier: GPL-2.0-or-later
// struct sched_entity: a task or a group entity queued on a cfs_rq (kernel-model.md §3.1).
// Units: vruntime/deadline/vlag/vprot are virtual nanoseconds (u64 wrap-safe, compared as
// (s64)(a-b)); slice, exec times are real nanoseconds. Weights are scaled (NICE_0_LOAD = 2^20).
#pragma once

#include "core/base/ids.h"
#include "core/fair/pelt.h"
#include "core/fair/weights.h"

#include <boost/intrusive/list_hook.hpp>

#include <cstdint>

namespace schedlab {

class CfsRq;
struct SchedEntity;

/// The links of one entity in one of its cfs_rq's trees (core/fair/eevdftree.h). A copied entity
/// is in no tree: copying or assigning leaves the links of the destination alone.
struct TreeLinks
{
    SchedEntity* left = nullptr;
    SchedEntity* right = nullptr;
    SchedEntity* parent = nullptr;
    uint32_t priority = 0; ///< the treap's heap key, drawn at insertion
    bool linked = false;

    TreeLinks() = default;
    TreeLinks(const TreeLinks&) noexcept { }
    TreeLinks& operator=(const TreeLinks&) noexcept { return *this; }
    ~TreeLinks() = default;
    void reset() noexcept
    {
        left = right = parent = nullptr;
        priority = 0;
        linked = false;
    }
};

struct SchedEntity
{
    // Laid out for the cache (measured with bench_speed --big, docs/limits.md "Speed"): what a
    // deadline-tree walk, the pick and update_curr() read comes first, so that a tree descent
    // touches one 64-byte line per entity; the weights and what the switch, the balancer and
    // PELT read follow (four lines in all); what only some profiles read (the vruntime tree,
    // the flat run queue's weight) comes last.

    /// Links in CfsRq's deadline tree (queued, not running, entities of one cfs_rq).
    TreeLinks treeLinks;
    uint64_t vruntime = 0;
    uint64_t deadline = 0; ///< absolute, or relative to vruntime while relDeadline
    /// Deadline tree: the smallest vruntime in this entity's subtree (the kernel's 6.8+
    /// se->min_vruntime), so the pick skips a subtree without an eligible entity (§3.5).
    uint64_t subtreeMinVruntime = 0;
    bool customSlice = false;
    bool onRq = false;
    bool schedDelayed = false;
    bool relDeadline = false;
    LoadWeight load;
    CfsRq* cfsRq = nullptr; ///< the cfs_rq this entity is (or would be) queued on

    int64_t vlag = 0;      ///< saved virtual lag V - v (6.6–6.16: doubles as protection marker)
    uint64_t vprot = 0;    ///< end of slice protection (6.17+)
    int64_t slice = 0;     ///< request size r_i, real ns
    int64_t execStart = 0; ///< clock_task when it last started running / was charged
    int64_t sumExecRuntime = 0;
    int64_t prevSumExecRuntime = 0;
    SchedEntity* parent = nullptr; ///< group entity of the enclosing group (same CPU), or null
    CfsRq* myQ = nullptr;          ///< group entities: the group's own cfs_rq on this CPU

    int depth = 0;             ///< number of group levels above
    TaskId task;               ///< task entities
    bool idlePolicy = false;   ///< SCHED_IDLE task, or cpu.idle group entity
    bool batchPolicy = false;  ///< SCHED_BATCH task (never wakeup-preempts)
    bool peltAttached = false; ///< avg is attached to cfsRq's sums (last_update_time != 0)

    /// se.group_node: task entities on their CPU's rq->cfs_tasks (most recently picked first),
    /// from enqueue to the final dequeue; walked from the tail by the load balancer (§8.3).
    boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>
        groupNode;

    PeltAvg avg; ///< load/runnable/util averages (§6.6)
    /// Order of insertion into the cfs_rq's trees (a counter of the cfs_rq): rebuilds the
    /// vruntime tree, kept only for the profiles that read it, with equal keys in insertion order.
    uint64_t treeSeq = 0; // written at every insertion

    // Read only by some profiles: the vruntime tree (kept for 6.6–6.7 or once a query reads it)
    // and the flat run queue's weight (7.3).

    /// Links in CfsRq's vruntime tree (the same entities ordered by vruntime), while it is kept.
    TreeLinks vtreeLinks;
    /// Vruntime tree: the entity of this subtree with the earliest deadline, the first in vruntime
    /// order among equals (6.6's se->min_deadline, kept as the entity to keep the tie-break).
    SchedEntity* subtreeMinDeadline = nullptr;
    /// Flat run queue (choice flat, 7.3): the task's effective weight in rq->cfs, the product of
    /// the weight fractions of its hierarchy (kernel-model.md §6.1); unused otherwise.
    LoadWeight hLoad;

    bool isTask() const { return myQ == nullptr; }
};

/// (s64)(a - b): wrap-safe difference of two virtual times.
constexpr int64_t vdiff(uint64_t a, uint64_t b)
{
    return static_cast<int64_t>(a - b);
}

} // namespace schedlab
