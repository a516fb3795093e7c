// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run (runner/): the plan lists what a real kernel cannot reproduce before the run, the
// program interpreter executes operations on this machine (busy work on the thread CPU clock,
// sleeps, loops, locks, forks, exit), and — as root with cgroup v2's cpu controller and tracefs —
// a whole run produces a trace that the importer reads back with the scenario's task names.
#include "core/import/ftrace.h"
#include "core/scenario/scenarioio.h"
#include "runner/runner.h"
#include "runner/system.h"

#include <QTemporaryDir>
#include <QTest>

#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace schedlab;
using namespace schedlab::runner;

namespace {

int64_t clockNs(clockid_t id)
{
    timespec ts{};
    clock_gettime(id, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

Scenario parse(const std::string& text)
{
    LoadResult r = parseScenario(text, "test.json");
    if (!r.ok())
        qFatal("%s", r.errors.empty() ? "?" : r.errors.front().c_str());
    return *r.scenario;
}

bool anyContains(const std::vector<std::string>& lines, const std::string& part)
{
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestRunner : public QObject
{
    Q_OBJECT

private slots:
    void versionCodes()
    {
        QCOMPARE(kernelVersionCode("6.12.3-amd64"), 6012);
        QCOMPARE(kernelVersionCode("7.3.4+deb13-amd64"), 7003);
        QCOMPARE(kernelVersionCode("garbage"), 0);
    }

    void planReportsWhatCannotBeReproduced()
    {
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "p", "duration": "1s",
          "kernel": { "profile": "6.12", "hz": 250, "overrides": { "reweight": "eevdf" } },
          "machine": { "cpus": 3 },
          "cgroups": [ { "path": "/g", "count": 2, "cpu.weight": 50 } ],
          "tasks": [
            { "name": "w", "count": 2, "cgroup": "/g-1", "slice": "1ms",
              "start": { "uniform": ["10ms", "20ms"] },
              "program": [ { "kernel": [ { "lock": "f" }, { "run": "1ms" }, { "unlock": "f" } ] },
                           { "cookie": "create" }, { "lock": "other" }, { "unlock": "other" },
                           { "resume": "q" }, { "suspend": "q" }, { "suspend": "r" } ] },
            { "name": "kthread", "kernel_thread": true, "program": [ { "suspend": "q" } ] }
          ],
          "actions": [ { "at": "100ms", "profile": "7.1" } ]
        })");
        const Plan plan = makePlan(s, 2, "6.6.0-1-amd64");
        QCOMPARE(plan.errors.size(), size_t{1}); // 3 CPUs wanted, 2 online
        QVERIFY(anyContains(plan.errors, "needs 3 CPUs"));
        QVERIFY(anyContains(plan.notes, "/kernel/profile"));
        QVERIFY(anyContains(plan.notes, "/kernel/hz"));
        QVERIFY(anyContains(plan.notes, "/kernel/overrides/reweight"));
        QVERIFY(anyContains(plan.notes, "/tasks/0/program/0: kernel section"));
        QVERIFY(anyContains(plan.notes, "/tasks/0/program/1: core-scheduling cookie"));
        QVERIFY(anyContains(plan.notes, "/tasks/0/slice: custom slices need Linux 6.12+"));
        QVERIFY(anyContains(plan.notes, "/actions/0: profile switch"));
        QCOMPARE(plan.cgroups, (std::vector<std::string>{"/g-1", "/g-2"}));
        QVERIFY(anyContains(plan.notes, "/tasks/1: stands for a kernel thread: not started"));
        QCOMPARE(plan.tasks.size(), size_t{2}); // not the kernel thread
        QCOMPARE(plan.tasks[1].name, std::string("w-2"));
        QCOMPARE(plan.tasks[1].cgroup, std::string("/g-1"));
        for (const auto& t : plan.tasks)
            QVERIFY(t.startNs >= 10'000'000 && t.startNs <= 20'000'000);
        QCOMPARE(plan.mutexes, (std::vector<std::string>{"f", "other"}));
        QCOMPARE(plan.waitQueues, (std::vector<std::string>{"q", "r"}));

        // On a 6.12 kernel with enough CPUs: no error, no slice note.
        const Plan fits = makePlan(s, 4, "6.12.48+deb13-amd64");
        QVERIFY(fits.errors.empty());
        QVERIFY(!anyContains(fits.notes, "custom slices"));
        QVERIFY(anyContains(fits.notes, "confined to CPUs 0-2"));
    }

    void busyWorkIsMeasuredOnTheThreadClock()
    {
        const int64_t cpu0 = clockNs(CLOCK_THREAD_CPUTIME_ID);
        busyFor(20'000'000);
        QVERIFY(clockNs(CLOCK_THREAD_CPUTIME_ID) - cpu0 >= 20'000'000);
    }

    void busyWorkDoesNotPollTheThreadClock()
    {
        // Fake clocks: each monotonic read follows 1 µs of running, and every 1000th read also
        // 3 ms of preemption before it (wall time only). The first read only starts the count,
        // and the µs before a preempted read does not count (its gap is 3.001 ms), so 20 ms of
        // counted work takes reads 2 … K with K − 1 − floor(K / 1000) = 20 000: K = 20 021,
        // 20 preemptions, 20.021 ms of CPU. The CPU clock (each read 1 µs of CPU) is read at
        // the two ends only (1.001 ms + 20 ms is reached): polling it, as the runner once did,
        // would run the kernel's update_curr() thousands of times.
        static int64_t wall;
        static int64_t cpu;
        static int monotonicReads;
        static int threadReads;
        wall = 5'000'000;
        cpu = 1'000'000;
        monotonicReads = 0;
        threadReads = 0;
        const BusyClocks fake{[] {
                                  if (++monotonicReads % 1000 == 0)
                                      wall += 3'000'000;
                                  wall += 1000;
                                  cpu += 1000;
                                  return wall;
                              },
            [] {
                ++threadReads;
                cpu += 1000; // a system call: 1 µs of CPU
                return cpu;
            }};
        busyFor(20'000'000, fake);
        QCOMPARE(threadReads, 2);
        QCOMPARE(monotonicReads, 20'021);
        QCOMPARE(cpu, int64_t{1'000'000 + 2'000 + 20'021'000}); // preemptions are not work
        QCOMPARE(wall, int64_t{5'000'000 + 20'021'000 + 20 * 3'000'000});
    }

    void interpreterRunsEveryOperation()
    {
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "i", "machine": { "cpus": 1 },
          "tasks": [ { "name": "t", "program": [
            { "loop": [ { "lock": "m" }, { "run": "1ms" }, { "unlock": "m" }, { "yield": true } ],
              "count": 3 },
            { "resume": "q" }, { "suspend": "q" },
            { "sleep": "5ms" },
            { "fork": { "program": [ { "run": "1ms" } ] }, "wait": true },
            { "loop": [ { "sleep": "1ms" } ], "for": "3ms" },
            { "exit": true },
            { "lock": "never" } ] } ]
        })");
        std::vector<std::string> calls;
        ProgramHooks hooks;
        hooks.lock = [&](const std::string& m, bool lock) {
            calls.push_back((lock ? "lock " : "unlock ") + m);
        };
        hooks.waitQueue = [&](const std::string& q, bool resume) {
            calls.push_back((resume ? "resume " : "suspend ") + q);
        };
        hooks.fork = [&](const TaskSpec& child, bool wait) {
            calls.push_back("fork " + std::to_string(child.program.size()) + (wait ? " wait" : ""));
        };
        Prng prng(1);
        const int64_t cpu0 = clockNs(CLOCK_THREAD_CPUTIME_ID);
        const int64_t wall0 = clockNs(CLOCK_MONOTONIC);
        QVERIFY(!runProgram(s.tasks[0].program, prng, hooks)); // ended by exit
        const int64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        const int64_t wall = clockNs(CLOCK_MONOTONIC) - wall0;
        QCOMPARE(calls,
            (std::vector<std::string>{"lock m", "unlock m", "lock m", "unlock m", "lock m",
                "unlock m", "resume q", "suspend q", "fork 1 wait"}));
        QVERIFY(cpu >= 3'000'000); // three 1 ms runs (the fork hook ran nothing)
        QVERIFY(wall >= 3'000'000 + 5'000'000 + 3'000'000); // runs, the sleep, the timed loop
    }

    // A real run: root, cgroup v2 with the cpu controller, tracefs. CI runs as root; containers
    // often have neither, so this skips with the reason.
    void wholeRunOnThisKernel()
    {
        if (geteuid() != 0)
            QSKIP("not root: schedlab-run needs root");
        const std::string cg = cgroup2Mount(false);
        if (cg.empty())
            QSKIP("no cgroup v2 hierarchy mounted");
        if (!hasCpuController(cg))
            QSKIP(("the cgroup v2 hierarchy at " + cg + " has no cpu controller").c_str());
        if (tracefsDir("/sys/kernel/tracing", false).empty())
            QSKIP("no tracefs at /sys/kernel/tracing or /sys/kernel/debug/tracing");
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "runner-test", "duration": "300ms", "machine": { "cpus": 1 },
          "cgroups": [ { "path": "/schedlab-runner-test", "cpu.weight": 100 } ],
          "tasks": [ { "name": "hog-with-a-long-name", "count": 2,
                       "cgroup": "/schedlab-runner-test", "program": [ { "run": "forever" } ] } ]
        })");
        QTemporaryDir dir;
        RunConfig config;
        config.traceOut = dir.filePath("trace.txt").toStdString();
        const Plan plan = makePlan(s, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), "");
        std::ostringstream err;
        QCOMPARE(runScenario(s, plan, config, err), 0);
        const TraceImport r = importFtraceFile(config.traceOut);
        QVERIFY(r.ok());
        int64_t total = 0;
        for (const char* name : {"hog-with-a-long-name-1", "hog-with-a-long-name-2"}) {
            const auto it = std::find_if(r.metrics.tasks.begin(), r.metrics.tasks.end(),
                [&](const TaskMetrics& t) { return t.name == name; });
            QVERIFY2(it != r.metrics.tasks.end(), name);
            QCOMPARE(it->cgroup, std::string("/schedlab-runner-test"));
            QVERIFY(it->cpuTimeNs > 0);
            total += it->cpuTimeNs;
        }
        QVERIFY(total > r.metrics.durationNs / 2); // two hogs on CPU 0 keep it busy
    }
};

QTEST_APPLESS_MAIN(TestRunner)
#include "tst_runner.moc"
