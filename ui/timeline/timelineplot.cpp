// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/timelineplot.h"

#include <QScopedValueRollback>

#include <algorithm>

namespace schedlab::ui {

namespace {

/// renderImage()'s paint buffers. Above one device pixel per layout pixel their painters widen
/// hairlines (width-0 pens, 1 device pixel whatever the scale) to one layout pixel, as
/// QCustomPlot::toPixmap() does above scale 1 and as the SVG and PDF captures draw them
/// (QCPPainter::pmNonCosmetic): a line is then 1/96 inch wide in every format at every dpi.
/// At scale 1 the painters are QCPPaintBufferPixmap's, so a 96 dpi PNG is the window's pixels.
class CaptureBuffer : public QCPPaintBufferPixmap
{
public:
    using QCPPaintBufferPixmap::QCPPaintBufferPixmap;
    QCPPainter* startPainting() override
    {
        QCPPainter* painter = QCPPaintBufferPixmap::startPainting();
        if (mDevicePixelRatio > 1)
            painter->setMode(QCPPainter::pmNonCosmetic);
        return painter;
    }
};

} // namespace

void TimelinePlot::updateLayout()
{
    QCustomPlot::updateLayout();
    if (!m_hook)
        return;
    // Outside draw(): the window's replot into its paint buffers.
    const double scale = m_drawScale > 0 ? m_drawScale : bufferDevicePixelRatio();
    // New data may rescale the value axes, whose tick labels set the panes' margins: lay out
    // again until the panes' widths are those the data were decimated for (twice at most).
    for (int pass = 0; pass < 2 && m_hook(scale); ++pass)
        QCustomPlot::updateLayout();
}

QImage TimelinePlot::renderImage(QSize size, double scale)
{
    // The window's path without its widget geometry (a capture's view is never shown): the
    // layout at @p size, replot() into the paint buffers, then what paintEvent() does with them.
    const QRect oldViewport = viewport();
    const double oldRatio = bufferDevicePixelRatio();
    setViewport(QRect(QPoint(0, 0), size));
    // As many buffers as replot()'s setupPaintBuffers() will use (one, then one per buffered
    // layer and one after it when a logical layer follows), so it keeps these and adds none.
    qsizetype buffers = 1;
    for (int i = 0; i < layerCount(); ++i) {
        if (layer(i)->mode() != QCPLayer::lmBuffered)
            continue;
        ++buffers;
        if (i + 1 < layerCount() && layer(i + 1)->mode() == QCPLayer::lmLogical)
            ++buffers;
    }
    const QList<QSharedPointer<QCPAbstractPaintBuffer>> oldBuffers = mPaintBuffers;
    mPaintBuffers.clear();
    for (qsizetype i = 0; i < buffers; ++i)
        mPaintBuffers.append(
            QSharedPointer<QCPAbstractPaintBuffer>(new CaptureBuffer(size, scale)));
    setBufferDevicePixelRatio(scale);
    replot(rpQueuedRefresh);
    QImage image(qRound(size.width() * scale), qRound(size.height() * scale),
        QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    {
        QCPPainter painter(&image);
        if (mBackgroundBrush.style() != Qt::NoBrush)
            painter.fillRect(mViewport, mBackgroundBrush);
        drawBackground(&painter);
        for (const QSharedPointer<QCPAbstractPaintBuffer>& buffer : mPaintBuffers)
            buffer->draw(&painter);
    }
    image.setDevicePixelRatio(1.0);
    // The plot's own buffers back (its layers find them at the next replot's setup).
    mPaintBuffers = oldBuffers;
    setBufferDevicePixelRatio(oldRatio);
    setViewport(oldViewport);
    return image;
}

void TimelinePlot::draw(QCPPainter* painter)
{
    // toPixmap() scales the painter by the capture's dpi / 96; a vector device says nothing.
    const double painterScale = std::abs(painter->transform().m11());
    const QScopedValueRollback<double> scale(
        m_drawScale, std::max(painterScale > 0 ? painterScale : 1.0, m_vectorScale));
    QCustomPlot::draw(painter);
}

} // namespace schedlab::ui
