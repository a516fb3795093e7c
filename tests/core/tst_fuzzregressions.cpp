// SPDX-License-Identifier: GPL-2.0-or-later
// Inputs found by fuzzing (docs/limits.md, "Fuzzing"), one row per file of
// tests/data/fuzz-regressions/: the loader answers each with a scenario or with errors in the
// one-line form, and a scenario that loads runs bounded as in fuzz/fuzz_scenario_run.cpp (20 ms
// simulated, lowered resource guards) without violating an invariant, to its end. Only inputs
// whose file name contains "guard" are expected to stop early, and then with a reason.
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
};

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
