// SPDX-License-Identifier: GPL-2.0-or-later
// One record of a run (core/README.md; its text form: docs/README.md): 48 bytes, kept by a
// Recording (recording.h), in memory in a compact form (compactrecords.h).
#pragma once

#include <cstdint>

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

} // namespace schedlab
