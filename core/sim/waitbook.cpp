// SPDX-License-Identifier: GPL-2.0-or-later
// The busy and wait bookkeeping behind the metrics. See waitbook.h.
#include "core/sim/waitbook.h"

#include "core/sim/resourceguard.h"
#include "core/workload/task.h"

namespace schedlab {

void WaitBook::markWaiting(Task& task, int cpu, int64_t now)
{
    if (task.waitStart < 0) {
        task.waitStart = now;
        task.waitCpu = cpu;
    }
}

void WaitBook::endWaiting(Task& task, int64_t now)
{
    if (task.waitStart >= 0) {
        const int64_t wait = now - task.waitStart;
        task.waits.push_back(wait);
        m_guard.waitKept();
        if (wait > m_watchdogNs)
            m_watchdog.push_back(
                {"starvation", task.name, task.waitCpu, task.waitStart, wait, "runnable, not run"});
        task.waitStart = -1;
    }
}

} // namespace schedlab
