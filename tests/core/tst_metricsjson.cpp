// SPDX-License-Identifier: GPL-2.0-or-later
// core/record/metrics.h: metricsToJson() writes scenario-format.md §3 exactly: key order, null for
// absent optionals, integers as integers, share as a number, 2-space indentation, final newline.
// The expected texts are written out by hand from the spec.
#include "core/record/metrics.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <limits>

using namespace schedlab;

// Declared before the raw-string fixtures: moc 6.4 mis-tokenises \" inside R"(...)".
class TestMetricsJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void text_data();
    void text();
    void shape();
    void deterministic();
    void oddValues();
    void bandwidthAndLockKeys();
    void forkRootFolds();
};

namespace {

Metrics fullMetrics()
{
    Metrics m;
    m.scenario = "cgroup-weight-starvation";
    m.profile = "6.13";
    m.features = {{"RUN_TO_PARITY", false}, {"PLACE_LAG", true}};
    m.overrides = {{"yield", "forfeit_always"}};
    m.seed = std::numeric_limits<uint64_t>::max();
    m.durationNs = 60000000000;
    TaskMetrics rootSpin;
    rootSpin.name = "root-spin";
    rootSpin.cgroup = "/";
    rootSpin.cpuTimeNs = 15000000000;
    rootSpin.share = 0.25;
    rootSpin.waitMaxNs = 2000000;
    rootSpin.waitP50Ns = 3;
    rootSpin.waitP99Ns = 1999999;
    rootSpin.switches = 12;
    rootSpin.migrations = 1;
    TaskMetrics echo;
    echo.name = "echo-hi";
    echo.cgroup = "/testgroup";
    echo.exitedAtNs = 30001000000;
    m.tasks = {rootSpin, echo};
    m.cgroups = {{"/testgroup", 45000000000, 0, {}, {}}, {"/limited", 1, 2, {}, {}}};
    m.cpus = {{0, 5}, {3, 60000000000}};
    m.probes = {{"echo-hi", 30000000000, std::nullopt}, {"late", 7, 4}};
    Finding starvation;
    starvation.kind = "starvation";
    starvation.task = "root-spin";
    starvation.cpu = 3;
    starvation.fromNs = 0;
    starvation.durationNs = 1000000000;
    Finding invariant = starvation;
    invariant.kind = "invariant";
    invariant.detail = "sum of lag \"w*vlag\" != 0";
    m.findings = {starvation, invariant};
    m.run = {123, 45, 6, 7890};
    return m;
}

const char* const kFullExpected = R"({
  "schedlab": 1,
  "scenario": "cgroup-weight-starvation",
  "profile": "6.13",
  "features": {
    "PLACE_LAG": true,
    "RUN_TO_PARITY": false
  },
  "overrides": {
    "yield": "forfeit_always"
  },
  "seed": 18446744073709551615,
  "duration_ns": 60000000000,
  "tasks": [
    {
      "name": "root-spin",
      "cgroup": "/",
      "cpu_time_ns": 15000000000,
      "share": 0.25,
      "wait_max_ns": 2000000,
      "wait_p50_ns": 3,
      "wait_p99_ns": 1999999,
      "switches": 12,
      "migrations": 1,
      "exited_at_ns": null
    },
    {
      "name": "echo-hi",
      "cgroup": "/testgroup",
      "cpu_time_ns": 0,
      "share": 0.0,
      "wait_max_ns": 0,
      "wait_p50_ns": 0,
      "wait_p99_ns": 0,
      "switches": 0,
      "migrations": 0,
      "exited_at_ns": 30001000000
    }
  ],
  "cgroups": [
    {
      "path": "/testgroup",
      "cpu_time_ns": 45000000000,
      "throttled_ns": 0
    },
    {
      "path": "/limited",
      "cpu_time_ns": 1,
      "throttled_ns": 2
    }
  ],
  "cpus": [
    {
      "cpu": 0,
      "busy_ns": 5,
      "forced_idle_ns": 0
    },
    {
      "cpu": 3,
      "busy_ns": 60000000000,
      "forced_idle_ns": 0
    }
  ],
  "probes": [
    {
      "name": "echo-hi",
      "spawned_at_ns": 30000000000,
      "latency_ns": null
    },
    {
      "name": "late",
      "spawned_at_ns": 7,
      "latency_ns": 4
    }
  ],
  "findings": [
    {
      "kind": "starvation",
      "task": "root-spin",
      "cpu": 3,
      "from_ns": 0,
      "duration_ns": 1000000000
    },
    {
      "kind": "invariant",
      "task": "root-spin",
      "cpu": 3,
      "from_ns": 0,
      "duration_ns": 1000000000,
      "detail": "sum of lag \"w*vlag\" != 0"
    }
  ],
  "run": {
    "events": 123,
    "context_switches": 45,
    "recorded_events": 6,
    "recorded_bytes": 7890
  }
}
)";

const char* const kEmptyExpected = R"({
  "schedlab": 1,
  "scenario": "",
  "profile": "",
  "features": {},
  "overrides": {},
  "seed": 0,
  "duration_ns": 0,
  "tasks": [],
  "cgroups": [],
  "cpus": [],
  "probes": [],
  "findings": [],
  "run": {
    "events": 0,
    "context_switches": 0,
    "recorded_events": 0,
    "recorded_bytes": 0
  }
}
)";

std::vector<std::string> keysOf(const nlohmann::ordered_json& object)
{
    std::vector<std::string> keys;
    for (auto it = object.begin(); it != object.end(); ++it)
        keys.push_back(it.key());
    return keys;
}

} // namespace

void TestMetricsJson::text_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::addRow("full") << 0 << QString::fromUtf8(kFullExpected);
    QTest::addRow("empty") << 1 << QString::fromUtf8(kEmptyExpected);
}

void TestMetricsJson::text()
{
    QFETCH(int, which);
    QFETCH(QString, expected);
    const Metrics m = which == 0 ? fullMetrics() : Metrics{};
    QCOMPARE(QString::fromStdString(metricsToJson(m)), expected);
}

void TestMetricsJson::shape()
{
    // Read back as a script would, checking key order and JSON types against §3.
    const auto root = nlohmann::ordered_json::parse(metricsToJson(fullMetrics()));
    using Keys = std::vector<std::string>;
    QVERIFY(keysOf(root)
        == (Keys{"schedlab", "scenario", "profile", "features", "overrides", "seed", "duration_ns",
            "tasks", "cgroups", "cpus", "probes", "findings", "run"}));
    const auto& task = root["tasks"][0];
    QVERIFY(keysOf(task)
        == (Keys{"name", "cgroup", "cpu_time_ns", "share", "wait_max_ns", "wait_p50_ns",
            "wait_p99_ns", "switches", "migrations", "exited_at_ns"}));
    QVERIFY(task["cpu_time_ns"].is_number_integer());
    QVERIFY(task["share"].is_number_float());
    QCOMPARE(task["share"].get<double>(), 0.25);
    QVERIFY(task["exited_at_ns"].is_null());
    QVERIFY(root["tasks"][1]["exited_at_ns"].is_number_integer());
    QVERIFY(root["seed"].is_number_unsigned());
    QCOMPARE(root["seed"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
    QVERIFY(keysOf(root["cgroups"][0]) == (Keys{"path", "cpu_time_ns", "throttled_ns"}));
    QVERIFY(keysOf(root["cpus"][0]) == (Keys{"cpu", "busy_ns", "forced_idle_ns"}));
    QVERIFY(keysOf(root["probes"][0]) == (Keys{"name", "spawned_at_ns", "latency_ns"}));
    QVERIFY(root["probes"][0]["latency_ns"].is_null());
    QCOMPARE(root["probes"][1]["latency_ns"].get<int64_t>(), int64_t{4});
    QVERIFY(keysOf(root["findings"][0]) == (Keys{"kind", "task", "cpu", "from_ns", "duration_ns"}));
    QVERIFY(keysOf(root["findings"][1])
        == (Keys{"kind", "task", "cpu", "from_ns", "duration_ns", "detail"}));
    QVERIFY(keysOf(root["run"])
        == (Keys{"events", "context_switches", "recorded_events", "recorded_bytes"}));
}

void TestMetricsJson::deterministic()
{
    QCOMPARE(metricsToJson(fullMetrics()), metricsToJson(fullMetrics()));
}

void TestMetricsJson::oddValues()
{
    // Never throws and always writes valid JSON: invalid UTF-8 from a user's file is replaced,
    // a share that is not a number (zero-length run) is written as 0.0.
    Metrics m;
    TaskMetrics t;
    t.name = "bad\xff";
    t.share = std::numeric_limits<double>::quiet_NaN();
    m.tasks = {t};
    const std::string text = metricsToJson(m);
    const auto root = nlohmann::ordered_json::parse(text);
    QVERIFY(root["tasks"][0]["share"].is_number());
    QCOMPARE(root["tasks"][0]["share"].get<double>(), 0.0);
    QVERIFY(root["tasks"][0]["name"].get<std::string>().starts_with("bad"));
}

void TestMetricsJson::bandwidthAndLockKeys()
{
    // New keys (scenario-format.md §3, compatible extension): lock_wait_ns after exited_at_ns
    // for tasks that used a mutex; nr_periods / nr_throttled after throttled_ns for cgroups
    // with a finite cpu.max. Absent otherwise, so older outputs are unchanged.
    Metrics m;
    TaskMetrics locker;
    locker.name = "reader";
    locker.lockWaitNs = 1500;
    TaskMetrics plain;
    plain.name = "hog";
    m.tasks = {locker, plain};
    m.cgroups = {{"/limited", 10, 90, 3, 2}, {"/free", 5, 0, {}, {}}};
    const auto root = nlohmann::ordered_json::parse(metricsToJson(m));
    using Keys = std::vector<std::string>;
    QVERIFY(keysOf(root["tasks"][0])
        == (Keys{"name", "cgroup", "cpu_time_ns", "share", "wait_max_ns", "wait_p50_ns",
            "wait_p99_ns", "switches", "migrations", "exited_at_ns", "lock_wait_ns"}));
    QCOMPARE(root["tasks"][0]["lock_wait_ns"].get<int64_t>(), int64_t{1500});
    QVERIFY(!root["tasks"][1].contains("lock_wait_ns"));
    QVERIFY(keysOf(root["cgroups"][0])
        == (Keys{"path", "cpu_time_ns", "throttled_ns", "nr_periods", "nr_throttled"}));
    QCOMPARE(root["cgroups"][0]["nr_periods"].get<int64_t>(), int64_t{3});
    QCOMPARE(root["cgroups"][0]["nr_throttled"].get<int64_t>(), int64_t{2});
    QVERIFY(keysOf(root["cgroups"][1]) == (Keys{"path", "cpu_time_ns", "throttled_ns"}));
}

void TestMetricsJson::forkRootFolds()
{
    // Children are named PARENT.N, grandchildren PARENT.N.M (core/sim/machinework.cpp).
    const std::set<std::string> listed{"web", "web.api", "db"};
    QCOMPARE(forkRoot("db.1", listed), std::string("db"));
    QCOMPARE(forkRoot("db.1.4", listed), std::string("db"));
    // The longest listed prefix wins: a child of the listed task "web.api" folds into it.
    QCOMPARE(forkRoot("web.api.2", listed), std::string("web.api"));
    QCOMPARE(forkRoot("web.3", listed), std::string("web"));
    // A prefix counts only up to a '.': "webby.1" is not a child of "web".
    QCOMPARE(forkRoot("webby.1", listed), std::string("webby"));
    // No listed prefix: up to the first '.', or the whole name without one.
    QCOMPARE(forkRoot("x.1.2", listed), std::string("x"));
    QCOMPARE(forkRoot("lonely", listed), std::string("lonely"));
    // A listed name itself (no '.' after it) is not folded into anything else.
    QCOMPARE(forkRoot("web", listed), std::string("web"));
}

QTEST_APPLESS_MAIN(TestMetricsJson)
#include "tst_metricsjson.moc"
