// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/analysis/inspectordock.h"

#include "ui/common/format.h"
#include "ui/common/taskpalette.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace schedlab::ui {

namespace {
/// A virtual time in ms with ns precision, as the columns beside it (which are in ms).
QString virtualMs(uint64_t ns)
{
    return QStringLiteral("%1.%2").arg(ns / 1'000'000).arg(ns % 1'000'000, 6, 10, QLatin1Char('0'));
}
} // namespace

namespace {
constexpr int kRqRole = Qt::UserRole + 1;   // "cpu:rq" of a cfs_rq row
constexpr int kCpuRole = Qt::UserRole + 2;  // cpu of any row
constexpr int kMoveRole = Qt::UserRole + 3; // task rows: why the task is on this CPU

/// Virtual time relative to V, in ms with µs precision.
QString rel(uint64_t v, uint64_t V)
{
    return QString::number(static_cast<double>(static_cast<int64_t>(v - V)) / 1e6, 'f', 3);
}

QString ms(int64_t v)
{
    return QString::number(static_cast<double>(v) / 1e6, 'f', 3);
}
} // namespace

InspectorDock::InspectorDock(QWidget* parent)
    : QDockWidget(tr("Inspector"), parent)
    , m_header(new QLabel)
    , m_note(new QLabel)
    , m_tree(new QTreeWidget)
    , m_text(new QTextBrowser)
{
    setObjectName(QStringLiteral("inspectorDock"));
    auto* w = new QWidget;
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(2, 2, 2, 2);
    m_header->setWordWrap(true);
    m_header->setText(tr("Click the timeline to inspect the run queues at that time."));
    l->addWidget(m_header);
    m_note->setWordWrap(true);
    m_note->setObjectName(QStringLiteral("inspectorNote"));
    m_note->setStyleSheet(QStringLiteral("QLabel { background: #fff6d5; padding: 3px; }"));
    m_note->hide();
    l->addWidget(m_note);
    auto* split = new QSplitter(Qt::Vertical);
    m_tree->setColumnCount(11);
    m_tree->setHeaderLabels({tr("entity"), tr("weight"), tr("v−V (ms)"), tr("deadline−V (ms)"),
        tr("lag V−v (ms)"), tr("vlag"), tr("key v−v0"), tr("eligible"), tr("state"),
        tr("last move"), tr("PELT load/runnable/util")});
    m_tree->headerItem()->setToolTip(10,
        tr("the entity's load_avg, runnable_avg and util_avg at their last update "
           "(docs/kernel-model.md §6.6); its cfs_rq's, with h_nr_queued and h_nr_runnable, "
           "in the cfs_rq row's tooltip"));
    m_tree->headerItem()->setToolTip(9,
        tr("why the task is on this CPU: its last migration (or its fork placement) up to this "
           "time, from the recording"));
    m_tree->headerItem()->setToolTip(2, tr("vruntime relative to the cfs_rq's V (virtual ms)"));
    m_tree->headerItem()->setToolTip(5, tr("the stored se->vlag field (virtual ns)"));
    m_tree->headerItem()->setToolTip(6, tr("entity_key(): vruntime − v0 (virtual ns)"));
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_tree->header()->resizeSection(0, 170);
    split->addWidget(m_tree);
    split->addWidget(m_text);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    l->addWidget(split);
    setWidget(w);
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
        [this](QTreeWidgetItem* item) { showExplanation(item); });
}

InspectorDock::~InspectorDock() = default; // results still in flight are dropped

void InspectorDock::setScenario(const Scenario& scenario, const RunOptions& options)
{
    m_scenario = std::make_shared<const Scenario>(scenario);
    setNote(QString());
    m_options = options;
    m_job.cancel();
    m_tree->clear();
    m_text->clear();
}

void InspectorDock::inspectAt(Nanoseconds t)
{
    if (!m_scenario)
        return;
    m_header->setText(tr("Inspecting t = %1 …").arg(formatTime(t)));
    auto scenario = m_scenario;
    auto options = m_options;
    struct Result
    {
        Inspection inspection;
        QString error;
    };
    m_job.start(
        [scenario, options, t] {
            Result r;
            try {
                r.inspection = schedlab::inspectAt(*scenario, options, t);
            } catch (const std::exception& e) {
                r.error = QString::fromUtf8(e.what());
            }
            return r;
        },
        [this](const Result& r) {
            if (!r.error.isEmpty()) {
                m_header->setText(tr("Cannot inspect: %1").arg(r.error));
                return;
            }
            showInspection(r.inspection);
        });
}

void InspectorDock::showInspection(const Inspection& in)
{
    m_last = in;
    m_moves = m_recording ? lastMoves(*m_recording, in.at.count()) : std::vector<TaskMove>{};
    // Keep the selection (same CPU and cfs_rq) across updates.
    QString selected;
    if (QTreeWidgetItem* cur = m_tree->currentItem())
        selected = cur->data(0, kRqRole).toString();
    m_tree->clear();
    QTreeWidgetItem* select = nullptr;
    for (const CpuInspection& cpu : in.cpus) {
        auto* cpuItem = new QTreeWidgetItem(
            m_tree, {tr("CPU %1 — running %2").arg(cpu.cpu).arg(toQString(cpu.running))});
        cpuItem->setData(0, kCpuRole, cpu.cpu);
        cpuItem->setData(0, kRqRole, QStringLiteral("%1:0").arg(cpu.cpu));
        cpuItem->setFirstColumnSpanned(true);
        QFont bold = cpuItem->font(0);
        bold.setBold(true);
        cpuItem->setFont(0, bold);
        if (!cpu.dl.empty()) {
            // The deadline class (kernel-model.md §15): EDF order, runtime left and deadline.
            auto* dlItem = new QTreeWidgetItem(cpuItem, {tr("dl_rq (EDF by deadline)")});
            dlItem->setFirstColumnSpanned(true);
            dlItem->setData(0, kCpuRole, cpu.cpu);
            for (const DlEntityInspection& d : cpu.dl) {
                QStringList state;
                if (d.curr)
                    state << tr("curr");
                if (d.throttled)
                    state << tr("throttled");
                if (d.server)
                    state << (d.active ? tr("boosting fair") : tr("deferred"));
                const QString text =
                    tr("%1: runtime %2 left of %3, deadline %4 (%5 from now), D %6, P %7%8")
                        .arg(toQString(d.name),
                            toQString(formatDurationHuman(Nanoseconds(d.runtimeLeft))),
                            toQString(formatDurationHuman(Nanoseconds(d.runtime))),
                            formatTime(Nanoseconds(d.deadline)),
                            toQString(formatDurationHuman(Nanoseconds(d.deadline - in.at.count()))),
                            toQString(formatDurationHuman(Nanoseconds(d.relDeadline))),
                            toQString(formatDurationHuman(Nanoseconds(d.period))),
                            state.isEmpty()
                                ? QString()
                                : QStringLiteral(" — ") + state.join(QStringLiteral(", ")));
                auto* item = new QTreeWidgetItem(dlItem, {text});
                item->setFirstColumnSpanned(true);
                item->setData(0, kCpuRole, cpu.cpu);
            }
        }
        std::vector<QTreeWidgetItem*> rqItems(cpu.rqs.size(), nullptr);
        rqItems[0] = cpuItem;
        for (size_t r = 0; r < cpu.rqs.size(); ++r) {
            const CfsRqInspection& rq = cpu.rqs[r];
            QTreeWidgetItem* parent = rqItems[r];
            if (!parent)
                continue;
            const QString key = QStringLiteral("%1:%2").arg(cpu.cpu).arg(r);
            if (r > 0)
                parent->setData(0, kRqRole, key);
            parent->setToolTip(0,
                tr("cfs_rq %1 on CPU %2: V = %3 ms, v0 = %4 ms, load %5, %6 queued; picks %7\n"
                   "PELT: load_avg %8, runnable_avg %9, util_avg %10; h_nr_queued %11, "
                   "h_nr_runnable %12")
                    .arg(toQString(rq.path))
                    .arg(cpu.cpu)
                    .arg(virtualMs(rq.avgVruntime))
                    .arg(virtualMs(rq.v0))
                    .arg(rq.loadWeight >> 10)
                    .arg(rq.nrQueued)
                    .arg(m_concealing ? QStringLiteral("?") : toQString(rq.picked))
                    .arg(rq.loadAvg)
                    .arg(rq.runnableAvg)
                    .arg(rq.utilAvg)
                    .arg(rq.hNrQueued)
                    .arg(rq.hNrRunnable));
            if (r == 0)
                parent->setText(0,
                    parent->text(0)
                        + tr("  (V = %1 ms, v0 = %2 ms)")
                              .arg(virtualMs(rq.avgVruntime), virtualMs(rq.v0)));
            if (key == selected)
                select = parent;
            for (const EntityInspection& e : rq.entities) {
                const bool pickShown = !(m_concealing && m_concealPicks);
                QStringList state;
                if (e.curr)
                    state << tr("curr");
                if (e.picked && pickShown)
                    state << tr("PICKED");
                if (e.protectedSlice)
                    state << tr("protected");
                if (e.nextBuddy)
                    state << tr("next buddy");
                // A delayed entity is never eligible: hidden with the eligibility.
                const bool hideRow = m_concealing && !m_concealEntity.empty()
                    && (e.name == m_concealEntity
                        || (e.isGroup && m_concealEntity.front() == '/'
                            && m_concealEntity.find('@') == std::string::npos
                            && e.name.rfind(m_concealEntity + "@", 0) == 0)
                        || (e.isGroup
                            && e.name + "@" + std::to_string(cpu.cpu) == m_concealEntity));
                auto hidden = [&](const char* column) {
                    return hideRow
                        && std::find(m_concealColumns.begin(), m_concealColumns.end(), column)
                        != m_concealColumns.end();
                };
                if (e.delayed && !hidden("eligible"))
                    state << tr("delayed");
                auto* item = new QTreeWidgetItem(parent,
                    {toQString(e.name) + (e.isGroup ? tr(" (group)") : QString()),
                        hidden("weight") ? QStringLiteral("?") : QString::number(e.weight >> 10),
                        hidden("v") ? QStringLiteral("?") : rel(e.vruntime, rq.avgVruntime),
                        hidden("deadline") ? QStringLiteral("?") : rel(e.deadline, rq.avgVruntime),
                        hidden("lag") ? QStringLiteral("?") : ms(e.lag),
                        hidden("vlag") ? QStringLiteral("?") : QString::number(e.vlag),
                        hidden("key") ? QStringLiteral("?") : QString::number(e.key),
                        hidden("eligible") ? QStringLiteral("?")
                                           : (e.eligible ? tr("yes") : tr("no")),
                        state.join(QStringLiteral(", "))});
                item->setData(0, kCpuRole, cpu.cpu);
                item->setData(0, kRqRole, key);
                item->setText(10,
                    hidden("pelt") ? QStringLiteral("?")
                                   : QStringLiteral("%1 / %2 / %3")
                                         .arg(e.loadAvg)
                                         .arg(e.runnableAvg)
                                         .arg(e.utilAvg));
                if (e.ref.isTask() && static_cast<size_t>(e.ref.taskIndex()) < m_moves.size()) {
                    const TaskMove& move = m_moves[static_cast<size_t>(e.ref.taskIndex())];
                    if (move.time >= 0 && !(move.spawn && move.from < 0)) {
                        const std::string why = describeMigration(move.reason, move.detail);
                        item->setText(9,
                            tr("%1 → %2 %3 (%4)")
                                .arg(move.from)
                                .arg(move.to)
                                .arg(toQString(why), formatTime(Nanoseconds{move.time})));
                        item->setToolTip(9, toQString(explainMove(move)));
                        item->setData(0, kMoveRole, toQString(explainMove(move)));
                    }
                }
                if (e.picked && pickShown) // readable in light and dark palettes (tst_analysis)
                    for (int c = 0; c < item->columnCount(); ++c) {
                        item->setBackground(c, pickedRowBackground(palette()));
                        item->setForeground(c, palette().color(QPalette::Text));
                    }
                if (!e.eligible && !hidden("eligible"))
                    item->setForeground(7, warningText(palette()));
                if (e.childRq >= 0 && static_cast<size_t>(e.childRq) < rqItems.size()) {
                    rqItems[static_cast<size_t>(e.childRq)] = item;
                    item->setText(0,
                        item->text(0)
                            + tr("  (V = %1 ms)")
                                  .arg(virtualMs(
                                      cpu.rqs[static_cast<size_t>(e.childRq)].avgVruntime)));
                }
            }
        }
    }
    m_tree->expandAll();
    m_header->setText(tr("t = %1, profile %2. Rows: entities on each cfs_rq (curr first, then "
                         "by deadline); times relative to that cfs_rq's V. Select a row to see "
                         "why its cfs_rq picks what it picks.")
                          .arg(formatTime(in.at), toQString(in.profile)));
    m_tree->setCurrentItem(select ? select : m_tree->topLevelItem(0));
    showExplanation(m_tree->currentItem());
    Q_EMIT inspected(in.at);
}

void InspectorDock::showExplanation(QTreeWidgetItem* item)
{
    if (!item) {
        m_text->clear();
        return;
    }
    const QStringList key = item->data(0, kRqRole).toString().split(QLatin1Char(':'));
    if (key.size() != 2)
        return;
    const int cpu = key[0].toInt();
    const int r = key[1].toInt();
    if (cpu < 0 || static_cast<size_t>(cpu) >= m_last.cpus.size())
        return;
    const CpuInspection& c = m_last.cpus[static_cast<size_t>(cpu)];
    if (r < 0 || static_cast<size_t>(r) >= c.rqs.size())
        return;
    const CfsRqInspection& rq = c.rqs[static_cast<size_t>(r)];
    if (m_concealing) {
        // The pick explanation names the pick, V − v and eligibility of every entity.
        m_text->setPlainText(tr("The pick explanation is hidden until you answer the lesson's "
                                "question."));
        return;
    }
    QString html =
        QStringLiteral("<b>CPU %1, cfs_rq %2</b> — picks <b>%3</b> (%4)<ul>")
            .arg(cpu)
            .arg(toQString(rq.path).toHtmlEscaped(), toQString(rq.picked).toHtmlEscaped(),
                QLatin1String(pickStepName(rq.step)));
    for (const std::string& line : rq.explanation)
        html += QStringLiteral("<li>") + toQString(line).toHtmlEscaped() + QStringLiteral("</li>");
    html += QStringLiteral("</ul>");
    // Why the tasks of this cfs_rq are on this CPU (their last move in the recording).
    QString moves;
    for (const EntityInspection& e : rq.entities) {
        if (!e.ref.isTask() || static_cast<size_t>(e.ref.taskIndex()) >= m_moves.size())
            continue;
        const TaskMove& move = m_moves[static_cast<size_t>(e.ref.taskIndex())];
        if (move.time >= 0 && !(move.spawn && move.from < 0))
            moves += QStringLiteral("<li><b>%1</b> %2 at %3</li>")
                         .arg(toQString(e.name).toHtmlEscaped(),
                             toQString(explainMove(move)).toHtmlEscaped(),
                             formatTime(Nanoseconds{move.time}));
    }
    if (!moves.isEmpty())
        html += tr("<b>Why here</b><ul>") + moves + QStringLiteral("</ul>");
    m_text->setHtml(html);
}

QString InspectorDock::explanationText() const
{
    return m_text->toPlainText();
}

void InspectorDock::setNote(const QString& note)
{
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
}

QString InspectorDock::noteText() const
{
    return m_note->text();
}

QString InspectorDock::headerText() const
{
    return m_header->text();
}

void InspectorDock::setConcealed(
    const std::vector<std::string>& columns, const std::string& entity, bool picks)
{
    m_concealing = true;
    m_concealColumns = columns;
    m_concealEntity = entity;
    m_concealPicks = picks;
    if (!m_last.cpus.empty())
        showInspection(Inspection(m_last));
}

void InspectorDock::clearConcealed()
{
    if (!m_concealing)
        return;
    m_concealing = false;
    if (!m_last.cpus.empty())
        showInspection(Inspection(m_last));
}

} // namespace schedlab::ui
