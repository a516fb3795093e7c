// SPDX-License-Identifier: GPL-2.0-or-later
// Exited tasks freed at their exit (Simulation::releaseExitedTasks, docs/limits.md "Memory"): the
// Task objects a run holds stay bounded however many short-lived tasks it forks, the per-task
// metrics of the exited tasks are unchanged when they are written, and folded per fork root when
// only the run summary reads them; the summary schedlab-cli prints is the same either way.
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/clirun.h"
#include "support/simlookup.h"

#include <QTest>

#include <string>

using namespace schedlab;

namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kMs = 1000000;

// One CPU, one task: "forker" forks a child that runs 100 us, waits for it, sleeps 900 us and
// forks again. By hand: child k (1-based) is forked at (k − 1) ms while its parent runs, and runs
// as soon as the parent blocks in the wait, at the same instant (a wait of 0 ns); it runs
// 100 us alone (the tick at (k − 1) ms only accounts) and exits at (k − 1) ms + 100 us, having
// been switched out once; the parent, woken by the exit, sleeps until k ms. Fork, wait and sleep
// take no CPU time: the parent's CPU time is 0.
std::string forkPerMs(const char* duration)
{
    return std::string(R"({ "schedlab": 1, "name": "fork-per-ms", "duration": ")") + duration
        + R"(", "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
      "tasks": [ { "name": "forker", "program": [ { "loop": [
          { "fork": { "program": [ { "run": "100us" } ] }, "wait": true },
          { "sleep": "900us" } ] } ] } ] })";
}

Scenario load(const std::string& json)
{
    const auto s = test::loadScenario(json, "tst_exitedtasks");
    if (!s)
        throw std::runtime_error("scenario does not load");
    return *s;
}

const TaskMetrics* row(const Metrics& m, const std::string& name, bool folded = false)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name && (t.folded > 0) == folded)
            return &t;
    return nullptr;
}

} // namespace

class TestExitedTasks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void taskObjectsStayBounded();
    void exitedRowsUnchangedWhenWritten();
    void exitedRowsFoldedForTheSummary();
    void orphansOfReleasedParents();
    void cliSummaryIsTheSame();
};

void TestExitedTasks::taskObjectsStayBounded()
{
    const Scenario s = load(forkPerMs("2s"));
    Simulation kept(s);
    Simulation released(s);
    released.releaseExitedTasks(true);
    // At k ms + 500 us children 1 … k + 1 have been forked and have exited: the run has created
    // k + 2 tasks; released, it holds the forker alone whatever k.
    for (const int k : {9, 99, 999}) {
        const Nanoseconds at(k * kMs + 500 * kUs);
        kept.runUntil(at);
        released.runUntil(at);
        QCOMPARE(kept.tasks().size(), size_t(k + 2));
        QCOMPARE(kept.tasksHeld(), k + 2);
        QCOMPARE(released.tasks().size(), size_t(k + 2));
        QCOMPARE(released.tasksHeld(), 1);
    }
    // A released task is still listed, by its name, as exited.
    const auto child = test::taskView(released, "forker.7");
    QVERIFY(child);
    QCOMPARE(child->state, TaskState::Exited);
}

void TestExitedTasks::exitedRowsUnchangedWhenWritten()
{
    // 49.5 ms: children 1 … 50 (forked at 0 … 49 ms) have all exited; the parent sleeps.
    const Scenario s = load(forkPerMs("49.5ms"));
    Simulation kept(s);
    Simulation released(s);
    released.releaseExitedTasks(false);
    kept.run();
    released.run();
    QCOMPARE(released.tasksHeld(), 1);
    const Metrics m = released.metrics();
    QCOMPARE(m.tasks.size(), size_t(51));
    for (int k = 1; k <= 50; ++k) {
        const TaskMetrics* t = row(m, "forker." + std::to_string(k));
        QVERIFY(t);
        QCOMPARE(t->cpuTimeNs, 100 * kUs);
        QCOMPARE(t->share, double(100 * kUs) / double(49500 * kUs));
        QCOMPARE(t->exitedAtNs.value_or(-1), (k - 1) * kMs + 100 * kUs);
        QCOMPARE(t->switches, int64_t(1));
        QCOMPARE(t->waitMaxNs, int64_t(0));
        QCOMPARE(t->waitP99Ns, int64_t(0));
        QCOMPARE(t->longestRunNs, 100 * kUs);
        QCOMPARE(t->migrations, int64_t(0));
        QVERIFY(t->forked);
        QCOMPARE(t->folded, int64_t(0));
    }
    QCOMPARE(row(m, "forker")->cpuTimeNs, int64_t(0));
    // Byte for byte what the run that keeps its tasks gives, records included.
    QCOMPARE(metricsToJson(m), metricsToJson(kept.metrics()));
    QCOMPARE(released.recording().size(), kept.recording().size());
    for (size_t i = 0; i < kept.recording().size(); ++i)
        QCOMPARE(formatRecord(released.recording().records()[i], released.recording()),
            formatRecord(kept.recording().records()[i], kept.recording()));
}

void TestExitedTasks::exitedRowsFoldedForTheSummary()
{
    Simulation sim(load(forkPerMs("49.5ms")));
    sim.releaseExitedTasks(true);
    sim.run();
    QCOMPARE(sim.tasksHeld(), 1);
    const Metrics m = sim.metrics();
    // The forker's own row, then the 50 children in one row of their root.
    QCOMPARE(m.tasks.size(), size_t(2));
    const TaskMetrics* fold = row(m, "forker", true);
    QVERIFY(fold);
    QCOMPARE(fold->folded, int64_t(50));
    QCOMPARE(fold->cpuTimeNs, 50 * 100 * kUs);
    // The summary adds its rows' shares in index order: the fold adds the same doubles.
    double share = 0;
    for (int k = 1; k <= 50; ++k)
        share += double(100 * kUs) / double(49500 * kUs);
    QCOMPARE(fold->share, share);
    QCOMPARE(fold->switches, int64_t(50));
    QCOMPARE(fold->waitMaxNs, int64_t(0));
    QCOMPARE(fold->migrations, int64_t(0));
    QVERIFY(fold->forked);
    QCOMPARE(fold->cgroup, std::string("/"));
    QVERIFY(row(m, "forker"));
}

void TestExitedTasks::orphansOfReleasedParents()
{
    // Two CPUs. Every millisecond "root" forks a child (not waited for) that forks a grandchild
    // and exits after 50 us; the grandchild runs 300 us and exits after its parent was released:
    // its exit looks for a parent that is gone.
    const Scenario s = load(R"({ "schedlab": 1, "name": "orphans", "duration": "30ms",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
      "tasks": [ { "name": "root", "program": [ { "loop": [
          { "fork": { "program": [
              { "fork": { "program": [ { "run": "300us" } ] } }, { "run": "50us" } ] } },
          { "sleep": "1ms" } ] } ] } ] })");
    Simulation kept(s);
    Simulation released(s);
    released.releaseExitedTasks(false);
    kept.run();
    released.run();
    QVERIFY(released.tasksHeld() <= 3); // root, and at most the last child and grandchild
    QVERIFY(kept.tasksHeld() > 50);     // 30 children and 30 grandchildren
    QCOMPARE(metricsToJson(released.metrics()), metricsToJson(kept.metrics()));
    QCOMPARE(released.recording().size(), kept.recording().size());
    QCOMPARE(released.invariantViolations().size(), size_t(0));
}

void TestExitedTasks::cliSummaryIsTheSame()
{
    // run without --metrics folds the children while running; with --metrics it keeps a row
    // per task and folds them when printing: the same summary.
    const std::string file = std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/fork-per-ms.json";
    const std::string metrics = QDir::temp().filePath("tst_exitedtasks.json").toStdString();
    const test::CliResult folded = test::runCliCaptured({"run", file, "--duration", "200ms"});
    const test::CliResult perTask =
        test::runCliCaptured({"run", file, "--duration", "200ms", "--metrics", metrics});
    QCOMPARE(folded.code, 0);
    QCOMPARE(perTask.code, 0);
    // Each cycle is at least the child's 100 us of CPU and the 900 us sleep: at most 200 forks
    // in 200 ms (the hog's share of the CPU makes it fewer).
    const auto at = folded.out.find(" forked)");
    QVERIFY(at != std::string::npos);
    const auto open = folded.out.rfind('(', at);
    QVERIFY(open != std::string::npos);
    const int forks = std::stoi(folded.out.substr(open + 1, at - open - 1));
    QVERIFY2(forks >= 150 && forks <= 200, folded.out.c_str());
    QCOMPARE(folded.out, perTask.out);
    QFile::remove(QString::fromStdString(metrics));
}

QTEST_APPLESS_MAIN(TestExitedTasks)
#include "tst_exitedtasks.moc"
