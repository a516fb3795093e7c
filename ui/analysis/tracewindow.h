// SPDX-License-Identifier: GPL-2.0-or-later
// File ▸ Open trace (docs/real-kernels.md): a real kernel's scheduler trace, imported by
// core/import, in a window of its own: the CPU lanes of the timeline, the per-task metrics and
// what the import skipped. Quantities a trace does not carry (vruntime, deadline, lag) are shown
// as absent, not as zero.
#pragma once

#include "core/import/ftrace.h"

#include <QMainWindow>

#include <memory>

class QMenu;
class QLabel;
class QTableWidget;

namespace schedlab::ui {

class TimelineView;

class TraceWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// Imports @p path; nullptr with the importer's messages in @p error when it cannot be used.
    static TraceWindow* open(const QString& path, QWidget* parent, QString* error);

    const TraceImport& traceImport() const { return *m_import; }
    TimelineView* timeline() const { return m_timeline; }
    QTableWidget* table() const { return m_table; }
    QLabel* absentNote() const { return m_absent; }

private:
    TraceWindow(std::unique_ptr<TraceImport> import, const QString& path, QWidget* parent);

    std::unique_ptr<TraceImport> m_import; ///< owns the recording the timeline shows
    TimelineView* m_timeline = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_absent = nullptr;
};

/// Adds "Open &trace…" to @p fileMenu: a file dialog, then a TraceWindow (or a message box).
void addOpenTraceAction(QMenu* fileMenu, QWidget* parent);

} // namespace schedlab::ui
