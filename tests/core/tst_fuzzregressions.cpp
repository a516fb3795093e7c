// SPDX-License-Identifier: GPL-2.0-or-later
// Inputs found by fuzzing (docs/limits.md, "Fuzzing"), one row per file of
// tests/data/fuzz-regressions/: the loader answers each with a scenario or with errors in the
// one-line form, and a scenario that loads runs bounded as in fuzz/fuzz_scenario_run.cpp (20 ms
// simulated, lowered resource guards) without violating an invariant, to its end. Only inputs
// whose file name contains "guard" are expected to stop early, and then with a reason.
// The subdirectories hold inputs of the importers' harnesses: ftrace/ (fuzz_ftrace_import: an
// accepted import keeps every time, wait and CPU time within the traced span and its records in
// time order) and rtapp/ (fuzz_rtapp_import: an import is a scenario that loads, or errors naming
// FILE:LINE; its export does not throw).
#include "core/import/ftrace.h"
#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <QDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <stdexcept>

using namespace schedlab;

class TestFuzzRegressions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void input_data();
    void input();
    void ftrace_data();
    void ftrace();
    void rtapp_data();
    void rtapp();
};

namespace {

void addFiles(const char* subdir)
{
    QTest::addColumn<QString>("path");
    const QDir dir(QStringLiteral(SCHEDLAB_SOURCE_DIR "/tests/data/fuzz-regressions/") + subdir);
    const QStringList files = dir.entryList(QDir::Files, QDir::Name);
    QVERIFY2(!files.isEmpty(), qPrintable(dir.path()));
    for (const QString& file : files)
        QTest::addRow("%s", qPrintable(file)) << dir.filePath(file);
}

} // namespace

void TestFuzzRegressions::ftrace_data()
{
    addFiles("ftrace");
}

// switch-out-while-running-elsewhere.txt: a task switched out on CPU 0 while it ran on CPU 1 by
// the importer's account, then in on CPU 0, was credited on both to the end (16.5 ms in a 10 ms
// span). late-spawn-record-order.txt: a task first known at the end (the header of a CPU that
// never switched) was spawned at time 0 after later records.
void TestFuzzRegressions::ftrace()
{
    QFETCH(QString, path);
    const TraceImport r = importFtraceFile(path.toStdString());
    for (const std::string& e : r.errors)
        QVERIFY2(e.starts_with(path.toStdString() + ":"), e.c_str());
    if (!r.ok())
        return;
    const int64_t span = r.metrics.durationNs;
    for (const TaskMetrics& t : r.metrics.tasks) {
        QVERIFY2(t.cpuTimeNs >= 0 && t.cpuTimeNs <= span, t.name.c_str());
        QVERIFY2(t.waitMaxNs >= 0 && t.waitMaxNs <= span, t.name.c_str());
    }
    for (const CpuMetrics& c : r.metrics.cpus)
        QVERIFY(c.busyNs >= 0 && c.busyNs <= span);
    int64_t last = 0;
    for (const Record& rec : r.recording.records()) {
        QVERIFY(rec.time >= last && rec.time <= span);
        QVERIFY(rec.cpu < r.recording.cpus);
        last = rec.time;
    }
}

void TestFuzzRegressions::rtapp_data()
{
    addFiles("rtapp");
}

// invalid-utf8-thread-name.json: a thread name with bytes 0xff was imported (the check through
// the scenario writer replaced them) and export-rtapp then threw nlohmann's type_error 316.
void TestFuzzRegressions::rtapp()
{
    QFETCH(QString, path);
    const rtapp::ImportResult r = rtapp::importRtAppFile(path.toStdString());
    QCOMPARE(r.ok(), r.errors.empty());
    for (const std::string& e : r.errors)
        QVERIFY2(e.starts_with(path.toStdString() + ":"), e.c_str());
    if (!r.ok())
        return;
    const LoadResult again = parseScenario(writeScenario(*r.scenario), "again.json");
    QVERIFY2(again.ok(), again.errors.empty() ? "" : again.errors.front().c_str());
    const rtapp::ExportResult e = rtapp::exportRtApp(*r.scenario);
    QCOMPARE(e.ok(), !e.json.empty());
}

void TestFuzzRegressions::input_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(QStringLiteral(SCHEDLAB_SOURCE_DIR "/tests/data/fuzz-regressions"));
    const QStringList files = dir.entryList(QDir::Files, QDir::Name);
    QVERIFY2(!files.isEmpty(), qPrintable(dir.path()));
    for (const QString& file : files)
        QTest::addRow("%s", qPrintable(file)) << dir.filePath(file);
}

void TestFuzzRegressions::input()
{
    QFETCH(QString, path);
    const LoadResult loaded = loadScenarioFile(path.toStdString());
    QCOMPARE(loaded.ok(), loaded.errors.empty());
    for (const std::string& error : loaded.errors) {
        QVERIFY2(error.starts_with(path.toStdString() + ": "), error.c_str());
        QVERIFY2(std::none_of(error.begin(), error.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }),
            error.c_str());
    }
    if (!loaded.ok())
        return;
    RunOptions options;
    options.duration = std::min(loaded.scenario->durationOrDefault(), Nanoseconds(20'000'000));
    options.limits.liveTasks = 2000;
    options.limits.recordingBytes = uint64_t{64} << 20U;
    options.limits.eventsPerSecond = 10'000'000;
    std::unique_ptr<Simulation> sim;
    try {
        sim = std::make_unique<Simulation>(*loaded.scenario, options);
    } catch (const std::invalid_argument&) {
        return; // refused with a message
    }
    sim->run();
    // Mistakes of the workload (a mutex unlocked by a task that does not hold it) are findings,
    // not violations: every violation is a broken invariant of the model.
    for (const std::string& violation : sim->invariantViolations())
        QVERIFY2(false, violation.c_str());
    QVERIFY(sim->now() <= sim->endTime());
    QVERIFY2(sim->finished() || !sim->stopReason().empty(),
        qPrintable(QStringLiteral("stopped at %1 ns without a reason").arg(sim->now().count())));
    if (!path.contains(QLatin1String("guard")))
        QVERIFY2(sim->stopReason().empty(), sim->stopReason().c_str());
}

QTEST_APPLESS_MAIN(TestFuzzRegressions)
#include "tst_fuzzregressions.moc"
