// SPDX-License-Identifier: GPL-2.0-or-later
// Look-ups by name in a Simulation and its Recording, shared by the simulation tests.
#pragma once

#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <QtGlobal>

#include <algorithm>
#include <optional>
#include <string>

namespace schedlab::test {

inline std::optional<TaskView> taskView(const Simulation& sim, const std::string& name)
{
    for (const TaskView& t : sim.tasks())
        if (t.name == name)
            return t;
    return std::nullopt;
}

inline EntityRef taskRef(const Recording& rec, const std::string& name)
{
    const auto it = std::find(rec.taskNames.begin(), rec.taskNames.end(), name);
    return it == rec.taskNames.end()
        ? EntityRef{}
        : EntityRef::task(static_cast<int32_t>(it - rec.taskNames.begin()));
}

/// Parses an inline scenario; loader errors are printed (the caller's QVERIFY then fails).
inline std::optional<Scenario> loadScenario(const std::string& json, const std::string& file)
{
    LoadResult r = parseScenario(json, file);
    for (const std::string& e : r.errors)
        qWarning("%s", e.c_str());
    return r.scenario;
}

} // namespace schedlab::test
