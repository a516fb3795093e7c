// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/machine/machinetreemodel.h"

#include "core/base/cpuset.h"
#include "core/fair/taskgroup.h"
#include "core/scenario/jsonvalues.h"
#include "ui/common/format.h"
#include "ui/common/taskpalette.h"

#include <QDataStream>
#include <QFont>
#include <QIODevice>
#include <QMimeData>
#include <QPalette>
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
    case Policy::Deadline:
        return QStringLiteral("deadline");
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
    m_folded = 0;
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
        // The group's cpu.weight and cpu.idle as the kernel keeps them (cpu.idle 1 makes it 3).
        writeWeightFiles(
            node.shares, node.idle, cgroups[static_cast<size_t>(i)].files, path, nullptr);
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
    // Each cgroup's sched entity per CPU (the root has none), after the cgroup's tasks.
    const int cpus = std::max(1, m_scenario->machine.cpuCount());
    for (const auto& [path, id] : byPath) {
        if (id == 0)
            continue;
        for (int cpu = 0; cpu < cpus; ++cpu) {
            Node node;
            node.kind = NodeKind::GroupEntity;
            node.spec = m_nodes[static_cast<size_t>(id)].spec;
            node.cpu = cpu;
            addChild(id, node);
        }
    }
    foldActions();
}

int MachineTreeModel::foldedActionCount(Nanoseconds t) const
{
    if (!m_scenario || t < Nanoseconds{0})
        return 0;
    return static_cast<int>(std::count_if(m_scenario->actions.begin(), m_scenario->actions.end(),
        [t](const Action& a) { return a.at <= t; }));
}

void MachineTreeModel::setTime(Nanoseconds t)
{
    const bool changed = foldedActionCount(t) != m_folded;
    m_time = t;
    if (!changed)
        return;
    beginResetModel();
    rebuild();
    endResetModel();
    m_namesSeen = 0;
    refreshTaskIndexes();
}

void MachineTreeModel::reparent(int id, int newParent)
{
    Node& node = m_nodes[static_cast<size_t>(id)];
    if (node.parent == newParent)
        return;
    auto& siblings = m_nodes[static_cast<size_t>(node.parent)].children;
    siblings.erase(siblings.begin() + node.row);
    for (size_t r = static_cast<size_t>(node.row); r < siblings.size(); ++r)
        m_nodes[static_cast<size_t>(siblings[r])].row = static_cast<int>(r);
    auto& children = m_nodes[static_cast<size_t>(newParent)].children;
    node.parent = newParent;
    node.row = static_cast<int>(children.size());
    children.push_back(id);
}

void MachineTreeModel::foldActions()
{
    m_folded = foldedActionCount(m_time);
    if (m_folded == 0)
        return;
    // The order the simulation applies them: by time, file order among equal times.
    std::vector<const Action*> due;
    for (const Action& a : m_scenario->actions)
        if (a.at <= m_time)
            due.push_back(&a);
    std::stable_sort(
        due.begin(), due.end(), [](const Action* a, const Action* b) { return a->at < b->at; });
    auto cgroupNode = [this](const std::string& path) {
        for (size_t i = 0; i < m_nodes.size(); ++i)
            if (m_nodes[i].kind == NodeKind::Cgroup && cgroupPath(m_nodes[i]).toStdString() == path)
                return static_cast<int>(i);
        return -1;
    };
    for (const Action* a : due) {
        switch (a->kind) {
        case Action::Kind::Move: {
            const auto task = m_taskNodes.constFind(toQString(a->task));
            const int group = cgroupNode(a->cgroup);
            if (task == m_taskNodes.constEnd() || group < 0)
                break;
            m_nodes[static_cast<size_t>(*task)].movedTo = a->cgroup;
            reparent(*task, group);
            break;
        }
        case Action::Kind::Kill:
            if (const auto task = m_taskNodes.constFind(toQString(a->task));
                task != m_taskNodes.constEnd())
                m_nodes[static_cast<size_t>(*task)].killed = true;
            break;
        case Action::Kind::Set:
            if (a->set.task) {
                const auto task = m_taskNodes.constFind(toQString(*a->set.task));
                if (task == m_taskNodes.constEnd())
                    break;
                Node& n = m_nodes[static_cast<size_t>(*task)];
                if (a->set.nice)
                    n.nice = a->set.nice;
                if (a->set.cpus)
                    n.cpus = a->set.cpus;
            } else if (a->set.cgroup) {
                const int group = cgroupNode(*a->set.cgroup);
                if (group <= 0)
                    break;
                Node& n = m_nodes[static_cast<size_t>(group)];
                // A weight written while the group is idle is refused (EINVAL), as the run's
                // failed_action finding says; cpu.idle 0 leaves cpu.weight 100.
                if (writeWeightFiles(n.shares, n.idle, a->set.files, *a->set.cgroup, nullptr)
                        .sharesChanged)
                    n.weight = cpuWeightRead(n.shares);
                if (a->set.files.cpuMax)
                    n.cpuMax = a->set.files.cpuMax;
            }
            break;
        default:
            break;
        }
    }
}

std::optional<CpuMax> MachineTreeModel::effectiveCpuMax(const Node& node) const
{
    if (node.cpuMax)
        return node.cpuMax;
    if (node.spec >= 0 && node.parent >= 0)
        return m_scenario->cgroups[static_cast<size_t>(node.spec)].files.cpuMax;
    return std::nullopt;
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
    if (node.kind == NodeKind::GroupEntity)
        return toQString(m_scenario->cgroups[static_cast<size_t>(node.spec)].path)
            + QLatin1Char('@') + QString::number(node.cpu);
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
        return toQString(node.movedTo.value_or(taskSpec(node).cgroup.value_or("/")));
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
        if (node.kind == NodeKind::GroupEntity)
            return {};
        if (node.kind == NodeKind::Task) {
            const TaskSpec& t = taskSpec(node);
            const Policy policy = t.policy.value_or(Policy::Normal);
            if (policy == Policy::Fifo || policy == Policy::RoundRobin)
                return QString(policyName(policy) + QLatin1Char(' ')
                    + QString::number(t.rtPriority.value_or(1)));
            if (policy == Policy::Deadline && t.dl) // runtime/deadline/period (§15)
                return QStringLiteral("deadline %1/%2/%3")
                    .arg(QString::fromStdString(formatDurationHuman(Nanoseconds(t.dl->runtime))),
                        QString::fromStdString(formatDurationHuman(Nanoseconds(t.dl->deadline))),
                        QString::fromStdString(
                            formatDurationHuman(Nanoseconds(t.dl->effectivePeriod()))));
            QString text =
                QStringLiteral("nice ") + QString::number(node.nice.value_or(t.nice.value_or(0)));
            if (policy != Policy::Normal)
                text += QStringLiteral(" (") + policyName(policy) + QLatin1Char(')');
            return text;
        }
        if (node.parent < 0)
            return {}; // the root group has no cpu.weight
        {
            const CgroupFiles& f = m_scenario->cgroups[static_cast<size_t>(node.spec)].files;
            if (node.idle) // cpu_weight_read_u64() of WEIGHT_IDLEPRIO
                return QString(
                    QString::number(cpuWeightRead(node.shares)) + QStringLiteral(" (idle)"));
            if (node.weight)
                return QString::number(*node.weight);
            if (f.weightNice && !f.weight)
                return QString(QStringLiteral("nice ") + QString::number(*f.weightNice));
            return QString::number(f.weight.value_or(100));
        }
    case CpusColumn:
        if (node.kind == NodeKind::Task) {
            const auto cpus = node.cpus ? node.cpus : taskSpec(node).cpus;
            return cpus ? toQString(*cpus) : QStringLiteral("all");
        }
        return {};
    case CpuMaxColumn:
        if (node.kind == NodeKind::Cgroup && node.parent >= 0) {
            const auto max = effectiveCpuMax(node);
            return max ? toQString(formatCpuMax(*max)) : QStringLiteral("max");
        }
        return {};
    default:
        return {};
    }
}

QString MachineTreeModel::toolTip(const Node& node) const
{
    QStringList lines;
    if (node.kind == NodeKind::GroupEntity)
        return QStringLiteral(
            "sched entity of cgroup %1 on CPU %2: it stands for the cgroup's cfs_rq on that CPU "
            "in the parent's cfs_rq.\nSelect it to draw its own PELT averages (load_avg, "
            "runnable_avg, util_avg) and those of the cfs_rq it is queued on in the PELT pane "
            "(docs/kernel-model.md §6.6).")
            .arg(cgroupPath(node))
            .arg(node.cpu);
    if (node.kind == NodeKind::Task) {
        const TaskSpec& t = taskSpec(node);
        lines << QStringLiteral("task %1 (#%2)").arg(nodeName(node)).arg(node.taskIndex)
              << QStringLiteral("cgroup: %1").arg(cgroupPath(node))
              << QStringLiteral("policy: %1").arg(policyName(t.policy.value_or(Policy::Normal)))
              << QStringLiteral("nice: %1 (−20…19; each step ≈ 10%% CPU share against nice-0, "
                                "weight from sched_prio_to_weight)")
                     .arg(node.nice.value_or(t.nice.value_or(0)))
              << QStringLiteral("CPUs: %1 (affinity; edit as a cpulist such as 0-1,3)")
                     .arg(toQString((node.cpus ? node.cpus : t.cpus).value_or("all")));
        if (node.killed)
            lines << QStringLiteral("killed by an action");
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
        if (node.idle)
            lines << QStringLiteral("cpu.weight: %1 (cpu.idle 1: the group weighs 3, "
                                    "WEIGHT_IDLEPRIO; cpu.weight writes fail with EINVAL)")
                         .arg(cpuWeightRead(node.shares));
        else if (node.weight || f.weight)
            lines << QStringLiteral("cpu.weight: %1 (share of the parent against siblings)")
                         .arg(node.weight.value_or(f.weight.value_or(100)));
        if (f.weightNice && !node.idle)
            lines << QStringLiteral("cpu.weight.nice: %1").arg(*f.weightNice);
        if (const auto max = effectiveCpuMax(node))
            lines << QStringLiteral("cpu.max: %1 (quota and period in µs)").arg(cpuMaxText(*max));
        if (f.idle || node.idle)
            lines << QStringLiteral("cpu.idle: %1").arg(node.idle ? 1 : 0);
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
    case Qt::EditRole:
        if (index.column() == WeightColumn && node.kind == NodeKind::Task)
            return node.nice.value_or(taskSpec(node).nice.value_or(0));
        return displayData(node, index.column());
    case Qt::FontRole:
        if (node.killed) {
            QFont font;
            font.setStrikeOut(true);
            return font;
        }
        return {};
    case Qt::ForegroundRole:
        if (node.killed)
            return QPalette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case TaskIndexRole:
        return node.taskIndex;
    case TaskNameRole:
        return node.kind == NodeKind::Task ? nodeName(node) : QString();
    case CgroupPathRole:
        return cgroupPath(node);
    case EntityNameRole:
        return node.kind == NodeKind::GroupEntity ? nodeName(node) : QString();
    case CpuRole:
        return node.kind == NodeKind::GroupEntity ? node.cpu : -1;
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
        case CpuMaxColumn:
            return QStringLiteral("cpu.max");
        }
    }
    if (role == Qt::ToolTipRole && section == CpuMaxColumn)
        return QStringLiteral("cgroups: cpu.max bandwidth limit \"QUOTA PERIOD\" in µs, or "
                              "\"max PERIOD\" for none");
    if (role == Qt::ToolTipRole && section == CpusColumn)
        return QStringLiteral("tasks: CPU affinity as a cpulist (e.g. 0-1,3)");
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

QModelIndex MachineTreeModel::indexForGroupEntity(const QString& name) const
{
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const Node& n = m_nodes[i];
        if (n.kind == NodeKind::GroupEntity && nodeName(n) == name)
            return createIndex(n.row, 0, static_cast<quintptr>(i));
    }
    return {};
}

Qt::ItemFlags MachineTreeModel::flags(const QModelIndex& index) const
{
    if (!index.isValid() || !m_scenario)
        return Qt::ItemIsDropEnabled;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    const Node& node = m_nodes[static_cast<size_t>(nodeOf(index))];
    if (node.kind == NodeKind::GroupEntity)
        return f; // selectable only: no edit, no drag, no drop
    if (node.kind == NodeKind::Task) {
        if (node.killed)
            return f;
        f |= Qt::ItemIsDragEnabled;
        const Policy policy = taskSpec(node).policy.value_or(Policy::Normal);
        const bool rt =
            policy == Policy::Fifo || policy == Policy::RoundRobin || policy == Policy::Deadline;
        if ((index.column() == WeightColumn && !rt) || index.column() == CpusColumn)
            f |= Qt::ItemIsEditable;
        return f;
    }
    f |= Qt::ItemIsDropEnabled;
    if (node.parent >= 0 && (index.column() == WeightColumn || index.column() == CpuMaxColumn))
        f |= Qt::ItemIsEditable;
    return f;
}

bool MachineTreeModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || !m_scenario || role != Qt::EditRole
        || !(flags(index) & Qt::ItemIsEditable))
        return false;
    const Node& node = m_nodes[static_cast<size_t>(nodeOf(index))];
    const QString text = value.toString().trimmed();
    // Enter on an unchanged value is no edit (no action, no re-run, no reset under the editor).
    if (text == data(index, Qt::EditRole).toString().trimmed())
        return false;
    Action action;
    action.kind = Action::Kind::Set;
    QString description;
    if (node.kind == NodeKind::Task) {
        action.set.task = nodeName(node).toStdString();
        if (index.column() == WeightColumn) {
            QString number = text;
            number.remove(QStringLiteral("nice")).replace(QChar(0x2212), QLatin1Char('-'));
            bool ok = false;
            const int nice = number.trimmed().toInt(&ok);
            if (!ok || nice < -20 || nice > 19) {
                Q_EMIT editRejected(tr("nice must be an integer in −20…19, not \"%1\"").arg(text));
                return false;
            }
            action.set.nice = nice;
            description = tr("nice %1 → %2").arg(nodeName(node)).arg(nice);
        } else {
            std::string error;
            if (!CpuSet::parse(text.toStdString(), m_scenario->machine.cpuCount(), &error)) {
                Q_EMIT editRejected(tr("CPUs of %1: %2").arg(nodeName(node), toQString(error)));
                return false;
            }
            action.set.cpus = text.toStdString();
            description = tr("affinity %1 → %2").arg(nodeName(node), text);
        }
    } else {
        const QString path = cgroupPath(node);
        action.set.cgroup = path.toStdString();
        if (index.column() == WeightColumn) {
            if (node.idle) { // sched_group_set_shares(): -EINVAL while tg_is_idle()
                Q_EMIT editRejected(tr("%1 is idle (cpu.idle 1): the kernel refuses a cpu.weight "
                                       "write (EINVAL); its weight stays 3 (cpu.weight reads 1)")
                                        .arg(path));
                return false;
            }
            bool ok = false;
            const int weight = text.toInt(&ok);
            if (!ok || weight < 1 || weight > 10000) {
                Q_EMIT editRejected(
                    tr("cpu.weight must be an integer in 1…10000, not \"%1\"").arg(text));
                return false;
            }
            action.set.files.weight = weight;
            description = tr("cpu.weight %1 → %2").arg(path).arg(weight);
        } else {
            std::string error;
            const auto max = parseCpuMax(text.toStdString(), &error);
            if (!max) {
                Q_EMIT editRejected(tr("cpu.max of %1: %2").arg(path, toQString(error)));
                return false;
            }
            action.set.files.cpuMax = max;
            description = tr("cpu.max %1 → %2").arg(path, toQString(formatCpuMax(*max)));
        }
    }
    Q_EMIT actionRequested(action, description);
    return true;
}

QStringList MachineTreeModel::mimeTypes() const
{
    return {QString::fromLatin1(kTaskMimeType)};
}

QMimeData* MachineTreeModel::mimeData(const QModelIndexList& indexes) const
{
    QStringList names;
    for (const QModelIndex& index : indexes) {
        const QString name = index.data(TaskNameRole).toString();
        if (!name.isEmpty() && !names.contains(name))
            names << name;
    }
    if (names.isEmpty())
        return nullptr;
    QByteArray bytes;
    QDataStream stream(&bytes, QIODevice::WriteOnly);
    stream << names;
    auto* data = new QMimeData;
    data->setData(QString::fromLatin1(kTaskMimeType), bytes);
    return data;
}

namespace {

QStringList taskNamesFrom(const QMimeData* data)
{
    QStringList names;
    if (!data || !data->hasFormat(QString::fromLatin1(MachineTreeModel::kTaskMimeType)))
        return names;
    QDataStream stream(data->data(QString::fromLatin1(MachineTreeModel::kTaskMimeType)));
    stream >> names;
    if (stream.status() != QDataStream::Ok)
        return {};
    return names;
}

} // namespace

bool MachineTreeModel::canDropMimeData(
    const QMimeData* data, Qt::DropAction action, int, int, const QModelIndex& parent) const
{
    if (action != Qt::MoveAction || !parent.isValid() || !m_scenario)
        return false;
    if (m_nodes[static_cast<size_t>(nodeOf(parent))].kind != NodeKind::Cgroup)
        return false;
    return !taskNamesFrom(data).isEmpty();
}

bool MachineTreeModel::dropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    const QString path = cgroupPath(m_nodes[static_cast<size_t>(nodeOf(parent))]);
    bool any = false;
    for (const QString& name : taskNamesFrom(data)) {
        const auto it = m_taskNodes.constFind(name);
        if (it == m_taskNodes.constEnd()) // not a task of this scenario: ignore, never crash
            continue;
        const Node& node = m_nodes[static_cast<size_t>(*it)];
        if (node.killed || cgroupPath(node) == path)
            continue;
        Action move;
        move.kind = Action::Kind::Move;
        move.task = name.toStdString();
        move.cgroup = path.toStdString();
        Q_EMIT actionRequested(move, tr("move %1 → %2").arg(name, path));
        any = true;
    }
    // The tree changes when the window applies the action (setScenario/setTime); the view's
    // removeRows() after a MoveAction is refused by this model, so no row disappears twice.
    return any;
}

Qt::DropActions MachineTreeModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

Qt::DropActions MachineTreeModel::supportedDragActions() const
{
    return Qt::MoveAction;
}

} // namespace schedlab::ui
