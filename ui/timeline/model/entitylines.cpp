// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/entitylines.h"

#include "core/record/recording.h"

namespace schedlab::ui {

EntityLines entityLines(const std::vector<EntitySample>& samples, uint64_t reference,
    Nanoseconds until, const QueueV& queueV)
{
    EntityLines out;
    const auto rel = [reference](uint64_t v) { return static_cast<int64_t>(v - reference); };
    // Running: curr and on the cfs_rq (a task dequeued to sleep stays curr until the next pick).
    const auto running = [](const EntitySample& s) {
        return (s.flags & Record::kCurr) && (s.flags & Record::kQueued);
    };
    for (auto* line : {&out.vruntime, &out.deadline, &out.lag, &out.weight})
        line->reserve(2 * samples.size() + 1);
    out.avg.reserve(samples.size());
    // A waiting entity's lag V − v and V, from its queue's V after sample @p w up to @p end.
    const auto waitFor = [&](const EntitySample& w, Nanoseconds end) {
        if (!queueV || !(w.flags & Record::kQueued) || (w.flags & Record::kCurr) || end <= w.time)
            return;
        for (const auto& [t, v] : queueV(w, end)) {
            if (t <= w.time || t >= end)
                continue;
            out.lag.push_back({t, static_cast<int64_t>(v - w.vruntime)});
            out.avg.push_back({t, rel(v)});
        }
    };
    // A dequeued entity's deadline is not a point on its queue's time line (with
    // PLACE_REL_DEADLINE it is kept relative to its vruntime across a migration): not drawn, the
    // line breaks until the entity is queued again.
    bool deadlineGap = false;
    for (size_t k = 0; k < samples.size(); ++k) {
        const EntitySample& s = samples[k];
        // Another cfs_rq: another CPU (a migration) or another cgroup (a move).
        const bool moved =
            k > 0 && (samples[k - 1].cpu != s.cpu || samples[k - 1].group != s.group);
        if (k > 0 && !s.afterGap && !moved)
            waitFor(samples[k - 1], s.time);
        if (k > 0 && samples[k - 1].time < s.time && !s.afterGap) {
            const EntitySample& prev = samples[k - 1];
            if (!running(prev) && !moved) { // vruntime and deadline hold
                out.vruntime.push_back({s.time, out.vruntime.back().value});
                if (!deadlineGap && !out.deadline.empty())
                    out.deadline.push_back({s.time, out.deadline.back().value});
            }
            if (!(prev.flags & Record::kQueued)) // dequeued: the saved vlag holds
                out.lag.push_back({s.time, out.lag.back().value});
            out.weight.push_back({s.time, out.weight.back().value});
        }
        out.vruntime.push_back({s.time, rel(s.vruntime), moved});
        if (s.flags & Record::kQueued) {
            out.deadline.push_back({s.time, rel(s.deadline), moved || deadlineGap});
            deadlineGap = false;
        } else {
            deadlineGap = true;
        }
        out.lag.push_back({s.time, s.vlag});
        out.avg.push_back({s.time, rel(s.avgVruntime), moved});
        out.weight.push_back({s.time, static_cast<int64_t>(s.weight)});
    }
    if (samples.empty() || samples.back().time >= until)
        return out;
    // Up to `until`: what is known to stay constant after the last sample.
    const EntitySample& last = samples.back();
    waitFor(last, until + Nanoseconds{1});
    if (!running(last)) {
        out.vruntime.push_back({until, out.vruntime.back().value});
        if (!deadlineGap && !out.deadline.empty())
            out.deadline.push_back({until, out.deadline.back().value});
    }
    if (!(last.flags & Record::kQueued))
        out.lag.push_back({until, out.lag.back().value});
    out.weight.push_back({until, out.weight.back().value});
    return out;
}

QueueRelativeLines relativeToQueue(const std::vector<EntitySample>& samples)
{
    QueueRelativeLines out;
    out.vruntime.reserve(samples.size());
    out.deadline.reserve(samples.size());
    bool drawn = false; // the previous sample was queued (a point of the line)
    for (size_t k = 0; k < samples.size(); ++k) {
        const EntitySample& s = samples[k];
        const bool moved =
            k > 0 && (samples[k - 1].cpu != s.cpu || samples[k - 1].group != s.group);
        if (!(s.flags & Record::kQueued)) {
            drawn = false;
            continue;
        }
        const bool breakBefore = !drawn || moved;
        // Signed distances: wrap-safe like the rest of the pane.
        out.vruntime.push_back(
            {s.time, static_cast<int64_t>(s.vruntime - s.avgVruntime), breakBefore});
        out.deadline.push_back(
            {s.time, static_cast<int64_t>(s.deadline - s.avgVruntime), breakBefore});
        drawn = true;
    }
    // The first point of a line has nothing to break from.
    for (auto* line : {&out.vruntime, &out.deadline})
        if (!line->empty())
            line->front().breakBefore = false;
    return out;
}

} // namespace schedlab::ui
