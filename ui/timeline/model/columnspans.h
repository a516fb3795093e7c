// SPDX-License-Identifier: GPL-2.0-or-later
// How a dense line is painted: as the rows it covers in each device pixel column. A polyline
// of thousands of points drawn smoothed costs most of a whole-run redraw, and drawn aliased it
// is rounded segment by segment (two segments in one column, none in the next: stripes that
// are not in the data). Column spans are what an ideal 1-pixel line through the points covers:
// in every column the line crosses, from its lowest to its highest value there (the segments
// interpolated at the column's edges), widened by the pen. The spans sit on the device pixel
// grid, so the PNG and an SVG or PDF rasterized at the same resolution paint the same pixels.
#pragma once

#include <vector>

namespace schedlab::ui {

/// A point in layout pixels (the painter's coordinates before the device scale); a NaN y
/// breaks the line (no segment joins across it).
struct PixelPoint
{
    double x = 0;
    double y = 0;
};

/// Device pixels [columnBegin, columnEnd) × [rowBegin, rowEnd) the line covers; consecutive
/// columns covering the same rows are one span.
struct ColumnSpan
{
    int columnBegin = 0;
    int columnEnd = 0;
    int rowBegin = 0;
    int rowEnd = 0;

    bool operator==(const ColumnSpan&) const = default;
};

/// The device area a line may cover: spans are computed only inside it (a segment from far
/// outside is cut at its edges; values far above or below are held just outside it).
struct DeviceClip
{
    int left = 0;
    int top = 0;
    int right = 0;  ///< exclusive
    int bottom = 0; ///< exclusive
};

/// The spans of @p points (in x order) joined straight except across NaN y, on a device grid of
/// @p scale device pixels per layout pixel, for a pen @p penWidth layout pixels wide (at least
/// one device pixel): in each device column c the segments crossing [c, c + 1) cover the rows
/// from ⌊ymin·scale − w/2 + ½⌋ to ⌊ymax·scale + w/2 + ½⌋ (at least one row), and the pen
/// widens the column to [⌊c + ½ − w/2 + ½⌋, ⌊c + ½ + w/2 + ½⌋), w = penWidth·scale. A point on
/// its own (NaN on both sides) covers its pixel.
std::vector<ColumnSpan> columnSpans(
    const std::vector<PixelPoint>& points, double scale, double penWidth, const DeviceClip& clip);

} // namespace schedlab::ui
