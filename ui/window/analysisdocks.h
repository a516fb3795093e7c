// SPDX-License-Identifier: GPL-2.0-or-later
// Analysing and sharing a run, for the main window: the inspector and findings docks, the compare
// window, File > Export, and the menu entries and timeline gestures that add annotations. It
// follows the timeline's cursor and the controller's runs; what it cannot do itself (log a line,
// report an error, store an annotation in the scenario) it asks the window for by signal.
#pragma once

#include "core/base/time.h"

#include <QObject>

#include <functional>

class QAction;
class QMainWindow;
class QMenu;

namespace schedlab {
struct Scenario;
}

namespace schedlab::ui {

class CompareView;
class ExportMenu;
class FindingsDock;
class InspectorDock;
class SimulationController;
class TimelineView;

class AnalysisDocks : public QObject
{
    Q_OBJECT
public:
    /// Adds the docks to @p window and their entries to its menus: Export into @p file before
    /// @p beforeQuit, compare and annotate into @p simulation, the docks' toggles into @p view.
    /// @p scenario is the window's current scenario (the compare window's base).
    AnalysisDocks(QMainWindow* window, TimelineView* timeline, SimulationController* controller,
        std::function<const Scenario&()> scenario, QMenu* file, QAction* beforeQuit,
        QMenu* simulation, QMenu* view);

    InspectorDock* inspector() const { return m_inspector; }
    FindingsDock* findings() const { return m_findings; }
    ExportMenu* exportMenu() const { return m_exportMenu; }
    /// The compare window (created on first use), its base set to the current scenario.
    CompareView* compareView();
    /// Moves the timeline cursor to @p t, scrolls it into view and inspects that time.
    void moveCursorTo(Nanoseconds t);

Q_SIGNALS:
    void logged(const QString& line);
    void errorReported(const QString& title, const QString& message);
    /// The user asked for an annotation with @p text at @p at.
    void annotationRequested(Nanoseconds at, const QString& text);

private:
    void askAnnotation(Nanoseconds at);

    QMainWindow* m_window;
    TimelineView* m_timeline;
    SimulationController* m_controller;
    std::function<const Scenario&()> m_scenario;
    InspectorDock* m_inspector = nullptr;
    FindingsDock* m_findings = nullptr;
    ExportMenu* m_exportMenu = nullptr;
    CompareView* m_compare = nullptr;
};

} // namespace schedlab::ui
