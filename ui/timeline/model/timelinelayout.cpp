// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/timelinelayout.h"

#include "core/record/recording.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace schedlab::ui {

namespace {
// Bin edges are span · b / bins: the product can pass 2^63 for long runs at fine bins.
__extension__ typedef __int128 Wide;
} // namespace

void RunSegmentIndex::clear()
{
    m_lanes.clear();
    m_throttled.clear();
    m_openThrottle.clear();
    m_consumed = 0;
    m_lastSwitch = Nanoseconds{0};
}

size_t RunSegmentIndex::bytes() const
{
    size_t n = 0;
    for (const Lane& l : m_lanes) {
        n += l.closed.capacity() * sizeof(Run) + l.busyBefore.capacity() * sizeof(int64_t)
            + l.summary.bytes();
        for (const auto& t : l.perTask)
            n += t.runs.capacity() * sizeof(t.runs[0]) + t.before.capacity() * sizeof(int64_t);
    }
    for (const auto& intervals : m_throttled)
        n += intervals.capacity() * sizeof(intervals[0]);
    return n;
}

void RunSegmentIndex::shrinkToFit()
{
    for (Lane& l : m_lanes) {
        l.closed.shrink_to_fit();
        l.busyBefore.shrink_to_fit();
        l.summary.shrinkToFit();
        for (auto& t : l.perTask) {
            t.runs.shrink_to_fit();
            t.before.shrink_to_fit();
        }
    }
    for (auto& intervals : m_throttled)
        intervals.shrink_to_fit();
}

RunSegmentIndex::Lane& RunSegmentIndex::lane(int cpu)
{
    if (cpu >= cpuCount())
        m_lanes.resize(static_cast<size_t>(cpu) + 1);
    return m_lanes[static_cast<size_t>(cpu)];
}

void RunSegmentIndex::update(const Recording& recording)
{
    begin(recording);
    const auto& records = recording.records();
    for (size_t i = m_consumed; i < records.size(); ++i)
        consume(records[i]);
    end(records.size());
}

void RunSegmentIndex::begin(const Recording& recording)
{
    if (recording.records().size() < m_consumed)
        clear();
    if (cpuCount() < recording.cpus)
        m_lanes.resize(static_cast<size_t>(recording.cpus));
}

const std::vector<std::pair<int64_t, int64_t>>& RunSegmentIndex::throttled(int cpu) const
{
    static const std::vector<std::pair<int64_t, int64_t>> kNone;
    return cpu >= 0 && static_cast<size_t>(cpu) < m_throttled.size()
        ? m_throttled[static_cast<size_t>(cpu)]
        : kNone;
}

void RunSegmentIndex::consumeThrottle(const Record& r)
{
    const auto open = m_openThrottle.find(r.entity.raw);
    if (r.kind == RecordKind::Throttle && open == m_openThrottle.end()) {
        if (m_throttled.size() <= r.cpu)
            m_throttled.resize(static_cast<size_t>(r.cpu) + 1);
        auto& intervals = m_throttled[r.cpu];
        m_openThrottle[r.entity.raw] = {r.cpu, intervals.size()};
        intervals.emplace_back(r.time, -1);
    } else if (r.kind == RecordKind::Unthrottle && open != m_openThrottle.end()) {
        m_throttled[open->second.first][open->second.second].second = r.time;
        m_openThrottle.erase(open);
    }
}

void RunSegmentIndex::consumeSwitch(const Record& r)
{
    Lane& l = lane(r.cpu);
    // Time never goes back in a run; clamp anyway so a bad record cannot invert a segment.
    const Nanoseconds t = std::max(Nanoseconds{r.time}, l.since);
    if (l.current >= 0 && t > l.since) {
        l.busyBefore.push_back(l.closed.empty()
                ? 0
                : l.busyBefore.back() + (l.closed.back().end - l.closed.back().start).count());
        l.closed.push_back({l.since, t, l.current});
        const int64_t length = (t - l.since).count();
        if (l.perTask.size() <= static_cast<size_t>(l.current))
            l.perTask.resize(static_cast<size_t>(l.current) + 1);
        auto& mine = l.perTask[static_cast<size_t>(l.current)];
        mine.runs.push_back(static_cast<uint32_t>(l.closed.size() - 1));
        mine.before.push_back(mine.before.back() + length);
        l.summary.push({l.since.count(), t.count(), length, l.current, length});
    }
    const int64_t next = r.payload.generic.a;
    l.current = next >= 0 ? static_cast<int>(next) : -1;
    l.since = t;
    m_lastSwitch = std::max(m_lastSwitch, t);
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
        [](Nanoseconds t, const Run& s) { return t < s.end; });
    for (; it != l.closed.end() && it->start < to; ++it)
        clipped({cpu, it->task, it->start, it->end});
    if (l.current >= 0)
        clipped({cpu, l.current, l.since, std::max(now, l.since)});
    return out;
}

int64_t RunSegmentIndex::closedBusyBefore(const Lane& l, Nanoseconds t)
{
    // First closed run ending after t: everything before it ran entirely before t.
    const auto it = std::upper_bound(
        l.closed.begin(), l.closed.end(), t, [](Nanoseconds v, const Run& s) { return v < s.end; });
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

int64_t RunSegmentIndex::taskBusyBefore(const Lane& l, int task, Nanoseconds t, size_t* hint)
{
    if (task < 0 || static_cast<size_t>(task) >= l.perTask.size())
        return 0;
    const auto& mine = l.perTask[static_cast<size_t>(task)];
    const size_t n = mine.runs.size();
    size_t lo = hint ? std::min(*hint, n) : 0;
    size_t hi = n;
    const int64_t at = t.count();
    const auto endOf = [&](size_t k) { return l.closed[mine.runs[k]].end.count(); };
    if (hint) {
        // Monotone queries move a little each time: gallop from the hint (the answer is not
        // before it), then bisect the last step.
        if (lo < n && endOf(lo) <= at) {
            size_t prev = lo;
            size_t step = 1;
            size_t cur = lo + 1;
            while (cur < n && endOf(cur) <= at) {
                prev = cur;
                step *= 2;
                cur = prev + step;
            }
            lo = prev + 1;
            hi = std::min(cur, n);
        } else {
            hi = lo;
        }
    }
    // First run of the task ending after t: all before it ended by t.
    const auto it = std::upper_bound(mine.runs.begin() + static_cast<std::ptrdiff_t>(lo),
        mine.runs.begin() + static_cast<std::ptrdiff_t>(hi), at,
        [&](int64_t v, uint32_t run) { return v < l.closed[run].end.count(); });
    const auto k = static_cast<size_t>(it - mine.runs.begin());
    if (hint)
        *hint = k;
    int64_t busy = mine.before[k];
    if (k < mine.runs.size() && l.closed[mine.runs[k]].start.count() < at)
        busy += at - l.closed[mine.runs[k]].start.count();
    return busy;
}

Nanoseconds RunSegmentIndex::taskBusyTime(
    int cpu, int task, Nanoseconds from, Nanoseconds to, Nanoseconds now) const
{
    if (cpu < 0 || cpu >= cpuCount() || to <= from)
        return Nanoseconds{0};
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    int64_t busy = taskBusyBefore(l, task, to) - taskBusyBefore(l, task, from);
    if (l.current == task && task >= 0) {
        const Nanoseconds start = std::max(l.since, from);
        const Nanoseconds end = std::min(std::max(now, l.since), to);
        if (end > start)
            busy += (end - start).count();
    }
    return Nanoseconds{busy};
}

std::vector<LaneBin> RunSegmentIndex::binShares(
    int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now, int bins) const
{
    std::vector<LaneBin> out;
    if (cpu < 0 || cpu >= cpuCount() || to <= from || bins <= 0)
        return out;
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    const int64_t span = (to - from).count();
    const auto edge = [&](int b) {
        return Nanoseconds{from.count() + static_cast<int64_t>(static_cast<Wide>(span) * b / bins)};
    };
    // Per bin, its run time per task; filled task by task, so each bin's list is in task order.
    std::vector<std::vector<std::pair<int, int64_t>>> perBin(static_cast<size_t>(bins));
    const int tasks =
        static_cast<int>(std::max(l.perTask.size(), static_cast<size_t>(l.current + 1)));
    const Nanoseconds currentEnd = std::max(now, l.since);
    // Bin of time t in [from, to).
    const auto binOf = [&](Nanoseconds t) {
        return static_cast<int>(static_cast<Wide>((t - from).count()) * bins / span);
    };
    // [s, e) clipped to the window, cut at the bins' edges: piece(bin, ns) for each part.
    const auto forEachBinPiece = [&](Nanoseconds s, Nanoseconds e, auto piece) {
        s = std::max(s, from);
        e = std::min(e, to);
        for (int b = s < e ? binOf(s) : bins; b < bins && s < e; ++b) {
            // Integer edges: a time can sit just before its computed bin's edge.
            while (b > 0 && edge(b) > s)
                --b;
            while (edge(b + 1) <= s)
                ++b;
            const Nanoseconds part = std::min(e, edge(b + 1));
            piece(b, (part - s).count());
            s = part;
        }
    };
    // Few runs in the window for its bins and tasks (a whole-run view of a short run, any view of
    // a busy lane at fine zoom): walk them once, in time order, adding each bin's run time per
    // task as the walk leaves the bin; many runs: per task, each bin from the prefix sums.
    const auto firstRun = std::upper_bound(l.closed.begin(), l.closed.end(), from,
        [](Nanoseconds t, const Run& s) { return t < s.end; });
    const auto endRun = std::lower_bound(
        firstRun, l.closed.end(), to, [](const Run& s, Nanoseconds t) { return s.start < t; });
    if (endRun - firstRun <= static_cast<std::ptrdiff_t>(bins) * std::max(tasks, 1) / 4) {
        std::vector<int64_t> acc(static_cast<size_t>(std::max(tasks, 0)), 0);
        std::vector<int> touched;
        int bin = -1;
        const auto closeBin = [&] {
            if (bin < 0 || touched.empty())
                return;
            std::sort(touched.begin(), touched.end());
            LaneBin lb{edge(bin), edge(bin + 1), {}};
            lb.tasks.reserve(touched.size());
            for (const int t : touched) {
                lb.tasks.emplace_back(t, acc[static_cast<size_t>(t)]);
                acc[static_cast<size_t>(t)] = 0;
            }
            touched.clear();
            out.push_back(std::move(lb));
        };
        // [s, e) of @p task's run, clipped to the window, spread over the bins it covers.
        const auto walk = [&](int task, Nanoseconds s, Nanoseconds e) {
            if (task < 0 || task >= tasks)
                return;
            forEachBinPiece(s, e, [&](int b, int64_t ns) {
                if (b != bin) {
                    closeBin();
                    bin = b;
                }
                int64_t& a = acc[static_cast<size_t>(task)];
                if (a == 0)
                    touched.push_back(task);
                a += ns;
            });
        };
        for (auto run = firstRun; run != endRun; ++run)
            walk(run->task, run->start, run->end);
        if (l.current >= 0 && currentEnd > from && l.since < to)
            walk(l.current, l.since, currentEnd);
        closeBin();
        return out;
    }
    for (int task = 0; task < tasks; ++task) {
        const bool running = l.current == task && currentEnd > from && l.since < to;
        size_t first = 0;
        const int64_t atFrom = taskBusyBefore(l, task, from, &first);
        size_t last = first;
        const int64_t atTo = taskBusyBefore(l, task, to, &last);
        if (!running && atTo == atFrom)
            continue; // did not run in the window
        std::vector<int64_t> busy(static_cast<size_t>(bins), 0);
        // [s, e) of a run, clipped to the window, spread over the bins it covers.
        const auto spread = [&](Nanoseconds s, Nanoseconds e) {
            forEachBinPiece(s, e, [&](int b, int64_t ns) { busy[static_cast<size_t>(b)] += ns; });
        };
        if (static_cast<size_t>(task) >= l.perTask.size()) {
            // No closed run yet: only the current one.
        } else if (last - first <= static_cast<size_t>(bins) / 4) {
            // Few runs in the window: walk them (the one straddling `to` included).
            const auto& mine = l.perTask[static_cast<size_t>(task)];
            for (size_t k = first; k <= last && k < mine.runs.size(); ++k) {
                const Run& run = l.closed[mine.runs[k]];
                if (run.start >= to)
                    break;
                spread(run.start, run.end);
            }
        } else {
            // Many: each bin's time from the prefix sums at its edges.
            size_t hint = first;
            int64_t before = atFrom;
            for (int b = 0; b < bins; ++b) {
                const int64_t upto = taskBusyBefore(l, task, edge(b + 1), &hint);
                busy[static_cast<size_t>(b)] += upto - before;
                before = upto;
            }
        }
        if (running)
            spread(l.since, currentEnd);
        for (int b = 0; b < bins; ++b)
            if (busy[static_cast<size_t>(b)] > 0)
                perBin[static_cast<size_t>(b)].emplace_back(task, busy[static_cast<size_t>(b)]);
    }
    for (int b = 0; b < bins; ++b)
        if (!perBin[static_cast<size_t>(b)].empty())
            out.push_back({edge(b), edge(b + 1), std::move(perBin[static_cast<size_t>(b)])});
    return out;
}

void RunSegmentIndex::RunSummary::merge(const RunSummary& next)
{
    end = next.end;
    busy += next.busy;
    // Weighted majority vote (Boyer–Moore): run time of different tasks cancels pairwise, so a
    // task that ran more than half of the block's busy time is the one left standing.
    if (next.task == task) {
        votes += next.votes;
    } else if (next.votes > votes) {
        task = next.task;
        votes = next.votes - votes;
    } else {
        votes -= next.votes;
    }
}

std::vector<RunSegment> RunSegmentIndex::binnedSegments(
    int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now, int bins) const
{
    if (cpu < 0 || cpu >= cpuCount() || to <= from || bins <= 0)
        return {};
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    const auto first = std::upper_bound(l.closed.begin(), l.closed.end(), from,
        [](Nanoseconds t, const Run& s) { return t < s.end; });
    const auto last = std::lower_bound(l.closed.begin(), l.closed.end(), to,
        [](const Run& s, Nanoseconds t) { return s.start < t; });
    if (last - first <= 2 * static_cast<std::ptrdiff_t>(bins))
        return segments(cpu, from, to, now);

    // Walk the runs of the window once, bin after bin, taking whole summary blocks where a
    // block lies inside the current bin and single runs at the bins' edges.
    std::vector<RunSegment> out;
    const int64_t span = (to - from).count();
    int b = 0;
    int64_t b0 = from.count();
    int64_t b1 = from.count() + span / bins;
    int64_t busy = 0;
    std::vector<std::pair<int, int64_t>> perTask; // run time per task in the bin
    const auto add = [&](int task, int64_t time) {
        busy += time;
        for (auto& [t, total] : perTask)
            if (t == task) {
                total += time;
                return;
            }
        perTask.emplace_back(task, time);
    };
    const auto closeBin = [&] {
        if (busy > 0) {
            const auto best = std::max_element(perTask.begin(), perTask.end(),
                [](const auto& x, const auto& y) { return x.second < y.second; });
            out.push_back({cpu, best->first, Nanoseconds{b0}, Nanoseconds{b1},
                static_cast<double>(busy) / static_cast<double>(std::max<int64_t>(b1 - b0, 1))});
        }
        busy = 0;
        perTask.clear();
        ++b;
        b0 = b1;
        b1 = b + 1 == bins ? to.count() : from.count() + span * (b + 1) / bins;
    };
    // One run, clipped to the window, spread over the bins it covers.
    const auto addRun = [&](int task, int64_t start, int64_t end) {
        start = std::max(start, from.count());
        end = std::min(end, to.count());
        while (start < end && b < bins) {
            if (start >= b1) {
                closeBin();
                continue;
            }
            const int64_t part = std::min(end, b1);
            add(task, part - start);
            start = part;
        }
    };
    auto i = static_cast<size_t>(first - l.closed.begin());
    const auto stop = static_cast<size_t>(last - l.closed.begin());
    while (i < stop && b < bins) {
        const int64_t start = l.closed[i].start.count();
        while (start >= b1 && b < bins)
            closeBin();
        if (b == bins)
            break;
        // A block ending inside the bin lies inside the window too (runs are not empty).
        const auto [node, items] = l.summary.largestAt(
            i, [&](const RunSummary& n) { return n.start >= b0 && n.end <= b1; });
        if (node) {
            busy += node->busy - node->votes;
            add(node->task, node->votes);
            i += items;
            continue;
        }
        const Run& s = l.closed[i];
        addRun(s.task, s.start.count(), s.end.count());
        ++i;
    }
    if (l.current >= 0)
        addRun(l.current, l.since.count(), std::max(now, l.since).count());
    while (b < bins)
        closeBin();
    return out;
}

std::optional<RunSegment> RunSegmentIndex::segmentAt(int cpu, Nanoseconds t, Nanoseconds now) const
{
    if (cpu < 0 || cpu >= cpuCount())
        return std::nullopt;
    const Lane& l = m_lanes[static_cast<size_t>(cpu)];
    auto it = std::upper_bound(
        l.closed.begin(), l.closed.end(), t, [](Nanoseconds v, const Run& s) { return v < s.end; });
    if (it != l.closed.end() && it->start <= t)
        return RunSegment{cpu, it->task, it->start, it->end};
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
