// SPDX-License-Identifier: GPL-2.0-or-later
// Consistent task colours: the same task index has the same colour in every view (CPU lanes,
// vruntime graphs, the machine tree).
#pragma once

#include <QColor>

namespace schedlab::ui {

/// A qualitative palette (Tableau 10) extended by lightness steps past ten tasks.
QColor taskColor(int taskIndex);
/// Cgroup colours (lanes coloured by cgroup, group weight pane): the task palette shifted, so
/// that the root and the first groups differ from the first tasks.
inline QColor groupColor(int groupIndex)
{
    return taskColor(groupIndex + 3);
}

} // namespace schedlab::ui
