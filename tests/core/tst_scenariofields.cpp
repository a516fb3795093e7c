// SPDX-License-Identifier: GPL-2.0-or-later
// The field tables of the scenario format (core/scenario/scenariofields.h): the keys a table
// declares are exactly the keys the reader accepts, the ones "expected one of" lists, the order
// the writer uses, and every one of them is documented in docs/scenario-format.md.
#include "core/kernel/costs.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/scenario/scenariofields.h"
#include "core/scenario/scenarioio.h"

#include <QTest>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace schedlab;
using namespace schedlab::scenariojson;

namespace {

std::vector<std::string> strings(const Keys& keys)
{
    return {keys.begin(), keys.end()};
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string errorsOf(const std::string& json)
{
    const LoadResult r = parseScenario(json, "t.json");
    std::string out;
    for (const auto& e : r.errors)
        out += e + "\n";
    return out;
}

} // namespace

class TestScenarioFields : public QObject
{
    Q_OBJECT

private slots:
    void tablesHoldTheDocumentedKeys();
    void everyKeyIsDocumented();
    void unknownKeyListsTheTable();
    void writerFollowsTheTable();
    void crossFieldChecks();
};

// The keys and their order, written out by hand from docs/scenario-format.md §1.2–§1.9.
void TestScenarioFields::tablesHoldTheDocumentedKeys()
{
    using V = std::vector<std::string>;
    QCOMPARE(strings(keysOf(scenarioFields())),
        (V{"schedlab", "name", "title", "description", "seed", "duration", "kernel", "machine",
            "cgroups", "tasks", "actions", "annotations"}));
    QCOMPARE(strings(keysOf(kernelFields())),
        (V{"profile", "hz", "preempt", "base_slice", "tunable_scaling", "features", "overrides",
            "costs"}));
    QCOMPARE(strings(keysOf(machineFields())),
        (V{"cpus", "threads_per_core", "cores_per_llc", "capacities", "itmt_priorities"}));
    QCOMPARE(strings(keysOf(cgroupFileFields())),
        (V{"cpu.weight", "cpu.weight.nice", "cpu.max", "cpu.idle", "cpu.rt_runtime_us",
            "cpu.rt_period_us"}));
    QCOMPARE(strings(keysOf(taskFields())),
        (V{"name", "count", "cgroup", "cpus", "policy", "nice", "rt_priority", "slice", "runtime",
            "deadline", "period", "flags", "cookie", "start", "probe", "kernel_thread",
            "program"}));
    QCOMPARE(strings(keysOf(setTaskFields())), (V{"nice", "cpus", "slice", "policy"}));
    QCOMPARE(strings(keysOf(annotationFields())), (V{"at", "text"}));
}

void TestScenarioFields::everyKeyIsDocumented()
{
    const std::string doc = readFile(SCHEDLAB_SOURCE_DIR "/docs/scenario-format.md");
    QVERIFY(!doc.empty());
    std::vector<std::string> keys;
    for (const Keys& table : {keysOf(scenarioFields()), keysOf(kernelFields()),
             keysOf(machineFields()), keysOf(cgroupFileFields()), keysOf(taskFields()),
             keysOf(setTaskFields()), keysOf(annotationFields())})
        for (auto key : table)
            keys.emplace_back(key);
    for (auto name : enumNames<Op::Kind>())
        keys.emplace_back(name);
    for (auto name : enumNames<Action::Kind>())
        keys.emplace_back(name);
    for (const auto& name : choiceNames())
        keys.push_back(name);
    for (size_t f = 0; f < kFeatureCount; ++f)
        keys.emplace_back(featureName(static_cast<Feature>(f)));
    for (auto name : {"cgroup_write", "rt_walk_group", "rt_walk_task", "fork"}) {
        KernelCosts costs;
        QVERIFY2(applyCost(costs, name, 0), name); // the documented cost names exist
        keys.emplace_back(name);
    }
    for (const auto& key : keys)
        QVERIFY2(doc.find("`" + key + "`") != std::string::npos,
            qPrintable(QString::fromStdString(key) + " is not in docs/scenario-format.md"));
}

void TestScenarioFields::unknownKeyListsTheTable()
{
    // A key far from every known one gets the table's keys, in table order.
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "machine": {"zzzzzzzzzz": 1}})"),
        std::string("t.json: /machine/zzzzzzzzzz: unknown field (expected one of: cpus, "
                    "threads_per_core, cores_per_llc, capacities, itmt_priorities)\n"));
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "annotations": [{"at": "1s", "qqqq": 1,
        "text": "x"}]})"),
        std::string("t.json: /annotations/0/qqqq: unknown field (expected one of: at, text)\n"));
    // A close one is suggested.
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "kernel": {"hzz": 250}})"),
        std::string("t.json: /kernel/hzz: unknown field (did you mean \"hz\"?)\n"));
    // Keys that exist only in some contexts: a forked child has no name, a spawn no start.
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "tasks": [{"name": "p", "program": [
        {"fork": {"name": "c"}}]}]})"),
        std::string("t.json: /tasks/0/program/0/fork/name: not allowed in a fork: a forked child "
                    "has no name or count and starts when the fork runs\n"));
}

void TestScenarioFields::writerFollowsTheTable()
{
    // Written in the reverse of the table order; the writer puts them back in table order.
    const LoadResult r = parseScenario(R"({
        "tasks": [{"program": [{"run": "1ms"}], "probe": true, "start": "1ms", "cookie": 3,
                   "slice": "1ms", "rt_priority": 5, "nice": 1, "policy": "fifo", "cpus": "0",
                   "cgroup": "/", "count": 2, "name": "t"}],
        "machine": {"cores_per_llc": 1, "threads_per_core": 1, "cpus": 1},
        "name": "w", "schedlab": 1})",
        "t.json");
    QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
    const std::string expected = R"({
  "schedlab": 1,
  "name": "w",
  "machine": { "cpus": 1, "threads_per_core": 1, "cores_per_llc": 1 },
  "tasks": [
    {
      "name": "t",
      "count": 2,
      "cgroup": "/",
      "cpus": "0",
      "policy": "fifo",
      "nice": 1,
      "rt_priority": 5,
      "slice": "1ms",
      "cookie": 3,
      "start": "1ms",
      "probe": true,
      "program": [ { "run": "1ms" } ]
    }
  ]
}
)";
    QCOMPARE(writeScenario(*r.scenario), expected);
}

void TestScenarioFields::crossFieldChecks()
{
    // cpu.rt_runtime_us is bounded by the cpu.rt_period_us of the same object.
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "cgroups": [{"path": "/g",
        "cpu.rt_runtime_us": 600, "cpu.rt_period_us": 500}]})"),
        std::string("t.json: /cgroups/0/cpu.rt_runtime_us: expected -1 (unlimited) or 0..500 (at "
                    "most cpu.rt_period_us) (got 600)\n"));
    // rt_priority needs an RT policy, also one inherited by a forked child.
    QCOMPARE(
        errorsOf(R"({"schedlab": 1, "name": "a", "tasks": [{"name": "p", "rt_priority": 5}]})"),
        std::string("t.json: /tasks/0/rt_priority: only valid with policy fifo or rr\n"));
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "tasks": [{"name": "p", "policy": "rr",
        "program": [{"fork": {"rt_priority": 7, "program": [{"run": "1ms"}]}}]}]})"),
        std::string());
    // A machine whose CPUs are not a multiple of its SMT width.
    QCOMPARE(errorsOf(R"({"schedlab": 1, "name": "a", "machine": {"cpus": 3,
        "threads_per_core": 2}})"),
        std::string("t.json: /machine/cpus: 3 CPUs are not a multiple of threads_per_core 2\n"));
}

QTEST_APPLESS_MAIN(TestScenarioFields)
#include "tst_scenariofields.moc"
