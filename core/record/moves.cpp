// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/record/moves.h"

#include "core/record/recording.h"

#include <algorithm>

namespace schedlab {

TaskMove moveOf(const Record& r)
{
    TaskMove m;
    const auto& g = r.payload.generic;
    m.time = r.time;
    m.spawn = r.kind == RecordKind::Spawn;
    m.from = m.spawn ? (g.c != 0 ? static_cast<int>(g.b) : -1) : static_cast<int>(g.a);
    m.to = m.spawn ? r.cpu : static_cast<int>(g.b);
    m.reason = g.c;
    m.detail = g.d;
    return m;
}

std::vector<TaskMove> lastMoves(const Recording& rec, int64_t t)
{
    std::vector<TaskMove> out(rec.taskNames.size());
    const std::vector<Record>& records = rec.records();
    // Records are in time order: walk back from the last one at or before t until every task
    // has its answer (a task's Spawn record is its earliest, so the walk ends there at worst).
    auto end = std::upper_bound(records.begin(), records.end(), t,
        [](int64_t time, const Record& r) { return time < r.time; });
    size_t open = out.size();
    for (auto it = end; it != records.begin() && open > 0;) {
        const Record& r = *--it;
        if ((r.kind != RecordKind::Migrate && r.kind != RecordKind::Spawn) || !r.entity.isTask())
            continue;
        const size_t task = static_cast<size_t>(r.entity.taskIndex());
        if (task >= out.size() || out[task].time >= 0)
            continue;
        out[task] = moveOf(r);
        --open;
    }
    return out;
}

namespace {

const char* pathSentence(WakePath path)
{
    switch (path) {
    case WakePath::PrevIdle:
        return "its previous CPU was idle";
    case WakePath::TargetIdle:
        return "the target CPU was idle";
    case WakePath::RecentUsed:
        return "its recently used CPU was idle";
    case WakePath::IdleCore:
        return "select_idle_core() found a whole idle core";
    case WakePath::IdleCpu:
        return "select_idle_cpu() found an idle CPU in the LLC";
    case WakePath::IdleSibling:
        return "select_idle_smt() found an idle SMT sibling of its previous CPU";
    case WakePath::Fallback:
        return "no idle CPU was found (fallback)";
    case WakePath::Idlest:
        return "find_idlest chose the idlest group and CPU";
    case WakePath::AffinePrev:
        return "wake_affine() kept it near its previous CPU";
    case WakePath::AffineWaker:
        return "wake_affine() pulled it to the waker's CPU";
    case WakePath::IdleCapacity:
        return "select_idle_capacity() found an idle CPU big enough for it";
    case WakePath::None:
        break;
    }
    return "";
}

const char* reasonSentence(MigrateReason reason)
{
    switch (reason) {
    case MigrateReason::Wakeup:
        return "at a wakeup (select_task_rq_fair)";
    case MigrateReason::Fork:
        return "by fork balancing";
    case MigrateReason::Exec:
        return "by exec balancing";
    case MigrateReason::Affinity:
        return "because its CPU left its affinity mask";
    case MigrateReason::Periodic:
        return "by the periodic load balance";
    case MigrateReason::NewIdle:
        return "by a new-idle balance (the destination was about to go idle)";
    case MigrateReason::NohzIdle:
        return "by the NOHZ idle balance";
    case MigrateReason::Active:
        return "by active balance (the stopper pushed it while running)";
    case MigrateReason::Rt:
        return "by the RT push/pull";
    case MigrateReason::CoreSteal:
        return "by core scheduling (a matching cookie stolen to an idle sibling)";
    case MigrateReason::Other:
        return "by a scenario action";
    case MigrateReason::Dl:
        return "by the deadline push/pull";
    case MigrateReason::Unknown:
        break;
    }
    return "";
}

} // namespace

std::string explainMove(const TaskMove& move)
{
    if (move.time < 0)
        return {};
    const MigrateReason reason = MigrateReason(uint8_t(move.reason));
    const MigrateDetail d = MigrateDetail::unpack(move.detail);
    std::string out;
    if (move.spawn && move.from < 0)
        return "started on CPU " + std::to_string(move.to);
    if (move.spawn)
        out = "started on CPU " + std::to_string(move.to) + " instead of its parent's CPU "
            + std::to_string(move.from);
    else
        out = "moved from CPU " + std::to_string(move.from) + " to CPU " + std::to_string(move.to);
    if (const char* r = reasonSentence(reason); *r)
        out += std::string(" ") + r;
    std::vector<std::string> parts;
    if (d.level != DomainLevel::None)
        parts.push_back(std::string(domainLevelName(d.level)) + " domain");
    if (d.busiestGroup != GroupType::None)
        parts.push_back(std::string("busiest group ") + groupTypeName(d.busiestGroup));
    if (d.migration != MigrationType::None)
        parts.push_back(std::string("migrating ") + migrationTypeName(d.migration));
    if (const char* p = pathSentence(d.wake); *p)
        parts.push_back(p);
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i == 0 ? ": " : ", ") + parts[i];
    return out;
}

} // namespace schedlab
