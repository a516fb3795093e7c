// SPDX-License-Identifier: GPL-2.0-or-later
// The machine's CPU topology as the scheduler sees it: SMT siblings share a core, cores share an
// LLC domain; CPUs are numbered core by core.
#pragma once

namespace schedlab {

struct CpuTopology
{
    int cpus = 1;
    int threadsPerCore = 1;
    int coresPerLlc = 1;
    int coreOf(int cpu) const { return cpu / threadsPerCore; }
    int llcOf(int cpu) const { return coreOf(cpu) / coresPerLlc; }
};

} // namespace schedlab
