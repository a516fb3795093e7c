// SPDX-License-Identifier: GPL-2.0-or-later
// File ▸ Open trace (docs/real-kernels.md): a real kernel's scheduler trace, imported by
// core/import, in a window of its own: the CPU lanes of the timeline, the per-task metrics and
// what the import skipped. Quantities a trace does not carry (vruntime, deadline, lag) are shown
// as absent, not as zero. Re-simulate derives a scenario from the trace (core/import/replay.h),
// opens it in the model's window and scores the model's run against the trace.
#pragma once

#include "core/import/ftrace.h"
#include "ui/common/background.h"

#include <QMainWindow>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QMenu;
class QLabel;
class QTableWidget;

namespace schedlab {
struct Scenario;
}

namespace schedlab::ui {

class TimelineView;

class TraceWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// Opens a derived scenario in the model's window (MainWindow::openScenario); false when it
    /// could not be opened.
    using ScenarioOpener = std::function<bool(const Scenario&, const QString& name)>;

    /// Imports @p path; nullptr with the importer's messages in @p error when it cannot be used.
    static TraceWindow* open(const QString& path, QWidget* parent, QString* error);

    /// Where Re-simulate opens its scenario; without one, Re-simulate only scores the model.
    void setScenarioOpener(ScenarioOpener opener) { m_opener = std::move(opener); }
    /// Derives the scenario with the chosen profile and wake-up form, opens it, and runs the
    /// model in the background to score it against the trace (fidelityLabel()).
    void resimulate();
    bool resimulating() const { return m_job.busy(); }
    QAction* resimulateAction() const { return m_resimulate; }
    QComboBox* profileBox() const { return m_profile; }
    QComboBox* wakeupsBox() const { return m_wakeups; }
    QLabel* fidelityLabel() const { return m_fidelity; }

    const TraceImport& traceImport() const { return *m_import; }
    TimelineView* timeline() const { return m_timeline; }
    QTableWidget* table() const { return m_table; }
    QLabel* absentNote() const { return m_absent; }

private:
    TraceWindow(std::unique_ptr<TraceImport> import, const QString& path, QWidget* parent);

    std::unique_ptr<TraceImport> m_import; ///< owns the recording the timeline shows
    TimelineView* m_timeline = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_absent = nullptr;
    QAction* m_resimulate = nullptr;
    QComboBox* m_profile = nullptr;
    QComboBox* m_wakeups = nullptr;
    QLabel* m_fidelity = nullptr;
    ScenarioOpener m_opener;
    BackgroundJob m_job{this};
};

/// Adds "Open &trace…" to @p fileMenu: a file dialog, then a TraceWindow (or a message box)
/// whose Re-simulate opens its scenario through @p opener.
void addOpenTraceAction(QMenu* fileMenu, QWidget* parent, TraceWindow::ScenarioOpener opener = {});

} // namespace schedlab::ui
