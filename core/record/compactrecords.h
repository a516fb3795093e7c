// SPDX-License-Identifier: GPL-2.0-or-later
// The kept part of a Recording in a compact form (docs/limits.md, "Memory"): each record's 48
// bytes as variable-length integers, per kind only what it needs, decoded back to exactly the
// same 48 bytes when read (the layout: compactrecords.cpp). Records are encoded in groups of
// kGroup; groups live in pages of kPageBytes that never move, and the position of each group is
// kept, so reading record i decodes the lengths and times of the records before it in its group,
// then the record itself.
#pragma once

#include "core/record/record.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace schedlab {

class CompactRecords
{
public:
    static constexpr size_t kGroup = 16;
    static constexpr size_t kPageBytes = size_t{1} << 18;
    /// Bytes of one encoded record after its length byte: at most time 10, entity 5, cpu 3, kind
    /// and flags 2, payload 1 + 4 × 10.
    static constexpr size_t kMaxRecordBytes = 10 + 5 + 3 + 2 + 1 + 40;
    static constexpr size_t kMaxGroupBytes = 10 + kGroup * (1 + kMaxRecordBytes);

    CompactRecords() = default;
    CompactRecords(const CompactRecords& other);
    CompactRecords& operator=(const CompactRecords& other);
    CompactRecords(CompactRecords&&) noexcept = default;
    CompactRecords& operator=(CompactRecords&&) noexcept = default;

    /// Appends @p count records; every call but the last must append a multiple of kGroup.
    void append(const Record* records, size_t count);
    size_t size() const { return m_count; }
    Record at(size_t i) const;
    /// Decodes records [@p first, @p first + @p count) into @p out, faster than at() one by one.
    void decode(size_t first, size_t count, Record* out) const;
    /// Asks the caches for the group of record @p i.
    void prefetch(size_t i) const
    {
        const uint8_t* p = groupStart(i / kGroup);
        __builtin_prefetch(p);
        __builtin_prefetch(p + 64);
    }
    /// Memory held: the pages, the group positions.
    size_t bytes() const;
    /// Encoded bytes written so far (without the pages' unused room or the group positions).
    size_t encodedBytes() const { return m_encoded; }
    void clear();

    /// One record's encoding, its time relative to @p base (the record before it in its group,
    /// or for the first the group's own time), without its length byte: the number of bytes
    /// written to @p out (room for kMaxRecordBytes).
    static size_t encode(const Record& r, int64_t base, uint8_t* out);
    /// The record encoded at @p in relative to @p base.
    static Record decodeOne(const uint8_t* in, int64_t base);
    /// The entity as a non-negative number, small for tasks and group entities.
    static uint64_t encodeEntity(EntityRef e);
    static EntityRef decodeEntity(uint64_t v);

private:
    /// Where group @p g starts.
    const uint8_t* groupStart(size_t g) const
    {
        const uint64_t at = m_groups[g];
        return m_pages[at / kPageBytes].get() + at % kPageBytes;
    }
    std::vector<std::unique_ptr<uint8_t[]>> m_pages;
    std::vector<uint64_t> m_groups; ///< page × kPageBytes + offset of each group
    size_t m_pageUsed = kPageBytes; ///< bytes used in the last page
    size_t m_count = 0;
    size_t m_encoded = 0;
};

} // namespace schedlab
