// SPDX-License-Identifier: GPL-2.0-or-later
// Consistent task colours: the same task index has the same colour in every view (CPU lanes,
// vruntime graphs, the machine tree).
#pragma once

#include <QColor>
#include <QPalette>

namespace schedlab::ui {

/// A qualitative palette (Tableau 10) extended by lightness steps past ten tasks.
QColor taskColor(int taskIndex);
/// Cgroup colours (lanes coloured by cgroup, group weight pane): the task palette shifted, so
/// that the root and the first groups differ from the first tasks.
inline QColor groupColor(int groupIndex)
{
    return taskColor(groupIndex + 3);
}

/// The dark palette of `schedlab --dark` (Fusion style).
QPalette darkPalette();
/// WCAG 2 contrast ratio of two opaque colours (1 … 21; text wants ≥ 4.5).
double contrastRatio(const QColor& a, const QColor& b);
/// The inspector's row of the entity its cfs_rq picks: a quarter of the highlight over the
/// base, readable with the palette's text in light and dark palettes.
QColor pickedRowBackground(const QPalette& palette);
/// Text of a value that is not eligible: red, light enough on a dark base.
QColor warningText(const QPalette& palette);

} // namespace schedlab::ui
