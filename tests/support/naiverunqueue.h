// SPDX-License-Identifier: GPL-2.0-or-later
// The obvious version of a cfs_rq, a reference to test against: a std::vector of entities and
// linear scans that follow the EEVDF definitions of docs/kernel-model.md §3.2–§3.5 literally. Tests
// run the same operations through it and through the intrusive CfsRq and compare every answer.
//
// It only observes SchedEntity objects owned by the test: vruntime, deadline, weight and slice
// are read live, so the test must not change them while an entity is "in the tree" (the real tree
// has the same rule); curr's fields may change freely. Int128 arithmetic throughout, so its
// answers are exact whatever the profile's precision.
#pragma once

#include "core/fair/cfsrq.h"
#include "core/fair/schedentity.h"
#include "core/fair/weights.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace schedlab::test {

class NaiveRunQueue
{
public:
    struct Entry
    {
        const SchedEntity* se;
        uint64_t seq; ///< insertion order: a re-inserted entity goes behind everyone present
    };

    explicit NaiveRunQueue(WeightPrecision precision)
        : m_precision(precision)
    { }

    // --- the "tree" (queued entities other than curr) ------------------------------------------
    void insert(const SchedEntity& se) { m_entries.push_back({&se, m_nextSeq++}); }
    void erase(const SchedEntity& se)
    {
        std::erase_if(m_entries, [&](const Entry& e) { return e.se == &se; });
    }
    bool contains(const SchedEntity& se) const
    {
        return std::any_of(
            m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.se == &se; });
    }
    const std::vector<Entry>& entries() const { return m_entries; }
    size_t size() const { return m_entries.size(); }

    /// curr: counted in V and eligibility only while its onRq flag is set (read live).
    void setCurr(const SchedEntity* se) { m_curr = se; }
    const SchedEntity* curr() const { return m_curr; }

    /// The weight V averages with: ŵ = max(2, w >> 10) (0 for 0), or the full w.
    Int128 weight(const SchedEntity& se) const
    {
        if (m_precision == WeightPrecision::Full)
            return se.load.weight;
        if (se.load.weight == 0)
            return 0;
        return std::max<uint64_t>(2, se.load.weight >> 10);
    }

    /// Σ(v_i − v0)·w_i and Σ w_i over the tree, plus curr when it is queued.
    void sums(uint64_t v0, Int128& num, Int128& den, bool withCurr = true) const
    {
        num = 0;
        den = 0;
        for (const Entry& e : m_entries) {
            num += Int128(static_cast<int64_t>(e.se->vruntime - v0)) * weight(*e.se);
            den += weight(*e.se);
        }
        if (withCurr && m_curr && m_curr->onRq) {
            num += Int128(static_cast<int64_t>(m_curr->vruntime - v0)) * weight(*m_curr);
            den += weight(*m_curr);
        }
    }

    /// V = v0 + floor(Σ(v_i − v0)·w_i / Σ w_i), rounding toward −∞; with nothing counted, v0.
    uint64_t avgVruntime(uint64_t v0, bool withCurr = true) const
    {
        Int128 num;
        Int128 den;
        sums(v0, num, den, withCurr);
        if (den == 0)
            return v0;
        Int128 q = num / den; // C++ truncates toward zero…
        if (q * den > num)    // …so step down once when that rounded up (negative quotient)
            q -= 1;
        return v0 + static_cast<uint64_t>(static_cast<int64_t>(q));
    }

    /// Eligible ⇔ lag ≥ 0 ⇔ Σ(v_i − v0)·w_i ≥ (v − v0)·Σ w_i (no division).
    bool eligible(uint64_t v, uint64_t v0) const
    {
        Int128 num;
        Int128 den;
        sums(v0, num, den);
        return eligible(v, v0, num, den);
    }
    /// The same with the sums of sums() computed once (for loops over many entities).
    static bool eligible(uint64_t v, uint64_t v0, Int128 num, Int128 den)
    {
        return num >= Int128(static_cast<int64_t>(v - v0)) * den;
    }

    /// 6.8+ pick over the tree: the eligible entity with the smallest deadline; on equal deadlines
    /// the one inserted first (the deadline tree puts equal keys to the right).
    const SchedEntity* pickByDeadline(uint64_t v0) const
    {
        return bestEligible(v0, [](const Entry& e, const Entry& best) {
            return before(e.se->deadline, e.seq, best.se->deadline, best.seq);
        });
    }

    /// 6.6 pick over the tree: among the eligible entities the smallest deadline; ties go to the
    /// smaller vruntime, then to the one inserted first.
    const SchedEntity* pickEligiblePrefix(uint64_t v0) const
    {
        return bestEligible(v0, [](const Entry& e, const Entry& best) {
            const int64_t dd = static_cast<int64_t>(e.se->deadline - best.se->deadline);
            return dd < 0
                || (dd == 0 && before(e.se->vruntime, e.seq, best.se->vruntime, best.seq));
        });
    }

    /// Tree entities sorted by (deadline, insertion) — the in-order walk of the deadline tree.
    std::vector<const SchedEntity*> byDeadline() const { return sorted(&SchedEntity::deadline); }
    /// Tree entities sorted by (vruntime, insertion).
    std::vector<const SchedEntity*> byVruntime() const { return sorted(&SchedEntity::vruntime); }

    /// cfs_rq_min_slice(): over the tree and curr if queued; ~0 (CfsRq::kNoSlice) when empty.
    int64_t minSlice() const { return sliceExtreme(true); }
    /// cfs_rq_max_slice(): over the tree and curr if queued; 0 when empty.
    int64_t maxSlice() const { return sliceExtreme(false); }

private:
    /// The eligible tree entity that @p better puts first (nullptr when none is eligible).
    template <typename Better> const SchedEntity* bestEligible(uint64_t v0, Better better) const
    {
        const Entry* best = nullptr;
        Int128 num;
        Int128 den;
        sums(v0, num, den);
        for (const Entry& e : m_entries)
            if (eligible(e.se->vruntime, v0, num, den) && (!best || better(e, *best)))
                best = &e;
        return best ? best->se : nullptr;
    }

    static bool before(uint64_t a, uint64_t seqA, uint64_t b, uint64_t seqB)
    {
        const auto d = static_cast<int64_t>(a - b);
        return d < 0 || (d == 0 && seqA < seqB);
    }

    std::vector<const SchedEntity*> sorted(uint64_t SchedEntity::*key) const
    {
        std::vector<Entry> copy = m_entries;
        std::sort(copy.begin(), copy.end(), [&](const Entry& a, const Entry& b) {
            return before(a.se->*key, a.seq, b.se->*key, b.seq);
        });
        std::vector<const SchedEntity*> out;
        for (const Entry& e : copy)
            out.push_back(e.se);
        return out;
    }

    int64_t sliceExtreme(bool min) const
    {
        std::vector<int64_t> slices;
        for (const Entry& e : m_entries)
            slices.push_back(e.se->slice);
        if (m_curr && m_curr->onRq)
            slices.push_back(m_curr->slice);
        if (slices.empty())
            return min ? CfsRq::kNoSlice : 0;
        return min ? *std::min_element(slices.begin(), slices.end())
                   : *std::max_element(slices.begin(), slices.end());
    }

    WeightPrecision m_precision;
    std::vector<Entry> m_entries;
    const SchedEntity* m_curr = nullptr;
    uint64_t m_nextSeq = 0;
};

} // namespace schedlab::test
