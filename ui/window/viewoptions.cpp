// SPDX-License-Identifier: GPL-2.0-or-later
// MainWindow: the View menu's preferences, kept with QSettings: following the present while
// playing, and colouring the CPU lanes by cgroup instead of by task.
#include "core/sim/simulation.h"
#include "ui/run/simulationcontroller.h"
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
    struct Move
    {
        Nanoseconds at;
        std::string cgroup;
    };
    auto initial = std::make_shared<std::map<std::string, std::string>>();
    auto moves = std::make_shared<std::map<std::string, std::vector<Move>>>();
    const Scenario& s = m_controller->scenario();
    auto addSpec = [&](const TaskSpec& t) {
        const std::string cgroup = t.cgroup.value_or("/");
        if (t.count)
            for (int k = 1; k <= *t.count; ++k)
                (*initial)[t.name + "-" + std::to_string(k)] = cgroup;
        else
            (*initial)[t.name] = cgroup;
    };
    for (const TaskSpec& t : s.tasks)
        addSpec(t);
    std::vector<const Action*> ordered;
    for (const Action& a : s.actions) {
        if (a.kind == Action::Kind::Spawn && !a.spawn.empty())
            addSpec(a.spawn.front());
        if (a.kind == Action::Kind::Move)
            ordered.push_back(&a);
    }
    std::stable_sort(ordered.begin(), ordered.end(),
        [](const Action* a, const Action* b) { return a->at < b->at; });
    for (const Action* a : ordered)
        (*moves)[a->task].push_back({a->at, a->cgroup});
    const SimulationController* controller = m_controller;
    m_timeline->setGroupColouring([controller, initial, moves](int task, Nanoseconds t) {
        const Simulation* sim = controller->simulation();
        if (!sim || task < 0 || static_cast<size_t>(task) >= sim->recording().taskNames.size())
            return -1;
        const std::string& name = sim->recording().taskNames[static_cast<size_t>(task)];
        const auto it = initial->find(name);
        if (it == initial->end())
            return -1;
        std::string path = it->second;
        if (const auto m = moves->find(name); m != moves->end())
            for (const Move& move : m->second)
                if (move.at <= t)
                    path = move.cgroup;
        const auto& paths = sim->recording().groupPaths;
        const auto g = std::find(paths.begin(), paths.end(), path);
        return g == paths.end() ? -1 : static_cast<int>(g - paths.begin());
    });
}

} // namespace schedlab::ui
