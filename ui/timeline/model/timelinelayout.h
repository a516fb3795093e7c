// SPDX-License-Identifier: GPL-2.0-or-later
// Timeline math without widgets (Qt-free, like the rest of ui/timeline/model): per-CPU run segments
// from the Recording's switch records, the time ↔ pixel mapping of a view window, and the level of
// detail that keeps a long run drawable. The plot only paints what these return;
// tests/ui/tst_timelinelayout.cpp pins the behaviour.
#pragma once

#include "core/base/time.h"
#include "core/record/recording.h"
#include "ui/timeline/model/podvector.h"
#include "ui/timeline/model/summarypyramid.h"

#include <cstddef>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace schedlab::ui {

/// One task running on one CPU over [start, end).
struct RunSegment
{
    int cpu = 0;
    int task = -1; ///< task index
    Nanoseconds start{0};
    Nanoseconds end{0};
    /// Share of [start, end) that something ran: 1 for a real run, less for a level-of-detail
    /// bin that gathers several short runs with idle time between them.
    double busy = 1.0;
    friend bool operator==(const RunSegment&, const RunSegment&) = default;
};

/// One bin of a lane: how long each task ran in [start, end), in task order (tasks that did not
/// run there are left out; the rest of the bin was idle).
struct LaneBin
{
    Nanoseconds start{0};
    Nanoseconds end{0};
    std::vector<std::pair<int, int64_t>> tasks; ///< (task, run time in ns)
    int64_t busy() const
    {
        int64_t n = 0;
        for (const auto& t : tasks)
            n += t.second;
        return n;
    }
};

/// Run segments per CPU, built incrementally: update() reads only the records appended since the
/// last call, so following a live simulation costs O(new records). Closed segments of a lane are
/// sorted and disjoint, so a window query is a binary search.
class RunSegmentIndex
{
public:
    /// Consumes new records of @p recording (starts over if it was cleared or replaced by a
    /// shorter one). Switch records close the lane's current segment and open the next task's.
    void update(const Recording& recording);
    void clear();
    /// update() one record at a time, for a single pass that builds several indexes
    /// (updateIndexes()): begin() before the first new record, consume() each new record in
    /// order, end() after the last.
    void begin(const Recording& recording);
    void consume(const Record& r)
    {
        if (r.kind == RecordKind::Switch)
            consumeSwitch(r);
        else if (r.kind == RecordKind::Throttle || r.kind == RecordKind::Unthrottle)
            consumeThrottle(r);
    }
    void end(size_t consumed) { m_consumed = consumed; }

    int cpuCount() const { return static_cast<int>(m_lanes.size()); }
    size_t consumedRecords() const { return m_consumed; }
    /// Memory held by the index (runs and their summaries).
    size_t bytes() const;
    /// Frees the room the index's vectors hold beyond their contents (see updateIndexes()).
    void shrinkToFit();
    /// Latest switch time seen on any CPU.
    Nanoseconds lastSwitch() const { return m_lastSwitch; }
    /// Throttled time of the group cfs_rqs on @p cpu: (Throttle time, Unthrottle time or −1
    /// while still throttled) per interval, in the order they began. Read in the same pass as
    /// the runs, so drawing them never reads the recording again.
    const std::vector<std::pair<int64_t, int64_t>>& throttled(int cpu) const;

    /// Segments of @p cpu overlapping [from, to), clipped to it, in time order. A task still
    /// running at the end of the recording is shown as running until @p now.
    std::vector<RunSegment> segments(
        int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now) const;

    /// Level of detail whose cost does not grow with the run: when more than 2·@p bins segments
    /// overlap [from, to), returns one segment per non-idle bin of @p bins equal bins, with
    /// `busy` the exact share of the bin something ran and `task` the task that ran longest in
    /// it when the bin's runs are read one by one; when whole blocks of runs are read from
    /// their summaries, a task that ran more than half of the bin's busy time (there is at most
    /// one) is guaranteed to be the one shown. Otherwise returns segments() unchanged. Reads the
    /// lane's SummaryPyramid: about O(bins · 16 · levels + log n), whatever the run's length.
    std::vector<RunSegment> binnedSegments(
        int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now, int bins) const;
    /// Exact shares: [from, to) cut into @p bins equal bins (edges from + (to − from)·b / bins),
    /// each with the run time of every task that ran in it, from per-task prefix sums of run
    /// time — no task that ran in a bin is left out, however short its runs. Bins where nothing
    /// ran are left out. Cost O(bins · tasks that ran in the window · log runs).
    std::vector<LaneBin> binShares(
        int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now, int bins) const;
    /// Run time of @p task on @p cpu in [from, to) (closed runs and the current one up to @p now).
    Nanoseconds taskBusyTime(
        int cpu, int task, Nanoseconds from, Nanoseconds to, Nanoseconds now) const;
    /// Run time on @p cpu in [from, to) (closed runs and the current one up to @p now).
    Nanoseconds busyTime(int cpu, Nanoseconds from, Nanoseconds to, Nanoseconds now) const;

    /// The whole (unclipped) run on @p cpu at time @p t, if a task ran then.
    std::optional<RunSegment> segmentAt(int cpu, Nanoseconds t, Nanoseconds now) const;

    /// Summary of a block of consecutive closed runs of one lane.
    struct RunSummary
    {
        int64_t start = 0; ///< start of the first run
        int64_t end = 0;   ///< end of the last run
        int64_t busy = 0;  ///< run time of the block
        int task = -1;     ///< majority candidate: the task that ran > half of `busy`, if any
        int64_t votes = 0; ///< its run time left after cancelling against other tasks' time
        void merge(const RunSummary& next);
    };

private:
    /// A closed run as the index keeps it (24 bytes: a RunSegment's CPU is the lane's, its
    /// `busy` is 1).
    struct Run
    {
        Nanoseconds start{0};
        Nanoseconds end{0};
        int task = -1;
    };
    struct Lane
    {
        PodVector<Run> closed;
        SummaryPyramid<RunSummary> summary; ///< over `closed`
        PodVector<int64_t> busyBefore;      ///< run time of closed[0 .. i) (prefix sums)
        /// Per task: where its runs are in `closed` (4 bytes a run, not a second copy of their
        /// times), and its run time before each of them (one more entry than runs: the total
        /// last).
        struct TaskRuns
        {
            PodVector<uint32_t> runs;
            PodVector<int64_t> before{0};
        };
        std::vector<TaskRuns> perTask;
        int current = -1; ///< running task, -1 idle
        Nanoseconds since{0};
    };
    Lane& lane(int cpu);
    void consumeSwitch(const Record& r);
    void consumeThrottle(const Record& r);
    /// Run time of the closed runs of @p l before @p t.
    static int64_t closedBusyBefore(const Lane& l, Nanoseconds t);
    /// Run time of the closed runs of @p task in @p l before @p t; @p hint (in, out) is a
    /// position in its runs not after the answer's, for monotone queries.
    static int64_t taskBusyBefore(const Lane& l, int task, Nanoseconds t, size_t* hint = nullptr);

    std::vector<Lane> m_lanes;
    std::vector<std::vector<std::pair<int64_t, int64_t>>> m_throttled; ///< per CPU
    /// Group entity (raw) → its open throttled interval: CPU and index in m_throttled[CPU].
    std::map<int32_t, std::pair<size_t, size_t>> m_openThrottle;
    size_t m_consumed = 0;
    Nanoseconds m_lastSwitch{0};
};

/// Maps the visible time window [start, end) onto the pixel span [left, right).
class TimelineLayout
{
public:
    TimelineLayout(Nanoseconds start, Nanoseconds end, double left, double right);

    Nanoseconds start() const { return m_start; }
    Nanoseconds end() const { return m_end; }
    double left() const { return m_left; }
    double right() const { return m_right; }

    double mapTimeToX(Nanoseconds t) const;
    /// Inverse of mapTimeToX, rounded to the nearest nanosecond.
    Nanoseconds mapXToTime(double x) const;
    double nanosecondsPerPixel() const;

    /// Level of detail: runs narrower than @p minPixels are gathered into bins about
    /// @p minPixels wide, each shown as the task that ran longest in it, with `busy` telling
    /// how much of the bin was not idle. Runs at least @p minPixels wide pass unchanged.
    /// @p segments are one lane's segments in time order.
    std::vector<RunSegment> levelOfDetail(
        const std::vector<RunSegment>& segments, double minPixels = 1.0) const;

private:
    Nanoseconds m_start;
    Nanoseconds m_end;
    double m_left;
    double m_right;
};

} // namespace schedlab::ui
