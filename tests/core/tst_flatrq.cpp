// SPDX-License-Identifier: GPL-2.0-or-later
// The 7.3 profile's flat run queue (kernel-model.md §6.1, choice flat): one EEVDF tree per CPU
// (rq->cfs) holding the tasks of every cgroup, each weighted by its effective weight h_load; the
// group levels keep only load, PELT and shares. Expected values are computed by hand below.
#ifndef Q_MOC_RUN
#include "core/fair/weights.h"
#include "core/kernel/profile.h"
#include "core/kernel/runoptions.h"
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/inspect.h"
#include "core/sim/simulation.h"
#endif

#include <QTest>

#include <algorithm>
#include <string>
#include <vector>

using namespace schedlab;

class TestFlatRq : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void profileChoice();
    void hLoadTwoLevels();
    void equalGroupsHalfEach();
    void tasksShareTheirGroupsWeight();
    void heavyGroupAgainstRootTask();
    void noCgroupsSameAsSevenOne_data();
    void noCgroupsSameAsSevenOne();
    void throttledGroupLeavesTheTree();
    void shippedScenariosRunClean_data();
    void shippedScenariosRunClean();
    void concurShares_data();
    void concurShares();
    void seedScenarioNoPlaceLagEffect();
    void flatNeedsTaskThrottle();
    void sleeperLeavesCfsTasks_data();
    void sleeperLeavesCfsTasks();

private:
};

namespace {

constexpr int64_t kMs = 1000000;
constexpr int64_t kS = 1000000000;

Scenario parse(const std::string& json)
{
    LoadResult r = parseScenario(json, "test.json");
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    if (!r.ok())
        qFatal("scenario does not parse");
    return *r.scenario;
}

Scenario load(const std::string& file)
{
    LoadResult r = loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/" + file);
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    if (!r.ok())
        qFatal("shipped scenario does not load");
    return *r.scenario;
}

RunOptions options(const std::string& profile, std::vector<std::string> features = {})
{
    RunOptions o;
    o.profile = profile;
    o.features = std::move(features);
    o.recordSamples = false;
    return o;
}

const TaskMetrics* task(const Metrics& m, const std::string& name)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

int64_t cpuTime(const Metrics& m, const std::string& name)
{
    const TaskMetrics* t = task(m, name);
    return t ? t->cpuTimeNs : -1;
}

QString violations(const Simulation& sim)
{
    QStringList out;
    for (const std::string& s : sim.invariantViolations())
        out.append(QString::fromStdString(s));
    return out.join('\n');
}

/// |a/b − expected| ≤ tol.
bool near(int64_t a, int64_t b, double expected, double tol)
{
    return b > 0 && std::abs(double(a) / double(b) - expected) <= tol;
}

// One CPU, HZ 1000. /a has cpu.weight 300, /a/b cpu.weight 100; tasks r (root), a1 (/a) and
// b1 (/a/b, nice 5) are hogs.
const char* kTwoLevels = R"({
  "schedlab": 1, "name": "two-levels", "duration": "10s",
  "kernel": { "profile": "7.3", "hz": 1000 },
  "machine": { "cpus": 1 },
  "cgroups": [ { "path": "/a", "cpu.weight": 300 }, { "path": "/a/b", "cpu.weight": 100 } ],
  "tasks": [
    { "name": "r", "program": [ { "run": "forever" } ] },
    { "name": "a1", "cgroup": "/a", "program": [ { "run": "forever" } ] },
    { "name": "b1", "cgroup": "/a/b", "nice": 5, "program": [ { "run": "forever" } ] }
  ]
})";

} // namespace

void TestFlatRq::profileChoice()
{
    const KernelProfile* p = findProfile("7.3");
    QVERIFY(p);
    QVERIFY(p->choices.flat);
    QCOMPARE(choiceValue(p->choices, "flat"), std::string("true"));
    // Apart from the run-queue layout, 7.3 keeps 7.1's EEVDF (V-invariant rescale, full weights,
    // 7.2 delay rules, task throttle).
    QCOMPARE(choiceValue(p->choices, "group_shares"), std::string("concur"));
    QCOMPARE(choiceValue(findProfile("7.1")->choices, "group_shares"), std::string("smp"));
    ProfileChoices c = p->choices;
    c.flat = false;
    c.groupShares = GroupShares::Smp;
    QVERIFY(c == findProfile("7.1")->choices);
    QVERIFY(!findProfile("7.1")->choices.flat);
}

// kernel-model.md §6.1, h_load = NICE0 · Π (se.load / cfs_rq_of(se).load), the top level divided
// by NICE0, on one CPU where calc_group_shares() gives every group its full tg->shares (the
// CPU's contribution is all of tg->load_avg: S·load/load = S):
//   S_a = 300·1024/100 = 3072 → 3072·2^10 = 3145728;  S_b = 1024·2^10 = 1048576.
//   Queues: /a/b holds b1 (335·2^10 = 343040); /a holds a1 (1048576) + ge_b (1048576) = 2097152;
//   rq->cfs holds r (1048576) + ge_a (3145728).
//   h(b1) = 2^20 · 343040/343040 = 2^20 → ·1048576/2097152 = 524288 → ·3145728/2^20 = 1572864
//   h(a1) = 2^20 · 1048576/2097152 = 524288 → ·3145728/2^20 = 1572864
//   h(r)  = 2^20 · 1048576/2^20 = 1048576
// (b1's own nice weight cancels: it is alone in /a/b.) Shares of the CPU: r 1048576/4194304 = 25 %,
// a1 and b1 37.5 % each.
void TestFlatRq::hLoadTwoLevels()
{
    Simulation sim(parse(kTwoLevels), options("7.3"));
    sim.runUntil(Nanoseconds(2 * kS));
    const Inspection in = sim.inspect();
    QCOMPARE(in.cpus.size(), size_t(1));
    const CfsRqInspection& root = in.cpus[0].rqs.front();
    QCOMPARE(root.path, std::string("/"));
    std::vector<std::pair<std::string, uint64_t>> weights;
    for (const EntityInspection& e : root.entities) {
        QVERIFY2(!e.isGroup, "a group entity in the flat tree");
        weights.emplace_back(e.name, e.weight);
    }
    std::sort(weights.begin(), weights.end());
    QCOMPARE(weights.size(), size_t(3));
    QCOMPARE(weights[0].first, std::string("a1"));
    QCOMPARE(weights[0].second, uint64_t(1572864));
    QCOMPARE(weights[1].first, std::string("b1"));
    QCOMPARE(weights[1].second, uint64_t(1572864));
    QCOMPARE(weights[2].first, std::string("r"));
    QCOMPARE(weights[2].second, uint64_t(1048576));
    // The group queues are accounting only: no entities of their own in a tree.
    for (size_t i = 1; i < in.cpus[0].rqs.size(); ++i)
        QVERIFY(in.cpus[0].rqs[i].entities.empty());

    sim.run();
    const Metrics m = sim.metrics();
    const int64_t total = cpuTime(m, "r") + cpuTime(m, "a1") + cpuTime(m, "b1");
    QVERIFY(total > 9 * kS);
    QVERIFY2(
        near(cpuTime(m, "r"), total, 0.25, 0.01), qPrintable(QString::number(cpuTime(m, "r"))));
    QVERIFY(near(cpuTime(m, "a1"), total, 0.375, 0.01));
    QVERIFY(near(cpuTime(m, "b1"), total, 0.375, 0.01));
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// Two groups of equal cpu.weight, one hog each, one CPU: h = S for both (alone in its group,
// §6.1), so 50/50.
void TestFlatRq::equalGroupsHalfEach()
{
    const Scenario s = parse(R"({
      "schedlab": 1, "name": "equal-groups", "duration": "10s",
      "kernel": { "profile": "7.3", "hz": 250 },
      "machine": { "cpus": 1 },
      "cgroups": [ { "path": "/x", "cpu.weight": 100 }, { "path": "/y", "cpu.weight": 100 } ],
      "tasks": [
        { "name": "x", "cgroup": "/x", "program": [ { "run": "forever" } ] },
        { "name": "y", "cgroup": "/y", "program": [ { "run": "forever" } ] }
      ]
    })");
    Simulation sim(s, options("7.3"));
    sim.run();
    const Metrics m = sim.metrics();
    const int64_t x = cpuTime(m, "x");
    const int64_t y = cpuTime(m, "y");
    QVERIFY(x + y > 9 * kS);
    QVERIFY2(near(x, x + y, 0.5, 0.005), qPrintable(QString::number(x) + " " + QString::number(y)));
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// /x holds one hog, /y three; equal cpu.weight 100, one CPU. Each group weighs S = 2^20 in
// rq->cfs's parent accounting; h(x) = 2^20·2^20/2^20 = 2^20, h(y_i) = 2^20·2^20/(3·2^20) =
// 349525 (floor) → ·2^20/2^20 = 349525. Total 2^20 + 3·349525 = 2097151: x gets 50 %, each y_i
// 349525/2097151 = 16.67 %.
void TestFlatRq::tasksShareTheirGroupsWeight()
{
    const Scenario s = parse(R"({
      "schedlab": 1, "name": "one-vs-three", "duration": "10s",
      "kernel": { "profile": "7.3", "hz": 1000 },
      "machine": { "cpus": 1 },
      "cgroups": [ { "path": "/x" }, { "path": "/y" } ],
      "tasks": [
        { "name": "x", "cgroup": "/x", "program": [ { "run": "forever" } ] },
        { "name": "y", "count": 3, "cgroup": "/y", "program": [ { "run": "forever" } ] }
      ]
    })");
    Simulation sim(s, options("7.3"));
    sim.run();
    const Metrics m = sim.metrics();
    int64_t total = 0;
    for (const TaskMetrics& t : m.tasks)
        total += t.cpuTimeNs;
    QVERIFY(total > 9 * kS);
    QVERIFY(near(cpuTime(m, "x"), total, 0.5, 0.005));
    int ys = 0;
    for (const TaskMetrics& t : m.tasks) {
        if (t.name == "x")
            continue;
        ++ys;
        QVERIFY2(near(t.cpuTimeNs, total, 349525.0 / 2097151.0, 0.005),
            qPrintable(QString::fromStdString(t.name) + " " + QString::number(t.cpuTimeNs)));
    }
    QCOMPARE(ys, 3);
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// A group with cpu.weight 2000 (S = 20480·2^10) and one hog against a root hog on one CPU:
// calc_group_shares() gives S (UP case, §6.2), h(g) = 2^20·2^20/2^20 · S/2^20 = S, h(r) = 2^20.
// r's share = 1024/(1024 + 20480) = 4.76 %; 7.1 (hierarchical) gives the same weights.
void TestFlatRq::heavyGroupAgainstRootTask()
{
    const Scenario s = parse(R"({
      "schedlab": 1, "name": "heavy-group", "duration": "20s",
      "kernel": { "hz": 1000 },
      "machine": { "cpus": 1 },
      "cgroups": [ { "path": "/g", "cpu.weight": 2000 } ],
      "tasks": [
        { "name": "r", "program": [ { "run": "forever" } ] },
        { "name": "g", "cgroup": "/g", "program": [ { "run": "forever" } ] }
      ]
    })");
    const double expected = 1024.0 / (1024.0 + 20480.0);
    for (const char* profile : {"7.3", "7.1"}) {
        Simulation sim(s, options(profile));
        sim.run();
        const Metrics m = sim.metrics();
        const int64_t r = cpuTime(m, "r");
        const int64_t g = cpuTime(m, "g");
        QVERIFY2(near(r, r + g, expected, 0.004),
            qPrintable(QString("%1: r %2 %").arg(profile).arg(100.0 * double(r) / double(r + g))));
        QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
    }
}

// Without cgroups every task is a top-level entity: h_load = NICE0·w/NICE0 = w, and the flat
// queue is the root queue of 7.1. Same scenario, same seed ⇒ identical CPU times per task.
void TestFlatRq::noCgroupsSameAsSevenOne_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("nice-levels") << "nice-levels.json";
    QTest::newRow("sleeper-lag") << "sleeper-lag.json";
    QTest::newRow("delayed-dequeue") << "delayed-dequeue.json";
}

void TestFlatRq::noCgroupsSameAsSevenOne()
{
    QFETCH(QString, file);
    const Scenario s = load(file.toStdString());
    QVERIFY(s.cgroups.empty());
    Simulation flat(s, options("7.3"));
    flat.run();
    Simulation hier(s, options("7.1"));
    hier.run();
    const Metrics a = flat.metrics();
    const Metrics b = hier.metrics();
    QCOMPARE(a.tasks.size(), b.tasks.size());
    QVERIFY(!a.tasks.empty());
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        QCOMPARE(a.tasks[i].name, b.tasks[i].name);
        QCOMPARE(a.tasks[i].cpuTimeNs, b.tasks[i].cpuTimeNs);
        QCOMPARE(a.tasks[i].switches, b.tasks[i].switches);
        QCOMPARE(a.tasks[i].waitMaxNs, b.tasks[i].waitMaxNs);
    }
    QVERIFY2(flat.invariantViolations().empty(), qPrintable(violations(flat)));
}

// cpu.max 20 ms per 100 ms on /lim (one hog) against a root hog on one CPU. The task throttle
// parks the group's task (it leaves rq->cfs's tree) until the next period: /lim gets 20 % of the
// CPU, the root hog the rest; every invariant (tree = h_nr_queued of rq->cfs) holds throughout.
void TestFlatRq::throttledGroupLeavesTheTree()
{
    const Scenario s = parse(R"({
      "schedlab": 1, "name": "flat-throttle", "duration": "5s",
      "kernel": { "profile": "7.3", "hz": 1000 },
      "machine": { "cpus": 1 },
      "cgroups": [ { "path": "/lim", "cpu.weight": 10000, "cpu.max": "20000 100000" } ],
      "tasks": [
        { "name": "r", "program": [ { "run": "forever" } ] },
        { "name": "l", "cgroup": "/lim", "program": [ { "run": "forever" } ] }
      ]
    })");
    Simulation sim(s, options("7.3"));
    sim.run();
    const Metrics m = sim.metrics();
    const int64_t l = cpuTime(m, "l");
    const int64_t r = cpuTime(m, "r");
    // Quota 20 ms per 100 ms over 5 s: 1 s, give or take one period's slice (5 ms local slice).
    QVERIFY2(std::abs(l - 1 * kS) <= 30 * kMs, qPrintable(QString::number(l)));
    QVERIFY(r + l > 4900 * kMs);
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// Every shipped scenario also runs under 7.3 with all invariants (checked builds) intact.
void TestFlatRq::shippedScenariosRunClean_data()
{
    QTest::addColumn<QString>("file");
    for (const char* f : {"two-groups-1cpu.json", "two-groups-4cpu.json",
             "short-slice-latency.json", "core-sched-yield.json", "migration-affinity.json",
             "yield-loop.json", "throttle-priority-inversion.json"})
        QTest::newRow(f) << f;
}

void TestFlatRq::shippedScenariosRunClean()
{
    QFETCH(QString, file);
    Scenario s = load(file.toStdString());
    RunOptions o = options("7.3");
    Simulation sim(s, o);
    sim.run();
    QVERIFY(sim.metrics().durationNs > 0);
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// 7.3's default cgroup_mode "concur" (kernel-model.md §6.2): tg->shares is multiplied by
// nr = min(tasks, CPUs), tasks = max(1, tg->runnable_avg >> 10). Two CPUs, /g (cpu.weight 100,
// S = 1024 unscaled) runs g0a and g0b on CPU 0 and g1 on CPU 1; root hogs r0 (CPU 0), r1 (CPU 1).
// Per-CPU group load 2048 and 1024, TG = 3072; runnable_avg ≈ 2048 + 1024 → tasks = 2, nr = 2.
//   smp:    ge0 = S·2048/3072 = 682.7, ge1 = S·1024/3072 = 341.3 (unscaled)
//           CPU 1: g1 = 341.3/(1024 + 341.3) = 25 %;   CPU 0: g0a+g0b = 682.7/1706.7 = 40 %
//   concur: ge0 = 2S·2048/3072 = 1365.3, ge1 = 682.7
//           CPU 1: g1 = 682.7/1706.7 = 40 %;           CPU 0: g0a+g0b = 1365.3/2389.3 = 57.1 %
// (PELT loads settle within a few ms of the start since new tasks start at their full weight;
// tolerance 2 points for the rest.)
void TestFlatRq::concurShares_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<double>("cpu1Group");
    QTest::addColumn<double>("cpu0Group");
    QTest::newRow("smp") << "smp" << 1024.0 / 3 / (1024 + 1024.0 / 3)
                         << 2048.0 / 3 / (1024 + 2048.0 / 3);
    QTest::newRow("concur") << "concur" << 2048.0 / 3 / (1024 + 2048.0 / 3)
                            << 4096.0 / 3 / (1024 + 4096.0 / 3);
}

void TestFlatRq::concurShares()
{
    QFETCH(QString, mode);
    QFETCH(double, cpu1Group);
    QFETCH(double, cpu0Group);
    const Scenario s = parse(R"({
      "schedlab": 1, "name": "concur", "duration": "10s",
      "kernel": { "profile": "7.3", "hz": 1000 },
      "machine": { "cpus": 2 },
      "cgroups": [ { "path": "/g" } ],
      "tasks": [
        { "name": "r0", "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "r1", "cpus": "1", "program": [ { "run": "forever" } ] },
        { "name": "g0a", "cgroup": "/g", "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "g0b", "cgroup": "/g", "cpus": "0", "program": [ { "run": "forever" } ] },
        { "name": "g1", "cgroup": "/g", "cpus": "1", "program": [ { "run": "forever" } ] }
      ]
    })");
    RunOptions o = options("7.3");
    o.overrides.emplace_back("group_shares", mode.toStdString());
    Simulation sim(s, o);
    sim.run();
    const Metrics m = sim.metrics();
    const int64_t cpu1 = cpuTime(m, "r1") + cpuTime(m, "g1");
    const int64_t g0 = cpuTime(m, "g0a") + cpuTime(m, "g0b");
    const int64_t cpu0 = cpuTime(m, "r0") + g0;
    qInfo("%s: CPU 1 group %.2f %%, CPU 0 group %.2f %%", qPrintable(mode),
        100.0 * double(cpuTime(m, "g1")) / double(cpu1), 100.0 * double(g0) / double(cpu0));
    QVERIFY(near(cpuTime(m, "g1"), cpu1, cpu1Group, 0.02));
    QVERIFY(near(g0, cpu0, cpu0Group, 0.02));
    // Within CPU 0 the two group tasks split the group's weight evenly (h_load, §6.1).
    QVERIFY(near(cpuTime(m, "g0a"), g0, 0.5, 0.01));
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// The seed scenario (kernel-model.md §12) under 7.3: group entities have no lag of their own,
// so reweighting /testgroup's entity cannot push anybody back; only tasks' lags move, with the
// V-invariant rescale. PLACE_LAG therefore makes no difference: real 7.3.4 measures the root
// hog's PLACE_LAG / NO_PLACE_LAG ratio ≈ 1.0 with shares of 7–12 % (the weight share predicted
// in tst_seedstarvation.cpp is 8.87 %). Asserted: ratio in [0.8, 1.25], both shares in
// [5 %, 13 %], the probe done within 100 ms.
void TestFlatRq::seedScenarioNoPlaceLagEffect()
{
    const Scenario s = load("cgroup-weight-starvation.json");
    double shares[2] = {0, 0};
    int i = 0;
    for (const std::vector<std::string>& features :
        {std::vector<std::string>{}, std::vector<std::string>{"NO_PLACE_LAG"}}) {
        Simulation sim(s, options("7.3", features));
        sim.run();
        const Metrics m = sim.metrics();
        const auto cpu3 = std::find_if(
            m.cpus.begin(), m.cpus.end(), [](const CpuMetrics& c) { return c.cpu == 3; });
        QVERIFY(cpu3 != m.cpus.end() && cpu3->busyNs > 0);
        shares[i] = double(cpuTime(m, "root-spin")) / double(cpu3->busyNs);
        const ProbeMetrics* probe = nullptr;
        for (const ProbeMetrics& p : m.probes)
            if (p.name == "echo-hi")
                probe = &p;
        QVERIFY(probe);
        QVERIFY2(probe->latencyNs && *probe->latencyNs <= 100 * kMs, "echo-hi starves");
        qInfo("7.3 %s: root-spin %.2f %% of CPU 3, probe %.3f ms",
            features.empty() ? "PLACE_LAG" : "NO_PLACE_LAG", 100 * shares[i],
            double(*probe->latencyNs) / double(kMs));
        QVERIFY2(shares[i] >= 0.05 && shares[i] <= 0.13, qPrintable(QString::number(shares[i])));
        QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
        ++i;
    }
    const double ratio = shares[0] / shares[1];
    QVERIFY2(ratio >= 0.8 && ratio <= 1.25, qPrintable(QString::number(ratio)));
}

// flat=true with the ≤6.17 group-dequeue throttle is no kernel: a flat run has no group entity
// in a tree to dequeue, so it throttles task by task whatever `throttle` says, also after a
// profile action; and a profile action cannot switch the run-queue layout of a running run.
void TestFlatRq::flatNeedsTaskThrottle()
{
    RunOptions o = options("7.3");
    o.overrides.emplace_back("throttle", "group");
    Simulation sim(parse(kTwoLevels), o);
    QVERIFY(sim.choices().flat);
    QVERIFY(sim.choices().throttle == ThrottleModel::Task);
    sim.runUntil(Nanoseconds(100 * kMs));
    Action a;
    a.kind = Action::Kind::Profile;
    a.profile = "6.12";
    sim.apply(a);
    QVERIFY(sim.choices().flat);
    QVERIFY(sim.choices().throttle == ThrottleModel::Task);
    QVERIFY(sim.choices().reweight == ReweightRule::Eevdf); // the rest of 6.12 applies
    sim.runUntil(Nanoseconds(1 * kS));
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));

    Simulation hier(parse(kTwoLevels), options("7.1"));
    hier.runUntil(Nanoseconds(100 * kMs));
    a.profile = "7.3";
    hier.apply(a);
    QVERIFY(!hier.choices().flat);
    hier.runUntil(Nanoseconds(1 * kS));
    QVERIFY2(hier.invariantViolations().empty(), qPrintable(violations(hier)));
}

QTEST_GUILESS_MAIN(TestFlatRq)
#include "tst_flatrq.moc"

// account_entity_dequeue() takes a task off rq->cfs_tasks, the list the load balancer walks
// (kernel-model.md §8.3), when it leaves its queue; 7.3's dequeue_hierarchy() goes through it for
// the task's own level like every release. One CPU, HZ 1000: hog runs forever, sleeper runs 1 ms
// then sleeps 1 s. At 0.5 ms both are queued, so the list holds both; by 50 ms sleeper has run
// its 1 ms (hog's slice is 0.7 ms, so it gets the CPU within a few ms) and blocked (a delayed
// dequeue, if any, ends when it is next picked, within the same few ms), so the list holds only
// hog, on the flat run queue as on 7.1's hierarchical one, with or without a cgroup.
void TestFlatRq::sleeperLeavesCfsTasks_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("cgroup");
    for (const char* profile : {"7.1", "7.3"})
        for (const char* cgroup : {"/", "/g"})
            QTest::addRow("%s %s", profile, cgroup) << QString(profile) << QString(cgroup);
}

void TestFlatRq::sleeperLeavesCfsTasks()
{
    QFETCH(QString, profile);
    QFETCH(QString, cgroup);
    const std::string g = cgroup.toStdString();
    const Scenario sc = parse(R"({"schedlab": 1, "name": "sleeper", "duration": "100ms",
        "kernel": {"profile": ")"
        + profile.toStdString() + R"(", "hz": 1000}, "machine": {"cpus": 1},
        "cgroups": [{"path": "/g"}],
        "tasks": [
          {"name": "hog", "cgroup": ")"
        + g + R"(", "program": [{"run": "forever"}]},
          {"name": "sleeper", "cgroup": ")"
        + g + R"(", "program": [{"run": "1ms"}, {"sleep": "1s"}]}]})");
    auto listed = [&](int64_t t) {
        const Inspection at = inspectAt(sc, RunOptions{}, Nanoseconds{t});
        std::vector<std::string> names = at.cpus.at(0).cfsTasks;
        std::sort(names.begin(), names.end());
        return names;
    };
    QCOMPARE(listed(500000), (std::vector<std::string>{"hog", "sleeper"}));
    QCOMPARE(listed(50 * kMs), (std::vector<std::string>{"hog"}));
}
