// SPDX-License-Identifier: GPL-2.0-or-later
// rt-app import and export (docs/rtapp.md): each construct against a hand-written expectation,
// the rt-app dialect (repeated keys, bare keys, comments), warnings naming the JSON path, every
// rt-app example importing and running, and export → import round trips on shipped scenarios.
#include "core/rtapp/lenientjson.h"
#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QTest>

#include <string>
#include <vector>

using namespace schedlab;
using namespace schedlab::rtapp;

namespace {

bool anyContains(const std::vector<std::string>& lines, const std::string& part)
{
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos)
            return true;
    return false;
}

Op run(Nanoseconds d)
{
    Op op;
    op.kind = Op::Kind::Run;
    op.duration = DurationSpec::fixed(d);
    return op;
}

Op sleepOp(Nanoseconds d)
{
    Op op;
    op.kind = Op::Kind::Sleep;
    op.duration = DurationSpec::fixed(d);
    return op;
}

Op named(Op::Kind kind, const std::string& name)
{
    Op op;
    op.kind = kind;
    op.name = name;
    return op;
}

Op loop(std::vector<Op> body, std::optional<int64_t> count)
{
    Op op;
    op.kind = Op::Kind::Loop;
    op.body = std::move(body);
    op.count = count;
    return op;
}

const TaskMetrics* taskMetrics(const Metrics& m, const std::string& name)
{
    for (const auto& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

Metrics simulate(const Scenario& s, std::optional<Nanoseconds> duration = std::nullopt)
{
    RunOptions o;
    o.duration = duration;
    o.recordSamples = false;
    Simulation sim(s, o);
    sim.run();
    return sim.metrics();
}

QStringList jsonFilesUnder(const QString& dir)
{
    QStringList files;
    QDirIterator it(dir, {"*.json", "*.json.gz"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

} // namespace

class TestRtApp : public QObject
{
    Q_OBJECT

private slots:
    void dialectKeepsOrderAndDuplicates();
    void syntaxErrorNamesLine();
    void periodicTimerGivesShareAndPeriod();
    void timerBehindOtherWork();
    void lockBlocksAsSpecified();
    void suspendResumeWakeChain();
    void attributes();
    void phasesAndPhaseCpus();
    void runtimeIsWallTime();
    void deadlineThreads();
    void unsupportedEventsWarnWithPath();
    void badValuesAreErrors();
    void forkUsesTheNamedThread();
    void bundledExamplesImportAndRun_data();
    void bundledExamplesImportAndRun();
    void debianExamplesImportAndRun();
    void exportImportRoundTrip_data();
    void exportImportRoundTrip();
    void exportWarnsForWhatRtAppLacks();
    void exportedForkRoundTrips();
    void loaderLimitsNameTheRtAppLine();
    void exportUnrollingIsBounded();
};

void TestRtApp::dialectKeepsOrderAndDuplicates()
{
    std::string error;
    auto v = parseLenient("{ /* c */ \"a\": 1, \"suspend\", // x\n \"a\": [2, 3,], }", &error);
    QVERIFY2(v, error.c_str());
    QCOMPARE(v->members.size(), size_t(3));
    QCOMPARE(v->members[0].first, std::string("a"));
    QCOMPARE(v->members[0].second.integer, int64_t(1));
    QCOMPARE(v->members[1].first, std::string("suspend"));
    QVERIFY(v->members[1].second.type == Value::Type::Null);
    QCOMPARE(v->members[2].second.items.size(), size_t(2));
    QCOMPARE(v->members[2].second.line, 2);

    // Repeated events run in file order.
    auto r = importRtApp(R"({ "tasks": { "t": { "loop": 1, "run": 1000, "sleep": 2000,
        "run": 3000 } } })",
        "dup.json");
    QVERIFY(r.ok());
    const std::vector<Op> expected{run(1_ms), sleepOp(2_ms), run(3_ms)};
    QCOMPARE(r.scenario->tasks.at(0).program, expected);
    QCOMPARE(r.scenario->name, std::string("dup"));
}

void TestRtApp::syntaxErrorNamesLine()
{
    auto r = importRtApp("{\n \"tasks\": {\n  \"t\": { \"run\" 5 }\n }\n}", "bad.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.errors.size(), size_t(1));
    QVERIFY2(anyContains(r.errors, "bad.json:3: expected ',' or '}'"), r.errors[0].c_str());
}

// rt-app tutorial example 2: 10 ms of work every 100 ms. Alone on a CPU it runs at 0, 100 ms,
// …, 1.9 s: 20 runs of 10 ms in 2 s = 200 ms, a 10 % share, never waiting.
void TestRtApp::periodicTimerGivesShareAndPeriod()
{
    auto r = importRtAppFile(SCHEDLAB_SOURCE_DIR "/tests/data/rtapp/tutorial-example2.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    const Scenario& s = *r.scenario;
    QCOMPARE(s.duration, std::optional<Nanoseconds>(2_s));
    QCOMPARE(s.tasks.size(), size_t(1));
    const std::vector<Op> expected{loop({run(10_ms), sleepOp(90_ms)}, std::nullopt)};
    QCOMPARE(s.tasks[0].program, expected);
    QVERIFY(anyContains(r.warnings, ":11: /tasks/thread0/timer: periodic timer of 100.000 ms"));

    const Metrics m = simulate(s);
    const TaskMetrics* t = taskMetrics(m, "thread0");
    QVERIFY(t);
    QCOMPARE(t->cpuTimeNs, int64_t(200'000'000));
    QCOMPARE(t->waitMaxNs, int64_t(0));
    // Each period is one wakeup and one switch in and out: 20 runs.
    QVERIFY(t->switches >= 20 && t->switches <= 40);
}

// A timer counts everything since the previous timer, cyclically: "timer; run 3 ms" in a loop
// sleeps 7 ms for a 10 ms period.
void TestRtApp::timerBehindOtherWork()
{
    auto r = importRtApp(R"({ "tasks": { "t": { "loop": -1,
        "timer": { "ref": "a", "period": 10000 }, "run": 3000 } }, "global": { "duration": 1 } })",
        "t.json");
    QVERIFY(r.ok());
    const std::vector<Op> expected{loop({sleepOp(7_ms), run(3_ms)}, std::nullopt)};
    QCOMPARE(r.scenario->tasks[0].program, expected);
    // A period shorter than the work never sleeps, as rt-app's timer is then always late.
    auto late = importRtApp(R"({ "tasks": { "t": { "loop": 2, "run": 5000,
        "timer": { "ref": "a", "period": 4000 } } } })",
        "late.json");
    QVERIFY(late.ok());
    QCOMPARE(late.scenario->tasks[0].program, (std::vector<Op>{loop({run(5_ms)}, 2)}));
    QVERIFY(
        anyContains(late.warnings, ":2: /tasks/t/timer: periodic timer of 4.000 ms is shorter"));
}

// a holds m from 0 to 10 ms on CPU 0; b asks for it at 1 ms on CPU 1, waits 9 ms, then runs
// 1 ms: lock wait 9 ms, exit at 11 ms.
void TestRtApp::lockBlocksAsSpecified()
{
    auto r = importRtApp(R"({
        "tasks": {
            "a": { "loop": 1, "cpus": [0], "lock": "m", "run": 10000, "unlock": "m" },
            "b": { "loop": 1, "cpus": [1], "delay": 1000, "lock": "m", "run": 1000, "unlock": "m" }
        },
        "global": { "duration": 1 } })",
        "lock.json");
    QVERIFY(r.ok());
    QCOMPARE(r.scenario->machine.cpus, std::optional<int>(2));
    const std::vector<Op> a{named(Op::Kind::Lock, "m"), run(10_ms), named(Op::Kind::Unlock, "m")};
    QCOMPARE(r.scenario->tasks[0].program, a);
    const Metrics m = simulate(*r.scenario);
    const TaskMetrics* b = taskMetrics(m, "b");
    QVERIFY(b && b->lockWaitNs);
    QCOMPARE(*b->lockWaitNs, int64_t(9'000'000));
    QCOMPARE(b->exitedAtNs, std::optional<int64_t>(11'000'000));
    QCOMPARE(b->cpuTimeNs, int64_t(1'000'000));
}

void TestRtApp::suspendResumeWakeChain()
{
    // rt-app's wake-up chain: "waker" runs 2 ms, then resumes "sleeper" and sleeps 8 ms (a 10 ms
    // period); "sleeper" waits on its own resource (suspend without a name), then runs 1 ms.
    // Separate CPUs, so each resume finds the sleeper suspended: it runs 1 ms out of every 10,
    // from 2 ms on. 1 s: resumes at 2, 12, …, 992 ms, a hundred runs of 1 ms.
    auto r = importRtApp(R"({
        "tasks": {
            "waker": { "cpus": [0], "run": 2000, "resume": "sleeper", "sleep": 8000 },
            "sleeper": { "cpus": [1], "suspend", "run": 1000 }
        },
        "global": { "duration": 1 } })",
        "chain.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    QVERIFY(r.warnings.empty());
    const std::vector<Op> sleeper{
        loop({named(Op::Kind::Suspend, "sleeper"), run(1_ms)}, std::nullopt)};
    QCOMPARE(r.scenario->tasks[1].program, sleeper);
    const Metrics m = simulate(*r.scenario);
    QCOMPARE(taskMetrics(m, "sleeper")->cpuTimeNs, int64_t(100'000'000));
    QCOMPARE(taskMetrics(m, "waker")->cpuTimeNs, int64_t(200'000'000));
    // Exported and imported again: the same program.
    const auto again = importRtApp(exportRtApp(*r.scenario).json, "again.json");
    QVERIFY(again.ok());
    QCOMPARE(again.scenario->tasks[1].program, sleeper);
}

void TestRtApp::attributes()
{
    auto r = importRtApp(R"({
        "global": { "default_policy": "SCHED_OTHER", "duration": 3, "calibration": 95 },
        "tasks": {
            "rt": { "policy": "SCHED_FIFO", "priority": 50, "instance": 3, "run": 100 },
            "rr": { "policy": "SCHED_RR", "run": 100 },
            "fair": { "priority": -6, "delay": 1500, "taskgroup": "/a/b", "cpus": [1, 2],
                      "run": 100 },
            "batch": { "policy": "SCHED_BATCH", "nice": 5, "run": 100 }
        } })",
        "attrs.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    const Scenario& s = *r.scenario;
    QCOMPARE(s.machine.cpus, std::optional<int>(3));
    QCOMPARE(s.duration, std::optional<Nanoseconds>(3_s));
    QCOMPARE(s.tasks.size(), size_t(4));
    QCOMPARE(s.tasks[0].policy, std::optional<Policy>(Policy::Fifo));
    QCOMPARE(s.tasks[0].rtPriority, std::optional<int>(50));
    QCOMPARE(s.tasks[0].count, std::optional<int>(3));
    QCOMPARE(s.tasks[1].policy, std::optional<Policy>(Policy::RoundRobin));
    QCOMPARE(s.tasks[1].rtPriority, std::optional<int>(10)); // rt-app's default RT priority
    QCOMPARE(s.tasks[2].nice, std::optional<int>(-6));       // priority of SCHED_OTHER = nice
    QCOMPARE(s.tasks[2].start, std::optional<DurationSpec>(DurationSpec::fixed(1500_us)));
    QCOMPARE(s.tasks[2].cgroup, std::optional<std::string>("/a/b"));
    QCOMPARE(s.tasks[2].cpus, std::optional<std::string>("1-2"));
    QCOMPARE(s.cgroups.size(), size_t(2));
    QCOMPARE(s.cgroups[0].path, std::string("/a"));
    QCOMPARE(s.cgroups[1].path, std::string("/a/b"));
    QCOMPARE(s.tasks[3].policy, std::optional<Policy>(Policy::Batch));
    QCOMPARE(s.tasks[3].nice, std::optional<int>(5));
    QVERIFY(r.warnings.empty());
    // --cpus overrides the CPU count taken from the file.
    ImportOptions o;
    o.cpus = 8;
    QCOMPARE(importRtApp("{ \"tasks\": {} }", "x.json", o).scenario->machine.cpus,
        std::optional<int>(8));
}

// rt-app tutorial example 8: a phase without "cpus" goes back to the thread's.
void TestRtApp::phasesAndPhaseCpus()
{
    auto r = importRtApp(R"({ "tasks": { "t": { "cpus": [2], "loop": 2, "phases": {
        "p1": { "cpus": [0], "loop": 3, "run": 1500 },
        "p2": { "cpus": [1], "run": 1500, "sleep": 100 },
        "p3": { "run": 1500 } } } } })",
        "phases.json");
    QVERIFY(r.ok());
    const TaskSpec& t = r.scenario->tasks[0];
    QCOMPARE(t.cpus, std::optional<std::string>("2"));
    const std::vector<Op> expected{
        loop({named(Op::Kind::Cpus, "0"), loop({run(1500_us)}, 3), named(Op::Kind::Cpus, "1"),
                 run(1500_us), sleepOp(100_us), named(Op::Kind::Cpus, "2"), run(1500_us)},
            2)};
    QCOMPARE(t.program, expected);
}

void TestRtApp::runtimeIsWallTime()
{
    auto r = importRtApp(
        R"({ "tasks": { "t": { "loop": 1, "runtime": 25000, "runtime2": 4 } } })", "rt.json");
    QVERIFY(r.ok());
    Op first = loop({run(kRuntimeQuantum)}, std::nullopt);
    first.forTime = DurationSpec::fixed(25_ms);
    Op second = loop({run(4_us)}, std::nullopt);
    second.forTime = DurationSpec::fixed(4_us);
    QCOMPARE(r.scenario->tasks[0].program, (std::vector<Op>{first, second}));
    // Alone on a CPU, runtime T is T of CPU time.
    const Metrics m = simulate(*r.scenario, 1_s);
    QCOMPARE(taskMetrics(m, "t")->cpuTimeNs, int64_t(25'000'000 + 4'000));
}

void TestRtApp::deadlineThreads()
{
    // SCHED_DEADLINE with rt-app's defaults (µs; dl-period = dl-runtime, dl-deadline =
    // dl-period) becomes policy deadline; the export writes the three values back.
    auto r = importRtApp(R"({ "tasks": {
        "v": { "policy": "SCHED_DEADLINE", "dl-runtime": 10000, "dl-period": 30000,
               "loop": -1, "run": 8000, "yield": "" },
        "a": { "policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000,
               "dl-deadline": 5000, "loop": 1, "run": 1000 },
        "d": { "policy": "SCHED_DEADLINE", "dl-runtime": 3000, "loop": 1, "run": 1000 } } })",
        "dl.json");
    QVERIFY(r.ok());
    QCOMPARE(r.scenario->tasks[0].policy, std::optional(Policy::Deadline));
    QCOMPARE(
        r.scenario->tasks[0].dl, std::optional(DlParams{10'000'000, 30'000'000, 30'000'000, 0}));
    QCOMPARE(r.scenario->tasks[1].dl, std::optional(DlParams{2'000'000, 5'000'000, 10'000'000, 0}));
    QCOMPARE(r.scenario->tasks[2].dl, std::optional(DlParams{3'000'000, 3'000'000, 3'000'000, 0}));
    QVERIFY(!anyContains(r.warnings, "dl-"));
    // On one CPU v runs 8 ms of every 30 (its yield waits for the next period): 27 jobs in
    // 800 ms (0, 30, …, 780 ms), 216 ms.
    Scenario s = *r.scenario;
    s.tasks.resize(1);
    s.machine.cpus = 1;
    QCOMPARE(taskMetrics(simulate(s, 800_ms), "v")->cpuTimeNs, int64_t(216'000'000));
    const ExportResult e = exportRtApp(*r.scenario);
    for (const char* part : {R"("dl-runtime": 10000)", R"("dl-period": 30000)",
             R"("dl-deadline": 5000)", R"("policy": "SCHED_DEADLINE")"})
        QVERIFY2(e.json.find(part) != std::string::npos, part);
    // What sched_setattr() refuses stops rt-app: an error with the path.
    auto bad = importRtApp(R"({ "tasks": { "t": { "policy": "SCHED_DEADLINE",
        "dl-runtime": 20000, "dl-period": 10000, "run": 1000 } } })",
        "bad.json");
    QVERIFY(!bad.ok());
    QVERIFY(anyContains(bad.errors, "/tasks/t/dl-runtime: SCHED_DEADLINE parameters that"));
}

void TestRtApp::unsupportedEventsWarnWithPath()
{
    auto r = importRtApp(R"({
 "tasks": {
  "t": {
   "loop": -1,
   "dl-runtime": 100,
   "phases": {
    "p": { "mem": 1000, "iorun": 10, "wait": { "ref": "q", "mutex": "m" },
           "signal": "q", "suspend", "resume": "t", "barrier": "b", "bogus": 1,
           "run": 1000 }
   }
  }
 },
 "global": { "pi_enabled": true, "duration": -1 }
})",
        "warn.json");
    QVERIFY(r.ok());
    for (const char* part : {"warn.json:5: /tasks/t/dl-runtime: SCHED_DEADLINE parameters",
             ":7: /tasks/t/phases/p/mem: mem: memory and I/O load", ":7: /tasks/t/phases/p/iorun",
             ":7: /tasks/t/phases/p/wait: wait: condition", ":8: /tasks/t/phases/p/signal",
             ":8: /tasks/t/phases/p/barrier", ":8: /tasks/t/phases/p/bogus: unknown event",
             ":13: /global/pi_enabled", ":13: /global/duration: -1"})
        QVERIFY2(anyContains(r.warnings, part), part);
    QCOMPARE(r.warnings.size(), size_t(9));
    // suspend (the thread's own resource) and resume are imported, in file order.
    QCOMPARE(r.scenario->tasks[0].program,
        (std::vector<Op>{
            loop({named(Op::Kind::Suspend, "t"), named(Op::Kind::Resume, "t"), run(1_ms)},
                std::nullopt)}));

    // An endless thread left with nothing that takes time runs its events once.
    auto idle = importRtApp(
        R"({ "tasks": { "t": { "loop": -1, "suspend": "t", "yield": "" } } })", "idle.json");
    QVERIFY(idle.ok());
    QVERIFY(anyContains(idle.warnings, ":1: /tasks/t: an endless thread"));
}

void TestRtApp::badValuesAreErrors()
{
    auto r = importRtApp(R"({ "tasks": { "t": {
        "run": "long", "cpus": [-1], "policy": "SCHED_X", "timer": { "ref": "x" } } } })",
        "bad.json");
    QVERIFY(!r.ok());
    QVERIFY(anyContains(r.errors, "bad.json:2: /tasks/t/run: expected an integer"));
    QVERIFY(anyContains(r.errors, ":2: /tasks/t/cpus/0: expected an integer in [0, 0]"));
    QVERIFY(anyContains(r.errors, ":2: /tasks/t/policy: expected SCHED_OTHER"));
    QVERIFY(anyContains(r.errors, ":2: /tasks/t/timer: expected { \"ref\""));
    QVERIFY(!importRtApp("[1]", "a.json").ok());
    QVERIFY(!importRtApp("", "a.json").ok());
    QVERIFY(!importRtAppFile("/nonexistent/x.json").ok());
}

void TestRtApp::forkUsesTheNamedThread()
{
    auto r = importRtApp(R"({ "tasks": {
        "parent": { "loop": 2, "fork": "worker", "sleep": 5000 },
        "worker": { "instance": 0, "loop": 1, "run": 2000 },
        "self": { "loop": 1, "fork": "self", "run": 10 } } })",
        "fork.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    QCOMPARE(r.scenario->tasks.size(), size_t(2)); // instance 0: only forked
    const Op& fork = r.scenario->tasks[0].program[0].body[0];
    QCOMPARE(fork.kind, Op::Kind::Fork);
    QCOMPARE(fork.fork.at(0).program, (std::vector<Op>{run(2_ms)}));
    QVERIFY(anyContains(r.warnings, ":4: /tasks/self/fork: fork of \"self\" inside its own"));
    // A file describing an exponential tree of fork copies is refused, not expanded.
    std::string bomb = R"({ "tasks": { "t0": { "loop": 1, "run": 1 })";
    for (int i = 1; i <= 8; ++i)
        bomb += ", \"t" + std::to_string(i) + "\": { \"instance\": 0, \"loop\": 1, \"fork1\": \"t"
            + std::to_string(i - 1) + "\", \"fork2\": \"t" + std::to_string(i - 1)
            + "\", \"fork3\": \"t" + std::to_string(i - 1) + "\", \"fork4\": \"t"
            + std::to_string(i - 1) + "\" }";
    bomb += " } }";
    auto refused = importRtApp(bomb, "bomb.json");
    QVERIFY(!refused.ok());
    QVERIFY(anyContains(refused.errors, "more than 10000 fork events"));
    const Metrics m = simulate(*r.scenario, 1_s);
    QCOMPARE(taskMetrics(m, "parent.1")->cpuTimeNs, int64_t(2'000'000));
    QCOMPARE(taskMetrics(m, "parent.2")->cpuTimeNs, int64_t(2'000'000));
}

void TestRtApp::bundledExamplesImportAndRun_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = jsonFilesUnder(SCHEDLAB_SOURCE_DIR "/tests/data/rtapp");
    QVERIFY(files.size() >= 7);
    for (const QString& f : files)
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

namespace {
void importAndRun(const QString& file)
{
    ImportResult r;
    if (file.endsWith(QStringLiteral(".gz"))) {
        // Debian may compress documentation: read it as `zcat` would.
        QProcess gzip;
        gzip.start(QStringLiteral("gzip"), {QStringLiteral("-dc"), file});
        QVERIFY(gzip.waitForFinished(60000));
        QCOMPARE(gzip.exitCode(), 0);
        r = importRtApp(gzip.readAllStandardOutput().toStdString(), file.toStdString());
    } else {
        r = importRtAppFile(file.toStdString());
    }
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    RunOptions o;
    o.duration = 1_s;
    o.recordSamples = false;
    Simulation sim(*r.scenario, o);
    sim.run();
    QVERIFY2(sim.stopReason().empty(), sim.stopReason().c_str());
    QVERIFY(sim.invariantViolations().empty());
    QCOMPARE(sim.now(), 1_s);
    // The written scenario loads back as the same scenario.
    LoadResult back = parseScenario(writeScenario(*r.scenario), "back.json");
    QVERIFY(back.ok());
    QVERIFY(*back.scenario == *r.scenario);
}
} // namespace

void TestRtApp::bundledExamplesImportAndRun()
{
    QFETCH(QString, file);
    importAndRun(file);
}

// Every example of the installed rt-app package (Debian: apt-get install rt-app).
void TestRtApp::debianExamplesImportAndRun()
{
    const QString dir = "/usr/share/doc/rt-app/examples";
    if (!QDir(dir).exists())
        QSKIP("rt-app is not installed (/usr/share/doc/rt-app/examples)");
    const QStringList files = jsonFilesUnder(dir);
    QVERIFY(files.size() >= 10);
    for (const QString& f : files) {
        importAndRun(f);
        if (QTest::currentTestFailed())
            QFAIL(qPrintable("in " + f));
    }
}

void TestRtApp::exportImportRoundTrip_data()
{
    QTest::addColumn<QString>("file");
    for (const QString& f : jsonFilesUnder(SCHEDLAB_SOURCE_DIR "/scenarios"))
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

// What both express survives export → import: the same tasks get the same CPU time, switches and
// waits on the same kernel and machine. Scenarios whose tasks use what rt-app lacks are skipped
// (their warnings are checked in exportWarnsForWhatRtAppLacks).
void TestRtApp::exportImportRoundTrip()
{
    QFETCH(QString, file);
    LoadResult loaded = loadScenarioFile(file.toStdString());
    QVERIFY(loaded.ok());
    Scenario original = *loaded.scenario;
    const ExportResult e = exportRtApp(original);
    QVERIFY(!e.json.empty());
    if (anyContains(e.warnings, "/tasks/"))
        QSKIP("uses what rt-app cannot express");
    auto r = importRtApp(e.json, "exported.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    Scenario imported = *r.scenario;
    // Not workload: the kernel, the machine and timed actions stay the original's.
    original.actions.clear();
    imported.kernel = original.kernel;
    imported.machine = original.machine;
    imported.cgroups = original.cgroups;
    imported.seed = original.seed;
    QCOMPARE(imported.tasks.size(), original.tasks.size());
    const Nanoseconds d = std::min(original.durationOrDefault(), 2_s);
    const Metrics a = simulate(original, d);
    const Metrics b = simulate(imported, d);
    QCOMPARE(b.tasks.size(), a.tasks.size());
    QVERIFY(!a.tasks.empty());
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        QCOMPARE(b.tasks[i].name, a.tasks[i].name);
        QCOMPARE(b.tasks[i].cgroup, a.tasks[i].cgroup);
        QCOMPARE(b.tasks[i].cpuTimeNs, a.tasks[i].cpuTimeNs);
        QCOMPARE(b.tasks[i].switches, a.tasks[i].switches);
        QCOMPARE(b.tasks[i].waitMaxNs, a.tasks[i].waitMaxNs);
    }
}

void TestRtApp::exportWarnsForWhatRtAppLacks()
{
    LoadResult loaded =
        loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/rt-group-constraints.json");
    QVERIFY(loaded.ok());
    const ExportResult e = exportRtApp(*loaded.scenario);
    QVERIFY(anyContains(e.warnings, "cgroup writes have no rt-app equivalent"));
    QVERIFY(!anyContains(e.warnings, "/fork"));
    QVERIFY(e.json.find("\"stress-ng-fork_fork\": {\n\t\t\t\"instance\": 0") != std::string::npos);
    LoadResult probes =
        loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/throttle-priority-inversion.json");
    QVERIFY(probes.ok());
    const ExportResult p = exportRtApp(*probes.scenario);
    QVERIFY(anyContains(p.warnings, "/probe: a probe's latency measurement"));
    QVERIFY(anyContains(p.warnings, "a modelled kernel section"));
    // The exported text is rt-app JSON: strict JSON, a "tasks" object and a "global" object.
    std::string error;
    auto v = parseLenient(p.json, &error);
    QVERIFY(v && v->find("tasks") && v->find("global"));
}

// A fork becomes a thread with "instance": 0 named after its parent, and a "fork" event; imported
// back, the parent forks a child with the same program: parent.1 … parent.3 run 2 ms each.
void TestRtApp::exportedForkRoundTrips()
{
    LoadResult loaded = parseScenario(R"({ "schedlab": 1, "name": "f", "duration": "1s",
        "tasks": [ { "name": "p", "program": [ { "loop": [ { "fork": { "program": [
            { "run": "2ms" } ] } }, { "sleep": "10ms" } ], "count": 3 } ] } ] })",
        "f.json");
    QVERIFY2(loaded.ok(), loaded.errors.empty() ? "" : loaded.errors[0].c_str());
    const ExportResult e = exportRtApp(*loaded.scenario);
    QVERIFY(e.warnings.empty());
    QVERIFY(e.json.find("\"fork0\": \"p_fork\"") != std::string::npos);
    auto r = importRtApp(e.json, "f.rtapp.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors[0].c_str());
    QCOMPARE(r.scenario->tasks.size(), size_t(1));
    QCOMPARE(r.scenario->tasks[0].program, loaded.scenario->tasks[0].program);
    const Metrics m = simulate(*r.scenario);
    for (const char* child : {"p.1", "p.2", "p.3"}) {
        QVERIFY(taskMetrics(m, child));
        QCOMPARE(taskMetrics(m, child)->cpuTimeNs, int64_t(2'000'000));
    }
}

// What the scenario loader refuses in an import is told at the rt-app thread's line (or the
// taskgroup's), with the thread's JSON path; the generated scenario's path only in parentheses.
void TestRtApp::loaderLimitsNameTheRtAppLine()
{
    const std::string longName(300, 'n'); // names are at most 255 bytes
    auto r = importRtApp(
        "{ \"tasks\": {\n \"ok\": { \"run\": 10 },\n \"" + longName + "\": { \"run\": 10 } } }",
        "long.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.errors.size(), size_t(1));
    QVERIFY2(r.errors[0].starts_with("long.json:3: /tasks/" + longName
                 + ": expected a name of printable characters: longer than 255"),
        r.errors[0].c_str());
    QVERIFY2(r.errors[0].ends_with("(imported as /tasks/1/name)"), r.errors[0].c_str());
    // A task group nested 33 levels (the loader allows 32), named on line 2.
    std::string deep;
    for (int i = 0; i < 33; ++i)
        deep += "/g";
    auto g = importRtApp(
        "{ \"tasks\": {\n \"t\": { \"taskgroup\": \"" + deep + "\", \"run\": 10 } } }", "g.json");
    QVERIFY(!g.ok());
    QVERIFY2(anyContains(g.errors, "g.json:2: "), g.errors[0].c_str());
    QVERIFY2(!anyContains(g.errors, "g.json: /"), g.errors[0].c_str());
}

// rt-app has no loop inside a phase: a loop below one is unrolled up to 1000 events. Two loops
// of 500 below a phase made 250 000 events (over 60 s); now the inner one is unrolled (500 runs)
// and the outer one written once: 500 runs and the sleep after them.
void TestRtApp::exportUnrollingIsBounded()
{
    LoadResult loaded = parseScenario(R"({ "schedlab": 1, "name": "n", "duration": "1s",
        "tasks": [ { "name": "t", "program": [
            { "loop": [ { "loop": [ { "run": "1us" } ], "count": 500 } ], "count": 500 },
            { "sleep": "1ms" } ] } ] })",
        "n.json");
    QVERIFY2(loaded.ok(), loaded.errors.empty() ? "" : loaded.errors[0].c_str());
    const ExportResult e = exportRtApp(*loaded.scenario);
    QVERIFY(e.ok());
    auto count = [](const std::string& text, const std::string& what) {
        size_t n = 0;
        for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
            ++n;
        return n;
    };
    QCOMPARE(count(e.json, "\"run"), size_t(500));
    QCOMPARE(count(e.json, "\"sleep"), size_t(1));
    QVERIFY(anyContains(e.warnings,
        "/tasks/0/program/0: a loop nested this deep (bounded by time, endless, or of more than "
        "1000 events unrolled)"));
    QVERIFY(anyContains(e.warnings, "/tasks/0/program/0/loop/0: a nested loop: unrolled (500"));
    QCOMPARE(e.warnings.size(), size_t(2)); // each once

    // 100 threads of 1001 events (an unrolled loop of 1000 runs, a sleep): 100 100 events, more
    // than the 100 000 a file may hold. The budget runs out in the 100th thread, /tasks/99.
    std::string tasks;
    for (int i = 0; i < 100; ++i)
        tasks += std::string(i ? "," : "") + R"({ "name": "t)" + std::to_string(i)
            + R"(", "program": [ { "loop": [ { "loop": [ { "run": "1us" } ], "count": 1000 } ],
              "count": 2 }, { "sleep": "1ms" } ] })";
    LoadResult big = parseScenario(
        R"({ "schedlab": 1, "name": "b", "duration": "1s", "tasks": [)" + tasks + "] }", "b.json");
    QVERIFY2(big.ok(), big.errors.empty() ? "" : big.errors[0].c_str());
    const ExportResult refused = exportRtApp(*big.scenario);
    QVERIFY(!refused.ok());
    QVERIFY(refused.json.empty());
    QCOMPARE(refused.errors.size(), size_t(1));
    QVERIFY2(refused.errors[0].starts_with(
                 "/tasks/99: the rt-app file would hold more than 100000 events"),
        refused.errors[0].c_str());
    // 99 of them fit: 99 099 events.
    big.scenario->tasks.pop_back();
    const ExportResult fits = exportRtApp(*big.scenario);
    QVERIFY(fits.ok());
    QCOMPARE(count(fits.json, "\"run"), size_t(99'000));
}

QTEST_GUILESS_MAIN(TestRtApp)
#include "tst_rtapp.moc"
