// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer harness: arbitrary bytes through the loader and, when they load, a bounded simulation
// (docs/limits.md, "Fuzzing"): at most 20 ms simulated, with resource guards lowered so that one
// input costs little. The run must end or stop with a reason, without a crash or a sanitizer
// report. With SCHEDLAB_FUZZ_INVARIANTS=1 in the environment a violated invariant (checked builds)
// is a failure too: that hunts model bugs, which tst_randomscenarios also looks for; violations
// containing the text of SCHEDLAB_FUZZ_IGNORE (a known bug) are then skipped.
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "harness.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

using namespace schedlab;
using fuzz::fail;

namespace {

const bool kStrict = [] {
    const char* value = std::getenv("SCHEDLAB_FUZZ_INVARIANTS");
    return value && std::string(value) == "1";
}();

const std::string kIgnore = [] {
    const char* value = std::getenv("SCHEDLAB_FUZZ_IGNORE");
    return value ? std::string(value) : std::string();
}();

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::inputText(data, size);
    const LoadResult loaded = parseScenario(text, "fuzz.json");
    if (!loaded.ok())
        return 0;
    RunOptions options;
    options.duration = std::min(loaded.scenario->durationOrDefault(), Nanoseconds(20'000'000));
    options.limits.liveTasks = 2000;
    options.limits.recordingBytes = uint64_t{64} << 20U;
    options.limits.eventsPerSecond = 10'000'000; // 10 000 events per simulated millisecond
    std::unique_ptr<Simulation> sim;
    try {
        sim = std::make_unique<Simulation>(*loaded.scenario, options);
    } catch (const std::invalid_argument&) {
        return 0; // refused with a message (e.g. more file tasks than the live-task guard)
    }
    sim->run();
    if (sim->now() > sim->endTime())
        fail("the clock passed the end", std::to_string(sim->now().count()));
    if (!sim->finished() && sim->stopReason().empty())
        fail("run() returned before the end without a reason", std::to_string(sim->now().count()));
    if (kStrict)
        for (const std::string& violation : sim->invariantViolations())
            // (Workload mistakes are findings: every violation is a broken model invariant.)
            if (kIgnore.empty() || violation.find(kIgnore) == std::string::npos)
                fail("invariant violated", violation);
    const Metrics metrics = sim->metrics();
    if (metrics.durationNs < 0 || metrics.durationNs > options.duration->count())
        fail("metrics duration out of range", std::to_string(metrics.durationNs));
    return 0;
}
