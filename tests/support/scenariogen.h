// SPDX-License-Identifier: GPL-2.0-or-later
// Random valid scenarios for property tests (tst_randomscenarios): every part of the format
// (scenario-format.md §1) may appear: SMT machines, nested cgroups with weights, bandwidth and RT
// bandwidth, every program operation (loops, kernel sections, mutexes, forks, yields, cookies,
// cgroup writes), every action, profiles, sched features, behaviour choices and kernel costs.
// A pure function of the seed, drawn with the project's own PRNG (core/base/prng.h), so a failing
// seed reproduces on every machine. No Qt.
#pragma once

#include "core/base/time.h"
#include "core/sim/scenariospec.h"

#include <cstdint>

namespace schedlab::test {

struct ScenarioGenOptions
{
    Nanoseconds minDuration{2'000'000}; ///< simulated time of the run, drawn in [min, max]
    Nanoseconds maxDuration{20'000'000};
    int maxCpus = 8;
    int maxTaskEntries = 6; ///< entries under "tasks" (each with count ≤ 3)
    int maxProgramDepth = 3;
};

/// A scenario the loader accepts: parseScenario(writeScenario(s)) gives s back.
Scenario randomScenario(uint64_t seed, const ScenarioGenOptions& options = {});

} // namespace schedlab::test
