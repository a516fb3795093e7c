// SPDX-License-Identifier: GPL-2.0-or-later
// Strong ids: "sadly, C++ doesn't yet have opaque typedefs" (heaptrack). An id is an index into
// the simulation's tables; -1 means "none".
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace schedlab {

template <typename Tag> struct Id
{
    int32_t value = -1;

    constexpr Id() = default;
    constexpr explicit Id(int32_t v)
        : value(v)
    { }
    constexpr bool valid() const { return value >= 0; }
    constexpr explicit operator bool() const { return valid(); }
    constexpr size_t index() const { return static_cast<size_t>(value); }
    friend constexpr auto operator<=>(Id, Id) = default;
};

using TaskId = Id<struct TaskTag>;
using CgroupId = Id<struct CgroupTag>;
using CpuId = Id<struct CpuTag>;

} // namespace schedlab

template <typename Tag> struct std::hash<schedlab::Id<Tag>>
{
    size_t operator()(schedlab::Id<Tag> id) const noexcept
    {
        return std::hash<int32_t>{}(id.value);
    }
};
