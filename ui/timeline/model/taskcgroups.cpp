// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/taskcgroups.h"

#include "core/record/recording.h"
#include "core/sim/scenariospec.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace schedlab::ui {

TaskCgroups taskCgroups(const Scenario& s)
{
    struct Move
    {
        Nanoseconds at;
        std::string cgroup;
    };
    auto initial = std::make_shared<std::map<std::string, std::string>>();
    auto moves = std::make_shared<std::map<std::string, std::vector<Move>>>();
    const auto addSpec = [&](const TaskSpec& t) {
        const std::string cgroup = t.cgroup.value_or("/");
        if (t.count)
            for (int k = 1; k <= *t.count; ++k)
                (*initial)[t.name + "-" + std::to_string(k)] = cgroup;
        else
            (*initial)[t.name] = cgroup;
    };
    for (const TaskSpec& t : s.tasks)
        addSpec(t);
    std::vector<const Action*> ordered;
    for (const Action& a : s.actions) {
        if (a.kind == Action::Kind::Spawn && !a.spawn.empty())
            addSpec(a.spawn.front());
        if (a.kind == Action::Kind::Move)
            ordered.push_back(&a);
    }
    std::stable_sort(ordered.begin(), ordered.end(),
        [](const Action* a, const Action* b) { return a->at < b->at; });
    for (const Action* a : ordered)
        (*moves)[a->task].push_back({a->at, a->cgroup});
    return [initial, moves](const Recording& rec, int task, Nanoseconds t) {
        if (task < 0 || static_cast<size_t>(task) >= rec.taskNames.size())
            return -1;
        const std::string& name = rec.taskNames[static_cast<size_t>(task)];
        const auto it = initial->find(name);
        if (it == initial->end())
            return -1;
        std::string path = it->second;
        if (const auto m = moves->find(name); m != moves->end())
            for (const Move& move : m->second)
                if (move.at <= t)
                    path = move.cgroup;
        const auto g = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), path);
        return g == rec.groupPaths.end() ? -1 : static_cast<int>(g - rec.groupPaths.begin());
    };
}

TaskMoves taskMoves(const Scenario& s)
{
    auto moves = std::make_shared<std::map<std::string, std::vector<Nanoseconds>>>();
    for (const Action& a : s.actions)
        if (a.kind == Action::Kind::Move)
            (*moves)[a.task].push_back(a.at);
    for (auto& [task, times] : *moves)
        std::sort(times.begin(), times.end());
    return [moves](const Recording& rec, int task) {
        if (task < 0 || static_cast<size_t>(task) >= rec.taskNames.size())
            return std::vector<Nanoseconds>{};
        const auto it = moves->find(rec.taskNames[static_cast<size_t>(task)]);
        return it == moves->end() ? std::vector<Nanoseconds>{} : it->second;
    };
}

int parentGroup(const Recording& rec, int group)
{
    if (group < 0 || static_cast<size_t>(group) >= rec.groupPaths.size())
        return -1;
    const std::string& path = rec.groupPaths[static_cast<size_t>(group)];
    const size_t slash = path.find_last_of('/');
    if (path == "/" || slash == std::string::npos)
        return 0;
    const std::string parent = slash == 0 ? std::string("/") : path.substr(0, slash);
    const auto g = std::find(rec.groupPaths.begin(), rec.groupPaths.end(), parent);
    return g == rec.groupPaths.end() ? -1 : static_cast<int>(g - rec.groupPaths.begin());
}

} // namespace schedlab::ui
