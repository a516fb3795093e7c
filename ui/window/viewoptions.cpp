// SPDX-License-Identifier: GPL-2.0-or-later
// MainWindow: the View menu's preferences, kept with QSettings: following the present while
// playing, and colouring the CPU lanes by cgroup instead of by task.
#include "core/sim/simulation.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/model/taskcgroups.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace schedlab::ui {

void MainWindow::createViewOptions()
{
    QMenu* view = nullptr;
    for (QAction* a : menuBar()->actions())
        if (a->text() == tr("&View"))
            view = a->menu();
    if (view) {
        QSettings settings;
        view->addSeparator();
        QAction* follow = view->addAction(tr("&Follow the present while playing"));
        follow->setCheckable(true);
        follow->setChecked(settings.value(QStringLiteral("view/follow"), true).toBool());
        m_timeline->setFollow(follow->isChecked());
        connect(follow, &QAction::toggled, this, [this](bool on) {
            m_timeline->setFollow(on);
            QSettings().setValue(QStringLiteral("view/follow"), on);
        });
        QAction* byGroup = view->addAction(tr("Colour lanes by &cgroup"));
        byGroup->setObjectName(QStringLiteral("actionColourByCgroup"));
        byGroup->setCheckable(true);
        byGroup->setToolTip(tr("Colour each run by the cgroup its task was in at that time "
                               "(scenario and edit moves), instead of by task"));
        connect(byGroup, &QAction::toggled, this, [this](bool on) {
            QSettings().setValue(QStringLiteral("view/colourByCgroup"), on);
            applyLaneColouring(on);
        });
        byGroup->setChecked(settings.value(QStringLiteral("view/colourByCgroup"), false).toBool());
        connect(m_controller, &SimulationController::simulationReset, this,
            [this, byGroup] { applyLaneColouring(byGroup->isChecked()); });
    }
}

void MainWindow::applyLaneColouring(bool byCgroup)
{
    if (!byCgroup) {
        m_timeline->setGroupColouring({});
        return;
    }
    // The cgroup of a task at time t: its spec's cgroup, then the move actions up to t (in the
    // order the simulation applies them). Tasks not in the scenario (forked children) are
    // unknown (-1). Rebuilt on every simulation reset, so edits are included.
    const TaskCgroups cgroupOf = taskCgroups(m_controller->scenario());
    const SimulationController* controller = m_controller;
    m_timeline->setGroupColouring([controller, cgroupOf](int task, Nanoseconds t) {
        const Simulation* sim = controller->simulation();
        return sim ? cgroupOf(sim->recording(), task, t) : -1;
    });
}

} // namespace schedlab::ui
