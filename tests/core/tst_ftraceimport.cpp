// SPDX-License-Identifier: GPL-2.0-or-later
// The ftrace importer (core/import) on hand-made traces in tests/data/ftrace/. The expected CPU
// times, waits and busy times are worked out by hand from the timestamps (comments below), never
// taken from the importer's output.
//
// basic-*.txt (three layouts of the same 15 events, 2 CPUs, span 100.000000 … 100.010000 s):
//   bash-100  cpu0 [start, 1.0 ms) + [5.0, 7.0) = 3.0 ms; woken at 4.0, runs at 5.0: wait 1.0 ms;
//             exits at 7.0 ms (switched out as Z).
//   hog-101   forked at 0, woken new at 0.010, runs on cpu1 [0.020, 6.0) + [8.0, end 10.0)
//             = 5.980 + 2.0 = 7.980 ms; waits 0.010 ms and (preempted R+) 6.0 → 8.0 = 2.0 ms.
//   worker-102 woken 3.0, runs cpu0 [3.5, 5.0) = 1.5 ms, preempted R+ (wait 5.0 → 6.0 on cpu1
//             after a migration 0 → 1), runs [6.0, 8.0) = 2.0 ms: 3.5 ms in all; waits 0.5, 1.0.
//   cpu0 busy 1.0 + 1.5 + 2.0 = 4.5 ms; cpu1 busy 5.98 + 2.0 + 2.0 = 9.98 ms.
#include "core/base/prng.h"
#include "core/import/ftrace.h"

#include <QTest>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

using namespace schedlab;

namespace {

const std::string kDir = SCHEDLAB_SOURCE_DIR "/tests/data/ftrace/";

const TaskMetrics* findTask(const Metrics& m, const std::string& name)
{
    for (const auto& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/// One sched_switch line at @p ms milliseconds after 100 s on CPU 0.
std::string sw(int ms, const std::string& prev, int prevPid, int prevPrio, const std::string& state,
    const std::string& next, int nextPid, int nextPrio)
{
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%d.%06d", 100 + ms / 1000, (ms % 1000) * 1000);
    return "  " + prev + "-" + std::to_string(prevPid) + " [000] d..2. " + stamp
        + ": sched_switch: prev_comm=" + prev + " prev_pid=" + std::to_string(prevPid)
        + " prev_prio=" + std::to_string(prevPrio) + " prev_state=" + state
        + " ==> next_comm=" + next + " next_pid=" + std::to_string(nextPid)
        + " next_prio=" + std::to_string(nextPrio) + "\n";
}

/// schedlab-run's job-end marker of pid 10 ("video") at @p ms.
std::string mark(int ms)
{
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%d.%06d", 100 + ms / 1000, (ms % 1000) * 1000);
    return std::string("  video-10 [000] ..... ") + stamp
        + ": tracing_mark_write: schedlab-yield\n";
}

} // namespace

class TestFtraceImport : public QObject
{
    Q_OBJECT

private slots:
    void basic_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("trace with 6.x flag columns") << "basic-flags.txt";
        QTest::newRow("trace without flag columns, tgid column") << "basic-noflags.txt";
        QTest::newRow("trace-cmd report") << "basic-trace-cmd.txt";
    }
    void basic()
    {
        QFETCH(QString, file);
        const TraceImport r = importFtraceFile(kDir + file.toStdString());
        QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
        const Metrics& m = r.metrics;
        QCOMPARE(m.durationNs, int64_t{10'000'000});
        QCOMPARE(r.startNs, int64_t{100'000'000'000});
        QCOMPARE(m.tasks.size(), size_t{3});

        const TaskMetrics* bash = findTask(m, "bash-100");
        const TaskMetrics* hog = findTask(m, "hog-101");
        const TaskMetrics* worker = findTask(m, "worker-102");
        QVERIFY(bash && hog && worker);
        QCOMPARE(bash->cpuTimeNs, int64_t{3'000'000});
        QCOMPARE(hog->cpuTimeNs, int64_t{7'980'000});
        QCOMPARE(worker->cpuTimeNs, int64_t{3'500'000});
        QCOMPARE(bash->share, 0.3);

        QCOMPARE(bash->waitMaxNs, int64_t{1'000'000});
        QCOMPARE(hog->waitMaxNs, int64_t{2'000'000});
        QCOMPARE(hog->waitP50Ns, int64_t{10'000}); // nearest rank of {0.010, 2.0} ms
        QCOMPARE(hog->waitP99Ns, int64_t{2'000'000});
        QCOMPARE(worker->waitP50Ns, int64_t{500'000});
        QCOMPARE(worker->waitMaxNs, int64_t{1'000'000});

        QCOMPARE(bash->switches, int64_t{2});
        QCOMPARE(hog->switches, int64_t{1});
        QCOMPARE(worker->switches, int64_t{2});
        QCOMPARE(worker->migrations, int64_t{1});
        QCOMPARE(bash->exitedAtNs, std::optional<int64_t>(7'000'000));
        QVERIFY(!hog->exitedAtNs);

        QCOMPARE(m.cpus.size(), size_t{2});
        QCOMPARE(m.cpus[0].busyNs, int64_t{4'500'000});
        QCOMPARE(m.cpus[1].busyNs, int64_t{9'980'000});
        QCOMPARE(m.run.contextSwitches, uint64_t{7}); // at 0.020, 1, 3.5, 5, 6, 7, 8 ms

        // sched_process_exec and sched_stat_runtime are skipped and counted.
        QCOMPARE(r.unknownEvents.at("sched_process_exec"), int64_t{1});
        QCOMPARE(r.unknownEvents.at("sched_stat_runtime"), int64_t{1});
        QCOMPARE(r.events, int64_t{13});

        // The recording: the first switch on cpu1 goes from idle (-1) to hog (task 1).
        const Recording& rec = r.recording;
        QCOMPARE(rec.cpus, 2);
        QCOMPARE(rec.taskNames.size(), size_t{3});
        bool found = false;
        for (const Record& rr : rec.records())
            if (rr.kind == RecordKind::Switch && rr.cpu == 1) {
                QCOMPARE(rr.time, int64_t{20'000});
                QCOMPARE(rr.entity.raw, -1);
                QCOMPARE(rec.taskNames[static_cast<size_t>(rr.payload.generic.a)],
                    std::string("hog-101"));
                found = true;
                break;
            }
        QVERIFY(found);
    }

    // A reused pid is a new task: after an exit (the fork of a new child with that pid) and
    // after a final switch-out (X) without any fork in the trace.
    //   a-200 [0, 1.0) = 1.0 ms; init-1 [1.0, 3.0) = 2.0 ms; b-200 [3.0, 4.0) = 1.0 ms, its wait
    //   2.0 → 3.0 = 1.0 ms; b-200#2 [5.0, 6.0) = 1.0 ms. cpu0 busy 5.0 of 6.0 ms.
    void pidReuse()
    {
        const TraceImport r = importFtraceFile(kDir + "pid-reuse.txt");
        QVERIFY(r.ok());
        const Metrics& m = r.metrics;
        QCOMPARE(m.tasks.size(), size_t{4});
        QCOMPARE(m.tasks[0].name, std::string("a-200"));
        QCOMPARE(m.tasks[0].cpuTimeNs, int64_t{1'000'000});
        QCOMPARE(m.tasks[0].exitedAtNs, std::optional<int64_t>(0));
        QCOMPARE(m.tasks[1].name, std::string("init-1"));
        QCOMPARE(m.tasks[1].cpuTimeNs, int64_t{2'000'000});
        QCOMPARE(m.tasks[2].name, std::string("b-200"));
        QCOMPARE(m.tasks[2].cpuTimeNs, int64_t{1'000'000});
        QCOMPARE(m.tasks[2].waitMaxNs, int64_t{1'000'000});
        QCOMPARE(m.tasks[3].name, std::string("b-200#2"));
        QCOMPARE(m.tasks[3].cpuTimeNs, int64_t{1'000'000});
        QCOMPARE(m.cpus.size(), size_t{1});
        QCOMPARE(m.cpus[0].busyNs, int64_t{5'000'000});
        QCOMPARE(m.durationNs, int64_t{6'000'000});
    }

    // A last line cut off (no newline) is a warning naming its line; the rest is used. The
    // span ends at 7.0 ms: hog [0.020, 6.0) = 5.98 ms, worker 1.5 + [6.0, 7.0) = 2.5 ms.
    void truncatedLastLine()
    {
        const TraceImport r = importFtraceFile(kDir + "truncated.txt");
        QVERIFY(r.ok());
        QCOMPARE(r.warnings.size(), size_t{1});
        QVERIFY2(contains(r.warnings.front(), "truncated.txt:26:"), r.warnings.front().c_str());
        QCOMPARE(r.metrics.durationNs, int64_t{7'000'000});
        QCOMPARE(findTask(r.metrics, "hog-101")->cpuTimeNs, int64_t{5'980'000});
        QCOMPARE(findTask(r.metrics, "worker-102")->cpuTimeNs, int64_t{2'500'000});
        QCOMPARE(findTask(r.metrics, "bash-100")->cpuTimeNs, int64_t{3'000'000});
    }

    void badLinesNameTheirLine()
    {
        const TraceImport r = importFtraceFile(kDir + "bad.txt");
        QVERIFY(!r.ok());
        QCOMPARE(r.errors.size(), size_t{2});
        QVERIFY2(
            contains(r.errors[0], "bad.txt:16: expected \"TASK-PID [CPU]"), r.errors[0].c_str());
        QVERIFY2(contains(r.errors[1], "bad.txt:18: sched_switch: expected"), r.errors[1].c_str());
        QVERIFY(contains(r.errors[1], "next_pid="));
    }

    void garbageAndEmptyInput()
    {
        std::istringstream empty("");
        QVERIFY(!importFtrace(empty, "empty.txt").ok());
        static const char kElf[] = "\x7f"
                                   "ELF\x01\x02\x00\x00 [";
        std::istringstream binary(std::string(kElf, sizeof kElf - 1) + "\n\n"); // NULs kept
        const TraceImport r = importFtrace(binary, "x.bin");
        QVERIFY(!r.ok());
        QVERIFY(contains(r.errors.front(), "x.bin:1:"));
        // A timestamp going backwards on one CPU.
        std::istringstream back(
            "a-1 [000] 2.000000: sched_wakeup: comm=b pid=2 prio=120 target_cpu=000\n"
            "a-1 [000] 1.000000: sched_wakeup: comm=b pid=2 prio=120 target_cpu=000\n");
        const TraceImport b = importFtrace(back, "back.txt");
        QVERIFY(!b.ok());
        QVERIFY(contains(b.errors.front(), "back.txt:2: timestamp goes backwards"));
    }

    // Comms with spaces, old kernels' "success=" field, the runner's name map and metadata.
    void namesAndOldFormats()
    {
        const std::string text =
            "# schedlab-kernel: 6.18.15+deb13-amd64\n"
            "# schedlab-scenario: demo\n"
            "# schedlab-task: 7 a-task-with-a-long-name /web\n"
            "# schedlab-cgroup: /web usage_usec=1500 nr_periods=10 nr_throttled=3 "
            "throttled_usec=2500\n"
            " Web Content-9 [000] d..2. 1.000000: sched_wakeup: comm=a-task-with-a-l pid=7 "
            "prio=120 success=1 target_cpu=000\n"
            " Web Content-9 [000] d..2. 1.000500: sched_switch: prev_comm=Web Content prev_pid=9 "
            "prev_prio=120 prev_state=S ==> next_comm=a-task-with-a-l next_pid=7 next_prio=120\n"
            " a-task-with-a-l-7 [000] d..2. 1.002000: sched_switch: prev_comm=a-task-with-a-l "
            "prev_pid=7 prev_prio=120 prev_state=D|K ==> next_comm=swapper/0 next_pid=0 "
            "next_prio=120\n";
        std::istringstream in(text);
        const TraceImport r = importFtrace(in, "n.txt");
        QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
        QCOMPARE(r.kernel, std::string("6.18.15+deb13-amd64"));
        QCOMPARE(r.metrics.scenario, std::string("demo"));
        const TaskMetrics* web = findTask(r.metrics, "Web Content-9");
        const TaskMetrics* named = findTask(r.metrics, "a-task-with-a-long-name");
        QVERIFY(web && named);
        QCOMPARE(web->cpuTimeNs, int64_t{500'000});
        QCOMPARE(named->cpuTimeNs, int64_t{1'500'000});
        QCOMPARE(named->cgroup, std::string("/web"));
        QCOMPARE(named->waitMaxNs, int64_t{500'000});
        // The group's CPU time is its mapped tasks' (Web Content has no group: not counted).
        QCOMPARE(r.metrics.cgroups.size(), size_t{1});
        QCOMPARE(r.metrics.cgroups[0].path, std::string("/web"));
        QCOMPARE(r.metrics.cgroups[0].cpuTimeNs, int64_t{1'500'000});
        QCOMPARE(r.metrics.cgroups[0].throttledNs, int64_t{2'500'000}); // the runner's cpu.stat
        QCOMPARE(r.metrics.cgroups[0].nrPeriods, std::optional<int64_t>(10));
        QCOMPARE(r.metrics.cgroups[0].nrThrottled, std::optional<int64_t>(3));
        QCOMPARE(r.firstEventNs.size(), r.metrics.tasks.size());

        std::istringstream map("# pid name cgroup\n7 a-task-with-a-lot /db/x\n9 not-web-content\n");
        TraceNameMap names;
        std::string error;
        QVERIFY(parseNameMap(map, "names", names, &error));
        std::istringstream again(text);
        const TraceImport r2 = importFtrace(again, "n.txt", &names);
        // The given map wins over the trace's; an entry whose name does not start with the
        // task's comm is for another task that had the pid (pid reuse) and is not used.
        QVERIFY(findTask(r2.metrics, "a-task-with-a-lot"));
        QCOMPARE(findTask(r2.metrics, "a-task-with-a-lot")->cgroup, std::string("/db/x"));
        QCOMPARE(r2.metrics.cgroups.size(), size_t{3}); // /db/x, its parent /db, /web's stat
        QCOMPARE(r2.metrics.cgroups[0].path, std::string("/db"));
        QCOMPARE(r2.metrics.cgroups[0].cpuTimeNs, int64_t{1'500'000});
        QVERIFY(findTask(r2.metrics, "Web Content-9"));
        std::istringstream badMap("seven x\n");
        QVERIFY(!parseNameMap(badMap, "names", names, &error));
        QVERIFY(contains(error, "names:1: expected \"PID NAME [CGROUP]\""));
    }

    // A switch-out lost: b, running on CPU 0 since 0, is switched in on CPU 1 at 4 ms. Its run
    // on CPU 0 is credited only up to CPU 0's last event (2 ms), then 4 → 10 ms on CPU 1:
    // 8 ms, never two CPUs at once. x ran on CPU 1 from the span start to 4 ms.
    void lostSwitchOut()
    {
        std::istringstream in(
            "a-1 [000] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
            "prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n"
            "x-3 [001] d..2. 1.001000: sched_wakeup: comm=c pid=4 prio=120 target_cpu=001\n"
            "b-2 [000] d..2. 1.002000: sched_wakeup: comm=z pid=5 prio=120 target_cpu=000\n"
            "x-3 [001] d..2. 1.004000: sched_switch: prev_comm=x prev_pid=3 prev_prio=120 "
            "prev_state=R ==> next_comm=b next_pid=2 next_prio=120\n"
            "b-2 [001] d..2. 1.010000: sched_switch: prev_comm=b prev_pid=2 prev_prio=120 "
            "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n");
        const TraceImport r = importFtrace(in, "lost.txt");
        QVERIFY(r.ok());
        QVERIFY(!r.warnings.empty());
        QVERIFY(contains(
            r.warnings.front(), "lost.txt:4: pid 2 switched in on CPU 1 while running on CPU 0"));
        QCOMPARE(findTask(r.metrics, "b-2")->cpuTimeNs, int64_t{8'000'000});
        QCOMPARE(findTask(r.metrics, "x-3")->cpuTimeNs, int64_t{4'000'000});
        QCOMPARE(r.metrics.cpus[0].busyNs, int64_t{2'000'000});
        QCOMPARE(r.metrics.cpus[1].busyNs, int64_t{10'000'000});
    }

    // perf script ("comm pid [cpu] time: sched:sched_switch: …") and trace-cmd report -R (raw
    // fields, numeric prev_state, no arrow): a runs [0, 3) ms, b [3, 5) ms (end of the span).
    void perfAndRawForms()
    {
        for (const char* text :
            {"  a  11 [000] 7.000000: sched:sched_wakeup: comm=b pid=12 prio=120 target_cpu=000\n"
             "  a  11 [000] 7.003000: sched:sched_switch: prev_comm=a prev_pid=11 prev_prio=120 "
             "prev_state=S ==> next_comm=b next_pid=12 next_prio=120\n"
             "  b  12 [000] 7.005000: sched:sched_wakeup: comm=c pid=13 prio=120 target_cpu=000\n",
                "a-11 [000] 7.000000: sched_wakeup: comm=b pid=12 prio=120 target_cpu=0\n"
                "a-11 [000] 7.003000: sched_switch: prev_comm=a prev_pid=11 prev_prio=120 "
                "prev_state=1 next_comm=b next_pid=12 next_prio=120\n"
                "b-12 [000] 7.005000: sched_wakeup: comm=c pid=13 prio=120 target_cpu=0\n"}) {
            std::istringstream in(text);
            const TraceImport r = importFtrace(in, "p.txt");
            QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
            QCOMPARE(findTask(r.metrics, "a-11")->cpuTimeNs, int64_t{3'000'000});
            QCOMPARE(findTask(r.metrics, "b-12")->cpuTimeNs, int64_t{2'000'000});
            QCOMPARE(findTask(r.metrics, "b-12")->waitMaxNs, int64_t{3'000'000});
            QCOMPARE(findTask(r.metrics, "a-11")->waitMaxNs, int64_t{0}); // slept (S / 1)
        }
    }

    // Damaged traces never crash the importer: 2000 deterministic mutations of basic-flags.txt
    // (bytes replaced, lines cut, duplicated or dropped). Each import either succeeds with
    // consistent numbers (no negative time, no CPU busier than the span) or names a line.
    void damagedTracesNeverCrash()
    {
        std::ifstream in(kDir + "basic-flags.txt");
        const std::string original((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(!original.empty());
        Prng prng(17);
        const char kBytes[] = " \t\n:=[]-.0123456789>|+dNhsR#";
        for (int round = 0; round < 2000; ++round) {
            std::string text = original;
            const int edits = 1 + static_cast<int>(prng.below(4));
            for (int e = 0; e < edits && !text.empty(); ++e) {
                const size_t at = prng.below(text.size());
                switch (prng.below(4)) {
                case 0:
                    text[at] = kBytes[prng.below(sizeof kBytes - 1)];
                    break;
                case 1:
                    text.erase(at, prng.below(80));
                    break;
                case 2:
                    text.insert(at, text.substr(at, prng.below(200)));
                    break;
                default:
                    text.resize(at);
                    break;
                }
            }
            std::istringstream s(text);
            const TraceImport r = importFtrace(s, "m.txt");
            if (!r.ok()) {
                QVERIFY2(contains(r.errors.front(), "m.txt"), r.errors.front().c_str());
                continue;
            }
            for (const auto& t : r.metrics.tasks) {
                QVERIFY(t.cpuTimeNs >= 0 && t.waitMaxNs >= 0);
                QVERIFY(t.cpuTimeNs <= r.metrics.durationNs);
            }
            for (const auto& c : r.metrics.cpus)
                QVERIFY(c.busyNs >= 0 && c.busyNs <= r.metrics.durationNs);
        }
    }

    // Values the kernel cannot produce are refused with FILE:LINE, never wrapped: pid 2^32 used
    // to become pid 0 (the idle task), larger ones negative, target_cpu=999999 cpu 65535, and a
    // first timestamp of 9999999999 s overflowed the nanosecond clock.
    void outOfRangeValues_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected");
        const QString sw = "a-1 [000] 1.000000: sched_switch: prev_comm=a prev_pid=%1 "
                           "prev_prio=120 prev_state=S ==> next_comm=b next_pid=%2 next_prio=120";
        QTest::newRow("prev_pid 2^32") << sw.arg("4294967296", "2")
                                       << "r.txt:1: sched_switch: prev pid 4294967296 out of "
                                          "range (pids are 0-4194304, the kernel's PID_MAX_LIMIT)";
        QTest::newRow("next_pid 2^63-1") << sw.arg("1", "9223372036854775807")
                                         << "r.txt:1: sched_switch: next pid 9223372036854775807 "
                                            "out of range";
        QTest::newRow("next_pid PID_MAX_LIMIT + 1")
            << sw.arg("1", "4194305") << "r.txt:1: sched_switch: next pid 4194305 out of range";
        QTest::newRow("negative pid")
            << "a-1 [000] 1.000000: sched_wakeup: comm=b pid=-5 prio=120 target_cpu=000"
            << "r.txt:1: sched_wakeup: pid -5 out of range";
        QTest::newRow("pid in the header")
            << "a-4294967296 [000] 1.000000: sched_wakeup: comm=b pid=5 prio=120 target_cpu=000"
            << "r.txt:1: pid 4294967296 out of range";
        QTest::newRow("fork child_pid")
            << "a-1 [000] 1.000000: sched_process_fork: comm=a pid=1 child_comm=a "
               "child_pid=4294967297"
            << "r.txt:1: sched_process_fork: child_pid 4294967297 out of range";
        QTest::newRow("target_cpu 999999")
            << "a-1 [000] 1.000000: sched_wakeup: comm=b pid=5 prio=120 target_cpu=999999"
            << "r.txt:1: sched_wakeup: target CPU 999999 out of range (CPUs are 0-4095";
        QTest::newRow("trace-cmd CPU:4096")
            << "a-1 [000] 1.000000: sched_wakeup: b:5 [120] CPU:4096"
            << "r.txt:1: sched_wakeup: target CPU 4096 out of range";
        QTest::newRow("dest_cpu 70000")
            << "a-1 [000] 1.000000: sched_migrate_task: comm=b pid=5 prio=120 orig_cpu=0 "
               "dest_cpu=70000"
            << "r.txt:1: sched_migrate_task: dest_cpu 70000 out of range";
        QTest::newRow("CPU column 4096")
            << "a-1 [4096] 1.000000: sched_wakeup: comm=b pid=5 prio=120 target_cpu=000"
            << "r.txt:1: CPU [4096] out of range (CPUs are 0-4095";
        QTest::newRow("timestamp 9999999999 s")
            << "a-1 [000] 9999999999.000000: sched_wakeup: comm=b pid=5 prio=120 target_cpu=000"
            << "r.txt:1: timestamp 9999999999.000000 out of range (at most "
               "9223372036.854775807 s";
        // One nanosecond beyond INT64_MAX.
        QTest::newRow("timestamp 2^63 ns")
            << "a-1 [000] 9223372036.854775808: sched_wakeup: comm=b pid=5 prio=120 "
               "target_cpu=000"
            << "r.txt:1: timestamp 9223372036.854775808 out of range";
        QTest::newRow("schedlab-task pid") << "# schedlab-task: 4294967296 worker /"
                                           << "r.txt:1: schedlab-task: pid 4294967296 out of range";
        QTest::newRow("schedlab-cpus 0") << "# schedlab-cpus: 0"
                                         << "r.txt:1: schedlab-cpus: expected the scenario's CPU "
                                            "count, 1-4096, got \"0\"";
    }
    void outOfRangeValues()
    {
        QFETCH(QString, line);
        QFETCH(QString, expected);
        // A valid event after it: the bad line is not the (forgiven) truncated last one.
        std::istringstream in(line.toStdString()
            + "\na-1 [000] 9.000000: sched_wakeup: comm=b pid=5 prio=120 target_cpu=000\n");
        const TraceImport r = importFtrace(in, "r.txt");
        QVERIFY(!r.ok());
        QVERIFY2(contains(r.errors.front(), expected.toStdString()), r.errors.front().c_str());
    }

    void largestValuesAccepted()
    {
        // pid PID_MAX_LIMIT, CPU 4095, the last nanosecond of int64 as the first timestamp.
        std::istringstream in(
            "# schedlab-cpus: 4096\n"
            "a-1 [4095] 9223372036.854775806: sched_wakeup: comm=b pid=4194304 prio=120 "
            "target_cpu=4095\n"
            "a-1 [4095] 9223372036.854775807: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
            "prev_state=S ==> next_comm=b next_pid=4194304 next_prio=120\n");
        const TraceImport r = importFtrace(in, "max.txt");
        QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
        QCOMPARE(r.startNs, std::numeric_limits<int64_t>::max() - 1);
        QCOMPARE(r.metrics.durationNs, int64_t{1});
        QCOMPARE(r.scenarioCpus, 4096);
        QCOMPARE(r.recording.cpus, 4096);
        QVERIFY(findTask(r.metrics, "b-4194304"));
        // The name map takes PID_MAX_LIMIT and refuses one more.
        TraceNameMap names;
        std::string error;
        std::istringstream good("4194304 worker /\n");
        QVERIFY(parseNameMap(good, "map.txt", names, &error));
        std::istringstream bad("# map\n4194305 worker /\n");
        QVERIFY(!parseNameMap(bad, "map.txt", names, &error));
        QVERIFY2(
            contains(error, "map.txt:2: expected \"PID NAME [CGROUP]\" with a PID of 1-4194304"),
            error.c_str());
    }

    // Clock skew between CPUs: b is woken on CPU 0 at 1.000000 and switched in on CPU 1 at
    // 0.999600, 400 µs "earlier" by CPU 1's clock. Within the 1 ms tolerated it is taken at
    // 1.000000: b's wait is 0 (it was -400 µs before), it runs 1.000000 → 1.002000 = 2 ms.
    // 40 ms back is refused (that gave wait_max_ns: -40000000).
    void clockSkewBetweenCpus()
    {
        const std::string wake =
            "x-3 [000] 1.000000: sched_wakeup: comm=b pid=2 prio=120 target_cpu=001\n";
        const std::string switchIn = " [001] %s: sched_switch: prev_comm=swapper/1 prev_pid=0 "
                                     "prev_prio=120 prev_state=R ==> next_comm=b next_pid=2 "
                                     "next_prio=120\n";
        auto in = [&](const char* when) {
            std::string s = switchIn;
            s.replace(s.find("%s"), 2, when);
            return wake + "<idle>-0" + s
                + "b-2 [001] 1.002000: sched_switch: prev_comm=b prev_pid=2 prev_prio=120 "
                  "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
        };
        std::istringstream small(in("0.999600"));
        const TraceImport r = importFtrace(small, "skew.txt");
        QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
        const TaskMetrics* b = findTask(r.metrics, "b-2");
        QVERIFY(b);
        QCOMPARE(b->waitMaxNs, int64_t{0});
        QCOMPARE(b->cpuTimeNs, int64_t{2'000'000});
        QCOMPARE(r.metrics.durationNs, int64_t{2'000'000});
        QCOMPARE(r.warnings.size(), size_t{1});
        QVERIFY2(contains(r.warnings.front(),
                     "skew.txt:2: 1 event is older than an earlier event of another CPU, by up "
                     "to 400000 ns (clock skew between CPUs, tolerated up to 1000000 ns)"),
            r.warnings.front().c_str());

        std::istringstream large(in("0.960000"));
        const TraceImport refused = importFtrace(large, "skew.txt");
        QVERIFY(!refused.ok());
        QVERIFY2(contains(refused.errors.front(),
                     "skew.txt:2: timestamp goes backwards by 40000000 ns behind an earlier "
                     "event of another CPU: more than the 1000000 ns"),
            refused.errors.front().c_str());
        // Exactly the bound is tolerated.
        std::istringstream bound(in("0.999000"));
        QVERIFY(importFtrace(bound, "skew.txt").ok());
    }

    // The CPU column search examines each character a bounded number of times (it was
    // quadratic: one 1 MiB line of " [" took 5.7 s to refuse). Counted, not timed.
    void cpuColumnSearchIsLinear()
    {
        auto steps = [](const std::string& line, bool expectFound) {
            size_t open = 0;
            size_t close = 0;
            uint64_t n = 0;
            const bool found = detail::findCpuColumn(line, open, close, &n);
            if (found != expectFound)
                return std::numeric_limits<uint64_t>::max();
            return n;
        };
        std::string brackets;
        for (int i = 0; i < 512 * 1024; ++i)
            brackets += " [";
        QVERIFY(steps(brackets, false) <= 3 * brackets.size());
        std::string digits; // " [0 [0 [0 … ]": each '[' is closed by the same far ']'
        for (int i = 0; i < 200 * 1024; ++i)
            digits += " [0";
        digits += "]x";
        QVERIFY(steps(digits, false) <= 3 * digits.size());
        std::string closes; // " []]]]…": ']' everywhere, no digits
        for (int i = 0; i < 300 * 1024; ++i)
            closes += " []";
        QVERIFY(steps(closes, false) <= 3 * closes.size());
        // The one that is a column is found after the ones that are not.
        const std::string line = "a [b] [12x] c-1 [003] 1.0: e:";
        size_t open = 0;
        size_t close = 0;
        QVERIFY(detail::findCpuColumn(line, open, close));
        QCOMPARE(open, size_t{16});
        QCOMPARE(close, size_t{20});
        // The whole import of the 1 MiB line is refused naming its line.
        std::istringstream in(brackets + "\n" + brackets + "\n");
        const TraceImport r = importFtrace(in, "long.txt");
        QVERIFY(!r.ok());
        QVERIFY(contains(r.errors.front(), "long.txt:1: expected \"TASK-PID [CPU]"));
    }

    // Found by fuzz_ftrace_import. t runs on CPU 1 from 0; at 1 ms CPU 0 switches it out (its
    // switch-out on CPU 1 was lost), at 2 ms CPU 0 switches it in, the span ends at 10 ms. Its
    // run on CPU 1 ends at CPU 1's last event (0), CPU 0 ran it from the span start to 1 ms and
    // from 2 to 10 ms: 9 ms. It was counted on both CPUs to the end, 18 ms in a 10 ms span.
    void switchOutWhileRunningElsewhere()
    {
        std::istringstream in(
            "<idle>-0 [001] 1.000000: sched_switch: prev_comm=swapper/1 prev_pid=0 "
            "prev_prio=120 prev_state=R ==> next_comm=t next_pid=5 next_prio=120\n"
            "t-5 [000] 1.001000: sched_switch: prev_comm=t prev_pid=5 prev_prio=120 "
            "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
            "<idle>-0 [000] 1.002000: sched_switch: prev_comm=swapper/0 prev_pid=0 "
            "prev_prio=120 prev_state=R ==> next_comm=t next_pid=5 next_prio=120\n"
            "<idle>-0 [001] 1.010000: sched_wakeup: comm=x pid=9 prio=120 target_cpu=001\n");
        const TraceImport r = importFtrace(in, "e.txt");
        QVERIFY(r.ok());
        QCOMPARE(r.metrics.durationNs, int64_t{10'000'000});
        QVERIFY(findTask(r.metrics, "t-5"));
        QCOMPARE(findTask(r.metrics, "t-5")->cpuTimeNs, int64_t{9'000'000});
        QCOMPARE(r.metrics.cpus[0].busyNs, int64_t{9'000'000});
        QCOMPARE(r.metrics.cpus[1].busyNs, int64_t{0});
        QVERIFY(contains(r.warnings.front(),
            "e.txt:2: pid 5 switched out on CPU 0 while running on CPU 1 (events lost?)"));
    }

    // Found by fuzz_ftrace_import: pid 3, named only in the header of CPU 0's events (CPU 0 never
    // switches), becomes a task at the end of the import; its spawn at time 0 used to be
    // appended after the switch at 1 ms.
    void lateTaskKeepsRecordsInOrder()
    {
        std::istringstream in(
            "a-3 [000] 1.000000: sched_wakeup: comm=b pid=2 prio=120 target_cpu=001\n"
            "<idle>-0 [001] 1.001000: sched_switch: prev_comm=swapper/1 prev_pid=0 "
            "prev_prio=120 prev_state=R ==> next_comm=b next_pid=2 next_prio=120\n");
        const TraceImport r = importFtrace(in, "o.txt");
        QVERIFY(r.ok());
        const TaskMetrics* a = findTask(r.metrics, "<...>-3"); // only its pid is known
        QVERIFY(a);
        QCOMPARE(a->cpuTimeNs, int64_t{1'000'000}); // all along
        const auto& records = r.recording.records();
        QCOMPARE(records.size(), size_t{4}); // spawn a-3, spawn b, wakeup b, switch
        QCOMPARE(records.front().kind, RecordKind::Spawn);
        QCOMPARE(records.back().kind, RecordKind::Switch);
        QVERIFY(std::is_sorted(records.begin(), records.end(),
            [](const Record& x, const Record& y) { return x.time < y.time; }));
    }
    void deadlineJobsFromYieldMarkers()
    {
        // A 10/30 ms SCHED_DEADLINE task (the runner's header: dl=RUNTIME/DEADLINE/PERIOD) and
        // a fair hog on one CPU; schedlab-run marks each job's end before its sched_yield().
        // The jobs by hand (ms from the first event), following the CBS (dljobs.h):
        //   0  woken: job 1 released, deadline 30, runtime 10; runs 0-8, yields at 8:
        //      response 8; the next job is released at 30 − 30 + 30 = 30 (deadline 60).
        //   30 runs 30-38, yields: response 8; released at 60 (deadline 90, runtime 10).
        //   60 runs 60-70: the budget is used up, switched out runnable: throttled (1),
        //      replenished to deadline 120, runtime 10; runs again 90-91 (runtime 9), yields:
        //      response 91 − 60 = 31 > 30: a miss; the next job at 120 − 30 + 30 = 120.
        //   120 runs 120-125, yields: response 5.
        // Jobs 4, worst response 31 ms, misses 1, throttles 1.
        const std::string text = "# schedlab-task: 10 video / dl=10000000/30000000/30000000\n"
                                 "# schedlab-task: 20 hog /\n"
            + sw(0, "swapper/0", 0, 120, "R", "video", 10, -1) + mark(8)
            + sw(8, "video", 10, -1, "R", "hog", 20, 120)
            + sw(30, "hog", 20, 120, "R", "video", 10, -1) + mark(38)
            + sw(38, "video", 10, -1, "R", "hog", 20, 120)
            + sw(60, "hog", 20, 120, "R", "video", 10, -1)
            + sw(70, "video", 10, -1, "R", "hog", 20, 120)
            + sw(90, "hog", 20, 120, "R", "video", 10, -1) + mark(91)
            + sw(91, "video", 10, -1, "R", "hog", 20, 120)
            + sw(120, "hog", 20, 120, "R", "video", 10, -1) + mark(125)
            + sw(125, "video", 10, -1, "R", "hog", 20, 120)
            + sw(150, "hog", 20, 120, "R", "hog", 20, 120);
        std::istringstream in(text);
        const TraceImport r = importFtrace(in, "dl.txt");
        QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
        const TaskMetrics* video = findTask(r.metrics, "video");
        const TaskMetrics* hog = findTask(r.metrics, "hog");
        QVERIFY(video && hog);
        QVERIFY(video->deadline.has_value());
        QVERIFY(!hog->deadline.has_value());
        QCOMPARE(video->deadline->runtimeNs, int64_t{10'000'000});
        QCOMPARE(video->deadline->periodNs, int64_t{30'000'000});
        QCOMPARE(video->deadline->jobs, int64_t{4});
        QCOMPARE(video->deadline->worstResponseNs, int64_t{31'000'000});
        QCOMPARE(video->deadline->misses, int64_t{1});
        QCOMPARE(video->deadline->throttles, int64_t{1});
        QCOMPARE(video->cpuTimeNs, int64_t{(8 + 8 + 10 + 1 + 5) * 1'000'000});
    }
    void deadlineLaggingReplenish()
    {
        // A 10/30 ms task kept off its CPU while runnable (5-100 ms) runs out of budget at
        // 105 ms: its timer's instant, deadline 30 − 30 + 30 = 30, has passed, so it is
        // replenished at once (§15.4): a period added, deadline 60, still before 105 ms, so a
        // new period from then: deadline 135, runtime 10. By hand (ms from the first event):
        //   0   job 1 released (deadline 30); runs 0-5 and 100-105 (budget gone: throttle 1,
        //       replenished at 105 to deadline 135), then 110-113 and yields: response 113, a
        //       miss; the next job is released at 135 − 30 + 30 = 135 (deadline 165).
        //   135 runs 135-140, yields: response 5.
        // Jobs 2, misses 1, worst 113 ms, throttles 1. (Without the new period the second job
        // would be released at 60 and end 80 ms later, a second miss.)
        const std::string text = "# schedlab-task: 10 video / dl=10000000/30000000/30000000\n"
                                 "# schedlab-task: 20 hog /\n"
            + sw(0, "swapper/0", 0, 120, "R", "video", 10, -1)
            + sw(5, "video", 10, -1, "R", "hog", 20, 120)
            + sw(100, "hog", 20, 120, "R", "video", 10, -1)
            + sw(105, "video", 10, -1, "R", "hog", 20, 120)
            + sw(110, "hog", 20, 120, "R", "video", 10, -1) + mark(113)
            + sw(113, "video", 10, -1, "R", "hog", 20, 120)
            + sw(135, "hog", 20, 120, "R", "video", 10, -1) + mark(140)
            + sw(140, "video", 10, -1, "R", "hog", 20, 120)
            + sw(160, "hog", 20, 120, "R", "hog", 20, 120);
        std::istringstream in(text);
        const TraceImport r = importFtrace(in, "dl-lag.txt");
        QVERIFY2(r.ok(), r.errors.empty() ? "" : r.errors.front().c_str());
        const TaskMetrics* video = findTask(r.metrics, "video");
        QVERIFY(video && video->deadline.has_value());
        QCOMPARE(video->deadline->jobs, int64_t{2});
        QCOMPARE(video->deadline->misses, int64_t{1});
        QCOMPARE(video->deadline->worstResponseNs, int64_t{113'000'000});
        QCOMPARE(video->deadline->throttles, int64_t{1});
        QCOMPARE(video->cpuTimeNs, int64_t{(5 + 5 + 3 + 5) * 1'000'000});
    }
    void deadlineHeaderValues_data()
    {
        QTest::addColumn<QString>("token");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<bool>("reclaim");
        QTest::newRow("implicit") << "dl=10000000/30000000/30000000" << true << false;
        QTest::newRow("reclaim") << "dl=10000000/30000000/30000000/reclaim" << true << true;
        QTest::newRow("runtime above deadline")
            << "dl=40000000/30000000/30000000" << false << false;
        QTest::newRow("runtime under 1024 ns") << "dl=1000/30000000/30000000" << false << false;
        QTest::newRow("two values") << "dl=10000000/30000000" << false << false;
        QTest::newRow("not a number") << "dl=10ms/30ms/30ms" << false << false;
        QTest::newRow("unknown flag") << "dl=10000000/30000000/30000000/x" << false << false;
    }
    void deadlineHeaderValues()
    {
        // Only parameters the kernel accepts (__checkparam_dl()) give a task its reservation;
        // anything else is as absent.
        QFETCH(QString, token);
        QFETCH(bool, accepted);
        QFETCH(bool, reclaim);
        std::istringstream fields(token.toStdString());
        TraceNameMap::Entry e;
        detail::nameMapExtras(fields, e);
        QCOMPARE(e.dl.has_value(), accepted);
        if (accepted)
            QCOMPARE(e.dl->reclaim(), reclaim);
    }
};

QTEST_APPLESS_MAIN(TestFtraceImport)
#include "tst_ftraceimport.moc"
