// SPDX-License-Identifier: GPL-2.0-or-later
// The only bridge between the Qt-free core and Qt: owns a schedlab::Simulation, advances it from
// a QTimer in bounded slices of wall time so the GUI thread never blocks, and reports progress as
// Qt signals. Core exceptions are caught here and become errorOccurred(). The wall clock is
// injectable (setClock()), so tests drive playing and slicing exactly, whatever the machine.
#pragma once

#include "core/base/time.h"
#include "core/sim/scenariospec.h"
#include "core/sim/simulation.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

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

    /// Replaces the scenario (e.g. with an edit added to its actions) and re-simulates from 0
    /// up to @p resumeAt (clamped to the new end) in bounded slices, then resumes playing if it
    /// was playing. The state shown is always that of a fresh run of the current scenario, so a
    /// live edit and a replay of the saved file cannot disagree. False (and @p error) when the
    /// new scenario is refused; the old simulation then stays.
    bool reload(const Scenario& scenario, Nanoseconds resumeAt, QString* error = nullptr);

    /// A previous timeline kept when an edit in the past truncated the future (rewind and
    /// branch): the scenario it ran and its simulation as far as it had gone.
    struct Branch
    {
        Scenario scenario;
        std::unique_ptr<Simulation> simulation;
        QString label;
    };
    const std::vector<Branch>& branches() const { return m_branches; }
    /// Makes branch @p index current; the current timeline takes its place in the list.
    bool switchToBranch(size_t index);
    /// Number of actions that came with the file (the rest are the session's edits), for
    /// branch names.
    void setFileActionCount(size_t n) { m_fileActionCount = n; }
    /// "branch N: move hog-1 to /web at 300 ms (ran to 600 ms)": its number, its latest edit
    /// of the session and when it happens, and how far it ran.
    static QString branchLabel(
        size_t number, const Scenario& scenario, size_t fileActions, Nanoseconds ranTo);
    /// The simulation that ran further than now before the last rewind (nullptr if none): the
    /// future an edit now would truncate.
    const Simulation* rewoundFrom() const { return m_rewoundFrom.get(); }

    /// True while reload() or seek() re-simulates towards their target time.
    bool isSeeking() const { return m_target.has_value(); }
    std::optional<Nanoseconds> seekTarget() const { return m_target; }

    Nanoseconds now() const;
    Nanoseconds endTime() const;
    /// True when the run is over: its end time is reached, nothing is left to run, or a
    /// resource guard stopped it early (stopReason()). A finished run never plays.
    bool isFinished() const;
    bool isPlaying() const { return m_timer.isActive() && !m_target; }
    /// Why the run stopped before its end time (Simulation::stopReason()), or empty.
    QString stopReason() const;

    /// Simulated time per second of wall time while playing (1.0 = real time).
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    /// Wall time a timer tick may spend simulating before yielding to the event loop.
    void setTickBudget(int milliseconds) { m_budgetNs = qint64{milliseconds} * 1'000'000; }

    /// Monotonic wall time in nanoseconds (any origin). Playing follows its differences times
    /// speed(), and a slice of work ends when it has advanced by the tick budget.
    using Clock = std::function<qint64()>;
    /// Replaces the wall clock (tests: a fake one). An empty function restores the default
    /// monotonic clock. Takes effect at once, also while playing.
    void setClock(Clock clock);

    /// Resource guards of the next simulations built (load(), reload(), rewinds).
    void setResourceLimits(const ResourceLimits& limits) { m_options.limits = limits; }
    const RunOptions& runOptions() const { return m_options; }

public Q_SLOTS:
    void play();
    void pause();
    void togglePlay();
    /// Runs one event.
    void step();
    /// Advances by one scheduler tick (1/HZ of the scenario).
    void stepTick();
    /// Shows the state at @p t: forwards runs there, backwards re-simulates from 0 (the run is
    /// deterministic, so this equals a fresh run to @p t). Bounded slices; pauses at @p t.
    void seek(schedlab::Nanoseconds t);
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
    /// A seek() or reload() reached its target time.
    void seekFinished(schedlab::Nanoseconds now);
    void branchesChanged();
    void errorOccurred(const QString& message);
    /// A resource guard stopped the run early (emitted once per run, before finished()).
    void stoppedEarly(const QString& reason);

private:
    void tick();
    /// Runs towards @p target until it is reached or @p budgetNs of wall time are spent.
    void advance(Nanoseconds target, qint64 budgetNs);
    void stopTimer();
    void fail(const QString& message);
    void afterProgress();
    /// Starts the timer towards m_target as fast as possible.
    void startSeeking();
    bool buildSimulation(const Scenario& scenario, QString* error);

    Scenario m_scenario;
    std::unique_ptr<Simulation> m_simulation;
    RunOptions m_options;
    QTimer m_timer;
    Clock m_clock;
    qint64 m_lastWallNs = 0;
    double m_owedNs = 0; ///< simulated time played but not yet run (below one nanosecond)
    bool m_toEnd = false;
    bool m_finishedEmitted = false;
    std::optional<Nanoseconds> m_target; ///< seeking: run there as fast as possible, then stop
    bool m_resumePlaying = false;        ///< play again once the seek target is reached
    std::unique_ptr<Simulation> m_rewoundFrom;
    std::vector<Branch> m_branches;
    size_t m_fileActionCount = 0;
    double m_speed = 0.1;
    qint64 m_budgetNs = 30'000'000;
    Nanoseconds m_chunk{1'000'000}; ///< simulated time per runUntil() call, adapted to speed
};

} // namespace schedlab::ui
