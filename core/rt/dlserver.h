// SPDX-License-Identifier: GPL-2.0-or-later
// The fair deadline server (6.12+, kernel/sched/deadline.c dl_server_*, kernel-model.md §10.4),
// simplified: per CPU a 50 ms budget per 1 s period in defer mode. When fair tasks are runnable
// but RT runs, the server arms a zero-laxity timer at period end − budget left; if the fair
// tasks are still starved then, it boosts the fair class above RT until the budget is used up or
// the period ends. In the class walk it comes first: while it boosts, its pick is the fair
// class's pick (the RT and fair classes then decline, see their pickTask()).
#pragma once

#include "core/base/eventid.h"
#include "core/sched/machinecontext.h"
#include "core/sched/schedclass.h"

#include <cstdint>
#include <functional>

namespace schedlab {

constexpr int64_t kFairServerRuntimeNs = 50'000'000;   ///< fair_server runtime 50 ms
constexpr int64_t kFairServerPeriodNs = 1'000'000'000; ///< fair_server period 1 s

/// rq->fair_server: one CPU's server state.
struct DlServer
{
    int64_t periodEnd = -1; ///< end of the current server period; -1 not started
    int64_t runtime = 0;    ///< budget left in the period
    bool running = false;   ///< the server is boosting the fair class above RT
    EventId timer;          ///< zero-laxity (defer) timer or replenishment
    // Its active utilization (kernel-model.md §15.6): the server's CBS as dl_server_start(),
    // dl_server_update() and dl_server_stop() keep it, for rq->dl.running_bw.
    bool active = false;     ///< dl_server_active: started (fair tasks queued)
    bool contending = false; ///< its bandwidth is in running_bw (active, or non contending)
    int64_t cbsDeadline = -1;
    int64_t cbsRuntime = 0;
    EventId inactiveTimer; ///< the 0-lag time after dl_server_stop()
};

class DlServerClass final : public SchedClass
{
public:
    /// pick_task of dl_server_init(): the served class's pick (pick_task_fair()).
    using PickFn = std::function<SchedEntity*(Rq&)>;
    /// @p enabled: the profile has the server (6.12+); otherwise every call is a no-op.
    DlServerClass(MachineContext& ctx, bool enabled, PickFn pick);
    /// The earliest deadline of the DL tasks queued on a CPU (DlClass::earliestDeadline()): the
    /// server is one entity of that EDF tree and runs only when its own deadline, the end of its
    /// period, is strictly earlier (kernel-model.md §15.3). Empty: no DL class.
    void setEarliestDeadline(std::function<int64_t(const Rq&)> fn) { m_earliest = std::move(fn); }

    /// dl_server_start() in defer mode: fair tasks of @p cpu are runnable but RT was picked.
    void starve(int cpu);
    /// The zero-laxity / replenishment timer of @p cpu fired.
    void timer(int cpu);
    /// dl_server_update() of @p cpu's server (rq(cpu).fairServer).
    void account(int cpu, int64_t delta);
    /// dl_server_update(): fair execution of @p delta ns on @p cpu, whose server is @p rc,
    /// consumes the budget. Inline up to the rare cases (a CBS budget used up, a period
    /// started), which are out of line.
    void account(DlServer& rc, int cpu, int64_t delta)
    {
        if (!m_enabled)
            return;
        if (rc.active) {
            // The deferred server's own CBS: a budget used up by the fair tasks themselves
            // starts a new period (replenish_dl_new_period(), §15.6).
            rc.cbsRuntime -= delta;
            if (rc.cbsRuntime <= 0) {
                replenishCbs(rc, cpu, delta); // and the rest of the update
                return;
            }
        }
        if (rc.periodEnd < 0 || m_ctx.clock() > rc.periodEnd)
            return;
        consumeBudget(rc, cpu, delta);
    }
    /// dl_server_stop(): no fair task left on @p rq.
    void stopIfIdle(Rq& rq);
    /// dl_server_start() / dl_server_stop() for the server's active utilization: the first fair
    /// task queued on @p cpu, the last one dequeued (kernel-model.md §15.6).
    void fairQueued(int cpu);
    void fairEmpty(int cpu);

    // SchedClass: the server only picks; its entity is not a task.
    const char* name() const override { return "dl_server"; }
    SchedEntity* pickTask(Rq& rq) override;
    void enqueueTask(Rq&, Task&, int) override { }
    void dequeueTask(Rq&, Task&, int) override { }
    void putPrevTask(Rq&, Task&) override { }
    void setNextTask(Rq&, Task&, bool) override { }
    bool schedulePrev(Rq&, Task&) override { return true; }
    int affinityCpu(const Task& task, int) override { return selectTaskRq(task, 0); }
    void taskTick(Rq&, Task&) override { }
    void wakeupPreempt(Rq&, Task&, int) override { }
    int selectTaskRq(const Task& task, int wakeFlags) override;
    void balance(Rq&) override { }
    void updateCurr(Rq&) override { }

private:
    /// account()'s rare cases, each the last call of the update (no registers kept around it):
    /// a new CBS period, then the rest of the update; the budget of a started period consumed.
    void replenishCbs(DlServer& rc, int cpu, int64_t delta);
    void consumeBudget(DlServer& rc, int cpu, int64_t delta);
    bool starved(int cpu);
    /// Arms the zero-laxity / replenishment timer of @p cpu at @p at.
    EventId startTimer(int cpu, int64_t at)
    {
        return m_ctx.startTimer(at, cpu, [this, cpu] { timer(cpu); });
    }

    MachineContext& m_ctx;
    PickFn m_pick;
    std::function<int64_t(const Rq&)> m_earliest;
    bool m_enabled = false;
};

} // namespace schedlab
