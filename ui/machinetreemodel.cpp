// SPDX-License-Identifier: GPL-2.0-or-later
#include "machinetreemodel.h"

#include "core/scenario/scenario.h"
#include "format.h"
#include "taskpalette.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <numeric>

namespace schedlab::ui {

namespace {

QString policyName(Policy p)
{
    switch (p) {
    case Policy::Normal:
        return QStringLiteral("normal");
    case Policy::Batch:
        return QStringLiteral("batch");
    case Policy::Idle:
        return QStringLiteral("idle");
    case Policy::Fifo:
        return QStringLiteral("fifo");
    case Policy::RoundRobin:
        return QStringLiteral("rr");
    }
    return {};
}

std::string parentPath(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos || slash == 0)
        return "/";
    return path.substr(0, slash);
}

int depth(const std::string& path)
{
    return static_cast<int>(std::count(path.begin(), path.end(), '/'));
}

QString cpuMaxText(const CpuMax& m)
{
    const QString quota = m.quotaUs ? QString::number(*m.quotaUs) : QStringLiteral("max");
    return quota + QLatin1Char(' ') + QString::number(m.periodUs);
}

} // namespace

MachineTreeModel::MachineTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{ }

void MachineTreeModel::setScenario(const Scenario* scenario)
{
    beginResetModel();
    m_scenario = scenario;
    rebuild();
    endResetModel();
    refreshTaskIndexes();
}

void MachineTreeModel::setTaskNames(const std::vector<std::string>* names)
{
    m_names = names;
    m_namesSeen = 0;
    refreshTaskIndexes();
}

void MachineTreeModel::refreshTaskIndexes()
{
    if (!m_names || m_nodes.empty())
        return;
    for (; m_namesSeen < m_names->size(); ++m_namesSeen) {
        const auto it = m_taskNodes.constFind(toQString((*m_names)[m_namesSeen]));
        if (it == m_taskNodes.constEnd())
            continue; // a forked child: not in the file
        Node& node = m_nodes[static_cast<size_t>(*it)];
        if (node.taskIndex == static_cast<int>(m_namesSeen))
            continue;
        node.taskIndex = static_cast<int>(m_namesSeen);
        const QModelIndex index = createIndex(node.row, NameColumn, static_cast<quintptr>(*it));
        Q_EMIT dataChanged(index, index, {Qt::DecorationRole, Qt::ToolTipRole, TaskIndexRole});
    }
}

void MachineTreeModel::rebuild()
{
    m_nodes.clear();
    m_taskNodes.clear();
    m_namesSeen = 0;
    m_taskCount = 0;
    if (!m_scenario)
        return;

    m_nodes.push_back(Node{}); // "/"
    std::map<std::string, int> byPath{{"/", 0}};
    const auto& cgroups = m_scenario->cgroups;

    // Parents before children whatever the file order; siblings keep the file order.
    std::vector<int> order(cgroups.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return depth(cgroups[static_cast<size_t>(a)].path)
            < depth(cgroups[static_cast<size_t>(b)].path);
    });
    auto addChild = [this](int parent, Node node) {
        node.parent = parent;
        node.row = static_cast<int>(m_nodes[static_cast<size_t>(parent)].children.size());
        const int id = static_cast<int>(m_nodes.size());
        m_nodes.push_back(std::move(node));
        m_nodes[static_cast<size_t>(parent)].children.push_back(id);
        return id;
    };
    for (const int i : order) {
        const std::string& path = cgroups[static_cast<size_t>(i)].path;
        if (path == "/") {
            m_nodes[0].spec = i;
            continue;
        }
        if (byPath.count(path))
            continue; // duplicate path: the loader reports it; show the first
        // An unlisted parent is a loader error; attach to the nearest listed ancestor anyway.
        std::string up = parentPath(path);
        while (!byPath.count(up))
            up = parentPath(up);
        Node node;
        node.kind = NodeKind::Cgroup;
        node.spec = i;
        byPath[path] = addChild(byPath[up], node);
    }

    auto addTask = [&](const TaskSpec& spec, int index, int action) {
        const auto it = byPath.find(spec.cgroup.value_or("/"));
        const int parent = it == byPath.end() ? 0 : it->second;
        const int replicas = spec.count ? std::max(0, *spec.count) : 0;
        for (int r = spec.count ? 1 : 0; r <= replicas; ++r) {
            Node node;
            node.kind = NodeKind::Task;
            node.spec = index;
            node.action = action;
            node.replica = r;
            node.taskIndex = m_taskCount++;
            const int id = addChild(parent, node);
            m_taskNodes.insert(nodeName(m_nodes[static_cast<size_t>(id)]), id);
        }
    };
    const auto& tasks = m_scenario->tasks;
    for (size_t t = 0; t < tasks.size(); ++t)
        addTask(tasks[t], static_cast<int>(t), -1);
    // Tasks spawned by actions come after, in the order the simulation creates them.
    const auto& actions = m_scenario->actions;
    std::vector<int> spawns;
    for (size_t a = 0; a < actions.size(); ++a)
        if (actions[a].kind == Action::Kind::Spawn && !actions[a].spawn.empty())
            spawns.push_back(static_cast<int>(a));
    std::stable_sort(spawns.begin(), spawns.end(), [&](int a, int b) {
        return actions[static_cast<size_t>(a)].at < actions[static_cast<size_t>(b)].at;
    });
    for (const int a : spawns)
        addTask(actions[static_cast<size_t>(a)].spawn.front(), 0, a);
}

const TaskSpec& MachineTreeModel::taskSpec(const Node& node) const
{
    if (node.action >= 0)
        return m_scenario->actions[static_cast<size_t>(node.action)].spawn.front();
    return m_scenario->tasks[static_cast<size_t>(node.spec)];
}

int MachineTreeModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<int>(index.internalId()) : -1;
}

QModelIndex MachineTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || m_nodes.empty())
        return {};
    if (!parent.isValid())
        return row == 0 ? createIndex(0, column, quintptr(0)) : QModelIndex();
    if (parent.model() != this || parent.column() != 0)
        return {};
    const Node& p = m_nodes[static_cast<size_t>(nodeOf(parent))];
    if (row >= static_cast<int>(p.children.size()))
        return {};
    return createIndex(row, column, static_cast<quintptr>(p.children[static_cast<size_t>(row)]));
}

QModelIndex MachineTreeModel::parent(const QModelIndex& child) const
{
    const int id = nodeOf(child);
    if (id <= 0)
        return {};
    const int parentId = m_nodes[static_cast<size_t>(id)].parent;
    return createIndex(
        m_nodes[static_cast<size_t>(parentId)].row, 0, static_cast<quintptr>(parentId));
}

int MachineTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return m_nodes.empty() ? 0 : 1;
    if (parent.column() != 0)
        return 0;
    return static_cast<int>(m_nodes[static_cast<size_t>(nodeOf(parent))].children.size());
}

int MachineTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QString MachineTreeModel::nodeName(const Node& node) const
{
    if (node.kind == NodeKind::Task) {
        const QString name = toQString(taskSpec(node).name);
        return node.replica > 0 ? QString(name + QLatin1Char('-') + QString::number(node.replica))
                                : name;
    }
    if (node.spec < 0 || node.parent < 0)
        return QStringLiteral("/");
    const std::string& path = m_scenario->cgroups[static_cast<size_t>(node.spec)].path;
    return toQString(path.substr(path.find_last_of('/') + 1));
}

QString MachineTreeModel::cgroupPath(const Node& node) const
{
    if (node.kind == NodeKind::Task)
        return toQString(taskSpec(node).cgroup.value_or("/"));
    if (node.spec < 0 || node.parent < 0)
        return QStringLiteral("/");
    return toQString(m_scenario->cgroups[static_cast<size_t>(node.spec)].path);
}

QVariant MachineTreeModel::displayData(const Node& node, int column) const
{
    switch (column) {
    case NameColumn:
        return nodeName(node);
    case WeightColumn:
        if (node.kind == NodeKind::Task) {
            const TaskSpec& t = taskSpec(node);
            const Policy policy = t.policy.value_or(Policy::Normal);
            if (policy == Policy::Fifo || policy == Policy::RoundRobin)
                return QString(policyName(policy) + QLatin1Char(' ')
                    + QString::number(t.rtPriority.value_or(1)));
            QString text = QStringLiteral("nice ") + QString::number(t.nice.value_or(0));
            if (policy != Policy::Normal)
                text += QStringLiteral(" (") + policyName(policy) + QLatin1Char(')');
            return text;
        }
        if (node.parent < 0)
            return {}; // the root group has no cpu.weight
        {
            const CgroupFiles& f = m_scenario->cgroups[static_cast<size_t>(node.spec)].files;
            if (f.weightNice && !f.weight)
                return QString(QStringLiteral("nice ") + QString::number(*f.weightNice));
            return QString::number(f.weight.value_or(100));
        }
    case CpusColumn:
        if (node.kind == NodeKind::Task) {
            const auto& cpus = taskSpec(node).cpus;
            return cpus ? toQString(*cpus) : QStringLiteral("all");
        }
        return {};
    default:
        return {};
    }
}

QString MachineTreeModel::toolTip(const Node& node) const
{
    QStringList lines;
    if (node.kind == NodeKind::Task) {
        const TaskSpec& t = taskSpec(node);
        lines
            << QStringLiteral("task %1 (#%2)").arg(nodeName(node)).arg(node.taskIndex)
            << QStringLiteral("cgroup: %1").arg(cgroupPath(node))
            << QStringLiteral("policy: %1").arg(policyName(t.policy.value_or(Policy::Normal)))
            << QStringLiteral("nice: %1").arg(t.nice.value_or(0))
            << QStringLiteral("CPUs: %1").arg(t.cpus ? toQString(*t.cpus) : QStringLiteral("all"));
        if (t.slice)
            lines << QStringLiteral("custom slice: %1").arg(formatTime(*t.slice));
        if (node.action >= 0)
            lines << QStringLiteral("spawned at %1 by an action")
                         .arg(formatTime(m_scenario->actions[static_cast<size_t>(node.action)].at));
        else if (t.start)
            lines << QStringLiteral("starts at %1")
                         .arg(t.start->isUniform() ? formatTime(t.start->value)
                                     + QStringLiteral(" … ") + formatTime(*t.start->upper)
                                                   : formatTime(t.start->value));
        if (t.probe)
            lines << QStringLiteral("probe: spawn → exit latency is measured");
        lines << tr("program: %n operation(s)", nullptr, static_cast<int>(t.program.size()));
        return lines.join(QLatin1Char('\n'));
    }
    lines << QStringLiteral("cgroup %1").arg(cgroupPath(node));
    if (node.spec >= 0) {
        const CgroupFiles& f = m_scenario->cgroups[static_cast<size_t>(node.spec)].files;
        if (f.weight)
            lines << QStringLiteral("cpu.weight: %1").arg(*f.weight);
        if (f.weightNice)
            lines << QStringLiteral("cpu.weight.nice: %1").arg(*f.weightNice);
        if (f.cpuMax)
            lines << QStringLiteral("cpu.max: %1").arg(cpuMaxText(*f.cpuMax));
        if (f.idle)
            lines << QStringLiteral("cpu.idle: %1").arg(*f.idle ? 1 : 0);
    }
    if (node.parent >= 0 && lines.size() == 1)
        lines << QStringLiteral("cpu.weight: 100 (default)");
    return lines.join(QLatin1Char('\n'));
}

QVariant MachineTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_scenario)
        return {};
    const Node& node = m_nodes[static_cast<size_t>(nodeOf(index))];
    switch (role) {
    case Qt::DisplayRole:
        return displayData(node, index.column());
    case Qt::ToolTipRole:
        return toolTip(node);
    case Qt::DecorationRole:
        if (node.kind == NodeKind::Task && index.column() == NameColumn)
            return taskColor(node.taskIndex);
        return {};
    case KindRole:
        return static_cast<int>(node.kind);
    case TaskIndexRole:
        return node.taskIndex;
    case TaskNameRole:
        return node.kind == NodeKind::Task ? nodeName(node) : QString();
    case CgroupPathRole:
        return cgroupPath(node);
    default:
        return {};
    }
}

QVariant MachineTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return QStringLiteral("Name");
        case WeightColumn:
            return QStringLiteral("cpu.weight/nice");
        case CpusColumn:
            return QStringLiteral("CPUs");
        }
    }
    if (role == Qt::ToolTipRole && section == WeightColumn)
        return QStringLiteral("cgroups: cpu.weight (1–10000, default 100); tasks: nice (−20…19)");
    return {};
}

QModelIndex MachineTreeModel::indexForCgroup(const QString& path) const
{
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const Node& n = m_nodes[i];
        if (n.kind == NodeKind::Cgroup && cgroupPath(n) == path)
            return createIndex(n.row, 0, static_cast<quintptr>(i));
    }
    return {};
}

QModelIndex MachineTreeModel::indexForTask(const QString& name) const
{
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const Node& n = m_nodes[i];
        if (n.kind == NodeKind::Task && nodeName(n) == name)
            return createIndex(n.row, 0, static_cast<quintptr>(i));
    }
    return {};
}

} // namespace schedlab::ui
