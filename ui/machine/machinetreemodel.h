// SPDX-License-Identifier: GPL-2.0-or-later
// The machine tree (README.md, the sandbox): the cgroup hierarchy of a Scenario, root "/" first,
// child cgroups by path, tasks as leaves (a task with `count: N` shows as name-1 … name-N), then
// the tasks that `spawn` actions create later. Below each cgroup but the root, after its tasks,
// its sched entity on every CPU ("/A@1", the name records and exports use): selecting one draws
// its own PELT averages in the timeline's PELT pane (the root group has no entity).
//
// The model adapts, it does not own: it keeps a pointer to a Scenario owned by
// the window and a table of nodes holding indexes into that Scenario. QModelIndex::internalId()
// is the node's position in that table, never a pointer. Call setScenario() again whenever the
// Scenario changes; that resets the model.
//
// Editing: the model never writes the Scenario. Dropping tasks on a cgroup
// (private MIME type kTaskMimeType carrying task names, the ids actions use) and editing
// cpu.weight, cpu.max, nice or CPUs in place emit actionRequested() with the Action the edit
// means; the window turns it into an undoable edit at the current simulated time. With
// setTime(), the tree shows the state at that time: actions up to it are folded in (moves
// reparent tasks, set actions change the columns, killed tasks are marked).
#pragma once

#include "core/base/time.h"
#include "core/sim/scenariospec.h"

#include <QAbstractItemModel>
#include <QHash>

#include <optional>
#include <string>
#include <vector>

namespace schedlab::ui {

class MachineTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, WeightColumn, CpusColumn, CpuMaxColumn, ColumnCount };
    static constexpr const char* kTaskMimeType = "application/x-schedlab-task-names";
    enum Role {
        KindRole = Qt::UserRole + 1, ///< NodeKind as int
        TaskIndexRole,               ///< simulation task index (see setTaskNames), -1 for cgroups
        TaskNameRole,                ///< expanded task name, empty for cgroups
        CgroupPathRole,              ///< the cgroup path (for tasks: their cgroup)
        EntityNameRole,              ///< group entities: "/path@cpu"; empty otherwise
        CpuRole,                     ///< group entities: their CPU; -1 otherwise
    };
    enum class NodeKind { Cgroup, Task, GroupEntity };

    explicit MachineTreeModel(QObject* parent = nullptr);

    /// @p scenario must outlive the model or be replaced first; nullptr empties the model.
    void setScenario(const Scenario* scenario);
    const Scenario* scenario() const { return m_scenario; }

    /// The simulation's task names by index (Recording::taskNames), so task indexes and colours
    /// follow the simulation even where it numbers tasks differently from the file (children
    /// forked before a spawn action). Call refreshTaskIndexes() when the list has grown.
    /// Without names, indexes are the expansion order of the file.
    void setTaskNames(const std::vector<std::string>* names);
    void refreshTaskIndexes();

    /// Shows the state at @p t: actions with `at` <= t are folded in. Resets the model only
    /// when that set changes.
    void setTime(Nanoseconds t);
    Nanoseconds time() const { return m_time; }

    QModelIndex indexForCgroup(const QString& path) const;
    QModelIndex indexForTask(const QString& name) const;
    /// The node of group entity @p name ("/A@1"), if the scenario has that cgroup and CPU.
    QModelIndex indexForGroupEntity(const QString& name) const;
    int taskCount() const { return m_taskCount; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Validates the edit and emits actionRequested(); the Scenario is not touched here.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
        const QModelIndex& parent) const override;
    /// Tasks dropped on a cgroup: one Move action per task not already there.
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
        const QModelIndex& parent) override;
    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;

Q_SIGNALS:
    /// An edit of the user, as the action that performs it (its `at` is left for the caller).
    void actionRequested(const schedlab::Action& action, const QString& description);
    /// An edit the model refused, with the reason (e.g. "cpu.weight must be 1…10000").
    void editRejected(const QString& reason);

private:
    struct Node
    {
        NodeKind kind = NodeKind::Cgroup;
        int parent = -1;    ///< node index, -1 for the root "/"
        int row = 0;        ///< position among the parent's children
        int spec = -1;      ///< Cgroup: index in Scenario::cgroups (-1: implicit root)
                            ///< Task: index in Scenario::tasks
        int action = -1;    ///< Task: index in Scenario::actions when spawned by an action
        int replica = 0;    ///< Task: 1…N for `count: N`, 0 for a single task
        int taskIndex = -1; ///< Task: simulation index (expansion order until known)
        int cpu = -1;       ///< GroupEntity: its CPU (spec: its cgroup's index)
        std::vector<int> children;
        // State folded in from actions up to m_time.
        std::optional<int> nice;
        std::optional<std::string> cpus;
        std::optional<int> weight; ///< Cgroup: cpu.weight as read after a folded write
        std::optional<CpuMax> cpuMax;
        uint64_t shares = uint64_t{1} << 20; ///< Cgroup: tg->shares (scaled), files and actions
        bool idle = false;                   ///< Cgroup: cpu.idle, files and actions
        std::optional<std::string> movedTo;  ///< Task: cgroup after a move
        bool killed = false;
    };

    void rebuild();
    void foldActions();
    void reparent(int node, int newParent);
    int foldedActionCount(Nanoseconds t) const;
    std::optional<CpuMax> effectiveCpuMax(const Node& node) const;
    int nodeOf(const QModelIndex& index) const;
    const TaskSpec& taskSpec(const Node& node) const;
    QString nodeName(const Node& node) const;
    QString cgroupPath(const Node& node) const;
    QVariant displayData(const Node& node, int column) const;
    QString toolTip(const Node& node) const;

    const Scenario* m_scenario = nullptr;
    const std::vector<std::string>* m_names = nullptr;
    size_t m_namesSeen = 0;
    QHash<QString, int> m_taskNodes; ///< task name → node
    std::vector<Node> m_nodes;       ///< m_nodes[0] is "/" whenever a scenario is set
    int m_taskCount = 0;
    Nanoseconds m_time{-1}; ///< -1: the file as written, no action folded in
    int m_folded = 0;
};

} // namespace schedlab::ui
