// SPDX-License-Identifier: GPL-2.0-or-later
// "Why did nothing change?" (nochange.h): two runs compared switch by switch, then the change
// explained from the records of the run where the feature is on. Integer nanoseconds throughout;
// floating point only formats numbers for people.
#include "core/lesson/nochange.h"

#include "core/fair/weights.h"
#include "core/kernel/variant.h"
#include "core/record/recording.h"
#include "core/sim/simulation.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <tuple>

namespace schedlab::lesson {

namespace {

struct Run
{
    std::unique_ptr<Simulation> sim;
    const Recording& rec() const { return sim->recording(); }
};

struct Cancelled
{ };

/// The whole run; with @p cancel, in chunks of 10 ms of simulated time (the same records: runUntil
/// is inclusive and resumable), throwing Cancelled once *cancel is set.
Run runFully(
    const Scenario& scenario, RunOptions options, const std::atomic<bool>* cancel = nullptr)
{
    options.recordSamples = false;
    options.recordEvents = true;
    Run r{std::make_unique<Simulation>(scenario, options)};
    if (!cancel) {
        r.sim->run();
    } else {
        const Nanoseconds end = r.sim->endTime();
        for (Nanoseconds t = r.sim->now(); t < end && !r.sim->finished();) {
            if (cancel->load(std::memory_order_relaxed))
                throw Cancelled{};
            t = std::min(end, t + Nanoseconds{10'000'000});
            r.sim->runUntil(t);
        }
        r.sim->run(); // to the end of the clock, as run() leaves it
    }
    r.sim->flushRecording();
    return r;
}

using Switch = std::tuple<int64_t, int, int32_t, int64_t>; // time, cpu, prev, next

std::vector<Switch> switches(const Recording& rec, int task)
{
    std::vector<Switch> out;
    for (const Record& r : rec.records())
        if (r.kind == RecordKind::Switch && (task < 0 || r.payload.generic.a == task))
            out.emplace_back(r.time, r.cpu, r.entity.raw, r.payload.generic.a);
    return out;
}

int taskIndex(const Recording& rec, const std::string& name)
{
    for (size_t i = 0; i < rec.taskNames.size(); ++i)
        if (rec.taskNames[i] == name)
            return static_cast<int>(i);
    return -1;
}

std::string us(int64_t ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f µs", static_cast<double>(ns) / 1000.0);
    return buf;
}

std::string ms(int64_t ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
    return buf;
}

struct Token
{
    std::string name; ///< feature name without NO_, or the choice
    bool on = true;   ///< features: the state the variant sets
    std::string value;
    bool choice = false;
};

std::vector<Token> tokens(const std::string& spec)
{
    std::vector<Token> out;
    size_t pos = 0;
    while (pos <= spec.size()) {
        const size_t comma = std::min(spec.find(',', pos), spec.size());
        const std::string t = spec.substr(pos, comma - pos);
        pos = comma + 1;
        if (t.empty())
            continue;
        Token k;
        if (const size_t eq = t.find('='); eq != std::string::npos) {
            k.choice = true;
            k.name = t.substr(0, eq);
            k.value = t.substr(eq + 1);
        } else if (t.rfind("NO_", 0) == 0) {
            k.name = t.substr(3);
            k.on = false;
        } else {
            k.name = t;
        }
        out.push_back(k);
    }
    return out;
}

/// The tasks an explanation covers: the one asked about, or every task of the run.
std::vector<int> covered(const Recording& rec, int task)
{
    std::vector<int> out;
    if (task >= 0)
        out.push_back(task);
    else
        for (size_t i = 0; i < rec.taskNames.size(); ++i)
            out.push_back(static_cast<int>(i));
    return out;
}

/// Wakeups of a task onto a CPU on which another task runs at that moment; @p atOnce counts
/// those after which the woken task is switched in at the same instant (it preempted curr).
int64_t wakeupsWhileRunning(const Recording& rec, int task, int64_t* shorterSlice,
    const std::vector<Nanoseconds>& slices, int64_t* atOnce = nullptr, int64_t from = 0)
{
    std::vector<int64_t> running;
    int64_t n = 0;
    const auto& rs = rec.records();
    for (size_t ri = 0; ri < rs.size(); ++ri) {
        const Record& r = rs[ri];
        if (r.kind == RecordKind::Switch) {
            if (running.size() <= r.cpu)
                running.resize(r.cpu + 1u, -1);
            running[r.cpu] = r.payload.generic.a;
        } else if (r.kind == RecordKind::Wakeup && r.entity.isTask()) {
            const int64_t cpu = r.payload.generic.a;
            const int woken = r.entity.taskIndex();
            if ((task >= 0 && woken != task) || r.time < from)
                continue;
            if (cpu < 0 || static_cast<size_t>(cpu) >= running.size())
                continue;
            const int64_t curr = running[static_cast<size_t>(cpu)];
            if (curr < 0 || curr == woken)
                continue;
            ++n;
            if (atOnce)
                for (size_t j = ri + 1; j < rs.size() && rs[j].time == r.time; ++j)
                    if (rs[j].kind == RecordKind::Switch && rs[j].cpu == cpu
                        && rs[j].payload.generic.a == woken) {
                        ++*atOnce;
                        break;
                    }
            if (static_cast<size_t>(woken) < slices.size()
                && static_cast<size_t>(curr) < slices.size()
                && slices[static_cast<size_t>(woken)] < slices[static_cast<size_t>(curr)])
                ++*shorterSlice;
        }
    }
    return n;
}

void explainPlaceLag(const Scenario& scenario, const RunOptions& onOptions, const Run& on, int task,
    std::vector<std::string>& lines, int64_t from)
{
    const Recording& rec = on.rec();
    for (int t : covered(rec, task)) {
        const EntityRef ref = EntityRef::task(t);
        const std::string& name = rec.taskNames[static_cast<size_t>(t)];
        int64_t placements = 0, withLag = 0, delays = 0, dequeues = 0;
        int64_t firstDelay = -1, firstDequeue = -1;
        for (const Record& r : rec.records()) {
            if (r.entity != ref || r.time < from)
                continue;
            if (r.kind == RecordKind::Place) {
                ++placements;
                withLag += r.payload.generic.c != 0 ? 1 : 0;
            } else if (r.kind == RecordKind::Delay) {
                ++delays;
                if (firstDelay < 0)
                    firstDelay = r.time;
            } else if (r.kind == RecordKind::Dequeue) {
                ++dequeues;
                if (firstDelay >= 0 && firstDequeue < 0)
                    firstDequeue = r.time;
            }
        }
        if (placements == 0 || withLag > 0) {
            if (task >= 0 && placements == 0)
                lines.push_back("PLACE_LAG had no effect on " + name
                    + ": it was never placed (it never woke up or joined a queue).");
            else if (placements > 0)
                lines.push_back("PLACE_LAG changed " + std::to_string(withLag) + " of " + name
                    + "'s " + std::to_string(placements)
                    + " placements, but not what ran: the lag it was placed with never changed "
                      "a pick.");
            continue;
        }
        std::string line = "PLACE_LAG had no effect on " + name + ": each of its "
            + std::to_string(placements) + " placements found a saved vlag of 0.";
        if (delays > 0 && firstDequeue >= 0) {
            line += " It blocked with negative lag and stayed queued as delayed (DELAY_DEQUEUE) "
                    "until the lag was paid back: delayed at "
                + ms(firstDelay) + ", dequeued at " + ms(firstDequeue)
                + " with vlag 0 (DELAY_ZERO clips a positive lag), so its negative lag was spent "
                  "before the placement.";
            lines.push_back(line);
            // The counterfactual: the same run without DELAY_DEQUEUE.
            RunOptions noDelay = onOptions;
            noDelay.features.push_back("NO_DELAY_DEQUEUE");
            const Run off = runFully(scenario, noDelay);
            const int idx = taskIndex(off.rec(), name);
            for (const Record& r : off.rec().records())
                if (r.kind == RecordKind::Place && r.entity == EntityRef::task(idx)
                    && r.payload.generic.c != 0 && r.time >= from) {
                    lines.push_back("With NO_DELAY_DEQUEUE it would be placed with lag "
                        + us(r.payload.generic.c) + " (first at " + ms(r.time)
                        + "), and PLACE_LAG would matter.");
                    break;
                }
        } else if (dequeues == 0) {
            lines.push_back("PLACE_LAG had no effect on " + name
                + ": it never slept; its only placement was its start, with no saved lag.");
        } else {
            lines.push_back(line + " Its lag was 0 whenever it slept.");
        }
    }
    if (lines.empty())
        lines.push_back("PLACE_LAG changed placements but never a pick: every switch of the run "
                        "is the same.");
}

void explainDelay(
    const Token& k, const Run& on, int task, std::vector<std::string>& lines, int64_t from)
{
    const Recording& rec = on.rec();
    int64_t delays = 0;
    int64_t positiveAfterDelay = 0;
    std::vector<bool> delayed(rec.taskNames.size(), false);
    for (const Record& r : rec.records()) {
        if (!r.entity.isTask() || (task >= 0 && r.entity.taskIndex() != task) || r.time < from)
            continue;
        const auto i = static_cast<size_t>(r.entity.taskIndex());
        if (i >= delayed.size())
            continue;
        if (r.kind == RecordKind::Delay) {
            ++delays;
            delayed[i] = true;
        } else if (r.kind == RecordKind::Place && delayed[i]) {
            positiveAfterDelay += r.payload.generic.c > 0 ? 1 : 0;
            delayed[i] = false;
        }
    }
    const std::string who = task >= 0 ? rec.taskNames[static_cast<size_t>(task)] : "";
    if (k.name == "DELAY_DEQUEUE") {
        if (delays == 0)
            lines.push_back(
                "DELAY_DEQUEUE had no effect: " + (who.empty() ? std::string("no task") : who)
                + (who.empty() ? " blocked" : " never blocked")
                + " while ineligible (no delay record), so no entity was kept queued.");
        else
            lines.push_back("DELAY_DEQUEUE kept " + (who.empty() ? std::string("entities") : who)
                + " queued " + std::to_string(delays) + " times, but what ran stayed the same.");
    } else {
        lines.push_back("DELAY_ZERO had no effect: of " + std::to_string(delays)
            + " delayed dequeues" + (who.empty() ? std::string() : " of " + who) + ", "
            + std::to_string(positiveAfterDelay)
            + " left a positive lag for the next placement; DELAY_ZERO only clips a positive "
              "lag at the end of a delay.");
    }
}

/// The explanation of each token of a change that changed nothing: @p a ran @p sa with @p oa
/// (the change off: the base run, or the run before an edit), @p b ran @p sb with @p ob (the
/// change made). Only records from @p from on count (an edit's time; 0 for a variant).
void explainTokens(const std::vector<Token>& toks, const Scenario& sa, const RunOptions& oa,
    const Run& a, const Scenario& sb, const RunOptions& ob, const Run& b, int ti, int64_t from,
    std::vector<std::string>& lines)
{
    // Per task slices (custom or the base slice) for PREEMPT_SHORT.
    std::vector<Nanoseconds> slices;
    for (const TaskView& t : a.sim->tasks()) {
        Nanoseconds s = a.sim->baseSlice();
        for (const TaskSpec& spec : sa.tasks)
            if (spec.slice && (t.name == spec.name || t.name.rfind(spec.name + "-", 0) == 0))
                s = *spec.slice;
        slices.push_back(s);
    }
    for (const Token& k : toks) {
        // The records of the run in which the feature is on (or the base run for a choice).
        const bool variantOn = !k.choice && k.on;
        const Run& on = variantOn ? b : a;
        const RunOptions& onOptions = variantOn ? ob : oa;
        if (!k.choice && k.name == "PLACE_LAG") {
            explainPlaceLag(variantOn ? sb : sa, onOptions, on, ti, lines, from);
        } else if (!k.choice && (k.name == "DELAY_DEQUEUE" || k.name == "DELAY_ZERO")) {
            explainDelay(k, on, ti, lines, from);
        } else if (!k.choice && (k.name == "RUN_TO_PARITY" || k.name == "PREEMPT_SHORT")) {
            int64_t shorter = 0;
            int64_t atOnce = 0;
            const int64_t n = wakeupsWhileRunning(on.rec(), ti, &shorter, slices, &atOnce, from);
            const bool sameSlices =
                std::adjacent_find(slices.begin(), slices.end(), std::not_equal_to<>())
                == slices.end();
            if (k.name == "RUN_TO_PARITY") {
                if (n == 0)
                    lines.push_back("RUN_TO_PARITY had no effect: no task woke while "
                                    "another ran on its CPU. It only protects curr against "
                                    "a wakeup; a tick reschedules once curr's slice is used "
                                    "up, when the protection has ended anyway.");
                else
                    lines.push_back("RUN_TO_PARITY had no effect: " + std::to_string(n)
                        + " wakeups found another task running on their CPU; at "
                        + std::to_string(atOnce)
                        + " of them the woken task preempted curr at once (curr had used up its "
                          "protected slice, so the protection held nobody off), at the others "
                          "the woken task waited for the next pick either way.");
            } else if (sameSlices) {
                lines.push_back("PREEMPT_SHORT had no effect: every task has the same slice ("
                    + ms(slices.empty() ? 0 : slices[0].count())
                    + "). It only lets a waking task whose slice is shorter than curr's cut "
                      "curr's protection short.");
            } else {
                lines.push_back("PREEMPT_SHORT had no effect: " + std::to_string(shorter) + " of "
                    + std::to_string(n)
                    + " wakeups onto a busy CPU were of a task with a shorter slice than "
                      "curr's, and none of them changed the pick.");
            }
        } else if (k.choice && k.name == "lag_clamp") {
            // The limits of kernel-model.md §4.1 for each task's weight; the largest |vlag|
            // a placement found.
            const Nanoseconds tick{1'000'000'000 / std::max(1, a.sim->hz())};
            Nanoseconds maxSlice{0};
            for (Nanoseconds s : slices)
                maxSlice = std::max(maxSlice, s);
            int64_t worst = 0;
            int64_t worstLimit = 0;
            std::string worstTask;
            bool within = true;
            const auto views = a.sim->tasks();
            for (int t : covered(a.rec(), ti)) {
                int64_t biggest = 0;
                for (const Record& r : a.rec().records())
                    if (r.kind == RecordKind::Place && r.entity == EntityRef::task(t)
                        && r.time >= from)
                        biggest = std::max(biggest, std::abs(r.payload.generic.c));
                const auto idx = static_cast<size_t>(t);
                const int64_t w = idx < views.size()
                    ? std::max<int64_t>(1, static_cast<int64_t>(scaleLoadDown(views[idx].weight)))
                    : 1024;
                const Nanoseconds own =
                    std::max(idx < slices.size() ? 2 * slices[idx] : 2 * a.sim->baseSlice(), tick);
                const Nanoseconds maxTick = maxSlice + tick;
                const int64_t limit = std::min(own, maxTick).count() * 1024 / w;
                if (biggest >= limit)
                    within = false;
                if (worstTask.empty() || biggest * worstLimit > worst * limit) {
                    worst = biggest;
                    worstLimit = limit;
                    worstTask = a.rec().taskNames[idx];
                }
            }
            if (within && !worstTask.empty())
                lines.push_back("lag_clamp had no effect: the largest saved |lag| (" + worstTask
                    + ", " + us(worst)
                    + ") is below both limits, max(2·slice, "
                      "TICK) and max_slice + TICK ("
                    + us(worstLimit) + " for its weight, the smaller): no lag was ever cut.");
            else
                lines.push_back("lag_clamp changed saved lags but no pick.");
        } else {
            lines.push_back(
                (k.choice ? k.name + "=" + k.value : k.name) + " changed nothing that ran.");
        }
    }
}

} // namespace

std::optional<NoChange> whyNothingChanged(const Scenario& scenario, const RunOptions& base,
    const std::string& variant, const std::string& task, std::string* error)
{
    RunOptions changed = base;
    std::string why;
    if (!applyVariant(variant, changed, &why)) {
        if (error)
            *error = why;
        return std::nullopt;
    }
    const Run a = runFully(scenario, base);
    const Run b = runFully(scenario, changed);
    const int ti = task.empty() ? -1 : taskIndex(a.rec(), task);
    if (!task.empty() && ti < 0) {
        if (error)
            *error = "no task \"" + task + "\" in the run";
        return std::nullopt;
    }
    NoChange out;
    out.change = variant;
    out.task = task;
    out.wholeRun = switches(a.rec(), -1) == switches(b.rec(), -1);
    if (!out.wholeRun) {
        if (ti < 0)
            return std::nullopt;
        const int tb = taskIndex(b.rec(), task);
        const auto ma = a.sim->metrics();
        const auto mb = b.sim->metrics();
        auto cpu = [&](const Metrics& m) {
            for (const auto& t : m.tasks)
                if (t.name == task)
                    return t.cpuTimeNs;
            return int64_t{-1};
        };
        if (switches(a.rec(), ti) != switches(b.rec(), tb) || cpu(ma) != cpu(mb))
            return std::nullopt;
    }
    const std::string scope = out.wholeRun ? "the run" : task;
    out.lines.push_back(variant + " changed nothing in " + scope + ": every switch"
        + (out.wholeRun ? "" : " to " + task) + " happens at the same time on the same CPU.");
    explainTokens(tokens(variant), scenario, base, a, scenario, changed, b, ti, 0, out.lines);
    return out;
}

std::string describeEdit(const Action& action)
{
    std::string what;
    switch (action.kind) {
    case Action::Kind::Feature:
        for (const auto& [name, on] : action.features)
            what += (what.empty() ? "" : ", ") + name + (on ? " on" : " off");
        break;
    case Action::Kind::Profile:
        if (action.profile)
            what = "profile " + *action.profile;
        for (const auto& [name, value] : action.overrides)
            what += (what.empty() ? "" : ", ") + name + "=" + value;
        break;
    case Action::Kind::Move:
        what = "moving " + action.task + " to " + action.cgroup;
        break;
    default:
        break;
    }
    if (what.empty())
        what = "the edit";
    return what + " at " + ms(action.at.count());
}

std::optional<NoChange> whyEditChangedNothing(const Scenario& before, const Scenario& after,
    const RunOptions& options, const Action& action, std::string* error,
    const std::atomic<bool>* cancel)
{
    try {
        const Run a = runFully(before, options, cancel);
        const Run b = runFully(after, options, cancel);
        const int64_t from = action.at.count();
        auto since = [from](std::vector<Switch> v) {
            std::erase_if(v, [from](const Switch& s) { return std::get<0>(s) < from; });
            return v;
        };
        if (since(switches(a.rec(), -1)) != since(switches(b.rec(), -1)))
            return std::nullopt;
        NoChange out;
        out.change = describeEdit(action);
        out.wholeRun = true;
        out.lines.push_back(out.change + " changed nothing: every switch from " + ms(from)
            + " on happens at the same time on the same CPU as before the edit.");
        std::vector<Token> toks;
        if (action.kind == Action::Kind::Feature)
            for (const auto& [name, on] : action.features)
                toks.push_back(Token{name, on, {}, false});
        else if (action.kind == Action::Kind::Profile)
            for (const auto& [name, value] : action.overrides)
                toks.push_back(Token{name, true, value, true});
        explainTokens(toks, before, options, a, after, options, b, -1, from, out.lines);
        return out;
    } catch (const Cancelled&) {
        if (error)
            *error = "cancelled";
        return std::nullopt;
    } catch (const std::exception& e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

} // namespace schedlab::lesson
