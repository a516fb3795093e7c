// SPDX-License-Identifier: GPL-2.0-or-later
#include "migration.h"

namespace schedlab {

namespace {

template <size_t N> const char* nameOf(const char* const (&names)[N], uint8_t value)
{
    return value < N ? names[value] : "?";
}

} // namespace

const char* migrateReasonName(MigrateReason reason)
{
    static const char* const names[] = {"", "wakeup", "fork", "exec", "affinity", "periodic",
        "newidle", "nohz-idle", "active", "rt", "core-steal", "other", "dl"};
    return nameOf(names, uint8_t(reason));
}

const char* domainLevelName(DomainLevel level)
{
    static const char* const names[] = {"", "SMT", "MC", "PKG", "NUMA"};
    return nameOf(names, uint8_t(level));
}

const char* groupTypeName(GroupType type)
{
    static const char* const names[] = {"", "has_spare", "fully_busy", "misfit_task", "smt_balance",
        "asym_packing", "imbalanced", "overloaded"};
    return nameOf(names, uint8_t(type));
}

const char* migrationTypeName(MigrationType type)
{
    static const char* const names[] = {"", "load", "util", "task", "misfit"};
    return nameOf(names, uint8_t(type));
}

const char* wakePathName(WakePath path)
{
    static const char* const names[] = {"", "prev-idle", "target-idle", "recent-used", "idle-core",
        "idle-cpu", "idle-sibling", "fallback", "idlest", "affine-prev", "affine-waker",
        "idle-capacity"};
    return nameOf(names, uint8_t(path));
}

std::string describeMigration(int64_t reason, int64_t detail)
{
    std::string out = migrateReasonName(MigrateReason(uint8_t(reason)));
    const MigrateDetail d = MigrateDetail::unpack(detail);
    auto add = [&out](const char* part, char sep) {
        if (*part) {
            if (!out.empty())
                out += sep;
            out += part;
        }
    };
    add(domainLevelName(d.level), ' ');
    add(groupTypeName(d.busiestGroup), ' ');
    add(migrationTypeName(d.migration), '/');
    add(wakePathName(d.wake), ' ');
    return out;
}

} // namespace schedlab
