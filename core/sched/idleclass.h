// SPDX-License-Identifier: GPL-2.0-or-later
// idle_sched_class: the last class of the walk. Its pick is the idle task, which the model
// represents as "no entity" (Rq::curr == nullptr).
#pragma once

#include "core/sched/schedclass.h"
#include "core/workload/task.h"

namespace schedlab {

class IdleClass final : public SchedClass
{
public:
    const char* name() const override { return "idle"; }
    void enqueueTask(Rq&, Task&, int) override { }
    void dequeueTask(Rq&, Task&, int) override { }
    SchedEntity* pickTask(Rq&) override { return nullptr; }
    void putPrevTask(Rq&, Task&) override { }
    void setNextTask(Rq&, Task&, bool) override { }
    bool schedulePrev(Rq&, Task&) override { return true; }
    int affinityCpu(const Task& task, int) override { return task.cpu; }
    void taskTick(Rq&, Task&) override { }
    void wakeupPreempt(Rq&, Task&, int) override { }
    int selectTaskRq(const Task& task, int /*wakeFlags*/) override { return task.cpu; }
    void balance(Rq&) override { }
    void updateCurr(Rq&) override { }
};

} // namespace schedlab
