// SPDX-License-Identifier: GPL-2.0-or-later
// Sched domains from the topology: sd_init()'s parameters per level and the removal of
// degenerate levels (kernel/sched/topology.c; kernel-model.md §8.3).
#include "core/sched/domains.h"

#include <algorithm>
#include <map>
#include <utility>

namespace schedlab {

namespace {

struct RawLevel
{
    DomainLevel level;
    int first;
    int weight;
    int flags;
};

// sd_init(): the defaults every level starts from, then the per-level adjustments.
SchedDomain initDomain(const RawLevel& raw, int64_t jiffies)
{
    SchedDomain sd;
    sd.level = raw.level;
    sd.first = raw.first;
    sd.weight = raw.weight;
    sd.flags = raw.flags;
    sd.minInterval = raw.weight;
    sd.maxInterval = 2 * raw.weight;
    sd.balanceInterval = raw.weight;
    sd.busyFactor = 16;
    sd.imbalancePct = 117;
    sd.cacheNiceTries = 0;
    sd.lastBalance = jiffies;
    sd.lastDecayMaxLbCost = jiffies;
    if (sd.flags & SdShareCpuCapacity) {
        sd.imbalancePct = 110;
    } else if (sd.flags & SdShareLlc) {
        sd.imbalancePct = 117;
        sd.cacheNiceTries = 1;
    } else {
        sd.cacheNiceTries = 1;
    }
    return sd;
}

} // namespace

SchedDomains::SchedDomains(const CpuTopology& topology, int64_t jiffies)
    : m_topo(topology)
{
    const int n = m_topo.cpus;
    m_domains.resize(static_cast<size_t>(n));
    // asym_cap_list: the distinct capacities of the machine.
    std::vector<int> machineCaps;
    for (int c = 0; c < n; ++c)
        if (std::find(machineCaps.begin(), machineCaps.end(), m_topo.capacityOf(c))
            == machineCaps.end())
            machineCaps.push_back(m_topo.capacityOf(c));
    m_asym = machineCaps.size() > 1;
    m_maxCapacity =
        n > 0 ? *std::max_element(machineCaps.begin(), machineCaps.end()) : kSchedCapacityScale;
    if (n < 2)
        return;
    // asym_cpu_capacity_classify(): a span with two or more capacities is asymmetric, fully so
    // when it holds every capacity of the machine (kernel-model.md §8.4).
    auto asymFlags = [&](int first, int weight) {
        std::vector<int> caps;
        for (int c = first; c < first + weight; ++c)
            if (std::find(caps.begin(), caps.end(), m_topo.capacityOf(c)) == caps.end())
                caps.push_back(m_topo.capacityOf(c));
        if (caps.size() < 2)
            return 0;
        return caps.size() == machineCaps.size() ? SdAsymCpuCapacity | SdAsymCpuCapacityFull
                                                 : SdAsymCpuCapacity;
    };
    const int base =
        SdBalanceNewidle | SdBalanceExec | SdBalanceFork | SdWakeAffine | SdPreferSibling;
    for (int cpu = 0; cpu < n; ++cpu) {
        // The default x86 topology levels (cpu_smt_flags, cpu_core_flags, package).
        std::vector<RawLevel> raw = {
            {DomainLevel::Smt, m_topo.coreFirst(cpu), m_topo.coreSize(cpu),
                base | SdShareCpuCapacity | SdShareLlc},
            {DomainLevel::Mc, m_topo.llcFirst(cpu), m_topo.llcSize(cpu), base | SdShareLlc},
            {DomainLevel::Pkg, 0, n, base},
        };
        for (RawLevel& r : raw)
            r.flags |= asymFlags(r.first, r.weight);
        // x86 with ITMT (§8.5): x86_core_flags() and, as on hybrid parts, x86_die_flags() add
        // SD_ASYM_PACKING; the SMT level has none since 6.5 (siblings share one priority).
        if (m_topo.itmt()) {
            raw[1].flags |= SdAsymPacking;
            raw[2].flags |= SdAsymPacking;
        }
        for (size_t i = 1; i < raw.size(); ++i)
            if (raw[i].flags & SdAsymCpuCapacity)
                raw[i - 1].flags &= ~SdPreferSibling; // the child of an asymmetric level
        // cpu_attach_domain(): drop levels of one CPU and parents that span what their child
        // spans (the child inherits the parent's SD_PREFER_SIBLING).
        std::vector<SchedDomain>& out = m_domains[static_cast<size_t>(cpu)];
        for (const RawLevel& r : raw) {
            if (r.weight <= 1)
                continue;
            if (!out.empty() && out.back().weight == r.weight) {
                out.back().flags |= r.flags & SdPreferSibling;
                continue;
            }
            out.push_back(initDomain(r, jiffies));
        }
        // The groups of each level: the spans of the level below (single CPUs for the lowest);
        // a group carries its child domain's flags. The ring starts at the local group.
        for (size_t i = 0; i < out.size(); ++i) {
            SchedDomain& sd = out[i];
            const SchedDomain* child = i > 0 ? &out[i - 1] : nullptr;
            const int childFlags = child ? child->flags : 0;
            const DomainLevel childLevel = child ? child->level : DomainLevel::None;
            std::vector<int> ring;
            int localIndex = 0;
            for (int c = sd.first; c < sd.first + sd.weight;) {
                int gFirst = c;
                int gWeight = 1;
                if (childLevel == DomainLevel::Smt) {
                    gFirst = m_topo.coreFirst(c);
                    gWeight = m_topo.coreSize(c);
                } else if (childLevel == DomainLevel::Mc) {
                    gFirst = m_topo.llcFirst(c);
                    gWeight = m_topo.llcSize(c);
                }
                if (gFirst <= cpu && cpu < gFirst + gWeight)
                    localIndex = static_cast<int>(ring.size());
                ring.push_back(groupFor(childLevel, gFirst, gWeight, childFlags));
                c = gFirst + gWeight;
            }
            sd.groups.clear();
            for (size_t k = 0; k < ring.size(); ++k)
                sd.groups.push_back(ring[(static_cast<size_t>(localIndex) + k) % ring.size()]);
        }
    }
}

int SchedDomains::groupFor(DomainLevel childLevel, int first, int weight, int childFlags)
{
    // One shared group per span and level, as the kernel shares sched_group(_capacity).
    const auto key = std::make_pair(static_cast<int>(childLevel), first);
    if (const auto it = m_groupIndex.find(key); it != m_groupIndex.end())
        return it->second;
    SchedGroup g;
    g.first = first;
    g.weight = weight;
    g.flags = childFlags;
    g.cores = 0;
    g.asymPreferCpu = first;
    for (int c = first; c < first + weight; ++c) {
        const int cap = m_topo.capacityOf(c);
        g.capacity += cap;
        g.minCapacity = c == first ? cap : std::min<int64_t>(g.minCapacity, cap);
        g.maxCapacity = std::max<int64_t>(g.maxCapacity, cap);
        if (c == m_topo.coreFirst(c))
            ++g.cores;
        if (m_topo.itmt() && m_topo.asymPrefer(c, g.asymPreferCpu))
            g.asymPreferCpu = c;
    }
    m_groups.push_back(g);
    m_groupIndex.emplace(key, static_cast<int>(m_groups.size() - 1));
    return static_cast<int>(m_groups.size() - 1);
}

const SchedDomain* SchedDomains::lowest(int cpu) const
{
    const auto& d = domains(cpu);
    return d.empty() ? nullptr : &d.front();
}

const SchedDomain* SchedDomains::highestWith(int cpu, int flag) const
{
    // highest_flag_domain() for a flag the levels need not share with their children.
    const SchedDomain* found = nullptr;
    for (const SchedDomain& sd : domains(cpu))
        if (sd.flags & flag)
            found = &sd;
    return found;
}

const SchedDomain* SchedDomains::llc(int cpu) const
{
    return highestWith(cpu, SdShareLlc);
}

const SchedDomain* SchedDomains::asymCapacityDomain(int cpu) const
{
    for (const SchedDomain& sd : domains(cpu))
        if (sd.flags & SdAsymCpuCapacityFull)
            return &sd;
    return nullptr;
}

const SchedDomain* SchedDomains::asymPackingDomain(int cpu) const
{
    return highestWith(cpu, SdAsymPacking);
}

const SchedDomain* SchedDomains::spanning(int cpu, int other) const
{
    for (const SchedDomain& sd : domains(cpu))
        if (sd.contains(other))
            return &sd;
    return nullptr;
}

} // namespace schedlab
