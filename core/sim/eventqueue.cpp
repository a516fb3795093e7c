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
    m_done.push_back(false); // index == seq
    m_heap.push_back({{at, priority, seq}, std::move(handler)});
    std::push_heap(m_heap.begin(), m_heap.end(), later);
    ++m_live;
    return EventId{seq};
}

bool EventQueue::isPending(EventId id) const
{
    return id.valid() && id.seq < m_done.size() && !m_done[id.seq];
}

bool EventQueue::cancel(EventId id)
{
    if (!isPending(id))
        return false;
    m_done[id.seq] = true;
    --m_live;
    return true;
}

void EventQueue::dropCancelledTop()
{
    while (!m_heap.empty() && m_done[m_heap.front().key.seq]) {
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
    m_done[entry.key.seq] = true;
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
