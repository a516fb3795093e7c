// SPDX-License-Identifier: GPL-2.0-or-later
// The catalogue of upstream fair-class / EEVDF / PELT fixes since 6.6 (kernel-model.md §1.4):
// each fix with its commit, mainline release and stable backports, mapped to one behaviour
// choice (or profile trait) and its values before and after. A point release such as "6.12.6"
// is resolved from the coarse profile of its series plus every catalogued fix that release
// does or does not carry (resolveRelease(); findProfile() calls it for names of that form).
#pragma once

#include "core/kernel/profile.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

/// A kernel release "X.Y" (patch 0) or "X.Y.Z".
struct KernelRelease
{
    int major = 0;
    int minor = 0;
    int patch = 0;
    friend auto operator<=>(const KernelRelease&, const KernelRelease&) = default;
    std::string text() const;
};

/// "6.12.6" (patch required when @p needPatch), "6.13"; nullopt for anything else.
std::optional<KernelRelease> parseRelease(std::string_view text, bool needPatch);

struct CatalogueFix
{
    std::string_view commit; ///< 12 hex digits of the mainline commit ("" if not identified)
    std::string_view title;
    KernelRelease mainline; ///< first mainline release carrying it (patch 0)
    /// First release of each stable series that carries it ("6.12.7"), in series order.
    std::vector<KernelRelease> backports;
    /// The behaviour choice (scenario-format.md §4.2) or profile trait (traitNames()) it maps to.
    std::string_view setting;
    std::string_view before;
    std::string_view after;
    std::string_view section; ///< kernel-model.md section of the behaviour
    /// False when the release or a backport is taken from secondary sources only (the table in
    /// kernel-model.md §1.4 says which part).
    bool verified = true;
    /// The first release in which the setting exists at all: older releases keep their
    /// profile's value (delayed_runnable means nothing before delayed dequeue, 6.12).
    KernelRelease introduced{};
};

/// Chronological (by mainline release, then as merged).
const std::vector<CatalogueFix>& fixCatalogue();

/// Whether release @p r carries @p fix: its series is at or past the mainline release, or it is
/// a stable release at or past the fix's backport to that series.
bool carriesFix(const CatalogueFix& fix, const KernelRelease& r);

/// The profile traits that fixes switch (name, for the table and the tests).
std::vector<std::string> traitNames();
/// Sets a trait by name from "false"/"true"; false for an unknown trait or value.
bool applyTrait(ProfileTraits& traits, std::string_view trait, std::string_view value);
/// "true"/"false", empty for an unknown trait.
std::string traitValue(const ProfileTraits& traits, std::string_view trait);
/// The value of a catalogue setting in @p p: a trait, the default of a sched feature (NI_RANDOM)
/// or a behaviour choice; "" if @p setting is none of them.
std::string settingValue(const KernelProfile& p, std::string_view setting);

/// One override (`kernel.overrides`, `--override`, a profile action, a compare variant): a
/// behaviour choice (applyChoice()) or one of the catalogue's traits (traitNames(), "true" /
/// "false"), so that every catalogued fix can be switched on its own. False, with a message that
/// lists both kinds of name, for an unknown name or value.
bool applyOverride(ProfileChoices& choices, ProfileTraits& traits, std::string_view name,
    std::string_view value, std::string* error = nullptr);
/// The value an override name has in @p p ("" if unknown): a choice's or a trait's.
std::string overrideValue(const KernelProfile& p, std::string_view name);

/// The coarse profile a release's series is modelled on ("6.12" for 6.12.y, "6.13" for
/// 6.13–6.19, "7.1" for 7.1–7.2 …); nullptr for a series no profile covers (6.7–6.11, 5.x).
const KernelProfile* seriesProfile(const KernelRelease& r);

/// The profile of point release @p r: its series' coarse profile with every catalogued fix set
/// to its value in @p r (after if carried, before if not). Name "X.Y.Z"; nullopt when no
/// profile covers the series. @p changes (optional) lists "setting=value (commit)" for each
/// setting that differs from the coarse profile.
std::optional<KernelProfile> resolveRelease(
    const KernelRelease& r, std::vector<std::string>* changes = nullptr);

} // namespace schedlab
