// SPDX-License-Identifier: GPL-2.0-or-later
// From an entity's samples to the lines the vruntime and lag panes draw, with what each quantity
// does between two samples (the recording holds samples at the entity's own events only,
// core/record/recording.h):
//  - vruntime and deadline change only while the entity runs (or at placement): after a sample
//    taken while it was not running (not curr, or dequeued) they hold until the next sample — a
//    wakeup placement is a step;
//  - lag V − v of a queued entity that waits (or is delayed) moves with V as others run: the
//    line joins its samples straight (V is piecewise linear, so this is the chord of the true
//    curve); a dequeued entity keeps its saved vlag, so the line holds until the next sample;
//  - the deadline is drawn only where the entity is queued: a dequeued entity's deadline is
//    stale or, with PLACE_REL_DEADLINE across a migration, relative to its vruntime;
//  - V of the entity's cfs_rq is known only at its samples: joined straight, and not drawn past
//    the last one.
//  - between two samples with left-out (decimated) samples between them nothing is held: the
//    line joins them straight, and every point drawn is a real sample's value;
//  - a sample on another cfs_rq than the previous one (another CPU: a migration; another
//    cgroup: a move) breaks the vruntime, deadline and V lines: they are relative to another
//    cfs_rq from there on.
// Values are integers (ns of virtual time, vruntime relative to a reference), so the rules can
// be tested exactly; the view converts to milliseconds.
#pragma once

#include "ui/timeline/model/sampleindex.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace schedlab::ui {

struct LinePoint
{
    Nanoseconds time{0};
    int64_t value = 0;
    /// The line is broken before this point (the entity changed cfs_rq: vruntime, deadline
    /// and V are in another queue's frame from here).
    bool breakBefore = false;
    friend bool operator==(const LinePoint&, const LinePoint&) = default;
};

struct EntityLines
{
    std::vector<LinePoint> vruntime; ///< relative to the reference
    std::vector<LinePoint> deadline; ///< relative to the reference
    std::vector<LinePoint> lag;      ///< V − v (vlag while dequeued)
    std::vector<LinePoint> avg;      ///< V of the cfs_rq, relative to the reference
    std::vector<LinePoint> weight;   ///< scaled load weight, held between samples
};

/// V of the cfs_rq a waiting sample @p s was taken on, in (s.time, @p end]: (time, V) pairs of
/// real samples in time order (SampleIndex::queueV()).
using QueueV = std::function<std::vector<std::pair<Nanoseconds, uint64_t>>(
    const EntitySample& s, Nanoseconds end)>;

/// Lines of one entity from its samples in time order, held to @p until (the present, or the
/// window's end) where the quantity is known to stay constant. @p reference is subtracted from
/// vruntime, deadline and V as a signed distance (wrap-safe). With @p queueV, the lag and V of
/// an entity that waits (queued, not running) follow its cfs_rq's V between its own samples and
/// after the last one up to @p until: its vruntime holds, so lag = V − v climbs as others run,
/// drawn at the real V values others' samples report (a starving task's lag is on screen
/// although it has no samples of its own).
EntityLines entityLines(const std::vector<EntitySample>& samples, uint64_t reference,
    Nanoseconds until, const QueueV& queueV = {});

/// The vruntime pane's lines on an axis that compares entities of different cfs_rq's: each
/// queued sample's v − V and deadline − V, with V the V of the cfs_rq the entity is queued on
/// (EntitySample::avgVruntime, recorded in the same sample). Raw vruntimes of two cfs_rq's are
/// in unrelated frames (a task in a cgroup and one in the root differ by whatever the two
/// queues' histories were); v − V is the negated lag, the same frame for every queue. Joined
/// straight between samples (V and v are piecewise linear: a chord); not drawn while the
/// entity is dequeued (it is on no queue) and broken where it changes cfs_rq (a migration or a
/// cgroup move). Across left-out (decimated) samples the line joins straight, like the others.
struct QueueRelativeLines
{
    std::vector<LinePoint> vruntime; ///< v − V of the own cfs_rq
    std::vector<LinePoint> deadline; ///< deadline − V of the own cfs_rq
};
QueueRelativeLines relativeToQueue(const std::vector<EntitySample>& samples);

} // namespace schedlab::ui
