// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/machine/scenarioeditor.h"

#include "core/lesson/nochange.h"
#include "core/scenario/jsonvalues.h"
#include "ui/run/simulationcontroller.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <utility>

namespace schedlab::ui {

namespace {

/// One edit: the whole scenario before and after (scenarios are small), so undo is exact.
class ScenarioCommand : public QUndoCommand
{
public:
    ScenarioCommand(ScenarioEditor* editor, Scenario before, Scenario after, const QString& text)
        : QUndoCommand(text)
        , m_editor(editor)
        , m_before(std::move(before))
        , m_after(std::move(after))
    { }
    void redo() override
    {
        // QUndoStack::push() calls redo() once: the editor has applied the edit already.
        if (std::exchange(m_applied, false))
            return;
        m_editor->setLastChange(QObject::tr("redo: %1").arg(text()));
        m_editor->applyScenario(m_after);
    }
    void undo() override
    {
        m_editor->setLastChange(QObject::tr("undo: %1").arg(text()));
        m_editor->applyScenario(m_before);
    }

private:
    ScenarioEditor* m_editor;
    Scenario m_before;
    Scenario m_after;
    bool m_applied = true;
};

bool taskNamed(const Scenario& s, const std::string& path)
{
    return std::any_of(s.tasks.begin(), s.tasks.end(), [&](const TaskSpec& t) {
        return t.cgroup.value_or("/") == path;
    }) || std::any_of(s.actions.begin(), s.actions.end(), [&](const Action& a) {
        return (a.kind == Action::Kind::Move && a.cgroup == path)
            || (a.kind == Action::Kind::Set && a.set.cgroup == path)
            || (a.kind == Action::Kind::Spawn && !a.spawn.empty()
                && a.spawn.front().cgroup.value_or("/") == path);
    });
}

} // namespace

ScenarioEditor::ScenarioEditor(SimulationController* controller, QObject* parent)
    : QObject(parent)
    , m_controller(controller)
    , m_undo(new QUndoStack(this))
{ }

void ScenarioEditor::setScenario(Scenario* scenario)
{
    m_undo->clear();
    staleCheck();
    m_scenario = scenario;
    m_fileActions = scenario ? scenario->actions.size() : 0;
    m_controller->setFileActionCount(m_fileActions);
}

void ScenarioEditor::resetHistory()
{
    m_undo->clear();
    staleCheck();
}

Nanoseconds ScenarioEditor::editTime() const
{
    return m_controller->seekTarget().value_or(m_controller->now());
}

bool ScenarioEditor::applyScenario(const Scenario& next)
{
    if (!m_scenario)
        return false;
    QString error;
    if (!m_controller->reload(next, editTime(), &error)) {
        Q_EMIT editFailed(error);
        return false;
    }
    *m_scenario = next;
    staleCheck(); // an answer about the edit undone or redone no longer holds
    Q_EMIT scenarioChanged();
    return true;
}

bool ScenarioEditor::push(const Scenario& next, const QString& description)
{
    if (!m_scenario)
        return false;
    // Check first that the simulation accepts it, so a refused edit leaves no undo entry.
    QString error;
    if (!m_controller->reload(next, editTime(), &error)) {
        Q_EMIT editFailed(error);
        return false;
    }
    const Scenario before = *m_scenario;
    *m_scenario = next;
    staleCheck();
    m_lastChange = description;
    m_undo->push(new ScenarioCommand(this, before, next, description));
    Q_EMIT scenarioChanged();
    return true;
}

Scenario scenarioForSaving(const Scenario& scenario)
{
    Scenario out = scenario;
    std::stable_sort(out.actions.begin(), out.actions.end(),
        [](const Action& a, const Action& b) { return a.at < b.at; });
    return out;
}

bool ScenarioEditor::submit(Action action, const QString& description)
{
    if (!m_scenario)
        return false;
    action.at = editTime();
    // An action at or after the end would never run, and the loader refuses it (docs/limits.md):
    // saving it would make a file that does not open again.
    if (action.at >= m_scenario->durationOrDefault()) {
        Q_EMIT editFailed(
            tr("The run has reached its end (%1): an edit there would never take "
               "effect. Rewind first, or lengthen the scenario.")
                .arg(QString::fromStdString(formatDuration(m_scenario->durationOrDefault()))));
        return false;
    }
    Scenario next = *m_scenario;
    // Truncate the future: this session's edits later than the new one belong to the timeline
    // being abandoned. Actions that came with the file are part of the scenario and stay.
    auto& actions = next.actions;
    const auto firstEdit =
        actions.begin() + static_cast<std::ptrdiff_t>(std::min(m_fileActions, actions.size()));
    actions.erase(
        std::remove_if(firstEdit, actions.end(), [&](const Action& a) { return a.at > action.at; }),
        actions.end());
    const Scenario before = next;
    actions.push_back(action);
    if (!push(next, description))
        return false;
    checkEdit(before, next, action);
    return true;
}

ScenarioEditor::~ScenarioEditor() =
    default; // the check in flight is told to stop, its answer dropped

void ScenarioEditor::staleCheck()
{
    m_check.cancel();
}

void ScenarioEditor::checkEdit(const Scenario& before, const Scenario& after, const Action& action)
{
    const RunOptions options = m_controller->runOptions();
    // Two (PLACE_LAG: three) full runs: never on the GUI thread.
    m_check.start(
        [before, after, options, action](const std::atomic<bool>& stop) {
            const auto n =
                lesson::whyEditChangedNothing(before, after, options, action, nullptr, &stop);
            QStringList lines;
            if (n)
                for (const std::string& line : n->lines)
                    lines << QString::fromStdString(line);
            return lines;
        },
        [this, at = action.at.count()](const QStringList& lines) {
            if (!lines.isEmpty())
                Q_EMIT editChangedNothing(lines, at);
            Q_EMIT editChecked(!lines.isEmpty());
        });
}

bool ScenarioEditor::addCgroup(const std::string& path)
{
    if (!m_scenario)
        return false;
    const std::string problem = cgroupPathError(path);
    if (!problem.empty() || path == "/") {
        Q_EMIT editFailed(
            tr("cgroup path \"%1\": %2")
                .arg(QString::fromStdString(path),
                    QString::fromStdString(problem.empty() ? "the root exists already" : problem)));
        return false;
    }
    Scenario next = *m_scenario;
    const auto exists = [&](const std::string& p) {
        return p == "/"
            || std::any_of(next.cgroups.begin(), next.cgroups.end(),
                [&](const CgroupSpec& c) { return c.path == p; });
    };
    if (exists(path)) {
        Q_EMIT editFailed(tr("cgroup %1 exists already").arg(QString::fromStdString(path)));
        return false;
    }
    // Missing ancestors are created too, parents first, as mkdir -p would.
    std::vector<std::string> chain;
    for (std::string p = path; !exists(p); p = parentCgroup(p))
        chain.push_back(p);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        next.cgroups.push_back(CgroupSpec{*it, {}});
    return push(next, tr("add cgroup %1").arg(QString::fromStdString(path)));
}

bool ScenarioEditor::removeCgroup(const std::string& path)
{
    if (!m_scenario)
        return false;
    Scenario next = *m_scenario;
    const auto it = std::find_if(next.cgroups.begin(), next.cgroups.end(),
        [&](const CgroupSpec& c) { return c.path == path; });
    const bool hasChild = std::any_of(next.cgroups.begin(), next.cgroups.end(),
        [&](const CgroupSpec& c) { return parentCgroup(c.path) == path && c.path != path; });
    if (it == next.cgroups.end() || hasChild || taskNamed(next, path)) {
        // Like rmdir on a cgroup: only an empty leaf that nothing refers to can go.
        Q_EMIT editFailed(
            tr("cgroup %1 cannot be removed: it has tasks, child groups or actions that use it")
                .arg(QString::fromStdString(path)));
        return false;
    }
    next.cgroups.erase(it);
    return push(next, tr("remove cgroup %1").arg(QString::fromStdString(path)));
}

bool ScenarioEditor::setHz(int hz)
{
    if (!m_scenario || m_scenario->kernel.hz.value_or(1000) == hz)
        return false;
    Scenario next = *m_scenario;
    next.kernel.hz = hz;
    return push(next, tr("HZ → %1").arg(hz));
}

} // namespace schedlab::ui
