// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation.h"

#include "core/sim/machine.h"

namespace schedlab {

Simulation::Simulation(const Scenario& scenario, const RunOptions& options)
    : m_impl(std::make_unique<Machine>(scenario, options))
    , m_startProfile(m_impl->profileName())
    , m_startChoices(m_impl->choices())
    , m_startFeatures(m_impl->features())
{ }

Simulation::~Simulation() = default;

bool Simulation::step()
{
    return m_impl->step();
}
void Simulation::runUntil(Nanoseconds t)
{
    m_impl->runUntil(t);
}
void Simulation::run()
{
    m_impl->runUntil(m_impl->endTime());
}
Nanoseconds Simulation::now() const
{
    return m_impl->now();
}
Nanoseconds Simulation::endTime() const
{
    return m_impl->endTime();
}
bool Simulation::finished() const
{
    return m_impl->finished();
}
uint64_t Simulation::eventsExecuted() const
{
    return m_impl->eventsExecuted();
}
void Simulation::releaseExitedTasks(bool fold)
{
    m_impl->releaseExitedTasks(fold);
}

int Simulation::tasksHeld() const
{
    return m_impl->tasksHeld();
}

void Simulation::streamRecording(RecordSink* sink)
{
    m_impl->streamedRecording().streamTo(sink);
}

void Simulation::flushRecording()
{
    m_impl->streamedRecording().flushStream();
}

const Recording& Simulation::recording() const
{
    return m_impl->recording();
}
std::vector<TaskView> Simulation::tasks() const
{
    return m_impl->taskViews();
}
std::vector<CgroupView> Simulation::cgroups() const
{
    return m_impl->cgroupViews();
}
int Simulation::cpuCount() const
{
    return m_impl->cpuCount();
}
FeatureSet Simulation::features() const
{
    return m_impl->features();
}
ProfileChoices Simulation::choices() const
{
    return m_impl->choices();
}
Nanoseconds Simulation::baseSlice() const
{
    return Nanoseconds{m_impl->baseSlice()};
}
int Simulation::hz() const
{
    return m_impl->hz();
}
std::string Simulation::profileName() const
{
    return m_impl->profileName();
}
void Simulation::apply(const Action& action)
{
    m_impl->apply(action);
}
Metrics Simulation::metrics() const
{
    return m_impl->metrics();
}
Inspection Simulation::inspect(bool settle)
{
    return m_impl->inspect(settle);
}
const std::vector<std::string>& Simulation::invariantViolations() const
{
    return m_impl->violations();
}
const std::string& Simulation::stopReason() const
{
    return m_impl->stopReason();
}

} // namespace schedlab
