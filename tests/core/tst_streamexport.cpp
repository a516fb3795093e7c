// SPDX-License-Identifier: GPL-2.0-or-later
// Exports written while the run goes (core/record/streamexport.h): the same bytes as the
// whole-recording writers (core/record/traceexport.h, formatRecord), the --from/--to/--entities
// filters on hand-worked scenarios, memory that does not grow with the run, and unchanged
// metrics when the recording is streamed instead of kept.
#include <QTest>

#ifndef Q_MOC_RUN
#include "core/record/metrics.h"
#include "core/record/streamexport.h"
#include "core/record/traceexport.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/clirun.h"
#endif

#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QTemporaryDir>

#include <fstream>
#include <sstream>
#include <streambuf>

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
// tick in turn: hog-1 [0, 1 ms), hog-2 [1, 2 ms), hog-1 [2, 3 ms), … (as tst_exports).
std::string twoHogs(const char* duration)
{
    return std::string(R"({ "schedlab": 1, "name": "two-hogs", "duration": ")") + duration
        + R"(", "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 2, "program": [ { "run": "forever" } ] } ] })";
}

// Three CPUs, a cgroup /a with two hogs pinned to CPU 0, a root hog on CPU 1 and two tasks that
// sleep and wake on any CPU: slices of different CPUs interleave and start at equal times.
const char* kMixed = R"({ "schedlab": 1, "name": "mixed", "duration": "60ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 3 },
  "cgroups": [ { "path": "/a", "cpu.weight": 100 } ],
  "tasks": [ { "name": "a", "count": 2, "cgroup": "/a", "cpus": "0",
               "program": [ { "run": "forever" } ] },
             { "name": "r", "cpus": "1", "program": [ { "run": "forever" } ] },
             { "name": "s", "count": 2, "program": [ { "loop": [ { "run": "1.3ms" },
               { "sleep": "0.7ms" } ] } ] } ] })";

/// A stream that counts what it is given and keeps nothing.
class CountingBuf : public std::streambuf
{
public:
    size_t bytes = 0;

protected:
    std::streamsize xsputn(const char*, std::streamsize n) override
    {
        bytes += static_cast<size_t>(n);
        return n;
    }
    int overflow(int c) override
    {
        ++bytes;
        return c;
    }
};

struct Streamed
{
    std::string records, trace, samples, slices, metrics;
    size_t kept = 0; ///< most records the Recording held at the end
};

/// Runs @p scenario with the recording streamed to the four writers.
Streamed runStreamed(const Scenario& scenario, ExportWindow w, const EntitySelection& only)
{
    std::ostringstream rec, trace, samples, slices;
    RecordsTextWriter r(rec, w, only);
    ChromeTraceWriter t(trace, w, only, scenario.name);
    SamplesCsvWriter sa(samples, w, only);
    SlicesCsvWriter sl(slices, w, only);
    ExportFanout fan;
    for (ExportWriter* x : std::initializer_list<ExportWriter*>{&r, &t, &sa, &sl})
        fan.add(x);
    Simulation sim(scenario);
    sim.streamRecording(&fan);
    sim.run();
    Streamed out;
    out.kept = sim.recording().records().size();
    sim.flushRecording();
    fan.finish(sim.recording(), sim.now());
    out.records = rec.str();
    out.trace = trace.str();
    out.samples = samples.str();
    out.slices = slices.str();
    out.metrics = metricsToJson(sim.metrics());
    return out;
}

QStringList lines(const std::string& text)
{
    QStringList l = QString::fromStdString(text).split(QLatin1Char('\n'));
    if (!l.isEmpty() && l.last().isEmpty())
        l.removeLast();
    return l;
}

} // namespace

class TestStreamExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameBytesAsWholeRecording_data();
    void sameBytesAsWholeRecording();
    void handCheckedLines();
    void peltColumns();
    void windowKeepsExactlyItsRecords();
    void entitiesKeepOnlyTheirRecords();
    void groupPathsAndGlobs();
    void memoryDoesNotGrowWithTheRun();
    void discardedRecordingSameMetrics_data();
    void discardedRecordingSameMetrics();
    void cliFilterErrors();
    void cliWritesFilteredFiles();
};

void TestStreamExport::sameBytesAsWholeRecording_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("to"); // -1: the end of the run
    QTest::addColumn<QString>("entity");
    const QString hogs = QString::fromStdString(twoHogs("10ms"));
    // 3 s of alternating 1 ms slices: 3000 slices, more than SliceSorter::kBlock, so the slices
    // and the trace's counters go through their spool files.
    const QString long3s = QString::fromStdString(twoHogs("3s"));
    QTest::addRow("hogs whole") << hogs << qint64(0) << qint64(-1) << QString();
    QTest::addRow("hogs window") << hogs << qint64(2'500'000) << qint64(4'500'000) << QString();
    QTest::addRow("hogs hog-2") << hogs << qint64(0) << qint64(-1) << QStringLiteral("hog-2");
    QTest::addRow("long spooled") << long3s << qint64(0) << qint64(-1) << QString();
    QTest::addRow("long window") << long3s << qint64(1'000'500'000) << qint64(2'000'000'000)
                                 << QString();
    QTest::addRow("mixed whole") << QString::fromLatin1(kMixed) << qint64(0) << qint64(-1)
                                 << QString();
    QTest::addRow("mixed window s-1") << QString::fromLatin1(kMixed) << qint64(10'300'000)
                                      << qint64(40'000'000) << QStringLiteral("s-1");
}

// A run streamed to the writers while it runs (chunks, spool files) writes the same bytes as the
// same writers fed afterwards from the kept recording (the whole-recording functions).
void TestStreamExport::sameBytesAsWholeRecording()
{
    QFETCH(QString, scenario);
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(QString, entity);
    const Scenario sc = scenarioFrom(scenario.toStdString());

    // The whole-recording writers on a kept recording.
    Simulation kept(sc);
    kept.run();
    const Recording& rec = kept.recording();
    const Nanoseconds f(from);
    const Nanoseconds t = to < 0 ? kept.now() : Nanoseconds(to);
    EntityFilter only;
    if (!entity.isEmpty()) {
        const auto it = std::find(rec.taskNames.begin(), rec.taskNames.end(), entity.toStdString());
        QVERIFY(it != rec.taskNames.end());
        only.push_back(EntityRef::task(static_cast<int32_t>(it - rec.taskNames.begin())));
    }
    ExportWindow w;
    w.from = f;
    if (to >= 0)
        w.to = t;
    const EntitySelection sel =
        entity.isEmpty() ? EntitySelection() : EntitySelection::patterns({entity.toStdString()});
    const Streamed s = runStreamed(sc, w, sel);

    QVERIFY(s.kept <= Recording::kStreamChunk);
    QCOMPARE(s.trace, chromeTraceJson(rec, f, t, only, sc.name));
    QCOMPARE(s.samples, samplesCsv(rec, f, t, only));
    QCOMPARE(s.slices, slicesCsv(rec, f, t, only));
    // An independent oracle for the sorted, spooled slices: runSlices() cuts them from the kept
    // recording in one pass and sorts them in memory.
    std::string expectedSlices = "cpu,task,start_ns,end_ns\n";
    for (const RunSlice& r : runSlices(rec, f, t))
        if (only.empty() || only.front() == EntityRef::task(r.task))
            expectedSlices += std::to_string(r.cpu) + ',' + rec.taskNames[size_t(r.task)] + ','
                + std::to_string(r.startNs) + ',' + std::to_string(r.endNs) + '\n';
    QCOMPARE(s.slices, expectedSlices);
    if (entity.isEmpty() && from == 0) { // --records without filters: every record
        std::string text;
        for (const Record& r : rec.records())
            text += formatRecord(r, rec) + '\n';
        QCOMPARE(s.records, text);
    }
    // Metrics do not come from the recording: the same bytes whether it is kept or streamed.
    QCOMPARE(s.metrics, metricsToJson(kept.metrics()));
}

void TestStreamExport::handCheckedLines()
{
    const Streamed s = runStreamed(scenarioFrom(twoHogs("10ms")), {}, {});
    const QStringList slices = lines(s.slices);
    // 10 slices of 1 ms, alternating, on cpu 0 (see twoHogs()), after the header.
    QCOMPARE(slices.size(), 11);
    QCOMPARE(slices.value(0), QStringLiteral("cpu,task,start_ns,end_ns"));
    QCOMPARE(slices.value(1), QStringLiteral("0,hog-1,0,1000000"));
    QCOMPARE(slices.value(2), QStringLiteral("0,hog-2,1000000,2000000"));
    QCOMPARE(slices.value(10), QStringLiteral("0,hog-2,9000000,10000000"));
    // The tick at 1 ms ends hog-1's slice: the switch record says so.
    QVERIFY(lines(s.records).contains(QStringLiteral("t=1000000 cpu0 switch hog-1->hog-2")));
    // New tasks start at V = 0 with half a slice (PLACE_DEADLINE_INITIAL): d = 350 000; nice 0
    // weight 1024 << 10 = 1048576.
    QVERIFY(lines(s.samples).value(1).startsWith(
        QStringLiteral("0,hog-1,task,0,0,350000,0,0,1048576,1,")));
    // The trace: the CPU track's slice of hog-2 at 1 ms for 1 ms (ts/dur in µs).
    QVERIFY(test::contains(s.trace,
        R"({"name":"hog-2","cat":"sched","ph":"X","pid":1,"tid":1,"ts":1000,"dur":1000,)"
        R"("args":{"task":"hog-2","cpu":0}})"));
    QVERIFY(test::contains(s.trace, R"("from_ns":0,"to_ns":10000000}})"));
}

// samples.csv's PELT columns (kernel-model.md §6.6) for one nice-0 task on one CPU, by hand. It
// starts with load_avg = its weight 1024 and util_avg = runnable_avg = half the spare capacity
// (1024 − 0) / 2 = 512, attached at t = 0 with divider 47742 − 1024 = 46718: load_sum 46718,
// util_sum 512 · 46718. The first update that crosses a period is the tick at 2 ms: 1953 units of
// 1024 ns, one period, d1 = 1024, d3 = 929; sums decay by y (0xfa83b2da), then gain c1 + c2 +
// c3 with c1 = decay_load(1024, 1) = 1002, c2 = 47742 − decay_load(47742, 1) − 1024 = 47742 −
// 46718 − 1024 = 0, c3 = 929 (contrib 1931): load_sum decay_load(46718, 1) + 1931 = 45716 + 1931
// = 47647, divider 46718 + 929 = 47647, load_avg 1024 · 47647 / 47647 =
// 1024; util_sum decay_load(23919616, 1) + 1931 · 1024 = 23407067 + 1977344 = 25384411,
// util_avg 25384411 / 47647 = 532 (runnable the same). A sample shows the averages of the last
// update: the one taken at 3 ms (before that tick's update) shows the 2 ms values.
void TestStreamExport::peltColumns()
{
    const Scenario scenario = scenarioFrom(R"({"schedlab": 1, "name": "p", "duration": "3ms",
        "kernel": {"profile": "7.1", "hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "a", "program": [{"run": "forever"}]}]})");
    for (bool pelt : {true, false}) {
        std::ostringstream out;
        SamplesCsvWriter writer(out);
        ExportFanout fan;
        fan.add(&writer);
        RunOptions o;
        o.recordPelt = pelt;
        Simulation sim(scenario, o);
        sim.streamRecording(&fan);
        sim.run();
        sim.flushRecording();
        fan.finish(sim.recording(), sim.now());
        const QStringList l = lines(out.str());
        QVERIFY(l.value(0).endsWith(QStringLiteral(
            "delayed,load_avg,runnable_avg,util_avg,rq_load_avg,rq_runnable_avg,rq_util_avg,"
            "h_nr_queued,h_nr_runnable")));
        if (!pelt) {
            QVERIFY(l.value(1).endsWith(QStringLiteral(",,,,,,,,")));
            continue;
        }
        QVERIFY(l.value(2).startsWith(QStringLiteral("0,a,task,")));
        QVERIFY(l.value(2).endsWith(QStringLiteral(",1024,512,512,1024,512,512,1,1")));
        QCOMPARE(l.last().section(QLatin1Char(','), 0, 0), QStringLiteral("3000000"));
        QVERIFY(l.last().endsWith(QStringLiteral(",1024,532,532,1024,532,532,1,1")));
    }
}

void TestStreamExport::windowKeepsExactlyItsRecords()
{
    // [2.5 ms, 4.5 ms]: hog-1 [2.5, 3), hog-2 [3, 4), hog-1 [4, 4.5) — clipped to the window.
    ExportWindow w;
    w.from = Nanoseconds(2'500'000);
    w.to = Nanoseconds(4'500'000);
    const Streamed s = runStreamed(scenarioFrom(twoHogs("10ms")), w, {});
    QCOMPARE(lines(s.slices),
        QStringList({QStringLiteral("cpu,task,start_ns,end_ns"),
            QStringLiteral("0,hog-1,2500000,3000000"), QStringLiteral("0,hog-2,3000000,4000000"),
            QStringLiteral("0,hog-1,4000000,4500000")}));
    // Records: exactly those with 2.5 ms <= t <= 4.5 ms, among them the switches at 3 and 4 ms.
    const QStringList recs = lines(s.records);
    QVERIFY(!recs.isEmpty());
    for (const QString& l : recs) {
        const qint64 t = l.section(QLatin1Char(' '), 0, 0).mid(2).toLongLong();
        QVERIFY2(t >= 2'500'000 && t <= 4'500'000, qPrintable(l));
    }
    QVERIFY(recs.contains(QStringLiteral("t=3000000 cpu0 switch hog-1->hog-2")));
    QVERIFY(recs.contains(QStringLiteral("t=4000000 cpu0 switch hog-2->hog-1")));
    // Every record of the unfiltered run inside the window, and no other.
    const Streamed all = runStreamed(scenarioFrom(twoHogs("10ms")), {}, {});
    QStringList inside;
    for (const QString& l : lines(all.records)) {
        const qint64 t = l.section(QLatin1Char(' '), 0, 0).mid(2).toLongLong();
        if (t >= 2'500'000 && t <= 4'500'000)
            inside << l;
    }
    QCOMPARE(recs, inside);
    for (const QString& l : lines(s.samples).mid(1)) {
        const qint64 t = l.section(QLatin1Char(','), 0, 0).toLongLong();
        QVERIFY(t >= 2'500'000 && t <= 4'500'000);
    }
}

void TestStreamExport::entitiesKeepOnlyTheirRecords()
{
    const Streamed s =
        runStreamed(scenarioFrom(twoHogs("10ms")), {}, EntitySelection::patterns({"hog-2"}));
    // hog-2 runs [1,2), [3,4), … [9,10) ms: five slices.
    QCOMPARE(lines(s.slices),
        QStringList({QStringLiteral("cpu,task,start_ns,end_ns"),
            QStringLiteral("0,hog-2,1000000,2000000"), QStringLiteral("0,hog-2,3000000,4000000"),
            QStringLiteral("0,hog-2,5000000,6000000"), QStringLiteral("0,hog-2,7000000,8000000"),
            QStringLiteral("0,hog-2,9000000,10000000")}));
    const QStringList samples = lines(s.samples);
    QVERIFY(samples.size() > 1);
    for (const QString& l : samples.mid(1))
        QCOMPARE(l.section(QLatin1Char(','), 1, 1), QStringLiteral("hog-2"));
    const QStringList recs = lines(s.records);
    QVERIFY(!recs.isEmpty());
    for (const QString& l : recs)
        QVERIFY2(l.contains(QLatin1String("hog-2")), qPrintable(l));
    QVERIFY(test::contains(s.trace, R"("args":{"name":"task hog-2"})"));
    QVERIFY(!test::contains(s.trace, R"("args":{"name":"task hog-1"})"));
}

void TestStreamExport::groupPathsAndGlobs()
{
    // "/a" selects the group's entity on every CPU (its tasks a-1, a-2 are pinned to CPU 0, so
    // /a is queued, and sampled, on CPU 0); "s-*" the two sleepers.
    const Streamed g = runStreamed(scenarioFrom(kMixed), {}, EntitySelection::patterns({"/a"}));
    const QStringList samples = lines(g.samples);
    QVERIFY(samples.size() > 1);
    for (const QString& l : samples.mid(1)) {
        QVERIFY2(l.section(QLatin1Char(','), 1, 1).startsWith(QLatin1String("/a@")), qPrintable(l));
        QCOMPARE(l.section(QLatin1Char(','), 2, 2), QStringLiteral("group"));
    }
    QCOMPARE(lines(g.slices).size(), 1); // groups have no run slices: the header only

    const Streamed s = runStreamed(scenarioFrom(kMixed), {}, EntitySelection::patterns({"s-*"}));
    QSet<QString> tasks;
    for (const QString& l : lines(s.slices).mid(1))
        tasks.insert(l.section(QLatin1Char(','), 1, 1));
    QCOMPARE(tasks, QSet<QString>({QStringLiteral("s-1"), QStringLiteral("s-2")}));
}

void TestStreamExport::memoryDoesNotGrowWithTheRun()
{
    // The same scenario for 1 s and 20 s: 20 times the records and output, the same bound.
    struct Run
    {
        size_t written = 0;
        size_t peak = 0;
        size_t kept = 0;
        size_t recorded = 0;
    };
    auto run = [](const char* duration) {
        CountingBuf rb, tb, sb, lb;
        std::ostream ro(&rb), to(&tb), so(&sb), lo(&lb);
        RecordsTextWriter r(ro);
        ChromeTraceWriter t(to);
        SamplesCsvWriter sa(so);
        SlicesCsvWriter sl(lo);
        ExportFanout fan;
        for (ExportWriter* x : std::initializer_list<ExportWriter*>{&r, &t, &sa, &sl})
            fan.add(x);
        Simulation sim(scenarioFrom(twoHogs(duration)));
        sim.streamRecording(&fan);
        Run out;
        // Step through the run, watching how many records the Recording holds.
        while (sim.step())
            out.kept = std::max(out.kept, sim.recording().records().size());
        sim.flushRecording();
        fan.finish(sim.recording(), sim.now());
        out.written = rb.bytes + tb.bytes + sb.bytes + lb.bytes;
        out.peak = r.peakMemory() + t.peakMemory() + sa.peakMemory() + sl.peakMemory();
        out.recorded = sim.recording().size();
        return out;
    };
    const Run shortRun = run("1s");
    const Run longRun = run("20s");
    QVERIFY(longRun.recorded > 19 * shortRun.recorded);
    QVERIFY(longRun.written > 19 * shortRun.written);
    // The Recording keeps one chunk at most.
    QVERIFY(shortRun.kept <= Recording::kStreamChunk);
    QVERIFY(longRun.kept <= Recording::kStreamChunk);
    // Each writer: a text buffer flushed at TextOut::kFlushAt (+ one line), for the slices one
    // block per CPU (1 CPU), for the trace one block of samples and one value per entity (a few).
    const size_t bound = 4 * (TextOut::kFlushAt + 4096) + 2 * SliceSorter::kBlock * 64
        + 1024 * sizeof(Record) + 16 * (sizeof(Record) + 64);
    QVERIFY2(longRun.peak <= bound, qPrintable(QString::number(longRun.peak)));
    QVERIFY(shortRun.peak <= bound);
    // Far less than what was written (a writer that kept its output would hold all of it).
    QVERIFY2(longRun.peak * 4 < longRun.written,
        qPrintable(QStringLiteral("%1 of %2").arg(longRun.peak).arg(longRun.written)));
}

void TestStreamExport::discardedRecordingSameMetrics_data()
{
    QTest::addColumn<QString>("file"); // under scenarios/, or empty for kMixed
    QTest::addColumn<QString>("profile");
    QTest::addColumn<qint64>("durationMs");
    for (const char* profile : {"", "6.6", "7.3"}) {
        QTest::addRow("mixed %s", profile)
            << QString() << QString::fromLatin1(profile) << qint64(60);
        for (const char* file : {"two-groups-4cpu", "delayed-dequeue", "migration-affinity",
                 "throttle-priority-inversion", "rt-group-constraints", "lab-mirror-fork"})
            QTest::addRow("%s %s", file, profile)
                << QString::fromLatin1(file) << QString::fromLatin1(profile) << qint64(400);
    }
}

// schedlab-cli run without an export streams the recording to no sink: the simulation then only
// counts the records it would have built (Recording::discarding()). The run itself is the same:
// the same metrics (recorded_events and recorded_bytes included) as a run that keeps every record.
void TestStreamExport::discardedRecordingSameMetrics()
{
    QFETCH(QString, file);
    QFETCH(QString, profile);
    QFETCH(qint64, durationMs);
    Scenario sc;
    if (file.isEmpty()) {
        sc = scenarioFrom(kMixed);
    } else {
        LoadResult r = loadScenarioFile(
            std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/" + file.toStdString() + ".json");
        QVERIFY(r.ok());
        sc = *r.scenario;
    }
    RunOptions o;
    if (!profile.isEmpty())
        o.profile = profile.toStdString();
    o.duration = Nanoseconds(durationMs * 1'000'000);
    Simulation kept(sc, o);
    kept.run();
    Simulation discarded(sc, o);
    discarded.streamRecording(nullptr);
    discarded.run();
    discarded.flushRecording();
    QVERIFY(kept.recording().size() > 0);
    QCOMPARE(discarded.recording().records().size(), size_t(0)); // nothing was built
    QCOMPARE(discarded.recording().size(), kept.recording().size());
    QCOMPARE(discarded.eventsExecuted(), kept.eventsExecuted());
    QCOMPARE(metricsToJson(discarded.metrics()), metricsToJson(kept.metrics()));
}

void TestStreamExport::cliFilterErrors()
{
    const std::string hogs = SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json";
    QTemporaryDir dir;
    const std::string trace = dir.filePath(QStringLiteral("t.json")).toStdString();
    auto check = [&](std::vector<std::string> args, const std::string& message) {
        const test::CliResult r = test::runCliCaptured(args);
        QCOMPARE(r.code, 2);
        QVERIFY2(test::contains(r.err, message), r.err.c_str());
    };
    check({"run", hogs, "--trace", trace, "--from", "soon"}, "--from expects a time");
    check({"run", hogs, "--trace", trace, "--to", "-1ms"}, "--to expects a time");
    check({"run", hogs, "--trace", trace, "--from", "2s", "--to", "1s"},
        "--from 2s is after --to 1s");
    check({"run", hogs, "--from", "1s"}, "give one of them");
    check({"run", hogs, "--trace", trace, "--entities", "a,,b"}, "--entities expected NAME");
    check({"run", hogs, "--duration", "5ms", "--trace", trace, "--entities", "nosuch"},
        "no task or cgroup \"nosuch\" in the scenario");
    check({"run", hogs, "--duration", "5ms", "--trace", trace, "--entities", "zz*"},
        "\"zz*\" matched no task or cgroup of the run");
    QVERIFY(!QFileInfo::exists(QString::fromStdString(trace))); // nothing written
}

void TestStreamExport::cliWritesFilteredFiles()
{
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("hogs.json"));
    {
        std::ofstream f(scenario.toStdString());
        f << twoHogs("10ms");
    }
    const std::string csv = dir.filePath(QStringLiteral("d")).toStdString();
    const test::CliResult r = test::runCliCaptured({"run", scenario.toStdString(), "--quiet",
        "--csv", csv, "--from", "2.5ms", "--to", "4.5ms", "--entities", "hog-2"});
    QCOMPARE(r.code, 0);
    QFile slices(dir.filePath(QStringLiteral("d/slices.csv")));
    QVERIFY(slices.open(QIODevice::ReadOnly));
    // hog-2's only slice in [2.5, 4.5] ms is [3, 4) ms.
    QCOMPARE(slices.readAll(), QByteArray("cpu,task,start_ns,end_ns\n0,hog-2,3000000,4000000\n"));
}

QTEST_GUILESS_MAIN(TestStreamExport)
#include "tst_streamexport.moc"
