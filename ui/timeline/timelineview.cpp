// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/timelineview.h"

#include "core/record/recording.h"
#include "ui/common/format.h"
#include "ui/common/taskpalette.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/model/entitylines.h"
#include "ui/timeline/model/envelope.h"
#include "ui/timeline/timelineplot.h"
#include "ui/timeline/timeticker.h"

#include <QScopedValueRollback>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace schedlab::ui {

namespace {
constexpr int kAutoPlotMaxTasks = 8;
// Level of detail: deadline and lag lines only for the first few selected tasks (a hundred
// overlapping lag lines are unreadable and cost most of a redraw); vruntime for all.
constexpr int kDetailTasks = 8;
constexpr double kMinSpanMs = 1e-3; // 1 µs

/// Fits a value axis to the points of its visible graphs inside the time window (the samples
/// just beyond the window's edges, kept so lines reach them, may be far off); all points when
/// none is inside.
void rescaleToWindow(QCPAxis* valueAxis)
{
    bool any = false;
    QCPRange range;
    for (QCPGraph* g : valueAxis->graphs()) {
        if (!g->visible())
            continue;
        bool found = false;
        const QCPRange r = g->getValueRange(found, QCP::sdBoth, g->keyAxis()->range());
        if (!found)
            continue;
        range = any ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper)) : r;
        any = true;
    }
    if (!any) {
        valueAxis->rescale(true);
        return;
    }
    if (range.size() <= 0) { // a flat line: centred in a range QCPAxis accepts
        const double half = std::max(1.0, std::abs(range.lower) * 0.05);
        range = QCPRange(range.lower - half, range.upper + half);
    }
    valueAxis->setRange(range);
}

/// A line as the graph draws it (time in ms, value · @p scale); NaN before a break: QCustomPlot
/// does not join across it.
QVector<QCPGraphData> toGraph(const std::vector<LinePoint>& line, double scale = 1e-6)
{
    QVector<QCPGraphData> points;
    points.reserve(static_cast<qsizetype>(line.size()));
    for (const LinePoint& p : line) {
        if (p.breakBefore)
            points.append({nsToMs(p.time), std::numeric_limits<double>::quiet_NaN()});
        points.append({nsToMs(p.time), static_cast<double>(p.value) * scale});
    }
    return points;
}

/// QCustomPlot draws a smoothed graph half a pixel down and right in a raster (its strokes on
/// pixel centres) but not in a vector device; this one is drawn there too, so an SVG or PDF
/// rasterized at the PNG's resolution puts each line on the PNG's pixels.
class SeriesGraph : public QCPGraph
{
public:
    using QCPGraph::QCPGraph;

protected:
    void draw(QCPPainter* painter) override
    {
        const bool shift = painter->modes().testFlag(QCPPainter::pmVectorized) && antialiased();
        if (shift)
            painter->translate(0.5, 0.5);
        QCPGraph::draw(painter);
        if (shift)
            painter->translate(-0.5, -0.5);
    }
};

/// A graph drawing exactly the points it is given: QCustomPlot's own adaptive sampling (a
/// second decimation, which also joins across the NaN of a break) is off; envelope() has
/// already left at most four points per pixel column.
QCPGraph* addSeries(QCustomPlot* /*plot: the axes' own*/, QCPAxis* key, QCPAxis* value)
{
    QCPGraph* g = new SeriesGraph(key, value);
    g->setAdaptiveSampling(false);
    return g;
}

/// Group-entity weight lines: colour by group, dash pattern by CPU.
Qt::PenStyle cpuPenStyle(EntityRef e)
{
    return static_cast<Qt::PenStyle>(Qt::SolidLine + e.groupCpu() % 5);
}

/// A vertical marker from the top to the bottom of @p rect (a segment, not an infinite line: a
/// vector capture must not depend on the painter's clipping); hidden outside the time window
/// before each drawing (TimelineView::placeMarkers()).
QCPItemLine* makeNowLine(QCustomPlot* plot, QCPAxisRect* rect)
{
    auto* line = new QCPItemLine(plot);
    line->setClipAxisRect(rect);
    line->setPen(QPen(QColor(0xd0, 0x20, 0x20), 1.5));
    for (QCPItemPosition* p : {line->start, line->end}) {
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
        p->setAxisRect(rect);
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    }
    line->start->setCoords(0, 0);
    line->end->setCoords(0, 1);
    return line;
}

void setMarkerTime(QCPItemLine* line, double ms)
{
    line->start->setCoords(ms, 0);
    line->end->setCoords(ms, 1);
}
} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new TimelinePlot(this))
    , m_ticker(new TimeTicker)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumSize(400, 300);
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    // Every drawing decimates the series for the pixel columns it is about to fill.
    static_cast<TimelinePlot*>(m_plot)->setLayoutHook([this](double scale) {
        m_scale = scale;
        const bool refresh = columns() != m_dataColumns;
        if (refresh)
            refreshVruntime();
        placeMarkers();
        return fitAxes() || refresh;
    });

    // Top pane: CPU lanes. CPU 0 at the top, one tick label per lane.
    m_lanesRect = m_plot->axisRect();
    QCPAxis* laneTime = m_lanesRect->axis(QCPAxis::atBottom);
    QCPAxis* laneCpu = m_lanesRect->axis(QCPAxis::atLeft);
    laneTime->setTicker(m_ticker);
    laneTime->setLabel(m_ticker->axisLabel());
    laneCpu->setRangeReversed(true);
    laneCpu->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    laneCpu->grid()->setVisible(false);
    laneCpu->setSubTicks(false);
    laneCpu->setLabel(QStringLiteral("CPU"));
    // Tick marks outside the lanes: inside they would cover the first columns and rows.
    for (QCPAxis* axis : {laneTime, laneCpu}) {
        axis->setTickLength(0, 4);
        axis->setSubTickLength(0, 2);
    }
    m_lanes = new CpuLanesPlottable(laneTime, laneCpu);
    m_lanes->removeFromLegend();

    // Bottom pane: vruntime of the selected tasks on the same time axis.
    m_vruntimeRect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_vruntimeRect);
    m_plot->plotLayout()->setRowStretchFactors({3.0, 2.0});
    QCPAxis* vTime = m_vruntimeRect->axis(QCPAxis::atBottom);
    vTime->setTicker(m_ticker);
    QCPAxis* vValue = m_vruntimeRect->axis(QCPAxis::atLeft);
    vValue->setLabel(QStringLiteral("v − V, deadline − V of own cfs_rq (ms)"));

    // Third pane: lag V − v (virtual time) with its clamp band; lag ≥ 0 ⇔ eligible.
    m_lagRect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(2, 0, m_lagRect);
    m_plot->plotLayout()->setRowStretchFactors({3.0, 2.0, 1.6});
    QCPAxis* lagTime = m_lagRect->axis(QCPAxis::atBottom);
    lagTime->setTicker(m_ticker);
    m_lagRect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("lag V − v (ms)"));
    m_eligibleShade = new QCPItemRect(m_plot);
    m_eligibleShade->setClipAxisRect(m_lagRect);
    m_eligibleShade->setLayer(QStringLiteral("grid"));
    for (QCPItemPosition* p : {m_eligibleShade->topLeft, m_eligibleShade->bottomRight}) {
        p->setTypeX(QCPItemPosition::ptAxisRectRatio);
        p->setTypeY(QCPItemPosition::ptPlotCoords);
        p->setAxisRect(m_lagRect);
        p->setAxes(lagTime, m_lagRect->axis(QCPAxis::atLeft));
    }
    m_eligibleShade->topLeft->setCoords(0, 1);
    m_eligibleShade->bottomRight->setCoords(1, 0); // fitted to the value range: placeMarkers()
    m_eligibleShade->setPen(Qt::NoPen);
    m_eligibleShade->setBrush(QColor(0x3c, 0xb0, 0x4a, 40));

    // Fourth pane: the weight of each group entity per CPU (calc_group_shares, §2.3).
    m_weightRect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(3, 0, m_weightRect);
    m_plot->plotLayout()->setRowStretchFactors({3.0, 2.0, 1.6, 1.2});
    m_weightRect->axis(QCPAxis::atBottom)->setTicker(m_ticker);
    m_weightRect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("group se weight"));
    auto* weightLegend = new QCPLegend;
    weightLegend->setObjectName(QStringLiteral("weightLegend"));

    auto* margins = new QCPMarginGroup(m_plot);
    m_weightRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_lanesRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_vruntimeRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_lagRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);

    // Legends beside their panes, never over the data: a column right of the panes, each legend
    // at the top of its pane's row, in columns of a few entries when there are many.
    m_lanesRect->insetLayout()->take(m_plot->legend);
    QFont legendFont = font();
    legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
    const auto side = [&](int row, QCPLegend* legend, int rows) {
        auto* cell = new QCPLayoutGrid;
        m_plot->plotLayout()->addElement(row, 1, cell);
        cell->addElement(0, 0, legend);
        cell->addElement(1, 0, new QCPLayoutElement(m_plot)); // takes the rest of the height
        cell->setRowStretchFactors({0.001, 1.0});
        legend->setLayer(QStringLiteral("legend"));
        legend->setFont(legendFont);
        legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
        legend->setWrap(rows);
        legend->setRowSpacing(0);
        legend->setBorderPen(Qt::NoPen);
        legend->setMargins(QMargins(4, 2, 2, 2));
    };
    side(1, m_plot->legend, 7);
    side(3, weightLegend, 4);
    m_plot->plotLayout()->setColumnStretchFactors({1.0, 0.001});
    m_plot->legend->setVisible(true);

    m_hint = new QCPItemText(m_plot);
    m_hint->setClipAxisRect(m_vruntimeRect);
    m_hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_hint->position->setAxisRect(m_vruntimeRect);
    m_hint->position->setCoords(0.5, 0.5);
    m_hint->setColor(Qt::darkGray);
    m_hint->setText(QStringLiteral("Select tasks in the machine tree to plot their vruntime"));

    m_nowLines[0] = makeNowLine(m_plot, m_lanesRect);
    m_nowLines[1] = makeNowLine(m_plot, m_vruntimeRect);
    m_nowLines[2] = makeNowLine(m_plot, m_lagRect);
    m_nowLines[3] = makeNowLine(m_plot, m_weightRect);
    for (int i = 0; i < 4; ++i) {
        m_cursorLines[i] = makeNowLine(m_plot, m_nowLines[i]->clipAxisRect());
        m_cursorLines[i]->setPen(QPen(QColor(0x20, 0x60, 0xd0), 1.5, Qt::DashDotLine));
        m_cursorLines[i]->setVisible(false);
    }

    // Zoom with the wheel and pan by dragging, horizontally only; the panes stay in step.
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    for (QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect}) {
        rect->setRangeDrag(Qt::Horizontal);
        rect->setRangeZoom(Qt::Horizontal);
        rect->setRangeDragAxes(rect->axis(QCPAxis::atBottom), nullptr);
        rect->setRangeZoomAxes(rect->axis(QCPAxis::atBottom), nullptr);
    }
    connect(laneTime, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
        &TimelineView::onRangeChanged);
    connect(vTime, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
        &TimelineView::onRangeChanged);
    connect(lagTime, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
        &TimelineView::onRangeChanged);
    connect(m_weightRect->axis(QCPAxis::atBottom),
        qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimelineView::onRangeChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, &TimelineView::showToolTip);
    connect(m_plot, &QCustomPlot::mousePress, this, &TimelineView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &TimelineView::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &TimelineView::onDoubleClick);
    m_plot->setToolTip(QString());

    applyPalette();
    setRecording(nullptr, Nanoseconds{1'000'000'000});
}

void TimelineView::applyPalette()
{
    // Readable in light and dark palettes: plot colours follow the widget's palette.
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor base = pal.color(QPalette::Base);
    QColor grid = text;
    grid.setAlpha(45);
    m_plot->setBackground(base);
    for (QCPAxisRect* rect : m_plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(text));
            axis->setTickPen(QPen(text));
            axis->setSubTickPen(QPen(text));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        }
    }
    // Legends sit beside the panes (not over them): no box needed.
    for (QCPLegend* legend : m_plot->findChildren<QCPLegend*>()) {
        legend->setBrush(Qt::NoBrush);
        legend->setTextColor(text);
        legend->setBorderPen(Qt::NoPen);
    }
    m_plot->legend->setBrush(Qt::NoBrush);
    m_plot->legend->setTextColor(text);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_hint->setColor(pal.color(QPalette::PlaceholderText));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

TimelineView::~TimelineView() = default;

void TimelineView::setRecording(const Recording* recording, Nanoseconds duration)
{
    m_recording = recording;
    m_segments.clear();
    m_samples.clear();
    m_weightDrawnFor = {};
    m_now = Nanoseconds{0};
    m_duration = std::max(duration, Nanoseconds{1000});
    const int cpus = recording ? std::max(recording->cpus, 1) : 1;
    m_lanes->setSource(recording ? &m_segments : nullptr, recording, cpus);

    auto ticker = m_lanesRect->axis(QCPAxis::atLeft)->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    for (int cpu = 0; cpu < cpus; ++cpu)
        ticker->addTick(cpu, QStringLiteral("CPU %1").arg(cpu));
    m_lanesRect->axis(QCPAxis::atLeft)->setRange(-0.5, cpus - 0.5);
    m_lanesRect->axis(QCPAxis::atLeft)->setLabel(QString());
    // Every CPU's lane stays readable: at least 12 px each, and the lanes' share of the height
    // grows with the number of CPUs.
    m_lanesRect->setMinimumSize(0, 12 * cpus + 30);
    QCPLayoutGrid* grid = m_plot->plotLayout();
    for (int r = 0; r < grid->rowCount(); ++r) {
        if (grid->hasElement(r, 0) && grid->element(r, 0) == m_lanesRect) {
            QList<double> stretch = grid->rowStretchFactors();
            stretch[r] = std::max(3.0, 0.75 * cpus);
            grid->setRowStretchFactors(stretch);
        }
    }
    setNow(Nanoseconds{0});
    zoomToFit();
}

void TimelineView::setAnnotations(const QVector<QPair<Nanoseconds, QString>>& annotations)
{
    for (QCPAbstractItem* item : m_annotations)
        m_plot->removeItem(item);
    m_annotations.clear();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (const auto& [at, text] : annotations) {
        auto* line = makeNowLine(m_plot, m_lanesRect);
        line->setPen(QPen(QColor(0x55, 0x55, 0x55), 1, Qt::DashLine));
        setMarkerTime(line, nsToMs(at));
        auto* label = new QCPItemText(m_plot);
        label->setClipAxisRect(m_lanesRect);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setAxes(
            m_lanesRect->axis(QCPAxis::atBottom), m_lanesRect->axis(QCPAxis::atLeft));
        label->position->setAxisRect(m_lanesRect);
        label->position->setCoords(nsToMs(at), 0.0);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(3, 1, 3, 1));
        label->setFont(small);
        QColor labelBack = palette().color(QPalette::Base);
        labelBack.setAlpha(200);
        label->setColor(palette().color(QPalette::Text));
        label->setBrush(labelBack);
        // Long texts are elided (the whole text is the marker's tooltip).
        label->setText(QFontMetrics(small).elidedText(text, Qt::ElideRight, 260));
        line->setProperty("annotation", text);
        m_annotations.push_back(line);
        m_annotations.push_back(label);
    }
    onRangeChanged(m_lanesRect->axis(QCPAxis::atBottom)->range());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setNow(Nanoseconds now)
{
    // Follow the present while it was on screen and runs past the right edge.
    const Nanoseconds start = viewStart();
    const Nanoseconds end = viewEnd();
    if (m_follow && m_now >= start && m_now <= end && now > end && end - start < m_duration)
        setViewRange(now - (end - start) * 9 / 10, now + (end - start) / 10);
    m_now = now;
    if (m_recording) {
        m_segments.update(*m_recording);
        m_samples.update(*m_recording);
    }
    m_lanes->setNow(now);
    for (QCPItemLine* line : m_nowLines)
        setMarkerTime(line, nsToMs(now));
    refreshVruntime();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setSelectedTasks(const QVector<int>& tasks)
{
    m_selected = tasks;
    refreshVruntime();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setViewRange(Nanoseconds from, Nanoseconds to)
{
    m_lanesRect->axis(QCPAxis::atBottom)->setRange(nsToMs(from), nsToMs(to));
}

Nanoseconds TimelineView::viewStart() const
{
    return msToNs(m_lanesRect->axis(QCPAxis::atBottom)->range().lower);
}

Nanoseconds TimelineView::viewEnd() const
{
    return msToNs(m_lanesRect->axis(QCPAxis::atBottom)->range().upper);
}

void TimelineView::zoomToFit()
{
    setViewRange(Nanoseconds{0}, m_duration);
}

QString TimelineView::timeAxisLabel() const
{
    return m_ticker->axisLabel();
}

void TimelineView::onRangeChanged(const QCPRange& requested)
{
    // Setting the other panes' ranges signals back here: handle the outermost call only.
    if (m_inRangeChange)
        return;
    const QScopedValueRollback<bool> guard(m_inRangeChange, true);
    // Keep the view inside [0, duration] and no narrower than a microsecond.
    const double durationMs = nsToMs(m_duration);
    const double span = std::clamp(requested.size(), kMinSpanMs, durationMs);
    double lower = std::clamp(requested.lower, 0.0, durationMs - span);
    const QCPRange range(lower, lower + span);

    m_ticker->setUnit(TimeTicker::unitFor(span));
    m_lanesRect->axis(QCPAxis::atBottom)->setLabel(m_ticker->axisLabel());
    for (QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect})
        rect->axis(QCPAxis::atBottom)->setRange(range); // no-op (no signal) when unchanged
    // Annotation labels near the right edge hang to the left of their marker.
    for (size_t i = 1; i < m_annotations.size(); i += 2) {
        auto* label = static_cast<QCPItemText*>(m_annotations[i]);
        const bool right = (label->position->key() - range.lower) > 0.6 * range.size();
        label->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    }
    refreshVruntime();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    Q_EMIT viewRangeChanged(msToNs(range.lower), msToNs(range.upper));
}

void TimelineView::setCursorTime(Nanoseconds t)
{
    m_cursor = t;
    for (QCPItemLine* line : m_cursorLines) {
        line->setVisible(t >= Nanoseconds{0} && line->clipAxisRect()->visible());
        setMarkerTime(line, nsToMs(t));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::ensureVisible(Nanoseconds t)
{
    const Nanoseconds start = viewStart();
    const Nanoseconds end = viewEnd();
    if (t >= start && t <= end)
        return;
    const Nanoseconds span = end - start;
    setViewRange(t - span / 2, t + span / 2);
}

void TimelineView::onMousePress(QMouseEvent* event)
{
    m_pressPos = event->position();
}

void TimelineView::onMouseRelease(QMouseEvent* event)
{
    // A click (not a drag) inside any pane moves the cursor.
    if ((event->position() - m_pressPos).manhattanLength() > 4 || event->button() != Qt::LeftButton)
        return;
    const QPoint p = event->position().toPoint();
    if (!inAnyPane(p))
        return;
    const Nanoseconds t =
        std::max(Nanoseconds{0}, msToNs(m_lanesRect->axis(QCPAxis::atBottom)->pixelToCoord(p.x())));
    setCursorTime(t);
    Q_EMIT cursorMoved(t);
    const int cpu = m_lanesRect->rect().contains(p) ? m_lanes->cpuAt(p.y()) : -1;
    if (cpu >= 0)
        if (const auto hit = m_segments.segmentAt(cpu, m_lanes->layout().mapXToTime(p.x()), m_now))
            Q_EMIT taskClicked(taskName(hit->task));
}

bool TimelineView::inAnyPane(QPoint p) const
{
    for (const QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect})
        if (rect->visible() && rect->rect().contains(p))
            return true;
    return false;
}

void TimelineView::onDoubleClick(QMouseEvent* event)
{
    // On the CPU lanes: add an annotation there. On a series pane: show the simulation's state
    // at that time (rewind, or run forward to it).
    const QPoint p = event->position().toPoint();
    const Nanoseconds t =
        std::max(Nanoseconds{0}, msToNs(m_lanesRect->axis(QCPAxis::atBottom)->pixelToCoord(p.x())));
    if (m_lanesRect->rect().contains(p))
        Q_EMIT annotationRequested(t);
    else if (inAnyPane(p))
        Q_EMIT timeRequested(std::min(t, m_duration));
}

void TimelineView::placeMarkers()
{
    // Everything the plot draws lies inside its pane, so that no output depends on clipping
    // (an SVG from Qt's generator has none): markers outside the time window are hidden, the
    // eligible shade covers [max(0, lower), upper] of the lag axis only.
    const QCPRange keys = m_lanesRect->axis(QCPAxis::atBottom)->range();
    const auto inside = [&](const QCPItemLine* line) {
        const double x = line->start->coords().x();
        return x >= keys.lower && x <= keys.upper && line->clipAxisRect()->visible();
    };
    for (int i = 0; i < 4; ++i) {
        m_nowLines[i]->setVisible(inside(m_nowLines[i]));
        m_cursorLines[i]->setVisible(m_cursor >= Nanoseconds{0} && inside(m_cursorLines[i]));
    }
    for (size_t i = 0; i + 1 < m_annotations.size(); i += 2) {
        const bool shown = inside(static_cast<QCPItemLine*>(m_annotations[i]));
        m_annotations[i]->setVisible(shown);
        m_annotations[i + 1]->setVisible(shown);
    }
    const QCPRange lag = m_lagRect->axis(QCPAxis::atLeft)->range();
    // Nothing plotted, nothing to shade: no eligible half-plane over an empty pane.
    m_eligibleShade->setVisible(lag.upper > 0 && !m_graphs.empty());
    m_eligibleShade->topLeft->setCoords(0, lag.upper);
    m_eligibleShade->bottomRight->setCoords(1, std::max(0.0, lag.lower));
}

bool TimelineView::fitAxes()
{
    // At any size: each value axis gets the longest of its titles that fits its pane's height
    // (titles never run into the next pane's), and no more ticks than its labels have room for.
    struct Titles
    {
        QCPAxisRect* rect;
        QStringList titles; ///< longest first
    };
    const Titles all[] = {
        {m_vruntimeRect,
            {QStringLiteral("v − V, deadline − V of own cfs_rq (ms)"),
                QStringLiteral("v − V of own cfs_rq (ms)"), QStringLiteral("v − V (ms)"),
                QStringLiteral("v − V")}},
        {m_lagRect,
            {QStringLiteral("lag V − v (ms)"), QStringLiteral("lag (ms)"), QStringLiteral("lag")}},
        {m_weightRect,
            {QStringLiteral("group se weight"), QStringLiteral("weight"), QStringLiteral("w")}},
    };
    bool changed = false;
    // Small plots (under 480 layout pixels high): the time axis's tick labels only under the
    // last pane, the panes above share them. A picture labels the time axis under the last pane.
    const bool compact = m_plot->viewport().height() < 480;
    QCPAxisRect* last = m_weightRect->visible() ? m_weightRect : m_lagRect;
    for (QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect}) {
        QCPAxis* time = rect->axis(QCPAxis::atBottom);
        const bool labels = !compact || rect == last;
        if (time->tickLabels() != labels) {
            time->setTickLabels(labels);
            changed = true;
        }
        QString title;
        if (rect == m_lanesRect && !compact && !m_timeLabelOnLast)
            title = m_ticker->axisLabel();
        else if (rect == last && (compact || m_timeLabelOnLast))
            title = m_ticker->axisLabel();
        if (time->label() != title) {
            time->setLabel(title);
            changed = true;
        }
    }
    // The task legend in as many columns as the pane's height needs: never cut, never over
    // the next pane.
    if (m_plot->legend->itemCount() > 0) {
        const int itemHeight =
            std::max(1, m_plot->legend->item(0)->minimumOuterSizeHint().height());
        const int rows = std::clamp(m_vruntimeRect->outerRect().height() / itemHeight, 1, 7);
        if (m_plot->legend->wrap() != rows) {
            m_plot->legend->setWrap(rows);
            changed = true;
        }
    }
    for (const Titles& t : all) {
        QCPAxis* axis = t.rect->axis(QCPAxis::atLeft);
        const QFontMetrics labelMetrics(axis->labelFont());
        QString title = t.titles.last();
        for (const QString& candidate : t.titles) {
            if (labelMetrics.horizontalAdvance(candidate) <= t.rect->height()) {
                title = candidate;
                break;
            }
        }
        if (axis->label() != title) {
            axis->setLabel(title);
            changed = true;
        }
        // A tick label and a gap of one label height between two ticks; a pane with room for
        // two labels and half a label's gap asks for two, since a single "nice" tick can fall
        // outside a short range and leave the axis without any number.
        const int labelHeight = std::max(1, QFontMetrics(axis->tickLabelFont()).height());
        const int ticks = t.rect->height() >= labelHeight * 5 / 2
            ? std::clamp(t.rect->height() / (labelHeight * 2), 2, 5)
            : 1;
        if (axis->ticker()->tickCount() != ticks) {
            axis->ticker()->setTickCount(ticks);
            changed = true;
        }
    }
    return changed;
}

int TimelineView::columns() const
{
    return std::max(16, static_cast<int>(std::lround(m_lanesRect->width() * m_scale)));
}

QString TimelineView::taskName(int task) const
{
    if (m_recording && task >= 0 && task < static_cast<int>(m_recording->taskNames.size()))
        return QString::fromStdString(m_recording->taskNames[static_cast<size_t>(task)]);
    return QStringLiteral("task %1").arg(task);
}

void TimelineView::setLagClamp(LagClamp rule, Nanoseconds baseSlice, int hz)
{
    m_clampRule = rule;
    m_baseSlice = baseSlice;
    m_tick = Nanoseconds{1'000'000'000 / std::max(1, hz)};
    refreshVruntime();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::showWeightPane(bool show)
{
    // Without group entities the pane has nothing to show: out of the layout, so the others get
    // its height; back under the lag pane when groups appear.
    QCPLayoutGrid* layout = m_plot->plotLayout();
    int lagRow = -1, weightRow = -1;
    for (int r = 0; r < layout->rowCount(); ++r) {
        if (!layout->hasElement(r, 0))
            continue;
        if (layout->element(r, 0) == m_lagRect)
            lagRow = r;
        if (layout->element(r, 0) == m_weightRect)
            weightRow = r;
    }
    if (show == (weightRow >= 0) || lagRow < 0)
        return;
    if (show) {
        // Row lagRow + 1 holds the weight legend's cell when the pane is out.
        layout->addElement(lagRow + 1, 0, m_weightRect);
    } else {
        layout->take(m_weightRect);
    }
    QList<double> stretch = layout->rowStretchFactors();
    if (lagRow + 1 < stretch.size())
        stretch[lagRow + 1] = show ? 1.2 : 0.001;
    layout->setRowStretchFactors(stretch);
    m_weightRect->setVisible(show);
    m_nowLines[3]->setVisible(show);
    m_cursorLines[3]->setVisible(show && m_cursor >= Nanoseconds{0});
}

void TimelineView::setTaskCgroups(TaskCgroups cgroups, TaskMoves moves)
{
    m_taskCgroups = std::move(cgroups);
    m_taskMoves = std::move(moves);
    refreshVruntime();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setHintsVisible(bool on)
{
    m_hints = on;
    m_hint->setVisible(m_hints && m_graphs.empty());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setGroupColouring(std::function<int(int, Nanoseconds)> groupOf)
{
    m_lanes->setGroupColouring(std::move(groupOf));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double TimelineView::lagLimit(uint32_t weight) const
{
    // docs/kernel-model.md §4.1 step 3: limit = calc_delta_fair(X, se), X per profile. Display only
    // (floating point is fine here): calc_delta_fair(X) = X · NICE_0_LOAD / w, scaled weights.
    const double slice = static_cast<double>(m_baseSlice.count());
    const double tick = static_cast<double>(m_tick.count());
    const double x = m_clampRule == LagClamp::OwnSlice ? std::max(2.0 * slice, tick) : slice + tick;
    constexpr double kNice0Load = 1024.0 * 1024.0;
    return weight == 0 ? 0.0 : x * kNice0Load / static_cast<double>(weight);
}

void TimelineView::refreshWeights()
{
    constexpr size_t kMaxGroupEntities = 16;
    std::vector<int32_t> keys;
    if (m_recording) {
        const auto& all = m_samples.groupEntities();
        keys.assign(all.begin(),
            all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), kMaxGroupEntities)));
    }
    auto* legend = m_plot->findChild<QCPLegend*>(QStringLiteral("weightLegend"));
    if (keys != m_weightKeys) {
        for (QCPGraph* g : m_weightGraphs) {
            // A plottable only leaves the plot's own legend when deleted: leave this one first.
            if (legend)
                g->removeFromLegend(legend);
            m_plot->removeGraph(g);
        }
        m_weightGraphs.clear();
        for (const int32_t raw : keys) {
            const EntityRef e{raw};
            QCPGraph* g = addSeries(
                m_plot, m_weightRect->axis(QCPAxis::atBottom), m_weightRect->axis(QCPAxis::atLeft));
            // A colour of its own for every drawn entity (group and CPU), and a dash pattern by
            // CPU as well.
            QPen pen(taskColor(3 + static_cast<int>(m_weightGraphs.size())), 1.5);
            pen.setStyle(cpuPenStyle(e));
            g->setPen(pen);
            g->setName(QString::fromStdString(entityName(e, *m_recording)));
            g->removeFromLegend();
            if (legend)
                g->addToLegend(legend);
            m_weightGraphs.push_back(g);
        }
        m_weightKeys = keys;
        m_weightDrawnFor = {};
    }
    if (legend)
        legend->setVisible(!m_weightGraphs.empty());
    showWeightPane(!m_weightGraphs.empty());
    if (!m_recording || m_weightGraphs.empty())
        return;
    const Nanoseconds from = viewStart();
    const Nanoseconds to = viewEnd();
    const int bins = columns();
    const std::array<int64_t, 5> drawnFor{from.count(), to.count(), bins, m_now.count(),
        static_cast<int64_t>(m_samples.consumedRecords())};
    if (drawnFor == m_weightDrawnFor)
        return; // the same lines as drawn
    m_weightDrawnFor = drawnFor;
    int points = 0;
    for (size_t i = 0; i < m_weightGraphs.size(); ++i) {
        // The weight holds between samples (it changes only where update_cfs_group() records
        // one): a step line, drawn to the present.
        std::vector<LinePoint> steps;
        for (const EntitySample& s : m_samples.groupSeries(
                 *m_recording, m_weightKeys[i], from, to, bins, SampleIndex::KeepWeight))
            steps.push_back({s.time, static_cast<int64_t>(s.weight)});
        m_weightGraphs[i]->data()->set(
            toGraph(envelope(heldLine(steps, std::min(m_now, to)), from, to, bins),
                1.0 / 1024.0), // scale_load_down
            true);
        points = std::max(points, m_weightGraphs[i]->dataCount());
    }
    // Level of detail in painting: dash patterns (one per CPU) and antialiasing only while the
    // lines are sparse; Qt's stroker makes dense dashed or smooth polylines costly.
    const bool dense = points > m_weightRect->width() / 4;
    for (size_t i = 0; i < m_weightGraphs.size(); ++i) {
        QPen pen = m_weightGraphs[i]->pen();
        pen.setStyle(dense ? Qt::SolidLine : cpuPenStyle(EntityRef{m_weightKeys[i]}));
        pen.setWidthF(dense ? 1.0 : 1.5);
        m_weightGraphs[i]->setPen(pen);
        m_weightGraphs[i]->setAntialiased(!dense);
    }
    rescaleToWindow(m_weightRect->axis(QCPAxis::atLeft));
    m_weightRect->axis(QCPAxis::atLeft)->scaleRange(1.15);
}

void TimelineView::refreshVruntime()
{
    // The columns every series below is decimated for (also when none is plotted: the layout
    // hook then has nothing to redo).
    m_dataColumns = columns();
    refreshWeights();
    QVector<int> tasks = m_selected;
    if (tasks.isEmpty() && m_recording) {
        const int known = static_cast<int>(m_recording->taskNames.size());
        if (known <= kAutoPlotMaxTasks)
            for (int t = 0; t < known; ++t)
                tasks << t;
    }

    QCPAxis* vKey = m_vruntimeRect->axis(QCPAxis::atBottom);
    QCPAxis* vValue = m_vruntimeRect->axis(QCPAxis::atLeft);
    QCPAxis* lKey = m_lagRect->axis(QCPAxis::atBottom);
    QCPAxis* lValue = m_lagRect->axis(QCPAxis::atLeft);
    if (!m_avgGraph) {
        m_bandUpper = addSeries(m_plot, lKey, lValue);
        m_bandLower = addSeries(m_plot, lKey, lValue);
        const QColor band(0x90, 0x90, 0x90, 60);
        m_bandUpper->setPen(QPen(band.darker(150), 1, Qt::DotLine));
        m_bandLower->setPen(QPen(band.darker(150), 1, Qt::DotLine));
        m_bandUpper->setBrush(band);
        m_bandUpper->setChannelFillGraph(m_bandLower);
        m_bandUpper->setName(QStringLiteral("lag clamp ±limit"));
        m_bandLower->removeFromLegend();
        m_bandUpper->removeFromLegend();
        m_avgGraph = addSeries(m_plot, vKey, vValue);
        m_avgGraph->setPen(QPen(QColor(0x80, 0x80, 0x80), 1.5, Qt::DotLine));
        m_avgGraph->removeFromLegend();
    }
    if (tasks != m_plotted) {
        // Level of detail in painting: past a few series, thin solid pens without
        // antialiasing (Qt's stroker makes wide, dashed or antialiased polylines costly).
        const bool many = tasks.size() > kAutoPlotMaxTasks;
        const qreal width = many ? 1.0 : 2.0;
        for (auto* list : {&m_graphs, &m_deadlineGraphs, &m_lagGraphs}) {
            for (QCPGraph* g : *list)
                m_plot->removeGraph(g);
            list->clear();
        }
        for (const int task : tasks) {
            QCPGraph* g = addSeries(m_plot, vKey, vValue);
            g->setPen(QPen(taskColor(task), width));
            g->setName(taskName(task));
            m_graphs.push_back(g);
            QCPGraph* d = addSeries(m_plot, vKey, vValue);
            QColor light = taskColor(task);
            light.setAlpha(150);
            d->setPen(QPen(light, 1, many ? Qt::SolidLine : Qt::DashLine));
            d->removeFromLegend();
            m_deadlineGraphs.push_back(d);
            QCPGraph* l = addSeries(m_plot, lKey, lValue);
            l->setPen(QPen(taskColor(task), many ? 1.0 : 1.5));
            l->removeFromLegend();
            m_lagGraphs.push_back(l);
        }
        m_plotted = tasks;
    }
    m_hint->setVisible(m_hints && m_graphs.empty());
    m_plot->legend->setVisible(!m_graphs.empty());
    if (!m_recording || m_graphs.empty()) {
        for (QCPGraph* g : {m_avgGraph, m_bandUpper, m_bandLower})
            g->data()->clear();
        return;
    }

    // vruntime is an unsigned counter that may start near 2^64 (the kernel's initial
    // min_vruntime); plot differences to the first sample so wrap-around cannot show.
    uint64_t reference = 0;
    bool haveReference = false;
    for (const Record& r : m_recording->records()) {
        if (r.kind == RecordKind::Sample && r.entity.isTask()) {
            reference = r.payload.sample.vruntime;
            haveReference = true;
            break;
        }
    }
    const Nanoseconds from = viewStart();
    const Nanoseconds to = viewEnd();
    // Level of detail: the pane's pixel columns (envelope.h), for the samples and the lines.
    const int bins = columns();
    m_dataColumns = bins;
    const Nanoseconds until = std::min(m_now, to);
    bool any = false;
    for (size_t i = 0; i < m_graphs.size(); ++i) {
        const bool detail = i < static_cast<size_t>(kDetailTasks);
        auto series =
            m_samples.decimatedSeries(*m_recording, m_plotted[static_cast<int>(i)], from, to, bins,
                // v − V is −vlag while queued: keeping lag extremes keeps the pane's.
                SampleIndex::KeepVruntime | SampleIndex::KeepLag | SampleIndex::KeepAvg
                    | (detail ? SampleIndex::KeepDeadline : 0u)
                    | (i == 0 ? SampleIndex::KeepWeight : 0u),
                m_taskMoves ? m_taskMoves(*m_recording, m_plotted[static_cast<int>(i)])
                            : std::vector<Nanoseconds>{});
        // Between samples each quantity holds or moves as entitylines.h describes; a waiting
        // task's lag follows the V its cfs_rq's other entities report.
        const int task = m_plotted[static_cast<int>(i)];
        QueueV queueV;
        if (detail && m_taskCgroups) {
            queueV = [&, task](const EntitySample& w, Nanoseconds end) {
                const int group = m_taskCgroups(*m_recording, task, w.time);
                const Nanoseconds a = std::max(w.time, from - Nanoseconds{1});
                const Nanoseconds b = std::min(end, to + Nanoseconds{1});
                if (group < 0 || b <= a)
                    return std::vector<std::pair<Nanoseconds, uint64_t>>{};
                const uint16_t cpu = w.cpu;
                const auto onQueue = [&](const Record& r) {
                    if (r.cpu != cpu)
                        return false;
                    if (r.entity.isTask())
                        return r.entity.taskIndex() != task
                            && m_taskCgroups(
                                   *m_recording, r.entity.taskIndex(), Nanoseconds{r.time})
                            == group;
                    return r.entity.isGroup()
                        && parentGroup(*m_recording, r.entity.groupIndex()) == group;
                };
                // About two V points per pixel column of the wait (then decimated with the
                // rest of the line).
                const int points = static_cast<int>(std::max<int64_t>(
                    2, (b - a).count() * 2 * bins / std::max<int64_t>(1, (to - from).count())));
                return m_samples.queueV(*m_recording, cpu, a, b, points, onQueue);
            };
        }
        if (m_taskCgroups) {
            // A move dequeues from the old cgroup's queue and enqueues on the new one at the
            // same instant: a dequeued sample at the move's time still belongs to the old one.
            for (EntitySample& s : series) {
                const bool queued = s.flags & Record::kQueued;
                s.group = static_cast<int16_t>(
                    m_taskCgroups(*m_recording, task, queued ? s.time : s.time - Nanoseconds{1}));
            }
        }
        const EntityLines lines = entityLines(series, reference, until, queueV);
        // Every line through the one decimation: clipped to the window, first, last, lowest
        // and highest point per pixel column.
        const auto drawn = [&](const std::vector<LinePoint>& line) {
            return envelope(line, from, to, bins);
        };
        // The vruntime pane: v − V and deadline − V of the entity's own cfs_rq, comparable
        // across cfs_rq's (raw vruntimes of two queues are in unrelated frames).
        const QueueRelativeLines relative = relativeToQueue(series);
        const QVector<QCPGraphData> values = toGraph(drawn(relative.vruntime));
        if (i == 0) {
            // V itself is the pane's zero (each entity's own V): no line of its own. The clamp
            // band at the first task's weight (the limit falls as the weight rises: the
            // weight's envelope is the band's).
            m_avgGraph->data()->clear();
            QVector<QCPGraphData> upper, lower;
            for (const LinePoint& p : drawn(lines.weight)) {
                const double limit = lagLimit(static_cast<uint32_t>(p.value)) / 1e6;
                upper.append({nsToMs(p.time), limit});
                lower.append({nsToMs(p.time), -limit});
            }
            m_bandUpper->data()->set(upper, true);
            m_bandLower->data()->set(lower, true);
        }
        any = any || !values.isEmpty();
        m_graphs[i]->setName(taskName(m_plotted[static_cast<int>(i)]));
        m_graphs[i]->data()->set(values, true);
        m_deadlineGraphs[i]->setVisible(detail);
        m_lagGraphs[i]->setVisible(detail);
        if (detail) {
            m_deadlineGraphs[i]->data()->set(toGraph(drawn(relative.deadline)), true);
            m_lagGraphs[i]->data()->set(toGraph(drawn(lines.lag)), true);
        }
    }
    // Level of detail in painting: a dense window (decimated series) is drawn with thin solid
    // pens; Qt's stroker makes wide or dashed polylines costly. The entities' lines stay smooth
    // at every density: unsmoothed, a dense zigzag's segments are rounded to whole pixel
    // columns (two in one column, none in the next: stripes that are not in the data), and
    // they would differ from the same lines in an SVG or PDF, which have no pixels to round to.
    int points = 0;
    for (const QCPGraph* g : m_graphs)
        points = std::max(points, g->dataCount());
    const bool dense = m_graphs.size() > static_cast<size_t>(kAutoPlotMaxTasks)
        || points > m_vruntimeRect->width() / 2;
    for (QCPGraph* g : {m_avgGraph, m_bandUpper, m_bandLower})
        g->setAntialiased(!dense);
    for (size_t i = 0; i < m_graphs.size(); ++i) {
        for (QCPGraph* g : {m_graphs[i], m_deadlineGraphs[i], m_lagGraphs[i]})
            g->setAntialiased(true); // thin and solid when dense, which Qt draws fast smoothed
        const QColor c = taskColor(m_plotted[static_cast<int>(i)]);
        QColor light = c;
        light.setAlpha(150);
        m_graphs[i]->setPen(QPen(c, dense ? 1.0 : 2.0));
        m_deadlineGraphs[i]->setPen(QPen(light, 1, dense ? Qt::SolidLine : Qt::DashLine));
        m_lagGraphs[i]->setPen(QPen(c, dense ? 1.0 : 1.5));
    }
    if (any && haveReference) {
        rescaleToWindow(vValue);
        rescaleToWindow(lValue);
    }
    for (QCPAxis* axis : {vValue, lValue}) {
        const QCPRange v = axis->range();
        if (v.size() < 1e-6)
            axis->setRange(v.lower - 1, v.upper + 1);
        else
            axis->scaleRange(1.1, v.center());
    }
}

void TimelineView::showToolTip(QMouseEvent* event)
{
    const QPointF pos = event->position();
    if (m_vruntimeRect->rect().contains(pos.toPoint())) {
        QToolTip::showText(event->globalPosition().toPoint(),
            tr("v − V (solid): the task's vruntime minus V, the weighted average vruntime of "
               "the cfs_rq it is queued on (0 = zero lag; above 0 = not eligible). Each task "
               "against its own queue's V, so tasks of different cfs_rq's compare.\n"
               "deadline − V (dashed): EEVDF picks the eligible entity with the earliest "
               "deadline.\nNot drawn while dequeued; broken at a migration or cgroup move. "
               "Double-click: show the state at that time."),
            m_plot);
        return;
    }
    if (m_lagRect->rect().contains(pos.toPoint())) {
        QToolTip::showText(event->globalPosition().toPoint(),
            tr("lag V − v in virtual time: positive = owed service. Shaded green: lag ≥ 0, "
               "the entity is eligible.\nGrey band: ±limit of the lag clamp "
               "(docs/kernel-model.md §4.1) at the first task's weight: %1.")
                .arg(m_clampRule == LagClamp::OwnSlice ? tr("max(2·slice, TICK)·1024/w")
                                                       : tr("(max_slice + TICK)·1024/w")),
            m_plot);
        return;
    }
    // An annotation's marker or label under the mouse: its whole text.
    if (m_lanesRect->rect().contains(pos.toPoint())) {
        for (size_t i = 0; i + 1 < m_annotations.size(); i += 2) {
            auto* line = static_cast<QCPItemLine*>(m_annotations[i]);
            auto* label = static_cast<QCPItemText*>(m_annotations[i + 1]);
            if (!line->visible())
                continue;
            const double x = line->start->pixelPosition().x();
            const QRectF box(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition());
            if (std::abs(pos.x() - x) <= 3 || box.normalized().contains(pos)) {
                QToolTip::showText(event->globalPosition().toPoint(),
                    line->property("annotation").toString(), m_plot);
                return;
            }
        }
    }
    const int cpu = m_lanesRect->rect().contains(pos.toPoint()) ? m_lanes->cpuAt(pos.y()) : -1;
    if (cpu < 0) {
        QToolTip::hideText();
        return;
    }
    const Nanoseconds t = m_lanes->layout().mapXToTime(pos.x());
    const auto hit = m_segments.segmentAt(cpu, t, m_now);
    if (!hit) {
        QToolTip::showText(event->globalPosition().toPoint(),
            QStringLiteral("CPU %1 idle at %2").arg(cpu).arg(formatTime(t)), m_plot);
        return;
    }
    const RunSegment& s = *hit;
    QToolTip::showText(event->globalPosition().toPoint(),
        QStringLiteral("%1 on CPU %2\n%3 – %4 (%5)")
            .arg(taskName(s.task))
            .arg(cpu)
            .arg(formatTime(s.start), formatTime(s.end), formatTime(s.end - s.start)),
        m_plot);
}

} // namespace schedlab::ui
