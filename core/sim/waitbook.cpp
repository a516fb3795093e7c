// SPDX-License-Identifier: GPL-2.0-or-later
// The busy and wait bookkeeping behind the metrics. See waitbook.h.
#include "core/sim/waitbook.h"

#include "core/sim/resourceguard.h"
#include "core/workload/task.h"

namespace schedlab {

std::vector<Finding> WaitBook::watchdog(const std::vector<std::string>& taskNames) const
{
    std::vector<Finding> out;
    out.reserve(m_starved.size());
    for (const Starvation& s : m_starved)
        out.push_back({"starvation", taskNames[static_cast<size_t>(s.task)], s.cpu, s.fromNs,
            s.waitNs, "runnable, not run"});
    return out;
}

} // namespace schedlab
