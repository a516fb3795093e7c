// SPDX-License-Identifier: GPL-2.0-or-later
#include "recording.h"

#include "core/base/text.h"
#include "core/sched/migration.h"

#include <algorithm>
#include <string>

namespace schedlab {

namespace {

const char* kindName(RecordKind kind)
{
    switch (kind) {
    case RecordKind::Switch:
        return "switch";
    case RecordKind::Wakeup:
        return "wakeup";
    case RecordKind::Enqueue:
        return "enqueue";
    case RecordKind::Dequeue:
        return "dequeue";
    case RecordKind::Delay:
        return "delay";
    case RecordKind::Place:
        return "place";
    case RecordKind::DeadlineRenew:
        return "renew";
    case RecordKind::Reweight:
        return "reweight";
    case RecordKind::Sample:
        return "sample";
    case RecordKind::Migrate:
        return "migrate";
    case RecordKind::Spawn:
        return "spawn";
    case RecordKind::Exit:
        return "exit";
    case RecordKind::Yield:
        return "yield";
    case RecordKind::Feature:
        return "feature";
    case RecordKind::Tick:
        return "tick";
    case RecordKind::Throttle:
        return "throttle";
    case RecordKind::Unthrottle:
        return "unthrottle";
    case RecordKind::Park:
        return "park";
    case RecordKind::Pelt:
        return "pelt";
    case RecordKind::MaxSlice:
        return "maxslice";
    }
    return "?";
}

} // namespace

void Recording::grow()
{
    if (m_streaming) { // the chunk is full: hand it over and reuse the storage
        if (m_records.empty()) {
            m_records.reserve(kStreamChunk);
            return;
        }
        flushStream();
        return;
    }
    constexpr size_t kSlack = 4096; // records one event may append after the limit is reached
    size_t want = std::max<size_t>(m_records.capacity() * 2, 4096);
    if (m_capacityLimit)
        want = std::max(
            std::min<size_t>(want, m_capacityLimit + kSlack), m_records.capacity() + kSlack);
    m_records.reserve(want);
}

void Recording::streamTo(RecordSink* sink)
{
    m_sink = sink;
    m_streaming = true;
    flushStream();
    m_records.shrink_to_fit();
    m_records.reserve(kStreamChunk);
}

void Recording::flushStream()
{
    if (!m_streaming || m_records.empty())
        return;
    if (m_sink)
        m_sink->consume(m_records.data(), m_records.size(), *this);
    m_streamed += m_records.size();
    m_records.clear();
}

std::string entityName(EntityRef e, const Recording& names)
{
    if (!e.valid())
        return "idle";
    if (e.isTask()) {
        const auto i = static_cast<size_t>(e.taskIndex());
        return i < names.taskNames.size() ? names.taskNames[i] : "t" + std::to_string(i);
    }
    const auto g = static_cast<size_t>(e.groupIndex());
    const std::string path =
        g < names.groupPaths.size() ? names.groupPaths[g] : "g" + std::to_string(g);
    return path + "@" + std::to_string(e.groupCpu());
}

std::string formatRecord(const Record& r, const Recording& names)
{
    // Names are written printable: one record is always one line.
    auto name = [&](EntityRef e) { return printable(entityName(e, names)); };
    std::string out = "t=" + std::to_string(r.time) + " cpu" + std::to_string(r.cpu) + " "
        + kindName(r.kind) + " ";
    const auto& g = r.payload.generic;
    switch (r.kind) {
    case RecordKind::Switch:
        out += name(r.entity) + "->" + name(EntityRef{static_cast<int32_t>(g.a)});
        break;
    case RecordKind::Sample: {
        const auto& s = r.payload.sample;
        out += name(r.entity) + " v=" + std::to_string(s.vruntime)
            + " d=" + std::to_string(s.deadline) + " V=" + std::to_string(s.avgVruntime)
            + " vlag=" + std::to_string(s.vlag) + " w=" + std::to_string(s.weight)
            + ((r.flags & Record::kEligible) ? " eligible" : "")
            + ((r.flags & Record::kCurr) ? " curr" : "")
            + ((r.flags & Record::kDelayed) ? " delayed" : "");
        break;
    }
    case RecordKind::Pelt: {
        const auto& p = r.payload.pelt;
        out += name(r.entity) + " load=" + std::to_string(p.loadAvg) + " runnable="
            + std::to_string(p.runnableAvg) + " util=" + std::to_string(p.utilAvg) + " rq_load="
            + std::to_string(p.rqLoadAvg) + " rq_runnable=" + std::to_string(p.rqRunnableAvg)
            + " rq_util=" + std::to_string(p.rqUtilAvg) + " h_nr_queued="
            + std::to_string(p.hNrQueued) + " h_nr_runnable=" + std::to_string(p.hNrRunnable);
        break;
    }
    case RecordKind::Feature:
        out += std::to_string(g.a) + "=" + std::to_string(g.b);
        break;
    case RecordKind::MaxSlice:
        out +=
            name(r.entity) + " group=" + std::to_string(g.b) + " max_slice=" + std::to_string(g.a);
        break;
    case RecordKind::Migrate: {
        out += name(r.entity) + " " + std::to_string(g.a) + " " + std::to_string(g.b);
        const std::string why = describeMigration(g.c, g.d);
        if (!why.empty())
            out += " " + why;
        break;
    }
    case RecordKind::Spawn:
        out += name(r.entity) + " " + std::to_string(g.a) + " " + std::to_string(g.b);
        // Fork balancing placed it away from the parent's CPU (b): say why.
        out += g.c != 0 ? " " + describeMigration(g.c, g.d) : " " + std::to_string(g.c);
        break;
    default:
        out += name(r.entity) + " " + std::to_string(g.a) + " " + std::to_string(g.b) + " "
            + std::to_string(g.c);
        break;
    }
    return out;
}

} // namespace schedlab
