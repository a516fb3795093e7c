// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's side of the fair load balancer (core/fair/loadbalance.*, kernel-model.md §8.3):
// the sched domains built from the machine description and the
// BalanceServices the balancer reaches the machine through (the run-state tests, the stopper's
// preemption for active balance).
#include "core/fair/utilest.h"
#include "machine.h"

namespace schedlab {

void Machine::initBalancer(const Scenario& scenario)
{
    CpuTopology topo;
    topo.cpus = m_cpus;
    topo.threadsPerCore = m_threadsPerCore;
    topo.coresPerLlc = m_coresPerLlc;
    // arch_scale_cpu_capacity() per CPU (kernel-model.md §8.4); the reader checked the count.
    if (const auto& caps = scenario.machine.capacities; caps && caps->size() == size_t(m_cpus))
        topo.capacities = *caps;
    // ITMT priorities (kernel-model.md §8.5).
    if (const auto& p = scenario.machine.itmtPriorities; p && p->size() == size_t(m_cpus))
        topo.itmtPriorities = *p;
    m_domains = SchedDomains(topo, 0);
    m_balancer = std::make_unique<LoadBalancer>(static_cast<MachineContext&>(*this),
        static_cast<BalanceServices&>(*this), m_domains, m_hz, m_tickNs);
    m_balancer->setTraits(&m_traits);
    m_balancer->setChoices(&m_choices);
    m_balancer->seedRng(m_options.seed.value_or(scenario.seedOrDefault()));
}

int Machine::nrRunning(int cpu) const
{
    return rqNrRunning(*m_rqs[static_cast<size_t>(cpu)]);
}

bool Machine::idleCpu(int cpu) const
{
    return rqIdle(*m_rqs[static_cast<size_t>(cpu)]);
}

bool Machine::stopperPreempt(int cpu)
{
    // Active balance: the stopper preempts the running fair task; it stays queued.
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    if (!rq.curr)
        return false;
    Task& task = taskOf(*rq.curr);
    if (&classOf(task) != m_classes[kFairClass] || task.blocking || task.exiting
        || !preemptible(cpu))
        return false; // the stopper waits for preemption to be enabled; not modelled: no move
    stopperPreempt(rq, task);
    markWaiting(task, cpu);
    return true;
}

bool Machine::updateBlockedAverages(int cpu)
{
    // Without groups nothing is published: the root queues' averages are not kept up to date
    // here, and the NOHZ stats kicks stop once every CPU reported no blocked load.
    return m_groups.size() > 1 && m_load->updateBlockedAverages(cpu);
}

} // namespace schedlab
