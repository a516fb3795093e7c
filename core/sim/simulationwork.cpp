// SPDX-License-Identifier: GPL-2.0-or-later
// The fork of the workload, recording hooks, invariant checks, views and metrics.
#include "core/base/text.h"
#include "simulationimpl.h"

#include <algorithm>
#include <map>

namespace schedlab {

namespace {

constexpr int kMaxInvariantReports = 50;

} // namespace

bool SimulationImpl::completeFork(Task& task, const Op& op)
{
    const std::string name = task.name + "." + std::to_string(++task.forks);
    if (!canCreateTask(name, task.cpu))
        return false; // the run stops (a resource guard)
    Task& child =
        createTask(op.fork.front(), name, task.index); // unset fields come from the parent
    child.spawnedAt = clock();
    wakeUpNewTask(child);
    if (op.wait && child.state != TaskRunState::Exited) {
        task.waitingFor = child.index;
        task.blocking = true;
        resched(task.cpu, false);
        return true;
    }
    return false;
}

void SimulationImpl::onWorkDone(int taskIndex)
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

EntityRef SimulationImpl::refOf(const SchedEntity& se) const
{
    if (se.isTask())
        return EntityRef::task(se.task.value);
    return EntityRef::group(se.myQ->groupIndex, se.myQ->cpu);
}

void SimulationImpl::record(RecordKind kind, const SchedEntity& se, int64_t a, int64_t b, int64_t c)
{
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

void SimulationImpl::sample(const SchedEntity& se)
{
    if (!m_options.recordSamples || !se.cfsRq)
        return;
    const CfsRq& rq = *se.cfsRq;
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
    r.payload.sample.weight = static_cast<uint32_t>(std::min<uint64_t>(se.load.weight, UINT32_MAX));
    if (se.onRq && rq.entityEligible(se))
        r.flags |= Record::kEligible;
    if (rq.curr == &se)
        r.flags |= Record::kCurr;
    if (se.schedDelayed)
        r.flags |= Record::kDelayed;
    if (se.onRq)
        r.flags |= Record::kQueued;
    m_rec.append(r);
}

void SimulationImpl::accountExec(SchedEntity& taskSe, int64_t delta)
{
    Task& task = taskOf(taskSe);
    task.cpuTime += delta;
    if (!task.isRt())
        m_dlServer->account(task.cpu, delta);
    for (int g = task.group; g >= 0; g = m_groups[static_cast<size_t>(g)].parent)
        m_groupCpuTime[static_cast<size_t>(g)] += delta;
}

void SimulationImpl::markWaiting(Task& task, int cpu)
{
    if (task.waitStart < 0) {
        task.waitStart = clock();
        task.waitCpu = cpu;
    }
}

void SimulationImpl::endWaiting(Task& task)
{
    if (task.waitStart >= 0) {
        const int64_t wait = clock() - task.waitStart;
        task.waits.push_back(wait);
        if (wait > m_options.watchdogThreshold.count())
            m_watchdog.push_back(
                {"starvation", task.name, task.waitCpu, task.waitStart, wait, "runnable, not run"});
        task.waitStart = -1;
    }
}

// --- invariants (kernel-model.md §13, checked builds) ------------------------------------------

void SimulationImpl::checkInvariants()
{
    if (static_cast<int>(m_violations.size()) >= kMaxInvariantReports)
        return;
    // A sweep costs O(tasks + cfs_rq's). On a large machine it runs every k-th event, k growing
    // with the size, so checking costs O(1) per event on average whatever the size: a broken
    // invariant persists and is still found, a few events later.
    const size_t size = m_tasks.size() + m_groups.size() * static_cast<size_t>(m_cpus);
    constexpr size_t kSweepBudget = 2048;
    if (size > kSweepBudget && m_events.executed() % (size / kSweepBudget + 1) != 0)
        return;
    auto report = [&](const std::string& what) {
        m_violations.push_back("t=" + std::to_string(clock()) + " " + what);
    };
    std::map<const CfsRq*, std::pair<int, int>> counts; // h_nr_queued, h_nr_runnable
    std::vector<int> perCpu(static_cast<size_t>(m_cpus), 0);
    for (const auto& t : m_tasks) {
        if (!t->se.onRq)
            continue;
        if (t->se.cfsRq->cpu != t->cpu)
            report("task " + t->name + " is queued on cpu" + std::to_string(t->se.cfsRq->cpu)
                + " but belongs to cpu" + std::to_string(t->cpu));
        bool reachedRoot = true;
        for (const SchedEntity* se = &t->se; se; se = se->parent) {
            auto& c = counts[se->cfsRq];
            ++c.first;
            if (!t->se.schedDelayed)
                ++c.second;
            if (se->cfsRq->throttleDequeued) {
                reachedRoot = false; // ≤6.17: counted up to the throttled cfs_rq only (§9.2)
                break;
            }
        }
        if (reachedRoot)
            ++perCpu[static_cast<size_t>(t->cpu)];
    }
    auto check = [&](const CfsRq& rq, const std::string& where) {
        if (std::string err = rq.checkInvariants(); !err.empty())
            report(where + ": " + err);
        const auto it = counts.find(&rq);
        const auto expected = it == counts.end() ? std::pair<int, int>{0, 0} : it->second;
        if (rq.hNrQueued != expected.first)
            report(where + ": h_nr_queued " + std::to_string(rq.hNrQueued)
                + " != " + std::to_string(expected.first));
        if (rq.hNrRunnable != expected.second)
            report(where + ": h_nr_runnable " + std::to_string(rq.hNrRunnable)
                + " != " + std::to_string(expected.second));
        // Σ ŵ·(V − v) over queued entities is within rounding of 0: V is the floor of the mean.
        const uint64_t v = rq.peekAvgVruntime();
        Int128 sum = 0;
        Int128 den = 0;
        rq.forEachTree([&](const SchedEntity& se) {
            sum += static_cast<Int128>(vdiff(v, se.vruntime)) * rq.avgWeight(se);
            den += rq.avgWeight(se);
        });
        if (rq.curr && rq.curr->onRq) {
            sum += static_cast<Int128>(vdiff(v, rq.curr->vruntime)) * rq.avgWeight(*rq.curr);
            den += rq.avgWeight(*rq.curr);
        }
        if (den > 0 && (sum > 0 || sum <= -den))
            report(where + ": sum of w*lag is not within rounding of 0");
    };
    for (int c = 0; c < m_cpus; ++c) {
        const Rq& rq = *m_rqs[static_cast<size_t>(c)];
        check(*rq.cfs, "cpu" + std::to_string(c) + " /");
        if (rq.nrRunning != perCpu[static_cast<size_t>(c)])
            report("cpu" + std::to_string(c) + ": nr_running " + std::to_string(rq.nrRunning)
                + " != " + std::to_string(perCpu[static_cast<size_t>(c)]));
        if (rq.curr && rq.cfs->inTree(*rq.curr))
            report("cpu" + std::to_string(c) + ": the running task is in the tree");
    }
    // With thousands of group cfs_rq's a full sweep after every event would dominate the run:
    // then only the cfs_rq's on the paths of queued tasks are checked every event, all of them
    // every 1024th event.
    const bool full =
        m_groups.size() * static_cast<size_t>(m_cpus) <= 4096 || m_events.executed() % 1024 == 0;
    if (!full) {
        std::vector<const CfsRq*> onPath;
        for (const auto& [rq, c] : counts)
            if (rq->groupIndex != 0)
                onPath.push_back(rq);
        std::sort(onPath.begin(), onPath.end(), [](const CfsRq* a, const CfsRq* b) {
            return std::pair(a->groupIndex, a->cpu) < std::pair(b->groupIndex, b->cpu);
        });
        for (const CfsRq* rq : onPath)
            check(*rq,
                "cpu" + std::to_string(rq->cpu) + " "
                    + m_groups[static_cast<size_t>(rq->groupIndex)].path);
        return;
    }
    for (const auto& g : m_groups)
        for (const auto& rq : g.cfsRq)
            check(*rq, "cpu" + std::to_string(rq->cpu) + " " + g.path);
    if (std::string err = m_core->checkInvariants(); !err.empty())
        report(err);
}

// --- views and metrics ---------------------------------------------------------------------------

std::vector<TaskView> SimulationImpl::taskViews() const
{
    std::vector<TaskView> out;
    out.reserve(m_tasks.size());
    for (const auto& t : m_tasks) {
        TaskView v;
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
        v.vlag = t->se.onRq && t->se.cfsRq ? vdiff(t->se.cfsRq->peekAvgVruntime(), t->se.vruntime)
                                           : t->se.vlag;
        v.eligible = t->se.onRq && t->se.cfsRq && t->se.cfsRq->entityEligible(t->se);
        v.delayed = t->se.schedDelayed;
        v.sumExecRuntime = t->se.sumExecRuntime;
        v.cookie = t->cookie;
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<CgroupView> SimulationImpl::cgroupViews() const
{
    std::vector<CgroupView> out;
    for (const auto& g : m_groups)
        out.push_back({g.index, g.path, g.parent, g.cpuWeight});
    return out;
}

namespace {

int64_t percentile(std::vector<int64_t> values, int pct)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    // Nearest-rank: the smallest value with at least pct % of the values at or below it.
    const size_t rank = (values.size() * static_cast<size_t>(pct) + 99) / 100;
    return values[std::max<size_t>(rank, 1) - 1];
}

} // namespace

Metrics SimulationImpl::metrics() const
{
    Metrics m;
    const int64_t now = clock();
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
    m.durationNs = now;
    const int64_t threshold = m_options.watchdogThreshold.count();
    for (const auto& t : m_tasks) {
        TaskMetrics tm;
        tm.name = t->name;
        tm.cgroup = m_groups[static_cast<size_t>(t->group)].path;
        tm.cpuTimeNs = t->cpuTime;
        tm.share = now > 0 ? static_cast<double>(t->cpuTime) / static_cast<double>(now) : 0.0;
        std::vector<int64_t> waits = t->waits;
        if (t->waitStart >= 0)
            waits.push_back(now - t->waitStart); // still waiting at the end of the run
        tm.waitMaxNs = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
        tm.waitP50Ns = percentile(waits, 50);
        tm.waitP99Ns = percentile(waits, 99);
        tm.switches = t->switches;
        tm.migrations = t->migrations;
        if (t->exitedAt >= 0)
            tm.exitedAtNs = t->exitedAt;
        tm.forked = t->parent >= 0;
        if (t->usedLocks) {
            int64_t lockWait = t->lockWaitNs;
            if (t->lockWaitStart >= 0)
                lockWait += now - t->lockWaitStart; // still waiting at the end of the run
            tm.lockWaitNs = lockWait;
        }
        m.tasks.push_back(tm);
        if (t->probe) {
            ProbeMetrics pm;
            pm.name = t->name;
            pm.spawnedAtNs = t->spawnedAt;
            if (t->exitedAt >= 0)
                pm.latencyNs = t->exitedAt - t->spawnedAt;
            m.probes.push_back(pm);
        }
        if (t->waitStart >= 0 && now - t->waitStart > threshold)
            m.findings.push_back({"starvation", t->name, t->waitCpu, t->waitStart,
                now - t->waitStart, "runnable, not run (still waiting)"});
    }
    // Completed waits longer than the threshold, recorded by the watchdog as they ended.
    for (const auto& f : m_watchdog)
        m.findings.push_back(f);
    for (const auto& f : m_limitFindings)
        m.findings.push_back(f);
    for (const auto& f : m_rtFindings) // failed actions, long irqs-off sections, late timers
        m.findings.push_back(f);
    std::sort(m.findings.begin(), m.findings.end(),
        [](const Finding& a, const Finding& b) { return a.fromNs < b.fromNs; });
    for (const auto& g : m_groups) {
        if (g.index == 0)
            continue;
        CgroupMetrics cm{g.path, m_groupCpuTime[static_cast<size_t>(g.index)], 0, {}, {}};
        // cpu.stat throttled time: completed intervals plus the ones still open (§9.3).
        cm.throttledNs = g.bandwidth.throttledTime;
        for (const auto& c : g.cfsRq)
            if (c->throttledClock >= 0)
                cm.throttledNs += now - c->throttledClock;
        if (g.bandwidth.everLimited) {
            cm.nrPeriods = g.bandwidth.nrPeriods;
            cm.nrThrottled = g.bandwidth.nrThrottled;
        }
        m.cgroups.push_back(std::move(cm));
    }
    for (int c = 0; c < m_cpus; ++c) {
        int64_t busy = m_rqs[static_cast<size_t>(c)]->busyNs;
        if (m_rqs[static_cast<size_t>(c)]->busySince >= 0)
            busy += now - m_rqs[static_cast<size_t>(c)]->busySince;
        int64_t forcedIdle = 0;
        const CoreRqState& cr = m_rqs[static_cast<size_t>(c)]->core;
        forcedIdle = cr.forcedIdleNs + (cr.forcedIdleSince >= 0 ? now - cr.forcedIdleSince : 0);
        m.cpus.push_back({c, busy, forcedIdle});
    }
    for (const auto& v : m_violations)
        m.findings.push_back({"invariant", "", 0, 0, 0, v});
    m.run.events = m_events.executed();
    m.run.contextSwitches = m_contextSwitches;
    m.run.recordedEvents = m_rec.size();
    m.run.recordedBytes = m_rec.bytes();
    return m;
}

} // namespace schedlab
