// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/run/transportbar.h"

#include "ui/run/simulationcontroller.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QInputDialog>
#include <QLabel>
#include <QStyle>

#include <algorithm>
#include <cmath>

namespace schedlab::ui {

/// The toolbar icons live in resources/icons (SVG, drawn in a mid-tone that reads on light and
/// dark palettes); the style's standard icon stands in if one is missing.
QIcon transportIcon(const QString& name)
{
    const QString path = QStringLiteral(":/icons/") + name + QStringLiteral(".svg");
    if (QFile::exists(path))
        return QIcon(path);
    return {};
}

TransportBar::TransportBar(SimulationController* controller, QWidget* parent)
    : QToolBar(tr("Transport"), parent)
    , m_controller(controller)
    , m_play(addTransportAction(tr("Play"), QStringLiteral("play"), {Qt::Key_Space, Qt::Key_F5},
          tr("Run the simulation at the chosen speed, or pause it")))
    , m_step(addTransportAction(tr("Step"), QStringLiteral("step"), {Qt::Key_Right, Qt::Key_F10},
          tr("Run one simulation event")))
    , m_stepTick(addTransportAction(tr("Tick"), QStringLiteral("tick"),
          {QKeySequence(Qt::SHIFT | Qt::Key_Right)},
          tr("Advance by one scheduler tick (1/HZ of simulated time)")))
    , m_stepBack(
          addTransportAction(tr("Back"), QStringLiteral("back"), {QKeySequence(Qt::Key_Left)},
              tr("Rewind by one scheduler tick: re-simulates from 0, which equals the state then")))
    , m_runTo(addTransportAction(tr("Run to…"), QStringLiteral("runto"),
          {QKeySequence(Qt::CTRL | Qt::Key_G)},
          tr("Show the state at a chosen time (forwards or back)")))
    , m_runToEnd(addTransportAction(tr("Run to end"), QStringLiteral("end"),
          {QKeySequence(Qt::CTRL | Qt::Key_F5)},
          tr("Run to the end of the scenario as fast as possible")))
    , m_reset(addTransportAction(tr("Reset"), QStringLiteral("reset"),
          {QKeySequence(Qt::SHIFT | Qt::Key_F5)}, tr("Back to time 0 with the same scenario")))
    , m_speed(new QComboBox(this))
{
    setObjectName(QStringLiteral("transportToolBar"));
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    connect(m_play, &QAction::triggered, controller, &SimulationController::togglePlay);
    connect(m_step, &QAction::triggered, controller, &SimulationController::step);
    connect(m_runToEnd, &QAction::triggered, controller, &SimulationController::runToEnd);
    connect(m_stepTick, &QAction::triggered, controller, &SimulationController::stepTick);
    connect(m_stepBack, &QAction::triggered, this, [this] {
        const int hz = std::max(1, m_controller->scenario().kernel.hz.value_or(1000));
        m_controller->seek(
            std::max(Nanoseconds{0}, m_controller->now() - Nanoseconds{1'000'000'000 / hz}));
    });
    connect(m_runTo, &QAction::triggered, this, &TransportBar::runToTime);
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
    const QString& name, const QString& icon, const QList<QKeySequence>& keys, const QString& tip)
{
    auto* action = new QAction(transportIcon(icon), name, this);
    action->setObjectName(
        QStringLiteral("action") + QString(name).remove(QLatin1Char(' ')).remove(QChar(0x2026)));
    action->setShortcuts(keys);
    action->setShortcutContext(Qt::WindowShortcut);
    QStringList texts;
    for (const QKeySequence& k : keys)
        texts << k.toString(QKeySequence::NativeText);
    action->setToolTip(
        tip + QStringLiteral(" (") + texts.join(QStringLiteral(", ")) + QLatin1Char(')'));
    addAction(action);
    return action;
}

void TransportBar::runToTime()
{
    bool ok = false;
    const double ms = QInputDialog::getDouble(this, tr("Run to time"),
        tr("Simulated time in ms (earlier than now rewinds):"),
        static_cast<double>(m_controller->now().count()) / 1e6, 0.0,
        static_cast<double>(m_controller->endTime().count()) / 1e6, 3, &ok);
    if (ok)
        m_controller->seek(Nanoseconds{std::llround(ms * 1e6)});
}

QList<QAction*> TransportBar::transportActions() const
{
    return {m_play, m_step, m_stepTick, m_stepBack, m_runTo, m_runToEnd, m_reset};
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
    m_play->setIcon(transportIcon(playing ? QStringLiteral("pause") : QStringLiteral("play")));
    const bool loaded = m_controller->simulation() != nullptr;
    const bool canRun = loaded && !m_controller->isFinished();
    m_play->setEnabled(canRun || playing);
    m_step->setEnabled(canRun);
    m_stepTick->setEnabled(canRun);
    m_stepBack->setEnabled(loaded && m_controller->now() > Nanoseconds{0});
    m_runTo->setEnabled(loaded);
    m_runToEnd->setEnabled(canRun);
    m_reset->setEnabled(loaded);
}

} // namespace schedlab::ui
