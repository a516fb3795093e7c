// SPDX-License-Identifier: GPL-2.0-or-later
// sched_yield() rules (kernel-model.md §7.4) by hand on two tasks, and core scheduling (§11):
// siblings never run two cookies at once, forced idle is accounted, cookies follow prctl
// semantics, the Sieber reproduction (S7) and determinism.
#include "core/record/metrics.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/simlookup.h"

#include <QTest>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

using namespace schedlab;

namespace {

constexpr qint64 kMs = 1000000;
constexpr qint64 kUs = 1000;

std::optional<Scenario> load(const QByteArray& json)
{
    return test::loadScenario(json.toStdString(), "tst_coresched");
}

RunOptions options(const std::string& profile, const std::string& yield = {})
{
    RunOptions o;
    o.profile = profile;
    if (!yield.empty())
        o.overrides.emplace_back("yield", yield);
    return o;
}

const TaskMetrics* taskMetrics(const Metrics& m, const std::string& name)
{
    for (const TaskMetrics& t : m.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}
const TaskMetrics* taskMetrics(Metrics&& m, const std::string& name) = delete;

QString violations(const Simulation& sim)
{
    QStringList out;
    for (const std::string& v : sim.invariantViolations())
        out.append(QString::fromStdString(v));
    return out.join('\n');
}

using test::taskView;

/// Cookies of the running tasks of core @p core (threads_per_core @p tpc) differ.
bool siblingsMixCookies(const std::vector<TaskView>& tasks, int core, int tpc)
{
    std::set<uint64_t> cookies;
    for (const TaskView& t : tasks)
        if (t.state == TaskState::Running && t.cpu / tpc == core)
            cookies.insert(t.cookie);
    return cookies.size() > 1;
}

} // namespace

class TestCoreSched : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void yieldRuleByHand_data();
    void yieldRuleByHand();
    void siblingsNeverMixCookies_data();
    void siblingsNeverMixCookies();
    void forcedIdleAccounted();
    void noCookieNoForcedIdle();
    void cookieOperations();
    void sieberReproduction();
    void determinism();
    void rtTasksAreCoreScheduled();
    void kernelSectionDelaysTheSwitch();
    void rtBalanceSeesQueuedRtTasks();
};

// --- §7.4 by hand -------------------------------------------------------------------------------

// Profile 7.1, one CPU, HZ 1000: base slice 0.7 ms (factor 1), nice 0 so vslice = slice and
// virtual time = real time. PLACE_DEADLINE_INITIAL gives a new task d = v + 0.35 ms.
//
// "eligible": hog starts first and runs to the first tick (v = 1 ms, deadline renewed to
//   1.7 ms); the yielder, placed at V = 0 with d = 0.35 ms, then runs 100 µs and yields at
//   1.1 ms with v = 0.1 ms, V = (1 + 0.1)/2 = 0.55 ms: eligible.
// "ineligible": the yielder starts first, runs 100 µs and yields with v = 0.1 ms while the hog
//   waits at v = 0 (d = 0.35 ms): V = 0.05 ms, the yielder is ineligible.
//
//                         eligible (v, d)         ineligible (v, d)
// deadline_bump  d += r   0.1,  0.35+0.7=1.05     0.1,  1.05
// forfeit_always v=d;d+=r 0.35, 1.05              0.35, 1.05
// forfeit_eligible        0.35, 1.05              0.1,  0.35 (nothing happens)
// deadline_clamp d=v+r    0.1,  0.8               0.1,  0.8
void TestCoreSched::yieldRuleByHand_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<bool>("eligible");
    QTest::addColumn<qint64>("vruntime");
    QTest::addColumn<qint64>("deadline");
    QTest::addColumn<QString>("next");
    // After the yield: eligible case, the yielder is still the only eligible task in every rule
    // (hog v = 1 ms > V); ineligible case, the hog (v = 0 ≤ V) runs.
    QTest::addRow("deadline_bump eligible")
        << "deadline_bump" << true << 100 * kUs << 1050 * kUs << "yielder";
    QTest::addRow("forfeit_always eligible")
        << "forfeit_always" << true << 350 * kUs << 1050 * kUs << "yielder";
    QTest::addRow("forfeit_eligible eligible")
        << "forfeit_eligible" << true << 350 * kUs << 1050 * kUs << "yielder";
    QTest::addRow("deadline_clamp eligible")
        << "deadline_clamp" << true << 100 * kUs << 800 * kUs << "yielder";
    QTest::addRow("deadline_bump ineligible")
        << "deadline_bump" << false << 100 * kUs << 1050 * kUs << "hog";
    QTest::addRow("forfeit_always ineligible")
        << "forfeit_always" << false << 350 * kUs << 1050 * kUs << "hog";
    QTest::addRow("forfeit_eligible ineligible")
        << "forfeit_eligible" << false << 100 * kUs << 350 * kUs << "hog";
    QTest::addRow("deadline_clamp ineligible")
        << "deadline_clamp" << false << 100 * kUs << 800 * kUs << "hog";
}

void TestCoreSched::yieldRuleByHand()
{
    QFETCH(QString, rule);
    QFETCH(bool, eligible);
    QFETCH(qint64, vruntime);
    QFETCH(qint64, deadline);
    QFETCH(QString, next);

    const QByteArray hog = R"({ "name": "hog", "program": [ { "run": "forever" } ] })";
    const QByteArray yielder = R"({ "name": "yielder", "program": [ { "run": "100us" },
        { "yield": true }, { "run": "forever" } ] })";
    const QByteArray json = R"({ "schedlab": 1, "name": "y", "duration": "20ms",
        "kernel": { "hz": 1000 }, "machine": { "cpus": 1 }, "tasks": [ )"
        + (eligible ? hog + ", " + yielder : yielder + ", " + hog) + "] }";
    const auto s = load(json);
    QVERIFY(s);
    Simulation sim(*s, options("7.1", rule.toStdString()));
    const int64_t yieldAt = eligible ? 1100 * kUs : 100 * kUs;
    sim.runUntil(Nanoseconds(yieldAt));
    const auto y = taskView(sim, "yielder");
    QVERIFY(y);
    QCOMPARE(qint64(y->vruntime), vruntime);
    QCOMPARE(qint64(y->deadline), deadline);
    const auto n = taskView(sim, next.toStdString());
    QVERIFY(n);
    QCOMPARE(int(n->state), int(TaskState::Running));
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// --- §11 core-wide pick
// ---------------------------------------------------------------------------

void TestCoreSched::siblingsNeverMixCookies_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<int>("hz");
    QTest::addRow("6.13 HZ=250") << "6.13" << 250;
    QTest::addRow("7.1 HZ=1000") << "7.1" << 1000;
    QTest::addRow("6.6 HZ=300") << "6.6" << 300;
}

void TestCoreSched::siblingsNeverMixCookies()
{
    QFETCH(QString, profile);
    QFETCH(int, hz);
    // Two SMT pairs; two cookies, untagged tasks, a cgroup (cfs_prio_less walks the hierarchy),
    // sleepers (enqueue/dequeue churn), a task that creates its own cookie and yields.
    const QByteArray json = R"({ "schedlab": 1, "name": "mix", "duration": "300ms", "seed": 3,
      "kernel": { "hz": )"
        + QByteArray::number(hz) + R"( }, "machine": { "cpus": 4, "threads_per_core": 2 },
      "cgroups": [ { "path": "/g", "cpu.weight": 300 } ],
      "tasks": [
        { "name": "a", "count": 3, "cookie": 1, "program": [ { "loop": [
            { "run": { "uniform": ["100us", "3ms"] } }, { "sleep": { "uniform": ["100us", "2ms"] } } ] } ] },
        { "name": "b", "count": 3, "cookie": 2, "cgroup": "/g", "nice": 3,
          "program": [ { "run": "forever" } ] },
        { "name": "u", "count": 2, "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "1ms" } ] } ] },
        { "name": "c", "program": [ { "cookie": "create" },
            { "loop": [ { "run": "2ms" }, { "yield": true } ] } ] } ] })";
    const auto s = load(json);
    QVERIFY(s);
    Simulation sim(*s, options(profile.toStdString()));
    int both = 0; // steps at which both siblings of a core run
    std::set<uint64_t> ranWithSibling;
    while (sim.step()) {
        const auto tasks = sim.tasks();
        for (int core = 0; core < 2; ++core) {
            QVERIFY2(!siblingsMixCookies(tasks, core, 2),
                qPrintable(QStringLiteral("t=%1 core %2").arg(sim.now().count()).arg(core)));
            int running = 0;
            uint64_t cookie = 0;
            for (const TaskView& t : tasks)
                if (t.state == TaskState::Running && t.cpu / 2 == core) {
                    ++running;
                    cookie = t.cookie;
                }
            if (running == 2) {
                ++both;
                ranWithSibling.insert(cookie);
            }
        }
    }
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
    QVERIFY(both > 100);
    QVERIFY(ranWithSibling.count(1) && ranWithSibling.count(2));
    const Metrics m = sim.metrics();
    int64_t forcedIdle = 0;
    for (const CpuMetrics& c : m.cpus)
        forcedIdle += c.forcedIdleNs;
    QVERIFY(forcedIdle > 0);
    for (const char* name : {"a-1", "b-1", "u-1", "c"}) {
        const TaskMetrics* t = taskMetrics(m, name);
        QVERIFY(t && t->cpuTimeNs > 5 * kMs);
    }
}

// Two always-runnable tasks with different cookies, one pinned to each SMT sibling: at every
// instant exactly one runs and the other sibling is forced idle. So, exactly,
// busy0 + busy1 = T, forced_idle0 = busy1 and forced_idle1 = busy0. cfs_prio_less() with the
// frozen forced-idle snapshots keeps their vruntimes level: about half each.
void TestCoreSched::forcedIdleAccounted()
{
    const auto s = load(R"({ "schedlab": 1, "name": "fi", "duration": "1s",
      "kernel": { "hz": 1000 }, "machine": { "cpus": 2, "threads_per_core": 2 },
      "tasks": [
        { "name": "a", "cpus": "0", "cookie": 1, "program": [ { "run": "forever" } ] },
        { "name": "b", "cpus": "1", "cookie": 2, "program": [ { "run": "forever" } ] } ] })");
    QVERIFY(s);
    Simulation sim(*s, options("7.1"));
    sim.run();
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
    const Metrics m = sim.metrics();
    QCOMPARE(m.cpus.size(), size_t(2));
    const int64_t total = 1000 * kMs;
    QCOMPARE(m.cpus[0].busyNs + m.cpus[1].busyNs, total);
    QCOMPARE(m.cpus[0].forcedIdleNs, m.cpus[1].busyNs);
    QCOMPARE(m.cpus[1].forcedIdleNs, m.cpus[0].busyNs);
    const TaskMetrics* a = taskMetrics(m, "a");
    const TaskMetrics* b = taskMetrics(m, "b");
    QVERIFY(a && b);
    QCOMPARE(a->cpuTimeNs, m.cpus[0].busyNs);
    QVERIFY2(std::abs(a->share - 0.5) < 0.02, qPrintable(QString::number(a->share)));
    // task_tick_core(): a lone task yields its CPU once it ran half its 1.4 ms slice (2 CPUs:
    // factor 2), i.e. at the next 1 ms tick, so neither waits long.
    QVERIFY2(a->waitMaxNs <= 3 * kMs, qPrintable(QString::number(a->waitMaxNs)));
    QVERIFY2(b->waitMaxNs <= 3 * kMs, qPrintable(QString::number(b->waitMaxNs)));
}

void TestCoreSched::noCookieNoForcedIdle()
{
    // The same machine with equal cookies, and without cookies: both run all the time.
    for (const char* cookies : {R"("cookie": 5,)", ""}) {
        const QByteArray json = QByteArray(R"({ "schedlab": 1, "name": "fi", "duration": "200ms",
          "machine": { "cpus": 2, "threads_per_core": 2 }, "tasks": [
            { "name": "a", "cpus": "0", )")
            + cookies + R"( "program": [ { "run": "forever" } ] },
            { "name": "b", "cpus": "1", )"
            + cookies + R"( "program": [ { "run": "forever" } ] } ] })";
        const auto s = load(json);
        QVERIFY(s);
        Simulation sim(*s, options("7.1"));
        sim.run();
        const Metrics m = sim.metrics();
        for (const CpuMetrics& c : m.cpus) {
            QCOMPARE(c.busyNs, 200 * kMs);
            QCOMPARE(c.forcedIdleNs, int64_t{0});
        }
    }
}

void TestCoreSched::cookieOperations()
{
    // prctl semantics: "create" gives a new cookie, a fork inherits it, share_to pushes it to
    // another task, share_from pulls one. p (creates) forks p.1; q shares from p; r gets p's
    // cookie pushed by p; s keeps its file cookie 7; t is untagged.
    const auto s = load(R"({ "schedlab": 1, "name": "ops", "duration": "10ms",
      "machine": { "cpus": 4, "threads_per_core": 2 },
      "tasks": [
        { "name": "p", "program": [ { "cookie": "create" },
            { "fork": { "program": [ { "run": "forever" } ] } },
            { "sleep": "1ms" }, { "cookie": { "share_to": "r" } }, { "run": "forever" } ] },
        { "name": "q", "program": [ { "sleep": "2ms" }, { "cookie": { "share_from": "p" } },
            { "run": "forever" } ] },
        { "name": "r", "cookie": 3, "program": [ { "run": "forever" } ] },
        { "name": "s", "cookie": 7, "program": [ { "cookie": { "share_to": "nobody" } },
            { "run": "forever" } ] },
        { "name": "t", "program": [ { "run": "forever" } ] } ] })");
    QVERIFY(s);
    Simulation sim(*s, options("7.1"));
    sim.runUntil(Nanoseconds(500 * kUs));
    auto cookie = [&](const char* name) { return taskView(sim, name).value_or(TaskView{}).cookie; };
    const uint64_t created = cookie("p");
    QVERIFY(created != 0);
    QVERIFY(created != 3 && created != 7);
    QCOMPARE(cookie("p.1"), created);
    QCOMPARE(cookie("q"), uint64_t{0});
    QCOMPARE(cookie("r"), uint64_t{3});
    QCOMPARE(cookie("s"), uint64_t{7});
    sim.run();
    QCOMPARE(cookie("r"), created);
    QCOMPARE(cookie("q"), created);
    QCOMPARE(cookie("t"), uint64_t{0});
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
}

// --- S7: Sieber's core-scheduling yield test ----------------------------------------------------

namespace {

/// Longest wait of the yield_loop program's tasks and of busy_loop's.
std::pair<int64_t, int64_t> maxDelays(const Metrics& m)
{
    int64_t y = 0;
    int64_t b = 0;
    for (const TaskMetrics& t : m.tasks) {
        int64_t& slot = t.name.rfind("yield_loop", 0) == 0 ? y : b;
        slot = std::max(slot, t.waitMaxNs);
    }
    return {y, b};
}

Metrics runShipped(const std::string& yield, std::optional<Nanoseconds> duration = {})
{
    LoadResult r = loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/core-sched-yield.json");
    if (!r.scenario)
        return {};
    RunOptions o = options("7.1", yield);
    o.recordSamples = false;
    o.recordEvents = false;
    o.duration = duration;
    Simulation sim(*r.scenario, o);
    sim.run();
    return sim.metrics();
}

} // namespace

void TestCoreSched::sieberReproduction()
{
    const Metrics forfeit = runShipped("forfeit_always");
    const Metrics clamp = runShipped("deadline_clamp");
    const Metrics eligible = runShipped("forfeit_eligible");
    QCOMPARE(forfeit.tasks.size(), size_t(4));
    const auto [fy, fb] = maxDelays(forfeit);
    const auto [cy, cb] = maxDelays(clamp);
    const auto [ey, eb] = maxDelays(eligible);
    const QString figures = QStringLiteral("forfeit %1/%2 clamp %3/%4 eligible %5/%6 ms")
                                .arg(fy / kMs)
                                .arg(fb / kMs)
                                .arg(cy / kMs)
                                .arg(cb / kMs)
                                .arg(ey / kMs)
                                .arg(eb / kMs);
    // The issue's criterion: forfeit-always delays at least ten times the deadline clamp's.
    QVERIFY2(std::max(fy, fb) >= 10 * std::max(cy, cb), qPrintable(figures));
    // Sieber: 273/552 ms against 4/8 ms. The runaway gives delays of hundreds of ms; the clamp
    // and 6.19's rule keep every delay within a few ticks.
    QVERIFY2(std::max(fy, fb) >= 100 * kMs, qPrintable(figures));
    QVERIFY2(std::max(cy, cb) <= 10 * kMs, qPrintable(figures));
    QVERIFY2(std::max(ey, eb) <= 10 * kMs, qPrintable(figures));
    // Only the cookie-sharing pairs ever run together: the pair's CPUs are busy all the time
    // after the start. At the start fork balancing keeps busy_loop.1 on its parent's CPU 0 (the
    // forced-idle CPU 1 still has a task queued, so neither SMT group has an idle CPU,
    // kernel-model.md §8.2), and CPU 1 is forced idle from 1 us until core scheduling steals
    // busy_loop at the next core-wide pick, 3 ms in: at most 2 ms of idle.
    for (const CpuMetrics& c : clamp.cpus)
        if (c.cpu < 2)
            QVERIFY2(c.busyNs >= clamp.durationNs - 2 * kMs && c.busyNs <= clamp.durationNs,
                qPrintable(QString::number(c.busyNs)));
}

void TestCoreSched::determinism()
{
    auto once = [] {
        LoadResult r = loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/core-sched-yield.json");
        RunOptions o = options("7.1", "forfeit_always");
        o.duration = Nanoseconds(1500 * kMs);
        auto sim = std::make_unique<Simulation>(*r.scenario, o);
        sim->run();
        return sim;
    };
    const auto a = once();
    const auto b = once();
    const auto& ra = a->recording().records();
    const auto& rb = b->recording().records();
    QVERIFY(ra.size() > 1000);
    QCOMPARE(ra.size(), rb.size());
    QVERIFY(std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(Record)) == 0);
    QCOMPARE(metricsToJson(a->metrics()), metricsToJson(b->metrics()));
}

// The kernel applies core scheduling to every class: an untagged SCHED_FIFO task and a cookie-2
// fair task pinned to the two siblings of one core never run at once. The RT task outranks the
// fair one in prio_less() (__task_prio 49 < 119), so whenever it is runnable the core-wide pick
// is the RT task and the fair sibling is forced idle: with the FIFO task running 1 ms of every
// 2 ms, exactly, forced_idle(cpu 1) = busy(cpu 0) and busy(cpu 0) + busy(cpu 1) = T.
void TestCoreSched::rtTasksAreCoreScheduled()
{
    const auto s = load(R"({ "schedlab": 1, "name": "rt-core", "duration": "200ms",
      "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 2, "threads_per_core": 2 },
      "tasks": [
        { "name": "fifo", "cpus": "0", "policy": "fifo", "rt_priority": 50,
          "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "1ms" } ] } ] },
        { "name": "tagged", "cpus": "1", "cookie": 2, "program": [ { "run": "forever" } ] } ] })");
    QVERIFY(s);
    Simulation sim(*s, options("7.1"));
    bool fifoAlone = false;
    while (sim.step()) {
        const auto tasks = sim.tasks();
        QVERIFY2(!siblingsMixCookies(tasks, 0, 2),
            qPrintable(QStringLiteral("t=%1").arg(sim.now().count())));
        const auto fifo = taskView(sim, "fifo");
        const auto tagged = taskView(sim, "tagged");
        QVERIFY(fifo && tagged);
        fifoAlone |= fifo->state == TaskState::Running && tagged->state != TaskState::Running;
    }
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
    QVERIFY(fifoAlone);
    const Metrics m = sim.metrics();
    const int64_t total = 200 * kMs;
    QCOMPARE(m.cpus[0].busyNs + m.cpus[1].busyNs, total);
    QCOMPARE(m.cpus[1].forcedIdleNs, m.cpus[0].busyNs);
    const TaskMetrics* fifo = taskMetrics(m, "fifo");
    QVERIFY(fifo);
    // The FIFO task never waits for the fair one: 100 periods of 1 ms run.
    QCOMPARE(fifo->cpuTimeNs, 100 * kMs);
}

// Under preempt=none a sibling told to reschedule (the core-wide pick's IPI) while in a kernel
// section keeps running its task until the section ends: kernel mode is not protected by core
// scheduling. The siblings then run two cookies for at most the section's length (300 us), and
// the invariant check accepts exactly that.
void TestCoreSched::kernelSectionDelaysTheSwitch()
{
    const auto s = load(R"({ "schedlab": 1, "name": "kernel-core", "duration": "100ms",
      "kernel": { "profile": "7.1", "hz": 1000, "preempt": "none" },
      "machine": { "cpus": 2, "threads_per_core": 2 },
      "tasks": [
        { "name": "sys", "cpus": "1",
          "program": [ { "loop": [ { "kernel": [ { "run": "300us" } ] }, { "run": "50us" } ] } ] },
        { "name": "tagged", "cpus": "0", "cookie": 1,
          "program": [ { "loop": [ { "run": "200us" }, { "sleep": "700us" } ] } ] } ] })");
    QVERIFY(s);
    Simulation sim(*s, options("7.1"));
    int64_t mixedSince = -1;
    int64_t longestMix = 0;
    while (sim.step()) {
        const bool mixed = siblingsMixCookies(sim.tasks(), 0, 2);
        if (mixed && mixedSince < 0)
            mixedSince = sim.now().count();
        if (!mixed && mixedSince >= 0) {
            longestMix = std::max<int64_t>(longestMix, sim.now().count() - mixedSince);
            mixedSince = -1;
        }
    }
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
    QVERIFY(longestMix > 0);          // the kernel's gap is modelled, not hidden
    QVERIFY2(longestMix <= 300 * kUs, // and it lasts no longer than one kernel section
        qPrintable(QString::number(longestMix)));
}

// cpupri follows the highest queued RT priority, not what a CPU runs. A CPU kept idle by core
// scheduling while an RT task of another cookie is queued on it is no push target and does not
// pull: otherwise the RT balance and the core-wide pick move a waiting task between the siblings
// for ever at one instant (found by fuzzing: a run that never advanced past 97 us).
void TestCoreSched::rtBalanceSeesQueuedRtTasks()
{
    const auto s = load(R"({ "schedlab": 1, "name": "rt-cookies", "duration": "20ms",
      "kernel": { "profile": "6.12", "hz": 1000 }, "machine": { "cpus": 2, "threads_per_core": 2 },
      "tasks": [
        { "name": "a", "policy": "fifo", "rt_priority": 12, "cookie": 1,
          "program": [ { "loop": [ { "run": "300us" }, { "sleep": "100us" } ] } ] },
        { "name": "b", "policy": "fifo", "rt_priority": 12, "cookie": 2, "count": 2,
          "program": [ { "loop": [ { "run": "200us" }, { "sleep": "50us" } ] } ] } ] })");
    QVERIFY(s);
    Simulation sim(*s, options("6.12"));
    while (sim.step())
        QVERIFY2(!siblingsMixCookies(sim.tasks(), 0, 2),
            qPrintable(QStringLiteral("t=%1").arg(sim.now().count())));
    QVERIFY2(sim.stopReason().empty(), sim.stopReason().c_str());
    QCOMPARE(sim.now(), Nanoseconds(20 * kMs));
    QVERIFY2(sim.invariantViolations().empty(), qPrintable(violations(sim)));
    const Metrics m = sim.metrics();
    int64_t migrations = 0;
    int64_t cpu = 0;
    for (const TaskMetrics& t : m.tasks) {
        migrations += t.migrations;
        cpu += t.cpuTimeNs;
    }
    // At most one migration per wake-up or so (each task wakes < 100 times in 20 ms), never a
    // storm; and the core is busy: one of the cookies always has a runnable task.
    QVERIFY2(migrations < 300, qPrintable(QString::number(migrations)));
    QVERIFY2(cpu > 20 * kMs, qPrintable(QString::number(cpu)));
}

QTEST_APPLESS_MAIN(TestCoreSched)
#include "tst_coresched.moc"
