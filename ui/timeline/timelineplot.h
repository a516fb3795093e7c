// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline's QCustomPlot: every drawing of it — the window's replot, a grab for
// --screenshot, and the PNG, SVG and PDF captures (QCustomPlot::toPixmap(), toPainter()) — lays
// the plot out first, and this plot tells its view each time it has, with the number of device
// pixels per layout pixel it is about to draw at. The view then decimates its series for the
// pane's real pixel columns (envelope.h) before anything is painted: one renderer, one
// decimation, whatever the output.
#pragma once

#include "ui/timeline/qcp.h"

#include <functional>

namespace schedlab::ui {

class TimelinePlot : public QCustomPlot
{
public:
    using QCustomPlot::QCustomPlot;
    /// Called after each layout with the device pixels per layout pixel of the drawing to come;
    /// returns true when it changed something that may move the layout (axis ranges, hence
    /// tick label widths): the plot is then laid out once more.
    void setLayoutHook(std::function<bool(double)> hook) { m_hook = std::move(hook); }
    /// Device pixels per layout pixel for drawings into a vector device (SVG, PDF), where the
    /// painter's transform says nothing of the resolution: the capture's dpi / 96. 0: none.
    void setVectorScale(double scale) { m_vectorScale = scale; }
    /// The plot at @p size layout pixels drawn exactly as the window draws it (replot into the
    /// paint buffers at @p scale device pixels per layout pixel, then the widget's paint), into
    /// an image of size · scale pixels. The PNG captures use this, so a capture at 96 dpi is
    /// pixel for pixel what a window of that size shows. Leaves the plot at its old size.
    QImage renderImage(QSize size, double scale);

protected:
    void updateLayout() override;
    void draw(QCPPainter* painter) override;

private:
    std::function<bool(double)> m_hook;
    double m_drawScale = 0; ///< while draw() runs: the painter's scale
    double m_vectorScale = 0;
};

} // namespace schedlab::ui
