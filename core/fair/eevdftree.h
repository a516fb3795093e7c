// SPDX-License-Identifier: GPL-2.0-or-later
// The intrusive, augmented search tree of a cfs_rq (kernel-model.md §3.4, §3.5).
//
// The kernel keeps the queued entities in an rbtree whose every node caches a value of its
// subtree (min_deadline in 6.6, min_vruntime from 6.8), updated on insert, erase and rotation,
// so that pick_eevdf() finds the eligible entity with the earliest deadline in O(log n). This is
// the same idea on a treap: a binary search tree whose nodes also form a max-heap on a priority
// drawn when the entity is inserted, which keeps the expected depth O(log n) with simpler
// rotations than an rbtree. The shape does not matter to the model: only the in-order sequence
// (key order, equal keys in insertion order: a new entity goes right of its equals, as in the
// kernel's rb_add_cached()) and the cached subtree values are read, and both are independent of
// the shape.
//
// Ops (a struct of static functions) says which links of the entity the tree uses, how two
// entities compare, and how a node recomputes its cached value from itself and its children
// (returning whether the value changed, so that an insertion stops climbing early).
//
// The cached values are kept only once a reader asked for them (augment()): a cfs_rq keeps both
// trees but a profile's pick reads only one tree's values, and the other tree then pays no
// upkeep. augment() computes every value (O(n), once; a profile switch that needs the other
// tree's values pays it at its first pick) and from then on they are maintained.
//
// Complexity (n entities): insert and erase O(log n) expected, leftmost O(1), next O(1) amortised.
#pragma once

#include "core/fair/schedentity.h"

#include <cstddef>
#include <cstdint>

namespace schedlab {

template <typename Ops> class EevdfTree
{
public:
    EevdfTree() = default;
    EevdfTree(const EevdfTree&) = delete;
    EevdfTree& operator=(const EevdfTree&) = delete;

    SchedEntity* root() const { return m_root; }
    SchedEntity* leftmost() const { return m_leftmost; }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    bool augmented() const { return m_augmented; }
    /// From now on every node's cached value is valid and maintained.
    void augment()
    {
        if (m_augmented)
            return;
        m_augmented = true;
        augmentSubtree(m_root);
    }

    /// The treap priority @p se was inserted with.
    static uint32_t priority(const SchedEntity& se) { return links(se).priority; }

    /// In-order successor, or null after the last entity.
    static SchedEntity* next(const SchedEntity& se)
    {
        const TreeLinks& l = links(se);
        if (l.right) {
            SchedEntity* s = l.right;
            while (links(*s).left)
                s = links(*s).left;
            return s;
        }
        const SchedEntity* c = &se;
        SchedEntity* p = l.parent;
        while (p && links(*p).right == c) {
            c = p;
            p = links(*p).parent;
        }
        return p;
    }

    /// Inserts @p se after every entity that compares equal (upper bound).
    void insert(SchedEntity& se, uint32_t priority)
    {
        TreeLinks& x = links(se);
        x.reset();
        x.priority = priority;
        x.linked = true;
        if (m_augmented)
            Ops::update(se);
        ++m_size;
        if (!m_root) {
            m_root = m_leftmost = &se;
            return;
        }
        SchedEntity* p = m_root;
        bool leftmost = true;
        for (;;) {
            TreeLinks& pl = links(*p);
            if (Ops::less(se, *p)) {
                if (!pl.left) {
                    pl.left = &se;
                    break;
                }
                p = pl.left;
            } else {
                leftmost = false;
                if (!pl.right) {
                    pl.right = &se;
                    break;
                }
                p = pl.right;
            }
        }
        x.parent = p;
        if (leftmost)
            m_leftmost = &se;
        // Restore the heap order; each rotation recomputes the node it moves down (from its new
        // children, none of which is se), se itself once at the end (a leaf unless it rotated).
        while (x.parent && links(*x.parent).priority < x.priority)
            rotateUp(se, m_augmented);
        if (m_augmented && (x.left || x.right))
            Ops::update(se);
        // Every ancestor's subtree gained se; once a cached value does not change, none above do.
        if (m_augmented)
            for (SchedEntity* s = x.parent; s && Ops::update(*s); s = links(*s).parent) { }
    }

    void erase(SchedEntity& se)
    {
        TreeLinks& x = links(se);
        if (m_leftmost == &se)
            m_leftmost = x.right ? leftmostOf(x.right) : x.parent;
        SchedEntity* const oldParent = x.parent;
        // se's place goes to the merge of its subtrees by priority, the tree that rotating se down
        // to a leaf (the child with the higher priority up, the right one on a tie) and cutting
        // it leaves, without the rotations: each step links the winner into the open slot and
        // continues on its inner side (the left subtree's right spine, the right's left spine).
        SchedEntity** slot = !oldParent     ? &m_root
            : links(*oldParent).left == &se ? &links(*oldParent).left
                                            : &links(*oldParent).right;
        SchedEntity* up = oldParent; // the parent of the open slot
        SchedEntity* l = x.left;
        SchedEntity* r = x.right;
        while (l && r) {
            SchedEntity* const w = links(*l).priority > links(*r).priority ? l : r;
            *slot = w;
            links(*w).parent = up;
            up = w;
            if (w == l) {
                slot = &links(*w).right;
                l = *slot;
            } else {
                slot = &links(*w).left;
                r = *slot;
            }
        }
        SchedEntity* const rest = l ? l : r;
        *slot = rest;
        if (rest)
            links(*rest).parent = up;
        x.reset();
        --m_size;
        // The merged entities (from up to below oldParent) have new children; recompute them all,
        // then climb from oldParent until a cached value stays the same.
        bool above = false;
        for (SchedEntity* s = m_augmented ? up : nullptr; s; s = links(*s).parent) {
            above = above || s == oldParent;
            if (!Ops::update(*s) && above)
                break;
        }
    }

    /// Forgets every entity (their links are reset).
    void clear()
    {
        resetSubtree(m_root);
        m_root = m_leftmost = nullptr;
        m_size = 0;
        m_augmented = false;
    }

    /// Checks the links and every cached value; returns an empty string or what is wrong.
    const char* check() const
    {
        size_t n = 0;
        const char* problem = checkSubtree(m_root, nullptr, n, m_augmented);
        if (problem)
            return problem;
        if (n != m_size)
            return "tree size differs from its node count";
        if (m_leftmost != leftmostOf(m_root))
            return "cached leftmost is not the leftmost";
        return nullptr;
    }

private:
    static TreeLinks& links(SchedEntity& se) { return Ops::links(se); }
    static const TreeLinks& links(const SchedEntity& se)
    {
        return Ops::links(const_cast<SchedEntity&>(se));
    }
    static SchedEntity* leftmostOf(SchedEntity* s)
    {
        while (s && links(*s).left)
            s = links(*s).left;
        return s;
    }

    /// Moves @p se one level up over its parent, keeping the in-order sequence; with
    /// @p recompute the parent's cached value is recomputed (se's is left to the caller).
    void rotateUp(SchedEntity& se, bool recompute)
    {
        TreeLinks& x = links(se);
        SchedEntity* p = x.parent;
        TreeLinks& pl = links(*p);
        SchedEntity* g = pl.parent;
        if (pl.left == &se) {
            pl.left = x.right;
            if (x.right)
                links(*x.right).parent = p;
            x.right = p;
        } else {
            pl.right = x.left;
            if (x.left)
                links(*x.left).parent = p;
            x.left = p;
        }
        pl.parent = &se;
        x.parent = g;
        if (!g)
            m_root = &se;
        else if (links(*g).left == p)
            links(*g).left = &se;
        else
            links(*g).right = &se;
        if (recompute)
            Ops::update(*p);
    }

    static void resetSubtree(SchedEntity* s)
    {
        while (s) {
            TreeLinks& l = links(*s);
            resetSubtree(l.left);
            SchedEntity* right = l.right;
            l.reset();
            s = right;
        }
    }

    static void augmentSubtree(SchedEntity* s)
    {
        if (!s)
            return;
        augmentSubtree(links(*s).left);
        augmentSubtree(links(*s).right);
        Ops::update(*s);
    }

    static const char* checkSubtree(
        const SchedEntity* s, const SchedEntity* parent, size_t& n, bool augmented)
    {
        if (!s)
            return nullptr;
        const TreeLinks& l = links(*s);
        if (l.parent != parent)
            return "tree parent link broken";
        if (!l.linked)
            return "tree node not marked linked";
        if (parent && links(*parent).priority < l.priority)
            return "tree heap order broken";
        if (l.left && Ops::less(*s, *l.left))
            return "tree order broken (left)";
        if (l.right && Ops::less(*l.right, *s))
            return "tree order broken (right)";
        ++n;
        if (const char* p = checkSubtree(l.left, s, n, augmented))
            return p;
        if (const char* p = checkSubtree(l.right, s, n, augmented))
            return p;
        if (augmented && !Ops::verify(*s))
            return "cached subtree value is stale";
        return nullptr;
    }

    SchedEntity* m_root = nullptr;
    SchedEntity* m_leftmost = nullptr;
    size_t m_size = 0;
    bool m_augmented = false;
};

} // namespace schedlab
