// SPDX-License-Identifier: GPL-2.0-or-later
// What the lessons panel needs of the window it teaches in: the run's views and controller, the
// docks a step may bring forward, and a way to open the lesson's scenario. The main window
// implements it (ui/window/mainwindow.h); ui/lessons never includes ui/window.
#pragma once

#include <QString>

#include <functional>

class QDockWidget;
class QMainWindow;
class QObject;
class QTreeView;

namespace schedlab {
struct Scenario;
}

namespace schedlab::ui {

class InspectorDock;
class MachineTreeModel;
class SimulationController;
class TimelineView;

/// The docks a lesson step names in its "panes" (docs/lessons.md).
enum class LessonPane { Inspector, MachineTree, Log, Features, Findings };

class LessonHost
{
public:
    virtual ~LessonHost() = default;

    /// The window the panel docks in (its dock areas are sized around the panel).
    virtual QMainWindow* lessonWindow() = 0;
    virtual SimulationController* controller() const = 0;
    virtual TimelineView* timeline() const = 0;
    virtual QTreeView* machineTree() const = 0;
    virtual MachineTreeModel* machineTreeModel() const = 0;
    virtual InspectorDock* inspector() const = 0;
    /// The dock showing @p pane; null when the window has none.
    virtual QDockWidget* lessonPane(LessonPane pane) const = 0;
    /// The scenario the window runs.
    virtual const Scenario& scenario() const = 0;
    /// Opens a scenario that is not a file of its own, named @p name. False (errors reported by
    /// the window) when it cannot run.
    virtual bool openScenario(const Scenario& scenario, const QString& name) = 0;
    /// Calls @p f (in @p context's thread, while it exists) whenever the window loads another
    /// scenario.
    virtual void onScenarioLoaded(QObject* context, std::function<void()> f) = 0;

protected:
    LessonHost() = default;
    LessonHost(const LessonHost&) = default;
    LessonHost& operator=(const LessonHost&) = default;
};

} // namespace schedlab::ui
