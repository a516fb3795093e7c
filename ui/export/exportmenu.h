// SPDX-License-Identifier: GPL-2.0-or-later
// File > Export: the visible time window as PNG/SVG/PDF (ui/export/capture.h), a Perfetto trace and
// CSV of the visible window (core/record/streamexport.h, written on a worker thread in bounded
// memory: ui/export/exportjob.h), and the metrics JSON of the run so far.
#pragma once

#include <QMenu>

#include <functional>

namespace schedlab {
class Simulation;
}

namespace schedlab::ui {

struct ExportProgress;

class SimulationController;
class TimelineView;

class ExportMenu : public QMenu
{
    Q_OBJECT
public:
    ExportMenu(TimelineView* timeline, SimulationController* controller, QWidget* parent);

    // The actions, also callable with a path (tests, scripting). False with @p error on failure.
    bool captureVisible(
        const QString& path, QSize size, int dpi, const QString& title, QString* error = nullptr);
    /// The trace and CSV are written on a worker thread in bounded memory (a progress dialog
    /// with Cancel meanwhile; the run is paused), whole or not at all (ui/common/savefile.h).
    bool exportTrace(const QString& path, QString* error = nullptr);
    /// Writes @p path (samples of the plotted tasks) and <path without .csv>-slices.csv.
    bool exportCsv(const QString& path, QString* error = nullptr);
    bool exportMetrics(const QString& path, QString* error = nullptr);

Q_SIGNALS:
    void exported(const QString& what);
    void failed(const QString& message);

private:
    void askCapture();
    bool runJob(const QString& label,
        const std::function<QString(const Simulation&, ExportProgress&)>& job, QString* error);
    QString askPath(const QString& title, const QString& filter, const QString& suffix);

    TimelineView* m_timeline;
    SimulationController* m_controller;
};

} // namespace schedlab::ui
