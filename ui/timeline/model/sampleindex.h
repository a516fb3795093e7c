// SPDX-License-Identifier: GPL-2.0-or-later
// Where each task's entity samples are in the Recording, so the vruntime pane can read one
// task's series in a time window without scanning the whole run. Built incrementally like
// RunSegmentIndex. vruntime is piecewise linear between two samples of the same entity
// (docs/kernel-model.md §3.6: it advances only in update_curr()
// while the entity runs, at a constant rate for a constant weight), so joining the points with
// straight lines is exact.
#pragma once

#include "core/base/time.h"
#include "core/record/recording.h"
#include "ui/timeline/model/podvector.h"
#include "ui/timeline/model/summarypyramid.h"

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace schedlab::ui {

/// PELT averages of an entity and of the cfs_rq it is queued on, with that cfs_rq's task
/// counts, as the Pelt record after its sample holds them (RunOptions::recordPelt; the values
/// at their last update, docs/kernel-model.md §6.6, §5.4).
struct PeltValues
{
    uint32_t load = 0, runnable = 0, util = 0;       ///< the entity's load/runnable/util_avg
    uint32_t rqLoad = 0, rqRunnable = 0, rqUtil = 0; ///< its cfs_rq's
    int32_t hNrQueued = 0, hNrRunnable = 0;          ///< its cfs_rq's h_nr_queued, h_nr_runnable
    friend bool operator==(const PeltValues&, const PeltValues&) = default;
};

struct EntitySample
{
    Nanoseconds time{0};
    uint64_t vruntime = 0;
    uint64_t deadline = 0;
    uint64_t avgVruntime = 0; ///< V of the cfs_rq the entity was queued on
    uint8_t flags = 0;        ///< Record::kEligible, kCurr, …
    int32_t vlag = 0;         ///< V − v while queued, the saved vlag otherwise (saturated)
    uint32_t weight = 0;      ///< scaled load weight
    /// Samples of the entity were left out (decimated) between the previous one returned and
    /// this one: what it did between them is not known sample by sample.
    bool afterGap = false;
    uint16_t cpu = 0;     ///< CPU of the cfs_rq the entity is on
    int16_t group = -1;   ///< its cgroup, when the view knows it (−1: not known)
    bool hasPelt = false; ///< the recording holds PELT for this sample (RunOptions::recordPelt)
    PeltValues pelt{};
    friend bool operator==(const EntitySample&, const EntitySample&) = default;
};

class SampleIndex
{
public:
    void update(const Recording& recording);
    void clear();
    /// update() one record at a time (see RunSegmentIndex::begin()): @p i is the record's
    /// position in @p records.
    void begin(const Recording& recording);
    void consume(const std::vector<Record>& records, size_t i);
    /// consume() of a Sample record.
    void consumeSample(const std::vector<Record>& records, size_t i);
    void end(size_t consumed) { m_consumed = consumed; }
    size_t consumedRecords() const { return m_consumed; }
    size_t sampleCount(int task) const;
    /// Frees the room the index's vectors hold beyond their contents (updateIndexes() does,
    /// after a pass that built most of the index).
    void shrinkToFit();
    /// Memory held by the index (sample positions and the summaries built so far).
    size_t bytes() const;

    /// Samples of @p task inside [from, to] plus the nearest one on each side, so lines run
    /// to the window's edges.
    std::vector<EntitySample> series(
        const Recording& recording, int task, Nanoseconds from, Nanoseconds to) const;

    /// Quantities whose extremes decimatedSeries() keeps (a bit mask).
    enum Keep : unsigned {
        KeepLag = 1u << 0,
        KeepVruntime = 1u << 1,
        KeepWeight = 1u << 2,
        KeepDeadline = 1u << 3,
        KeepAvg = 1u << 4, ///< V of the cfs_rq
        KeepAll = KeepLag | KeepVruntime | KeepWeight | KeepDeadline | KeepAvg,
        /// PELT (EntitySample::pelt), in the order of PeltValues' fields.
        KeepLoad = 1u << 5,
        KeepRunnable = 1u << 6,
        KeepUtil = 1u << 7,
        KeepRqLoad = 1u << 8,
        KeepRqRunnable = 1u << 9,
        KeepRqUtil = 1u << 10,
        KeepHNrQueued = 1u << 11,
        KeepHNrRunnable = 1u << 12,
        KeepPelt = KeepLoad | KeepRunnable | KeepUtil | KeepRqLoad | KeepRqRunnable | KeepRqUtil
            | KeepHNrQueued | KeepHNrRunnable,
    };
    /// Some sample indexed so far has PELT values (the run recorded them).
    bool hasPelt() const { return m_hasPelt; }
    /// The slices @p task's deadline renewals used (DeadlineRenew records, b = se->slice): (time,
    /// slice ns) where it changed, in time order; empty without renewals (or without events).
    const std::vector<std::pair<Nanoseconds, int64_t>>& sliceChanges(int task) const;
    /// When @p task exited (its Exit record), or -1 while it lives: its lines end there.
    Nanoseconds exitTime(int task) const;

    /// Level of detail for long windows: like series(), but when more than 4·@p bins samples
    /// fall inside [from, to], each of @p bins time bins (the view's pixel columns: bin b is
    /// [columnEdge(b), columnEdge(b + 1)), envelope.h) keeps only its first and last sample and
    /// the samples with the lowest and highest value of each quantity in @p keep, in time order
    /// — real samples, so every bin's extremes are drawn where they happened, exactly in their
    /// own bin. A sample that follows left-out ones has `afterGap` set. Blocks of samples are
    /// read from the series' SummaryPyramid where a block lies inside one bin; a block that
    /// straddles a bin edge is read sample by sample. The cost is about
    /// O(bins · 16 · levels + log n), whatever the length of the run.
    ///
    /// A bin where the entity changes cfs_rq — another CPU (a migration), or a cgroup move at
    /// one of @p moves (its move times; at a move's time a queued sample is on the new
    /// cgroup's queue, a dequeued one on the old) — keeps these for every stay on one queue,
    /// so the last sample before each change and the first after it are always kept and the
    /// lines can break there at every zoom (the cost grows by the changes in the window).
    std::vector<EntitySample> decimatedSeries(const Recording& recording, int task,
        Nanoseconds from, Nanoseconds to, int bins, unsigned keep = KeepAll,
        const std::vector<Nanoseconds>& moves = {}) const;

    /// Extremes of one quantity over a block of samples, and where (record positions) they are.
    struct Extreme
    {
        int64_t low = 0;
        int64_t high = 0;
        uint32_t lowAt = 0;
        uint32_t highAt = 0;
    };
    /// Summary of a block of consecutive samples of one entity.
    struct SampleSummary
    {
        int64_t first = 0;    ///< time of the first sample
        int64_t last = 0;     ///< time of the last sample
        uint32_t firstAt = 0; ///< record position of the first sample
        uint32_t lastAt = 0;  ///< record position of the last sample
        /// lag (vlag), vruntime (relative to the entity's first sample), weight, deadline and V
        /// (both relative to the first sample's vruntime), in the order of the Keep bits.
        std::array<Extreme, 5> extremes{};
        uint16_t firstCpu = 0;   ///< CPU of the first sample's cfs_rq
        uint16_t lastCpu = 0;    ///< CPU of the last sample's cfs_rq
        bool cpuChanges = false; ///< two consecutive samples of the block are on other CPUs
        void merge(const SampleSummary& next);
    };
    /// The eight PELT values' extremes over the same block (the Keep bits from KeepLoad on),
    /// kept in a pyramid of their own only for series whose samples have PELT: a run without
    /// PELT pays nothing for them.
    struct PeltSummary
    {
        std::array<Extreme, 8> extremes{};
        void merge(const PeltSummary& next);
    };

    /// V of one cfs_rq between two times, as its entities' samples report it: @p onQueue tells
    /// whether a sample (of a queued entity on @p cpu) was taken on that cfs_rq. About @p points
    /// values in (@p from, @p to], each a real sample's time and V (the latest one on the queue
    /// before each of @p points equal steps, looked for among the CPU's last 64 samples), in time
    /// order. Cost O(points · 64 + points · log n).
    std::vector<std::pair<Nanoseconds, uint64_t>> queueV(const Recording& recording, int cpu,
        Nanoseconds from, Nanoseconds to, int points,
        const std::function<bool(const Record&)>& onQueue) const;

    /// The largest slice queued on the cfs_rq of group @p group (0 = root) on @p cpu over time,
    /// (time, ns) where MaxSlice records (RunOptions::recordMaxSlice) saw it change, in record
    /// order; nullptr when the recording has none for that queue.
    const std::vector<std::pair<Nanoseconds, int64_t>>* maxSlices(int cpu, int group) const;

    /// Group entities (EntityRef raw values) that have samples, in first-seen order.
    const std::vector<int32_t>& groupEntities() const { return m_groupOrder; }
    /// The series of the first @p count group entities (in first-seen order) are summarized as
    /// their samples are indexed, not when a window first needs them: a view that draws them at
    /// once (the weights pane) then finds their summaries built, from records read in the
    /// indexing pass anyway, instead of reading every sample again from all over the recording.
    /// The summaries are the same either way.
    void summarizeGroupsWhileIndexing(size_t count) { m_summarizedGroups = count; }
    /// Decimated samples of group entity @p raw (as decimatedSeries()).
    std::vector<EntitySample> groupSeries(const Recording& recording, int32_t raw, Nanoseconds from,
        Nanoseconds to, int bins, unsigned keep = KeepAll) const;

private:
    /// One entity's samples. update() only notes their positions; the summaries are built
    /// (and caught up with new samples) when a window first needs them (summarize()): indexing
    /// a run costs one pass over its records, and series nobody draws cost no summaries.
    struct Series
    {
        PodVector<uint32_t> positions; ///< record positions of the entity's samples
        uint64_t reference = 0;        ///< vruntime of its first sample
        mutable SummaryPyramid<SampleSummary> summary;
        mutable SummaryPyramid<PeltSummary>
            peltSummary;                 ///< item for item with `summary` if aligned
        mutable bool peltAligned = true; ///< every sample summarized had PELT
        mutable size_t summarized = 0;   ///< samples folded into the summaries
        void append(const Record& r, uint32_t position)
        {
            if (positions.empty()) [[unlikely]]
                reference = r.payload.sample.vruntime;
            positions.push_back(position);
        }
        /// Folds the samples not yet summarized into the summaries.
        void summarize(const std::vector<Record>& records) const;
        /// summarize() right after append() (the indexing pass): the new sample is the only
        /// one not summarized, unless the series was not summarized while indexed before.
        void summarizeAppended(const std::vector<Record>& records) const;
        /// Folds the sample at record position @p position, the next one, into the summaries.
        void summarizeOne(const std::vector<Record>& records, uint32_t position) const;
    };
    /// The sample at record position @p position, with its PELT from the Pelt record that
    /// follows it, if any.
    static EntitySample toSample(const std::vector<Record>& records, uint32_t position);
    static std::vector<EntitySample> decimate(const Series& series, const Recording& recording,
        Nanoseconds from, Nanoseconds to, int bins, unsigned keep,
        const std::vector<Nanoseconds>& moves = {});
    std::vector<Series> m_perGroup; ///< by position in m_groupOrder
    std::vector<int32_t> m_groupOrder;
    /// EntityRef raw → position in m_groupOrder + 1 (0: none yet), by group index then CPU: a
    /// direct look-up for every group entity's sample, no hashing.
    std::vector<std::vector<uint32_t>> m_groupSlot;
    /// The position of group entity @p raw in m_groupOrder, or SIZE_MAX.
    size_t groupSlot(int32_t raw) const;
    std::vector<Series> m_perTask;
    std::vector<PodVector<uint32_t>> m_queuedPerCpu; ///< positions of queued entities' samples
    std::vector<std::vector<std::pair<Nanoseconds, int64_t>>> m_slices; ///< per task
    std::vector<int64_t> m_exits; ///< per task: its exit time, -1 while alive
    /// Per cfs_rq, (group << 12 | cpu) as Machine keys them: its MaxSlice records.
    std::unordered_map<uint32_t, std::vector<std::pair<Nanoseconds, int64_t>>> m_maxSlices;
    size_t m_consumed = 0;
    size_t m_summarizedGroups = 0; ///< see summarizeGroupsWhileIndexing()
    bool m_hasPelt = false;
};

class RunSegmentIndex;

/// Both indexes' update() in one pass over the records appended since the last call (each
/// reads every record: the recording is read once, not twice). A pass that read at least
/// kShrinkAfter records and at least as many as were indexed before (a finished run indexed
/// whole) ends with both indexes' shrinkToFit(): they then hold no room beyond their contents.
void updateIndexes(const Recording& recording, RunSegmentIndex& lanes, SampleIndex& samples);
inline constexpr size_t kShrinkAfter = 65536;

} // namespace schedlab::ui
