// SPDX-License-Identifier: GPL-2.0-or-later
#include "invariants.h"

#include "core/fair/taskgroup.h"
#include "core/fair/weights.h"
#include "core/record/machineview.h"
#include "core/sched/rq.h"
#include "core/workload/task.h"

#include <algorithm>
#include <map>
#include <utility>

namespace schedlab {

namespace {

constexpr int kMaxInvariantReports = 50;

} // namespace

void checkInvariants(const MachineView& machine, std::vector<std::string>& violations)
{
    const std::vector<TaskGroup>& groups = machine.taskGroups();
    const int cpus = machine.cpuCount();
    if (static_cast<int>(violations.size()) >= kMaxInvariantReports)
        return;
    // A sweep costs O(tasks + cfs_rq's). On a large machine it runs every k-th event, k growing
    // with the size, so checking costs O(1) per event on average whatever the size: a broken
    // invariant persists and is still found, a few events later. The budget is about 256 visited
    // entities per event: a sweep visits each entity several times (the tree's own checks, the
    // w*lag sum, the h_nr counts), and at 2048 a checked build spent 97 % of a 100 000-task run
    // (1 ms, one CPU) in these sweeps.
    const size_t size =
        static_cast<size_t>(machine.taskCount()) + groups.size() * static_cast<size_t>(cpus);
    constexpr size_t kSweepBudget = 256;
    if (size > kSweepBudget && machine.eventsExecuted() % (size / kSweepBudget + 1) != 0)
        return;
    auto report = [&](const std::string& what) {
        violations.push_back("t=" + std::to_string(machine.clock()) + " " + what);
    };
    struct Counts
    {
        int queued = 0;
        int runnable = 0;
        int idle = 0;
    };
    std::map<const CfsRq*, Counts> counts; // h_nr_queued, h_nr_runnable, h_nr_idle
    std::vector<int> perCpu(static_cast<size_t>(cpus), 0);
    for (int i = 0; i < machine.taskCount(); ++i) {
        const Task* t = machine.findTask(i); // null: released at its exit
        if (!t || !t->se.onRq)
            continue;
        if (t->se.cfsRq->cpu != t->cpu)
            report("task " + t->name + " is queued on cpu" + std::to_string(t->se.cfsRq->cpu)
                + " but belongs to cpu" + std::to_string(t->cpu));
        bool reachedRoot = true;
        // h_nr_idle: a SCHED_IDLE task, or any task above the queue of a cpu.idle group.
        bool idle = t->se.idlePolicy;
        for (const SchedEntity* se = &t->se; se; se = se->parent) {
            auto& c = counts[se->cfsRq];
            ++c.queued;
            if (!t->se.schedDelayed)
                ++c.runnable;
            c.idle += idle ? 1 : 0;
            idle = idle || se->cfsRq->isIdle();
            if (se->cfsRq->throttleDequeued) {
                reachedRoot = false; // ≤6.17: counted up to the throttled cfs_rq only (§9.2)
                break;
            }
        }
        if (reachedRoot)
            ++perCpu[static_cast<size_t>(t->cpu)];
    }
    auto check = [&](const CfsRq& rq, const std::string& where) {
        if (std::string err = rq.checkInvariants(); !err.empty())
            report(where + ": " + err);
        const auto it = counts.find(&rq);
        const Counts expected = it == counts.end() ? Counts{} : it->second;
        if (rq.hNrQueued != expected.queued)
            report(where + ": h_nr_queued " + std::to_string(rq.hNrQueued)
                + " != " + std::to_string(expected.queued));
        if (rq.hNrRunnable != expected.runnable)
            report(where + ": h_nr_runnable " + std::to_string(rq.hNrRunnable)
                + " != " + std::to_string(expected.runnable));
        if (rq.hNrIdle != expected.idle)
            report(where + ": h_nr_idle " + std::to_string(rq.hNrIdle)
                + " != " + std::to_string(expected.idle));
        // Σ ŵ·(V − v) over queued entities is within rounding of 0: V is the floor of the mean.
        const uint64_t v = rq.peekAvgVruntime();
        Int128 sum = 0;
        Int128 den = 0;
        rq.forEachTree([&](const SchedEntity& se) {
            sum += static_cast<Int128>(vdiff(v, se.vruntime)) * rq.avgWeight(se);
            den += rq.avgWeight(se);
        });
        if (const SchedEntity* curr = rq.eevdfCurr(); curr && curr->onRq) {
            sum += static_cast<Int128>(vdiff(v, curr->vruntime)) * rq.avgWeight(*curr);
            den += rq.avgWeight(*curr);
        }
        if (den > 0 && (sum > 0 || sum <= -den))
            report(where + ": sum of w*lag is not within rounding of 0");
    };
    for (int c = 0; c < cpus; ++c) {
        const Rq& rq = machine.rq(c);
        check(*rq.cfs, "cpu" + std::to_string(c) + " /");
        if (rq.nrRunning != perCpu[static_cast<size_t>(c)])
            report("cpu" + std::to_string(c) + ": nr_running " + std::to_string(rq.nrRunning)
                + " != " + std::to_string(perCpu[static_cast<size_t>(c)]));
        if (rq.curr && rq.cfs->inTree(*rq.curr))
            report("cpu" + std::to_string(c) + ": the running task is in the tree");
    }
    // With thousands of group cfs_rq's a full sweep after every event would dominate the run:
    // then only the cfs_rq's on the paths of queued tasks are checked every event, all of them
    // every 1024th event.
    const bool full =
        groups.size() * static_cast<size_t>(cpus) <= 4096 || machine.eventsExecuted() % 1024 == 0;
    if (!full) {
        std::vector<const CfsRq*> onPath;
        for (const auto& [rq, c] : counts)
            if (rq->groupIndex != 0)
                onPath.push_back(rq);
        std::sort(onPath.begin(), onPath.end(), [](const CfsRq* a, const CfsRq* b) {
            return std::pair(a->groupIndex, a->cpu) < std::pair(b->groupIndex, b->cpu);
        });
        for (const CfsRq* rq : onPath)
            check(*rq,
                "cpu" + std::to_string(rq->cpu) + " "
                    + groups[static_cast<size_t>(rq->groupIndex)].path);
        return;
    }
    for (const auto& g : groups)
        for (const auto& rq : g.cfsRq)
            check(*rq, "cpu" + std::to_string(rq->cpu) + " " + g.path);
    if (std::string err = machine.coreSchedInvariants(); !err.empty())
        report(err);
}

} // namespace schedlab
