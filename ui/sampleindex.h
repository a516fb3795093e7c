// SPDX-License-Identifier: GPL-2.0-or-later
// Where each task's entity samples are in the Recording, so the vruntime pane can read one
// task's series in a time window without scanning the whole run. Built incrementally like
// RunSegmentIndex. vruntime is piecewise linear between two samples of the same entity
// (architecture.md §4), so joining the points with straight lines is exact.
#pragma once

#include "core/base/time.h"

#include <cstdint>
#include <vector>

namespace schedlab {
class Recording;
struct Record;
} // namespace schedlab

namespace schedlab::ui {

struct EntitySample
{
    Nanoseconds time{0};
    uint64_t vruntime = 0;
    uint64_t deadline = 0;
    uint64_t avgVruntime = 0; ///< V of the cfs_rq the entity was queued on
    uint8_t flags = 0;        ///< Record::kEligible, kCurr, …
    int32_t vlag = 0;         ///< V − v while queued, the saved vlag otherwise (saturated)
    uint32_t weight = 0;      ///< scaled load weight
    friend bool operator==(const EntitySample&, const EntitySample&) = default;
};

class SampleIndex
{
public:
    void update(const Recording& recording);
    void clear();
    size_t consumedRecords() const { return m_consumed; }
    size_t sampleCount(int task) const;

    /// Samples of @p task inside [from, to] plus the nearest one on each side, so lines run
    /// to the window's edges.
    std::vector<EntitySample> series(
        const Recording& recording, int task, Nanoseconds from, Nanoseconds to) const;

    /// Level of detail for long windows: like series(), but when more than 4·@p bins samples
    /// fall inside [from, to] each of @p bins equal time bins keeps at most its first and last
    /// sample and the lowest and highest lag among up to 16 evenly spaced samples of the bin, in
    /// time order. Lines drawn through them differ from the full series by less than a bin's
    /// width in time; the cost is O(bins · 16), independent of the run's length.
    std::vector<EntitySample> decimatedSeries(
        const Recording& recording, int task, Nanoseconds from, Nanoseconds to, int bins) const;

    /// Group entities (EntityRef raw values) that have samples, in first-seen order.
    const std::vector<int32_t>& groupEntities() const { return m_groupOrder; }
    /// Decimated samples of group entity @p raw (as decimatedSeries()).
    std::vector<EntitySample> groupSeries(
        const Recording& recording, int32_t raw, Nanoseconds from, Nanoseconds to, int bins) const;

private:
    static EntitySample toSample(const Record& r);
    static std::vector<EntitySample> decimate(const std::vector<uint32_t>& positions,
        const Recording& recording, Nanoseconds from, Nanoseconds to, int bins);
    std::vector<std::vector<uint32_t>> m_perGroup; ///< by position in m_groupOrder
    std::vector<int32_t> m_groupOrder;
    std::vector<std::vector<uint32_t>> m_perTask; ///< record positions of each task's samples
    size_t m_consumed = 0;
};

} // namespace schedlab::ui
