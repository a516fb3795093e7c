// SPDX-License-Identifier: GPL-2.0-or-later
// Which scenario fields the simulation models today. The loader accepts every field of the
// format but reports the ones listed here once ("not simulated yet: cpu.max").
#pragma once

#include <string_view>

namespace schedlab {

/// True if the behaviour behind a field / operation / value is simulated. Names:
/// cgroup files ("cpu.max", "cpu.idle", "cpu.rt_runtime_us", "cpu.rt_period_us",
/// "cpu.weight", "cpu.weight.nice"), operations ("lock", "unlock", "fork", "cgroup", "cpus"),
/// task fields ("cookie", "rt_priority"), policies ("policy fifo", "policy rr"),
/// machine ("threads_per_core", "cores_per_llc"), actions ("move", "spawn", "kill").
bool isSimulated(std::string_view field);

} // namespace schedlab
