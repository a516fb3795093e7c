// SPDX-License-Identifier: GPL-2.0-or-later
// The machine tree (architecture.md §6): the cgroup hierarchy of a Scenario, root "/" first,
// child cgroups by path, tasks as leaves (a task with `count: N` shows as name-1 … name-N), then
// the tasks that `spawn` actions create later.
//
// The model adapts, it does not own (style.md §10): it keeps a pointer to a Scenario owned by
// the window and a table of nodes holding indexes into that Scenario. QModelIndex::internalId()
// is the node's position in that table, never a pointer. Call setScenario() again whenever the
// Scenario changes; that resets the model.
#pragma once

#include <QAbstractItemModel>
#include <QHash>

#include <string>
#include <vector>

namespace schedlab {
struct Scenario;
struct TaskSpec;
} // namespace schedlab

namespace schedlab::ui {

class MachineTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, WeightColumn, CpusColumn, ColumnCount };
    enum Role {
        KindRole = Qt::UserRole + 1, ///< NodeKind as int
        TaskIndexRole,               ///< simulation task index (see setTaskNames), -1 for cgroups
        TaskNameRole,                ///< expanded task name, empty for cgroups
        CgroupPathRole,              ///< the cgroup path (for tasks: their cgroup)
    };
    enum class NodeKind { Cgroup, Task };

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

    QModelIndex indexForCgroup(const QString& path) const;
    QModelIndex indexForTask(const QString& name) const;
    int taskCount() const { return m_taskCount; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

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
        std::vector<int> children;
    };

    void rebuild();
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
};

} // namespace schedlab::ui
