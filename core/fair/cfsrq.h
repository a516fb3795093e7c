// SPDX-License-Identifier: GPL-2.0-or-later
// One cfs_rq: the queued entities of one task group on one CPU (kernel-model.md §3).
//
// Storage. Queued entities other than `curr` live in intrusive augmented trees
// (core/fair/eevdftree.h), each keeping equal keys in insertion order (a new entity goes right of
// its equals):
//   - the deadline tree, ordered by deadline (the 6.8+ key); every node caches the smallest
//     vruntime of its subtree (the kernel's min_vruntime);
//   - the vruntime tree, ordered by vruntime (the 6.6–6.7 key); every node caches the entity of
//     its subtree with the earliest deadline (6.6's min_deadline).
// The profile's tree_key decides which order the pick walks (§3.4, §3.5). The tree of the
// profile's key is always kept; the other one only since something read it (the deadline tree:
// leftmostDeadline(), forEachTree(), the 6.8+ pick, an invariant check; the vruntime tree:
// leftmostVruntime(), the 6.6 pick, a pick explanation): it is then built from the kept tree in
// the entities' insertion order (SchedEntity::treeSeq), which gives the in-order sequence the
// incremental inserts would have given, and kept from then on. Without the vruntime tree,
// min_vruntime is the deadline tree's root value (as the kernel's 6.8+ update_min_vruntime()
// reads it). A tree keeps its cached values from the first reader on (EevdfTree::augment()). Slices
// of tree entities are kept as a sorted (slice, count) vector (cfs_rq_min_slice / max_slice, §3.4).
//
// Sums (§3.2): sumWVruntime = Σ (v_i − v0)·ŵ_i and sumWeight = Σ ŵ_i over tree entities only
// (ŵ = scale_load_down(w) or the full w, per weight_precision). 128-bit so that full weights
// cannot overflow. curr is added explicitly by avgVruntime() and vruntimeEligible().
//
// Tie-breaks: equal keys keep insertion order (a new entity goes right of its equals), so the
// first eligible entity in deadline order is the kernel's pick among equal deadlines; 6.6's walk
// keeps the first minimum met in vruntime order. Between curr and a tree entity with the same
// deadline, 6.6 keeps curr and 6.8+ takes the tree entity (FairClass::pickEevdf).
//
// Complexity (n tree entities): insert/erase O(log n) expected; V O(1); eligibility O(1); the
// pick O(log n) at every profile (§3.5 "Complexity"): eligibility is monotone in vruntime, so a
// subtree holds an eligible entity iff its smallest vruntime is eligible. Only when ≤7.0's 64-bit
// eligibility product could wrap for some tree entity (keys × weights beyond 2^63), which makes
// eligibility no longer monotone, does the pick fall back to the O(n) walk in tree order.
//
// Invariants (checkInvariants()):
//   1. curr is never in a tree; every tree entity has onRq set and cfsRq == this.
//   With a flat run queue (7.3, §6.1) the tree of rq->cfs holds the tasks of every level (their
//   cfsRq is their group's queue), weighted by h_load, and curr means taskCurr; the group queues'
//   trees stay empty; loadWeight/nrQueued remain the per-level accounting (checks 3 and 5 of the
//   list above become: tree entities are tasks, h_nr_queued = tree + taskCurr).
//   2. sumWeight/sumWVruntime equal the sums recomputed from the tree.
//   3. loadWeight = Σ w over queued entities including curr (if onRq) and delayed ones.
//   4. If any entity is queued, at least one queued entity is eligible (V is a weighted mean).
#pragma once

#include "core/fair/eevdftree.h"
#include "core/fair/schedentity.h"
#include "core/kernel/profile.h"

#include <string>
#include <utility>
#include <vector>

namespace schedlab {

class alignas(64) CfsRq
{
public:
    /// The deadline tree: ordered by deadline, caching the subtree's smallest vruntime.
    struct DeadlineOps
    {
        static TreeLinks& links(SchedEntity& se) { return se.treeLinks; }
        static bool less(const SchedEntity& a, const SchedEntity& b)
        {
            return vdiff(a.deadline, b.deadline) < 0;
        }
        static uint64_t compute(const SchedEntity& se)
        {
            uint64_t m = se.vruntime;
            if (const SchedEntity* l = se.treeLinks.left; l && vdiff(l->subtreeMinVruntime, m) < 0)
                m = l->subtreeMinVruntime;
            if (const SchedEntity* r = se.treeLinks.right; r && vdiff(r->subtreeMinVruntime, m) < 0)
                m = r->subtreeMinVruntime;
            return m;
        }
        static bool update(SchedEntity& se)
        {
            const uint64_t m = compute(se);
            const bool changed = m != se.subtreeMinVruntime;
            se.subtreeMinVruntime = m;
            return changed;
        }
        static bool verify(const SchedEntity& se) { return compute(se) == se.subtreeMinVruntime; }
    };
    /// The vruntime tree: ordered by vruntime, caching the subtree's earliest-deadline entity
    /// (the first in vruntime order among equal deadlines).
    struct VruntimeOps
    {
        static TreeLinks& links(SchedEntity& se) { return se.vtreeLinks; }
        static bool less(const SchedEntity& a, const SchedEntity& b)
        {
            return vdiff(a.vruntime, b.vruntime) < 0;
        }
        static SchedEntity* compute(SchedEntity& se)
        {
            SchedEntity* l = se.vtreeLinks.left;
            SchedEntity* best = l ? l->subtreeMinDeadline : &se;
            if (l && vdiff(se.deadline, best->deadline) < 0)
                best = &se;
            if (SchedEntity* r = se.vtreeLinks.right;
                r && vdiff(r->subtreeMinDeadline->deadline, best->deadline) < 0)
                best = r->subtreeMinDeadline;
            return best;
        }
        static bool update(SchedEntity& se)
        {
            SchedEntity* best = compute(se);
            const bool changed = best != se.subtreeMinDeadline;
            se.subtreeMinDeadline = best;
            return changed;
        }
        static bool verify(const SchedEntity& se)
        {
            return compute(const_cast<SchedEntity&>(se)) == se.subtreeMinDeadline;
        }
    };
    using Tree = EevdfTree<DeadlineOps>;
    using VTree = EevdfTree<VruntimeOps>;

    explicit CfsRq(const ProfileChoices& choices);
    ~CfsRq();
    CfsRq(const CfsRq&) = delete;
    CfsRq& operator=(const CfsRq&) = delete;

    // --- tree and sums (__enqueue_entity / __dequeue_entity) ---------------------------------
    void enqueueTree(SchedEntity& se);
    void dequeueTree(SchedEntity& se);
    /// enqueueTree() and dequeueTree() inline, for put_prev_entity() and set_next_entity() (the
    /// tree insert and erase of every switch); the other callers take the out-of-line copies.
    [[gnu::always_inline]] void enqueueTreeInline(SchedEntity& se)
    {
        const uint64_t w = avgWeight(se);
        sumWVruntime += weightedKey(key(se), w);
        sumWeight += w;
        const uint32_t priority = nextPriority(m_prioritySeed);
        se.treeSeq = m_treeSeq++;
        if (treeSize() == 0 || vdiff(se.vruntime, m_vruntimeMark) > 0)
            m_vruntimeMark = se.vruntime;
        if (m_dtreeKept)
            m_tree.insert(se, priority);
        if (m_vtreeKept)
            m_vtree.insert(se, priority);
        sliceInsert(se.slice);
        if (m_choices.v0 == V0Mode::ZeroVruntimeEnqueue)
            syncZeroVruntime();
    }
    [[gnu::always_inline]] void dequeueTreeInline(SchedEntity& se)
    {
        if (m_dtreeKept)
            m_tree.erase(se);
        if (m_vtreeKept)
            m_vtree.erase(se);
        sliceErase(se.slice);
        const uint64_t w = avgWeight(se);
        sumWVruntime -= weightedKey(key(se), w);
        sumWeight -= w;
        if (m_choices.v0 == V0Mode::ZeroVruntimeEnqueue)
            syncZeroVruntime();
    }
    bool inTree(const SchedEntity& se) const
    {
        return m_dtreeKept ? se.treeLinks.linked : se.vtreeLinks.linked;
    }
    size_t treeSize() const { return m_dtreeKept ? m_tree.size() : m_vtree.size(); }

    /// Weight an entity contributes to V: ŵ or full w (weight_precision, §3.2); with a flat run
    /// queue the task's h_load (§6.1).
    uint64_t avgWeight(const SchedEntity& se) const
    {
        // 7.3 flat run queue: the task's hierarchical weight h_load (kernel-model.md §6.1).
        const uint64_t w = m_choices.flat ? se.hLoad.weight : se.load.weight;
        return m_choices.weightPrecision == WeightPrecision::Full ? w : scaleLoadDown(w);
    }
    /// The entity V, eligibility and the pick treat as curr: `curr` when every level is an EEVDF
    /// queue; with a flat run queue (7.3, §6.1) the running task (`taskCurr`, rq->cfs only) while
    /// `curr` is the hierarchical h_curr of the level.
    SchedEntity* eevdfCurr() const { return m_choices.flat ? taskCurr : curr; }
    /// Entities competing in this queue's EEVDF: nr_queued, or (flat) h_nr_queued of rq->cfs.
    int eevdfQueued() const { return m_choices.flat ? hNrQueued : nrQueued; }
    /// The profile's run-queue layout: one flat EEVDF queue per CPU (7.3) or one per level.
    bool flat() const { return m_choices.flat; }
    /// The behaviour choices in force (the simulation's, read live).
    const ProfileChoices& choices() const { return m_choices; }
    int64_t key(const SchedEntity& se) const { return vdiff(se.vruntime, v0); }

    /// avg_vruntime(): V. With v0 = zero_vruntime_avg it also moves v0 to V (§3.2 step 4).
    uint64_t avgVruntime()
    {
        const uint64_t v = peekAvgVruntime();
        if (m_choices.v0 == V0Mode::ZeroVruntimeAvg)
            pullV0(v); // 7.0+: avg_vruntime() pulls zero_vruntime to V
        return v;
    }
    /// V without side effects (for display, invariant checks and the samples). The 64-bit path
    /// (sums of a few entities a few slices apart) inline, the 128-bit one out of line.
    uint64_t peekAvgVruntime() const
    {
        const SchedEntity* running = eevdfCurr();
        const bool queued = running && running->onRq;
        const auto num64 = static_cast<int64_t>(sumWVruntime);
        const auto den64 = static_cast<int64_t>(sumWeight);
        if (num64 != sumWVruntime || den64 != sumWeight) [[unlikely]]
            return peekAvgVruntimeWide();
        int64_t num = num64;
        int64_t den = den64;
        if (queued) {
            const uint64_t w = avgWeight(*running);
            int64_t product = 0;
            if (w > static_cast<uint64_t>(INT64_MAX)
                || __builtin_mul_overflow(key(*running), static_cast<int64_t>(w), &product)
                || __builtin_add_overflow(num, product, &num)
                || __builtin_add_overflow(den, static_cast<int64_t>(w), &den)) [[unlikely]]
                return peekAvgVruntimeWide();
        }
        int64_t q = 0;
        if (den > 0) {
            q = num / den;
            if ((num % den != 0) && (num < 0))
                --q; // floor toward -inf (den > 0)
        } else if (queued) {
            q = key(*running);
        }
        return v0 + static_cast<uint64_t>(q);
    }
    /// vruntime_eligible(): V ≥ v without division (§3.3).
    bool vruntimeEligible(uint64_t v) const;
    bool entityEligible(const SchedEntity& se) const { return vruntimeEligible(se.vruntime); }
    /// vruntime_eligible() with the sums read once: for the walks, and for a pick, which asks of
    /// several entities while the sums stay the same (§3.5).
    class Eligibility
    {
    public:
        explicit Eligibility(const CfsRq& rq)
            : m_num(rq.sumWVruntime)
            , m_den(rq.sumWeight)
            , m_v0(rq.v0)
            , m_full(rq.m_choices.weightPrecision == WeightPrecision::Full)
        {
            const SchedEntity* ec = rq.eevdfCurr();
            if (ec && ec->onRq) {
                const Int128 w = rq.avgWeight(*ec);
                m_num += static_cast<Int128>(rq.key(*ec)) * w;
                m_den += w;
            }
        }
        bool operator()(uint64_t v) const
        {
            const int64_t k = vdiff(v, m_v0);
            if (m_full) // 7.1+: 128-bit product (b6eee96843e8)
                return m_num >= static_cast<Int128>(k) * m_den;
            // ≤7.0: plain 64-bit arithmetic, which wraps on overflow like the kernel's.
            const auto lhs = static_cast<int64_t>(static_cast<uint64_t>(m_num));
            const auto rhs =
                static_cast<int64_t>(static_cast<uint64_t>(k) * static_cast<uint64_t>(m_den));
            return lhs >= rhs;
        }
        bool operator()(const SchedEntity& se) const { return (*this)(se.vruntime); }
        /// Whether k·den cannot wrap for any key in [minKey, maxKey] (so eligibility is monotone).
        bool exactFor(int64_t minKey, int64_t maxKey) const;

    private:
        Int128 m_num = 0;
        Int128 m_den = 0;
        uint64_t m_v0 = 0;
        bool m_full = false;
    };
    /// Moves the reference point by @p delta keeping Σ(v−v0)·w consistent.
    void moveV0(int64_t delta);
    /// ≤6.18 update_min_vruntime(): monotonic max(v0, min(curr.v, min tree v)) (§3.2 step 5).
    void updateMinVruntime();
    /// 6.19 zero_vruntime: v0 := V after the sums change (§3.2 step 4, 6.19 variant).
    void syncZeroVruntime();
    /// The "L" of place_entity(): weight already counted in V (tree + curr if queued) (§4.2).
    Int128 countedWeight() const;
    /// ineligible_vruntime() of 7.3's protection (trait protect_ineligible), without curr:
    /// v0 + floor(sumWV/sumW) + 1.
    uint64_t ineligibleVruntime() const;

    // --- walk orders ------------------------------------------------------------------------
    SchedEntity* leftmostDeadline() const;
    SchedEntity* leftmostVruntime() const;
    /// First eligible tree entity in deadline order (the 6.8+ pick over the tree, §3.5 5–6).
    SchedEntity* firstEligibleByDeadline() const
    {
        return firstEligibleByDeadline(Eligibility(*this));
    }
    SchedEntity* firstEligibleByDeadline(const Eligibility& eligible) const
    {
        ensureDTree();
        // Step 5's fast path (inline): an eligible leftmost is the first eligible entity,
        // monotone or not.
        SchedEntity* first = m_tree.leftmost();
        if (!first || eligible(first->vruntime))
            return first;
        return firstEligibleByDeadlineSearch(eligible);
    }
    /// Earliest-deadline eligible tree entity among the eligible vruntime prefix (6.6, §3.5 3–4).
    SchedEntity* earliestDeadlineInEligiblePrefix() const
    {
        return earliestDeadlineInEligiblePrefix(Eligibility(*this));
    }
    SchedEntity* earliestDeadlineInEligiblePrefix(const Eligibility& eligible) const;
    /// The O(n) walks the two picks above replace (kept for the 64-bit wrap case and tests).
    SchedEntity* firstEligibleByDeadlineWalk() const;
    SchedEntity* earliestDeadlineInEligiblePrefixWalk() const;
    /// Calls @p f on every tree entity in deadline order.
    template <typename F> void forEachTree(F&& f) const
    {
        ensureDTree();
        for (const SchedEntity* se = m_tree.leftmost(); se; se = Tree::next(*se))
            f(*se);
    }

    /// cfs_rq_min_slice(): over tree entities and curr if queued; kNoSlice (~0) if none.
    int64_t minSlice() const
    {
        int64_t s = m_slices.empty() ? kNoSlice : m_slices.front().first;
        const SchedEntity* ec = eevdfCurr();
        if (ec && ec->onRq && ec->slice < s)
            s = ec->slice;
        return s;
    }
    /// cfs_rq_max_slice(): over tree entities and curr if queued; 0 if none.
    int64_t maxSlice() const
    {
        int64_t s = m_slices.empty() ? 0 : m_slices.back().first;
        const SchedEntity* ec = eevdfCurr();
        if (ec && ec->onRq && ec->slice > s)
            s = ec->slice;
        return s;
    }
    /// Changes the slice of a queued entity (kept in the slice multiset while in the tree).
    void setSlice(SchedEntity& se, int64_t slice);
    static constexpr int64_t kNoSlice = INT64_MAX;

    /// Checks the invariants listed above; returns an empty string or a description.
    std::string checkInvariants() const;
    /// Rebuilds both trees (after a tree_key change the order itself does not change).
    void clearTrees();

    // --- state (the kernel's struct cfs_rq fields) --------------------------------------------
    // Laid out for the cache (docs/limits.md "Speed"; the object is aligned to a 64-byte line):
    //   line 0: what the pick, update_curr() and V read first (curr, the counts, v0, the weight);
    //   line 1: V's sums and the deadline tree's root;
    //   line 2: what an enqueue or dequeue also writes (the slices, the tree's counters), the
    //           flat queue's running task, the CPU and group;
    //   line 3: the PELT averages;
    //   line 4: what update_load_avg() and the tg->load_avg publication read besides (removed
    //           load, the published contributions, the flags of propagation and of the leaf
    //           list), the throttle count and flags, whether the vruntime tree is kept;
    //   then what only attach/detach, bandwidth, core scheduling and the 6.6-6.7 vruntime tree
    //   read.
private:
    const ProfileChoices& m_choices;

public:
    /// The running entity of this level (the kernel's cfs_rq->curr; 7.3's h_curr).
    SchedEntity* curr = nullptr;
    SchedEntity* next = nullptr;      ///< next buddy
    SchedEntity* boostPick = nullptr; ///< boost_throttled_on_wakeup: the entity pick must take
    int nrQueued = 0;
    int hNrQueued = 0;
    int hNrRunnable = 0;
    int hNrIdle = 0;
    uint64_t v0 = 0;         ///< min_vruntime or zero_vruntime, per profile
    uint64_t loadWeight = 0; ///< Σ w of queued entities incl. curr and delayed
    Int128 sumWVruntime = 0;
    Int128 sumWeight = 0;

private:
    // mutable: a pick (const) turns on the upkeep of the cached values it reads (augment()).
    mutable Tree m_tree;
    std::vector<std::pair<int64_t, int>> m_slices; // sorted (slice, count) of tree entities
    uint64_t m_treeSeq = 0;                        // next SchedEntity::treeSeq
    uint64_t m_vruntimeMark = 0; // the largest vruntime inserted since the tree was empty
    uint64_t m_prioritySeed = 0; // the treap priorities' generator (Weyl sequence state)

public:
    /// Flat run queue (7.3), rq->cfs only: the running task, the kernel's 7.3 cfs_rq->curr.
    SchedEntity* taskCurr = nullptr;
    int cpu = 0;
    int groupIndex = 0; ///< task group index (0 = root)

    PeltAvg avg;                       ///< cfs_rq PELT (§6.6)
    uint64_t removedLoad = 0;          ///< load of entities that left (applied at next update)
    uint64_t removedUtil = 0;          ///< ... their util_avg
    uint64_t removedRunnable = 0;      ///< ... their runnable_avg
    uint64_t tgLoadAvgContrib = 0;     ///< this cfs_rq's share published in tg->load_avg
    uint64_t tgRunnableAvgContrib = 0; ///< ... in tg->runnable_avg (group_shares=concur, 7.3)
    int64_t lastTgUpdate = -1;         ///< ns of the last tg->load_avg publication (1 ms ratelimit)
    int throttleCount = 0;   ///< throttled cfs_rq's at or above this one (throttled_hierarchy)
    bool propagate = false;  ///< a change to pass to the group entity (§6.6)
    bool onLeafList = false; ///< on_list: on its CPU's leaf list (rq->leafGroups)
    // CFS bandwidth, per CPU (§9.1–§9.3); more below.
    bool throttled = false;      ///< this cfs_rq's own runtime is exhausted
    bool runtimeEnabled = false; ///< the group has a finite quota

private:
    mutable bool m_vtreeKept = false; // the vruntime tree holds every tree entity
    mutable bool m_dtreeKept = true;  // the deadline tree holds every tree entity

public:
    int64_t propRunnableSum = 0;  ///< prop_runnable_sum: the load_sum change to pass on (rare)
    SchedEntity* owner = nullptr; ///< the group entity whose my_q this is (null for rq->cfs)
    /// cfs_rq_is_idle(): the queue of a cpu.idle group (its entity is idle, §6.1).
    bool isIdle() const { return owner && owner->idlePolicy; }
    // CFS bandwidth, per CPU (§9.1–§9.3).
    int64_t runtimeRemaining = 0;
    uint64_t v0Fi = 0;         ///< min_vruntime_fi / zero_vruntime_fi (core scheduling, §11.3)
    uint64_t forceIdleSeq = 0; ///< forceidle_seq of the last v0Fi snapshot
    /// ≤6.17: the group entity chain was dequeued at throttle time (enqueue/dequeue walks stop
    /// here); false for a task-based (6.18+) throttle. Kept per cfs_rq so that a profile switch
    /// while throttled unthrottles the way it throttled.
    bool throttleDequeued = false;
    int64_t throttledClock = -1; ///< start of the current throttled interval (-1: none)
    std::vector<int> limbo;      ///< 6.18+: tasks parked at return to user (throttled_limbo_list)

private:
    /// (v − v0)·ŵ of §3.2's sum, exactly: one signed 64×64→128 multiply while ŵ fits 63 bits
    /// (every real weight), the full 128-bit one otherwise.
    static Int128 weightedKey(int64_t key, uint64_t w)
    {
        if (static_cast<int64_t>(w) >= 0) [[likely]]
            return static_cast<Int128>(key) * static_cast<int64_t>(w);
        return static_cast<Int128>(key) * static_cast<Int128>(w);
    }
    /// The treap priorities: a Weyl sequence (splitmix64's increment) through one
    /// xor-shift-multiply round of its finaliser. Any sequence independent of the keys keeps the
    /// expected depth O(log n); this one is deterministic, so the trees' shapes are too.
    static uint32_t nextPriority(uint64_t& state)
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 32)) * 0xbf58476d1ce4e5b9ULL;
        return static_cast<uint32_t>(z >> 32);
    }
    /// peekAvgVruntime() in 128 bits (avgKeyWide(), kernel-model.md §3.2).
    [[gnu::noinline]] uint64_t peekAvgVruntimeWide() const;
    /// avgVruntime()'s move of v0 to V (7.0+: once per tick's update_deadline(), inline).
    void pullV0(uint64_t v)
    {
        const int64_t delta = vdiff(v, v0); // moveV0(), inline
        sumWVruntime -= sumWeight * delta;
        v0 += static_cast<uint64_t>(delta);
    }
    // One slice shared by every tree entity (the common case) needs no search: inline; an empty
    // tree (a group level whose only entity runs) takes the slice without one either.
    void sliceInsert(int64_t slice)
    {
        if (m_slices.size() == 1 && m_slices.front().first == slice)
            ++m_slices.front().second;
        else
            sliceInsertSearch(slice);
    }
    void sliceErase(int64_t slice)
    {
        if (m_slices.size() != 1 || m_slices.front().first != slice)
            sliceEraseSearch(slice);
        else if (--m_slices.front().second == 0)
            m_slices.clear();
    }
    void sliceInsertSearch(int64_t slice);
    void sliceEraseSearch(int64_t slice);
    /// Builds the vruntime tree from the deadline tree if it is not kept (see Storage above).
    void ensureVTree() const;
    /// Builds the deadline tree from the vruntime tree if it is not kept (see Storage above).
    void ensureDTree() const
    {
        if (!m_dtreeKept) [[unlikely]]
            buildDTree();
    }
    void buildDTree() const;
    /// firstEligibleByDeadline() past its fast path (out of line: the common pick saves fewer
    /// registers); the leftmost is not eligible.
    [[gnu::noinline]] SchedEntity* firstEligibleByDeadlineSearch(const Eligibility& eligible) const;
    /// The smallest vruntime of the tree entities (false if the tree is empty).
    bool minTreeVruntime(uint64_t& v) const;
    /// The smallest key of the tree entities and a bound at least as large as the largest (from
    /// m_vruntimeMark); the tree must not be empty.
    void keyRange(int64_t& lo, int64_t& hi) const;

    mutable VTree m_vtree;
};

} // namespace schedlab
