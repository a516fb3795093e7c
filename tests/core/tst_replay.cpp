// SPDX-License-Identifier: GPL-2.0-or-later
// Replay (core/import/replay.h): hand-made traces whose programs are worked out by hand from the
// timestamps below, the completions that carry a wake chain, and the derived scenario run in the
// model. Times are relative to the first event (100.000000 s).
//
// chainTrace (1 CPU, irq-info flags):
//   w-10 runs [0, 2) ms, blocks (S); a timer (hardirq context, 'h') wakes it at 5: a timed sleep of
//   3 ms. It runs [5, 7): at 6 it wakes s-11 (its own context: a wake chain), at 7 it blocks.
//   s-11 (prio 125: nice 5) was asleep before the trace; woken by w at 6, runs [7, 8.5), blocks.
//   Programs: w = run 2ms, sleep 3ms, run 1ms, complete wake:s-11, run 1ms, sleep 8.5ms (past
//   the end); s = wait_for_completion wake:s-11, run 1.5ms, sleep 8.5ms.
// forkTrace (1 CPU):
//   p-20 runs [0, 2): forks c-21 at 1 (woken new at 1), blocks at 2 (waits for the child).
//   c-21 runs [2, 3.6): at 3.5 it exits and wakes its parent (a chain), dies at 3.6.
//   p-20 runs [3.6, 4), blocks.
//   Programs: p = run 1ms, fork { run 1.5ms, kernel { complete wake:p-20, run 0.1ms } }, run
//   1ms, wait_for_completion wake:p-20, run 0.4ms, sleep 4ms (the child's wake-up of its parent
//   and its 0.1 ms after it are the end of its exit: kernel work, which a lazy preemption waits
//   for). Timed: the wait is a sleep of 1.5 ms and the child's runs join: run 1.6ms.
#include "core/import/replay.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <QTest>

#include <sstream>

using namespace schedlab;

namespace {

constexpr int64_t kUs = 1'000;
constexpr int64_t kMs = 1'000'000;

const char* const kChainTrace = R"(# tracer: nop
#P:1
  <idle>-0     [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=10 next_prio=120
       w-10    [000] d..2.   100.002000: sched_switch: prev_comm=w prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
  <idle>-0     [000] d.h2.   100.005000: sched_wakeup: comm=w pid=10 prio=120 target_cpu=000
  <idle>-0     [000] d..2.   100.005000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=10 next_prio=120
       w-10    [000] d..3.   100.006000: sched_wakeup: comm=s pid=11 prio=125 target_cpu=000
       w-10    [000] d..2.   100.007000: sched_switch: prev_comm=w prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=s next_pid=11 next_prio=125
       s-11    [000] d..2.   100.008500: sched_switch: prev_comm=s prev_pid=11 prev_prio=125 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";

const char* const kForkTrace = R"(# tracer: nop
#P:1
  <idle>-0     [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=p next_pid=20 next_prio=120
       p-20    [000] .....   100.001000: sched_process_fork: comm=p pid=20 child_comm=c child_pid=21
       p-20    [000] d..3.   100.001000: sched_wakeup_new: comm=c pid=21 prio=120 target_cpu=000
       p-20    [000] d..2.   100.002000: sched_switch: prev_comm=p prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=c next_pid=21 next_prio=120
       c-21    [000] .....   100.003500: sched_process_exit: comm=c pid=21 prio=120
       c-21    [000] d..3.   100.003500: sched_wakeup: comm=p pid=20 prio=120 target_cpu=000
       c-21    [000] d..2.   100.003600: sched_switch: prev_comm=c prev_pid=21 prev_prio=120 prev_state=X ==> next_comm=p next_pid=20 next_prio=120
       p-20    [000] d..2.   100.004000: sched_switch: prev_comm=p prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";

TraceImport importText(const char* text)
{
    std::istringstream in(text);
    return importFtrace(in, "hand.txt");
}

Op run(int64_t ns)
{
    Op op;
    op.kind = Op::Kind::Run;
    op.duration = DurationSpec::fixed(Nanoseconds(ns));
    return op;
}

Op sleep(int64_t ns)
{
    Op op;
    op.kind = Op::Kind::Sleep;
    op.duration = DurationSpec::fixed(Nanoseconds(ns));
    return op;
}

Op named(Op::Kind kind, const std::string& name)
{
    Op op;
    op.kind = kind;
    op.name = name;
    return op;
}

const TaskSpec* findSpec(const Scenario& s, const std::string& name)
{
    for (const TaskSpec& t : s.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

const TaskMetrics* findMetrics(const Metrics& m, const std::string& name)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

/// A readable form of a program for comparisons that print what differs.
std::string describe(const std::vector<Op>& ops)
{
    std::string out;
    for (const Op& op : ops) {
        out += std::to_string(static_cast<int>(op.kind)) + ":" + op.name + ":"
            + std::to_string(op.duration.value.count()) + (op.duration.endless ? "∞" : "");
        if (!op.fork.empty())
            out += "{" + describe(op.fork.front().program) + "}";
        if (!op.body.empty())
            out += "[" + describe(op.body) + "]";
        out += " ";
    }
    return out;
}

} // namespace

#define QCOMPARE_PROGRAM(actual, expected)                                                         \
    QCOMPARE(QString::fromStdString(actual), QString::fromStdString(expected))

class TestReplay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void chainProgramsByHand();
    void timedModeSleepsInstead();
    void forkedChildInsideItsParent();
    void derivedScenarioRoundTripsAndRuns();
    void completionCountsAndNeverLoses();
    void kernelThreadsByName();
    void shippedRealTraceWithinThreePoints();
    void headerAffinityAndCgroupFiles();
    void markedAffinityAndDeadline();
    void featuresAndReleaseProfile();
    void runnableAtTheEnd();
};

void TestReplay::chainProgramsByHand()
{
    const TraceImport trace = importText(kChainTrace);
    QVERIFY(trace.ok());
    QVERIFY(trace.contextFlags);
    const ReplayScenario r = deriveScenario(trace);
    const Scenario& s = r.scenario;
    QCOMPARE(s.machine.cpus.value_or(0), 1);
    QCOMPARE(s.duration->count(), 8500 * kUs);
    QCOMPARE(s.tasks.size(), size_t(2));
    const TaskSpec* w = findSpec(s, "w-10");
    const TaskSpec* sl = findSpec(s, "s-11");
    QVERIFY(w && sl);
    const std::vector<Op> wantW{run(2 * kMs), sleep(3 * kMs), run(1 * kMs),
        named(Op::Kind::Complete, "wake:s-11"), run(1 * kMs), sleep(8500 * kUs)};
    QCOMPARE_PROGRAM(describe(w->program), describe(wantW));
    const std::vector<Op> wantS{
        named(Op::Kind::WaitCompletion, "wake:s-11"), run(1500 * kUs), sleep(8500 * kUs)};
    QCOMPARE_PROGRAM(describe(sl->program), describe(wantS));
    QCOMPARE(sl->nice.value_or(0), 5); // prio 125
    QVERIFY(!w->nice);                 // prio 120: nice 0, not written
    QVERIFY(!w->start && !sl->start);  // both there from the start
    QCOMPARE(r.chains, int64_t(1));
    QCOMPARE(r.timedSleeps, int64_t(1)); // the timer's wakeup (hardirq context)
    QVERIFY(s.description && s.description->find("interrupts") != std::string::npos);
}

void TestReplay::timedModeSleepsInstead()
{
    ReplayOptions o;
    o.wakeups = ReplayOptions::Wakeups::Timed;
    const ReplayScenario r = deriveScenario(importText(kChainTrace), o);
    const TaskSpec* w = findSpec(r.scenario, "w-10");
    const TaskSpec* s = findSpec(r.scenario, "s-11");
    QVERIFY(w && s);
    // w's runs around the wakeup join; s sleeps from 0 to its wakeup at 6 ms.
    QCOMPARE_PROGRAM(describe(w->program),
        describe({run(2 * kMs), sleep(3 * kMs), run(2 * kMs), sleep(8500 * kUs)}));
    QCOMPARE_PROGRAM(
        describe(s->program), describe({sleep(6 * kMs), run(1500 * kUs), sleep(8500 * kUs)}));
    QCOMPARE(r.chains, int64_t(0));
    QCOMPARE(r.timedSleeps, int64_t(2));
}

void TestReplay::forkedChildInsideItsParent()
{
    const TraceImport trace = importText(kForkTrace);
    QVERIFY(trace.ok());
    const ReplayScenario r = deriveScenario(trace);
    QCOMPARE(r.scenario.tasks.size(), size_t(1)); // the child lives in its parent's fork
    const TaskSpec* p = findSpec(r.scenario, "p-20");
    QVERIFY(p);
    Op fork = named(Op::Kind::Fork, "");
    TaskSpec child;
    Op exitTail;
    exitTail.kind = Op::Kind::Kernel;
    exitTail.body = {named(Op::Kind::Complete, "wake:p-20"), run(100 * kUs)};
    child.program = {run(1500 * kUs), exitTail};
    fork.fork.push_back(child);
    QCOMPARE_PROGRAM(describe(p->program),
        describe({run(1 * kMs), fork, run(1 * kMs), named(Op::Kind::WaitCompletion, "wake:p-20"),
            run(400 * kUs), sleep(4 * kMs)}));
    QCOMPARE(r.forks, int64_t(1));
    // The machine names the child PARENT.1: the trace's c-21.
    QCOMPARE(r.traceNames.at("p-20.1"), std::string("c-21"));
    QCOMPARE(r.traceNames.at("p-20"), std::string("p-20"));

    ReplayOptions o;
    o.wakeups = ReplayOptions::Wakeups::Timed;
    const ReplayScenario t = deriveScenario(trace, o);
    TaskSpec timedChild;
    timedChild.program = {run(1600 * kUs)};
    Op timedFork = named(Op::Kind::Fork, "");
    timedFork.fork.push_back(timedChild);
    QCOMPARE_PROGRAM(describe(t.scenario.tasks.at(0).program),
        describe({run(1 * kMs), timedFork, run(1 * kMs), sleep(1500 * kUs), run(400 * kUs),
            sleep(4 * kMs)}));
}

void TestReplay::derivedScenarioRoundTripsAndRuns()
{
    for (const char* text : {kChainTrace, kForkTrace}) {
        const ReplayScenario r = deriveScenario(importText(text));
        const std::string json = writeScenario(r.scenario);
        const LoadResult back = parseScenario(json, "replay.json");
        QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().c_str());
        QVERIFY(*back.scenario == r.scenario);
    }
    // The chain trace in the model: w's 4 ms and s's 1.5 ms of CPU all fit into the 8.5 ms span
    // (one CPU; w sleeps [2, 5)), so each gets exactly its traced CPU time, whoever preempts.
    const ReplayScenario chain = deriveScenario(importText(kChainTrace));
    Simulation sim(chain.scenario);
    sim.run();
    const Metrics m = sim.metrics();
    QVERIFY(findMetrics(m, "w-10") && findMetrics(m, "s-11"));
    QCOMPARE(findMetrics(m, "w-10")->cpuTimeNs, 4 * kMs);
    QCOMPARE(findMetrics(m, "s-11")->cpuTimeNs, 1500 * kUs); // woken by w's complete
    // The fork trace: p 2.4 ms, its child (p-20.1) 1.6 ms, the parent's wait ended by the child.
    const ReplayScenario fork = deriveScenario(importText(kForkTrace));
    Simulation fsim(fork.scenario);
    fsim.run();
    const Metrics fm = fsim.metrics();
    QVERIFY(findMetrics(fm, "p-20") && findMetrics(fm, "p-20.1"));
    QCOMPARE(findMetrics(fm, "p-20")->cpuTimeNs, 2400 * kUs);
    QCOMPARE(findMetrics(fm, "p-20.1")->cpuTimeNs, 1600 * kUs);
}

void TestReplay::completionCountsAndNeverLoses()
{
    // A complete before the wait is kept (unlike resume): b completes twice at 1 ms, a waits
    // twice after 3 ms of running and goes straight on: a runs 3 + 1 + 1 ms on CPU 0.
    const char* json = R"({"schedlab": 1, "name": "completion", "duration": "20ms",
        "machine": {"cpus": 2},
        "tasks": [
          {"name": "a", "cpus": "0", "program": [{"run": "3ms"}, {"wait_for_completion": "c"},
             {"run": "1ms"}, {"wait_for_completion": "c"}, {"run": "1ms"},
             {"wait_for_completion": "c"}, {"run": "5ms"}]},
          {"name": "b", "cpus": "1", "program": [{"run": "1ms"}, {"complete": "c"},
             {"complete": "c"}, {"sleep": "10ms"}, {"complete": "c"}, {"sleep": "1s"}]}]})";
    const LoadResult loaded = parseScenario(json, "completion.json");
    QVERIFY2(loaded.ok(), loaded.errors.empty() ? "" : loaded.errors.front().c_str());
    Simulation sim(*loaded.scenario);
    sim.run();
    const Metrics m = sim.metrics();
    // a: 3 + 1 + 1 ms, then waits for b's third complete at 11 ms, then 5 ms: 10 ms by 16 ms.
    QCOMPARE(findMetrics(m, "a")->cpuTimeNs, 10 * kMs);
    QCOMPARE(findMetrics(m, "b")->cpuTimeNs, 1 * kMs);
}

void TestReplay::kernelThreadsByName()
{
    int cpu = -2;
    QVERIFY(isKernelThreadComm("ksoftirqd/3", &cpu));
    QCOMPARE(cpu, 3);
    QVERIFY(isKernelThreadComm("kworker/1:2", &cpu));
    QCOMPARE(cpu, 1);
    QVERIFY(isKernelThreadComm("kworker/u8:0", &cpu));
    QCOMPARE(cpu, -1); // unbound workqueue
    QVERIFY(isKernelThreadComm("rcu_preempt", &cpu));
    QCOMPARE(cpu, -1);
    QVERIFY(!isKernelThreadComm("bash", &cpu));
    QVERIFY(!isKernelThreadComm("my/3", &cpu));
}

// Lesson 16's real trace (Linux 6.18.15 under the lab: a sleeper beside two hogs on one CPU for
// 5 s) and the scenario `import --scenario` derived from it: replayed, every task's CPU share is
// within ±3 percentage points of the real one (the issue's bound; measured 0.6 pp at most).
void TestReplay::shippedRealTraceWithinThreePoints()
{
    const std::string dir = SCHEDLAB_SOURCE_DIR "/lessons/traces/";
    const TraceImport real = importFtraceFile(dir + "sleeper-lag-6.18.15.txt");
    QVERIFY(real.ok());
    QCOMPARE(real.kernel, std::string("6.18.15+deb13-amd64"));
    const LoadResult replay = loadScenarioFile(dir + "sleeper-lag-replay.json");
    QVERIFY(replay.ok());
    Simulation sim(*replay.scenario);
    sim.run();
    const Metrics model = sim.metrics();
    const ReplayFidelity f = replayFidelity(model, real.metrics);
    QCOMPARE(f.tasks, 9); // sleeper, two hogs, the runner, five kernel threads
    QVERIFY2(f.shareErrorMaxPp <= 3.0, f.worstTask.c_str());
    for (const char* name : {"sleeper", "hog-1", "hog-2"}) {
        const TaskMetrics* m = findMetrics(model, name);
        QVERIFY(m);
        QVERIFY(m->cpuTimeNs > 0);
    }
}

// The runner's header gives each task's affinity at its start ("cpus=LIST" after the cgroup)
// and the cgroup files it set ("# schedlab-cgroup-files:"): the replay pins and configures the
// same. On two CPUs: a pinned to CPU 1, b allowed both (no pin written), c's list invalid
// (ignored), /g with cpu.weight 2000 and cpu.max 50 ms per 100 ms, /h's weight out of range
// (left at the default).
void TestReplay::headerAffinityAndCgroupFiles()
{
    const char* text = R"(# schedlab-kernel: 6.18.15+deb13-amd64
# schedlab-hz: 123
# schedlab-preempt: rt
# schedlab-task: 101 a /g cpus=1
# schedlab-task: 102 b /g cpus=0-1
# schedlab-task: 103 c /h cpus=1-x
# schedlab-cgroup-files: /g cpu.weight=2000 cpu.max=50000,100000
# schedlab-cgroup-files: /h cpu.weight=0
# tracer: nop
#P:2
  <idle>-0     [001] d..2.   100.000000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=101 next_prio=120
  <idle>-0     [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=102 next_prio=120
       b-102   [000] d..2.   100.001000: sched_switch: prev_comm=b prev_pid=102 prev_prio=120 prev_state=R+ ==> next_comm=c next_pid=103 next_prio=120
       c-103   [000] d..2.   100.002000: sched_switch: prev_comm=c prev_pid=103 prev_prio=120 prev_state=R+ ==> next_comm=b next_pid=102 next_prio=120
)";
    const TraceImport trace = importText(text);
    QVERIFY(trace.ok());
    QCOMPARE(trace.cgroupFiles.size(), size_t{2});
    const ReplayScenario r = deriveScenario(trace);
    // An HZ the kernel cannot have and an unknown preemption model: left unknown.
    QVERIFY(!r.scenario.kernel.hz);
    QVERIFY(!r.scenario.kernel.preempt);
    const auto task = [&](const std::string& name) -> const TaskSpec* {
        for (const TaskSpec& t : r.scenario.tasks)
            if (t.name == name)
                return &t;
        return nullptr;
    };
    QVERIFY(task("a") && task("b") && task("c"));
    QCOMPARE(task("a")->cpus, std::optional<std::string>("1"));
    QVERIFY(!task("b")->cpus); // every CPU of the machine: nothing to pin
    QVERIFY(!task("c")->cpus); // not a cpulist
    const auto group = [&](const std::string& path) -> const CgroupSpec* {
        for (const CgroupSpec& g : r.scenario.cgroups)
            if (g.path == path)
                return &g;
        return nullptr;
    };
    QVERIFY(group("/g") && group("/h"));
    QCOMPARE(group("/g")->files.weight, std::optional<int>(2000));
    QCOMPARE(group("/g")->files.cpuMax, std::optional<CpuMax>(CpuMax{50000, 100000}));
    QVERIFY(!group("/h")->files.weight);
    bool said = false;
    for (const std::string& u : r.unknowns)
        said = said || u.starts_with("cgroup files: 1 of 2 groups");
    QVERIFY(said);
    // The derived scenario loads back with them.
    const LoadResult back = parseScenario(writeScenario(r.scenario), "replay.json");
    QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().c_str());
    QVERIFY(*back.scenario == r.scenario);
}

// The sched features of the run: the header's (set at the start: PLACE_LAG off) become the
// replay's kernel features, the runner's marker at 50 ms (a feature action turning PLACE_LAG
// on) a feature action at 50 ms of the replay (the first event is at 100.000000 s); a malformed
// marker is a warning and changes nothing. The kernel 6.18.15+deb13-amd64 is replayed with the
// point release's profile "6.18.15" (the fix catalogue), not its series' "6.13".
void TestReplay::featuresAndReleaseProfile()
{
    const char* text = R"(# schedlab-kernel: 6.18.15+deb13-amd64
# schedlab-features: PLACE_LAG=0
# schedlab-task: 101 hog /
# tracer: nop
#P:1
  <idle>-0     [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=hog next_pid=101 next_prio=120
schedlab-run-100 [000] .....  100.050000: tracing_mark_write: schedlab-features PLACE_LAG=1
schedlab-run-100 [000] .....  100.060000: tracing_mark_write: schedlab-features PLACE_LAG=yes
     hog-101   [000] d..2.   100.100000: sched_switch: prev_comm=hog prev_pid=101 prev_prio=120 prev_state=R ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";
    const TraceImport trace = importText(text);
    QVERIFY2(trace.ok(), trace.errors.empty() ? "" : trace.errors.front().c_str());
    QCOMPARE(trace.warnings.size(), size_t{1});
    const ReplayScenario r = deriveScenario(trace);
    QCOMPARE(r.scenario.kernel.profile, std::optional<std::string>("6.18.15"));
    QCOMPARE(r.scenario.kernel.features, (std::map<std::string, bool>{{"PLACE_LAG", false}}));
    QCOMPARE(r.scenario.actions.size(), size_t{1});
    QCOMPARE(r.scenario.actions[0].kind, Action::Kind::Feature);
    QCOMPARE(r.scenario.actions[0].at, Nanoseconds(50000000));
    QCOMPARE(r.scenario.actions[0].features, (std::map<std::string, bool>{{"PLACE_LAG", true}}));
}

// The run's own marks (schedlab-run's trace_marker lines): hopper sets its own affinity after
// 10 ms of running (a `cpus` operation at that point of its CPU time), the runner (pid 100)
// moves mover to CPU 1 at 20 ms from outside (a `set` action at 20 ms), and video, a
// SCHED_DEADLINE task whose reservation the header gives, ends a 3 ms job with a marked yield.
// Two CPUs; by hand the programs are hopper [run 10 ms, cpus "1", run forever],
// video [run 3 ms, yield, run forever].
void TestReplay::markedAffinityAndDeadline()
{
    const char* text = R"(# schedlab-kernel: 6.18.15+deb13-amd64
# schedlab-hz: 250
# schedlab-preempt: lazy
# schedlab-task: 101 hopper / cpus=0
# schedlab-task: 102 mover / cpus=0
# schedlab-task: 103 video / cpus=0-1 dl=10000000/30000000/30000000
# tracer: nop
#P:2
  <idle>-0     [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=hopper next_pid=101 next_prio=120
  <idle>-0     [001] d..2.   100.000000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=video next_pid=103 next_prio=-1
   video-103   [001] .....   100.003000: tracing_mark_write: schedlab-yield
   video-103   [001] d..2.   100.003000: sched_switch: prev_comm=video prev_pid=103 prev_prio=-1 prev_state=R ==> next_comm=mover next_pid=102 next_prio=120
  hopper-101   [000] .....   100.010000: tracing_mark_write: schedlab-cpus pid=101 cpus=1
schedlab-run-100 [001] .....  100.020000: tracing_mark_write: schedlab-cpus pid=102 cpus=1
   mover-102   [001] d..2.   100.030000: sched_switch: prev_comm=mover prev_pid=102 prev_prio=120 prev_state=R ==> next_comm=video next_pid=103 next_prio=-1
  hopper-101   [000] d..2.   100.040000: sched_switch: prev_comm=hopper prev_pid=101 prev_prio=120 prev_state=R ==> next_comm=swapper/0 next_pid=0 next_prio=120
)";
    const TraceImport trace = importText(text);
    QVERIFY2(trace.ok(), trace.errors.empty() ? "" : trace.errors.front().c_str());
    QCOMPARE(trace.affinity.size(), size_t{2});
    const ReplayScenario r = deriveScenario(trace);
    // The header's HZ and preemption model.
    QCOMPARE(r.scenario.kernel.hz, std::optional<int>(250));
    QCOMPARE(r.scenario.kernel.preempt, std::optional<Preempt>(Preempt::Lazy));
    const auto task = [&](const std::string& name) -> const TaskSpec* {
        for (const TaskSpec& t : r.scenario.tasks)
            if (t.name == name)
                return &t;
        return nullptr;
    };
    QVERIFY(task("hopper") && task("mover") && task("video"));
    const std::vector<Op>& hopper = task("hopper")->program;
    QVERIFY(hopper.size() >= 3);
    QCOMPARE(hopper[0].kind, Op::Kind::Run);
    QCOMPARE(hopper[0].duration, DurationSpec::fixed(Nanoseconds(10'000'000)));
    QCOMPARE(hopper[1].kind, Op::Kind::Cpus);
    QCOMPARE(hopper[1].name, std::string("1"));
    QCOMPARE(hopper[2].kind, Op::Kind::Run);
    QCOMPARE(r.affinityOps, int64_t{1});
    // mover's change came from outside: an action at 20 ms, not an operation of its own.
    for (const Op& op : task("mover")->program)
        QVERIFY(op.kind != Op::Kind::Cpus);
    QCOMPARE(r.affinityActions, int64_t{1});
    QCOMPARE(r.scenario.actions.size(), size_t{1});
    const Action& act = r.scenario.actions.front();
    QCOMPARE(act.kind, Action::Kind::Set);
    QCOMPARE(act.at, Nanoseconds(20'000'000));
    QCOMPARE(act.set.task, std::optional<std::string>("mover"));
    QCOMPARE(act.set.cpus, std::optional<std::string>("1"));
    // video keeps its reservation and its job's end.
    const TaskSpec& video = *task("video");
    QCOMPARE(video.policy, std::optional<Policy>(Policy::Deadline));
    QVERIFY(video.dl);
    QCOMPARE(video.dl->runtime, int64_t{10'000'000});
    QCOMPARE(video.dl->deadline, int64_t{30'000'000});
    QVERIFY(video.program.size() >= 3);
    QCOMPARE(video.program[0].kind, Op::Kind::Run);
    QCOMPARE(video.program[0].duration, DurationSpec::fixed(Nanoseconds(3'000'000)));
    QCOMPARE(video.program[1].kind, Op::Kind::Yield);
    // The derived scenario loads back as it is.
    const LoadResult back = parseScenario(writeScenario(r.scenario), "replay.json");
    QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().c_str());
    QVERIFY(*back.scenario == r.scenario);
}

// The end of the trace (2 CPUs, 10 ms): t-30 runs [0, 2) ms, sleeps until a timer wakes it at 6,
// runs [6, 7), is preempted by h-31 on CPU 0 and waits until the end at 10: runnable for only the
// last 4 ms (less than half the trace), so its program is what it did, run 2ms, sleep 4ms, run
// 1ms, then a sleep past the end (10 ms), never a run forever. h-31 runs [7, 10), runnable from
// the start as far as the trace shows; spin-32 runs on CPU 1 for the whole trace; late-33, asleep
// before the trace, is woken on CPU 1 at 1 ms and waits from then on (runnable for 9 of the 10
// ms): all three CPU-bound, all three run forever (late-33 after its sleep of 1 ms).
void TestReplay::runnableAtTheEnd()
{
    const char* text = R"(# tracer: nop
#P:2
  <idle>-0     [000] d..2.   100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t next_pid=30 next_prio=120
  <idle>-0     [001] d..2.   100.000000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=spin next_pid=32 next_prio=120
  <idle>-0     [001] d.h2.   100.001000: sched_wakeup: comm=late pid=33 prio=120 target_cpu=001
       t-30    [000] d..2.   100.002000: sched_switch: prev_comm=t prev_pid=30 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
  <idle>-0     [000] d.h2.   100.006000: sched_wakeup: comm=t pid=30 prio=120 target_cpu=000
  <idle>-0     [000] d..2.   100.006000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t next_pid=30 next_prio=120
       t-30    [000] d..2.   100.007000: sched_switch: prev_comm=t prev_pid=30 prev_prio=120 prev_state=R ==> next_comm=h next_pid=31 next_prio=120
       h-31    [000] d..2.   100.010000: sched_switch: prev_comm=h prev_pid=31 prev_prio=120 prev_state=R ==> next_comm=h next_pid=31 next_prio=120
)";
    const TraceImport trace = importText(text);
    QVERIFY2(trace.ok(), trace.errors.empty() ? "" : trace.errors.front().c_str());
    const ReplayScenario r = deriveScenario(trace);
    QCOMPARE(r.scenario.duration->count(), 10 * kMs);
    const TaskSpec* t = findSpec(r.scenario, "t-30");
    const TaskSpec* h = findSpec(r.scenario, "h-31");
    const TaskSpec* spin = findSpec(r.scenario, "spin-32");
    QVERIFY(t && h && spin);
    QCOMPARE_PROGRAM(describe(t->program),
        describe({run(2 * kMs), sleep(4 * kMs), run(1 * kMs), sleep(10 * kMs)}));
    Op endless = run(0);
    endless.duration = DurationSpec::forEver();
    QCOMPARE_PROGRAM(describe(h->program), describe({endless}));
    QCOMPARE_PROGRAM(describe(spin->program), describe({endless}));
    const TaskSpec* late = findSpec(r.scenario, "late-33");
    QVERIFY(late);
    QCOMPARE_PROGRAM(describe(late->program), describe({sleep(1 * kMs), endless}));
}

QTEST_GUILESS_MAIN(TestReplay)
#include "tst_replay.moc"
