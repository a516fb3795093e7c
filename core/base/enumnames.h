// SPDX-License-Identifier: GPL-2.0-or-later
// The spellings of an enum's values, as scenario files and messages write them. Each enum's names
// are declared next to the enum (core/workload/program.h, core/sim/scenariospec.h).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace schedlab {

/// Spellings of an enum's values, indexed by the enumerator (declaration order).
template <typename E> std::span<const std::string_view> enumNames();

template <typename E> std::string_view enumName(E value)
{
    return enumNames<E>()[static_cast<size_t>(value)];
}

template <typename E> std::optional<E> enumFromName(std::string_view name)
{
    const auto names = enumNames<E>();
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == name)
            return static_cast<E>(i);
    return std::nullopt;
}

} // namespace schedlab
