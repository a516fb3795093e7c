// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/analysis/compareview.h"

#include "core/kernel/variant.h"
#include "core/lesson/nochange.h"
#include "core/scenario/scenarioio.h"
#include "ui/common/format.h"
#include "ui/timeline/timelineview.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace schedlab::ui {

struct CompareView::Runs
{
    QString spec;
    std::unique_ptr<Simulation> base;
    std::unique_ptr<Simulation> variant;
    QStringList noChange; ///< why the variant changed nothing, or empty
};

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_spec(new QLineEdit)
    , m_go(new QPushButton(tr("Compare")))
    , m_status(new QLabel)
    , m_baseLabel(new QLabel)
    , m_variantLabel(new QLabel)
    , m_base(new TimelineView)
    , m_variant(new TimelineView)
    , m_table(new QTableWidget(0, 4))
{
    setWindowTitle(tr("Compare runs — schedlab"));
    // No machine tree here to select tasks in: no hint to do so.
    m_base->setHintsVisible(false);
    m_variant->setHintsVisible(false);
    auto* l = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Variant:")));
    m_spec->setPlaceholderText(
        tr("NO_PLACE_LAG  |  profile=6.12  |  seed=7  |  reweight=eevdf  |  file=before.json"));
    m_spec->setToolTip(tr("A feature toggle, profile=NAME, seed=N, CHOICE=VALUE "
                          "(comma-separated), or file=PATH for another scenario file"));
    bar->addWidget(m_spec, 1);
    auto* file = new QPushButton(tr("Scenario file…"));
    bar->addWidget(file);
    bar->addWidget(m_go);
    l->addLayout(bar);
    m_status->setWordWrap(true);
    l->addWidget(m_status);
    auto* split = m_split = new QSplitter(Qt::Vertical);
    for (auto [label, view] :
        {std::pair{m_baseLabel, m_base}, std::pair{m_variantLabel, m_variant}}) {
        auto* box = new QWidget;
        auto* bl = new QVBoxLayout(box);
        bl->setContentsMargins(0, 0, 0, 0);
        bl->addWidget(label);
        bl->addWidget(view, 1);
        split->addWidget(box);
    }
    m_table->setHorizontalHeaderLabels({tr("metric"), tr("current"), tr("variant"), tr("Δ")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    split->addWidget(m_table);
    // The two timelines get most of the height (their lanes at least 12 px a CPU); the
    // metrics table the rest, up to a third (fitTable()).
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 1);
    l->addWidget(split, 1);
    resize(1400, 1000);

    // Synchronised time axes.
    auto sync = [this](TimelineView* other) {
        return [this, other](Nanoseconds from, Nanoseconds to) {
            if (m_syncing)
                return;
            m_syncing = true;
            other->setViewRange(from, to);
            m_syncing = false;
        };
    };
    connect(m_base, &TimelineView::viewRangeChanged, this, sync(m_variant));
    connect(m_variant, &TimelineView::viewRangeChanged, this, sync(m_base));
    connect(m_base, &TimelineView::cursorMoved, m_variant, &TimelineView::setCursorTime);
    connect(m_variant, &TimelineView::cursorMoved, m_base, &TimelineView::setCursorTime);
    connect(m_go, &QPushButton::clicked, this, [this] { compare(m_spec->text()); });
    connect(m_spec, &QLineEdit::returnPressed, this, [this] { compare(m_spec->text()); });
    connect(file, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Variant scenario"), QString(), tr("Scenarios (*.json)"));
        if (!path.isEmpty()) {
            m_spec->setText(QStringLiteral("file=") + path);
            compare(m_spec->text());
        }
    });
}

CompareView::~CompareView()
{
    m_job.cancel();
    m_base->setRecording(nullptr, Nanoseconds{0});
    m_variant->setRecording(nullptr, Nanoseconds{0});
}

void CompareView::setBase(const Scenario& scenario, const RunOptions& options)
{
    m_scenario = scenario;
    m_options = options;
    m_options.recordMaxSlice = true; // the lag bands of max_slice_tick (lagband.h), as the window
    m_baseLabel->setText(tr("<b>current</b>: %1").arg(toQString(scenario.name)));
}

std::shared_ptr<CompareView::Runs> CompareView::run(const Scenario& base, const RunOptions& options,
    const QString& spec, QString* error, const QString& task)
{
    auto runs = std::make_shared<Runs>();
    runs->spec = spec.trimmed();
    Scenario variantScenario = base;
    RunOptions variantOptions = options;
    if (runs->spec.startsWith(QLatin1String("file="))) {
        const std::string path = runs->spec.mid(5).toStdString();
        LoadResult loaded = loadScenarioFile(path);
        if (!loaded.ok()) {
            QStringList lines;
            for (const auto& e : loaded.errors)
                lines << toQString(e);
            *error = lines.join(QLatin1Char('\n'));
            return nullptr;
        }
        variantScenario = std::move(*loaded.scenario);
    } else {
        std::string message;
        if (runs->spec.isEmpty()) {
            *error = tr("give a variant, e.g. NO_PLACE_LAG or profile=6.12");
            return nullptr;
        }
        if (!applyVariant(runs->spec.toStdString(), variantOptions, &message)) {
            *error = toQString(message);
            return nullptr;
        }
    }
    try {
        runs->base = std::make_unique<Simulation>(base, options);
        runs->base->run();
        runs->variant = std::make_unique<Simulation>(variantScenario, variantOptions);
        runs->variant->run();
        // A variant that changes nothing is explained from the model's records.
        if (!runs->spec.startsWith(QLatin1String("file="))) {
            const auto rows = diffMetrics(runs->base->metrics(), runs->variant->metrics());
            const bool same = std::none_of(rows.begin(), rows.end(),
                [](const MetricDiffRow& r) { return !r.delta() || *r.delta() != 0.0; });
            // The whole run, or else the selected task.
            std::optional<lesson::NoChange> n;
            if (same)
                n = lesson::whyNothingChanged(base, options, runs->spec.toStdString());
            else if (!task.isEmpty())
                n = lesson::whyNothingChanged(
                    base, options, runs->spec.toStdString(), task.toStdString());
            if (n)
                for (const std::string& line : n->lines)
                    runs->noChange << toQString(line);
        }
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return nullptr;
    }
    return runs;
}

void CompareView::compare(const QString& spec)
{
    m_status->setText(tr("Running both…"));
    m_go->setEnabled(false);
    const Scenario scenario = m_scenario;
    const RunOptions options = m_options;
    const QString task = m_task;
    struct Result
    {
        std::shared_ptr<Runs> runs;
        QString error;
    };
    m_job.start(
        [scenario, options, spec, task] {
            Result r;
            r.runs = run(scenario, options, spec, &r.error, task);
            return r;
        },
        [this](const Result& r) {
            m_go->setEnabled(true);
            if (!r.runs) {
                m_status->setText(tr("Cannot compare: %1").arg(r.error));
                Q_EMIT finished(false);
                return;
            }
            showRuns(r.runs);
        });
}

bool CompareView::compareNow(const QString& spec, QString* error)
{
    m_job.cancel(); // a background comparison still running is dropped
    QString message;
    auto runs = run(m_scenario, m_options, spec, &message, m_task);
    if (!runs) {
        m_status->setText(tr("Cannot compare: %1").arg(message));
        if (error)
            *error = message;
        return false;
    }
    showRuns(runs);
    return true;
}

void CompareView::showRuns(std::shared_ptr<Runs> runs)
{
    // Detach the views before the old simulations go.
    m_base->setRecording(&runs->base->recording(), runs->base->endTime());
    m_variant->setRecording(&runs->variant->recording(), runs->variant->endTime());
    m_runs = std::move(runs);
    m_base->setTaskCgroups(taskCgroups(m_scenario), taskMoves(m_scenario));
    m_variant->setTaskCgroups(taskCgroups(m_scenario), taskMoves(m_scenario));
    m_base->setNow(m_runs->base->now());
    m_variant->setNow(m_runs->variant->now());
    m_base->zoomToFit();
    m_variant->zoomToFit();
    m_baseLabel->setText(
        tr("<b>current</b>: %1, profile %2")
            .arg(toQString(m_scenario.name), toQString(m_runs->base->profileName())));
    m_variantLabel->setText(
        tr("<b>variant</b> %1: profile %2")
            .arg(m_runs->spec.toHtmlEscaped(), toQString(m_runs->variant->profileName())));
    m_rows = diffMetrics(m_runs->base->metrics(), m_runs->variant->metrics());
    m_table->setRowCount(0);
    for (const MetricDiffRow& r : m_rows) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, new QTableWidgetItem(toQString(r.metric)));
        m_table->setItem(row, 1, new QTableWidgetItem(toQString(formatDiffValue(r.unit, r.base))));
        m_table->setItem(
            row, 2, new QTableWidgetItem(toQString(formatDiffValue(r.unit, r.variant))));
        auto* delta = new QTableWidgetItem(toQString(formatDiffValue(r.unit, r.delta(), true)));
        if (r.delta() && *r.delta() != 0.0)
            delta->setForeground(QColor(0xb0, 0x30, 0x30));
        m_table->setItem(row, 3, delta);
        for (int c = 1; c < 4; ++c)
            m_table->item(row, c)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    fitTable();
    m_status->setText(
        tr("%1 differing metric(s). Drag or zoom either timeline; the other follows.")
            .arg(std::count_if(m_rows.begin(), m_rows.end(),
                [](const MetricDiffRow& r) { return !r.delta() || *r.delta() != 0.0; }))
        + (m_runs->noChange.isEmpty()
                ? QString()
                : QStringLiteral("\n") + m_runs->noChange.join(QLatin1Char('\n'))));
    if (!m_runs->noChange.isEmpty())
        Q_EMIT nothingChanged(m_runs->noChange);
    Q_EMIT finished(true);
}

int CompareView::tableHeightFor(int rows) const
{
    return m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth()
        + rows * m_table->verticalHeader()->defaultSectionSize()
        + m_table->horizontalScrollBar()->sizeHint().height(); // room for one, if it shows
}

void CompareView::fitTable()
{
    // The table as high as its rows need (at least 8 rows' worth), at most a third of the
    // splitter; the timelines share the rest equally.
    const int total = m_split->height() - 2 * m_split->handleWidth();
    if (total <= 0)
        return;
    // Neither timeline below its minimum (its panes' room), which caps the table first.
    const int timelines = m_split->widget(0)->minimumSizeHint().height()
        + m_split->widget(1)->minimumSizeHint().height();
    const int table =
        std::min({tableHeightFor(std::max(m_table->rowCount(), 8)), total / 3, total - timelines});
    const int each = (total - table) / 2;
    m_split->setSizes({each, total - table - each, table});
}

void CompareView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_fitted) {
        m_fitted = true;
        fitTable();
    }
}

QString CompareView::statusText() const
{
    return m_status->text();
}

} // namespace schedlab::ui
