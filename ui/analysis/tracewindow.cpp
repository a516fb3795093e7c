// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/analysis/tracewindow.h"

#include "core/base/time.h"
#include "ui/timeline/timelineview.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace schedlab::ui {

namespace {

QString human(int64_t ns)
{
    return QString::fromStdString(formatDurationHuman(Nanoseconds(ns)));
}

} // namespace

TraceWindow* TraceWindow::open(const QString& path, QWidget* parent, QString* error)
{
    auto import = std::make_unique<TraceImport>(importFtraceFile(path.toStdString()));
    if (!import->ok()) {
        QStringList lines;
        for (const auto& e : import->errors)
            lines << QString::fromStdString(e);
        if (error)
            *error = lines.join(QLatin1Char('\n'));
        return nullptr;
    }
    return new TraceWindow(std::move(import), path, parent);
}

TraceWindow::TraceWindow(std::unique_ptr<TraceImport> import, const QString& path, QWidget* parent)
    : QMainWindow(parent)
    , m_import(std::move(import))
{
    setAttribute(Qt::WA_DeleteOnClose);
    const Metrics& m = m_import->metrics;
    setWindowTitle(tr("%1 — real trace%2")
                       .arg(path,
                           m_import->kernel.empty()
                               ? QString()
                               : tr(", Linux %1").arg(QString::fromStdString(m_import->kernel))));

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    m_absent = new QLabel(tr("Real kernel trace: %1 traced on %2 CPUs, %3 scheduler events. "
                             "vruntime, deadline and lag: absent (a trace does not carry them).")
                              .arg(human(m.durationNs))
                              .arg(m.cpus.size())
                              .arg(m_import->events),
        central);
    m_absent->setWordWrap(true);
    layout->addWidget(m_absent);
    m_timeline = new TimelineView(central);
    m_timeline->setHintsVisible(false); // no machine tree here to select tasks in
    m_timeline->setRecording(&m_import->recording, Nanoseconds(m.durationNs));
    m_timeline->setNow(Nanoseconds(m.durationNs));
    m_timeline->setFollow(false);
    m_timeline->zoomToFit();
    layout->addWidget(m_timeline, 1);
    setCentralWidget(central);

    // The metrics of `schedlab-cli import`, busiest tasks first.
    m_table = new QTableWidget(static_cast<int>(m.tasks.size()), 7, this);
    m_table->setHorizontalHeaderLabels({tr("task"), tr("cgroup"), tr("CPU"), tr("share"),
        tr("wait max"), tr("wait p99"), tr("switches")});
    std::vector<const TaskMetrics*> tasks;
    for (const auto& t : m.tasks)
        tasks.push_back(&t);
    std::stable_sort(tasks.begin(), tasks.end(),
        [](const TaskMetrics* a, const TaskMetrics* b) { return a->cpuTimeNs > b->cpuTimeNs; });
    for (int row = 0; row < static_cast<int>(tasks.size()); ++row) {
        const TaskMetrics& t = *tasks[static_cast<size_t>(row)];
        const QStringList cells{QString::fromStdString(t.name),
            t.cgroup.empty() ? QStringLiteral("-") : QString::fromStdString(t.cgroup),
            human(t.cpuTimeNs), QString::number(t.share * 100.0, 'f', 2) + QLatin1Char('%'),
            human(t.waitMaxNs), human(t.waitP99Ns), QString::number(t.switches)};
        for (int col = 0; col < cells.size(); ++col)
            m_table->setItem(row, col, new QTableWidgetItem(cells[col]));
    }
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* dock = new QDockWidget(tr("Tasks"), this);
    dock->setObjectName(QStringLiteral("traceTasksDock"));
    dock->setWidget(m_table);
    addDockWidget(Qt::BottomDockWidgetArea, dock);

    QStringList notes;
    for (const auto& [name, n] : m_import->unknownEvents)
        notes << tr("%1 × %2 skipped").arg(n).arg(QString::fromStdString(name));
    for (const auto& w : m_import->warnings)
        notes << QString::fromStdString(w);
    if (!notes.isEmpty())
        m_absent->setToolTip(notes.join(QLatin1Char('\n')));
    resize(1200, 800);
}

void addOpenTraceAction(QMenu* fileMenu, QWidget* parent)
{
    fileMenu->addAction(QObject::tr("Open &trace…"), parent, [parent] {
        const QString path = QFileDialog::getOpenFileName(parent, QObject::tr("Open trace"),
            QString(), QObject::tr("ftrace text (*.txt *.trace);;All files (*)"));
        if (path.isEmpty())
            return;
        QString error;
        if (TraceWindow* w = TraceWindow::open(path, parent, &error))
            w->show();
        else
            QMessageBox::warning(parent, QObject::tr("Open trace"), error);
    });
}

} // namespace schedlab::ui
