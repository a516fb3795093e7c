// SPDX-License-Identifier: GPL-2.0-or-later
// MainWindow: analysing and sharing a run: the inspector and findings docks, the compare window,
// File > Export, and user annotations.
#include "core/sim/simulation.h"
#include "ui/analysis/compareview.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"
#include "ui/common/format.h"
#include "ui/export/exportmenu.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QDockWidget>
#include <QInputDialog>
#include <QMenu>
#include <QPlainTextEdit>
#include <QStatusBar>

#include <algorithm>

namespace schedlab::ui {

void MainWindow::createAnalysisDocks(
    QMenu* file, QAction* beforeQuit, QMenu* simulation, QMenu* view)
{
    m_inspector = new InspectorDock(this);
    addDockWidget(Qt::RightDockWidgetArea, m_inspector);
    // Narrow at first: the timeline gets most of the window (the table scrolls, the dock widens).
    resizeDocks({m_inspector}, {380}, Qt::Horizontal);
    m_findings = new FindingsDock(this);
    addDockWidget(Qt::BottomDockWidgetArea, m_findings);
    if (auto* logDock = findChild<QDockWidget*>(QStringLiteral("logDock")))
        tabifyDockWidget(logDock, m_findings);
    view->addAction(m_inspector->toggleViewAction());
    view->addAction(m_findings->toggleViewAction());

    m_exportMenu = new ExportMenu(m_timeline, m_controller, this);
    file->insertMenu(beforeQuit, m_exportMenu);
    file->insertSeparator(beforeQuit);
    connect(m_exportMenu, &ExportMenu::exported, this,
        [this](const QString& what) { log(tr("exported %1").arg(what)); });
    connect(m_exportMenu, &ExportMenu::failed, this,
        [this](const QString& message) { reportError(tr("Export failed"), message); });

    simulation->addSeparator();
    simulation->addAction(tr("&Compare with a variant…"), this, [this] {
        CompareView* c = compareView();
        c->show();
        c->raise();
        c->activateWindow();
    });
    simulation->addAction(tr("Add &annotation at cursor…"), this, [this] {
        const Nanoseconds at = std::max(m_timeline->cursorTime(), Nanoseconds{0});
        bool ok = false;
        const QString text = QInputDialog::getText(this, tr("Annotation"),
            tr("Text at %1:").arg(formatTime(at)), QLineEdit::Normal, QString(), &ok);
        if (ok && !text.trimmed().isEmpty())
            addAnnotation(at, text.trimmed());
    });

    connect(m_timeline, &TimelineView::cursorMoved, this, [this](Nanoseconds t) {
        m_inspector->inspectAt(t);
        m_inspector->show();
    });
    connect(m_timeline, &TimelineView::annotationRequested, this, [this](Nanoseconds t) {
        bool ok = false;
        const QString text = QInputDialog::getText(this, tr("Annotation"),
            tr("Text at %1:").arg(formatTime(t)), QLineEdit::Normal, QString(), &ok);
        if (ok && !text.trimmed().isEmpty())
            addAnnotation(t, text.trimmed());
    });
    connect(m_findings, &FindingsDock::timeActivated, this, &MainWindow::moveCursorTo);
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

CompareView* MainWindow::compareView()
{
    if (!m_compare) {
        m_compare = new CompareView(this);
        m_compare->setWindowFlag(Qt::Window);
    }
    m_compare->setBase(*m_scenario);
    return m_compare;
}

void MainWindow::moveCursorTo(Nanoseconds t)
{
    m_timeline->setCursorTime(t);
    m_timeline->ensureVisible(t);
    m_inspector->inspectAt(t);
}

void MainWindow::addAnnotation(Nanoseconds at, const QString& text)
{
    Annotation a;
    a.at = at;
    a.text = text.toStdString();
    auto& list = m_scenario->annotations;
    list.insert(std::upper_bound(list.begin(), list.end(), a,
                    [](const Annotation& x, const Annotation& y) { return x.at < y.at; }),
        a);
    setWindowModified(true);
    refreshAnnotations();
    log(tr("annotation at %1: %2").arg(formatTime(at), text));
}

void MainWindow::refreshAnnotations()
{
    QVector<QPair<Nanoseconds, QString>> annotations;
    for (const Annotation& a : m_scenario->annotations)
        annotations.append({a.at, toQString(a.text)});
    m_timeline->setAnnotations(annotations);
}

} // namespace schedlab::ui
