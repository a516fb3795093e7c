// SPDX-License-Identifier: GPL-2.0-or-later
// The fix catalogue and point-release profiles (core/kernel/catalogue.h, kernel-model.md §1.4):
// release parsing, which release carries which fix, the settings of named point releases as
// the table says, every catalogued fix selectable before and after through some release, a
// custom slice under 6.6 reported as ignored, and 6.12.6 against 6.12.7 on a delayed-dequeue
// workload (§5.4).
#ifndef Q_MOC_RUN
#include "core/kernel/catalogue.h"
#include "core/kernel/profile.h"
#include "core/kernel/runoptions.h"
#include "core/record/metrics.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sched/migration.h"
#include "core/sim/inspect.h"
#include "core/sim/simulation.h"
#include "support/simlookup.h"
#endif

#include <QTest>

#include <string>

using namespace schedlab;

namespace {

std::string setting(const KernelProfile& p, const std::string& name)
{
    return settingValue(p, name);
}

const KernelProfile& profile(const char* name)
{
    const KernelProfile* p = findProfile(name);
    if (!p)
        qFatal("no profile %s", name);
    return *p;
}

} // namespace

class TestCatalogue : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseReleases();
    void carries();
    void pointReleases_data();
    void pointReleases();
    void latestPointReleaseIsTheCoarseProfile_data();
    void latestPointReleaseIsTheCoarseProfile();
    void everyFixHasABeforeAndAfterRelease();
    void customSliceIgnoredOn66();
    void delayedRunnable6126vs6127();
    void bugHuntMetrics();
    void protectionMinSlice_data();
    void protectionMinSlice();
    void traitsAreOverrides();
    void delayedTaskMigration_data();
    void delayedTaskMigration();
};

void TestCatalogue::parseReleases()
{
    QCOMPARE(parseRelease("6.12.6", true), (KernelRelease{6, 12, 6}));
    QCOMPARE(parseRelease("7.0", false), (KernelRelease{7, 0, 0}));
    QVERIFY(!parseRelease("7.0", true));      // a point release needs its patch number
    QVERIFY(!parseRelease("6.12.06", true));  // no leading zeros
    QVERIFY(!parseRelease("6.12.6.1", true)); // three parts at most
    QVERIFY(!parseRelease("6..6", true));
    QVERIFY(!parseRelease("6.12.x", true));
    QVERIFY(!parseRelease("", false));
    QVERIFY(!parseRelease("99999.1.1", true)); // parts of at most 4 digits
    QVERIFY(!findProfile("6.9.3"));            // 6.7–6.11: no profile covers the series
    QVERIFY(!findProfile("6.12.x"));
    QCOMPARE(findProfile("6.12.6")->name, std::string("6.12.6"));
    QCOMPARE(findProfile("6.13.0")->name, std::string("6.13.0"));
    QCOMPARE(findProfile("6.12.6"), findProfile("6.12.6")); // resolved once
}

void TestCatalogue::carries()
{
    const CatalogueFix* pelt = nullptr;
    for (const CatalogueFix& f : fixCatalogue())
        if (f.commit == "76f2f783294d")
            pelt = &f;
    QVERIFY(pelt);
    QVERIFY(!carriesFix(*pelt, {6, 12, 6}));
    QVERIFY(carriesFix(*pelt, {6, 12, 7}));
    QVERIFY(carriesFix(*pelt, {6, 13, 0}));
    QVERIFY(!carriesFix(*pelt, {6, 6, 120})); // no backport to 6.6.y
    QVERIFY(carriesFix(*pelt, {7, 3, 1}));
}

// The settings of named releases, read off the table of kernel-model.md §1.4.
void TestCatalogue::pointReleases_data()
{
    QTest::addColumn<QString>("release");
    QTest::addColumn<QString>("setting");
    QTest::addColumn<QString>("value");
    // eab03c23c2a1 reached 6.6.y in 6.6.4.
    QTest::addRow("6.6.3 reweight") << "6.6.3"
                                    << "reweight"
                                    << "keep_vruntime";
    QTest::addRow("6.6.4 reweight") << "6.6.4"
                                    << "reweight"
                                    << "eevdf";
    QTest::addRow("6.6.3 tree") << "6.6.3"
                                << "tree_key"
                                << "vruntime";
    // 76f2f783294d in 6.12.7; 66951e4860d3 in 6.12.10; PICK_BUDDY in 6.12.13.
    QTest::addRow("6.12.6 runnable") << "6.12.6"
                                     << "delayed_runnable"
                                     << "h_nr_running";
    QTest::addRow("6.12.7 runnable") << "6.12.7"
                                     << "delayed_runnable"
                                     << "h_nr_runnable";
    QTest::addRow("6.12.9 empty group") << "6.12.9"
                                        << "empty_group_keep_weight"
                                        << "false";
    QTest::addRow("6.12.10 empty group") << "6.12.10"
                                         << "empty_group_keep_weight"
                                         << "true";
    QTest::addRow("6.12.12 buddy") << "6.12.12"
                                   << "pick_buddy"
                                   << "false";
    QTest::addRow("6.12.13 buddy") << "6.12.13"
                                   << "pick_buddy"
                                   << "true";
    // 79104becf42b in 6.12.58, 79f3f9bedd14 in 6.12.64; 6d71a9c61604 never in 6.12.y.
    QTest::addRow("6.12.57 yield") << "6.12.57"
                                   << "yield"
                                   << "deadline_bump";
    QTest::addRow("6.12.58 yield") << "6.12.58"
                                   << "yield"
                                   << "forfeit_eligible";
    QTest::addRow("6.12.63 v0") << "6.12.63"
                                << "v0"
                                << "min_vruntime";
    QTest::addRow("6.12.64 v0") << "6.12.64"
                                << "v0"
                                << "zero_vruntime_enqueue";
    // b3d99f43c72b (zero_vruntime moved inside avg_vruntime()) read in 6.12.117's source; the
    // first 6.12.y with it is not known, so the catalogue starts it at 6.12.117.
    QTest::addRow("6.12.116 v0") << "6.12.116"
                                 << "v0"
                                 << "zero_vruntime_enqueue";
    QTest::addRow("6.12.117 v0") << "6.12.117"
                                 << "v0"
                                 << "zero_vruntime_avg";
    QTest::addRow("6.12.100 reweight") << "6.12.100"
                                       << "reweight"
                                       << "eevdf";
    // 6.13–6.19 from profile 6.13: PICK_BUDDY from 6.14; RUN_TO_PARITY rework and its resched
    // in 6.17; task throttling in 6.18; the revert of 6d71a9c61604 in 6.18.44.
    QTest::addRow("6.13.2 buddy") << "6.13.2"
                                  << "pick_buddy"
                                  << "false";
    QTest::addRow("6.16.1 protection") << "6.16.1"
                                       << "protection"
                                       << "deadline_hack";
    QTest::addRow("6.17.0 protection") << "6.17.0"
                                       << "protection"
                                       << "vprot_union";
    QTest::addRow("6.17.0 resched") << "6.17.0"
                                    << "resched_at_protection_end"
                                    << "true";
    QTest::addRow("6.16.9 resched") << "6.16.9"
                                    << "resched_at_protection_end"
                                    << "false";
    QTest::addRow("6.18.15 throttle") << "6.18.15"
                                      << "throttle"
                                      << "task";
    QTest::addRow("6.18.15 reweight") << "6.18.15"
                                      << "reweight"
                                      << "place";
    QTest::addRow("6.18.15 v0") << "6.18.15"
                                << "v0"
                                << "min_vruntime";
    QTest::addRow("6.18.15 clamp") << "6.18.15"
                                   << "lag_clamp"
                                   << "own_slice";
    QTest::addRow("6.18.44 reweight") << "6.18.44"
                                      << "reweight"
                                      << "rescale";
    // 79104becf42b measured on 6.18.5 and 6.18.15 (lab/scenarios/seed002-yield-smt2.json).
    QTest::addRow("6.18.4 yield") << "6.18.4"
                                  << "yield"
                                  << "deadline_bump";
    QTest::addRow("6.18.5 yield") << "6.18.5"
                                  << "yield"
                                  << "forfeit_eligible";
    QTest::addRow("6.19.3 yield") << "6.19.3"
                                  << "yield"
                                  << "forfeit_eligible";
    QTest::addRow("6.19.3 v0") << "6.19.3"
                               << "v0"
                               << "zero_vruntime_enqueue";
    QTest::addRow("7.0.2 clamp") << "7.0.2"
                                 << "lag_clamp"
                                 << "max_slice_tick";
    QTest::addRow("7.0.2 reweight") << "7.0.2"
                                    << "reweight"
                                    << "place";
    QTest::addRow("7.1.1 precision") << "7.1.1"
                                     << "weight_precision"
                                     << "full";
    QTest::addRow("7.3.4 flat") << "7.3.4"
                                << "flat"
                                << "true";
}

void TestCatalogue::pointReleases()
{
    QFETCH(QString, release);
    QFETCH(QString, setting);
    QFETCH(QString, value);
    const KernelProfile* p = findProfile(release.toStdString());
    QVERIFY(p);
    QCOMPARE(QString::fromStdString(::setting(*p, setting.toStdString())), value);
}

// Profile 6.12 stands for 6.12.117 (with its backports), 7.0 for 7.0.y before the revert's
// backport, 7.3 for 7.3.y: the point releases resolve to exactly the same choices and traits.
void TestCatalogue::latestPointReleaseIsTheCoarseProfile_data()
{
    QTest::addColumn<QString>("release");
    QTest::addColumn<QString>("coarse");
    QTest::addRow("6.12.117") << "6.12.117"
                              << "6.12";
    QTest::addRow("7.0.3") << "7.0.3"
                           << "7.0";
    QTest::addRow("7.2.13") << "7.2.13"
                            << "7.1";
    QTest::addRow("7.3.4") << "7.3.4"
                           << "7.3";
}

void TestCatalogue::latestPointReleaseIsTheCoarseProfile()
{
    QFETCH(QString, release);
    QFETCH(QString, coarse);
    const KernelProfile& p = profile(release.toLatin1().constData());
    const KernelProfile& c = profile(coarse.toLatin1().constData());
    for (const std::string& name : choiceNames())
        QCOMPARE(choiceValue(p.choices, name), choiceValue(c.choices, name));
    for (const std::string& name : traitNames())
        QCOMPARE(traitValue(p.traits, name), traitValue(c.traits, name));
    QCOMPARE(p.baseSlice, c.baseSlice);
}

// Every catalogued fix can be had before and after: some covered release resolves its setting to
// the value before the fix and some to the value after (the behaviour tests of each setting are
// named in kernel-model.md §1.4).
void TestCatalogue::everyFixHasABeforeAndAfterRelease()
{
    const char* const releases[] = {"6.6.0", "6.6.4", "6.12.0", "6.12.7", "6.12.10", "6.12.13",
        "6.12.58", "6.12.64", "6.12.65", "6.13.0", "6.14.0", "6.15.0", "6.17.0", "6.18.0", "6.18.5",
        "6.18.44", "6.19.0", "7.0.0", "7.1.0", "7.2.0", "7.3.0"};
    QVERIFY(fixCatalogue().size() >= 20);
    for (const CatalogueFix& fix : fixCatalogue()) {
        bool before = false;
        bool after = false;
        for (const char* r : releases) {
            const std::string v = setting(profile(r), std::string(fix.setting));
            QVERIFY2(!v.empty(),
                qPrintable(QString::fromUtf8(fix.setting.data(), qsizetype(fix.setting.size()))));
            before = before || v == fix.before;
            after = after || v == fix.after;
        }
        QVERIFY2(before && after, fix.title.data());
        const KernelRelease at = fix.backports.empty() ? fix.mainline : fix.backports.front();
        if (seriesProfile(at)) {
            const auto p = resolveRelease(at);
            QVERIFY(p);
            QCOMPARE(setting(*p, std::string(fix.setting)), std::string(fix.after));
        }
    }
}

// Profile 6.6 has no custom slices: a task's slice is ignored, and the run says so.
void TestCatalogue::customSliceIgnoredOn66()
{
    const auto scenario = test::loadScenario(R"({"schedlab": 1, "name": "s", "duration": "10ms",
        "kernel": {"profile": "6.6"}, "machine": {"cpus": 1},
        "tasks": [{"name": "long", "slice": "10ms", "program": [{"run": "forever"}]},
                  {"name": "other", "program": [{"run": "forever"}]}]})",
        "tst_catalogue");
    QVERIFY(scenario);
    for (const char* p : {"6.6", "6.6.3", "6.12"}) {
        RunOptions o;
        o.profile = p;
        Simulation sim(*scenario, o);
        sim.runUntil(Nanoseconds(10000000));
        int ignored = 0;
        for (const Finding& f : sim.metrics().findings)
            if (f.kind == "ignored_setting" && f.task == "long") {
                ++ignored;
                QVERIFY(f.detail.find("slice 10ms ignored") != std::string::npos);
            }
        QCOMPARE(ignored, std::string_view(p) == "6.12" ? 0 : 1);
    }
}

// 76f2f783294d (kernel-model.md §5.4) on one CPU: a hog and two workers that run 4 ms and sleep
// 1 ms (the shipped delayed-dequeue scenario); workers often block while not eligible and stay
// queued, delayed. 6.12.6 and 6.12.7 differ in nothing else, so the schedule, every entity's
// averages and the root's load and util are the same; only the root's runnable average differs,
// and it is higher on 6.12.6, whose runnable count includes the delayed workers.
void TestCatalogue::delayedRunnable6126vs6127()
{
    const auto scenario = test::loadScenario(R"({"schedlab": 1, "name": "d", "duration": "400ms",
        "kernel": {"profile": "6.12", "hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "hog", "program": [{"run": "forever"}]},
                  {"name": "worker", "count": 2, "program": [{"loop": [{"run": "4ms"},
                      {"sleep": "1ms"}]}]}]})",
        "tst_catalogue");
    QVERIFY(scenario);
    RunOptions before;
    before.profile = "6.12.6";
    RunOptions after;
    after.profile = "6.12.7";
    int differing = 0;
    int delayedSeen = 0;
    for (int ms = 20; ms <= 400; ms += 19) {
        const Inspection a = inspectAt(*scenario, before, Nanoseconds(int64_t(ms) * 1000000));
        const Inspection b = inspectAt(*scenario, after, Nanoseconds(int64_t(ms) * 1000000));
        const CfsRqInspection& ra = a.cpus.at(0).rqs.at(0);
        const CfsRqInspection& rb = b.cpus.at(0).rqs.at(0);
        QCOMPARE(a.cpus[0].running, b.cpus[0].running);
        QCOMPARE(ra.loadAvg, rb.loadAvg);
        QCOMPARE(ra.utilAvg, rb.utilAvg);
        QCOMPARE(ra.entities.size(), rb.entities.size());
        for (size_t i = 0; i < ra.entities.size(); ++i) {
            QCOMPARE(ra.entities[i].name, rb.entities[i].name);
            QCOMPARE(ra.entities[i].runnableAvg, rb.entities[i].runnableAvg);
            delayedSeen += ra.entities[i].delayed;
        }
        QVERIFY(ra.runnableAvg >= rb.runnableAvg);
        differing += ra.runnableAvg > rb.runnableAvg;
        QVERIFY(ra.hNrRunnable <= ra.hNrQueued);
    }
    QVERIFY(delayedSeen > 0);
    QVERIFY(differing > 10); // of 21 points
}

// The bug-hunt measures (kernel-model.md §4.1). Two nice-0 hogs at HZ=1000 on profile 7.1
// alternate in 1 ms runs (the tick ends each 0.7 ms request after 1 ms), so each task's longest
// run is 1 ms; the waiting one's lag stays within ±0.5 ms (V is the mean of the two), inside
// vslice(0.7 ms + 1 ms) = 1.7 ms: no sample outside.
// A task with a 10 ms custom slice against a default-slice task on 6.13 (RUN_TO_PARITY protects
// the whole request): after the first switches both run 10 ms blocks, so both longest runs are
// 10 ms. A task that waited 10 ms while the other ran is 5 ms of virtual time behind V (V moves
// at half the runner's rate), and its lag falls by 1 ms per ms while it runs: the samples of the
// short task, taken at its ticks, see |lag| = 4.5 ms at the first tick, beyond its bound
// vslice(0.7 ms + 1 ms) = 1.7 ms by 2.8 ms. On 7.1 (protection limited to the shortest queued
// slice, 0.7 ms: less than a tick) the tasks alternate at every tick, 1 ms blocks (see
// protectionMinSlice), and the bound holds.
void TestCatalogue::bugHuntMetrics()
{
    // @p stream: the recording discarded as `run` without an export (the samples counted in
    // place); @p measured: RunOptions::lagBoundMetric (`run` without a metrics file: off).
    auto run = [](const char* json, const char* profile, bool stream = false,
                   bool measured = true) {
        const auto sc = test::loadScenario(json, "tst_catalogue");
        if (!sc)
            qFatal("bad scenario");
        RunOptions o;
        o.profile = profile;
        o.lagBoundMetric = measured;
        Simulation sim(*sc, o);
        if (stream)
            sim.streamRecording(nullptr);
        sim.run();
        return sim.metrics();
    };
    const Metrics hogs = run(R"({"schedlab": 1, "name": "h", "duration": "100ms",
        "kernel": {"hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "hog", "count": 2, "program": [{"run": "forever"}]}]})",
        "7.1");
    QCOMPARE(hogs.tasks.size(), size_t(2));
    for (const TaskMetrics& t : hogs.tasks) {
        QCOMPARE(t.longestRunNs, int64_t(1000000));
        QCOMPARE(t.lagExcessSamples, int64_t(0));
    }
    const char* custom = R"({"schedlab": 1, "name": "c", "duration": "100ms",
        "kernel": {"hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "long", "slice": "10ms", "program": [{"run": "forever"}]},
                  {"name": "short", "program": [{"run": "forever"}]}]})";
    for (const char* profile : {"6.13", "7.1"}) {
        const Metrics m = run(custom, profile);
        const bool v613 = std::string_view(profile) == "6.13";
        for (const TaskMetrics& t : m.tasks) {
            QCOMPARE(t.longestRunNs, int64_t(v613 ? 10000000 : 1000000));
            if (t.name == "short") {
                QCOMPARE(t.lagExcessSamples > 0, v613);
                QCOMPARE(t.lagExcessMaxNs, int64_t(v613 ? 2800000 : 0));
            }
        }
    }
    // The same measure from samples counted in place; none when the run does not measure it
    // (nothing else of the run changes: the same CPU times).
    const Metrics kept = run(custom, "6.13");
    const Metrics counted = run(custom, "6.13", true);
    const Metrics unmeasured = run(custom, "6.13", true, false);
    for (size_t i = 0; i < kept.tasks.size(); ++i) {
        QCOMPARE(counted.tasks[i].lagExcessSamples, kept.tasks[i].lagExcessSamples);
        QCOMPARE(counted.tasks[i].lagExcessMaxNs, kept.tasks[i].lagExcessMaxNs);
        QCOMPARE(unmeasured.tasks[i].lagExcessSamples, int64_t(0));
        QCOMPARE(unmeasured.tasks[i].lagExcessMaxNs, int64_t(0));
        QCOMPARE(unmeasured.tasks[i].cpuTimeNs, kept.tasks[i].cpuTimeNs);
        QCOMPARE(unmeasured.tasks[i].switches, kept.tasks[i].switches);
    }
    QCOMPARE(unmeasured.tasks[1].name, std::string("short"));
    QCOMPARE(kept.tasks[1].lagExcessMaxNs, int64_t(2800000));
}

// 052c3d87c82e alone (kernel-model.md §3.7): the scenario "c" of bugHuntMetrics, a 10 ms-slice
// task against a default-slice one, HZ=1000, PREEMPT_SHORT and RUN_TO_PARITY on.
// deadline_hack: protection lasts the whole request: 10 ms blocks (see bugHuntMetrics).
// vprot_union (6.17–7.2): the short task runs 0–1 ms (it preempted the long one's fork-time
// protection; at the 1 ms tick its v 1e6 passed its d 0.35e6, d := 1.7e6). V = 0.5e6: the long
// one (v 0, d 5e6) is the only eligible one and is picked with vprot = min(d, v + vslice(min
// slice 0.7 ms)) = 0.7e6. At the 2 ms tick its v 1e6 is past vprot: resched; V = 1e6, both
// eligible, the short one's d 1.7e6 is earlier. At 3 ms the short one renews (d 2.7e6) and is
// not eligible (v 2e6 > V 1.5e6): the long one again, protected to 1.7e6, which it passes by
// the 4 ms tick. 1 ms blocks: every tick switches. 6.13 + vprot_union alone lacks 0b9ca2dcabc3
// (no resched at the end of protection): at the 2 ms tick the long one is past vprot but still
// eligible (v = V = 1e6), so it runs on to the 3 ms tick, where it is not (PREEMPT_SHORT's
// did_preempt_short()): 2 ms blocks.
// 7.3's protect_ineligible: the long one's vprot is instead the vruntime at which it stops
// being eligible, the short one's v + 1 = 1e6 + 1: still protected at the 2 ms tick (v 1e6),
// not at 3 ms (v 2e6 > V 1.5e6): 1 → 3 ms; 2 ms blocks on either side.
void TestCatalogue::protectionMinSlice_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("override");
    QTest::addColumn<qint64>("longest");
    QTest::addRow("6.13") << "6.13"
                          << "" << qint64(10000000);
    QTest::addRow("6.13 + vprot_union") << "6.13"
                                        << "protection=vprot_union" << qint64(2000000);
    QTest::addRow("6.16.9") << "6.16.9"
                            << "" << qint64(10000000);
    QTest::addRow("6.17.0") << "6.17.0"
                            << "" << qint64(1000000);
    QTest::addRow("6.17.0 + deadline_hack") << "6.17.0"
                                            << "protection=deadline_hack" << qint64(10000000);
    QTest::addRow("7.1") << "7.1"
                         << "" << qint64(1000000);
    QTest::addRow("7.1 + protect_ineligible") << "7.1"
                                              << "protect_ineligible=true" << qint64(2000000);
}

void TestCatalogue::protectionMinSlice()
{
    QFETCH(QString, profile);
    QFETCH(QString, override);
    const auto sc = test::loadScenario(R"({"schedlab": 1, "name": "c", "duration": "100ms",
        "kernel": {"hz": 1000}, "machine": {"cpus": 1},
        "tasks": [{"name": "long", "slice": "10ms", "program": [{"run": "forever"}]},
                  {"name": "short", "program": [{"run": "forever"}]}]})",
        "tst_catalogue");
    QVERIFY(sc);
    RunOptions o;
    o.profile = profile.toStdString();
    if (!override.isEmpty()) {
        const auto kv = override.split('=');
        o.overrides.emplace_back(kv[0].toStdString(), kv[1].toStdString());
    }
    Simulation sim(*sc, o);
    sim.run();
    QFETCH(qint64, longest);
    for (const TaskMetrics& t : sim.metrics().tasks)
        QCOMPARE(t.longestRunNs, int64_t(longest));
}

// The catalogue's traits are overrides like the choices: accepted by name with false/true,
// anything else refused with a message naming both kinds; a scenario file takes them too.
void TestCatalogue::traitsAreOverrides()
{
    ProfileChoices c;
    ProfileTraits t;
    std::string error;
    for (const std::string& name : traitNames()) {
        QVERIFY(applyOverride(c, t, name, "false", &error));
        QCOMPARE(traitValue(t, name), std::string("false"));
        QVERIFY(applyOverride(c, t, name, "true", &error));
        QCOMPARE(traitValue(t, name), std::string("true"));
        QVERIFY(!applyOverride(c, t, name, "yes", &error));
        QVERIFY(error.find("false|true") != std::string::npos);
    }
    QVERIFY(applyOverride(c, t, "reweight", "rescale", &error));
    QVERIFY(!applyOverride(c, t, "no_such_thing", "true", &error));
    QVERIFY(error.find("reweight") != std::string::npos);
    QVERIFY(error.find("resched_at_protection_end") != std::string::npos);
    QCOMPARE(overrideValue(profile("6.16.9"), "resched_at_protection_end"), std::string("false"));
    QCOMPARE(overrideValue(profile("6.16.9"), "protection"), std::string("deadline_hack"));
    const auto file = test::loadScenario(R"({"schedlab": 1, "name": "t",
        "kernel": {"profile": "6.17.0", "overrides": {"resched_at_protection_end": false}}})",
        "tst_catalogue");
    QVERIFY(file);
    QCOMPARE(file->kernel.overrides.at("resched_at_protection_end"), std::string("false"));
}

// 61b82dfb6b7e (6.14, kernel-model.md §5.4): can_migrate_task() refuses a delayed task unless
// the balance migrates load (the active balance's env is one). Before, nothing stops it: a
// migrate_task balance of an idle CPU takes a delayed task like a runnable one, and it arrives
// delayed (queued, not runnable) to be dequeued at its next pick there. The shipped lab-mirror
// setup on 2 CPUs (shell loops that sleep while not eligible) meets both kinds of balance, given
// time: 60 s (the first ones came within 3 s before the fork's preemption and the load_sum floor
// of 2026-12 changed its timing; 30 s is the least that still meets them at every row). The
// rule, checked on every migration of a delayed task: with `load_only` only load/active balances
// move one; with `any` task balances do too.
void TestCatalogue::delayedTaskMigration_data()
{
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("override");
    QTest::addColumn<bool>("any");
    QTest::addRow("6.12") << "6.12"
                          << "" << true;
    QTest::addRow("6.12 + load_only") << "6.12"
                                      << "lb_delayed=load_only" << false;
    QTest::addRow("6.13.0") << "6.13.0"
                            << "" << true;
    QTest::addRow("6.14.0") << "6.14.0"
                            << "" << false;
    QTest::addRow("7.1 + any") << "7.1"
                               << "lb_delayed=any" << true;
}

void TestCatalogue::delayedTaskMigration()
{
    QFETCH(QString, profile);
    QFETCH(QString, override);
    QFETCH(bool, any);
    const LoadResult file =
        loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR "/scenarios/lab-mirror-shell.json"));
    QVERIFY(file.ok());
    // A balance finds a delayed task to move a few times a minute at most: three seeds of 60 s
    // each, so that every row sees some (the rule is checked on all of them).
    int byLoad = 0;
    int byOther = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        RunOptions o;
        o.profile = profile.toStdString();
        o.duration = Nanoseconds(60000000000);
        o.seed = seed;
        if (!override.isEmpty()) {
            const auto kv = override.split('=');
            o.overrides.emplace_back(kv[0].toStdString(), kv[1].toStdString());
        }
        Simulation sim(*file.scenario, o);
        sim.run();
        QVERIFY(sim.invariantViolations().empty());
        const auto& rs = sim.recording().records();
        for (size_t i = 0; i < rs.size(); ++i) {
            if (rs[i].kind != RecordKind::Migrate)
                continue;
            // The moved task's first sample on the destination says whether it is still delayed.
            for (size_t j = i + 1; j < rs.size(); ++j) {
                if (rs[j].kind != RecordKind::Sample || rs[j].entity != rs[i].entity)
                    continue;
                if (rs[j].flags & Record::kDelayed) {
                    const auto reason = MigrateReason(rs[i].payload.generic.c);
                    const MigrateDetail d = MigrateDetail::unpack(rs[i].payload.generic.d);
                    QVERIFY(reason != MigrateReason::Wakeup && reason != MigrateReason::Fork);
                    if (d.migration == MigrationType::Load || reason == MigrateReason::Active)
                        ++byLoad;
                    else
                        ++byOther;
                }
                break;
            }
        }
    }
    QVERIFY(byLoad + byOther > 0);
    QCOMPARE(byOther > 0, any);
}

QTEST_APPLESS_MAIN(TestCatalogue)
#include "tst_catalogue.moc"
