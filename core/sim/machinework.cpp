// SPDX-License-Identifier: GPL-2.0-or-later
// The fork of the workload, recording hooks, views; the metrics' and invariant checks' view of
// the machine (core/record/metricsbuilder.h, invariants.h).
#include "core/base/limits.h"
#include "core/base/text.h"
#include "machine.h"

#include <algorithm>
#include <map>

namespace schedlab {

bool Machine::completeFork(Task& task, const Op& op)
{
    const std::string name = task.name + "." + std::to_string(++task.forks);
    if (!canCreateTask(name, task.cpu))
        return false; // the run stops (a resource guard)
    // Unset fields come from the parent. The child's program is the fork's, inside the parent's
    // program: the child shares (aliases) the parent's instead of copying it.
    const std::vector<Op>& childProgram = op.fork.front().program;
    Task& child = createTask(op.fork.front(), name, task.index,
        task.program ? std::shared_ptr<const std::vector<Op>>(task.program, &childProgram)
                     : std::make_shared<const std::vector<Op>>(childProgram));
    child.spawnedAt = clock();
    wakeUpNewTask(child);
    if (op.wait && child.state != TaskRunState::Exited) {
        task.waitingFor = child.index;
        const Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
        if (rq.curr == &task.se && task.kernelDepth == 0
            && (rq.needResched || rq.needReschedLazy)) {
            // fork() returns to user mode with a reschedule pending (wake_up_new_task()'s
            // wakeup_preempt() chose the child, or a lazy request is acted on there): the parent
            // is preempted before it can call wait4(), and waits when it runs again
            // (kernel-model.md §8.2).
            task.waitPending = true;
            resched(task.cpu, false);
            return true;
        }
        task.blocking = true;
        resched(task.cpu, false);
        return true;
    }
    return false;
}

void Machine::onWorkDone(int taskIndex)
{
    Task& task = *m_tasks[static_cast<size_t>(taskIndex)];
    task.workDone = {};
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr != &task.se)
        return;
    task.workLeft = 0;
    startRunning(task);
}

// --- recording hooks ----------------------------------------------------------------------------

EntityRef Machine::refOf(const SchedEntity& se) const
{
    if (se.isTask())
        return EntityRef::task(se.task.value);
    return EntityRef::group(se.myQ->groupIndex, se.myQ->cpu);
}

void Machine::buildRecord(RecordKind kind, const SchedEntity& se, int64_t a, int64_t b, int64_t c)
{
    // Only reached while the recording is read: MachineContext::record() counts in place
    // while it discards (countOnly()).
    if (!m_options.recordEvents && kind != RecordKind::Spawn && kind != RecordKind::Exit)
        return;
    Record r;
    r.time = clock();
    r.entity = refOf(se);
    r.cpu = static_cast<uint16_t>(se.cfsRq ? se.cfsRq->cpu : 0);
    r.kind = kind;
    r.payload.generic = {a, b, c, 0};
    m_rec.append(r);
}

void Machine::recordMigrate(
    const SchedEntity& se, int from, int to, MigrateReason reason, MigrateDetail detail)
{
    if (se.isTask()) // the per-reason counts of the metrics (migrations_by_reason)
        ++m_tasks[static_cast<size_t>(se.task.index())]->migrationsByReason[size_t(reason)];
    record(RecordKind::Migrate, se, from, to, int64_t(reason));
    if (m_options.recordEvents && !m_rec.discarding())
        m_rec.lastRecord().payload.generic.d = detail.pack();
}

void Machine::buildSample(const SchedEntity& se)
{
    if (se.isTask() && se.onRq && se.cfsRq && lagBoundMeasured())
        checkLagBound(se);
    if (!m_options.recordSamples || !se.cfsRq)
        return;
    // 7.3 flat run queue (kernel-model.md §6.1): a task competes in rq->cfs with its h_load; a
    // group entity has no EEVDF state (its weight changes are Reweight records).
    const bool flat = m_choices.flat;
    if (flat && !se.isTask())
        return;
    // Only reached while the recording is read: MachineContext::sample() counts in place while
    // it discards (countOnly()). The records are built out of line, so that the common paths above
    // stay short.
    auto build = [ this, &se, flat ]() __attribute__((noinline))
    {
        const CfsRq& rq = flat ? *m_rqs[static_cast<size_t>(se.cfsRq->cpu)]->cfs : *se.cfsRq;
        Record r;
        r.time = clock();
        r.entity = refOf(se);
        r.cpu = static_cast<uint16_t>(rq.cpu);
        r.kind = RecordKind::Sample;
        r.payload.sample.vruntime = se.vruntime;
        r.payload.sample.deadline = se.deadline;
        r.payload.sample.avgVruntime = rq.peekAvgVruntime();
        int64_t vlag = se.vlag;
        if (se.onRq) // the live lag of a queued entity; the saved one otherwise
            vlag = vdiff(r.payload.sample.avgVruntime, se.vruntime);
        if (vlag > INT32_MAX || vlag < INT32_MIN) {
            r.flags |= Record::kVlagSaturated;
            vlag = std::clamp<int64_t>(vlag, INT32_MIN, INT32_MAX);
        }
        r.payload.sample.vlag = static_cast<int32_t>(vlag);
        r.payload.sample.weight = static_cast<uint32_t>(
            std::min<uint64_t>((flat ? se.hLoad : se.load).weight, UINT32_MAX));
        if (se.onRq && rq.entityEligible(se))
            r.flags |= Record::kEligible;
        if (rq.eevdfCurr() == &se)
            r.flags |= Record::kCurr;
        if (se.schedDelayed)
            r.flags |= Record::kDelayed;
        if (se.onRq)
            r.flags |= Record::kQueued;
        m_rec.append(r);
        if (!m_options.recordPelt)
            return;
        // The averages at their last update (kernel-model.md §6.6): PELT is updated at enqueue,
        // dequeue, tick and pick, not at every sample. The cfs_rq is the one the entity is queued
        // on (its group's: 7.3 keeps PELT per level too).
        const CfsRq& own = *se.cfsRq;
        auto sat = [](uint64_t v) {
            return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
        };
        Record p;
        p.time = r.time;
        p.entity = r.entity;
        p.cpu = static_cast<uint16_t>(own.cpu);
        p.kind = RecordKind::Pelt;
        p.payload.pelt = {sat(se.avg.loadAvg), sat(se.avg.runnableAvg), sat(se.avg.utilAvg),
            sat(own.avg.loadAvg), sat(own.avg.runnableAvg), sat(own.avg.utilAvg), own.hNrQueued,
            own.hNrRunnable};
        m_rec.append(p);
    };
    build();
    if (m_options.recordMaxSlice)
        recordMaxSlices(se);
}

void Machine::recordMaxSlices(const SchedEntity& se)
{
    // The slice lag_clamp=max_slice_tick clamps with (kernel-model.md §4.1: cfs_rq_max_slice(),
    // curr included) on the entity's cfs_rq and on each above it (a group entity's slice moves
    // with its queue's, §6.5), where it differs from the last one recorded for that queue.
    const bool flat = m_choices.flat;
    for (const SchedEntity* s = &se; s && s->cfsRq; s = flat ? nullptr : s->parent) {
        const CfsRq& q = flat ? *m_rqs[static_cast<size_t>(s->cfsRq->cpu)]->cfs : *s->cfsRq;
        const int64_t slice = q.maxSlice();
        const uint32_t key =
            (static_cast<uint32_t>(q.groupIndex) << 12) | (static_cast<uint32_t>(q.cpu) & 0xfffu);
        const auto [it, fresh] = m_maxSliceRecorded.try_emplace(key, slice);
        if (!fresh && it->second == slice)
            continue;
        it->second = slice;
        Record r;
        r.time = clock();
        r.entity = refOf(se);
        r.cpu = static_cast<uint16_t>(q.cpu);
        r.kind = RecordKind::MaxSlice;
        r.payload.generic = {slice, q.groupIndex, 0, 0};
        m_rec.append(r);
    }
}

void Machine::checkLagBound(const SchedEntity& se)
{
    // The bug-hunt measure of 052c3d87c82e / 6e3c0a4e1ad1 (kernel-model.md §4.1): a queued task's
    // lag V − v should stay within vslice(slice + tick) of its own slice; count the samples
    // outside and keep the worst excess (virtual ns).
    const bool flat = m_choices.flat;
    const CfsRq& rq = flat ? *m_rqs[static_cast<size_t>(se.cfsRq->cpu)]->cfs : *se.cfsRq;
    const int64_t lag = vdiff(rq.peekAvgVruntime(), se.vruntime);
    Task& task = taskOf(se);
    const LoadWeight& lw = flat ? se.hLoad : se.load;
    if (se.slice != task.lagBoundSlice || lw.weight != task.lagBoundWeight
        || lw.invWeight != task.lagBoundInvWeight) [[unlikely]]
        refreshLagBound(task, se.slice, lw);
    const int64_t excess = (lag < 0 ? -lag : lag) - task.lagBound;
    if (excess <= 0)
        return;
    ++task.lagExcessSamples;
    task.lagExcessMaxNs = std::max(task.lagExcessMaxNs, excess);
}

void Machine::refreshLagBound(Task& task, int64_t slice, LoadWeight lw)
{
    // The bound changes only with the slice or the weight (checkLagBound()'s rare path, out of
    // line so that the common path saves no registers for the call).
    task.lagBoundSlice = slice;
    task.lagBoundWeight = lw.weight;
    task.lagBoundInvWeight = lw.invWeight;
    task.lagBound = static_cast<int64_t>(
        calcDeltaFair(static_cast<uint64_t>(std::max<int64_t>(slice, 0) + m_tickNs), lw,
            m_choices.weightPrecision));
}

void Machine::accountExec(SchedEntity& taskSe, int64_t delta)
{
    Task& task = taskOf(taskSe);
    task.cpuTime += delta;
    m_groupCpuTime[static_cast<size_t>(task.group)] += delta; // the ancestors when asked
    // update_curr() of the fair class feeds the fair server (dl_server_update());
    // update_curr_rt() does not. Both classes charge through here.
    if (&classOf(task) == m_classes[kFairClass])
        m_dlServer->account(m_rqs[static_cast<size_t>(task.cpu)]->fairServer, task.cpu, delta);
}

std::vector<int64_t> Machine::groupCpuTimes() const
{
    // Hierarchical: the group's own tasks and every descendant's. A group is created after its
    // parent, so one pass from the last group down carries each total into its parent.
    std::vector<int64_t> total = m_groupCpuTime;
    for (size_t g = total.size(); g-- > 1;) {
        const int parent = m_groups[g].parent;
        if (parent >= 0)
            total[static_cast<size_t>(parent)] += total[g];
    }
    return total;
}

// --- views and metrics ---------------------------------------------------------------------------

std::vector<TaskView> Machine::taskViews() const
{
    std::vector<TaskView> out;
    out.reserve(m_tasks.size());
    for (size_t i = 0; i < m_tasks.size(); ++i) {
        const Task* t = m_tasks[i].get();
        TaskView v;
        if (!t) { // released at its exit (Simulation::releaseExitedTasks): its name and state
            v.index = static_cast<int>(i);
            v.name = m_rec.taskNames[i];
            v.state = TaskState::Exited;
            out.push_back(std::move(v));
            continue;
        }
        v.index = t->index;
        v.name = t->name;
        v.cgroup = m_groups[static_cast<size_t>(t->group)].path;
        switch (t->state) {
        case TaskRunState::NotStarted:
            v.state = TaskState::NotStarted;
            break;
        case TaskRunState::Runnable:
            v.state = TaskState::Runnable;
            break;
        case TaskRunState::Running:
            v.state = TaskState::Running;
            break;
        case TaskRunState::Sleeping:
            v.state = TaskState::Sleeping;
            break;
        case TaskRunState::WaitingChild:
        case TaskRunState::BlockedLock:
            v.state = TaskState::Blocked;
            break;
        case TaskRunState::Exited:
            v.state = TaskState::Exited;
            break;
        }
        v.cpu = t->cpu;
        v.nice = t->nice;
        v.weight = t->se.load.weight;
        v.vruntime = t->se.vruntime;
        v.deadline = t->se.deadline;
        // The queue the task's EEVDF runs in: its cfs_rq, or rq->cfs with a flat run queue (7.3).
        const CfsRq* erq = !t->se.cfsRq ? nullptr
            : m_choices.flat            ? m_rqs[static_cast<size_t>(t->se.cfsRq->cpu)]->cfs.get()
                                        : t->se.cfsRq;
        v.vlag = t->se.onRq && erq ? vdiff(erq->peekAvgVruntime(), t->se.vruntime) : t->se.vlag;
        v.eligible = t->se.onRq && erq && erq->entityEligible(t->se);
        v.delayed = t->se.schedDelayed;
        v.sumExecRuntime = t->se.sumExecRuntime;
        v.cookie = t->cookie;
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<CgroupView> Machine::cgroupViews() const
{
    std::vector<CgroupView> out;
    for (const auto& g : m_groups)
        out.push_back({g.index, g.path, g.parent, cpuWeightRead(g.shares)});
    return out;
}

Metrics Machine::metrics() const
{
    Metrics m;
    m.scenario = m_scenario.name;
    m.profile = m_profileName;
    for (size_t i = 0; i < kFeatureCount; ++i) {
        const auto f = static_cast<Feature>(i);
        m.features[std::string(featureName(f))] = m_features.has(f);
    }
    m.seed = m_options.seed.value_or(m_scenario.seedOrDefault());
    // Behaviour choices set on top of the profile: the scenario's, then the run's.
    for (const auto& [choice, value] : m_scenario.kernel.overrides)
        m.overrides[choice] = value;
    for (const auto& [choice, value] : m_options.overrides)
        m.overrides[choice] = value;
    const std::vector<Finding> watchdog = m_waits.watchdog(m_rec.taskNames);
    addMachineMetrics(m, *this, m_options.watchdogThreshold.count(),
        {{&watchdog, &m_guard.findings(), &m_rtFindings}, &m_violations});
    m.run.events = m_events.executed();
    m.run.contextSwitches = m_contextSwitches;
    m.run.recordedEvents = m_rec.size();
    m.run.recordedBytes = m_rec.bytes();
    return m;
}

} // namespace schedlab
