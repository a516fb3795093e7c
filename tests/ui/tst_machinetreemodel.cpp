// SPDX-License-Identifier: GPL-2.0-or-later
// The machine tree over hand-made Scenarios: QAbstractItemModelTester on every shape, the exact
// rows and columns, and a full reset when another scenario is loaded.
#include "core/sim/scenariospec.h"
#include "ui/common/taskpalette.h"
#include "ui/machine/machinetreemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using schedlab::CgroupSpec;
using schedlab::Nanoseconds;
using schedlab::Policy;
using schedlab::Scenario;
using schedlab::TaskSpec;
using schedlab::ui::MachineTreeModel;

Q_DECLARE_METATYPE(schedlab::Scenario)

namespace {

CgroupSpec cgroup(const std::string& path, std::optional<int> weight = {})
{
    CgroupSpec c;
    c.path = path;
    c.files.weight = weight;
    return c;
}

TaskSpec task(const std::string& name, const std::string& group = {}, std::optional<int> count = {})
{
    TaskSpec t;
    t.name = name;
    if (!group.empty())
        t.cgroup = group;
    t.count = count;
    return t;
}

/// "name[weight|cpus](children…)", depth first, so one string pins the whole tree — but for
/// the group entities each cgroup lists after its tasks (one per CPU: groupEntities() checks
/// them).
QString dump(const QAbstractItemModel& model, const QModelIndex& parent = {})
{
    QStringList parts;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex name = model.index(row, MachineTreeModel::NameColumn, parent);
        if (name.data(MachineTreeModel::KindRole).toInt()
            == static_cast<int>(MachineTreeModel::NodeKind::GroupEntity))
            continue;
        QString s = name.data().toString() + QLatin1Char('[')
            + model.index(row, MachineTreeModel::WeightColumn, parent).data().toString()
            + QLatin1Char('|')
            + model.index(row, MachineTreeModel::CpusColumn, parent).data().toString()
            + QLatin1Char(']');
        if (const QString children = dump(model, name); !children.isEmpty())
            s += QLatin1Char('(') + children + QLatin1Char(')');
        parts << s;
    }
    return parts.join(QLatin1Char(','));
}

Scenario threeHogs()
{
    Scenario s;
    s.name = "default";
    s.tasks = {task("hog", {}, 3)};
    return s;
}

Scenario starvation()
{
    Scenario s;
    s.name = "cgroup-weight-starvation";
    s.machine.cpus = 4;
    s.cgroups = {cgroup("/testgroup", 2000), cgroup("/limited"), cgroup("/limited/inner")};
    TaskSpec root = task("root-spin", "/");
    root.cpus = "3";
    TaskSpec test = task("test-spin", "/testgroup");
    test.cpus = "3";
    TaskSpec sleeper = task("sleeper", "/testgroup", 2);
    sleeper.nice = 5;
    s.tasks = {root, test, sleeper};
    return s;
}

} // namespace

class TestMachineTreeModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tree_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("tasks");

        QTest::addRow("empty scenario: only the root") << Scenario{} << QStringLiteral("/[|]") << 0;
        QTest::addRow("count expands to name-1..N")
            << threeHogs()
            << QStringLiteral("/[|](hog-1[nice 0|all],hog-2[nice 0|all],hog-3[nice 0|all])") << 3;
        QTest::addRow("nested cgroups, weights, affinity")
            << starvation()
            << QStringLiteral("/[|](testgroup[2000|](test-spin[nice 0|3],sleeper-1[nice 5|all],"
                              "sleeper-2[nice 5|all]),limited[100|](inner[100|]),"
                              "root-spin[nice 0|3])")
            << 4;
        {
            // Children listed before their parent, and the root listed explicitly.
            Scenario s;
            s.cgroups = {cgroup("/a/b/c", 5), cgroup("/a/b"), cgroup("/"), cgroup("/a", 300)};
            s.tasks = {task("deep", "/a/b/c"), task("top")};
            QTest::addRow("out-of-order paths")
                << s
                << QStringLiteral("/[|](a[300|](b[100|](c[5|](deep[nice 0|all]))),top[nice 0|all])")
                << 2;
        }
        {
            Scenario s;
            TaskSpec rt = task("rt");
            rt.policy = Policy::Fifo;
            rt.rtPriority = 50;
            TaskSpec batch = task("batch");
            batch.policy = Policy::Batch;
            batch.nice = -3;
            batch.cpus = "0-1";
            CgroupSpec niced = cgroup("/niced");
            niced.files.weightNice = -5;
            s.cgroups = {niced};
            s.tasks = {rt, batch, task("lost", "/nowhere")};
            QTest::addRow("policies, cpu.weight.nice, unknown cgroup under root")
                << s
                << QStringLiteral("/[|](niced[nice -5|],rt[fifo 50|all],batch[nice -3 (batch)|0-1],"
                                  "lost[nice 0|all])")
                << 3;
        }
    }

    void spawnedTasks()
    {
        Scenario s = starvation();
        schedlab::Action late;
        late.kind = schedlab::Action::Kind::Spawn;
        late.at = Nanoseconds{30'000'000'000};
        late.spawn = {task("echo-hi", "/")};
        schedlab::Action early = late;
        early.at = Nanoseconds{5'000'000'000};
        early.spawn = {task("helper", "/testgroup")};
        schedlab::Action other;
        other.kind = schedlab::Action::Kind::Kill;
        other.task = "helper";
        s.actions = {late, other, early};

        MachineTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setScenario(&s);
        QCOMPARE(model.taskCount(), 6);
        // Created in time order after the scenario's own tasks.
        const QModelIndex helper = model.indexForTask(QStringLiteral("helper"));
        const QModelIndex echo = model.indexForTask(QStringLiteral("echo-hi"));
        QCOMPARE(helper.data(MachineTreeModel::TaskIndexRole).toInt(), 4);
        QCOMPARE(echo.data(MachineTreeModel::TaskIndexRole).toInt(), 5);
        QCOMPARE(helper.parent().data().toString(), QStringLiteral("testgroup"));
        QCOMPARE(echo.parent(), model.index(0, 0));
        QCOMPARE(echo.data(Qt::DecorationRole).value<QColor>(), schedlab::ui::taskColor(5));

        // The simulation numbers tasks as they appear; forked children can come before a spawn.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        std::vector<std::string> names = {
            "root-spin", "test-spin", "sleeper-1", "sleeper-2", "sleeper-1-child", "helper"};
        model.setTaskNames(&names);
        QCOMPARE(changed.size(), 1); // helper moved from 4 to 5
        QCOMPARE(helper.data(MachineTreeModel::TaskIndexRole).toInt(), 5);
        QCOMPARE(echo.data(MachineTreeModel::TaskIndexRole).toInt(), 5); // not spawned yet
        names.push_back("echo-hi");
        model.refreshTaskIndexes();
        QCOMPARE(changed.size(), 2);
        QCOMPARE(echo.data(MachineTreeModel::TaskIndexRole).toInt(), 6);
        QCOMPARE(echo.data(Qt::DecorationRole).value<QColor>(), schedlab::ui::taskColor(6));
        QCOMPARE(model.indexForTask(QStringLiteral("root-spin"))
                     .data(MachineTreeModel::TaskIndexRole)
                     .toInt(),
            0);
        model.refreshTaskIndexes(); // nothing new: no signal
        QCOMPARE(changed.size(), 2);
        model.setTaskNames(nullptr);

        QVERIFY(
            echo.data(Qt::ToolTipRole).toString().contains(QStringLiteral("spawned at 30.000 s")));
    }

    void tree()
    {
        QFETCH(Scenario, scenario);
        QFETCH(QString, expected);
        QFETCH(int, tasks);

        MachineTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setScenario(&scenario);
        QCOMPARE(dump(model), expected);
        QCOMPARE(model.taskCount(), tasks);
        QCOMPARE(model.columnCount(), 4);
        QCOMPARE(model.headerData(3, Qt::Horizontal).toString(), QStringLiteral("cpu.max"));
        QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Name"));
        QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("CPUs"));
    }

    void rolesAndLookup()
    {
        const Scenario s = starvation();
        MachineTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setScenario(&s);

        // Simulation indexes follow the file order, replicas expanded in place.
        const QStringList names = {QStringLiteral("root-spin"), QStringLiteral("test-spin"),
            QStringLiteral("sleeper-1"), QStringLiteral("sleeper-2")};
        for (int i = 0; i < names.size(); ++i) {
            const QModelIndex idx = model.indexForTask(names[i]);
            QVERIFY2(idx.isValid(), qPrintable(names[i]));
            QCOMPARE(idx.data(MachineTreeModel::TaskIndexRole).toInt(), i);
            QCOMPARE(idx.data(MachineTreeModel::TaskNameRole).toString(), names[i]);
            QCOMPARE(idx.data(MachineTreeModel::KindRole).toInt(),
                static_cast<int>(MachineTreeModel::NodeKind::Task));
            QVERIFY(idx.data(Qt::DecorationRole).canConvert<QColor>());
        }
        QCOMPARE(model.indexForTask(QStringLiteral("sleeper-2"))
                     .data(MachineTreeModel::CgroupPathRole)
                     .toString(),
            QStringLiteral("/testgroup"));

        const QModelIndex inner = model.indexForCgroup(QStringLiteral("/limited/inner"));
        QVERIFY(inner.isValid());
        QCOMPARE(inner.data().toString(), QStringLiteral("inner"));
        QCOMPARE(inner.parent().data().toString(), QStringLiteral("limited"));
        QCOMPARE(inner.parent().parent(), model.index(0, 0));
        QCOMPARE(inner.data(MachineTreeModel::TaskIndexRole).toInt(), -1);
        QVERIFY(model.indexForCgroup(QStringLiteral("/testgroup"))
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("cpu.weight: 2000")));
        QVERIFY(!model.indexForTask(QStringLiteral("sleeper")).isValid());
    }

    void groupEntities()
    {
        // Each cgroup but the root lists its sched entity on every CPU (4 here) after its tasks
        // and child cgroups: "/testgroup@0" … "/testgroup@3", selectable, never edited, dragged
        // or dropped on; the root has none.
        const Scenario s = starvation();
        MachineTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setScenario(&s);
        const QModelIndex group = model.indexForCgroup(QStringLiteral("/testgroup"));
        QCOMPARE(model.rowCount(group), 3 + 4); // test-spin, sleeper-1, sleeper-2, then 4 CPUs
        for (int cpu = 0; cpu < 4; ++cpu) {
            const QModelIndex e = model.index(3 + cpu, 0, group);
            const QString name = QStringLiteral("/testgroup@%1").arg(cpu);
            QCOMPARE(e.data().toString(), name);
            QCOMPARE(e.data(MachineTreeModel::KindRole).toInt(),
                static_cast<int>(MachineTreeModel::NodeKind::GroupEntity));
            QCOMPARE(e.data(MachineTreeModel::EntityNameRole).toString(), name);
            QCOMPARE(e.data(MachineTreeModel::CpuRole).toInt(), cpu);
            QCOMPARE(
                e.data(MachineTreeModel::CgroupPathRole).toString(), QStringLiteral("/testgroup"));
            QVERIFY(e.data(MachineTreeModel::TaskNameRole).toString().isEmpty());
            QCOMPARE(e.data(MachineTreeModel::TaskIndexRole).toInt(), -1);
            QCOMPARE(model.indexForGroupEntity(name), e);
            QVERIFY(e.data(Qt::ToolTipRole).toString().contains(QStringLiteral("PELT")));
            for (int column = 0; column < MachineTreeModel::ColumnCount; ++column) {
                const Qt::ItemFlags f = model.flags(model.index(3 + cpu, column, group));
                QCOMPARE(f, Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            }
            QVERIFY(!model.setData(model.index(3 + cpu, MachineTreeModel::WeightColumn, group),
                QStringLiteral("5"), Qt::EditRole));
            QVERIFY(model.mimeData({e}) == nullptr); // nothing to drag
        }
        // The nested cgroup's entities are under it, its parent's after it.
        const QModelIndex inner = model.indexForCgroup(QStringLiteral("/limited/inner"));
        QCOMPARE(model.rowCount(inner), 4);
        QCOMPARE(model.indexForGroupEntity(QStringLiteral("/limited/inner@3")).parent(), inner);
        QCOMPARE(model.indexForGroupEntity(QStringLiteral("/limited@0")).row(), 1);
        // No such CPU, no such cgroup, the root: none.
        QVERIFY(!model.indexForGroupEntity(QStringLiteral("/testgroup@4")).isValid());
        QVERIFY(!model.indexForGroupEntity(QStringLiteral("/nowhere@0")).isValid());
        QVERIFY(!model.indexForGroupEntity(QStringLiteral("/@0")).isValid());
        QCOMPARE(model.rowCount(model.index(0, 0)), 3); // testgroup, limited, root-spin
    }

    void unchangedValueIsNoEdit()
    {
        // Enter on an editor left as it was: no action (an undo step that changes nothing, a
        // re-run, and a reset that pulled the editor away). A changed nice is one action.
        const Scenario s = starvation();
        MachineTreeModel model;
        model.setScenario(&s);
        QSignalSpy requested(&model, &MachineTreeModel::actionRequested);
        const QModelIndex nice = model.indexForTask(QStringLiteral("root-spin"))
                                     .siblingAtColumn(MachineTreeModel::WeightColumn);
        QVERIFY(nice.flags() & Qt::ItemIsEditable);
        const QVariant now = nice.data(Qt::EditRole);
        QVERIFY(!model.setData(nice, now, Qt::EditRole));
        QCOMPARE(requested.count(), 0);
        model.setData(nice, now.toInt() + 1, Qt::EditRole);
        QCOMPARE(requested.count(), 1);
    }

    void idleGroupWeight()
    {
        // sched_group_set_idle(): /i (cpu.weight 300, then cpu.idle 1) weighs WEIGHT_IDLEPRIO = 3,
        // which cpu.weight reads as round(3·100/1024) = 0, clamped to 1; a cpu.weight edit is
        // refused (the kernel's EINVAL). cpu.idle 0 at 10 ms leaves NICE_0_LOAD: 100, not 300.
        Scenario s;
        CgroupSpec idle = cgroup("/i", 300);
        idle.files.idle = true;
        s.cgroups = {idle, cgroup("/n", 300)};
        schedlab::Action back;
        back.at = Nanoseconds(10'000'000);
        back.kind = schedlab::Action::Kind::Set;
        back.set.cgroup = "/i";
        back.set.files.idle = false;
        s.actions = {back};
        MachineTreeModel model;
        model.setScenario(&s);
        QSignalSpy requested(&model, &MachineTreeModel::actionRequested);
        QSignalSpy rejected(&model, &MachineTreeModel::editRejected);
        const QModelIndex root = model.index(0, 0);
        QCOMPARE(dump(model), QStringLiteral("/[|](i[1 (idle)|],n[300|])"));
        const QModelIndex weight = model.index(0, MachineTreeModel::WeightColumn, root);
        QVERIFY(weight.data(Qt::ToolTipRole).toString().contains(QStringLiteral("cpu.idle: 1")));
        QVERIFY(!model.setData(weight, 500, Qt::EditRole));
        QCOMPARE(requested.count(), 0);
        QCOMPARE(rejected.count(), 1);
        QVERIFY(rejected.at(0).at(0).toString().contains(QStringLiteral("EINVAL")));
        model.setTime(Nanoseconds(20'000'000));
        QCOMPARE(dump(model), QStringLiteral("/[|](i[100|],n[300|])"));
        QVERIFY(model.setData(
            model.index(0, MachineTreeModel::WeightColumn, model.index(0, 0)), 500, Qt::EditRole));
        QCOMPARE(requested.count(), 1);
    }

    void resetOnLoad()
    {
        const Scenario first = threeHogs();
        const Scenario second = starvation();
        MachineTreeModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setScenario(&first);
        QCOMPARE(model.rowCount(model.index(0, 0)), 3);

        QSignalSpy aboutToReset(&model, &QAbstractItemModel::modelAboutToBeReset);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setScenario(&second);
        QCOMPARE(aboutToReset.size(), 1);
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.rowCount(model.index(0, 0)), 3); // testgroup, limited, root-spin
        QVERIFY(!model.indexForTask(QStringLiteral("hog-1")).isValid());
        QVERIFY(model.indexForTask(QStringLiteral("root-spin")).isValid());

        model.setScenario(nullptr);
        QCOMPARE(reset.size(), 2);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.index(0, 0).isValid());
    }
};

QTEST_GUILESS_MAIN(TestMachineTreeModel)
#include "tst_machinetreemodel.moc"
