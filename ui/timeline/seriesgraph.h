// SPDX-License-Identifier: GPL-2.0-or-later
// How the timeline's series are painted. Sparse, a series is QCustomPlot's polyline, smoothed.
// Dense, it is the rows it covers in each device pixel column (columnspans.h): exact, on the
// device grid in every format. In a raster (the window, PNG captures) the dense series of one
// pane are painted together, in their drawing order, into one image of the pane (PaneColumns),
// which a drawing of the same series, pens, ranges and geometry paints again without computing
// the spans anew (TimelineView::setCaching; tests/ui/tst_drawcache.cpp).
#pragma once

#include "ui/timeline/model/columnspans.h"
#include "ui/timeline/qcp.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace schedlab::ui {

class SeriesGraph;

/// The dense series of one pane, painted together in a raster. The first of them to be drawn
/// paints all of them, in their order (the order QCustomPlot draws them in: creation), into a
/// transparent image of the pane, which it then draws; the others draw nothing. Source-over is
/// associative, so the pane looks as if each series had been painted on its own. The image is
/// kept for the next drawing while the series' data (invalidate()), pens, visibility, axis
/// ranges, pane and device geometry stay the same.
class PaneColumns
{
public:
    /// Call when any member's data changed.
    void invalidate() { ++m_generation; }
    /// Off: every drawing paints the image anew.
    void setCaching(bool on)
    {
        m_caching = on;
        invalidate();
    }

private:
    friend class SeriesGraph;
    void add(SeriesGraph* g) { m_members.push_back(g); }
    void remove(SeriesGraph* g);
    /// The member that paints the pane: the first drawn as columns.
    const SeriesGraph* leader() const;
    void draw(QCPPainter* painter);

    std::vector<SeriesGraph*> m_members; ///< in drawing order
    QImage m_image;
    QPoint m_at; ///< device position of m_image
    std::vector<int64_t> m_key;
    uint64_t m_generation = 0;
    bool m_caching = true;
};

/// A series graph (see the file comment); @p scale points to the device pixels per layout
/// pixel of the drawing in progress, @p pane (may be null) groups the dense series of a pane.
class SeriesGraph : public QCPGraph
{
public:
    SeriesGraph(
        QCPAxis* key, QCPAxis* value, const double* scale, std::shared_ptr<PaneColumns> pane = {});
    ~SeriesGraph() override;

    void setColumns(bool on) { m_columns = on; }
    /// Drawn as column spans in this drawing: dense, visible, with data.
    bool drawnAsColumns() const
    {
        return m_columns && lineStyle() == lsLine && !mDataContainer->isEmpty() && realVisibility();
    }

protected:
    void draw(QCPPainter* painter) override;

private:
    friend class PaneColumns;
    /// The device pixel spans of the line for the painter's scale (columnSpans()).
    std::vector<ColumnSpan> spans() const;
    /// Device pixels per layout pixel of this drawing.
    double deviceScale() const { return m_scale && *m_scale > 0 ? *m_scale : 1.0; }
    void drawColumns(QCPPainter* painter);

    const double* m_scale;
    std::shared_ptr<PaneColumns> m_pane;
    bool m_columns = false;
};

} // namespace schedlab::ui
