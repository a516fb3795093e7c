// SPDX-License-Identifier: GPL-2.0-or-later
// The deadline class (SCHED_DEADLINE, kernel-model.md §15). Every expected value is derived by
// hand in the comments: HZ = 1000 (ticks every 1 ms), one CPU unless said otherwise. A periodic
// DL task is written the SCHED_DEADLINE way, `loop { run C; yield }`: sched_yield() gives up the
// rest of the budget until the next period (§15.4).
//
// The core headers come before <QTest>: Qt's `forever` macro would mangle DurationSpec::forever.
#ifndef Q_MOC_RUN
#include "core/dl/dlclass.h"
#include "core/dl/dlparams.h"
#include "core/record/metrics.h"
#include "core/rt/dlserver.h"
#include "core/scenario/scenarioio.h"
#include "core/sched/rq.h"
#include "core/sim/simulation.h"
#include "core/workload/task.h"
#include "support/fakemachine.h"
#endif

#include <QTest>

#include <cerrno>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace schedlab;
using schedlab::test::FakeMachine;

class TestDeadline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fixedPoint();
    void checkParams_data();
    void checkParams();
    void admissionOnFakeMachine();
    void grubFormula();
    void edfHyperperiod();
    void overrunThrottlesAndMisses();
    void admissionRefusesThird();
    void grubOnOff_data();
    void grubOnOff();
    void grubFairServerActive_data();
    void grubFairServerActive();
    void grubFairServerZeroLag();
    void preemptsRtAndFair();
    void fairServerAgainstDl();
    void twoCpus();
    void revisedWakeup();
    void scenarioErrors_data();
    void scenarioErrors();
    void scenarioRoundTrip();
};

namespace {

constexpr int64_t kMs = 1000000;

std::optional<Scenario> parse(const std::string& json)
{
    LoadResult r = parseScenario(json, "tst_deadline");
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    return r.scenario;
}

struct Run
{
    Metrics metrics;
    /// (time, previous task, next task) of every Switch record; -1 is idle.
    std::vector<std::tuple<int64_t, int, int>> switches;
};

Run run(const std::string& json, const std::string& profile = "6.12",
    std::optional<int64_t> until = std::nullopt)
{
    auto s = parse(json);
    if (!s)
        qFatal("scenario does not load");
    RunOptions o;
    o.profile = profile;
    Simulation sim(*s, o);
    if (until)
        sim.runUntil(Nanoseconds(*until));
    else
        sim.run();
    Run out;
    out.metrics = sim.metrics();
    for (const Record& r : sim.recording().records())
        if (r.kind == RecordKind::Switch)
            out.switches.emplace_back(r.time, r.entity.valid() ? int(r.entity.taskIndex()) : -1,
                int(r.payload.generic.a));
    if (!sim.invariantViolations().empty())
        qWarning("%s", sim.invariantViolations().front().c_str());
    return out;
}

const TaskMetrics& task(const Metrics& m, const std::string& name)
{
    for (const auto& t : m.tasks)
        if (t.name == name)
            return t;
    qFatal("no task %s", name.c_str());
}

std::vector<Finding> findings(const Metrics& m, const std::string& kind)
{
    std::vector<Finding> out;
    for (const auto& f : m.findings)
        if (f.kind == kind)
            out.push_back(f);
    return out;
}

} // namespace

void TestDeadline::fixedPoint()
{
    // to_ratio(P, Q) = (Q << 20) / P, truncated (§15.1, §15.2).
    QCOMPARE(dlBandwidth({10 * kMs, 30 * kMs, 30 * kMs, 0}), uint64_t(349525));      // 349525.33
    QCOMPARE(dlBandwidth({20 * kMs, 50 * kMs, 0, 0}), uint64_t(419430));             // 419430.4
    QCOMPARE(dlBandwidth({8 * kMs, 40 * kMs, 0, 0}), uint64_t(209715));              // 209715.2
    QCOMPARE(dlToRatio(kFairServerPeriodNs, kFairServerRuntimeNs), uint64_t(52428)); // 52428.8
    QCOMPARE(dlDensity({2 * kMs, 10 * kMs, 20 * kMs, 0}), uint64_t(209715));
}

void TestDeadline::checkParams_data()
{
    const qint64 ms = 1000000;
    QTest::addColumn<qint64>("runtime");
    QTest::addColumn<qint64>("deadline");
    QTest::addColumn<qint64>("period");
    QTest::addColumn<bool>("valid");
    // __checkparam_dl() (§15.1).
    QTest::newRow("implicit") << 10 * ms << 30 * ms << qint64(0) << true;
    QTest::newRow("constrained") << 2 * ms << 10 * ms << 20 * ms << true;
    QTest::newRow("runtime 1024 ns") << qint64(1024) << ms << ms << true;
    QTest::newRow("runtime 1023 ns") << qint64(1023) << ms << ms << false;
    QTest::newRow("deadline 0") << ms << qint64(0) << ms << false;
    QTest::newRow("runtime > deadline") << 11 * ms << 10 * ms << 20 * ms << false;
    QTest::newRow("deadline > period") << ms << 30 * ms << 20 * ms << false;
    QTest::newRow("period 99 us") << qint64(50000) << qint64(99000) << qint64(99000) << false;
    QTest::newRow("period 4.2 s") << ms << 4195 * ms << 4195 * ms << false;
}

void TestDeadline::checkParams()
{
    QFETCH(qint64, runtime);
    QFETCH(qint64, deadline);
    QFETCH(qint64, period);
    QFETCH(bool, valid);
    QCOMPARE(checkDlParams({runtime, deadline, period, 0}).empty(), valid);
}

void TestDeadline::admissionOnFakeMachine()
{
    // One CPU: cap = 996147; with the fair server (52428) 10/30 and 20/50 fit (821383), 8/40
    // does not (1031098); without the server (6.6) it does (978670). Runtime 512 ns: EINVAL.
    for (const bool server : {true, false}) {
        FakeMachine m(1);
        DlClass dl(m, server);
        Task& a = m.addTask(0, Policy::Deadline);
        Task& b = m.addTask(0, Policy::Deadline);
        Task& c = m.addTask(0, Policy::Deadline);
        Task& d = m.addTask(0, Policy::Deadline);
        std::string why;
        QCOMPARE(dl.setAttr(d, {512, kMs, kMs, 0}, &why), -EINVAL);
        QCOMPARE(dl.setAttr(a, {10 * kMs, 30 * kMs, 30 * kMs, 0}, &why), 0);
        QCOMPARE(dl.setAttr(b, {20 * kMs, 50 * kMs, 50 * kMs, 0}, &why), 0);
        QCOMPARE(dl.totalBw(), uint64_t(server ? 821383 : 768955));
        QCOMPARE(dl.setAttr(c, {8 * kMs, 40 * kMs, 40 * kMs, 0}, &why), server ? -EBUSY : 0);
        QCOMPARE(dl.maxBw(), uint64_t(996147));
    }
}

void TestDeadline::grubFormula()
{
    // §15.6 example: one CPU, server admitted, a 10/30 task active: u_act = 349525, scaled by
    // bw_ratio 269: 349525 · 269 >> 8 = 367274; 1 ms costs (10^6 · 367274) >> 20 = 350259 ns.
    FakeMachine m(1);
    DlClass dl(m, true);
    Task& a = m.addTask(0, Policy::Deadline);
    QCOMPARE(dl.setAttr(a, {10 * kMs, 30 * kMs, 30 * kMs, kDlFlagReclaim}, nullptr), 0);
    QCOMPARE(dl.bwRatio(), uint64_t(269));
    QCOMPARE(dl.extraBw(), int64_t(996147 - 52428 - 349525));
    DlRq rq;
    rq.thisBw = 349525 + 52428;
    rq.runningBw = 349525;
    QCOMPARE(dl.grubReclaim(kMs, rq, a.dl), int64_t(350259));
    // Alone and inactive bandwidth 0 (no server, 6.6): the same u_act (the branch is at its
    // boundary: u_inact + extra_bw = 646622 = max_bw − dl_bw).
    FakeMachine m2(1);
    DlClass dl2(m2, false);
    Task& b = m2.addTask(0, Policy::Deadline);
    QCOMPARE(dl2.setAttr(b, {10 * kMs, 30 * kMs, 30 * kMs, kDlFlagReclaim}, nullptr), 0);
    DlRq rq2;
    rq2.thisBw = rq2.runningBw = 349525;
    QCOMPARE(dl2.grubReclaim(kMs, rq2, b.dl), int64_t(350259));
}

void TestDeadline::edfHyperperiod()
{
    // 10/30 (t1) and 20/50 (t2), both released at 0, each job exactly its runtime. EDF by hand
    // over the hyperperiod of 150 ms:
    //   0 t1 (d 30) · 10 t2 (d 50) · 30 t1 (d 60) · 40 idle · 50 t2 (d 100) · 60 t1 (d 90 < 100
    //   preempts) · 70 t2 (its last 10 ms) · 80 idle · 90 t1 (d 120) · 100 t2 (d 150) · 120 t1
    //   (d 150, queued after t2) · 130 idle.
    // t1: 5 jobs of 10 ms; t2: 3 jobs, responses 30, 30, 20 ms. No miss, no throttle while work
    // was left (each budget ends exactly at the yield).
    const std::string json = R"({ "schedlab": 1, "name": "edf", "duration": "150ms",
        "machine": { "cpus": 1 },
        "tasks": [
          { "name": "t1", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
            "period": "30ms", "program": [ { "loop": [ { "run": "10ms" }, { "yield": true } ] } ] },
          { "name": "t2", "policy": "deadline", "runtime": "20ms", "deadline": "50ms",
            "program": [ { "loop": [ { "run": "20ms" }, { "yield": true } ] } ] } ] })";
    for (const char* profile : {"6.6", "6.12", "7.1"}) {
        const Run r = run(json, profile);
        const std::vector<std::tuple<int64_t, int, int>> expected{{0, -1, 0}, {10 * kMs, 0, 1},
            {30 * kMs, 1, 0}, {40 * kMs, 0, -1}, {50 * kMs, -1, 1}, {60 * kMs, 1, 0},
            {70 * kMs, 0, 1}, {80 * kMs, 1, -1}, {90 * kMs, -1, 0}, {100 * kMs, 0, 1},
            {120 * kMs, 1, 0}, {130 * kMs, 0, -1}};
        std::vector<std::tuple<int64_t, int, int>> got;
        for (const auto& s : r.switches)
            if (std::get<0>(s) < 150 * kMs)
                got.push_back(s);
        QVERIFY2(got == expected, profile);
        const TaskMetrics& t1 = task(r.metrics, "t1");
        const TaskMetrics& t2 = task(r.metrics, "t2");
        QCOMPARE(t1.cpuTimeNs, 50 * kMs);
        QCOMPARE(t2.cpuTimeNs, 60 * kMs);
        QVERIFY(t1.deadline && t2.deadline);
        QCOMPARE(t1.deadline->jobs, int64_t(5));
        QCOMPARE(t2.deadline->jobs, int64_t(3));
        QCOMPARE(t1.deadline->worstResponseNs, 10 * kMs);
        QCOMPARE(t2.deadline->worstResponseNs, 30 * kMs);
        QCOMPARE(t1.deadline->misses + t2.deadline->misses, int64_t(0));
        QCOMPARE(t1.deadline->throttles + t2.deadline->throttles, int64_t(0));
        QVERIFY(findings(r.metrics, "dl_miss").empty());
        QVERIFY(findings(r.metrics, "failed_action").empty());
    }
}

void TestDeadline::overrunThrottlesAndMisses()
{
    // A 10/30 reservation whose jobs need 15 ms, beside a fair hog. 0: d 30, runs; the tick at
    // 10 finds runtime 0: throttled with 5 ms left (dl_throttle at 10 ms), timer at 30 − 30 + 30.
    // 30: replenished (d 60, 10 ms), runs 30–35 and yields: the job woken at 0 ends at 35, 5 ms
    // after its deadline 30 (dl_miss from 30 ms for 5 ms); the yield waits for 60. 60: the next
    // job, the same: throttled at 70, miss from 90 for 5 ms, yield at 95. Over 120 ms: 2 jobs, 2
    // misses, 2 throttles, 30 ms of CPU; the fair hog gets the other 90 ms.
    const std::string json = R"({ "schedlab": 1, "name": "overrun", "duration": "120ms",
        "machine": { "cpus": 1 },
        "tasks": [
          { "name": "dl", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
            "program": [ { "loop": [ { "run": "15ms" }, { "yield": true } ] } ] },
          { "name": "hog", "program": [ { "run": "forever" } ] } ] })";
    const Run r = run(json);
    const TaskMetrics& dl = task(r.metrics, "dl");
    QCOMPARE(dl.cpuTimeNs, 30 * kMs);
    QCOMPARE(task(r.metrics, "hog").cpuTimeNs, 90 * kMs);
    QCOMPARE(dl.deadline->jobs, int64_t(2));
    QCOMPARE(dl.deadline->misses, int64_t(2));
    QCOMPARE(dl.deadline->throttles, int64_t(2));
    QCOMPARE(dl.deadline->worstResponseNs, 35 * kMs);
    const auto throttles = findings(r.metrics, "dl_throttle");
    QCOMPARE(throttles.size(), size_t(2));
    QCOMPARE(throttles[0].fromNs, 10 * kMs);
    QCOMPARE(throttles[1].fromNs, 70 * kMs);
    const auto misses = findings(r.metrics, "dl_miss");
    QCOMPARE(misses.size(), size_t(2));
    QCOMPARE(misses[0].fromNs, 30 * kMs);
    QCOMPARE(misses[0].durationNs, 5 * kMs);
    QCOMPARE(misses[1].fromNs, 90 * kMs);
    QCOMPARE(misses[1].durationNs, 5 * kMs);
}

void TestDeadline::admissionRefusesThird()
{
    // §15.2: 8/40 after 10/30 and 20/50 on one CPU: EBUSY on 6.12 (fair server counted), and
    // the task runs SCHED_NORMAL; admitted on 6.6. There U = 1/3 + 2/5 + 1/5 = 14/15 ≤ 1, so EDF
    // misses nothing over the hyperperiod lcm(30, 50, 40) = 600 ms: t3 runs 15 jobs of 8 ms.
    const std::string json = R"({ "schedlab": 1, "name": "admit", "duration": "600ms",
        "machine": { "cpus": 1 },
        "tasks": [
          { "name": "t1", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
            "program": [ { "loop": [ { "run": "10ms" }, { "yield": true } ] } ] },
          { "name": "t2", "policy": "deadline", "runtime": "20ms", "deadline": "50ms",
            "program": [ { "loop": [ { "run": "20ms" }, { "yield": true } ] } ] },
          { "name": "t3", "policy": "deadline", "runtime": "8ms", "deadline": "40ms",
            "program": [ { "loop": [ { "run": "8ms" }, { "yield": true } ] } ] } ] })";
    const Run refused = run(json, "6.12");
    const auto failed = findings(refused.metrics, "failed_action");
    QCOMPARE(failed.size(), size_t(1));
    QCOMPARE(failed[0].task, std::string("t3"));
    QVERIFY(failed[0].detail.find("EBUSY") != std::string::npos);
    QVERIFY(failed[0].detail.find("821383 + 209715 exceeds 996147") != std::string::npos);
    QVERIFY(!task(refused.metrics, "t3").deadline);
    QCOMPARE(task(refused.metrics, "t1").cpuTimeNs, 200 * kMs);
    // Two CPUs, a DL task pinned to CPU 1: its affinity does not span the root domain: EPERM.
    const Run pinned = run(R"({ "schedlab": 1, "name": "pin", "duration": "10ms",
        "machine": { "cpus": 2 },
        "tasks": [ { "name": "p", "policy": "deadline", "runtime": "1ms", "deadline": "10ms",
                     "cpus": "1", "program": [ { "run": "forever" } ] } ] })");
    const auto eperm = findings(pinned.metrics, "failed_action");
    QCOMPARE(eperm.size(), size_t(1));
    QVERIFY(eperm[0].detail.find("EPERM") != std::string::npos);
    QCOMPARE(task(pinned.metrics, "p").cpuTimeNs, 10 * kMs); // SCHED_NORMAL, alone on CPU 1
    const Run admitted = run(json, "6.6");
    QVERIFY(findings(admitted.metrics, "failed_action").empty());
    const TaskMetrics& t3 = task(admitted.metrics, "t3");
    QVERIFY(t3.deadline);
    QCOMPARE(t3.cpuTimeNs, 120 * kMs);
    QCOMPARE(t3.deadline->jobs, int64_t(15));
    for (const char* name : {"t1", "t2", "t3"})
        QCOMPARE(task(admitted.metrics, name).deadline->misses, int64_t(0));
}

void TestDeadline::grubOnOff_data()
{
    QTest::addColumn<QString>("profile");
    QTest::newRow("6.6") << "6.6";
    QTest::newRow("6.12") << "6.12";
}

void TestDeadline::grubOnOff()
{
    // A 10/30 task that never blocks, alone. Without the flag it runs 10 ms per period (the tick
    // at 10 finds runtime 0): 30 ms in 90 ms. With SCHED_FLAG_RECLAIM 1 ms costs 350259 ns
    // (grubFormula, both profiles): period 1: 28 ticks leave 192748, the 29th −157511: throttled
    // at 29; replenished at 30 to 9842489; period 2: 28 ticks leave 35237, 29 → −315022,
    // throttled at 59; at 60 9684978; period 3: 28 ticks → −122274, throttled at 88.
    // 29 + 29 + 28 = 86 ms.
    QFETCH(QString, profile);
    const std::string base = R"({ "schedlab": 1, "name": "grub", "duration": "90ms",
        "machine": { "cpus": 1 },
        "tasks": [ { "name": "dl", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
                     FLAGS "program": [ { "run": "forever" } ] } ] })";
    auto with = [&](const std::string& flags) {
        std::string s = base;
        s.replace(s.find("FLAGS"), 5, flags);
        return s;
    };
    const Run off = run(with(""), profile.toStdString());
    QCOMPARE(task(off.metrics, "dl").cpuTimeNs, 30 * kMs);
    QCOMPARE(task(off.metrics, "dl").deadline->throttles, int64_t(3));
    const Run on = run(with(R"("flags": ["reclaim"],)"), profile.toStdString());
    QCOMPARE(task(on.metrics, "dl").cpuTimeNs, 86 * kMs);
    const auto throttles = findings(on.metrics, "dl_throttle");
    QCOMPARE(throttles.size(), size_t(3));
    QCOMPARE(throttles[0].fromNs, 29 * kMs);
    QCOMPARE(throttles[1].fromNs, 59 * kMs);
    QCOMPARE(throttles[2].fromNs, 88 * kMs);
}

void TestDeadline::grubFairServerActive_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<int64_t>("dlMs");
    QTest::addColumn<QList<int64_t>>("throttledAt");
    // 6.6 has no fair server: grubOnOff's 29 + 29 + 28 ms.
    QTest::newRow("6.6") << "6.6" << int64_t(86) << QList<int64_t>{29, 59, 88};
    // 6.12: the fair hog keeps the server started, so its 52428 is in running_bw too
    // (kernel-model.md §15.6): this_bw = running_bw = 349525 + 52428 = 401953, u_inact = 0,
    // extra_bw = 996147 − 52428 − 349525 = 594194; 594194 > 996147 − 349525 = 646622 is false,
    // so u_act = 996147 − 0 − 594194 = 401953, scaled 401953 · 269 >> 8 = 422364; 1 ms costs
    // (10^6 · 422364) >> 20 = 402797 ns. 24 ticks use 9667128 of 10 ms, the 25th goes to
    // −69925: throttled at 25; replenished at 30 to 9930075: 24 ticks leave 262947, the 25th
    // −139850, throttled at 55; at 60 9860150: throttled at 85. 25 + 25 + 25 = 75 ms.
    QTest::newRow("6.12") << "6.12" << int64_t(75) << QList<int64_t>{25, 55, 85};
}

void TestDeadline::grubFairServerActive()
{
    // A reclaiming 10/30 DL task that never blocks beside a fair hog, 90 ms on one CPU.
    QFETCH(QString, profile);
    QFETCH(int64_t, dlMs);
    QFETCH(QList<int64_t>, throttledAt);
    const std::string json = R"({ "schedlab": 1, "name": "grub-fair", "duration": "90ms",
        "machine": { "cpus": 1 },
        "tasks": [ { "name": "dl", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
                     "flags": ["reclaim"], "program": [ { "run": "forever" } ] },
                   { "name": "hog", "program": [ { "run": "forever" } ] } ] })";
    const Run r = run(json, profile.toStdString());
    QCOMPARE(task(r.metrics, "dl").cpuTimeNs, dlMs * kMs);
    QCOMPARE(task(r.metrics, "hog").cpuTimeNs, (90 - dlMs) * kMs);
    const auto throttles = findings(r.metrics, "dl_throttle");
    QCOMPARE(throttles.size(), size_t(throttledAt.size()));
    for (qsizetype i = 0; i < throttledAt.size(); ++i)
        QCOMPARE(throttles[size_t(i)].fromNs, throttledAt[i] * kMs);
}

void TestDeadline::grubFairServerZeroLag()
{
    // 6.12, one CPU. A fair task runs 4.33 ms and sleeps for good; a reclaiming 10/30 DL task
    // that never blocks starts at 10 ms. The fair task's enqueue at 0 starts the server (its
    // deadline 1000 ms, runtime 50 ms, 52428 in running_bw); its 4.33 ms consume the server's
    // runtime to 45.67 ms; at its block dl_server_stop() finds the 0-lag time
    // 1000 − 45.67 · (1000 / 50) = 86.6 ms still ahead: the server stays in running_bw until
    // then (kernel-model.md §15.6). Until 86.6 ms 1 ms of DL costs 402797 ns
    // (grubFairServerActive), after it 350259 (grubFormula: u_inact = 52428).
    // [10, 40): 24 ticks leave 332872, the 25th −69925: throttled at 35. 40: 9930075, throttled
    // at 65. 70: 9860150; 16 ticks to 86 use 6444752 (3415398 left); from 87 at 350259 (the
    // 0.6 ms before 86.6 at 402797 would give the same ticks): 8.7 ticks, throttled at 96.
    // 100: 9912808 − 28 · 350259 = 105556, the 29th tick: throttled at 129.
    // Had the server left running_bw at the block: throttled at 39, 69, 98, 128; had it stayed:
    // 35, 65, 95, 125.
    const std::string json = R"({ "schedlab": 1, "name": "grub-zerolag", "duration": "130ms",
        "machine": { "cpus": 1 },
        "tasks": [ { "name": "dl", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
                     "flags": ["reclaim"], "start": "10ms", "program": [ { "run": "forever" } ] },
                   { "name": "fair", "program": [ { "run": "4330us" }, { "sleep": "10s" } ] } ] })";
    const Run r = run(json, "6.12");
    QCOMPARE(task(r.metrics, "fair").cpuTimeNs, int64_t(4330000));
    const auto throttles = findings(r.metrics, "dl_throttle");
    QCOMPARE(throttles.size(), size_t(4));
    QCOMPARE(throttles[0].fromNs, 35 * kMs);
    QCOMPARE(throttles[1].fromNs, 65 * kMs);
    QCOMPARE(throttles[2].fromNs, 96 * kMs);
    QCOMPARE(throttles[3].fromNs, 129 * kMs);
    QCOMPARE(task(r.metrics, "dl").cpuTimeNs, (25 + 25 + 26 + 29) * kMs);
}

void TestDeadline::preemptsRtAndFair()
{
    // A FIFO 99 task sleeps 7 ms then spins; a fair hog; a 10/100 DL task starts at 5 ms.
    // 0–5 fair (RT asleep, no DL yet); 5: the DL task preempts the fair hog; 7: the RT wakeup
    // does not preempt DL; 15: DL yields, RT runs; 105: DL's next period preempts RT; 115 RT.
    // Over 200 ms: DL 20, RT 175, fair 5 ms.
    const std::string json = R"({ "schedlab": 1, "name": "pre", "duration": "200ms",
        "machine": { "cpus": 1 },
        "tasks": [
          { "name": "rt", "policy": "fifo", "rt_priority": 99,
            "program": [ { "sleep": "7ms" }, { "run": "forever" } ] },
          { "name": "fair", "program": [ { "run": "forever" } ] },
          { "name": "dl", "policy": "deadline", "runtime": "10ms", "deadline": "100ms",
            "start": "5ms", "program": [ { "loop": [ { "run": "10ms" }, { "yield": true } ] } ] } ] })";
    const Run r = run(json);
    QCOMPARE(task(r.metrics, "dl").cpuTimeNs, 20 * kMs);
    QCOMPARE(task(r.metrics, "rt").cpuTimeNs, 175 * kMs);
    QCOMPARE(task(r.metrics, "fair").cpuTimeNs, 5 * kMs);
    // Its waits: woken at 7, runs at 15 (8 ms); preempted by DL 105–115 (10 ms).
    QCOMPARE(task(r.metrics, "rt").waitMaxNs, 10 * kMs);
    // (At 0 the RT task runs first and goes to sleep at once.)
    const std::vector<std::tuple<int64_t, int, int>> expected{{0, -1, 0}, {0, 0, -1}, {0, -1, 1},
        {5 * kMs, 1, 2}, {15 * kMs, 2, 0}, {105 * kMs, 0, 2}, {115 * kMs, 2, 0}};
    QVERIFY(r.switches == expected);
}

void TestDeadline::fairServerAgainstDl()
{
    // 6.12, a fair hog and a DL hog. The fair server (50 ms / 1 s, defer) arms its zero-laxity
    // timer at 950 ms when the DL task starves the fair one at 0; it then runs with its
    // period's end, 1 s, as deadline (§15.3).
    // A: DL 1500 ms / 2 s (deadline 2 s): the server's 1 s is earlier: fair runs 950–1000.
    //    DL then has 550 ms left: runs 1000–1550, throttled until 2 s; fair 1550–2000.
    //    At 1 s fair has 50 ms; at 2 s fair 500, DL 1500.
    // B: DL 1 s / 1 s / 2 s (deadline 1 s, not later than the server's): the server declines,
    //    DL runs 0–1000 and is throttled until 2 s; fair 0 at 1 s, 1000 ms at 2 s.
    const std::string a = R"({ "schedlab": 1, "name": "srv", "duration": "2s",
        "machine": { "cpus": 1 },
        "tasks": [ { "name": "fair", "program": [ { "run": "forever" } ] },
          { "name": "dl", "policy": "deadline", "runtime": "1500ms", "deadline": "2s",
            "program": [ { "run": "forever" } ] } ] })";
    const std::string b = R"({ "schedlab": 1, "name": "srv", "duration": "2s",
        "machine": { "cpus": 1 },
        "tasks": [ { "name": "fair", "program": [ { "run": "forever" } ] },
          { "name": "dl", "policy": "deadline", "runtime": "1s", "deadline": "1s",
            "period": "2s", "program": [ { "run": "forever" } ] } ] })";
    QCOMPARE(task(run(a, "6.12", 1000 * kMs).metrics, "fair").cpuTimeNs, 50 * kMs);
    const Run ra = run(a, "6.12");
    QCOMPARE(task(ra.metrics, "fair").cpuTimeNs, 500 * kMs);
    QCOMPARE(task(ra.metrics, "dl").cpuTimeNs, 1500 * kMs);
    QCOMPARE(task(run(b, "6.12", 1000 * kMs).metrics, "fair").cpuTimeNs, int64_t(0));
    const Run rb = run(b, "6.12");
    QCOMPARE(task(rb.metrics, "fair").cpuTimeNs, 1000 * kMs);
    QCOMPARE(task(rb.metrics, "dl").cpuTimeNs, 1000 * kMs);
}

void TestDeadline::twoCpus()
{
    // Two CPUs, three 10/30 tasks created on CPU 0 in order a, b, c, and a fair hog. a runs on
    // CPU 0; b would not preempt a (equal deadlines), so select_task_rq_dl() sends it to CPU 1,
    // which has no DL task (find_later_rq(), §15.7); for c neither CPU has a later deadline: it
    // waits on CPU 0 and runs 10–20 ms. Every period repeats this: each task 10 ms per 30 ms,
    // c's response 20 ms, no miss; one migration (b, by the deadline class).
    const std::string json = R"({ "schedlab": 1, "name": "two", "duration": "90ms",
        "machine": { "cpus": 2 },
        "tasks": [
          { "name": "a", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
            "program": [ { "loop": [ { "run": "10ms" }, { "yield": true } ] } ] },
          { "name": "b", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
            "program": [ { "loop": [ { "run": "10ms" }, { "yield": true } ] } ] },
          { "name": "c", "policy": "deadline", "runtime": "10ms", "deadline": "30ms",
            "program": [ { "loop": [ { "run": "10ms" }, { "yield": true } ] } ] },
          { "name": "hog", "program": [ { "run": "forever" } ] } ] })";
    const Run r = run(json);
    for (const char* name : {"a", "b", "c"}) {
        QCOMPARE(task(r.metrics, name).cpuTimeNs, 30 * kMs);
        QCOMPARE(task(r.metrics, name).deadline->misses, int64_t(0));
    }
    QCOMPARE(task(r.metrics, "c").deadline->worstResponseNs, 20 * kMs);
    QCOMPARE(task(r.metrics, "b").migrationsByReason.at("dl"), int64_t(1));
    QCOMPARE(task(r.metrics, "hog").cpuTimeNs, 60 * kMs);
}

void TestDeadline::revisedWakeup()
{
    // Constrained 2/10/20 ms, `loop { run 1ms; sleep 8ms }`, beside a fair hog (§15.5).
    // 0: d 10, r 2 ms; runs 0–1 (r 1 ms), sleeps to 9. Wakeup at 9: deadline 10 not passed;
    // dl_entity_overflow: left = (10^7 >> 10)·(10^6 >> 10) = 9765 · 976 = 9530640, right =
    // (10^6 >> 10)·(2·10^6 >> 10) = 976 · 1953 = 1906128 < left: overflow; constrained, so the
    // revised rule: r = 209715 · 10^6 >> 20 = 199999 ns, d stays 10. It runs 9–10: at its block
    // r = −800001: throttled (the timer at 10 − 10 + 20 = 20). The wakeup at 18 finds it
    // throttled: it runs only at 20 (replenished: r = 1199999, d = 30), to 21: response 3 ms.
    // (Without the revised rule it would have had d = 19, r = 2 ms at 9 and run at 18.)
    const std::string json = R"({ "schedlab": 1, "name": "rev", "duration": "22ms",
        "machine": { "cpus": 1 },
        "tasks": [ { "name": "hog", "program": [ { "run": "forever" } ] },
          { "name": "dl", "policy": "deadline", "runtime": "2ms", "deadline": "10ms",
            "period": "20ms", "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "8ms" } ] } ] } ] })";
    const Run r = run(json);
    // (The hog is created first: it is switched in at 0 before the DL task preempts it.)
    const std::vector<std::tuple<int64_t, int, int>> expected{{0, -1, 0}, {0, 0, 1},
        {1 * kMs, 1, 0}, {9 * kMs, 0, 1}, {10 * kMs, 1, 0}, {20 * kMs, 0, 1}, {21 * kMs, 1, 0}};
    QVERIFY(r.switches == expected);
    const TaskMetrics& dl = task(r.metrics, "dl");
    QCOMPARE(dl.deadline->jobs, int64_t(3));
    QCOMPARE(dl.deadline->worstResponseNs, 3 * kMs);
    QCOMPARE(dl.deadline->misses, int64_t(0));
}

void TestDeadline::scenarioErrors_data()
{
    QTest::addColumn<QString>("fields");
    QTest::addColumn<QString>("error");
    QTest::newRow("runtime above deadline")
        << R"("policy": "deadline", "runtime": "11ms", "deadline": "10ms")"
        << "/tasks/0/runtime: expected at most the deadline";
    QTest::newRow("deadline above period")
        << R"("policy": "deadline", "runtime": "1ms", "deadline": "30ms", "period": "20ms")"
        << "/tasks/0/deadline: expected at most the period";
    QTest::newRow("runtime below 1024 ns")
        << R"("policy": "deadline", "runtime": "512ns", "deadline": "1ms")"
        << "/tasks/0/runtime: expected at least 1024ns";
    QTest::newRow("period too short")
        << R"("policy": "deadline", "runtime": "10us", "deadline": "50us")"
        << "/tasks/0/deadline: sched_setattr() gives EINVAL: sched_period outside";
    QTest::newRow("no deadline") << R"("policy": "deadline", "runtime": "1ms")"
                                 << "/tasks/0: policy deadline needs \"deadline\"";
    QTest::newRow("runtime without deadline policy")
        << R"("policy": "fifo", "runtime": "1ms")"
        << "/tasks/0/runtime: only valid with policy deadline";
    QTest::newRow("bad flag")
        << R"("policy": "deadline", "runtime": "1ms", "deadline": "2ms", "flags": ["fast"])"
        << "/tasks/0/flags/0: expected \"reclaim\"";
    QTest::newRow("number without unit")
        << R"("policy": "deadline", "runtime": 1000, "deadline": "2ms")"
        << "/tasks/0/runtime: duration needs a unit";
}

void TestDeadline::scenarioErrors()
{
    QFETCH(QString, fields);
    QFETCH(QString, error);
    const std::string json = R"({ "schedlab": 1, "name": "bad", "duration": "1s",
        "tasks": [ { "name": "t", )"
        + fields.toStdString() + R"(, "program": [ { "run": "1ms" } ] } ] })";
    LoadResult r = parseScenario(json, "bad.json");
    QVERIFY(!r.scenario);
    bool found = false;
    for (const std::string& e : r.errors)
        found = found || e.find(error.toStdString()) != std::string::npos;
    QVERIFY2(found, r.errors.empty() ? "no error" : r.errors.front().c_str());
}

void TestDeadline::scenarioRoundTrip()
{
    const std::string json = R"({ "schedlab": 1, "name": "rt", "duration": "1s",
        "tasks": [ { "name": "t", "policy": "deadline", "runtime": "2ms", "deadline": "10ms",
                     "period": "20ms", "flags": ["reclaim"], "program": [ { "run": "1ms" } ] },
                   { "name": "u", "policy": "deadline", "runtime": "2ms", "deadline": "10ms",
                     "program": [ { "run": "1ms" } ] } ] })";
    auto s = parse(json);
    QVERIFY(s);
    QCOMPARE(s->tasks[0].dl,
        std::optional<DlParams>(DlParams{2 * kMs, 10 * kMs, 20 * kMs, kDlFlagReclaim}));
    QCOMPARE(s->tasks[1].dl, std::optional<DlParams>(DlParams{2 * kMs, 10 * kMs, 0, 0}));
    auto again = parse(writeScenario(*s));
    QVERIFY(again);
    QVERIFY(again->tasks == s->tasks);
}

QTEST_GUILESS_MAIN(TestDeadline)
#include "tst_deadline.moc"
