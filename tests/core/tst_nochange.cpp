// SPDX-License-Identifier: GPL-2.0-or-later
// "Why did nothing change?" (core/lesson/nochange.h): a toggle that leaves the run as
// it was is explained from the model's records. Expected numbers are computed by hand from
// docs/kernel-model.md's formulas in the comments.
#include "core/lesson/nochange.h"
#include "core/scenario/scenarioio.h"
#include "support/clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <fstream>

using namespace schedlab;
using namespace schedlab::lesson;

namespace {

Scenario parse(const char* json)
{
    auto r = parseScenario(json, "t.json");
    if (!r.ok())
        throw std::runtime_error(r.errors.front());
    return *r.scenario;
}

bool has(const NoChange& n, const std::string& part)
{
    return std::any_of(n.lines.begin(), n.lines.end(),
        [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

std::string all(const NoChange& n)
{
    std::string s;
    for (const auto& l : n.lines)
        s += l + "\n";
    return s;
}

// The issue's example: one hog and a periodic task (run 1 ms, sleep 9 ms) on one CPU, 7.1.
const char* kPeriodic = R"({ "schedlab": 1, "name": "periodic-hog", "duration": "200ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "program": [ { "run": "forever" } ] },
             { "name": "periodic",
               "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "9ms" } ] } ] } ] })";

const char* kHogs = R"({ "schedlab": 1, "name": "hogs", "duration": "100ms",
  "kernel": { "profile": "7.1", "hz": 1000 }, "machine": { "cpus": 1 },
  "tasks": [ { "name": "hog", "count": 3, "program": [ { "run": "forever" } ] } ] })";

} // namespace

class TestNoChange : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void placeLagUnderDelayDequeue();
    void placeLagMattersWithoutDelayDequeue();
    void runToParityWithoutWakeups();
    void runToParityWhenProtectionIsOver();
    void preemptShortWithEqualSlices();
    void lagClampWithinBothLimits();
    void aChangeIsNotExplainedAway();
    void badVariant();
    void liveEditAtATime();
    void compareCommandSaysWhy();
};

void TestNoChange::placeLagUnderDelayDequeue()
{
    // periodic wakes at lag 0 and runs its 1 ms alone against the hog: both weigh 1024, so V
    // moves half as fast as periodic's v and it blocks with lag V − v = −1 ms / 2 = −0.5 ms
    // (within the clamp, max_slice + TICK = 0.7 + 1 = 1.7 ms). Not eligible: DELAY_DEQUEUE keeps
    // it queued while the hog runs, V climbs back to its v after 1 ms more, and it is dequeued
    // with vlag 0. Every placement then finds vlag 0: PLACE_LAG cannot matter.
    const auto n = whyNothingChanged(parse(kPeriodic), {}, "NO_PLACE_LAG", "periodic");
    QVERIFY(n.has_value());
    QVERIFY2(n->wholeRun, all(*n).c_str());
    QVERIFY2(has(*n, "PLACE_LAG had no effect on periodic: each of its"), all(*n).c_str());
    QVERIFY(has(*n, "found a saved vlag of 0"));
    QVERIFY(has(*n, "stayed queued as delayed (DELAY_DEQUEUE)"));
    // Delayed at the end of a 1 ms run, dequeued 1 ms later (the hog's 1 ms pays the 0.5 ms
    // virtual debt back at half speed... V moves 0.5 ms per ms of the hog: 1 ms).
    QVERIFY(has(*n, "with vlag 0 (DELAY_ZERO"));
    // The counterfactual: without DELAY_DEQUEUE it keeps the −0.5 ms.
    QVERIFY2(
        has(*n, "With NO_DELAY_DEQUEUE it would be placed with lag -500.000 µs"), all(*n).c_str());
}

void TestNoChange::placeLagMattersWithoutDelayDequeue()
{
    // With NO_DELAY_DEQUEUE the saved −0.5 ms is placed as −0.5 · (1024 + 1024) / 1024 = −1 ms:
    // periodic waits 1 ms per period and its share drops, so toggling PLACE_LAG changes the run.
    RunOptions base;
    base.features.push_back("NO_DELAY_DEQUEUE");
    QVERIFY(!whyNothingChanged(parse(kPeriodic), base, "NO_PLACE_LAG").has_value());
    QVERIFY(!whyNothingChanged(parse(kPeriodic), base, "NO_PLACE_LAG", "periodic").has_value());
}

void TestNoChange::runToParityWithoutWakeups()
{
    // Three hogs never sleep: after the start no task ever wakes while another runs, and the
    // ticks reschedule only after curr's 0.7 ms slice is used up (3 ticks of 1 ms ≥ 0.7 ms).
    const auto n = whyNothingChanged(parse(kHogs), {}, "NO_RUN_TO_PARITY");
    QVERIFY(n.has_value());
    QVERIFY(n->wholeRun);
    QVERIFY2(has(*n, "RUN_TO_PARITY had no effect: no task woke while another ran on its CPU"),
        all(*n).c_str());
}

void TestNoChange::runToParityWhenProtectionIsOver()
{
    // periodic's loop takes 10 ms (1 ms run, 9 ms sleep) when it never waits: in 200 ms it
    // starts at 0 (a spawn, not a wakeup) and wakes 19 times, each time while the hog runs. The
    // hog has run alone for 9 ms, far past its 0.7 ms protected slice, and periodic (lag 0,
    // eligible, deadline V + 0.7 ms, earlier than the hog's) preempts at once every time.
    const auto n = whyNothingChanged(parse(kPeriodic), {}, "NO_RUN_TO_PARITY");
    QVERIFY(n.has_value());
    QVERIFY2(has(*n,
                 "RUN_TO_PARITY had no effect: 19 wakeups found another task running on "
                 "their CPU; at 19 of them the woken task preempted curr at once"),
        all(*n).c_str());
}

void TestNoChange::preemptShortWithEqualSlices()
{
    // 7.1's base slice is 0.7 ms (kernel-model.md §3) and no task sets its own.
    const auto n = whyNothingChanged(parse(kPeriodic), {}, "NO_PREEMPT_SHORT");
    QVERIFY(n.has_value());
    QVERIFY2(has(*n, "every task has the same slice (0.700 ms)"), all(*n).c_str());
}

void TestNoChange::lagClampWithinBothLimits()
{
    // own_slice: max(2 · 0.7, 1) = 1.4 ms; max_slice_tick: 0.7 + 1 = 1.7 ms; for weight 1024
    // the virtual limits are the same, the smaller 1400 µs. periodic's saved lags are 0 (see
    // above) and the hog never sleeps: nothing reaches the limit.
    const auto n = whyNothingChanged(parse(kPeriodic), {}, "lag_clamp=own_slice");
    QVERIFY(n.has_value());
    QVERIFY2(has(*n, "lag_clamp had no effect"), all(*n).c_str());
    QVERIFY(has(*n, "1400.000 µs"));
}

void TestNoChange::aChangeIsNotExplainedAway()
{
    // A nice change of the run's profile does change the picks: 6.12 vs 7.1 on the periodic
    // example differ (NO_DELAY_DEQUEUE as above changes what runs).
    QVERIFY(!whyNothingChanged(parse(kPeriodic), {}, "NO_DELAY_DEQUEUE").has_value());
}

void TestNoChange::badVariant()
{
    std::string error;
    QVERIFY(!whyNothingChanged(parse(kHogs), {}, "NO_SUCH_FEATURE", "", &error).has_value());
    QVERIFY(!error.empty());
    error.clear();
    QVERIFY(!whyNothingChanged(parse(kHogs), {}, "NO_PLACE_LAG", "nobody", &error).has_value());
    QVERIFY(error.find("nobody") != std::string::npos);
}

void TestNoChange::compareCommandSaysWhy()
{
    // schedlab-cli compare prints the explanation under the table for the variant that changed
    // nothing, and none for the one that changed the run.
    QTemporaryDir dir;
    const std::string file = dir.filePath("p.json").toStdString();
    std::ofstream(file) << kPeriodic;
    const auto r = test::runCliCaptured(
        {"compare", file, "--variant", "NO_PLACE_LAG", "--variant", "NO_DELAY_DEQUEUE"});
    QCOMPARE(r.code, 0);
    QVERIFY2(test::contains(r.out, "why: NO_PLACE_LAG changed nothing in the run"), r.out.c_str());
    QVERIFY(test::contains(r.out,
        "why: With NO_DELAY_DEQUEUE it would be placed with lag "
        "-500.000 µs"));
    QVERIFY(!test::contains(r.out, "why: NO_DELAY_DEQUEUE"));
}

void TestNoChange::liveEditAtATime()
{
    // The sandbox: PLACE_LAG unticked at 120 ms is an action at 120 ms added to the scenario.
    // From then on periodic is still dequeued with vlag 0 after each delay (the same reasoning
    // as placeLagUnderDelayDequeue), so no switch from 120 ms on moves.
    const Scenario before = parse(kPeriodic);
    Scenario after = before;
    Action off;
    off.at = Nanoseconds{120'000'000};
    off.kind = Action::Kind::Feature;
    off.features["PLACE_LAG"] = false;
    after.actions.push_back(off);
    QCOMPARE(describeEdit(off), std::string("PLACE_LAG off at 120.000 ms"));
    const auto n = whyEditChangedNothing(before, after, {}, off);
    QVERIFY(n.has_value());
    QCOMPARE(n->change, std::string("PLACE_LAG off at 120.000 ms"));
    QVERIFY2(
        has(*n, "PLACE_LAG off at 120.000 ms changed nothing: every switch from 120.000 ms on"),
        all(*n).c_str());
    QVERIFY2(has(*n, "PLACE_LAG had no effect on periodic: each of its"), all(*n).c_str());
    QVERIFY(has(*n, "stayed queued as delayed (DELAY_DEQUEUE)"));
    // Only the records from 120 ms on count: a 10 ms period leaves at most 8 wakeups in
    // 120..200 ms, not the run's 20, and the first delay named is at or after 120 ms.
    const auto line = std::find_if(n->lines.begin(), n->lines.end(),
        [](const std::string& l) { return l.find("each of its") != std::string::npos; });
    const int placements = std::stoi(line->substr(line->find("each of its") + 12));
    QVERIFY2(placements >= 1 && placements <= 8, line->c_str());
    const double delayedAt = std::stod(line->substr(line->find("delayed at ") + 11));
    QVERIFY2(delayedAt >= 120.0, line->c_str());
    // The counterfactual keeps the −0.5 ms, and its first placement is after the edit.
    QVERIFY2(
        has(*n, "With NO_DELAY_DEQUEUE it would be placed with lag -500.000 µs"), all(*n).c_str());
    const auto cf = std::find_if(n->lines.begin(), n->lines.end(),
        [](const std::string& l) { return l.find("first at") != std::string::npos; });
    QVERIFY(cf != n->lines.end());
    QVERIFY2(std::stod(cf->substr(cf->find("first at ") + 9)) >= 120.0, cf->c_str());

    // With NO_DELAY_DEQUEUE the same toggle changes the run (periodic waits 1 ms per period):
    // nothing to explain away.
    RunOptions noDelay;
    noDelay.features.push_back("NO_DELAY_DEQUEUE");
    QVERIFY(!whyEditChangedNothing(before, after, noDelay, off).has_value());
    // An edit that changes the run from its time on: DELAY_DEQUEUE off at 120 ms.
    Scenario after2 = before;
    Action dd = off;
    dd.features = {{"DELAY_DEQUEUE", false}};
    after2.actions.push_back(dd);
    QVERIFY(!whyEditChangedNothing(before, after2, {}, dd).has_value());

    // The GUI's cancellable form: run in 10 ms chunks, the same answer; cancelled, none.
    std::atomic<bool> cancel{false};
    std::string error;
    const auto chunked = whyEditChangedNothing(before, after, {}, off, &error, &cancel);
    QVERIFY2(chunked.has_value(), error.c_str());
    QCOMPARE(chunked->lines, n->lines);
    cancel = true;
    QVERIFY(!whyEditChangedNothing(before, after, {}, off, &error, &cancel).has_value());
    QCOMPARE(error, std::string("cancelled"));
}

QTEST_APPLESS_MAIN(TestNoChange)
#include "tst_nochange.moc"
