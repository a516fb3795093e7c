// SPDX-License-Identifier: GPL-2.0-or-later
// MainWindow: editing the machine (the sandbox, README.md): the machine tree's edits and drag and
// drop, the features and profile dock, undo/redo, adding and removing cgroups and tasks, rewind
// branches.
#include "core/scenario/jsonvalues.h"
#include "core/sim/simulation.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"
#include "ui/common/format.h"
#include "ui/machine/featurespanel.h"
#include "ui/machine/machinetreemodel.h"
#include "ui/machine/scenarioeditor.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QDockWidget>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>
#include <QTreeView>
#include <QUndoStack>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

namespace schedlab::ui {

void MainWindow::createEditing()
{
    m_editor = new ScenarioEditor(m_controller, this);

    m_tree->setDragEnabled(true);
    m_tree->setAcceptDrops(true);
    m_tree->setDropIndicatorShown(true);
    m_tree->setDragDropMode(QAbstractItemView::DragDrop);
    m_tree->setDefaultDropAction(Qt::MoveAction);
    m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
        | QAbstractItemView::SelectedClicked);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setToolTip(tr("Drag tasks onto a cgroup to move them; double-click cpu.weight, "
                          "nice, CPUs or cpu.max to edit. Edits take effect at the current "
                          "simulated time and can be undone."));
    connect(m_tree, &QWidget::customContextMenuRequested, this, &MainWindow::showTreeMenu);

    connect(m_treeModel, &MachineTreeModel::actionRequested, this,
        [this](const Action& action, const QString& description) {
            m_editor->submit(action, description);
        });
    connect(m_treeModel, &MachineTreeModel::editRejected, this, [this](const QString& reason) {
        log(tr("edit refused: %1").arg(reason));
        statusBar()->showMessage(reason, 8000);
    });
    // Keep the selection (by name) across the resets that edits and moves cause.
    connect(m_treeModel, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        m_keptSelection.clear();
        for (const QModelIndex& index : m_tree->selectionModel()->selectedRows()) {
            const QString task = index.data(MachineTreeModel::TaskNameRole).toString();
            m_keptSelection << (task.isEmpty() ? QStringLiteral("cgroup:")
                        + index.data(MachineTreeModel::CgroupPathRole).toString()
                                               : QStringLiteral("task:") + task);
        }
    });
    connect(m_treeModel, &QAbstractItemModel::modelReset, this, [this] {
        const QSignalBlocker block(m_tree->selectionModel());
        for (const QString& key : std::as_const(m_keptSelection)) {
            const QModelIndex index = key.startsWith(QStringLiteral("task:"))
                ? m_treeModel->indexForTask(key.mid(5))
                : m_treeModel->indexForCgroup(key.mid(7));
            if (index.isValid())
                m_tree->selectionModel()->select(
                    index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
    });

    connect(m_editor, &ScenarioEditor::scenarioChanged, this, &MainWindow::onScenarioEdited);
    // A live edit that changed nothing says so, and why: the findings and the
    // inspector get the explanation, the status bar its first line.
    connect(m_editor, &ScenarioEditor::editChangedNothing, this,
        [this](const QStringList& lines, qint64 at) {
            findings()->setEditNoChange(lines, Nanoseconds{at});
            inspector()->setNote(lines.join(QLatin1Char('\n')));
            log(lines.join(QLatin1Char(' ')));
            statusBar()->showMessage(lines.value(0), 15000);
        });
    connect(m_editor, &ScenarioEditor::editFailed, this,
        [this](const QString& message) { reportError(tr("Edit refused"), message); });
    connect(
        m_controller, &SimulationController::branchesChanged, this, &MainWindow::rebuildBranchMenu);
    connect(m_timeline, &TimelineView::timeRequested, m_controller, &SimulationController::seek);

    m_features = new FeaturesPanel;
    connect(m_features, &FeaturesPanel::actionRequested, this,
        [this](const Action& action, const QString& description) {
            m_editor->submit(action, description);
        });
    connect(m_features, &FeaturesPanel::hzRequested, m_editor, &ScenarioEditor::setHz);
    auto* dock = m_featuresDock = new QDockWidget(tr("Features and profile"), this);
    dock->setObjectName(QStringLiteral("featuresDock"));
    dock->setWidget(m_features);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
}

void MainWindow::createEditActions()
{
    auto* edit = new QMenu(tr("&Edit"), this);
    // Before "Simulation": File, Edit, Simulation, View, Help.
    const QList<QAction*> menus = menuBar()->actions();
    menuBar()->insertMenu(menus.size() > 1 ? menus[1] : nullptr, edit);
    QAction* undo = m_editor->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setObjectName(QStringLiteral("actionUndo"));
    QAction* redo = m_editor->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setObjectName(QStringLiteral("actionRedo"));
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Add &cgroup…"), this, [this] {
        bool ok = false;
        const QString path = QInputDialog::getText(this, tr("Add cgroup"),
            tr("Absolute path (e.g. /batch):"), QLineEdit::Normal, QStringLiteral("/"), &ok);
        if (ok)
            m_editor->addCgroup(path.trimmed().toStdString());
    });
    edit->addAction(tr("Add &task…"), this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Add task"),
            tr("Name of a new CPU-bound task:"), QLineEdit::Normal, QStringLiteral("spawned"), &ok);
        if (!ok || name.trimmed().isEmpty())
            return;
        QString cgroup = QStringLiteral("/");
        for (const QModelIndex& index : m_tree->selectionModel()->selectedRows())
            cgroup = index.data(MachineTreeModel::CgroupPathRole).toString();
        Action spawn;
        spawn.kind = Action::Kind::Spawn;
        TaskSpec task;
        task.name = name.trimmed().toStdString();
        task.cgroup = cgroup.toStdString();
        Op run;
        run.kind = Op::Kind::Run;
        run.duration = DurationSpec::forEver();
        task.program = {run};
        spawn.spawn = {task};
        m_editor->submit(spawn, tr("spawn %1 in %2").arg(name.trimmed(), cgroup));
    });
    edit->addAction(tr("&Remove selected"), this,
            [this] {
                for (const QModelIndex& index : m_tree->selectionModel()->selectedRows()) {
                    const QString task = index.data(MachineTreeModel::TaskNameRole).toString();
                    if (!task.isEmpty()) {
                        Action kill;
                        kill.kind = Action::Kind::Kill;
                        kill.task = task.toStdString();
                        m_editor->submit(kill, tr("kill %1").arg(task));
                    } else {
                        m_editor->removeCgroup(
                            index.data(MachineTreeModel::CgroupPathRole).toString().toStdString());
                    }
                    break; // the tree is rebuilt after each edit: one at a time
                }
            })
        ->setShortcut(QKeySequence::Delete);

    m_branchMenu = menuBar()->addMenu(tr("&Branches"));
    m_branchMenu->setToolTipsVisible(true);
    rebuildBranchMenu();
}

void MainWindow::showTreeMenu(const QPoint& pos)
{
    QMenu menu(this);
    for (QAction* a : menuBar()->actions())
        if (a->text() == tr("&Edit"))
            menu.addActions(a->menu()->actions());
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

void MainWindow::onScenarioEdited()
{
    setWindowModified(true);
    m_treeModel->setScenario(m_scenario.get());
    m_treeModel->setTime(m_controller->seekTarget().value_or(m_controller->now()));
    // A move applied live has no reset: the timeline learns it here (its lines break there).
    m_timeline->setTaskCgroups(
        taskCgroups(m_controller->scenario()), taskMoves(m_controller->scenario()));
    const QString text = m_editor->lastChange();
    log(tr("t = %1: %2").arg(formatTime(m_editor->editTime()), text.isEmpty() ? tr("edit") : text));
    updateStatus();
}

void MainWindow::rebuildBranchMenu()
{
    if (!m_branchMenu)
        return;
    m_branchMenu->clear();
    const auto& branches = m_controller->branches();
    if (branches.empty()) {
        m_branchMenu->addAction(tr("(none: an edit after rewinding keeps the old timeline here)"))
            ->setEnabled(false);
        return;
    }
    for (size_t i = 0; i < branches.size(); ++i) {
        QAction* a = m_branchMenu->addAction(branches[i].label, this, [this, i] {
            // The branch entered (after the switch, slot i holds the one left).
            const QString entered = m_controller->branches()[i].label;
            if (!m_controller->switchToBranch(i))
                return;
            // The branch's scenario becomes the document; its edits stay as its actions.
            *m_scenario = m_controller->scenario();
            m_editor->resetHistory();
            m_treeModel->setScenario(m_scenario.get());
            m_treeModel->setTime(m_controller->now());
            setWindowModified(true);
            log(tr("switched to %1").arg(entered));
        });
        a->setToolTip(tr("Switch to this earlier timeline (%n action(s)); the current one is "
                         "kept in its place",
            nullptr, static_cast<int>(branches[i].scenario.actions.size())));
    }
}

} // namespace schedlab::ui
