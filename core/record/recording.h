// SPDX-License-Identifier: GPL-2.0-or-later
// The append-only recording of a run (core/README.md; its text form: docs/README.md): fixed 48-byte
// records, so the whole run of a seed scenario fits in memory and can be re-read by plots, metrics
// and exports. vruntime is piecewise linear between two samples of the same entity, so plots are
// exact.
#pragma once

#include "core/base/time.h"

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

/// Identifies an entity in records: a task (>= 0) or a group entity (group index, cpu).
struct EntityRef
{
    int32_t raw = -1;
    static constexpr int32_t kGroupBit = 0x40000000;
    static EntityRef task(int32_t taskIndex) { return {taskIndex}; }
    static EntityRef group(int32_t groupIndex, int32_t cpu)
    {
        return {kGroupBit | (groupIndex << 12) | (cpu & 0xfff)};
    }
    bool valid() const { return raw >= 0; }
    bool isTask() const { return raw >= 0 && !(raw & kGroupBit); }
    bool isGroup() const { return raw >= 0 && (raw & kGroupBit); }
    int32_t taskIndex() const { return raw; }
    int32_t groupIndex() const { return (raw & ~kGroupBit) >> 12; }
    int32_t groupCpu() const { return raw & 0xfff; }
    friend bool operator==(EntityRef, EntityRef) = default;
};

enum class RecordKind : uint8_t {
    Switch,        ///< cpu switches from `entity` (prev task, -1 idle) to `a` (next task, -1 idle)
    Wakeup,        ///< task becomes runnable; a = target cpu
    Enqueue,       ///< entity joins its cfs_rq; a = flags
    Dequeue,       ///< entity leaves its cfs_rq; a = flags
    Delay,         ///< entity stays queued as delayed (DELAY_DEQUEUE)
    Place,         ///< place_entity: a = V, b = lag used, c = vlag before
    DeadlineRenew, ///< update_deadline: a = new deadline, b = slice
    Reweight,      ///< a = old weight, b = new weight
    Sample,        ///< entity state: see Payload::sample
    Migrate,       ///< task moves: a = from cpu, b = to cpu, c = why, d = detail (migration.h)
    Spawn,         ///< task created; a = parent task or -1; placed by fork balancing away from
                   ///< the parent's CPU: b = that CPU, c = MigrateReason::Fork, d = detail
    Exit,          ///< task exits
    Yield,         ///< sched_yield
    Feature,       ///< feature toggled: a = feature index, b = on
    Tick,          ///< not recorded by default (too many); kept for completeness
    Throttle,      ///< a group's cfs_rq (entity = group@cpu) is throttled; a = runtime_remaining
    Unthrottle,    ///< it is unthrottled; a = runtime_remaining, b = 1 for a wakeup boost
    Park,          ///< 6.18+: a task of a throttled hierarchy is parked at return to user
    Pelt,          ///< follows a Sample when RunOptions::recordPelt: see Payload::pelt
    MaxSlice,      ///< RunOptions::recordMaxSlice: the largest slice queued on the cfs_rq of
                   ///< group b (0 = root) on `cpu` is now a (ns; 0: empty), as the sample of
                   ///< `entity` just before found it (kernel-model.md §4.1)
};

struct Record
{
    int64_t time = 0;
    EntityRef entity;
    uint16_t cpu = 0;
    RecordKind kind = RecordKind::Switch;
    uint8_t flags = 0; ///< Sample: bit0 eligible, bit1 vlag saturated, bit2 curr, bit3 delayed,
                       ///< bit4 queued (on_rq)
    union Payload {
        struct
        {
            int64_t a, b, c, d;
        } generic;
        struct
        {
            uint64_t vruntime;
            uint64_t deadline;
            uint64_t avgVruntime; ///< V of the cfs_rq the entity is queued on
            int32_t vlag;         ///< saturated to int32 (flag bit1)
            uint32_t weight;      ///< scaled load weight (≤ 2^28 for any task or group)
        } sample;
        struct
        {
            uint32_t loadAvg, runnableAvg, utilAvg;       ///< the entity's (§6.6), saturated
            uint32_t rqLoadAvg, rqRunnableAvg, rqUtilAvg; ///< its cfs_rq's
            int32_t hNrQueued, hNrRunnable;               ///< its cfs_rq's task counts (§5.4)
        } pelt;
    } payload{};

    static constexpr uint8_t kEligible = 1;
    static constexpr uint8_t kVlagSaturated = 2;
    static constexpr uint8_t kCurr = 4;
    static constexpr uint8_t kDelayed = 8;
    static constexpr uint8_t kQueued = 16; ///< on its cfs_rq (running, waiting or delayed)
};
static_assert(sizeof(Record) == 48, "a recorded event must stay within 48 bytes");

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

class Recording
{
public:
    void append(const Record& r)
    {
        if (m_records.size() == m_records.capacity())
            grow();
        m_records.push_back(r);
    }
    /// Storage never grows past @p bytes plus a little slack (the simulation stops its run at
    /// the limit, a few records later), so a doubling cannot overshoot a resource guard.
    void setCapacityLimit(uint64_t bytes) { m_capacityLimit = bytes / sizeof(Record); }
    /// The records kept in memory: all of them, or when streaming only the chunk not yet handed
    /// to the sink.
    const std::vector<Record>& records() const { return m_records; }
    Record& lastRecord() { return m_records.back(); }
    /// Records appended so far (streamed ones included) and their size.
    size_t size() const { return m_streamed + m_records.size(); }
    size_t bytes() const { return size() * sizeof(Record); }

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
    void reserve(size_t n) { m_records.reserve(n); }
    void clear() { m_records.clear(); }

    /// Names for display (filled by the simulation as tasks and groups appear).
    std::vector<std::string> taskNames;
    std::vector<std::string> groupPaths;
    int cpus = 1;

private:
    void grow();
    std::vector<Record> m_records;
    uint64_t m_capacityLimit = 0; ///< records; 0 = none
    RecordSink* m_sink = nullptr;
    bool m_streaming = false;
    size_t m_streamed = 0; ///< records handed to the sink (or dropped) so far
};

/// Display name of an entity: the task name, "idle", or "/group@cpu".
std::string entityName(EntityRef e, const Recording& names);

/// One line per record in a stable text format for golden files and diffs:
///   t=1200000 cpu0 switch t1->t2
std::string formatRecord(const Record& r, const Recording& names);

} // namespace schedlab
