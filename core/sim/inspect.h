// SPDX-License-Identifier: GPL-2.0-or-later
// A snapshot of every CPU's cfs_rq hierarchy with each cfs_rq's pick explained (issue 6's
// inspector). inspectAt() answers "what did the run queues look like at time t, and why did that
// task run": the simulation is deterministic, so it re-runs the scenario to t in a throwaway
// Simulation and reads the state there.
#pragma once

#include "core/base/time.h"
#include "core/fair/pickexplain.h"
#include "core/record/recording.h"

#include <string>
#include <vector>

namespace schedlab {

struct Scenario;
struct RunOptions;

struct EntityInspection
{
    EntityRef ref;
    std::string name;
    bool isGroup = false;
    bool curr = false;
    bool delayed = false;
    bool eligible = false;
    bool protectedSlice = false; ///< §3.7 protect_slice() (meaningful for curr)
    bool nextBuddy = false;      ///< cfs_rq->next
    bool picked = false;         ///< what the pick would choose now on this cfs_rq
    uint64_t weight = 0;         ///< scaled load weight
    uint64_t vruntime = 0;
    uint64_t deadline = 0;
    uint64_t vprot = 0;
    int64_t vlag = 0;  ///< the stored se->vlag field
    int64_t lag = 0;   ///< V − v (virtual ns; the real lag is this × weight)
    int64_t key = 0;   ///< entity_key(): v − v0
    int64_t slice = 0; ///< real ns
    int childRq = -1;  ///< group entities: index of their cfs_rq in CpuInspection::rqs
    /// PELT averages at their last update (kernel-model.md §6.6, §5.4).
    uint64_t loadAvg = 0;
    uint64_t runnableAvg = 0;
    uint64_t utilAvg = 0;
};

struct CfsRqInspection
{
    int cpu = 0;
    int group = 0; ///< task group index (0 = root)
    std::string path;
    int depth = 0;
    uint64_t avgVruntime = 0; ///< V
    uint64_t v0 = 0;
    uint64_t loadWeight = 0;
    int nrQueued = 0;
    int hNrQueued = 0;   ///< tasks queued below, delayed ones included
    int hNrRunnable = 0; ///< ... without the delayed ones (§5.4)
    /// PELT averages at their last update (kernel-model.md §6.6, §5.4).
    uint64_t loadAvg = 0;
    uint64_t runnableAvg = 0;
    uint64_t utilAvg = 0;
    std::vector<EntityInspection> entities; ///< curr first, then the tree in deadline order
    std::string picked;                     ///< name of the entity the pick chooses
    PickStep step = PickStep::None;
    std::vector<std::string> eligible; ///< names
    std::string earliestDeadline;      ///< name, or empty
    std::vector<std::string> explanation;
};

/// A SCHED_DEADLINE entity of a CPU (kernel-model.md §15): a task, or the fair server.
struct DlEntityInspection
{
    std::string name;        ///< task name, or "fair_server"
    bool server = false;     ///< the fair deadline server (§10.4)
    bool curr = false;       ///< running now
    bool throttled = false;  ///< waits for its replenishment (out of the tree)
    bool active = false;     ///< the server boosts the fair class now
    int64_t runtimeLeft = 0; ///< budget left (ns; the running task's charged up to now)
    int64_t deadline = 0;    ///< absolute deadline (ns); the server's: its period's end
    int64_t runtime = 0;     ///< dl_runtime
    int64_t relDeadline = 0; ///< dl_deadline
    int64_t period = 0;      ///< dl_period
};

struct CpuInspection
{
    int cpu = 0;
    std::string running; ///< running task name, or "idle"
    /// The CPU's DL entities: the EDF tree in deadline order, then the throttled tasks, then the
    /// fair server while it has a period.
    std::vector<DlEntityInspection> dl;
    std::vector<CfsRqInspection> rqs; ///< root first, then depth-first below queued groups
    /// rq->cfs_tasks, most recently picked first: the CPU's queued fair tasks (delayed ones
    /// included), the list the load balancer walks from its tail (kernel-model.md §8.3).
    std::vector<std::string> cfsTasks;
};

struct Inspection
{
    Nanoseconds at{0};
    std::string profile;
    std::vector<CpuInspection> cpus;
};

/// Runs @p scenario with @p options to @p t (clamped to the end) and inspects it there, after
/// bringing every level's curr up to date (update_curr, as pick_task_fair() does first).
Inspection inspectAt(const Scenario& scenario, const RunOptions& options, Nanoseconds t);

} // namespace schedlab
