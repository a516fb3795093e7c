// SPDX-License-Identifier: GPL-2.0-or-later
// The interactive sandbox (README.md): drag and drop through the model's MIME data,
// in-place edits turned into actions, the tree showing the state at the current time, edits
// reaching the core, undo/redo, deterministic play/pause/step, rewinding (byte-identical to a
// fresh run), branches, and the features panel.
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/recordings.h"
#include "support/uitest.h"
#include "ui/machine/featurespanel.h"
#include "ui/machine/machinetreemodel.h"
#include "ui/machine/scenarioeditor.h"
#include "ui/run/simulationcontroller.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

#include <memory>

using schedlab::Action;
using schedlab::Nanoseconds;
using schedlab::Scenario;
using schedlab::Simulation;
using schedlab::ui::MachineTreeModel;
using schedlab::ui::ScenarioEditor;
using schedlab::ui::SimulationController;

Q_DECLARE_METATYPE(schedlab::Action)

using schedlab::test::sameRecords;
using schedlab::test::waitIdle;

namespace {

constexpr Nanoseconds ms(int64_t v)
{
    return Nanoseconds{v * 1'000'000};
}

schedlab::Op runForever()
{
    schedlab::Op run;
    run.kind = schedlab::Op::Kind::Run;
    run.duration = schedlab::DurationSpec::forEver();
    return run;
}

/// Two groups /a and /b on 2 CPUs; "x" and "y" in /a, "z" (count 2) in /b, "w" in the root
/// with a run/sleep loop so that wakeups (and PLACE_LAG) matter.
Scenario groups(Nanoseconds duration = ms(400))
{
    Scenario s;
    s.name = "groups";
    s.duration = duration;
    s.machine.cpus = 2;
    s.cgroups = {{"/a", {}}, {"/b", {}}};
    schedlab::TaskSpec x;
    x.name = "x";
    x.cgroup = "/a";
    x.program = {runForever()};
    schedlab::TaskSpec y = x;
    y.name = "y";
    schedlab::TaskSpec z = x;
    z.name = "z";
    z.cgroup = "/b";
    z.count = 2;
    schedlab::TaskSpec w;
    w.name = "w";
    schedlab::Op loop;
    loop.kind = schedlab::Op::Kind::Loop;
    schedlab::Op run;
    run.kind = schedlab::Op::Kind::Run;
    run.duration = schedlab::DurationSpec::fixed(Nanoseconds{3'000'000});
    schedlab::Op sleep;
    sleep.kind = schedlab::Op::Kind::Sleep;
    sleep.duration = schedlab::DurationSpec::fixed(Nanoseconds{2'000'000});
    loop.body = {run, sleep};
    w.program = {loop};
    s.tasks = {x, y, z, w};
    return s;
}

std::unique_ptr<Simulation> freshRun(const Scenario& s, Nanoseconds t)
{
    // With the options the GUI runs with (it records PELT for the timeline's PELT pane).
    auto sim = std::make_unique<Simulation>(s, SimulationController().runOptions());
    sim->runUntil(t);
    return sim;
}

const schedlab::TaskView* taskNamed(const std::vector<schedlab::TaskView>& tasks, const char* n)
{
    for (const auto& t : tasks)
        if (t.name == n)
            return &t;
    return nullptr;
}

} // namespace

class TestSandbox : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<schedlab::Action>(); }

    void dragCarriesTaskNamesAndDropMoves()
    {
        const Scenario s = groups();
        MachineTreeModel model;
        model.setScenario(&s);
        QSignalSpy requested(&model, &MachineTreeModel::actionRequested);
        const QModelIndex x = model.indexForTask(QStringLiteral("x"));
        const QModelIndex z2 = model.indexForTask(QStringLiteral("z-2"));
        QVERIFY(model.flags(x) & Qt::ItemIsDragEnabled);
        QVERIFY(!(model.flags(model.indexForCgroup(QStringLiteral("/a"))) & Qt::ItemIsDragEnabled));
        std::unique_ptr<QMimeData> data(model.mimeData({x, x.siblingAtColumn(1), z2}));
        QVERIFY(data);
        QVERIFY(data->hasFormat(QString::fromLatin1(MachineTreeModel::kTaskMimeType)));

        // Onto a task: refused. Wrong action: refused.
        QVERIFY(!model.canDropMimeData(data.get(), Qt::MoveAction, -1, 0, x));
        const QModelIndex b = model.indexForCgroup(QStringLiteral("/b"));
        QVERIFY(!model.canDropMimeData(data.get(), Qt::CopyAction, -1, 0, b));
        // Onto /b: x moves, z-2 is there already.
        QVERIFY(model.dropMimeData(data.get(), Qt::MoveAction, -1, 0, b));
        QCOMPARE(requested.size(), 1);
        const auto move = requested.at(0).at(0).value<Action>();
        QCOMPARE(move.kind, Action::Kind::Move);
        QCOMPARE(move.task, std::string("x"));
        QCOMPARE(move.cgroup, std::string("/b"));
        // The model itself does not change: the window applies the action.
        QCOMPARE(model.indexForTask(QStringLiteral("x")).parent(),
            model.indexForCgroup(QStringLiteral("/a")));

        // Foreign or malformed payloads never crash and request nothing.
        QMimeData junk;
        junk.setData(QString::fromLatin1(MachineTreeModel::kTaskMimeType), "ab"); // truncated
        QVERIFY(!model.dropMimeData(&junk, Qt::MoveAction, -1, 0, b));
        QByteArray unknownBytes;
        {
            QDataStream out(&unknownBytes, QIODevice::WriteOnly);
            out << QStringList{QStringLiteral("no-such-task")};
        }
        QMimeData unknown;
        unknown.setData(QString::fromLatin1(MachineTreeModel::kTaskMimeType), unknownBytes);
        QVERIFY(!model.dropMimeData(&unknown, Qt::MoveAction, -1, 0, b));
        QMimeData text;
        text.setText(QStringLiteral("x"));
        QVERIFY(!model.canDropMimeData(&text, Qt::MoveAction, -1, 0, b));
        QCOMPARE(requested.size(), 1);
    }

    void inPlaceEditsBecomeSetActions()
    {
        const Scenario s = groups();
        MachineTreeModel model;
        model.setScenario(&s);
        QSignalSpy requested(&model, &MachineTreeModel::actionRequested);
        QSignalSpy rejected(&model, &MachineTreeModel::editRejected);
        const QModelIndex a = model.indexForCgroup(QStringLiteral("/a"));
        const QModelIndex root = model.indexForCgroup(QStringLiteral("/"));
        const QModelIndex y = model.indexForTask(QStringLiteral("y"));

        QVERIFY(!(model.flags(root.siblingAtColumn(MachineTreeModel::WeightColumn))
            & Qt::ItemIsEditable)); // the root has no cpu.weight
        QVERIFY(model.setData(a.siblingAtColumn(MachineTreeModel::WeightColumn), 300));
        QVERIFY(!model.setData(a.siblingAtColumn(MachineTreeModel::WeightColumn), 0));
        QVERIFY(!model.setData(a.siblingAtColumn(MachineTreeModel::WeightColumn), 10001));
        QVERIFY(model.setData(
            a.siblingAtColumn(MachineTreeModel::CpuMaxColumn), QStringLiteral("50000 100000")));
        QVERIFY(!model.setData(
            a.siblingAtColumn(MachineTreeModel::CpuMaxColumn), QStringLiteral("10 100000")));
        QVERIFY(model.setData(y.siblingAtColumn(MachineTreeModel::WeightColumn), -5));
        QVERIFY(!model.setData(y.siblingAtColumn(MachineTreeModel::WeightColumn), 20));
        QVERIFY(
            model.setData(y.siblingAtColumn(MachineTreeModel::CpusColumn), QStringLiteral("1")));
        QVERIFY(!model.setData(
            y.siblingAtColumn(MachineTreeModel::CpusColumn), QStringLiteral("2"))); // 2 CPUs
        QCOMPARE(rejected.size(), 5);
        QCOMPARE(requested.size(), 4);

        const auto weight = requested.at(0).at(0).value<Action>();
        QCOMPARE(weight.kind, Action::Kind::Set);
        QCOMPARE(weight.set.cgroup, std::optional<std::string>("/a"));
        QCOMPARE(weight.set.files.weight, std::optional<int>(300));
        const auto max = requested.at(1).at(0).value<Action>();
        QCOMPARE(max.set.files.cpuMax,
            (std::optional<schedlab::CpuMax>(schedlab::CpuMax{50000, 100000})));
        const auto nice = requested.at(2).at(0).value<Action>();
        QCOMPARE(nice.set.task, std::optional<std::string>("y"));
        QCOMPARE(nice.set.nice, std::optional<int>(-5));
        const auto cpus = requested.at(3).at(0).value<Action>();
        QCOMPARE(cpus.set.cpus, std::optional<std::string>("1"));
    }

    void treeShowsTheStateAtItsTime()
    {
        Scenario s = groups();
        Action move;
        move.kind = Action::Kind::Move;
        move.at = ms(10);
        move.task = "x";
        move.cgroup = "/b";
        Action weight;
        weight.kind = Action::Kind::Set;
        weight.at = ms(20);
        weight.set.cgroup = "/b";
        weight.set.files.weight = 500;
        s.actions = {weight, move}; // not in time order in the file
        MachineTreeModel model;
        model.setScenario(&s);
        model.setTime(ms(5));
        const auto parentOfX = [&] {
            return model.indexForTask(QStringLiteral("x"))
                .parent()
                .data(MachineTreeModel::CgroupPathRole)
                .toString();
        };
        const auto weightOfB = [&] {
            return model.indexForCgroup(QStringLiteral("/b"))
                .siblingAtColumn(MachineTreeModel::WeightColumn)
                .data()
                .toString();
        };
        QCOMPARE(parentOfX(), QStringLiteral("/a"));
        QCOMPARE(weightOfB(), QStringLiteral("100"));
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setTime(ms(9)); // nothing new folded in: no reset
        QCOMPARE(resets.size(), 0);
        model.setTime(ms(10));
        QCOMPARE(resets.size(), 1);
        QCOMPARE(parentOfX(), QStringLiteral("/b"));
        QCOMPARE(model.indexForTask(QStringLiteral("x"))
                     .data(MachineTreeModel::CgroupPathRole)
                     .toString(),
            QStringLiteral("/b"));
        QCOMPARE(weightOfB(), QStringLiteral("100"));
        model.setTime(ms(25));
        QCOMPARE(weightOfB(), QStringLiteral("500"));
        model.setTime(ms(0)); // back in time: as in the file
        QCOMPARE(parentOfX(), QStringLiteral("/a"));
    }

    void editReachesTheCoreAtTheCurrentTime()
    {
        Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        c.stepBy(ms(50));
        QCOMPARE(c.now(), ms(50));

        Action move;
        move.kind = Action::Kind::Move;
        move.task = "x";
        move.cgroup = "/b";
        QVERIFY(editor.submit(move, QStringLiteral("move x")));
        waitIdle(c);
        QCOMPARE(c.now(), ms(50));
        QCOMPARE(s.actions.size(), size_t{1});
        QCOMPARE(s.actions[0].at, ms(50));
        QCOMPARE(c.scenario(), s);
        QCOMPARE(taskNamed(c.simulation()->tasks(), "x")->cgroup, std::string("/b"));

        Action weight;
        weight.kind = Action::Kind::Set;
        weight.set.cgroup = "/b";
        weight.set.files.weight = 700;
        QVERIFY(editor.submit(weight, QStringLiteral("weight")));
        waitIdle(c);
        for (const auto& g : c.simulation()->cgroups())
            if (g.path == "/b")
                QCOMPARE(g.weight, 700);

        // What is shown equals a fresh run of the edited scenario, byte for byte.
        QVERIFY(sameRecords(c.simulation()->recording(), freshRun(s, ms(50))->recording()));
        c.stepBy(ms(200));

        // Undo removes the action and re-simulates; redo brings it back.
        QCOMPARE(editor.undoStack()->count(), 2);
        editor.undoStack()->undo();
        waitIdle(c);
        QCOMPARE(s.actions.size(), size_t{1});
        editor.undoStack()->undo();
        waitIdle(c);
        QVERIFY(s.actions.empty());
        QCOMPARE(c.now(), ms(250));
        QCOMPARE(taskNamed(c.simulation()->tasks(), "x")->cgroup, std::string("/a"));
        editor.undoStack()->redo();
        waitIdle(c);
        QCOMPARE(taskNamed(c.simulation()->tasks(), "x")->cgroup, std::string("/b"));
        QCOMPARE(s.actions.size(), size_t{1});
    }

    void refusedEditLeavesNoTrace()
    {
        Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        QSignalSpy failed(&editor, &ScenarioEditor::editFailed);
        QVERIFY(!editor.removeCgroup("/a")); // has tasks
        QVERIFY(!editor.addCgroup("relative"));
        QVERIFY(!editor.addCgroup("/a"));
        QCOMPARE(failed.size(), 3);
        QCOMPARE(editor.undoStack()->count(), 0);
        QVERIFY(editor.addCgroup("/c/d")); // creates /c too
        QCOMPARE(s.cgroups.size(), size_t{4});
        QVERIFY(!editor.removeCgroup("/c")); // has a child
        QVERIFY(editor.removeCgroup("/c/d"));
        QVERIFY(editor.removeCgroup("/c"));
        QCOMPARE(s.cgroups.size(), size_t{2});
    }

    // An edit at the end of the run would be an action the loader refuses (it would never run):
    // it is refused at once, so a saved scenario always opens again.
    void editAtTheEndIsRefused()
    {
        Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        QSignalSpy failed(&editor, &ScenarioEditor::editFailed);
        c.stepBy(s.durationOrDefault());
        waitIdle(c);
        QCOMPARE(c.now(), s.durationOrDefault());
        Action move;
        move.kind = Action::Kind::Move;
        move.task = "x";
        move.cgroup = "/b";
        QVERIFY(!editor.submit(move, QStringLiteral("move x")));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("reached its end")));
        QVERIFY(s.actions.empty());
        QCOMPARE(editor.undoStack()->count(), 0);
        QVERIFY(schedlab::parseScenario(schedlab::writeScenario(s), "saved.json").ok());
        // One nanosecond before the end is still an edit.
        c.seek(s.durationOrDefault() - Nanoseconds(1));
        waitIdle(c);
        QVERIFY(editor.submit(move, QStringLiteral("move x")));
        QVERIFY(schedlab::parseScenario(schedlab::writeScenario(s), "saved.json").ok());
    }

    void playPauseStepIsDeterministic()
    {
        const Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        // A fake wall clock that moves 0.7 ms on every read: the run is cut at odd times (chunks
        // adapt to what each read says), the same way on every machine.
        auto wall = std::make_shared<qint64>(0);
        c.setClock([wall] { return *wall += 700'000; });
        c.setSpeed(2.0);
        for (int round = 0; round < 3; ++round) {
            const Nanoseconds before = c.now();
            c.play();
            QTRY_VERIFY_WITH_TIMEOUT(c.now() > before + ms(5), 120'000);
            c.pause();
            for (int i = 0; i < 7; ++i)
                c.step();
            c.stepTick();
        }
        // However the clock sliced the run, the result is the fresh run to the same time.
        QVERIFY(sameRecords(c.simulation()->recording(), freshRun(s, c.now())->recording()));
    }

    void stepTickAdvancesOneTick()
    {
        Scenario s = groups();
        s.kernel.hz = 250;
        SimulationController c;
        QVERIFY(c.load(s));
        c.stepTick();
        QCOMPARE(c.now(), ms(4));
        c.stepTick();
        QCOMPARE(c.now(), ms(8));
    }

    void rewindEqualsAFreshRun()
    {
        Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        c.stepBy(ms(30));
        Action nice;
        nice.kind = Action::Kind::Set;
        nice.set.task = "w";
        nice.set.nice = 7;
        QVERIFY(editor.submit(nice, QStringLiteral("nice")));
        waitIdle(c);
        c.stepBy(ms(170));
        QCOMPARE(c.now(), ms(200));

        QSignalSpy resets(&c, &SimulationController::simulationReset);
        c.seek(ms(80));
        waitIdle(c);
        QCOMPARE(c.now(), ms(80));
        QCOMPARE(resets.size(), 1);
        QVERIFY(sameRecords(c.simulation()->recording(), freshRun(s, ms(80))->recording()));
        const auto tasks = c.simulation()->tasks();
        const auto fresh = freshRun(s, ms(80))->tasks();
        QCOMPARE(taskNamed(tasks, "w")->nice, 7);
        QCOMPARE(taskNamed(tasks, "w")->vruntime, taskNamed(fresh, "w")->vruntime);
        // Forwards again without edits: the same as never having rewound.
        c.seek(ms(200));
        waitIdle(c);
        QVERIFY(sameRecords(c.simulation()->recording(), freshRun(s, ms(200))->recording()));
        QCOMPARE(c.rewoundFrom(), nullptr);
        QVERIFY(c.branches().empty());
    }

    void editInThePastTruncatesAndKeepsABranch()
    {
        Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        c.stepBy(ms(100));
        Action late;
        late.kind = Action::Kind::Feature;
        late.features["PLACE_LAG"] = false;
        QVERIFY(editor.submit(late, QStringLiteral("NO_PLACE_LAG")));
        waitIdle(c);
        c.stepBy(ms(100));
        const Scenario before = s;

        c.seek(ms(40));
        waitIdle(c);
        QVERIFY(c.rewoundFrom());
        QCOMPARE(c.rewoundFrom()->now(), ms(200));
        QSignalSpy branches(&c, &SimulationController::branchesChanged);
        Action early;
        early.kind = Action::Kind::Move;
        early.task = "y";
        early.cgroup = "/b";
        QVERIFY(editor.submit(early, QStringLiteral("move y")));
        waitIdle(c);
        QCOMPARE(branches.size(), 1);
        // The future edit (at 100 ms) is gone; the new one is at 40 ms.
        QCOMPARE(s.actions.size(), size_t{1});
        QCOMPARE(s.actions[0].kind, Action::Kind::Move);
        QCOMPARE(s.actions[0].at, ms(40));
        QCOMPARE(c.now(), ms(40));
        // The old timeline is kept whole, with its scenario.
        QCOMPARE(c.branches().size(), size_t{1});
        QCOMPARE(c.branches()[0].scenario, before);
        QCOMPARE(c.branches()[0].simulation->now(), ms(200));
        QVERIFY(sameRecords(
            c.branches()[0].simulation->recording(), freshRun(before, ms(200))->recording()));
        // And the current one is the fresh run of the new scenario.
        QVERIFY(sameRecords(c.simulation()->recording(), freshRun(s, ms(40))->recording()));

        // Switching swaps the two timelines.
        QVERIFY(c.switchToBranch(0));
        QCOMPARE(c.scenario(), before);
        QCOMPARE(c.now(), ms(200));
        QCOMPARE(c.branches()[0].scenario, s);
    }

    void featuresPanelTogglesBecomeActions()
    {
        Scenario s = groups();
        SimulationController c;
        QVERIFY(c.load(s));
        schedlab::ui::FeaturesPanel panel;
        panel.refresh(c.simulation(), 1000);
        QCheckBox* placeLag = panel.featureBox(QStringLiteral("PLACE_LAG"));
        QVERIFY(placeLag);
        QVERIFY(placeLag->isChecked()); // on in every profile
        QSignalSpy requested(&panel, &schedlab::ui::FeaturesPanel::actionRequested);
        placeLag->click();
        QCOMPARE(requested.size(), 1);
        const auto a = requested.at(0).at(0).value<Action>();
        QCOMPARE(a.kind, Action::Kind::Feature);
        QCOMPARE(a.features, (std::map<std::string, bool>{{"PLACE_LAG", false}}));

        // Through the editor the core turns it off, and the panel shows it.
        ScenarioEditor editor(&c);
        editor.setScenario(&s);
        c.stepBy(ms(10));
        QVERIFY(editor.submit(a, QStringLiteral("NO_PLACE_LAG")));
        waitIdle(c);
        QVERIFY(!c.simulation()->features().has(schedlab::Feature::PlaceLag));
        panel.refresh(c.simulation(), 1000);
        QVERIFY(!placeLag->isChecked());
        QCOMPARE(requested.size(), 1); // refresh does not echo as an edit
        c.seek(ms(5));                 // before the toggle
        waitIdle(c);
        panel.refresh(c.simulation(), 1000);
        QVERIFY(placeLag->isChecked());

        // A point release the profile list does not hold is shown as the run's profile.
        Scenario point = groups();
        point.kernel.profile = "6.18.15";
        SimulationController c2;
        QVERIFY(c2.load(point));
        panel.refresh(c2.simulation(), 1000);
        QCOMPARE(panel.profileBox()->currentText(), QStringLiteral("6.18.15"));
        QVERIFY(panel.featureBox(QStringLiteral("NI_RANDOM"))->isChecked()); // 6.18.5+
    }
};

QTEST_MAIN(TestSandbox)
#include "tst_sandbox.moc"
