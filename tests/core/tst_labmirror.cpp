// SPDX-License-Identifier: GPL-2.0-or-later
// The lab mirrors (kernel-model.md §12.7): scenarios/lab-mirror-{shell,fork,nofork}.json copy the
// cgroup-weight-starvation setup measured on real Debian kernels with 2 vCPUs under qemu at
// HZ=250, as profile 6.18.15 (the measured release). CPU 1 runs root-spin (root cgroup) and
// test-spin (/testgroup, cpu.weight 2000); 20 unpinned sleepers of /testgroup differ in how much
// they fork. The figures below are the lab's
// measurements (6.18.15), not the model's output. The forking setups were measured again with
// the runner's children costing what the scenario says and their parents woken by their exit as
// after fork() (`LAB_LIGHT=1 LAB_EXACT=1`, docs/real-kernels.md; the first lab's figures, with
// the runner's heavier forks, were 12.5 / 5.2 / 0.42 / 0.85 and 11.5 / 7.9 / 0.69 / 0.51):
//
//   sleepers     root-spin share of CPU 1         reweights of /testgroup@1
//                NO_PLACE_LAG  PLACE_LAG  ratio   per tick of CPU 1
//   shell           11.6 %       5.1 %    0.44        0.71
//   fork helper      9.6 %       5.1 %    0.53        0.55
//   no fork          5.2 %       4.4 %    0.85        0.19
//
// 6.12.117 and 7.3.4 showed no PLACE_LAG effect (ratio ≈ 1.0). The bands asserted are the
// issue's: the ratio grows from shell to fork to no fork (the more tg->load_avg churns, the more
// often the 6.13–7.0 reweight inflates the running group entity's lag, §12.3); reweights per tick
// within ±30 % of the measured rate; the NO_PLACE_LAG share within ±40 %; with the fixed
// reweights (profiles 6.12 and 7.1) the ratio within 0.8–1.25.
//
// The figures are taken over [2 s, 30 s): the sleepers start in the first 100 ms, and /testgroup's
// load on CPU 0 needs a few PELT half-lives (32 ms each) and the first second of sleeps to settle.
// 18 runs of 30 simulated seconds with 2 CPUs: about half a second in the dev build.
#ifndef Q_MOC_RUN
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#endif

#include <QTest>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace schedlab;

namespace {

constexpr int64_t kMs = 1000000;
constexpr int64_t kS = 1000000000;
constexpr int64_t kFrom = 2 * kS;    ///< start of the measured window
constexpr int64_t kTo = 30 * kS;     ///< end of the run
constexpr int64_t kTickNs = 4 * kMs; ///< HZ=250
constexpr int kCpu = 1;              ///< the spinners' CPU

/// One lab measurement (6.18.15).
struct Measured
{
    const char* setup;
    double nplShare;
    double plShare;
    double reweightsPerTick;
};

constexpr Measured kMeasured[] = {
    {"shell", 0.116, 0.051, 0.71},
    {"fork", 0.096, 0.051, 0.55},
    {"nofork", 0.052, 0.044, 0.19},
};

const Measured& measured(const QString& setup)
{
    for (const Measured& m : kMeasured)
        if (setup == QLatin1String(m.setup))
            return m;
    return kMeasured[0];
}

struct MirrorRun
{
    double rootShare = -1;        ///< root-spin's time over CPU 1's busy time in the window
    double reweightsPerTick = -1; ///< Reweight records of /testgroup@1 per tick in the window
    std::vector<std::string> violations;
};

/// Busy time of each task on @p cpu within [from, to), from the Switch records.
std::map<int32_t, int64_t> runTimeOn(const Recording& rec, int cpu, int64_t from, int64_t to)
{
    std::map<int32_t, int64_t> out;
    int32_t running = -1;
    int64_t since = from;
    for (const Record& r : rec.records()) {
        if (r.kind != RecordKind::Switch || r.cpu != cpu)
            continue;
        const int64_t t = std::clamp(r.time, from, to);
        if (running >= 0)
            out[running] += t - since;
        since = t;
        running = static_cast<int32_t>(r.payload.generic.a);
    }
    if (running >= 0)
        out[running] += to - std::max(since, from);
    return out;
}

/// root-spin's share of CPU 1's busy time in [from, to).
double rootShareOn1(const Recording& rec, int64_t from, int64_t to)
{
    const auto root = std::find(rec.taskNames.begin(), rec.taskNames.end(), "root-spin");
    if (root == rec.taskNames.end())
        return -1;
    const auto times = runTimeOn(rec, kCpu, from, to);
    int64_t busy = 0;
    for (const auto& [task, ns] : times)
        busy += ns;
    const auto r = times.find(int32_t(root - rec.taskNames.begin()));
    return busy > 0 ? (r == times.end() ? 0.0 : double(r->second) / double(busy)) : -1;
}

} // namespace

class TestLabMirror : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void mirror618_data();
    void mirror618();
    void ratioOrder();
    void fixedReweight_data();
    void fixedReweight();
    void curve_data();
    void curve();

private:
    /// Runs (once, then cached) @p setup under @p profile ("" = as written: 6.18) and
    /// NO_PLACE_LAG if @p noPlaceLag.
    const MirrorRun& run(const QString& setup, const QString& profile, bool noPlaceLag);
    double ratio(const QString& setup, const QString& profile);

    std::map<QString, Scenario> m_scenarios;
    std::map<QString, MirrorRun> m_runs;
};

const MirrorRun& TestLabMirror::run(const QString& setup, const QString& profile, bool noPlaceLag)
{
    const QString key = setup + '/' + profile + '/' + (noPlaceLag ? "NPL" : "PL");
    if (const auto it = m_runs.find(key); it != m_runs.end())
        return it->second;
    Scenario scenario = m_scenarios.at(setup);
    RunOptions o;
    if (!profile.isEmpty()) {
        // Another release: its own behaviour choices, not the 6.18 overrides of the file.
        o.profile = profile.toStdString();
        scenario.kernel.overrides.clear();
    }
    if (noPlaceLag)
        o.features.push_back("NO_PLACE_LAG");
    o.recordSamples = false;
    Simulation sim(scenario, o);
    sim.run();
    MirrorRun out;
    out.violations = sim.invariantViolations();
    const Recording& rec = sim.recording();
    const auto root = std::find(rec.taskNames.begin(), rec.taskNames.end(), "root-spin");
    const auto g = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), "/testgroup");
    if (root != rec.taskNames.end() && g != rec.groupPaths.end()) {
        out.rootShare = rootShareOn1(rec, kFrom, kTo);
        const EntityRef ge = EntityRef::group(int32_t(g - rec.groupPaths.begin()), kCpu);
        int64_t reweights = 0;
        for (const Record& rr : rec.records())
            if (rr.kind == RecordKind::Reweight && rr.entity == ge && rr.time >= kFrom
                && rr.time < kTo)
                ++reweights;
        out.reweightsPerTick = double(reweights) / double((kTo - kFrom) / kTickNs);
    }
    qInfo("%s %s %s: root-spin %.2f %% of CPU 1, %.3f reweights of /testgroup@1 per tick",
        qPrintable(setup), profile.isEmpty() ? "6.18" : qPrintable(profile),
        noPlaceLag ? "NO_PLACE_LAG" : "PLACE_LAG", 100 * out.rootShare, out.reweightsPerTick);
    return m_runs.emplace(key, std::move(out)).first->second;
}

double TestLabMirror::ratio(const QString& setup, const QString& profile)
{
    const double pl = run(setup, profile, false).rootShare;
    const double npl = run(setup, profile, true).rootShare;
    return npl > 0 ? pl / npl : -1;
}

void TestLabMirror::initTestCase()
{
    for (const Measured& m : kMeasured) {
        const std::string file =
            std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/lab-mirror-" + m.setup + ".json";
        LoadResult r = loadScenarioFile(file);
        for (const std::string& e : r.errors)
            qWarning("%s", e.c_str());
        QVERIFY2(r.ok(), file.c_str());
        QCOMPARE(r.scenario->durationOrDefault(), Nanoseconds(kTo));
        QCOMPARE(r.scenario->machine.cpuCount(), 2);
        m_scenarios.emplace(QString::fromLatin1(m.setup), *r.scenario);
    }
}

// 6.18.15 (the file as written): the reweight rate of /testgroup's entity on CPU 1 within ±30 % of
// the measured one, root-spin's NO_PLACE_LAG share within ±40 %.
void TestLabMirror::mirror618_data()
{
    QTest::addColumn<QString>("setup");
    for (const Measured& m : kMeasured)
        QTest::addRow("%s", m.setup) << QString::fromLatin1(m.setup);
}

void TestLabMirror::mirror618()
{
    QFETCH(QString, setup);
    const Measured& real = measured(setup);
    const MirrorRun& pl = run(setup, {}, false);
    const MirrorRun& npl = run(setup, {}, true);
    qInfo("%s model/real: reweights per tick %.2f/%.2f, NO_PLACE_LAG %.2f/%.1f %%, PLACE_LAG "
          "%.2f/%.1f %%, ratio %.2f/%.2f",
        qPrintable(setup), pl.reweightsPerTick, real.reweightsPerTick, 100 * npl.rootShare,
        100 * real.nplShare, 100 * pl.rootShare, 100 * real.plShare, ratio(setup, {}),
        real.plShare / real.nplShare);
    QVERIFY2(pl.reweightsPerTick >= 0.7 * real.reweightsPerTick
            && pl.reweightsPerTick <= 1.3 * real.reweightsPerTick,
        qPrintable(QString::number(pl.reweightsPerTick)));
    QVERIFY2(npl.rootShare >= 0.6 * real.nplShare && npl.rootShare <= 1.4 * real.nplShare,
        qPrintable(QString::number(100 * npl.rootShare) + " %"));
    QVERIFY(pl.rootShare > 0);
    QVERIFY(pl.violations.empty());
    QVERIFY(npl.violations.empty());
}

// The more the sleepers fork, the more tg->load_avg churns and the more often the running group
// entity's lag is inflated by the 6.13–7.0 reweight: both forking setups well below the no-fork
// one (measured 0.44 and 0.53 against 0.85) and below the fixed kernels' band. Between the shell
// and the fork helper the order is not asserted: one real run carries about ±0.06 (docs/
// real-kernels.md), so 0.44 against 0.53 does not order them, and the model's seed 1 puts them
// within 0.02 of each other (its other seeds either way).
void TestLabMirror::ratioOrder()
{
    const double shell = ratio("shell", {});
    const double fork = ratio("fork", {});
    const double nofork = ratio("nofork", {});
    qInfo("6.18 ratios PLACE_LAG/NO_PLACE_LAG: shell %.2f, fork %.2f, no fork %.2f", shell, fork,
        nofork);
    QVERIFY2(shell > 0 && fork > 0 && shell < 0.8 * nofork && fork < 0.8 * nofork,
        qPrintable(QStringLiteral("%1 %2 %3").arg(shell).arg(fork).arg(nofork)));
    QVERIFY2(shell < 0.8 && fork < 0.8, qPrintable(QStringLiteral("%1 %2").arg(shell).arg(fork)));
}

// 6.12 (reweight_eevdf) and 7.1 (the revert) keep V across a reweight: PLACE_LAG makes no real
// difference, ratio within 0.8–1.25 (measured ≈ 1.0 on 6.12.117 and 7.3.4).
void TestLabMirror::fixedReweight_data()
{
    QTest::addColumn<QString>("setup");
    QTest::addColumn<QString>("profile");
    for (const char* profile : {"6.12", "7.1"})
        for (const Measured& m : kMeasured)
            QTest::addRow("%s %s", m.setup, profile)
                << QString::fromLatin1(m.setup) << QString::fromLatin1(profile);
}

void TestLabMirror::fixedReweight()
{
    QFETCH(QString, setup);
    QFETCH(QString, profile);
    const double r = ratio(setup, profile);
    qInfo("%s %s: ratio PLACE_LAG/NO_PLACE_LAG %.2f", qPrintable(setup), qPrintable(profile), r);
    QVERIFY2(r >= 0.8 && r <= 1.25, qPrintable(QString::number(r)));
    QVERIFY(run(setup, profile, false).violations.empty());
    QVERIFY(run(setup, profile, true).violations.empty());
}

// The dose–response curve (docs/real-kernels.md "The dose–response curve", lab/curve.sh): the
// fork helper at several periods and 20 and 60 shell loops, 120 s each, NO_PLACE_LAG until 50 s and
// PLACE_LAG after, root-spin's share of CPU 1 in [10 s, 50 s) and [70 s, 120 s). `real` is the
// mean ratio of the steady lab runs of the curve's table (6.18.15; 6.12.117 for the flat rows).
// Asserted, as the curve's table promises: the model's median over seeds 1–5 within ±0.15 of the
// real ratio (within a factor of 2 where the real one is below 0.1), and no seed more than 0.2
// from that median. The scenario files are lab/curve.sh's, kept in tests/data/curve/: every run
// ends with a read of the CPU clock, as the lab's runner does (cpu_clock, kernel-model.md §7.2),
// every burst of the sleepers scatters as the lab measured the real ones' (uniform with the
// measured standard deviation; docs/real-kernels.md, "The sleepers' spread"), each burst costs
// what the lab measured the real one to cost, and after each clock read the runner's measured
// tail runs before the task blocks, the fork's and the exit's in the kernel ("Where the runner's
// clock reads fall").
namespace {

struct CurvePoint
{
    const char* file;    ///< tests/data/curve/FILE.json
    const char* profile; ///< the kernel the real ratio was measured on
    double real;         ///< mean ratio of the steady lab runs; -1: none steady, flat band
};

// The real ratios: means of the steady runs of the curve's table with the lab as it is now
// (light children woken as after fork(), exact costs): 6.18.15 fork 1 s 0.714, 0.709, 0.693,
// 0.630, 0.609, 0.656; 500 ms 0.496, 0.540, 0.696, 0.598, 0.425, 0.533, 0.468, 0.410, 0.475, 0.411,
// 0.530, 0.593; 250 ms 0.458, 0.403, 0.566, 0.324, 0.432, 0.403, 0.415, 0.379 (LAB_PROBE), 0.289,
// 0.357, 0.498 (LAB_PROBE, the clock reads); 100 ms 0.0004, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000;
// 50 ms 0.0008, 0.0004, 0.0008; 150 ms 0.060, 0.064, 0.053, 0.059 (LAB_PROBE); 20 shell loops
// 0.601, 0.497, 0.429, 0.452, 0.558, 0.593 (LAB_PROBE, the clock reads); 60 shell loops 0.267,
// 0.249, 0.201, 0.326; 350 ms 0.473, 0.382, 0.393, 0.431 (the runs with CURVE_COUNT of 7 December
// 2026 also counted the reweights; the last run of each point, of the evening of 7 December,
// measured the guest's rcu_preempt the scenarios now carry). 6.12.117 (voluntary preemption: it has
// no lazy mode, and lab/curve.sh writes its scenarios so): fork 1 s 0.952 (the later three runs
// flagged), 1.121 (night of 7 December 2026); 500 ms 1.027, 0.771, 1.001, 0.883, 0.970 (the last
// two on 7 December 2026); 250 ms 0.892, 0.854, 0.829, 0.912 (the last three on 7 December 2026,
// the last with LAB_PROBE); 150 ms 0.881, 0.899 (7 December 2026); 100 ms 1.002, 0.979; 50
// ms 1.020, 0.972. 20 shell loops 0.887 (with 2 GB for the guest; the two earlier runs were
// flagged), 0.806; 60 shell loops 0.822, 0.889 (the second of each on the night of 7 December
// 2026).
constexpr CurvePoint kCurve[] = {
    {"fork-1s", "6.18.15", 0.6685},
    {"fork-500ms", "6.18.15", 0.5146},
    {"fork-350ms", "6.18.15", 0.4198},
    {"fork-250ms", "6.18.15", 0.4113},
    {"fork-150ms", "6.18.15", 0.059},
    {"fork-100ms", "6.18.15", 0.00007},
    {"fork-50ms", "6.18.15", 0.00065},
    {"shell-20", "6.18.15", 0.5217},
    {"shell-60", "6.18.15", 0.2608},
    {"fork-1s", "6.12.117", 1.0365},
    {"fork-500ms", "6.12.117", 0.9304},
    {"fork-250ms", "6.12.117", 0.8718},
    {"fork-150ms", "6.12.117", 0.890},
    {"fork-100ms", "6.12.117", 0.9905},
    {"fork-50ms", "6.12.117", 0.996},
    {"shell-20", "6.12.117", 0.8465},
    {"shell-60", "6.12.117", 0.8555},
};

} // namespace

void TestLabMirror::curve_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("profile");
    QTest::addColumn<double>("real");
    for (const CurvePoint& p : kCurve)
        QTest::addRow("%s %s", p.file, p.profile)
            << QString::fromLatin1(p.file) << QString::fromLatin1(p.profile) << p.real;
}

void TestLabMirror::curve()
{
    QFETCH(QString, file);
    QFETCH(QString, profile);
    QFETCH(double, real);
    const std::string path =
        std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/curve/" + file.toStdString() + ".json";
    LoadResult loaded = loadScenarioFile(path);
    for (const std::string& e : loaded.errors)
        qWarning("%s", e.c_str());
    QVERIFY2(loaded.ok(), path.c_str());
    QCOMPARE(loaded.scenario->durationOrDefault(), Nanoseconds(120 * kS));
    // 6.12 has no lazy preemption: its kernels run voluntary, and lab/curve.sh writes so.
    if (profile.startsWith(QStringLiteral("6.12")))
        loaded.scenario->kernel.preempt = Preempt::Voluntary;
    std::vector<double> ratios;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        RunOptions o;
        o.profile = profile.toStdString();
        o.seed = seed;
        o.recordSamples = false;
        o.recordEvents = false;
        Simulation sim(*loaded.scenario, o);
        sim.run();
        QVERIFY(sim.invariantViolations().empty());
        const double npl = rootShareOn1(sim.recording(), 10 * kS, 50 * kS);
        const double pl = rootShareOn1(sim.recording(), 70 * kS, 120 * kS);
        QVERIFY2(npl > 0 && pl >= 0, qPrintable(QStringLiteral("%1 %2").arg(npl).arg(pl)));
        ratios.push_back(pl / npl);
    }
    std::vector<double> sorted = ratios;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    qInfo("%s on %s: model median %.3f (%.3f-%.3f), real %.3f", qPrintable(file),
        qPrintable(profile), median, sorted.front(), sorted.back(), real);
    double farthest = 0; // the seed farthest from the median
    for (const double r : ratios)
        farthest = std::max(farthest, std::abs(r - median));
    // Below 0.1 a factor of 2. Under 0.001 the ratio counts single ticks: root-spin's share of
    // CPU 1 before the switch is about 0.25, so one 4 ms tick of it in the 50 s after the switch
    // is a ratio of 0.0003, and the real runs at 50 ms and 100 ms themselves spread over
    // 0.0000-0.0008. Both under 0.001 (three ticks or fewer) is starvation on both sides,
    // whatever the factor.
    const bool agrees = real < 0 ? median >= 0.8 && median <= 1.25
        : real < 0.1
        ? (median <= 2 * real && median >= real / 2) || (median < 0.001 && real < 0.001)
        : median >= real - 0.15 && median <= real + 0.15;
    QVERIFY2(agrees && farthest <= 0.2,
        qPrintable(QStringLiteral("model %1, real %2, a seed %3 from the median")
                       .arg(median)
                       .arg(real)
                       .arg(farthest)));
}

QTEST_APPLESS_MAIN(TestLabMirror)
#include "tst_labmirror.moc"
