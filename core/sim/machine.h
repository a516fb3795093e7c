// SPDX-License-Identifier: GPL-2.0-or-later
// The machine behind Simulation: CPUs with their run queues, task groups, tasks and their
// programs, the event loop, the recording. Scheduling decisions are the classes'; this class
// provides the kernel's core around them (__schedule, try_to_wake_up, wake_up_new_task, the tick,
// set_user_nice, sched_move_task, affinity), reaching a class only through its SchedClass
// operations (core/sched/schedclass.h; the class table in machineclasses.cpp), and the workload
// interpreter. Construction is machinesetup.cpp, the resource guards ResourceGuard, the busy/wait
// books WaitBook.
#pragma once

#include "core/base/prng.h"
#include "core/coresched/corescheduler.h"
#include "core/fair/cfsbandwidth.h"
#include "core/fair/fairclass.h"
#include "core/fair/fairschedclass.h"
#include "core/fair/loadavg.h"
#include "core/fair/loadbalance.h"
#include "core/record/invariants.h"
#include "core/record/machineview.h"
#include "core/record/metricsbuilder.h"
#include "core/rt/dlserver.h"
#include "core/rt/rtclass.h"
#include "core/sched/domains.h"
#include "core/sched/idleclass.h"
#include "core/sched/migration.h"
#include "core/sched/rq.h"
#include "core/sim/eventqueue.h"
#include "core/sim/resourceguard.h"
#include "core/sim/simulation.h"
#include "core/sim/waitbook.h"
#include "core/workload/interpreter.h"
#include "core/workload/kernelwork.h"
#include "core/workload/mutexes.h"
#include "core/workload/task.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace schedlab {

/// The machine context of every class and unit (MachineContext, read-only as MachineView) and
/// the narrow services left to single units: BalanceServices, KernelWorkServices and
/// ProgramServices.
class Machine final : public MachineView,
                      private BalanceServices,
                      private KernelWorkServices,
                      private ProgramServices
{
public:
    Machine(const Scenario& scenario, const RunOptions& options);
    ~Machine() override;

    bool step();
    void runUntil(Nanoseconds t);
    Nanoseconds now() const { return m_events.now(); }
    Nanoseconds endTime() const { return m_end; }
    bool finished() const;
    uint64_t eventsExecuted() const override { return m_events.executed(); }
    const Recording& recording() const { return m_rec; }
    Recording& streamedRecording() { return m_rec; } ///< for Simulation::streamRecording()
    /// Simulation::releaseExitedTasks(): from now on a forked task is freed after its exit.
    void releaseExitedTasks(bool fold);
    int tasksHeld() const
    {
        return static_cast<int>(std::count_if(
            m_tasks.begin(), m_tasks.end(), [](const auto& t) { return t != nullptr; }));
    }
    std::vector<TaskView> taskViews() const;
    std::vector<CgroupView> cgroupViews() const;
    int cpuCount() const override { return m_cpus; }
    std::string profileName() const { return m_profileName; }
    const FeatureSet& features() const { return m_features; }
    const ProfileChoices& choices() const { return m_choices; }
    int64_t baseSlice() const { return m_baseSlice; }
    int hz() const { return m_hz; }
    void apply(const Action& action);
    Metrics metrics() const;
    Inspection inspect(bool settle); // machineinspect.cpp
    const std::vector<std::string>& violations() const { return m_violations; }
    const std::string& stopReason() const { return m_guard.stopReason(); }

    // MachineContext (core/sched/machinecontext.h)
    /// clock() + @p d, saturated at the end of the 64-bit clock (docs/limits.md): a duration
    /// drawn from a program never wraps an event into the past.
    int64_t after(int64_t d) const { return saturatingAdd(clock(), d); }
    void resched(int cpu, bool lazy = false) override;
    /// NEED_RESCHED_LAZY pending on @p cpu becomes NEED_RESCHED (a return to user mode acts on it,
    /// the tick promotes it); false when none was pending.
    bool promoteLazyResched(int cpu);
    void accountExec(SchedEntity& taskSe, int64_t delta) override;
    void buildRecord(
        RecordKind kind, const SchedEntity& se, int64_t a, int64_t b, int64_t c) override;
    /// A Migrate record with why the task moved (core/sched/migration.h).
    void recordMigrate(
        const SchedEntity& se, int from, int to, MigrateReason reason, MigrateDetail detail = {});
    void buildSample(const SchedEntity& se) override;

private:
    // MachineContext (the classes' and units' view of the machine)
    Rq& rq(int cpu) override { return *m_rqs[static_cast<size_t>(cpu)]; }
    const Rq& rq(int cpu) const override { return *m_rqs[static_cast<size_t>(cpu)]; }
    Task& task(int index) override { return *m_tasks[static_cast<size_t>(index)]; }
    const Task& task(int index) const override { return *m_tasks[static_cast<size_t>(index)]; }
    const Task* findTask(int index) const override
    {
        return m_tasks[static_cast<size_t>(index)].get();
    }
    int taskCount() const override { return static_cast<int>(m_tasks.size()); }
    const std::vector<TaskGroup>& taskGroups() const override { return m_groups; }
    int thisCpu() const override { return m_eventCpu; }
    void moveQueuedTask(
        Task& task, int cpu, MigrateReason reason, MigrateDetail detail = {}) override;
    EventId startTimer(int64_t at, int cpu, std::function<void()> fn) override;
    void cancelTimer(EventId id) override { m_events.cancel(id); }
    bool timerPending(EventId id) const override { return m_events.isPending(id); }
    Rq& runQueue(int cpu) { return *m_rqs[static_cast<size_t>(cpu)]; }
    Task& taskAt(int index) { return *m_tasks[static_cast<size_t>(index)]; }
    /// task->sched_class: the class of @p task's policy.
    /// p->sched_class: the one place that maps a task to its class; the kernel paths dispatch
    /// through the result (inline: several calls per event).
    SchedClass& classOf(const Task& task) const
    {
        if (task.isDl())
            return *m_classes[kDlClass];
        return *m_classes[task.isRt() ? kRtClass : kFairClass];
    }
    /// classOf(task) is the fair class.
    static bool isFair(const Task& task) { return !task.isDl() && !task.isRt(); }

private:
    // construction
    void buildKernel(const Scenario& scenario, const RunOptions& options);
    void applyProfile(const KernelProfile& profile);
    void buildGroups(const Scenario& scenario);
    int addGroup(const std::string& path, const CgroupFiles& files);
    int groupByPath(const std::string& path) const override;
    void applyCgroupFiles(int group, const CgroupFiles& files);
    void scheduleActions(const Scenario& scenario);

    // tasks
    /// A new task of @p spec running @p program (shared, see Task::program).
    Task& createTask(const TaskSpec& spec, const std::string& name, int parent,
        std::shared_ptr<const std::vector<Op>> program);
    void wakeUpNewTask(Task& task);
    void tryToWakeUp(Task& task, int wakeFlags = 0);
    void attachToCpu(Task& task, int cpu);
    int coreOf(int cpu) const;
    int llcOf(int cpu) const;
    void exitTask(Task& task);
    void finishExit(Task& task);
    /// exit_notify()'s wakeup of a parent waiting for @p task (fork with wait).
    void notifyParent(Task& task);
    /// Frees the tasks that exited during the event just run (releaseExitedTasks()): their
    /// metrics rows are summarised first (ExitedTaskSummary), the index stays taken.
    void releaseExited();
    /// step() once the run is known not to be finished: the next event and what follows it.
    void runNextEvent();
    Task* taskByName(const std::string& name);
    Task& taskOf(const SchedEntity& se) { return *m_tasks[se.task.index()]; }

    // core scheduler
    void schedule(int cpu);
    void processResched();
    void tick(int cpu);
    void startTick(int cpu);
    void startRunning(Task& task);
    void stopRunning(Task& task);
    /// hrtick_update(): only the fair class arms it, under sched_feat(HRTICK): without the
    /// feature and with no timer armed there is nothing to cancel or to arm (the common case).
    void armHrtick(Rq& rq)
    {
        if (rq.hrtick.valid() || m_features.has(Feature::HrTick))
            armHrtickNow(rq);
    }
    void armHrtickNow(Rq& rq);
    /// A context switch on @p cpu: the record, the CPU's busy time, the tasks' longest runs.
    void recordSwitch(int cpu, Task* prev, Task* next);
    [[gnu::noinline]] void appendSwitchRecord(int cpu, const Task* prev, const Task* next);
    void setUserNice(Task& task, int nice) override;
    void setSlice(Task& task, std::optional<Nanoseconds> slice);
    void setPolicy(Task& task, Policy policy);
    void setAffinity(Task& task, const CpuSet& cpus) override;
    void moveTask(Task& task, int group) override;
    /// sched_move_task(): the task leaves its group's queue and joins @p group's (its own again
    /// at exit); a running task gets resched_curr().
    void schedMoveTask(Task& task, int group);
    /// do_exit()'s sched_autogroup_exit_task(): true if the exiting task was preempted there.
    bool exitGroupMove(Task& task);
    /// The preemption model preempts a task in kernel mode (full, lazy: NEED_RESCHED is acted on
    /// as preemption is enabled again); voluntary and none wait for the task's own schedule().
    bool preemptsInKernel() const
    {
        return m_preempt == Preempt::Full || m_preempt == Preempt::Lazy;
    }
    /// The sched_change pattern: dequeue (SAVE), put_prev, mutate, enqueue (RESTORE), set_next.
    template <typename F> void changeTask(Task& task, int dequeueFlags, F&& mutate);
    /// The stopper preempts @p task, running on @p rq (it stays queued).
    void stopperPreempt(Rq& rq, Task& task);
    /// put_prev_set_next_task() after the pick (@p prev: not yet put by its class). Inline: from
    /// a fair task (or none) to a fair task the fair class does both at once, without the class
    /// walk of putPrevSetNextTaskClasses().
    void putPrevSetNextTask(Rq& rq, Task* prev, Task* next)
    {
        if (next && isFair(*next) && (!prev || isFair(*prev)))
            m_fairSched->putPrevSetNextTask(rq, prev, *next);
        else
            putPrevSetNextTaskClasses(rq, prev, next);
    }
    void putPrevSetNextTaskClasses(Rq& rq, Task* prev, Task* next);
    void setFeature(Feature f, bool on);
    void rebuildSums();

    // the classes and units and their services (machineclasses.cpp)
    void initClasses(const Scenario& scenario);
    void wakeupPreempt(Rq& rq, Task& task, int wakeFlags = 0) override;
    /// The class of a task of @p policy (__setscheduler_class()).
    SchedClass& classOfPolicy(Policy policy);
    /// sched_setscheduler() with a change of class; false for a change within the fair class.
    bool changeClass(Task& task, Policy policy);
    /// The classes' cgroup files of @p files written to @p group (@p by: the task writing, empty
    /// for the scenario); refused writes are findings.
    RtWalkCount writeClassFiles(int group, const CgroupFiles& files, const std::string& by);
    void failedAction(const std::string& task, int cpu, const std::string& what);
    // KernelWorkServices (the kernel-work cost model, core/workload/kernelwork.h)
    EventId startSectionEnd(int cpu, int64_t at) override;
    void addFinding(const Finding& finding) override { m_rtFindings.push_back(finding); }
    /// Bug-hunt metric: the task's lag against vslice(slice + tick) (kernel-model.md §4.1).
    void checkLagBound(const SchedEntity& se) override;
    /// checkLagBound()'s bound recomputed after a change of the task's slice or weight.
    [[gnu::noinline]] void refreshLagBound(Task& task, int64_t slice, LoadWeight lw);
    /// RunOptions::recordMaxSlice: a MaxSlice record for each cfs_rq from @p se's up to the
    /// root whose largest queued slice differs from the one last recorded for it.
    void recordMaxSlices(const SchedEntity& se);
    std::unordered_map<uint32_t, int64_t> m_maxSliceRecorded; ///< (group << 12 | cpu) → ns
    /// An "ignored_setting" finding: a custom slice under a profile without custom slices.
    void ignoredSlice(const std::string& task, Nanoseconds slice);
    std::vector<int> groupsMatching(const std::string& pattern) const override;
    RtWalkCount writeCgroupFiles(
        int group, const CgroupFiles& files, const std::string& by) override;
    bool completeFork(Task& task, const Op& op) override;
    /// Neither a cost-model section nor a kernel section (preempt none/voluntary) blocks it:
    /// KernelWork::preemptible() with the machine's side inline (every schedule() asks).
    bool preemptible(int cpu) const override
    {
        return m_rqs[static_cast<size_t>(cpu)]->sections.nonPreemptUntil <= clock()
            && kernelSectionPreemptible(cpu);
    }
    /// The Spawn record of a task entering the scheduler (wake_up_new_task, either class).
    void recordSpawn(const Task& task, int cpu, MigrateDetail placed = {}, int parentCpu = -1);
    void timerWakeUp(int taskIndex, int64_t due);
    /// The machine's tagged events (EventQueue::post): one switch instead of a std::function.
    enum EventKind : uint32_t {
        kTickEvent = 1,   ///< a = CPU
        kWorkDoneEvent,   ///< a = task index
        kTimerEvent,      ///< a = task index, b = due time (-1: the time the timer fires)
        kHrtickEvent,     ///< a = CPU, b = index of the class in m_classes
        kSectionEndEvent, ///< a = CPU
    };
    static void dispatchEvent(void* machine, const Event& event);
    void hrtickFired(int cpu, size_t cls);

    // workload: ProgramServices (the program interpreter, core/workload/interpreter.h)
    bool shouldPark(const Task& task) const override { return m_bw->shouldPark(task); }
    void yieldTask(Task& task) override;
    void onWorkDone(int taskIndex);

    // core scheduling (core/coresched/; the machine's side in machinecore.cpp)
    /// The class walk of __pick_next_task() (inline: at every schedule()). Only fair tasks can
    /// be picked (no boosting fair server, no queued deadline or RT task): the classes above fair
    /// would each return nothing, and idle always does. The kernel's __pick_next_task() has the
    /// same shortcut (rq->nr_running == rq->cfs.h_nr_queued); FairSchedClass::pickTask() with the
    /// fair server's test already made is the fair class's pick.
    SchedEntity* classPick(int cpu)
    {
        Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
        if (!rq.fairServer.running && rq.dl.tree.empty() && rq.rt.empty())
            return m_fair->pickTask(rq);
        return classWalkPick(rq);
    }
    SchedEntity* classWalkPick(Rq& rq);
    SchedEntity* pickTask(int cpu) override { return classPick(cpu); }
    void applyCookieOp(Task& task, const Op& op) override;
    // kernel sections (machinebandwidth.cpp)
    /// Leaving the last kernel section: task work (parking), end of a boost, deferred preemption.
    void returnToUser(Task& task) override;
    bool readCpuClock(Task& task) override;
    /// Under preempt none/voluntary a task inside a kernel section is not preempted.
    bool kernelSectionPreemptible(int cpu) const override
    {
        return !m_rqs[static_cast<size_t>(cpu)]->curr || preemptsInKernel() || !inKernelMode(cpu);
    }
    /// The task running on @p cpu is inside a kernel section of its program (and not on its way
    /// out of the CPU): an interrupt returns to kernel mode, not to user mode.
    bool inKernelMode(int cpu) const
    {
        const Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
        if (!rq.curr)
            return false;
        const Task& task = *m_tasks[rq.curr->task.index()];
        return task.kernelDepth > 0 && !task.blocking && !task.exiting;
    }
    void wakeUp(Task& task) override { tryToWakeUp(task); }
    void programError(const Task& task, const std::string& what) override;

    // load balancing (§8.3, machinebalance.cpp): rq->nr_running and idle_cpu() of the machine
    // context, and the BalanceServices of the fair load balancer
    int nrRunning(int cpu) const override;
    bool idleCpu(int cpu) const override;
    bool stopperPreempt(int cpu) override;
    bool updateBlockedAverages(int cpu) override;
    /// Builds the sched domains and the balancer from the machine description.
    void initBalancer(const Scenario& scenario);
    SchedDomains m_domains;
    std::unique_ptr<LoadBalancer> m_balancer;

    // recording & checks
    EntityRef refOf(const SchedEntity& se) const;
    // MachineView (metrics and invariant checks, core/record/)
    std::vector<int64_t> groupCpuTimes() const override;
    std::string coreSchedInvariants() const override { return m_core->checkInvariants(); }
    std::vector<const ExitedTaskSummary*> releasedTasks() const override;
    std::vector<const FoldedForks*> foldedForks() const override;
    void markWaiting(Task& task, int cpu) { WaitBook::markWaiting(task, cpu, clock()); }
    void endWaiting(Task& task) { m_waits.endWaiting(task, clock()); }

    Scenario m_scenario;
    RunOptions m_options;
    std::string m_profileName;
    ProfileChoices m_choices;
    ProfileTraits m_traits;
    FeatureSet m_features;
    EventQueue m_events;
    Prng m_prng;
    Nanoseconds m_end{0};
    int m_cpus = 1;
    int m_threadsPerCore = 1;
    int m_coresPerLlc = 1;
    int m_hz = 1000;
    int64_t m_tickNs = 1000000;
    Preempt m_preempt = Preempt::Voluntary;
    TunableScaling m_scaling = TunableScaling::Log;
    std::optional<Nanoseconds> m_baseSliceOverride;

    std::vector<TaskGroup> m_groups;
    std::vector<std::unique_ptr<Rq>> m_rqs;
    /// Every task created, by index; null once released at its exit (releaseExitedTasks()).
    std::vector<std::unique_ptr<Task>> m_tasks;
    bool m_releaseExited = false;
    std::vector<int> m_exitedThisEvent; ///< forked tasks that exited, to release (releaseExited)
    std::deque<ExitedTaskSummary> m_released; ///< in release order (releasedTasks() sorts them)
    /// releaseExitedTasks(true): released forked tasks are summed per fork root, by root.
    bool m_foldForked = false;
    struct RootFold
    {
        FoldedForks fold;
        std::deque<int> order; ///< its forked tasks not folded yet, by index
        bool broken = false;   ///< no more folding (a task read on its own, or a long wait)
    };
    static constexpr size_t kFoldWindow = 1024; ///< tasks of a root waiting for an older one
    std::map<std::string, RootFold> m_folds;    ///< by fork root
    bool releasable(const Task& task) const;
    /// Frees @p task, its row summarised, or folded into @p fold.
    void releaseTask(Task& task, FoldedForks* fold);
    /// A forked task was created: its place in its root's fold order.
    void noteForked(const Task& child);
    std::set<std::string> m_listedNames; ///< the tasks not forked (forkRoot()'s listed names)
    bool m_dottedListed = false;         ///< one of them has a '.': a later one could change a root
    std::unique_ptr<FairClass> m_fair;
    std::unique_ptr<LoadTracker> m_load;
    std::unique_ptr<CfsBandwidthControl> m_bw;
    std::unique_ptr<RtClass> m_rt;
    std::unique_ptr<DlClass> m_dl;
    std::unique_ptr<DlServerClass> m_dlServer;
    std::unique_ptr<FairSchedClass> m_fairSched;
    IdleClass m_idle;
    /// The classes in priority order (sched_class_highest … lowest): the walk of pick_task().
    std::array<SchedClass*, 5> m_classes{};
    static constexpr size_t kDlClass = 1;   ///< dl_sched_class in m_classes
    static constexpr size_t kRtClass = 2;   ///< rt_sched_class in m_classes
    static constexpr size_t kFairClass = 3; ///< fair_sched_class in m_classes
    int64_t m_baseSlice = 0;                ///< sysctl_sched_base_slice (scaled by CPU count)
    std::vector<int64_t> m_groupCpuTime; ///< per group, its own tasks only (groupCpuTimes() sums)
    int m_eventCpu = -1;                 ///< CPU the current event runs on (-1 none)
    std::vector<int> m_reschedPending;   ///< CPUs with need_resched set, in request order
    uint64_t m_contextSwitches = 0;
    uint64_t m_nextCookie = kFirstCreatedCookie;
    std::unique_ptr<CoreScheduler> m_core;
    Recording m_rec;
    std::vector<std::string> m_violations;
    // Resource guards (RunOptions::limits, resourceguard.h) and the busy/wait books (waitbook.h)
    void checkLimits() { m_guard.check(clock(), m_eventCpu, m_rec.bytes()); }
    void stopRun(const std::string& task, int cpu, const std::string& reason) override
    {
        m_guard.stop(task, cpu, reason, clock());
    }
    bool canCreateTask(const std::string& name, int cpu)
    {
        return m_guard.canCreateTask(name, cpu, std::ssize(m_tasks), clock());
    }
    ResourceGuard m_guard;
    WaitBook m_waits;

    Mutexes m_mutexes{static_cast<MachineContext&>(*this), static_cast<ProgramServices&>(*this)};
    std::unordered_map<std::string, int> m_groupIndex; ///< path → group index
    std::unique_ptr<KernelWork> m_work;                ///< the kernel-work cost model
    std::unique_ptr<ProgramInterpreter> m_interp;
    std::vector<Finding> m_rtFindings;
};

} // namespace schedlab
