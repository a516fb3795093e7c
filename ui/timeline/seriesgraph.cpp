// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/seriesgraph.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace schedlab::ui {

namespace {

/// A raster painter whose transform only scales and moves: device rectangles can be filled
/// directly (the raster engine's fast path).
bool plainRaster(const QCPPainter* painter)
{
    return !painter->modes().testFlag(QCPPainter::pmVectorized)
        && painter->transform().type() <= QTransform::TxScale;
}

/// @p spans as device rectangles under @p t (a raster painter's transform), @p s device pixels
/// per layout pixel: the same pixels as the spans scaled by 1 / @p s and drawn under @p t.
QVector<QRect> deviceRects(const std::vector<ColumnSpan>& spans, const QTransform& t, double s)
{
    const auto devX = [&](int col) {
        return static_cast<int>(std::lround(t.m11() * (col / s) + t.dx()));
    };
    const auto devY = [&](int row) {
        return static_cast<int>(std::lround(t.m22() * (row / s) + t.dy()));
    };
    QVector<QRect> rects;
    rects.reserve(static_cast<qsizetype>(spans.size()));
    for (const ColumnSpan& span : spans) {
        const int x0 = devX(span.columnBegin);
        const int y0 = devY(span.rowBegin);
        rects.append(QRect(x0, y0, devX(span.columnEnd) - x0, devY(span.rowEnd) - y0));
    }
    return rects;
}

int64_t bits(double v)
{
    return std::bit_cast<int64_t>(v);
}

} // namespace

SeriesGraph::SeriesGraph(
    QCPAxis* key, QCPAxis* value, const double* scale, std::shared_ptr<PaneColumns> pane)
    : QCPGraph(key, value)
    , m_scale(scale)
    , m_pane(std::move(pane))
{
    if (m_pane)
        m_pane->add(this);
}

SeriesGraph::~SeriesGraph()
{
    if (m_pane)
        m_pane->remove(this);
}

void SeriesGraph::draw(QCPPainter* painter)
{
    if (m_columns && lineStyle() == lsLine && !mDataContainer->isEmpty()) {
        if (m_pane && plainRaster(painter)) {
            // The pane's dense series together, by the first of them.
            if (m_pane->leader() == this)
                m_pane->draw(painter);
            return;
        }
        drawColumns(painter);
        return;
    }
    // QCustomPlot strokes on pixel centres in a raster (half a pixel down and right) but not in
    // a vector device: shifted there too, so an SVG or PDF rasterized at the PNG's resolution
    // puts each line on the PNG's pixels.
    const bool shift = painter->modes().testFlag(QCPPainter::pmVectorized) && antialiased();
    if (shift)
        painter->translate(0.5, 0.5);
    QCPGraph::draw(painter);
    if (shift)
        painter->translate(-0.5, -0.5);
}

std::vector<ColumnSpan> SeriesGraph::spans() const
{
    QCPGraphDataContainer::const_iterator begin, end;
    getVisibleDataBounds(begin, end, QCPDataRange(0, dataCount()));
    std::vector<PixelPoint> points;
    points.reserve(static_cast<size_t>(end - begin));
    for (auto it = begin; it != end; ++it)
        points.push_back({keyAxis()->coordToPixel(it->key),
            std::isnan(it->value) ? it->value : valueAxis()->coordToPixel(it->value)});
    const double s = deviceScale();
    const QRect c = clipRect();
    const DeviceClip clip{static_cast<int>(std::floor(c.left() * s)),
        static_cast<int>(std::floor(c.top() * s)),
        static_cast<int>(std::ceil((c.left() + c.width()) * s)),
        static_cast<int>(std::ceil((c.top() + c.height()) * s))};
    return columnSpans(points, s, pen().widthF(), clip);
}

void SeriesGraph::drawColumns(QCPPainter* painter)
{
    const std::vector<ColumnSpan> spans = this->spans();
    const double s = deviceScale();
    const QColor colour = pen().color();
    const QTransform t = painter->transform();
    painter->save();
    painter->setAntialiasing(false); // edges on the device grid: nothing to smooth
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    if (plainRaster(painter)) {
        // A raster: the spans in device pixels, filled as integer rectangles (the raster
        // engine's fast path; the same pixels as the scaled rectangles below).
        painter->resetTransform();
        painter->drawRects(deviceRects(spans, t, s));
    } else {
        QVector<QRectF> rects;
        rects.reserve(static_cast<qsizetype>(spans.size()));
        for (const ColumnSpan& span : spans)
            rects.append(QRectF(span.columnBegin / s, span.rowBegin / s,
                (span.columnEnd - span.columnBegin) / s, (span.rowEnd - span.rowBegin) / s));
        painter->drawRects(rects);
    }
    painter->restore();
}

void PaneColumns::remove(SeriesGraph* g)
{
    m_members.erase(std::remove(m_members.begin(), m_members.end(), g), m_members.end());
    invalidate();
}

const SeriesGraph* PaneColumns::leader() const
{
    for (const SeriesGraph* g : m_members)
        if (g->drawnAsColumns())
            return g;
    return nullptr;
}

void PaneColumns::draw(QCPPainter* painter)
{
    const QTransform t = painter->transform();
    std::vector<const SeriesGraph*> drawn;
    for (const SeriesGraph* g : m_members)
        if (g->drawnAsColumns())
            drawn.push_back(g);
    if (drawn.empty())
        return;
    // Everything the pixels depend on besides the data (m_generation).
    const SeriesGraph* first = drawn.front();
    const QRect clip = first->clipRect();
    std::vector<int64_t> key{static_cast<int64_t>(m_generation), bits(first->deviceScale()),
        bits(t.m11()), bits(t.m22()), bits(t.dx()), bits(t.dy()), clip.left(), clip.top(),
        clip.width(), clip.height()};
    for (const SeriesGraph* g : drawn) {
        const QCPRange keys = g->keyAxis()->range();
        const QCPRange values = g->valueAxis()->range();
        key.insert(key.end(),
            {static_cast<int64_t>(reinterpret_cast<uintptr_t>(g)), g->pen().color().rgba(),
                bits(g->pen().widthF()), bits(keys.lower), bits(keys.upper), bits(values.lower),
                bits(values.upper), g->dataCount(), bits(g->keyAxis()->coordToPixel(keys.lower)),
                bits(g->valueAxis()->coordToPixel(values.lower)),
                bits(g->valueAxis()->coordToPixel(values.upper)),
                bits(g->keyAxis()->coordToPixel(keys.upper))});
    }
    if (!m_caching || key != m_key) {
        std::vector<QVector<QRect>> rects;
        QRect bounds;
        for (const SeriesGraph* g : drawn) {
            rects.push_back(deviceRects(g->spans(), t, g->deviceScale()));
            for (const QRect& r : rects.back())
                bounds |= r;
        }
        m_image = QImage();
        m_at = bounds.topLeft();
        if (!bounds.isEmpty()) {
            m_image = QImage(bounds.size(), QImage::Format_ARGB32_Premultiplied);
            m_image.fill(Qt::transparent);
            QPainter p(&m_image);
            p.translate(-bounds.left(), -bounds.top());
            p.setPen(Qt::NoPen);
            for (size_t k = 0; k < drawn.size(); ++k) {
                p.setBrush(drawn[k]->pen().color());
                p.drawRects(rects[k]);
            }
        }
        m_key = m_caching ? std::move(key) : std::vector<int64_t>{};
    }
    if (m_image.isNull())
        return;
    painter->save();
    painter->resetTransform();
    painter->drawImage(m_at, m_image);
    painter->restore();
}

} // namespace schedlab::ui
