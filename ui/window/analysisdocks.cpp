// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/window/analysisdocks.h"

#include "core/sim/simulation.h"
#include "ui/analysis/compareview.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"
#include "ui/common/format.h"
#include "ui/export/exportmenu.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QDockWidget>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>

#include <algorithm>
#include <utility>

namespace schedlab::ui {

AnalysisDocks::AnalysisDocks(QMainWindow* window, TimelineView* timeline,
    SimulationController* controller, std::function<const Scenario&()> scenario, QMenu* file,
    QAction* beforeQuit, QMenu* simulation, QMenu* view)
    : QObject(window)
    , m_window(window)
    , m_timeline(timeline)
    , m_controller(controller)
    , m_scenario(std::move(scenario))
{
    m_inspector = new InspectorDock(window);
    window->addDockWidget(Qt::RightDockWidgetArea, m_inspector);
    // Narrow at first: the timeline gets most of the window (the table scrolls, the dock widens).
    window->resizeDocks({m_inspector}, {380}, Qt::Horizontal);
    m_findings = new FindingsDock(window);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_findings);
    if (auto* logDock = window->findChild<QDockWidget*>(QStringLiteral("logDock")))
        window->tabifyDockWidget(logDock, m_findings);
    view->addAction(m_inspector->toggleViewAction());
    view->addAction(m_findings->toggleViewAction());

    m_exportMenu = new ExportMenu(m_timeline, m_controller, window);
    file->insertMenu(beforeQuit, m_exportMenu);
    file->insertSeparator(beforeQuit);
    connect(m_exportMenu, &ExportMenu::exported, this,
        [this](const QString& what) { Q_EMIT logged(tr("exported %1").arg(what)); });
    connect(m_exportMenu, &ExportMenu::failed, this,
        [this](const QString& message) { Q_EMIT errorReported(tr("Export failed"), message); });

    simulation->addSeparator();
    simulation->addAction(tr("&Compare with a variant…"), this, [this] {
        CompareView* c = compareView();
        // One task plotted (selected): the view also says when the variant leaves it alone.
        QString task;
        const QVector<int> plotted = m_timeline->plottedTasks();
        if (const Simulation* sim = m_controller->simulation(); sim && plotted.size() == 1
            && plotted[0] >= 0
            && static_cast<size_t>(plotted[0]) < sim->recording().taskNames.size())
            task =
                QString::fromStdString(sim->recording().taskNames[static_cast<size_t>(plotted[0])]);
        c->setTask(task);
        c->show();
        c->raise();
        c->activateWindow();
    });
    simulation->addAction(tr("Add &annotation at cursor…"), this,
        [this] { askAnnotation(std::max(m_timeline->cursorTime(), Nanoseconds{0})); });

    connect(m_timeline, &TimelineView::cursorMoved, this, [this](Nanoseconds t) {
        m_inspector->inspectAt(t);
        m_inspector->show();
    });
    connect(m_timeline, &TimelineView::annotationRequested, this, &AnalysisDocks::askAnnotation);
    connect(m_findings, &FindingsDock::timeActivated, this, &AnalysisDocks::moveCursorTo);
    connect(m_controller, &SimulationController::finished, m_findings, &FindingsDock::refresh);
    // After a seek (run to, rewind, an edit, undo, reset) and a step: the findings of the run
    // up to the time now shown, not of an earlier one.
    connect(m_controller, &SimulationController::seekFinished, m_findings, &FindingsDock::refresh);
    connect(m_controller, &SimulationController::progressed, m_findings, [this] {
        if (!m_controller->isPlaying() && !m_controller->isSeeking())
            m_findings->refresh();
    });
    connect(m_controller, &SimulationController::playingChanged, m_findings, [this](bool playing) {
        if (!playing)
            m_findings->refresh();
    });
}

void AnalysisDocks::askAnnotation(Nanoseconds at)
{
    bool ok = false;
    const QString text = QInputDialog::getText(m_window, tr("Annotation"),
        tr("Text at %1:").arg(formatTime(at)), QLineEdit::Normal, QString(), &ok);
    if (ok && !text.trimmed().isEmpty())
        Q_EMIT annotationRequested(at, text.trimmed());
}

CompareView* AnalysisDocks::compareView()
{
    if (!m_compare) {
        m_compare = new CompareView(m_window);
        m_compare->setWindowFlag(Qt::Window);
        // A variant that changed nothing is said, and explained, in the findings and
        // the inspector too.
        connect(m_compare, &CompareView::nothingChanged, m_findings, &FindingsDock::setNoChange);
        connect(
            m_compare, &CompareView::nothingChanged, m_inspector, [this](const QStringList& lines) {
                m_inspector->setNote(lines.join(QLatin1Char('\n')));
            });
    }
    m_compare->setBase(m_scenario());
    return m_compare;
}

void AnalysisDocks::moveCursorTo(Nanoseconds t)
{
    m_timeline->setCursorTime(t);
    m_timeline->ensureVisible(t);
    m_inspector->inspectAt(t);
}

} // namespace schedlab::ui
