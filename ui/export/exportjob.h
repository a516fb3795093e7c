// SPDX-License-Identifier: GPL-2.0-or-later
// A long export off the GUI thread: the job runs on a worker thread and writes its file through
// schedlab-cli's file writer (ui/common/savefile.h: whole or not at all) while the GUI thread shows
// a progress dialog with Cancel and keeps handling events. The exports themselves are the
// bounded-memory writers of core/record/streamexport.h.
#pragma once

#include <QString>

#include <atomic>
#include <cstddef>
#include <functional>

class QWidget;

namespace schedlab::ui {

/// What a job sees: how far it is (records done of total) and whether Cancel was pressed.
struct ExportProgress
{
    std::atomic<size_t> done{0};
    std::atomic<size_t> total{1};
    std::atomic<bool> cancelled{false};
};

/// Runs @p job on a worker thread and waits for it with a progress dialog titled @p label (shown
/// after half a second), the GUI's events still handled. The job returns an error message, empty
/// on success. Returns the job's message, or "cancelled" when Cancel stopped it.
QString runExportJob(QWidget* parent, const QString& label,
    const std::function<QString(ExportProgress& progress)>& job);

} // namespace schedlab::ui
