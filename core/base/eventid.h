// SPDX-License-Identifier: GPL-2.0-or-later
// Handle of a scheduled event (core/sim/eventqueue.h). Kept apart from the event queue so that
// the scheduling classes and the workload can hold timers without knowing the event loop.
#pragma once

#include <cstdint>

namespace schedlab {

/// Handle of a scheduled event; default-constructed = none.
struct EventId
{
    uint64_t seq = 0;
    constexpr bool valid() const { return seq != 0; }
    friend constexpr bool operator==(EventId, EventId) = default;
};

} // namespace schedlab
