// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/lagband.h"

#include "core/record/recording.h"
#include "ui/timeline/model/envelope.h"

#include <algorithm>
#include <iterator>

namespace schedlab::ui {

std::vector<ChoiceEpoch> choiceEpochs(const std::string& startProfile, const ProfileChoices& start,
    const std::vector<Action>& actions)
{
    std::vector<ChoiceEpoch> out{{Nanoseconds{0}, startProfile, start, {}}};
    std::vector<const Action*> ordered;
    for (const Action& a : actions)
        if (a.kind == Action::Kind::Profile)
            ordered.push_back(&a);
    // Actions at one time run in file order (stable).
    std::stable_sort(ordered.begin(), ordered.end(),
        [](const Action* a, const Action* b) { return a->at < b->at; });
    for (const Action* a : ordered) {
        ChoiceEpoch next = out.back();
        next.at = a->at;
        next.changes.clear();
        const ProfileChoices before = next.choices;
        if (a->profile) {
            if (const KernelProfile* p = findProfile(*a->profile)) {
                if (p->name != next.profile)
                    next.changes.push_back("profile " + p->name);
                next.profile = p->name;
                next.choices = p->choices;
            }
        }
        for (const auto& [choice, value] : a->overrides)
            applyChoice(next.choices, choice, value);
        // As Machine::apply: the run-queue layout is fixed for a run.
        next.choices.flat = before.flat;
        if (next.choices.flat && next.choices.throttle == ThrottleModel::Group)
            next.choices.throttle = ThrottleModel::Task;
        for (const std::string& name : choiceNames()) {
            const std::string value = choiceValue(next.choices, name);
            if (value != choiceValue(before, name))
                next.changes.push_back(name + "=" + value);
        }
        if (next.changes.empty())
            continue;
        if (next.at == out.back().at && out.size() > 1) { // two actions at one time: one change
            next.changes.insert(
                next.changes.begin(), out.back().changes.begin(), out.back().changes.end());
            out.back() = next;
        } else {
            out.push_back(next);
        }
    }
    return out;
}

ClampRules clampRules(const std::vector<ChoiceEpoch>& epochs)
{
    ClampRules out;
    for (const ChoiceEpoch& e : epochs)
        if (out.empty() || out.back().second != e.choices.lagClamp)
            out.emplace_back(e.at, e.choices.lagClamp);
    return out;
}

int64_t lagBandLimit(LagClamp rule, int64_t sliceNs, int64_t tickNs, uint32_t weight)
{
    if (weight == 0)
        return 0;
    // §4.1 step 3: the span in real ns, then calc_delta_fair() (NICE_0_LOAD scaled = 2^20).
    const int64_t span =
        rule == LagClamp::OwnSlice ? std::max(2 * sliceNs, tickNs) : sliceNs + tickNs;
    // Spans beyond 2^42 ns (73 min) are cut there, so the shift cannot overflow.
    const int64_t x = std::clamp<int64_t>(span, 0, int64_t{1} << 42);
    return (x << 20) / static_cast<int64_t>(weight);
}

SliceSteps queueMaxSlices(const std::vector<EntitySample>& samples,
    const std::function<const SliceSteps*(int cpu, int group)>& queue)
{
    SliceSteps out;
    const auto add = [&](Nanoseconds t, int64_t v) {
        if (out.empty() || out.back().second != v)
            out.emplace_back(t, v);
    };
    for (size_t i = 0; i < samples.size(); ++i) {
        const EntitySample& s = samples[i];
        if (!(s.flags & Record::kQueued))
            continue; // dequeued: the value it left with holds
        const int group = std::max<int>(0, s.group);
        const SliceSteps* q = queue ? queue(s.cpu, group) : nullptr;
        if (!q && group != 0)
            q = queue(s.cpu, 0);
        if (!q || q->empty())
            continue;
        const Nanoseconds next = i + 1 < samples.size() ? samples[i + 1].time : Nanoseconds::max();
        auto it = std::upper_bound(q->begin(), q->end(), s.time,
            [](Nanoseconds t, const std::pair<Nanoseconds, int64_t>& step) {
                return t < step.first;
            });
        if (it != q->begin())
            add(s.time, std::prev(it)->second);
        for (; it != q->end() && it->first < next; ++it)
            add(it->first, it->second);
    }
    return out;
}

std::vector<LinePoint> lagBand(const std::vector<LinePoint>& weight, const ClampRules& rules,
    const std::vector<std::pair<Nanoseconds, int64_t>>& slices, int64_t defaultSlice,
    int64_t tickNs, Nanoseconds until, const SliceSteps& queueSlices)
{
    if (weight.empty())
        return {};
    const Nanoseconds start = weight.front().time;
    // Every time where one of the three may change, from the band's start.
    // Three lists in time order each: merged, not sorted (a whole-run band has thousands).
    std::vector<Nanoseconds> times;
    times.reserve(weight.size() + rules.size() + slices.size() + queueSlices.size());
    for (const LinePoint& p : weight)
        times.push_back(p.time);
    if (!std::is_sorted(times.begin(), times.end()))
        std::sort(times.begin(), times.end());
    const auto mergeIn = [&](const auto& changes) {
        const auto middle = static_cast<std::ptrdiff_t>(times.size());
        for (const auto& c : changes)
            if (c.first > start && c.first <= until)
                times.push_back(c.first);
        if (!std::is_sorted(times.begin() + middle, times.end()))
            std::sort(times.begin() + middle, times.end());
        std::inplace_merge(times.begin(), times.begin() + middle, times.end());
    };
    mergeIn(rules);
    mergeIn(slices);
    mergeIn(queueSlices);
    times.erase(std::unique(times.begin(), times.end()), times.end());
    std::vector<LinePoint> steps;
    size_t w = 0, r = 0, s = 0, q = 0;
    LagClamp rule = rules.empty() ? LagClamp::MaxSliceTick : rules.front().second;
    int64_t own = slices.empty() ? defaultSlice : slices.front().second;
    int64_t queued = 0; // the queue's largest slice; 0 before its first step (own slice alone)
    for (const Nanoseconds t : times) {
        // The values in force at t: the last of each at or before t (a weight line's two points
        // at one time, old then new value: every weight it held there).
        while (r < rules.size() && rules[r].first <= t)
            rule = rules[r++].second;
        while (s < slices.size() && slices[s].first <= t)
            own = slices[s++].second;
        while (q < queueSlices.size() && queueSlices[q].first <= t)
            queued = queueSlices[q++].second;
        // max_slice_tick: the queue's largest slice, never below the task's own (it is queued
        // there while the kernel takes it).
        const int64_t slice = rule == LagClamp::MaxSliceTick ? std::max(own, queued) : own;
        const size_t firstAtT = w;
        while (w < weight.size() && weight[w].time <= t)
            ++w;
        // Each weight point at t gives a band point (a weight step is a band step); a rule or
        // slice change between weight points holds the weight.
        if (w == firstAtT) {
            steps.push_back(
                {t, lagBandLimit(rule, slice, tickNs, static_cast<uint32_t>(weight[w - 1].value))});
            continue;
        }
        for (size_t k = firstAtT; k < w; ++k)
            steps.push_back(
                {t, lagBandLimit(rule, slice, tickNs, static_cast<uint32_t>(weight[k].value)),
                    weight[k].breakBefore});
    }
    return heldLine(steps, until);
}

} // namespace schedlab::ui
