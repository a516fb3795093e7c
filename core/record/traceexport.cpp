// SPDX-License-Identifier: GPL-2.0-or-later
#include "traceexport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

namespace schedlab {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kCpuPid = 1;
constexpr int kTaskPidBase = 1000;
constexpr int kGroupPidBase = 100000;

bool selected(const EntityFilter& only, EntityRef e)
{
    return only.empty() || std::find(only.begin(), only.end(), e) != only.end();
}

int pidOf(EntityRef e)
{
    return e.isTask() ? kTaskPidBase + e.taskIndex()
                      : kGroupPidBase + e.groupIndex() * 1000 + e.groupCpu();
}

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

/// Text appended in memory and handed to the stream a megabyte at a time: exports of long runs
/// are gigabytes and must not be held whole.
class Sink
{
public:
    explicit Sink(std::ostream& stream)
        : m_stream(stream)
    {
        m_buffer.reserve(kFlushAt + 4096);
    }
    ~Sink() { flush(); }
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;
    Sink& operator+=(const std::string& s) { return append(s); }
    Sink& operator+=(const char* s) { return append(s); }
    Sink& operator+=(char c)
    {
        m_buffer += c;
        return *this;
    }
    void flush()
    {
        m_stream.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
        m_buffer.clear();
    }

private:
    static constexpr size_t kFlushAt = size_t{1} << 20;
    template <typename S> Sink& append(const S& s)
    {
        m_buffer += s;
        if (m_buffer.size() >= kFlushAt)
            flush();
        return *this;
    }
    std::ostream& m_stream;
    std::string m_buffer;
};

template <typename Write> std::string toString(Write&& write)
{
    std::ostringstream s;
    write(s);
    return std::move(s).str();
}

} // namespace

std::vector<RunSlice> runSlices(const Recording& rec, Nanoseconds from, Nanoseconds to)
{
    const int64_t lo = from.count();
    const int64_t hi = to.count();
    std::vector<RunSlice> out;
    std::vector<std::pair<int, int64_t>> open(
        static_cast<size_t>(std::max(rec.cpus, 1)), {-1, 0}); // per CPU: running task, since
    auto close = [&](int cpu, int64_t end) {
        auto& [task, since] = open[static_cast<size_t>(cpu)];
        if (task >= 0) {
            const int64_t s = std::max(since, lo);
            const int64_t e = std::min(end, hi);
            if (e > s)
                out.push_back({cpu, task, s, e});
        }
        task = -1;
    };
    for (const Record& r : rec.records()) {
        if (r.kind != RecordKind::Switch)
            continue;
        if (r.time > hi)
            break;
        const int cpu = r.cpu;
        if (cpu >= static_cast<int>(open.size()))
            open.resize(static_cast<size_t>(cpu) + 1, {-1, 0});
        close(cpu, r.time);
        const auto next = static_cast<int>(r.payload.generic.a);
        if (next >= 0)
            open[static_cast<size_t>(cpu)] = {next, r.time};
    }
    for (int cpu = 0; cpu < static_cast<int>(open.size()); ++cpu)
        close(cpu, hi);
    std::stable_sort(out.begin(), out.end(),
        [](const RunSlice& a, const RunSlice& b) { return a.startNs < b.startNs; });
    return out;
}

void writeChromeTrace(std::ostream& stream, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only, const std::string& title)
{
    // Written by hand, one event per line: a 20 s run has millions of counter values and a
    // JSON DOM would spend most of its time allocating.
    Sink out(stream);
    out += "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto begin = [&] {
        if (!first)
            out += ",\n";
        first = false;
    };
    auto quoted = [&](const std::string& s) { out += Json(s).dump(); };
    auto number = [&](int64_t ns) { // microseconds with ns precision, no float rounding
        if (ns < 0) {
            out += '-';
            ns = -ns;
        }
        out += std::to_string(ns / 1000);
        if (const int64_t frac = ns % 1000) {
            char buf[8];
            std::snprintf(buf, sizeof buf, ".%03d", static_cast<int>(frac));
            out += buf;
        }
    };
    auto meta = [&](const char* what, int pid, int tid, const std::string& name) {
        begin();
        out += "{\"name\":\"";
        out += what;
        out += "\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid)
            + ",\"args\":{\"name\":";
        quoted(name);
        out += "}}";
    };
    meta("process_name", kCpuPid, 0, "CPUs");
    for (int cpu = 0; cpu < rec.cpus; ++cpu)
        meta("thread_name", kCpuPid, cpu + 1, "CPU " + std::to_string(cpu));

    // Processes for every entity that appears in the window.
    std::map<int32_t, bool> named;
    auto nameEntity = [&](EntityRef e) {
        if (named[e.raw])
            return;
        named[e.raw] = true;
        const int pid = pidOf(e);
        if (e.isTask()) {
            meta("process_name", pid, pid, "task " + entityName(e, rec));
            meta("thread_name", pid, pid, entityName(e, rec));
        } else {
            const auto g = static_cast<size_t>(e.groupIndex());
            const std::string path = g < rec.groupPaths.size() ? rec.groupPaths[g] : "?";
            meta("process_name", pid, pid, "group " + path + " cpu" + std::to_string(e.groupCpu()));
        }
    };

    auto slice = [&](const std::string& name, int pid, int tid, const RunSlice& s,
                     const std::string& task) {
        begin();
        out += "{\"name\":";
        quoted(name);
        out += ",\"cat\":\"sched\",\"ph\":\"X\",\"pid\":" + std::to_string(pid)
            + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
        number(s.startNs);
        out += ",\"dur\":";
        number(s.endNs - s.startNs);
        out += ",\"args\":{\"task\":";
        quoted(task);
        out += ",\"cpu\":" + std::to_string(s.cpu) + "}}";
    };
    for (const RunSlice& s : runSlices(rec, from, to)) {
        const EntityRef e = EntityRef::task(s.task);
        if (!selected(only, e))
            continue;
        nameEntity(e);
        const std::string name = entityName(e, rec);
        slice(name, kCpuPid, s.cpu + 1, s, name);
        slice("cpu" + std::to_string(s.cpu), pidOf(e), pidOf(e), s, name);
    }

    // Counters: the last sample before the window, then every sample inside it.
    auto counters = [&](const Record& r, int64_t at) {
        const auto& s = r.payload.sample;
        const std::string head =
            "\",\"ph\":\"C\",\"pid\":" + std::to_string(pidOf(r.entity)) + ",\"ts\":";
        auto c = [&](const char* name, const std::string& value) {
            begin();
            out += "{\"name\":\"";
            out += name;
            out += head;
            number(at);
            out += ",\"args\":{\"value\":" + value + "}}";
        };
        c("vruntime", std::to_string(s.vruntime));
        c("deadline", std::to_string(s.deadline));
        c("vlag", std::to_string(s.vlag));
        c("V", std::to_string(s.avgVruntime));
        if (r.entity.isGroup())
            c("weight", std::to_string(s.weight));
    };
    std::map<int32_t, const Record*> before;
    for (const Record& r : rec.records()) {
        if (r.kind != RecordKind::Sample || !selected(only, r.entity))
            continue;
        if (r.time < from.count()) {
            before[r.entity.raw] = &r;
            continue;
        }
        if (r.time > to.count())
            break;
        if (const auto it = before.find(r.entity.raw); it != before.end()) {
            if (it->second) {
                nameEntity(it->second->entity);
                counters(*it->second, from.count());
            }
            it->second = nullptr;
        } else {
            before[r.entity.raw] = nullptr; // inside the window from now on
        }
        nameEntity(r.entity);
        counters(r, r.time);
    }
    for (const auto& [raw, r] : before)
        if (r) { // sampled before the window only: its value holds through it
            nameEntity(r->entity);
            counters(*r, from.count());
        }

    out += "\n],\"metadata\":{\"producer\":\"schedlab " SCHEDLAB_VERSION "\"";
    if (!title.empty()) {
        out += ",\"title\":";
        quoted(title);
    }
    out += ",\"from_ns\":" + std::to_string(from.count())
        + ",\"to_ns\":" + std::to_string(to.count()) + "}}\n";
}

std::string chromeTraceJson(const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only, const std::string& title)
{
    return toString([&](std::ostream& s) { writeChromeTrace(s, rec, from, to, only, title); });
}

void writeSamplesCsv(std::ostream& stream, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only)
{
    Sink out(stream);
    out += "time_ns,entity,kind,cpu,vruntime,deadline,vlag,avg_vruntime,weight,eligible,curr,"
           "delayed\n";
    for (const Record& r : rec.records()) {
        if (r.time > to.count())
            break;
        if (r.kind != RecordKind::Sample || r.time < from.count() || !selected(only, r.entity))
            continue;
        const auto& s = r.payload.sample;
        out += std::to_string(r.time) + ',' + csvField(entityName(r.entity, rec)) + ','
            + (r.entity.isTask() ? "task" : "group") + ',' + std::to_string(r.cpu) + ','
            + std::to_string(s.vruntime) + ',' + std::to_string(s.deadline) + ','
            + std::to_string(s.vlag) + ',' + std::to_string(s.avgVruntime) + ','
            + std::to_string(s.weight) + ',' + ((r.flags & Record::kEligible) ? '1' : '0') + ','
            + ((r.flags & Record::kCurr) ? '1' : '0') + ','
            + ((r.flags & Record::kDelayed) ? '1' : '0') + '\n';
    }
}

std::string samplesCsv(
    const Recording& rec, Nanoseconds from, Nanoseconds to, const EntityFilter& only)
{
    return toString([&](std::ostream& s) { writeSamplesCsv(s, rec, from, to, only); });
}

void writeSlicesCsv(std::ostream& stream, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only)
{
    Sink out(stream);
    out += "cpu,task,start_ns,end_ns\n";
    for (const RunSlice& s : runSlices(rec, from, to)) {
        if (!selected(only, EntityRef::task(s.task)))
            continue;
        out += std::to_string(s.cpu) + ',' + csvField(entityName(EntityRef::task(s.task), rec))
            + ',' + std::to_string(s.startNs) + ',' + std::to_string(s.endNs) + '\n';
    }
}

std::string slicesCsv(
    const Recording& rec, Nanoseconds from, Nanoseconds to, const EntityFilter& only)
{
    return toString([&](std::ostream& s) { writeSlicesCsv(s, rec, from, to, only); });
}

} // namespace schedlab
