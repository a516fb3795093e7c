// SPDX-License-Identifier: GPL-2.0-or-later
// The append-only recording of a run (core/README.md; its text form: docs/README.md): fixed 48-byte
// records, so the whole run of a seed scenario fits in memory and can be re-read by plots, metrics
// and exports. vruntime is piecewise linear between two samples of the same entity, so plots are
// exact.
#pragma once

#include "core/base/time.h"
#include "core/record/compactrecords.h"
#include "core/record/record.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace schedlab {

class Recording;

/// Receives a run's records in order, a chunk at a time, when the Recording streams
/// (Recording::streamTo): exports written while the simulation runs (core/record/streamexport.h).
class RecordSink
{
public:
    virtual ~RecordSink() = default;
    /// @p names holds the names of every entity the records mention.
    virtual void consume(const Record* records, size_t count, const Recording& names) = 0;
};

/// The records a Recording keeps, read by value (each a decoded copy of the 48-byte record): a
/// random-access range over positions 0 … size() − 1. Valid while the Recording lives; appending
/// adds positions at the end and moves none.
class RecordsView
{
public:
    RecordsView() = default;
    explicit RecordsView(const Recording* recording)
        : m_recording(recording)
    { }
    size_t size() const;
    bool empty() const { return size() == 0; }
    Record operator[](size_t i) const;
    Record front() const { return (*this)[0]; }
    Record back() const { return (*this)[size() - 1]; }
    /// Records [@p first, @p first + @p count) decoded into @p out (faster than one by one).
    void copy(size_t first, size_t count, Record* out) const;
    /// Every record, decoded (a copy: 48 bytes each).
    std::vector<Record> toVector() const
    {
        std::vector<Record> all(size());
        copy(0, all.size(), all.data());
        return all;
    }
    /// Asks the caches for record @p i ahead of a read of it.
    void prefetch(size_t i) const;

    class iterator
    {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Record;
        using difference_type = std::ptrdiff_t;
        using reference = Record;
        struct pointer
        {
            Record r;
            const Record* operator->() const { return &r; }
        };
        iterator() = default;
        iterator(const Recording* recording, size_t i)
            : m_recording(recording)
            , m_i(i)
        { }
        Record operator*() const;
        pointer operator->() const { return {**this}; }
        Record operator[](difference_type n) const { return *(*this + n); }
        iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        iterator operator++(int)
        {
            iterator t = *this;
            ++m_i;
            return t;
        }
        iterator& operator--()
        {
            --m_i;
            return *this;
        }
        iterator operator--(int)
        {
            iterator t = *this;
            --m_i;
            return t;
        }
        iterator& operator+=(difference_type n)
        {
            m_i = static_cast<size_t>(static_cast<difference_type>(m_i) + n);
            return *this;
        }
        iterator& operator-=(difference_type n) { return *this += -n; }
        friend iterator operator+(iterator a, difference_type n) { return a += n; }
        friend iterator operator+(difference_type n, iterator a) { return a += n; }
        friend iterator operator-(iterator a, difference_type n) { return a -= n; }
        friend difference_type operator-(const iterator& a, const iterator& b)
        {
            return static_cast<difference_type>(a.m_i) - static_cast<difference_type>(b.m_i);
        }
        friend bool operator==(const iterator& a, const iterator& b) { return a.m_i == b.m_i; }
        friend auto operator<=>(const iterator& a, const iterator& b) { return a.m_i <=> b.m_i; }
        size_t position() const { return m_i; }

    private:
        const Recording* m_recording = nullptr;
        size_t m_i = 0;
    };
    using const_iterator = iterator;
    iterator begin() const { return {m_recording, 0}; }
    iterator end() const { return {m_recording, size()}; }

private:
    const Recording* m_recording = nullptr;
};

class Recording
{
public:
    void append(const Record& r)
    {
        if (m_records.size() == m_records.capacity())
            grow();
        m_records.push_back(r);
    }
    /// The simulation stops its run once bytes() reaches its recording-bytes guard (a few records
    /// later); the kept records take less memory than bytes() says (memoryBytes()).
    void setCapacityLimit(uint64_t bytes) { m_capacityLimit = bytes / sizeof(Record); }
    /// The records kept in memory: all of them, or when streaming only the chunk not yet handed
    /// to the sink. All but the last few thousand are held compactly (CompactRecords) and
    /// decoded where they are read, each exactly the record appended.
    RecordsView records() const { return RecordsView(this); }
    /// The kept record at @p i (records()[i]).
    Record record(size_t i) const
    {
        const size_t sealed = m_sealed.size();
        return i < sealed ? m_sealed.at(i) : m_records[i - sealed];
    }
    size_t keptCount() const { return m_sealed.size() + m_records.size(); }
    /// Records [@p first, @p first + @p count) of the kept ones into @p out.
    void copyRecords(size_t first, size_t count, Record* out) const;
    void prefetchRecord(size_t i) const
    {
        if (i < m_sealed.size())
            m_sealed.prefetch(i);
    }
    Record& lastRecord() { return m_records.back(); }
    /// Records appended so far (streamed ones included) and their size.
    size_t size() const { return m_streamed + keptCount(); }
    size_t bytes() const { return size() * sizeof(Record); }
    /// Memory the kept records take (compact part and the last records as they were appended).
    size_t memoryBytes() const { return m_sealed.bytes() + m_records.capacity() * sizeof(Record); }

    /// Streaming: from now on records go to @p sink (nullptr: dropped) a chunk of kStreamChunk
    /// at a time instead of being kept, so memory no longer grows with the run; the records kept
    /// so far are handed over first. size() and bytes() still count every record (metrics and the
    /// recording-bytes guard are unchanged). The last record stays in memory until the next
    /// append (lastRecord()). Call flushStream() at the end of the run.
    void streamTo(RecordSink* sink);
    void flushStream();
    bool streaming() const { return m_streaming; }
    /// Streaming to no sink: nothing will read the records, so the simulation counts them
    /// (drop()) instead of building them; size() and bytes() are the same either way.
    bool discarding() const { return m_streaming && !m_sink; }
    /// Counts one record that nothing reads (only while discarding()).
    void drop() { ++m_streamed; }
    static constexpr size_t kStreamChunk = 8192;
    /// Records kept as appended before they are made compact (a multiple of
    /// CompactRecords::kGroup).
    static constexpr size_t kTail = 4096;
    void reserve(size_t n) { m_records.reserve(std::min(n, kTail)); }
    void clear()
    {
        m_sealed.clear();
        m_records.clear();
    }

    /// Names for display (filled by the simulation as tasks and groups appear).
    std::vector<std::string> taskNames;
    std::vector<std::string> groupPaths;
    int cpus = 1;

private:
    void grow();
    CompactRecords m_sealed;       ///< the kept records but the last ones, compact
    std::vector<Record> m_records; ///< the last ones (at most kTail), or the streamed chunk
    uint64_t m_capacityLimit = 0;  ///< records; 0 = none
    RecordSink* m_sink = nullptr;
    bool m_streaming = false;
    size_t m_streamed = 0; ///< records handed to the sink (or dropped) so far
};

inline size_t RecordsView::size() const
{
    return m_recording->keptCount();
}
inline Record RecordsView::operator[](size_t i) const
{
    return m_recording->record(i);
}
inline Record RecordsView::iterator::operator*() const
{
    return m_recording->record(m_i);
}
inline void RecordsView::copy(size_t first, size_t count, Record* out) const
{
    m_recording->copyRecords(first, count, out);
}

inline void RecordsView::prefetch(size_t i) const
{
    m_recording->prefetchRecord(i);
}

/// Calls @p fn(record, the record after it or nullptr, its position) for the kept records
/// [@p first, @p last) of @p recording in order, decoded a block at a time.
template <class Fn>
void forEachRecord(const Recording& recording, size_t first, size_t last, Fn&& fn)
{
    constexpr size_t kBlock = 1024;
    if (first >= last)
        return;
    std::vector<Record> block(std::min(kBlock, last - first) + 1);
    const size_t kept = recording.keptCount();
    for (size_t at = first; at < last; at += kBlock) {
        const size_t n = std::min(kBlock, last - at);
        const size_t withNext = std::min(n + 1, kept - at);
        recording.copyRecords(at, withNext, block.data());
        for (size_t k = 0; k < n; ++k)
            fn(block[k], k + 1 < withNext ? &block[k + 1] : nullptr, at + k);
    }
}

/// Display name of an entity: the task name, "idle", or "/group@cpu".
std::string entityName(EntityRef e, const Recording& names);

/// One line per record in a stable text format for golden files and diffs:
///   t=1200000 cpu0 switch t1->t2
std::string formatRecord(const Record& r, const Recording& names);

} // namespace schedlab
