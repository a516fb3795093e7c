// SPDX-License-Identifier: GPL-2.0-or-later
// The consequences of an rt-app import are visible. Dropped synchronisation events
// are named by thread in an annotation that travels with the scenario, the run summary names
// the threads (and which of their tasks never switched in), and "never ran" means never switched
// in: a task switched in without a measurable nanosecond of CPU time gets its own line.
#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"
#include "support/clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace schedlab;
using test::contains;

namespace {

const std::string kVideo = SCHEDLAB_SOURCE_DIR "/tests/data/rtapp/video-short.json";

/// An rt-app file on one CPU: "a" runs, meets a barrier with "b", resumes "b" and runs again;
/// "b" meets the barrier and suspends until "a" resumes it. Without the barrier (dropped) "a"
/// runs first and resumes "b" before "b" suspends: the resume is lost and "b" is switched in
/// once, reaches its suspend at 0 ns of CPU time and never runs its 500 µs. "c" (two
/// instances) suspends on a resource nobody resumes: the same.
const char* kBarrier = R"({
  "tasks": {
    "a": { "loop": 1, "run": 1000, "barrier": "x", "resume": "b", "run": 1000 },
    "b": { "loop": 1, "barrier": "x", "suspend": "b", "run": 500 },
    "c": { "loop": 1, "instance": 2, "suspend": "c", "run": 100 }
  },
  "global": { "duration": 1 }
})";

} // namespace

class TestImportNotes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void videoShortNamesTheThreads();
    void summarySeparatesNeverRanFromNoTime();
    void noNoteWithoutDrops();
    void threadMatching();
};

void TestImportNotes::videoShortNamesTheThreads()
{
    // tests/data/rtapp/video-short.json has three "sync" events in NuPlayerDriver1 and three in
    // NuPlayerDriver2 (counted in the file by hand), none elsewhere.
    const auto r = rtapp::importRtAppFile(kVideo);
    QVERIFY(r.ok());
    const auto dropped = rtapp::droppedSyncThreads(*r.scenario);
    QCOMPARE(dropped.size(), size_t{2});
    QCOMPARE(dropped[0].first, std::string("NuPlayerDriver1"));
    QCOMPARE(dropped[0].second, std::string("sync"));
    QCOMPARE(dropped[1].first, std::string("NuPlayerDriver2"));
    // The note survives writing and reading the scenario file.
    const auto reread = parseScenario(writeScenario(*r.scenario), "x.json");
    QVERIFY(reread.ok());
    QCOMPARE(rtapp::droppedSyncThreads(*reread.scenario), dropped);
}

void TestImportNotes::summarySeparatesNeverRanFromNoTime()
{
    QTemporaryDir dir;
    const std::string in = dir.filePath("b.json").toStdString();
    const std::string out = dir.filePath("s.json").toStdString();
    std::ofstream(in) << kBarrier;
    auto imp = test::runCliCaptured({"import-rtapp", in, "--out", out});
    QCOMPARE(imp.code, 0);
    QVERIFY(contains(imp.err, "barrier"));
    auto run = test::runCliCaptured({"run", out});
    QCOMPARE(run.code, 0);
    // a and b both had their barrier dropped: one line each, in name order; b's line says it
    // was switched in without CPU time (a ran 2 ms, so a's line names nobody).
    QVERIFY2(contains(run.out,
                 "import: rt-app barrier of a dropped (not modelled: it does not wait there)\n"),
        run.out.c_str());
    QVERIFY(contains(run.out,
        "import: rt-app barrier of b dropped (not modelled: it does not "
        "wait there); switched in but no CPU time: b\n"));
    // b, c-1 and c-2 were switched in: not "never ran".
    QVERIFY(!contains(run.out, "never ran"));
    QVERIFY(contains(run.out, "switched in but no CPU time: 3 tasks (b, c-1, c-2)"));

    // Never switched in: a task that starts 100 ns before the end of the run beside a hog on one
    // CPU. It is placed at V with lag 0, RUN_TO_PARITY keeps the hog (same slice, so
    // PREEMPT_SHORT does not apply) and the next tick is at 1 s, the end.
    const std::string late = dir.filePath("late.json").toStdString();
    std::ofstream(late) << R"({ "schedlab": 1, "name": "late", "duration": "1s",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
      "tasks": [ { "name": "hog", "program": [ { "run": "forever" } ] },
                 { "name": "late", "start": "999.9999ms", "program": [ { "run": "1ms" } ] } ] })";
    run = test::runCliCaptured({"run", late});
    QCOMPARE(run.code, 0);
    QVERIFY2(contains(run.out, "never ran: 1 task (late)"), run.out.c_str());
    QVERIFY(!contains(run.out, "no CPU time"));
}

void TestImportNotes::noNoteWithoutDrops()
{
    const auto r =
        rtapp::importRtApp(R"({ "tasks": { "t": { "loop": 1, "run": 100 } } })", "t.json");
    QVERIFY(r.ok());
    QVERIFY(rtapp::droppedSyncThreads(*r.scenario).empty());
    QVERIFY(r.scenario->annotations.empty());
}

void TestImportNotes::threadMatching()
{
    QVERIFY(rtapp::taskOfThread("waker", "waker"));
    QVERIFY(rtapp::taskOfThread("c-12", "c"));
    QVERIFY(!rtapp::taskOfThread("c-x", "c"));
    QVERIFY(!rtapp::taskOfThread("cc-1", "c"));
    QVERIFY(!rtapp::taskOfThread("c-", "c"));
}

QTEST_APPLESS_MAIN(TestImportNotes)
#include "tst_importnotes.moc"
