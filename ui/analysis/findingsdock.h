// SPDX-License-Identifier: GPL-2.0-or-later
// The findings pane: watchdog starvation intervals, invariant violations and probe latencies of
// the run so far, and a filterable event log of the recording. Activating an entry emits
// timeActivated() (the main window moves the timeline cursor there).
#pragma once

#include "core/base/time.h"
#include "core/sim/scenariospec.h"

#include <QAbstractListModel>
#include <QDockWidget>
#include <QTimer>

#include <vector>

class QCheckBox;
class QLineEdit;
class QListView;
class QTableWidget;
class QLabel;

namespace schedlab {
class Recording;
class Simulation;
} // namespace schedlab

namespace schedlab::ui {

/// The recording as one line per record (formatRecord), filtered by a substring; the filter
/// runs in bounded chunks from a timer so that huge recordings never block the GUI.
class EventLogModel : public QAbstractListModel
{
    Q_OBJECT
public:
    explicit EventLogModel(QObject* parent = nullptr);
    void setRecording(const Recording* recording);
    /// Case-insensitive substring; empty matches everything.
    void setFilter(const QString& text);
    void setShowSamples(bool on);
    /// Scans records appended since the last call (and continues an unfinished scan).
    void update();
    bool scanning() const { return m_next < m_scanEnd; }
    /// Runs the scan to the end now (tests).
    void finishScan();

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    Nanoseconds timeAt(int row) const;

    static constexpr int kMaxRows = 200000;

private:
    void scanChunk(size_t budget);
    void restart();

    const Recording* m_recording = nullptr;
    QString m_filter;
    bool m_samples = false;
    std::vector<uint32_t> m_rows; ///< record indexes that match
    size_t m_next = 0;            ///< next record to examine
    size_t m_scanEnd = 0;
    QTimer m_timer;
};

class FindingsDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit FindingsDock(QWidget* parent = nullptr);

    /// Follows @p sim (nullptr detaches); refresh() re-reads its metrics and recording.
    void setSimulation(const Simulation* sim);
    /// The scenario that runs: an rt-app import's dropped sync events (its kDroppedNote
    /// annotation) become findings naming the threads. Call before setSimulation().
    void setScenario(const Scenario& scenario);
    void refresh();
    /// A change (a compare variant) that changed nothing: @p lines say why (core/lesson/
    /// nochange.h); shown as "no change" rows until the next scenario.
    void setNoChange(const QStringList& lines);
    /// A live edit at @p at that changed nothing from then on (ScenarioEditor::
    /// editChangedNothing()): the same rows, as "(edit)" at @p at, until the next scenario.
    void setEditNoChange(const QStringList& lines, schedlab::Nanoseconds at);

    QTableWidget* findingsTable() const { return m_table; }
    /// The line above the table (rich text when the run stopped early).
    QString summaryText() const;
    EventLogModel* eventModel() const { return m_events; }
    QListView* eventView() const { return m_eventView; }

Q_SIGNALS:
    void timeActivated(schedlab::Nanoseconds t);

private:
    const Simulation* m_sim = nullptr;
    std::vector<std::pair<std::string, std::string>> m_dropped; ///< thread, events
    QStringList m_noChange;
    bool m_noChangeIsEdit = false;
    int64_t m_noChangeAt = 0;
    QTableWidget* m_table;
    QLabel* m_summary;
    EventLogModel* m_events;
    QListView* m_eventView;
    QLineEdit* m_filter;
    QCheckBox* m_samples;
};

} // namespace schedlab::ui
