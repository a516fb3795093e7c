// SPDX-License-Identifier: GPL-2.0-or-later
// Captures of a time window of a recording as PNG, SVG or PDF, drawn by the GUI's own
// TimelineView (CPU lanes + vruntime pane) on an offscreen widget, with a title, the legend and
// axis labels. Used by the GUI's File > Export menu and by `schedlab-cli capture`.
#pragma once

#include "core/base/time.h"

#include <QPair>
#include <QSize>
#include <QString>
#include <QVector>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {
class Recording;
}

namespace schedlab::ui {

class TimelineView;

enum class CaptureFormat { Png, Svg, Pdf };
/// From the file name's suffix (.png, .svg, .pdf; case-insensitive).
std::optional<CaptureFormat> captureFormatFor(const QString& path);

struct CaptureOptions
{
    Nanoseconds from{0};
    Nanoseconds to{0};
    /// PNG: pixels of the image; SVG/PDF: size of the page in points at @c dpi.
    QSize size{1200, 700};
    /// PNG resolution; drawing (fonts, lines) scales by dpi / 96 so a 300-dpi capture has the
    /// layout of a 96-dpi one with finer detail.
    int dpi = 96;
    QString title;
    QVector<int> tasks; ///< vruntime pane; empty: the view's default (all tasks if ≤ 8)
    QVector<QPair<Nanoseconds, QString>> annotations;
};

/// Draws [from, to] of @p recording (run until @p now) into @p path. False with @p error on
/// failure (unknown suffix, empty window, cannot write).
bool captureRecording(const Recording& recording, Nanoseconds now, const QString& path,
    const CaptureOptions& options, QString* error);

/// `schedlab-cli capture FILE --from T --to T --out x.png|svg|pdf [--entities A,B] [--size WxH]
/// [--dpi N] [--title TEXT] [--profile P] [--feature F] [--override C=V] [--seed N]`.
/// Needs a QApplication. Exit codes as schedlab-cli: 0 ok, 2 bad input.
int runCaptureCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace schedlab::ui
