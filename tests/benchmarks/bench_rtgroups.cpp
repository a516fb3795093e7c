// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark (CTest label "bench"): 10 000 cgroups (scenarios/rt-group-constraints.json) load and
// simulate 10 s, before and after the rt_runtime constraint-check patch. Prints load time,
// construction time (per-group, per-CPU structures) and run time; the large-run budget is 10 s of
// wall time for 10 s simulated.
#ifndef Q_MOC_RUN
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#endif

#include <QtTest>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace schedlab;

namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

class BenchRtGroups : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tenThousandCgroups_data()
    {
        QTest::addColumn<QString>("check");
        QTest::addColumn<int>("cpus");
        QTest::addRow("walk_all_tasks, 4 CPUs") << "walk_all_tasks" << 4;
        QTest::addRow("patched, 4 CPUs") << "patched" << 4;
        QTest::addRow("patched, 16 CPUs") << "patched" << 16;
    }
    void tenThousandCgroups()
    {
        QFETCH(QString, check);
        QFETCH(int, cpus);
        std::ifstream in(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/rt-group-constraints.json");
        std::stringstream text;
        text << in.rdbuf();
        const auto t0 = std::chrono::steady_clock::now();
        LoadResult r = parseScenario(text.str(), "rt-group-constraints.json");
        const auto t1 = std::chrono::steady_clock::now();
        QVERIFY(r.ok());
        Scenario s = *r.scenario;
        s.machine.cpus = cpus;
        RunOptions o;
        o.overrides = {{"rt_constraint_check", check.toStdString()}};
        o.duration = Nanoseconds(10'000'000'000);
        const auto t2 = std::chrono::steady_clock::now();
        Simulation sim(s, o);
        const auto t3 = std::chrono::steady_clock::now();
        sim.run();
        const auto t4 = std::chrono::steady_clock::now();
        std::printf("BENCH 10000 cgroups, %-16s %2d CPUs: load %.3f s  build %.3f s  "
                    "run 10 s %.3f s  events %llu  records %llu\n",
            check.toStdString().c_str(), cpus, seconds(t0, t1), seconds(t2, t3), seconds(t3, t4),
            static_cast<unsigned long long>(sim.eventsExecuted()),
            static_cast<unsigned long long>(sim.recording().size()));
        QVERIFY(sim.eventsExecuted() > 0);
    }
};

QTEST_APPLESS_MAIN(BenchRtGroups)
#include "bench_rtgroups.moc"
