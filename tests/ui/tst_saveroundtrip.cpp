// SPDX-License-Identifier: GPL-2.0-or-later
// Save → reopen as a property: hundreds of seeded random sequences of GUI edits (moves, cgroup
// weights, nice), rewinds and runs forward, undos and redos and branch switches, each saved as
// the GUI saves (scenarioForSaving + writeScenario). Every saved file must load, have its
// actions in time order, write back identically, and replay byte-identically to the session's
// simulation up to the session's time.
#include "core/base/prng.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/recordings.h"
#include "support/uitest.h"
#include "ui/machine/scenarioeditor.h"
#include "ui/run/simulationcontroller.h"

#include <QTest>
#include <QUndoStack>

using namespace schedlab;
using schedlab::ui::ScenarioEditor;
using schedlab::ui::SimulationController;

using schedlab::test::sameRecords;
using schedlab::test::waitIdle;

namespace {

constexpr Nanoseconds ms(int64_t v)
{
    return Nanoseconds{v * 1'000'000};
}

/// Two CPUs, /a and /b, hogs x, y (in /a), z (in /b), a sleeper w in the root; the file's own
/// actions at 10 ms (cpu.weight of /b) and 30 ms (move y to /b), so session edits before them
/// must be written before them.
Scenario scenario()
{
    const char* text = R"({ "schedlab": 1, "name": "roundtrip", "duration": "40ms",
      "machine": { "cpus": 2 },
      "cgroups": [ { "path": "/a" }, { "path": "/b" } ],
      "tasks": [
        { "name": "x", "cgroup": "/a", "program": [ { "run": "forever" } ] },
        { "name": "y", "cgroup": "/a", "program": [ { "run": "forever" } ] },
        { "name": "z", "cgroup": "/b", "program": [ { "run": "forever" } ] },
        { "name": "w", "program": [ { "loop": [ { "run": "3ms" }, { "sleep": "2ms" } ] } ] } ],
      "actions": [
        { "at": "10ms", "set": { "cgroup": "/b", "cpu.weight": 300 } },
        { "at": "30ms", "move": { "task": "y", "cgroup": "/b" } } ] })";
    LoadResult r = parseScenario(text, "roundtrip.json");
    if (!r.ok()) {
        for (const auto& e : r.errors)
            qWarning("%s", e.c_str());
        qFatal("roundtrip scenario");
    }
    return *r.scenario;
}

} // namespace

class TestSaveRoundTrip : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fileActionsStayInTimeOrder();
    void randomEditSequences();
};

// The issue's case: an edit at 0 and one at 5 ms after a file action at 30 ms: written 0, 5,
// 30 ms, and the file opens.
void TestSaveRoundTrip::fileActionsStayInTimeOrder()
{
    Scenario s = scenario();
    SimulationController c;
    QVERIFY(c.load(s));
    ScenarioEditor editor(&c);
    editor.setScenario(&s);
    Action move;
    move.kind = Action::Kind::Move;
    move.task = "z";
    move.cgroup = "/a";
    QVERIFY(editor.submit(move, QStringLiteral("move z")));
    waitIdle(c);
    c.seek(ms(5));
    waitIdle(c);
    Action weight;
    weight.kind = Action::Kind::Set;
    weight.set.cgroup = "/a";
    weight.set.files.weight = 100;
    QVERIFY(editor.submit(weight, QStringLiteral("weight")));
    waitIdle(c);
    const Scenario saved = ui::scenarioForSaving(s);
    QCOMPARE(saved.actions.size(), size_t{4});
    QCOMPARE(saved.actions[0].at, Nanoseconds{0});
    QCOMPARE(saved.actions[1].at, ms(5));
    QCOMPARE(saved.actions[2].at, ms(10));
    QCOMPARE(saved.actions[3].at, ms(30));
    const LoadResult back = parseScenario(writeScenario(saved), "saved.json");
    QVERIFY(back.ok());
}

void TestSaveRoundTrip::randomEditSequences()
{
    const std::vector<std::string> tasks{"x", "y", "z", "w"};
    const std::vector<std::string> groups{"/", "/a", "/b"};
    const Scenario original = scenario();
    const int64_t duration = original.durationOrDefault().count();
    int edits = 0, undos = 0, switches = 0;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
        Prng prng(seed);
        Scenario s = original;
        SimulationController c;
        QVERIFY(c.load(s));
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        const int steps = 3 + static_cast<int>(prng.below(6));
        for (int step = 0; step < steps; ++step) {
            switch (prng.below(7)) {
            case 0:
            case 1: // rewind or run forward to a random time
                c.seek(
                    Nanoseconds{static_cast<int64_t>(prng.below(static_cast<uint64_t>(duration)))});
                break;
            case 2: { // drag a task to a cgroup
                Action a;
                a.kind = Action::Kind::Move;
                a.task = tasks[prng.below(tasks.size())];
                a.cgroup = groups[prng.below(groups.size())];
                edits += editor.submit(a, QStringLiteral("move"));
                break;
            }
            case 3: { // cpu.weight of a group, or a task's nice
                Action a;
                a.kind = Action::Kind::Set;
                if (prng.below(2)) {
                    a.set.cgroup = groups[1 + prng.below(2)];
                    a.set.files.weight = 1 + static_cast<int>(prng.below(1000));
                } else {
                    a.set.task = tasks[prng.below(tasks.size())];
                    a.set.nice = static_cast<int>(prng.below(40)) - 20;
                }
                edits += editor.submit(a, QStringLiteral("set"));
                break;
            }
            case 4:
                if (editor.undoStack()->canUndo()) {
                    editor.undoStack()->undo();
                    ++undos;
                }
                break;
            case 5:
                if (editor.undoStack()->canRedo())
                    editor.undoStack()->redo();
                break;
            case 6: // switch to an earlier timeline, as Branches does
                if (!c.branches().empty()) {
                    waitIdle(c);
                    QVERIFY(c.switchToBranch(prng.below(c.branches().size())));
                    s = c.scenario();
                    editor.resetHistory();
                    ++switches;
                }
                break;
            }
            waitIdle(c);
        }
        const std::string text = writeScenario(ui::scenarioForSaving(s));
        const LoadResult back = parseScenario(text, "saved.json");
        QVERIFY2(back.ok(),
            qPrintable(
                QStringLiteral("seed %1: %2")
                    .arg(seed)
                    .arg(QString::fromStdString(back.errors.empty() ? "" : back.errors.front()))));
        for (size_t i = 1; i < back.scenario->actions.size(); ++i)
            QVERIFY(back.scenario->actions[i - 1].at <= back.scenario->actions[i].at);
        QCOMPARE(writeScenario(*back.scenario), text);
        // The file replays what the session runs: the session played on to the end, and the
        // saved file run from the start. (Compared at the end, not at the session's time: a
        // session paused at t has not yet run the events due at t that a replay to t has.)
        c.seek(c.endTime());
        waitIdle(c);
        QCOMPARE(c.now(), c.endTime());
        Simulation replay(*back.scenario, c.runOptions()); // the GUI's options (PELT recorded)
        replay.run();
        QVERIFY2(sameRecords(replay.recording(), c.simulation()->recording()),
            qPrintable(QStringLiteral("seed %1: the saved file replays differently").arg(seed)));
    }
    // The sequences did exercise what they are meant to.
    QVERIFY(edits > 100);
    QVERIFY(undos > 20);
    QVERIFY(switches > 5);
}

QTEST_MAIN(TestSaveRoundTrip)
#include "tst_saveroundtrip.moc"
