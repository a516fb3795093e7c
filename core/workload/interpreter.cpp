// SPDX-License-Identifier: GPL-2.0-or-later
#include "interpreter.h"

#include "core/base/cpuset.h"
#include "core/base/prng.h"
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/sched/machinecontext.h"
#include "core/sched/rq.h"
#include "core/workload/kernelwork.h"
#include "core/workload/mutexes.h"
#include "core/workload/task.h"

#include <algorithm>

namespace schedlab {

namespace {

/// CPU cost of a sched_yield() system call. A yield loop must consume some time, otherwise a lone
/// yielder would loop forever at one simulated instant.
constexpr int64_t kYieldSyscallNs = 1000;
/// Operations a task may execute at one instant before it is considered a runaway program.
constexpr int kMaxInstantOps = 10000;

/// rq->curr == @p task: is it the one running on its CPU?
bool isRunningOn(const MachineContext& ctx, const Task& task)
{
    return ctx.rq(task.cpu).curr == &task.se;
}

} // namespace

ProgramInterpreter::ProgramInterpreter(
    MachineContext& ctx, ProgramServices& services, Prng& prng, KernelWork& work, Mutexes& mutexes)
    : m_ctx(ctx)
    , m_s(services)
    , m_prng(prng)
    , m_work(work)
    , m_mutexes(mutexes)
{ }

int64_t ProgramInterpreter::draw(const DurationSpec& d)
{
    if (d.endless)
        return -1;
    if (d.upper)
        return m_prng.uniform(d.value.count(), d.upper->count());
    return d.value.count();
}

void ProgramInterpreter::advance(Task& task)
{
    task.workLeft = 0;
    if (task.exitMoved) { // preempted inside do_exit() (kernel-model.md §8.2 "Exit"): finish it
        task.exiting = true;
        m_ctx.resched(task.cpu);
        return;
    }
    if (m_work.continueWork(task)) // a fork or cgroup writes in progress (core/kernel)
        return;
    for (int ops = 0;; ++ops) {
        if (ops > kMaxInstantOps) {
            // A loop of operations that take no time never returns: a resource guard.
            m_s.stopRun(task.name, task.cpu,
                "task " + printable(task.name) + " ran more than " + std::to_string(kMaxInstantOps)
                    + " operations without using time (a loop with no run, sleep or yield?)");
            task.exiting = true;
            m_ctx.resched(task.cpu);
            return;
        }
        if (task.stack.empty()) {
            task.exiting = true; // the program ended: the task exits
            m_ctx.resched(task.cpu);
            return;
        }
        Task::Frame& frame = task.stack.back();
        if (frame.pc >= frame.ops->size()) {
            if (frame.kernel) {
                task.stack.pop_back();
                if (--task.kernelDepth == 0) {
                    m_s.returnToUser(task);
                    if (isRunningOn(m_ctx, task) && m_s.shouldPark(task))
                        return; // stops here; parked by schedule(), resumes when unthrottled
                }
                continue;
            }
            if (frame.left != 0 && task.stack.size() > 1
                && (frame.until < 0 || m_ctx.clock() < frame.until)) {
                if (frame.left > 0)
                    --frame.left;
                frame.pc = 0;
                if (frame.ops->empty())
                    task.stack.pop_back();
                continue;
            }
            task.stack.pop_back();
            continue;
        }
        const Op& op = (*frame.ops)[frame.pc++];
        switch (op.kind) {
        case Op::Kind::Run: {
            const int64_t d = draw(op.duration);
            if (d == 0)
                continue;
            task.workLeft = d;
            return;
        }
        case Op::Kind::Sleep:
            task.sleepFor = std::max<int64_t>(0, draw(op.duration));
            task.blocking = true;
            m_ctx.resched(task.cpu);
            return;
        case Op::Kind::Loop:
            if (op.count && *op.count <= 0)
                continue;
            {
                int64_t until = -1;
                if (op.forTime) { // "for": while (elapsed < D), checked before each iteration
                    const int64_t d = draw(*op.forTime);
                    if (d == 0)
                        continue;
                    until = d < 0 ? -1 : saturatingAdd(m_ctx.clock(), d);
                }
                task.stack.push_back({&op.body, 0, op.count ? *op.count - 1 : -1, until});
                continue;
            }
        case Op::Kind::Yield:
            m_s.yieldTask(task);
            // A SCHED_DEADLINE task waits for its next period (yield_task_dl()); the model
            // charges its system call no time, so that a job ends exactly at its yield
            // (kernel-model.md §15.4).
            task.workLeft = task.isDl() ? 0 : kYieldSyscallNs;
            return;
        case Op::Kind::Nice:
            m_s.setUserNice(task, op.nice);
            continue;
        case Op::Kind::Cpus:
            if (auto set = CpuSet::parse(op.name, m_ctx.cpuCount()))
                m_s.setAffinity(task, *set);
            if (!isRunningOn(m_ctx, task))
                return; // migrated: it continues when it runs on its new CPU
            continue;
        case Op::Kind::Cgroup: {
            const int g = m_s.groupByPath(op.name);
            if (g >= 0)
                m_s.moveTask(task, g);
            continue;
        }
        case Op::Kind::Fork: {
            if (op.fork.empty())
                continue;
            if (m_work.startFork(task, op)) { // kernel work first; the child appears at its end
                task.pendingFork = &op;
                return;
            }
            if (m_work.completeFork(task, op))
                return;
            continue;
        }
        case Op::Kind::Write:
            m_work.startWrite(task, op);
            if (m_work.continueWork(task))
                return;
            continue;
        case Op::Kind::Exit:
            task.exiting = true;
            m_ctx.resched(task.cpu);
            return;
        case Op::Kind::Kernel:
            ++task.kernelDepth;
            task.stack.push_back({&op.body, 0, 0, -1, true});
            continue;
        case Op::Kind::Lock:
            if (!m_mutexes.lock(task, op.name))
                return; // blocked; resumes after the lock op when the mutex is handed over
            continue;
        case Op::Kind::Unlock:
            m_mutexes.unlock(task, op.name);
            continue;
        case Op::Kind::Suspend:
            m_mutexes.suspend(task, op.name);
            return; // blocked; continues after the suspend op when resumed
        case Op::Kind::Resume:
            m_mutexes.resume(op.name); // wakeups as an unlock's: a preemption waits for schedule()
            continue;
        case Op::Kind::Complete:
            m_mutexes.complete(op.name);
            continue;
        case Op::Kind::WaitCompletion:
            if (!m_mutexes.waitForCompletion(task, op.name))
                return; // blocked; continues after the wait when completed
            continue;
        case Op::Kind::Cookie:
            m_s.applyCookieOp(task, op);
            continue;
        case Op::Kind::CpuClock:
            if (m_s.readCpuClock(task))
                return; // preempted on its way back to user mode: goes on when it runs again
            continue;
        }
    }
}

} // namespace schedlab
