// SPDX-License-Identifier: GPL-2.0-or-later
// The RT scheduling class (SCHED_FIFO / SCHED_RR, kernel/sched/rt.c) and RT group bandwidth
// (CONFIG_RT_GROUP_SCHED), kernel-model.md §10: queue, pick, accounting, tick, push/pull, the
// period timer's refill. The machine (clock, timers, migrations) is reached through
// MachineContext (tests/support/fakemachine.h in tests/core/tst_rtunit.cpp), the core
// scheduler's cookies through the CoreScheduler it is given. Admission control of
// cpu.rt_runtime_us writes (tg_set_rt_bandwidth) is here too; the cost of its walk is the
// kernel-work cost model's (core/workload/kernelwork.h).
//
// Simplifications (documented in docs/scenarios/rt-group-constraints.md):
// - One queue per CPU (an rt_prio_array: a list per priority) holds every queued RT task (the
//   running one included); group rt_rq's are not separate queues. A task may be picked when neither
//   its group's nor any ancestor's rt_rq is throttled on that CPU. For the usual one-level
//   hierarchy this picks the same task as the kernel's group-entity pick.
// - Push/pull (§10, rt.c push_rt_task/pull_rt_task): after every schedule() a CPU pushes a queued,
//   not running RT task to the allowed CPU that runs the lowest priority (idle or fair counting
//   lowest) if that is lower than the task's, and a CPU that no longer runs an RT task pulls the
//   highest queued-not-running RT task of another CPU. No cpupri, no root-domain overload mask.
// - RT_RUNTIME_SHARE (runtime borrowing) is off, as in every EEVDF-era kernel.
#pragma once

#include "core/base/eventid.h"
#include "core/sched/machinecontext.h"
#include "core/sched/schedclass.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

constexpr int64_t kRtRuntimeInf = -1;                 ///< RUNTIME_INF
constexpr int64_t kRtDefaultPeriodNs = 1'000'000'000; ///< sched_rt_period_us = 1 s
constexpr int64_t kRtDefaultRuntimeNs = 950'000'000;  ///< sched_rt_runtime_us = 0.95 s
constexpr int64_t kRrTimesliceMs = 100;               ///< RR_TIMESLICE = 100 ms in jiffies
constexpr int kBwShift = 20;                          ///< BW_SHIFT
constexpr int64_t kMaxRtRuntimeNs =
    (int64_t{1} << (64 - kBwShift)) - 1; ///< max_rt_runtime = MAX_BW

/// to_ratio(period, runtime) = runtime << BW_SHIFT / period; RUNTIME_INF → 1 << BW_SHIFT.
inline uint64_t toRatio(int64_t periodNs, int64_t runtimeNs)
{
    if (runtimeNs == kRtRuntimeInf)
        return uint64_t{1} << kBwShift;
    if (periodNs == 0)
        return 0;
    return (static_cast<uint64_t>(runtimeNs) << kBwShift) / static_cast<uint64_t>(periodNs);
}

/// One CPU's rt_rq of a task group: the bandwidth state (rt_time, rt_throttled).
struct RtRqBw
{
    int64_t rtTime = 0;
    bool throttled = false;
};

/// struct rt_bandwidth of a task group plus its per-CPU rt_rq bandwidth state. The per-CPU
/// vector is allocated on first use so that thousands of empty groups stay cheap.
struct RtGroup
{
    int64_t runtimeNs = 0; ///< new groups start with 0 (§10.1); root: the global runtime
    int64_t periodNs = kRtDefaultPeriodNs;
    std::vector<int> children; ///< in the kernel's list order (newest first)
    std::vector<RtRqBw> cpu;   ///< per CPU; empty until an RT task of the group ran
    EventId periodTimer;       ///< rt_period_timer while active
};

/// rq->rt: one CPU's RT run queue, kept as the kernel's struct rt_prio_array: a bitmap of the
/// priorities that have queued tasks and one FIFO list per priority. Index i holds rt_priority
/// 99 − i (the kernel's prio), so the first set bit is the highest priority. The lists are linked
/// through Task::rtPrev/rtNext (task indices): enqueue at the head or tail, dequeue and the pick
/// of the highest priority are O(1), whatever the number of queued tasks. RtClass maintains it.
struct RtRq
{
    static constexpr int kPrioLevels = 100; ///< MAX_RT_PRIO
    std::array<uint64_t, 2> bitmap{};       ///< bit i: list i is not empty
    std::array<int, kPrioLevels> head;      ///< first task of each list, -1 if empty
    std::array<int, kPrioLevels> tail;      ///< last task of each list, -1 if empty
    int nrQueued = 0;                       ///< rt_nr_running (the running RT task included)

    RtRq()
    {
        head.fill(-1);
        tail.fill(-1);
    }
    static int indexOf(int rtPriority) { return kPrioLevels - 1 - rtPriority; }
    static int priorityOf(int index) { return kPrioLevels - 1 - index; }
    /// sched_find_first_bit() from @p from on: the first non-empty list at or after index
    /// @p from, or -1.
    int nextIndex(int from) const
    {
        for (int w = from / 64; w < 2 && from < kPrioLevels; ++w, from = w * 64) {
            const uint64_t bits = bitmap[static_cast<size_t>(w)] & (~uint64_t{0} << (from % 64));
            if (bits)
                return w * 64 + std::countr_zero(bits);
        }
        return -1;
    }
    int firstIndex() const { return nextIndex(0); }
    /// No list holds a task (the pick finds nothing).
    bool empty() const { return (bitmap[0] | bitmap[1]) == 0; }
};

/// How much a tg_set_rt_bandwidth() call walked (§10.2–§10.3), for the cost model.

struct Rq;
struct SchedEntity;
struct Task;

class CoreScheduler;
struct ProfileChoices;

enum RtEnqueueFlag : int { RtEnqueueHead = 0x1000 }; ///< ENQUEUE_HEAD

class RtClass final : public SchedClass, private SchedGroupOps
{
public:
    /// @p hz: CONFIG_HZ (the RR slice is in jiffies); @p fairServer: 6.12+, the root rt_rq is
    /// then not limited by the global bandwidth.
    RtClass(MachineContext& ctx, int hz, bool fairServer);
    /// Core scheduling (sched_core_enqueue/dequeue, the cookie checks of push/pull); null: none.
    void setCoreScheduler(CoreScheduler* core) { m_core = core; }
    /// The profile's choices, read at each use (rt_constraint_check); null: the patched walk.
    void setChoices(const ProfileChoices* choices) { m_choices = choices; }

    // SchedClass
    const char* name() const override { return "rt"; }
    void enqueueTask(Rq& rq, Task& task, int flags) override;
    void dequeueTask(Rq& rq, Task& task, int flags) override;
    /// pick_task_rt(); null while the fair server boosts the fair class (it runs above RT).
    SchedEntity* pickTask(Rq& rq) override;
    /// put_prev_task_rt(): update_curr_rt().
    void putPrevTask(Rq& rq, Task& prev) override;
    void setNextTask(Rq& rq, Task& next, bool first) override;
    /// put_prev_task_rt() before the pick (the charge may throttle the group the pick then
    /// skips), and block_task()'s dequeue of a task that blocks or dies.
    bool schedulePrev(Rq& rq, Task& prev) override;
    /// task_dead() of a killed task: it leaves the RT queue.
    void taskDead(Rq& rq, Task& task) override;
    bool fairPolicy() const override { return false; }
    bool placesBlockedOnMaskChange() const override { return true; }
    int affinityCpu(const Task& task, int /*thisCpu*/) override { return selectTaskRq(task, 0); }
    /// The model moves an RT task between groups in place: update_curr_rt() of a running task,
    /// the new group, and a resched of a queued one (the new group may be throttled here, or
    /// not).
    bool changeGroupInPlace(Rq& rq, Task& task, int group) override;
    /// set_cpus_allowed_rt(), model: a waiting task may now be pushed to a newly allowed CPU.
    void setCpusAllowed(Rq& rq, Task& task) override;
    SchedGroupOps* groupOps() override { return this; }
    void taskTick(Rq& rq, Task& curr) override;
    void wakeupPreempt(Rq& rq, Task& task, int wakeFlags) override;
    int selectTaskRq(const Task& task, int wakeFlags) override;
    void balance(Rq& rq) override;
    void updateCurr(Rq& rq) override;
    void switchedTo(Rq& rq, Task& task) override;

    /// The first queued task of @p cpu whose rt_rq's are not throttled (the class pick without
    /// the fair server's boost).
    Task* pickFirst(int cpu);
    /// The queued tasks of @p rq in pick order (highest priority first, FIFO within one): for
    /// tests and checks, O(queued).
    std::vector<int> queuedTasks(const Rq& rq);
    /// Queued tasks looked at so far by the walks over a queue (pick, push, pull): a test of the
    /// queues' complexity counts with it. Enqueue and dequeue walk nothing.
    uint64_t queueVisits() const { return m_queueVisits; }
    /// update_curr_rt() for @p task: charge it and every rt_rq on its path.
    void updateCurrTask(Task& task);
    /// What a CPU runs as cpupri sees it: -1 idle, 0 fair, else the RT priority.
    int cpuPrio(int cpu);
    /// Some rt_rq of @p task's hierarchy is throttled on its CPU.
    bool throttled(const Task& task) const;
    /// sched_rt_runtime_exceeded() limits @p group's rt_rq's.
    bool applies(int group) const;
    /// do_sched_rt_period_timer() of @p group.
    void periodTimer(int group);
    /// tg_set_rt_bandwidth() of @p group: 0 or -EINVAL/-EBUSY with the reason in @p why; the
    /// walk's size (for the cost model) is added to @p count.
    int setBandwidth(
        int group, int64_t periodNs, int64_t runtimeNs, RtWalkCount* count, std::string* why);

    // SchedGroupOps: cpu.rt_runtime_us and cpu.rt_period_us (§10.1–§10.3)
    void groupCreated(int group, int parent) override;
    RtWalkCount writeFiles(
        int group, const CgroupFiles& files, std::vector<std::string>& refused) override;
    bool admits(int group) const override;

    std::vector<RtGroup>& groups() { return m_groups; }
    const std::vector<RtGroup>& groups() const { return m_groups; }
    RtGroup& group(int g) { return m_groups[static_cast<size_t>(g)]; }
    int queued() const { return m_queued; } ///< RT tasks queued on all CPUs
    int rrTicks() const;                    ///< RR_TIMESLICE in ticks

private:
    /// start_rt_bandwidth(): arms @p group's period timer unless it is pending.
    void armPeriodTimer(int group);
    /// Under core scheduling, may @p task be moved to @p cpu (CoreScheduler::cookieFits()).
    bool cookieFits(const Task& task, int cpu) const;

    MachineContext& m_ctx;
    CoreScheduler* m_core = nullptr;
    const ProfileChoices* m_choices = nullptr;
    int m_hz = 1000;
    bool m_fairServer = false;
    std::vector<RtGroup> m_groups; ///< per task group (index as the machine's groups)
    int m_queued = 0;
    uint64_t m_queueVisits = 0;
};

} // namespace schedlab
