// SPDX-License-Identifier: GPL-2.0-or-later
// The deadline class (kernel/sched/deadline.c), kernel-model.md §15. Simplifications: dlclass.h.
#include "core/dl/dlclass.h"

#include "core/fair/fairclass.h" // EnqueueFlag, DequeueFlag
#include "core/record/metrics.h"
#include "core/rt/dlserver.h"
#include "core/rt/rtclass.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>
#include <cerrno>
#include <limits>

namespace schedlab {

namespace {

constexpr int kMaxDlFindings = 1000; ///< findings of each run beyond this are only counted

std::string ms(int64_t ns)
{
    return formatDurationHuman(Nanoseconds(ns));
}

} // namespace

DlClass::DlClass(MachineContext& ctx, bool fairServers)
    : m_ctx(ctx)
    , m_fairServers(fairServers)
{ }

// --- root-domain bandwidth (§15.2, §15.6) --------------------------------------------------------

const RtGroup* DlClass::rtRoot() const
{
    return m_rtGroups && !m_rtGroups->empty() ? &m_rtGroups->front() : nullptr;
}

uint64_t DlClass::maxBw() const
{
    const int64_t runtime = rtRoot() ? rtRoot()->runtimeNs : kRtDefaultRuntimeNs;
    const int64_t period = rtRoot() ? rtRoot()->periodNs : kRtDefaultPeriodNs;
    if (runtime == kRtRuntimeInf)
        return kDlBwUnit;
    return dlToRatio(static_cast<uint64_t>(period), static_cast<uint64_t>(runtime));
}

uint64_t DlClass::bwRatio() const
{
    const int64_t runtime = rtRoot() ? rtRoot()->runtimeNs : kRtDefaultRuntimeNs;
    const int64_t period = rtRoot() ? rtRoot()->periodNs : kRtDefaultPeriodNs;
    if (runtime == kRtRuntimeInf || runtime == 0)
        return uint64_t{1} << kDlRatioShift;
    return dlToRatio(static_cast<uint64_t>(runtime), static_cast<uint64_t>(period))
        >> (kDlBwShift - kDlRatioShift);
}

int64_t DlClass::grubReclaim(int64_t delta, const DlRq& rq, const DlEntity& dl) const
{
    // grub_reclaim() (§15.6): u_act = max(dl_bw, max_bw − u_inact − extra_bw), scaled by 1/Umax.
    const uint64_t max = maxBw();
    const uint64_t inact = rq.thisBw > rq.runningBw ? rq.thisBw - rq.runningBw : 0;
    const uint64_t extra = m_extraBw < 0 ? max : static_cast<uint64_t>(m_extraBw);
    uint64_t act = 0;
    if (inact + extra > max - std::min(max, dl.bw))
        act = dl.bw;
    else
        act = max - inact - extra;
    act = (act * bwRatio()) >> kDlRatioShift;
    return static_cast<int64_t>((static_cast<uint64_t>(delta) * act) >> kDlBwShift);
}

int DlClass::setAttr(Task& task, const DlParams& params, std::string* why)
{
    if (std::string bad = checkDlParams(params); !bad.empty()) {
        if (why)
            *why = bad;
        return -EINVAL;
    }
    const int cpus = m_ctx.cpuCount();
    const uint64_t max = maxBw();
    if (m_extraBw < 0)
        m_extraBw = static_cast<int64_t>(max);
    if (m_fairServers && !m_serversAdmitted) {
        // dl_server_apply_params() of every CPU's fair server: __dl_add() and __add_rq_bw().
        m_serversAdmitted = true;
        const uint64_t server = dlToRatio(kFairServerPeriodNs, kFairServerRuntimeNs);
        for (int c = 0; c < cpus; ++c) {
            m_totalBw += server;
            m_extraBw -= static_cast<int64_t>(server / static_cast<uint64_t>(cpus));
            m_ctx.rq(c).dl.thisBw += server;
        }
    }
    // sched_dl_overflow() → __dl_overflow(): cap_scale(dl_b->bw, cap) < total_bw + new_bw, the
    // capacity of the root domain being the CPUs' capacities summed (1024 each here).
    const uint64_t bw = dlBandwidth(params);
    const uint64_t cap = static_cast<uint64_t>(cpus) * 1024;
    const bool unlimited = rtRoot() && rtRoot()->runtimeNs == kRtRuntimeInf;
    if (!unlimited && ((max * cap) >> 10) < m_totalBw + bw) {
        if (why)
            *why = "the deadline bandwidth " + std::to_string(m_totalBw) + " + "
                + std::to_string(bw) + " exceeds " + std::to_string((max * cap) >> 10)
                + " (sched_rt_runtime_us/sched_rt_period_us × " + std::to_string(cpus)
                + " CPUs, in units of 2^-20)";
        return -EBUSY;
    }
    m_totalBw += bw;
    m_extraBw -= static_cast<int64_t>(bw / static_cast<uint64_t>(cpus));
    DlEntity& dl = task.dl;
    dl = DlEntity{};
    dl.params = params;
    dl.params.period = params.effectivePeriod();
    dl.bw = bw;
    dl.density = dlDensity(params);
    dl.admitted = true;
    return 0;
}

int64_t DlClass::earliestDeadline(const Rq& rq) const
{
    if (rq.dl.tree.empty())
        return std::numeric_limits<int64_t>::max();
    return std::get<0>(*rq.dl.tree.begin());
}

// --- the tree -----------------------------------------------------------------------------------

void DlClass::treeInsert(Rq& rq, Task& task)
{
    if (task.dl.inTree)
        return;
    task.dl.treeSeq = ++m_seq;
    rq.dl.tree.emplace(task.dl.deadline, task.dl.treeSeq, task.index);
    task.dl.inTree = true;
    ++m_queued;
}

void DlClass::treeErase(Rq& rq, Task& task)
{
    if (!task.dl.inTree)
        return;
    rq.dl.tree.erase({task.dl.deadline, task.dl.treeSeq, task.index});
    task.dl.inTree = false;
    --m_queued;
}

std::vector<int> DlClass::queuedTasks(const Rq& rq) const
{
    std::vector<int> out;
    for (const auto& key : rq.dl.tree)
        out.push_back(std::get<2>(key));
    return out;
}

// --- CBS rules (§15.4, §15.5) -------------------------------------------------------------------

void DlClass::replenish(DlEntity& dl)
{
    // replenish_dl_entity(): pay an overrun back from the next periods; a deadline still in
    // the past restarts the reservation from now.
    dlReplenish(dl.params, dl.deadline, dl.runtime, m_ctx.clock());
    dl.yielded = false;
    dl.throttled = false;
}

void DlClass::updateDlEntity(DlEntity& dl)
{
    // update_dl_entity() (§15.5).
    dlUpdateEntity(dl.params, dl.deadline, dl.runtime, m_ctx.clock());
}

void DlClass::throttle(Rq& rq, Task& task)
{
    // update_curr_dl_se(): the budget is gone (or yielded): out of the tree until the next period
    // (start_dl_timer() at deadline − D + P); a past instant replenishes at once.
    DlEntity& dl = task.dl;
    const int64_t now = m_ctx.clock();
    if (!task.blocking && !task.exiting && !dl.yielded) {
        ++dl.throttles;
        report("dl_throttle", task, now, 0,
            "runtime " + ms(dl.params.runtime) + " used up before the deadline " + ms(dl.deadline)
                + "; replenished at " + ms(dl.deadline - dl.params.deadline + dl.params.period));
    }
    dl.throttled = true;
    treeErase(rq, task);
    const int64_t at = dl.deadline - dl.params.deadline + dl.params.period;
    m_ctx.resched(rq.cpu);
    if (at <= now) {
        replenish(dl);
        if (dl.onRq && !task.blocking && !task.exiting)
            treeInsert(rq, task);
        return;
    }
    m_ctx.cancelTimer(dl.timer);
    const int index = task.index;
    dl.timer = m_ctx.startTimer(at, task.cpu, [this, index] { dlTimer(index); });
}

void DlClass::dlTimer(int taskIndex)
{
    // dl_task_timer(): replenish; a queued task goes back into the tree and may preempt.
    Task& task = m_ctx.task(taskIndex);
    DlEntity& dl = task.dl;
    dl.timer = {};
    if (task.state == TaskRunState::Exited || !dl.throttled)
        return;
    const bool yielded = dl.yielded;
    replenish(dl);
    if (!dl.onRq)
        return; // asleep: only replenished
    if (yielded && dl.jobStart < 0)
        dl.jobStart = m_ctx.clock(); // a task that yielded starts its next job now (§15.8)
    Rq& rq = m_ctx.rq(task.cpu);
    treeInsert(rq, task);
    if (rq.curr != &task.se)
        wakeupPreempt(rq, task, 0);
}

// --- active utilization (§15.6) -----------------------------------------------------------------

void DlClass::addRqBw(Rq& rq, DlEntity& dl)
{
    // __add_rq_bw(): once per CPU the entity is assigned to.
    if (!dl.inThisBw) {
        rq.dl.thisBw += dl.bw;
        dl.inThisBw = true;
    }
}

void DlClass::subRqBw(Rq& rq, DlEntity& dl)
{
    if (dl.inThisBw) {
        rq.dl.thisBw -= dl.bw;
        dl.inThisBw = false;
    }
}

void DlClass::contending(Rq& rq, Task& task, bool migrated)
{
    // task_contending().
    DlEntity& dl = task.dl;
    if (migrated)
        addRqBw(rq, dl);
    if (dl.nonContending) {
        dl.nonContending = false;
        m_ctx.cancelTimer(dl.inactiveTimer);
        dl.inactiveTimer = {};
    } else if (!dl.active) {
        rq.dl.runningBw += dl.bw;
        dl.active = true;
    }
}

void DlClass::nonContending(Rq& rq, Task& task)
{
    // task_non_contending(): active until the 0-lag time deadline − runtime · P / Q.
    DlEntity& dl = task.dl;
    if (!dl.active)
        return;
    const int64_t now = m_ctx.clock();
    const int64_t zerolag = dlZeroLagTime(dl.params, dl.deadline, dl.runtime);
    if (zerolag <= now || task.exiting) {
        rq.dl.runningBw -= dl.bw;
        dl.active = false;
        return;
    }
    dl.nonContending = true;
    const int index = task.index;
    dl.inactiveTimer = m_ctx.startTimer(zerolag, task.cpu, [this, index] { inactiveTimer(index); });
}

void DlClass::inactiveTimer(int taskIndex)
{
    // inactive_task_timer(): the 0-lag time has come: the bandwidth leaves running_bw.
    Task& task = m_ctx.task(taskIndex);
    DlEntity& dl = task.dl;
    dl.inactiveTimer = {};
    if (!dl.nonContending)
        return;
    dl.nonContending = false;
    if (dl.active) {
        m_ctx.rq(task.cpu).dl.runningBw -= dl.bw;
        dl.active = false;
    }
}

// --- class operations ---------------------------------------------------------------------------

void DlClass::enqueueTask(Rq& rq, Task& task, int flags)
{
    DlEntity& dl = task.dl;
    const int64_t now = m_ctx.clock();
    dl.onRq = true;
    if (flags & EnqueueInitial) {
        // setup_new_dl_entity() of a task that starts in the class.
        addRqBw(rq, dl);
        contending(rq, task, false);
        dl.deadline = now + dl.params.deadline;
        dl.runtime = dl.params.runtime;
        dl.jobStart = now;
    } else if (flags & EnqueueWakeup) {
        contending(rq, task, (flags & EnqueueMigrated) != 0);
        dl.jobStart = now;
        // dl_check_constrained_dl(): a constrained task waking between its deadline and its
        // next period waits for that period.
        const int64_t next = dl.deadline - dl.params.deadline + dl.params.period;
        if (!dl.throttled && dl.params.deadline != dl.params.period && dl.deadline < now
            && now < next) {
            dl.throttled = true;
            dl.runtime = std::min<int64_t>(dl.runtime, 0);
            m_ctx.cancelTimer(dl.timer);
            const int index = task.index;
            dl.timer = m_ctx.startTimer(next, task.cpu, [this, index] { dlTimer(index); });
        }
        if (dl.throttled)
            return; // its timer puts it back
        updateDlEntity(dl);
    } else if (flags & (EnqueueMigrated | EnqueueRestore)) {
        // A queued task moved here (push/pull, affinity) or restored after a change.
        addRqBw(rq, dl);
        if (!dl.active) {
            rq.dl.runningBw += dl.bw;
            dl.active = true;
        }
        if (dl.throttled)
            return;
        if (dl.deadline < now) {
            dl.deadline = now + dl.params.deadline;
            dl.runtime = dl.params.runtime;
        }
    }
    treeInsert(rq, task);
}

void DlClass::dequeueTask(Rq& rq, Task& task, int flags)
{
    DlEntity& dl = task.dl;
    if (rq.curr == &task.se)
        updateCurrTask(task);
    treeErase(rq, task);
    if (flags & DequeueSleep) {
        dl.onRq = false;
        endJob(task);
        nonContending(rq, task);
        return;
    }
    {
        // A move (push/pull, affinity) or a change (SAVE): the bandwidth leaves this CPU and is
        // added where the task is enqueued again (ENQUEUE_MIGRATED / RESTORE).
        dl.onRq = false;
        if (dl.nonContending) {
            dl.nonContending = false;
            m_ctx.cancelTimer(dl.inactiveTimer);
            dl.inactiveTimer = {};
        }
        if (dl.active) {
            rq.dl.runningBw -= dl.bw;
            dl.active = false;
        }
        subRqBw(rq, dl);
    }
}

void DlClass::endJob(Task& task)
{
    DlEntity& dl = task.dl;
    if (dl.jobStart < 0)
        return;
    const int64_t now = m_ctx.clock();
    const int64_t response = now - dl.jobStart;
    ++dl.jobs;
    dl.worstResponse = std::max(dl.worstResponse, response);
    if (response > dl.params.deadline) {
        ++dl.misses;
        report("dl_miss", task, dl.jobStart + dl.params.deadline, response - dl.params.deadline,
            "job woken at " + ms(dl.jobStart) + " ended at " + ms(now) + ", "
                + ms(response - dl.params.deadline) + " after its deadline");
    }
    dl.jobStart = -1;
}

SchedEntity* DlClass::pickTask(Rq& rq)
{
    // pick_task_dl(): the leftmost entity.
    if (rq.dl.tree.empty())
        return nullptr;
    return &m_ctx.task(std::get<2>(*rq.dl.tree.begin())).se;
}

void DlClass::putPrevTask(Rq& /*rq*/, Task& prev)
{
    updateCurrTask(prev);
}

void DlClass::setNextTask(Rq& /*rq*/, Task& next, bool /*first*/)
{
    next.dl.execStart = m_ctx.clock();
}

bool DlClass::schedulePrev(Rq& rq, Task& prev)
{
    putPrevTask(rq, prev);
    if (prev.blocking || prev.exiting)
        dequeueTask(rq, prev, DequeueSleep); // block_task()
    if (prev.exiting)
        taskDead(rq, prev);
    return true;
}

void DlClass::taskDead(Rq& rq, Task& task)
{
    // task_dead_dl(): the bandwidth leaves the CPU and the root domain.
    DlEntity& dl = task.dl;
    if (dl.onRq)
        dequeueTask(rq, task, DequeueSleep);
    m_ctx.cancelTimer(dl.timer);
    m_ctx.cancelTimer(dl.inactiveTimer);
    dl.timer = dl.inactiveTimer = {};
    if (dl.active)
        rq.dl.runningBw -= dl.bw;
    dl.active = dl.nonContending = false;
    if (dl.admitted) {
        subRqBw(rq, dl);
        m_totalBw -= dl.bw;
        m_extraBw += static_cast<int64_t>(dl.bw / static_cast<uint64_t>(m_ctx.cpuCount()));
        dl.admitted = false;
    }
}

void DlClass::switchedFrom(Rq& rq, Task& task)
{
    // Dequeued (SAVE) by the class change already: only the timers and the bandwidth remain.
    taskDead(rq, task);
    task.dl.throttled = false;
    task.dl.jobStart = -1;
}

void DlClass::yieldTask(Rq& rq)
{
    // yield_task_dl(): the rest of the budget is given up until the next period.
    if (!rq.curr)
        return;
    Task& task = m_ctx.task(rq.curr->task.value);
    task.dl.yielded = true;
    updateCurrTask(task);
    endJob(task); // the job ends at its yield (§15.8)
}

void DlClass::updateCurrTask(Task& task)
{
    // update_curr_dl() → update_curr_dl_se() (§15.4, §15.6).
    DlEntity& dl = task.dl;
    const int64_t now = m_ctx.clock();
    const int64_t delta = now - dl.execStart;
    if (delta > 0) {
        dl.execStart = now;
        task.se.sumExecRuntime += delta;
        m_ctx.accountExec(task.se, delta);
        Rq& rq = m_ctx.rq(task.cpu);
        dl.runtime -= dl.params.reclaim() ? grubReclaim(delta, rq.dl, dl) : delta;
    } else if (!dl.yielded) {
        return;
    }
    if (dl.throttled || !dl.onRq)
        return;
    if (dl.runtime <= 0 || dl.yielded) {
        if (dl.yielded && dl.runtime > 0)
            dl.runtime = 0;
        throttle(m_ctx.rq(task.cpu), task);
    }
}

void DlClass::updateCurr(Rq& rq)
{
    if (rq.curr) {
        Task& t = m_ctx.task(rq.curr->task.value);
        if (t.isDl())
            updateCurrTask(t);
    }
}

void DlClass::taskTick(Rq& /*rq*/, Task& curr)
{
    // task_tick_dl(): update_curr_dl() enforces the budget at the tick (HRTICK_DL off).
    updateCurrTask(curr);
}

const Task* DlClass::runningDl(int cpu) const
{
    const Rq& rq = m_ctx.rq(cpu);
    if (!rq.curr)
        return nullptr;
    const Task& t = m_ctx.task(rq.curr->task.value);
    return t.isDl() ? &t : nullptr;
}

void DlClass::wakeupPreempt(Rq& rq, Task& task, int /*wakeFlags*/)
{
    // wakeup_preempt_dl(): an earlier deadline preempts; any DL task preempts a lower class.
    // The fair server, while it runs, is a DL entity with its period's end as deadline.
    if (!task.dl.inTree || rq.curr == &task.se)
        return;
    if (const Task* curr = runningDl(rq.cpu)) {
        if (preempts(task.dl, curr->dl)) {
            updateCurrTask(m_ctx.task(curr->index));
            m_ctx.resched(rq.cpu);
        }
        return;
    }
    if (rq.curr && rq.fairServer.running && task.dl.deadline >= rq.fairServer.periodEnd)
        return;
    m_ctx.resched(rq.cpu);
}

int DlClass::selectTaskRq(const Task& task, int /*wakeFlags*/)
{
    // select_task_rq_dl(): stay unless the CPU runs a DL task this one would not preempt; then
    // find_later_rq(): a CPU without DL tasks, else the one whose earliest deadline is latest
    // and later than this task's.
    const int prev = task.cpus.test(task.cpu) ? task.cpu : std::max(0, task.cpus.first());
    const Task* curr = runningDl(prev);
    if (!curr || curr == &task || preempts(task.dl, curr->dl) || task.cpus.count() < 2)
        return prev;
    int best = -1;
    int64_t bestDeadline = task.dl.deadline;
    for (int c = task.cpus.first(); c >= 0; c = task.cpus.next(c)) {
        const int64_t d = earliestDeadline(m_ctx.rq(c));
        if (d > bestDeadline) {
            best = c;
            bestDeadline = d;
        }
    }
    return best >= 0 ? best : prev;
}

void DlClass::migrateTaskRq(Task& task, int /*newCpu*/)
{
    // migrate_task_rq_dl(): a non-contending task leaves running_bw; this_bw leaves the old CPU
    // (task_contending() adds it on the new one).
    DlEntity& dl = task.dl;
    Rq& rq = m_ctx.rq(task.cpu);
    if (dl.nonContending) {
        dl.nonContending = false;
        m_ctx.cancelTimer(dl.inactiveTimer);
        dl.inactiveTimer = {};
        if (dl.active) {
            rq.dl.runningBw -= dl.bw;
            dl.active = false;
        }
    }
    subRqBw(rq, dl);
}

void DlClass::balance(Rq& rq)
{
    // push_dl_task() / pull_dl_task() (§15.7), simplified.
    if (m_queued <= 0 || m_ctx.cpuCount() == 1)
        return;
    const int cpu = rq.cpu;
    auto waiting = [&](int c) -> Task* {
        // The earliest queued DL task of CPU c that is not running there.
        for (const auto& key : m_ctx.rq(c).dl.tree) {
            Task& t = m_ctx.task(std::get<2>(key));
            if (m_ctx.rq(c).curr != &t.se)
                return &t;
        }
        return nullptr;
    };
    // Push: while a waiting task would run at once elsewhere.
    for (int guard = 0; guard < m_ctx.cpuCount(); ++guard) {
        Task* t = waiting(cpu);
        if (!t)
            break;
        int best = -1;
        int64_t bestDeadline = t->dl.deadline;
        for (int c = t->cpus.first(); c >= 0; c = t->cpus.next(c)) {
            if (c == cpu)
                continue;
            const int64_t d = earliestDeadline(m_ctx.rq(c));
            if (d > bestDeadline) {
                best = c;
                bestDeadline = d;
            }
        }
        if (best < 0)
            break;
        m_ctx.moveQueuedTask(*t, best, MigrateReason::Dl);
        m_ctx.wakeupPreempt(m_ctx.rq(best), *t);
    }
    // Pull: a CPU that runs no DL task takes the earliest waiting one of another CPU.
    if (runningDl(cpu) || !rq.dl.tree.empty())
        return;
    Task* pick = nullptr;
    for (int c = 0; c < m_ctx.cpuCount(); ++c) {
        if (c == cpu)
            continue;
        Task* t = waiting(c);
        if (t && t->cpus.test(cpu) && (!pick || t->dl.deadline < pick->dl.deadline))
            pick = t;
    }
    if (pick) {
        m_ctx.moveQueuedTask(*pick, cpu, MigrateReason::Dl);
        m_ctx.resched(cpu);
    }
}

void DlClass::report(
    const char* kind, const Task& task, int64_t from, int64_t dur, std::string what)
{
    if (!m_report || ++m_findings > kMaxDlFindings)
        return;
    m_report(Finding{kind, task.name, task.cpu, from, dur, std::move(what)});
}

} // namespace schedlab
