// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli import and compare --real on the hand-made traces of tests/data/ftrace/: the
// metrics JSON has the hand-computed CPU times, bad traces exit 2 naming the line, and compare
// puts the real run beside the model under the scenario's task names.
#include "cli/cli.h"
#include "support/clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace schedlab;

namespace {

using Result = test::CliResult;
using test::contains;

Result cli(const std::vector<std::string>& args)
{
    return test::runCliCaptured(args);
}

const std::string kData = SCHEDLAB_SOURCE_DIR "/tests/data/ftrace/";

} // namespace

class TestImportCli : public QObject
{
    Q_OBJECT

private slots:
    void importWritesMetrics()
    {
        QTemporaryDir dir;
        const std::string out = dir.filePath("m.json").toStdString();
        const Result r = cli({"import", kData + "basic-trace-cmd.txt", "--metrics", out});
        QCOMPARE(r.code, 0);
        std::ifstream in(out);
        const std::string json((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(contains(json,
            "\"name\": \"hog-101\",\n      \"cgroup\": \"\",\n      "
            "\"cpu_time_ns\": 7980000"));
        QVERIFY(contains(json, "\"busy_ns\": 9980000"));
        QVERIFY(contains(r.out, "skipped 2 other events"));
        const Result records = cli({"import", kData + "pid-reuse.txt", "--records", "-"});
        QCOMPARE(records.code, 0);
        QVERIFY(contains(records.out, "b-200#2"));
    }

    void importWritesAReplayScenario()
    {
        // replay-chain.txt is tst_replay's chain trace: w-10 wakes s-11 from its own context
        // (a wake chain), a timer wakes w (a timed sleep).
        QTemporaryDir dir;
        const std::string out = dir.filePath("replay.json").toStdString();
        const Result r = cli({"import", kData + "replay-chain.txt", "--scenario", out, "--quiet"});
        QCOMPARE(r.code, 0);
        QVERIFY(contains(r.err, "replay: 2 tasks"));
        QVERIFY(contains(r.err, "1 wake chains, 1 timed sleeps"));
        QVERIFY(contains(r.err, "interrupts, softirqs and untraced kernel threads"));
        std::ifstream in(out);
        const std::string json((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(contains(json, "\"wait_for_completion\": \"wake:s-11\""));
        QVERIFY(contains(json, "\"complete\": \"wake:s-11\""));
        QCOMPARE(cli({"validate", out}).code, 0);
        // It runs, and the replay's CPU times are the trace's (tst_replay works them out).
        const Result run = cli({"run", out, "--metrics", "-", "--quiet"});
        QCOMPARE(run.code, 0);
        QVERIFY(contains(run.out, "\"cpu_time_ns\": 4000000"));
        QVERIFY(contains(run.out, "\"cpu_time_ns\": 1500000"));
        // compare --real puts each trace task beside its replay (the names map) and scores it:
        // the replay gives every task its traced CPU time, so the share error is 0.
        const Result cmp = cli({"compare", out, "--real", kData + "replay-chain.txt"});
        QCOMPARE(cmp.code, 0);
        QVERIFY2(contains(cmp.out, "fidelity as written: 2 tasks, CPU-share error 0.0 pp summed"),
            cmp.out.c_str());
        // Timed: no completion at all.
        const Result timed =
            cli({"import", kData + "replay-chain.txt", "--scenario", "-", "--wakeups", "timed"});
        QCOMPARE(timed.code, 0);
        QVERIFY(!contains(timed.out, "completion"));
        QVERIFY(contains(timed.out, "\"sleep\": \"6ms\""));
        // Usage errors exit 2 and write nothing.
        const std::string none = dir.filePath("none.json").toStdString();
        QCOMPARE(cli({"import", kData + "replay-chain.txt", "--scenario", none, "--wakeups",
                         "sometimes"})
                     .code,
            2);
        QCOMPARE(cli({"import", kData + "replay-chain.txt", "--cpus", "4"}).code, 2);
        QCOMPARE(cli({"import", kData + "replay-chain.txt", "--scenario", none, "--profile", "5.0"})
                     .code,
            2);
        QVERIFY(!QFile::exists(QString::fromStdString(none)));
        // A bad trace gives no scenario.
        QCOMPARE(cli({"import", kData + "bad.txt", "--scenario", none}).code, 2);
        QVERIFY(!QFile::exists(QString::fromStdString(none)));
    }

    void badTracesExit2()
    {
        const Result r = cli({"import", kData + "bad.txt"});
        QCOMPARE(r.code, 2);
        QVERIFY(contains(r.err, "bad.txt:16:"));
        QCOMPARE(cli({"import", kData + "no-such-file.txt"}).code, 2);
        QCOMPARE(cli({"import"}).code, 2);
        const Result t = cli({"import", kData + "truncated.txt", "--quiet"});
        QCOMPARE(t.code, 0); // a truncated last line is only a warning
        QVERIFY(contains(t.err, "warning: "));
    }

    // equal-hogs-real.txt: hog-1 [0, 4), hog-2 [4, 8), hog-3 [8, 12) ms: a third each. The shares
    // equal the model's, so they are rows compare folds away unless --all is given.
    void compareReal()
    {
        const Result folded = cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json",
            "--real", kData + "equal-hogs-real.txt"});
        QCOMPARE(folded.code, 0);
        QVERIFY(!contains(folded.out, " share "));
        QVERIFY(contains(folded.out, "hog-1 wait max"));
        const Result r = cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json", "--real",
            kData + "equal-hogs-real.txt", "--all"});
        QCOMPARE(r.code, 0);
        QVERIFY(contains(r.out, "real"));
        std::istringstream lines(r.out);
        int rows = 0;
        for (std::string line; std::getline(lines, line);)
            if (contains(line, "hog-") && contains(line, " share ")) {
                QVERIFY2(
                    line.size() > 20 && line.substr(line.size() - 6) == "33.33%", line.c_str());
                ++rows;
            }
        QCOMPARE(rows, 3);
        // hog-1 waits from its preemption at 4 ms to 12 ms.
        QVERIFY(contains(r.out, "8.000 ms"));
        // Each real hog's longest run is its one 4 ms turn (the trace's, not a 0 it lacks).
        std::istringstream again(r.out);
        int longest = 0;
        for (std::string line; std::getline(again, line);)
            if (contains(line, "hog-") && contains(line, " longest run ")) {
                QVERIFY2(line.substr(line.size() - 8) == "4.000 ms", line.c_str());
                ++longest;
            }
        QCOMPARE(longest, 3);
        const Result bad = cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json",
            "--real", kData + "bad.txt"});
        QCOMPARE(bad.code, 2);
        QCOMPARE(
            cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json", "--real"}).code, 2);
    }

    // compare --replay: the trace's own replay (import --scenario) as a column between the
    // scenario and the real run, its tasks under the trace's names. equal-hogs-real.txt gives
    // each hog one 4 ms turn of the 12 ms traced and wakes kworker/0:1 at 0, which does not run
    // before the end: the replay has four tasks runnable at the end, each running on (the rule
    // for a task the trace leaves runnable), so 25 % each where the scenario and the trace have
    // 33.33 % for the hogs; its fidelity line sums |25 − 33.33| three times and the kworker's
    // 25 − 0: 50.0 pp.
    void compareWithReplayColumn()
    {
        QTemporaryDir dir;
        const std::string replay = dir.filePath("replay.json").toStdString();
        QCOMPARE(
            cli({"import", kData + "equal-hogs-real.txt", "--scenario", replay, "--quiet"}).code,
            0);
        const Result r = cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json", "--real",
            kData + "equal-hogs-real.txt", "--replay", replay, "--all"});
        QCOMPARE(r.code, 0);
        QVERIFY2(
            contains(r.out, "as written") && contains(r.out, "replayed") && contains(r.out, "real"),
            r.out.c_str());
        std::istringstream lines(r.out);
        int rows = 0;
        for (std::string line; std::getline(lines, line);)
            if (contains(line, "hog-") && contains(line, " share ")) {
                std::istringstream cells(line);
                std::string name, metric, a, b, c;
                cells >> name >> metric >> a >> b >> c;
                QCOMPARE(a, std::string("33.33%"));
                QCOMPARE(b, std::string("25.00%"));
                QCOMPARE(c, std::string("33.33%"));
                ++rows;
            }
        QCOMPARE(rows, 3);
        QVERIFY2(contains(r.out, "fidelity replayed: 4 tasks, CPU-share error 50.0 pp summed"),
            r.out.c_str());
        // --replay needs the trace, and a scenario that is a replay.
        QCOMPARE(
            cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json", "--replay", replay})
                .code,
            2);
        QCOMPARE(cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json", "--real",
                         kData + "equal-hogs-real.txt", "--replay",
                         SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json"})
                     .code,
            2);
    }

    // A real trace does not mark forked children; compare folds them by name (PARENT.N, from
    // the runner's name map) into the parent's ".* forked" rows as it does the model's children.
    // The trace: p runs [0, 2) ms, its children p.1 [2, 5) and p.2 [5, 9), p again [9, 10).
    void compareRealFoldsForkedChildren()
    {
        QTemporaryDir dir;
        const std::string scenario = dir.filePath("forker.json").toStdString();
        std::ofstream(scenario) << R"({"schedlab": 1, "name": "forker", "duration": "10ms",
            "tasks": [{"name": "p", "program": [{"fork": {"program": [{"run": "3ms"}]}},
                                                {"fork": {"program": [{"run": "4ms"}]}},
                                                {"run": "forever"}]}]})";
        const std::string trace = dir.filePath("forker-real.txt").toStdString();
        auto sw = [](int from, const char* fromName, int to, const char* toName, const char* at,
                      const char* state) {
            return std::string("           x-") + std::to_string(from) + "     [000] d..2.    " + at
                + ": sched_switch: prev_comm=" + fromName + " prev_pid=" + std::to_string(from)
                + " prev_prio=120 prev_state=" + state + " ==> next_comm=" + toName
                + " next_pid=" + std::to_string(to) + " next_prio=120\n";
        };
        std::ofstream(trace) << "# schedlab-kernel: 6.18.15+deb13-amd64\n"
                                "# schedlab-scenario: forker\n"
                                "# schedlab-task: 401 p /\n"
                                "# schedlab-task: 402 p.1 /\n"
                                "# schedlab-task: 403 p.2 /\n"
                                "# tracer: nop\n#\n"
                             << sw(401, "p", 402, "p.1", "50.002000", "R+")
                             << sw(402, "p.1", 403, "p.2", "50.005000", "X")
                             << sw(403, "p.2", 401, "p", "50.009000", "X")
                             << sw(401, "p", 0, "swapper/0", "50.010000", "S");
        const Result r = cli({"compare", scenario, "--real", trace, "--all"});
        QCOMPARE(r.code, 0);
        std::istringstream lines(r.out);
        std::string forked, cpu;
        for (std::string line; std::getline(lines, line);) {
            if (contains(line, "p.* forked"))
                forked = line;
            if (contains(line, "p.* cpu"))
                cpu = line;
            QVERIFY2(!contains(line, "p.1 share") && !contains(line, "p.2 share"), line.c_str());
        }
        QVERIFY2(forked.size() > 2 && forked.substr(forked.size() - 2) == " 2", r.out.c_str());
        // The real children ran 3 + 4 = 7 ms (their comm is the runner's name: PR_SET_NAME).
        QVERIFY2(cpu.size() > 8 && cpu.substr(cpu.size() - 8) == "7.000 ms", r.out.c_str());
    }

    // The runner's header names the scenario and its CPU count: a trace of another run is
    // refused (exit 2) unless --force.
    void compareRealChecksTheHeader()
    {
        QTemporaryDir dir;
        std::ifstream in(kData + "equal-hogs-real.txt");
        const std::string original((std::istreambuf_iterator<char>(in)), {});
        auto write = [&](const std::string& name, const std::string& from, const std::string& to) {
            std::string text = original;
            text.replace(text.find(from), from.size(), to);
            const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
            std::ofstream(path) << text;
            return path;
        };
        const std::string hogs = SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json";
        const std::string other =
            write("other.txt", "# schedlab-scenario: equal-hogs", "# schedlab-scenario: other");
        const Result r = cli({"compare", hogs, "--real", other});
        QCOMPARE(r.code, 2);
        QVERIFY2(contains(r.err,
                     "compare: " + other
                         + ": the trace is a run of scenario \"other\" (its \"# "
                           "schedlab-scenario:\" line), not of \"equal-hogs\""),
            r.err.c_str());
        QVERIFY(contains(r.err, "not a run of this scenario; --force compares it anyway"));
        QVERIFY(r.out.empty());
        const Result forced = cli({"compare", hogs, "--real", other, "--force"});
        QCOMPARE(forced.code, 0);
        QVERIFY(contains(forced.err, "warning: " + other + ": the trace is a run of scenario"));
        QVERIFY(contains(forced.out, "real"));
        // equal-hogs has 1 CPU.
        const std::string cpus = write("cpus.txt", "# schedlab-scenario: equal-hogs",
            "# schedlab-scenario: equal-hogs\n# schedlab-cpus: 4");
        const Result c = cli({"compare", hogs, "--real", cpus});
        QCOMPARE(c.code, 2);
        QVERIFY2(contains(c.err,
                     ": the trace's run had 4 CPUs (its \"# schedlab-cpus:\" line), the scenario "
                     "has 1"),
            c.err.c_str());
        // Without the runner's header nothing can be checked: a warning says so.
        const std::string bare = write("bare.txt", "# schedlab-scenario: equal-hogs\n", "");
        const Result b = cli({"compare", hogs, "--real", bare});
        QCOMPARE(b.code, 0);
        QVERIFY(contains(b.err, "the trace does not name its scenario"));
    }

    // A cgroup of the scenario the trace knows nothing of (no task placed in it, no cpu.stat)
    // is shown as n/a, not as a real "0 ns", and left out of the real run's metrics.
    void compareRealAbsentCgroup()
    {
        QTemporaryDir dir;
        const std::string scenario = dir.filePath("g.json").toStdString();
        std::ofstream(scenario) << R"({ "schedlab": 1, "name": "equal-hogs", "duration": "12ms",
            "machine": { "cpus": 1 }, "cgroups": [ { "path": "/a" } ],
            "tasks": [ { "name": "hog", "count": 3, "cgroup": "/a",
                         "program": [ { "run": "forever" } ] } ] })";
        const Result r =
            cli({"compare", scenario, "--real", kData + "equal-hogs-real.txt", "--all"});
        QCOMPARE(r.code, 0);
        std::istringstream lines(r.out);
        bool seen = false;
        for (std::string line; std::getline(lines, line);)
            if (contains(line, "cgroup /a cpu")) {
                QVERIFY2(line.substr(line.size() - 3) == "n/a", line.c_str());
                QVERIFY2(contains(line, "12.000 ms"), line.c_str()); // the model's 12 ms
                seen = true;
            }
        QVERIFY2(seen, r.out.c_str());
        const Result json =
            cli({"compare", scenario, "--real", kData + "equal-hogs-real.txt", "--metrics", "-"});
        QCOMPARE(json.code, 0);
        const size_t real = json.out.find("\"variant\": \"real\"");
        QVERIFY(real != std::string::npos);
        QVERIFY(contains(json.out.substr(0, real), "\"path\": \"/a\""));
        QVERIFY(!contains(json.out.substr(real), "\"path\": \"/a\""));
    }
};

QTEST_APPLESS_MAIN(TestImportCli)
#include "tst_importcli.moc"
