// SPDX-License-Identifier: GPL-2.0-or-later
// Task placement of the fair class (kernel-model.md §8.2): select_task_rq_fair() with
// wake_affine() (WA_IDLE, WA_WEIGHT with the WA_BIAS imbalance_pct bias, sync wakeups),
// wake_wide() (wakee flips against the LLC size), select_idle_sibling() (target, prev,
// recent_used_cpu, select_idle_smt(), select_idle_core()/select_idle_cpu() under SIS_UTIL and the
// LLC's has_idle_cores hint) for wakeups, and sched_balance_find_dst_cpu() (find the idlest group,
// then the idlest CPU, level by level) for fork and exec.
//
// The machine is seen only through MachineContext (nr_running, idle_cpu()) and PlacementServices
// (the fair class's load and utilization figures), so the decisions can be unit-tested with a
// fake machine (tests/core/tst_placement.cpp). The sched domains are the load balancer's
// (SchedDomains, core/sched/domains.h): sd_llc, the domain walk and the groups of find_idlest.
#pragma once

#include "core/sched/domains.h"
#include "core/sched/machinecontext.h"
#include "core/sched/migration.h"
#include "core/sched/topology.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace schedlab {

struct Rq;
struct Task;
class CpuSet;

/// What placement reads of the machine (kernel helpers named in each comment).
class PlacementServices
{
public:
    virtual ~PlacementServices() = default;
    /// sched_idle_cpu(): everything runnable on the CPU is SCHED_IDLE.
    virtual bool schedIdleCpu(int cpu) const = 0;
    /// Delayed-dequeue tasks counted in nr_running (cfs_h_nr_delayed()).
    virtual int nrDelayed(int cpu) const = 0;
    /// cpu_load(): load_avg of the CPU's root cfs_rq.
    virtual uint64_t cpuLoad(int cpu) const = 0;
    /// cpu_util_cfs(): util_avg of the root cfs_rq, or with UTIL_EST the larger of it and the
    /// root cfs_rq's util_est, at most the capacity.
    virtual uint64_t cpuUtil(int cpu) const = 0;
    /// task_util_est(): the task's util_avg, or with UTIL_EST the larger of it and its estimate.
    virtual uint64_t taskUtil(const Task& p) const = 0;
    /// cpu_runnable(): runnable_avg of the root cfs_rq.
    virtual uint64_t cpuRunnable(int cpu) const = 0;
    /// task_h_load() of task @p task (an index): its load as seen at the root cfs_rq.
    virtual uint64_t taskHLoad(int task) const = 0;
};

/// Where the placement runs: the wake flags and `current` of smp_processor_id().
struct WakeContext
{
    int flags = 0;       ///< WakeFlag bits: WakeTtwu, WakeFork, WakeExec, WakeSync
    int thisCpu = 0;     ///< the waker's (or parent's) CPU
    int waker = -1;      ///< task index of `current` there; -1: the CPU's idle task
    int64_t jiffies = 0; ///< for the once-per-second decay of wakee_flips
};

struct PlacementResult
{
    int cpu = 0;
    MigrateDetail detail; ///< level: the domain of wake_affine / find_idlest; wake: the step
};

class Placement
{
public:
    /// Placement over the machine's sched domains (shared with the load balancer).
    Placement(const MachineContext& ctx, const PlacementServices& services,
        const SchedDomains& domains, int hz);
    /// Placement with sched domains of its own built from @p topology (unit tests).
    Placement(const MachineContext& ctx, const PlacementServices& services,
        const CpuTopology& topology, int hz);

    /// select_task_rq() of a fair task: select_task_rq_fair() when more than one CPU is allowed,
    /// then the fallback to an allowed CPU (select_fallback_rq()).
    PlacementResult selectTaskRq(const Task& task, const WakeContext& ctx);

    /// @p rqs are the run queues of the context and of the services, whose nrRunning() and
    /// idleCpu() are rqNrRunning() and rqIdle() of them (the machine's): the idle-CPU tests
    /// (idle_cpu(), sched_idle_cpu()) read them in place, without two or three virtual calls
    /// per CPU of a scan. Null: through the context and the services (unit tests).
    void readRunQueuesInPlace(const std::vector<std::unique_ptr<Rq>>* rqs) { m_rqs = rqs; }

    /// A CPU switched to its idle task: rq->idle_stamp (sched_balance_newidle()) and
    /// update_idle_core() (has_idle_cores of the LLC when the whole core is idle).
    void cpuEnteredIdle(int cpu, int64_t now);
    /// ttwu_do_activate() on @p cpu: the idle stamp is cleared.
    void taskWokenOn(int cpu);
    /// rq->idle_stamp of @p cpu: when it last went idle; 0 when unset (before a CPU's first
    /// idle period counts), negative while it is not idle.
    int64_t idleStamp(int cpu) const { return m_idleStamp[static_cast<size_t>(cpu)]; }
    /// update_idle_cpu_scan() (SIS_UTIL): the number of CPUs select_idle_cpu() may scan in the
    /// LLC of @p cpu, from the LLC's summed cfs utilization.
    void updateIdleCpuScan(int cpu, uint64_t sumUtil);

    /// cpumask_any_and_distribute() as sched_setaffinity() uses it for the new CPU of a task whose
    /// CPU left its mask: the next allowed CPU after the calling CPU's rotor, wrapping.
    int anyAndDistribute(const CpuSet& cpus, int callingCpu);

    /// The domains of @p cpu, lowest first (SMT, MC, PKG; degenerate levels left out).
    const std::vector<SchedDomain>& domainsOf(int cpu) const { return m_sd->domains(cpu); }
    /// The weight of sd_llc (1 without one).
    int llcSize(int cpu) const;
    bool hasIdleCores(int cpu) const { return llc(cpu).hasIdleCores; }
    int nrIdleScan(int cpu) const { return llc(cpu).nrIdleScan; }
    int recentUsedCpu(int task) const;
    unsigned wakeeFlips(int task) const;
    bool syncDiscountsDelayed = true; ///< 6.13+: the sync rule ignores delayed tasks
    /// arch_scale_cpu_capacity() of @p cpu.
    int64_t archCapacity(int cpu) const { return capacity(cpu); }

private:
    struct WakeeState
    {
        unsigned flips = 0;
        int64_t decayTs = 0;
        int lastWakee = -1;
        int recentUsedCpu = -1;
    };
    struct LlcState
    {
        bool hasIdleCores = false;
        int nrIdleScan = 0;
    };

    WakeeState& wakee(int task);
    WakeeState& current(const WakeContext& ctx);
    LlcState& llc(int cpu);
    const LlcState& llc(int cpu) const;
    void recordWakee(const Task& p, const WakeContext& ctx);
    bool wakeWide(const Task& p, const WakeContext& ctx);
    int wakeAffine(
        const SchedDomain& sd, const Task& p, int thisCpu, int prevCpu, bool sync, int waker);
    int wakeAffineIdle(int thisCpu, int prevCpu, bool sync);
    int wakeAffineWeight(
        const SchedDomain& sd, const Task& p, int thisCpu, int prevCpu, bool sync, int waker);
    /// cpus_share_cache(): @p b is in the span of @p a's sd_llc.
    bool sharesCache(int a, int b) const;
    /// idle_cpu() and sched_idle_cpu() (in place over m_rqs when set), and the two together.
    bool cpuIdle(int cpu) const;
    bool schedIdleCpu(int cpu) const;
    bool idleOrSchedIdle(int cpu) const;
    /// capacity_of(): arch_scale_cpu_capacity() of the topology (no RT/IRQ pressure modelled).
    int64_t capacity(int cpu) const { return topo().capacityOf(cpu); }
    int selectIdleSibling(const Task& p, int prev, int target, WakePath& path);
    /// asym_fits_cpu(): without differing capacities every CPU fits.
    bool asymFits(const Task& p, int cpu) const;
    int selectIdleCapacity(const Task& p, const SchedDomain& sd, int target);
    int selectIdleSmt(const Task& p, int target);
    int selectIdleCpu(const Task& p, bool hasIdleCore, int target, WakePath& path);
    int selectIdleCore(const Task& p, int core, std::vector<bool>& cpus, int& idleCpu);
    int findDstCpu(const Task& p, int cpu, int prevCpu, DomainLevel& level);
    const SchedGroup* findDstGroup(const SchedDomain& sd, const Task& p, int thisCpu);
    int findDstGroupCpu(const SchedGroup& group, const Task& p, int thisCpu);
    void init();
    const CpuTopology& topo() const { return m_sd->topology(); }

    const MachineContext& m_ctx;
    const PlacementServices& m_s;
    /// The machine's run queues when the services are the fair class's over them
    /// (readRunQueuesInPlace()), else null.
    const std::vector<std::unique_ptr<Rq>>* m_rqs = nullptr;
    std::unique_ptr<SchedDomains> m_ownDomains; ///< built from a topology (unit tests)
    const SchedDomains* m_sd = nullptr;
    int m_hz;
    std::vector<WakeeState> m_tasks;
    std::vector<WakeeState> m_idleTasks; ///< per CPU: `current` when the CPU is idle
    std::vector<LlcState> m_llcs;
    std::vector<int64_t> m_idleStamp;  ///< rq->idle_stamp; -1 = 0 in the kernel (not idle)
    std::vector<int> m_distributePrev; ///< per CPU: distribute_cpu_mask_prev
    std::vector<bool> m_scanMask;      ///< select_idle_cpu()'s cpumask (reused)
};

} // namespace schedlab
