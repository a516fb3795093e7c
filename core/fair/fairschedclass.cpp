// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/fair/fairschedclass.h"

#include "core/workload/task.h"

#include <algorithm>

namespace schedlab {

FairSchedClass::FairSchedClass(FairClass& fair, FairSchedServices& services, CpuTopology topology)
    : m_fair(fair)
    , m_s(services)
    , m_topo(topology)
{ }

void FairSchedClass::enqueueTask(Rq& rq, Task& task, int flags)
{
    m_fair.enqueueTask(rq, task.se, flags);
}

void FairSchedClass::dequeueTask(Rq& rq, Task& task, int flags)
{
    m_fair.dequeueEntities(rq, task.se, flags);
}

SchedEntity* FairSchedClass::pickTask(Rq& rq)
{
    return rq.fairServer.running ? nullptr : m_fair.pickTask(rq);
}

void FairSchedClass::putPrevTask(Rq& rq, Task& prev)
{
    m_fair.putPrevTask(rq, prev.se);
}

void FairSchedClass::setNextTask(Rq& rq, Task& next)
{
    m_fair.setNextTask(rq, next.se, true);
}

void FairSchedClass::taskTick(Rq& rq, Task& /*curr*/)
{
    m_fair.taskTick(rq);
    m_s.taskTickCore(rq.cpu);
}

void FairSchedClass::wakeupPreempt(Rq& rq, Task& task, int wakeFlags)
{
    if (rq.curr && m_s.taskAt(rq.curr->task.value).isRt()) {
        m_s.serverStart(rq.cpu); // dl_server_start() when fair work arrives under RT
        return; // a fair task never preempts an RT one (the fair server has its own timer)
    }
    m_fair.checkPreemptWakeup(rq, task.se, wakeFlags);
}

void FairSchedClass::migrateTaskRq(Task& task, int /*newCpu*/)
{
    m_s.removeLoad(task);
}

void FairSchedClass::taskWoken(Rq& /*rq*/, Task& task)
{
    m_s.boostWoken(task);
}

void FairSchedClass::switchedFrom(Rq& /*rq*/, Task& task)
{
    m_s.removeLoad(task);
}

void FairSchedClass::switchedTo(Rq& rq, Task& /*task*/)
{
    m_s.resched(rq.cpu);
}

void FairSchedClass::updateCurr(Rq& rq)
{
    for (SchedEntity* level = rq.curr; level; level = level->parent)
        m_fair.updateCurr(*level->cfsRq);
}

bool FairSchedClass::cpuIdle(int cpu)
{
    const Rq& rq = m_s.runQueue(cpu);
    return rq.curr == nullptr && rq.nrRunning == 0;
}

bool FairSchedClass::coreIdle(int cpu)
{
    const int first = m_topo.coreOf(cpu) * m_topo.threadsPerCore;
    for (int c = first; c < first + m_topo.threadsPerCore && c < m_topo.cpus; ++c)
        if (!cpuIdle(c))
            return false;
    return true;
}

int FairSchedClass::selectTaskRq(const Task& task, bool fork)
{
    const int prev = task.cpu;
    if (fork) {
        // Fork balancing (sched_balance_find_dst_cpu, simplified): the allowed CPU with the
        // fewest runnable tasks, preferring a fully idle core, then the parent's CPU, then the
        // lowest number.
        int best = -1;
        auto better = [&](int c, int b) {
            const int n = m_s.runQueue(c).nrRunning + (m_s.runQueue(c).curr ? 1 : 0);
            const int nb = m_s.runQueue(b).nrRunning + (m_s.runQueue(b).curr ? 1 : 0);
            if (n != nb)
                return n < nb;
            if (coreIdle(c) != coreIdle(b))
                return coreIdle(c);
            return c == prev && b != prev;
        };
        for (int c = task.cpus.first(); c >= 0; c = task.cpus.next(c))
            if (best < 0 || better(c, best))
                best = c;
        return best < 0 ? 0 : best;
    }
    // select_idle_sibling(), simplified: the previous CPU if idle; else, in its LLC, an idle core,
    // then any idle CPU (scanning from prev + 1); else prev if allowed; else (select_fallback_rq)
    // any idle allowed CPU, then the first allowed one.
    if (task.cpus.test(prev) && cpuIdle(prev))
        return prev;
    const int llc = m_topo.llcOf(prev);
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 1; i < m_topo.cpus; ++i) {
            const int c = (prev + i) % m_topo.cpus;
            if (m_topo.llcOf(c) != llc || !task.cpus.test(c) || !cpuIdle(c))
                continue;
            if (pass == 1 || coreIdle(c))
                return c;
        }
    }
    if (task.cpus.test(prev))
        return prev;
    for (int c = task.cpus.first(); c >= 0; c = task.cpus.next(c))
        if (cpuIdle(c))
            return c;
    return std::max(0, task.cpus.first());
}

} // namespace schedlab
