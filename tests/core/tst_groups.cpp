// SPDX-License-Identifier: GPL-2.0-or-later
// Group scheduling (kernel-model.md §6, S4, S10): cpu.weight → tg->shares, calc_group_shares(),
// the PELT load that feeds tg->load_avg as seen through group entity weights, and whole runs
// checked against the shares derived by hand. Notation: S = tg->shares (unscaled unless said),
// ŵ = scale_load_down(w), L = the load a group publishes in tg->load_avg from other CPUs.
// Units: weights "scaled" are ×1024 (NICE_0_LOAD = 1 << 20); times in ns.
//
// PELT rules used below (§6.6, tst_pelt.cpp checks the arithmetic itself): a PELT period is
// 1024 µs of 1024 ns = 1.048576 ms; a blocked load decays by y^n for the n period boundaries
// crossed, y^32 = 1/2, so it halves every 32 periods = 33.55 ms and over 33 ms (31 or 32
// boundaries) falls to 2^(-31/32) = 0.511 or 2^(-32/32) = 0.5 of itself, a little less after
// the kernel's flooring. A new task starts with load_avg = ŵ.
//
// The core headers come before <QTest>: Qt's `forever` macro would mangle DurationSpec::forever.
// moc 6.4 cannot parse them (C++20), and the test class needs none.
#ifndef Q_MOC_RUN
#include "core/fair/fairclass.h"
#include "core/fair/taskgroup.h"
#include "core/fair/weights.h"
#include "core/kernel/profile.h"
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/fakemachine.h"
#include "support/simlookup.h"
#endif

#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace schedlab;

// Declared before the raw-string fixtures (moc 6.4 mis-tokenises some raw strings).
class TestGroups : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // formulas
    void sharesFromCpuWeight_data();
    void sharesFromCpuWeight();
    void calcGroupShares_data();
    void calcGroupShares();
    void writeWeightFiles_data();
    void writeWeightFiles();
    void cpuWeightRead_data();
    void cpuWeightRead();

    // PELT load behind tg->load_avg, observed through a group entity's weight
    void newTaskLoadIsItsWeight_data();
    void newTaskLoadIsItsWeight();
    void blockedLoadHalvesIn32ms();
    void waitingTaskAttachedAtEnqueue();
    void migratedLoadIsDecayed();

    // whole runs
    void oneCpuOneToThree_data();
    void oneCpuOneToThree();
    void fourCpusPerCpuShares_data();
    void fourCpusPerCpuShares();
    void invariantsHold_data();
    void invariantsHold();
    void moveAccountsToNewGroup_data();
    void moveAccountsToNewGroup();
    void setCpuWeightAtRunTime_data();
    void setCpuWeightAtRunTime();
    void idleGroupAtCreation_data();
    void idleGroupAtCreation();
    void idleGroupAtRunTime_data();
    void idleGroupAtRunTime();
    void idleGroupIsSchedIdle_data();
    void idleGroupIsSchedIdle();
    void migrationKeepsLag_data();
    void migrationKeepsLag();
};

namespace {

constexpr int64_t kMs = 1000000;
constexpr int64_t kS = 1000000000;

std::optional<Scenario> parse(const QByteArray& json)
{
    LoadResult r = parseScenario(json.toStdString(), "tst_groups");
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    return r.scenario;
}

std::optional<Scenario> shipped(const char* file)
{
    LoadResult r = loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/" + file);
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    return r.scenario;
}

RunOptions options(const QString& profile)
{
    RunOptions o;
    if (!profile.isEmpty())
        o.profile = profile.toStdString();
    return o;
}

const TaskMetrics* taskMetrics(const Metrics& m, const std::string& name)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

int64_t taskCpu(const Metrics& m, const std::string& name)
{
    const TaskMetrics* t = taskMetrics(m, name);
    return t ? t->cpuTimeNs : -1;
}

int64_t groupCpu(const Metrics& m, const std::string& path)
{
    for (const CgroupMetrics& g : m.cgroups)
        if (g.path == path)
            return g.cpuTimeNs;
    return -1;
}

using test::taskRef;
using test::taskView;

/// One data row per profile with cgroup support worth testing: 6.6 to 7.3.
void addEveryProfile()
{
    QTest::addColumn<QString>("profile");
    for (const char* p : {"6.6", "6.12", "6.13", "7.0", "7.1", "7.3"})
        QTest::addRow("%s", p) << QString(p);
}

/// cpu.weight as read back from the running simulation (-1: no such group).
int cgroupWeight(const Simulation& sim, const std::string& path)
{
    for (const CgroupView& g : sim.cgroups())
        if (g.path == path)
            return g.weight;
    return -1;
}

EntityRef groupRef(const Recording& rec, const std::string& path, int cpu)
{
    const auto it = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), path);
    return it == rec.groupPaths.end() ? EntityRef{}
                                      : EntityRef::group(int32_t(it - rec.groupPaths.begin()), cpu);
}

struct Reweight
{
    int64_t time;
    uint64_t from;
    uint64_t to;
};

std::vector<Reweight> reweights(const Recording& rec, EntityRef who)
{
    std::vector<Reweight> out;
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Reweight && r.entity == who)
            out.push_back({r.time, uint64_t(r.payload.generic.a), uint64_t(r.payload.generic.b)});
    return out;
}

/// Weight of a group entity at time @p t: the last reweight at or before t, else its initial
/// weight (init_tg_cfs_entry(): NICE_0_LOAD).
uint64_t weightAt(const Recording& rec, EntityRef who, int64_t t)
{
    uint64_t w = kNice0Load;
    for (const Reweight& r : reweights(rec, who))
        if (r.time <= t)
            w = r.to;
    return w;
}

/// The load L the other CPUs publish for a group, from the weight w of its entity on a CPU where
/// the group's own load is 1024 (one nice-0 hog): w = S·1024/(1024 + L), so L = S·1024/w − 1024
/// (S scaled, w scaled; exact up to the floor of the division, < 0.001 here).
double otherLoad(uint64_t sharesScaled, uint64_t w)
{
    return double(sharesScaled) * 1024.0 / double(w) - 1024.0;
}

QString violations(const Simulation& sim)
{
    QStringList out;
    for (const std::string& v : sim.invariantViolations())
        out.append(QString::fromStdString(v));
    return out.join('\n');
}

bool near(double value, double expected, double relTol)
{
    return std::abs(value - expected) <= relTol * std::abs(expected);
}

QString pct(double x)
{
    return QString::number(100.0 * x, 'f', 3) + " %";
}

} // namespace

#define VERIFY_INVARIANTS(sim)                                                                     \
    QVERIFY2((sim).invariantViolations().empty(), qPrintable(violations(sim)))

#define VERIFY_SHARE(value, expected, tol)                                                         \
    QVERIFY2(near((value), (expected), (tol)),                                                     \
        qPrintable(QStringLiteral("%1: %2, expected %3 ± %4 %")                                    \
                       .arg(#value, pct(value), pct(expected))                                     \
                       .arg(100.0 * (tol))))

// --- fixtures -----------------------------------------------------------------------------------

namespace {

// A /g (cpu.weight 200, S = 2048) hog pinned to CPU 0, and at 100 ms a new /g task on the idle
// CPU 1 that runs 20 ms and sleeps. Nice level substituted per row.
QByteArray newTaskScenario(int nice)
{
    return QByteArray(R"({ "schedlab": 1, "name": "new-task-load", "duration": "130ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/g", "cpu.weight": 200 } ],
  "tasks": [ { "name": "hog", "cgroup": "/g", "cpus": "0", "program": [ { "run": "forever" } ] } ],
  "actions": [ { "at": "100ms", "spawn": { "name": "newbie", "cgroup": "/g", "cpus": "1", "nice": )")
        + QByteArray::number(nice) + R"(,
    "program": [ { "run": "20ms" }, { "sleep": "10s" } ] } } ] })";
}

// The same hog, and a /g task on CPU 1 that runs 100 ms and then sleeps: its load stays on CPU
// 1's /g cfs_rq as blocked load and decays; idle CPU 1 publishes it every 33 ms (NOHZ blocked
// load update, kicked from CPU 0's tick).
const QByteArray kBlockedLoad = R"({ "schedlab": 1, "name": "blocked-load", "duration": "400ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/g", "cpu.weight": 200 } ],
  "tasks": [ { "name": "hog", "cgroup": "/g", "cpus": "0", "program": [ { "run": "forever" } ] },
             { "name": "burst", "cgroup": "/g", "cpus": "1",
               "program": [ { "run": "100ms" }, { "sleep": "10s" } ] } ] })";

// A /g hog pinned to CPU 1; CPU 0 runs two root hogs with 100 ms custom slices, which pick each
// other every 100 ms. A new /g task (also a 100 ms slice, so PREEMPT_SHORT does not apply)
// spawned on CPU 0 at 110 ms waits there (a fork never preempts in 6.19+, the running hog is
// protected until its deadline) for at least 90 ms.
const QByteArray kWaitingNewTask =
    R"({ "schedlab": 1, "name": "waiting-new-task", "duration": "400ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/g", "cpu.weight": 200 } ],
  "tasks": [ { "name": "hog", "cgroup": "/g", "cpus": "1", "program": [ { "run": "forever" } ] },
             { "name": "r", "count": 2, "cpus": "0", "slice": "100ms",
               "program": [ { "run": "forever" } ] } ],
  "actions": [ { "at": "110ms", "spawn": { "name": "newbie", "cgroup": "/g", "cpus": "0",
                                           "slice": "100ms",
                                           "program": [ { "run": "forever" } ] } } ] })";

// burst (cpus 1,2) runs 200 ms on CPU 1 and sleeps 100 ms; a root hog pinned to CPU 1 arrives at
// 250 ms, so at 300 ms burst wakes on the idle CPU 2 (a wakeup migration), runs 1 ms and sleeps.
const QByteArray kMigratedLoad = R"({ "schedlab": 1, "name": "migrated-load", "duration": "320ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 3 },
  "cgroups": [ { "path": "/g", "cpu.weight": 200 } ],
  "tasks": [ { "name": "hog", "cgroup": "/g", "cpus": "0", "program": [ { "run": "forever" } ] },
             { "name": "burst", "cgroup": "/g", "cpus": "1,2",
               "program": [ { "run": "200ms" }, { "sleep": "100ms" }, { "run": "1ms" },
                            { "sleep": "10s" } ] } ],
  "actions": [ { "at": "250ms", "spawn": { "name": "blocker", "cpus": "1",
                                           "program": [ { "run": "forever" } ] } } ] })";

// A nested hierarchy with everything that moves h_nr_queued: sleepers (delayed dequeue), forks,
// exits, a cgroup move, a weight change, an affinity change, on two CPUs.
const QByteArray kNested = R"({ "schedlab": 1, "name": "nested", "duration": "1s",
  "kernel": { "hz": 1000 }, "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/A", "cpu.weight": 200 }, { "path": "/A/x", "cpu.weight": 100 },
               { "path": "/A/y", "cpu.weight": 300 }, { "path": "/B", "cpu.weight": 50 } ],
  "tasks": [
    { "name": "hog-x", "cgroup": "/A/x", "program": [ { "run": "forever" } ] },
    { "name": "sleeper-x", "cgroup": "/A/x",
      "program": [ { "loop": [ { "run": "3ms" }, { "sleep": "7ms" } ] } ] },
    { "name": "hog-y", "cgroup": "/A/y", "cpus": "1", "program": [ { "run": "forever" } ] },
    { "name": "short-y", "count": 3, "cgroup": "/A/y", "start": { "uniform": ["0ms", "20ms"] },
      "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "2ms" } ] } ] },
    { "name": "hog-b", "cgroup": "/B", "program": [ { "run": "forever" } ] },
    { "name": "root", "program": [ { "loop": [ { "run": "5ms" }, { "sleep": "1ms" } ] } ] },
    { "name": "forker", "cgroup": "/A", "start": "100ms",
      "program": [ { "loop": [ { "run": "200us" },
        { "fork": { "program": [ { "run": "300us" }, { "sleep": "4ms" } ] }, "wait": true } ] } ] }
  ],
  "actions": [
    { "at": "300ms", "move": { "task": "hog-x", "cgroup": "/B" } },
    { "at": "400ms", "move": { "task": "sleeper-x", "cgroup": "/A/y" } },
    { "at": "500ms", "set": { "cgroup": "/A/y", "cpu.weight": 1000 } },
    { "at": "600ms", "set": { "task": "hog-b", "cpus": "0" } },
    { "at": "700ms", "set": { "task": "hog-y", "cpus": "0" } },
    { "at": "800ms", "kill": "short-y-2" }
  ] })";

// One CPU: /A (cpu.weight 100) with a and m, /B (cpu.weight 300) with b; m moves to /B at 5.5 s.
const QByteArray kMove = R"({ "schedlab": 1, "name": "move", "duration": "10s",
  "kernel": { "hz": 1000 }, "machine": { "cpus": 1 },
  "cgroups": [ { "path": "/A", "cpu.weight": 100 }, { "path": "/B", "cpu.weight": 300 } ],
  "tasks": [ { "name": "a", "cgroup": "/A", "program": [ { "run": "forever" } ] },
             { "name": "m", "cgroup": "/A", "program": [ { "run": "forever" } ] },
             { "name": "b", "cgroup": "/B", "program": [ { "run": "forever" } ] } ],
  "actions": [ { "at": "5.5s", "move": { "task": "m", "cgroup": "/B" } } ] })";

// One CPU: a hog in /A (cpu.weight W0) and one in /B (cpu.weight 300); /A becomes W1 at 5.5 s.
QByteArray weightChangeScenario(int w0, int w1)
{
    return R"({ "schedlab": 1, "name": "weight-change", "duration": "10s",
  "kernel": { "hz": 1000 }, "machine": { "cpus": 1 },
  "cgroups": [ { "path": "/A", "cpu.weight": )"
        + QByteArray::number(w0) + R"( }, { "path": "/B", "cpu.weight": 300 } ],
  "tasks": [ { "name": "a", "cgroup": "/A", "program": [ { "run": "forever" } ] },
             { "name": "b", "cgroup": "/B", "program": [ { "run": "forever" } ] } ],
  "actions": [ { "at": "5.5s", "set": { "cgroup": "/A", "cpu.weight": )"
        + QByteArray::number(w1) + R"( } } ] })";
}

// One CPU: a root hog r (1024) and a hog i in /I, which is written cpu.weight 300 and then
// cpu.idle 1 (the order of docs/scenario-format.md §1.5).
const QByteArray kIdleAtCreation = R"({ "schedlab": 1, "name": "idle-at-creation",
  "duration": "10s", "kernel": { "hz": 1000 }, "machine": { "cpus": 1 },
  "cgroups": [ { "path": "/I", "cpu.weight": 300, "cpu.idle": 1 } ],
  "tasks": [ { "name": "r", "program": [ { "run": "forever" } ] },
             { "name": "i", "cgroup": "/I", "program": [ { "run": "forever" } ] } ] })";

// Four CPUs of one LLC: n (root) runs on CPU 0, i (in the idle group /I) on CPU 1, CPUs 2 and 3
// are idle. w starts on CPU 0, widens its affinity to every CPU and sleeps 2 ms.
const QByteArray kIdleGroupCpu = R"({ "schedlab": 1, "name": "idle-group-cpu",
  "duration": "6ms", "kernel": { "hz": 1000 }, "machine": { "cpus": 4 },
  "cgroups": [ { "path": "/I", "cpu.idle": 1 } ],
  "tasks": [ { "name": "n", "cpus": "0", "program": [ { "run": "forever" } ] },
             { "name": "i", "cgroup": "/I", "cpus": "1", "program": [ { "run": "forever" } ] },
             { "name": "w", "cpus": "0",
               "program": [ { "cpus": "0-3" }, { "sleep": "2ms" }, { "run": "forever" } ] } ] })";

// One CPU: a root hog r and a hog a in /A (cpu.weight 300). /A becomes idle at 2 s, a cpu.weight
// write at 5 s finds it idle, and cpu.idle goes back to 0 at 12 s.
const QByteArray kIdleAtRunTime = R"({ "schedlab": 1, "name": "idle-at-run-time",
  "duration": "14s", "kernel": { "hz": 1000 }, "machine": { "cpus": 1 },
  "cgroups": [ { "path": "/A", "cpu.weight": 300 } ],
  "tasks": [ { "name": "r", "program": [ { "run": "forever" } ] },
             { "name": "a", "cgroup": "/A", "program": [ { "run": "forever" } ] } ],
  "actions": [ { "at": "2s", "set": { "cgroup": "/A", "cpu.idle": 1 } },
               { "at": "5s", "set": { "cgroup": "/A", "cpu.weight": 900 } },
               { "at": "12s", "set": { "cgroup": "/A", "cpu.idle": 0 } } ] })";

} // namespace

// --- formulas -----------------------------------------------------------------------------------

// §2.1: tg->shares = scale_load(round(cpu.weight·1024/100)) (DIV_ROUND_CLOSEST), clamped to
// [scale_load(MIN_SHARES = 2), scale_load(MAX_SHARES = 2^18)] = [2048, 268435456] scaled.
void TestGroups::sharesFromCpuWeight_data()
{
    QTest::addColumn<int>("cpuWeight");
    QTest::addColumn<quint64>("expected"); // scaled

    QTest::addRow("100 (default)") << 100 << quint64(1024) * 1024;     // 1024 → 1048576
    QTest::addRow("2000 (the seed)") << 2000 << quint64(20480) * 1024; // 20480 → 20971520
    QTest::addRow("300") << 300 << quint64(3072) * 1024;               // 3072
    // 1·1024/100 = 10.24 → 10 → 10240: above the floor 2048, the clamp does not bind for any
    // valid cpu.weight (the smallest, 1, already gives 10 > MIN_SHARES = 2).
    QTest::addRow("1 (minimum)") << 1 << quint64(10) * 1024;
    // 10000·1024/100 = 102400 → 104857600, below MAX_SHARES 262144 (scaled 268435456).
    QTest::addRow("10000 (maximum)") << 10000 << quint64(102400) * 1024;
    QTest::addRow("3 rounds up") << 3 << quint64(31) * 1024;            // 30.72 → 31
    QTest::addRow("99 rounds up") << 99 << quint64(1014) * 1024;        // 1013.76 → 1014
    QTest::addRow("33 rounds up") << 33 << quint64(338) * 1024;         // 337.92 → 338
    QTest::addRow("1001 rounds down") << 1001 << quint64(10250) * 1024; // 10250.24 → 10250
    // Out of cpu.weight's range (the loader rejects them): the clamp itself.
    QTest::addRow("0 → MIN_SHARES") << 0 << quint64(2) * 1024;              // 0 → 2048
    QTest::addRow("30000 → MAX_SHARES") << 30000 << quint64(262144) * 1024; // 307200 → 2^18
}

void TestGroups::sharesFromCpuWeight()
{
    QFETCH(int, cpuWeight);
    QFETCH(quint64, expected);
    QCOMPARE(quint64(schedlab::sharesFromCpuWeight(cpuWeight)), expected);
}

// §6.2: load = max(ŵ(grq.load.weight), grq.avg.load_avg); tg_weight = TG − contrib + load;
// shares = S·load/tg_weight (S·load if tg_weight = 0), clamped to [2, S] (2 scaled: MIN_SHARES
// is used unscaled as the floor of a scaled weight).
void TestGroups::calcGroupShares_data()
{
    QTest::addColumn<quint64>("shares");     // S, scaled
    QTest::addColumn<quint64>("loadWeight"); // grq.load.weight, scaled
    QTest::addColumn<quint64>("loadAvg");    // grq.avg.load_avg
    QTest::addColumn<quint64>("contrib");    // grq.tg_load_avg_contrib
    QTest::addColumn<qint64>("tgLoadAvg");   // tg->load_avg (TG)
    QTest::addColumn<quint64>("expected");   // scaled

    constexpr quint64 k = 1024;
    // One busy nice-0 task, nothing elsewhere: tg_weight = 1024 − 1024 + 1024 = 1024,
    // shares = S·1024/1024 = S (the "UP limit"): 20971520.
    QTest::addRow("UP limit") << 20480 * k << 1024 * k << quint64(1024) << quint64(1024)
                              << qint64(1024) << 20480 * k;
    // Three more CPUs with 1024 each: tg_weight = 4096 − 1024 + 1024 = 4096,
    // 20971520·1024/4096 = 5242880.
    QTest::addRow("three other CPUs") << 20480 * k << 1024 * k << quint64(1024) << quint64(1024)
                                      << qint64(4096) << quint64(5242880);
    // This CPU published only 512 so far, the others 1024: TG = 1536; the stale 512 is replaced by
    // the fresh load: tg_weight = 1536 − 512 + 1024 = 2048, 20971520·1024/2048 = 10485760.
    QTest::addRow("stale own contribution") << 20480 * k << 1024 * k << quint64(1024)
                                            << quint64(512) << qint64(1536) << quint64(10485760);
    // Blocked load of sleepers makes load_avg exceed the queued weight: load = 3000, TG = 3000 +
    // 1000 elsewhere: tg_weight = 4000, 20971520·3000/4000 = 15728640.
    QTest::addRow("load_avg above weight") << 20480 * k << 1024 * k << quint64(3000)
                                           << quint64(3000) << qint64(4000) << quint64(15728640);
    // Two tasks just woken, PELT still low: load = max(2048, 100) = 2048, TG = 100 (this CPU):
    // tg_weight = 100 − 100 + 2048 = 2048, shares = S·2048/2048 = S.
    QTest::addRow("weight above load_avg")
        << 20480 * k << 2048 * k << quint64(100) << quint64(100) << qint64(100) << 20480 * k;
    // /B of two-groups-4cpu: S = 3072, 1024 on each of four CPUs: 3145728·1024/4096 = 786432.
    QTest::addRow("per-CPU part of a spread group")
        << 3072 * k << 1024 * k << quint64(1024) << quint64(1024) << qint64(4096)
        << quint64(786432);
    // Almost nothing here, a lot elsewhere: load = max(0, 1) = 1, tg_weight = 10^6,
    // 1048576·1/10^6 = 1 → floor MIN_SHARES = 2 (scaled!).
    QTest::addRow("floor MIN_SHARES")
        << 1024 * k << quint64(0) << quint64(1) << quint64(1) << qint64(1000000) << quint64(2);
    // Nothing anywhere: tg_weight = 0, shares = S·0 = 0 → 2.
    QTest::addRow("no load at all")
        << 1024 * k << quint64(0) << quint64(0) << quint64(0) << qint64(0) << quint64(2);
    // TG lags behind this CPU's contribution (1024 published, TG already lowered by a detach):
    // tg_weight = 1024 − 2048 + 1024 = 0 → shares = S·1024, capped at S = 1048576.
    QTest::addRow("cap at S") << 1024 * k << 1024 * k << quint64(1024) << quint64(2048)
                              << qint64(1024) << 1024 * k;
    // A light queued weight: ŵ(1000) = max(2, 1000 >> 10) = 2 = load, alone:
    // tg_weight = 2, shares = S·2/2 = S.
    QTest::addRow("scale_load_down floor")
        << 300 * k << quint64(1000) << quint64(0) << quint64(0) << qint64(0) << 300 * k;
}

void TestGroups::calcGroupShares()
{
    QFETCH(quint64, shares);
    QFETCH(quint64, loadWeight);
    QFETCH(quint64, loadAvg);
    QFETCH(quint64, contrib);
    QFETCH(qint64, tgLoadAvg);
    QFETCH(quint64, expected);

    const KernelProfile* profile = findProfile("6.13");
    QVERIFY(profile);
    ProfileChoices choices = profile->choices;
    ProfileTraits traits = profile->traits;
    FeatureSet features = profile->features;
    FairParams params;
    params.choices = &choices;
    params.traits = &traits;
    params.features = &features;
    test::FakeMachine machine{0}; // the machine context (nothing of it is read)
    std::vector<TaskGroup> groups(2);
    groups[1].index = 1;
    groups[1].parent = 0;
    groups[1].depth = 1;
    groups[1].path = "/g";
    groups[1].shares = shares;
    groups[1].loadAvg = tgLoadAvg;
    FairClass fair(params, machine, groups);

    CfsRq grq(choices);
    grq.groupIndex = 1;
    grq.loadWeight = loadWeight;
    grq.avg.loadAvg = loadAvg;
    grq.tgLoadAvgContrib = contrib;
    QCOMPARE(quint64(fair.calcGroupShares(grq)), expected);
}

// sched_group_set_idle() and sched_group_set_shares() (fair.c): cpu.idle 1 sets tg->shares to
// scale_load(WEIGHT_IDLEPRIO) = 3·1024, cpu.idle 0 to NICE_0_LOAD = 1024·1024 (whatever the weight
// was before); a write of the flag the group has changes nothing; cpu.weight and cpu.weight.nice
// fail with EINVAL while the group is idle; an unchanged tg->shares is not propagated. In one
// write: cpu.idle 0 first, the weights, cpu.idle 1 last (the order of schedlab-run).
void TestGroups::writeWeightFiles_data()
{
    QTest::addColumn<quint64>("shares0"); // scaled
    QTest::addColumn<bool>("idle0");
    QTest::addColumn<int>("weight");     // cpu.weight, 0: not written
    QTest::addColumn<int>("nice");       // cpu.weight.nice, 99: not written
    QTest::addColumn<int>("idle");       // cpu.idle, -1: not written
    QTest::addColumn<quint64>("shares"); // scaled, after
    QTest::addColumn<bool>("idleAfter");
    QTest::addColumn<bool>("changed");
    QTest::addColumn<QString>("refused"); // the message, empty: none

    constexpr quint64 k = 1024;
    // cpu.weight 300 (S = 3072) → idle: 3.
    QTest::addRow("idle 1") << 3072 * k << false << 0 << 99 << 1 << 3 * k << true << true << "";
    // Back to 0: NICE_0_LOAD (1024), not the 3072 of cpu.weight 300.
    QTest::addRow("idle 0") << 3 * k << true << 0 << 99 << 0 << 1024 * k << false << true << "";
    QTest::addRow("idle 1 again") << 3 * k << true << 0 << 99 << 1 << 3 * k << true << false << "";
    QTest::addRow("idle 0 when not idle")
        << 3072 * k << false << 0 << 99 << 0 << 3072 * k << false << false << "";
    QTest::addRow("cpu.weight while idle")
        << 3 * k << true << 900 << 99 << -1 << 3 * k << true << false
        << "write 900 > /g/cpu.weight: EINVAL (the group is idle: cpu.idle 1 keeps its weight at "
           "3, cpu.weight reads 1)";
    QTest::addRow("cpu.weight.nice while idle")
        << 3 * k << true << 0 << -5 << -1 << 3 * k << true << false
        << "write -5 > /g/cpu.weight.nice: EINVAL (the group is idle: cpu.idle 1 keeps its weight "
           "at 3, cpu.weight reads 1)";
    // cpu.idle 0 is written first: the group is no longer idle when cpu.weight 500 (5120) comes.
    QTest::addRow("cpu.weight 500 + idle 0 while idle")
        << 3 * k << true << 500 << 99 << 0 << 5120 * k << false << true << "";
    // cpu.idle 1 is written last: 5120, then 3.
    QTest::addRow("cpu.weight 500 + idle 1")
        << 1024 * k << false << 500 << 99 << 1 << 3 * k << true << true << "";
    // nice −5: sched_prio_to_weight[15] = 3121.
    QTest::addRow("cpu.weight.nice -5")
        << 1024 * k << false << 0 << -5 << -1 << 3121 * k << false << true << "";
    QTest::addRow("same cpu.weight")
        << 3072 * k << false << 300 << 99 << -1 << 3072 * k << false << false << "";
}

void TestGroups::writeWeightFiles()
{
    QFETCH(quint64, shares0);
    QFETCH(bool, idle0);
    QFETCH(int, weight);
    QFETCH(int, nice);
    QFETCH(int, idle);
    QFETCH(quint64, shares);
    QFETCH(bool, idleAfter);
    QFETCH(bool, changed);
    QFETCH(QString, refused);

    CgroupFiles files;
    if (weight)
        files.weight = weight;
    if (nice != 99)
        files.weightNice = nice;
    if (idle >= 0)
        files.idle = idle == 1;
    uint64_t s = shares0;
    bool i = idle0;
    std::vector<std::string> messages;
    const WeightWrite w = schedlab::writeWeightFiles(s, i, files, "/g", &messages);
    QCOMPARE(quint64(s), shares);
    QCOMPARE(i, idleAfter);
    QCOMPARE(w.sharesChanged, changed);
    QCOMPARE(w.idleChanged, idle0 != idleAfter);
    QCOMPARE(messages.size(), size_t(refused.isEmpty() ? 0 : 1));
    if (!refused.isEmpty())
        QCOMPARE(QString::fromStdString(messages[0]), refused);
}

// cpu_weight_read_u64(): clamp(DIV_ROUND_CLOSEST(ŵ·100, 1024), 1, 10000).
void TestGroups::cpuWeightRead_data()
{
    QTest::addColumn<quint64>("shares"); // scaled
    QTest::addColumn<int>("read");

    constexpr quint64 k = 1024;
    QTest::addRow("idle: 3") << 3 * k << 1;          // 300/1024 = 0.29 → 0 → clamped to 1
    QTest::addRow("NICE_0_LOAD") << 1024 * k << 100; // 102400/1024
    QTest::addRow("cpu.weight 300") << 3072 * k << 300;
    QTest::addRow("cpu.weight 1") << 10 * k << 1;      // 1000/1024 = 0.98 → 1
    QTest::addRow("nice -5: 3121") << 3121 * k << 305; // 312100/1024 = 304.79 → 305
    QTest::addRow("nice 19: 15") << 15 * k << 1;       // 1500/1024 = 1.46 → 1
    QTest::addRow("cpu.weight 10000") << 102400 * k << 10000;
}

void TestGroups::cpuWeightRead()
{
    QFETCH(quint64, shares);
    QFETCH(int, read);
    QCOMPARE(schedlab::cpuWeightRead(shares), read);
}

// --- PELT behind tg->load_avg -------------------------------------------------------------------

// init_entity_runnable_average(): a new task's load_avg = ŵ of its nice weight, attached on its
// CPU and published in tg->load_avg. Seen from CPU 0 (the hog, own load 1024, S = 2048 scaled
// 2097152): /g@0 = 2097152·1024/(1024 + ŵ) from the next tick on (before: S, the UP limit).
void TestGroups::newTaskLoadIsItsWeight_data()
{
    QTest::addColumn<int>("nice");
    QTest::addColumn<quint64>("expected"); // /g@0 after the spawn, scaled

    QTest::addRow("nice 0") << 0 << quint64(1048576);   // 2^31/2048 = 1048576
    QTest::addRow("nice -5") << -5 << quint64(518090);  // 2^31/4145 = 518090.14
    QTest::addRow("nice 5") << 5 << quint64(1580194);   // 2^31/1359 = 1580194.0015
    QTest::addRow("nice 19") << 19 << quint64(2066875); // 2^31/1039 = 2066875.50
}

void TestGroups::newTaskLoadIsItsWeight()
{
    QFETCH(int, nice);
    QFETCH(quint64, expected);

    const auto scenario = parse(newTaskScenario(nice));
    QVERIFY(scenario);
    Simulation sim(*scenario);
    sim.run();
    const Recording& rec = sim.recording();
    const EntityRef g0 = groupRef(rec, "/g", 0);
    QCOMPARE(quint64(weightAt(rec, g0, 100 * kMs - 1)), quint64(2048) * 1024); // S: UP limit
    // The first reweight after the spawn, at the spawn's tick or the next one.
    const auto rw = reweights(rec, g0);
    const auto it =
        std::find_if(rw.begin(), rw.end(), [](const Reweight& r) { return r.time >= 100 * kMs; });
    QVERIFY(it != rw.end());
    QVERIFY2(it->time <= 101 * kMs, qPrintable(QString::number(it->time)));
    QCOMPARE(quint64(it->to), expected);
    VERIFY_INVARIANTS(sim);
}

// A blocked /g load on an idle CPU halves in ~32 ms: the published load L (from /g@0's weight)
// falls to 0.48–0.54 of itself between two NOHZ blocked-load updates 33 ms apart (0.511 or 0.5
// for 31 or 32 period boundaries, a little less after flooring). 33 ms: CPU 0's busy tick raises
// the stats kick only once jiffies is after nohz.next_blocked, which the previous update set 32
// jiffies (LOAD_AVG_PERIOD ms at HZ 1000) past its own jiffy (kernel-model.md §6.6).
void TestGroups::blockedLoadHalvesIn32ms()
{
    const auto scenario = parse(kBlockedLoad);
    QVERIFY(scenario);
    Simulation sim(*scenario);
    sim.run();
    const Recording& rec = sim.recording();
    const uint64_t s = 2048 * 1024;
    // While burst runs, CPU 1 holds ≈ 1024 (its initial ŵ, kept while runnable): L ≈ 1024.
    const double running = otherLoad(s, weightAt(rec, groupRef(rec, "/g", 0), 99 * kMs));
    QVERIFY2(running > 1000 && running <= 1024.5, qPrintable(QString::number(running)));

    std::vector<std::pair<int64_t, double>> loads; // (time, L) after burst went to sleep
    for (const Reweight& r : reweights(rec, groupRef(rec, "/g", 0)))
        if (r.time > 100 * kMs)
            loads.emplace_back(r.time, otherLoad(s, r.to));
    QVERIFY2(loads.size() >= 6, qPrintable(QString::number(loads.size())));
    int halvings = 0;
    for (size_t i = 1; i < loads.size(); ++i) {
        const auto [t0, l0] = loads[i - 1];
        const auto [t1, l1] = loads[i];
        if (l0 < 64) // below that the integer floors dominate the ratio
            break;
        QCOMPARE(t1 - t0, 33 * kMs);
        const double ratio = l1 / l0;
        QVERIFY2(ratio >= 0.48 && ratio <= 0.54,
            qPrintable(QStringLiteral("%1 → %2 at %3 ms").arg(l0).arg(l1).arg(t1 / kMs)));
        ++halvings;
    }
    QVERIFY2(halvings >= 3, qPrintable(QString::number(halvings)));
    VERIFY_INVARIANTS(sim);
}

// enqueue_entity() attaches a task's load (DO_ATTACH) when it is enqueued, not when it first
// runs: seen from CPU 1 (own /g load 1024), L = CPU 0's /g load = newbie's ŵ = 1024 from the tick
// after the spawn on (/g@1 = 2097152·1024/2048 = 1048576), and never more while newbie stays
// runnable: one nice-0 task cannot lift a cfs_rq's load_avg above 1024. (Attaching only at the
// first pick would publish the queued weight's load accrued while newbie waits, ≈ 1000 after
// 190 ms, and then add the attached 1024 on top: L ≈ 2000.)
void TestGroups::waitingTaskAttachedAtEnqueue()
{
    const auto scenario = parse(kWaitingNewTask);
    QVERIFY(scenario);
    Simulation sim(*scenario);
    sim.run();
    const Recording& rec = sim.recording();
    const uint64_t s = 2048 * 1024;
    const EntityRef g1 = groupRef(rec, "/g", 1);
    QCOMPARE(quint64(weightAt(rec, g1, 110 * kMs - 1)), quint64(s)); // UP limit before
    const auto rw = reweights(rec, g1);
    const auto first =
        std::find_if(rw.begin(), rw.end(), [](const Reweight& r) { return r.time >= 110 * kMs; });
    QVERIFY(first != rw.end());
    QVERIFY2(first->time <= 111 * kMs, qPrintable(QString::number(first->time)));
    QCOMPARE(quint64(first->to), quint64(s / 2)); // L = 1024
    for (auto it = first; it != rw.end(); ++it) {
        const double l = otherLoad(s, it->to);
        QVERIFY2(
            l <= 1025, qPrintable(QStringLiteral("L = %1 at %2 ms").arg(l).arg(it->time / kMs)));
    }
    // newbie did wait (otherwise the test proves nothing).
    const Metrics m = sim.metrics();
    const TaskMetrics* newbie = taskMetrics(m, "newbie");
    QVERIFY(newbie);
    QVERIFY2(newbie->waitMaxNs >= 90 * kMs, qPrintable(QString::number(newbie->waitMaxNs)));
    VERIFY_INVARIANTS(sim);
}

// migrate_task_rq_fair() → remove_entity_load_avg() first decays (sync_entity_load_avg) the
// sleeping task's load to its old cfs_rq's last update; that decayed value leaves CPU 1 and is
// attached on CPU 2. burst's load is ≈ 1024 when it sleeps at 200 ms. CPU 1's /g cfs_rq is then
// blocked and updated only by update_blocked_averages() (§6.6): idle until 250 ms (the NOHZ
// update at 224 ms), busy with the root blocker after that, so only from its balance softirq:
// the first busy tick at 251 ms is due, the next one not before 300 ms (MC of 3 CPUs: interval
// ≥ 3 ms × busy_factor 16). At 251 ms the load has crossed 49 or 50 period boundaries since
// 200 ms: 1024·2^(−49/32) = 354 or 1024·2^(−50/32) = 347, published in tg->load_avg. The
// removal at 300 ms takes that value to CPU 2, where 1 ms of running adds ≈ 21 and CPU 2
// publishes ≈ 350–375; CPU 1 applies the removal only at its next update, so until then its
// stale 347–354 stays in tg->load_avg too. L (the other CPUs' /g load seen from CPU 0) at
// 306 ms ≈ 2 · 347…354 + 0…21 = 694–729; an undecayed load would give ≈ 2048.
void TestGroups::migratedLoadIsDecayed()
{
    const auto scenario = parse(kMigratedLoad);
    QVERIFY(scenario);
    Simulation sim(*scenario);
    sim.run();
    const Recording& rec = sim.recording();
    const auto burst = taskView(sim, "burst");
    QVERIFY(burst);
    QCOMPARE(burst->cpu, 2); // woke on the idle CPU 2
    const double l = otherLoad(2048 * 1024, weightAt(rec, groupRef(rec, "/g", 0), 306 * kMs));
    QVERIFY2(l >= 680 && l <= 740, qPrintable(QString::number(l)));
    VERIFY_INVARIANTS(sim);
}

// --- whole runs ---------------------------------------------------------------------------------

// two-groups-1cpu: /A S = 1024, /B S = 3072; one CPU ⇒ tg->load_avg is this CPU's own
// contribution ⇒ each group entity weighs S ⇒ /A gets 1024/4096 = 25 %, /B 75 %.
void TestGroups::oneCpuOneToThree_data()
{
    QTest::addColumn<QString>("profile");
    for (const char* p : {"6.6", "6.12", "6.13", "7.0", "7.1"})
        QTest::addRow("%s", p) << QString(p);
}

void TestGroups::oneCpuOneToThree()
{
    QFETCH(QString, profile);
    const auto scenario = shipped("two-groups-1cpu.json");
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.run();
    const Metrics m = sim.metrics();
    const double t = double(m.durationNs);
    QCOMPARE(m.durationNs, 20 * kS);
    VERIFY_SHARE(groupCpu(m, "/A") / t, 0.25, 0.01);
    VERIFY_SHARE(groupCpu(m, "/B") / t, 0.75, 0.01);
    VERIFY_SHARE(taskCpu(m, "hog-a") / t, 0.25, 0.01);
    const Recording& rec = sim.recording();
    QCOMPARE(quint64(weightAt(rec, groupRef(rec, "/A", 0), m.durationNs)), quint64(1048576));
    QCOMPARE(quint64(weightAt(rec, groupRef(rec, "/B", 0), m.durationNs)), quint64(3145728));
    VERIFY_INVARIANTS(sim);
}

// two-groups-4cpu (derivation in the scenario's description): /A@0 = 1024, /B@c = 3072·1024/4096
// = 768 (scaled 786432) on every CPU. CPU 0: hog-a 1024/1792 = 4/7, hog-b0 3/7; CPUs 1–3: 1.
// "/B's share" = what its four per-CPU entities get: 3 + 3/7 = 24/7 CPUs = 85.71 % of the
// machine; /A 4/7 CPU = 14.29 % (not the 25 %/75 % of the weights).
void TestGroups::fourCpusPerCpuShares_data()
{
    QTest::addColumn<QString>("profile");
    for (const char* p : {"6.6", "6.12", "6.13", "7.0", "7.1"})
        QTest::addRow("%s", p) << QString(p);
}

void TestGroups::fourCpusPerCpuShares()
{
    QFETCH(QString, profile);
    const auto scenario = shipped("two-groups-4cpu.json");
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.run();
    const Metrics m = sim.metrics();
    const double t = double(m.durationNs);
    VERIFY_SHARE(taskCpu(m, "hog-a") / t, 4.0 / 7, 0.01);
    VERIFY_SHARE(taskCpu(m, "hog-b0") / t, 3.0 / 7, 0.01);
    for (const char* b : {"hog-b1", "hog-b2", "hog-b3"})
        VERIFY_SHARE(taskCpu(m, b) / t, 1.0, 0.001);
    VERIFY_SHARE(groupCpu(m, "/A") / (4 * t), 1.0 / 7, 0.01); // 14.29 % of 4 CPUs
    VERIFY_SHARE(groupCpu(m, "/B") / (4 * t), 6.0 / 7, 0.01); // 85.71 %
    const Recording& rec = sim.recording();
    QCOMPARE(quint64(weightAt(rec, groupRef(rec, "/A", 0), m.durationNs)), quint64(1048576));
    // Each CPU republishes its load only when it moved by more than 1/64 of the published value
    // (§6.3), so tg->load_avg is known to ±3·16 around 4096 as seen from any CPU: /B@c within
    // 786432·48/4096 = 1.2 % of 786432.
    for (int c = 0; c < 4; ++c) {
        const double w = double(weightAt(rec, groupRef(rec, "/B", c), m.durationNs));
        QVERIFY2(near(w, 786432, 0.012), qPrintable(QStringLiteral("/B@%1 = %2").arg(c).arg(w)));
    }
    VERIFY_INVARIANTS(sim);
}

// §13: per cfs_rq h_nr_queued/h_nr_runnable = Σ of the tasks below, Σ w·lag ≈ 0, an eligible
// entity, curr not in the tree, nr_running — checked after every event in SCHEDLAB_CHECKED builds.
void TestGroups::invariantsHold_data()
{
    QTest::addColumn<QString>("scenario"); // file under scenarios/ or "nested"
    QTest::addColumn<QString>("profile");
    QTest::addColumn<qint64>("duration"); // 0 = the scenario's
    for (const char* p : {"6.6", "6.12", "6.13", "7.0", "7.1"}) {
        QTest::addRow("nested %s", p) << "nested" << QString(p) << qint64(0);
        QTest::addRow("two-groups-4cpu %s", p)
            << "two-groups-4cpu.json" << QString(p) << qint64(2 * kS);
        QTest::addRow("migration-affinity %s", p)
            << "migration-affinity.json" << QString(p) << qint64(0);
        QTest::addRow("seed %s", p)
            << "cgroup-weight-starvation.json" << QString(p) << qint64(12 * kS);
    }
}

void TestGroups::invariantsHold()
{
#ifndef SCHEDLAB_CHECKED
    QSKIP("invariants are checked only in SCHEDLAB_CHECKED builds");
#endif
    QFETCH(QString, scenario);
    QFETCH(QString, profile);
    QFETCH(qint64, duration);
    const auto s = scenario == "nested" ? parse(kNested) : shipped(qPrintable(scenario));
    QVERIFY(s);
    RunOptions o = options(profile);
    o.recordSamples = false;
    if (duration)
        o.duration = Nanoseconds(duration);
    Simulation sim(*s, o);
    sim.run();
    VERIFY_INVARIANTS(sim);
    if (scenario == "nested") { // the actions took effect
        QCOMPARE(taskView(sim, "hog-x")->cgroup, std::string("/B"));
        QCOMPARE(taskView(sim, "sleeper-x")->cgroup, std::string("/A/y"));
        QCOMPARE(taskView(sim, "hog-y")->cpu, 0);
        QCOMPARE(int(taskView(sim, "short-y-2")->state), int(TaskState::Exited));
    }
}

// One CPU, so every group entity weighs its S. Before the move /A (1024: a, m) : /B (3072: b) ⇒
// a = m = 25 %/2 = 12.5 %, b = 75 %. After m moves to /B: /A (a) 25 %, /B (b, m) 75 % ⇒
// a = 25 %, b = m = 37.5 %. m's CPU time is charged to /B from the move on, exactly.
void TestGroups::moveAccountsToNewGroup_data()
{
    QTest::addColumn<QString>("profile");
    for (const char* p : {"6.12", "6.13", "7.0", "7.1"})
        QTest::addRow("%s", p) << QString(p);
}

void TestGroups::moveAccountsToNewGroup()
{
    QFETCH(QString, profile);
    const auto scenario = parse(kMove);
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.runUntil(Nanoseconds(1 * kS));
    const Metrics m1 = sim.metrics();
    sim.runUntil(Nanoseconds(5 * kS));
    const Metrics m5 = sim.metrics();
    QCOMPARE(taskView(sim, "m")->cgroup, std::string("/A"));
    sim.runUntil(Nanoseconds(6 * kS));
    const Metrics m6 = sim.metrics();
    QCOMPARE(taskView(sim, "m")->cgroup, std::string("/B"));
    sim.run();
    const Metrics m10 = sim.metrics();

    auto d = [](const Metrics& a, const Metrics& b, const std::string& task) {
        return taskCpu(b, task) - taskCpu(a, task);
    };
    auto dg = [](const Metrics& a, const Metrics& b, const std::string& path) {
        return groupCpu(b, path) - groupCpu(a, path);
    };
    // Before (1–5 s): m belongs to /A.
    QCOMPARE(dg(m1, m5, "/A"), d(m1, m5, "a") + d(m1, m5, "m"));
    QCOMPARE(dg(m1, m5, "/B"), d(m1, m5, "b"));
    VERIFY_SHARE(d(m1, m5, "a") / 4e9, 0.125, 0.01);
    VERIFY_SHARE(d(m1, m5, "m") / 4e9, 0.125, 0.01);
    VERIFY_SHARE(d(m1, m5, "b") / 4e9, 0.75, 0.01);
    // After (6–10 s): m's time goes to /B.
    QCOMPARE(dg(m6, m10, "/A"), d(m6, m10, "a"));
    QCOMPARE(dg(m6, m10, "/B"), d(m6, m10, "b") + d(m6, m10, "m"));
    VERIFY_SHARE(d(m6, m10, "a") / 4e9, 0.25, 0.01);
    VERIFY_SHARE(d(m6, m10, "m") / 4e9, 0.375, 0.01);
    VERIFY_SHARE(d(m6, m10, "b") / 4e9, 0.375, 0.01);
    VERIFY_INVARIANTS(sim);
}

// A cpu.weight write (sched_group_set_shares) reweights /A's entity at once: S_A = round(w·1024/
// 100) against S_B = 3072 on one CPU ⇒ /A's share = S_A/(S_A + 3072).
void TestGroups::setCpuWeightAtRunTime_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<int>("w0");
    QTest::addColumn<int>("w1");
    QTest::addColumn<quint64>("newShares"); // scaled
    QTest::addColumn<double>("before");     // /A's share 1–5 s
    QTest::addColumn<double>("after");      // /A's share 6–10 s
    QTest::addColumn<double>("tol");        // relative

    for (const char* p : {"6.12", "6.13", "7.1"}) {
        // 1024/4096 = 25 % → 9216/(9216 + 3072) = 75 %.
        QTest::addRow("%s 100→900", p)
            << QString(p) << 100 << 900 << quint64(9216) * 1024 << 0.25 << 0.75 << 0.01;
        // 3072/6144 = 50 % → 25 %.
        QTest::addRow("%s 300→100", p)
            << QString(p) << 300 << 100 << quint64(1024) * 1024 << 0.5 << 0.25 << 0.01;
        // 102400/105472 = 97.087 %.
        QTest::addRow("%s 100→10000", p) << QString(p) << 100 << 10000 << quint64(102400) * 1024
                                         << 0.25 << 102400.0 / 105472 << 0.01;
        // 10/3082 = 0.3245 %: 13 ms in 4 s, run in whole ticks of 1 ms ⇒ ±10 %.
        QTest::addRow("%s 100→1", p)
            << QString(p) << 100 << 1 << quint64(10) * 1024 << 0.25 << 10.0 / 3082 << 0.1;
    }
}

void TestGroups::setCpuWeightAtRunTime()
{
    QFETCH(QString, profile);
    QFETCH(int, w0);
    QFETCH(int, w1);
    QFETCH(quint64, newShares);
    QFETCH(double, before);
    QFETCH(double, after);
    QFETCH(double, tol);

    const auto scenario = parse(weightChangeScenario(w0, w1));
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.runUntil(Nanoseconds(1 * kS));
    const Metrics m1 = sim.metrics();
    sim.runUntil(Nanoseconds(5 * kS));
    const Metrics m5 = sim.metrics();
    sim.runUntil(Nanoseconds(6 * kS));
    const Metrics m6 = sim.metrics();
    sim.run();
    const Metrics m10 = sim.metrics();

    const Recording& rec = sim.recording();
    const EntityRef a0 = groupRef(rec, "/A", 0);
    QCOMPARE(quint64(weightAt(rec, a0, 5500 * kMs)), newShares);
    QCOMPARE(quint64(weightAt(rec, a0, 10 * kS)), newShares);
    const double shareBefore = double(groupCpu(m5, "/A") - groupCpu(m1, "/A")) / 4e9;
    const double shareAfter = double(groupCpu(m10, "/A") - groupCpu(m6, "/A")) / 4e9;
    VERIFY_SHARE(shareBefore, before, 0.01);
    VERIFY_SHARE(shareAfter, after, tol);
    VERIFY_INVARIANTS(sim);
}

// /I is written cpu.weight 300 and cpu.idle 1: its shares are 3 (scaled 3072), and on one CPU
// calc_group_shares() gives its entity all of them (tg_weight = its own load; the clamp
// [MIN_SHARES, S] keeps 3072). Against r's 1024·1024: i gets 3072/(3072 + 1048576) = 3/1027 =
// 0.2921 % = 29.2 ms of 10 s. Its entity's vruntime advances 1024/3 times as fast as real time, so
// it runs in whole ticks of 1 ms after about 341 ms of r: ±10 %. cpu.weight reads 1.
void TestGroups::idleGroupAtCreation_data()
{
    addEveryProfile();
}

void TestGroups::idleGroupAtCreation()
{
    QFETCH(QString, profile);
    const auto scenario = parse(kIdleAtCreation);
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.runUntil(Nanoseconds(1 * kS));
    QCOMPARE(cgroupWeight(sim, "/I"), 1);
    sim.run();
    const Metrics m = sim.metrics();
    const Recording& rec = sim.recording();
    QCOMPARE(quint64(weightAt(rec, groupRef(rec, "/I", 0), 10 * kS)), quint64(3072));
    VERIFY_SHARE(taskCpu(m, "i") / 10e9, 3.0 / 1027, 0.1);
    QVERIFY(std::none_of(m.findings.begin(), m.findings.end(),
        [](const Finding& f) { return f.kind == "failed_action"; }));
    VERIFY_INVARIANTS(sim);
}

// enqueue_task_fair(): a task below an idle group's queue counts in h_nr_idle of the queues
// above it (h_nr_idle = 1 after an idle level), so CPU 1, running only i, is sched_idle_cpu()
// (rq->nr_running 1 = rq->cfs.h_nr_idle 1). w's wakeup from its sleep (timer on CPU 0: this CPU
// = prev = 0, no wake_affine()) goes to select_idle_sibling(prev 0, target 0): CPU 0 runs n and
// is not idle; prev = target; no recent CPU (w has not woken before); select_idle_cpu() scans
// the LLC from target + 1 (nr_idle_scan = 3 or 4: the LLC's utilization is about 1100 of 4096,
// §8.2) and takes the first CPU that is idle or sched-idle: CPU 1. Counting only SCHED_IDLE
// tasks, CPU 1 is busy and the scan goes on to the idle CPU 2.
void TestGroups::idleGroupIsSchedIdle_data()
{
    addEveryProfile();
}

void TestGroups::idleGroupIsSchedIdle()
{
    QFETCH(QString, profile);
    const auto scenario = parse(kIdleGroupCpu);
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.run();
    const Recording& rec = sim.recording();
    const EntityRef w = taskRef(rec, "w");
    std::vector<int> wakeCpus;
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Wakeup && r.entity == w)
            wakeCpus.push_back(r.cpu);
    QCOMPARE(wakeCpus.size(), size_t(1));
    QCOMPARE(wakeCpus[0], 1);
    VERIFY_INVARIANTS(sim);
}

// /A (S = 3072) against r (1024) on one CPU:
// 0–2 s: a gets 3072/4096 = 75 %.
// 2 s, cpu.idle 1: S = 3 (scaled 3072): a gets 3/1027 = 0.2921 %, 26.3 ms in 3–12 s (±10 %, whole
//   ticks as in idleGroupAtCreation).
// 5 s, cpu.weight 900: refused (EINVAL, a failed_action finding), S stays 3.
// 12 s, cpu.idle 0: S = NICE_0_LOAD = 1024, not the 3072 of before: a gets 1024/2048 = 50 % in
//   13–14 s (75 % if the old weight came back).
void TestGroups::idleGroupAtRunTime_data()
{
    addEveryProfile();
}

void TestGroups::idleGroupAtRunTime()
{
    QFETCH(QString, profile);
    const auto scenario = parse(kIdleAtRunTime);
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.runUntil(Nanoseconds(1 * kS));
    const Metrics m1 = sim.metrics();
    QCOMPARE(cgroupWeight(sim, "/A"), 300);
    sim.runUntil(Nanoseconds(2 * kS));
    const Metrics m2 = sim.metrics();
    sim.runUntil(Nanoseconds(3 * kS));
    const Metrics m3 = sim.metrics();
    QCOMPARE(cgroupWeight(sim, "/A"), 1);
    sim.runUntil(Nanoseconds(6 * kS));
    QCOMPARE(cgroupWeight(sim, "/A"), 1); // the write at 5 s changed nothing
    sim.runUntil(Nanoseconds(12 * kS) - Nanoseconds(1));
    const Metrics m12 = sim.metrics();
    sim.runUntil(Nanoseconds(13 * kS));
    const Metrics m13 = sim.metrics();
    QCOMPARE(cgroupWeight(sim, "/A"), 100);
    sim.run();
    const Metrics m14 = sim.metrics();

    const Recording& rec = sim.recording();
    const EntityRef a0 = groupRef(rec, "/A", 0);
    QCOMPARE(quint64(weightAt(rec, a0, 1900 * kMs)), quint64(3072) * 1024);
    QCOMPARE(quint64(weightAt(rec, a0, 3 * kS)), quint64(3072));
    QCOMPARE(quint64(weightAt(rec, a0, 11 * kS)), quint64(3072));
    QCOMPARE(quint64(weightAt(rec, a0, 14 * kS)), quint64(1048576));

    auto share = [](const Metrics& from, const Metrics& to, double seconds) {
        return double(taskCpu(to, "a") - taskCpu(from, "a")) / (seconds * 1e9);
    };
    VERIFY_SHARE(share(m1, m2, 1), 0.75, 0.01);
    VERIFY_SHARE(share(m3, m12, 9), 3.0 / 1027, 0.1);
    VERIFY_SHARE(share(m13, m14, 1), 0.5, 0.01);

    std::vector<Finding> failed;
    for (const Finding& f : m14.findings)
        if (f.kind == "failed_action")
            failed.push_back(f);
    QCOMPARE(failed.size(), size_t(1));
    QCOMPARE(failed[0].fromNs, 5 * kS);
    QCOMPARE(QString::fromStdString(failed[0].detail),
        QString("write 900 > /A/cpu.weight: EINVAL (the group is idle: cpu.idle 1 keeps its "
                "weight at 3, cpu.weight reads 1)"));
    VERIFY_INVARIANTS(sim);
}

// migration-affinity (S10): the saved lag vl (place record, c) and the live lag V − v right
// after joining the other CPU (the enqueue's sample) agree: placement inflates vl by (W + w)/W,
// and adding the entity moves V back by exactly that factor (§4.2). hopper moves itself (the
// `cpus` op, running → stopper path) twice, mover is moved by the `set` action at 6 s. CPU time
// (derivation in the scenario): hog-0, mover, hopper 4.333 s, hog-1 7 s.
void TestGroups::migrationKeepsLag_data()
{
    QTest::addColumn<QString>("profile");
    for (const char* p : {"6.6", "6.12", "6.13", "7.0", "7.1"})
        QTest::addRow("%s", p) << QString(p);
}

void TestGroups::migrationKeepsLag()
{
    QFETCH(QString, profile);
    const auto scenario = shipped("migration-affinity.json");
    QVERIFY(scenario);
    Simulation sim(*scenario, options(profile));
    sim.run();
    const Recording& rec = sim.recording();
    const auto& rs = rec.records();
    int checked = 0;
    int nonZero = 0;
    for (const char* name : {"mover", "hopper"}) {
        const EntityRef who = taskRef(rec, name);
        for (size_t i = 0; i < rs.size(); ++i) {
            if (rs[i].kind != RecordKind::Migrate || rs[i].entity != who)
                continue;
            const int to = int(rs[i].payload.generic.b);
            // The placement on the new CPU, then the sample that follows its enqueue.
            size_t j = i + 1;
            while (j < rs.size() && !(rs[j].kind == RecordKind::Place && rs[j].entity == who))
                ++j;
            QVERIFY(j < rs.size());
            QCOMPARE(int(rs[j].cpu), to);
            const int64_t saved = rs[j].payload.generic.c;
            while (j < rs.size() && !(rs[j].kind == RecordKind::Enqueue && rs[j].entity == who))
                ++j;
            while (j < rs.size() && !(rs[j].kind == RecordKind::Sample && rs[j].entity == who))
                ++j;
            QVERIFY(j < rs.size());
            const int64_t live = rs[j].payload.sample.vlag;
            QVERIFY2(std::abs(live - saved) <= 1,
                qPrintable(QStringLiteral("%1 at %2: saved %3, after %4")
                               .arg(name)
                               .arg(rs[i].time)
                               .arg(saved)
                               .arg(live)));
            ++checked;
            nonZero += saved != 0;
        }
    }
    QCOMPARE(checked, 3);
    QVERIFY(nonZero >= 2);

    const Metrics m = sim.metrics();
    QCOMPARE(taskMetrics(m, "mover")->migrations, 1);
    QCOMPARE(taskMetrics(m, "hopper")->migrations, 2);
    QCOMPARE(taskView(sim, "mover")->cpu, 1);
    QCOMPARE(taskView(sim, "hopper")->cpu, 0);
    const double t = double(m.durationNs);
    for (const char* name : {"hog-0", "mover", "hopper"})
        VERIFY_SHARE(taskCpu(m, name) / t, 0.43333, 0.01);
    VERIFY_SHARE(taskCpu(m, "hog-1") / t, 0.7, 0.01);
    VERIFY_INVARIANTS(sim);
}

QTEST_APPLESS_MAIN(TestGroups)
#include "tst_groups.moc"
