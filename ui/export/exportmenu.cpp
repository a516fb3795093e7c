// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/export/exportmenu.h"

#include "core/record/metrics.h"
#include "core/record/streamexport.h"
#include "core/record/traceexport.h"
#include "core/sim/simulation.h"
#include "ui/common/format.h"
#include "ui/common/savefile.h"
#include "ui/export/capture.h"
#include "ui/export/exportjob.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>

#include <ostream>
#include <stdexcept>

namespace schedlab::ui {

namespace {

bool writeFile(const QString& path, const std::string& text, QString* error)
{
    const QString why = saveBytes(path, QByteArray::fromStdString(text)); // ui/common/savefile.h
    if (error && !why.isEmpty())
        *error = why;
    return why.isEmpty();
}

/// Feeds the records of [0, now] to @p writer and finishes it, reporting progress.
bool feedAndFinish(
    const Recording& rec, Nanoseconds now, ExportWriter& writer, ExportProgress& progress)
{
    const bool complete = feedRecording(rec, writer, [&](size_t done, size_t total) {
        progress.done = done;
        progress.total = total;
        return !progress.cancelled;
    });
    if (complete)
        writer.finish(rec, now);
    return complete;
}

} // namespace

bool ExportMenu::runJob(const QString& label,
    const std::function<QString(const Simulation&, ExportProgress&)>& job, QString* error)
{
    const Simulation* sim = m_controller->simulation();
    if (!sim)
        return false;
    if (m_controller->isSeeking()) {
        if (error)
            *error = tr("the run is being re-simulated: export when it is done");
        return false;
    }
    // The worker reads the recording: nothing may append to it meanwhile.
    m_controller->pause();
    const QString message =
        runExportJob(parentWidget(), label, [&](ExportProgress& p) { return job(*sim, p); });
    if (message.isEmpty())
        return true;
    if (error)
        *error = message;
    return false;
}

ExportMenu::ExportMenu(TimelineView* timeline, SimulationController* controller, QWidget* parent)
    : QMenu(tr("&Export"), parent)
    , m_timeline(timeline)
    , m_controller(controller)
{
    addAction(tr("&Capture visible window (PNG, SVG, PDF)…"), this, &ExportMenu::askCapture);
    addAction(tr("&Perfetto trace of visible window…"), this, [this] {
        const QString path = askPath(
            tr("Export trace"), tr("Chrome/Perfetto trace (*.json)"), QStringLiteral(".json"));
        QString error;
        if (!path.isEmpty() && !exportTrace(path, &error))
            Q_EMIT failed(error);
    });
    addAction(tr("CSV of &visible series…"), this, [this] {
        const QString path = askPath(tr("Export CSV"), tr("CSV (*.csv)"), QStringLiteral(".csv"));
        QString error;
        if (!path.isEmpty() && !exportCsv(path, &error))
            Q_EMIT failed(error);
    });
    addAction(tr("&Metrics JSON…"), this, [this] {
        const QString path =
            askPath(tr("Export metrics"), tr("Metrics (*.json)"), QStringLiteral(".json"));
        QString error;
        if (!path.isEmpty() && !exportMetrics(path, &error))
            Q_EMIT failed(error);
    });
}

QString ExportMenu::askPath(const QString& title, const QString& filter, const QString& suffix)
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("exportDirectory")).toString();
    const Simulation* sim = m_controller->simulation();
    const QString base = sim ? toQString(m_controller->scenario().name) : QStringLiteral("run");
    QString path = QFileDialog::getSaveFileName(
        parentWidget(), title, dir + QLatin1Char('/') + base + suffix, filter);
    if (!path.isEmpty())
        settings.setValue(QStringLiteral("exportDirectory"), QFileInfo(path).absolutePath());
    return path;
}

void ExportMenu::askCapture()
{
    const QString path = askPath(tr("Capture"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"), QStringLiteral(".png"));
    if (path.isEmpty())
        return;
    QDialog dialog(parentWidget());
    dialog.setWindowTitle(tr("Capture options"));
    auto* form = new QFormLayout(&dialog);
    auto* width = new QSpinBox;
    auto* height = new QSpinBox;
    auto* dpi = new QSpinBox;
    width->setRange(100, 20000);
    height->setRange(100, 20000);
    dpi->setRange(24, 1200);
    width->setValue(1600);
    height->setValue(900);
    dpi->setValue(96);
    const Simulation* current = m_controller->simulation();
    auto* title = new QLineEdit(current
            ? captureTitle(*current, m_controller->scenario().name, m_timeline->viewStart(),
                m_timeline->viewEnd(), m_controller->scenario().actions)
            : toQString(m_controller->scenario().name));
    form->addRow(tr("Width (logical px at 96 dpi, or pt)"), width);
    form->addRow(tr("Height"), height);
    form->addRow(tr("DPI"), dpi);
    form->addRow(tr("Title"), title);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    if (!captureVisible(
            path, QSize(width->value(), height->value()), dpi->value(), title->text(), &error))
        Q_EMIT failed(error);
}

bool ExportMenu::captureVisible(
    const QString& path, QSize size, int dpi, const QString& title, QString* error)
{
    const Simulation* sim = m_controller->simulation();
    if (!sim) {
        if (error)
            *error = tr("nothing to capture");
        return false;
    }
    CaptureOptions o;
    o.from = m_timeline->viewStart();
    o.to = m_timeline->viewEnd();
    o.size = size;
    o.dpi = dpi;
    o.title = title;
    o.tasks = m_timeline->plottedTasks();
    o.fromSimulation(*sim, m_controller->scenario().actions);
    o.cgroups = taskCgroups(m_controller->scenario());
    o.moves = taskMoves(m_controller->scenario());
    for (const Annotation& a : m_controller->scenario().annotations)
        o.annotations.append({a.at, toQString(a.text)});
    if (!captureRecording(sim->recording(), sim->now(), path, o, error))
        return false;
    Q_EMIT exported(tr("capture %1").arg(path));
    return true;
}

bool ExportMenu::exportTrace(const QString& path, QString* error)
{
    const Simulation* current = m_controller->simulation();
    if (!current)
        return false;
    ExportWindow window;
    window.from = m_timeline->viewStart();
    window.to = std::min(m_timeline->viewEnd(), current->now());
    const std::string title = m_controller->scenario().name;
    const bool ok = runJob(
        tr("Writing the trace…"),
        [&](const Simulation& sim, ExportProgress& progress) {
            return saveStreamed(path, [&](std::ostream& out) {
                ChromeTraceWriter writer(out, window, {}, title);
                return feedAndFinish(sim.recording(), sim.now(), writer, progress);
            });
        },
        error);
    if (ok)
        Q_EMIT exported(tr("trace %1").arg(path));
    return ok;
}

bool ExportMenu::exportCsv(const QString& path, QString* error)
{
    const Simulation* current = m_controller->simulation();
    if (!current)
        return false;
    EntityFilter only;
    for (int t : m_timeline->plottedTasks())
        only.push_back(EntityRef::task(t));
    ExportWindow window;
    window.from = m_timeline->viewStart();
    window.to = std::min(m_timeline->viewEnd(), current->now());
    QString slices = path;
    if (slices.endsWith(QLatin1String(".csv")))
        slices.chop(4);
    slices += QStringLiteral("-slices.csv");
    const bool ok = runJob(
        tr("Writing the CSV…"),
        [&](const Simulation& sim, ExportProgress& progress) {
            QString message = saveStreamed(path, [&](std::ostream& out) {
                SamplesCsvWriter writer(out, window, EntitySelection(only));
                return feedAndFinish(sim.recording(), sim.now(), writer, progress);
            });
            if (message.isEmpty() && !progress.cancelled)
                message = saveStreamed(slices, [&](std::ostream& out) {
                    SlicesCsvWriter writer(out, window, EntitySelection(only));
                    return feedAndFinish(sim.recording(), sim.now(), writer, progress);
                });
            return message;
        },
        error);
    if (ok)
        Q_EMIT exported(tr("CSV %1 and %2").arg(path, slices));
    return ok;
}

bool ExportMenu::exportMetrics(const QString& path, QString* error)
{
    const Simulation* sim = m_controller->simulation();
    if (!sim)
        return false;
    if (!writeFile(path, metricsToJson(sim->metrics()), error))
        return false;
    Q_EMIT exported(tr("metrics %1").arg(path));
    return true;
}

} // namespace schedlab::ui
