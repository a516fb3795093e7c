// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/analysis/tracewindow.h"

#include "core/base/time.h"
#include "core/import/replay.h"
#include "core/kernel/profile.h"
#include "core/sim/simulation.h"
#include "ui/timeline/timelineview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QTableWidget>
#include <QToolBar>
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

    // Re-simulate: the trace's workload as a scenario, run by the model under a profile.
    auto* bar = addToolBar(tr("Re-simulate"));
    bar->setObjectName(QStringLiteral("resimulateBar"));
    m_profile = new QComboBox(bar);
    m_profile->addItem(m_import->kernel.empty()
            ? tr("profile: the default")
            : tr("profile: as Linux %1").arg(QString::fromStdString(m_import->kernel)),
        QString());
    for (const KernelProfile& p : kernelProfiles())
        m_profile->addItem(
            tr("profile %1 (%2)")
                .arg(QString::fromStdString(p.name), QString::fromStdString(p.covers)),
            QString::fromStdString(p.name));
    m_profile->setToolTip(tr("The kernel profile the model runs the trace's workload under"));
    m_wakeups = new QComboBox(bar);
    m_wakeups->addItem(tr("wake-ups as wake chains"));
    m_wakeups->addItem(tr("wake-ups as timed sleeps"));
    m_wakeups->setToolTip(tr("Wake chains: a traced task's wake-up of another is replayed as the "
                             "waker completing what the sleeper waits for. Timed sleeps: every "
                             "blocked period is a sleep of its traced length."));
    bar->addWidget(m_profile);
    bar->addWidget(m_wakeups);
    m_resimulate = bar->addAction(tr("Re-simulate"), this, &TraceWindow::resimulate);
    m_resimulate->setObjectName(QStringLiteral("resimulate"));
    m_resimulate->setToolTip(tr("Derive a scenario from this trace, open it in the model's "
                                "window and score the model's run against the trace"));
    m_fidelity = new QLabel(central);
    m_fidelity->setWordWrap(true);
    m_fidelity->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fidelity->setVisible(false);
    layout->insertWidget(1, m_fidelity);
    resize(1200, 800);
}

void TraceWindow::resimulate()
{
    ReplayOptions options;
    options.wakeups = m_wakeups->currentIndex() == 1 ? ReplayOptions::Wakeups::Timed
                                                     : ReplayOptions::Wakeups::Chains;
    if (const QString p = m_profile->currentData().toString(); !p.isEmpty())
        options.profile = p.toStdString();
    auto derived = std::make_shared<ReplayScenario>(deriveScenario(*m_import, options));
    const QString name = QString::fromStdString(derived->scenario.name);
    if (m_opener && !m_opener(derived->scenario, name)) {
        m_fidelity->setText(tr("The derived scenario could not be opened."));
        m_fidelity->setVisible(true);
        return;
    }
    QStringList unknowns;
    for (const std::string& u : derived->unknowns)
        unknowns << QString::fromStdString(u);
    m_fidelity->setToolTip(
        tr("Not in the trace, so assumed:\n%1").arg(unknowns.join(QLatin1Char('\n'))));
    m_fidelity->setText(tr("Re-simulating %1 tasks (%2 wake chains, %3 timed sleeps, %4 forks)…")
                            .arg(derived->scenario.tasks.size())
                            .arg(derived->chains)
                            .arg(derived->timedSleeps)
                            .arg(derived->forks));
    m_fidelity->setVisible(true);
    // The real run under the scenario's task names (forked children as PARENT.N).
    auto real = std::make_shared<Metrics>(m_import->metrics);
    std::map<std::string, std::string> toModel;
    for (const auto& [model, trace] : derived->traceNames)
        toModel.emplace(trace, model);
    for (TaskMetrics& t : real->tasks)
        if (const auto it = toModel.find(t.name); it != toModel.end())
            t.name = it->second;
    struct Result
    {
        bool done = false;
        ReplayFidelity fidelity;
        QString profile;
    };
    m_job.start(
        [derived, real](const std::atomic<bool>& stop) {
            Result r;
            Simulation sim(derived->scenario);
            // In steps of 10 ms of model time, so closing the window stops the run.
            const Nanoseconds end = sim.endTime();
            for (Nanoseconds t{0}; t < end && !stop;) {
                t = std::min(end, t + Nanoseconds{10'000'000});
                sim.runUntil(t);
            }
            if (stop)
                return r;
            const Metrics model = sim.metrics();
            r.fidelity = replayFidelity(model, *real);
            r.profile = QString::fromStdString(model.profile);
            r.done = true;
            return r;
        },
        [this](const Result& r) {
            if (!r.done)
                return;
            const ReplayFidelity& f = r.fidelity;
            const QString worst = f.worstTask.empty()
                ? QString()
                : QStringLiteral(", ") + QString::fromStdString(f.worstTask);
            m_fidelity->setText(
                tr("Model (%1) vs this trace: %2 tasks, CPU-share error %3 pp summed (max %4 pp"
                   "%5); wait p50 ×%6, p99 ×%7 (model/real, geometric mean over %8 tasks).")
                    .arg(r.profile)
                    .arg(f.tasks)
                    .arg(f.shareErrorSumPp, 0, 'f', 1)
                    .arg(f.shareErrorMaxPp, 0, 'f', 1)
                    .arg(worst)
                    .arg(f.waitP50Ratio, 0, 'f', 2)
                    .arg(f.waitP99Ratio, 0, 'f', 2)
                    .arg(f.waitTasks));
        });
}

void addOpenTraceAction(QMenu* fileMenu, QWidget* parent, TraceWindow::ScenarioOpener opener)
{
    fileMenu->addAction(QObject::tr("Open &trace…"), parent, [parent, opener] {
        const QString path = QFileDialog::getOpenFileName(parent, QObject::tr("Open trace"),
            QString(), QObject::tr("ftrace text (*.txt *.trace);;All files (*)"));
        if (path.isEmpty())
            return;
        QString error;
        if (TraceWindow* w = TraceWindow::open(path, parent, &error)) {
            w->setScenarioOpener(opener);
            w->show();
        } else
            QMessageBox::warning(parent, QObject::tr("Open trace"), error);
    });
}

} // namespace schedlab::ui
