// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/columnspans.h"

#include <algorithm>
#include <cmath>

namespace schedlab::ui {

namespace {

/// Nearest integer of a device coordinate, held inside [lo, hi] (NaN and far values included).
int roundIn(double v, int lo, int hi)
{
    if (!(v >= lo)) // also NaN
        return lo;
    if (v >= hi)
        return hi;
    return static_cast<int>(std::floor(v + 0.5));
}

class SpanBuilder
{
public:
    SpanBuilder(double deviceWidth, const DeviceClip& clip)
        : m_w(deviceWidth)
        , m_clip(clip)
    { }

    /// The line covers device rows [ylo, yhi] (device units) somewhere in column @p column.
    void cover(int column, double ylo, double yhi)
    {
        if (column != m_column)
            flush();
        if (!m_open) {
            m_column = column;
            m_lo = ylo;
            m_hi = yhi;
            m_open = true;
        } else {
            m_lo = std::min(m_lo, ylo);
            m_hi = std::max(m_hi, yhi);
        }
    }

    /// A break: the next piece's first column is not joined to this piece's last one.
    void endPiece() { flush(); }

    std::vector<ColumnSpan> finish()
    {
        flush();
        return std::move(m_spans);
    }

private:
    void flush()
    {
        if (!m_open)
            return;
        m_open = false;
        const int margin = static_cast<int>(std::ceil(m_w)) + 1;
        const int lo = m_clip.top - margin;
        const int hi = m_clip.bottom + margin;
        int r0 = roundIn(m_lo - m_w / 2, lo, hi);
        int r1 = roundIn(m_hi + m_w / 2, lo, hi);
        if (r1 <= r0)
            r1 = r0 + 1;
        const double centre = m_column + 0.5;
        int c0 = static_cast<int>(std::floor(centre - m_w / 2 + 0.5));
        int c1 = static_cast<int>(std::floor(centre + m_w / 2 + 0.5));
        if (c1 <= c0)
            c1 = c0 + 1;
        c0 = std::max(c0, m_clip.left);
        c1 = std::min(c1, m_clip.right);
        r0 = std::max(r0, m_clip.top);
        r1 = std::min(r1, m_clip.bottom);
        if (c1 <= c0 || r1 <= r0)
            return;
        if (!m_spans.empty()) {
            ColumnSpan& last = m_spans.back();
            if (last.rowBegin == r0 && last.rowEnd == r1 && c0 <= last.columnEnd) {
                last.columnEnd = std::max(last.columnEnd, c1);
                return;
            }
        }
        m_spans.push_back({c0, c1, r0, r1});
    }

    double m_w;
    DeviceClip m_clip;
    std::vector<ColumnSpan> m_spans;
    bool m_open = false;
    int m_column = 0;
    double m_lo = 0;
    double m_hi = 0;
};

} // namespace

std::vector<ColumnSpan> columnSpans(
    const std::vector<PixelPoint>& points, double scale, double penWidth, const DeviceClip& clip)
{
    const double w = std::max(1.0, penWidth * scale);
    SpanBuilder spans(w, clip);
    if (clip.right <= clip.left || clip.bottom <= clip.top)
        return spans.finish();
    // Columns a pen of width w at column c reaches: only those near the clip matter.
    const int reach = static_cast<int>(std::ceil(w)) + 1;
    const double left = clip.left - reach;
    const double right = clip.right + reach;
    const auto column = [](double x) { return static_cast<int>(std::floor(x)); };
    for (size_t i = 0; i < points.size(); ++i) {
        const double xa = points[i].x * scale;
        const double ya = points[i].y * scale;
        if (std::isnan(ya) || std::isnan(xa))
            continue;
        const bool joined =
            i + 1 < points.size() && !std::isnan(points[i + 1].y) && !std::isnan(points[i + 1].x);
        const bool alone = !joined && (i == 0 || std::isnan(points[i - 1].y));
        if (alone) {
            if (xa >= left && xa < right)
                spans.cover(column(xa), ya, ya);
            spans.endPiece();
            continue;
        }
        if (!joined) {
            spans.endPiece(); // the last point of a piece: covered by its segment
            continue;
        }
        const double xb = points[i + 1].x * scale;
        const double yb = points[i + 1].y * scale;
        if (xb < left || xa >= right || xb < xa)
            continue; // outside the clip (or out of order: not drawn)
        const auto yAt = [&](double x) {
            return xb == xa ? ya : ya + (yb - ya) * ((x - xa) / (xb - xa));
        };
        const int c0 = column(std::max(xa, left));
        const int c1 = column(std::min(xb, right));
        for (int c = c0; c <= c1; ++c) {
            const double x0 = std::max(xa, static_cast<double>(c));
            const double x1 = std::min(xb, static_cast<double>(c) + 1);
            if (x1 < x0)
                continue;
            const double y0 = c == column(xa) ? ya : yAt(x0);
            const double y1 = c == column(xb) ? yb : yAt(x1);
            spans.cover(c, std::min(y0, y1), std::max(y0, y1));
        }
    }
    return spans.finish();
}

} // namespace schedlab::ui
