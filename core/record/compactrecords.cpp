// SPDX-License-Identifier: GPL-2.0-or-later
#include "compactrecords.h"

#include <algorithm>
#include <cstring>

// Layout. A group starts with the time of its first record (zig-zag varint), then holds each
// record as one length byte and the record's bytes:
//   time − the time of the record before it (zig-zag varint of the wrapped difference; the
//   group's time for the first), entity (varint of encodeEntity()), cpu (varint), kind, flags,
//   then the payload by kind:
//   - Sample: vruntime (varint), deadline − vruntime and V − vruntime (zig-zag varints of the
//     wrapped 64-bit differences), vlag − clamp(V − vruntime) (zig-zag varint: 0 for a queued
//     entity, whose vlag is that difference), weight (varint);
//   - Pelt: its eight 32-bit values (varints; zig-zag for the two counts);
//   - any other kind: a byte with one bit per non-zero word of generic a, b, c, d, then those
//     words (zig-zag varints).
// Every field is a bijection of the record's bytes (a Record has no padding: 16 bytes of header
// and 32 of payload, whichever view of the union the kind uses), so decodeOne(encode(r)) is r
// byte for byte, for any values.

namespace schedlab {

namespace {

inline uint8_t* putVarint(uint8_t* out, uint64_t v)
{
    while (v >= 0x80) {
        *out++ = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    *out++ = static_cast<uint8_t>(v);
    return out;
}

inline uint64_t getVarint(const uint8_t*& in)
{
    uint64_t v = *in++;
    if (v < 0x80)
        return v;
    v &= 0x7f;
    for (unsigned shift = 7;; shift += 7) {
        const uint64_t b = *in++;
        v |= (b & 0x7f) << shift;
        if (b < 0x80)
            return v;
    }
}

/// Zig-zag: small magnitudes of either sign as small numbers (two's complement, wrapping).
inline uint64_t zig(uint64_t v)
{
    return (v << 1) ^ (0 - (v >> 63));
}
inline uint64_t unzig(uint64_t v)
{
    return (v >> 1) ^ (0 - (v & 1));
}

inline uint64_t wordAt(const Record& r, int k)
{
    uint64_t w;
    std::memcpy(&w, reinterpret_cast<const uint8_t*>(&r.payload) + 8 * k, 8);
    return w;
}
inline void setWord(Record& r, int k, uint64_t w)
{
    std::memcpy(reinterpret_cast<uint8_t*>(&r.payload) + 8 * k, &w, 8);
}

/// The lag a sample would carry were its entity queued: V − v, saturated as the sample is.
inline int64_t queuedLag(uint64_t avg, uint64_t vruntime)
{
    const auto d = static_cast<int64_t>(avg - vruntime);
    return std::clamp<int64_t>(d, INT32_MIN, INT32_MAX);
}

} // namespace

CompactRecords::CompactRecords(const CompactRecords& other)
    : m_groups(other.m_groups)
    , m_pageUsed(other.m_pageUsed)
    , m_count(other.m_count)
    , m_encoded(other.m_encoded)
{
    m_pages.reserve(other.m_pages.size());
    for (size_t i = 0; i < other.m_pages.size(); ++i) {
        m_pages.push_back(std::make_unique_for_overwrite<uint8_t[]>(kPageBytes));
        const size_t used = i + 1 == other.m_pages.size() ? other.m_pageUsed : kPageBytes;
        std::memcpy(m_pages.back().get(), other.m_pages[i].get(), used);
    }
}

CompactRecords& CompactRecords::operator=(const CompactRecords& other)
{
    if (this != &other)
        *this = CompactRecords(other);
    return *this;
}

uint64_t CompactRecords::encodeEntity(EntityRef e)
{
    const int32_t raw = e.raw;
    if (raw < 0) // ~raw < 2^31
        return (static_cast<uint64_t>(~raw) << 2) | 2;
    if (raw & EntityRef::kGroupBit) // group entity: index << 12 | cpu, below 2^30
        return (static_cast<uint64_t>(raw & ~EntityRef::kGroupBit) << 2) | 1;
    return static_cast<uint64_t>(raw) << 2; // task: below 2^30
}

EntityRef CompactRecords::decodeEntity(uint64_t v)
{
    const auto body = static_cast<int32_t>(v >> 2);
    switch (v & 3) {
    case 2:
        return {~body};
    case 1:
        return {body | EntityRef::kGroupBit};
    default:
        return {body};
    }
}

size_t CompactRecords::encode(const Record& r, int64_t base, uint8_t* out)
{
    uint8_t* p = out;
    p = putVarint(p, zig(static_cast<uint64_t>(r.time) - static_cast<uint64_t>(base)));
    p = putVarint(p, encodeEntity(r.entity));
    p = putVarint(p, r.cpu);
    *p++ = static_cast<uint8_t>(r.kind);
    *p++ = r.flags;
    if (r.kind == RecordKind::Sample) {
        const auto& s = r.payload.sample;
        p = putVarint(p, s.vruntime);
        p = putVarint(p, zig(s.deadline - s.vruntime));
        p = putVarint(p, zig(s.avgVruntime - s.vruntime));
        p = putVarint(
            p, zig(static_cast<uint64_t>(int64_t{s.vlag} - queuedLag(s.avgVruntime, s.vruntime))));
        p = putVarint(p, s.weight);
    } else if (r.kind == RecordKind::Pelt) {
        const auto& q = r.payload.pelt;
        for (const uint32_t v :
            {q.loadAvg, q.runnableAvg, q.utilAvg, q.rqLoadAvg, q.rqRunnableAvg, q.rqUtilAvg})
            p = putVarint(p, v);
        p = putVarint(p, zig(static_cast<uint64_t>(int64_t{q.hNrQueued})));
        p = putVarint(p, zig(static_cast<uint64_t>(int64_t{q.hNrRunnable})));
    } else {
        uint8_t* mask = p++;
        *mask = 0;
        for (int k = 0; k < 4; ++k)
            if (const uint64_t w = wordAt(r, k)) {
                *mask = static_cast<uint8_t>(*mask | (1u << k));
                p = putVarint(p, zig(w));
            }
    }
    return static_cast<size_t>(p - out);
}

Record CompactRecords::decodeOne(const uint8_t* in, int64_t base)
{
    Record r;
    r.time = static_cast<int64_t>(static_cast<uint64_t>(base) + unzig(getVarint(in)));
    r.entity = decodeEntity(getVarint(in));
    r.cpu = static_cast<uint16_t>(getVarint(in));
    r.kind = static_cast<RecordKind>(*in++);
    r.flags = *in++;
    if (r.kind == RecordKind::Sample) {
        auto& s = r.payload.sample;
        s.vruntime = getVarint(in);
        s.deadline = s.vruntime + unzig(getVarint(in));
        s.avgVruntime = s.vruntime + unzig(getVarint(in));
        s.vlag = static_cast<int32_t>(
            static_cast<int64_t>(unzig(getVarint(in))) + queuedLag(s.avgVruntime, s.vruntime));
        s.weight = static_cast<uint32_t>(getVarint(in));
    } else if (r.kind == RecordKind::Pelt) {
        auto& q = r.payload.pelt;
        for (uint32_t* v :
            {&q.loadAvg, &q.runnableAvg, &q.utilAvg, &q.rqLoadAvg, &q.rqRunnableAvg, &q.rqUtilAvg})
            *v = static_cast<uint32_t>(getVarint(in));
        q.hNrQueued = static_cast<int32_t>(static_cast<int64_t>(unzig(getVarint(in))));
        q.hNrRunnable = static_cast<int32_t>(static_cast<int64_t>(unzig(getVarint(in))));
    } else {
        const uint8_t mask = *in++;
        for (int k = 0; k < 4; ++k)
            if (mask & (1u << k))
                setWord(r, k, unzig(getVarint(in)));
    }
    return r;
}

void CompactRecords::append(const Record* records, size_t count)
{
    uint8_t buffer[kMaxGroupBytes];
    for (size_t first = 0; first < count; first += kGroup) {
        const size_t n = std::min(kGroup, count - first);
        int64_t previous = records[first].time; // each record's time against the one before
        uint8_t* p = putVarint(buffer, zig(static_cast<uint64_t>(previous)));
        for (size_t i = first; i < first + n; ++i) {
            const size_t len = encode(records[i], previous, p + 1);
            previous = records[i].time;
            *p = static_cast<uint8_t>(len);
            p += 1 + len;
        }
        const auto used = static_cast<size_t>(p - buffer);
        if (m_pageUsed + used > kPageBytes) {
            m_pages.push_back(std::make_unique_for_overwrite<uint8_t[]>(kPageBytes));
            m_pageUsed = 0;
        }
        std::memcpy(m_pages.back().get() + m_pageUsed, buffer, used);
        m_groups.push_back((m_pages.size() - 1) * kPageBytes + m_pageUsed);
        m_pageUsed += used;
        m_encoded += used;
        m_count += n;
    }
}

Record CompactRecords::at(size_t i) const
{
    const uint8_t* p = groupStart(i / kGroup);
    uint64_t time = unzig(getVarint(p));
    for (size_t k = i % kGroup; k > 0; --k) { // the records before it: their times only
        const uint8_t* q = p + 1;
        time += unzig(getVarint(q));
        p += 1 + *p;
    }
    return decodeOne(p + 1, static_cast<int64_t>(time));
}

void CompactRecords::decode(size_t first, size_t count, Record* out) const
{
    size_t i = first;
    const size_t end = first + count;
    while (i < end) {
        const uint8_t* p = groupStart(i / kGroup);
        uint64_t time = unzig(getVarint(p));
        for (size_t k = i % kGroup; k > 0; --k) {
            const uint8_t* q = p + 1;
            time += unzig(getVarint(q));
            p += 1 + *p;
        }
        const size_t groupEnd = std::min(end, (i / kGroup + 1) * kGroup);
        for (; i < groupEnd; ++i) {
            *out = decodeOne(p + 1, static_cast<int64_t>(time));
            time = static_cast<uint64_t>(out->time);
            ++out;
            p += 1 + *p;
        }
    }
}

size_t CompactRecords::bytes() const
{
    return m_pages.size() * kPageBytes + m_groups.capacity() * sizeof(uint64_t)
        + m_pages.capacity() * sizeof(m_pages[0]);
}

void CompactRecords::clear()
{
    m_pages.clear();
    m_groups.clear();
    m_pageUsed = kPageBytes;
    m_count = 0;
    m_encoded = 0;
}

} // namespace schedlab
