// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/export/exportjob.h"

#include <QEventLoop>
#include <QProgressDialog>
#include <QThread>
#include <QTimer>

namespace schedlab::ui {

QString runExportJob(QWidget* parent, const QString& label,
    const std::function<QString(ExportProgress& progress)>& job)
{
    ExportProgress progress;
    QString result;
    QThread* worker = QThread::create([&] { result = job(progress); });
    QEventLoop loop;
    QObject::connect(worker, &QThread::finished, &loop, &QEventLoop::quit);
    QProgressDialog dialog(label, QObject::tr("Cancel"), 0, 1000, parent);
    dialog.setWindowModality(Qt::WindowModal); // no edits of the run while it is read
    dialog.setMinimumDuration(500);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    QObject::connect(
        &dialog, &QProgressDialog::canceled, &dialog, [&] { progress.cancelled = true; });
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, &dialog, [&] {
        const size_t total = std::max<size_t>(progress.total, 1);
        dialog.setValue(static_cast<int>(std::min<size_t>(progress.done * 1000 / total, 999)));
    });
    timer.start(100);
    worker->start();
    if (!worker->isFinished())
        loop.exec();
    worker->wait();
    delete worker;
    timer.stop();
    dialog.reset();
    if (progress.cancelled && result.isEmpty())
        return QObject::tr("cancelled");
    return result;
}

} // namespace schedlab::ui
