// SPDX-License-Identifier: GPL-2.0-or-later
// The main window: menus, the machine tree dock, the timeline, the transport toolbar, the log
// dock and the status bar. It wires views to the SimulationController and holds no simulation
// logic. The current Scenario is owned here; the tree model adapts it.
#pragma once

#include "ui/recentfiles.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QMenu;
class QPlainTextEdit;
class QTreeView;

namespace schedlab {
struct Scenario;
}

namespace schedlab::ui {

class MachineTreeModel;
class SimulationController;
class TimelineView;
class TransportBar;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens @p path, or the built-in default scenario when it is empty or fails to load.
    void openInitial(const QString& path);
    /// Loads @p path (a file or a ":/" resource). On failure the errors are reported and the
    /// current scenario stays.
    bool openFile(const QString& path);
    /// Writes the current scenario to @p path atomically (QSaveFile).
    bool saveFile(const QString& path);

    /// Dialogs for errors (default). Off: errors only go to errorReported() and the log, for
    /// tests and scripted use.
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogs = enabled; }

    const Scenario& scenario() const { return *m_scenario; }
    QString currentFile() const { return m_path; }
    MachineTreeModel* machineTreeModel() const { return m_treeModel; }
    QTreeView* machineTree() const { return m_tree; }
    SimulationController* controller() const { return m_controller; }
    TimelineView* timeline() const { return m_timeline; }
    QString logText() const;
    QString statusText() const; ///< the permanent status bar fields, " | "-separated
    RecentFiles& recentFiles() { return m_recent; }

Q_SIGNALS:
    void errorReported(const QString& title, const QString& message);
    void scenarioLoaded(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createDocks();
    void createStatusBar();
    void open();
    bool save();
    bool saveAs();
    void about();
    void rebuildRecentMenu();
    void reportError(const QString& title, const QString& message);
    void log(const QString& line);
    void onSimulationReset();
    void onProgress();
    void onSelectionChanged();
    void updateStatus();
    void setKernelChoice(const QString& choice, const QString& value);

    std::unique_ptr<Scenario> m_scenario;
    QString m_path;
    bool m_errorDialogs = true;

    SimulationController* m_controller;
    MachineTreeModel* m_treeModel;
    QTreeView* m_tree = nullptr;
    TimelineView* m_timeline;
    QPlainTextEdit* m_log = nullptr;
    TransportBar* m_transport = nullptr;
    QLabel* m_nameLabel = nullptr;
    QLabel* m_profileLabel = nullptr;
    QLabel* m_timeLabel = nullptr;
    QLabel* m_stateLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    RecentFiles m_recent;
};

} // namespace schedlab::ui
