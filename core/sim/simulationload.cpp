// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's side of PELT load tracking (core/fair/loadavg.*): the periodic blocked-load
// update of idle CPUs.
#include "simulationimpl.h"

namespace schedlab {

void SimulationImpl::scheduleBlockedUpdate()
{
    // NOHZ: idle CPUs get their blocked load decayed by the idle balancer every LOAD_AVG_PERIOD
    // ms; busy CPUs do it from their periodic balance (SimulationImpl::tick()).
    const int64_t next = (clock() / kNohzBlockedPeriodNs + 1) * kNohzBlockedPeriodNs;
    m_events.schedule(Nanoseconds(next), [this] {
        m_eventCpu = -1;
        for (int c = 0; c < m_cpus; ++c)
            if (!m_rqs[static_cast<size_t>(c)]->curr)
                m_load->updateBlockedAverages(c);
        if (clock() < m_end.count())
            scheduleBlockedUpdate();
    });
}

void SimulationImpl::updateLoadAvg(CfsRq& cfsRq, SchedEntity& se, bool updateTg)
{
    m_load->updateLoadAvg(cfsRq, se, updateTg);
}

} // namespace schedlab
