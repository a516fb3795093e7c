// SPDX-License-Identifier: GPL-2.0-or-later
// The seed report (kernel-model.md §12, S5) on the shipped scenarios/cgroup-weight-starvation.json:
// CPU 3 runs root-spin (root cgroup) and test-spin (/testgroup, cpu.weight 2000); 20 shell loops
// of /testgroup fork a `sleep` child every second on CPUs 0–2, so /testgroup's tg->load_avg churns
// and its entity on CPU 3 (gA) is reweighted on most ticks. At 30 s `taskset -c 3 echo hi` (the
// probe) is spawned. 6.13–7.0 (reweight = save lag + place_entity(), lag inflated again for the
// running gA) starve root-spin and the probe; NO_PLACE_LAG, 6.12 (reweight_eevdf) and 7.1 (the
// revert) do not. Every run is the scenario's full 60 s (about 2–3 s of wall time each in a
// Debug+ASan build).
//
// How hard the probe starves depends on the machine. The report's machine had 14 or more CPUs
// (the target was CPU 13): every idle CPU with blocked /testgroup load has it decayed and
// published by the NOHZ stats kicks (about every 33 jiffies) and by its own new-idle balances
// (kernel-model.md §6.6), so the more CPUs the shells spread over, the more often gA is
// reweighted. On the shipped 4-CPU machine root-spin starves in episodes of 5–13 s with short
// runs between them, and a probe spawned at 30 s gets through in one of those runs or waits
// seconds, by seed; on a 16-CPU machine of the report's size (reporterMachine()) neither
// root-spin nor the probe gets through at all under 6.13 and 7.0.
//
// What "fair" predicts for root-spin (R, weight 1024) against gA on CPU 3, in the steady state:
//   gA = S·load/(TG − contrib + load) (§6.2) with S = 20480, load = 1024 (test-spin, always
//   runnable) and TG − contrib = L, the load /testgroup publishes from CPUs 0–2.
//   L: each shell iteration lasts T ≈ 1 s sleep + 0.1 ms + 0.5 ms run = 1000.6 ms and forks one
//   child that starts with load_avg = 1024 (§6.6), keeps it for its 0.5 ms of running and then
//   decays as blocked load, 1024·2^(−t/τ) with τ = 32 periods · 1.024 ms = 32.768 ms. Averaged
//   over T a child contributes 1024·(τ/ln 2)/T = 1024 · 47.27/1000.6 = 48.4; a shell runs
//   0.1 ms per T: it adds ≈ 1024·0.1/47.27 = 2.2, which decays away, ≈ 0.1 on average.
//   L ≈ 20 · 48.5 ≈ 970 (the simulation's time-averaged L is 992).
//   R's share = 1024/(1024 + gA) = (1024 + L)/(1024 + L + S) = 1994/22474 = 8.87 % of CPU 3
//   (nearly linear in L since L ≪ S, so the mean of the share is the share at the mean L).
//   Compare the UP limit gA = S, which would give 1024/21504 = 4.76 %.
#ifndef Q_MOC_RUN
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#endif

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

using namespace schedlab;

class TestSeedStarvation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void starves_data();
    void starves();
    void reporterMachine_data();
    void reporterMachine();
    void fair_data();
    void fair();
    void deterministic();

private:
    std::optional<Scenario> m_seed;
    std::optional<Scenario> m_reporter; ///< the seed scenario on 16 CPUs, target CPU 13
};

namespace {

constexpr int64_t kMs = 1000000;
constexpr int64_t kS = 1000000000;

/// The prediction derived in the header comment.
double predictedRootShare()
{
    const double tau = 32 * 1.024;                                    // ms
    const double childLoad = 1024.0 * (tau / std::log(2.0)) / 1000.6; // 48.4
    const double l = 20 * (childLoad + 0.1);
    const double s = 20480;
    return (1024 + l) / (1024 + l + s); // 0.0887
}

struct SeedRun
{
    Metrics metrics;
    int reweightsAt30s = 0; ///< reweights of /testgroup@target in [30 s, 31 s)
    std::vector<std::string> violations;
};

SeedRun runSeed(const Scenario& scenario, const QString& profile, const QStringList& features,
    uint64_t seed, int target = 3)
{
    RunOptions o;
    o.profile = profile.toStdString();
    for (const QString& f : features)
        o.features.push_back(f.toStdString());
    o.seed = seed;
    o.recordSamples = false;
    Simulation sim(scenario, o);
    sim.run();
    SeedRun out;
    out.metrics = sim.metrics();
    out.violations = sim.invariantViolations();
    const Recording& rec = sim.recording();
    const auto g = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), "/testgroup");
    const EntityRef ga = EntityRef::group(int32_t(g - rec.groupPaths.begin()), target);
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Reweight && r.entity == ga && r.time >= 30 * kS
            && r.time < 31 * kS)
            ++out.reweightsAt30s;
    return out;
}

const TaskMetrics* task(const Metrics& m, const std::string& name)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

/// root-spin's CPU time over the target CPU's busy time.
double rootShareOfCpu3(const Metrics& m, int target = 3)
{
    const auto cpu = std::find_if(
        m.cpus.begin(), m.cpus.end(), [&](const CpuMetrics& c) { return c.cpu == target; });
    const TaskMetrics* r = task(m, "root-spin");
    if (cpu == m.cpus.end() || !r || cpu->busyNs <= 0)
        return -1;
    return double(r->cpuTimeNs) / double(cpu->busyNs);
}

/// The seed scenario's JSON on 16 CPUs (2 threads per core) with CPU 13 as the target, like the
/// report's machine; everything else as shipped.
std::optional<Scenario> onReporterMachine(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    root["machine"] = QJsonObject{{"cpus", 16}, {"threads_per_core", 2}};
    QJsonArray tasks = root["tasks"].toArray();
    for (QJsonValueRef t : tasks) {
        QJsonObject o = t.toObject();
        if (o.value("cpus") == QJsonValue("3"))
            o["cpus"] = "13";
        t = o;
    }
    root["tasks"] = tasks;
    QJsonArray actions = root["actions"].toArray();
    QJsonObject action = actions[0].toObject();
    QJsonObject spawn = action["spawn"].toObject();
    QJsonArray program = spawn["program"].toArray();
    program[0] = QJsonObject{{"cpus", "13"}}; // taskset -c 13
    spawn["program"] = program;
    action["spawn"] = spawn;
    actions[0] = action;
    root["actions"] = actions;
    LoadResult r = parseScenario(QJsonDocument(root).toJson().toStdString(), "reporter-machine");
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    return r.scenario;
}

bool starvationFinding(const Metrics& m, const std::string& name, int cpu)
{
    return std::any_of(m.findings.begin(), m.findings.end(),
        [&](const Finding& f) { return f.kind == "starvation" && f.task == name && f.cpu == cpu; });
}

const ProbeMetrics* probe(const Metrics& m)
{
    for (const ProbeMetrics& p : m.probes)
        if (p.name == "echo-hi")
            return &p;
    return nullptr;
}

QString latency(const ProbeMetrics& p)
{
    return p.latencyNs ? QString::number(double(*p.latencyNs) / kMs) + " ms"
                       : QStringLiteral("never");
}

QString violationText(const std::vector<std::string>& v)
{
    QStringList out;
    for (const std::string& s : v)
        out.append(QString::fromStdString(s));
    return out.join('\n');
}

} // namespace

void TestSeedStarvation::initTestCase()
{
    LoadResult r = loadScenarioFile(
        std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/cgroup-weight-starvation.json");
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    QVERIFY(r.ok());
    m_seed = r.scenario;
    QCOMPARE(m_seed->durationOrDefault(), Nanoseconds(60 * kS));
    m_reporter = onReporterMachine(SCHEDLAB_SOURCE_DIR "/scenarios/cgroup-weight-starvation.json");
    QVERIFY(m_reporter);
    QCOMPARE(m_reporter->machine.cpuCount(), 16);
}

// PLACE_LAG (default) under the 6.13 and 7.0 reweight, on the shipped 4-CPU machine: gA is
// pushed back on every reweight and keeps winning the pick: root-spin runs under 2 % of CPU 3
// (against its fair 8.9 %; measured 0.1–0.6 % for 6.13 with seeds 1–8, 0.6–1.5 % for 7.0 with
// seeds 1–6) and the watchdog reports it starved on CPU 3. The probe's wait is logged, not
// asserted: on this small machine it ends in one of root-spin's short runs (tens of ms) or
// after seconds, by seed.
void TestSeedStarvation::starves_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<quint64>("seed");

    QTest::addRow("6.13 seed 1") << "6.13" << quint64(1);
    QTest::addRow("6.13 seed 2") << "6.13" << quint64(2);
    QTest::addRow("7.0 seed 1") << "7.0" << quint64(1);
    QTest::addRow("7.0 seed 2") << "7.0" << quint64(2);
}

void TestSeedStarvation::starves()
{
    QFETCH(QString, profile);
    QFETCH(quint64, seed);

    const SeedRun run = runSeed(*m_seed, profile, {}, seed);
    const Metrics& m = run.metrics;
    QCOMPARE(m.durationNs, 60 * kS);
    const double share = rootShareOfCpu3(m);
    QVERIFY2(share >= 0 && share < 0.02, qPrintable(QString::number(100 * share) + " %"));
    QVERIFY(starvationFinding(m, "root-spin", 3));
    const ProbeMetrics* p = probe(m);
    QVERIFY(p);
    QCOMPARE(p->spawnedAtNs, 30 * kS);
    qInfo("%s seed %llu: root-spin %.3f %% of CPU 3, probe %s, %d reweights of gA in [30 s, 31 s)",
        qPrintable(profile), seed, 100 * share, qPrintable(latency(*p)), run.reweightsAt30s);
    // The precondition (§12.3): the running gA is reweighted on a good part of the 1000 ticks/s.
    QVERIFY2(run.reweightsAt30s >= 100, qPrintable(QString::number(run.reweightsAt30s)));
    QVERIFY2(run.violations.empty(), qPrintable(violationText(run.violations)));
}

// The report's machine size: 16 CPUs, the hogs and the probe on CPU 13, the 20 shells free to
// spread over the other 15. Under 6.13 and 7.0 root-spin runs under 1 % of CPU 13 (measured
// 0.09–0.25 %, seeds 1–4) and the probe never finishes within 1 s (in our runs it never does);
// 6.12 and 7.1 stay fair: the probe within 100 ms and root-spin near its predicted share (the
// shells' load L is the same as on 4 CPUs; measured 8.7–8.8 %).
void TestSeedStarvation::reporterMachine_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<bool>("starving");

    QTest::addRow("6.13 seed 1") << "6.13" << quint64(1) << true;
    QTest::addRow("6.13 seed 2") << "6.13" << quint64(2) << true;
    QTest::addRow("7.0 seed 1") << "7.0" << quint64(1) << true;
    QTest::addRow("6.12 seed 1") << "6.12" << quint64(1) << false;
    QTest::addRow("7.1 seed 1") << "7.1" << quint64(1) << false;
}

void TestSeedStarvation::reporterMachine()
{
    QFETCH(QString, profile);
    QFETCH(quint64, seed);
    QFETCH(bool, starving);

    const SeedRun run = runSeed(*m_reporter, profile, {}, seed, 13);
    const Metrics& m = run.metrics;
    const double share = rootShareOfCpu3(m, 13);
    const ProbeMetrics* p = probe(m);
    QVERIFY(p);
    QCOMPARE(p->spawnedAtNs, 30 * kS);
    qInfo("%s seed %llu, 16 CPUs: root-spin %.3f %% of CPU 13, probe %s, %d reweights of gA in "
          "[30 s, 31 s)",
        qPrintable(profile), seed, 100 * share, qPrintable(latency(*p)), run.reweightsAt30s);
    if (starving) {
        QVERIFY2(share >= 0 && share < 0.01, qPrintable(QString::number(100 * share) + " %"));
        QVERIFY(starvationFinding(m, "root-spin", 13));
        QVERIFY2(!p->latencyNs || *p->latencyNs > 1 * kS, qPrintable(latency(*p)));
    } else {
        const double predicted = predictedRootShare();
        QVERIFY2(share >= 0.6 * predicted && share <= 1.4 * predicted,
            qPrintable(QString::number(100 * share) + " %"));
        QVERIFY2(p->latencyNs && *p->latencyNs <= 100 * kMs, qPrintable(latency(*p)));
    }
    QVERIFY2(run.reweightsAt30s >= 100, qPrintable(QString::number(run.reweightsAt30s)));
    QVERIFY2(run.violations.empty(), qPrintable(violationText(run.violations)));
}

// The same reweight storm without the starvation: probe within 100 ms, root-spin near the share
// the group weights predict (8.87 %, see the header), and never starved.
// 6.12 (reweight_eevdf) and 7.1 (rescale) keep V invariant: measured 8.62–8.68 %, within ±40 %.
// NO_PLACE_LAG is not weight-exact: each reweight of the running gA places it at V with no lag,
// which forgives R's negative lag by the factor a/(a + 1024) ≈ 0.92 (a = gA's weight ≈ 12k):
// after R's 3 ms turn gA runs ≈ 19 ms instead of ≈ 30 ms, so R gets more than its weight share
// (measured ≈ 13.0–13.2 %, +47 %). Asserted: at least −40 % and at most twice the prediction.
void TestSeedStarvation::fair_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QStringList>("features");
    QTest::addColumn<double>("minFactor"); // of the predicted share
    QTest::addColumn<double>("maxFactor");

    QTest::addRow("6.13 NO_PLACE_LAG") << "6.13" << QStringList{"NO_PLACE_LAG"} << 0.6 << 2.0;
    QTest::addRow("7.0 NO_PLACE_LAG") << "7.0" << QStringList{"NO_PLACE_LAG"} << 0.6 << 2.0;
    QTest::addRow("6.12") << "6.12" << QStringList{} << 0.6 << 1.4;
    QTest::addRow("7.1") << "7.1" << QStringList{} << 0.6 << 1.4;
    QTest::addRow("6.6") << "6.6" << QStringList{} << 0.6 << 1.4;
}

void TestSeedStarvation::fair()
{
    QFETCH(QString, profile);
    QFETCH(QStringList, features);
    QFETCH(double, minFactor);
    QFETCH(double, maxFactor);

    const SeedRun run = runSeed(*m_seed, profile, features, 1);
    const Metrics& m = run.metrics;
    const ProbeMetrics* p = probe(m);
    QVERIFY(p);
    QVERIFY2(p->latencyNs && *p->latencyNs <= 100 * kMs, qPrintable(latency(*p)));
    const double share = rootShareOfCpu3(m);
    const double predicted = predictedRootShare();
    qInfo("%s %s: root-spin %.3f %% of CPU 3 (predicted %.2f %%), probe %s, %d reweights of gA "
          "in [30 s, 31 s)",
        qPrintable(profile), qPrintable(features.join(',')), 100 * share, 100 * predicted,
        qPrintable(latency(*p)), run.reweightsAt30s);
    QVERIFY2(share >= minFactor * predicted && share <= maxFactor * predicted,
        qPrintable(QStringLiteral("%1 % against %2 %").arg(100 * share).arg(100 * predicted)));
    QVERIFY(!starvationFinding(m, "root-spin", 3));
    QVERIFY(!starvationFinding(m, "echo-hi", 3));
    // Fair although gA is reweighted just as often: the fix is in the reweight, not in the load.
    QVERIFY2(run.reweightsAt30s >= 100, qPrintable(QString::number(run.reweightsAt30s)));
    QVERIFY2(run.violations.empty(), qPrintable(violationText(run.violations)));
}

// Same scenario, same options ⇒ byte-identical metrics (scenario-format.md §3), also for the
// bistable 6.13 dynamics.
void TestSeedStarvation::deterministic()
{
    const SeedRun a = runSeed(*m_seed, "6.13", {}, 1);
    const SeedRun b = runSeed(*m_seed, "6.13", {}, 1);
    const std::string ja = metricsToJson(a.metrics);
    const std::string jb = metricsToJson(b.metrics);
    QVERIFY(!ja.empty());
    QCOMPARE(QString::fromStdString(ja), QString::fromStdString(jb));
    QCOMPARE(a.reweightsAt30s, b.reweightsAt30s);
}

QTEST_APPLESS_MAIN(TestSeedStarvation)
#include "tst_seedstarvation.moc"
