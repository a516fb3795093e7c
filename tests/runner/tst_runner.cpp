// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run (runner/): the plan lists what a real kernel cannot reproduce before the run, the
// program interpreter executes operations on this machine (busy work on the thread CPU clock,
// sleeps, loops, locks, forks, exit), and — as root with cgroup v2's cpu controller and tracefs —
// a whole run produces a trace that the importer reads back with the scenario's task names.
#include "core/import/ftrace.h"
#include "core/scenario/scenarioio.h"
#include "runner/runner.h"
#include "runner/system.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace schedlab;
using namespace schedlab::runner;

namespace {

int64_t clockNs(clockid_t id)
{
    timespec ts{};
    clock_gettime(id, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

Scenario parse(const std::string& text)
{
    LoadResult r = parseScenario(text, "test.json");
    if (!r.ok())
        qFatal("%s", r.errors.empty() ? "?" : r.errors.front().c_str());
    return *r.scenario;
}

bool mkdirs(const std::string& path)
{
    return QDir().mkpath(QString::fromStdString(path));
}

void put(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool dirExists(const std::string& path)
{
    return QFileInfo(QString::fromStdString(path)).isDir();
}

/// Every path below @p root with its size, sorted.
std::vector<std::string> listTree(const std::string& root)
{
    std::vector<std::string> out;
    QDirIterator it(QString::fromStdString(root),
        QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        out.push_back(it.filePath().toStdString() + " " + std::to_string(it.fileInfo().size()));
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// A configuration whose sysfs, cgroup and tracefs roots are below @p root (a temporary dir).
RunConfig fakeConfig(const std::string& root)
{
    RunConfig c;
    c.traceOut = root + "/trace.txt";
    c.cgroupMount = root + "/cgroup";
    c.tracefs = root + "/tracing";
    c.debugfs = root + "/debug";
    c.journal = root + "/journal";
    c.pid = 4242;
    return c;
}

bool hasChange(const SystemPlan& sp, SystemChange::Kind kind, const std::string& path,
    std::optional<OldValue> how = std::nullopt)
{
    for (const auto& c : sp.setup)
        if (c.kind == kind && c.path == path && (!how || c.how == *how))
            return true;
    return false;
}

bool anyContains(const std::vector<std::string>& lines, const std::string& part)
{
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestRunner : public QObject
{
    Q_OBJECT

private slots:
    void versionCodes()
    {
        QCOMPARE(kernelVersionCode("6.12.3-amd64"), 6012);
        QCOMPARE(kernelVersionCode("7.3.4+deb13-amd64"), 7003);
        QCOMPARE(kernelVersionCode("garbage"), 0);
    }

    // The trace's header names the preemption model the kernel ran, read back from debugfs: a
    // 6.12 kernel refuses "lazy" (EINVAL) and runs on in "voluntary", which the header must say
    // whatever the scenario asked for; without debugfs and without /boot/config-RELEASE, nothing.
    void preemptModeIsTheKernels()
    {
        QTemporaryDir dir;
        const std::string debugfs = dir.path().toStdString() + "/debug";
        QVERIFY(QDir().mkpath(QString::fromStdString(debugfs + "/sched")));
        const std::string release = "0.0.0-schedlab-test-no-such-config";
        QCOMPARE(preemptModeInEffect(debugfs, release), std::string());
        {
            std::ofstream f(debugfs + "/sched/preempt");
            f << "none (voluntary) full\n";
        }
        QCOMPARE(preemptModeInEffect(debugfs, release), std::string("voluntary"));
        {
            std::ofstream f(debugfs + "/sched/preempt");
            f << "none voluntary full (lazy)\n";
        }
        QCOMPARE(preemptModeInEffect(debugfs, release), std::string("lazy"));
    }

    void planReportsWhatCannotBeReproduced()
    {
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "p", "duration": "1s",
          "kernel": { "profile": "6.12", "hz": 250, "overrides": { "reweight": "eevdf" } },
          "machine": { "cpus": 3 },
          "cgroups": [ { "path": "/g", "count": 2, "cpu.weight": 50 } ],
          "tasks": [
            { "name": "w", "count": 2, "cgroup": "/g-1", "slice": "1ms",
              "start": { "uniform": ["10ms", "20ms"] },
              "program": [ { "kernel": [ { "lock": "f" }, { "run": "1ms" }, { "unlock": "f" } ] },
                           { "cookie": "create" }, { "lock": "other" }, { "unlock": "other" },
                           { "resume": "q" }, { "suspend": "q" }, { "suspend": "r" },
                           { "complete": "done" }, { "wait_for_completion": "done" } ] },
            { "name": "kthread", "kernel_thread": true, "program": [ { "suspend": "q" } ] }
          ],
          "actions": [ { "at": "100ms", "profile": "7.1" } ]
        })");
        const Plan plan = makePlan(s, 2, "6.6.0-1-amd64");
        QCOMPARE(plan.errors.size(), size_t{1}); // 3 CPUs wanted, 2 online
        QVERIFY(anyContains(plan.errors, "needs 3 CPUs"));
        QVERIFY(anyContains(plan.notes, "/kernel/profile"));
        QVERIFY(anyContains(plan.notes, "/kernel/hz"));
        QVERIFY(anyContains(plan.notes, "/kernel/overrides/reweight"));
        QVERIFY(anyContains(plan.notes, "/tasks/0/program/0: kernel section"));
        QVERIFY(anyContains(plan.notes, "/tasks/0/program/1: core-scheduling cookie"));
        QVERIFY(anyContains(plan.notes, "/tasks/0/slice: custom slices need Linux 6.12+"));
        QVERIFY(anyContains(plan.notes, "/actions/0: profile switch"));
        QCOMPARE(plan.cgroups, (std::vector<std::string>{"/g-1", "/g-2"}));
        QVERIFY(anyContains(plan.notes, "/tasks/1: stands for a kernel thread: not started"));
        QCOMPARE(plan.tasks.size(), size_t{2}); // not the kernel thread
        QCOMPARE(plan.tasks[1].name, std::string("w-2"));
        QCOMPARE(plan.tasks[1].cgroup, std::string("/g-1"));
        for (const auto& t : plan.tasks)
            QVERIFY(t.startNs >= 10'000'000 && t.startNs <= 20'000'000);
        QCOMPARE(plan.mutexes, (std::vector<std::string>{"f", "other"}));
        QCOMPARE(plan.waitQueues, (std::vector<std::string>{"q", "r"}));
        QCOMPARE(plan.completions, (std::vector<std::string>{"done"}));

        // On a 6.12 kernel with enough CPUs: no error, no slice note.
        const Plan fits = makePlan(s, 4, "6.12.48+deb13-amd64");
        QVERIFY(fits.errors.empty());
        QVERIFY(!anyContains(fits.notes, "custom slices"));
        QVERIFY(anyContains(fits.notes, "confined to CPUs 0-2"));
    }

    void busyWorkIsMeasuredOnTheThreadClock()
    {
        const int64_t cpu0 = clockNs(CLOCK_THREAD_CPUTIME_ID);
        busyFor(20'000'000);
        QVERIFY(clockNs(CLOCK_THREAD_CPUTIME_ID) - cpu0 >= 20'000'000);
    }

    void busyWorkDoesNotPollTheThreadClock()
    {
        // Fake clocks: each monotonic read follows 1 µs of running, and every 1000th read also
        // 3 ms of preemption before it (wall time only). The first read only starts the count,
        // and the µs before a preempted read does not count (its gap is 3.001 ms), so 20 ms of
        // counted work takes reads 2 … K with K − 1 − floor(K / 1000) = 20 000: K = 20 021,
        // 20 preemptions, 20.021 ms of CPU. The CPU clock (each read 1 µs of CPU) is read at
        // the two ends only (1.001 ms + 20 ms is reached): polling it, as the runner once did,
        // would run the kernel's update_curr() thousands of times.
        static int64_t wall;
        static int64_t cpu;
        static int monotonicReads;
        static int threadReads;
        wall = 5'000'000;
        cpu = 1'000'000;
        monotonicReads = 0;
        threadReads = 0;
        const BusyClocks fake{[] {
                                  if (++monotonicReads % 1000 == 0)
                                      wall += 3'000'000;
                                  wall += 1000;
                                  cpu += 1000;
                                  return wall;
                              },
            [] {
                ++threadReads;
                cpu += 1000; // a system call: 1 µs of CPU
                return cpu;
            }};
        busyFor(20'000'000, fake);
        QCOMPARE(threadReads, 2);
        QCOMPARE(monotonicReads, 20'021);
        QCOMPARE(cpu, int64_t{1'000'000 + 2'000 + 20'021'000}); // preemptions are not work
        QCOMPARE(wall, int64_t{5'000'000 + 20'021'000 + 20 * 3'000'000});
    }

    void exactCostsAbsorbTheTimeBetweenRuns()
    {
        // Fake clocks as above without preemption: each monotonic read is 1 µs of running, each
        // CPU-clock read 1 µs of CPU. A forked child (base 0) whose start-up took 0.5 ms runs
        // 1.8 ms: the run tops its clock up to 1.8 ms, so it works 1.3 ms and no more (within
        // a read's µs). Then 0.3 ms spent sleeping and waking; a run of 1 ms ends at 2.8 ms.
        // An overhead larger than the run asks for (3 ms before a 0.2 ms run) skips the run
        // with one clock read, and the next run of 1 ms only pays the debt back: it ends
        // where base + owed (4 ms) lies below the clock, so it skips too.
        static int64_t cpu;
        cpu = 500'000;
        const BusyClocks fake{[] {
                                  cpu += 1000;
                                  return cpu;
                              },
            [] {
                cpu += 1000;
                return cpu;
            }};
        CostLedger ledger;
        busyForExact(1'800'000, ledger, fake);
        QVERIFY(cpu >= 1'800'000 && cpu <= 1'800'000 + 3'000);
        QCOMPARE(ledger.owed, int64_t{1'800'000});
        cpu += 300'000;
        const int64_t before = cpu;
        busyForExact(1'000'000, ledger, fake);
        QVERIFY(cpu >= 2'800'000 && cpu <= 2'800'000 + 3'000);
        QVERIFY(cpu - before < 1'000'000); // the 0.3 ms was absorbed
        cpu += 3'000'000;                  // a costly fork, say
        const int64_t afterFork = cpu;
        busyForExact(200'000, ledger, fake);
        QCOMPARE(cpu, afterFork + 1000); // one clock read, no work
        busyForExact(1'000'000, ledger, fake);
        QCOMPARE(cpu, afterFork + 2000); // 4 ms owed, the clock is past it
        QCOMPARE(ledger.owed, int64_t{4'000'000});
        // A task started by the run owes from its base: the same 1 ms run is 1 ms of work.
        CostLedger started{cpu, 0};
        const int64_t s0 = cpu;
        busyForExact(1'000'000, started, fake);
        QVERIFY(cpu - s0 >= 1'000'000 && cpu - s0 <= 1'000'000 + 3'000);
        // The program's last run prepays the exit (0.35 ms measured on the siblings): a 1 ms
        // run works 0.65 ms; a prepay longer than the run is capped at the run (0.2 ms run:
        // nothing is worked, and no more than 0.2 ms is taken off).
        CostLedger child{cpu, 0, 350'000};
        const int64_t c0 = cpu;
        busyForExact(1'000'000, child, fake, true);
        QVERIFY(cpu - c0 >= 650'000 && cpu - c0 <= 650'000 + 3'000);
        QCOMPARE(child.prepaid, int64_t{350'000});
        CostLedger shortRun{cpu, 0, 350'000};
        const int64_t c1 = cpu;
        busyForExact(200'000, shortRun, fake, true);
        QCOMPARE(shortRun.prepaid, int64_t{200'000});
        QCOMPARE(cpu, c1 + 1000); // one clock read
    }

    void interpreterRunsEveryOperation()
    {
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "i", "machine": { "cpus": 1 },
          "tasks": [ { "name": "t", "program": [
            { "loop": [ { "lock": "m" }, { "run": "1ms" }, { "unlock": "m" }, { "yield": true } ],
              "count": 3 },
            { "resume": "q" }, { "suspend": "q" },
            { "complete": "c" }, { "wait_for_completion": "c" },
            { "cookie": "create" }, { "cookie": { "share_to": "t.1" } },
            { "sleep": "5ms" },
            { "fork": { "program": [ { "run": "1ms" } ] }, "wait": true },
            { "loop": [ { "sleep": "1ms" } ], "for": "3ms" },
            { "exit": true },
            { "lock": "never" } ] } ]
        })");
        std::vector<std::string> calls;
        ProgramHooks hooks;
        hooks.lock = [&](const std::string& m, bool lock) {
            calls.push_back((lock ? "lock " : "unlock ") + m);
        };
        hooks.waitQueue = [&](const std::string& q, bool resume) {
            calls.push_back((resume ? "resume " : "suspend ") + q);
        };
        hooks.completion = [&](const std::string& c, bool complete) {
            calls.push_back((complete ? "complete " : "wait_for_completion ") + c);
        };
        hooks.fork = [&](const TaskSpec& child, bool wait) {
            calls.push_back("fork " + std::to_string(child.program.size()) + (wait ? " wait" : ""));
            return true;
        };
        hooks.cookie = [&](const Op& op) {
            calls.push_back(op.cookie == Op::CookieCmd::Create ? "cookie create"
                                                               : "cookie share_to " + op.name);
        };
        Prng prng(1);
        const int64_t cpu0 = clockNs(CLOCK_THREAD_CPUTIME_ID);
        const int64_t wall0 = clockNs(CLOCK_MONOTONIC);
        QVERIFY(!runProgram(s.tasks[0].program, prng, hooks)); // ended by exit
        const int64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        const int64_t wall = clockNs(CLOCK_MONOTONIC) - wall0;
        QCOMPARE(calls,
            (std::vector<std::string>{"lock m", "unlock m", "lock m", "unlock m", "lock m",
                "unlock m", "resume q", "suspend q", "complete c", "wait_for_completion c",
                "cookie create", "cookie share_to t.1", "fork 1 wait"}));
        QVERIFY(cpu >= 3'000'000); // three 1 ms runs (the fork hook ran nothing)
        QVERIFY(wall >= 3'000'000 + 5'000'000 + 3'000'000); // runs, the sleep, the timed loop
    }

    // --- Safety: the journal, --restore, --adopt, --check, the task guard -------------------
    // Every test below works on a fake sysfs in a temporary directory: plain files stand for
    // the kernel's (a write replaces the contents, as O_TRUNC does), nothing real is touched.

    void journalLinesRoundTrip()
    {
        const std::vector<JournalEntry> entries = {
            {JournalEntry::Op::Write, "/sys/kernel/debug/sched/features", "NO_PLACE_LAG"},
            {JournalEntry::Op::Write, "/a b/cpu.max", "max 100000"},
            {JournalEntry::Op::Write, "/odd\tpath\\x", "two\nlines"},
            {JournalEntry::Op::Rmdir, "/sys/fs/cgroup/schedlab-7", ""},
            {JournalEntry::Op::Umount, "/sys/kernel/debug", ""},
        };
        std::string text = "# schedlab-run journal 1 pid 7\n";
        for (const auto& e : entries)
            text += journalLine(e);
        QCOMPARE(journalLine(entries[2]), std::string("write\t/odd\\tpath\\\\x\ttwo\\nlines\n"));
        std::vector<std::string> warnings;
        bool restored = true;
        QCOMPARE(parseJournal(text, &warnings, &restored), entries);
        QVERIFY(warnings.empty());
        QVERIFY(!restored);
        // Killed while writing an entry: the incomplete line is not undone (its change was
        // never made: the entry is fsynced before the change). Unknown lines are skipped.
        const std::string partial = text + "bogus\tline\nwrite\t/sys/kernel/debug/sched/base_sl";
        const auto parsed = parseJournal(partial, &warnings, &restored);
        QCOMPARE(parsed, entries);
        QCOMPARE(warnings.size(), size_t{2});
        QVERIFY(warnings[0].rfind("7: unknown", 0) == 0);
        QVERIFY(warnings[1].rfind("8: incomplete", 0) == 0);
        parseJournal(text + "restored\n", nullptr, &restored);
        QVERIFY(restored);
    }

    void changerJournalsOldValuesFirstAndUndoPutsThemBack()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        const std::string sched = root + "/debug/sched";
        const std::string cg = root + "/cgroup";
        QVERIFY(mkdirs(sched) && mkdirs(cg + "/existing"));
        put(sched + "/features", "PLACE_LAG RUN_TO_PARITY NO_HRTICK\n");
        put(sched + "/preempt", "none voluntary (full) lazy\n");
        put(sched + "/base_slice_ns", "3000000\n");
        put(cg + "/cgroup.subtree_control", "memory\n");
        put(cg + "/existing/cpu.weight", "100\n");
        put(cg + "/existing/cpu.max", "max 100000\n");
        const std::string journalPath = root + "/run.journal";
        {
            Journal journal;
            QCOMPARE(journal.create(journalPath, 42), std::string());
            QVERIFY(!journal.create(root + "/other", 42).empty()); // one journal per run
            Changer c(journal);
            QCOMPARE(
                c.write(sched + "/features", "NO_PLACE_LAG", OldValue::Feature), std::string());
            // The fake features file is rewritten after each write: the kernel lists them all.
            put(sched + "/features", "NO_PLACE_LAG RUN_TO_PARITY NO_HRTICK\n");
            QCOMPARE(c.write(sched + "/features", "PLACE_LAG", OldValue::Feature), std::string());
            put(sched + "/features", "PLACE_LAG RUN_TO_PARITY NO_HRTICK\n");
            QCOMPARE(c.write(sched + "/features", "HRTICK", OldValue::Feature), std::string());
            QCOMPARE(c.write(sched + "/preempt", "none", OldValue::Preempt), std::string());
            QCOMPARE(c.write(sched + "/base_slice_ns", "1000000", OldValue::Plain), std::string());
            QCOMPARE(c.write(cg + "/cgroup.subtree_control", "+cpu", OldValue::SubtreeCpu),
                std::string());
            QCOMPARE(c.makeDir(cg + "/schedlab-42"), std::string());
            // A file inside what the run made is not journaled (it goes with the directory);
            // the fake has no such file, so the write fails and says where.
            QVERIFY(c.write(cg + "/schedlab-42/cpu.weight", "50", OldValue::Plain)
                        .find("schedlab-42/cpu.weight")
                != std::string::npos);
            QCOMPARE(c.write(cg + "/existing/cpu.weight", "300", OldValue::Plain), std::string());
            QCOMPARE(c.write(cg + "/existing/cpu.weight", "10", OldValue::Plain), std::string());
            QCOMPARE(
                c.write(cg + "/existing/cpu.max", "5000 100000", OldValue::Plain), std::string());
            const std::vector<JournalEntry> expected = {
                {JournalEntry::Op::Write, sched + "/features", "PLACE_LAG"}, // once per feature
                {JournalEntry::Op::Write, sched + "/features", "NO_HRTICK"},
                {JournalEntry::Op::Write, sched + "/preempt", "full"},
                {JournalEntry::Op::Write, sched + "/base_slice_ns", "3000000"},
                {JournalEntry::Op::Write, cg + "/cgroup.subtree_control", "-cpu"},
                {JournalEntry::Op::Rmdir, cg + "/schedlab-42", ""},
                {JournalEntry::Op::Write, cg + "/existing/cpu.weight",
                    "100"}, // the first old value
                {JournalEntry::Op::Write, cg + "/existing/cpu.max", "max 100000"},
            };
            QCOMPARE(journal.entries(), expected);
            // The file holds the same, fsynced as each change was made.
            QCOMPARE(parseJournal(read(journalPath), nullptr, nullptr), expected);
            QCOMPARE(read(cg + "/existing/cpu.weight"), std::string("10"));
            QVERIFY(dirExists(cg + "/schedlab-42"));
            QVERIFY(journal.undo().empty());
            QVERIFY(journal.undo().empty()); // twice is harmless
        }
        // Undone in reverse: the features file's last write is the first entry's old value.
        QCOMPARE(read(sched + "/features"), std::string("PLACE_LAG"));
        QCOMPARE(read(sched + "/preempt"), std::string("full"));
        QCOMPARE(read(sched + "/base_slice_ns"), std::string("3000000"));
        QCOMPARE(read(cg + "/cgroup.subtree_control"), std::string("-cpu"));
        QCOMPARE(read(cg + "/existing/cpu.weight"), std::string("100"));
        QCOMPARE(read(cg + "/existing/cpu.max"), std::string("max 100000"));
        QVERIFY(!dirExists(cg + "/schedlab-42"));
        QVERIFY(!pathExists(journalPath)); // all undone: nothing left to keep
        // cpu already on in subtree_control: nothing to change, nothing journaled.
        put(cg + "/cgroup.subtree_control", "cpu memory\n");
        Journal again;
        QCOMPARE(again.create(journalPath, 43), std::string());
        Changer c2(again);
        QCOMPARE(
            c2.write(cg + "/cgroup.subtree_control", "+cpu", OldValue::SubtreeCpu), std::string());
        QVERIFY(again.entries().empty());
        QCOMPARE(read(cg + "/cgroup.subtree_control"), std::string("cpu memory\n"));
    }

    void journalRefusesToOverwriteAFile()
    {
        QTemporaryDir tmp;
        const std::string path = tmp.path().toStdString() + "/j";
        put(path, "precious\n");
        Journal j;
        QVERIFY(j.create(path, 1).find("File exists") != std::string::npos);
        QCOMPARE(read(path), std::string("precious\n"));
        QVERIFY(!symlink(path.c_str(), (path + ".link").c_str()));
        Journal k;
        QVERIFY(!k.create(path + ".link", 1).empty()); // O_EXCL never follows a link
    }

    void restoreUndoesAKilledRunOnceAndToleratesAPartialJournal()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        QVERIFY(mkdirs(root + "/cg/schedlab-9/A"));
        put(root + "/base_slice_ns", "1000000\n"); // as the killed run left them
        put(root + "/preempt", "none\n");
        const std::string journal = root + "/j";
        put(journal,
            "# schedlab-run journal 1 pid 9\n"
            "write\t"
                + root
                + "/base_slice_ns\t3000000\n"
                  "rmdir\t"
                + root
                + "/cg/schedlab-9\n"
                  "rmdir\t"
                + root
                + "/cg/schedlab-9/A\n"
                  "rmdir\t"
                + root
                + "/cg/gone-already\n"
                  "write\t"
                + root + "/preempt\tfu"); // killed while writing: never applied
        std::ostringstream err;
        QCOMPARE(restoreJournalFile(journal, err), 0);
        QCOMPARE(read(root + "/base_slice_ns"), std::string("3000000"));
        QCOMPARE(read(root + "/preempt"), std::string("none\n"));
        QVERIFY(!dirExists(root + "/cg/schedlab-9")); // children first, then the subtree
        QVERIFY(err.str().find("incomplete last line") != std::string::npos);
        QVERIFY(err.str().find("4 of 4 changes undone") != std::string::npos);
        // A second --restore changes nothing, even where the system has moved on since.
        put(root + "/base_slice_ns", "2000000\n");
        std::ostringstream again;
        QCOMPARE(restoreJournalFile(journal, again), 0);
        QVERIFY(again.str().find("restored already") != std::string::npos);
        // The incomplete line was cut off before the mark, not completed by it.
        const std::string after = read(journal);
        QVERIFY(after.find("\tfu") == std::string::npos);
        QVERIFY(after.size() > 9 && after.substr(after.size() - 9) == "restored\n");
        QCOMPARE(read(root + "/base_slice_ns"), std::string("2000000\n"));
        // Not a journal: refused, nothing written.
        std::ostringstream bad;
        QCOMPARE(restoreJournalFile(root + "/base_slice_ns", bad), 2);
        QCOMPARE(restoreJournalFile(root + "/missing", bad), 2);
        // Something that cannot be undone: exit 3, the journal stays unmarked for a retry.
        const std::string j2 = root + "/j2";
        put(j2, "# schedlab-run journal 1 pid 9\nwrite\t" + root + "/no/such/file\t1\n");
        std::ostringstream fails;
        QCOMPARE(restoreJournalFile(j2, fails), 3);
        QVERIFY(fails.str().find("not restored: " + root + "/no/such/file") != std::string::npos);
        bool restored = true;
        parseJournal(read(j2), nullptr, &restored);
        QVERIFY(!restored);
    }

    void existingCgroupsAreRefusedUnlessAdopted()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        const std::string cg = root + "/cgroup";
        QVERIFY(mkdirs(cg + "/A") && mkdirs(root + "/debug/sched") && mkdirs(root + "/tracing"));
        put(root + "/tracing/trace", "");
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "a", "machine": { "cpus": 1 },
          "cgroups": [ { "path": "/A", "cpu.weight": 50 }, { "path": "/B" } ],
          "tasks": [ { "name": "t", "cgroup": "/A", "program": [ { "run": "1ms" } ] } ]
        })");
        const Plan plan = makePlan(s, 1, "6.18.15");
        RunConfig config = fakeConfig(root);
        // The default: a subtree of the run's own, where /A is new.
        SystemPlan sp = planSystem(s, plan, config);
        QVERIFY(sp.errors.empty());
        QCOMPARE(sp.base, cg + "/schedlab-4242");
        QVERIFY(sp.baseCreated);
        QVERIFY(hasChange(sp, SystemChange::Kind::Mkdir, cg + "/schedlab-4242/A"));
        // The machine's own /A is said to be left alone.
        QCOMPARE(sp.untouched, std::vector<std::string>{"/A (" + cg + "/A)"});
        std::ostringstream untouched;
        printSystemPlan(sp, untouched);
        QVERIFY(
            untouched.str().find("cgroup /A (" + cg + "/A) is not touched") != std::string::npos);
        // The real root named as the base: /A exists and is refused, and named.
        config.cgroupBase = cg;
        sp = planSystem(s, plan, config);
        QCOMPARE(sp.existing, std::vector<std::string>{"/A (" + cg + "/A)"});
        QCOMPARE(sp.errors.size(), size_t{1});
        QVERIFY(sp.errors[0].find("cgroup /A: " + cg + "/A exists") != std::string::npos);
        QVERIFY(sp.errors[0].find("--adopt") != std::string::npos);
        std::ostringstream listing;
        printSystemPlan(sp, listing);
        QVERIFY(
            listing.str().find("existing cgroup /A (" + cg + "/A): refused") != std::string::npos);
        // --adopt: accepted; its cpu.weight is journaled (Plain), /B's group is made.
        config.adopt = true;
        sp = planSystem(s, plan, config);
        QVERIFY(sp.errors.empty());
        QCOMPARE(sp.existing.size(), size_t{1});
        QVERIFY(hasChange(sp, SystemChange::Kind::Write, cg + "/A/cpu.weight", OldValue::Plain));
        QVERIFY(!hasChange(sp, SystemChange::Kind::Mkdir, cg + "/A"));
        QVERIFY(hasChange(sp, SystemChange::Kind::Mkdir, cg + "/B"));
        // A subtree left by a killed run with the same pid is refused too.
        config = fakeConfig(root);
        QVERIFY(mkdirs(cg + "/schedlab-4242"));
        sp = planSystem(s, plan, config);
        QCOMPARE(sp.errors.size(), size_t{1});
        QVERIFY(sp.errors[0].find("--restore") != std::string::npos);
    }

    void cgroupFilesInTheKernelsOrder()
    {
        // sched_group_set_shares() refuses a weight while the group is idle (EINVAL): cpu.idle 0
        // goes before the weights, cpu.idle 1 after them (writeWeightFiles() in the model).
        using Pairs = std::vector<std::pair<std::string, std::string>>;
        CgroupFiles f;
        f.weight = 500;
        f.cpuMax = CpuMax{20000, 100000};
        f.idle = false;
        QVERIFY(cgroupFileValues(f)
            == (Pairs{{"cpu.idle", "0"}, {"cpu.weight", "500"}, {"cpu.max", "20000 100000"}}));
        f.idle = true;
        QVERIFY(cgroupFileValues(f)
            == (Pairs{{"cpu.weight", "500"}, {"cpu.max", "20000 100000"}, {"cpu.idle", "1"}}));
    }

    void checkListsEveryChangeAndMakesNone()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        const std::string cg = root + "/cgroup";
        QVERIFY(mkdirs(cg) && mkdirs(root + "/debug") && mkdirs(root + "/tracing"));
        put(root + "/tracing/trace", "");
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "c", "duration": "3s", "machine": { "cpus": 1 },
          "kernel": { "features": { "PLACE_LAG": false }, "base_slice": "1ms", "preempt": "full" },
          "cgroups": [ { "path": "/A", "cpu.max": "5000 100000" }, { "path": "/A/B", "cpu.idle": 1 } ],
          "tasks": [ { "name": "t", "program": [ { "run": "1ms" } ] } ],
          "actions": [ { "at": "100ms", "feature": { "RUN_TO_PARITY": false } },
                       { "at": "200ms", "set": { "cgroup": "/A", "cpu.weight": 7 } },
                       { "at": "300ms", "move": { "task": "t", "cgroup": "/A/B" } },
                       { "at": "2s", "feature": { "HRTICK": true } } ]
        })");
        RunConfig config = fakeConfig(root);
        config.journal = root + "/j";
        config.durationNs = 1'000'000'000; // --duration 1s: the action at 2 s does not happen
        const auto before = listTree(root);
        const SystemPlan sp = planSystem(s, makePlan(s, 1, "6.18.15"), config);
        std::ostringstream out;
        printSystemPlan(sp, out);
        const std::string text = out.str();
        const std::string base = cg + "/schedlab-4242";
        const std::string t = root + "/tracing/instances/schedlab-4242";
        for (const std::string& line : {
                 "journal " + root + "/j",
                 "  mount -t debugfs " + root + "/debug", // no sched/ there: not mounted
                 "  write " + root + "/debug/sched/features \"NO_PLACE_LAG\"",
                 "  write " + root + "/debug/sched/base_slice_ns \"1000000\"",
                 "  write " + root + "/debug/sched/preempt \"full\"",
                 "  write " + cg + "/cgroup.subtree_control \"+cpu\" (unless cpu is on already)",
                 "  mkdir " + base + "   #",
                 "  write " + base + "/cgroup.subtree_control \"+cpu\"",
                 "  mkdir " + base + "/.root   #", // tasks of "/" beside the groups
                 "  mkdir " + base + "/A   #",
                 "  write " + base + "/A/cgroup.subtree_control \"+cpu\"",
                 "  mkdir " + base + "/A/B   #",
                 "  write " + base + "/A/cpu.max \"5000 100000\"",
                 "  write " + base + "/A/B/cpu.idle \"1\"",
                 "  mkdir " + t + "   #",
                 "  write " + t + "/buffer_size_kb \"16384\"",
                 "  write " + t + "/events/sched/sched_switch/enable \"1\"",
                 "  write " + root
                     + "/debug/sched/features \"NO_RUN_TO_PARITY\"   # /actions/0 at 0.1s",
                 "  write " + base + "/A/cpu.weight \"7\"   # /actions/1 at 0.2s",
                 "  write " + base + "/A/B/cgroup.procs \"the pids of t\"   # /actions/2 at 0.3s",
                 "  write " + base + "/A/B/cgroup.procs \"the pids of t\"   # /actions/2 at 0.3s",
             })
            QVERIFY2(text.find(line) != std::string::npos, line.c_str());
        QVERIFY(text.find("HRTICK") == std::string::npos); // at 2 s, after the run's end
        QCOMPARE(sp.setup.front().kind, SystemChange::Kind::Mount);
        QCOMPARE(listTree(root), before); // nothing made
    }

    void tasksAreBoundedLikeTheModel()
    {
        ResourceLimits limits;
        QCOMPARE(limits.liveTasks, 100'000); // the runner's defaults are the model's
        QCOMPARE(limits.createdTasks, 1'000'000);
        limits.liveTasks = 3;
        limits.createdTasks = 5;
        TaskCounters c;
        QCOMPARE(admitTask(c, limits), std::string());
        QCOMPARE(admitTask(c, limits), std::string());
        QCOMPARE(admitTask(c, limits), std::string());
        QCOMPARE(admitTask(c, limits),
            std::string("live tasks: 3 task processes are alive, the limit is 3"));
        QCOMPARE(c.live.load(), int64_t{3}); // a refusal counts nothing
        taskExited(c);
        QCOMPARE(admitTask(c, limits), std::string());
        taskExited(c);
        QCOMPARE(admitTask(c, limits), std::string());
        taskExited(c);
        QCOMPARE(admitTask(c, limits),
            std::string("tasks: 5 task processes were started, the limit is 5"));
        // A fork loop: the program ends at the first refused fork.
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "f", "machine": { "cpus": 1 },
          "tasks": [ { "name": "t", "program": [
            { "loop": [ { "fork": { "program": [ { "exit": true } ] } } ], "count": 1000000 },
            { "run": "1s" } ] } ]
        })");
        TaskCounters counters;
        limits.liveTasks = 100'000;
        limits.createdTasks = 1000;
        int forks = 0;
        ProgramHooks hooks;
        hooks.fork = [&](const TaskSpec&, bool) {
            if (!admitTask(counters, limits).empty())
                return false;
            ++forks;
            taskExited(counters); // the child exits at once
            return true;
        };
        Prng prng(1);
        QVERIFY(!runProgram(s.tasks[0].program, prng, hooks)); // ended, the 1 s run not reached
        QCOMPARE(forks, 1000);
        QCOMPARE(counters.created.load(), int64_t{1000});
    }

    // A real run: root, cgroup v2 with the cpu controller, tracefs. It changes the machine it
    // runs on (a cgroup subtree, a trace instance; undone at its end), so it runs only when
    // SCHEDLAB_TEST_REAL_KERNEL=1 asks for it (lab/safety.sh tests the runner in a VM instead).
    void wholeRunOnThisKernel()
    {
        if (qEnvironmentVariable("SCHEDLAB_TEST_REAL_KERNEL") != "1")
            QSKIP("changes this machine: set SCHEDLAB_TEST_REAL_KERNEL=1 to run it");
        if (geteuid() != 0)
            QSKIP("not root: schedlab-run needs root");
        const std::string cg = cgroup2Mount();
        if (cg.empty())
            QSKIP("no cgroup v2 hierarchy mounted");
        if (!hasCpuController(cg))
            QSKIP(("the cgroup v2 hierarchy at " + cg + " has no cpu controller").c_str());
        if (tracefsDir("/sys/kernel/tracing").empty())
            QSKIP("no tracefs at /sys/kernel/tracing or /sys/kernel/debug/tracing");
        const Scenario s = parse(R"({
          "schedlab": 1, "name": "runner-test", "duration": "300ms", "machine": { "cpus": 1 },
          "cgroups": [ { "path": "/schedlab-runner-test", "cpu.weight": 100 } ],
          "tasks": [ { "name": "hog-with-a-long-name", "count": 2,
                       "cgroup": "/schedlab-runner-test", "program": [ { "run": "forever" } ] } ]
        })");
        QTemporaryDir dir;
        RunConfig config;
        config.traceOut = dir.filePath("trace.txt").toStdString();
        const Plan plan = makePlan(s, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), "");
        std::ostringstream err;
        QCOMPARE(runScenario(s, plan, config, err), 0);
        const TraceImport r = importFtraceFile(config.traceOut);
        QVERIFY(r.ok());
        int64_t total = 0;
        for (const char* name : {"hog-with-a-long-name-1", "hog-with-a-long-name-2"}) {
            const auto it = std::find_if(r.metrics.tasks.begin(), r.metrics.tasks.end(),
                [&](const TaskMetrics& t) { return t.name == name; });
            QVERIFY2(it != r.metrics.tasks.end(), name);
            QCOMPARE(it->cgroup, std::string("/schedlab-runner-test"));
            QVERIFY(it->cpuTimeNs > 0);
            total += it->cpuTimeNs;
        }
        QVERIFY(total > r.metrics.durationNs / 2); // two hogs on CPU 0 keep it busy
    }

    // A light child shares the caller's memory (what it writes is seen here), is another
    // process, and has exited and been reaped when lightFork() returns (the caller waits in
    // wait4()); its CPU time in all comes back (it worked 5 ms of CPU).
    void lightForkSharesMemoryAndWaits()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("AddressSanitizer cannot follow a CLONE_VM child on a stack of its own");
#endif
        struct Box
        {
            pid_t childPid = 0;
            int written = 0;
        } box;
        pid_t pid = -1;
        int64_t cpuNs = 0;
        QVERIFY(lightFork(
            [](void* p) {
                Box& b = *static_cast<Box*>(p);
                b.childPid = getpid();
                b.written = 42;
                busyFor(5'000'000);
                _exit(0);
            },
            &box, &pid, &cpuNs));
        QVERIFY(pid > 0);
        QVERIFY(cpuNs >= 5'000'000);
        QCOMPARE(box.written, 42);
        QCOMPARE(box.childPid, pid);
        QVERIFY(pid != getpid());
        errno = 0;
        QCOMPARE(waitpid(pid, nullptr, WNOHANG), pid_t(-1)); // reaped already
        QCOMPARE(errno, ECHILD);
    }

    // Which child programs run as light children: none that shares state with other
    // processes (locks, wait queues, completions) or makes processes (fork) or cookies.
    void lightChildPrograms()
    {
        auto op = [](Op::Kind k) {
            Op o;
            o.kind = k;
            return o;
        };
        QVERIFY(lightChildProgram({op(Op::Kind::Run), op(Op::Kind::Sleep), op(Op::Kind::Yield),
            op(Op::Kind::Nice), op(Op::Kind::Cpus), op(Op::Kind::Exit)}));
        Op loop = op(Op::Kind::Loop);
        loop.body = {op(Op::Kind::Run), op(Op::Kind::Sleep)};
        QVERIFY(lightChildProgram({loop}));
        loop.body.push_back(op(Op::Kind::Lock));
        QVERIFY(!lightChildProgram({loop}));
        for (Op::Kind k : {Op::Kind::Lock, Op::Kind::Unlock, Op::Kind::Fork, Op::Kind::Cookie,
                 Op::Kind::Suspend, Op::Kind::Resume, Op::Kind::Complete, Op::Kind::WaitCompletion})
            QVERIFY(!lightChildProgram({op(Op::Kind::Run), op(k)}));
    }
};

QTEST_APPLESS_MAIN(TestRunner)
#include "tst_runner.moc"
