// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/timelineview.h"

#include "core/record/recording.h"
#include "ui/common/format.h"
#include "ui/common/taskpalette.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/seriesgraph.h"
#include "ui/timeline/timelineplot.h"
#include "ui/timeline/timeticker.h"

#include <QScopedValueRollback>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace schedlab::ui {

namespace {
constexpr double kMinSpanMs = 1e-3; // 1 µs

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
        // Without caching every drawing rebuilds the series (the benchmark's uncached figure).
        const bool refresh = columns() != m_dataColumns || peltFits() != m_peltFitted || !m_caching;
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

    // Fifth pane: PELT (§6.6) of the plotted tasks and their cfs_rq's; h_nr_queued and
    // h_nr_runnable (§5.4) on the right axis. Shown when the recording holds PELT.
    m_peltRect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(4, 0, m_peltRect);
    m_plot->plotLayout()->setRowStretchFactors({3.0, 2.0, 1.6, 1.2, 2.0});
    m_peltRect->axis(QCPAxis::atBottom)->setTicker(m_ticker);
    m_peltRect->axis(QCPAxis::atLeft)->setLabel(QStringLiteral("PELT avg (1024 = full)"));
    m_peltRect->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<TicksFrom>::create(0.0, false));
    {
        QCPAxis* counts = m_peltRect->axis(QCPAxis::atRight);
        counts->setVisible(true);
        counts->setLabel(QStringLiteral("h_nr_queued, h_nr_runnable"));
        counts->grid()->setVisible(false);
        counts->setSubTicks(false);
        counts->setTicker(QSharedPointer<TicksFrom>::create(0.0, true)); // whole numbers
    }
    auto* peltLegend = new QCPLegend;
    peltLegend->setObjectName(QStringLiteral("peltLegend"));

    auto* margins = new QCPMarginGroup(m_plot);
    m_weightRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_lanesRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_vruntimeRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_lagRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_peltRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);

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
    side(4, peltLegend, 8);
    {
        // What the PELT pane's pens mean (its lines take their task's colour).
        const QColor key = palette().color(QPalette::Text);
        QColor light = key;
        light.setAlpha(110);
        const struct
        {
            const char* name;
            QPen pen;
        } styles[] = {
            {"util_avg", QPen(key, 2.0)},
            {"runnable_avg", QPen(key, 1.5, Qt::DashLine)},
            {"load_avg", QPen(key, 1.5, Qt::DotLine)},
            {"cfs_rq's (thin, light)", QPen(light, 1.0)},
            {"h_nr_queued (right)", QPen(key, 1.0, Qt::DashDotLine)},
            {"h_nr_runnable (right)", QPen(key, 1.0, Qt::DashDotDotLine)},
        };
        for (const auto& st : styles) {
            auto* g = new QCPGraph(
                m_peltRect->axis(QCPAxis::atBottom), m_peltRect->axis(QCPAxis::atLeft));
            g->setName(QString::fromUtf8(st.name));
            g->setPen(st.pen);
            g->setProperty("peltKey", true);
            g->removeFromLegend();
            g->addToLegend(peltLegend);
        }
    }
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
    m_nowLines[4] = makeNowLine(m_plot, m_peltRect);
    for (int i = 0; i < kPanes; ++i) {
        m_cursorLines[i] = makeNowLine(m_plot, m_nowLines[i]->clipAxisRect());
        m_cursorLines[i]->setPen(QPen(QColor(0x20, 0x60, 0xd0), 1.5, Qt::DashDotLine));
        m_cursorLines[i]->setVisible(false);
    }

    // Zoom with the wheel and pan by dragging, horizontally only; the panes stay in step.
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    for (QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect, m_peltRect}) {
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
    connect(m_peltRect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
        this, &TimelineView::onRangeChanged);
    connect(m_plot, &QCustomPlot::mouseMove, this, &TimelineView::showToolTip);
    connect(m_plot, &QCustomPlot::mousePress, this, &TimelineView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &TimelineView::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &TimelineView::onDoubleClick);
    m_plot->setToolTip(QString());

    applyPalette();
    // The weight pane draws these at once: summarized from the records the indexing pass reads.
    m_samples.summarizeGroupsWhileIndexing(kMaxGroupEntities);
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
    // The PELT pane's key: its pens in the text colour.
    for (QCPGraph* g : m_peltRect->axis(QCPAxis::atLeft)->graphs()) {
        if (!g->property("peltKey").toBool())
            continue;
        QPen pen = g->pen();
        QColor c = text;
        c.setAlpha(pen.color().alpha());
        pen.setColor(c);
        g->setPen(pen);
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
    m_weightSteps.clear();
    m_weightStepsFor = {};
    ++m_seriesGeneration;
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
        updateIndexes(*m_recording, m_segments, m_samples); // one pass over the new records
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

void TimelineView::setSelectedGroupEntities(const std::vector<int32_t>& entities)
{
    setSelection(m_selected, entities);
}

void TimelineView::setSelection(
    const QVector<int>& tasks, const std::vector<int32_t>& groupEntities)
{
    constexpr size_t kMaxGroups = 8;
    m_selected = tasks;
    m_selectedGroups.clear();
    for (const int32_t raw : groupEntities)
        if (EntityRef{raw}.isGroup() && m_selectedGroups.size() < kMaxGroups
            && std::find(m_selectedGroups.begin(), m_selectedGroups.end(), raw)
                == m_selectedGroups.end())
            m_selectedGroups.push_back(raw);
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
    for (QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect, m_peltRect})
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

void TimelineView::setCaching(bool on)
{
    m_caching = on;
    m_lanes->setCaching(on);
    for (const auto& [rect, columns] : m_panes)
        columns->setCaching(on);
    m_weightDrawnFor = {};
    ++m_seriesGeneration;
    refreshVruntime();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
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
    for (const QCPAxisRect* rect :
        {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect, m_peltRect})
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
    // The now line is 1.5 px wide: on an edge of the window half of it would lie outside the
    // pane, and at the right edge it says only that the run reached the window's end (every
    // capture does), so it is drawn strictly inside.
    const auto strictlyInside = [&](const QCPItemLine* line) {
        const double x = line->start->coords().x();
        return x > keys.lower && x < keys.upper && line->clipAxisRect()->visible();
    };
    for (int i = 0; i < kPanes; ++i) {
        m_nowLines[i]->setVisible(strictlyInside(m_nowLines[i]));
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
        {m_peltRect,
            {QStringLiteral("PELT avg (1024 = full)"), QStringLiteral("PELT avg"),
                QStringLiteral("PELT")}},
    };
    bool changed = false;
    // Small plots (under 480 layout pixels high): the time axis's tick labels only under the
    // last pane, the panes above share them. A picture labels the time axis under the last pane.
    const bool compact = m_plot->viewport().height() < 480;
    QCPAxisRect* last = m_peltRect->visible() ? m_peltRect
        : m_weightRect->visible()             ? m_weightRect
                                              : m_lagRect;
    for (QCPAxisRect* rect : {m_lanesRect, m_vruntimeRect, m_lagRect, m_weightRect, m_peltRect}) {
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
    {
        // The counts' axis: the longest title that fits, at most as many ticks as the left one.
        QCPAxis* counts = m_peltRect->axis(QCPAxis::atRight);
        const QFontMetrics labelMetrics(counts->labelFont());
        QString title = QStringLiteral("tasks");
        for (const QString& candidate : {QStringLiteral("h_nr_queued, h_nr_runnable"),
                 QStringLiteral("h_nr_queued/runnable"), QStringLiteral("h_nr")}) {
            if (labelMetrics.horizontalAdvance(candidate) <= m_peltRect->height()) {
                title = candidate;
                break;
            }
        }
        if (counts->label() != title) {
            counts->setLabel(title);
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
    setLagClampRules({{Nanoseconds{0}, rule}}, baseSlice, hz);
}

void TimelineView::setLagClampRules(ClampRules rules, Nanoseconds baseSlice, int hz)
{
    if (rules.empty())
        rules.emplace_back(Nanoseconds{0}, LagClamp::MaxSliceTick);
    m_clampRules = std::move(rules);
    m_baseSlice = baseSlice;
    m_tick = Nanoseconds{1'000'000'000 / std::max(1, hz)};
    ++m_seriesGeneration;
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

bool TimelineView::peltFits() const
{
    // Five panes need room: under 480 layout pixels high (the compact layout) the lanes and the
    // other panes keep theirs and the PELT pane stays out.
    return m_plot->viewport().height() >= 480;
}

void TimelineView::showPeltPane(bool show)
{
    // Without PELT in the recording (or nothing plotted) the pane is out of the layout, like the
    // weight pane without groups; its legend's cell stays (row 4).
    // Its row is the second under the lag pane's (a capture adds a title row above them all).
    QCPLayoutGrid* layout = m_plot->plotLayout();
    int lagRow = -1;
    bool in = false;
    for (int r = 0; r < layout->rowCount(); ++r) {
        if (!layout->hasElement(r, 0))
            continue;
        lagRow = layout->element(r, 0) == m_lagRect ? r : lagRow;
        in = in || layout->element(r, 0) == m_peltRect;
    }
    if (show == in || lagRow < 0)
        return;
    if (show)
        layout->addElement(lagRow + 2, 0, m_peltRect);
    else
        layout->take(m_peltRect);
    QList<double> stretch = layout->rowStretchFactors();
    if (lagRow + 2 < stretch.size())
        stretch[lagRow + 2] = show ? 2.0 : 0.001;
    layout->setRowStretchFactors(stretch);
    m_peltRect->setVisible(show);
    // The key leaves its cell with the pane: a hidden layout element keeps its minimum height.
    if (auto* legend = m_plot->findChild<QCPLegend*>(QStringLiteral("peltLegend"))) {
        legend->setVisible(show);
        if (!show && legend->layout()) {
            m_peltLegendCell = static_cast<QCPLayoutGrid*>(legend->layout());
            m_peltLegendCell->take(legend);
            m_peltLegendCell->simplify();
        } else if (show && m_peltLegendCell) {
            m_peltLegendCell->insertRow(0);
            m_peltLegendCell->addElement(0, 0, legend);
            m_peltLegendCell->setRowStretchFactors({0.001, 1.0});
        }
    }
    m_nowLines[4]->setVisible(show);
    m_cursorLines[4]->setVisible(show && m_cursor >= Nanoseconds{0});
}

void TimelineView::setTaskCgroups(TaskCgroups cgroups, TaskMoves moves)
{
    m_taskCgroups = std::move(cgroups);
    m_taskMoves = std::move(moves);
    ++m_seriesGeneration;
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
               "the entity is eligible.\nBand: ±limit of the lag clamp "
               "(docs/kernel-model.md §4.1) per task: the clamp the kernel would apply if the "
               "task left its queue then, from the rule in force (own_slice: "
               "max(2·slice, TICK)·1024/w with its own slice; max_slice_tick: "
               "(max_slice + TICK)·1024/w with the largest slice queued on its cfs_rq, itself "
               "included) and its weight; held while it sleeps at the clamp its saved lag got. "
               "The first task's band is filled, the others' edges dotted in their colour."),
            m_plot);
        return;
    }
    if (m_peltRect->visible() && m_peltRect->rect().contains(pos.toPoint())) {
        QToolTip::showText(event->globalPosition().toPoint(),
            tr("PELT (docs/kernel-model.md §6.6) at each update: util_avg (solid), runnable_avg "
               "(dashed), load_avg (dotted) of each task, and of the cfs_rq it is queued on "
               "(thin, light; broken at a migration or cgroup move). Right axis: that cfs_rq's "
               "h_nr_queued and h_nr_runnable (§5.4; delayed tasks count in the first only). "
               "Group entities selected in the machine tree (\"/A@1\") are drawn the same way "
               "in their weight-pane colour: the group entity's own averages and its parent "
               "cfs_rq's. Values hold between updates."),
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
