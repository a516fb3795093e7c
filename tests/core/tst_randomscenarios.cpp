// SPDX-License-Identifier: GPL-2.0-or-later
// Properties over random valid scenarios (tests/support/scenariogen.h): each one loads, survives
// save -> load -> save unchanged, runs without an invariant violation (checked builds), runs
// byte-identically twice (the second run frees its forked tasks at exit, as schedlab-cli run
// does: Simulation::releaseExitedTasks), and a third run that folds them gives the run summary's
// folded lines unchanged; it loses no task, and its CPU time adds up. The number of scenarios comes
// from SCHEDLAB_RANDOM_SCENARIOS (default kDefaultCount), the first seed from
// SCHEDLAB_RANDOM_SEED (default 1); nothing depends on the machine's speed.
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "support/scenariogen.h"

#include <QTest>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

using namespace schedlab;

namespace {

constexpr int kDefaultCount = 2000;

uint64_t envNumber(const char* name, uint64_t fallback)
{
    bool ok = false;
    const qulonglong value = qEnvironmentVariable(name).toULongLong(&ok);
    return ok ? value : fallback;
}

const char* taskStateName(TaskState state)
{
    switch (state) {
    case TaskState::NotStarted:
        return "not started";
    case TaskState::Runnable:
        return "runnable";
    case TaskState::Running:
        return "running";
    case TaskState::Sleeping:
        return "sleeping";
    case TaskState::Blocked:
        return "blocked";
    case TaskState::Exited:
        return "exited";
    }
    return "?";
}

/// What the recording says about a run: per-CPU busy time and per-task CPU time from the switch
/// records, the tasks spawned and exited.
struct Replay
{
    std::vector<int64_t> busy;       ///< per CPU: time with a task switched in
    std::vector<int> curr;           ///< per CPU: task index switched in last, -1 idle
    std::map<int, int64_t> taskTime; ///< task index -> time switched in on any CPU
    std::map<int, int> spawned;      ///< task index -> Spawn records
    std::map<int, int> exited;       ///< task index -> Exit records
    std::string error;               ///< first inconsistency
};

Replay replay(const Recording& rec, int cpus, int64_t now)
{
    Replay r;
    r.busy.assign(static_cast<size_t>(cpus), 0);
    r.curr.assign(static_cast<size_t>(cpus), -1);
    std::vector<int64_t> since(static_cast<size_t>(cpus), 0);
    int64_t last = 0;
    for (const Record& record : rec.records()) {
        if (record.time < last && r.error.empty())
            r.error = "time goes backwards at " + formatRecord(record, rec);
        last = record.time;
        if (record.time > now && r.error.empty())
            r.error = "record after the end of the run: " + formatRecord(record, rec);
        if (record.kind == RecordKind::Spawn && record.entity.isTask())
            ++r.spawned[record.entity.raw];
        if (record.kind == RecordKind::Exit && record.entity.isTask())
            ++r.exited[record.entity.raw];
        if (record.kind != RecordKind::Switch)
            continue;
        const auto cpu = static_cast<size_t>(record.cpu);
        if (cpu >= r.curr.size()) {
            r.error = "switch on a CPU that does not exist: " + formatRecord(record, rec);
            continue;
        }
        const int prev = record.entity.isTask() ? record.entity.raw : -1;
        if (prev != r.curr[cpu] && r.error.empty())
            r.error = "switch away from a task that was not running: " + formatRecord(record, rec);
        if (r.curr[cpu] >= 0) {
            r.busy[cpu] += record.time - since[cpu];
            r.taskTime[r.curr[cpu]] += record.time - since[cpu];
        }
        r.curr[cpu] = static_cast<int>(record.payload.generic.a);
        since[cpu] = record.time;
    }
    for (size_t cpu = 0; cpu < r.curr.size(); ++cpu)
        if (r.curr[cpu] >= 0) {
            r.busy[cpu] += now - since[cpu];
            r.taskTime[r.curr[cpu]] += now - since[cpu];
        }
    return r;
}

/// What the run summary shows of the forked tasks of each fork root: how many, their CPU time,
/// worst wait, switches and share (summed in row order, as the summary does; a folded row,
/// TaskMetrics::folded, counts for its tasks).
using ForkLine = std::tuple<int64_t, int64_t, int64_t, int64_t, double>;
std::map<std::string, ForkLine> forkLines(const Metrics& m)
{
    std::set<std::string> listed;
    for (const TaskMetrics& t : m.tasks)
        if (!t.forked)
            listed.insert(t.name);
    std::map<std::string, ForkLine> lines;
    for (const TaskMetrics& t : m.tasks) {
        if (!t.forked)
            continue;
        auto& [count, cpu, waitMax, switches, share] =
            lines[t.folded ? t.name : forkRoot(t.name, listed)];
        count += t.folded ? t.folded : 1;
        cpu += t.cpuTimeNs;
        waitMax = std::max(waitMax, t.waitMaxNs);
        switches += t.switches;
        share += t.share;
    }
    return lines;
}

/// Checks one scenario; returns the first property that fails, or an empty string.
std::string check(uint64_t seed, std::string* text)
{
    const Scenario generated = test::randomScenario(seed);
    *text = writeScenario(generated);
    const LoadResult loaded = parseScenario(*text, "random.json");
    if (!loaded.ok())
        return "the generated scenario does not load: " + loaded.errors.front();
    if (!(*loaded.scenario == generated))
        return "the scenario loads as a different one";
    if (writeScenario(*loaded.scenario) != *text)
        return "save -> load -> save changes the text";

    std::unique_ptr<Simulation> runs[3];
    for (size_t i = 0; i < 3; ++i) {
        runs[i] = std::make_unique<Simulation>(*loaded.scenario);
        if (i > 0)
            runs[i]->releaseExitedTasks(i == 2);
        runs[i]->run();
    }
    const Simulation& sim = *runs[0];
    if (!sim.invariantViolations().empty())
        return "invariant: " + sim.invariantViolations().front();
    if (!sim.stopReason().empty())
        return "the run stopped early: " + sim.stopReason();
    if (!sim.finished() || sim.now() > sim.endTime())
        return "the run did not end at its end time";

    // Determinism: the same records and metrics, byte for byte.
    const Recording& a = sim.recording();
    const Recording& b = runs[1]->recording();
    if (a.size() != b.size())
        return "two runs recorded " + std::to_string(a.size()) + " and " + std::to_string(b.size())
            + " events";
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string left = formatRecord(a.records()[i], a);
        const std::string right = formatRecord(b.records()[i], b);
        if (left != right)
            return "two runs differ at record " + std::to_string(i) + ": " + left + " / " + right;
    }
    const Metrics metrics = sim.metrics();
    if (metricsToJson(metrics) != metricsToJson(runs[1]->metrics()))
        return "two runs give different metrics (the second frees exited tasks)";
    const Metrics folded = runs[2]->metrics();
    if (runs[2]->recording().size() != a.size() || folded.run.events != metrics.run.events)
        return "a run that folds exited tasks runs differently";
    if (forkLines(folded) != forkLines(metrics))
        return "folding exited tasks changes the summary's fork lines";
    auto withoutForked = [](Metrics m) {
        std::erase_if(m.tasks, [](const TaskMetrics& t) { return t.forked; });
        return metricsToJson(m);
    };
    if (withoutForked(folded) != withoutForked(metrics))
        return "folding exited tasks changes the other metrics";

    // CPU time adds up: per CPU, the busy time of the metrics is the time some task was switched
    // in, and busy + idle is the elapsed time; a task's CPU time is at most its switched-in time.
    const int64_t now = sim.now().count();
    const Replay r = replay(a, sim.cpuCount(), now);
    if (!r.error.empty())
        return r.error;
    if (metrics.cpus.size() != static_cast<size_t>(sim.cpuCount()))
        return "metrics list " + std::to_string(metrics.cpus.size()) + " CPUs";
    int64_t busyTotal = 0;
    for (const CpuMetrics& cpu : metrics.cpus) {
        const int64_t idle = now - cpu.busyNs;
        if (cpu.busyNs < 0 || idle < 0 || cpu.busyNs + idle != now)
            return "cpu" + std::to_string(cpu.cpu) + " busy " + std::to_string(cpu.busyNs)
                + " ns in a run of " + std::to_string(now) + " ns";
        if (cpu.busyNs != r.busy[static_cast<size_t>(cpu.cpu)])
            return "cpu" + std::to_string(cpu.cpu) + " busy " + std::to_string(cpu.busyNs)
                + " ns, switch records say " + std::to_string(r.busy[static_cast<size_t>(cpu.cpu)]);
        busyTotal += cpu.busyNs;
    }
    int64_t taskTotal = 0;
    const std::vector<TaskView> tasks = sim.tasks();
    if (tasks.size() != metrics.tasks.size() || tasks.size() != a.taskNames.size())
        return "tasks: " + std::to_string(tasks.size()) + " views, "
            + std::to_string(metrics.tasks.size()) + " in the metrics, "
            + std::to_string(a.taskNames.size()) + " recorded names";
    for (size_t i = 0; i < tasks.size(); ++i) {
        const TaskView& t = tasks[i];
        const TaskMetrics& m = metrics.tasks[i];
        const auto switchedIn = r.taskTime.contains(t.index) ? r.taskTime.at(t.index) : 0;
        if (m.cpuTimeNs < 0 || m.cpuTimeNs > switchedIn)
            return "task " + t.name + ": cpu time " + std::to_string(m.cpuTimeNs)
                + " ns, switched in for " + std::to_string(switchedIn) + " ns";
        taskTotal += m.cpuTimeNs;

        // No task lost: a task is running exactly where the records switched it in, every
        // started task was spawned once, an exited one exited once and no other did.
        const bool running = t.state == TaskState::Running;
        const bool currSomewhere = std::count(r.curr.begin(), r.curr.end(), t.index) > 0;
        if (running != currSomewhere || (running && r.curr[static_cast<size_t>(t.cpu)] != t.index))
            return "task " + t.name + " is " + taskStateName(t.state) + " on cpu"
                + std::to_string(t.cpu) + " but the records "
                + (currSomewhere ? "have it running" : "do not have it running");
        const int spawns = r.spawned.contains(t.index) ? r.spawned.at(t.index) : 0;
        const int exits = r.exited.contains(t.index) ? r.exited.at(t.index) : 0;
        // (A task killed before its start exits without having been spawned.)
        const bool alive = t.state != TaskState::NotStarted && t.state != TaskState::Exited;
        const bool consistent = spawns <= 1
            && (t.state != TaskState::NotStarted || (spawns == 0 && exits == 0))
            && (!alive || (spawns == 1 && exits == 0))
            && (t.state != TaskState::Exited || exits == 1);
        if (!consistent)
            return "task " + t.name + " is " + taskStateName(t.state) + " after "
                + std::to_string(spawns) + " spawn and " + std::to_string(exits) + " exit records";
        if (t.state == TaskState::Exited && !m.exitedAtNs)
            return "task " + t.name + " exited without an exit time";
    }
    if (taskTotal > busyTotal)
        return "tasks ran " + std::to_string(taskTotal) + " ns, the CPUs were busy "
            + std::to_string(busyTotal) + " ns";
    return {};
}

} // namespace

class TestRandomScenarios : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void generatorIsDeterministic();
    void properties();
};

void TestRandomScenarios::generatorIsDeterministic()
{
    // A pure function of the seed, and different seeds give different scenarios.
    QCOMPARE(QString::fromStdString(writeScenario(test::randomScenario(7))),
        QString::fromStdString(writeScenario(test::randomScenario(7))));
    QVERIFY(!(test::randomScenario(7) == test::randomScenario(8)));
    const Scenario s = test::randomScenario(7);
    QVERIFY(s.duration >= Nanoseconds(2'000'000) && s.duration <= Nanoseconds(20'000'000));
    QVERIFY(!s.tasks.empty());
}

void TestRandomScenarios::properties()
{
    // Every seed is checked, failing or not, so that one run lists all the failing seeds.
    const uint64_t first = envNumber("SCHEDLAB_RANDOM_SEED", 1);
    const uint64_t count = envNumber("SCHEDLAB_RANDOM_SCENARIOS", kDefaultCount);
    QStringList failures;
    for (uint64_t seed = first; seed < first + count; ++seed) {
        std::string text;
        const std::string failure = check(seed, &text);
        if (failure.empty())
            continue;
        if (failures.isEmpty())
            qWarning().noquote() << "first failing scenario (seed" << seed << "):\n"
                                 << QString::fromStdString(text);
        failures << QStringLiteral("seed %1: %2").arg(seed).arg(QString::fromStdString(failure));
    }
    qInfo("%llu random scenarios from seed %llu, %lld failed",
        static_cast<unsigned long long>(count), static_cast<unsigned long long>(first),
        static_cast<long long>(failures.size()));
    if (!failures.isEmpty())
        QFAIL(qPrintable(failures.join(QLatin1Char('\n'))
            + QStringLiteral("\nreproduce one: SCHEDLAB_RANDOM_SEED=N SCHEDLAB_RANDOM_SCENARIOS=1 "
                             "tst_randomscenarios")));
}

QTEST_APPLESS_MAIN(TestRandomScenarios)
#include "tst_randomscenarios.moc"
