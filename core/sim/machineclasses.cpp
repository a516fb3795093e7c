// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's side of the scheduling classes: their construction in priority order, the
// services they call (timers, migrations, core-scheduling checks), cpu.rt_* writes, and the RT
// paths of policy, group and affinity changes. The classes themselves are in
// core/rt/, core/fair/ and core/sched/.
#include "core/scenario/jsonvalues.h"
#include "machine.h"

#include <algorithm>
#include <cerrno>
#include <unordered_map>

namespace schedlab {

namespace {

std::string errnoName(int err)
{
    switch (err) {
    case -EBUSY:
        return "EBUSY";
    case -EPERM:
        return "EPERM";
    default:
        return "EINVAL";
    }
}

} // namespace

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
    // dl_server_init(): the fair server serves pick_task_fair().
    m_dlServer = std::make_unique<DlServerClass>(
        ctx, m_traits.fairDeadlineServer, [this](Rq& rq) { return m_fair->pickTask(rq); });
    m_fairSched = std::make_unique<FairSchedClass>(*m_fair, ctx, m_domains, m_hz);
    m_fairSched->setTraits(&m_traits);
    m_classes = {m_dlServer.get(), m_rt.get(), m_fairSched.get(), &m_idle};
    m_core = std::make_unique<CoreScheduler>(ctx, m_domains.topology());
    m_bw = std::make_unique<CfsBandwidthControl>(ctx, *m_fair, m_groups, m_choices);
    m_load = std::make_unique<LoadTracker>(ctx, m_groups, m_cpus, m_tickNs);
    // The direct calls between the classes and units.
    m_rt->setCoreScheduler(m_core.get());
    m_fairSched->setUnits(
        m_dlServer.get(), m_load.get(), m_bw.get(), m_core.get(), m_balancer.get());
    m_balancer->setUnits(&m_features, m_core.get(), &m_fairSched->placement());
    m_fair->setLoadTracker(m_load.get());
    m_fair->setBandwidth(m_bw.get());
    m_load->setTraits(&m_traits);
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

// --- RT group bandwidth: admission (§10.2, §10.3) ------------------------------------------------

RtWalkCount Machine::applyRtFiles(int group, const CgroupFiles& files, const std::string& by)
{
    RtWalkCount total;
    const std::string& path = m_groups[static_cast<size_t>(group)].path;
    const int cpu = by.empty() ? 0 : m_eventCpu < 0 ? 0 : m_eventCpu;
    auto write = [&](const std::string& file, int64_t value, int64_t periodNs, int64_t runtimeNs) {
        RtWalkCount c;
        std::string why;
        const int err = m_rt->setBandwidth(group, periodNs, runtimeNs, &c, &why);
        total.groups += c.groups;
        total.tasks += c.tasks;
        total.hasRtTaskCalls += c.hasRtTaskCalls;
        if (err)
            failedAction(by, cpu,
                "write " + std::to_string(value) + " > " + path + "/" + file + ": " + errnoName(err)
                    + " (" + why + ")");
    };
    const RtGroup& rg = m_rt->group(group);
    // sched_group_set_rt_period() keeps the runtime; sched_group_set_rt_runtime() the period.
    if (files.rtPeriodUs)
        write("cpu.rt_period_us", *files.rtPeriodUs, *files.rtPeriodUs * 1000, rg.runtimeNs);
    if (files.rtRuntimeUs) {
        const int64_t us = *files.rtRuntimeUs;
        write("cpu.rt_runtime_us", us, m_rt->group(group).periodNs,
            us < 0 ? kRtRuntimeInf : us * 1000);
    }
    return total;
}

// --- moves and timers of the machine context --------------------------------------------------

void Machine::moveQueuedTask(Task& task, int cpu, MigrateReason reason, MigrateDetail detail)
{
    if (task.isRt())
        migrate(task, cpu, reason);
    else
        moveQueued(task, cpu, reason, detail);
}

EventId Machine::startTimer(int64_t at, int cpu, std::function<void()> fn)
{
    return m_events.schedule(Nanoseconds(at), [this, cpu, fn = std::move(fn)] {
        m_eventCpu = cpu;
        fn();
    });
}

void Machine::migrate(Task& task, int cpu, MigrateReason reason)
{
    const int from = task.cpu;
    m_rt->dequeueTask(runQueue(task.cpu), task, 0);
    attachToCpu(task, cpu);
    ++task.migrations;
    recordMigrate(task.se, from, cpu, reason);
    if (task.waitStart >= 0)
        task.waitCpu = cpu;
    m_rt->enqueueTask(runQueue(task.cpu), task, 0);
}

// --- KernelWorkServices
// ---------------------------------------------------------------------------

EventId Machine::startSectionEnd(int cpu, int64_t at)
{
    return m_events.schedule(Nanoseconds(at), [this, cpu] {
        m_eventCpu = cpu;
        m_rqs[static_cast<size_t>(cpu)]->sections.end = {};
        // need_resched set during the section is honoured now (preempt_enable()).
        if (m_rqs[static_cast<size_t>(cpu)]->needResched)
            m_reschedPending.push_back(cpu);
    });
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
    CgroupFiles other = files;
    other.rtRuntimeUs.reset();
    other.rtPeriodUs.reset();
    applyCgroupFiles(group, other);
    return applyRtFiles(group, files, by);
}

// --- ProgramServices ----------------------------------------------------------------------------

void Machine::yieldTask(Task& task)
{
    m_fair->yieldTask(*m_rqs[static_cast<size_t>(task.cpu)]);
    resched(task.cpu, false);
}

// --- class changes ----------------------------------------------------------------------------

bool Machine::changeClass(Task& task, Policy policy)
{
    // rt_policy() of the old and the new policy: the kernel's own tests in
    // __sched_setscheduler() (the RT runtime check, the class chosen by __setscheduler_class()).
    const bool toRt = policy == Policy::Fifo || policy == Policy::RoundRobin;
    const bool fromRt = task.isRt();
    if (!toRt && !fromRt)
        return false; // fair to fair: setPolicy()
    const int64_t runtime = m_rt->group(task.group).runtimeNs;
    if (toRt && task.group != 0 && runtime == 0) {
        // __sched_setscheduler(): an RT policy needs RT runtime in the task's group.
        failedAction("", task.cpu,
            "sched_setscheduler(" + task.name + ", " + std::string(enumName(policy)) + "): EPERM ("
                + m_groups[static_cast<size_t>(task.group)].path + " has cpu.rt_runtime_us 0)");
        return true;
    }
    if (task.rtPriority == 0)
        task.rtPriority = 1;
    if (toRt && fromRt) {
        task.policy = policy;
        return true;
    }
    // __sched_setscheduler() with a class change: a delayed task is dequeued for good first,
    // then dequeue (SAVE) / put_prev, the new parameters and class, enqueue (RESTORE) /
    // set_next, check_class_changed(): switched_from() of the old class, switched_to() of the
    // new one.
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    SchedClass& from = classOf(task);
    if (task.se.schedDelayed)
        from.dequeueTask(rq, task, DequeueSleep | DequeueDelayed);
    const bool running = rq.curr == &task.se;
    const bool queued = task.rtQueued || task.se.onRq; // task_on_rq_queued()
    if (queued)
        from.dequeueTask(rq, task, DequeueSave);
    if (running)
        from.putPrevTask(rq, task);
    task.policy = policy;
    if (!toRt) { // __setscheduler_params() → set_load_weight() of a fair policy
        task.se.batchPolicy = policy == Policy::Batch;
        task.se.idlePolicy = policy == Policy::Idle;
        task.se.load = taskLoadWeight(task.nice, task.se.idlePolicy);
    }
    SchedClass& to = classOf(task);
    if (queued)
        to.enqueueTask(rq, task, EnqueueRestore);
    if (running)
        to.setNextTask(rq, task);
    from.switchedFrom(rq, task);
    to.switchedTo(rq, task);
    return true;
}

bool Machine::rtMoveTask(Task& task, int group)
{
    if (!task.isRt())
        return false;
    if (group != 0 && m_rt->group(group).runtimeNs == 0) {
        // cpu_cgroup_can_attach() → sched_rt_can_attach(): no RT task into a group without
        // RT runtime.
        failedAction("", task.cpu,
            "move " + task.name + " to " + m_groups[static_cast<size_t>(group)].path
                + ": EINVAL (the group has cpu.rt_runtime_us 0)");
        return true;
    }
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr == &task.se)
        m_rt->updateCurrTask(task);
    task.group = group;
    attachToCpu(task, task.cpu);
    if (task.rtQueued)
        resched(task.cpu, false); // the new group may be throttled here, or not
    return true;
}

bool Machine::rtSetAffinity(Task& task, const CpuSet& cpus)
{
    if (!task.isRt())
        return false;
    task.cpus = cpus;
    if (cpus.test(task.cpu)) {
        m_rt->balance(
            runQueue(task.cpu)); // a waiting task may now be pushed to a newly allowed CPU
        return true;
    }
    if (!task.rtQueued) {
        attachToCpu(task, std::max(0, cpus.first())); // moves when it next wakes
        return true;
    }
    Rq& src = *m_rqs[static_cast<size_t>(task.cpu)];
    if (src.curr == &task.se) {
        // The stopper preempts it, then move_queued_task().
        stopRunning(task);
        m_rt->updateCurrTask(task);
        src.curr = nullptr;
        src.stopperRan = true;
        resched(src.cpu, false);
        task.state = TaskRunState::Runnable;
        ++task.switches;
        recordSwitch(src.cpu, &task, nullptr);
    }
    const int target = m_rt->selectTaskRq(task, false);
    migrate(task, target, MigrateReason::Affinity);
    markWaiting(task, target);
    wakeupPreempt(*m_rqs[static_cast<size_t>(target)], task, 0);
    return true;
}

} // namespace schedlab
