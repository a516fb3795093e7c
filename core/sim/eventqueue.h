// SPDX-License-Identifier: GPL-2.0-or-later
// Discrete-event queue: a 4-ary min-heap keyed by (time, priority, sequence number), so events at
// the same simulated time and priority run in insertion order and every run is reproducible (ns-3's
// EventKey). The keys are unique, so the order of executed events does not depend on how the heap
// is shaped. An event is either a small tagged record (Event: a kind and two integers, held in the
// heap entry itself and handed to the owner's dispatcher, which switches on the kind: no
// allocation, no indirect call per event) or, for rare events, a std::function kept in a pool of
// slots (reused through a free list) that the entry indexes, so sifting moves 40-byte entries and
// never a std::function. Cancellation is lazy: a cancelled event stays in the heap and is skipped
// when it surfaces; when cancelled entries outnumber live ones the heap is rebuilt without them,
// and the done-bits of events long gone are dropped, so memory stays O(live events) however long
// the run and however often events are re-armed (a preempted task's completion far in the future).
//
// Events of a nonzero priority (the periodic ticks, on a common jiffies grid) that are scheduled
// in key order skip the heap: they queue in a FIFO lane, and step() runs the smaller of the heap's
// top and the lane's front. Each executed event is still the least key of all pending ones, so the
// order is the heap's; only the heap holds fewer entries.
//
// Complexity: schedule O(log n) amortised (O(1) into the lane), cancel O(1), isPending O(1), step
// O(log n) amortised.
// Invariant: the time of executed events never decreases (asserted in step()).
#pragma once

#include "core/base/eventid.h"
#include "core/base/time.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace schedlab {

/// A tagged event for the owner's dispatcher (EventQueue::setDispatcher): what it means is the
/// owner's business; kind 0 is reserved for the queue's std::function events.
struct Event
{
    uint32_t kind = 0;
    int32_t a = 0;
    int64_t b = 0;
};

struct EventKey
{
    Nanoseconds time{0};
    int priority = 0; ///< lower runs first among events at the same time
    uint64_t seq = 0;
    friend constexpr auto operator<=>(const EventKey&, const EventKey&) = default;
};

class EventQueue
{
public:
    using Handler = std::function<void()>;
    using Dispatcher = void (*)(void* owner, const Event& event);
    static constexpr uint32_t kFunctionKind = 0;

    /// Tagged events (post()) are run by @p dispatch(@p owner, event).
    void setDispatcher(void* owner, Dispatcher dispatch)
    {
        m_owner = owner;
        m_dispatch = dispatch;
    }

    /// Schedules @p handler at absolute time @p at (>= now()). Among events at the same time,
    /// lower @p priority runs first, then insertion order.
    EventId schedule(Nanoseconds at, Handler handler, int priority = 0);
    /// Schedules the tagged @p event (kind ≠ 0) at @p at, ordered exactly as schedule() orders
    /// (same key: time, priority, insertion order); run by the dispatcher. Inline for an event
    /// of the FIFO lane (a periodic tick re-armed in key order) while the lane and the
    /// done-bytes have room and the done-bytes are fewer than the compaction's slack (so no
    /// compaction is due: it needs more than 4 × stored() + the slack); otherwise insert().
    EventId post(Nanoseconds at, Event event, int priority = 0)
    {
        const uint64_t seq = m_nextSeq;
        const Entry e{at.count(), priority, event.kind, seq, event.a, event.b};
        if (priority != 0 && at.count() >= m_now && event.kind != kFunctionKind && m_dispatch
            && m_done.size() < std::min(m_done.capacity(), kDoneSlack)
            && m_lane.size() < m_lane.capacity()
            && (m_laneHead == m_lane.size() || !before(e, m_lane.back()))) [[likely]] {
            m_nextSeq = seq + 1;
            m_done.push_back(0); // index == seq - m_doneBase
            m_topKnown = false;
            m_lane.push_back(e); // in key order: the lane stays sorted
            ++m_live;
            return EventId{seq};
        }
        return postChecked(at, event, priority);
    }
    /// Cancels a pending event; returns false if it already ran or was cancelled.
    bool cancel(EventId id);
    bool isPending(EventId id) const { return id.valid() && id.seq < m_nextSeq && !done(id.seq); }

    /// Runs the next event; returns false if the queue is empty.
    bool step();
    /// Runs every event with time <= @p until, then sets now() to @p until.
    void runUntil(Nanoseconds until);

    Nanoseconds now() const { return Nanoseconds(m_now); }
    /// now() in ns, where it is kept (MachineContext::clock() reads it in place).
    const int64_t& nowNs() const { return m_now; }
    bool empty() const { return m_live == 0; }
    size_t pending() const { return m_live; }
    /// Time of the next live event, or Nanoseconds::max() when empty. Inline while top() is
    /// known (the event loop asks, then runs it).
    Nanoseconds nextTime()
    {
        const Entry* e = m_topKnown ? m_top : top();
        return e ? Nanoseconds(e->time) : Nanoseconds::max();
    }
    uint64_t executed() const { return m_executed; }
    /// Entries held (live + cancelled not yet dropped): bounded by about 2 × pending() + a slack.
    size_t stored() const { return m_heap.size() + m_lane.size() - m_laneHead; }

private:
    struct Entry
    {
        int64_t time;
        int32_t priority;
        uint32_t kind; ///< Event::kind; kFunctionKind: ev.a indexes m_handlers
        uint64_t seq;
        int32_t a;
        int64_t b;
    };
    /// The done-bytes held before insert() considers a compaction (4 × stored() + this).
    static constexpr size_t kDoneSlack = size_t{1} << 16;
    EventId postChecked(Nanoseconds at, Event event, int priority);
    EventId insert(Nanoseconds at, int priority, const Event& ev);
    static bool before(const Entry& a, const Entry& b)
    {
        if (a.time != b.time)
            return a.time < b.time;
        if (a.priority != b.priority)
            return a.priority < b.priority;
        return a.seq < b.seq;
    }
    /// The earliest child of entry @p i among the first @p n entries; @p n if it has none.
    size_t leastChild(size_t i, size_t n) const;
    void siftUp(size_t i);
    void siftDown(size_t i);
    void popTop();
    void releaseSlot(uint32_t slot);
    void release(const Entry& e)
    {
        if (e.kind == kFunctionKind)
            releaseSlot(static_cast<uint32_t>(e.a));
    }
    void dropCancelledTop();
    /// The next entry to run (heap top or lane front, cancelled ones dropped); null if none.
    const Entry* top();
    const Entry* nextEntry();
    void popLane()
    {
        if (++m_laneHead == m_lane.size()) {
            m_lane.clear();
            m_laneHead = 0;
        } else if (m_laneHead >= 256 && 2 * m_laneHead >= m_lane.size()) {
            dropLaneHead();
        }
    }
    /// popLane()'s rare half: the lane's executed front erased.
    void dropLaneHead();
    bool done(uint64_t seq) const { return seq < m_doneBase || m_done[seq - m_doneBase] != 0; }
    void compact();

    std::vector<Entry> m_heap;
    std::vector<Entry> m_lane; ///< the FIFO lane, in key order from m_laneHead on
    size_t m_laneHead = 0;
    /// top()'s answer until the queue changes (the loop asks for the next time, then runs it).
    const Entry* m_top = nullptr;
    bool m_topKnown = false;
    std::vector<Handler>
        m_handlers; ///< slots of function events; a free one holds an empty handler
    std::vector<uint32_t> m_freeSlots;
    // Executed or cancelled, by seq - m_doneBase; every seq below m_doneBase is done. Seq 0 is
    // the "none" id.
    std::vector<uint8_t> m_done{1}; // bytes, not bits: cheaper to test and set per event
    uint64_t m_doneBase = 0;
    int64_t m_now = 0;
    uint64_t m_nextSeq = 1;
    uint64_t m_executed = 0;
    size_t m_live = 0;
    void* m_owner = nullptr;
    Dispatcher m_dispatch = nullptr;
};

} // namespace schedlab
