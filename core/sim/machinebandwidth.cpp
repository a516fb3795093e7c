// SPDX-License-Identifier: GPL-2.0-or-later
// Kernel sections of the workload as the machine sees them: returning to user mode (task work,
// deferred preemption) and the preemption models' view of a task in the kernel; the services
// of CFS bandwidth control (core/fair/cfsbandwidth.*) and the mutexes
// (core/workload/mutexes.*).
#include "machine.h"

#include <algorithm>

namespace schedlab {

// --- kernel sections ---------------------------------------------------------------------------

void Machine::returnToUser(Task& task)
{
    m_bw->endBoost(task);
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr != &task.se)
        return;
    // exit_to_user_mode(): the throttle's task work parks the task; else NEED_RESCHED_LAZY is
    // acted on like NEED_RESCHED, or a preemption the kernel section deferred is.
    if (m_bw->shouldPark(task))
        resched(task.cpu, false);
    else if (!promoteLazyResched(task.cpu) && rq.needResched)
        m_reschedPending.push_back(task.cpu);
}

bool Machine::readCpuClock(Task& task)
{
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr != &task.se)
        return false;
    // task_sched_runtime(): the running task's class brings its runtime up to date. The fair
    // class's update_curr_fair() updates the task's own cfs_rq only (kernel-model.md §7.1): at
    // the end of a slice, or of its protection, that asks for a (lazy) reschedule, as a tick
    // would.
    if (!task.isDl() && !task.isRt()) {
        if (task.se.cfsRq && task.se.cfsRq->curr == &task.se)
            m_fair->updateCurr(*task.se.cfsRq);
    } else {
        classOf(task).updateCurr(rq);
    }
    if (task.kernelDepth > 0)
        return false; // read inside a kernel section: no return to user mode here
    // The system call returns to user mode like any other (exit_to_user_mode(): its task work,
    // the 6.18+ throttle's parking, and NEED_RESCHED_LAZY acted on like NEED_RESCHED).
    returnToUser(task);
    return rq.needResched;
}

void Machine::programError(const Task& task, const std::string& what)
{
    // A mistake of the workload, not of the model: a finding, and the run goes on.
    if (m_rtFindings.size() < 1000)
        m_rtFindings.push_back({"program_error", task.name, task.cpu, clock(), 0, what});
}

} // namespace schedlab
