// SPDX-License-Identifier: GPL-2.0-or-later
#include "eventqueue.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace schedlab {

EventId EventQueue::schedule(Nanoseconds at, Handler handler, int priority)
{
    if (at < m_now)
        throw std::logic_error("EventQueue: event scheduled in the past");
    const uint64_t seq = m_nextSeq++;
    m_done.push_back(false); // index == seq - m_doneBase
    m_heap.push_back({{at, priority, seq}, std::move(handler)});
    std::push_heap(m_heap.begin(), m_heap.end(), later);
    ++m_live;
    constexpr size_t kBitsSlack = 1 << 16;
    if (m_done.size() > 4 * m_heap.size() + kBitsSlack)
        compact(); // the done-bits of executed events
    return EventId{seq};
}

bool EventQueue::isPending(EventId id) const
{
    return id.valid() && id.seq < m_nextSeq && !done(id.seq);
}

bool EventQueue::cancel(EventId id)
{
    if (!isPending(id))
        return false;
    m_done[id.seq - m_doneBase] = true;
    --m_live;
    constexpr size_t kSlack = 4096;
    if (m_heap.size() > 2 * m_live + kSlack)
        compact();
    return true;
}

void EventQueue::compact()
{
    // Drop cancelled entries and rebuild the heap: the key order decides every pop, so the
    // sequence of executed events is unchanged.
    std::erase_if(m_heap, [&](const Entry& e) { return done(e.key.seq); });
    std::make_heap(m_heap.begin(), m_heap.end(), later);
    // Every seq below the lowest live one is done: its bits can go.
    uint64_t lowest = m_nextSeq;
    for (const Entry& e : m_heap)
        lowest = std::min(lowest, e.key.seq);
    m_done.erase(m_done.begin(), m_done.begin() + static_cast<std::ptrdiff_t>(lowest - m_doneBase));
    m_doneBase = lowest;
}

void EventQueue::dropCancelledTop()
{
    while (!m_heap.empty() && done(m_heap.front().key.seq)) {
        std::pop_heap(m_heap.begin(), m_heap.end(), later);
        m_heap.pop_back();
    }
}

Nanoseconds EventQueue::nextTime()
{
    dropCancelledTop();
    return m_heap.empty() ? Nanoseconds::max() : m_heap.front().key.time;
}

bool EventQueue::step()
{
    dropCancelledTop();
    if (m_heap.empty())
        return false;
    std::pop_heap(m_heap.begin(), m_heap.end(), later);
    Entry entry = std::move(m_heap.back());
    m_heap.pop_back();
    m_done[entry.key.seq - m_doneBase] = true;
    --m_live;
    assert(entry.key.time >= m_now && "simulated time must be monotonic");
    m_now = entry.key.time;
    ++m_executed;
    entry.handler();
    return true;
}

void EventQueue::runUntil(Nanoseconds until)
{
    while (nextTime() <= until)
        step();
    if (until > m_now)
        m_now = until;
}

} // namespace schedlab
