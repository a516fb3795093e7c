// SPDX-License-Identifier: GPL-2.0-or-later
#include "transportbar.h"

#include "simulationcontroller.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QStyle>

namespace schedlab::ui {

TransportBar::TransportBar(SimulationController* controller, QWidget* parent)
    : QToolBar(tr("Transport"), parent)
    , m_controller(controller)
    , m_play(addTransportAction(tr("Play"), QStyle::SP_MediaPlay, Qt::Key_F5,
          tr("Run the simulation at the chosen speed, or pause it")))
    , m_step(addTransportAction(
          tr("Step"), QStyle::SP_MediaSkipForward, Qt::Key_F10, tr("Run one simulation event")))
    , m_runToEnd(addTransportAction(tr("Run to end"), QStyle::SP_MediaSeekForward,
          QKeySequence(Qt::CTRL | Qt::Key_F5),
          tr("Run to the end of the scenario as fast as possible")))
    , m_reset(addTransportAction(tr("Reset"), QStyle::SP_BrowserReload,
          QKeySequence(Qt::SHIFT | Qt::Key_F5), tr("Back to time 0 with the same scenario")))
    , m_speed(new QComboBox(this))
{
    setObjectName(QStringLiteral("transportToolBar"));
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    connect(m_play, &QAction::triggered, controller, &SimulationController::togglePlay);
    connect(m_step, &QAction::triggered, controller, &SimulationController::step);
    connect(m_runToEnd, &QAction::triggered, controller, &SimulationController::runToEnd);
    connect(m_reset, &QAction::triggered, controller, &SimulationController::reset);

    addSeparator();
    addWidget(new QLabel(tr(" Speed "), this));
    m_speed->setToolTip(tr("Simulated time per second of wall-clock time while playing"));
    for (const double s : {0.001, 0.01, 0.1, 1.0, 10.0, 100.0})
        m_speed->addItem(QString::number(s) + QStringLiteral("×"), s);
    connect(m_speed, &QComboBox::currentIndexChanged, this,
        [this] { m_controller->setSpeed(speed()); });
    addWidget(m_speed);

    connect(controller, &SimulationController::playingChanged, this, &TransportBar::updateActions);
    connect(controller, &SimulationController::progressed, this, &TransportBar::updateActions);
    connect(controller, &SimulationController::simulationReset, this, &TransportBar::updateActions);
    updateActions();
}

QAction* TransportBar::addTransportAction(
    const QString& name, int icon, const QKeySequence& key, const QString& tip)
{
    auto* action =
        new QAction(style()->standardIcon(static_cast<QStyle::StandardPixmap>(icon)), name, this);
    action->setObjectName(QStringLiteral("action") + QString(name).remove(QLatin1Char(' ')));
    action->setShortcut(key);
    action->setToolTip(
        tip + QStringLiteral(" (") + key.toString(QKeySequence::NativeText) + QLatin1Char(')'));
    addAction(action);
    return action;
}

QList<QAction*> TransportBar::transportActions() const
{
    return {m_play, m_step, m_runToEnd, m_reset};
}

double TransportBar::speed() const
{
    return m_speed->currentData().toDouble();
}

void TransportBar::chooseSpeedFor(Nanoseconds duration)
{
    const double seconds = static_cast<double>(duration.count()) / 1e9;
    int chosen = 0;
    for (int i = 0; i < m_speed->count(); ++i)
        if (seconds / m_speed->itemData(i).toDouble() >= 10.0)
            chosen = i;
    m_speed->setCurrentIndex(chosen);
    m_controller->setSpeed(speed());
}

void TransportBar::updateActions()
{
    const bool playing = m_controller->isPlaying();
    m_play->setText(playing ? tr("Pause") : tr("Play"));
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    const bool loaded = m_controller->simulation() != nullptr;
    const bool canRun = loaded && !m_controller->isFinished();
    m_play->setEnabled(canRun || playing);
    m_step->setEnabled(canRun);
    m_runToEnd->setEnabled(canRun);
    m_reset->setEnabled(loaded);
}

} // namespace schedlab::ui
