// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-cli's answers to bad input: out-of-range numbers, missing output directories (the same
// message for every output option, before any simulation), whole-or-nothing output files, and
// the exit codes of a run stopped by a resource guard (docs/limits.md). Outputs that cannot hurt
// (docs/limits.md, "Output files"): devices, FIFOs and '-' written in place and left as they
// were, symbolic links out of their directory refused, no temporary file left by a killed run,
// one command's outputs committed together, an output equal to an input refused. CI runs this as
// root: device nodes are private ones made with mknod in a temporary directory, never /dev's.
#include "cli/cli.h"
#include "cli/output.h"
#include "core/base/text.h"
#include "support/clirun.h"
#include "support/devnodes.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace schedlab;

namespace {

using Result = test::CliResult;
using test::contains;

Result cli(const std::vector<std::string>& args)
{
    return test::runCliCaptured(args);
}

const std::string kHogs = SCHEDLAB_SOURCE_DIR "/scenarios/equal-hogs.json";

std::string writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        return {};
    return f.fileName().toStdString();
}

std::string readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return "(cannot read " + path + ")";
    return f.readAll().toStdString();
}

/// Every entry of @p dir, hidden ones included (temporary files are ".NAME.XXXXXX").
QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

using schedlab::test::isCharDevice;
using schedlab::test::makeCharDevice;

mode_t typeOf(const std::string& path)
{
    struct stat st = {};
    return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seedRange_data();
    void seedRange();
    void durationRange_data();
    void durationRange();
    void commandLineConventions();
    void missingDirectory_data();
    void missingDirectory();
    void outputIsADirectory();
    void csvDirectoryCreatedUnderExistingParent();
    void outputReplacedWhole();
    void metricsCarryLagBound();
    void resourceGuardExitCode();
    void limitOption_data();
    void limitOption();
    void printableEscapes();
    void compareShowsWhatDiffers();
    void compareSeedScenario();
    void compareAllShowsEverything();
    void runSummaryFolds();
    void metricsRecordTheVariant();
    void noProgressWhenNotATerminal();
    void rtAppCommands();
    void deviceOutputWrittenInPlace();
    void fifoAndStdoutOutputs();
    void symlinkPolicy();
    void killedRunLeavesNoTemporaryFile_data();
    void killedRunLeavesNoTemporaryFile();
    void failedOutputLeavesTheOthers();
    void outputEqualToInputRefused();
    void renameFailingMidwaySaysWhatWasWritten();
};

void TestCli::seedRange_data()
{
    QTest::addColumn<QString>("seed");
    QTest::addColumn<int>("code");
    QTest::addRow("zero") << "0" << 0;
    QTest::addRow("max") << "18446744073709551615" << 0;
    QTest::addRow("max+1") << "18446744073709551616" << 2;
    QTest::addRow("minus one") << "-1" << 2;
    QTest::addRow("plus") << "+5" << 2;
    QTest::addRow("hex") << "0x10" << 2;
    QTest::addRow("trailing") << "12abc" << 2;
    QTest::addRow("empty") << "" << 2;
}

void TestCli::seedRange()
{
    QFETCH(QString, seed);
    QFETCH(int, code);
    const Result r =
        cli({"run", kHogs, "--duration", "5ms", "--quiet", "--seed", seed.toStdString()});
    QCOMPARE(r.code, code);
    if (code == 2)
        QVERIFY2(contains(r.err, "--seed expects an integer in [0, 18446744073709551615]"),
            r.err.c_str());
    // A compare variant's seed follows the same rule.
    const Result c = cli({"compare", kHogs, "--duration", "5ms", "--variant",
        "seed=" + seed.toStdString(), "--metrics", "-"});
    QCOMPARE(c.code, code);
}

void TestCli::durationRange_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<int>("code");
    for (const char* o : {"--duration", "--watchdog"}) {
        QTest::addRow("%s 1ns", o) << o << "1ns" << 0;
        QTest::addRow("%s 24h", o) << o << "86400s" << 0;
        QTest::addRow("%s 24h+1ns", o) << o << "86400000000001ns" << 2;
        QTest::addRow("%s zero", o) << o << "0s" << 2;
        QTest::addRow("%s negative", o) << o << "-1ms" << 2;
        QTest::addRow("%s overflow", o) << o << "9223372036854775808ns" << 2;
        QTest::addRow("%s no unit", o) << o << "10" << 2;
    }
}

void TestCli::durationRange()
{
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(int, code);
    // 24 h of simulated time would take long: a check of the value alone is enough, so the
    // accepted ones run a millisecond (the last --duration wins).
    std::vector<std::string> args{
        "run", kHogs, "--quiet", option.toStdString(), value.toStdString()};
    if (code == 0) {
        args.push_back("--duration");
        args.push_back("1ms");
    }
    const Result r = cli(args);
    QCOMPARE(r.code, code);
    if (code == 2)
        QVERIFY2(contains(r.err, option.toStdString()), r.err.c_str());
}

void TestCli::commandLineConventions()
{
    // The forms every command reads through core/base/args.h, end to end in run, sweep, import
    // and export-rtapp: "OPT needs a value" and exit 2, --opt=value, "--" before a FILE.
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"run", kHogs, "--metrics"}, {"run", kHogs, "--seed="}, {"sweep", kHogs, "--out"},
             {"import", "--names"}, {"export-rtapp", kHogs, "--out"}}) {
        const Result r = cli(args);
        QCOMPARE(r.code, 2);
        const std::string option = args.back().substr(0, args.back().find('='));
        QVERIFY2(contains(r.err, option + " needs a value"), r.err.c_str());
    }
    // --duration=1ms is --duration 1ms: the metrics say 1 ms simulated.
    const Result eq = cli({"run", kHogs, "--duration=1ms", "--metrics=-"});
    QCOMPARE(eq.code, 0);
    QVERIFY2(contains(eq.out, "\"duration_ns\": 1000000"), eq.out.c_str());
    // A flag does not take a value: --quiet=1 is an unknown option.
    const Result flag = cli({"run", kHogs, "--quiet=1"});
    QCOMPARE(flag.code, 2);
    QVERIFY2(contains(flag.err, "unknown option --quiet=1"), flag.err.c_str());
    // After "--" a word starting with '-' is the FILE (which does not exist here).
    const Result end = cli({"run", "--duration", "1ms", "--", "-no-such.json"});
    QCOMPARE(end.code, 2);
    QVERIFY2(contains(end.err, "-no-such.json: cannot"), end.err.c_str());
    QVERIFY2(!contains(end.err, "unknown option"), end.err.c_str());
}

void TestCli::missingDirectory_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("path");
    QTest::addRow("metrics") << "--metrics"
                             << "no/such/dir/m.json";
    QTest::addRow("records") << "--records"
                             << "no/such/dir/r.txt";
    QTest::addRow("trace") << "--trace"
                           << "no/such/dir/t.json";
    QTest::addRow("csv") << "--csv"
                         << "no/such/dir";
}

// Every output option fails the same way, before the simulation runs (nothing on stdout).
void TestCli::missingDirectory()
{
    QFETCH(QString, option);
    QFETCH(QString, path);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string full = dir.filePath(path).toStdString();
    const std::string parent = QFileInfo(dir.filePath(path)).path().toStdString();
    for (const char* cmd : {"run", "compare"}) {
        std::vector<std::string> args{cmd, kHogs, "--duration", "5ms", option.toStdString(), full};
        if (std::string(cmd) == "compare") {
            if (option != "--metrics")
                continue; // compare writes metrics only
            args.insert(args.end(), {"--variant", "NO_PLACE_LAG"});
        }
        const Result r = cli(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, std::string());
        const std::string expected = std::string(cmd) + ": " + option.toStdString() + " " + full
            + ": directory " + parent + " does not exist\n";
        QCOMPARE(r.err, expected);
    }
    QVERIFY(!QFileInfo::exists(dir.filePath("no")));
}

void TestCli::outputIsADirectory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Result r = cli({"run", kHogs, "--duration", "5ms", "--trace", dir.path().toStdString()});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "is a directory"), r.err.c_str());
    const std::string file = writeFile(dir, "f", "x");
    QVERIFY(!file.empty());
    const Result c = cli({"run", kHogs, "--duration", "5ms", "--csv", file});
    QCOMPARE(c.code, 2);
    QVERIFY2(contains(c.err, "exists and is not a directory"), c.err.c_str());
}

void TestCli::csvDirectoryCreatedUnderExistingParent()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string out = dir.filePath("d").toStdString();
    const Result r = cli({"run", kHogs, "--duration", "5ms", "--quiet", "--csv", out});
    QCOMPARE(r.code, 0);
    QFile samples(dir.filePath("d/samples.csv"));
    QFile slices(dir.filePath("d/slices.csv"));
    QVERIFY(samples.open(QIODevice::ReadOnly));
    QVERIFY(slices.open(QIODevice::ReadOnly));
    QVERIFY(samples.readLine().startsWith("time_ns,"));
    QVERIFY(slices.size() > 0);
    QCOMPARE(QDir(dir.filePath("d")).entryList(QDir::Files | QDir::Hidden).size(),
        2); // no temporaries left
    // "DIR/" with a trailing slash names the same directory (README's `--csv out/`).
    const Result slash = cli(
        {"run", kHogs, "--duration", "5ms", "--quiet", "--csv", dir.filePath("e/").toStdString()});
    QCOMPARE(slash.code, 0);
    QVERIFY(QFileInfo::exists(dir.filePath("e/slices.csv")));
}

// An existing output file is replaced by the whole new text; no temporary file stays beside it.
void TestCli::outputReplacedWhole()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string metrics = writeFile(dir, "m.json", "old content\n");
    QVERIFY(!metrics.empty());
    const Result r = cli({"run", kHogs, "--duration", "5ms", "--quiet", "--metrics", metrics});
    QCOMPARE(r.code, 0);
    QFile f(QString::fromStdString(metrics));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.startsWith("{"));
    QVERIFY(text.endsWith("}\n"));
    QVERIFY(!text.contains("old content"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"m.json"});
}

// `run` checks samples against the lag bound only when a metrics file reads it: with --metrics
// the 6.13 custom-slice case of tst_catalogue's bugHuntMetrics (a 10 ms slice against a
// default-slice task: the short task's lag 2.8 ms beyond vslice(0.7 ms + 1 ms)) is measured
// there, with the recording discarded as always in `run`.
void TestCli::metricsCarryLagBound()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string scenario = writeFile(dir, "custom.json",
        R"({"schedlab": 1, "name": "c", "duration": "100ms", "kernel": {"hz": 1000},
        "machine": {"cpus": 1},
        "tasks": [{"name": "long", "slice": "10ms", "program": [{"run": "forever"}]},
                  {"name": "short", "program": [{"run": "forever"}]}]})");
    QVERIFY(!scenario.empty());
    const Result r = cli({"run", scenario, "--profile", "6.13", "--metrics", "-"});
    QCOMPARE(r.code, 0);
    QVERIFY2(contains(r.out, "\"lag_excess_max_ns\": 2800000"), r.out.c_str());
}

// A fork loop beyond --limit live-tasks=5: exit 3, the reason on stderr, and the outputs of the
// stopped run are still written (what happened up to the stop).
void TestCli::resourceGuardExitCode()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string scenario = writeFile(dir, "forks.json",
        R"({ "schedlab": 1, "name": "forks", "duration": "100ms", "machine": { "cpus": 2 },
      "tasks": [ { "name": "p", "program": [ { "loop": [
          { "fork": { "program": [ { "run": "forever" } ] } }, { "run": "100us" } ] } ] } ] })");
    QVERIFY(!scenario.empty());
    const std::string metrics = dir.filePath("m.json").toStdString();
    const Result r = cli({"run", scenario, "--limit", "live-tasks=5", "--metrics", metrics});
    QCOMPARE(r.code, 3);
    QVERIFY2(contains(r.err, "more than 5 live tasks"), r.err.c_str());
    QVERIFY2(contains(r.err, "stopped at t="), r.err.c_str());
    QFile f(QString::fromStdString(metrics));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("\"resource_limit\""));
    QVERIFY(contains(r.out, "findings resource_limit: 1,"));
    // Without the lowered limit the same scenario finishes.
    QCOMPARE(cli({"run", scenario, "--quiet"}).code, 0);
}

void TestCli::limitOption_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<bool>("ok");
    QTest::addRow("live") << "live-tasks=10" << true;
    QTest::addRow("tasks") << "tasks=100" << true;
    QTest::addRow("bytes") << "recording-bytes=1000000" << true;
    QTest::addRow("events") << "events-per-second=1000000000" << true;
    QTest::addRow("zero") << "live-tasks=0" << false;
    QTest::addRow("negative") << "live-tasks=-3" << false;
    QTest::addRow("too many") << "live-tasks=10000001" << false;
    QTest::addRow("unknown") << "cpus=3" << false;
    QTest::addRow("no value") << "tasks" << false;
}

void TestCli::limitOption()
{
    QFETCH(QString, spec);
    QFETCH(bool, ok);
    const Result r =
        cli({"run", kHogs, "--duration", "5ms", "--quiet", "--limit", spec.toStdString()});
    QCOMPARE(r.code, ok ? 0 : 2);
    if (!ok)
        QVERIFY2(contains(r.err, "--limit expects NAME=N"), r.err.c_str());
}

void TestCli::printableEscapes()
{
    QCOMPARE(printable("plain name"), std::string("plain name"));
    QCOMPARE(printable("a\nb"), std::string("a\\x0ab"));
    QCOMPARE(printable("\x1b[31mred"), std::string("\\x1b[31mred"));
    QCOMPARE(printable("back\\slash\x7f"), std::string("back\\\\slash\\x7f"));
    QCOMPARE(printable("tâche"), std::string("tâche")); // UTF-8 passes
    // C1 controls (U+0085 NEL, U+009B CSI: an escape sequence on some terminals) as their bytes.
    QCOMPARE(printable("a\xc2\x85"
                       "b"),
        std::string("a\\xc2\\x85b"));
    QCOMPARE(printable("\xc2\x9b"
                       "31m"),
        std::string("\\xc2\\x9b31m"));
    QCOMPARE(printable("\xc2\x80"), std::string("\\xc2\\x80")); // first C1
    QCOMPARE(printable("\xc2\xa0"), std::string("\xc2\xa0"));   // U+00A0: printable, kept
    // Bytes that are not well-formed UTF-8, each as \xNN: a lone continuation byte, a truncated
    // sequence (at the end and before ASCII), an overlong '/' (C0 AF), a surrogate (ED A0 80),
    // above U+10FFFF (F4 90 80 80), F5-FF.
    QCOMPARE(printable("\x80"), std::string("\\x80"));
    QCOMPARE(printable("x\xe2\x82"), std::string("x\\xe2\\x82"));
    QCOMPARE(printable("\xe2\x82x"), std::string("\\xe2\\x82x"));
    QCOMPARE(printable("\xc0\xaf"), std::string("\\xc0\\xaf"));
    QCOMPARE(printable("\xed\xa0\x80"), std::string("\\xed\\xa0\\x80"));
    QCOMPARE(printable("\xf4\x90\x80\x80"), std::string("\\xf4\\x90\\x80\\x80"));
    QCOMPARE(printable("\xff"), std::string("\\xff"));
    // Well-formed 3- and 4-byte sequences pass: U+20AC (euro), U+1F600.
    QCOMPARE(printable("\xe2\x82\xac"), std::string("\xe2\x82\xac"));
    QCOMPARE(printable("\xf0\x9f\x98\x80"), std::string("\xf0\x9f\x98\x80"));
}

namespace {
std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}
const std::string kRtGroups = SCHEDLAB_SOURCE_DIR "/scenarios/rt-group-constraints.json";
} // namespace

// rt-group-constraints.md: the unpatched admission check lets the fork storm hold interrupts off
// for ~150 ms, so ping-reply's timer interrupt is late; patched, it is not. The table must show
// that contrast on one screen, without the 1500 idle daemons and 10000 empty test groups.
void TestCli::compareShowsWhatDiffers()
{
    const Result r = cli({"compare", kRtGroups, "--variant", "rt_constraint_check=patched"});
    QCOMPARE(r.code, 0);
    const auto ls = lines(r.out);
    QVERIFY2(ls.size() <= 50, r.out.c_str());
    for (const auto& l : ls)
        QVERIFY2(l.size() <= 120, l.c_str());
    // The variant name is longer than a column: a legend, nothing cut.
    QVERIFY(contains(r.out, "A = as written\nB = rt_constraint_check=patched\n"));
    std::string irq, idleLine, groupsLine, waitMax;
    for (const auto& l : ls) {
        if (l.rfind("findings irq_latency ", 0) == 0 && !contains(l, "worst"))
            irq = l;
        if (l.rfind("ping-reply wait max", 0) == 0)
            waitMax = l;
        if (l.rfind("never ran in any run:", 0) == 0)
            idleLine = l;
        if (l.rfind("no CPU time in any run:", 0) == 0)
            groupsLine = l;
    }
    QVERIFY2(!irq.empty(), r.out.c_str());
    QVERIFY(irq.back() == '0' && irq[irq.size() - 2] == ' ');     // patched: none
    QVERIFY(irq.find_first_of("123456789") != std::string::npos); // as written: some
    QVERIFY(!waitMax.empty());
    // The scenario lists 1500 daemons that never wake up and 10000 empty groups /test-N.
    QVERIFY2(contains(idleLine, "1500 tasks (daemon-1, daemon-2"), idleLine.c_str());
    QVERIFY2(contains(groupsLine, "10000 cgroups (/test-1,"), groupsLine.c_str());
    QVERIFY(!contains(r.out, "daemon-7 share"));
    // Forked children: one group of rows per parent.
    QVERIFY(contains(r.out, "stress-ng-fork.* forked"));
    QVERIFY(!contains(r.out, "stress-ng-fork.1 "));
    QVERIFY(contains(r.out, "equal in every run not shown (--all shows them)"));
}

// The seed bug (cgroup-weight-starvation.md): root-spin starves as written and not without
// PLACE_LAG; the starvation findings row shows it, the forked shells are one group of rows.
void TestCli::compareSeedScenario()
{
    const Result r = cli({"compare", SCHEDLAB_SOURCE_DIR "/scenarios/cgroup-weight-starvation.json",
        "--variant", "NO_PLACE_LAG"});
    QCOMPARE(r.code, 0);
    const auto ls = lines(r.out);
    QVERIFY2(ls.size() <= 25, r.out.c_str());
    std::string starvation;
    for (const auto& l : ls)
        if (l.rfind("findings starvation ", 0) == 0 && !contains(l, "worst"))
            starvation = l;
    QVERIFY2(!starvation.empty(), r.out.c_str());
    QVERIFY(starvation.back() == '0');                                   // NO_PLACE_LAG: none
    QVERIFY(starvation.find_first_of("123456789") != std::string::npos); // as written: some
    QVERIFY(contains(r.out, "root-spin share"));
    QVERIFY(contains(r.out, "rows equal in every run not shown"));
}

void TestCli::compareAllShowsEverything()
{
    const Result r = cli({"compare", kHogs, "--variant", "NO_PLACE_LAG", "--all"});
    QCOMPARE(r.code, 0);
    // equal-hogs: three nice-0 hogs, 1/3 each whatever PLACE_LAG says.
    for (const char* row : {"hog-1 share", "hog-2 share", "hog-3 share", "findings starvation"})
        QVERIFY2(contains(r.out, row), row);
    QVERIFY(contains(r.out, "33.33%"));
    const Result folded = cli({"compare", kHogs, "--variant", "NO_PLACE_LAG"});
    QCOMPARE(folded.code, 0);
    QVERIFY(!contains(folded.out, "hog-1 share"));
    QVERIFY(contains(folded.out, "(every run gave the same numbers)"));
}

void TestCli::runSummaryFolds()
{
    const Result r = cli({"run", kRtGroups});
    QCOMPARE(r.code, 0);
    QVERIFY2(lines(r.out).size() <= 15, r.out.c_str());
    // The daemons are switched in once to start their sleep, at 0 ns of CPU time: not "never
    // ran", but they get their own line.
    QVERIFY(contains(r.out, "switched in but no CPU time: 1500 tasks (daemon-1,"));
    QVERIFY(!contains(r.out, "never ran"));
    QVERIFY(contains(r.out, "stress-ng-fork.* ("));
    QVERIFY(contains(r.out, "findings irq_latency: "));
    QVERIFY(!contains(r.out, "finding irq_latency: "));
    const Result all = cli({"run", kRtGroups, "--all"});
    QCOMPARE(all.code, 0);
    QVERIFY(contains(all.out, "daemon-1500 "));
    QVERIFY(contains(all.out, "stress-ng-fork.1 "));
    QVERIFY(contains(all.out, "finding irq_latency: "));
}

void TestCli::metricsRecordTheVariant()
{
    const Result r = cli({"run", kHogs, "--override", "yield=forfeit_always", "--seed", "7",
        "--profile", "6.12", "--feature", "NO_PLACE_LAG", "--metrics", "-", "--duration", "10ms"});
    QCOMPARE(r.code, 0);
    QVERIFY(contains(r.out, "\"profile\": \"6.12\""));
    QVERIFY(contains(r.out, "\"PLACE_LAG\": false"));
    QVERIFY(contains(r.out, "\"overrides\": {\n    \"yield\": \"forfeit_always\"\n  }"));
    QVERIFY(contains(r.out, "\"seed\": 7,"));
    const Result c = cli({"compare", kHogs, "--variant", "reweight=eevdf,seed=4", "--metrics", "-",
        "--duration", "10ms"});
    QCOMPARE(c.code, 0);
    QVERIFY(contains(c.out, "\"variant\": \"reweight=eevdf,seed=4\""));
    QVERIFY(contains(c.out, "\"reweight\": \"eevdf\""));
    QVERIFY(contains(c.out, "\"seed\": 4,"));
    // The variant is recorded as written (a JSON string).
    const Result q =
        cli({"compare", kHogs, "--variant", "seed=5,,", "--metrics", "-", "--duration", "1ms"});
    QCOMPARE(q.code, 0);
    QVERIFY(contains(q.out, "\"variant\": \"seed=5,,\""));
    // An empty variant would be a second run as written under a blank name: refused.
    for (const char* empty : {"", ",", " , "}) {
        const Result e = cli({"compare", kHogs, "--variant", empty, "--duration", "1ms"});
        QCOMPARE(e.code, 2);
        QVERIFY2(contains(e.err, "(an empty variant)"), e.err.c_str());
        QVERIFY(e.out.empty());
    }
}

void TestCli::noProgressWhenNotATerminal()
{
    const Result r = cli({"run", kHogs, "--quiet"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.err.empty());
    QVERIFY(r.out.empty());
}

void TestCli::rtAppCommands()
{
    QTemporaryDir dir;
    const std::string out = dir.filePath("imported.json").toStdString();
    const std::string in = SCHEDLAB_SOURCE_DIR "/tests/data/rtapp/tutorial-example5.json";
    Result r = cli({"import-rtapp", in, "--out", out, "--cpus", "4"});
    QCOMPARE(r.code, 0);
    QVERIFY(contains(r.err, "warning: " + in + ":36: /tasks/thread1/wait: wait:"));
    r = cli({"run", out, "--quiet"});
    QCOMPARE(r.code, 0);
    r = cli({"validate", out});
    QCOMPARE(r.code, 0);
    r = cli({"export-rtapp", kHogs});
    QCOMPARE(r.code, 0);
    QVERIFY(contains(r.out, "\"instance\": 3"));
    QVERIFY(r.err.empty());
    r = cli({"import-rtapp", in, "--out", dir.filePath("no/such/x.json").toStdString()});
    QCOMPARE(r.code, 2);
    QVERIFY(contains(r.err, "does not exist"));
    r = cli({"import-rtapp", in, "--cpus", "0"});
    QCOMPARE(r.code, 2);
    r = cli({"import-rtapp", "/nonexistent.json"});
    QCOMPARE(r.code, 2);
    QVERIFY(contains(r.err, "/nonexistent.json: cannot read the file"));
    // A scenario whose export needs more than 100 000 rt-app events: 2 threads of 60 loops of
    // 2 × (a loop of 1000 runs), each written as the inner loop unrolled (1000 events) and the
    // outer once: 60 000 events per thread, the budget runs out in the second, /tasks/1.
    std::string ops;
    for (int i = 0; i < 60; ++i)
        ops += std::string(i ? "," : "")
            + R"({ "loop": [ { "loop": [ { "run": "1us" } ], "count": 1000 } ], "count": 2 })";
    const std::string big = writeFile(dir, "big.json",
        QByteArray::fromStdString(R"({ "schedlab": 1, "name": "big", "duration": "1s", "tasks": [
            { "name": "a", "program": [)"
            + ops + R"(] }, { "name": "b", "program": [)" + ops + "] } ] }"));
    const std::string bigOut = dir.filePath("big.rtapp.json").toStdString();
    r = cli({"export-rtapp", big, "--out", bigOut});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err,
                 "error: " + big
                     + ": /tasks/1: the rt-app file would hold more than "
                       "100000 events"),
        r.err.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(bigOut)));
}

// --records and --metrics on a device node (a private /dev/null, major 1 minor 3): written in
// place, the node is still the same character device afterwards, nothing else appears beside it.
// Two outputs may share a character device.
void TestCli::deviceOutputWrittenInPlace()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string null = dir.filePath("null").toStdString();
    if (!makeCharDevice(null, 3))
        QSKIP("no usable device node: mknod not permitted or a nodev mount");
    const Result r = cli({"run", kHogs, "--duration", "5ms", "--quiet", "--records", null,
        "--metrics", null, "--trace", null});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.err, std::string());
    QVERIFY(isCharDevice(null, 3));
    QCOMPARE(entries(dir.path()), QStringList{"null"});
}

// A FIFO gets the same bytes as a regular file and as '-' (stdout); it stays a FIFO. The reader
// is a thread that drains the FIFO until the CLI closes it.
void TestCli::fifoAndStdoutOutputs()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string file = dir.filePath("r.txt").toStdString();
    const std::string fifo = dir.filePath("fifo").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const std::vector<std::string> run{"run", kHogs, "--duration", "20ms", "--quiet"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = run;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    const Result regular = cli(with({"--records", file}));
    QCOMPARE(regular.code, 0);
    const std::string expected = readAll(file);
    QVERIFY(expected.size() > 1000); // 20 ms of three hogs: many records

    const Result toStdout = cli(with({"--records", "-"}));
    QCOMPARE(toStdout.code, 0);
    QCOMPARE(toStdout.out, expected);

    std::string drained;
    std::thread reader([&] {
        const int fd = ::open(fifo.c_str(), O_RDONLY);
        if (fd < 0)
            return;
        char buf[4096];
        ssize_t n = 0;
        while ((n = ::read(fd, buf, sizeof buf)) > 0)
            drained.append(buf, static_cast<size_t>(n));
        ::close(fd);
    });
    const Result toFifo = cli(with({"--records", fifo}));
    // Should the CLI not have opened the FIFO, a writer of our own ends the reader's wait.
    const int unblock = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (unblock >= 0)
        ::close(unblock);
    reader.join();
    QCOMPARE(toFifo.code, 0);
    QCOMPARE(toFifo.err, std::string());
    QCOMPARE(drained, expected);
    QCOMPARE(typeOf(fifo), mode_t(S_IFIFO));
    QCOMPARE(entries(dir.path()), (QStringList{"fifo", "r.txt"}));
}

// The documented policy: a symbolic link is followed only to a regular file in its own directory
// (the link stays, that file is replaced) or to a pipe; a link out of its directory, to a device
// or to nothing is refused before the run (exit 2) and what it points to is left as it was.
void TestCli::symlinkPolicy()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath("a"));
    QVERIFY(QDir(dir.path()).mkpath("b"));
    const std::string victim = writeFile(dir, "b/victim", "precious\n");
    QVERIFY(!victim.empty());
    const std::string out = dir.filePath("a/out").toStdString();
    QCOMPARE(::symlink("../b/victim", out.c_str()), 0);
    for (const char* option : {"--metrics", "--records", "--trace"}) {
        const Result r = cli({"run", kHogs, "--duration", "5ms", "--quiet", option, out});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, std::string());
        QVERIFY2(contains(r.err, "outside its directory"), r.err.c_str());
        QCOMPARE(readAll(victim), std::string("precious\n"));
        QCOMPARE(typeOf(out), mode_t(S_IFLNK));
        QCOMPARE(typeOf(victim), mode_t(S_IFREG));
        QCOMPARE(entries(dir.filePath("a")), QStringList{"out"});
    }
    // The same refusal for another command's --out.
    const Result rt = cli({"export-rtapp", kHogs, "--out", out});
    QCOMPARE(rt.code, 2);
    QCOMPARE(readAll(victim), std::string("precious\n"));

    // A link in the same directory: the file it names is replaced, the link stays a link.
    const std::string data = writeFile(dir, "a/data.json", "old\n");
    QVERIFY(!data.empty());
    QVERIFY(QFile::setPermissions(QString::fromStdString(data),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup));
    const std::string current = dir.filePath("a/current.json").toStdString();
    QCOMPARE(::symlink("data.json", current.c_str()), 0);
    const Result same = cli({"run", kHogs, "--duration", "5ms", "--quiet", "--metrics", current});
    QCOMPARE(same.code, 0);
    QCOMPARE(typeOf(current), mode_t(S_IFLNK));
    QVERIFY(readAll(data).starts_with("{"));
    struct stat st = {};
    QCOMPARE(::stat(data.c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640)); // the replaced file's permissions carried over
    QCOMPARE(entries(dir.filePath("a")), (QStringList{"current.json", "data.json", "out"}));

    // A dangling link and a link to a directory are refused; nothing is created.
    const std::string dangling = dir.filePath("a/dangling").toStdString();
    QCOMPARE(::symlink("nothing-here", dangling.c_str()), 0);
    const std::string toDir = dir.filePath("a/todir").toStdString();
    QCOMPARE(::symlink(".", toDir.c_str()), 0);
    for (const std::string& link : {dangling, toDir}) {
        const Result r = cli({"run", kHogs, "--duration", "5ms", "--quiet", "--metrics", link});
        QCOMPARE(r.code, 2);
        QVERIFY2(contains(r.err, "is a symbolic link to"), r.err.c_str());
    }
    QVERIFY(!QFileInfo::exists(dir.filePath("a/nothing-here")));

    // A link to a device node in the same directory is refused too: only pipes are followed.
    const std::string null = dir.filePath("a/null").toStdString();
    if (makeCharDevice(null, 3)) {
        const std::string toNull = dir.filePath("a/tonull").toStdString();
        QCOMPARE(::symlink("null", toNull.c_str()), 0);
        const Result r = cli({"run", kHogs, "--duration", "5ms", "--quiet", "--records", toNull});
        QCOMPARE(r.code, 2);
        QVERIFY2(contains(r.err, "is a symbolic link to a character device"), r.err.c_str());
        QVERIFY(isCharDevice(null, 3));
        QCOMPARE(typeOf(toNull), mode_t(S_IFLNK));
    }
}

void TestCli::killedRunLeavesNoTemporaryFile_data()
{
    QTest::addColumn<int>("signal");
    QTest::addRow("SIGTERM") << int(SIGTERM);
    QTest::addRow("SIGINT") << int(SIGINT);
    QTest::addRow("SIGHUP") << int(SIGHUP);
}

// schedlab-cli (the real binary, SCHEDLAB_CLI) on an hour-long run with three outputs, killed
// once its temporary files exist: it dies of the signal, leaves no ".NAME.XXXXXX" file and the
// old metrics file as it was. The wait for the temporary files is bounded by a number of polls.
void TestCli::killedRunLeavesNoTemporaryFile()
{
    QFETCH(int, signal);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QTemporaryDir logDir;
    QVERIFY(logDir.isValid());
    QVERIFY(QFileInfo(QStringLiteral(SCHEDLAB_CLI)).isExecutable());
    const std::string metrics = writeFile(dir, "m.json", "old\n");
    QVERIFY(!metrics.empty());
    const std::string records = dir.filePath("r.txt").toStdString();
    const std::string trace = dir.filePath("t.json").toStdString();
    const std::string log = logDir.filePath("log").toStdString();
    std::vector<std::string> args{SCHEDLAB_CLI, "run", kHogs, "--duration", "3600s", "--quiet",
        "--metrics", metrics, "--records", records, "--trace", trace};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    // The child starts with the three signals at their default and none blocked, whatever this
    // process inherited (a test runner under nohup would otherwise pass SIGHUP on ignored).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t set;
    sigemptyset(&set);
    posix_spawnattr_setsigmask(&attr, &set);
    for (const int s : {SIGTERM, SIGINT, SIGHUP})
        sigaddset(&set, s);
    posix_spawnattr_setsigdefault(&attr, &set);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    QCOMPARE(spawned, 0);
    auto temporaries = [&] {
        return entries(dir.path()).filter(QRegularExpression(R"(^\.(m\.json|r\.txt|t\.json)\.)"));
    };
    int polls = 0;
    while (temporaries().size() < 3 && polls < 20000) {
        ++polls;
        ::usleep(1000);
    }
    const QStringList seen = temporaries();
    ::kill(pid, signal);
    // Bounded by a number of polls: a child the signal did not end is killed and the test fails.
    int status = 0;
    pid_t ended = 0;
    for (int i = 0; i < 60000 && ended == 0; ++i) {
        ended = ::waitpid(pid, &status, WNOHANG);
        if (ended == 0)
            ::usleep(1000);
    }
    if (ended == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        QFAIL("schedlab-cli did not end on the signal");
    }
    QCOMPARE(ended, pid);
    QCOMPARE(seen.size(), 3);
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == signal, readAll(log).c_str());
    QCOMPARE(entries(dir.path()), QStringList{"m.json"});
    QCOMPARE(readAll(metrics), std::string("old\n"));
}

// One command's outputs are committed together: when the second cannot be written (a private
// /dev/full: every write fails with ENOSPC), the first output's old file stays, no temporary
// file is left, and stderr says what was and was not written. Without mknod (not root), the
// second output's directory is made read-only instead (the failure then comes before the run).
void TestCli::failedOutputLeavesTheOthers()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string metrics = writeFile(dir, "m.json", "old\n");
    QVERIFY(!metrics.empty());
    std::string second = dir.filePath("full").toStdString();
    if (!makeCharDevice(second, 7)) {
        if (::geteuid() == 0)
            QSKIP(
                "no usable device node (mknod, nodev), and root writes into read-only directories");
        QVERIFY(QDir(dir.path()).mkpath("ro"));
        QVERIFY(QFile::setPermissions(
            dir.filePath("ro"), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        second = dir.filePath("ro/r.txt").toStdString();
    }
    const Result r = cli(
        {"run", kHogs, "--duration", "20ms", "--quiet", "--metrics", metrics, "--records", second});
    QFile::setPermissions(dir.filePath("ro"),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, second + ": "), r.err.c_str());
    QCOMPARE(readAll(metrics), std::string("old\n"));
    if (isCharDevice(second, 7)) {
        QVERIFY2(
            contains(r.err, second + ": cannot write: No space left on device\n"), r.err.c_str());
        QVERIFY2(contains(r.err, "not written (any old file left as it was): " + metrics + "\n"),
            r.err.c_str());
        QCOMPARE(entries(dir.path()), (QStringList{"full", "m.json"}));
    } else {
        QCOMPARE(entries(dir.path()), (QStringList{"m.json", "ro"}));
        QCOMPARE(entries(dir.filePath("ro")), QStringList());
    }
}

// An output that is an input (whatever the spelling: the same path, "./", a hard link) is refused
// before anything is written, and so are two outputs naming one file.
void TestCli::outputEqualToInputRefused()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray scenario = readAll(kHogs).c_str();
    const std::string in = writeFile(dir, "s.json", scenario);
    QVERIFY(!in.empty());
    const std::string hardLink = dir.filePath("h.json").toStdString();
    QCOMPARE(::link(in.c_str(), hardLink.c_str()), 0);
    const std::string dotted = dir.path().toStdString() + "/./s.json";
    for (const std::string& out : {in, dotted, hardLink})
        for (const char* option : {"--metrics", "--records", "--trace"}) {
            const Result r = cli({"run", in, "--duration", "5ms", "--quiet", option, out});
            QCOMPARE(r.code, 2);
            QCOMPARE(r.err,
                "run: " + std::string(option) + " " + out + ": is the input file " + in
                    + ": give the output another name\n");
        }
    const Result c = cli({"compare", in, "--variant", "NO_PLACE_LAG", "--metrics", hardLink});
    QCOMPARE(c.code, 2);
    QVERIFY2(contains(c.err, "is the input file"), c.err.c_str());
    const Result rt = cli({"export-rtapp", in, "--out", in});
    QCOMPARE(rt.code, 2);
    QVERIFY2(contains(rt.err, "is the input file"), rt.err.c_str());
    const std::string csv = writeFile(dir, "a.csv", "run\n");
    const Result merge = cli({"sweep-merge", csv, "--out", csv});
    QCOMPARE(merge.code, 2);
    QVERIFY2(contains(merge.err, "is the input file"), merge.err.c_str());
    QCOMPARE(readAll(in), scenario.toStdString());
    QCOMPARE(readAll(csv), std::string("run\n"));

    const std::string m = dir.filePath("m.json").toStdString();
    const Result twice =
        cli({"run", in, "--duration", "5ms", "--quiet", "--metrics", m, "--records", m});
    QCOMPARE(twice.code, 2);
    QCOMPARE(twice.err, "run: --records " + m + ": names the same file as --metrics " + m + "\n");
    QCOMPARE(entries(dir.path()), (QStringList{"a.csv", "h.json", "s.json"}));
}

// OutputSet's second phase: when a rename fails after an earlier one succeeded (here the second
// temporary file is removed behind its back, so its rename finds nothing), stderr names the
// failure, what was written and what was not; the third output is not renamed either.
void TestCli::renameFailingMidwaySaysWhatWasWritten()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string a = writeFile(dir, "a", "old a\n");
    const std::string b = writeFile(dir, "b", "old b\n");
    const std::string c = writeFile(dir, "c", "old c\n");
    QVERIFY(!a.empty() && !b.empty() && !c.empty());
    std::ostringstream out, err;
    {
        OutputSet outputs(out);
        outputs.open(a) << "new a\n";
        outputs.open(b) << "new b\n";
        outputs.open("-") << "to stdout\n";
        outputs.open(c) << "new c\n";
        QCOMPARE(outputs.openError(), std::string());
        const QStringList temps = entries(dir.path()).filter(QRegularExpression(R"(^\.b\.)"));
        QCOMPARE(temps.size(), 1);
        QVERIFY(QFile::remove(dir.filePath(temps.front())));
        QVERIFY(!outputs.commit(err));
    }
    QCOMPARE(err.str(),
        b + ": cannot replace: No such file or directory\nwritten: " + a
            + ", -\nnot written (any old file left as it was): " + b + ", " + c + "\n");
    QCOMPARE(out.str(), std::string("to stdout\n"));
    QCOMPARE(readAll(a), std::string("new a\n"));
    QCOMPARE(readAll(b), std::string("old b\n"));
    QCOMPARE(readAll(c), std::string("old c\n"));
    QCOMPARE(entries(dir.path()), (QStringList{"a", "b", "c"}));
}

QTEST_APPLESS_MAIN(TestCli)
#include "tst_cli.moc"
