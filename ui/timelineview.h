// SPDX-License-Identifier: GPL-2.0-or-later
// The centre of the window: a QCustomPlot with two panes sharing the time axis. Top: one lane
// per CPU showing which task runs. Bottom: vruntime of the selected tasks (all tasks when
// nothing is selected and there are few). Wheel zooms, dragging pans, both horizontally.
#pragma once

#include "core/base/time.h"
#include "ui/sampleindex.h"
#include "ui/timelinelayout.h"

#include <QPair>
#include <QVector>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPAbstractItem;
class QCPAxisRect;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPRange;
class QMouseEvent;

namespace schedlab {
class Recording;
}

namespace schedlab::ui {

class CpuLanesPlottable;
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

    void setViewRange(Nanoseconds from, Nanoseconds to);
    Nanoseconds viewStart() const;
    Nanoseconds viewEnd() const;
    void zoomToFit();

    QCustomPlot* plot() const { return m_plot; }
    const RunSegmentIndex& segments() const { return m_segments; }
    /// Tasks currently drawn in the vruntime pane.
    QVector<int> plottedTasks() const { return m_plotted; }
    QString timeAxisLabel() const;

    /// The cursor: a blue line in both panes (inspector time). Clicking the plot moves it.
    void setCursorTime(Nanoseconds t);
    Nanoseconds cursorTime() const { return m_cursor; }
    /// Pans (keeping the zoom) so that @p t is visible.
    void ensureVisible(Nanoseconds t);

Q_SIGNALS:
    /// The user clicked at @p t (the cursor has moved there).
    void cursorMoved(schedlab::Nanoseconds t);
    /// The user double-clicked the CPU lanes at @p t (add an annotation there).
    void annotationRequested(schedlab::Nanoseconds t);
    void viewRangeChanged(schedlab::Nanoseconds from, schedlab::Nanoseconds to);

private:
    void onMousePress(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);
    void onDoubleClick(QMouseEvent* event);
    void onRangeChanged(const QCPRange& range);
    void refreshVruntime();
    void showToolTip(QMouseEvent* event);
    QString taskName(int task) const;

    QCustomPlot* m_plot;
    QCPAxisRect* m_lanesRect;
    QCPAxisRect* m_vruntimeRect;
    CpuLanesPlottable* m_lanes;
    QCPItemStraightLine* m_nowLines[2];
    QCPItemStraightLine* m_cursorLines[2];
    Nanoseconds m_cursor{-1};
    QPointF m_pressPos;
    QCPItemText* m_hint;
    QSharedPointer<TimeTicker> m_ticker;
    std::vector<QCPGraph*> m_graphs;
    std::vector<QCPAbstractItem*> m_annotations; ///< a line and a label per annotation

    const Recording* m_recording = nullptr;
    RunSegmentIndex m_segments;
    SampleIndex m_samples;
    Nanoseconds m_now{0};
    Nanoseconds m_duration{0};
    QVector<int> m_selected;
    QVector<int> m_plotted;
};

} // namespace schedlab::ui
