// SPDX-License-Identifier: GPL-2.0-or-later
// Why a task changed CPU, as carried by a RecordKind::Migrate record (c = reason, d = packed
// detail): which path moved it (wakeup placement, fork/exec balancing, a periodic, new-idle or
// NOHZ idle balance, active balance through the stopper, an affinity change, the RT push/pull)
// and, for balancing, at which sched-domain level and with which group and migration type
// (kernel-model.md §8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace schedlab {

enum class MigrateReason : uint8_t {
    Unknown,   ///< not said (an imported trace, an older recording)
    Wakeup,    ///< select_task_rq_fair() at try_to_wake_up()
    Fork,      ///< sched_balance_find_dst_cpu() for a new task (wake_up_new_task())
    Exec,      ///< sched_balance_find_dst_cpu() at exec (sched_exec())
    Affinity,  ///< sched_setaffinity()/cpuset: the current CPU is no longer allowed
    Periodic,  ///< sched_balance_rq() from the tick's balance softirq
    NewIdle,   ///< sched_balance_newidle(): the CPU was about to go idle
    NohzIdle,  ///< the NOHZ idle balance run on behalf of an idle CPU
    Active,    ///< active balance: the stopper pushed a running task
    Rt,        ///< the RT class's push/pull
    CoreSteal, ///< core scheduling moved a task with a matching cookie to an idle sibling
    Other,     ///< any other path (a scenario action that names the CPU)
    Dl,        ///< the deadline class's push/pull
};
constexpr size_t kMigrateReasonCount = size_t(MigrateReason::Dl) + 1;

/// Sched-domain levels (the kernel's default x86 topology).
enum class DomainLevel : uint8_t { None, Smt, Mc, Pkg, Numa };
/// group_type of update_sd_lb_stats(), in the kernel's order of increasing severity.
enum class GroupType : uint8_t {
    None,
    HasSpare,
    FullyBusy,
    MisfitTask,
    SmtBalance,
    AsymPacking,
    Imbalanced,
    Overloaded
};
/// migration_type of calculate_imbalance().
enum class MigrationType : uint8_t { None, Load, Util, Task, Misfit };
/// Which step of select_idle_sibling()/wake_affine()/find_idlest chose the CPU at a wakeup or fork.
enum class WakePath : uint8_t {
    None,
    PrevIdle,
    TargetIdle,
    RecentUsed,
    IdleCore,
    IdleCpu,
    IdleSibling,
    Fallback,
    Idlest,
    AffinePrev,
    AffineWaker,
    IdleCapacity ///< select_idle_capacity() on a machine of differing CPU capacities
};

/// The packed `d` of a Migrate record: one byte per field.
struct MigrateDetail
{
    DomainLevel level = DomainLevel::None;
    GroupType busiestGroup = GroupType::None;
    MigrationType migration = MigrationType::None;
    WakePath wake = WakePath::None;

    int64_t pack() const
    {
        return int64_t(uint8_t(level)) | int64_t(uint8_t(busiestGroup)) << 8
            | int64_t(uint8_t(migration)) << 16 | int64_t(uint8_t(wake)) << 24;
    }
    static MigrateDetail unpack(int64_t d)
    {
        return {DomainLevel(uint8_t(d)), GroupType(uint8_t(d >> 8)),
            MigrationType(uint8_t(d >> 16)), WakePath(uint8_t(d >> 24))};
    }
};

const char* migrateReasonName(MigrateReason reason);
const char* domainLevelName(DomainLevel level);
const char* groupTypeName(GroupType type);
const char* migrationTypeName(MigrationType type);
const char* wakePathName(WakePath path);

/// "periodic MC overloaded/load", "wakeup idle-core", "affinity": for the event log, the
/// inspector and the text form of a recording; empty for Unknown.
std::string describeMigration(int64_t reason, int64_t detail);

} // namespace schedlab
