// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/model/peltlines.h"

#include "ui/timeline/model/envelope.h"

#include <array>

namespace schedlab::ui {

PeltLines peltLines(const std::vector<EntitySample>& samples, Nanoseconds until)
{
    PeltLines steps;
    const std::array<std::vector<LinePoint>*, 8> lines{&steps.load, &steps.runnable, &steps.util,
        &steps.rqLoad, &steps.rqRunnable, &steps.rqUtil, &steps.hNrQueued, &steps.hNrRunnable};
    const EntitySample* previous = nullptr; // the previous sample with PELT
    for (const EntitySample& s : samples) {
        if (!s.hasPelt)
            continue;
        // Another cfs_rq: another CPU (a migration) or another cgroup (a move).
        const bool moved = previous && (previous->cpu != s.cpu || previous->group != s.group);
        const PeltValues& p = s.pelt;
        const std::array<int64_t, 8> values{p.load, p.runnable, p.util, p.rqLoad, p.rqRunnable,
            p.rqUtil, p.hNrQueued, p.hNrRunnable};
        // Two samples at one time (two events at one instant) both stay: a vertical step.
        for (size_t k = 0; k < lines.size(); ++k)
            lines[k]->push_back({s.time, values[k], moved && k >= 3});
        previous = &s;
    }
    PeltLines out;
    const std::array<std::vector<LinePoint>*, 8> held{&out.load, &out.runnable, &out.util,
        &out.rqLoad, &out.rqRunnable, &out.rqUtil, &out.hNrQueued, &out.hNrRunnable};
    for (size_t k = 0; k < lines.size(); ++k)
        *held[k] = heldLine(*lines[k], until);
    return out;
}

} // namespace schedlab::ui
