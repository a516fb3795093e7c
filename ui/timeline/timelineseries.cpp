// SPDX-License-Identifier: GPL-2.0-or-later
// TimelineView's entity line panes: v − V and deadline − V (per entity's own cfs_rq), lag with
// its eligibility shading and clamp band, and the group entities' weights — series read from
// the recording, decimated for the panes' pixel columns (envelope.h) and handed to QCustomPlot.
// The lanes, axes, markers and mouse are timelineview.cpp's.
#include "core/record/recording.h"
#include "ui/common/format.h"
#include "ui/common/taskpalette.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/model/columnspans.h"
#include "ui/timeline/model/entitylines.h"
#include "ui/timeline/model/envelope.h"
#include "ui/timeline/model/peltlines.h"
#include "ui/timeline/seriesgraph.h"
#include "ui/timeline/timelineplot.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeticker.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace schedlab::ui {

namespace {
constexpr int kAutoPlotMaxTasks = 8;
// Level of detail: deadline and lag lines only for the first few selected tasks (a hundred
// overlapping lag lines are unreadable and cost most of a redraw); vruntime for all.
constexpr int kDetailTasks = 8;

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

/// A graph drawing exactly the points it is given: QCustomPlot's own adaptive sampling (a
/// second decimation, which also joins across the NaN of a break) is off; envelope() has
/// already left at most four points per pixel column. Its dense drawing is painted with its
/// pane's (seriesgraph.h).
QCPGraph* addSeries(
    const double* scale, QCPAxis* key, QCPAxis* value, const std::shared_ptr<PaneColumns>& pane)
{
    QCPGraph* g = new SeriesGraph(key, value, scale, pane);
    g->setAdaptiveSampling(false);
    return g;
}

/// Dense lines as column spans, sparse ones as smoothed polylines (see SeriesGraph).
void setColumns(QCPGraph* g, bool dense)
{
    static_cast<SeriesGraph*>(g)->setColumns(dense);
}

/// Group-entity weight lines: colour by group, dash pattern by CPU.
Qt::PenStyle cpuPenStyle(EntityRef e)
{
    return static_cast<Qt::PenStyle>(Qt::SolidLine + e.groupCpu() % 5);
}

} // namespace

std::shared_ptr<PaneColumns> TimelineView::pane(QCPAxisRect* rect)
{
    for (const auto& [r, p] : m_panes)
        if (r == rect)
            return p;
    m_panes.emplace_back(rect, std::make_shared<PaneColumns>());
    m_panes.back().second->setCaching(m_caching);
    return m_panes.back().second;
}

int64_t TimelineView::lagLimit(Nanoseconds t, Nanoseconds slice, uint32_t weight) const
{
    // docs/kernel-model.md §4.1 step 3, with the rule in force at t (lagband.h).
    LagClamp rule = m_clampRules.front().second;
    for (const auto& [at, r] : m_clampRules)
        if (at <= t)
            rule = r;
    return lagBandLimit(rule, slice.count(), m_tick.count(), weight);
}

QColor TimelineView::groupEntityColor(int32_t raw) const
{
    // By first appearance in the recording, as the weight pane orders its lines.
    const auto& all = m_samples.groupEntities();
    const auto at = std::find(all.begin(), all.end(), raw);
    return taskColor(3 + static_cast<int>(at - all.begin()));
}

void TimelineView::refreshWeights()
{
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
            QCPGraph* g = addSeries(&m_scale, m_weightRect->axis(QCPAxis::atBottom),
                m_weightRect->axis(QCPAxis::atLeft), pane(m_weightRect));
            // A colour of its own for every drawn entity (group and CPU), and a dash pattern by
            // CPU as well.
            QPen pen(groupEntityColor(raw), 1.5);
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
        m_weightStepsFor = {};
    }
    if (legend)
        legend->setVisible(!m_weightGraphs.empty());
    showWeightPane(!m_weightGraphs.empty());
    if (!m_recording || m_weightGraphs.empty())
        return;
    const Nanoseconds from = viewStart();
    const Nanoseconds to = viewEnd();
    const int bins = columns();
    if (!m_caching) {
        m_weightDrawnFor = {};
        m_weightStepsFor = {};
    }
    const std::array<int64_t, 5> drawnFor{from.count(), to.count(), bins, m_now.count(),
        static_cast<int64_t>(m_samples.consumedRecords())};
    if (drawnFor == m_weightDrawnFor)
        return; // the same lines as drawn
    m_weightDrawnFor = drawnFor;
    pane(m_weightRect)->invalidate();
    // The decimated samples do not depend on the present: a new one alone reuses them.
    const std::array<int64_t, 4> stepsFor{
        from.count(), to.count(), bins, static_cast<int64_t>(m_samples.consumedRecords())};
    if (stepsFor != m_weightStepsFor || m_weightSteps.size() != m_weightGraphs.size()) {
        m_weightStepsFor = stepsFor;
        m_weightSteps.assign(m_weightGraphs.size(), {});
        for (size_t i = 0; i < m_weightGraphs.size(); ++i)
            for (const EntitySample& s : m_samples.groupSeries(
                     *m_recording, m_weightKeys[i], from, to, bins, SampleIndex::KeepWeight))
                m_weightSteps[i].push_back({s.time, static_cast<int64_t>(s.weight)});
    }
    int points = 0;
    for (size_t i = 0; i < m_weightGraphs.size(); ++i) {
        // The weight holds between samples (it changes only where update_cfs_group() records
        // one): a step line, drawn to the present.
        const std::vector<LinePoint>& steps = m_weightSteps[i];
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
        setColumns(m_weightGraphs[i], dense);
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
    if (tasks.isEmpty() && m_selectedGroups.empty() && m_recording) {
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
        m_bandUpper = addSeries(&m_scale, lKey, lValue, pane(m_lagRect));
        m_bandLower = addSeries(&m_scale, lKey, lValue, pane(m_lagRect));
        const QColor band(0x90, 0x90, 0x90, 60);
        m_bandUpper->setPen(QPen(band.darker(150), 1, Qt::DotLine));
        m_bandLower->setPen(QPen(band.darker(150), 1, Qt::DotLine));
        m_bandUpper->setBrush(band);
        m_bandUpper->setChannelFillGraph(m_bandLower);
        m_bandUpper->setName(QStringLiteral("lag clamp ±limit"));
        m_bandLower->removeFromLegend();
        m_bandUpper->removeFromLegend();
        m_avgGraph = addSeries(&m_scale, vKey, vValue, pane(m_vruntimeRect));
        m_avgGraph->setPen(QPen(QColor(0x80, 0x80, 0x80), 1.5, Qt::DotLine));
        m_avgGraph->removeFromLegend();
    }
    if (tasks != m_plotted) {
        // Level of detail in painting: past a few series, thin solid pens without
        // antialiasing (Qt's stroker makes wide, dashed or antialiased polylines costly).
        const bool many = tasks.size() > kAutoPlotMaxTasks;
        const qreal width = many ? 1.0 : 2.0;
        for (auto* list : {&m_graphs, &m_deadlineGraphs, &m_lagGraphs, &m_bandEdges}) {
            for (QCPGraph* g : *list)
                m_plot->removeGraph(g);
            list->clear();
        }
        for (const auto& graphs : m_peltGraphs)
            for (QCPGraph* g : graphs)
                m_plot->removeGraph(g);
        m_peltGraphs.clear();
        for (const int task : tasks) {
            QCPGraph* g = addSeries(&m_scale, vKey, vValue, pane(m_vruntimeRect));
            g->setPen(QPen(taskColor(task), width));
            g->setName(taskName(task));
            m_graphs.push_back(g);
            QCPGraph* d = addSeries(&m_scale, vKey, vValue, pane(m_vruntimeRect));
            QColor light = taskColor(task);
            light.setAlpha(150);
            d->setPen(QPen(light, 1, many ? Qt::SolidLine : Qt::DashLine));
            d->removeFromLegend();
            m_deadlineGraphs.push_back(d);
            QCPGraph* l = addSeries(&m_scale, lKey, lValue, pane(m_lagRect));
            l->setPen(QPen(taskColor(task), many ? 1.0 : 1.5));
            l->removeFromLegend();
            m_lagGraphs.push_back(l);
            if (m_lagGraphs.size() > static_cast<size_t>(kDetailTasks))
                continue;
            // The band of every detail task but the first (filled, m_bandUpper/Lower): its
            // edges dotted in the task's colour.
            if (m_lagGraphs.size() > 1) {
                for (int edge = 0; edge < 2; ++edge) {
                    QCPGraph* b = addSeries(&m_scale, lKey, lValue, pane(m_lagRect));
                    QColor c = taskColor(task);
                    c.setAlpha(170);
                    b->setPen(QPen(c, 1, Qt::DotLine));
                    b->removeFromLegend();
                    m_bandEdges.push_back(b);
                }
            }
            // The PELT pane: the entity's averages and its cfs_rq's on the left axis, the counts
            // on the right one (pens: below, with the level of detail).
            QCPAxis* pKey = m_peltRect->axis(QCPAxis::atBottom);
            std::array<QCPGraph*, 8> pelt{};
            for (size_t k = 0; k < pelt.size(); ++k) {
                pelt[k] = addSeries(&m_scale, pKey,
                    m_peltRect->axis(k < 6 ? QCPAxis::atLeft : QCPAxis::atRight), pane(m_peltRect));
                pelt[k]->removeFromLegend();
            }
            m_peltGraphs.push_back(pelt);
        }
        m_plotted = tasks;
        ++m_seriesGeneration;
    }
    if (m_selectedGroups != m_plottedGroups) {
        // Group entities in the PELT pane: the same eight lines as a task's, the util line named
        // in the PELT key (the entity is in no other pane's legend).
        auto* peltLegend = m_plot->findChild<QCPLegend*>(QStringLiteral("peltLegend"));
        for (const auto& graphs : m_groupPeltGraphs)
            for (QCPGraph* g : graphs) {
                if (peltLegend)
                    g->removeFromLegend(peltLegend);
                m_plot->removeGraph(g);
            }
        m_groupPeltGraphs.clear();
        QCPAxis* pKey = m_peltRect->axis(QCPAxis::atBottom);
        for (const int32_t raw : m_selectedGroups) {
            std::array<QCPGraph*, 8> pelt{};
            for (size_t k = 0; k < pelt.size(); ++k) {
                pelt[k] = addSeries(&m_scale, pKey,
                    m_peltRect->axis(k < 6 ? QCPAxis::atLeft : QCPAxis::atRight), pane(m_peltRect));
                pelt[k]->removeFromLegend();
            }
            if (m_recording)
                pelt[2]->setName(QString::fromStdString(entityName(EntityRef{raw}, *m_recording)));
            if (peltLegend)
                pelt[2]->addToLegend(peltLegend);
            m_groupPeltGraphs.push_back(pelt);
        }
        m_plottedGroups = m_selectedGroups;
        ++m_seriesGeneration;
    }
    m_hint->setVisible(m_hints && m_graphs.empty());
    m_plot->legend->setVisible(!m_graphs.empty());
    m_peltFitted = peltFits();
    const bool pelt = m_recording && (!m_graphs.empty() || !m_groupPeltGraphs.empty())
        && m_samples.hasPelt() && m_peltFitted;
    showPeltPane(pelt);
    if (!m_recording || (m_graphs.empty() && !pelt)) {
        for (QCPGraph* g : {m_avgGraph, m_bandUpper, m_bandLower})
            g->data()->clear();
        m_seriesDrawnFor = {};
        for (QCPAxisRect* rect : {m_vruntimeRect, m_lagRect, m_peltRect})
            pane(rect)->invalidate();
        return;
    }
    if (m_graphs.empty()) // group entities only: no task's V or band
        for (QCPGraph* g : {m_avgGraph, m_bandUpper, m_bandLower})
            g->data()->clear();
    const Nanoseconds from = viewStart();
    const Nanoseconds to = viewEnd();
    // Level of detail: the pane's pixel columns (envelope.h), for the samples and the lines.
    const int bins = columns();
    m_dataColumns = bins;
    // The lines below depend on nothing else: a drawing of the same keeps them (and the pens,
    // value ranges and level of detail fitted to them).
    const std::array<int64_t, 7> drawnFor{from.count(), to.count(), bins, m_now.count(),
        static_cast<int64_t>(m_samples.consumedRecords()) * 2 + (pelt ? 1 : 0), m_seriesGeneration,
        m_vruntimeRect->width()};
    if (m_caching && drawnFor == m_seriesDrawnFor)
        return;
    m_seriesDrawnFor = drawnFor;
    for (QCPAxisRect* rect : {m_vruntimeRect, m_lagRect, m_peltRect})
        pane(rect)->invalidate();

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
    const Nanoseconds until = std::min(m_now, to);
    bool any = false;
    for (size_t i = 0; i < m_graphs.size(); ++i) {
        const bool detail = i < static_cast<size_t>(kDetailTasks);
        auto series =
            m_samples.decimatedSeries(*m_recording, m_plotted[static_cast<int>(i)], from, to, bins,
                // v − V is −vlag while queued: keeping lag extremes keeps the pane's.
                SampleIndex::KeepVruntime | SampleIndex::KeepLag | SampleIndex::KeepAvg
                    | (detail ? SampleIndex::KeepDeadline | SampleIndex::KeepWeight : 0u)
                    | (detail && pelt ? unsigned{SampleIndex::KeepPelt} : 0u),
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
        // A task that exited has no lag, weight or averages after its exit: its lines end there.
        const Nanoseconds exited = m_samples.exitTime(task);
        const Nanoseconds taskUntil = exited >= Nanoseconds{0} ? std::min(until, exited) : until;
        const EntityLines lines = entityLines(series, reference, taskUntil, queueV);
        // Every line through the one decimation: clipped to the window, first, last, lowest
        // and highest point per pixel column.
        const auto drawn = [&](const std::vector<LinePoint>& line) {
            return envelope(line, from, to, bins);
        };
        // The vruntime pane: v − V and deadline − V of the entity's own cfs_rq, comparable
        // across cfs_rq's (raw vruntimes of two queues are in unrelated frames).
        const QueueRelativeLines relative = relativeToQueue(series);
        const QVector<QCPGraphData> values = toGraph(drawn(relative.vruntime));
        if (i == 0)
            m_avgGraph->data()->clear(); // V itself is the pane's zero (each entity's own V)
        if (detail) {
            // The task's clamp band (lagband.h): the clamp in force at each time — its slice or
            // its queue's largest one, its weight and the rule —, held between changes, through
            // the one decimation like every line.
            const SliceSteps queueSlices = queueMaxSlices(
                series, [this](int cpu, int group) { return m_samples.maxSlices(cpu, group); });
            const std::vector<LinePoint> band =
                drawn(lagBand(lines.weight, m_clampRules, m_samples.sliceChanges(task),
                    m_baseSlice.count(), m_tick.count(), taskUntil, queueSlices));
            std::vector<LinePoint> negated = band;
            for (LinePoint& p : negated)
                p.value = -p.value;
            QCPGraph* upper = i == 0 ? m_bandUpper : m_bandEdges[2 * (i - 1)];
            QCPGraph* lower = i == 0 ? m_bandLower : m_bandEdges[2 * (i - 1) + 1];
            upper->data()->set(toGraph(band), true);
            lower->data()->set(toGraph(negated), true);
        }
        if (detail && pelt) {
            const PeltLines p = peltLines(series, taskUntil);
            const std::array<const std::vector<LinePoint>*, 8> peltLine{&p.load, &p.runnable,
                &p.util, &p.rqLoad, &p.rqRunnable, &p.rqUtil, &p.hNrQueued, &p.hNrRunnable};
            for (size_t k = 0; k < peltLine.size(); ++k)
                m_peltGraphs[i][k]->data()->set(toGraph(drawn(*peltLine[k]), 1.0), true);
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
    // Group entities: their own averages and their cfs_rq's (the parent's queue on their CPU,
    // which never changes: a group entity belongs to one CPU and one parent).
    for (size_t i = 0; pelt && i < m_groupPeltGraphs.size(); ++i) {
        const auto series = m_samples.groupSeries(
            *m_recording, m_plottedGroups[i], from, to, bins, SampleIndex::KeepPelt);
        const PeltLines p = peltLines(series, until);
        const std::array<const std::vector<LinePoint>*, 8> peltLine{&p.load, &p.runnable, &p.util,
            &p.rqLoad, &p.rqRunnable, &p.rqUtil, &p.hNrQueued, &p.hNrRunnable};
        for (size_t k = 0; k < peltLine.size(); ++k)
            m_groupPeltGraphs[i][k]->data()->set(
                toGraph(envelope(*peltLine[k], from, to, bins), 1.0), true);
    }
    // Level of detail in painting: a dense window (decimated series) is drawn with thin solid
    // pens, as the rows each line covers per device pixel column (SeriesGraph): Qt's stroker
    // makes wide, dashed or smoothed polylines costly, and an unsmoothed polyline's segments
    // are rounded to whole pixel columns (two in one column, none in the next: stripes that
    // are not in the data). Sparse lines are smoothed polylines.
    int points = 0;
    for (const QCPGraph* g : m_graphs)
        points = std::max(points, g->dataCount());
    const bool dense = m_graphs.size() > static_cast<size_t>(kAutoPlotMaxTasks)
        || points > m_vruntimeRect->width() / 2;
    for (QCPGraph* g : {m_avgGraph, m_bandUpper, m_bandLower})
        g->setAntialiased(!dense);
    for (QCPGraph* g : m_bandEdges) {
        g->setAntialiased(!dense);
        setColumns(g, dense);
    }
    for (size_t i = 0; i < m_peltGraphs.size() + m_groupPeltGraphs.size(); ++i) {
        // The entity's averages in the task's colour (util solid, runnable dashed, load
        // dotted), its cfs_rq's thin and light, the counts dash-dotted. Dense: thin solid pens
        // drawn as column spans (as the lag lines). A group entity in its weight-pane colour.
        const bool group = i >= m_peltGraphs.size();
        const std::array<QCPGraph*, 8>& graphs =
            group ? m_groupPeltGraphs[i - m_peltGraphs.size()] : m_peltGraphs[i];
        const QColor c = group ? groupEntityColor(m_plottedGroups[i - m_peltGraphs.size()])
                               : taskColor(m_plotted[static_cast<int>(i)]);
        QColor pale = c;
        pale.setAlpha(120);
        const Qt::PenStyle styles[3] = {Qt::DotLine, Qt::DashLine, Qt::SolidLine};
        for (size_t k = 0; k < 8; ++k) {
            QCPGraph* g = graphs[k];
            g->setAntialiased(!dense);
            setColumns(g, dense);
            const Qt::PenStyle style = k < 6 ? styles[k % 3]
                : k == 6                     ? Qt::DashDotLine
                                             : Qt::DashDotDotLine;
            g->setPen(QPen(k >= 3 && k < 6 ? pale : c,
                dense        ? 1.0
                    : k == 2 ? 2.0
                    : k < 3  ? 1.5
                             : 1.0,
                dense ? Qt::SolidLine : style));
        }
    }
    for (size_t i = 0; i < m_graphs.size(); ++i) {
        for (QCPGraph* g : {m_graphs[i], m_deadlineGraphs[i], m_lagGraphs[i]}) {
            g->setAntialiased(true); // sparse lines
            setColumns(g, dense);
        }
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
    if (pelt) {
        // One pane, two stacked parts so the lines do not cross: the averages (never below 0) in
        // the upper 70 %, the counts (whole numbers from 0) in the lower 30 %; each axis labels
        // only its part (TicksFrom).
        QCPAxis* pValue = m_peltRect->axis(QCPAxis::atLeft);
        rescaleToWindow(pValue);
        const double top = std::max(16.0, pValue->range().upper * 1.05);
        pValue->setRange(-top * 0.3 / 0.7, top);
        QCPAxis* pCount = m_peltRect->axis(QCPAxis::atRight);
        rescaleToWindow(pCount);
        const double most = std::max(1.0, std::ceil(pCount->range().upper));
        pCount->setRange(-0.3, -0.3 + (most + 0.6) / 0.3);
        if (auto t = pCount->ticker().dynamicCast<TicksFrom>())
            t->setUpTo(most);
    }
    for (QCPAxis* axis : {vValue, lValue}) {
        const QCPRange v = axis->range();
        if (v.size() < 1e-6)
            axis->setRange(v.lower - 1, v.upper + 1);
        else
            axis->scaleRange(1.1, v.center());
    }
}

} // namespace schedlab::ui
