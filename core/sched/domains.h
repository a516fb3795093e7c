// SPDX-License-Identifier: GPL-2.0-or-later
// Sched domains and sched groups built from the machine's topology (kernel/sched/topology.c,
// kernel-model.md §8.3): per CPU a chain of domains from the lowest level up (SMT: the siblings
// of a core, MC: the cores sharing an LLC, PKG: the whole machine), each divided into groups (the
// child level's spans). Degenerate levels (one CPU, or the same span as the child) are removed
// as cpu_attach_domain() does. CPUs are numbered core by core, so every span is a contiguous
// range of CPUs.
//
// Placement (select_task_rq_fair) can use the same hierarchy: lowest(), llc() (sd_llc),
// spanning() (the lowest domain containing two CPUs) and the group list of each domain.
#pragma once

#include "core/sched/migration.h"
#include "core/sched/topology.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace schedlab {

/// SD_* flags (include/linux/sched/sd_flags.h), the subset the model reads.
enum SdFlag : int {
    SdBalanceNewidle = 1 << 0,
    SdBalanceExec = 1 << 1,
    SdBalanceFork = 1 << 2,
    SdWakeAffine = 1 << 3,
    SdAsymCpuCapacity = 1 << 4,
    SdShareCpuCapacity = 1 << 5, ///< SMT siblings
    SdShareLlc = 1 << 6,
    SdPreferSibling = 1 << 7,
    /// The span covers every CPU capacity of the machine (asym_cpu_capacity_classify()).
    SdAsymCpuCapacityFull = 1 << 8,
    /// SD_ASYM_PACKING: pack tasks on the CPUs of highest priority (x86 ITMT, §8.5).
    SdAsymPacking = 1 << 9,
};

/// struct sched_group with its sched_group_capacity (shared by every CPU's copy of a domain).
struct SchedGroup
{
    int first = 0;        ///< span: CPUs [first, first + weight)
    int weight = 1;       ///< group_weight
    int cores = 1;        ///< sg->cores: CPUs of the span without SMT siblings
    int flags = 0;        ///< the flags of the child domain (0 when it has none)
    int64_t capacity = 0; ///< sgc->capacity: Σ capacity of the span
    int64_t minCapacity = 0;
    int64_t maxCapacity = 0;
    bool imbalance = false; ///< sgc->imbalance: a balance below left pinned tasks behind
    /// sg->asym_prefer_cpu: the CPU of highest ITMT priority in the span (the first of equals).
    int asymPreferCpu = 0;
    bool contains(int cpu) const { return cpu >= first && cpu < first + weight; }
};

/// struct sched_domain: one CPU's view of one level.
struct SchedDomain
{
    DomainLevel level = DomainLevel::None;
    int flags = 0;
    int first = 0;  ///< span: CPUs [first, first + weight)
    int weight = 1; ///< sd_weight
    /// Indices into SchedDomains::group(): the local group first (sd->groups), then the others
    /// in the order of the kernel's ring (wrapping from the local group upwards).
    std::vector<int> groups;
    int imbalancePct = 117;
    int busyFactor = 16;
    int cacheNiceTries = 0;
    int minInterval = 1; ///< ms
    int maxInterval = 2; ///< ms
    // Balancing state (per CPU and level).
    int balanceInterval = 1; ///< ms; doubled while balanced, back to min after an imbalance
    int nrBalanceFailed = 0;
    int64_t lastBalance = 0; ///< jiffies
    /// ns: the largest cost of a new-idle balance of this level, decayed by 1 % a second
    /// (stays 0 while the scenario's newidle_balance cost is 0)
    int64_t maxNewidleLbCost = 0;
    int64_t lastDecayMaxLbCost = 0; ///< jiffies
    // NI_RANDOM's success statistics (sd_init(): a 50 % success rate to start with).
    uint32_t newidleCall = 512;
    uint32_t newidleSuccess = 256;
    uint32_t newidleRatio = 512; ///< successes per 1024 new-idle balances, last estimate
    bool contains(int cpu) const { return cpu >= first && cpu < first + weight; }
};

class SchedDomains
{
public:
    SchedDomains() = default;
    /// build_sched_domains() + cpu_attach_domain() for @p topology; last_balance = @p jiffies.
    explicit SchedDomains(const CpuTopology& topology, int64_t jiffies = 0);

    const CpuTopology& topology() const { return m_topo; }
    int cpus() const { return m_topo.cpus; }
    /// for_each_domain(cpu): the CPU's domains, lowest first; empty on a single CPU.
    std::vector<SchedDomain>& domains(int cpu) { return m_domains[static_cast<size_t>(cpu)]; }
    const std::vector<SchedDomain>& domains(int cpu) const
    {
        return m_domains[static_cast<size_t>(cpu)];
    }
    const SchedDomain* lowest(int cpu) const;
    /// sd_llc: the highest domain of @p cpu that shares the LLC, or null.
    const SchedDomain* llc(int cpu) const;
    /// The lowest domain of @p cpu whose span contains @p other, or null.
    const SchedDomain* spanning(int cpu, int other) const;
    SchedGroup& group(int index) { return m_groups[static_cast<size_t>(index)]; }
    const SchedGroup& group(int index) const { return m_groups[static_cast<size_t>(index)]; }
    /// sched_asym_cpucap_active(): capacities differ somewhere on the machine.
    bool asymCapacity() const { return m_asym; }
    /// sd_asym_cpucapacity: the lowest domain of @p cpu with SD_ASYM_CPUCAPACITY_FULL, or null.
    const SchedDomain* asymCapacityDomain(int cpu) const;
    /// sd_asym_packing: the highest domain of @p cpu with SD_ASYM_PACKING, or null.
    const SchedDomain* asymPackingDomain(int cpu) const;
    /// rd->max_cpu_capacity: the largest arch_scale_cpu_capacity() of the machine.
    int maxCapacity() const { return m_maxCapacity; }
    /// p->max_allowed_capacity (6.10+): the largest capacity among the CPUs @p allowed says
    /// the task may use (@p allowed(cpu) → bool).
    template <typename Allowed> int maxAllowedCapacity(const Allowed& allowed) const
    {
        int best = 0;
        for (int c = 0; c < m_topo.cpus; ++c)
            if (allowed(c))
                best = std::max(best, m_topo.capacityOf(c));
        return best ? best : kSchedCapacityScale;
    }

private:
    /// The highest domain of @p cpu with @p flag, or null.
    const SchedDomain* highestWith(int cpu, int flag) const;
    int groupFor(DomainLevel childLevel, int first, int weight, int childFlags);

    CpuTopology m_topo;
    std::vector<std::vector<SchedDomain>> m_domains;
    std::vector<SchedGroup> m_groups;
    std::map<std::pair<int, int>, int> m_groupIndex; ///< (child level, first CPU) → group
    bool m_asym = false;
    int m_maxCapacity = kSchedCapacityScale;
};

} // namespace schedlab
