// SPDX-License-Identifier: GPL-2.0-or-later
// value · mul / div in 128 bits, truncated toward zero as the kernel's div_s64() (the lag and
// deadline rescaling of kernel-model.md §6.4); @p div 0 leaves the value unchanged.
#pragma once

#include "core/fair/weights.h"

#include <cstdint>

namespace schedlab {

inline int64_t mulDivS64(int64_t value, uint64_t mul, uint64_t div)
{
    if (!div)
        return value;
    return static_cast<int64_t>(
        static_cast<Int128>(value) * static_cast<Int128>(mul) / static_cast<Int128>(div));
}

} // namespace schedlab
