// SPDX-License-Identifier: GPL-2.0-or-later
#include "support.h"

#include <array>

namespace schedlab {

bool isSimulated(std::string_view field)
{
    // Fields accepted by the format whose behaviour the core does not model yet.
    static constexpr std::array<std::string_view, 3> kNotYet{"cpu.max", "lock", "unlock"};
    for (auto name : kNotYet)
        if (name == field)
            return false;
    return true;
}

} // namespace schedlab
