// SPDX-License-Identifier: GPL-2.0-or-later
#include "timelinelayout.h"

#include "core/record/recording.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace schedlab::ui {

void RunSegmentIndex::clear()
{
    m_lanes.clear();
    m_consumed = 0;
    m_lastSwitch = Nanoseconds{0};
}

RunSegmentIndex::Lane& RunSegmentIndex::lane(int cpu)
{
    if (cpu >= cpuCount())
        m_lanes.resize(static_cast<size_t>(cpu) + 1);
    return m_lanes[static_cast<size_t>(cpu)];
}

void RunSegmentIndex::update(const Recording& recording)
{
    const auto& records = recording.records();
    if (records.size() < m_consumed)
        clear();
    if (cpuCount() < recording.cpus)
        m_lanes.resize(static_cast<size_t>(recording.cpus));
    for (size_t i = m_consumed; i < records.size(); ++i) {
        const Record& r = records[i];
        if (r.kind != RecordKind::Switch)
            continue;
        Lane& l = lane(r.cpu);
        // Time never goes back in a run; clamp anyway so a bad record cannot invert a segment.
        const Nanoseconds t = std::max(Nanoseconds{r.time}, l.since);
        if (l.current >= 0 && t > l.since) {
            l.busyBefore.push_back(l.closed.empty()
                    ? 0
                    : l.busyBefore.back() + (l.closed.back().end - l.closed.back().start).count());
            l.closed.push_back({r.cpu, l.current, l.since, t});
        }
        const int64_t next = r.payload.generic.a;
        l.current = next >= 0 ? static_cast<int>(next) : -1;
        l.since = t;
        m_lastSwitch = std::max(m_lastSwitch, t);
    }
    m_consumed = records.size();
}

std::vector<RunSegment> RunSegmentIndex::segments(
    int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now) const
{
    std::vector<RunSegment> out;
    if (cpu < 0 || cpu >= cpuCount() || to <= from)
        return out;
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    auto clipped = [&](RunSegment s) {
        s.start = std::max(s.start, from);
        s.end = std::min(s.end, to);
        if (s.end > s.start)
            out.push_back(s);
    };
    // Closed segments are disjoint and sorted, so their ends are sorted too.
    auto it = std::upper_bound(l.closed.begin(), l.closed.end(), from,
        [](Nanoseconds t, const RunSegment& s) { return t < s.end; });
    for (; it != l.closed.end() && it->start < to; ++it)
        clipped(*it);
    if (l.current >= 0)
        clipped({cpu, l.current, l.since, std::max(now, l.since)});
    return out;
}

int64_t RunSegmentIndex::closedBusyBefore(const Lane& l, Nanoseconds t)
{
    // First closed run ending after t: everything before it ran entirely before t.
    const auto it = std::upper_bound(l.closed.begin(), l.closed.end(), t,
        [](Nanoseconds v, const RunSegment& s) { return v < s.end; });
    const auto i = static_cast<size_t>(it - l.closed.begin());
    int64_t busy = i < l.busyBefore.size()
        ? l.busyBefore[i]
        : (l.closed.empty()
                ? 0
                : l.busyBefore.back() + (l.closed.back().end - l.closed.back().start).count());
    if (it != l.closed.end() && it->start < t)
        busy += (t - it->start).count();
    return busy;
}

Nanoseconds RunSegmentIndex::busyTime(
    int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now) const
{
    if (cpu < 0 || cpu >= cpuCount() || to <= from)
        return Nanoseconds{0};
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    int64_t busy = closedBusyBefore(l, to) - closedBusyBefore(l, from);
    if (l.current >= 0) {
        const Nanoseconds start = std::max(l.since, from);
        const Nanoseconds end = std::min(std::max(now, l.since), to);
        if (end > start)
            busy += (end - start).count();
    }
    return Nanoseconds{busy};
}

std::vector<RunSegment> RunSegmentIndex::binnedSegments(
    int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now, int bins, int probes) const
{
    if (cpu < 0 || cpu >= cpuCount() || to <= from || bins <= 0)
        return {};
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    const auto first = std::upper_bound(l.closed.begin(), l.closed.end(), from,
        [](Nanoseconds t, const RunSegment& s) { return t < s.end; });
    const auto last = std::lower_bound(l.closed.begin(), l.closed.end(), to,
        [](const RunSegment& s, Nanoseconds t) { return s.start < t; });
    if (last - first <= 2 * static_cast<std::ptrdiff_t>(bins))
        return segments(cpu, from, to, now);

    std::vector<RunSegment> out;
    const int64_t span = (to - from).count();
    probes = std::max(1, probes);
    std::vector<int> seen;
    // Run time before each bin edge, each edge computed once: O(log n) per bin.
    const auto busyBefore = [&](Nanoseconds t) {
        int64_t busy = closedBusyBefore(l, t);
        if (l.current >= 0 && t > l.since)
            busy += (std::min(t, std::max(now, l.since)) - l.since).count();
        return busy;
    };
    Nanoseconds b0 = from;
    int64_t before = busyBefore(b0);
    for (int b = 0; b < bins; ++b) {
        const Nanoseconds b1{from.count() + span * (b + 1) / bins};
        if (b1 <= b0)
            continue;
        const int64_t after = busyBefore(b1);
        const int64_t busy = after - before;
        const Nanoseconds start = b0;
        b0 = b1;
        before = after;
        if (busy <= 0)
            continue;
        seen.clear();
        for (int p = 0; p < probes; ++p) {
            const Nanoseconds t = start + (b1 - start) * (2 * p + 1) / (2 * probes);
            if (const auto s = segmentAt(cpu, t, now))
                seen.push_back(s->task);
        }
        int task = -1;
        if (seen.empty()) {
            // Only runs shorter than the probe spacing: take the bin's first run.
            const auto it = std::upper_bound(l.closed.begin(), l.closed.end(), start,
                [](Nanoseconds t, const RunSegment& s) { return t < s.end; });
            task = it != l.closed.end() && it->start < b1 ? it->task : l.current;
        } else {
            std::sort(seen.begin(), seen.end());
            size_t best = 0;
            for (size_t i = 0, run = 0; i < seen.size(); ++i) {
                run = (i > 0 && seen[i] == seen[i - 1]) ? run + 1 : 1;
                if (run > best) {
                    best = run;
                    task = seen[i];
                }
            }
        }
        out.push_back({cpu, task, start, b1,
            static_cast<double>(busy) / static_cast<double>((b1 - start).count())});
    }
    return out;
}

std::optional<RunSegment> RunSegmentIndex::segmentAt(int cpu, Nanoseconds t, Nanoseconds now) const
{
    if (cpu < 0 || cpu >= cpuCount())
        return std::nullopt;
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    auto it = std::upper_bound(l.closed.begin(), l.closed.end(), t,
        [](Nanoseconds v, const RunSegment& s) { return v < s.end; });
    if (it != l.closed.end() && it->start <= t)
        return *it;
    if (l.current >= 0 && l.since <= t && t < std::max(now, l.since))
        return RunSegment{cpu, l.current, l.since, now};
    return std::nullopt;
}

TimelineLayout::TimelineLayout(Nanoseconds start, Nanoseconds end, double left, double right)
    : m_start(start)
    , m_end(end > start ? end : start + Nanoseconds{1})
    , m_left(left)
    , m_right(right > left ? right : left + 1.0)
{ }

double TimelineLayout::nanosecondsPerPixel() const
{
    return static_cast<double>((m_end - m_start).count()) / (m_right - m_left);
}

double TimelineLayout::mapTimeToX(Nanoseconds t) const
{
    return m_left + static_cast<double>((t - m_start).count()) / nanosecondsPerPixel();
}

Nanoseconds TimelineLayout::mapXToTime(double x) const
{
    return m_start + Nanoseconds{std::llround((x - m_left) * nanosecondsPerPixel())};
}

std::vector<RunSegment> TimelineLayout::levelOfDetail(
    const std::vector<RunSegment>& segments, double minPixels) const
{
    const auto minWidth =
        Nanoseconds{std::llround(std::max(minPixels, 0.0) * nanosecondsPerPixel())};
    std::vector<RunSegment> out;
    out.reserve(segments.size());

    // The bin being gathered: its span, and the time each task ran in it.
    bool open = false;
    RunSegment bin;
    Nanoseconds busy{0};
    std::vector<std::pair<int, Nanoseconds>> perTask;
    auto flush = [&] {
        if (!open)
            return;
        open = false;
        bin.busy = static_cast<double>(busy.count())
            / static_cast<double>(std::max(bin.end - bin.start, Nanoseconds{1}).count());
        bin.task =
            std::max_element(perTask.begin(), perTask.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
            })->first;
        out.push_back(bin);
    };

    for (const RunSegment& s : segments) {
        const Nanoseconds length = s.end - s.start;
        if (length >= minWidth) {
            flush();
            out.push_back(s);
            continue;
        }
        if (open && s.start - bin.start >= minWidth)
            flush();
        if (!open) {
            open = true;
            bin = s;
            busy = Nanoseconds{0};
            perTask.clear();
        }
        bin.end = s.end;
        busy += length;
        auto it = std::find_if(
            perTask.begin(), perTask.end(), [&](const auto& p) { return p.first == s.task; });
        if (it == perTask.end())
            perTask.emplace_back(s.task, length);
        else
            it->second += length;
    }
    flush();
    return out;
}

} // namespace schedlab::ui
