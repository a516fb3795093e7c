// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's CPU topology as the scheduler sees it: SMT siblings share a core, cores share an
// LLC domain, the LLCs form the package; CPUs are numbered core by core (kernel-model.md §8.3).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace schedlab {

/// SCHED_CAPACITY_SCALE: the capacity of the biggest CPU at its highest frequency.
constexpr int kSchedCapacityScale = 1024;

/// fits_capacity(): @p util fits @p capacity with the 20 % margin (util · 1280 < capacity ·
/// 1024); util_fits_cpu() without uclamp (kernel-model.md §8.4).
inline bool fitsCapacity(uint64_t util, int64_t capacity)
{
    return util * 1280 < static_cast<uint64_t>(capacity) * 1024;
}

struct CpuTopology
{
    int cpus = 1;
    int threadsPerCore = 1;
    int coresPerLlc = 1;
    /// arch_scale_cpu_capacity() per CPU; empty means kSchedCapacityScale for every CPU.
    std::vector<int> capacities;
    /// arch_asym_cpu_priority() per CPU (x86 ITMT, sched_core_priority); empty: no ITMT, no
    /// SD_ASYM_PACKING (kernel-model.md §8.5).
    std::vector<int> itmtPriorities;

    int coreOf(int cpu) const { return cpu / threadsPerCore; }
    int llcOf(int cpu) const { return coreOf(cpu) / coresPerLlc; }
    int capacityOf(int cpu) const
    {
        return capacities.empty() ? kSchedCapacityScale : capacities[static_cast<size_t>(cpu)];
    }
    bool itmt() const { return !itmtPriorities.empty(); }
    /// sched_asym_prefer(): @p a has a higher ITMT priority than @p b.
    bool asymPrefer(int a, int b) const
    {
        return itmtPriorities[static_cast<size_t>(a)] > itmtPriorities[static_cast<size_t>(b)];
    }
    /// First CPU and size of @p cpu's core (the last core may be cut short by the CPU count).
    int coreFirst(int cpu) const { return coreOf(cpu) * threadsPerCore; }
    int coreSize(int cpu) const { return std::min(threadsPerCore, cpus - coreFirst(cpu)); }
    int llcFirst(int cpu) const { return llcOf(cpu) * coresPerLlc * threadsPerCore; }
    int llcSize(int cpu) const
    {
        return std::min(coresPerLlc * threadsPerCore, cpus - llcFirst(cpu));
    }
};

} // namespace schedlab
