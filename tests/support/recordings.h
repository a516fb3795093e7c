// SPDX-License-Identifier: GPL-2.0-or-later
// Building and comparing Recordings by hand, shared by the tests: a switch record, and byte
// equality of two recordings (a rewind or a reload must give exactly a fresh run's records).
#pragma once

#include "core/record/recording.h"

#include <cstdint>
#include <cstring>

namespace schedlab::test {

/// A Switch record at @p time on @p cpu to task @p next (−1: idle).
inline Record switchRecord(int64_t time, int cpu, int next)
{
    Record r;
    r.time = time;
    r.cpu = static_cast<uint16_t>(cpu);
    r.kind = RecordKind::Switch;
    r.payload.generic.a = next;
    return r;
}

/// Same records, byte for byte.
inline bool sameRecords(const Recording& a, const Recording& b)
{
    const auto& ra = a.records();
    const auto& rb = b.records();
    return ra.size() == rb.size()
        && (ra.empty() || std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(ra[0])) == 0);
}

} // namespace schedlab::test
