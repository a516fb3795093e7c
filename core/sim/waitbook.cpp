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

void WaitBook::starved(const Task& task, int64_t wait)
{
    m_watchdog.push_back(
        {"starvation", task.name, task.waitCpu, task.waitStart, wait, "runnable, not run"});
}

} // namespace schedlab
