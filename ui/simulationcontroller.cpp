// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulationcontroller.h"

#include "core/sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <exception>

namespace schedlab::ui {

namespace {
constexpr int kFrameMs = 16; // about 60 updates per second while playing
constexpr Nanoseconds kMinChunk{1'000};
constexpr Nanoseconds kMaxChunk{10'000'000'000};
} // namespace

SimulationController::SimulationController(QObject* parent)
    : QObject(parent)
{
    m_timer.setInterval(kFrameMs);
    connect(&m_timer, &QTimer::timeout, this, &SimulationController::tick);
}

SimulationController::~SimulationController() = default;

bool SimulationController::load(const Scenario& scenario, QString* error)
{
    std::unique_ptr<Simulation> simulation;
    try {
        simulation = std::make_unique<Simulation>(scenario);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    stopTimer();
    m_simulation.reset(); // the old one may refer to the old scenario
    m_scenario = scenario;
    m_simulation = std::move(simulation);
    m_finishedEmitted = false;
    m_chunk = Nanoseconds{1'000'000};
    Q_EMIT simulationReset();
    Q_EMIT progressed(now());
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

void SimulationController::setSpeed(double speed)
{
    m_speed = std::clamp(speed, 1e-6, 1e6);
}

void SimulationController::play()
{
    if (!m_simulation || isFinished() || (m_timer.isActive() && !m_toEnd))
        return;
    const bool wasPlaying = m_timer.isActive();
    m_toEnd = false;
    m_timer.setInterval(kFrameMs);
    m_wall.start();
    m_lastWallNs = 0;
    m_timer.start();
    if (!wasPlaying)
        Q_EMIT playingChanged(true);
}

void SimulationController::runToEnd()
{
    if (!m_simulation || isFinished())
        return;
    const bool wasPlaying = m_timer.isActive();
    m_toEnd = true;
    m_timer.setInterval(0); // as fast as possible, but one bounded slice per event-loop turn
    m_timer.start();
    if (!wasPlaying)
        Q_EMIT playingChanged(true);
}

void SimulationController::pause()
{
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
    m_timer.stop();
    m_toEnd = false;
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
        advance(target, m_budgetMs);
        if (now() == before)
            break; // no progress (failure or nothing left to do)
    }
    afterProgress();
}

void SimulationController::reset()
{
    if (!m_simulation)
        return;
    const Scenario scenario = m_scenario;
    QString error;
    if (!load(scenario, &error))
        fail(error);
}

void SimulationController::tick()
{
    if (!m_simulation) {
        stopTimer();
        return;
    }
    Nanoseconds target = endTime();
    if (!m_toEnd) {
        // Wall time since the last tick at the chosen speed. Starting from where the simulation
        // is (not where it should be) drops any backlog when the core cannot keep up.
        const qint64 wallNs = m_wall.nsecsElapsed();
        const double delta = static_cast<double>(wallNs - m_lastWallNs) * m_speed;
        m_lastWallNs = wallNs;
        target = std::min(endTime(), now() + Nanoseconds{std::llround(std::max(delta, 1.0))});
    }
    advance(target, m_toEnd ? m_budgetMs : std::min(m_budgetMs, kFrameMs));
    afterProgress();
}

void SimulationController::advance(Nanoseconds target, int budgetMs)
{
    QElapsedTimer budget;
    budget.start();
    try {
        while (now() < target && !m_simulation->finished()) {
            const Nanoseconds next = std::min(target, now() + m_chunk);
            QElapsedTimer chunkTimer;
            chunkTimer.start();
            m_simulation->runUntil(next);
            const qint64 spentMs = chunkTimer.elapsed();
            // Keep one chunk well inside the budget: grow while cheap, shrink when slow.
            if (spentMs * 8 < budgetMs)
                m_chunk = std::min(m_chunk * 2, kMaxChunk);
            else if (spentMs > budgetMs)
                m_chunk = std::max(m_chunk / 2, kMinChunk);
            if (budget.elapsed() >= budgetMs || now() < next)
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
    Q_EMIT progressed(now());
    if (isFinished()) {
        stopTimer();
        if (!m_finishedEmitted) {
            m_finishedEmitted = true;
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
