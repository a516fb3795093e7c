// SPDX-License-Identifier: GPL-2.0-or-later
// The main window: menus, the machine tree dock, the timeline, the transport toolbar, the log
// dock and the status bar. It wires views to the SimulationController and holds no simulation
// logic. The current Scenario is owned here; the tree model adapts it.
#pragma once

#include "core/base/time.h"
#include "ui/lessons/lessonhost.h"
#include "ui/window/recentfiles.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>

class QLabel;
class QMenu;
class QPlainTextEdit;
class QTreeView;

namespace schedlab {
struct Scenario;
}

namespace schedlab::ui {

class AnalysisDocks;
class CompareView;
class ExportMenu;
class FileWatcher;
class FindingsDock;
class InspectorDock;
class LessonsPanel;
class FeaturesPanel;
class MachineTreeModel;
class NoticeBar;
class ScenarioEditor;
class SimulationController;
class TimelineView;
class TransportBar;

class MainWindow : public QMainWindow, public LessonHost
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens @p path, or the built-in default scenario when it is empty or fails to load.
    void openInitial(const QString& path);
    /// Loads @p path (a file or a ":/" resource). On failure the errors are reported and the
    /// current scenario stays.
    /// True when the scenario may be replaced: unchanged, or the user saved or discarded it.
    bool okToReplace();
    bool openFile(const QString& path);
    /// Opens a scenario that is not a file of its own (a lesson's), named @p name in the title
    /// and the log; saving it asks for a file. False (errors reported) when it cannot run.
    bool openScenario(const Scenario& scenario, const QString& name) override;
    /// Help > Lessons (ui/lessons/lessonspanel.h), created on first use and shown.
    LessonsPanel* lessons();
    // The lessons panel's host (ui/lessons/lessonhost.h).
    QMainWindow* lessonWindow() override { return this; }
    QDockWidget* lessonPane(LessonPane pane) const override;
    void onScenarioLoaded(QObject* context, std::function<void()> f) override;
    /// Writes the current scenario to @p path, whole or not at all (ui/common/savefile.h). A
    /// device or FIFO is written in place and does not become the document's file.
    bool saveFile(const QString& path);

    /// Dialogs for errors (default). Off: errors only go to errorReported() and the log, for
    /// tests and scripted use.
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogs = enabled; }
    /// Scripted use (--screenshot): never a dialog or question; errors and notices are written
    /// to stderr as well as to the log, and counted.
    void setHeadless(bool headless);
    bool isHeadless() const { return m_headless; }
    int errorCount() const { return m_errorCount; }

    const Scenario& scenario() const override { return *m_scenario; }
    QString currentFile() const { return m_path; }
    MachineTreeModel* machineTreeModel() const override { return m_treeModel; }
    QTreeView* machineTree() const override { return m_tree; }
    SimulationController* controller() const override { return m_controller; }
    TimelineView* timeline() const override { return m_timeline; }
    ScenarioEditor* editor() const { return m_editor; }
    FeaturesPanel* featuresPanel() const { return m_features; }
    QString logText() const;
    QString statusText() const; ///< the permanent status bar fields, " | "-separated
    RecentFiles& recentFiles() { return m_recent; }
    // Analysis and sharing (AnalysisDocks).
    InspectorDock* inspector() const override;
    FindingsDock* findings() const;
    ExportMenu* exportMenu() const;
    /// The bar above the timeline that tells about the file changing on disk.
    NoticeBar* fileNotice() const { return m_fileNotice; }
    /// The bar above the timeline that tells why a run stopped early.
    NoticeBar* runNotice() const { return m_runNotice; }
    /// The scenario's title and description above the timeline.
    QLabel* infoHeader() const { return m_infoHeader; }
    FileWatcher* fileWatcher() const { return m_watcher; }
    /// The compare window (created on first use).
    CompareView* compareView();
    /// Adds a scenario annotation (saved with the scenario) and draws it.
    void addAnnotation(Nanoseconds at, const QString& text);
    /// Moves the timeline cursor to @p t, scrolls it into view and inspects that time.
    void moveCursorTo(Nanoseconds t);

Q_SIGNALS:
    void errorReported(const QString& title, const QString& message);
    void scenarioLoaded(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createDocks();
    void createStatusBar();
    // Editing the machine (machineediting.cpp): the features dock, the Edit menu, the tree's edit
    // and drag set-up.
    void createEditing();
    void createEditActions();
    // View preferences (viewoptions.cpp): follow the present, colour lanes by cgroup.
    void createViewOptions();
    void applyLaneColouring(bool byCgroup);
    void onScenarioEdited();
    void showTreeMenu(const QPoint& pos);
    void rebuildBranchMenu();
    void open();
    void importRtApp(); // File > Import rt-app workload: rt-app JSON → a saved scenario, opened
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
    void refreshAnnotations();
    void setKernelChoice(const QString& choice, const QString& value);
    /// notices.cpp: the file changed on disk, and runs stopped by a resource guard.
    void createNotices(QWidget* central);
    void onFileChangedOnDisk(const QString& path);
    void onFileRemovedFromDisk(const QString& path);
    void onStoppedEarly(const QString& reason);

    std::unique_ptr<Scenario> m_scenario;
    QString m_path;
    bool m_errorDialogs = true;
    bool m_headless = false;
    int m_errorCount = 0;

    SimulationController* m_controller;
    MachineTreeModel* m_treeModel;
    QTreeView* m_tree = nullptr;
    QDockWidget* m_machineDock = nullptr;
    QDockWidget* m_logDock = nullptr;
    QDockWidget* m_featuresDock = nullptr;
    TimelineView* m_timeline;
    QPlainTextEdit* m_log = nullptr;
    TransportBar* m_transport = nullptr;
    QLabel* m_nameLabel = nullptr;
    QLabel* m_profileLabel = nullptr;
    QLabel* m_timeLabel = nullptr;
    QLabel* m_stateLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_branchMenu = nullptr;
    ScenarioEditor* m_editor = nullptr;
    FeaturesPanel* m_features = nullptr;
    QStringList m_keptSelection; ///< selected task/cgroup names across model resets
    RecentFiles m_recent;
    AnalysisDocks* m_analysis = nullptr; ///< inspector, findings, compare, export
    FileWatcher* m_watcher = nullptr;
    NoticeBar* m_fileNotice = nullptr;
    QLabel* m_infoHeader = nullptr;
    NoticeBar* m_runNotice = nullptr;
    LessonsPanel* m_lessons = nullptr;
};

} // namespace schedlab::ui
