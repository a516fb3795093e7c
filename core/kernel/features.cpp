// SPDX-License-Identifier: GPL-2.0-or-later
#include "features.h"

namespace schedlab {

namespace {
constexpr std::array<std::string_view, kFeatureCount> kNames{"PLACE_LAG", "PLACE_DEADLINE_INITIAL",
    "PLACE_REL_DEADLINE", "RUN_TO_PARITY", "PREEMPT_SHORT", "NEXT_BUDDY", "PICK_BUDDY",
    "DELAY_DEQUEUE", "DELAY_ZERO", "WAKEUP_PREEMPTION", "HRTICK", "UTIL_EST", "NI_RANDOM"};
} // namespace

std::string_view featureName(Feature f)
{
    return kNames[static_cast<size_t>(f)];
}

std::optional<Feature> featureFromName(std::string_view name)
{
    for (size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name)
            return static_cast<Feature>(i);
    return std::nullopt;
}

std::string featureNameList()
{
    std::string out;
    for (auto name : kNames) {
        if (!out.empty())
            out += ", ";
        out += name;
    }
    return out;
}

bool FeatureSet::apply(std::string_view spec, std::string* error)
{
    bool on = true;
    std::string_view name = spec;
    if (auto f = featureFromName(name)) {
        set(*f, true);
        return true;
    }
    if (name.starts_with("NO_")) {
        name.remove_prefix(3);
        on = false;
    }
    if (auto f = featureFromName(name)) {
        set(*f, on);
        return true;
    }
    if (error)
        *error = "unknown sched feature \"" + std::string(spec) + "\" (known: " + featureNameList()
            + ")";
    return false;
}

} // namespace schedlab
