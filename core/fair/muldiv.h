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
    // 64-bit fast path (the common case): the same quotient, truncated toward zero.
    int64_t product = 0;
    if (mul <= static_cast<uint64_t>(INT64_MAX) && div <= static_cast<uint64_t>(INT64_MAX)
        && !__builtin_mul_overflow(value, static_cast<int64_t>(mul), &product))
        return product / static_cast<int64_t>(div);
    return static_cast<int64_t>(
        static_cast<Int128>(value) * static_cast<Int128>(mul) / static_cast<Int128>(div));
}

/// value · mul / div in 128 bits, truncated toward zero (place_entity()'s lag inflation); 64-bit
/// when everything fits, with the same quotient. @p div must not be 0.
inline int64_t mulDivS128(int64_t value, Int128 mul, Int128 div)
{
    int64_t product = 0;
    if (mul >= 0 && mul <= INT64_MAX && div > 0 && div <= INT64_MAX
        && !__builtin_mul_overflow(value, static_cast<int64_t>(mul), &product))
        return product / static_cast<int64_t>(div);
    return static_cast<int64_t>(static_cast<Int128>(value) * mul / div);
}

} // namespace schedlab
