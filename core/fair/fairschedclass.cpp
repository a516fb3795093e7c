// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/fair/fairschedclass.h"

#include "core/coresched/corescheduler.h"
#include "core/fair/cfsbandwidth.h"
#include "core/fair/loadavg.h"
#include "core/fair/loadbalance.h"
#include "core/fair/utilest.h"
#include "core/fair/weights.h"
#include "core/kernel/cgroupfiles.h"
#include "core/rt/dlserver.h"
#include "core/workload/task.h"

#include <algorithm>
#include <vector>

namespace schedlab {

FairSchedClass::FairSchedClass(
    FairClass& fair, MachineContext& ctx, const SchedDomains& domains, int hz)
    : m_fair(fair)
    , m_ctx(ctx)
    , m_domains(domains)
    , m_topo(domains.topology())
    , m_hz(hz)
    , m_placement(ctx, *this, domains, hz)
{
    m_fair.setHooks(this);
}

void FairSchedClass::taskQueued(Rq& rq, SchedEntity& taskSe, bool enqueued, int flags)
{
    if (m_core)
        m_core->fairTaskQueued(rq, taskSe, enqueued, flags);
    // util_est_enqueue() / util_est_dequeue() + util_est_update() of enqueue_task_fair() and
    // dequeue_task_fair() (kernel-model.md §6.8): a delayed task's estimate left the sum when
    // it went to sleep and comes back when it is woken.
    if (m_fair.feature(Feature::UtilEst)) {
        if (enqueued) {
            // A delayed task moved by the balancer stays out of the sum (§5.4).
            if (!taskSe.schedDelayed)
                utilEstEnqueue(*rq.cfs, taskSe);
        } else {
            utilEstDequeue(*rq.cfs, taskSe);
            utilEstUpdate(taskSe, flags & DequeueSleep, m_topo.capacityOf(rq.cpu));
        }
    }
    if (!enqueued)
        return; // the final dequeue unlinks it (FairClass::dequeueEntities)
    // account_entity_enqueue(): list_add() at the head; a delayed task requeued in place keeps
    // its position (it never left the list).
    if (!(flags & EnqueueDelayed) || !taskSe.groupNode.is_linked()) {
        taskSe.groupNode.unlink();
        rq.cfsTasks.push_front(taskSe);
    }
    if (m_ctx.nrRunning(rq.cpu) >= 2 && m_balancer)
        m_balancer->noteOverloaded(); // add_nr_running(): set_rd_overloaded()
}

void FairSchedClass::enqueueTask(Rq& rq, Task& task, int flags)
{
    m_fair.enqueueTask(rq, task.se, flags);
}

void FairSchedClass::dequeueTask(Rq& rq, Task& task, int flags)
{
    m_fair.dequeueEntities(rq, task.se, flags);
}

void FairSchedClass::fairQueued(Rq& rq, bool any)
{
    // dl_server_start() at the first fair task queued, dl_server_stop() after the last one
    // (enqueue_task_fair(), dequeue_entities(), throttle and unthrottle; §15.6).
    if (!m_server)
        return;
    if (any)
        m_server->fairQueued(rq.cpu);
    else
        m_server->fairEmpty(rq.cpu);
}

SchedEntity* FairSchedClass::pickTask(Rq& rq)
{
    return rq.fairServer.running ? nullptr : m_fair.pickTask(rq);
}

void FairSchedClass::putPrevTask(Rq& rq, Task& prev)
{
    m_fair.putPrevTask(rq, prev.se);
}

void FairSchedClass::setNextTask(Rq& rq, Task& next, bool first)
{
    m_fair.setNextTask(rq, next.se, first);
    if (first) // __set_next_task_fair()
        updateMisfitStatus(rq, &next);
}

// --- __schedule()
// ---------------------------------------------------------------------------------

void FairSchedClass::blockPrev(Rq& rq, Task& prev)
{
    m_bw->endBoost(prev);
    // block_task(): dequeue_task_fair(DEQUEUE_SLEEP), which may leave the task delayed (§5.1);
    // task_dead_fair(): a dead task never stays delayed.
    const int r = m_fair.dequeueEntities(rq, prev.se, DequeueSleep);
    if (prev.exiting && r < 0)
        m_fair.dequeueEntities(rq, prev.se, DequeueSleep | DequeueDelayed);
}

bool FairSchedClass::newIdleBalance(Rq& rq)
{
    return m_balancer->newIdle(rq.cpu);
}

void FairSchedClass::cpuIdleChanged(Rq& rq, bool idle)
{
    if (!idle) {
        m_load->cpuBusy(rq.cpu); // the PELT clock runs scaled from here (§6.6)
        return;
    }
    m_load->cpuIdle(rq.cpu);                           // update_idle_rq_clock_pelt()
    m_placement.cpuEnteredIdle(rq.cpu, m_ctx.clock()); // idle_stamp, update_idle_core()
    m_balancer->cpuEnteredIdle(rq.cpu);                // do_idle(): NOHZ stats, the tick stops
}

void FairSchedClass::wokenOnCpu(Rq& rq)
{
    if (const int64_t stamp = m_placement.idleStamp(rq.cpu); stamp > 0)
        m_balancer->idleEnded(rq.cpu, m_ctx.clock() - stamp);
    m_placement.taskWokenOn(rq.cpu);
}

void FairSchedClass::taskDead(Rq& rq, Task& task)
{
    if (!task.se.onRq)
        return;
    const int flags = task.se.schedDelayed ? DequeueSleep | DequeueDelayed : DequeueSleep;
    if (m_fair.dequeueEntities(rq, task.se, flags) < 0)
        m_fair.dequeueEntities(rq, task.se, DequeueSleep | DequeueDelayed);
}

// --- changes of the task
// --------------------------------------------------------------------------

void FairSchedClass::yieldTask(Rq& rq)
{
    m_fair.yieldTask(rq);
}

void FairSchedClass::reweightTask(Rq& /*rq*/, Task& task)
{
    const LoadWeight lw = taskLoadWeight(task.nice, task.se.idlePolicy);
    m_fair.reweightEntity(*task.se.cfsRq, task.se, lw.weight, lw.invWeight);
}

void FairSchedClass::prioChanged(Rq& rq, Task& task, int oldNice)
{
    if (!task.se.onRq || rq.cfs->eevdfQueued() == 1)
        return;
    if (rq.curr == &task.se) {
        if (task.nice > oldNice)
            m_ctx.resched(rq.cpu);
    } else {
        wakeupPreempt(rq, task, 0); // RT curr: no fair preemption
    }
}

void FairSchedClass::postInitTask(Task& task, int cpu)
{
    // init_entity_runnable_average() and post_init_entity_util_avg() (§6.6); the kernel tests
    // sched_class != &fair_sched_class there: only a fair task starts with its weight as load.
    task.se.avg = PeltAvg{};
    task.se.avg.loadAvg = scaleLoadDown(task.se.load.weight);
    m_load->postInitUtil(task.se, m_placement.archCapacity(cpu));
    task.se.peltAttached = false; // attached to the chosen CPU's cfs_rq at enqueue
    task.se.vlag = 0;
    task.se.relDeadline = false;
}

int64_t FairSchedClass::hrtickDelay(const Rq& rq) const
{
    if (!rq.curr || !m_fair.feature(Feature::HrTick) || rq.cfs->hNrQueued <= 1)
        return 0;
    // hrtick_start_fair(): fire when the task's slice is used up. §7.2: 7.x arms the timer for
    // the real time left to the virtual deadline; earlier kernels for the part of the slice not
    // yet run since the pick.
    const SchedEntity& se = *rq.curr;
    if (!m_traits || m_traits->hrtickFromDeadline)
        return static_cast<int64_t>(static_cast<Int128>(vdiff(se.deadline, se.vruntime))
            * static_cast<Int128>((m_fair.params().choices->flat ? se.hLoad : se.load).weight)
            / kNice0Load);
    return se.slice - (se.sumExecRuntime - se.prevSumExecRuntime);
}

// --- the cpu controller's fair files
// --------------------------------------------------------------

uint64_t sharesFromCpuWeight(int cpuWeight)
{
    // sched_weight_from_cgroup(): DIV_ROUND_CLOSEST(weight · 1024, 100), then scale_load and
    // clamp to [MIN_SHARES, MAX_SHARES] scaled (§2.1).
    const uint64_t unscaled = (static_cast<uint64_t>(cpuWeight) * 1024 + 50) / 100;
    return std::clamp(scaleLoad(unscaled), scaleLoad(kMinShares), scaleLoad(kMaxShares));
}

int cpuWeightRead(uint64_t shares)
{
    // cpu_weight_read_u64(): sched_weight_to_cgroup(tg_weight()) = clamp(DIV_ROUND_CLOSEST(
    // scale_load_down(shares) · 100, 1024), CGROUP_WEIGHT_MIN, CGROUP_WEIGHT_MAX).
    const uint64_t read = (scaleLoadDown(shares) * 100 + 512) / 1024;
    return static_cast<int>(std::clamp<uint64_t>(read, 1, 10000));
}

WeightWrite writeWeightFiles(uint64_t& shares, bool& idle, const CgroupFiles& files,
    const std::string& path, std::vector<std::string>* refused)
{
    WeightWrite out;
    // __sched_group_set_shares(): clamped; an unchanged value is not propagated.
    auto setShares = [&](uint64_t value) {
        value = std::clamp(value, scaleLoad(kMinShares), scaleLoad(kMaxShares));
        if (value != shares) {
            shares = value;
            out.sharesChanged = true;
        }
    };
    // sched_group_set_idle(): nothing for the flag the group already has; otherwise idle groups
    // get WEIGHT_IDLEPRIO and a group leaving idle gets NICE_0_LOAD.
    auto setIdle = [&](bool value) {
        if (value == idle)
            return;
        idle = value;
        out.idleChanged = true;
        setShares(idle ? scaleLoad(kWeightIdlePrio) : kNice0Load);
    };
    // sched_group_set_shares() (cpu.weight, cpu.weight.nice): -EINVAL while tg_is_idle().
    auto setWeight = [&](const std::string& file, int written, uint64_t value) {
        if (idle) {
            if (refused)
                refused->push_back("write " + std::to_string(written) + " > " + path + "/" + file
                    + ": EINVAL (the group is idle: cpu.idle 1 keeps its weight at 3, "
                      "cpu.weight reads 1)");
            return;
        }
        setShares(value);
    };
    if (files.idle && !*files.idle)
        setIdle(false);
    if (files.weight)
        setWeight("cpu.weight", *files.weight, sharesFromCpuWeight(*files.weight));
    if (files.weightNice)
        setWeight("cpu.weight.nice", *files.weightNice,
            scaleLoad(kPrioToWeight[static_cast<size_t>(*files.weightNice + 20)]));
    if (files.idle && *files.idle)
        setIdle(true);
    return out;
}

void FairSchedClass::groupCreated(int group, int /*parent*/)
{
    // sched_online_group() → online_fair_sched_group(): the new group's entities are attached to
    // their parents' PELT sums now, not at their first enqueue (kernel-model.md §6.6).
    if (m_load)
        m_load->onlineGroup(group);
}

RtWalkCount FairSchedClass::writeFiles(
    int group, const CgroupFiles& files, std::vector<std::string>& refused)
{
    if (files.cpuMax)
        m_bw->setCpuMax(group, *files.cpuMax);
    if (group == 0)
        return {}; // the root has no cpu.weight or cpu.idle (the reader refuses them there)
    TaskGroup& g = m_fair.groups()[static_cast<size_t>(group)];
    const WeightWrite w = writeWeightFiles(g.shares, g.idle, files, g.path, &refused);
    if (w.idleChanged) {
        // sched_group_set_idle(), per CPU: grp_cfs_rq->idle (se_is_idle() of the group entity),
        // then the tasks below that were not idle yet become idle (or stop being) in h_nr_idle
        // of every queue above, up to the first idle one, which counted them already.
        for (size_t c = 0; c < g.se.size(); ++c) {
            g.se[c]->idlePolicy = g.idle;
            const CfsRq& grq = *g.cfsRq[c];
            const int delta = (grq.hNrQueued - grq.hNrIdle) * (g.idle ? 1 : -1);
            for (SchedEntity* se = g.se[c].get(); se && se->onRq; se = se->parent) {
                se->cfsRq->hNrIdle += delta;
                if (se->cfsRq->isIdle())
                    break;
            }
        }
    }
    if (w.sharesChanged) {
        // __sched_group_set_shares(): refresh the group entity on every CPU, bottom-up.
        for (auto& groupSe : g.se) {
            for (SchedEntity* se = groupSe.get(); se; se = se->parent) {
                if (se->onRq) {
                    m_load->updateLoadAvg(*se->cfsRq, *se, true);
                    m_fair.updateCfsGroup(*se);
                }
            }
        }
    }
    return {};
}

void FairSchedClass::taskTick(Rq& rq, Task& curr)
{
    m_fair.taskTick(rq);
    if (m_domains.asymCapacity()) // update_misfit_status()'s first test, without the call
        updateMisfitStatus(rq, &curr);
    if (m_core)
        m_core->taskTick(rq.cpu); // task_tick_core()
}

void FairSchedClass::updateMisfitStatus(Rq& rq, const Task* curr)
{
    // update_misfit_status() (kernel-model.md §8.4): only on a machine of differing capacities.
    if (!m_domains.asymCapacity())
        return;
    // The common case first: the task fits its CPU (the kernel caches the rest of the inputs).
    if (!curr || fitsCapacity(taskUtil(*curr), m_topo.capacityOf(rq.cpu))) {
        rq.misfitTaskLoad = 0;
        return;
    }
    MisfitInput in;
    in.util = taskUtil(*curr);
    in.hLoad = static_cast<int64_t>(taskHLoad(curr->index));
    in.capacity = m_topo.capacityOf(rq.cpu);
    in.nrCpusAllowed = curr->cpus.count();
    in.fittingCpuRule = !m_traits || m_traits->misfitFittingCpu;
    in.maxAllowedCapacity = m_domains.maxAllowedCapacity([&](int c) { return curr->cpus.test(c); });
    rq.misfitTaskLoad = misfitTaskLoad(in);
}

void FairSchedClass::wakeupPreempt(Rq& rq, Task& task, int wakeFlags)
{
    if (rq.curr
        && (m_ctx.task(rq.curr->task.value).isRt() || m_ctx.task(rq.curr->task.value).isDl())) {
        if (m_server)
            m_server->starve(rq.cpu); // dl_server_start() when fair work arrives under RT
        return; // a fair task never preempts an RT one (the fair server has its own timer)
    }
    m_fair.checkPreemptWakeup(rq, task.se, wakeFlags);
}

void FairSchedClass::migrateTaskRq(Task& task, int /*newCpu*/)
{
    if (m_load)
        m_load->remove(task.se); // remove_entity_load_avg()
}

int FairSchedClass::affinityCpu(const Task& task, int thisCpu)
{
    return m_placement.anyAndDistribute(task.cpus, thisCpu);
}

void FairSchedClass::taskWoken(Rq& /*rq*/, Task& task)
{
    if (m_bw)
        m_bw->boostTask(task);
}

void FairSchedClass::taskChangeGroup(Task& task)
{
    if (m_load)
        m_load->remove(task.se); // detach_task_cfs_rq(): the load leaves the old cfs_rq
}

void FairSchedClass::switchedFrom(Rq& /*rq*/, Task& task)
{
    if (m_load)
        m_load->remove(task.se); // remove_entity_load_avg()
}

void FairSchedClass::switchedTo(Rq& rq, Task& /*task*/)
{
    m_ctx.resched(rq.cpu);
}

void FairSchedClass::updateCurr(Rq& rq)
{
    // update_curr() at every level of the running fair hierarchy (where the level's entity is
    // its cfs_rq's curr: not for a running task of another class).
    for (SchedEntity* level = rq.curr; level; level = level->parent)
        if (level->cfsRq && level->cfsRq->curr == level && level->onRq)
            m_fair.updateCurr(*level->cfsRq);
}

// --- PlacementServices (kernel-model.md §8.2) ---------------------------------------------------

bool FairSchedClass::schedIdleCpu(int cpu) const
{
    // sched_idle_cpu(): every runnable task is SCHED_IDLE or below a cpu.idle group (none at all:
    // the CPU is idle instead).
    const int idle = m_ctx.rq(cpu).cfs->hNrIdle;
    return idle > 0 && m_ctx.nrRunning(cpu) == idle;
}

int FairSchedClass::nrDelayed(int cpu) const
{
    const CfsRq& cfs = *m_ctx.rq(cpu).cfs;
    return cfs.hNrQueued - cfs.hNrRunnable;
}

uint64_t FairSchedClass::cpuLoad(int cpu) const
{
    return m_ctx.rq(cpu).cfs->avg.loadAvg;
}

uint64_t FairSchedClass::cpuUtil(int cpu) const
{
    return cfsCpuUtil(
        m_ctx.rq(cpu).cfs->avg, m_fair.feature(Feature::UtilEst), m_topo.capacityOf(cpu));
}

uint64_t FairSchedClass::taskUtil(const Task& p) const
{
    return cfsTaskUtil(p.se, m_fair.feature(Feature::UtilEst));
}

uint64_t FairSchedClass::cpuRunnable(int cpu) const
{
    return m_ctx.rq(cpu).cfs->avg.runnableAvg;
}

uint64_t FairSchedClass::taskHLoad(int task) const
{
    // task_h_load(): the root cfs_rq's load handed down the hierarchy in proportion to each
    // group entity's load (update_cfs_rq_h_load(), computed afresh instead of once a jiffy).
    const SchedEntity& se = m_ctx.task(task).se;
    if (!se.cfsRq)
        return se.avg.loadAvg;
    std::vector<const SchedEntity*> chain; // the group entities above the task, lowest first
    for (const SchedEntity* g = se.parent; g; g = g->parent)
        chain.push_back(g);
    const CfsRq* top = chain.empty() ? se.cfsRq : chain.back()->cfsRq;
    uint64_t hLoad = top ? top->avg.loadAvg : 0; // h_load of the root cfs_rq
    for (size_t k = chain.size(); k-- > 0;) {
        const SchedEntity& g = *chain[k];
        hLoad = hLoad * g.avg.loadAvg / (g.cfsRq->avg.loadAvg + 1);
    }
    return se.avg.loadAvg * hLoad / (se.cfsRq->avg.loadAvg + 1);
}

int FairSchedClass::selectTaskRq(const Task& task, int wakeFlags)
{
    WakeContext ctx;
    ctx.flags = wakeFlags;
    const int event = m_ctx.thisCpu();
    ctx.thisCpu =
        event >= 0 && event < m_topo.cpus ? event : std::clamp(task.cpu, 0, m_topo.cpus - 1);
    const SchedEntity* curr = m_ctx.rq(ctx.thisCpu).curr;
    ctx.waker = curr && curr != &task.se ? static_cast<int>(curr->task.value) : -1;
    // select_task_rq_fair(): a wakeup is sync only when `current` is not exiting
    // (PF_EXITING): an exiting task's wakeup of its parent (do_notify_parent(), WF_SYNC)
    // weighs both CPUs' loads like any other (kernel-model.md §8.2).
    if ((wakeFlags & WakeSync) && ctx.waker >= 0) {
        const Task& waker = m_ctx.task(ctx.waker);
        if (waker.exiting || waker.state == TaskRunState::Exited)
            ctx.flags &= ~WakeSync;
    }
    ctx.jiffies = m_ctx.clock() * m_hz / 1000000000;
    // select_idle_sibling() on a machine of differing capacities brings the waking task's
    // utilization up to date before it checks where the task fits (kernel-model.md §8.4).
    if ((wakeFlags & WakeTtwu) && m_domains.asymCapacity() && m_load)
        m_load->syncEntityLoadAvg(m_ctx.task(task.index).se); // sync_entity_load_avg()
    const PlacementResult r = m_placement.selectTaskRq(task, ctx);
    m_lastPlacement = r.detail;
    return r.cpu;
}

} // namespace schedlab
