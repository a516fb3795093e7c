// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmarks (label "bench"): how long the inspector waits for the state at a past time
// (inspectAt = re-run to t + snapshot with explained picks), and the cost of the exports of a
// whole run (Perfetto JSON, samples CSV). Run with `make bench`.
#include "core/record/traceexport.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/inspect.h"
#include "core/sim/simulation.h"

#include <QtTest>

#include <chrono>
#include <cstdio>
#include <string>

using namespace schedlab;

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Scenario load(const char* name)
{
    LoadResult r = loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/" + name);
    if (!r.ok())
        qFatal("cannot load %s", name);
    return *r.scenario;
}

} // namespace

class BenchInspect : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void inspectAtEnd()
    {
        for (const char* name :
            {"sleeper-lag.json", "two-groups-4cpu.json", "cgroup-weight-starvation.json"}) {
            const Scenario s = load(name);
            const Nanoseconds t = s.durationOrDefault() - Nanoseconds(1'000'000);
            const auto t0 = std::chrono::steady_clock::now();
            const Inspection in = inspectAt(s, {}, t);
            const double wall = seconds(t0);
            size_t rqs = 0;
            for (const auto& c : in.cpus)
                rqs += c.rqs.size();
            std::printf("BENCH inspectAt %-30s t=%.3f s  wall %.3f s  (%.0fx real time, %zu "
                        "cfs_rq's explained)\n",
                name, static_cast<double>(t.count()) / 1e9, wall,
                static_cast<double>(t.count()) / 1e9 / wall, rqs);
            QVERIFY(!in.cpus.empty());
        }
    }

    void exportWholeRun()
    {
        const Scenario s = load("sleeper-lag.json");
        Simulation sim(s);
        sim.run();
        auto t0 = std::chrono::steady_clock::now();
        const std::string trace = chromeTraceJson(sim.recording(), Nanoseconds(0), sim.now());
        const double traceWall = seconds(t0);
        t0 = std::chrono::steady_clock::now();
        const std::string csv = samplesCsv(sim.recording(), Nanoseconds(0), sim.now());
        const double csvWall = seconds(t0);
        std::printf("BENCH export sleeper-lag 20 s (%zu records): trace %.1f MB in %.3f s, "
                    "samples CSV %.1f MB in %.3f s\n",
            sim.recording().size(), static_cast<double>(trace.size()) / 1e6, traceWall,
            static_cast<double>(csv.size()) / 1e6, csvWall);
        QVERIFY(!trace.empty() && !csv.empty());
    }
};

QTEST_GUILESS_MAIN(BenchInspect)
#include "bench_inspect.moc"
