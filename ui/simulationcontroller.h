// SPDX-License-Identifier: GPL-2.0-or-later
// The only bridge between the Qt-free core and Qt (style.md §2): owns a schedlab::Simulation,
// advances it from a QTimer in bounded slices of wall time so the GUI thread never blocks, and
// reports progress as Qt signals. Core exceptions are caught here and become errorOccurred().
#pragma once

#include "core/base/time.h"
#include "core/scenario/scenario.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>

namespace schedlab {
class Simulation;
}

namespace schedlab::ui {

class SimulationController : public QObject
{
    Q_OBJECT
public:
    explicit SimulationController(QObject* parent = nullptr);
    ~SimulationController() override;

    /// Builds a new simulation from @p scenario (kept for reset()). On failure the previous
    /// simulation stays, @p error receives the reason and false is returned.
    bool load(const Scenario& scenario, QString* error = nullptr);

    /// The running simulation, or nullptr before the first load. Replaced by load() and reset():
    /// simulationReset() says when, so views drop what they cached from the old one.
    const Simulation* simulation() const { return m_simulation.get(); }
    const Scenario& scenario() const { return m_scenario; }

    Nanoseconds now() const;
    Nanoseconds endTime() const;
    bool isFinished() const;
    bool isPlaying() const { return m_timer.isActive(); }

    /// Simulated time per second of wall time while playing (1.0 = real time).
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    /// Wall time a timer tick may spend simulating before yielding to the event loop.
    void setTickBudget(int milliseconds) { m_budgetMs = milliseconds; }

public Q_SLOTS:
    void play();
    void pause();
    void togglePlay();
    /// Runs one event.
    void step();
    /// Advances by @p duration of simulated time, in bounded chunks, without the timer.
    void stepBy(schedlab::Nanoseconds duration);
    /// Back to t = 0 with the same scenario.
    void reset();
    /// Runs to the end in chunks; the GUI stays responsive and pause() stops it.
    void runToEnd();

Q_SIGNALS:
    void simulationReset();
    void progressed(schedlab::Nanoseconds now);
    void playingChanged(bool playing);
    void finished();
    void errorOccurred(const QString& message);

private:
    void tick();
    /// Runs towards @p target until it is reached or @p budgetMs of wall time are spent.
    void advance(Nanoseconds target, int budgetMs);
    void stopTimer();
    void fail(const QString& message);
    void afterProgress();

    Scenario m_scenario;
    std::unique_ptr<Simulation> m_simulation;
    QTimer m_timer;
    QElapsedTimer m_wall;
    qint64 m_lastWallNs = 0;
    bool m_toEnd = false;
    bool m_finishedEmitted = false;
    double m_speed = 0.1;
    int m_budgetMs = 30;
    Nanoseconds m_chunk{1'000'000}; ///< simulated time per runUntil() call, adapted to speed
};

} // namespace schedlab::ui
