// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/analysis/findingsdock.h"

#include "core/record/moves.h"
#include "core/record/recording.h"
#include "core/rtapp/rtapp.h"
#include "core/sim/simulation.h"
#include "ui/common/format.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace schedlab::ui {

namespace {
constexpr int kTimeRole = Qt::UserRole + 1;
constexpr size_t kChunk = 50000; // records examined per timer slice
} // namespace

EventLogModel::EventLogModel(QObject* parent)
    : QAbstractListModel(parent)
{
    m_timer.setInterval(0);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        scanChunk(kChunk);
        if (!scanning())
            m_timer.stop();
    });
}

void EventLogModel::setRecording(const Recording* recording)
{
    m_recording = recording;
    restart();
}

void EventLogModel::setFilter(const QString& text)
{
    if (text == m_filter)
        return;
    m_filter = text;
    restart();
}

void EventLogModel::setShowSamples(bool on)
{
    if (on == m_samples)
        return;
    m_samples = on;
    restart();
}

void EventLogModel::restart()
{
    beginResetModel();
    m_rows.clear();
    m_next = 0;
    m_scanEnd = 0;
    endResetModel();
    update();
}

void EventLogModel::update()
{
    m_scanEnd = m_recording ? m_recording->size() : 0;
    if (scanning()) {
        scanChunk(kChunk / 5); // something visible at once
        if (scanning())
            m_timer.start();
    }
}

void EventLogModel::finishScan()
{
    m_scanEnd = m_recording ? m_recording->size() : 0;
    while (scanning())
        scanChunk(kChunk);
    m_timer.stop();
}

void EventLogModel::scanChunk(size_t budget)
{
    if (!m_recording)
        return;
    const auto& records = m_recording->records();
    std::vector<uint32_t> found;
    const size_t end = std::min(m_scanEnd, m_next + budget);
    const std::string needle = m_filter.toLower().toStdString();
    for (; m_next < end; ++m_next) {
        if (m_rows.size() + found.size() >= static_cast<size_t>(kMaxRows)) {
            m_next = m_scanEnd;
            break;
        }
        const Record& r = records[m_next];
        if (r.kind == RecordKind::Tick || (!m_samples && r.kind == RecordKind::Sample))
            continue;
        if (!needle.empty()) {
            std::string line = formatRecord(r, *m_recording);
            for (char& c : line)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (line.find(needle) == std::string::npos)
                continue;
        }
        found.push_back(static_cast<uint32_t>(m_next));
    }
    if (found.empty())
        return;
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(found.size()) - 1);
    m_rows.insert(m_rows.end(), found.begin(), found.end());
    endInsertRows();
}

int EventLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

QVariant EventLogModel::data(const QModelIndex& index, int role) const
{
    if (!m_recording || !index.isValid() || index.row() >= rowCount())
        return {};
    const Record& r = m_recording->records()[m_rows[static_cast<size_t>(index.row())]];
    if (role == Qt::DisplayRole)
        return toQString(formatRecord(r, *m_recording));
    if (role == Qt::ToolTipRole && (r.kind == RecordKind::Migrate || r.kind == RecordKind::Spawn)
        && r.entity.isTask()) {
        // Why the task moved, in words, from the record's reason and detail.
        const auto task = static_cast<size_t>(r.entity.taskIndex());
        const std::string who =
            task < m_recording->taskNames.size() ? m_recording->taskNames[task] : std::string();
        return toQString(who + " " + explainMove(moveOf(r)));
    }
    if (role == kTimeRole)
        return QVariant::fromValue<qlonglong>(r.time);
    return {};
}

Nanoseconds EventLogModel::timeAt(int row) const
{
    if (!m_recording || row < 0 || row >= rowCount())
        return Nanoseconds{-1};
    return Nanoseconds{m_recording->records()[m_rows[static_cast<size_t>(row)]].time};
}

FindingsDock::FindingsDock(QWidget* parent)
    : QDockWidget(tr("Findings"), parent)
    , m_table(new QTableWidget(0, 5))
    , m_summary(new QLabel)
    , m_events(new EventLogModel(this))
    , m_eventView(new QListView)
    , m_filter(new QLineEdit)
    , m_samples(new QCheckBox(tr("samples")))
{
    setObjectName(QStringLiteral("findingsDock"));
    auto* tabs = new QTabWidget;

    auto* findings = new QWidget;
    auto* fl = new QVBoxLayout(findings);
    fl->setContentsMargins(2, 2, 2, 2);
    m_table->setHorizontalHeaderLabels(
        {tr("kind"), tr("task / probe"), tr("at"), tr("duration / latency"), tr("detail")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_summary->setWordWrap(true);
    fl->addWidget(m_summary);
    fl->addWidget(m_table);
    tabs->addTab(findings, tr("Findings"));

    auto* events = new QWidget;
    auto* el = new QVBoxLayout(events);
    el->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_filter->setPlaceholderText(tr("filter, e.g. switch, hog-1, cpu2, place"));
    m_filter->setClearButtonEnabled(true);
    m_samples->setToolTip(tr("Also list entity samples (many)"));
    bar->addWidget(m_filter);
    bar->addWidget(m_samples);
    el->addLayout(bar);
    m_eventView->setModel(m_events);
    m_eventView->setUniformItemSizes(true);
    m_eventView->setFont(QFont(QStringLiteral("monospace")));
    el->addWidget(m_eventView);
    tabs->addTab(events, tr("Event log"));
    setWidget(tabs);

    connect(m_filter, &QLineEdit::textChanged, m_events, &EventLogModel::setFilter);
    connect(m_samples, &QCheckBox::toggled, m_events, &EventLogModel::setShowSamples);
    connect(m_eventView, &QListView::activated, this, [this](const QModelIndex& index) {
        const Nanoseconds t = m_events->timeAt(index.row());
        if (t >= Nanoseconds{0})
            Q_EMIT timeActivated(t);
    });
    connect(m_eventView, &QListView::clicked, m_eventView, &QListView::activated);
    auto activateRow = [this](int row) {
        if (QTableWidgetItem* item = m_table->item(row, 2))
            Q_EMIT timeActivated(Nanoseconds{item->data(kTimeRole).toLongLong()});
    };
    connect(m_table, &QTableWidget::cellClicked, this,
        [activateRow](int row, int) { activateRow(row); });
    connect(m_table, &QTableWidget::cellActivated, this,
        [activateRow](int row, int) { activateRow(row); });
}

void FindingsDock::setSimulation(const Simulation* sim)
{
    m_sim = sim;
    m_events->setRecording(sim ? &sim->recording() : nullptr);
    refresh();
}

void FindingsDock::setScenario(const Scenario& scenario)
{
    m_dropped = rtapp::droppedSyncThreads(scenario);
    m_noChange.clear();
}

void FindingsDock::setNoChange(const QStringList& lines)
{
    m_noChange = lines;
    m_noChangeIsEdit = false;
    m_noChangeAt = 0;
    refresh();
}

void FindingsDock::setEditNoChange(const QStringList& lines, Nanoseconds at)
{
    m_noChange = lines;
    m_noChangeIsEdit = true;
    m_noChangeAt = at.count();
    refresh();
}

void FindingsDock::refresh()
{
    m_table->setRowCount(0);
    if (!m_sim) {
        m_summary->clear();
        return;
    }
    m_events->update();
    const Metrics m = m_sim->metrics();
    auto add = [this](const QString& kind, const QString& who, int64_t at, const QString& dur,
                   const QString& detail) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto* atItem = new QTableWidgetItem(formatTime(Nanoseconds{at}));
        atItem->setData(kTimeRole, QVariant::fromValue<qlonglong>(at));
        m_table->setItem(row, 0, new QTableWidgetItem(kind));
        m_table->setItem(row, 1, new QTableWidgetItem(who));
        m_table->setItem(row, 2, atItem);
        m_table->setItem(row, 3, new QTableWidgetItem(dur));
        m_table->setItem(row, 4, new QTableWidgetItem(detail));
    };
    // A resource guard's finding first, in red: not an interval of the run but the instant it
    // stopped (nothing after it was simulated); its task is the one being created, if any.
    for (const Finding& f : m.findings) {
        if (f.kind != "resource_limit")
            continue;
        add(toQString(f.kind), f.task.empty() ? tr("(whole run)") : toQString(f.task), f.fromNs,
            tr("run stopped"), toQString(f.detail));
        for (int col = 0; col < m_table->columnCount(); ++col)
            m_table->item(m_table->rowCount() - 1, col)->setForeground(QColor(0xb3, 0x26, 0x1e));
    }
    // Every kind listed is counted (in first-seen order), starvation and invariant always.
    std::vector<std::pair<std::string, int>> kinds{{"starvation", 0}, {"invariant", 0}};
    for (const Finding& f : m.findings) {
        if (f.kind == "resource_limit")
            continue;
        auto it = std::find_if(
            kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == f.kind; });
        if (it == kinds.end())
            kinds.emplace_back(f.kind, 1);
        else
            ++it->second;
        add(toQString(f.kind), toQString(f.task) + QStringLiteral(" (cpu%1)").arg(f.cpu), f.fromNs,
            formatTime(Nanoseconds{f.durationNs}), toQString(f.detail));
    }
    for (const QString& line : m_noChange)
        add(tr("no change"), m_noChangeIsEdit ? tr("(edit)") : tr("(variant)"), m_noChangeAt,
            QStringLiteral("-"), line);
    // What an rt-app import dropped, by thread, and the tasks that never switched in
    // (zero CPU time after a switch-in is not "never ran").
    for (const auto& [thread, events] : m_dropped) {
        QStringList never, noTime;
        for (const TaskMetrics& t : m.tasks)
            if (rtapp::taskOfThread(t.name, thread) && t.cpuTimeNs == 0)
                (t.switches == 0 ? never : noTime) << toQString(t.name);
        add(tr("import"), toQString(thread), 0, QStringLiteral("-"),
            tr("rt-app %1 dropped at import (not modelled: it does not wait there)%2")
                .arg(toQString(events),
                    (never.isEmpty() ? QString()
                                     : tr("; never ran: %1").arg(never.join(QStringLiteral(", "))))
                        + (noTime.isEmpty() ? QString()
                                            : tr("; switched in but no CPU time: %1")
                                                  .arg(noTime.join(QStringLiteral(", "))))));
    }
    for (const TaskMetrics& t : m.tasks) {
        if (t.cpuTimeNs != 0 || m_sim->now() <= Nanoseconds{0})
            continue;
        if (t.switches == 0)
            add(tr("never ran"), toQString(t.name), 0, QStringLiteral("-"),
                tr("never switched in up to t = %1").arg(formatTime(m_sim->now())));
        else
            add(tr("no CPU time"), toQString(t.name), 0, QStringLiteral("-"),
                tr("switched in %1 time(s) but ran for no measurable time").arg(t.switches));
    }
    for (const ProbeMetrics& p : m.probes)
        add(tr("probe"), toQString(p.name), p.spawnedAtNs,
            p.latencyNs ? formatTime(Nanoseconds{*p.latencyNs}) : tr("not finished"),
            tr("spawn to exit (the probe task's program completed)"));
    m_table->resizeColumnsToContents();
    QStringList parts;
    for (const auto& [kind, n] : kinds) {
        if (kind == "starvation")
            parts << tr("%1 starvation interval(s)").arg(n);
        else if (kind == "invariant")
            parts << tr("%1 invariant violation(s)").arg(n);
        else
            parts << QStringLiteral("%1 %2").arg(n).arg(toQString(kind));
    }
    parts << tr("%1 probe(s)").arg(m.probes.size());
    const QString counts = tr("%1 at t = %2. Click an entry to move the cursor there.")
                               .arg(parts.join(QStringLiteral(", ")), formatTime(m_sim->now()));
    const QString stopped = toQString(m_sim->stopReason());
    if (stopped.isEmpty()) {
        m_summary->setTextFormat(Qt::PlainText);
        m_summary->setText(counts);
        return;
    }
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setText(QStringLiteral("<b style=\"color:#b3261e\">")
        + stoppedRunText(stopped).toHtmlEscaped() + QStringLiteral("</b><br>")
        + counts.toHtmlEscaped());
}

QString FindingsDock::summaryText() const
{
    return m_summary->text();
}

} // namespace schedlab::ui
