// SPDX-License-Identifier: GPL-2.0-or-later
// One hand-driven machine for the unit tests of the classes and units (core/sched/
// machinecontext.h): run queues, tasks and task groups the test builds, a clock it sets, timers
// it fires, and what the unit asked of the machine (reschedules, records, migrations, wakeups)
// kept for assertions. Nothing runs on its own: no event loop, no class walk.
#pragma once

#include "core/fair/taskgroup.h"
#include "core/kernel/profile.h"
#include "core/record/machineview.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace schedlab {

class SchedClass;

namespace test {

class FakeMachine : public MachineView
{
public:
    /// @p cpus run queues built with @p choices; the root task group "/".
    explicit FakeMachine(int cpus = 1, const ProfileChoices& choices = {});
    ~FakeMachine() override;
    FakeMachine(const FakeMachine&) = delete;
    FakeMachine& operator=(const FakeMachine&) = delete;

    /// A new task "t<index>" on @p cpu, allowed everywhere, of @p policy (RT priority
    /// @p rtPriority) in @p group.
    Task& addTask(int cpu = 0, Policy policy = Policy::Normal, int rtPriority = 0, int group = 0);
    /// A task group @p path under @p parent (no per-CPU state).
    TaskGroup& addGroup(const std::string& path, int parent = 0);
    /// Puts @p task on its CPU as the running task (rq->curr).
    void run(Task& task) { rq(task.cpu).curr = &task.se; }

    // --- the state a test builds ------------------------------------------------------------
    ProfileChoices choices;
    std::vector<std::unique_ptr<Rq>> rqs;
    std::vector<std::unique_ptr<Task>> tasks;
    std::vector<TaskGroup> groups;
    int64_t now = 0;
    int eventCpu = -1; ///< thisCpu() outside a timer
    /// wakeupPreempt() and moveQueuedTask() go through this class when set (the class under
    /// test); otherwise they are only recorded.
    SchedClass* sched = nullptr;
    /// pickTask() of each CPU (the class walk's answer); null for a CPU not listed.
    std::vector<SchedEntity*> picks;
    bool allPreemptible = true;    ///< preemptible() of every CPU
    std::vector<int64_t> cpuTimes; ///< groupCpuTimes(); all 0 when empty
    uint64_t events = 0;           ///< eventsExecuted()

    // --- what the units asked ---------------------------------------------------------------
    struct Record
    {
        RecordKind kind;
        const SchedEntity* se;
        int64_t a, b, c;
    };
    struct Move
    {
        int task;
        int cpu;
        MigrateReason reason;
        MigrateDetail detail;
    };
    struct Timer
    {
        int64_t at;
        int cpu;
        std::function<void()> fn;
        bool cancelled = false;
        bool fired = false;
    };
    std::vector<int> reschedCpus; ///< resched_curr() calls, in order (lazy ones included)
    int lazyResched = 0;          ///< of which resched_curr_lazy()
    int64_t executed = 0;         ///< accountExec() sum
    std::vector<Record> records;
    int samples = 0;
    std::vector<Move> moves;
    std::vector<int> woken;     ///< wakeUp() tasks
    std::vector<int> preempted; ///< wakeupPreempt() tasks
    std::vector<Timer> timers;  ///< every timer armed; EventId seq = index + 1
    /// The last record of @p kind, or null.
    const Record* last(RecordKind kind) const;
    /// The times of the timers armed and neither fired nor cancelled, in arming order.
    std::vector<int64_t> pendingTimers() const;
    /// Runs timer @p index (thisCpu() is its CPU meanwhile); false if it is not pending.
    bool fire(size_t index);

    // --- MachineView ------------------------------------------------------------------------
    int cpuCount() const override { return static_cast<int>(rqs.size()); }
    Rq& rq(int cpu) override { return *rqs.at(static_cast<size_t>(cpu)); }
    const Rq& rq(int cpu) const override { return *rqs.at(static_cast<size_t>(cpu)); }
    int taskCount() const override { return static_cast<int>(tasks.size()); }
    Task& task(int index) override { return *tasks.at(static_cast<size_t>(index)); }
    const Task& task(int index) const override { return *tasks.at(static_cast<size_t>(index)); }
    const std::vector<TaskGroup>& taskGroups() const override { return groups; }
    int thisCpu() const override { return eventCpu; }
    /// rq->nr_running from the run queue's counts (fair and RT); a test may override it.
    int nrRunning(int cpu) const override;
    bool idleCpu(int cpu) const override { return !rq(cpu).curr && nrRunning(cpu) == 0; }
    bool preemptible(int) const override { return allPreemptible; }
    SchedEntity* pickTask(int cpu) override
    {
        return static_cast<size_t>(cpu) < picks.size() ? picks[static_cast<size_t>(cpu)] : nullptr;
    }
    void resched(int cpu, bool lazy = false) override;
    void wakeupPreempt(Rq& rq, Task& task, int wakeFlags = 0) override;
    void wakeUp(Task& task) override { woken.push_back(task.index); }
    void moveQueuedTask(
        Task& task, int cpu, MigrateReason reason, MigrateDetail detail = {}) override;
    void accountExec(SchedEntity&, int64_t delta) override { executed += delta; }
    void buildRecord(
        RecordKind kind, const SchedEntity& se, int64_t a, int64_t b, int64_t c) override
    {
        records.push_back({kind, &se, a, b, c});
    }
    void buildSample(const SchedEntity&) override { ++samples; }
    EventId startTimer(int64_t at, int cpu, std::function<void()> fn) override;
    void cancelTimer(EventId id) override;
    bool timerPending(EventId id) const override;
    std::vector<int64_t> groupCpuTimes() const override;
    uint64_t eventsExecuted() const override { return events; }
    std::string coreSchedInvariants() const override { return {}; }
};

} // namespace test
} // namespace schedlab
