// SPDX-License-Identifier: GPL-2.0-or-later
// The runtime toggles of /sys/kernel/debug/sched/features that matter for the fair class.
#pragma once

#include <array>
#include <bitset>
#include <optional>
#include <string>
#include <string_view>

namespace schedlab {

enum class Feature {
    PlaceLag,
    PlaceDeadlineInitial,
    PlaceRelDeadline,
    RunToParity,
    PreemptShort,
    NextBuddy,
    PickBuddy,
    DelayDequeue,
    DelayZero,
    WakeupPreemption,
    HrTick,
    UtilEst,
    NiRandom, ///< 6.19 (6.18.5, 6.12.65): new-idle balancing in proportion to its success
    Count
};

constexpr size_t kFeatureCount = static_cast<size_t>(Feature::Count);

/// debugfs spelling, e.g. "PLACE_LAG".
std::string_view featureName(Feature f);
std::optional<Feature> featureFromName(std::string_view name);
/// All names, in debugfs order, for help texts and error messages.
std::string featureNameList();

class FeatureSet
{
public:
    bool has(Feature f) const { return m_bits.test(static_cast<size_t>(f)); }
    void set(Feature f, bool on) { m_bits.set(static_cast<size_t>(f), on); }
    /// Applies "NAME" or "NO_NAME" as `echo NAME > sched/features` does.
    bool apply(std::string_view spec, std::string* error = nullptr);
    friend bool operator==(const FeatureSet&, const FeatureSet&) = default;

private:
    std::bitset<kFeatureCount> m_bits;
};

} // namespace schedlab
