// SPDX-License-Identifier: GPL-2.0-or-later
// Exports (core/record/traceexport.h), the metric-difference table (core/record/metricsdiff.h)
// and the inspector snapshot (core/sim/inspect.h) on small scenarios whose behaviour is worked
// out by hand in the comments.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>

#ifndef Q_MOC_RUN
#include "core/record/metricsdiff.h"
#include "core/record/traceexport.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/inspect.h"
#include "core/sim/simulation.h"
#include "support/simlookup.h"
#endif

using namespace schedlab;

namespace {

Scenario scenarioFrom(const std::string& text)
{
    LoadResult r = parseScenario(text, "test.json");
    if (!r.ok())
        qFatal("%s", r.errors.empty() ? "?" : r.errors.front().c_str());
    return *r.scenario;
}

// Two nice-0 hogs on one CPU at HZ 1000, 7.1: base slice 0.7 ms < tick, so each runs one whole
// tick in turn: hog-1 [0, 1 ms), hog-2 [1, 2 ms), hog-1 [2, 3 ms), …
const char* kTwoHogs = R"({ "schedlab": 1, "name": "two-hogs", "duration": "10ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] } ] })";

// Two CPUs, a cgroup /a with two hogs pinned to CPU 0 and one root hog on CPU 1: both CPUs are
// always busy. The base slice scales with log2(CPUs): 0.7 ms · 2 = 1.4 ms, two ticks per run.
const char* kGroups = R"({ "schedlab": 1, "name": "groups", "duration": "20ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/a", "cpu.weight": 100 } ],
  "tasks": [ { "name": "a", "count": 2, "cgroup": "/a", "cpus": "0",
               "program": [ { "run": "forever" } ] },
             { "name": "r", "cpus": "1", "program": [ { "run": "forever" } ] } ] })";

QJsonArray traceEvents(const std::string& json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("trace does not parse: %s", qPrintable(error.errorString()));
    return doc.object().value(QStringLiteral("traceEvents")).toArray();
}

QStringList lines(const std::string& text)
{
    QStringList l = QString::fromStdString(text).split(QLatin1Char('\n'));
    if (!l.isEmpty() && l.last().isEmpty())
        l.removeLast();
    return l;
}

} // namespace

class TestExports : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void runSlicesAlternate();
    void runSlicesClipToWindow();
    void traceHasTracksAndCounts();
    void traceFiltersEntities();
    void csvHeadersAndRows();
    void metricDiffTable();
    void inspectMidSlice();
    void inspectAgreesWithSwitches();
};

void TestExports::runSlicesAlternate()
{
    Simulation sim(scenarioFrom(kTwoHogs));
    sim.run();
    const auto slices = runSlices(sim.recording(), Nanoseconds(0), Nanoseconds(10'000'000));
    QCOMPARE(slices.size(), size_t(10));
    for (size_t i = 0; i < slices.size(); ++i) {
        QCOMPARE(slices[i].startNs, int64_t(i) * 1'000'000);
        QCOMPARE(slices[i].endNs, int64_t(i + 1) * 1'000'000);
        QCOMPARE(sim.recording().taskNames[size_t(slices[i].task)],
            std::string(i % 2 ? "hog-2" : "hog-1"));
    }
}

void TestExports::runSlicesClipToWindow()
{
    Simulation sim(scenarioFrom(kTwoHogs));
    sim.run();
    // [2.5 ms, 4.5 ms]: hog-1 [2.5, 3), hog-2 [3, 4), hog-1 [4, 4.5).
    const auto s = runSlices(sim.recording(), Nanoseconds(2'500'000), Nanoseconds(4'500'000));
    QCOMPARE(s.size(), size_t(3));
    QCOMPARE(s[0].startNs, int64_t(2'500'000));
    QCOMPARE(s[0].endNs, int64_t(3'000'000));
    QCOMPARE(s[2].startNs, int64_t(4'000'000));
    QCOMPARE(s[2].endNs, int64_t(4'500'000));
}

void TestExports::traceHasTracksAndCounts()
{
    Simulation sim(scenarioFrom(kGroups));
    sim.run();
    const Recording& rec = sim.recording();
    const Nanoseconds from(5'000'000), to(15'000'000);
    const QJsonArray events = traceEvents(chromeTraceJson(rec, from, to, {}, "groups"));

    QSet<QString> processes, threads;
    int cpuSlices = 0, taskSlices = 0, counters = 0;
    QMap<int, double> busyUs; // per CPU thread
    QSet<QString> counterNames;
    for (const QJsonValue& v : events) {
        const QJsonObject e = v.toObject();
        const QString ph = e.value(QStringLiteral("ph")).toString();
        const QString name = e.value(QStringLiteral("name")).toString();
        const int pid = e.value(QStringLiteral("pid")).toInt();
        if (ph == QLatin1String("M")) {
            const QString n =
                e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
            (name == QLatin1String("process_name") ? processes : threads).insert(n);
        } else if (ph == QLatin1String("X")) {
            const double ts = e.value(QStringLiteral("ts")).toDouble();
            const double dur = e.value(QStringLiteral("dur")).toDouble();
            QVERIFY(ts >= 5000.0 && ts + dur <= 15000.0 + 1e-6);
            if (pid == 1) {
                ++cpuSlices;
                busyUs[e.value(QStringLiteral("tid")).toInt()] += dur;
            } else {
                ++taskSlices;
            }
        } else if (ph == QLatin1String("C")) {
            ++counters;
            counterNames.insert(name);
            QVERIFY(e.value(QStringLiteral("args")).toObject().contains(QStringLiteral("value")));
        } else {
            QFAIL("unexpected phase");
        }
    }
    QVERIFY(processes.contains(QStringLiteral("CPUs")));
    QVERIFY(processes.contains(QStringLiteral("task a-1")));
    QVERIFY(processes.contains(QStringLiteral("task r")));
    QVERIFY(processes.contains(QStringLiteral("group /a cpu0")));
    QVERIFY(threads.contains(QStringLiteral("CPU 0")));
    QVERIFY(threads.contains(QStringLiteral("CPU 1")));
    // Each run appears on its CPU's track and on its task's track.
    QVERIFY(cpuSlices > 0);
    QCOMPARE(taskSlices, cpuSlices);
    // Three hogs, two CPUs, each pinned: both CPUs busy for the whole 10 ms window.
    QCOMPARE(busyUs.value(1), 10000.0);
    QCOMPARE(busyUs.value(2), 10000.0);
    for (const char* c : {"vruntime", "deadline", "vlag", "V", "weight"})
        QVERIFY2(counterNames.contains(QLatin1String(c)), c);
    // Counter events: 4 per task sample and 5 per group sample in the window, plus the same
    // for each entity's last sample before the window (its value at the window's start).
    int expected = 0;
    QSet<int32_t> inside, before;
    for (const Record& r : rec.records()) {
        if (r.kind != RecordKind::Sample)
            continue;
        if (r.time < from.count())
            before.insert(r.entity.raw);
        else if (r.time <= to.count()) {
            expected += r.entity.isGroup() ? 5 : 4;
            inside.insert(r.entity.raw);
        }
    }
    for (int32_t raw : before)
        expected += EntityRef{raw}.isGroup() ? 5 : 4;
    QCOMPARE(counters, expected);
}

void TestExports::traceFiltersEntities()
{
    Simulation sim(scenarioFrom(kTwoHogs));
    sim.run();
    const EntityRef hog2 = test::taskRef(sim.recording(), "hog-2");
    const QJsonArray events = traceEvents(chromeTraceJson(
        sim.recording(), Nanoseconds(0), Nanoseconds(10'000'000), EntityFilter{hog2}));
    int slices = 0;
    for (const QJsonValue& v : events) {
        const QJsonObject e = v.toObject();
        if (e.value(QStringLiteral("ph")).toString() == QLatin1String("X")
            && e.value(QStringLiteral("pid")).toInt() == 1) {
            ++slices;
            QCOMPARE(e.value(QStringLiteral("name")).toString(), QStringLiteral("hog-2"));
        }
    }
    QCOMPARE(slices, 5); // hog-2 runs [1,2), [3,4), … [9,10) ms
}

void TestExports::csvHeadersAndRows()
{
    Simulation sim(scenarioFrom(kTwoHogs));
    sim.run();
    const Recording& rec = sim.recording();
    const QStringList slices = lines(slicesCsv(rec, Nanoseconds(0), Nanoseconds(4'000'000)));
    QCOMPARE(slices.value(0), QStringLiteral("cpu,task,start_ns,end_ns"));
    QCOMPARE(slices.size(), 5);
    QCOMPARE(slices.value(1), QStringLiteral("0,hog-1,0,1000000"));
    QCOMPARE(slices.value(2), QStringLiteral("0,hog-2,1000000,2000000"));

    const QStringList samples = lines(samplesCsv(rec, Nanoseconds(0), Nanoseconds(10'000'000)));
    QCOMPARE(samples.value(0),
        QStringLiteral("time_ns,entity,kind,cpu,vruntime,deadline,vlag,avg_vruntime,weight,"
                       "eligible,curr,delayed,load_avg,runnable_avg,util_avg,rq_load_avg,"
                       "rq_runnable_avg,rq_util_avg,h_nr_queued,h_nr_runnable"));
    int sampleRecords = 0;
    for (const Record& r : rec.records())
        sampleRecords += r.kind == RecordKind::Sample && r.time <= 10'000'000;
    QCOMPARE(samples.size() - 1, sampleRecords);
    for (qsizetype i = 1; i < samples.size(); ++i)
        QCOMPARE(samples[i].split(QLatin1Char(',')).size(), 20); // PELT columns empty: no Pelt
                                                                 // records without recordPelt
    // New tasks start at V = 0 with half a slice (PLACE_DEADLINE_INITIAL): d = 350 000, nice 0
    // weight 1024 << 10.
    QVERIFY(samples.value(1).startsWith(QStringLiteral("0,hog-1,task,0,0,350000,0,0,1048576,1,")));
}

void TestExports::metricDiffTable()
{
    Metrics a, b;
    TaskMetrics t;
    t.name = "t1";
    t.cpuTimeNs = 1'000'000'000;
    t.share = 0.5;
    t.waitP99Ns = 2'000'000;
    a.tasks.push_back(t);
    t.cpuTimeNs = 500'000'000;
    t.share = 0.25;
    t.waitP99Ns = 3'500'000;
    b.tasks.push_back(t);
    TaskMetrics child;
    child.name = "t1-child-1";
    child.forked = true;
    b.tasks.push_back(child);
    a.probes.push_back({"probe", 0, 1'200'000});
    b.probes.push_back({"probe", 0, std::nullopt});
    b.findings.push_back({"starvation", "t1", 0, 0, 2'000'000'000, ""});
    const auto rows = diffMetrics(a, b);
    auto row = [&](const std::string& name) -> const MetricDiffRow* {
        for (const auto& r : rows)
            if (r.metric == name)
                return &r;
        return nullptr;
    };
    QVERIFY(row("t1 share"));
    QCOMPARE(*row("t1 share")->base, 50.0);
    QCOMPARE(*row("t1 share")->variant, 25.0);
    QCOMPARE(*row("t1 share")->delta(), -25.0);
    QCOMPARE(*row("t1 wait p99")->delta(), 1'500'000.0);
    QCOMPARE(formatDiffValue(MetricDiffRow::Unit::Ns, row("t1 wait p99")->delta(), true),
        std::string("+1.500 ms"));
    QCOMPARE(formatDiffValue(MetricDiffRow::Unit::Percent, row("t1 share")->delta(), true),
        std::string("-25.00%"));
    QVERIFY(!row("t1-child-1 share")); // forked children are folded out
    QVERIFY(row("probe probe latency"));
    QCOMPARE(*row("probe probe latency")->base, 1'200'000.0);
    QVERIFY(!row("probe probe latency")->variant);
    QVERIFY(!row("probe probe latency")->delta());
    QCOMPARE(*row("starvation findings")->base, 0.0);
    QCOMPARE(*row("starvation findings")->variant, 1.0);
}

// kTwoHogs at 1.5 ms: hog-1 ran [0, 1 ms) → v = 1e6; hog-2 (placed at V = 0) runs since 1 ms →
// v = 0.5e6 once update_curr() brings it up to date. V = (1e6 + 0.5e6)/2 = 750 000.
// hog-1 (v > V) is not eligible; hog-2's protection (vprot = its first deadline 350 000) is over,
// but no tree entity is eligible, so hog-2 stays: "curr is the only eligible entity".
void TestExports::inspectMidSlice()
{
    const Inspection in = inspectAt(scenarioFrom(kTwoHogs), {}, Nanoseconds(1'500'000));
    QCOMPARE(in.at, Nanoseconds(1'500'000));
    QCOMPARE(in.cpus.size(), size_t(1));
    const CpuInspection& cpu = in.cpus[0];
    QCOMPARE(cpu.running, std::string("hog-2"));
    QCOMPARE(cpu.rqs.size(), size_t(1));
    const CfsRqInspection& rq = cpu.rqs[0];
    QCOMPARE(rq.avgVruntime, uint64_t(750'000));
    QCOMPARE(rq.nrQueued, 2);
    QCOMPARE(rq.picked, std::string("hog-2"));
    QCOMPARE(rq.step, PickStep::CurrOnlyEligible);
    QCOMPARE(rq.entities.size(), size_t(2));
    QVERIFY(rq.entities[0].curr);
    QCOMPARE(rq.entities[0].vruntime, uint64_t(500'000));
    QVERIFY(rq.entities[0].eligible);
    QVERIFY(rq.entities[0].picked);
    QCOMPARE(rq.entities[1].name, std::string("hog-1"));
    QCOMPARE(rq.entities[1].vruntime, uint64_t(1'000'000));
    QCOMPARE(rq.entities[1].lag, int64_t(-250'000));
    QVERIFY(!rq.entities[1].eligible);
    QCOMPARE(rq.eligible, std::vector<std::string>{"hog-2"});
}

// At the instant of every switch, the explained pick at each level leads to the task switched
// to (it was just picked and is protected, or the only choice): root → group /a → a task.
void TestExports::inspectAgreesWithSwitches()
{
    const Scenario scenario = scenarioFrom(kGroups);
    Simulation sim(scenario);
    sim.run();
    const Recording& rec = sim.recording();
    int checked = 0;
    for (const Record& r : rec.records()) {
        if (r.kind != RecordKind::Switch || r.payload.generic.a < 0 || r.time == 0
            || r.time > 20'000'000)
            continue;
        const std::string next = rec.taskNames[size_t(r.payload.generic.a)];
        const Inspection in = inspectAt(scenario, {}, Nanoseconds(r.time));
        const CpuInspection& cpu = in.cpus.at(r.cpu);
        QCOMPARE(cpu.running, next);
        // Follow the picks down the hierarchy.
        const CfsRqInspection* rq = &cpu.rqs.at(0);
        std::string picked;
        for (int depth = 0; depth < 4 && rq; ++depth) {
            picked = rq->picked;
            const CfsRqInspection* down = nullptr;
            for (const EntityInspection& e : rq->entities)
                if (e.picked && e.childRq >= 0)
                    down = &cpu.rqs.at(size_t(e.childRq));
            rq = down;
        }
        QCOMPARE(picked, next);
        ++checked;
    }
    QVERIFY(checked >= 8); // 1.4 ms slices on 2 CPUs: a-1 and a-2 alternate every 2 ticks
}

QTEST_GUILESS_MAIN(TestExports)
#include "tst_exports.moc"
