// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli sweep / sweep-merge (docs/sweeps.md): the grid's order and its shards (derived by
// hand from the mixed-radix rule), JSON pointers into the scenario and their messages, the CSV's
// bytes independent of --jobs, merged shards equal to the unsharded file, clear errors for bad
// parameters. Tiny scenarios and short runs; nothing depends on the wall clock.
#include "cli/sweep.h"
#include "core/base/text.h"
#include "support/clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace schedlab;
using namespace schedlab::sweep;
using test::contains;

namespace {

// One CPU: hog "a" in the root cgroup, hog "b" in /g (cpu.weight 100 as written), and a task
// "f" that forks a short child and sleeps, in a loop.
const char* const kTiny = R"({
  "schedlab": 1,
  "name": "tiny",
  "seed": 1,
  "duration": "200ms",
  "machine": { "cpus": 1 },
  "cgroups": [ { "path": "/g", "cpu.weight": 100 } ],
  "tasks": [
    { "name": "a", "program": [ { "run": "forever" } ] },
    { "name": "b", "cgroup": "/g", "program": [ { "run": "forever" } ] },
    { "name": "f", "program": [ { "loop": [
        { "fork": { "program": [ { "run": "100us" } ] }, "wait": true },
        { "sleep": "5ms" } ] } ] }
  ]
})";

std::string writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly)
        || f.write(text.data(), static_cast<qint64>(text.size()))
            != static_cast<qint64>(text.size()))
        return {};
    return f.fileName().toStdString();
}

std::string readFile(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

CsvTable table(const std::string& path)
{
    CsvTable t;
    std::string error;
    if (!parseCsv(readFile(path), t, &error))
        qWarning("%s", error.c_str());
    return t;
}

int col(const CsvTable& t, const std::string& name)
{
    for (size_t i = 0; i < t.header.size(); ++i)
        if (t.header[i] == name)
            return static_cast<int>(i);
    return -1;
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gridOrder();
    void shardSlices();
    void splitValuesKeepsJson();
    void pointerApplied();
    void pointerErrors();
    void csvQuoting();
    void sweepRowsInGridOrder();
    void pointerReachesTheRun();
    void bytesIndependentOfJobs();
    void mergeEqualsUnsharded();
    void mergeRejectsMismatch();
    void badParams_data();
    void badParams();
};

void TestSweep::gridOrder()
{
    // p = {a, b}, q = {x, y, z}, seeds {1, 2}: run k = (i_p·3 + i_q)·2 + s (first parameter
    // slowest, seeds fastest), so 2·3·2 = 12 runs and e.g. run 7 = combination 3 = (b, x), seed 2.
    Grid g;
    g.params = {
        {"p", Param::Kind::Profile, {"a", "b"}}, {"q", Param::Kind::Profile, {"x", "y", "z"}}};
    g.seeds = {1, 2};
    QCOMPARE(g.combinations(), size_t(6));
    QCOMPARE(g.runs(), size_t(12));
    const std::vector<std::vector<size_t>> expected{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
    for (size_t c = 0; c < 6; ++c)
        QCOMPARE(g.combination(c), expected[c]);
    QCOMPARE(g.combinationOfRun(7), size_t(3));
    QCOMPARE(g.seedOfRun(7), uint64_t(2));
    QCOMPARE(g.combinationOfRun(4), size_t(2)); // (a, z)
    QCOMPARE(g.seedOfRun(4), uint64_t(1));
    Grid none;
    none.seeds = {5, 6, 7};
    QCOMPARE(none.runs(), size_t(3)); // no parameter: one combination × the seeds
}

void TestSweep::shardSlices()
{
    // Run k belongs to shard k mod n: 12 runs in 3 shards.
    QCOMPARE(shardRuns(12, {0, 3}), (std::vector<size_t>{0, 3, 6, 9}));
    QCOMPARE(shardRuns(12, {1, 3}), (std::vector<size_t>{1, 4, 7, 10}));
    QCOMPARE(shardRuns(12, {2, 3}), (std::vector<size_t>{2, 5, 8, 11}));
    QCOMPARE(shardRuns(2, {3, 4}), std::vector<size_t>{}); // more shards than runs: empty
    Shard s;
    std::string error;
    QVERIFY(parseShard("1/4", s, &error));
    QCOMPARE(s.index, size_t(1));
    QCOMPARE(s.count, size_t(4));
    QVERIFY(!parseShard("4/4", s, &error));
    QVERIFY(contains(error, "0 <= i < n"));
    QVERIFY(!parseShard("1", s, &error));
    QVERIFY(!parseShard("0/0", s, &error));
}

void TestSweep::splitValuesKeepsJson()
{
    std::vector<std::string> v;
    std::string error;
    QVERIFY(splitValues("1s,250ms", v, &error));
    QCOMPARE(v, (std::vector<std::string>{"1s", "250ms"}));
    QVERIFY(splitValues(R"("0,1","2",[1,2],{"a":1,"b":2})", v, &error));
    QCOMPARE(v, (std::vector<std::string>{R"("0,1")", R"("2")", "[1,2]", R"({"a":1,"b":2})"}));
    QVERIFY(!splitValues("1s,,2s", v, &error));
    QVERIFY(contains(error, "empty value"));
    QVERIFY(!splitValues("[1,2", v, &error));
    QVERIFY(contains(error, "unbalanced"));
}

void TestSweep::pointerApplied()
{
    std::string text = kTiny;
    std::string error;
    QVERIFY2(applyPointer(text, "/tasks/2/program/0/loop/1/sleep", "250ms", &error), error.c_str());
    QVERIFY2(applyPointer(text, "/cgroups/0/cpu.weight", "300", &error), error.c_str());
    QVERIFY2(applyPointer(text, "/kernel", R"({"profile":"6.12"})", &error), error.c_str());
    const auto j = nlohmann::json::parse(text);
    QCOMPARE(
        j["tasks"][2]["program"][0]["loop"][1]["sleep"].get<std::string>(), std::string("250ms"));
    QCOMPARE(j["cgroups"][0]["cpu.weight"].get<int>(), 300); // a JSON number, not "300"
    QCOMPARE(j["kernel"]["profile"].get<std::string>(), std::string("6.12")); // a new member
    QCOMPARE(j["name"].get<std::string>(), std::string("tiny"));              // the rest is kept
    // RFC 6901 escapes: "~1" is '/', "~0" is '~'.
    std::string esc = R"({"a/b": {"c~d": 1}})";
    QVERIFY2(applyPointer(esc, "/a~1b/c~0d", "2", &error), error.c_str());
    QCOMPARE(nlohmann::json::parse(esc)["a/b"]["c~d"].get<int>(), 2);
}

void TestSweep::pointerErrors()
{
    std::string text = kTiny;
    std::string error;
    QVERIFY(!applyPointer(text, "/tasks/5/name", "x", &error));
    QVERIFY2(contains(error, "/tasks/5/name") && contains(error, "/tasks is an array of 3 elements")
            && contains(error, "indices 0…2"),
        error.c_str());
    QVERIFY(!applyPointer(text, "/tasks/0/programme/0", "x", &error));
    QVERIFY2(contains(error, "/tasks/0 has no member \"programme\"") && contains(error, "program"),
        error.c_str());
    QVERIFY(!applyPointer(text, "/name/x", "1", &error));
    QVERIFY2(contains(error, "/name is a string, not an object or array"), error.c_str());
    QVERIFY(!applyPointer(text, "/tasks/01", "1", &error)); // no leading zeros (RFC 6901)
    QVERIFY(!applyPointer(text, "/a~2", "1", &error));
    QVERIFY2(contains(error, "'~' must be followed by 0"), error.c_str());
    QCOMPARE(text, std::string(kTiny)); // a failed pointer leaves the text as it was
}

void TestSweep::csvQuoting()
{
    QCOMPARE(csvField("plain"), std::string("plain"));
    QCOMPARE(csvField("a,b"), std::string("\"a,b\""));
    QCOMPARE(csvField("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
    // RFC 4180: a field with a line break is quoted, a bare CR as much as LF or CRLF (a reader
    // that accepts CR line ends would otherwise start a new record inside the field).
    QCOMPARE(csvField("a\rb"), std::string("\"a\rb\""));
    QCOMPARE(csvField("a\nb"), std::string("\"a\nb\""));
    QCOMPARE(csvField("a\r\nb"), std::string("\"a\r\nb\""));
    QCOMPARE(csvField(""), std::string());
    {
        // Written fields read back as they were, the CR inside the quotes included.
        CsvTable back;
        std::string why;
        QVERIFY(parseCsv(csvField("k") + "," + csvField("v") + "\n" + csvField("x\ry") + ","
                + csvField("q\"\n,") + "\n",
            back, &why));
        QCOMPARE(back.rows.size(), size_t(1));
        QCOMPARE(back.rows[0], (std::vector<std::string>{"x\ry", "q\"\n,"}));
    }
    CsvTable t;
    std::string error;
    QVERIFY(parseCsv("x,y\r\n\"a,b\",\"c\"\"d\"\n1,\n", t, &error));
    QCOMPARE(t.header, (std::vector<std::string>{"x", "y"}));
    QCOMPARE(t.rows.size(), size_t(2));
    QCOMPARE(t.rows[0], (std::vector<std::string>{"a,b", "c\"d"}));
    QCOMPARE(t.rows[1], (std::vector<std::string>{"1", ""}));
    QVERIFY(!parseCsv("x,y\n1\n", t, &error));
    QVERIFY(contains(error, "row 1 has 1 fields"));
}

void TestSweep::sweepRowsInGridOrder()
{
    QTemporaryDir dir;
    const std::string file = writeFile(dir, "tiny.json", kTiny);
    const std::string out = dir.filePath("r.csv").toStdString();
    const auto r = test::runCliCaptured(
        {"sweep", file, "--param", "profile=6.12,7.1", "--param", "PLACE_LAG=on,off", "--seeds",
            "2", "--duration", "20ms", "--jobs", "2", "--quiet", "--out", out});
    QVERIFY2(r.code == 0, r.err.c_str());
    const CsvTable t = table(out);
    // Header: run, runs, the parameters in command-line order, seed, status, …
    QCOMPARE(std::vector<std::string>(t.header.begin(), t.header.begin() + 6),
        (std::vector<std::string>{"run", "runs", "profile", "PLACE_LAG", "seed", "status"}));
    QCOMPARE(t.rows.size(), size_t(8)); // 2 × 2 × 2 seeds
    // Row k: profile = values[k / 4], PLACE_LAG = values[(k / 2) % 2], seed = 1 + k % 2 (the
    // scenario's seed 1 first).
    const char* profiles[] = {"6.12", "7.1"};
    const char* lag[] = {"on", "off"};
    for (size_t k = 0; k < 8; ++k) {
        QCOMPARE(t.rows[k][0], std::to_string(k));
        QCOMPARE(t.rows[k][1], std::string("8"));
        QCOMPARE(t.rows[k][2], std::string(profiles[k / 4]));
        QCOMPARE(t.rows[k][3], std::string(lag[(k / 2) % 2]));
        QCOMPARE(t.rows[k][4], std::to_string(1 + k % 2));
        QCOMPARE(t.rows[k][5], std::string("ok"));
        QCOMPARE(t.rows[k][6], std::string("20000000")); // duration_ns of a 20 ms run
    }
    // Per-task, forked-children and cgroup columns are there ("f" forks, "a" does not).
    for (const char* c : {"task:a:share", "task:b:wait_p99_ns", "forked:f:count", "cgroup:/g:share",
             "finding:starvation:count"})
        QVERIFY2(col(t, c) >= 0, c);
    QCOMPARE(col(t, "forked:a:count"), -1);
}

void TestSweep::pointerReachesTheRun()
{
    // One CPU, hogs a (root cgroup, weight 1024) and b (in /g). With /g's cpu.weight 100 its group
    // entity weighs 1024·100/100 = 1024 and a gets about 1024/2048 = 50 %; with 300 the group
    // weighs 3072 and a gets 1024/4096 = 25 %, of what f leaves: f forks a 100 us child every
    // ~5.1 ms, about 39 in 200 ms, so ~2 % of the CPU: a ≈ 0.98/2 = 49 % and 0.98/4 = 24.5 %.
    // Tolerances cover the start of the group's load average (PELT) and slice granularity.
    QTemporaryDir dir;
    const std::string file = writeFile(dir, "tiny.json", kTiny);
    const std::string out = dir.filePath("w.csv").toStdString();
    const auto r = test::runCliCaptured(
        {"sweep", file, "--param", "/cgroups/0/cpu.weight=100,300", "--quiet", "--out", out});
    QVERIFY2(r.code == 0, r.err.c_str());
    const CsvTable t = table(out);
    QCOMPARE(t.rows.size(), size_t(2));
    const int share = col(t, "task:a:share");
    QVERIFY(share >= 0);
    QCOMPARE(t.rows[0][2], std::string("100"));
    const double equal = std::stod(t.rows[0][static_cast<size_t>(share)]);
    const double third = std::stod(t.rows[1][static_cast<size_t>(share)]);
    QVERIFY2(equal > 0.46 && equal < 0.52, t.rows[0][static_cast<size_t>(share)].c_str());
    QVERIFY2(third > 0.22 && third < 0.27, t.rows[1][static_cast<size_t>(share)].c_str());
}

void TestSweep::bytesIndependentOfJobs()
{
    QTemporaryDir dir;
    const std::string file = writeFile(dir, "tiny.json", kTiny);
    std::vector<std::string> outs;
    for (const char* jobs : {"1", "2", "3"}) {
        const std::string out = dir.filePath(QStringLiteral("j%1.csv").arg(jobs)).toStdString();
        const auto r = test::runCliCaptured({"sweep", file, "--param", "profile=6.12,7.1",
            "--param", "/tasks/2/program/0/loop/1/sleep=1ms,3ms", "--seeds", "2", "--duration",
            "15ms", "--jobs", jobs, "--quiet", "--out", out});
        QVERIFY2(r.code == 0, r.err.c_str());
        outs.push_back(readFile(out));
    }
    QVERIFY(!outs[0].empty());
    QCOMPARE(outs[1], outs[0]);
    QCOMPARE(outs[2], outs[0]);
}

void TestSweep::mergeEqualsUnsharded()
{
    QTemporaryDir dir;
    const std::string file = writeFile(dir, "tiny.json", kTiny);
    auto sweepTo = [&](const std::string& name, const std::vector<std::string>& extra) {
        std::vector<std::string> args{"sweep", file, "--param", "profile=6.12,7.1", "--param",
            "/cgroups/0/cpu.weight=100,300,1000", "--duration", "10ms", "--jobs", "2", "--quiet",
            "--out", dir.filePath(QString::fromStdString(name)).toStdString()};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = test::runCliCaptured(args);
        if (r.code != 0)
            qWarning("%s", r.err.c_str());
        return dir.filePath(QString::fromStdString(name)).toStdString();
    };
    const std::string whole = sweepTo("whole.csv", {});
    const std::string s0 = sweepTo("s0.csv", {"--shard", "0/2"});
    const std::string s1 = sweepTo("s1.csv", {"--shard", "1/2"});
    QCOMPARE(table(s0).rows.size(), size_t(3)); // runs 0, 2, 4 of 6
    QCOMPARE(table(s1).rows[0][0], std::string("1"));
    const std::string merged = dir.filePath("merged.csv").toStdString();
    auto r = test::runCliCaptured({"sweep-merge", s1, s0, "--out", merged}); // any file order
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY(!readFile(whole).empty());
    QCOMPARE(readFile(merged), readFile(whole));
    // A missing shard is an error naming the missing runs.
    r = test::runCliCaptured({"sweep-merge", s0, "--out", merged});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "3 of 6 runs missing (runs 1, 3, 5)"), r.err.c_str());
    // The same shard twice.
    r = test::runCliCaptured({"sweep-merge", s0, s0, s1, "--out", merged});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "run 0 is in"), r.err.c_str());
}

void TestSweep::mergeRejectsMismatch()
{
    QTemporaryDir dir;
    const std::string a = writeFile(dir, "a.csv", "run,runs,profile,seed\n0,2,6.12,1\n");
    const std::string b = writeFile(dir, "b.csv", "run,runs,PLACE_LAG,seed\n1,2,on,1\n");
    const std::string c = writeFile(dir, "c.csv", "x,y\n1,2\n");
    const std::string out = dir.filePath("m.csv").toStdString();
    auto r = test::runCliCaptured({"sweep-merge", a, b, "--out", out});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "header differs") && contains(r.err, "column 3"), r.err.c_str());
    r = test::runCliCaptured({"sweep-merge", c, "--out", out});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "not a sweep CSV"), r.err.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(out))); // nothing written
}

void TestSweep::badParams_data()
{
    QTest::addColumn<QStringList>("params");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown key") << QStringList{"--param", "WIBBLE=1,2"}
                                 << "--param WIBBLE: unknown KEY";
    QTest::newRow("no values") << QStringList{"--param", "profile"} << "expected KEY=V1,V2";
    QTest::newRow("bad profile") << QStringList{"--param", "profile=6.12,9.9"}
                                 << "--param profile=9.9: unknown profile \"9.9\"";
    QTest::newRow("feature value") << QStringList{"--param", "PLACE_LAG=on,maybe"}
                                   << "--param PLACE_LAG=maybe: a feature is on or off";
    QTest::newRow("choice value") << QStringList{"--param", "reweight=wibble"}
                                  << "--param reweight=wibble:";
    QTest::newRow("duration") << QStringList{"--param", "duration=1s,soon"}
                              << "--param duration=soon:";
    QTest::newRow("seed") << QStringList{"--param", "seed=1,2"} << "--seeds N";
    QTest::newRow("twice") << QStringList{"--param", "profile=6.12", "--param", "profile=7.1"}
                           << "--param profile is given twice";
    QTest::newRow("pointer missing")
        << QStringList{"--param", "/tasks/7/program/0/run=1ms"}
        << "--param /tasks/7/program/0/run=1ms: JSON pointer /tasks/7/program/0/run: /tasks is an "
           "array of 3 elements";
    // The scenario reader's message names the pointer's path and what it expected.
    QTest::newRow("pointer value")
        << QStringList{"--param", "/tasks/2/program/0/loop/1/sleep=1ms,soon"}
        << "with /tasks/2/program/0/loop/1/sleep=soon: ";
    QTest::newRow("shard") << QStringList{"--shard", "2/2"} << "--shard expects i/n";
    QTest::newRow("jobs") << QStringList{"--jobs", "0"} << "--jobs expects a number";
}

void TestSweep::badParams()
{
    QFETCH(QStringList, params);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string file = writeFile(dir, "tiny.json", kTiny);
    const std::string out = dir.filePath("bad.csv").toStdString();
    std::vector<std::string> args{"sweep", file, "--duration", "5ms", "--out", out};
    for (const QString& p : params)
        args.push_back(p.toStdString());
    const auto r = test::runCliCaptured(args);
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, expected.toStdString()), r.err.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(out))); // fails before any run, writes nothing
}

QTEST_GUILESS_MAIN(TestSweep)
#include "tst_sweep.moc"
