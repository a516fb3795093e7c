// SPDX-License-Identifier: GPL-2.0-or-later
// Sleeping mutexes of the workload (the "lock"/"unlock" operations). Simplification: the lock is
// handed to the first waiter at unlock (FIFO, like a mutex in hand-off mode): no optimistic
// spinning, no lock stealing; a woken waiter is in the kernel (inside mutex_lock()).
// The wait queues of "suspend"/"resume" are a condition variable without a predicate, as rt-app's
// events of those names: a resume wakes every task suspended at that moment, in the order they
// suspended, and is lost when none is. A completion ("complete"/"wait_for_completion", the
// kernel's struct completion) counts: a complete with no waiter is kept for the next wait.
#include "core/workload/mutexes.h"

#include "core/base/time.h"
#include "core/sched/machinecontext.h"
#include "core/workload/interpreter.h"
#include "core/workload/task.h"

#include <algorithm>
#include <utility>

namespace schedlab {

Mutexes::Mutexes(MachineContext& ctx, ProgramServices& program)
    : m_ctx(ctx)
    , m_s(program)
{ }

bool Mutexes::lock(Task& task, const std::string& name)
{
    task.usedLocks = true;
    Mutex& m = m_mutexes[name];
    if (m.owner == task.index) {
        m_s.programError(task,
            "locks mutex \"" + name
                + "\" which it already holds (a real mutex would deadlock); ignored");
        return true;
    }
    if (m.owner < 0) {
        task.held.push_back(name);
        m.owner = task.index;
        return true;
    }
    m.waiters.push_back(task.index);
    task.lockWaiting = name;
    task.lockWaitStart = m_ctx.clock();
    task.blocking = true;
    m_ctx.resched(task.cpu);
    return false;
}

void Mutexes::unlock(Task& task, const std::string& name)
{
    auto it = m_mutexes.find(name);
    if (it == m_mutexes.end() || it->second.owner != task.index) {
        m_s.programError(task, "unlocks mutex \"" + name + "\" which it does not hold; ignored");
        return;
    }
    std::erase(task.held, name);
    Mutex& m = it->second;
    if (m.waiters.empty()) {
        m.owner = -1;
        return;
    }
    Task& waiter = m_ctx.task(m.waiters.front());
    m.waiters.erase(m.waiters.begin());
    m.owner = waiter.index; // hand-off to the first waiter
    waiter.held.push_back(name);
    waiter.lockWaitNs += m_ctx.clock() - waiter.lockWaitStart;
    waiter.lockWaitStart = -1;
    waiter.lockWaiting.clear();
    release(waiter);
}

void Mutexes::release(Task& waiter)
{
    if (waiter.blocking && waiter.state == TaskRunState::Running) {
        waiter.blocking = false; // has not left the CPU yet: it simply continues
        return;
    }
    m_ctx.wakeUp(waiter);
}

void Mutexes::suspend(Task& task, const std::string& name)
{
    m_waitQueues[name].push_back(task.index);
    task.suspendedOn = name;
    task.blocking = true;
    m_ctx.resched(task.cpu);
}

void Mutexes::resume(const std::string& name)
{
    const auto it = m_waitQueues.find(name);
    if (it == m_waitQueues.end())
        return;
    const std::vector<int> waiters = std::exchange(it->second, {});
    for (const int index : waiters) {
        Task& waiter = m_ctx.task(index);
        waiter.suspendedOn.clear();
        release(waiter);
    }
}

bool Mutexes::waitForCompletion(Task& task, const std::string& name)
{
    Completion& c = m_completions[name];
    if (c.done > 0) {
        --c.done; // try_wait_for_completion() succeeds: no sleep
        return true;
    }
    c.waiters.push_back(task.index);
    task.completionWait = name;
    task.blocking = true;
    m_ctx.resched(task.cpu);
    return false;
}

void Mutexes::complete(const std::string& name)
{
    Completion& c = m_completions[name];
    if (c.waiters.empty()) {
        c.done = saturatingAdd(c.done, 1);
        return;
    }
    // complete(): done++ then swake_up_locked() of the first exclusive waiter, which takes it.
    Task& waiter = m_ctx.task(c.waiters.front());
    c.waiters.erase(c.waiters.begin());
    waiter.completionWait.clear();
    release(waiter);
}

void Mutexes::releaseAll(Task& task)
{
    if (!task.suspendedOn.empty()) {
        std::erase(m_waitQueues[task.suspendedOn], task.index);
        task.suspendedOn.clear();
    }
    if (!task.completionWait.empty()) {
        std::erase(m_completions[task.completionWait].waiters, task.index);
        task.completionWait.clear();
    }
    if (!task.lockWaiting.empty()) {
        std::erase(m_mutexes[task.lockWaiting].waiters, task.index);
        task.lockWaiting.clear();
    }
    const std::vector<std::string> held = task.held;
    for (auto it = held.rbegin(); it != held.rend(); ++it)
        unlock(task, *it);
}

} // namespace schedlab
