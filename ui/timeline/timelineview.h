// SPDX-License-Identifier: GPL-2.0-or-later
// The centre of the window: a QCustomPlot with panes sharing the time axis. Top: one lane per
// CPU showing which task runs. Then vruntime (solid), deadline (dashed) of the selected tasks
// (all tasks when nothing is selected and there are few) with V of the first one's cfs_rq
// (dotted); then their lag V − v with the clamp band of docs/kernel-model.md §4.1 and the eligible
// half-plane (lag ≥ 0) shaded. Wheel zooms, dragging pans, both horizontally; double-click asks
// for the state at that time. Every series is decimated for the pixel columns it is drawn into
// (SampleIndex::decimatedSeries(), then envelope()), whenever and wherever the plot is drawn:
// the window, Compare, --screenshot and the captures all draw through this view.
#pragma once

#include "core/base/time.h"
#include "core/kernel/profile.h"
#include "ui/timeline/model/lagband.h"
#include "ui/timeline/model/sampleindex.h"
#include "ui/timeline/model/taskcgroups.h"
#include "ui/timeline/model/timelinelayout.h"

#include <QPair>
#include <QVector>
#include <QWidget>

#include <array>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPAbstractItem;
class QCPAxisRect;
class QCPGraph;
class QCPItemRect;
class QCPItemLine;
class QCPItemText;
class QCPLayoutGrid;
class QCPRange;
class QMouseEvent;

namespace schedlab {
class Recording;
}

namespace schedlab::ui {

class CpuLanesPlottable;
class PaneColumns;
class TimeTicker;

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    /// Follows @p recording (owned by the controller's simulation) from now on; nullptr
    /// detaches. Shows [0, @p duration].
    void setRecording(const Recording* recording, Nanoseconds duration);
    /// Reads the records appended since the last call and repaints (coalesced).
    void setNow(Nanoseconds now);
    /// Scenario annotations: a dashed marker with its text in the CPU pane.
    void setAnnotations(const QVector<QPair<Nanoseconds, QString>>& annotations);
    int annotationCount() const { return static_cast<int>(m_annotations.size() / 2); }

    /// Tasks (simulation indexes) whose vruntime the lower pane plots.
    void setSelectedTasks(const QVector<int>& tasks);
    /// Group entities (EntityRef raw values: "/A@1") whose own PELT averages, and those of the
    /// cfs_rq they are queued on, the PELT pane draws (at most 8, in the order given; drawn in
    /// the colour of their line in the weight pane). With group entities selected and no task,
    /// no task is plotted (the default of all tasks applies when nothing is selected).
    void setSelectedGroupEntities(const std::vector<int32_t>& entities);
    /// Both at once (one redraw).
    void setSelection(const QVector<int>& tasks, const std::vector<int32_t>& groupEntities);
    /// Group entities drawn in the PELT pane.
    const std::vector<int32_t>& plottedGroupEntities() const { return m_plottedGroups; }
    /// The PELT pane's graphs of plotted group entity @p i (load, runnable, util, rq load,
    /// rq runnable, rq util, h_nr_queued, h_nr_runnable), for tests.
    const std::array<QCPGraph*, 8>& groupPeltGraphs(size_t i) const { return m_groupPeltGraphs[i]; }
    /// Parameters of the lag clamp band (docs/kernel-model.md §4.1): the rule, the base slice in
    /// force and HZ (TICK_NSEC = 1 s / HZ). One rule for the whole run.
    void setLagClamp(LagClamp rule, Nanoseconds baseSlice, int hz);
    /// The same with the rule over time (clampRules(); a mid-run profile action or override may
    /// change it). Each task's band is the clamp in force (lagband.h): the rule, its weight and
    /// its own slice (its deadline renewals in the recording; @p baseSlice when it has none) or,
    /// for max_slice_tick, the largest slice queued on its cfs_rq (MaxSlice records).
    void setLagClampRules(ClampRules rules, Nanoseconds baseSlice, int hz);
    /// The clamp limit in virtual ns of a task with slice @p slice and scaled load weight
    /// @p weight under the rule in force at @p t (lagBandLimit()).
    int64_t lagLimit(Nanoseconds t, Nanoseconds slice, uint32_t weight) const;
    /// The PELT pane (load/runnable/util_avg of the plotted tasks and selected group entities
    /// and of their cfs_rq's, h_nr_queued and h_nr_runnable on the right axis) is shown when the
    /// recording holds PELT (RunOptions::recordPelt) and tasks or group entities are plotted.
    QCPAxisRect* peltRect() const { return m_peltRect; }
    /// Each task's cgroup over time (taskCgroups() of the scenario that ran): with it, the lag of
    /// a waiting task follows its cfs_rq's V between its own samples (entityLines()).
    /// With @p moves (taskMoves()), lines break at every cgroup move at every zoom.
    void setTaskCgroups(TaskCgroups cgroups, TaskMoves moves = {});
    /// Hints for a user ("Select tasks … to plot"); off for pictures.
    void setHintsVisible(bool on);
    /// When on (default), the view scrolls to keep the present in sight while playing.
    void setFollow(bool follow) { m_follow = follow; }
    /// Lanes coloured by cgroup (see CpuLanesPlottable::setGroupColouring) or by task.
    void setGroupColouring(std::function<int(int, Nanoseconds)> groupOf);
    bool follows() const { return m_follow; }

    void setViewRange(Nanoseconds from, Nanoseconds to);
    Nanoseconds viewStart() const;
    Nanoseconds viewEnd() const;
    void zoomToFit();

    QCustomPlot* plot() const { return m_plot; }
    QCPAxisRect* lagRect() const { return m_lagRect; }
    /// Group entities whose weight the bottom pane draws (at most 16, first seen first).
    const std::vector<int32_t>& weightEntities() const { return m_weightKeys; }
    const RunSegmentIndex& segments() const { return m_segments; }
    /// Tasks currently drawn in the vruntime pane.
    QVector<int> plottedTasks() const { return m_plotted; }
    QString timeAxisLabel() const;
    /// The time axis's title under the last pane as well (pictures), not only under the lanes.
    void setTimeLabelOnLastPane(bool on) { m_timeLabelOnLast = on; }

    /// Caching (default on): a drawing whose window, pixel columns, present, records indexed and
    /// settings are those of the previous one reuses its decimated series and lane columns
    /// instead of rebuilding them (the same pixels: tests/ui/tst_drawcache.cpp). Off, every
    /// drawing rebuilds everything (tests, the benchmark's uncached figure).
    void setCaching(bool on);
    bool caching() const { return m_caching; }

    /// The cursor: a blue line in every pane (inspector time). Clicking the plot moves it.
    void setCursorTime(Nanoseconds t);
    Nanoseconds cursorTime() const { return m_cursor; }
    /// Pans (keeping the zoom) so that @p t is visible.
    void ensureVisible(Nanoseconds t);

protected:
    void changeEvent(QEvent* event) override;

Q_SIGNALS:
    /// The user clicked at @p t (the cursor has moved there).
    void cursorMoved(schedlab::Nanoseconds t);
    /// The user double-clicked the CPU lanes at @p t (add an annotation there).
    void annotationRequested(schedlab::Nanoseconds t);
    void viewRangeChanged(schedlab::Nanoseconds from, schedlab::Nanoseconds to);
    /// The user asked to see the simulation's state at @p t (double-click on a series pane).
    void timeRequested(schedlab::Nanoseconds t);
    /// The user clicked a task's run on the CPU lanes (a lesson's "which task is picked?").
    void taskClicked(const QString& name);

private:
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    void onDoubleClick(QMouseEvent* event);
    bool inAnyPane(QPoint p) const;
    void onRangeChanged(const QCPRange& range);
    void refreshVruntime();
    void refreshWeights();
    /// A group entity's colour: its weight-pane line's (by first appearance in the recording).
    QColor groupEntityColor(int32_t raw) const;
    void showWeightPane(bool show);
    void showPeltPane(bool show);
    /// The plot is tall enough for the PELT pane (480 layout pixels).
    bool peltFits() const;
    bool m_peltFitted = true; ///< peltFits() when the panes were last laid out
    void applyPalette();
    void showToolTip(QMouseEvent* event);
    QString taskName(int task) const;
    /// Device pixel columns of the time panes for the drawing being laid out (envelope.h).
    int columns() const;
    /// The dense series of @p rect's pane, painted together (seriesgraph.h).
    std::shared_ptr<PaneColumns> pane(QCPAxisRect* rect);
    std::vector<std::pair<QCPAxisRect*, std::shared_ptr<PaneColumns>>> m_panes;
    /// Before each drawing: markers inside the window only, the eligible shade inside the pane.
    void placeMarkers();
    /// Before each drawing: axis titles and tick counts that fit the panes. True if changed.
    bool fitAxes();

    QCustomPlot* m_plot;
    QCPAxisRect* m_lanesRect;
    QCPAxisRect* m_vruntimeRect;
    QCPAxisRect* m_lagRect;
    QCPAxisRect* m_weightRect;
    std::vector<QCPGraph*> m_weightGraphs;
    std::vector<int32_t> m_weightKeys; ///< group entities (EntityRef raw) drawn in m_weightRect
    QCPItemRect* m_eligibleShade;
    std::vector<QCPGraph*> m_deadlineGraphs;
    std::vector<QCPGraph*> m_lagGraphs;
    QCPGraph* m_avgGraph = nullptr;
    QCPGraph* m_bandUpper = nullptr; ///< the first task's band, filled
    QCPGraph* m_bandLower = nullptr;
    std::vector<QCPGraph*> m_bandEdges; ///< the other tasks' band edges: upper, lower per task
    QCPAxisRect* m_peltRect;
    QCPLayoutGrid* m_peltLegendCell = nullptr; ///< the PELT key's cell (beside the pane)
    /// Per plotted task (detail ones): load, runnable, util, rq load, rq runnable, rq util,
    /// h_nr_queued, h_nr_runnable.
    std::vector<std::array<QCPGraph*, 8>> m_peltGraphs;
    /// The same per plotted group entity (m_plottedGroups); its util graph is in the PELT key
    /// under the entity's name.
    std::vector<std::array<QCPGraph*, 8>> m_groupPeltGraphs;
    std::vector<int32_t> m_selectedGroups;
    std::vector<int32_t> m_plottedGroups;
    ClampRules m_clampRules{{Nanoseconds{0}, LagClamp::MaxSliceTick}};
    Nanoseconds m_baseSlice{700'000};
    Nanoseconds m_tick{1'000'000};
    bool m_follow = true;
    bool m_inRangeChange = false;
    CpuLanesPlottable* m_lanes;
    static constexpr int kPanes = 5; ///< lanes, vruntime, lag, weight, PELT
    /// Group entities whose weights the weight pane draws: the first ones seen (their series
    /// are summarized in the indexing pass, SampleIndex::summarizeGroupsWhileIndexing()).
    static constexpr size_t kMaxGroupEntities = 16;
    QCPItemLine* m_nowLines[kPanes];
    QCPItemLine* m_cursorLines[kPanes];
    Nanoseconds m_cursor{-1};
    QPointF m_pressPos;
    QCPItemText* m_hint;
    bool m_hints = true;
    TaskCgroups m_taskCgroups;
    TaskMoves m_taskMoves;
    QSharedPointer<TimeTicker> m_ticker;
    std::vector<QCPGraph*> m_graphs;
    std::vector<QCPAbstractItem*> m_annotations; ///< a line and a label per annotation

    const Recording* m_recording = nullptr;
    RunSegmentIndex m_segments;
    SampleIndex m_samples;
    Nanoseconds m_now{0};
    bool m_timeLabelOnLast = false;
    double m_scale = 1.0;  ///< device pixels per layout pixel of the latest drawing
    int m_dataColumns = 0; ///< columns the series were last decimated for
    /// What the weight pane's lines were last decimated for (window, columns, present, records
    /// indexed): a refresh for the same skips the decimation.
    std::array<int64_t, 5> m_weightDrawnFor{};
    /// The weight pane's decimated samples as step points, per drawn entity, and what they were
    /// decimated for (window, columns, records indexed): a new present alone (the first
    /// drawing of a finished run, a live run's step without new records) only redraws the lines
    /// from them.
    std::vector<std::vector<LinePoint>> m_weightSteps;
    std::array<int64_t, 4> m_weightStepsFor{};
    /// The same for the task panes (window, columns, present, records indexed, PELT shown,
    /// settings generation, pane width); m_seriesGeneration counts changes of the settings the
    /// lines depend on (tasks plotted, clamp rules, cgroups, recording).
    std::array<int64_t, 7> m_seriesDrawnFor{};
    int64_t m_seriesGeneration = 0;
    bool m_caching = true;
    Nanoseconds m_duration{0};
    QVector<int> m_selected;
    QVector<int> m_plotted;
};

} // namespace schedlab::ui
