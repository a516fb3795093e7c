// SPDX-License-Identifier: GPL-2.0-or-later
// PELT arithmetic (kernel-model.md §6.6). Placeholder bodies are replaced in the PELT issue.
#include "pelt.h"

namespace schedlab {

uint64_t peltDecayLoad(uint64_t val, uint64_t n)
{
    return n >= 64 * kLoadAvgPeriod ? 0 : (val >> (n / kLoadAvgPeriod));
}

bool peltUpdateSum(uint64_t, PeltAvg&, uint64_t, uint64_t, bool) { return false; }

void peltUpdateAvg(PeltAvg&, uint64_t) {}

} // namespace schedlab
