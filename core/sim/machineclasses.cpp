// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's side of the scheduling classes: the class table (their construction in
// priority order, classOf()), the services they call (timers, migrations, core-scheduling
// checks), the cgroup writes handed to each class, and changes of class (sched_setscheduler).
// The classes themselves are in core/rt/, core/fair/ and core/sched/.
#include "core/base/enumnames.h"
#include "core/kernel/cgroupfiles.h"
#include "core/workload/program.h"
#include "machine.h"

#include <algorithm>
#include <cerrno>
#include <unordered_map>

namespace schedlab {

// --- set-up -------------------------------------------------------------------------------------

void Machine::initClasses(const Scenario& scenario)
{
    KernelCosts costs;
    for (const auto& [name, value] : scenario.kernel.costs)
        applyCost(costs, name, value.count());
    MachineContext& ctx = *this;
    m_work = std::make_unique<KernelWork>(ctx, static_cast<KernelWorkServices&>(*this), costs,
        m_choices.rtConstraintCheck == RtConstraintCheck::WalkAllTasks,
        m_preempt == Preempt::None || m_preempt == Preempt::Voluntary);
    m_interp = std::make_unique<ProgramInterpreter>(
        ctx, static_cast<ProgramServices&>(*this), m_prng, *m_work, m_mutexes);
    // The scheduling classes, in priority order for the pick walk.
    m_rt = std::make_unique<RtClass>(ctx, m_hz, m_traits.fairDeadlineServer);
    m_rt->setChoices(&m_choices);
    // dl_server_init(): the fair server serves fair_server_pick_task().
    m_dlServer = std::make_unique<DlServerClass>(ctx, m_traits.fairDeadlineServer,
        [this](Rq& rq) { return m_classes[kFairClass]->serverPickTask(rq); });
    m_dl = std::make_unique<DlClass>(ctx, m_traits.fairDeadlineServer);
    m_dl->setRtGroups(&m_rt->groups());
    m_dl->setReporter([this](const Finding& f) { m_rtFindings.push_back(f); });
    m_dlServer->setEarliestDeadline([this](const Rq& rq) { return m_dl->earliestDeadline(rq); });
    m_fairSched = std::make_unique<FairSchedClass>(*m_fair, ctx, m_domains, m_hz);
    m_fairSched->setTraits(&m_traits);
    // nrRunning() and idleCpu() are rqNrRunning() and rqIdle() of these run queues.
    m_fairSched->placement().readRunQueuesInPlace(&m_rqs);
    m_classes = {m_dlServer.get(), m_dl.get(), m_rt.get(), m_fairSched.get(), &m_idle};
    m_core = std::make_unique<CoreScheduler>(ctx, m_domains.topology());
    m_bw = std::make_unique<CfsBandwidthControl>(ctx, *m_fair, m_groups, m_choices);
    m_load = std::make_unique<LoadTracker>(ctx, m_groups, m_cpus, m_tickNs);
    // The direct calls between the classes and units.
    m_rt->setCoreScheduler(m_core.get());
    m_fairSched->setUnits(
        m_dlServer.get(), m_load.get(), m_bw.get(), m_core.get(), m_balancer.get());
    m_balancer->setUnits(&m_features, m_core.get(), &m_fairSched->placement());
    m_balancer->setNewidleCost(costs.newidleBalanceNs);
    m_fair->setLoadTracker(m_load.get());
    m_fair->setBandwidth(m_bw.get());
    m_load->setTraits(&m_traits);
    m_load->setChoices(&m_choices);
    m_load->setFeatures(&m_features);
    std::vector<int64_t> capacities;
    for (int c = 0; c < m_cpus; ++c)
        capacities.push_back(m_domains.topology().capacityOf(c));
    m_load->setCapacities(std::move(capacities));
}

void Machine::failedAction(const std::string& task, int cpu, const std::string& what)
{
    m_rtFindings.push_back({"failed_action", task, cpu, clock(), 0, what});
}

SchedClass& Machine::classOfPolicy(Policy policy)
{
    // __setscheduler_class(): dl_policy() → dl_sched_class, rt_policy() → rt_sched_class, else
    // fair_sched_class.
    if (policy == Policy::Deadline)
        return *m_classes[kDlClass];
    const bool rt = policy == Policy::Fifo || policy == Policy::RoundRobin;
    return *m_classes[rt ? kRtClass : kFairClass];
}

// --- the cgroup files of the classes (sched_group_set_shares(), tg_set_rt_bandwidth(), …) -------

RtWalkCount Machine::writeClassFiles(int group, const CgroupFiles& files, const std::string& by)
{
    RtWalkCount total;
    std::vector<std::string> refused;
    for (SchedClass* cls : m_classes) {
        if (SchedGroupOps* ops = cls->groupOps()) {
            const RtWalkCount c = ops->writeFiles(group, files, refused);
            total.groups += c.groups;
            total.tasks += c.tasks;
            total.hasRtTaskCalls += c.hasRtTaskCalls;
        }
    }
    const int cpu = by.empty() ? 0 : m_eventCpu < 0 ? 0 : m_eventCpu;
    for (const std::string& what : refused)
        failedAction(by, cpu, what);
    return total;
}

// --- timers of the machine context --------------------------------------------------

EventId Machine::startTimer(int64_t at, int cpu, std::function<void()> fn)
{
    return m_events.schedule(Nanoseconds(at), [this, cpu, fn = std::move(fn)] {
        m_eventCpu = cpu;
        fn();
    });
}

// --- KernelWorkServices
// ---------------------------------------------------------------------------

EventId Machine::startSectionEnd(int cpu, int64_t at)
{
    return m_events.post(Nanoseconds(at), Event{kSectionEndEvent, cpu, 0});
}

std::vector<int> Machine::groupsMatching(const std::string& pattern) const
{
    std::vector<int> groups;
    if (pattern.find('*') == std::string::npos) {
        const int g = groupByPath(pattern);
        if (g >= 0)
            groups.push_back(g);
        return groups;
    }
    for (const TaskGroup& g : m_groups) // like the shell, one write per matching cgroup
        if (cgroupMatches(pattern, g.path))
            groups.push_back(g.index);
    return groups;
}

RtWalkCount Machine::writeCgroupFiles(int group, const CgroupFiles& files, const std::string& by)
{
    return writeClassFiles(group, files, by);
}

// --- ProgramServices ----------------------------------------------------------------------------

void Machine::yieldTask(Task& task)
{
    classOf(task).yieldTask(*m_rqs[static_cast<size_t>(task.cpu)]);
    resched(task.cpu, false);
}

// --- class changes ----------------------------------------------------------------------------

bool Machine::changeClass(Task& task, Policy policy)
{
    SchedClass& from = classOf(task);
    SchedClass& to = classOfPolicy(policy);
    if (&from == &to && from.fairPolicy())
        return false; // fair to fair: setPolicy()
    if (SchedGroupOps* ops = to.groupOps(); ops && !ops->admits(task.group)) {
        // __sched_setscheduler(): an RT policy needs RT runtime in the task's group.
        failedAction("", task.cpu,
            "sched_setscheduler(" + task.name + ", " + std::string(enumName(policy)) + "): EPERM ("
                + m_groups[static_cast<size_t>(task.group)].path + " has cpu.rt_runtime_us 0)");
        return true;
    }
    if (task.rtPriority == 0)
        task.rtPriority = 1;
    if (&from == &to) {
        task.policy = policy;
        return true;
    }
    // __sched_setscheduler() with a class change: a delayed task is dequeued for good first,
    // then dequeue (SAVE) / put_prev, the new parameters and class, enqueue (RESTORE) /
    // set_next, check_class_changed(): switched_from() of the old class, switched_to() of the
    // new one.
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (task.se.schedDelayed)
        from.dequeueTask(rq, task, DequeueSleep | DequeueDelayed);
    const bool running = rq.curr == &task.se;
    const bool queued = task.queuedOnRq(); // task_on_rq_queued()
    if (queued)
        from.dequeueTask(rq, task, DequeueSave);
    if (running)
        from.putPrevTask(rq, task);
    task.policy = policy;
    if (to.fairPolicy()) { // __setscheduler_params() → set_load_weight() of a fair policy
        task.se.batchPolicy = policy == Policy::Batch;
        task.se.idlePolicy = policy == Policy::Idle;
        task.se.load = taskLoadWeight(task.nice, task.se.idlePolicy);
    }
    if (queued)
        to.enqueueTask(rq, task, EnqueueRestore);
    // set_next_task(): the model sets a task that changes class while running as a pick
    // (first), where the kernel's sched_change restores it (first=false).
    if (running)
        to.setNextTask(rq, task, true);
    from.switchedFrom(rq, task);
    to.switchedTo(rq, task);
    return true;
}

} // namespace schedlab
