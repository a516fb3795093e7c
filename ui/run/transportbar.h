// SPDX-License-Identifier: GPL-2.0-or-later
// The transport toolbar: Play/Pause, Step, Run to end, Reset and the play speed, bound to a
// SimulationController. It keeps its actions' text, icons and enabled state in step with the
// controller; the window only places it and lists its actions in the Simulation menu.
#pragma once

#include "core/base/time.h"

#include <QIcon>
#include <QList>
#include <QToolBar>

class QAction;
class QComboBox;

namespace schedlab::ui {

class SimulationController;

/// Toolbar icon @p name from resources/icons (":/icons/NAME.svg"), empty if missing.
QIcon transportIcon(const QString& name);

class TransportBar : public QToolBar
{
    Q_OBJECT
public:
    explicit TransportBar(SimulationController* controller, QWidget* parent = nullptr);

    QList<QAction*> transportActions() const;
    /// Selects the fastest speed preset at which a run of @p duration still lasts about ten
    /// seconds of wall time (the slowest preset for short runs).
    void chooseSpeedFor(Nanoseconds duration);
    double speed() const;

private:
    QAction* addTransportAction(const QString& name, const QString& icon,
        const QList<QKeySequence>& keys, const QString& tip);
    void runToTime();
    void updateActions();

    SimulationController* m_controller;
    QAction* m_play;
    QAction* m_step;
    QAction* m_stepTick;
    QAction* m_stepBack;
    QAction* m_runTo;
    QAction* m_runToEnd;
    QAction* m_reset;
    QComboBox* m_speed;
};

} // namespace schedlab::ui
