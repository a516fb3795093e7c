// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/run/simulationcontroller.h"

#include "core/sim/simulation.h"
#include "ui/common/format.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

namespace schedlab::ui {

namespace {
constexpr int kFrameMs = 16; // about 60 updates per second while playing
constexpr qint64 kFrameNs = qint64{kFrameMs} * 1'000'000;
constexpr Nanoseconds kMinChunk{1'000};
constexpr Nanoseconds kMaxChunk{10'000'000'000};
} // namespace

SimulationController::SimulationController(QObject* parent)
    : QObject(parent)
{
    // The timeline's PELT pane reads the Pelt record after each sample (issue 39).
    m_options.recordPelt = true;
    m_options.recordMaxSlice = true; // the lag band of lag_clamp=max_slice_tick
    setClock({});
    m_timer.setInterval(kFrameMs);
    connect(&m_timer, &QTimer::timeout, this, &SimulationController::tick);
}

void SimulationController::setClock(Clock clock)
{
    if (!clock) {
        auto wall = std::make_shared<QElapsedTimer>();
        wall->start();
        clock = [wall] { return wall->nsecsElapsed(); };
    }
    m_clock = std::move(clock);
    m_lastWallNs = m_clock(); // playing continues from now on the new clock
}

SimulationController::~SimulationController() = default;

bool SimulationController::buildSimulation(const Scenario& scenario, QString* error)
{
    std::unique_ptr<Simulation> simulation;
    try {
        simulation = std::make_unique<Simulation>(scenario, m_options);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    stopTimer();
    m_simulation.reset(); // keep at most one extra simulation alive while switching
    m_scenario = scenario;
    m_simulation = std::move(simulation);
    m_finishedEmitted = false;
    m_chunk = Nanoseconds{1'000'000};
    return true;
}

bool SimulationController::load(const Scenario& scenario, QString* error)
{
    if (!buildSimulation(scenario, error))
        return false;
    m_rewoundFrom.reset();
    const bool hadBranches = !m_branches.empty();
    m_branches.clear();
    Q_EMIT simulationReset();
    Q_EMIT progressed(now());
    if (hadBranches)
        Q_EMIT branchesChanged();
    return true;
}

bool SimulationController::reload(const Scenario& scenario, Nanoseconds resumeAt, QString* error)
{
    const bool resume = isPlaying() || m_resumePlaying;
    const Scenario previous = m_scenario;
    std::unique_ptr<Simulation> future = std::move(m_rewoundFrom);
    if (!buildSimulation(scenario, error)) {
        m_rewoundFrom = std::move(future);
        return false;
    }
    // The edit truncates the future the rewound timeline had: keep that timeline as a branch.
    if (future && future->now() > resumeAt) {
        Branch branch;
        branch.scenario = previous;
        branch.simulation = std::move(future);
        branch.label = branchLabel(
            m_branches.size() + 1, branch.scenario, m_fileActionCount, branch.simulation->now());
        m_branches.push_back(std::move(branch));
        Q_EMIT branchesChanged();
    }
    Q_EMIT simulationReset();
    m_target = std::min(std::max(resumeAt, Nanoseconds{0}), endTime());
    m_resumePlaying = resume;
    startSeeking();
    return true;
}

QString SimulationController::branchLabel(
    size_t number, const Scenario& s, size_t fileActions, Nanoseconds ranTo)
{
    // Named by its latest edit of the session (the one that made it differ) and its time.
    QString edit = tr("no edit");
    if (s.actions.size() > fileActions) {
        const Action& a = s.actions.back();
        QString what;
        switch (a.kind) {
        case Action::Kind::Move:
            what = tr("move %1 to %2")
                       .arg(QString::fromStdString(a.task), QString::fromStdString(a.cgroup));
            break;
        case Action::Kind::Set:
            what = tr("set %1").arg(
                QString::fromStdString(a.set.cgroup.value_or(a.set.task.value_or(std::string()))));
            break;
        case Action::Kind::Feature: {
            QStringList names;
            for (const auto& [name, on] : a.features)
                names << (on ? QString() : QStringLiteral("NO_")) + QString::fromStdString(name);
            what = names.join(QLatin1Char(' '));
            break;
        }
        case Action::Kind::Profile:
            what = tr("profile %1").arg(QString::fromStdString(a.profile.value_or(std::string())));
            break;
        case Action::Kind::Spawn:
            what = tr("spawn %1")
                       .arg(a.spawn.empty() ? QString()
                                            : QString::fromStdString(a.spawn.front().name));
            break;
        case Action::Kind::Kill:
            what = tr("kill %1").arg(QString::fromStdString(a.task));
            break;
        }
        edit = tr("%1 at %2").arg(what, formatTime(a.at));
    }
    return tr("branch %1: %2 (ran to %3)").arg(number).arg(edit, formatTime(ranTo));
}

bool SimulationController::switchToBranch(size_t index)
{
    if (index >= m_branches.size() || !m_simulation)
        return false;
    stopTimer();
    m_resumePlaying = false;
    Branch& b = m_branches[index];
    std::swap(m_scenario, b.scenario);
    std::swap(m_simulation, b.simulation);
    b.label = branchLabel(index + 1, b.scenario, m_fileActionCount, b.simulation->now());
    m_rewoundFrom.reset();
    m_finishedEmitted = m_simulation->finished();
    Q_EMIT simulationReset();
    Q_EMIT progressed(now());
    Q_EMIT branchesChanged();
    return true;
}

Nanoseconds SimulationController::now() const
{
    return m_simulation ? m_simulation->now() : Nanoseconds{0};
}

Nanoseconds SimulationController::endTime() const
{
    return m_simulation ? m_simulation->endTime() : Nanoseconds{0};
}

bool SimulationController::isFinished() const
{
    return m_simulation && m_simulation->finished();
}

QString SimulationController::stopReason() const
{
    return m_simulation ? QString::fromStdString(m_simulation->stopReason()) : QString();
}

void SimulationController::setSpeed(double speed)
{
    m_speed = std::clamp(speed, 1e-6, 1e6);
}

void SimulationController::play()
{
    if (!m_simulation || isFinished())
        return;
    if (m_target) { // finish the seek first, then play
        m_resumePlaying = true;
        return;
    }
    if (m_timer.isActive() && !m_toEnd)
        return;
    const bool wasPlaying = m_timer.isActive();
    m_toEnd = false;
    m_timer.setInterval(kFrameMs);
    m_lastWallNs = m_clock();
    m_owedNs = 0;
    m_timer.start();
    if (!wasPlaying)
        Q_EMIT playingChanged(true);
}

void SimulationController::runToEnd()
{
    if (!m_simulation || isFinished())
        return;
    if (m_target)
        stopTimer();
    const bool wasPlaying = m_timer.isActive();
    m_toEnd = true;
    m_timer.setInterval(0); // as fast as possible, but one bounded slice per event-loop turn
    m_timer.start();
    if (!wasPlaying)
        Q_EMIT playingChanged(true);
}

void SimulationController::pause()
{
    m_resumePlaying = false;
    stopTimer();
}

void SimulationController::togglePlay()
{
    if (isPlaying())
        pause();
    else
        play();
}

void SimulationController::stopTimer()
{
    if (!m_timer.isActive())
        return;
    const bool wasPlaying = isPlaying();
    m_timer.stop();
    m_toEnd = false;
    m_target.reset();
    if (wasPlaying)
        Q_EMIT playingChanged(false);
}

void SimulationController::step()
{
    if (!m_simulation || isFinished())
        return;
    pause();
    try {
        m_simulation->step();
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
        return;
    }
    afterProgress();
}

void SimulationController::stepBy(Nanoseconds duration)
{
    if (!m_simulation || isFinished())
        return;
    pause();
    const Nanoseconds target = std::min(now() + duration, endTime());
    while (m_simulation && now() < target && !isFinished()) {
        const Nanoseconds before = now();
        advance(target, m_budgetNs);
        if (now() == before)
            break; // no progress (failure or nothing left to do)
    }
    afterProgress();
}

void SimulationController::reset()
{
    seek(Nanoseconds{0});
}

void SimulationController::stepTick()
{
    const int hz = std::max(1, m_scenario.kernel.hz.value_or(1000));
    stepBy(Nanoseconds{1'000'000'000 / hz});
}

void SimulationController::seek(Nanoseconds t)
{
    if (!m_simulation)
        return;
    t = std::clamp(t, Nanoseconds{0}, endTime());
    pause();
    if (t < now()) {
        // Rewind: the run is deterministic, so the state at t is a fresh run to t. Keep the
        // furthest timeline: an edit at t would truncate it and keep it as a branch.
        std::unique_ptr<Simulation> old = std::move(m_simulation);
        if (!m_rewoundFrom || m_rewoundFrom->now() < old->now())
            m_rewoundFrom = std::move(old);
        old.reset();
        QString error;
        if (!buildSimulation(m_scenario, &error)) {
            fail(error);
            return;
        }
        Q_EMIT simulationReset();
    }
    m_target = t;
    m_resumePlaying = false;
    startSeeking();
}

void SimulationController::startSeeking()
{
    if (!m_target)
        return;
    if (now() >= *m_target || isFinished()) {
        m_target.reset();
        afterProgress();
        Q_EMIT seekFinished(now());
        if (std::exchange(m_resumePlaying, false))
            play();
        return;
    }
    m_toEnd = false;
    m_timer.setInterval(0); // as fast as possible, one bounded slice per event-loop turn
    m_timer.start();
}

void SimulationController::tick()
{
    if (!m_simulation) {
        stopTimer();
        return;
    }
    if (m_target) {
        advance(*m_target, m_budgetNs);
        if (!m_target)
            return; // failed
        if (now() >= *m_target || isFinished()) {
            m_timer.stop();
            startSeeking(); // target reached: finishes the seek
        } else {
            Q_EMIT progressed(now());
        }
        return;
    }
    Nanoseconds target = endTime();
    if (!m_toEnd) {
        // Wall time since the last tick at the chosen speed (fractions of a nanosecond carry
        // over). Starting from where the simulation is (not where it should be) drops any
        // backlog when the core cannot keep up.
        const qint64 wallNs = m_clock();
        m_owedNs += static_cast<double>(std::max<qint64>(wallNs - m_lastWallNs, 0)) * m_speed;
        m_lastWallNs = wallNs;
        const double whole = std::floor(m_owedNs);
        m_owedNs -= whole;
        const double left = static_cast<double>((endTime() - now()).count());
        target = now() + Nanoseconds{static_cast<int64_t>(std::min(whole, left))};
    }
    advance(target, m_toEnd ? m_budgetNs : std::min(m_budgetNs, kFrameNs));
    afterProgress();
}

void SimulationController::advance(Nanoseconds target, qint64 budgetNs)
{
    const qint64 start = m_clock();
    qint64 chunkStart = start;
    try {
        while (now() < target && !m_simulation->finished()) {
            const Nanoseconds next = std::min(target, now() + m_chunk);
            m_simulation->runUntil(next);
            const qint64 wall = m_clock();
            const qint64 spent = wall - chunkStart;
            chunkStart = wall;
            // Keep one chunk well inside the budget: grow while cheap, shrink when slow.
            if (spent * 8 < budgetNs)
                m_chunk = std::min(m_chunk * 2, kMaxChunk);
            else if (spent > budgetNs)
                m_chunk = std::max(m_chunk / 2, kMinChunk);
            if (wall - start >= budgetNs || now() < next)
                break;
        }
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
    }
}

void SimulationController::afterProgress()
{
    if (!m_simulation)
        return;
    if (isFinished() && now() < endTime()) {
        try {
            m_simulation->runUntil(endTime()); // nothing left to run: move the clock to the end
        } catch (const std::exception& e) {
            fail(QString::fromStdString(e.what()));
        }
    }
    if (m_rewoundFrom && now() >= m_rewoundFrom->now())
        m_rewoundFrom.reset(); // caught up with the old timeline without editing: same run
    Q_EMIT progressed(now());
    if (isFinished()) {
        stopTimer();
        if (!m_finishedEmitted) {
            m_finishedEmitted = true;
            if (!m_simulation->stopReason().empty())
                Q_EMIT stoppedEarly(stopReason());
            Q_EMIT finished();
        }
    }
}

void SimulationController::fail(const QString& message)
{
    stopTimer();
    Q_EMIT errorOccurred(message);
}

} // namespace schedlab::ui
