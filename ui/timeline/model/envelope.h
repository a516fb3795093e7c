// SPDX-License-Identifier: GPL-2.0-or-later
// The one decimation every series of the timeline goes through before it is drawn, in the
// window, in Compare, in --screenshot and in every capture format: the time window is cut into
// the pane's pixel columns (device pixels: a 300-dpi capture has 300/96 times as many), and in
// each column a line keeps only its first, last, lowest and highest point, in time order. A
// polyline through what is kept covers, column by column, exactly the values the full line
// covers, so nothing is invented and no excursion is lost, at any zoom. The line is first
// clipped to the window: the value at each edge is interpolated on the segment crossing it, so
// no output (PNG, SVG or PDF) depends on the painter's clipping.
#pragma once

#include "core/base/time.h"
#include "ui/timeline/model/entitylines.h"

#include <vector>

namespace schedlab::ui {

/// Start of pixel column @p c of @p columns over [from, to]: from + ⌈(to − from)·c / columns⌉,
/// so t lies in column ⌊(t − from)·columns / (to − from)⌋ (the last column includes `to`).
/// SampleIndex::decimatedSeries() bins on the same edges.
inline Nanoseconds columnEdge(Nanoseconds from, Nanoseconds to, int columns, int c)
{
    const int64_t span = (to - from).count();
    return from + Nanoseconds{(span * c + columns - 1) / columns};
}

/// Column of @p t in [from, to] cut into @p columns; −1 before `from`, @p columns after `to`.
int columnOf(Nanoseconds t, Nanoseconds from, Nanoseconds to, int columns);

/// @p line (points in time order, joined straight unless `breakBefore`) as drawn in
/// [@p from, @p to] at @p columns pixel columns: clipped to the window (an edge point
/// interpolated where a segment crosses an edge; a break stays a break), then each unbroken
/// piece keeps, in every column, its first, last, lowest and highest point (earliest on ties),
/// in their order. At most 4 points per column and piece.
std::vector<LinePoint> envelope(
    const std::vector<LinePoint>& line, Nanoseconds from, Nanoseconds to, int columns);

/// A value held between points (a step function: each point's value until the next point's
/// time) as a line joined straight: a point at the next time with the held value is added
/// before each change.
std::vector<LinePoint> heldLine(const std::vector<LinePoint>& steps, Nanoseconds until);

} // namespace schedlab::ui
