// SPDX-License-Identifier: GPL-2.0-or-later
#include "cfsrq.h"

#include <algorithm>

namespace schedlab {

namespace {

// floor(num / den) toward -inf (kernel-model.md §3.2 step 3).
Int128 floorDiv(Int128 num, Int128 den)
{
    constexpr Int128 kMax = INT64_MAX;
    if (num <= kMax && num >= -kMax && den <= kMax) {
        // 64-bit fast path (the common case); identical result.
        const auto n = static_cast<int64_t>(num);
        const auto d = static_cast<int64_t>(den);
        int64_t q = n / d;
        if ((n % d != 0) && ((n < 0) != (d < 0)))
            --q;
        return q;
    }
    Int128 q = num / den;
    if ((num % den != 0) && ((num < 0) != (den < 0)))
        --q;
    return q;
}

// V − v0 (kernel-model.md §3.2) in 128 bits, for the sums the 64-bit path of peekAvgVruntime()
// cannot hold (kept out of line so that the common path stays short).
[[gnu::noinline]] int64_t avgKeyWide(
    Int128 num, Int128 den, bool currQueued, int64_t currKey, uint64_t currWeight)
{
    if (currQueued) {
        const Int128 w = currWeight;
        num += static_cast<Int128>(currKey) * w;
        den += w;
    }
    Int128 q = 0;
    if (den > 0)
        q = floorDiv(num, den);
    else if (currQueued)
        q = currKey;
    return static_cast<int64_t>(q);
}

// Builds one tree from the other's entities in their insertion order: each takes the place (equal
// keys in insertion order) the incremental inserts gave it; the priorities (the kept tree's) only
// shape the treap.
template <typename From, typename To> [[gnu::noinline]] void buildTree(const From& from, To& to)
{
    std::vector<SchedEntity*> entities;
    entities.reserve(from.size());
    for (SchedEntity* se = from.leftmost(); se; se = From::next(*se))
        entities.push_back(se);
    std::sort(entities.begin(), entities.end(),
        [](const SchedEntity* a, const SchedEntity* b) { return a->treeSeq < b->treeSeq; });
    for (SchedEntity* se : entities)
        to.insert(*se, From::priority(*se));
}

} // namespace

bool CfsRq::Eligibility::exactFor(int64_t minKey, int64_t maxKey) const
{
    // Keys within ±2^62 also keep the wrap-safe order of the trees equal to key order.
    constexpr int64_t kKeyBound = INT64_MAX / 2;
    const auto mag = [](int64_t k) {
        return k < 0 ? static_cast<Int128>(-static_cast<Int128>(k)) : static_cast<Int128>(k);
    };
    const Int128 m = std::max(mag(minKey), mag(maxKey));
    if (m > kKeyBound)
        return false;
    if (m_full)
        return true;
    const Int128 den = static_cast<Int128>(static_cast<uint64_t>(m_den));
    return den <= INT64_MAX && m * den <= INT64_MAX;
}

CfsRq::CfsRq(const ProfileChoices& choices)
    : m_choices(choices)
    , m_vtreeKept(choices.treeKey == TreeKey::Vruntime)
    , m_dtreeKept(choices.treeKey == TreeKey::Deadline)
{ }

CfsRq::~CfsRq()
{
    clearTrees();
}

void CfsRq::clearTrees()
{
    m_tree.clear();
    m_vtree.clear();
    m_vtreeKept = m_choices.treeKey == TreeKey::Vruntime;
    m_dtreeKept = m_choices.treeKey == TreeKey::Deadline;
    m_slices.clear();
    sumWVruntime = 0;
    sumWeight = 0;
}

void CfsRq::enqueueTree(SchedEntity& se)
{
    enqueueTreeInline(se);
}

void CfsRq::dequeueTree(SchedEntity& se)
{
    dequeueTreeInline(se);
}

void CfsRq::moveV0(int64_t delta)
{
    sumWVruntime -= sumWeight * delta;
    v0 += static_cast<uint64_t>(delta);
}

uint64_t CfsRq::peekAvgVruntimeWide() const
{
    const SchedEntity* running = eevdfCurr();
    const bool queued = running && running->onRq;
    return v0
        + static_cast<uint64_t>(avgKeyWide(sumWVruntime, sumWeight, queued,
            queued ? key(*running) : 0, queued ? avgWeight(*running) : 0));
}

void CfsRq::syncZeroVruntime()
{
    moveV0(vdiff(peekAvgVruntime(), v0));
}

bool CfsRq::vruntimeEligible(uint64_t v) const
{
    return Eligibility(*this)(v);
}

void CfsRq::updateMinVruntime()
{
    uint64_t vruntime = v0;
    const SchedEntity* ec = eevdfCurr();
    const SchedEntity* c = (ec && ec->onRq) ? ec : nullptr;
    if (c)
        vruntime = c->vruntime;
    if (uint64_t least = 0; minTreeVruntime(least)) {
        if (!c)
            vruntime = least;
        else if (vdiff(least, vruntime) < 0)
            vruntime = least;
    }
    if (vdiff(vruntime, v0) > 0)
        moveV0(vdiff(vruntime, v0));
}

Int128 CfsRq::countedWeight() const
{
    Int128 w = sumWeight;
    const SchedEntity* ec = eevdfCurr();
    if (ec && ec->onRq)
        w += avgWeight(*ec);
    return w;
}

uint64_t CfsRq::ineligibleVruntime() const
{
    const SchedEntity* ec = eevdfCurr();
    if (sumWeight <= 0)
        return ec ? ec->vruntime + 1 : v0 + 1;
    return v0 + static_cast<uint64_t>(static_cast<int64_t>(floorDiv(sumWVruntime, sumWeight))) + 1;
}

SchedEntity* CfsRq::leftmostDeadline() const
{
    ensureDTree();
    return m_tree.leftmost();
}

SchedEntity* CfsRq::leftmostVruntime() const
{
    ensureVTree();
    return m_vtree.leftmost();
}

void CfsRq::ensureVTree() const
{
    if (m_vtreeKept)
        return;
    m_vtreeKept = true;
    buildTree(m_tree, m_vtree);
}

void CfsRq::buildDTree() const
{
    m_dtreeKept = true;
    buildTree(m_vtree, m_tree);
}

bool CfsRq::minTreeVruntime(uint64_t& v) const
{
    if (m_vtreeKept) {
        const SchedEntity* se = m_vtree.leftmost();
        if (se)
            v = se->vruntime;
        return se != nullptr;
    }
    if (m_tree.empty())
        return false;
    m_tree.augment();
    v = m_tree.root()->subtreeMinVruntime;
    return true;
}

void CfsRq::keyRange(int64_t& lo, int64_t& hi) const
{
    // The largest vruntime is not kept (finding it walks the vruntime tree's right spine); the
    // mark bounds it from above (vruntimes do not change in the tree), so a range it declares
    // exact is exact, and the walk serves the other cases with the same answer (§3.5
    // "Complexity").
    hi = vdiff(m_vruntimeMark, v0);
    if (m_vtreeKept) {
        lo = key(*m_vtree.leftmost());
        return;
    }
    m_tree.augment();
    lo = vdiff(m_tree.root()->subtreeMinVruntime, v0);
}

// §3.5 steps 5–6 (6.8+): the first eligible entity in deadline order. A subtree holds an eligible
// entity iff its smallest vruntime is eligible (eligibility is monotone in vruntime), so the walk
// descends left whenever the left subtree holds one, else takes the node if it is eligible, else
// goes right: O(depth).
SchedEntity* CfsRq::firstEligibleByDeadlineSearch(const Eligibility& eligible) const
{
    SchedEntity* node = m_tree.root();
    int64_t lo = 0;
    int64_t hi = 0;
    keyRange(lo, hi);
    if (!eligible.exactFor(lo, hi))
        return firstEligibleByDeadlineWalk();
    m_tree.augment();
    if (!eligible(node->subtreeMinVruntime))
        return nullptr;
    while (node) {
        SchedEntity* left = node->treeLinks.left;
        if (left && eligible(left->subtreeMinVruntime)) {
            node = left;
            continue;
        }
        if (eligible(node->vruntime))
            return node;
        node = node->treeLinks.right; // holds an eligible entity: this subtree does
    }
    return nullptr;
}

// §3.5 steps 3–4 (6.6): the earliest deadline among the eligible prefix of the vruntime order,
// the first met among equal deadlines. An eligible node's left subtree is eligible entirely, so
// its cached earliest-deadline entity stands for it; candidates are met in vruntime order, so a
// later one replaces the best only with a strictly earlier deadline: O(depth).
SchedEntity* CfsRq::earliestDeadlineInEligiblePrefix(const Eligibility& eligible) const
{
    ensureVTree();
    SchedEntity* node = m_vtree.root();
    if (!node)
        return nullptr;
    int64_t lo = 0;
    int64_t hi = 0;
    keyRange(lo, hi);
    if (!eligible.exactFor(lo, hi))
        return earliestDeadlineInEligiblePrefixWalk();
    m_vtree.augment();
    SchedEntity* best = nullptr;
    while (node) {
        if (!eligible(node->vruntime)) {
            node = node->vtreeLinks.left;
            continue;
        }
        SchedEntity* cand = node;
        if (SchedEntity* left = node->vtreeLinks.left) {
            cand = left->subtreeMinDeadline;
            if (vdiff(node->deadline, cand->deadline) < 0)
                cand = node;
        }
        if (!best || vdiff(cand->deadline, best->deadline) < 0)
            best = cand;
        node = node->vtreeLinks.right;
    }
    return best;
}

SchedEntity* CfsRq::firstEligibleByDeadlineWalk() const
{
    ensureDTree();
    const Eligibility eligible(*this);
    for (SchedEntity* se = m_tree.leftmost(); se; se = Tree::next(*se))
        if (eligible(se->vruntime))
            return se;
    return nullptr;
}

SchedEntity* CfsRq::earliestDeadlineInEligiblePrefixWalk() const
{
    ensureVTree();
    const Eligibility eligible(*this);
    SchedEntity* best = nullptr;
    for (SchedEntity* se = m_vtree.leftmost(); se; se = VTree::next(*se)) {
        if (!eligible(se->vruntime))
            break;
        if (!best || vdiff(se->deadline, best->deadline) < 0)
            best = se;
    }
    return best;
}

void CfsRq::sliceInsertSearch(int64_t slice)
{
    if (m_slices.empty()) {
        m_slices.emplace_back(slice, 1);
        return;
    }
    auto it = std::lower_bound(m_slices.begin(), m_slices.end(), std::make_pair(slice, 0));
    if (it != m_slices.end() && it->first == slice)
        ++it->second;
    else
        m_slices.insert(it, {slice, 1});
}

void CfsRq::sliceEraseSearch(int64_t slice)
{
    auto it = std::lower_bound(m_slices.begin(), m_slices.end(), std::make_pair(slice, 0));
    if (it != m_slices.end() && it->first == slice && --it->second == 0)
        m_slices.erase(it);
}

void CfsRq::setSlice(SchedEntity& se, int64_t slice)
{
    if (inTree(se)) {
        sliceErase(se.slice);
        sliceInsert(slice);
    }
    se.slice = slice;
}

std::string CfsRq::checkInvariants() const
{
    Int128 sw = 0;
    Int128 swv = 0;
    uint64_t queuedLoad = 0;
    int queued = 0;
    bool anyEligible = false;
    const SchedEntity* ec = eevdfCurr();
    const bool flat = m_choices.flat;
    ensureDTree();
    if (const char* problem = m_tree.check())
        return std::string("deadline tree: ") + problem;
    if (const char* problem = m_vtreeKept ? m_vtree.check() : nullptr)
        return std::string("vruntime tree: ") + problem;
    for (const SchedEntity* p = m_tree.leftmost(); p; p = Tree::next(*p)) {
        const SchedEntity& se = *p;
        if (&se == ec)
            return "curr is in the tree";
        if (!se.onRq || (!flat && se.cfsRq != this))
            return "tree entity not marked queued on this cfs_rq";
        if (flat && !se.isTask())
            return "group entity in the flat tree";
        const Int128 w = avgWeight(se);
        sw += w;
        swv += static_cast<Int128>(key(se)) * w;
        queuedLoad += se.load.weight;
        ++queued;
        anyEligible = anyEligible || entityEligible(se);
    }
    if (ec && ec->onRq) {
        queuedLoad += ec->load.weight;
        ++queued;
        anyEligible = anyEligible || entityEligible(*ec);
    }
    if (m_vtreeKept && m_vtree.size() != m_tree.size())
        return "vruntime tree and deadline tree differ in size";
    if (sw != sumWeight || swv != sumWVruntime)
        return "sum_weight/sum_w_vruntime differ from the tree";
    // The O(log n) picks against the walks they replace (§3.5 "Complexity").
    if (firstEligibleByDeadline() != firstEligibleByDeadlineWalk())
        return "the deadline-tree pick differs from the walk in deadline order";
    if (m_vtreeKept && earliestDeadlineInEligiblePrefix() != earliestDeadlineInEligiblePrefixWalk())
        return "the vruntime-tree pick differs from the walk in vruntime order";
    if (flat) {
        // 7.3 (§6.1): the tree holds every queued task of the CPU (rq->cfs) or nothing (a group
        // queue); load.weight and nr_queued are the level's own accounting.
        if (owner && !m_tree.empty())
            return "a group queue's tree is not empty (flat run queue)";
        if (!owner && queued != hNrQueued)
            return "h_nr_queued " + std::to_string(hNrQueued) + " != tasks in the flat tree "
                + std::to_string(queued);
        if (queued > 0 && !anyEligible)
            return "no eligible task in the flat run queue";
        return {};
    }
    if (queuedLoad != loadWeight)
        return "load.weight " + std::to_string(loadWeight) + " != sum of queued weights "
            + std::to_string(queuedLoad);
    if (queued != nrQueued)
        return "nr_queued " + std::to_string(nrQueued) + " != queued entities "
            + std::to_string(queued);
    if (queued > 0 && !anyEligible)
        return "no eligible entity on a non-empty cfs_rq";
    return {};
}

} // namespace schedlab
