// SPDX-License-Identifier: GPL-2.0-or-later
#include "traceexport.h"

#include "streamexport.h"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace schedlab {

namespace {

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

// The whole-recording exports are the streaming writers (streamexport.h) fed from memory: one
// implementation of each format, whether the records arrive during the run or afterwards.
template <typename Writer> void writeWhole(Writer&& writer, const Recording& rec, Nanoseconds to)
{
    feedRecording(rec, writer);
    writer.finish(rec, to);
}

void writeChromeTrace(std::ostream& stream, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only, const std::string& title)
{
    writeWhole(ChromeTraceWriter(stream, {from, to}, EntitySelection(only), title), rec, to);
}

std::string chromeTraceJson(const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only, const std::string& title)
{
    return toString([&](std::ostream& s) { writeChromeTrace(s, rec, from, to, only, title); });
}

void writeSamplesCsv(std::ostream& stream, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only)
{
    writeWhole(SamplesCsvWriter(stream, {from, to}, EntitySelection(only)), rec, to);
}

std::string samplesCsv(
    const Recording& rec, Nanoseconds from, Nanoseconds to, const EntityFilter& only)
{
    return toString([&](std::ostream& s) { writeSamplesCsv(s, rec, from, to, only); });
}

void writeSlicesCsv(std::ostream& stream, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only)
{
    writeWhole(SlicesCsvWriter(stream, {from, to}, EntitySelection(only)), rec, to);
}

std::string slicesCsv(
    const Recording& rec, Nanoseconds from, Nanoseconds to, const EntityFilter& only)
{
    return toString([&](std::ostream& s) { writeSlicesCsv(s, rec, from, to, only); });
}

} // namespace schedlab
