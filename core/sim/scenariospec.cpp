// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenariospec.h"

#include <array>

namespace schedlab {

namespace {

constexpr std::array<std::string_view, 4> kPreempts{"none", "voluntary", "full", "lazy"};
constexpr std::array<std::string_view, 3> kScalings{"none", "log", "linear"};
constexpr std::array<std::string_view, 6> kActions{
    "feature", "profile", "set", "move", "spawn", "kill"};

} // namespace

template <> std::span<const std::string_view> enumNames<Preempt>()
{
    return kPreempts;
}

template <> std::span<const std::string_view> enumNames<TunableScaling>()
{
    return kScalings;
}

template <> std::span<const std::string_view> enumNames<Action::Kind>()
{
    return kActions;
}

} // namespace schedlab
