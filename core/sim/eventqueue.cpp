// SPDX-License-Identifier: GPL-2.0-or-later
#include "eventqueue.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace schedlab {

namespace {
constexpr size_t kArity = 4;
} // namespace

void EventQueue::siftUp(size_t i)
{
    const Entry e = m_heap[i];
    while (i > 0) {
        const size_t parent = (i - 1) / kArity;
        if (!before(e, m_heap[parent]))
            break;
        m_heap[i] = m_heap[parent];
        i = parent;
    }
    m_heap[i] = e;
}

size_t EventQueue::leastChild(size_t i, size_t n) const
{
    // The earliest of entry i's children among the first n entries; n if it has none.
    const size_t first = i * kArity + 1;
    if (first >= n)
        return n;
    size_t best = first;
    const size_t last = std::min(first + kArity, n);
    for (size_t c = first + 1; c < last; ++c)
        if (before(m_heap[c], m_heap[best]))
            best = c;
    return best;
}

void EventQueue::siftDown(size_t i)
{
    const size_t n = m_heap.size();
    const Entry e = m_heap[i];
    for (;;) {
        const size_t best = leastChild(i, n);
        if (best >= n || !before(m_heap[best], e))
            break;
        m_heap[i] = m_heap[best];
        i = best;
    }
    m_heap[i] = e;
}

void EventQueue::popTop()
{
    // Bottom-up (Floyd's) pop: the hole left by the top goes down to a leaf along the least
    // children, then the last entry, itself from the bottom, goes up from there. The last entry
    // nearly always belongs near the bottom, so this saves the compare with it at every level
    // that siftDown() makes. The keys are unique: the heap's shape never changes the order.
    const size_t n = m_heap.size() - 1; // entries once the last one is taken out
    size_t i = 0;
    for (;;) {
        const size_t best = leastChild(i, n);
        if (best >= n)
            break;
        m_heap[i] = m_heap[best];
        i = best;
    }
    if (i != n) {
        m_heap[i] = m_heap[n];
        siftUp(i);
    }
    m_heap.pop_back();
}

void EventQueue::releaseSlot(uint32_t slot)
{
    m_handlers[slot] = nullptr;
    m_freeSlots.push_back(slot);
}

EventId EventQueue::schedule(Nanoseconds at, Handler handler, int priority)
{
    if (at.count() < m_now)
        throw std::logic_error("EventQueue: event scheduled in the past");
    uint32_t slot = 0;
    if (!m_freeSlots.empty()) {
        slot = m_freeSlots.back();
        m_freeSlots.pop_back();
        m_handlers[slot] = std::move(handler);
    } else {
        slot = static_cast<uint32_t>(m_handlers.size());
        m_handlers.push_back(std::move(handler));
    }
    return insert(at, priority, Event{kFunctionKind, static_cast<int32_t>(slot), 0});
}

EventId EventQueue::postChecked(Nanoseconds at, Event event, int priority)
{
    if (at.count() < m_now)
        throw std::logic_error("EventQueue: event scheduled in the past");
    if (event.kind == kFunctionKind || !m_dispatch)
        throw std::logic_error("EventQueue: a tagged event needs a kind and a dispatcher");
    return insert(at, priority, event);
}

EventId EventQueue::insert(Nanoseconds at, int priority, const Event& ev)
{
    const uint64_t seq = m_nextSeq++;
    m_done.push_back(0); // index == seq - m_doneBase
    m_topKnown = false;
    const Entry e{at.count(), priority, ev.kind, seq, ev.a, ev.b};
    if (priority != 0 && (m_laneHead == m_lane.size() || !before(e, m_lane.back()))) {
        m_lane.push_back(e); // in key order: the lane stays sorted
    } else {
        m_heap.push_back(e);
        siftUp(m_heap.size() - 1);
    }
    ++m_live;
    if (m_done.size() > 4 * stored() + kDoneSlack)
        compact(); // the done-bits of executed events
    return EventId{seq};
}

bool EventQueue::cancel(EventId id)
{
    if (!isPending(id))
        return false;
    m_done[id.seq - m_doneBase] = 1;
    --m_live;
    m_topKnown = false;
    constexpr size_t kSlack = 4096;
    if (stored() > 2 * m_live + kSlack)
        compact();
    return true;
}

void EventQueue::compact()
{
    m_topKnown = false;
    // Drop cancelled entries (and their handlers) and rebuild the heap: the key order decides
    // every pop, so the sequence of executed events is unchanged.
    std::erase_if(m_heap, [&](const Entry& e) {
        if (!done(e.seq))
            return false;
        release(e);
        return true;
    });
    for (size_t i = m_heap.size() / kArity + 1; i-- > 0;)
        if (i < m_heap.size())
            siftDown(i);
    m_lane.erase(m_lane.begin(), m_lane.begin() + static_cast<std::ptrdiff_t>(m_laneHead));
    m_laneHead = 0;
    std::erase_if(m_lane, [&](const Entry& e) {
        if (!done(e.seq))
            return false;
        release(e);
        return true;
    });
    // Every seq below the lowest live one is done: its bits can go.
    uint64_t lowest = m_nextSeq;
    for (const Entry& e : m_heap)
        lowest = std::min(lowest, e.seq);
    for (const Entry& e : m_lane)
        lowest = std::min(lowest, e.seq);
    m_done.erase(m_done.begin(), m_done.begin() + static_cast<std::ptrdiff_t>(lowest - m_doneBase));
    m_doneBase = lowest;
}

void EventQueue::dropCancelledTop()
{
    while (!m_heap.empty() && done(m_heap.front().seq)) {
        release(m_heap.front());
        popTop();
    }
}

void EventQueue::dropLaneHead()
{
    m_lane.erase(m_lane.begin(), m_lane.begin() + static_cast<std::ptrdiff_t>(m_laneHead));
    m_laneHead = 0;
}

const EventQueue::Entry* EventQueue::top()
{
    if (m_topKnown)
        return m_top;
    m_topKnown = true;
    m_top = nextEntry();
    return m_top;
}

const EventQueue::Entry* EventQueue::nextEntry()
{
    dropCancelledTop();
    while (m_laneHead < m_lane.size() && done(m_lane[m_laneHead].seq)) {
        release(m_lane[m_laneHead]);
        popLane();
    }
    const Entry* heapTop = m_heap.empty() ? nullptr : &m_heap.front();
    if (m_laneHead == m_lane.size())
        return heapTop;
    const Entry* laneTop = &m_lane[m_laneHead];
    return heapTop && before(*heapTop, *laneTop) ? heapTop : laneTop;
}

bool EventQueue::step()
{
    const Entry* next = top();
    if (!next)
        return false;
    const Entry e = *next;
    m_topKnown = false;
    if (!m_heap.empty() && next == m_heap.data())
        popTop();
    else
        popLane();
    m_done[e.seq - m_doneBase] = 1;
    --m_live;
    assert(e.time >= m_now && "simulated time must be monotonic");
    m_now = e.time;
    ++m_executed;
    if (e.kind != kFunctionKind) {
        m_dispatch(m_owner, Event{e.kind, e.a, e.b});
        return true;
    }
    const auto slot = static_cast<uint32_t>(e.a);
    Handler handler = std::move(m_handlers[slot]);
    releaseSlot(slot);
    handler();
    return true;
}

void EventQueue::runUntil(Nanoseconds until)
{
    while (nextTime() <= until)
        step();
    if (until.count() > m_now)
        m_now = until.count();
}

} // namespace schedlab
