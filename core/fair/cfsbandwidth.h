// SPDX-License-Identifier: GPL-2.0-or-later
// CFS bandwidth control (cpu.max, kernel/sched/fair.c, kernel-model.md §9): the mechanism over
// the per-group pool (core/fair/bandwidth.h) and the per-CPU cfs_rq state (CfsRq).
#pragma once

#include "core/fair/fairclass.h"
#include "core/kernel/cgroupfiles.h"
#include "core/workload/task.h"

#include <cstdint>
#include <vector>

namespace schedlab {

class CfsBandwidthControl
{
public:
    CfsBandwidthControl(MachineContext& ctx, FairClass& fair, std::vector<TaskGroup>& groups,
        const ProfileChoices& choices);

    /// tg_set_cfs_bandwidth(): a cpu.max write to @p group.
    void setCpuMax(int group, const CpuMax& max);

    // The fair class's calls (§9.2).
    void accountRuntime(CfsRq& cfsRq, int64_t delta); ///< account_cfs_rq_runtime()
    /// check_cfs_rq_runtime(); inline: asked at every level of every pick, it answers at once
    /// without the ≤6.17 group throttle or without an exhausted quota on @p cfsRq.
    bool checkRuntime(CfsRq& cfsRq)
    {
        if (m_choices.throttle != ThrottleModel::Group || !cfsRq.runtimeEnabled
            || cfsRq.runtimeRemaining > 0 || cfsRq.boostPick)
            return false;
        return throttleAtPick(cfsRq);
    }
    void checkEnqueueThrottle(CfsRq& cfsRq); ///< check_enqueue_throttle()
    void returnRuntime(CfsRq& cfsRq);        ///< return_cfs_rq_runtime()

    /// ≤6.17 put_prev_entity() check: throttle exhausted cfs_rq's on the running task's path
    /// (inline: at every switch; nothing to do under the 6.18+ task-based throttle).
    void checkPrevRuntime(Task& prev)
    {
        if (m_choices.throttle == ThrottleModel::Group)
            checkPrevRuntimeGroup(prev);
    }
    /// 6.18+: @p task's hierarchy is throttled and it is about to return to user mode (inline:
    /// asked of prev and of the picked task at every switch).
    bool shouldPark(const Task& task) const
    {
        return m_choices.throttle == ThrottleModel::Task && task.se.cfsRq
            && task.se.cfsRq->throttleCount > 0 && task.kernelDepth == 0 && task.lockWaiting.empty()
            && !task.exiting && !task.blocking && task.state != TaskRunState::Exited;
    }
    void parkTask(Task& task);
    void unlinkParked(Task& task);
    /// enqueue_throttled_task(): back on a limbo list if its hierarchy is throttled, else queued.
    void requeueParked(Task& task);
    /// boost_throttled_on_wakeup (a what-if): unthrottle @p task's path on credit.
    void boostTask(Task& task);
    void endBoost(Task& task);

    void periodTimer(int group); ///< sched_cfs_period_timer()
    void slackTimer(int group);  ///< sched_cfs_slack_timer()

private:
    /// Arms @p group's period timer (@p slack false) or slack timer at @p at (a global timer).
    void startTimer(int group, int64_t at, bool slack);
    bool assignRuntime(CfsRq& cfsRq, int64_t target);
    bool throttle(CfsRq& cfsRq);
    /// checkRuntime() of an exhausted cfs_rq: throttled already, or now.
    bool throttleAtPick(CfsRq& cfsRq);
    /// checkPrevRuntime()'s walk up prev's hierarchy.
    void checkPrevRuntimeGroup(Task& prev);
    void unthrottle(CfsRq& cfsRq, bool boost);
    void startPeriodTimer(int group);
    void startSlackTimer(int group);
    void distributeRuntime(int group);
    /// walk_tg_tree_from(): @p f on the cfs_rq of @p group and of every descendant on @p cpu.
    template <typename F> void forSubtree(int group, int cpu, F&& f);

    MachineContext& m_ctx;
    FairClass& m_fair;
    std::vector<TaskGroup>& m_groups;
    const ProfileChoices& m_choices;
};

} // namespace schedlab
