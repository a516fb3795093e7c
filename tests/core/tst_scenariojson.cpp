// SPDX-License-Identifier: GPL-2.0-or-later
// core/scenario/scenarioio.h: loading, validating and writing scenario files
// (scenario-format.md §1). Invalid inputs must give "FILE: /json/pointer: what was expected";
// valid files must survive load -> save -> load unchanged; no input may crash the reader.
#include "core/base/limits.h"
#include "core/scenario/scenarioio.h"
#include "core/scenario/support.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace schedlab;

// Declared before the raw-string fixtures: moc 6.4 mis-tokenises \" inside R"(...)".
class TestScenarioJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void minimal();
    void specExample();
    void invalid_data();
    void invalid();
    void collectsSeveralErrors();
    void tooManyErrors();
    void roundTrip_data();
    void roundTrip();
    void writerKeyOrderMatchesSpec();
    void writerOmitsUnsetFields();
    void userKeys();
    void notices();
    void saveAndReload();
    void saveFailure();
    void loadFailure();
    void mutationsNeverCrash();
    void truncationsNeverCrash();
    void hostileInput_data();
    void hostileInput();
    void limits_data();
    void limits();
    void messagesStayOnOneLine();
    void oversizedText();
};

namespace {

const std::string kFile = "t.json";

/// A valid scenario head plus @p rest (more top-level members).
QByteArray doc(const char* rest = "")
{
    QByteArray out = R"({"schedlab": 1, "name": "t")";
    if (*rest)
        out += QByteArray(", ") + rest;
    return out + "}";
}

/// doc() with a 4-CPU machine, cgroup /a and task "a" (count 2: a-1, a-2) and task "b".
QByteArray withTasks(const char* rest = "")
{
    QByteArray out = R"("machine": {"cpus": 4}, "cgroups": [{"path": "/a"}], "tasks": [
        {"name": "a", "count": 2, "program": [{"run": "forever"}]},
        {"name": "b", "program": [{"run": "1ms"}]}])";
    if (*rest)
        out += QByteArray(", ") + rest;
    return doc(out.constData());
}

/// doc() with one task whose program is @p ops.
QByteArray program(const char* ops, const char* machine = R"({"cpus": 1})")
{
    return doc((QByteArray(R"("machine": )") + machine
        + R"(, "cgroups": [{"path": "/a"}], "tasks": [{"name": "p", "program": )" + ops + "}]")
                   .constData());
}

QString joined(const std::vector<std::string>& lines)
{
    QString out;
    for (const auto& line : lines)
        out += QString::fromStdString(line) + QLatin1Char('\n');
    return out;
}

std::string readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().toStdString();
}

QString sourcePath(const char* relative)
{
    return QStringLiteral(SCHEDLAB_SOURCE_DIR "/") + QLatin1String(relative);
}

/// Parses @p text and fails the test with all messages if it is not a valid scenario.
Scenario parseValid(const std::string& text, const std::string& file = kFile)
{
    const LoadResult result = parseScenario(text, file);
    if (!result.ok())
        qWarning().noquote() << joined(result.errors);
    [&] { QVERIFY(result.ok()); }();
    return result.scenario.value_or(Scenario{});
}

/// Every field of the format at least once (the writer must cover all of them).
const char* const kEverything = R"({
  "schedlab": 1,
  "name": "everything",
  "title": "Every field",
  "description": "Line one.\nLine two with \"quotes\" and ünïcödé.",
  "seed": 18446744073709551615,
  "duration": "1.5s",
  "kernel": {
    "profile": "6.12",
    "hz": 250,
    "preempt": "lazy",
    "base_slice": "3ms",
    "tunable_scaling": "linear",
    "features": { "DELAY_DEQUEUE": false, "PLACE_LAG": true },
    "overrides": { "flat": true, "reweight": "place" }
  },
  "machine": { "cpus": 8, "threads_per_core": 2, "cores_per_llc": 2 },
  "cgroups": [
    { "path": "/", "cpu.rt_runtime_us": 950000, "cpu.rt_period_us": 1000000 },
    { "path": "/a", "cpu.weight": 300, "cpu.max": "max 50000", "cpu.idle": 0 },
    { "path": "/a/b", "cpu.weight.nice": -5, "cpu.max": "20000 100000", "cpu.idle": true },
    { "path": "/rt", "cpu.rt_runtime_us": -1, "cpu.rt_period_us": 500000 },
    { "path": "/rt2", "cpu.rt_runtime_us": 0 }
  ],
  "tasks": [
    { "name": "all", "count": 3, "cgroup": "/a/b", "cpus": "0-3,7", "policy": "batch", "nice": -3,
      "slice": "0.1ms", "cookie": 7, "start": "2ms", "probe": true, "kernel_thread": true,
      "program": [
        { "run": { "uniform": ["0ns", "1ms"] } }, { "sleep": "1us" },
        { "loop": [ { "run": "1ms" }, { "yield": true } ], "count": 5 },
        { "lock": "m" }, { "unlock": "m" }, { "suspend": "q" }, { "resume": "q" }, { "nice": 19 },
        { "cpus": "1" }, { "cgroup": "/a" },
        { "fork": { "cgroup": "/", "cpus": "2", "policy": "rr", "rt_priority": 10, "nice": 1,
                    "slice": "100ms", "cookie": 0, "probe": true,
                    "program": [ { "fork": { "program": [ { "exit": true } ] } } ] },
          "wait": true },
        { "fork": {} },
        { "loop": [ { "sleep": { "uniform": ["1ms", "1ms"] } } ] },
        { "cookie": "create" }, { "cookie": { "share_to": "rt" } },
        { "cookie": { "share_from": "all-1.1" } },
        { "loop": [ { "yield": true } ], "for": "5s" },
        { "loop": [ { "run": "1ms" } ], "count": 2, "for": { "uniform": ["1ms", "2ms"] } },
        { "exit": true }
      ] },
    { "name": "rt", "policy": "fifo", "rt_priority": 99, "start": { "uniform": ["0s", "1s"] } },
    { "name": "idle", "policy": "idle" },
    { "name": "normal", "policy": "normal" }
  ],
  "actions": [
    { "at": "0s", "feature": { "PLACE_LAG": false, "RUN_TO_PARITY": true } },
    { "at": "1ms", "profile": "7.0" },
    { "at": "1ms", "profile": { "name": "7.1", "overrides": { "yield": "deadline_bump" } } },
    { "at": "2ms", "profile": { "overrides": { "tree_key": "vruntime" } } },
    { "at": "3ms", "set": { "cgroup": "/a", "cpu.weight": 1, "cpu.max": "1000 1000",
                            "cpu.idle": 1, "cpu.rt_runtime_us": 10, "cpu.rt_period_us": 20 } },
    { "at": "3ms", "set": { "cgroup": "/a/b", "cpu.weight.nice": 19 } },
    { "at": "3ms", "set": { "cgroup": "/", "cpu.rt_runtime_us": -1 } },
    { "at": "4ms", "set": { "task": "all-2", "nice": 0, "cpus": "5", "slice": "1ms",
                            "policy": "fifo" } },
    { "at": "5ms", "move": { "task": "rt", "cgroup": "/a" } },
    { "at": "6ms", "spawn": { "name": "late", "count": 2, "program": [ { "run": "1ms" } ] } },
    { "at": "7ms", "kill": "late-2" },
    { "at": "8ms", "set": { "task": "late-1", "nice": 4 } }
  ],
  "annotations": [ { "at": "1ms", "text": "first" }, { "at": "0s", "text": "earlier" } ],
  "x-editor": { "zoom": 3, "a": [1, 2.5, null, "s", { "deep": [[[]]] }] },
  "x-note": "kept"
})";

} // namespace

void TestScenarioJson::minimal()
{
    const Scenario s = parseValid(R"({"schedlab": 1, "name": "m"})");
    Scenario expected;
    expected.name = "m";
    QVERIFY(s == expected);
    QCOMPARE(s.seedOrDefault(), uint64_t{1});
    QCOMPARE(s.durationOrDefault().count(), int64_t{10'000'000'000});
    QCOMPARE(s.machine.cpuCount(), 1);
    QVERIFY(parseScenario(R"({"schedlab": 1, "name": "m"})", kFile).notices.empty());
}

void TestScenarioJson::specExample()
{
    const QString path = sourcePath("tests/data/scenario-spec-example.json");
    const LoadResult result = loadScenarioFile(path.toStdString());
    QVERIFY2(result.ok(), qPrintable(joined(result.errors)));
    const Scenario& s = *result.scenario;

    Scenario e;
    e.name = "cgroup-weight-starvation";
    e.title = "A cpu.weight 2000 cgroup starves the root cgroup (6.13 - 7.0)";
    e.description = "Free text shown in the GUI and the docs.";
    e.seed = 1;
    e.duration = 60_s;
    e.kernel.profile = "6.13";
    e.kernel.hz = 1000;
    e.kernel.preempt = Preempt::Voluntary;
    e.kernel.baseSlice = 700_us;
    e.kernel.tunableScaling = TunableScaling::Log;
    e.kernel.features = {{"PLACE_LAG", true}, {"RUN_TO_PARITY", true}};
    e.kernel.overrides = {{"reweight", "rescale"}};
    e.machine.cpus = 4;
    e.machine.threadsPerCore = 1;
    e.machine.coresPerLlc = 4;
    CgroupSpec testgroup{"/testgroup", {}};
    testgroup.files.weight = 2000;
    CgroupSpec limited{"/limited", {}};
    limited.files.cpuMax = CpuMax{20000, 100000};
    e.cgroups = {testgroup, limited, CgroupSpec{"/limited/inner", {}}};

    Op runForever;
    runForever.duration = DurationSpec::forEver();
    TaskSpec rootSpin;
    rootSpin.name = "root-spin";
    rootSpin.cgroup = "/";
    rootSpin.cpus = "3";
    rootSpin.program = {runForever};
    TaskSpec testSpin = rootSpin;
    testSpin.name = "test-spin";
    testSpin.cgroup = "/testgroup";
    Op run50;
    run50.duration = DurationSpec::fixed(50_us);
    Op sleep1;
    sleep1.kind = Op::Kind::Sleep;
    sleep1.duration = DurationSpec::fixed(1_s);
    Op loop;
    loop.kind = Op::Kind::Loop;
    loop.body = {run50, sleep1};
    TaskSpec sleeper;
    sleeper.name = "sleeper";
    sleeper.count = 20;
    sleeper.cgroup = "/testgroup";
    sleeper.start = DurationSpec::uniform(1_ms, 1_s);
    sleeper.program = {loop};
    e.tasks = {rootSpin, testSpin, sleeper};

    Action spawn;
    spawn.at = 30_s;
    spawn.kind = Action::Kind::Spawn;
    TaskSpec echo;
    echo.name = "echo-hi";
    echo.cgroup = "/";
    echo.cpus = "3";
    echo.probe = true;
    Op run1;
    run1.duration = DurationSpec::fixed(1_ms);
    echo.program = {run1};
    spawn.spawn = {echo};
    Action feature;
    feature.at = 40_s;
    feature.features = {{"PLACE_LAG", false}};
    Action setWeight;
    setWeight.at = 45_s;
    setWeight.kind = Action::Kind::Set;
    setWeight.set.cgroup = "/testgroup";
    setWeight.set.files.weight = 100;
    Action move;
    move.at = 50_s;
    move.kind = Action::Kind::Move;
    move.task = "root-spin";
    move.cgroup = "/testgroup";
    Action setNice;
    setNice.at = 55_s;
    setNice.kind = Action::Kind::Set;
    setNice.set.task = "root-spin";
    setNice.set.nice = 5;
    e.actions = {spawn, feature, setWeight, move, setNice};
    e.annotations = {{30_s, "echo hi is spawned on CPU 3"}};

    // Section by section first, so that a failure points at the part that differs.
    QVERIFY(s.kernel == e.kernel);
    QVERIFY(s.machine == e.machine);
    QVERIFY(s.cgroups == e.cgroups);
    QCOMPARE(s.tasks.size(), e.tasks.size());
    for (size_t i = 0; i < e.tasks.size(); ++i)
        QVERIFY2(s.tasks[i] == e.tasks[i], e.tasks[i].name.c_str());
    QCOMPARE(s.actions.size(), e.actions.size());
    for (size_t i = 0; i < e.actions.size(); ++i)
        QVERIFY2(s.actions[i] == e.actions[i], qPrintable(QString::number(i)));
    QVERIFY(s.annotations == e.annotations);
    QCOMPARE(QString::fromStdString(writeScenario(s)), QString::fromStdString(writeScenario(e)));
    QVERIFY(s == e);
}

void TestScenarioJson::invalid_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");

    // Syntax.
    QTest::addRow("malformed JSON gives line and column")
        << QByteArray("{\n  \"schedlab\": 1,\n  \"name\": x\n}")
        << "t.json: line 3, column 11: syntax error while parsing value";
    QTest::addRow("trailing comma")
        << QByteArray(R"({"schedlab": 1,})") << "t.json: line 1, column 16: syntax error";
    QTest::addRow("empty file") << QByteArray("") << "t.json: line 1, column 1: ";
    QTest::addRow("number overflow") << QByteArray("{\"schedlab\": 1,\n \"seed\": 1e400}")
                                     << "t.json: line 2, column 10: number overflow";
    QTest::addRow("duplicate key") << doc(R"("tasks": [{"name": "a", "name": "b"}])")
                                   << "t.json: /tasks/0/name: duplicate key";
    QTest::addRow("duplicate key with escaped pointer")
        << doc(R"("kernel": {"features": {"a/b": true, "a/b": false}})")
        << "t.json: /kernel/features/a~1b: duplicate key";

    // Top level.
    QTest::addRow("root is not an object")
        << QByteArray("[1]") << "t.json: /: expected a scenario object";
    QTest::addRow("missing schedlab")
        << QByteArray(R"({"name": "t"})") << "t.json: /schedlab: missing required field";
    QTest::addRow("future version") << QByteArray(R"({"schedlab": 2, "name": "t"})")
                                    << "t.json: /schedlab: unsupported format version 2";
    QTest::addRow("version as string") << QByteArray(R"({"schedlab": "1", "name": "t"})")
                                       << "t.json: /schedlab: expected the format version 1";
    QTest::addRow("missing name") << QByteArray(R"({"schedlab": 1})")
                                  << "t.json: /name: missing required field";
    QTest::addRow("empty name") << QByteArray(R"({"schedlab": 1, "name": ""})")
                                << "t.json: /name: expected a non-empty string";
    QTest::addRow("misspelt top-level field") << doc(R"("titel": "x")")
                                              << "t.json: /titel: unknown field (did you mean "
                                                 "\"title\"?)";
    QTest::addRow("unknown top-level field") << doc(R"("zzzzzz": 1)")
                                             << "t.json: /zzzzzz: unknown field (expected one of: "
                                                "schedlab, name";
    QTest::addRow("title not a string")
        << doc(R"("title": 5)") << "t.json: /title: expected a string (got 5)";
    QTest::addRow("negative seed")
        << doc(R"("seed": -1)") << "t.json: /seed: expected a non-negative integer (got -1)";
    QTest::addRow("duration without unit")
        << doc(R"("duration": 60)") << "t.json: /duration: duration needs a unit";
    QTest::addRow("duration string without unit")
        << doc(R"("duration": "60")") << "t.json: /duration: duration needs a unit";
    QTest::addRow("duration garbage")
        << doc(R"("duration": "fast")") << "t.json: /duration: expected a duration such as";
    QTest::addRow("zero duration")
        << doc(R"("duration": "0s")") << "t.json: /duration: the run must last longer than 0s";
    QTest::addRow("uniform duration at top level")
        << doc(R"("duration": {"uniform": ["1s", "2s"]})")
        << "t.json: /duration: expected a duration such as \"0.7ms\" (got an object)";

    // kernel.
    QTest::addRow("kernel not an object")
        << doc(R"("kernel": "6.13")") << "t.json: /kernel: expected an object";
    QTest::addRow("unknown profile lists the valid ones")
        << doc(R"("kernel": {"profile": "6.99"})")
        << "t.json: /kernel/profile: unknown profile \"6.99\" (known: 6.6, 6.12, 6.13, 7.0, 7.1";
    QTest::addRow("hz 200") << doc(R"("kernel": {"hz": 200})")
                            << "t.json: /kernel/hz: expected 100, 250, 300 or 1000 (got 200)";
    QTest::addRow("preempt rt") << doc(R"("kernel": {"preempt": "rt"})")
                                << "t.json: /kernel/preempt: expected none, voluntary, full or "
                                   "lazy (got \"rt\")";
    QTest::addRow("tunable_scaling") << doc(R"("kernel": {"tunable_scaling": "cubic"})")
                                     << "t.json: /kernel/tunable_scaling: expected none, log or "
                                        "linear";
    QTest::addRow("base_slice zero") << doc(R"("kernel": {"base_slice": "0s"})")
                                     << "t.json: /kernel/base_slice: expected a base slice between";
    QTest::addRow("unknown feature lists the known ones")
        << doc(R"("kernel": {"features": {"PLACE_LAGG": true}})")
        << "t.json: /kernel/features/PLACE_LAGG: unknown sched feature (known: PLACE_LAG,";
    QTest::addRow("NO_ feature spelling")
        << doc(R"("kernel": {"features": {"NO_PLACE_LAG": true}})")
        << "t.json: /kernel/features/NO_PLACE_LAG: write "
           "\"PLACE_LAG\": false";
    QTest::addRow("feature value not bool") << doc(R"("kernel": {"features": {"PLACE_LAG": 1}})")
                                            << "t.json: /kernel/features/PLACE_LAG: expected true "
                                               "or false (got 1)";
    QTest::addRow("unknown override") << doc(R"("kernel": {"overrides": {"reweigh": "place"}})")
                                      << "t.json: /kernel/overrides/reweigh: unknown behaviour "
                                         "choice \"reweigh\"";
    QTest::addRow("bad override value")
        << doc(R"("kernel": {"overrides": {"reweight": "sometimes"}})")
        << "t.json: /kernel/overrides/reweight: invalid value \"sometimes\" for reweight";
    QTest::addRow("override value not a string")
        << doc(R"("kernel": {"overrides": {"reweight": 3}})")
        << "t.json: /kernel/overrides/reweight: expected a string value";

    // machine.
    QTest::addRow("zero CPUs") << doc(R"("machine": {"cpus": 0})")
                               << "t.json: /machine/cpus: expected an integer in 1..4096 (got 0)";
    QTest::addRow("too many CPUs") << doc(R"("machine": {"cpus": 5000})")
                                   << "t.json: /machine/cpus: expected an integer in 1..4096";
    QTest::addRow("CPUs as huge float") << doc(R"("machine": {"cpus": 1e300})")
                                        << "t.json: /machine/cpus: expected an integer in 1..4096";
    QTest::addRow("fractional CPUs") << doc(R"("machine": {"cpus": 2.5})")
                                     << "t.json: /machine/cpus: expected an integer in 1..4096 "
                                        "(got 2.5)";
    QTest::addRow("threads_per_core 9") << doc(R"("machine": {"cpus": 9, "threads_per_core": 9})")
                                        << "t.json: /machine/threads_per_core: expected an "
                                           "integer in 1..8";
    QTest::addRow("CPUs not a multiple of SMT width")
        << doc(R"("machine": {"cpus": 4, "threads_per_core": 3})")
        << "t.json: /machine/cpus: 4 CPUs are not a multiple of threads_per_core 3";
    QTest::addRow("cores not a multiple of cores_per_llc")
        << doc(R"("machine": {"cpus": 4, "cores_per_llc": 3})")
        << "t.json: /machine/cores_per_llc: the machine's 4 cores are not a multiple of 3";
    QTest::addRow("capacity out of range")
        << doc(R"("machine": {"cpus": 2, "capacities": [1024, 0]})")
        << "t.json: /machine/capacities/1: expected an integer in 1..1024 (got 0)";
    QTest::addRow("capacity above 1024")
        << doc(R"("machine": {"cpus": 2, "capacities": [1025, 512]})")
        << "t.json: /machine/capacities/0: expected an integer in 1..1024 (got 1025)";
    QTest::addRow("capacities not an array")
        << doc(R"("machine": {"cpus": 2, "capacities": 512})")
        << "t.json: /machine/capacities: expected an array of CPU capacities 1–1024, one per "
           "CPU (got 512)";
    QTest::addRow("capacities of the wrong length")
        << doc(R"("machine": {"cpus": 4, "capacities": [1024, 512]})")
        << "t.json: /machine/capacities: expected one capacity per CPU (4), got 2";
    QTest::addRow("ITMT priority out of range")
        << doc(R"("machine": {"cpus": 2, "itmt_priorities": [10, -1]})")
        << "t.json: /machine/itmt_priorities/1: expected an integer in 0..65535 (got -1)";
    QTest::addRow("ITMT priorities not an array")
        << doc(R"("machine": {"cpus": 2, "itmt_priorities": {"0": 1}})")
        << "t.json: /machine/itmt_priorities: expected an array of ITMT priorities 0–65535, one "
           "per CPU (got an object)";
    QTest::addRow("ITMT priorities of the wrong length")
        << doc(R"("machine": {"cpus": 4, "itmt_priorities": [1, 2, 3]})")
        << "t.json: /machine/itmt_priorities: expected one ITMT priority per CPU (4), got 3";
    QTest::addRow("misspelt machine field") << doc(R"("machine": {"cpu": 4})")
                                            << "t.json: /machine/cpu: unknown field (did you "
                                               "mean \"cpus\"?)";

    // cgroups.
    QTest::addRow("cgroups not an array")
        << doc(R"("cgroups": {"path": "/a"})") << "t.json: /cgroups: expected an array";
    QTest::addRow("cgroup path missing") << doc(R"("cgroups": [{"cpu.weight": 10}])")
                                         << "t.json: /cgroups/0/path: missing required field";
    QTest::addRow("relative cgroup path") << doc(R"("cgroups": [{"path": "a"}])")
                                          << "t.json: /cgroups/0/path: a cgroup path must be "
                                             "absolute";
    QTest::addRow("trailing slash") << doc(R"("cgroups": [{"path": "/a/"}])")
                                    << "t.json: /cgroups/0/path: a cgroup path must not end with";
    QTest::addRow("dot-dot in path") << doc(R"("cgroups": [{"path": "/a/../b"}])")
                                     << "t.json: /cgroups/0/path: \".\" and \"..\" are not allowed";
    QTest::addRow("unknown parent") << doc(R"("cgroups": [{"path": "/a/b"}])")
                                    << "t.json: /cgroups/0/path: parent cgroup \"/a\" is not "
                                       "listed before it";
    QTest::addRow("child before parent")
        << doc(R"("cgroups": [{"path": "/a/b"}, {"path": "/a"}])")
        << "t.json: /cgroups/0/path: parent cgroup \"/a\" is not listed before it";
    QTest::addRow("duplicate cgroup") << doc(R"("cgroups": [{"path": "/a"}, {"path": "/a"}])")
                                      << "t.json: /cgroups/1/path: duplicate cgroup \"/a\" "
                                         "(already at /cgroups/0)";
    QTest::addRow("cpu.weight too large")
        << doc(R"("cgroups": [{"path": "/a", "cpu.weight": 20000}])")
        << "t.json: /cgroups/0/cpu.weight: expected an integer "
           "in 1..10000 (got 20000)";
    QTest::addRow("cpu.weight zero") << doc(R"("cgroups": [{"path": "/a", "cpu.weight": 0}])")
                                     << "t.json: /cgroups/0/cpu.weight: expected an integer in "
                                        "1..10000 (got 0)";
    QTest::addRow("cpu.weight as string")
        << doc(R"("cgroups": [{"path": "/a", "cpu.weight": "100"}])")
        << "t.json: /cgroups/0/cpu.weight: expected an integer "
           "in 1..10000 (got \"100\")";
    QTest::addRow("cpu.weight.nice 20")
        << doc(R"("cgroups": [{"path": "/a", "cpu.weight.nice": 20}])")
        << "t.json: /cgroups/0/cpu.weight.nice: expected an integer in -20..19 (got 20)";
    QTest::addRow("cpu.weight and cpu.weight.nice")
        << doc(R"("cgroups": [{"path": "/a", "cpu.weight": 100, "cpu.weight.nice": 0}])")
        << "t.json: /cgroups/0/cpu.weight.nice: cpu.weight and cpu.weight.nice are the same";
    QTest::addRow("cpu.max quota too small")
        << doc(R"("cgroups": [{"path": "/a", "cpu.max": "500 100000"}])")
        << "t.json: /cgroups/0/cpu.max: quota 500 is outside 1000..1000000 us";
    QTest::addRow("cpu.max period too large")
        << doc(R"("cgroups": [{"path": "/a", "cpu.max": "max 2000000"}])")
        << "t.json: /cgroups/0/cpu.max: period 2000000 is outside 1000..1000000 us";
    QTest::addRow("cpu.max garbage") << doc(R"("cgroups": [{"path": "/a", "cpu.max": "lots"}])")
                                     << "t.json: /cgroups/0/cpu.max: expected \"QUOTA PERIOD\"";
    QTest::addRow("cpu.max as number") << doc(R"("cgroups": [{"path": "/a", "cpu.max": 20000}])")
                                       << "t.json: /cgroups/0/cpu.max: expected a string (got "
                                          "20000)";
    QTest::addRow("cpu.idle 2") << doc(R"("cgroups": [{"path": "/a", "cpu.idle": 2}])")
                                << "t.json: /cgroups/0/cpu.idle: expected 0, 1, true or false "
                                   "(got 2)";
    QTest::addRow("rt runtime above period")
        << doc(R"("cgroups": [{"path": "/a", "cpu.rt_runtime_us": 200000,
                               "cpu.rt_period_us": 100000}])")
        << "t.json: /cgroups/0/cpu.rt_runtime_us: expected -1 (unlimited) or 0..100000";
    QTest::addRow("rt runtime -2") << doc(R"("cgroups": [{"path": "/a", "cpu.rt_runtime_us": -2}])")
                                   << "t.json: /cgroups/0/cpu.rt_runtime_us: expected -1 "
                                      "(unlimited) or 0..1000000";
    QTest::addRow("rt period zero") << doc(R"("cgroups": [{"path": "/a", "cpu.rt_period_us": 0}])")
                                    << "t.json: /cgroups/0/cpu.rt_period_us: expected an integer "
                                       "in 1..2147483647 (got 0)";
    QTest::addRow("cpu.weight on the root") << doc(R"("cgroups": [{"path": "/", "cpu.weight": 5}])")
                                            << "t.json: /cgroups/0/cpu.weight: the root cgroup "
                                               "has no cpu.weight";
    QTest::addRow("misspelt cgroup file") << doc(R"("cgroups": [{"path": "/a", "cpu.weigth": 5}])")
                                          << "t.json: /cgroups/0/cpu.weigth: unknown field (did "
                                             "you mean \"cpu.weight\"?)";

    // tasks.
    QTest::addRow("tasks not an array") << doc(R"("tasks": {})")
                                        << "t.json: /tasks: expected an array of tasks (got an "
                                           "object)";
    QTest::addRow("task not an object")
        << doc(R"("tasks": ["a"])") << "t.json: /tasks/0: expected a task";
    QTest::addRow("task without name")
        << doc(R"("tasks": [{"program": []}])") << "t.json: /tasks/0/name: missing required field";
    QTest::addRow("CPU beyond the machine (the spec's example)")
        << doc(R"("machine": {"cpus": 4}, "tasks": [{"name": "a"}, {"name": "b"},
                  {"name": "c", "cpus": "7"}])")
        << "t.json: /tasks/2/cpus: CPU 7 does not exist (machine has 4 CPUs)";
    QTest::addRow("default machine has one CPU") << doc(R"("tasks": [{"name": "a", "cpus": "1"}])")
                                                 << "t.json: /tasks/0/cpus: CPU 1 does not exist";
    QTest::addRow("bad cpulist") << doc(R"("tasks": [{"name": "a", "cpus": "0-"}])")
                                 << "t.json: /tasks/0/cpus: expected a CPU list";
    QTest::addRow("cpus as number") << doc(R"("tasks": [{"name": "a", "cpus": 0}])")
                                    << "t.json: /tasks/0/cpus: expected a CPU list such as "
                                       "\"0-3,7\" (got 0)";
    QTest::addRow("duplicate task name") << doc(R"("tasks": [{"name": "a"}, {"name": "a"}])")
                                         << "t.json: /tasks/1/name: duplicate task name \"a\"";
    QTest::addRow("duplicate name after count expansion")
        << doc(R"("tasks": [{"name": "a", "count": 2}, {"name": "a-2"}])")
        << "t.json: /tasks/1/name: duplicate task name \"a-2\"";
    QTest::addRow("count expansion clashes with an earlier name")
        << doc(R"("tasks": [{"name": "a-2"}, {"name": "a", "count": 2}])")
        << "t.json: /tasks/1/name: duplicate task name \"a-2\" (count 2 makes a-1 ... a-2)";
    QTest::addRow("two counted entries with one base")
        << doc(R"("tasks": [{"name": "a", "count": 2}, {"name": "a", "count": 5}])")
        << "t.json: /tasks/1/name: duplicate task name \"a-1\"";
    QTest::addRow("name with dashes inside a counted range")
        << doc(R"("tasks": [{"name": "a-b", "count": 10}, {"name": "a-b-10"}])")
        << "t.json: /tasks/1/name: duplicate task name \"a-b-10\"";
    QTest::addRow("count zero") << doc(R"("tasks": [{"name": "a", "count": 0}])")
                                << "t.json: /tasks/0/count: expected an integer in 1..100000 "
                                   "(got 0)";
    QTest::addRow("count huge") << doc(R"("tasks": [{"name": "a", "count": 100000000000}])")
                                << "t.json: /tasks/0/count: expected an integer in 1..100000";
    QTest::addRow("unknown cgroup") << doc(R"("tasks": [{"name": "a", "cgroup": "/nope"}])")
                                    << "t.json: /tasks/0/cgroup: unknown cgroup \"/nope\"";
    QTest::addRow("policy deadline") << doc(R"("tasks": [{"name": "a", "policy": "deadline"}])")
                                     << "t.json: /tasks/0: policy deadline needs \"runtime\" (a "
                                        "duration)";
    QTest::addRow("policy bogus") << doc(R"("tasks": [{"name": "a", "policy": "edf"}])")
                                  << "t.json: /tasks/0/policy: expected normal, batch, idle, "
                                     "fifo, rr or deadline (got \"edf\")";
    QTest::addRow("nice 20") << doc(R"("tasks": [{"name": "a", "nice": 20}])")
                             << "t.json: /tasks/0/nice: expected an integer in -20..19 (got 20)";
    QTest::addRow("nice as float") << doc(R"("tasks": [{"name": "a", "nice": 2.5}])")
                                   << "t.json: /tasks/0/nice: expected an integer in -20..19 "
                                      "(got 2.5)";
    QTest::addRow("rt_priority without RT policy")
        << doc(R"("tasks": [{"name": "a", "rt_priority": 5}])")
        << "t.json: /tasks/0/rt_priority: only valid with policy fifo or rr";
    QTest::addRow("rt_priority 100") << doc(R"("tasks": [{"name": "a", "policy": "fifo",
                                                          "rt_priority": 100}])")
                                     << "t.json: /tasks/0/rt_priority: expected an integer in "
                                        "1..99 (got 100)";
    QTest::addRow("slice too long") << doc(R"("tasks": [{"name": "a", "slice": "200ms"}])")
                                    << "t.json: /tasks/0/slice: expected a slice between 0.1ms "
                                       "and 100ms (got \"200ms\")";
    QTest::addRow("slice too short") << doc(R"("tasks": [{"name": "a", "slice": "50us"}])")
                                     << "t.json: /tasks/0/slice: expected a slice between 0.1ms "
                                        "and 100ms (got \"50us\")";
    QTest::addRow("negative cookie") << doc(R"("tasks": [{"name": "a", "cookie": -3}])")
                                     << "t.json: /tasks/0/cookie: expected a non-negative integer "
                                        "(got -3)";
    QTest::addRow("start forever") << doc(R"("tasks": [{"name": "a", "start": "forever"}])")
                                   << "t.json: /tasks/0/start: \"forever\" is only allowed for run";
    QTest::addRow("uniform reversed")
        << doc(R"("tasks": [{"name": "a", "start": {"uniform": ["1s", "1ms"]}}])")
        << "t.json: /tasks/0/start/uniform: lower bound 1s exceeds upper bound 1ms";
    QTest::addRow("uniform with one bound")
        << doc(R"("tasks": [{"name": "a", "start": {"uniform": ["1s"]}}])")
        << "t.json: /tasks/0/start/uniform: expected [lo, hi]";
    QTest::addRow("uniform bound without unit")
        << doc(R"("tasks": [{"name": "a", "start": {"uniform": [1, "2ms"]}}])")
        << "t.json: /tasks/0/start/uniform/0: duration needs a unit";
    QTest::addRow("uniform misspelt")
        << doc(R"("tasks": [{"name": "a", "start": {"unifrom": []}}])")
        << "t.json: /tasks/0/start/unifrom: unknown field (did you "
           "mean \"uniform\"?)";
    QTest::addRow("probe not bool") << doc(R"("tasks": [{"name": "a", "probe": "yes"}])")
                                    << "t.json: /tasks/0/probe: expected true or false (got "
                                       "\"yes\")";
    QTest::addRow("misspelt task field") << doc(R"("tasks": [{"name": "a", "progam": []}])")
                                         << "t.json: /tasks/0/progam: unknown field (did you mean "
                                            "\"program\"?)";
    QTest::addRow("too many tasks in total")
        << doc(R"("tasks": [{"name": "a", "count": 100000}, {"name": "k", "count": 1}])")
        << "t.json: /tasks/1: more than 100000 tasks in one scenario";

    // Program operations.
    QTest::addRow("program not an array") << program(R"({"run": "1ms"})")
                                          << "t.json: /tasks/0/program: expected a list of "
                                             "operations";
    QTest::addRow("op not an object")
        << program(R"(["run"])") << "t.json: /tasks/0/program/0: expected an operation";
    QTest::addRow("op without verb") << program(R"([{}])")
                                     << "t.json: /tasks/0/program/0: expected one operation: run, "
                                        "sleep, loop";
    QTest::addRow("two verbs in one op") << program(R"([{"run": "1ms", "sleep": "1ms"}])")
                                         << "t.json: /tasks/0/program/0: more than one operation "
                                            "in one step (run, sleep)";
    QTest::addRow("misspelt verb") << program(R"([{"rnu": "1ms"}])")
                                   << "t.json: /tasks/0/program/0/rnu: unknown field (did you mean "
                                      "\"run\"?)";
    QTest::addRow("run without unit")
        << program(R"([{"run": 5}])") << "t.json: /tasks/0/program/0/run: duration needs a unit";
    QTest::addRow("run negative") << program(R"([{"run": "-5ms"}])")
                                  << "t.json: /tasks/0/program/0/run: duration must not be "
                                     "negative";
    QTest::addRow("sleep forever") << program(R"([{"sleep": "forever"}])")
                                   << "t.json: /tasks/0/program/0/sleep: \"forever\" is only "
                                      "allowed for run";
    QTest::addRow("loop count zero") << program(R"([{"loop": [{"run": "1ms"}], "count": 0}])")
                                     << "t.json: /tasks/0/program/0/count: expected an integer in "
                                        "1..1000000000 (got 0)";
    QTest::addRow("count beside run") << program(R"([{"run": "1ms", "count": 2}])")
                                      << "t.json: /tasks/0/program/0/count: only allowed beside "
                                         "\"loop\"";
    QTest::addRow("wait beside run") << program(R"([{"run": "1ms", "wait": true}])")
                                     << "t.json: /tasks/0/program/0/wait: only allowed beside "
                                        "\"fork\"";
    QTest::addRow("empty loop") << program(R"([{"loop": []}])")
                                << "t.json: /tasks/0/program/0/loop: a loop needs at least one "
                                   "operation";
    QTest::addRow("endless loop that takes no time") << program(R"([{"loop": [{"yield": true}]}])")
                                                     << "t.json: /tasks/0/program/0/loop: an "
                                                        "endless loop needs a run or sleep";
    QTest::addRow("loop error inside") << program(R"([{"loop": [{"run": "1ms"}, {"jump": 1}]}])")
                                       << "t.json: /tasks/0/program/0/loop/1/jump: unknown field";
    QTest::addRow("cookie verb unknown")
        << program(R"([{"cookie": "destroy"}])")
        << "t.json: /tasks/0/program/0/cookie: expected \"create\", { \"share_to\": TASK } or "
           "{ \"share_from\": TASK } (got \"destroy\")";
    QTest::addRow("cookie number") << program(R"([{"cookie": 3}])")
                                   << "t.json: /tasks/0/program/0/cookie: expected \"create\", { "
                                      "\"share_to\": TASK } or { \"share_from\": TASK } (got 3)";
    QTest::addRow("cookie two commands")
        << program(R"([{"cookie": {"share_to": "a", "share_from": "b"}}])")
        << "t.json: /tasks/0/program/0/cookie: expected \"create\", { \"share_to\": TASK } or "
           "{ \"share_from\": TASK }";
    QTest::addRow("cookie misspelt command") << program(R"([{"cookie": {"share_too": "a"}}])")
                                             << "t.json: /tasks/0/program/0/cookie/share_too: "
                                                "unknown field (did you mean \"share_to\"?)";
    QTest::addRow("cookie empty task")
        << program(R"([{"cookie": {"share_from": ""}}])")
        << "t.json: /tasks/0/program/0/cookie/share_from: expected a "
           "non-empty string";
    QTest::addRow("for beside run")
        << program(R"([{"run": "1ms", "for": "1s"}])")
        << "t.json: /tasks/0/program/0/for: only allowed beside \"loop\"";
    QTest::addRow("for without unit") << program(R"([{"loop": [{"run": "1ms"}], "for": 5}])")
                                      << "t.json: /tasks/0/program/0/for: duration needs a unit";
    QTest::addRow("for loop that takes no time")
        << program(R"([{"loop": [{"nice": 1}], "for": "1s"}])")
        << "t.json: /tasks/0/program/0/loop: a loop with \"for\" needs a run, sleep or yield that "
           "takes time (else simulated time never advances)";
    QTest::addRow("yield false") << program(R"([{"yield": false}])")
                                 << "t.json: /tasks/0/program/0/yield: expected true (got false)";
    QTest::addRow("exit with a code")
        << program(R"([{"exit": 1}])") << "t.json: /tasks/0/program/0/exit: expected true (got 1)";
    QTest::addRow("lock without name") << program(R"([{"lock": ""}])")
                                       << "t.json: /tasks/0/program/0/lock: expected a non-empty "
                                          "string";
    QTest::addRow("unlock with a number")
        << program(R"([{"unlock": 1}])") << "t.json: /tasks/0/program/0/unlock: expected a string";
    QTest::addRow("suspend without name") << program(R"([{"suspend": ""}])")
                                          << "t.json: /tasks/0/program/0/suspend: expected a "
                                             "non-empty string";
    QTest::addRow("resume with true") << program(R"([{"resume": true}])")
                                      << "t.json: /tasks/0/program/0/resume: expected a string";
    QTest::addRow("empty kernel section") << program(R"([{"kernel": []}])")
                                          << "t.json: /tasks/0/program/0/kernel: a kernel "
                                             "section needs at least one operation";
    QTest::addRow("kernel section not a list")
        << program(R"([{"kernel": {"run": "1ms"}}])")
        << "t.json: /tasks/0/program/0/kernel: expected a list of operations";
    QTest::addRow("kernel error inside")
        << program(R"([{"kernel": [{"lock": "f"}, {"run": 5}]}])")
        << "t.json: /tasks/0/program/0/kernel/1/run: duration needs a unit";
    QTest::addRow("count beside kernel")
        << program(R"([{"kernel": [{"run": "1ms"}], "count": 2}])")
        << "t.json: /tasks/0/program/0/count: only allowed beside \"loop\"";
    QTest::addRow("fork with a name") << program(R"([{"fork": {"name": "child"}}])")
                                      << "t.json: /tasks/0/program/0/fork/name: not allowed in a "
                                         "fork";
    QTest::addRow("fork of a kernel thread")
        << program(R"([{"fork": {"kernel_thread": true}}])")
        << "t.json: /tasks/0/program/0/fork/kernel_thread: not allowed in a fork: a task does not "
           "fork a kernel thread";
    QTest::addRow("kernel_thread not bool")
        << doc(R"("tasks": [{"name": "k", "kernel_thread": 1}])")
        << "t.json: /tasks/0/kernel_thread: expected true or false";
    QTest::addRow("fork wait not bool")
        << program(R"([{"fork": {}, "wait": "yes"}])")
        << "t.json: /tasks/0/program/0/wait: expected true or false";
    QTest::addRow("fork child error") << program(R"([{"fork": {"nice": -21}}])")
                                      << "t.json: /tasks/0/program/0/fork/nice: expected an "
                                         "integer in -20..19 (got -21)";
    QTest::addRow("fork child rt_priority without RT policy")
        << program(R"([{"fork": {"rt_priority": 3}}])")
        << "t.json: /tasks/0/program/0/fork/rt_priority: only valid with policy fifo or rr";
    QTest::addRow("op nice out of range") << program(R"([{"nice": 50}])")
                                          << "t.json: /tasks/0/program/0/nice: expected an "
                                             "integer in -20..19 (got 50)";
    QTest::addRow("op cpus beyond machine") << program(R"([{"cpus": "9"}])", R"({"cpus": 2})")
                                            << "t.json: /tasks/0/program/0/cpus: CPU 9 does not "
                                               "exist (machine has 2 CPUs)";
    QTest::addRow("op cgroup unknown") << program(R"([{"cgroup": "/x"}])")
                                       << "t.json: /tasks/0/program/0/cgroup: unknown cgroup "
                                          "\"/x\"";
    QByteArray deep = "[{\"run\": \"1ms\"}]";
    for (int i = 0; i < 40; ++i)
        deep = "[{\"loop\": " + deep + "}]";
    QTest::addRow("loops nested too deep")
        << program(deep.constData()) << "loops and forks are nested more than 32 levels deep";

    // actions.
    QTest::addRow("actions not an array") << withTasks(R"("actions": {"at": "1s"})")
                                          << "t.json: /actions: expected an array of actions";
    QTest::addRow("action without at") << withTasks(R"("actions": [{"kill": "b"}])")
                                       << "t.json: /actions/0/at: missing required field";
    QTest::addRow("action at without unit") << withTasks(R"("actions": [{"at": 1, "kill": "b"}])")
                                            << "t.json: /actions/0/at: duration needs a unit";
    QTest::addRow("action without verb") << withTasks(R"("actions": [{"at": "1s"}])")
                                         << "t.json: /actions/0: expected one action: feature, "
                                            "profile, set, move, spawn or kill";
    QTest::addRow("two verbs in one action")
        << withTasks(R"("actions": [{"at": "1s", "kill": "b", "move": {}}])")
        << "t.json: /actions/0: more than one action in one entry";
    QTest::addRow("misspelt action verb") << withTasks(R"("actions": [{"at": "1s", "kil": "b"}])")
                                          << "t.json: /actions/0/kil: unknown field (did you mean "
                                             "\"kill\"?)";
    QTest::addRow("actions out of order")
        << withTasks(R"("actions": [{"at": "2s", "kill": "b"}, {"at": "1s", "kill": "a-1"}])")
        << "t.json: /actions/1/at: actions must be in time order (the previous one is at 2s)";
    QTest::addRow("kill unknown task") << withTasks(R"("actions": [{"at": "1s", "kill": "ghost"}])")
                                       << "t.json: /actions/0/kill: unknown task \"ghost\"";
    QTest::addRow("kill the base name of a counted task")
        << withTasks(R"("actions": [{"at": "1s", "kill": "a"}])")
        << "t.json: /actions/0/kill: unknown task \"a\" (it has a count: its tasks are a-1 ... "
           "a-2)";
    QTest::addRow("kill before the spawn") << withTasks(R"("actions": [{"at": "1s", "kill": "late"},
                                    {"at": "2s", "spawn": {"name": "late"}}])")
                                           << "t.json: /actions/0/kill: unknown task \"late\"";
    QTest::addRow("feature action unknown feature")
        << withTasks(R"("actions": [{"at": "1s", "feature": {"FOO": true}}])")
        << "t.json: /actions/0/feature/FOO: unknown sched feature";
    QTest::addRow("feature action empty")
        << withTasks(R"("actions": [{"at": "1s", "feature": {}}])")
        << "t.json: /actions/0/feature: expected at least one "
           "feature";
    QTest::addRow("profile action unknown profile")
        << withTasks(R"("actions": [{"at": "1s", "profile": "8.0"}])")
        << "t.json: /actions/0/profile: unknown profile \"8.0\" (known: 6.6";
    QTest::addRow("profile action object with unknown profile")
        << withTasks(R"("actions": [{"at": "1s", "profile": {"name": "8.0"}}])")
        << "t.json: /actions/0/profile/name: unknown profile \"8.0\"";
    QTest::addRow("profile action bad override")
        << withTasks(R"("actions": [{"at": "1s", "profile": {"overrides": {"tree_key": "x"}}}])")
        << "t.json: /actions/0/profile/overrides/tree_key: invalid value \"x\" for tree_key";
    QTest::addRow("profile action empty object")
        << withTasks(R"("actions": [{"at": "1s", "profile": {}}])")
        << "t.json: /actions/0/profile: expected \"name\" and/or non-empty \"overrides\"";
    QTest::addRow("profile action with empty overrides")
        << withTasks(R"("actions": [{"at": "1s", "profile": {"overrides": {}}}])")
        << "t.json: /actions/0/profile: expected \"name\" and/or non-empty \"overrides\"";
    QTest::addRow("set with cgroup and task")
        << withTasks(R"("actions": [{"at": "1s", "set": {"cgroup": "/a", "task": "b"}}])")
        << "t.json: /actions/0/set: give either \"cgroup\" or \"task\", not both";
    QTest::addRow("set with neither")
        << withTasks(R"("actions": [{"at": "1s", "set": {"nice": 1}}])")
        << "t.json: /actions/0/set: expected \"cgroup\"";
    QTest::addRow("set cgroup with a task field")
        << withTasks(R"("actions": [{"at": "1s", "set": {"cgroup": "/a", "nice": 1}}])")
        << "t.json: /actions/0/set/nice: only allowed with \"task\"";
    QTest::addRow("set task with a cgroup file")
        << withTasks(R"("actions": [{"at": "1s", "set": {"task": "b", "cpu.weight": 1}}])")
        << "t.json: /actions/0/set/cpu.weight: only allowed with \"cgroup\"";
    QTest::addRow("set nothing") << withTasks(R"("actions": [{"at": "1s", "set": {"task": "b"}}])")
                                 << "t.json: /actions/0/set: nothing to set";
    QTest::addRow("set cgroup weight out of range")
        << withTasks(R"("actions": [{"at": "1s", "set": {"cgroup": "/a", "cpu.weight": 0}}])")
        << "t.json: /actions/0/set/cpu.weight: expected an integer in 1..10000 (got 0)";
    QTest::addRow("set weight of the root")
        << withTasks(R"("actions": [{"at": "1s", "set": {"cgroup": "/", "cpu.weight": 5}}])")
        << "t.json: /actions/0/set/cpu.weight: the root cgroup has no cpu.weight";
    QTest::addRow("set task unknown") << withTasks(R"("actions": [{"at": "1s", "set": {"task": "x",
                                                                              "nice": 1}}])")
                                      << "t.json: /actions/0/set/task: unknown task \"x\"";
    QTest::addRow("set task slice out of range")
        << withTasks(R"("actions": [{"at": "1s", "set": {"task": "b", "slice": "1s"}}])")
        << "t.json: /actions/0/set/slice: expected a slice between 0.1ms and 100ms";
    QTest::addRow("set task policy") << withTasks(R"("actions": [{"at": "1s", "set": {"task": "b",
                                                                             "policy": "dl"}}])")
                                     << "t.json: /actions/0/set/policy: expected normal, batch";
    QTest::addRow("move to unknown cgroup")
        << withTasks(R"("actions": [{"at": "1s", "move": {"task": "b", "cgroup": "/nope"}}])")
        << "t.json: /actions/0/move/cgroup: unknown cgroup \"/nope\"";
    QTest::addRow("move without task")
        << withTasks(R"("actions": [{"at": "1s", "move": {"cgroup": "/a"}}])")
        << "t.json: /actions/0/move/task: missing required field";
    QTest::addRow("spawn existing name")
        << withTasks(R"("actions": [{"at": "1s", "spawn": {"name": "b"}}])")
        << "t.json: /actions/0/spawn/name: duplicate task name \"b\"";
    QTest::addRow("spawn with start")
        << withTasks(R"("actions": [{"at": "1s", "spawn": {"name": "z",
                                                                              "start": "1s"}}])")
        << "t.json: /actions/0/spawn/start: not allowed in a spawn";
    QTest::addRow("spawn without name") << withTasks(R"("actions": [{"at": "1s", "spawn": {}}])")
                                        << "t.json: /actions/0/spawn/name: missing required field";
    QTest::addRow("kill with a number") << withTasks(R"("actions": [{"at": "1s", "kill": 3}])")
                                        << "t.json: /actions/0/kill: expected a string (got 3)";

    // annotations.
    QTest::addRow("annotation without text") << doc(R"("annotations": [{"at": "1s"}])")
                                             << "t.json: /annotations/0/text: missing required "
                                                "field";
    QTest::addRow("annotation at without unit") << doc(R"("annotations": [{"at": 1, "text": "x"}])")
                                                << "t.json: /annotations/0/at: duration needs a "
                                                   "unit";
    QTest::addRow("annotation unknown field")
        << doc(R"("annotations": [{"at": "1s", "text": "x", "colour": "red"}])")
        << "t.json: /annotations/0/colour: unknown field";
    QTest::addRow("x- value nested too deep") << doc(
        (QByteArray(R"("x-deep": )") + QByteArray(300, '[') + QByteArray(300, ']'))
            .constData()) << "t.json: /x-deep: nested more than 256 levels deep";
}

void TestScenarioJson::invalid()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);

    const LoadResult result = parseScenario(json.toStdString(), kFile);
    QVERIFY(!result.ok());
    QVERIFY(!result.errors.empty());
    const bool found = std::any_of(result.errors.begin(), result.errors.end(),
        [&](const auto& e) { return QString::fromStdString(e).contains(expected); });
    QVERIFY2(found, qPrintable("expected \"" + expected + "\", got:\n" + joined(result.errors)));
    for (const auto& error : result.errors)
        QVERIFY2(error.starts_with(kFile + ": ") && error.find('\n') == std::string::npos,
            error.c_str());
}

void TestScenarioJson::collectsSeveralErrors()
{
    const LoadResult result = parseScenario(
        doc(R"("duration": 5, "machine": {"cpus": 0}, "tasks": [{"name": "a", "nice": 99},
               {"name": "b", "program": [{"sleep": "forever"}]}])")
            .toStdString(),
        kFile);
    QVERIFY(!result.ok());
    const QString all = joined(result.errors);
    QVERIFY2(all.contains("t.json: /duration: duration needs a unit"), qPrintable(all));
    QVERIFY2(all.contains("t.json: /machine/cpus: expected an integer"), qPrintable(all));
    QVERIFY2(all.contains("t.json: /tasks/0/nice: expected an integer"), qPrintable(all));
    QVERIFY2(all.contains("t.json: /tasks/1/program/0/sleep: "), qPrintable(all));
    QCOMPARE(result.errors.size(), size_t{4});
}

void TestScenarioJson::tooManyErrors()
{
    QByteArray tasks = R"("tasks": [)";
    for (int i = 0; i < 200; ++i)
        tasks += QByteArray(i ? "," : "") + R"({"name": "t)" + QByteArray::number(i)
            + R"(", "nice": 100})";
    tasks += "]";
    const LoadResult result = parseScenario(doc(tasks.constData()).toStdString(), kFile);
    QVERIFY(!result.ok());
    QCOMPARE(result.errors.size(), size_t{51});
    QCOMPARE(QString::fromStdString(result.errors.back()),
        QStringLiteral("t.json: too many errors, the rest are not shown"));
}

void TestScenarioJson::roundTrip_data()
{
    QTest::addColumn<QByteArray>("json");

    // Shipped scenarios and the GUI's default document.
    const QDir scenarios(sourcePath("scenarios"));
    for (const QFileInfo& info :
        scenarios.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        QTest::addRow("scenarios/%s", qPrintable(info.fileName()))
            << QByteArray::fromStdString(readFile(info.filePath()));
    }
    if (QFileInfo::exists(sourcePath("resources/default.json")))
        QTest::addRow("resources/default.json")
            << QByteArray::fromStdString(readFile(sourcePath("resources/default.json")));
    QTest::addRow("spec example") << QByteArray::fromStdString(
        readFile(sourcePath("tests/data/scenario-spec-example.json")));
    // In-test samples, so the test covers the writer even before scenarios/ is populated.
    QTest::addRow("every field") << QByteArray(kEverything);
    QTest::addRow("minimal") << doc();
    QTest::addRow("big.LITTLE capacities")
        << doc(R"("machine": {"cpus": 4, "capacities": [1024, 1024, 512, 512]})");
    QTest::addRow("ITMT priorities")
        << doc(R"("machine": {"cpus": 4, "itmt_priorities": [40, 40, 20, 10]})");
    QTest::addRow("integral float and bool override")
        << doc(R"("machine": {"cpus": 2.0}, "kernel": {"overrides": {"flat": false}})");
    QTest::addRow("cpu.max shorthand forms") << doc(
        R"("cgroups": [{"path": "/a", "cpu.max": "max"}, {"path": "/b", "cpu.max": "5000"}])");
    QTest::addRow("kernel section with a mutex")
        << doc(R"("tasks": [{"name": "r", "program": [{"loop": [{"kernel": [{"lock": "f"},
               {"run": "30us"}, {"kernel": [{"sleep": "1us"}]}, {"unlock": "f"}]},
               {"run": "10us"}], "count": 3}]}])");
    QTest::addRow("loop with fork that waits")
        << doc(R"("tasks": [{"name": "sh", "program": [{"loop": [{"fork": {"probe": true,
               "program": [{"run": "1ms"}]}, "wait": true}]}]}])");
}

void TestScenarioJson::roundTrip()
{
    QFETCH(QByteArray, json);
    const Scenario first = parseValid(json.toStdString(), "sample.json");
    if (QTest::currentTestFailed())
        return;
    const std::string written = writeScenario(first);
    QVERIFY(written.ends_with("}\n"));
    const LoadResult again = parseScenario(written, "written.json");
    QVERIFY2(again.ok(), qPrintable(joined(again.errors) + QString::fromStdString(written)));
    QVERIFY2(*again.scenario == first, written.c_str());
    QCOMPARE(
        QString::fromStdString(writeScenario(*again.scenario)), QString::fromStdString(written));
    // The writer keeps to 100 columns wherever a line break is possible: only a single long
    // value may overflow, never a container written on one line.
    for (const QString& line : QString::fromStdString(written).split(QLatin1Char('\n')))
        QVERIFY2(line.size() <= 100
                || (!line.contains(QLatin1String("{ ")) && !line.contains(QLatin1String("[ "))),
            qPrintable(line));
}

void TestScenarioJson::writerKeyOrderMatchesSpec()
{
    // The spec's example writes every key in the documented order; the writer must too.
    const std::string spec = readFile(sourcePath("tests/data/scenario-spec-example.json"));
    const std::string written = writeScenario(parseValid(spec));
    const auto expected = nlohmann::ordered_json::parse(spec);
    const auto actual = nlohmann::ordered_json::parse(written);
    QCOMPARE(QString::fromStdString(actual.dump()), QString::fromStdString(expected.dump()));
}

void TestScenarioJson::writerOmitsUnsetFields()
{
    Scenario s;
    s.name = "m";
    QCOMPARE(QString::fromStdString(writeScenario(s)),
        QStringLiteral("{\n  \"schedlab\": 1,\n  \"name\": \"m\"\n}\n"));

    TaskSpec task;
    task.name = "t";
    s.tasks.push_back(task);
    s.kernel.hz = 250;
    QCOMPARE(QString::fromStdString(writeScenario(s)),
        QStringLiteral("{\n  \"schedlab\": 1,\n  \"name\": \"m\",\n  \"kernel\": { \"hz\": "
                       "250 },\n  \"tasks\": [ { \"name\": \"t\" } ]\n}\n"));
}

void TestScenarioJson::userKeys()
{
    const Scenario s =
        parseValid(doc(R"("x-editor": {"zoom": 3, "b": [1, 2]}, "x-n": null)").toStdString());
    QCOMPARE(s.userKeys.size(), size_t{2});
    QCOMPARE(QString::fromStdString(s.userKeys.at("x-editor")),
        QStringLiteral(R"({"zoom":3,"b":[1,2]})"));
    QCOMPARE(QString::fromStdString(s.userKeys.at("x-n")), QStringLiteral("null"));
    const std::string written = writeScenario(s);
    QVERIFY2(written.find(R"("x-editor": { "zoom": 3, "b": [ 1, 2 ] })") != std::string::npos,
        written.c_str());
    QVERIFY(parseValid(written) == s);
    // "x-" is only special at the top level.
    const LoadResult nested = parseScenario(doc(R"("kernel": {"x-mine": 1})").toStdString(), kFile);
    QVERIFY(!nested.ok());
}

void TestScenarioJson::notices()
{
    const LoadResult result = parseScenario(doc(R"(
        "cgroups": [{"path": "/a", "cpu.max": "20000 100000"}, {"path": "/b", "cpu.max": "max"}],
        "tasks": [
            {"name": "x", "policy": "fifo", "rt_priority": 1, "cookie": 1,
             "program": [{"lock": "m"}, {"run": "1ms"}, {"unlock": "m"}, {"lock": "m"}]},
            {"name": "y", "policy": "fifo", "rt_priority": 2, "cookie": 2}],
        "actions": [{"at": "1s", "set": {"cgroup": "/a", "cpu.max": "max"}}])")
                                                .toStdString(),
        kFile);
    QVERIFY2(result.ok(), qPrintable(joined(result.errors)));
    for (const char* field : {"cpu.max", "lock", "unlock", "policy fifo", "rt_priority", "cookie",
             "run", "set", "cpu.weight"}) {
        const std::string line = kFile + ": not simulated yet: " + field;
        const auto count = std::count(result.notices.begin(), result.notices.end(), line);
        const bool used = std::string_view(field) != "cpu.weight";
        QVERIFY2(count == (used && !isSimulated(field) ? 1 : 0),
            qPrintable(QString::fromLatin1(field) + "\n" + joined(result.notices)));
    }
    // A fresh parse starts a fresh "once" list.
    const LoadResult other = parseScenario(
        doc(R"("cgroups": [{"path": "/a", "cpu.max": "max"}])").toStdString(), "u.json");
    QCOMPARE(other.notices.size(), size_t(isSimulated("cpu.max") ? 0 : 1));
}

void TestScenarioJson::saveAndReload()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("saved.json")).toStdString();
    Scenario s = parseValid(kEverything);

    QCOMPARE(QString::fromStdString(saveScenarioFile(s, path)), QString());
    QCOMPARE(QString::fromStdString(readFile(QString::fromStdString(path))),
        QString::fromStdString(writeScenario(s)));
    LoadResult loaded = loadScenarioFile(path);
    QVERIFY2(loaded.ok(), qPrintable(joined(loaded.errors)));
    QVERIFY(*loaded.scenario == s);

    // Overwrite: the file is replaced as a whole and keeps its permissions.
    QFile::setPermissions(QString::fromStdString(path),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup);
    s.title = "changed";
    s.tasks.resize(1);
    s.actions.clear();
    QCOMPARE(QString::fromStdString(saveScenarioFile(s, path)), QString());
    loaded = loadScenarioFile(path);
    QVERIFY2(loaded.ok(), qPrintable(joined(loaded.errors)));
    QVERIFY(*loaded.scenario == s);
    QCOMPARE(QFile::permissions(QString::fromStdString(path))
            & (QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup
                | QFileDevice::WriteGroup | QFileDevice::ReadOther),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup);
    // No temporary file is left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot),
        QStringList{QStringLiteral("saved.json")});
}

void TestScenarioJson::saveFailure()
{
    QTemporaryDir dir;
    Scenario s;
    s.name = "m";
    const std::string path = dir.filePath(QStringLiteral("missing/x.json")).toStdString();
    const std::string error = saveScenarioFile(s, path);
    QVERIFY(!error.empty());
    QVERIFY2(error.starts_with(path + ": "), error.c_str());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(path)));
}

void TestScenarioJson::loadFailure()
{
    QTemporaryDir dir;
    const std::string missing = dir.filePath(QStringLiteral("nope.json")).toStdString();
    LoadResult result = loadScenarioFile(missing);
    QVERIFY(!result.ok());
    QCOMPARE(result.errors.size(), size_t{1});
    QVERIFY2(result.errors[0].starts_with(missing + ": cannot open"), result.errors[0].c_str());

    result = loadScenarioFile(dir.path().toStdString());
    QVERIFY(!result.ok());
    QVERIFY2(
        result.errors[0].find("is a directory") != std::string::npos, result.errors[0].c_str());
}

void TestScenarioJson::mutationsNeverCrash()
{
    // Replace every value of the spec example (and of the every-field sample) by values of every
    // type, and drop every member: the reader must answer each with a scenario or with errors.
    using nlohmann::ordered_json;
    const std::vector<ordered_json> replacements{nullptr, true, -1, 2.5, 1e300,
        ordered_json(std::numeric_limits<uint64_t>::max()), "", "forever", ordered_json::array(),
        ordered_json::object(), ordered_json::parse(R"([[{}]])")};
    int parsed = 0;
    for (const char* source : {"spec", "everything"}) {
        const ordered_json original = ordered_json::parse(std::string_view(source) == "spec"
                ? readFile(sourcePath("tests/data/scenario-spec-example.json"))
                : std::string(kEverything));
        std::vector<ordered_json::json_pointer> pointers;
        std::vector<std::pair<const ordered_json*, ordered_json::json_pointer>> stack{
            {&original, ordered_json::json_pointer()}};
        while (!stack.empty()) {
            auto [value, pointer] = stack.back();
            stack.pop_back();
            if (!pointer.empty())
                pointers.push_back(pointer);
            if (value->is_object())
                for (auto it = value->begin(); it != value->end(); ++it)
                    stack.emplace_back(&*it, pointer / it.key());
            else if (value->is_array())
                for (size_t i = 0; i < value->size(); ++i)
                    stack.emplace_back(&(*value)[i], pointer / i);
        }
        // Each position gets a rotating share of the replacements (half of them in the spec
        // example, a fifth in the larger sample), which keeps the test quick in debug builds.
        const size_t share = std::string_view(source) == "spec" ? 2 : 5;
        size_t rotation = 0;
        for (const auto& pointer : pointers) {
            std::vector<ordered_json> variants;
            for (size_t i = 0; i < replacements.size(); ++i) {
                if ((i + rotation) % share != 0)
                    continue;
                ordered_json copy = original;
                copy[pointer] = replacements[i];
                variants.push_back(std::move(copy));
            }
            ++rotation;
            ordered_json dropped = original;
            const auto parent = pointer.parent_pointer();
            if (dropped[parent].is_object())
                dropped[parent].erase(pointer.back());
            else
                dropped[parent].erase(static_cast<size_t>(std::stoul(pointer.back())));
            variants.push_back(std::move(dropped));
            for (const auto& variant : variants) {
                const LoadResult result = parseScenario(variant.dump(), kFile);
                ++parsed;
                QCOMPARE(result.ok(), result.errors.empty());
                for (const auto& error : result.errors)
                    QVERIFY2(error.starts_with("t.json: "), error.c_str());
                if (result.ok()) {
                    const std::string written = writeScenario(*result.scenario);
                    const LoadResult again = parseScenario(written, kFile);
                    QVERIFY2(again.ok() && *again.scenario == *result.scenario,
                        qPrintable(QString::fromStdString(variant.dump() + "\nwritten:\n" + written)
                            + joined(again.errors)));
                }
            }
        }
    }
    QVERIFY(parsed > 1000);
}

void TestScenarioJson::truncationsNeverCrash()
{
    const std::string spec = readFile(sourcePath("tests/data/scenario-spec-example.json"));
    QVERIFY(!spec.empty());
    for (size_t length = 0; length + 1 < spec.size(); ++length) {
        const LoadResult result = parseScenario(spec.substr(0, length), kFile);
        // Only the text up to the closing brace can be complete.
        if (length < spec.rfind('}')) {
            QVERIFY(!result.ok());
            QVERIFY2(
                result.errors.front().starts_with("t.json: line "), result.errors.front().c_str());
        }
    }
}

void TestScenarioJson::hostileInput_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");

    // JSON nesting is measured before parsing: the 513th open bracket is reported.
    QTest::addRow("100000 nested arrays") << (QByteArray(100000, '[') + QByteArray(100000, ']'))
                                          << "t.json: line 1, column 513: nested more than 512 "
                                             "levels deep";
    QTest::addRow("100000 unclosed objects")
        << QByteArray(100000, '{') << "t.json: line 1, column 513: nested more than 512";
    QTest::addRow("deep value in a task field") << doc(
        (R"("tasks": [{"name": )" + QByteArray(100000, '[') + QByteArray(100000, ']') + "}]")
            .constData()) << "t.json: line 1, column 558: nested more than 512 levels deep";
    QTest::addRow("brackets inside strings do not count")
        << doc((R"("title": ")" + QByteArray(1000, '[') + R"(", "seed": -1)").constData())
        << "t.json: /seed: expected a non-negative integer";
    QByteArray forks = "{}";
    for (int i = 0; i < 100; ++i)
        forks = R"({"program": [{"fork": )" + forks + "}]}";
    QTest::addRow("forks nested 100 deep")
        << doc((R"("tasks": [{"name": "f", "program": [{"fork": )" + forks + "}]}]").constData())
        << "loops and forks are nested more than 32 levels deep";
    QTest::addRow("invalid UTF-8")
        << QByteArray("{\"schedlab\": 1, \"name\": \"\xff\"}") << "t.json: line 1, column 26: ";
    static const char withNul[] = "{\"schedlab\": 1,\0 \"name\": \"x\"}";
    QTest::addRow("NUL byte") << QByteArray(withNul, sizeof withNul - 1)
                              << "t.json: line 1, column 16: a NUL byte (byte offset 15)";
    // After a complete document the parser stopped at the NUL and the file validated.
    static const char nulAfter[] = "{\"schedlab\": 1, \"name\": \"x\"}\n\0{\"ignored\": 1}";
    QTest::addRow("NUL after the document")
        << QByteArray(nulAfter, sizeof nulAfter - 1)
        << "t.json: line 2, column 1: a NUL byte (byte offset 29): a scenario is JSON text";
    QTest::addRow("huge integer") << doc(R"("seed": 123456789012345678901234567890)")
                                  << "t.json: /seed: expected a non-negative integer";
    QTest::addRow("key with pointer characters")
        << doc(R"("tasks": [{"~/x": 1, "name": "a"}])") << "t.json: /tasks/0/~0~1x: unknown field";
}

void TestScenarioJson::hostileInput()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    const LoadResult result = parseScenario(json.toStdString(), kFile);
    QVERIFY(!result.ok());
    QVERIFY2(joined(result.errors).contains(expected), qPrintable(joined(result.errors)));
}

namespace {

QByteArray repeated(const char* text, int times)
{
    QByteArray out;
    for (int i = 0; i < times; ++i)
        out += text;
    return out;
}

/// @p depth cgroups, each inside the previous one: /c, /c/c, …
QByteArray cgroupChain(int depth)
{
    QByteArray out = R"("cgroups": [)";
    QByteArray path;
    for (int i = 0; i < depth; ++i) {
        path += "/c";
        out += QByteArray(i ? ", " : "") + R"({"path": ")" + path + R"("})";
    }
    return out + "]";
}

} // namespace

void TestScenarioJson::limits_data()
{
    // Each bound of docs/limits.md ("Scenario limits"): the value at the limit loads, the next
    // one is an error naming the JSON path. An empty "expected" means the file loads.
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    const QString ok;

    // Durations: 24 h = 86400 s = 86400000000000 ns.
    QTest::addRow("duration 24h") << doc(R"("duration": "86400s")") << ok;
    QTest::addRow("duration 24h + 1ns")
        << doc(R"("duration": "86400000000001ns")")
        << "t.json: /duration: expected a duration of at most 86400s (24 h, the limit for any "
           "duration) (got \"86400000000001ns\")";
    QTest::addRow("run 24h") << program(R"([{"run": "86400s"}])") << ok;
    QTest::addRow("run 24h + 1ns") << program(R"([{"run": "86400.000000001s"}])")
                                   << "t.json: /tasks/0/program/0/run: expected a duration of at "
                                      "most 86400s";
    QTest::addRow("sleep 24h") << program(R"([{"sleep": "86400000ms"}])") << ok;
    QTest::addRow("sleep above 24h") << program(R"([{"sleep": "86401s"}])")
                                     << "t.json: /tasks/0/program/0/sleep: expected a duration of "
                                        "at most 86400s";
    QTest::addRow("uniform upper bound above 24h")
        << program(R"([{"run": {"uniform": ["1ms", "100000s"]}}])")
        << "t.json: /tasks/0/program/0/run/uniform/1: expected a duration of at most 86400s";
    QTest::addRow("loop for 24h") << program(R"([{"loop": [{"run": "1ms"}], "for": "86400s"}])")
                                  << ok;
    QTest::addRow("loop for above 24h")
        << program(R"([{"loop": [{"run": "1ms"}], "for": "9223372036854775807ns"}])")
        << "t.json: /tasks/0/program/0/for: expected a duration of at most 86400s";
    QTest::addRow("overflow reproducer of issue 14")
        << program(R"([{"loop": [{"run": "9223372036854775807ns"}, {"sleep": "1ms"}]}])")
        << "t.json: /tasks/0/program/0/loop/0/run: expected a duration of at most 86400s (24 h, "
           "the limit for any duration) (got \"9223372036854775807ns\")";
    QTest::addRow("annotation at above 24h")
        << doc(R"("annotations": [{"at": "86401s", "text": "x"}])")
        << "t.json: /annotations/0/at: expected a duration of at most 86400s";

    // Times measured against the end (the default end is 10 s).
    QTest::addRow("action just before the end")
        << withTasks(R"("duration": "1s", "actions": [{"at": "999999999ns", "kill": "b"}])") << ok;
    QTest::addRow("action at the end")
        << withTasks(R"("duration": "1s", "actions": [{"at": "1s", "kill": "b"}])")
        << "t.json: /actions/0/at: expected an action time before the end of the scenario at 1s "
           "(got \"1s\")";
    QTest::addRow("action after the default end")
        << withTasks(R"("actions": [{"at": "11s", "kill": "b"}])")
        << "t.json: /actions/0/at: expected an action time before the end of the scenario at 10s "
           "(the default duration) (got \"11s\")";
    QTest::addRow("start just before the end")
        << doc(R"("duration": "2s", "tasks": [{"name": "a", "start": "1999999999ns"}])") << ok;
    QTest::addRow("start at the end")
        << doc(R"("duration": "2s", "tasks": [{"name": "a", "start": "2s"}])")
        << "t.json: /tasks/0/start: expected a start before the end of the scenario at 2s";
    QTest::addRow("uniform start reaching the end")
        << doc(R"("duration": "2s", "tasks": [{"name": "a", "start": {"uniform": ["0s", "3s"]}}])")
        << "t.json: /tasks/0/start/uniform/1: expected the latest start before the end of the "
           "scenario at 2s (got \"3s\")";
    QTest::addRow("no end check while the duration is invalid")
        << doc(R"("duration": "0s", "tasks": [{"name": "a", "start": "20s"}])")
        << "t.json: /duration: the run must last longer than 0s";

    // Counts.
    QTest::addRow("task count 100000")
        << doc(R"("tasks": [{"name": "a", "count": 100000, "program": [{"run": "1ms"}]}])") << ok;
    QTest::addRow("task count 100001") << doc(R"("tasks": [{"name": "a", "count": 100001}])")
                                       << "t.json: /tasks/0/count: expected an integer in "
                                          "1..100000 (got 100001)";
    QTest::addRow("100000 tasks in total")
        << doc(R"("tasks": [{"name": "a", "count": 99999}, {"name": "b"}])") << ok;
    QTest::addRow("spawned tasks count too")
        << doc(R"("tasks": [{"name": "a", "count": 100000}],
                  "actions": [{"at": "1s", "spawn": {"name": "s"}}])")
        << "t.json: /actions/0/spawn: more than 100000 tasks in one scenario";
    QTest::addRow("cgroup count 100000")
        << doc(R"("cgroups": [{"path": "/g", "count": 100000}])") << ok;
    QTest::addRow("cgroup count 100001") << doc(R"("cgroups": [{"path": "/g", "count": 100001}])")
                                         << "t.json: /cgroups/0/count: expected an integer in "
                                            "1..100000";
    QTest::addRow("100001 cgroups in total")
        << doc(R"("cgroups": [{"path": "/g", "count": 100000}, {"path": "/h"}])")
        << "t.json: /cgroups/1: more than 100000 cgroups in one scenario";
    QTest::addRow("1000000 group run queues")
        << doc(R"("machine": {"cpus": 10}, "cgroups": [{"path": "/g", "count": 99999}])") << ok;
    QTest::addRow("1000010 group run queues")
        << doc(R"("machine": {"cpus": 10}, "cgroups": [{"path": "/g", "count": 100000}])")
        << "t.json: /cgroups: 100001 cgroups (the root included) on 10 CPUs make 1000010 group "
           "run queues, more than the limit of 1000000";
    QTest::addRow("loop count 10^9")
        << program(R"([{"loop": [{"run": "1ms"}], "count": 1000000000}])") << ok;
    QTest::addRow("loop count 10^9 + 1")
        << program(R"([{"loop": [{"run": "1ms"}], "count": 1000000001}])")
        << "t.json: /tasks/0/program/0/count: expected an integer in 1..1000000000";
    QTest::addRow("4096 CPUs") << doc(R"("machine": {"cpus": 4096})") << ok;
    QTest::addRow("4097 CPUs") << doc(R"("machine": {"cpus": 4097})")
                               << "t.json: /machine/cpus: expected an integer in 1..4096";
    QTest::addRow("8 threads per core")
        << doc(R"("machine": {"cpus": 16, "threads_per_core": 8})") << ok;

    // Nesting.
    QTest::addRow("loops nested 32 deep") << program(
        (repeated(R"([{"loop": )", 32) + R"([{"run": "1ms"}])" + repeated("}]", 32)).constData())
                                          << ok;
    QTest::addRow("loops nested 33 deep") << program(
        (repeated(R"([{"loop": )", 33) + R"([{"run": "1ms"}])" + repeated("}]", 33)).constData())
                                          << "t.json: /tasks/0/program/0"
            + QString("/loop/0").repeated(32)
            + ": loops and forks are nested more than 32 levels deep";
    QTest::addRow("JSON nested 512 deep")
        << (QByteArray(512, '[') + QByteArray(512, ']')) << "t.json: /: expected a scenario object";
    QTest::addRow("JSON nested 513 deep")
        << (QByteArray(513, '[') + QByteArray(513, ']'))
        << "t.json: line 1, column 513: nested more than 512 levels deep (arrays and objects)";
    QTest::addRow("cgroups nested 32 deep") << doc(cgroupChain(32).constData()) << ok;
    QTest::addRow("cgroups nested 33 deep")
        << doc(cgroupChain(33).constData())
        << "t.json: /cgroups/32/path: a cgroup path must not be nested more than 32 levels deep";

    // Names: at most 255 bytes, no control characters.
    const QByteArray name255(255, 'n');
    QTest::addRow("task name of 255 bytes")
        << doc((R"("tasks": [{"name": ")" + name255 + R"("}])").constData()) << ok;
    QTest::addRow("task name of 256 bytes")
        << doc((R"("tasks": [{"name": ")" + name255 + R"(x"}])").constData())
        << "t.json: /tasks/0/name: expected a name of printable characters: longer than 255 "
           "bytes (256)";
    QTest::addRow("task name with a newline")
        << doc(R"("tasks": [{"name": "a\nb"}])")
        << "t.json: /tasks/0/name: expected a name of printable characters: control character "
           "U+000A in a name (got \"a\\nb\")";
    QTest::addRow("task name with ESC")
        << doc(R"("tasks": [{"name": "\u001b[31mred"}])")
        << "t.json: /tasks/0/name: expected a name of printable characters: control character "
           "U+001B in a name";
    QTest::addRow("spawned task name with DEL")
        << doc(R"("actions": [{"at": "1s", "spawn": {"name": "a\u007f"}}])")
        << "t.json: /actions/0/spawn/name: expected a name of printable characters: control "
           "character U+007F";
    QTest::addRow("task name with a C1 control (CSI)")
        << doc(R"("tasks": [{"name": "a\u009b2J"}])") << "control character U+009B in a name";
    QTest::addRow("UTF-8 task name") << doc(R"("tasks": [{"name": "zähler-\u00a0ü"}])") << ok;
    QTest::addRow("scenario name with a tab")
        << QByteArray(R"({"schedlab": 1, "name": "a\tb"})")
        << "t.json: /name: expected a name of printable characters: control character U+0009";
    QTest::addRow("mutex name with ESC") << program(R"([{"lock": "m\u001b"}])")
                                         << "t.json: /tasks/0/program/0/lock: expected a name of "
                                            "printable characters: control character U+001B";
    QTest::addRow("cookie target with a newline")
        << program(R"([{"cookie": {"share_to": "a\n"}}])")
        << "t.json: /tasks/0/program/0/cookie/share_to: expected a name of printable characters";
    QTest::addRow("cgroup component of 255 bytes")
        << doc((R"("cgroups": [{"path": "/)" + name255 + R"("}])").constData()) << ok;
    QTest::addRow("cgroup component of 256 bytes")
        << doc((R"("cgroups": [{"path": "/)" + name255 + R"(x"}])").constData())
        << "t.json: /cgroups/0/path: cgroup path component longer than 255 bytes (256)";
    QTest::addRow("cgroup path with DEL")
        << doc(R"("cgroups": [{"path": "/a\u007f"}])")
        << "t.json: /cgroups/0/path: cgroup path component control character U+007F in a name";
    QTest::addRow("write pattern with ESC")
        << program(R"([{"write": {"cgroup": "/a*\u001b", "cpu.weight": 5}}])")
        << "t.json: /tasks/0/program/0/write/cgroup: cgroup path component control character "
           "U+001B";
    QTest::addRow("title with ESC")
        << doc(R"("title": "\u001b]0;pwned\u0007")")
        << "t.json: /title: control character U+001B (only tab and newline are allowed in text)";
    QTest::addRow("description with newlines and tabs")
        << doc(R"("description": "one\n\ttwo")") << ok;
    QTest::addRow("annotation with a carriage return")
        << doc(R"("annotations": [{"at": "1s", "text": "a\rb"}])")
        << "t.json: /annotations/0/text: control character U+000D";
}

void TestScenarioJson::limits()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    const LoadResult result = parseScenario(json.toStdString(), kFile);
    if (expected.isEmpty()) {
        QVERIFY2(result.ok(), qPrintable(joined(result.errors)));
        // What loads is written back loadable, the limits included.
        const LoadResult again = parseScenario(writeScenario(*result.scenario), kFile);
        QVERIFY2(again.ok(), qPrintable(joined(again.errors)));
        return;
    }
    QVERIFY(!result.ok());
    QVERIFY2(joined(result.errors).contains(expected),
        qPrintable("expected \"" + expected + "\", got:\n" + joined(result.errors)));
}

void TestScenarioJson::messagesStayOnOneLine()
{
    // Keys and names are echoed in messages: control characters are written as \xNN.
    const LoadResult result =
        parseScenario(doc(R"("a\u001b[2Jb": 1, "tasks": [{"name": "t"}], "actions": [{"at": "1s",
               "kill": "x\ny"}])")
                          .toStdString(),
            kFile);
    QVERIFY(!result.ok());
    QCOMPARE(result.errors.size(), size_t{2});
    QVERIFY2(result.errors[0].starts_with("t.json: /a\\x1b[2Jb: unknown field"),
        result.errors[0].c_str());
    QVERIFY2(result.errors[1].starts_with("t.json: /actions/0/kill: unknown task \"x\\x0ay\""),
        result.errors[1].c_str());
    for (const std::string& error : result.errors)
        for (const char c : error)
            QVERIFY(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
}

void TestScenarioJson::oversizedText()
{
    const std::string text(ScenarioLimits::maxFileBytes + 1, ' ');
    const LoadResult result = parseScenario(text, kFile);
    QVERIFY(!result.ok());
    QCOMPARE(result.errors.size(), size_t{1});
    QCOMPARE(QString::fromStdString(result.errors[0]),
        QStringLiteral("t.json: larger than 64 MiB, not a scenario file"));
}

QTEST_APPLESS_MAIN(TestScenarioJson)
#include "tst_scenariojson.moc"
