// SPDX-License-Identifier: GPL-2.0-or-later
#include "fakemachine.h"

#include "core/fair/fairclass.h"
#include "core/sched/schedclass.h"

namespace schedlab::test {

FakeMachine::FakeMachine(int cpus, const ProfileChoices& c)
    : choices(c)
{
    bindClock(&now);
    for (int cpu = 0; cpu < cpus; ++cpu)
        rqs.push_back(std::make_unique<Rq>(cpu, choices));
    TaskGroup root;
    root.index = 0;
    root.parent = -1;
    root.path = "/";
    groups.push_back(std::move(root));
}

FakeMachine::~FakeMachine()
{
    // The entities die with the tasks: unlink them from the run queues' lists and trees first.
    for (auto& rq : rqs) {
        rq->cfsTasks.clear();
        rq->curr = nullptr;
        if (rq->cfs)
            rq->cfs->clearTrees(); // a test may leave entities queued in the trees
    }
}

Task& FakeMachine::addTask(int cpu, Policy policy, int rtPriority, int group)
{
    auto t = std::make_unique<Task>();
    t->index = static_cast<int>(tasks.size());
    t->name = "t" + std::to_string(t->index);
    t->policy = policy;
    t->rtPriority = rtPriority;
    t->cpu = cpu;
    t->group = group;
    t->cpus = CpuSet::all(static_cast<int>(rqs.size()));
    t->se.task = TaskId(t->index);
    tasks.push_back(std::move(t));
    return *tasks.back();
}

TaskGroup& FakeMachine::addGroup(const std::string& path, int parent)
{
    TaskGroup g;
    g.index = static_cast<int>(groups.size());
    g.parent = parent;
    g.path = path;
    groups.push_back(std::move(g));
    return groups.back();
}

int FakeMachine::nrRunning(int cpu) const
{
    const Rq& q = rq(cpu);
    return q.nrRunning + q.rt.nrQueued;
}

void FakeMachine::resched(int cpu, bool lazy)
{
    reschedCpus.push_back(cpu);
    if (lazy)
        ++lazyResched;
}

void FakeMachine::wakeupPreempt(Rq& rq, Task& task, int wakeFlags)
{
    preempted.push_back(task.index);
    if (sched)
        sched->wakeupPreempt(rq, task, wakeFlags);
}

void FakeMachine::moveQueuedTask(Task& task, int cpu, MigrateReason reason, MigrateDetail detail)
{
    if (sched) {
        sched->dequeueTask(rq(task.cpu), task, 0);
        task.cpu = cpu;
        sched->enqueueTask(rq(cpu), task, EnqueueMigrated);
    } else {
        task.cpu = cpu;
    }
    moves.push_back({task.index, cpu, reason, detail});
}

const FakeMachine::Record* FakeMachine::last(RecordKind kind) const
{
    for (auto it = records.rbegin(); it != records.rend(); ++it)
        if (it->kind == kind)
            return &*it;
    return nullptr;
}

EventId FakeMachine::startTimer(int64_t at, int cpu, std::function<void()> fn)
{
    timers.push_back({at, cpu, std::move(fn)});
    return EventId{static_cast<uint64_t>(timers.size())};
}

void FakeMachine::cancelTimer(EventId id)
{
    if (timerPending(id))
        timers[id.seq - 1].cancelled = true;
}

bool FakeMachine::timerPending(EventId id) const
{
    if (!id.valid() || id.seq > timers.size())
        return false;
    const Timer& t = timers[id.seq - 1];
    return !t.cancelled && !t.fired;
}

std::vector<int64_t> FakeMachine::pendingTimers() const
{
    std::vector<int64_t> at;
    for (const Timer& t : timers)
        if (!t.cancelled && !t.fired)
            at.push_back(t.at);
    return at;
}

bool FakeMachine::fire(size_t index)
{
    if (index >= timers.size() || timers[index].cancelled || timers[index].fired)
        return false;
    timers[index].fired = true;
    const int saved = eventCpu;
    eventCpu = timers[index].cpu;
    // A copy: the handler may arm new timers (and so grow the vector).
    const std::function<void()> fn = timers[index].fn;
    fn();
    eventCpu = saved;
    return true;
}

std::vector<int64_t> FakeMachine::groupCpuTimes() const
{
    return cpuTimes.empty() ? std::vector<int64_t>(groups.size(), 0) : cpuTimes;
}

} // namespace schedlab::test
