// SPDX-License-Identifier: GPL-2.0-or-later
// Compare view: the current scenario and a variant — a feature toggled, another profile,
// another seed, a behaviour choice, or another scenario file (e.g. the saved version before
// an edit) — run to the end, stacked as two timelines with synchronised time axes, above a
// table of metric differences (core/record/metricsdiff.h). Runs happen on a worker thread.
#pragma once

#include "core/record/metricsdiff.h"
#include "core/sim/scenariospec.h"
#include "core/sim/simulation.h"
#include "ui/common/background.h"

#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QTableWidget;

namespace schedlab::ui {

class TimelineView;

class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    void setBase(const Scenario& scenario, const RunOptions& options = {});
    /// SPEC as in `schedlab-cli compare --variant` ("NO_PLACE_LAG", "profile=6.12", "seed=3",
    /// "reweight=eevdf", comma-separated), or "file=PATH" for another scenario file.
    /// Asynchronous; finished() when both runs are shown.
    void compare(const QString& spec);
    /// The task selected in the main window: when the variant changes the run but not this
    /// task, the view says so and why. Empty: the whole run only.
    void setTask(const QString& task) { m_task = task; }
    /// The same, synchronously (tests and scripts). False with @p error on bad input.
    bool compareNow(const QString& spec, QString* error = nullptr);

    TimelineView* baseTimeline() const { return m_base; }
    TimelineView* variantTimeline() const { return m_variant; }
    QTableWidget* table() const { return m_table; }
    /// Height the metrics table needs to show @p rows rows (header, frame and a scroll bar).
    int tableHeightFor(int rows) const;
    const std::vector<MetricDiffRow>& rows() const { return m_rows; }

Q_SIGNALS:
    void finished(bool ok);
    /// The variant changed nothing; @p lines explain why (core/lesson/nochange.h).
    void nothingChanged(const QStringList& lines);

private:
    struct Runs;
    static std::shared_ptr<Runs> run(const Scenario& base, const RunOptions& options,
        const QString& spec, QString* error, const QString& task = {});
    void showRuns(std::shared_ptr<Runs> runs);
    /// Splitter sizes: the table as high as its rows need, up to a third of the height.
    void fitTable();

protected:
    void showEvent(QShowEvent* event) override;

private:
    QSplitter* m_split = nullptr;
    bool m_fitted = false; ///< sized once when first shown (then the user's splitter rules)

    Scenario m_scenario;
    RunOptions m_options;
    QString m_task;
    std::shared_ptr<Runs> m_runs;
    std::vector<MetricDiffRow> m_rows;
    BackgroundJob m_job{this}; ///< the comparison in flight
    bool m_syncing = false;
    QLineEdit* m_spec;
    QPushButton* m_go;
    QLabel* m_status;

public:
    QString statusText() const;

private:
    QLabel* m_baseLabel;
    QLabel* m_variantLabel;
    TimelineView* m_base;
    TimelineView* m_variant;
    QTableWidget* m_table;
};

} // namespace schedlab::ui
