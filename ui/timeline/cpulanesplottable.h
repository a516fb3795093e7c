// SPDX-License-Identifier: GPL-2.0-or-later
// Paints the per-CPU lanes: one row per CPU (value coordinate = CPU number); each pixel column is
// stacked by the share each task ran in it, in the task's palette colour, idle left empty. All
// geometry comes from TimelineLayout / RunSegmentIndex; this class only paints. Keys are
// milliseconds. Time during which a group's cfs_rq on the CPU is throttled (cpu.max) is hatched
// along the lane's bottom.
#pragma once

#include "ui/timeline/model/timelinelayout.h"
#include "ui/timeline/qcp.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace schedlab {
class Recording;
}

namespace schedlab::ui {

/// One task's rows [bottom, top) of a lane column, counted from the lane's bottom edge.
struct StackPiece
{
    int task = -1;
    int bottom = 0;
    int top = 0;
    friend bool operator==(const StackPiece&, const StackPiece&) = default;
};
/// One pixel column of a lane: its pieces bottom-up (idle above the last).
struct StackColumn
{
    int column = 0;    ///< pixel column from the window's left edge
    Nanoseconds at{0}; ///< start of its bin
    std::vector<StackPiece> pieces;
};
/// Lane bins (RunSegmentIndex::binShares() over [@p from, @p to) in @p columns bins) stacked into
/// columns @p height pixels tall: each task's rows are its share of the bin, rounded at the
/// running sum (within a pixel of the exact share), at least one row for a task that ran at all.
/// Tasks are stacked in one order for all columns: by @p orderKey(task, start of the first bin
/// the task ran in) when given, then by first appearance in @p bins — any two tasks present in
/// two columns are in the same order in both.
std::vector<StackColumn> stackBins(const std::vector<LaneBin>& bins, int height, Nanoseconds from,
    Nanoseconds to, int columns, const std::function<int(int, Nanoseconds)>& orderKey = {});

class CpuLanesPlottable : public QCPAbstractPlottable
{
    Q_OBJECT
public:
    CpuLanesPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    /// @p index and @p recording (for task names) must outlive the plottable or be reset first.
    void setSource(const RunSegmentIndex* index, const Recording* recording, int cpuCount);
    void setNow(Nanoseconds now) { m_now = now; }
    /// Colour runs by the cgroup their task was in (@p groupOf(task, t) → group index, -1 if
    /// unknown) instead of by task; an empty function colours by task.
    void setGroupColouring(std::function<int(int, Nanoseconds)> groupOf)
    {
        m_groupOf = std::move(groupOf);
        m_laneCache.clear();
    }
    /// Caching (default on): a drawing of the same window, columns, lane height, present and
    /// records indexed as the previous one reuses each lane's stacked columns.
    void setCaching(bool on)
    {
        m_caching = on;
        m_laneCache.clear();
    }
    bool coloursByGroup() const { return static_cast<bool>(m_groupOf); }

    /// Layout of the current key range on screen.
    TimelineLayout layout() const;
    /// CPU lane under pixel @p y, or -1.
    int cpuAt(double y) const;

    double selectTest(
        const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(
        bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
        const QCPRange& inKeyRange = QCPRange()) const override;

    static constexpr double kLaneHalfHeight = 0.4;
    /// @p front over @p back with opacity @p alpha, as an opaque colour.
    static QRgb mix(QRgb front, QRgb back, double alpha);

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    /// Colour of cgroup @p group (grey for -1, unknown).
    static QColor groupColour(int group);
    /// The run's colour: its task's, or its cgroup's when colouring by group.
    QColor cachedColour(int task, Nanoseconds at) const;

    const RunSegmentIndex* m_index = nullptr; ///< its runs and throttled intervals are drawn
    const Recording* m_recording = nullptr;
    int m_cpuCount = 0;
    Nanoseconds m_now{0};
    std::function<int(int, Nanoseconds)> m_groupOf;
    mutable std::vector<QColor> m_colourCache; ///< taskColor() by task + 1, for one draw
    /// Per CPU, the stacked columns of the last drawing and what they were built for (window,
    /// present, columns, lane height, records indexed).
    struct LaneCache
    {
        std::array<int64_t, 6> key{};
        std::vector<StackColumn> columns;
        /// The lane's narrow spans painted into an image (null: none), and the background it
        /// was painted on; kept with `columns` while that background stays.
        QImage strip;
        QRgb stripBack = 0;
        bool stripBuilt = false;
        /// Spans at least 4 columns wide, painted as rectangles: (left column, width, column).
        std::vector<std::tuple<int, int, size_t>> wide;
    };
    std::vector<LaneCache> m_laneCache;
    bool m_caching = true;
};

/// Milliseconds (plot keys) ↔ nanoseconds (core time).
Nanoseconds msToNs(double ms);
double nsToMs(Nanoseconds ns);

} // namespace schedlab::ui
