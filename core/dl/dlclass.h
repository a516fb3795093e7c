// SPDX-License-Identifier: GPL-2.0-or-later
// The deadline class (SCHED_DEADLINE, kernel/sched/deadline.c), kernel-model.md §15: per-CPU EDF
// tree by absolute deadline, CBS accounting with replenishment and throttling (dl_timer), the
// wakeup rule (dl_entity_overflow(), the revised rule of constrained tasks), the inactive timer
// (dl_non_contending), GRUB reclaiming (SCHED_FLAG_RECLAIM), push/pull and the root domain's
// admission control (sched_dl_overflow(), the fair servers' bandwidth included). The machine is
// reached through MachineContext only (unit-tested on tests/support/fakemachine.h).
//
// Simplifications (kernel-model.md §15.7–§15.8): one root domain of all CPUs; push/pull and
// the wakeup placement try CPUs in number order without domains or capacity fitness; no
// priority inheritance into DL, no SCHED_FLAG_DL_OVERRUN signal; the fair server keeps its own
// state (rq->fair_server, core/rt/dlserver.h) and competes here through earliestDeadline().
#pragma once

#include "core/base/eventid.h"
#include "core/dl/dlentity.h"
#include "core/sched/machinecontext.h"
#include "core/sched/schedclass.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace schedlab {

struct Finding;
struct RtGroup;

/// rq->dl: one CPU's EDF tree (key: deadline, then enqueue order, then the task) and its
/// bandwidth sums (kernel-model.md §15.3, §15.6).
struct DlRq
{
    std::set<std::tuple<int64_t, uint64_t, int>> tree; ///< runnable, not throttled entities
    uint64_t runningBw = 0;                            ///< running_bw: active utilization
    uint64_t thisBw = 0; ///< this_bw: every DL entity assigned here (and the fair server)
    int nrRunning() const { return static_cast<int>(tree.size()); } ///< dl_nr_running
};

class DlClass final : public SchedClass
{
public:
    /// @p fairServers: the profile has the 6.12+ fair deadline server (its bandwidth is admitted
    /// on every CPU at start, kernel-model.md §15.2).
    DlClass(MachineContext& ctx, bool fairServers);
    /// The global RT limit (sched_rt_runtime_us / sched_rt_period_us) is the root RT group's
    /// (the RT class's groups, index 0, read at each use); null: the defaults (950 ms / 1 s).
    void setRtGroups(const std::vector<RtGroup>* groups) { m_rtGroups = groups; }
    /// Where the class reports dl_miss / dl_throttle findings.
    void setReporter(std::function<void(const Finding&)> report) { m_report = std::move(report); }

    /// sched_setattr(SCHED_DEADLINE) of @p task at creation: __checkparam_dl() and
    /// sched_dl_overflow(). 0 when admitted (the task's entity is set up), else -EINVAL or
    /// -EBUSY with the reason in @p why.
    int setAttr(Task& task, const DlParams& params, std::string* why);
    /// The earliest deadline of @p rq's tree, or INT64_MAX when empty (the fair server's
    /// comparison, kernel-model.md §15.3).
    int64_t earliestDeadline(const Rq& rq) const;

    // Root-domain bandwidth (kernel-model.md §15.2, §15.6).
    uint64_t maxBw() const;   ///< dl_b->bw = to_ratio(rt_period, rt_runtime); BW_UNIT unlimited
    uint64_t bwRatio() const; ///< rq->dl.bw_ratio = to_ratio(rt_runtime, rt_period) >> 12
    uint64_t totalBw() const { return m_totalBw; }
    int64_t extraBw() const { return m_extraBw; } ///< rq->dl.extra_bw (the same on every CPU)
    /// grub_reclaim(): the budget @p delta ns of running costs @p dl on @p rq.
    int64_t grubReclaim(int64_t delta, const DlRq& rq, const DlEntity& dl) const;

    // SchedClass
    const char* name() const override { return "dl"; }
    void enqueueTask(Rq& rq, Task& task, int flags) override;
    void dequeueTask(Rq& rq, Task& task, int flags) override;
    SchedEntity* pickTask(Rq& rq) override;
    void putPrevTask(Rq& rq, Task& prev) override;
    void setNextTask(Rq& rq, Task& next, bool first) override;
    bool schedulePrev(Rq& rq, Task& prev) override;
    void taskDead(Rq& rq, Task& task) override;
    void yieldTask(Rq& rq) override;
    bool fairPolicy() const override { return false; }
    int affinityCpu(const Task& task, int /*thisCpu*/) override { return selectTaskRq(task, 0); }
    void taskTick(Rq& rq, Task& curr) override;
    void wakeupPreempt(Rq& rq, Task& task, int wakeFlags) override;
    int selectTaskRq(const Task& task, int wakeFlags) override;
    void migrateTaskRq(Task& task, int newCpu) override;
    /// switched_from_dl() with sched_dl_overflow()'s release: a task leaving the class gives
    /// its bandwidth back to the root domain.
    void switchedFrom(Rq& rq, Task& task) override;
    void balance(Rq& rq) override;
    void updateCurr(Rq& rq) override;

    /// update_curr_dl() for the running @p task.
    void updateCurrTask(Task& task);
    /// The queued tasks of @p rq in EDF order (tests, the inspector).
    std::vector<int> queuedTasks(const Rq& rq) const;
    int queued() const { return m_queued; } ///< DL entities in a tree, all CPUs

private:
    void treeInsert(Rq& rq, Task& task);
    void treeErase(Rq& rq, Task& task);
    /// replenish_dl_entity(), §15.4.
    void replenish(DlEntity& dl);
    /// update_dl_entity() at a wakeup, §15.5.
    void updateDlEntity(DlEntity& dl);
    /// Throttles @p task (runtime exhausted or yielded) and arms its replenishment (§15.4).
    void throttle(Rq& rq, Task& task);
    void dlTimer(int taskIndex);
    void inactiveTimer(int taskIndex);
    /// task_contending() / task_non_contending(), §15.6.
    void contending(Rq& rq, Task& task, bool migrated);
    void nonContending(Rq& rq, Task& task);
    /// __add_rq_bw() / __sub_rq_bw() of @p dl on @p rq (this_bw), each at most once.
    static void addRqBw(Rq& rq, DlEntity& dl);
    static void subRqBw(Rq& rq, DlEntity& dl);
    /// The end of a job at a block: response time, miss (§15.8).
    void endJob(Task& task);
    /// dl_entity_preempt(a, b): a's deadline strictly earlier.
    static bool preempts(const DlEntity& a, const DlEntity& b) { return a.deadline < b.deadline; }
    /// The DL task running on @p cpu, or null.
    const Task* runningDl(int cpu) const;
    void report(const char* kind, const Task& task, int64_t from, int64_t dur, std::string what);

    MachineContext& m_ctx;
    const std::vector<RtGroup>* m_rtGroups = nullptr;
    const RtGroup* rtRoot() const;
    std::function<void(const Finding&)> m_report;
    bool m_fairServers = false;
    bool m_serversAdmitted = false;
    uint64_t m_totalBw = 0; ///< dl_b->total_bw of the one root domain
    int64_t m_extraBw = -1; ///< -1 until the first use (it starts at max_bw)
    uint64_t m_seq = 0;
    int m_queued = 0;
    int m_findings = 0;
};

} // namespace schedlab
