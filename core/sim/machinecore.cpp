// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's side of the class walk and of core scheduling (core/coresched/): the per-CPU
// pick (MachineContext::pickTask()), the cookie operations of programs and the fair moves.
#include "machine.h"

namespace schedlab {

SchedEntity* Machine::classWalkPick(Rq& rq)
{
    // The class walk of __pick_next_task(): the fair server (while it boosts), deadline, RT, fair,
    // idle.
    for (SchedClass* cls : m_classes)
        if (SchedEntity* se = cls->pickTask(rq))
            return se;
    return nullptr;
}

void Machine::applyCookieOp(Task& task, const Op& op)
{
    // prctl(PR_SCHED_CORE, CREATE | SHARE_TO | SHARE_FROM, pid, PR_SCHED_CORE_SCOPE_THREAD).
    // An unknown or exited task is ESRCH in the kernel: the operation does nothing.
    switch (op.cookie) {
    case Op::CookieCmd::Create:
        m_core->setCookie(task, m_nextCookie++);
        break;
    case Op::CookieCmd::ShareTo:
        if (Task* target = taskByName(op.name); target && target->state != TaskRunState::Exited)
            m_core->setCookie(*target, task.cookie);
        break;
    case Op::CookieCmd::ShareFrom:
        if (Task* source = taskByName(op.name); source && source->state != TaskRunState::Exited)
            m_core->setCookie(task, source->cookie);
        break;
    }
}

} // namespace schedlab
