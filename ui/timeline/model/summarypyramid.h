// SPDX-License-Identifier: GPL-2.0-or-later
// A mip-map of an append-only sequence: summaries of blocks of 16, 256, 4096, … consecutive
// items, built as the items arrive. The timeline's level of detail reads these instead of the
// items themselves, so a view of a whole 10-minute run costs about O(bins · 16 · levels) summary
// reads, not one read per recorded event.
//
// Node is a value type with `void merge(const Node& next)`, which folds the summary of the
// items that follow into it (in order). The items themselves are stored by the owner.
#pragma once

#include "ui/timeline/model/podvector.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <utility>
#include <vector>

namespace schedlab::ui {

template <typename Node> class SummaryPyramid
{
public:
    static constexpr size_t kFanoutBits = 4;
    static constexpr size_t kFanout = size_t{1} << kFanoutBits; ///< children per node

    void clear()
    {
        m_levels.clear();
        m_pending.clear();
        m_pendingCount.clear();
        m_reserved = 0;
    }

    /// Makes room for the complete nodes of @p items items in all (the nodes stored by then:
    /// items / 16 on level 0, items / 256 on level 1, …), so an index summarizing a series whose
    /// length it knows allocates each level once and exactly instead of doubling it.
    void reserve(size_t items)
    {
        m_reserved = items; // for the levels push() creates later
        for (size_t k = 0; k < m_levels.size(); ++k)
            m_levels[k].reserve(items / span(k));
    }

    /// Frees the room no stored node uses (after the last push of a long build).
    void shrinkToFit()
    {
        for (auto& level : m_levels)
            level.shrink_to_fit();
    }

    /// Appends the summary of one more item. Every time kFanout^(k+1) items are complete, the
    /// node of level k covering them is stored.
    void push(const Node& item)
    {
        Node carry = item;
        for (size_t k = 0;; ++k) {
            if (k == m_pending.size()) {
                m_pending.push_back(carry);
                m_pendingCount.push_back(1);
                m_levels.emplace_back();
                m_levels.back().reserve(m_reserved / span(k));
            } else if (m_pendingCount[k] == 0) {
                m_pending[k] = carry;
                m_pendingCount[k] = 1;
            } else {
                m_pending[k].merge(carry);
                ++m_pendingCount[k];
            }
            if (m_pendingCount[k] < kFanout)
                return;
            // Block complete: store it, and hand it up as one child of the next level.
            m_levels[k].push_back(m_pending[k]);
            m_pendingCount[k] = 0;
            carry = m_levels[k].back();
        }
    }

    /// Items covered by one node of @p level (level 0: kFanout items).
    static constexpr size_t span(size_t level) { return size_t{1} << (kFanoutBits * (level + 1)); }

    /// The largest stored node that starts at item @p i and satisfies @p accept, with the
    /// number of items it covers; {nullptr, 0} when none does.
    template <typename Accept>
    std::pair<const Node*, size_t> largestAt(size_t i, Accept&& accept) const
    {
        // Only levels whose blocks can start at i: i is a multiple of 16^(k+1).
        const size_t aligned =
            i == 0 ? m_levels.size() : static_cast<size_t>(std::countr_zero(i)) / kFanoutBits;
        for (size_t k = std::min(aligned, m_levels.size()); k-- > 0;)
            if (const Node* node = nodeAt(k, i); node && accept(*node))
                return {node, span(k)};
        return {nullptr, 0};
    }

    /// The stored node of @p level that starts at item @p i, if any.
    const Node* nodeAt(size_t level, size_t i) const
    {
        const size_t shift = kFanoutBits * (level + 1);
        if (level >= m_levels.size() || (i & ((size_t{1} << shift) - 1)) != 0)
            return nullptr;
        const size_t n = i >> shift;
        return n < m_levels[level].size() ? &m_levels[level][n] : nullptr;
    }

    /// Stored nodes of @p level (tests and memory accounting).
    const PodVector<Node>& level(size_t k) const { return m_levels[k]; }
    size_t levelCount() const { return m_levels.size(); }
    /// Memory held by the stored nodes.
    size_t bytes() const
    {
        size_t n = 0;
        for (const auto& level : m_levels)
            n += level.capacity() * sizeof(Node);
        return n;
    }

private:
    std::vector<PodVector<Node>> m_levels; ///< complete nodes per level
    std::vector<Node> m_pending;           ///< the block being filled, per level
    std::vector<size_t> m_pendingCount;    ///< its number of children so far
    size_t m_reserved = 0;                 ///< items reserve() made room for
};

} // namespace schedlab::ui
