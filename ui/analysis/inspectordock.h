// SPDX-License-Identifier: GPL-2.0-or-later
// The inspector: at the cursor time, every CPU's cfs_rq tree (group entities and tasks) with
// weight, vruntime, deadline, vlag, key and eligibility, V and v0, and the pick on each cfs_rq
// explained in plain words (core/fair/pickexplain.h). The state at a past time comes from
// re-running the deterministic simulation to that time (core/sim/inspect.h) on a worker thread,
// so the GUI never waits for it.
#pragma once

#include "core/base/time.h"
#include "core/record/moves.h"
#include "core/record/recording.h"
#include "core/sim/inspect.h"
#include "core/sim/scenariospec.h"
#include "core/sim/simulation.h"
#include "ui/common/background.h"

#include <QDockWidget>

#include <memory>

class QLabel;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace schedlab::ui {

class InspectorDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit InspectorDock(QWidget* parent = nullptr);
    ~InspectorDock() override;

    /// The run to inspect (copied; re-run on a worker thread for each requested time).
    void setScenario(const Scenario& scenario, const RunOptions& options = {});
    /// Inspects the state at @p t (asynchronously; the latest request wins).
    void inspectAt(Nanoseconds t);
    /// Shows an inspection computed elsewhere (tests, synchronous callers).
    void showInspection(const Inspection& inspection);
    /// The recording of the run shown: each task row says why the task is on its CPU (its last
    /// Migrate or Spawn record up to the inspected time, core/record/moves.h). Null: not shown.
    void setRecording(const Recording* recording) { m_recording = recording; }
    bool busy() const { return m_job.busy(); }

    QTreeWidget* tree() const { return m_tree; }
    QString explanationText() const;
    QString headerText() const;

    /// A lesson's open question (docs/lessons.md §5): the asked values and what they follow
    /// from directly are shown as "?" and the pick explanations are withheld until
    /// clearConcealed(). The shown inspection is redrawn.
    void setConcealed(
        const std::vector<std::string>& columns, const std::string& entity, bool picks);
    void clearConcealed();
    /// A note shown under the header until the next scenario (a variant or a live edit that
    /// changed nothing); empty hides it.
    void setNote(const QString& note);
    QString noteText() const;
    bool concealing() const { return m_concealing; }

Q_SIGNALS:
    void inspected(schedlab::Nanoseconds t);

private:
    void showExplanation(QTreeWidgetItem* item);

    std::shared_ptr<const Scenario> m_scenario;
    RunOptions m_options;
    Inspection m_last;
    const Recording* m_recording = nullptr;
    std::vector<TaskMove> m_moves; ///< per task, at m_last.at
    bool m_concealing = false;
    bool m_concealPicks = false;
    std::string m_concealEntity; ///< a name, "/group@cpu" or "/group" (every CPU)
    std::vector<std::string> m_concealColumns;
    BackgroundJob m_job{this}; ///< the inspection in flight
    QLabel* m_header;
    QLabel* m_note;
    QTreeWidget* m_tree;
    QTextBrowser* m_text;
};

} // namespace schedlab::ui
