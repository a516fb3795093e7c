// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/envelope.h"

#include <algorithm>

namespace {
__extension__ using Int128 = __int128;
}

namespace schedlab::ui {

int columnOf(Nanoseconds t, Nanoseconds from, Nanoseconds to, int columns)
{
    if (t < from)
        return -1;
    if (t > to)
        return columns;
    const int64_t span = (to - from).count();
    if (span <= 0)
        return 0;
    const auto c = static_cast<int>(static_cast<Int128>((t - from).count()) * columns / span);
    return std::min(c, columns - 1);
}

namespace {

/// The value at @p t on the segment a → b (a.time ≤ t ≤ b.time), rounded toward a.
int64_t interpolate(const LinePoint& a, const LinePoint& b, Nanoseconds t)
{
    const int64_t dt = (b.time - a.time).count();
    if (dt <= 0)
        return b.value;
    const Int128 dv = static_cast<Int128>(b.value) - a.value;
    return a.value + static_cast<int64_t>(dv * (t - a.time).count() / dt);
}

/// @p line clipped to [from, to]; @p edgeIn / @p edgeOut tell whether the first / last point
/// is an interpolated edge crossing.
std::vector<LinePoint> clip(const std::vector<LinePoint>& line, Nanoseconds from, Nanoseconds to,
    bool* edgeIn, bool* edgeOut)
{
    *edgeIn = *edgeOut = false;
    std::vector<LinePoint> out;
    out.reserve(line.size() + 2);
    for (size_t i = 0; i < line.size(); ++i) {
        const LinePoint& p = line[i];
        const bool joined = i > 0 && !p.breakBefore;
        // A segment entering the window (points before `from` are all left out: out is empty).
        if (joined && line[i - 1].time < from && p.time > from) {
            out.push_back({from, interpolate(line[i - 1], p, from), false});
            *edgeIn = true;
        }
        if (p.time < from)
            continue;
        if (p.time > to) {
            // A segment leaving the window.
            if (joined && line[i - 1].time < to) {
                out.push_back({to, interpolate(line[i - 1], p, to), false});
                *edgeOut = true;
            }
            break;
        }
        out.push_back(p);
    }
    if (!out.empty())
        out.front().breakBefore = false;
    return out;
}

} // namespace

std::vector<LinePoint> envelope(
    const std::vector<LinePoint>& line, Nanoseconds from, Nanoseconds to, int columns)
{
    bool edgeIn = false, edgeOut = false;
    std::vector<LinePoint> clipped = clip(line, from, to, &edgeIn, &edgeOut);
    if (columns <= 0 || to <= from)
        return clipped;
    std::vector<LinePoint> out;
    out.reserve(std::min(clipped.size(), static_cast<size_t>(columns) * 4 + 4));
    // One run of points in one column and one unbroken piece at a time; an edge crossing is a
    // run of its own (the column's own first and last points stay).
    const size_t lastEdge = edgeOut ? clipped.size() - 1 : clipped.size();
    size_t i = 0;
    while (i < clipped.size()) {
        const int column = columnOf(clipped[i].time, from, to, columns);
        size_t end = i + 1;
        const bool edge = (i == 0 && edgeIn) || i == lastEdge;
        while (!edge && end < lastEdge && !clipped[end].breakBefore
            && columnOf(clipped[end].time, from, to, columns) == column)
            ++end;
        size_t lo = i, hi = i;
        for (size_t k = i + 1; k < end; ++k) {
            if (clipped[k].value < clipped[lo].value)
                lo = k;
            if (clipped[k].value > clipped[hi].value)
                hi = k;
        }
        size_t keep[4] = {i, lo, hi, end - 1};
        std::sort(std::begin(keep), std::end(keep));
        for (size_t k = 0; k < 4; ++k)
            if (k == 0 || keep[k] != keep[k - 1])
                out.push_back(clipped[keep[k]]);
        i = end;
    }
    return out;
}

std::vector<LinePoint> heldLine(const std::vector<LinePoint>& steps, Nanoseconds until)
{
    std::vector<LinePoint> out;
    out.reserve(2 * steps.size() + 1);
    for (size_t i = 0; i < steps.size(); ++i) {
        if (i > 0 && !steps[i].breakBefore && steps[i].time > steps[i - 1].time)
            out.push_back({steps[i].time, out.back().value});
        out.push_back(steps[i]);
    }
    if (!out.empty() && out.back().time < until)
        out.push_back({until, out.back().value});
    return out;
}

} // namespace schedlab::ui
