// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/timelineplot.h"

#include <QScopedValueRollback>

#include <algorithm>

namespace schedlab::ui {

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
