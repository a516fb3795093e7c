// SPDX-License-Identifier: GPL-2.0-or-later
// Turns the user's edits into undoable changes of the Scenario (README.md, the sandbox): an edit of
// the running machine becomes an Action at the current simulated time; a structural edit (add or
// remove a cgroup, HZ) changes the scenario itself. Every change re-simulates through
// SimulationController::reload() up to the current time, so what is shown always equals a fresh
// run of the scenario that Save writes.
//
// Rewind and branch: an edit made after rewinding truncates the future — edits made earlier in
// this session with a later `at` are dropped (actions from the file stay) — and the controller
// keeps the abandoned timeline as a branch.
#pragma once

#include "core/base/time.h"
#include "core/sim/scenariospec.h"
#include "ui/common/background.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

class QUndoStack;

namespace schedlab::ui {

/// @p scenario as it is written to a file: its actions in time order (stable, so actions at
/// the same time keep their order). Session edits are appended after the file's actions, at
/// any time; the simulation schedules them by time and keeps the list order only among equal
/// times, so the sorted file replays exactly what the session ran.
Scenario scenarioForSaving(const Scenario& scenario);

class SimulationController;

class ScenarioEditor : public QObject
{
    Q_OBJECT
public:
    ScenarioEditor(SimulationController* controller, QObject* parent = nullptr);
    /// Tells the check of the last edit (if any) to stop; the GUI does not wait for it.
    ~ScenarioEditor() override;

    /// The scenario edits go to (owned by the caller, outlives the editor or is replaced).
    /// Clears the undo history; the scenario's current actions count as the file's.
    void setScenario(Scenario* scenario);
    Scenario* scenario() const { return m_scenario; }
    QUndoStack* undoStack() const { return m_undo; }

    /// The time an edit made now takes effect: the simulated time (or where a seek is going).
    Nanoseconds editTime() const;

    /// Records @p action at editTime() and re-simulates. False when the simulation refuses it.
    bool submit(Action action, const QString& description);
    /// Structural edits (not actions: they hold from t = 0).
    bool addCgroup(const std::string& path);
    bool removeCgroup(const std::string& path);
    bool setHz(int hz);

    /// Forgets the undo history (the scenario was replaced from outside, e.g. a branch switch).
    void resetHistory();

    /// Number of actions that came with the file (edits are appended after them).
    size_t fileActionCount() const { return m_fileActions; }

    /// What the last scenarioChanged() was: the edit's description, or "undo: …" / "redo: …".
    QString lastChange() const { return m_lastChange; }
    void setLastChange(const QString& text) { m_lastChange = text; }

    /// Applies @p next (undo/redo use it too): replaces the scenario and re-simulates to now.
    bool applyScenario(const Scenario& next);

Q_SIGNALS:
    /// The scenario changed (edit, undo or redo): views rebuild from it.
    void scenarioChanged();
    void editFailed(const QString& message);
    /// The last edit (an action submit()ted at @p atNs) changed no switch from its time on:
    /// @p lines say so and why (core/lesson/nochange.h, whyEditChangedNothing()). Worked out on a
    /// worker thread after the edit; a later edit, undo or redo makes a pending answer stale, and
    /// it is then dropped.
    void editChangedNothing(const QStringList& lines, qint64 atNs);
    /// The check of the last edit is over (after editChangedNothing() when it changed nothing).
    void editChecked(bool changedNothing);

private:
    bool push(const Scenario& next, const QString& description);
    /// Runs @p before and @p after (which adds @p action) off the GUI thread and emits
    /// editChangedNothing() when no switch from action.at on differs.
    void checkEdit(const Scenario& before, const Scenario& after, const Action& action);

    SimulationController* m_controller;
    QUndoStack* m_undo;
    Scenario* m_scenario = nullptr;
    size_t m_fileActions = 0;
    QString m_lastChange;
    /// Bumps the generation (a pending answer is dropped) and cancels the running check.
    void staleCheck();

    /// The check of the last edit; every change makes it stale (its answer is dropped).
    BackgroundJob m_check{this};
};

} // namespace schedlab::ui
