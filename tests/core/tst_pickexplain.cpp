// SPDX-License-Identifier: GPL-2.0-or-later
// The pick explanation (core/fair/pickexplain.h): hand-built run queues with the expected
// decision worked out from kernel-model.md §3.5/§3.7, and random run queues on every profile
// where the explanation's choice must equal what the scheduler picks (FairClass::pickEevdf and
// pick_task_fair) and what an independent reading of §3.5 over NaiveRunQueue picks.
#include <QTest>

#include <array>
#include <memory>
#include <vector>

#ifndef Q_MOC_RUN
#include "core/base/prng.h"
#include "core/fair/fairclass.h"
#include "core/fair/pickexplain.h"
#include "core/fair/taskgroup.h"
#include "core/fair/weights.h"
#include "core/kernel/profile.h"
#include "core/sched/rq.h"
#include "support/fakemachine.h"
#include "support/naiverunqueue.h"
#endif

using namespace schedlab;

namespace {

constexpr uint64_t kW0 = uint64_t{1024} << 10;

/// One CPU configured like a profile; entities e[0..7] owned here; e[0] is curr when used.
struct Bench
{
    explicit Bench(const std::string& profile, const std::vector<std::string>& features = {})
    {
        const KernelProfile* p = findProfile(profile);
        if (!p)
            qFatal("unknown profile");
        choices = p->choices;
        traits = p->traits;
        featureSet = p->features;
        for (const auto& f : features)
            if (!featureSet.apply(f))
                qFatal("unknown feature");
        rq = std::make_unique<Rq>(0, choices);
        FairParams params;
        params.choices = &choices;
        params.traits = &traits;
        params.features = &featureSet;
        params.baseSlice = p->baseSlice.count();
        params.normalizedBaseSlice = p->baseSlice.count();
        fair = std::make_unique<FairClass>(params, machine, groups);
        naive = std::make_unique<test::NaiveRunQueue>(choices.weightPrecision);
        for (size_t i = 0; i < e.size(); ++i)
            e[i].task = TaskId{static_cast<int32_t>(i)};
    }
    ~Bench()
    {
        cfs().curr = nullptr;
        cfs().taskCurr = nullptr;
        cfs().next = nullptr;
        cfs().clearTrees();
    }
    Bench(const Bench&) = delete;
    Bench& operator=(const Bench&) = delete;

    CfsRq& cfs() { return *rq->cfs; }
    PickPolicy policy() const { return {&choices, &traits, &featureSet}; }

    SchedEntity& make(size_t i, uint64_t v, uint64_t d, uint64_t w = kW0, int64_t slice = 700000)
    {
        SchedEntity& s = e.at(i);
        s.vruntime = v;
        s.deadline = d;
        s.load = loadWeightOf(w);
        s.hLoad = s.load; // 7.3 flat run queue: a root task's h_load is its weight
        s.slice = slice;
        s.cfsRq = &cfs();
        return s;
    }
    void queue(SchedEntity& s)
    {
        s.onRq = true;
        cfs().enqueueTree(s);
        cfs().loadWeight += s.load.weight;
        ++cfs().nrQueued;
        ++cfs().hNrQueued;
        naive->insert(s);
    }
    void setCurr(SchedEntity& s, bool onRq = true)
    {
        s.onRq = onRq;
        cfs().curr = &s;
        cfs().taskCurr = &s;
        rq->curr = &s;
        if (onRq) {
            cfs().loadWeight += s.load.weight;
            ++cfs().nrQueued;
            ++cfs().hNrQueued;
        }
        naive->setCurr(&s);
    }
    void protect(SchedEntity& s, bool on)
    {
        if (choices.protection == Protection::DeadlineHack)
            s.vlag = on ? static_cast<int64_t>(s.deadline) : static_cast<int64_t>(s.deadline) + 1;
        else
            s.vprot = on ? s.vruntime + 1000000 : s.vruntime;
    }
    PickExplanation explain(PickSite site = PickSite::PickNextEntity, bool prot = true)
    {
        return explainPick(cfs(), policy(), site, prot,
            [this](const SchedEntity& s) { return "t" + std::to_string(&s - e.data()); });
    }
    int index(const SchedEntity* s) const { return s ? static_cast<int>(s - e.data()) : -1; }

    ProfileChoices choices;
    ProfileTraits traits;
    FeatureSet featureSet;
    test::FakeMachine machine{0}; // the machine context (nothing of it is read)
    std::vector<TaskGroup> groups;
    std::array<SchedEntity, 8> e;
    std::unique_ptr<Rq> rq;
    std::unique_ptr<FairClass> fair;
    std::unique_ptr<test::NaiveRunQueue> naive;
};

bool mentions(const PickExplanation& ex, const std::string& words)
{
    return ex.text().find(words) != std::string::npos;
}

/// §3.5 read literally, over the naive run queue (independent of CfsRq's trees and of
/// pickEevdfSteps()).
const SchedEntity* referencePick(Bench& b, PickSite site, bool protect)
{
    CfsRq& c = b.cfs();
    const uint64_t v0 = c.v0;
    auto eligible = [&](const SchedEntity& s) { return b.naive->eligible(s.vruntime, v0); };
    const bool deadlineKey = b.choices.treeKey == TreeKey::Deadline;
    auto leftmost = [&]() -> const SchedEntity* {
        const auto order = deadlineKey ? b.naive->byDeadline() : b.naive->byVruntime();
        return order.empty() ? nullptr : order.front();
    };
    const SchedEntity* next = c.next;
    const bool buddyAtPickNext =
        (b.traits.pickBuddy && !b.traits.buddyInPickEevdf && b.featureSet.has(Feature::PickBuddy))
        || (b.traits.pick66 && b.featureSet.has(Feature::NextBuddy));
    if (site == PickSite::PickNextEntity && buddyAtPickNext && next && eligible(*next))
        return next;
    const SchedEntity* curr = c.curr;
    if (c.nrQueued == 1)
        return curr && curr->onRq ? curr : leftmost();
    if (b.traits.pickBuddy && b.traits.buddyInPickEevdf && b.featureSet.has(Feature::PickBuddy)
        && (protect || !b.traits.pickBuddyNeedsProtect) && next && eligible(*next))
        return next;
    if (curr && !(curr->onRq && eligible(*curr)))
        curr = nullptr;
    if (curr && protect) {
        const bool prot = b.choices.protection == Protection::DeadlineHack
            ? b.featureSet.has(Feature::RunToParity)
                && curr->vlag == static_cast<int64_t>(curr->deadline)
            : static_cast<int64_t>(curr->vruntime - curr->vprot) < 0;
        if (prot)
            return curr;
    }
    const SchedEntity* best =
        deadlineKey ? b.naive->pickByDeadline(v0) : b.naive->pickEligiblePrefix(v0);
    if (!best)
        return curr ? curr : leftmost();
    if (curr) {
        const auto d = static_cast<int64_t>(curr->deadline - best->deadline);
        if (d < 0 || (b.traits.pick66 && d == 0))
            return curr;
    }
    return best;
}

} // namespace

class TestPickExplain : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void earliestEligibleDeadline();
    void protectedCurr();
    void deadlineHackWithoutRunToParity();
    void buddies();
    void preemptShort();
    void ineligibleCurr();
    void tieKeepsCurrOn66();
    void delayedPick();
    void agreesWithSchedulerOnRandomRunQueues();
};

// t0 (v 0, d 3e6), t1 (v 2e6, d 1e6), t2 (v 0.5e6, d 2e6), nice 0: V = (0 + 2e6 + 0.5e6)/3 =
// 833 333 (floor). t0, t2 eligible (v ≤ V), t1 not; earliest eligible deadline t2.
void TestPickExplain::earliestEligibleDeadline()
{
    for (const char* profile : {"6.6", "6.12", "7.1"}) {
        Bench b(profile);
        b.queue(b.make(0, 0, 3000000));
        b.queue(b.make(1, 2000000, 1000000));
        b.queue(b.make(2, 500000, 2000000));
        const PickExplanation ex = b.explain();
        QCOMPARE(b.index(ex.chosen), 2);
        QCOMPARE(ex.step, PickStep::EarliestDeadline);
        QCOMPARE(ex.avgVruntime, uint64_t(833333));
        QCOMPARE(ex.eligible.size(), size_t(2));
        QCOMPARE(ex.ineligible.size(), size_t(1));
        QCOMPARE(b.index(ex.ineligible.front()), 1);
        QCOMPARE(b.index(ex.earliestEligibleDeadline), 2);
        QVERIFY(mentions(ex, "Picked t2: it has the earliest virtual deadline"));
        QVERIFY(mentions(ex, "Not eligible (ran ahead of V): t1"));
    }
}

// curr (v 0, d 700 000) protected; t1 (v 0, d 350 000) eligible with an earlier deadline.
// Protection wins: the earliest eligible deadline (t1) is not what runs.
void TestPickExplain::protectedCurr()
{
    for (const char* profile : {"6.12", "7.1"}) {
        Bench b(profile);
        SchedEntity& c = b.make(0, 0, 700000);
        b.setCurr(c);
        b.protect(c, true);
        b.queue(b.make(1, 0, 350000));
        const PickExplanation ex = b.explain();
        QCOMPARE(b.index(ex.chosen), 0);
        QCOMPARE(ex.step, PickStep::ProtectedCurr);
        QCOMPARE(b.index(ex.earliestEligibleDeadline), 1);
        QVERIFY(ex.trace.protectionChecked);
        QVERIFY(ex.trace.currProtected);
        QVERIFY(mentions(ex, "curr t0 is protected"));
        // protect=false (the 6.19+ PREEMPT_SHORT wakeup check) ignores protection.
        const PickExplanation unprotected = b.explain(PickSite::PickEevdf, false);
        QCOMPARE(b.index(unprotected.chosen), 1);
        QVERIFY(!unprotected.trace.protectionChecked);
        // An ended protection lets the earlier deadline through.
        b.protect(c, false);
        const PickExplanation ended = b.explain();
        QCOMPARE(b.index(ended.chosen), 1);
        QVERIFY(mentions(ended, "protection"));
    }
}

// 6.12 (vlag == deadline hack): the pick tests RUN_TO_PARITY itself (§3.5 step 4).
void TestPickExplain::deadlineHackWithoutRunToParity()
{
    Bench b("6.12", {"NO_RUN_TO_PARITY"});
    SchedEntity& c = b.make(0, 0, 700000);
    b.setCurr(c);
    b.protect(c, true);
    b.queue(b.make(1, 0, 350000));
    const PickExplanation ex = b.explain();
    QCOMPARE(b.index(ex.chosen), 1);
    QVERIFY(!ex.trace.currProtected);
    QVERIFY(mentions(ex, "RUN_TO_PARITY is off"));
}

// t0 (v 0, d 350 000), t1 (v 0, d 700 000) = cfs_rq->next, both eligible (V = 0).
void TestPickExplain::buddies()
{
    {
        Bench b("7.1"); // PICK_BUDDY inside pick_eevdf, protect required
        b.queue(b.make(0, 0, 350000));
        b.queue(b.make(1, 0, 700000));
        b.cfs().next = &b.e[1];
        QCOMPARE(b.index(b.explain().chosen), 1);
        QCOMPARE(b.explain().step, PickStep::Buddy);
        const PickExplanation noProtect = b.explain(PickSite::PickEevdf, false);
        QCOMPARE(b.index(noProtect.chosen), 0);
        QVERIFY(mentions(noProtect, "only when protect is set"));
    }
    {
        Bench b("6.12"); // PICK_BUDDY in pick_next_entity
        b.queue(b.make(0, 0, 350000));
        b.queue(b.make(1, 0, 700000));
        b.cfs().next = &b.e[1];
        const PickExplanation sched = b.explain(PickSite::PickNextEntity);
        QCOMPARE(b.index(sched.chosen), 1);
        QCOMPARE(sched.step, PickStep::BuddyPickNext);
        const PickExplanation wake = b.explain(PickSite::PickEevdf);
        QCOMPARE(b.index(wake.chosen), 0);
        QVERIFY(mentions(wake, "pick_next_entity only"));
    }
    {
        Bench b("7.1", {"NO_PICK_BUDDY"});
        b.queue(b.make(0, 0, 350000));
        b.queue(b.make(1, 0, 700000));
        b.cfs().next = &b.e[1];
        const PickExplanation ex = b.explain();
        QCOMPARE(b.index(ex.chosen), 0);
        QVERIFY(mentions(ex, "PICK_BUDDY is off"));
    }
    {
        // Ineligible buddy: t1 at v 1e6, V = 0.5e6.
        Bench b("7.1");
        b.queue(b.make(0, 0, 350000));
        b.queue(b.make(1, 1000000, 700000));
        b.cfs().next = &b.e[1];
        const PickExplanation ex = b.explain();
        QCOMPARE(b.index(ex.chosen), 0);
        QVERIFY(mentions(ex, "Next buddy t1 is not eligible"));
    }
}

// curr: slice 3 ms, v 0, d 3e6, protected. t1: slice 0.1 ms, v 0, d 100 000 — shorter, eligible,
// earlier deadline: do_preempt_short() would cancel curr's protection at its wakeup (§3.7).
// t2: slice 0.1 ms but v 2e6 (V = 2e6/3 → ineligible) does not qualify.
void TestPickExplain::preemptShort()
{
    Bench b("7.1");
    SchedEntity& c = b.make(0, 0, 3000000, kW0, 3000000);
    b.setCurr(c);
    b.protect(c, true);
    b.queue(b.make(2, 2000000, 2100000, kW0, 100000));
    b.queue(b.make(1, 0, 100000, kW0, 100000));
    PickExplanation ex = b.explain();
    QVERIFY(ex.preemptShort);
    QCOMPARE(b.index(ex.shortSliceWaiter), 1);
    QCOMPARE(b.index(ex.chosen), 0); // still protected at this moment
    QVERIFY(mentions(ex, "PREEMPT_SHORT: t1"));

    Bench off("7.1", {"NO_PREEMPT_SHORT"});
    SchedEntity& c2 = off.make(0, 0, 3000000, kW0, 3000000);
    off.setCurr(c2);
    off.protect(c2, true);
    off.queue(off.make(1, 0, 100000, kW0, 100000));
    ex = off.explain();
    QVERIFY(!ex.shortSliceWaiter);
    QVERIFY(mentions(ex, "PREEMPT_SHORT is off"));
}

// curr v 2e6 (protected), t1 v 0: V = 1e6 < curr.v → curr is not eligible and loses the CPU
// whatever its protection.
void TestPickExplain::ineligibleCurr()
{
    Bench b("7.1");
    SchedEntity& c = b.make(0, 2000000, 2700000);
    b.setCurr(c);
    b.protect(c, true);
    b.queue(b.make(1, 0, 3000000));
    const PickExplanation ex = b.explain();
    QCOMPARE(b.index(ex.chosen), 1);
    QCOMPARE(ex.step, PickStep::EarliestDeadline);
    QVERIFY(!ex.trace.currEligible);
    QVERIFY(mentions(ex, "curr t0 is not eligible any more"));
}

// Exact deadline tie between an unprotected curr and a tree entity: 6.6 keeps curr, 6.8+ takes
// the tree entity (§3.5 "Equivalent spec").
void TestPickExplain::tieKeepsCurrOn66()
{
    for (const auto& [profile, expected, step] :
        {std::tuple{"6.6", 0, PickStep::CurrEarlierDeadline},
            std::tuple{"6.12", 1, PickStep::EarliestDeadline}}) {
        Bench b(profile);
        SchedEntity& c = b.make(0, 0, 700000);
        b.setCurr(c);
        b.protect(c, false);
        b.queue(b.make(1, 0, 700000));
        const PickExplanation ex = b.explain();
        QCOMPARE(b.index(ex.chosen), expected);
        QCOMPARE(ex.step, step);
        QVERIFY(mentions(ex, "exact tie"));
    }
}

// A delayed entity that wins the pick is dequeued for real and the pick restarts (§5.2 A).
void TestPickExplain::delayedPick()
{
    Bench b("7.1");
    SchedEntity& d = b.make(1, 0, 350000);
    d.schedDelayed = true;
    b.queue(d);
    b.queue(b.make(2, 0, 700000));
    const PickExplanation ex = b.explain();
    QCOMPARE(b.index(ex.chosen), 1);
    QVERIFY(ex.chosenDelayed);
    QVERIFY(mentions(ex, "is delayed (DELAY_DEQUEUE)"));
    d.schedDelayed = false;
}

void TestPickExplain::agreesWithSchedulerOnRandomRunQueues()
{
    const std::vector<std::vector<std::string>> featureSets{
        {}, {"NO_RUN_TO_PARITY"}, {"NO_PICK_BUDDY"}, {"NEXT_BUDDY"}, {"NO_PREEMPT_SHORT"}};
    Prng prng(20261130);
    auto below = [&](uint64_t n) { return prng.below(n); };
    int checked = 0;
    std::array<int, 9> steps{};
    for (const KernelProfile& profile : kernelProfiles()) {
        for (const auto& features : featureSets) {
            for (int round = 0; round < 300; ++round) {
                Bench b(profile.name, features);
                b.cfs().v0 = below(2) ? 0 : (uint64_t{1} << 40);
                const uint64_t v0 = b.cfs().v0;
                const size_t n = 1 + below(6);
                const bool withCurr = below(3) != 0;
                for (size_t i = 0; i < n; ++i) {
                    const int nice = static_cast<int>(below(11)) - 5;
                    const uint64_t w = scaleLoad(kPrioToWeight[static_cast<size_t>(nice + 20)]);
                    const uint64_t v = v0 + below(4) * 500000; // coarse grid: ties happen
                    const int64_t slice = below(3) == 0 ? 100000 : 700000;
                    const uint64_t d = v + below(4) * 350000;
                    SchedEntity& s = b.make(i, v, d, w, slice);
                    if (i == 0 && withCurr) {
                        b.setCurr(s, below(5) != 0);
                        b.protect(s, below(2) != 0);
                    } else {
                        b.queue(s);
                    }
                }
                if (b.cfs().nrQueued == 0)
                    continue;
                if (below(3) == 0) {
                    SchedEntity& buddy = b.e[below(n)];
                    if (buddy.onRq)
                        b.cfs().next = &buddy;
                }
                for (const bool protect : {true, false}) {
                    const PickExplanation ex = b.explain(PickSite::PickEevdf, protect);
                    SchedEntity* real = b.fair->pickEevdf(b.cfs(), protect);
                    QCOMPARE(b.index(ex.chosen), b.index(real));
                    QCOMPARE(b.index(ex.chosen),
                        b.index(referencePick(b, PickSite::PickEevdf, protect)));
                    ++steps[static_cast<size_t>(ex.step)];
                    // The eligible/ineligible split covers every queued entity.
                    QCOMPARE(int(ex.eligible.size() + ex.ineligible.size()), b.cfs().nrQueued);
                    if (ex.step == PickStep::EarliestDeadline
                        || ex.step == PickStep::CurrEarlierDeadline)
                        QCOMPARE(ex.chosen->deadline, ex.earliestEligibleDeadline->deadline);
                    QVERIFY(!ex.lines.empty());
                }
                // __schedule's path: pick_task_fair() → pick_next_entity() (protect = true).
                const PickExplanation sched = b.explain(PickSite::PickNextEntity, true);
                QCOMPARE(b.index(sched.chosen), b.index(b.fair->pickTask(*b.rq)));
                QCOMPARE(b.index(sched.chosen),
                    b.index(referencePick(b, PickSite::PickNextEntity, true)));
                ++checked;
            }
        }
    }
    QVERIFY(checked > 5000);
    // The random run queues reach every decision step but the impossible fallback.
    for (PickStep s : {PickStep::Single, PickStep::Buddy, PickStep::ProtectedCurr,
             PickStep::EarliestDeadline, PickStep::CurrEarlierDeadline, PickStep::CurrOnlyEligible})
        QVERIFY2(steps[static_cast<size_t>(s)] > 0, pickStepName(s));
}

QTEST_GUILESS_MAIN(TestPickExplain)
#include "tst_pickexplain.moc"
