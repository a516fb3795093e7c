// SPDX-License-Identifier: GPL-2.0-or-later
#include "streamexport.h"

#include "core/base/text.h"

#include <queue>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fnmatch.h>
#include <ostream>
#include <stdexcept>
#include <unistd.h>
#include <unordered_set>

namespace schedlab {

namespace {

using Json = nlohmann::ordered_json;

// The trace layout of traceexport.h.
constexpr int kCpuPid = 1;
constexpr int kTaskPidBase = 1000;
constexpr int kGroupPidBase = 100000;

int pidOf(EntityRef e)
{
    return e.isTask() ? kTaskPidBase + e.taskIndex()
                      : kGroupPidBase + e.groupIndex() * 1000 + e.groupCpu();
}

bool inWindow(const Record& r, const ExportWindow& w)
{
    return r.time >= w.from.count() && r.time <= w.to.count();
}

} // namespace

// ---- EntitySelection ----

EntitySelection::EntitySelection(const EntityFilter& refs)
    : m_refs(refs)
{ }

EntitySelection EntitySelection::patterns(std::vector<std::string> patterns)
{
    EntitySelection s;
    s.m_patterns = std::move(patterns);
    return s;
}

std::optional<EntitySelection> EntitySelection::parse(const std::string& list, std::string* error)
{
    std::vector<std::string> names;
    size_t start = 0;
    while (true) {
        const size_t comma = list.find(',', start);
        std::string name =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const size_t b = name.find_first_not_of(' ');
        const size_t e = name.find_last_not_of(' ');
        name = b == std::string::npos ? std::string() : name.substr(b, e - b + 1);
        if (name.empty()) {
            *error = "expected NAME[,NAME…] (task names or cgroup paths), got \"" + list + "\"";
            return std::nullopt;
        }
        names.push_back(name);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return patterns(std::move(names));
}

bool EntitySelection::isGlob(const std::string& pattern)
{
    return pattern.find_first_of("*?[") != std::string::npos;
}

bool EntitySelection::matchesName(const std::string& name) const
{
    for (const auto& p : m_patterns)
        if (isGlob(p) ? ::fnmatch(p.c_str(), name.c_str(), 0) == 0 : p == name)
            return true;
    return false;
}

bool EntitySelection::selected(EntityRef e, const Recording& names) const
{
    if (all())
        return true;
    if (!e.valid())
        return false;
    if (!m_refs.empty())
        return std::find(m_refs.begin(), m_refs.end(), e) != m_refs.end();
    // Patterns: decided once per task or group (names never change once given).
    const bool task = e.isTask();
    const auto i = static_cast<size_t>(task ? e.taskIndex() : e.groupIndex());
    auto& cache = task ? m_taskCache : m_groupCache;
    if (i >= cache.size())
        cache.resize(i + 1, -1);
    if (cache[i] < 0) {
        const auto& list = task ? names.taskNames : names.groupPaths;
        if (i >= list.size())
            return false; // not named yet: decide later
        cache[i] = matchesName(list[i]) ? 1 : 0;
    }
    return cache[i] == 1;
}

// ---- TextOut ----

TextOut::TextOut(std::ostream& stream)
    : m_stream(stream)
{
    m_buffer.reserve(kFlushAt + 4096);
}

void TextOut::flush()
{
    m_peak = std::max(m_peak, m_buffer.size());
    m_stream.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
    m_buffer.clear();
}

// ---- SpoolFile ----

SpoolFile::SpoolFile()
{
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec)
        dir = "/tmp";
    std::string name = (dir / "schedlab-spool.XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        throw std::runtime_error(
            "cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno));
    ::unlink(name.c_str()); // removed once closed
    m_file = ::fdopen(fd, "w+b");
    if (!m_file) {
        ::close(fd);
        throw std::runtime_error(
            "cannot open a temporary file: " + std::string(std::strerror(errno)));
    }
}

SpoolFile::~SpoolFile()
{
    if (m_file)
        std::fclose(m_file);
}

uint64_t SpoolFile::write(const void* data, size_t bytes)
{
    const uint64_t at = m_size;
    if (::fseeko(m_file, static_cast<off_t>(at), SEEK_SET) != 0
        || std::fwrite(data, 1, bytes, m_file) != bytes)
        throw std::runtime_error(
            "cannot write a temporary file: " + std::string(std::strerror(errno)));
    m_size += bytes;
    return at;
}

void SpoolFile::read(uint64_t offset, void* data, size_t bytes)
{
    if (std::fflush(m_file) != 0 || ::fseeko(m_file, static_cast<off_t>(offset), SEEK_SET) != 0
        || std::fread(data, 1, bytes, m_file) != bytes)
        throw std::runtime_error(
            "cannot read a temporary file: " + std::string(std::strerror(errno)));
}

// ---- SliceSorter ----

SliceSorter::SliceSorter(ExportWindow window, const EntitySelection* only)
    : m_window(window)
    , m_only(only)
{ }

SliceSorter::PerCpu& SliceSorter::cpu(int c)
{
    if (static_cast<size_t>(c) >= m_cpus.size())
        m_cpus.resize(static_cast<size_t>(c) + 1);
    return m_cpus[static_cast<size_t>(c)];
}

void SliceSorter::close(int c, int64_t end, int64_t hi, const Recording& names)
{
    PerCpu& p = cpu(c);
    if (p.task >= 0) { // as runSlices(): clipped to the window, empty ones dropped
        const int64_t s = std::max(p.since, m_window.from.count());
        const int64_t e = std::min(end, hi);
        if (e > s && (!m_only || m_only->selected(EntityRef::task(p.task), names))) {
            if (p.tail.size() == kBlock) {
                if (!m_spool)
                    m_spool = std::make_unique<SpoolFile>();
                p.blocks.push_back(m_spool->write(p.tail.data(), kBlock * sizeof(Slice)));
                p.tail.clear();
            }
            if (p.tail.capacity() < kBlock)
                p.tail.reserve(kBlock);
            p.tail.push_back({{c, p.task, s, e}, m_seq++});
        }
    }
    p.task = -1;
    size_t bytes = m_cpus.size() * sizeof(PerCpu);
    for (const PerCpu& q : m_cpus)
        bytes += q.tail.capacity() * sizeof(Slice);
    m_peak = std::max(m_peak, bytes);
}

void SliceSorter::add(const Record& r, const Recording& names)
{
    if (r.kind != RecordKind::Switch || r.time > m_window.to.count())
        return;
    close(r.cpu, r.time, m_window.to.count(), names);
    const auto next = static_cast<int>(r.payload.generic.a);
    if (next >= 0) {
        PerCpu& p = cpu(r.cpu);
        p.task = next;
        p.since = r.time;
    }
}

void SliceSorter::finish(
    int64_t hi, const Recording& names, const std::function<void(const RunSlice&)>& emit)
{
    (void)cpu(0);
    // runSlices() closes every CPU at the end, in CPU order, after the last Switch.
    for (int c = 0; c < static_cast<int>(m_cpus.size()); ++c)
        close(c, hi, hi, names);
    // Merge: each CPU's slices are sorted by start and by seq; the stable sort of runSlices()
    // orders by (start, seq).
    struct Reader
    {
        size_t block = 0; ///< next block of blocks to read; blocks.size() = the tail
        std::vector<Slice> buf;
        size_t pos = 0;
        bool inTail = false;
    };
    std::vector<Reader> readers(m_cpus.size());
    auto load = [&](size_t c) { // false when the CPU has nothing left
        Reader& rd = readers[c];
        PerCpu& p = m_cpus[c];
        while (rd.pos >= rd.buf.size() && !rd.inTail) {
            rd.pos = 0;
            if (rd.block < p.blocks.size()) {
                rd.buf.resize(kBlock);
                m_spool->read(p.blocks[rd.block++], rd.buf.data(), kBlock * sizeof(Slice));
            } else {
                rd.buf = std::move(p.tail);
                rd.inTail = true;
            }
        }
        return rd.pos < rd.buf.size();
    };
    using Key = std::pair<std::pair<int64_t, uint64_t>, size_t>;
    std::priority_queue<Key, std::vector<Key>, std::greater<>> heap;
    for (size_t c = 0; c < m_cpus.size(); ++c)
        if (load(c)) {
            const Slice& s = readers[c].buf[readers[c].pos];
            heap.push({{s.s.startNs, s.seq}, c});
        }
    while (!heap.empty()) {
        const size_t c = heap.top().second;
        heap.pop();
        Reader& rd = readers[c];
        emit(rd.buf[rd.pos].s);
        ++rd.pos;
        if (load(c)) {
            const Slice& s = rd.buf[rd.pos];
            heap.push({{s.s.startNs, s.seq}, c});
        }
    }
}

// ---- RecordsTextWriter ----

WindowedTextWriter::WindowedTextWriter(std::ostream& out, ExportWindow window, EntitySelection only)
    : m_out(out)
    , m_window(window)
    , m_only(std::move(only))
{ }

RecordsTextWriter::RecordsTextWriter(std::ostream& out, ExportWindow window, EntitySelection only)
    : WindowedTextWriter(out, window, std::move(only))
{ }

void RecordsTextWriter::consume(const Record* records, size_t count, const Recording& names)
{
    for (size_t i = 0; i < count; ++i) {
        const Record& r = records[i];
        if (!inWindow(r, m_window))
            continue;
        if (!m_only.all()) {
            const bool about = r.kind != RecordKind::Feature
                && (m_only.selected(r.entity, names)
                    || (r.kind == RecordKind::Switch
                        && m_only.selected(
                            EntityRef{static_cast<int32_t>(r.payload.generic.a)}, names)));
            if (!about)
                continue;
        }
        m_out += formatRecord(r, names);
        m_out += '\n';
    }
}

void RecordsTextWriter::finish(const Recording&, Nanoseconds)
{
    m_out.flush();
}

// ---- SamplesCsvWriter ----

SamplesCsvWriter::SamplesCsvWriter(std::ostream& out, ExportWindow window, EntitySelection only)
    : WindowedTextWriter(out, window, std::move(only))
{
    m_out += "time_ns,entity,kind,cpu,vruntime,deadline,vlag,avg_vruntime,weight,eligible,curr,"
             "delayed,load_avg,runnable_avg,util_avg,rq_load_avg,rq_runnable_avg,rq_util_avg,"
             "h_nr_queued,h_nr_runnable\n";
}

void SamplesCsvWriter::endLine(const Record* pelt)
{
    if (!m_open)
        return;
    m_open = false;
    if (!pelt) {
        m_out += ",,,,,,,,\n";
        return;
    }
    const auto& p = pelt->payload.pelt;
    m_out += ',' + std::to_string(p.loadAvg) + ',' + std::to_string(p.runnableAvg) + ','
        + std::to_string(p.utilAvg) + ',' + std::to_string(p.rqLoadAvg) + ','
        + std::to_string(p.rqRunnableAvg) + ',' + std::to_string(p.rqUtilAvg) + ','
        + std::to_string(p.hNrQueued) + ',' + std::to_string(p.hNrRunnable) + '\n';
}

void SamplesCsvWriter::consume(const Record* records, size_t count, const Recording& names)
{
    for (size_t i = 0; i < count; ++i) {
        const Record& r = records[i];
        if (r.kind == RecordKind::Pelt) {
            // Machine::sample() appends it right after its Sample (kernel-model.md §6.6).
            if (m_open && r.time == m_sample.time && r.entity == m_sample.entity)
                endLine(&r);
            continue;
        }
        if (r.kind != RecordKind::Sample || !inWindow(r, m_window)
            || !m_only.selected(r.entity, names))
            continue;
        endLine(nullptr);
        const auto& s = r.payload.sample;
        m_out += std::to_string(r.time) + ',' + csvField(entityName(r.entity, names)) + ','
            + (r.entity.isTask() ? "task" : "group") + ',' + std::to_string(r.cpu) + ','
            + std::to_string(s.vruntime) + ',' + std::to_string(s.deadline) + ','
            + std::to_string(s.vlag) + ',' + std::to_string(s.avgVruntime) + ','
            + std::to_string(s.weight) + ',' + ((r.flags & Record::kEligible) ? '1' : '0') + ','
            + ((r.flags & Record::kCurr) ? '1' : '0') + ','
            + ((r.flags & Record::kDelayed) ? '1' : '0');
        m_open = true;
        m_sample = r;
    }
}

void SamplesCsvWriter::finish(const Recording&, Nanoseconds)
{
    endLine(nullptr);
    m_out.flush();
}

// ---- SlicesCsvWriter ----

SlicesCsvWriter::SlicesCsvWriter(std::ostream& out, ExportWindow window, EntitySelection only)
    : WindowedTextWriter(out, window, std::move(only))
    , m_slices(window, &m_only)
{ }

void SlicesCsvWriter::consume(const Record* records, size_t count, const Recording& names)
{
    for (size_t i = 0; i < count; ++i)
        m_slices.add(records[i], names);
}

void SlicesCsvWriter::finish(const Recording& names, Nanoseconds end)
{
    m_out += "cpu,task,start_ns,end_ns\n";
    m_slices.finish(std::min(end, m_window.to).count(), names, [&](const RunSlice& s) {
        m_out += std::to_string(s.cpu) + ',' + csvField(entityName(EntityRef::task(s.task), names))
            + ',' + std::to_string(s.startNs) + ',' + std::to_string(s.endNs) + '\n';
    });
    m_out.flush();
}

// ---- ChromeTraceWriter ----

ChromeTraceWriter::ChromeTraceWriter(
    std::ostream& out, ExportWindow window, EntitySelection only, std::string title)
    : WindowedTextWriter(out, window, std::move(only))
    , m_title(std::move(title))
    , m_slices(window, &m_only)
{ }

void ChromeTraceWriter::spool(const Record& r, int64_t at)
{
    constexpr size_t kBlock = 1024;
    if (m_counterBlock.size() == kBlock) {
        if (!m_counters)
            m_counters = std::make_unique<SpoolFile>();
        m_counters->write(m_counterBlock.data(), kBlock * sizeof(Record));
        m_counterBlock.clear();
    }
    if (m_counterBlock.capacity() < kBlock)
        m_counterBlock.reserve(kBlock);
    Record c = r;
    c.time = at; // the counter's timestamp
    m_counterBlock.push_back(c);
    m_peakCounters = std::max(m_peakCounters,
        m_counterBlock.capacity() * sizeof(Record)
            + m_before.size() * (sizeof(Record) + 4 * sizeof(void*)));
}

void ChromeTraceWriter::consume(const Record* records, size_t count, const Recording& names)
{
    // Samples in record order: the last one before the window is held per entity and written at
    // the window's start, just before the entity's first one inside it.
    for (size_t i = 0; i < count; ++i) {
        const Record& r = records[i];
        m_slices.add(r, names);
        if (r.kind == RecordKind::Pelt) {
            // PELT counters (kernel-model.md §6.6) inside the window only.
            if (inWindow(r, m_window) && m_only.selected(r.entity, names))
                spool(r, r.time);
            continue;
        }
        if (r.kind != RecordKind::Sample || r.time > m_window.to.count()
            || !m_only.selected(r.entity, names))
            continue;
        if (r.time < m_window.from.count()) {
            m_before[r.entity.raw] = r;
            continue;
        }
        if (const auto it = m_before.find(r.entity.raw); it != m_before.end()) {
            if (it->second)
                spool(*it->second, m_window.from.count());
            it->second.reset();
        } else {
            m_before[r.entity.raw] = std::nullopt; // inside the window from now on
        }
        spool(r, r.time);
    }
}

size_t ChromeTraceWriter::peakMemory() const
{
    return m_out.peakBytes() + m_slices.peakMemory() + m_peakCounters;
}

void ChromeTraceWriter::finish(const Recording& rec, Nanoseconds end)
{
    const Nanoseconds to = std::min(end, m_window.to);
    const Nanoseconds from = m_window.from;
    TextOut& out = m_out;
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

    std::unordered_set<int32_t> named; // an entity's metadata comes before its first event
    auto nameEntity = [&](EntityRef e) {
        if (!named.insert(e.raw).second)
            return;
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
    m_slices.finish(to.count(), rec, [&](const RunSlice& s) {
        const EntityRef e = EntityRef::task(s.task);
        nameEntity(e);
        const std::string name = entityName(e, rec);
        slice(name, kCpuPid, s.cpu + 1, s, name);
        slice("cpu" + std::to_string(s.cpu), pidOf(e), pidOf(e), s, name);
    });

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
        if (r.kind == RecordKind::Pelt) {
            const auto& p = r.payload.pelt;
            c("load_avg", std::to_string(p.loadAvg));
            c("runnable_avg", std::to_string(p.runnableAvg));
            c("util_avg", std::to_string(p.utilAvg));
            c("cfs_rq load_avg", std::to_string(p.rqLoadAvg));
            c("cfs_rq runnable_avg", std::to_string(p.rqRunnableAvg));
            c("cfs_rq util_avg", std::to_string(p.rqUtilAvg));
            c("cfs_rq h_nr_queued", std::to_string(p.hNrQueued));
            c("cfs_rq h_nr_runnable", std::to_string(p.hNrRunnable));
            return;
        }
        c("vruntime", std::to_string(s.vruntime));
        c("deadline", std::to_string(s.deadline));
        c("vlag", std::to_string(s.vlag));
        c("V", std::to_string(s.avgVruntime));
        if (r.entity.isGroup())
            c("weight", std::to_string(s.weight));
    };
    auto replay = [&](const Record& r) {
        if (r.time > to.count())
            return;
        nameEntity(r.entity);
        counters(r, r.time);
    };
    if (m_counters) {
        constexpr size_t kBlock = 1024; // as spool()
        std::vector<Record> block(kBlock);
        for (uint64_t at = 0; at < m_counters->size(); at += kBlock * sizeof(Record)) {
            m_counters->read(at, block.data(), kBlock * sizeof(Record));
            for (const Record& r : block)
                replay(r);
        }
    }
    for (const Record& r : m_counterBlock)
        replay(r);
    for (const auto& [raw, r] : m_before)
        if (r) { // sampled before the window only: its value holds through it
            nameEntity(r->entity);
            counters(*r, from.count());
        }

    out += "\n],\"metadata\":{\"producer\":\"schedlab " SCHEDLAB_VERSION "\"";
    if (!m_title.empty()) {
        out += ",\"title\":";
        quoted(m_title);
    }
    out += ",\"from_ns\":" + std::to_string(from.count())
        + ",\"to_ns\":" + std::to_string(to.count()) + "}}\n";
    out.flush();
}

// ---- ExportFanout, feedRecording ----

void ExportFanout::consume(const Record* records, size_t count, const Recording& names)
{
    for (ExportWriter* w : m_writers)
        w->consume(records, count, names);
}

void ExportFanout::finish(const Recording& names, Nanoseconds end)
{
    for (ExportWriter* w : m_writers)
        w->finish(names, end);
}

bool feedRecording(const Recording& rec, RecordSink& sink,
    const std::function<bool(size_t done, size_t total)>& progress)
{
    const auto& records = rec.records();
    for (size_t at = 0; at < records.size(); at += Recording::kStreamChunk) {
        if (progress && !progress(at, records.size()))
            return false;
        sink.consume(
            records.data() + at, std::min(Recording::kStreamChunk, records.size() - at), rec);
    }
    if (progress)
        progress(records.size(), records.size());
    return true;
}

} // namespace schedlab
