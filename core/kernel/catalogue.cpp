// SPDX-License-Identifier: GPL-2.0-or-later
// The fix catalogue and point-release profiles: kernel-model.md §1.4.
#include "core/kernel/catalogue.h"

#include <charconv>

namespace schedlab {

std::string KernelRelease::text() const
{
    return std::to_string(major) + "." + std::to_string(minor)
        + (patch ? "." + std::to_string(patch) : std::string{});
}

std::optional<KernelRelease> parseRelease(std::string_view text, bool needPatch)
{
    int parts[3] = {0, 0, 0};
    int n = 0;
    size_t pos = 0;
    while (n < 3) {
        const size_t dot = text.find('.', pos);
        const std::string_view part =
            text.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
        if (part.empty() || part.size() > 4 || (part.size() > 1 && part[0] == '0'))
            return std::nullopt;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), parts[n]);
        if (ec != std::errc{} || end != part.data() + part.size())
            return std::nullopt;
        ++n;
        if (dot == std::string_view::npos)
            break;
        pos = dot + 1;
        if (n == 3)
            return std::nullopt; // a fourth part
    }
    if (n < 2 || (needPatch && n < 3))
        return std::nullopt;
    return KernelRelease{parts[0], parts[1], parts[2]};
}

namespace {

constexpr KernelRelease rel(int major, int minor, int patch = 0)
{
    return KernelRelease{major, minor, patch};
}

// kernel-model.md §1.4: one row per fix, same order. Releases and backports marked unverified
// there have verified = false here.
std::vector<CatalogueFix> buildCatalogue()
{
    return {
        {.commit = "eab03c23c2a1",
            .title = "sched/eevdf: Fix vruntime adjustment on reweight",
            .mainline = rel(6, 7),
            .backports = {rel(6, 6, 4)},
            .setting = "reweight",
            .before = "keep_vruntime",
            .after = "eevdf",
            .section = "6.4",
            .verified = false},
        {.commit = "1528c661c24b",
            .title = "sched/fair: Ratelimit update to tg->load_avg",
            .mainline = rel(6, 7),
            .backports = {},
            .setting = "tg_load_avg_ratelimit",
            .before = "false",
            .after = "true",
            .section = "6.3"},
        {.commit = "2227a957e1d5",
            .title = "sched/eevdf: Sort the rbtree by virtual deadline",
            .mainline = rel(6, 8),
            .backports = {},
            .setting = "tree_key",
            .before = "vruntime",
            .after = "deadline",
            .section = "3.4"},
        {.commit = "152e11f6df29",
            .title = "sched/fair: Implement delayed dequeue",
            .mainline = rel(6, 12),
            .backports = {},
            .setting = "delay_dequeue_rules",
            .before = "none",
            .after = "6.12",
            .section = "5"},
        {.commit = "76f2f783294d",
            .title = "sched/eevdf: More PELT vs DELAYED_DEQUEUE",
            .mainline = rel(6, 13),
            .backports = {rel(6, 12, 7)},
            .setting = "delayed_runnable",
            .before = "h_nr_running",
            .after = "h_nr_runnable",
            .section = "5.4",
            .introduced = rel(6, 12)},
        {.commit = "66951e4860d3",
            .title = "sched/fair: Fix update_cfs_group() vs DELAY_DEQUEUE",
            .mainline = rel(6, 13),
            // In 6.12.117's source (update_cfs_group() returns on an empty group); 6.12.10 as the
            // first is not verified.
            .backports = {rel(6, 12, 10)},
            .setting = "empty_group_keep_weight",
            .before = "false",
            .after = "true",
            .section = "6.3",
            .verified = false},
        {.commit = "6d71a9c61604",
            .title = "sched/fair: Fix EEVDF entity placement bug causing scheduling lag",
            .mainline = rel(6, 13),
            .backports = {},
            .setting = "reweight",
            .before = "eevdf",
            .after = "place",
            .section = "6.4"},
        {.commit = "2a77e4be12cb",
            .title = "sched/fair: Untangle NEXT_BUDDY and pick_next_task()",
            .mainline = rel(6, 14),
            // In 6.12.117's source (PICK_BUDDY, checked in pick_next_entity()); 6.12.13 as the
            // first is not verified.
            .backports = {rel(6, 12, 13)},
            .setting = "pick_buddy",
            .before = "false",
            .after = "true",
            .section = "3.5",
            .verified = false},
        {.commit = "61b82dfb6b7e",
            .title = "sched/fair: Do not try to migrate delayed dequeue task",
            .mainline = rel(6, 14),
            .backports = {}, // not in 6.12.117 (can_migrate_task() does not test sched_delayed)
            .setting = "lb_delayed",
            .before = "any",
            .after = "load_only",
            .section = "5.4",
            .introduced = rel(6, 12)},
        {.commit = "873199d27bb2",
            .title = "sched/core: Prioritize migrating eligible tasks in sched_balance_rq()",
            .mainline = rel(6, 14),
            .backports = {},
            .setting = "lb_ineligible",
            .before = "any",
            .after = "soft_limit",
            .section = "8.3"},
        {.commit = "",
            .title = "Revert \"sched/core: Reduce cost of sched_move_task when config autogroup\"",
            .mainline = rel(6, 14),
            // 6.12.y: counted in the lab on 6.12.117 (task_change_group_fair() at every exit,
            // docs/real-kernels.md "The exit's group move") and read in its source
            // (sched_move_task() has no early return; do_exit() calls
            // sched_autogroup_exit_task()); the first 6.12.y with it is not known, nor whether
            // 6.6.y has it.
            .backports = {rel(6, 12, 117)},
            .setting = "exit_group_move",
            .before = "false",
            .after = "true",
            .section = "8.2",
            .verified = false},
        {.commit = "4423af84b297",
            .title = "sched/fair: optimize the PLACE_LAG when se->vlag is zero",
            .mainline = rel(6, 15),
            .backports = {},
            .setting = "place_lag_skip_zero",
            .before = "false",
            .after = "true",
            .section = "4.2",
            .verified = false},
        {.commit = "052c3d87c82e",
            .title = "sched/fair: Limit run to parity to the min slice of enqueued entities",
            .mainline = rel(6, 17),
            .backports = {},
            .setting = "protection",
            .before = "deadline_hack",
            .after = "vprot_union",
            .section = "3.7"},
        {.commit = "0b9ca2dcabc3",
            .title = "sched/fair: Always trigger resched at the end of a protected period",
            .mainline = rel(6, 17),
            .backports = {},
            .setting = "resched_at_protection_end",
            .before = "false",
            .after = "true",
            .section = "3.7"},
        {.commit = "e1fad12dcb66",
            .title = "sched/fair: Switch to task based throttle model",
            .mainline = rel(6, 18),
            .backports = {},
            .setting = "throttle",
            .before = "group",
            .after = "task",
            .section = "9.2"},
        {.commit = "79f3f9bedd14",
            .title = "sched/eevdf: zero_vruntime as the reference of the sums",
            .mainline = rel(6, 19),
            // 6.12.117 has zero_vruntime (in b3d99f43c72b's form); 6.12.64 as the first 6.12.y
            // with it is not verified.
            .backports = {rel(6, 12, 64)},
            .setting = "v0",
            .before = "min_vruntime",
            .after = "zero_vruntime_enqueue",
            .section = "3.2",
            .verified = false},
        {.commit = "79104becf42b",
            .title = "sched/fair: Forfeit vruntime on yield",
            .mainline = rel(6, 19),
            // 6.18.y: measured in the lab on 6.18.5 (the oldest 6.18.y Debian has) and 6.18.15,
            // as on 6.12.117 (docs/real-kernels.md, "The other seeds"); the first 6.18.y with it
            // is not known. 6.12.117's source has it (yield_task_fair() forfeits if eligible);
            // 6.12.58 as the first 6.12.y is not verified.
            .backports = {rel(6, 12, 58), rel(6, 18, 5)},
            .setting = "yield",
            .before = "deadline_bump",
            .after = "forfeit_eligible",
            .section = "7.4",
            .verified = false},
        {.commit = "33cf66d88306",
            .title = "sched/fair: Proportional newidle balance",
            .mainline = rel(6, 19),
            // In 6.12.117's source (NI_RANDOM on, update_newidle_stats() as 6.19); the first
            // 6.12.y and 6.18.y are not verified.
            .backports = {rel(6, 12, 65), rel(6, 18, 5)},
            .setting = "NI_RANDOM",
            .before = "false",
            .after = "true",
            .section = "8.3",
            .verified = false,
            .introduced = rel(6, 12)},
        {.commit = "6e3c0a4e1ad1",
            .title = "sched/fair: Fix lag clamp",
            .mainline = rel(7, 0),
            .backports = {}, // not in 6.12.117 (entity_lag() clamps to the entity's own slice)
            .setting = "lag_clamp",
            .before = "own_slice",
            .after = "max_slice_tick",
            .section = "4.1"},
        {.commit = "6b6d09f274bd",
            .title = "sched/fair: vprot separate from vlag",
            .mainline = rel(7, 0),
            .backports = {},
            .setting = "protection",
            .before = "vprot_union",
            .after = "vprot",
            .section = "3.7"},
        {.commit = "b3d99f43c72b",
            .title = "sched/eevdf: zero_vruntime tracked inside avg_vruntime()",
            .mainline = rel(7, 0),
            // 6.12.y: read in Debian's linux-source-6.12 (6.12.117: update_zero_vruntime() called
            // from avg_vruntime(), not from __enqueue_entity()); the first 6.12.y with it is not
            // known.
            .backports = {rel(6, 12, 117)},
            .setting = "v0",
            .before = "zero_vruntime_enqueue",
            .after = "zero_vruntime_avg",
            .section = "3.2",
            .verified = false},
        {.commit = "101f3498b4bd",
            .title = "Revert \"sched/fair: Fix EEVDF entity placement bug causing scheduling lag\"",
            .mainline = rel(7, 1),
            .backports = {rel(6, 18, 44)},
            .setting = "reweight",
            .before = "place",
            .after = "rescale",
            .section = "6.4"},
        {.commit = "4823725d9d1d",
            .title =
                "sched/fair: more weight bits in the averages (with db4551e2ba34, b6eee96843e8)",
            .mainline = rel(7, 1),
            .backports = {},
            .setting = "weight_precision",
            .before = "scaled_down",
            .after = "full",
            .section = "2.2"},
        {.commit = "",
            .title = "delayed entities keep their saved negative lag (update_entity_lag())",
            .mainline = rel(7, 2),
            .backports = {},
            .setting = "delay_dequeue_rules",
            .before = "6.12",
            .after = "7.2",
            .section = "4.1",
            .verified = false,
            .introduced = rel(6, 12)},
        // Read in Debian's linux-source-7.2 (7.2.13: set_protect_slice() from v + vslice,
        // update_protect_slice() from v) and linux-source-7.3 (ineligible_vruntime(), min(v, V));
        // the commit itself is not identified.
        {.commit = "",
            .title = "slice protection ends where curr turns ineligible (ineligible_vruntime()); "
                     "update_protect_slice() from min(v, V)",
            .mainline = rel(7, 3),
            .backports = {},
            .setting = "protect_ineligible",
            .before = "false",
            .after = "true",
            .section = "3.7",
            .verified = false,
            .introduced = rel(6, 17)},
        {.commit = "fb1050ac8e40",
            .title = "sched/fair: Change the default cgroup_mode to concur",
            .mainline = rel(7, 3),
            .backports = {},
            .setting = "group_shares",
            .before = "smp",
            .after = "concur",
            .section = "6.2"},
        {.commit = "85570f10a4c6",
            .title = "sched/eevdf: Move to a single runqueue",
            .mainline = rel(7, 3),
            .backports = {},
            .setting = "flat",
            .before = "false",
            .after = "true",
            .section = "6.1"},
    };
}

struct TraitDef
{
    std::string_view name;
    bool ProfileTraits::*member;
};

constexpr TraitDef kTraits[] = {
    {"tg_load_avg_ratelimit", &ProfileTraits::tgLoadAvgRatelimit},
    {"pick_buddy", &ProfileTraits::pickBuddy},
    {"place_lag_skip_zero", &ProfileTraits::placeLagSkipZero},
    {"resched_at_protection_end", &ProfileTraits::resched617},
    {"protect_ineligible", &ProfileTraits::protectIneligible},
    {"idle_preempt_matched", &ProfileTraits::idlePreemptMatched}, // no catalogue row (§1.5)
};

const TraitDef* findTrait(std::string_view name)
{
    for (const TraitDef& t : kTraits)
        if (t.name == name)
            return &t;
    return nullptr;
}

/// Sets @p setting (choice, trait or the default of a sched feature) of @p p to @p value; false
/// if unknown.
bool applySetting(KernelProfile& p, std::string_view setting, std::string_view value)
{
    if (findTrait(setting))
        return applyTrait(p.traits, setting, value);
    if (const auto f = featureFromName(setting)) {
        if (value != "true" && value != "false")
            return false;
        p.features.set(*f, value == "true");
        return true;
    }
    return applyChoice(p.choices, setting, value);
}

} // namespace

const std::vector<CatalogueFix>& fixCatalogue()
{
    static const std::vector<CatalogueFix> fixes = buildCatalogue();
    return fixes;
}

std::string settingValue(const KernelProfile& p, std::string_view setting)
{
    if (findTrait(setting))
        return traitValue(p.traits, setting);
    if (const auto f = featureFromName(setting))
        return p.features.has(*f) ? "true" : "false";
    return choiceValue(p.choices, setting);
}

bool carriesFix(const CatalogueFix& fix, const KernelRelease& r)
{
    const KernelRelease series{r.major, r.minor, 0};
    if (series >= fix.mainline)
        return true;
    for (const KernelRelease& b : fix.backports)
        if (b.major == r.major && b.minor == r.minor && r.patch >= b.patch)
            return true;
    return false;
}

std::vector<std::string> traitNames()
{
    std::vector<std::string> out;
    for (const TraitDef& t : kTraits)
        out.emplace_back(t.name);
    return out;
}

bool applyTrait(ProfileTraits& traits, std::string_view trait, std::string_view value)
{
    const TraitDef* def = findTrait(trait);
    if (!def || (value != "true" && value != "false"))
        return false;
    traits.*(def->member) = value == "true";
    return true;
}

std::string traitValue(const ProfileTraits& traits, std::string_view trait)
{
    const TraitDef* def = findTrait(trait);
    if (!def)
        return {};
    return traits.*(def->member) ? "true" : "false";
}

bool applyOverride(ProfileChoices& choices, ProfileTraits& traits, std::string_view name,
    std::string_view value, std::string* error)
{
    if (findTrait(name)) {
        if (applyTrait(traits, name, value))
            return true;
        if (error)
            *error = "invalid value \"" + std::string(value) + "\" for " + std::string(name)
                + " (expected false|true)";
        return false;
    }
    if (applyChoice(choices, name, value, error))
        return true;
    if (error && choiceValues(name).empty()) {
        // Unknown name: the message lists the choices; add the catalogue's traits.
        std::string names;
        for (const TraitDef& t : kTraits)
            names += (names.empty() ? "" : ", ") + std::string(t.name);
        if (!error->empty() && error->back() == ')')
            error->pop_back();
        *error += "; catalogue traits: " + names + ")";
    }
    return false;
}

std::string overrideValue(const KernelProfile& p, std::string_view name)
{
    return settingValue(p, name);
}

const KernelProfile* seriesProfile(const KernelRelease& r)
{
    const KernelRelease s{r.major, r.minor, 0};
    const char* name = nullptr;
    if (s == KernelRelease{6, 6, 0})
        name = "6.6";
    else if (s == KernelRelease{6, 12, 0})
        name = "6.12";
    else if (s >= KernelRelease{6, 13, 0} && s <= KernelRelease{6, 19, 0})
        name = "6.13";
    else if (s == KernelRelease{7, 0, 0})
        name = "7.0";
    else if (s == KernelRelease{7, 1, 0} || s == KernelRelease{7, 2, 0})
        name = "7.1";
    else if (s == KernelRelease{7, 3, 0})
        name = "7.3";
    return name ? findProfile(name) : nullptr;
}

std::optional<KernelProfile> resolveRelease(
    const KernelRelease& r, std::vector<std::string>* changes)
{
    const KernelProfile* base = seriesProfile(r);
    if (!base)
        return std::nullopt;
    KernelProfile p = *base;
    const auto& fixes = fixCatalogue();
    // A setting takes the value of the latest fix the release carries, or, when it carries none
    // of that setting's fixes, the value before the earliest one.
    for (const CatalogueFix& fix : fixes)
        if (r >= fix.introduced && carriesFix(fix, r))
            applySetting(p, fix.setting, fix.after);
    for (auto it = fixes.rbegin(); it != fixes.rend(); ++it) {
        if (r < it->introduced || carriesFix(*it, r))
            continue;
        bool laterCarried = false; // a later fix of the same setting decides
        for (const CatalogueFix& other : fixes)
            if (&other != &*it && other.setting == it->setting && other.mainline > it->mainline
                && carriesFix(other, r))
                laterCarried = true;
        if (!laterCarried)
            applySetting(p, it->setting, it->before);
    }
    std::string list;
    for (const CatalogueFix& fix : fixes) {
        const std::string now = settingValue(p, fix.setting);
        if (now == settingValue(*base, fix.setting))
            continue;
        const std::string entry = std::string(fix.setting) + "=" + now;
        if (list.find(entry) != std::string::npos)
            continue;
        if (changes)
            changes->push_back(entry);
        list += (list.empty() ? "" : ", ") + entry;
    }
    p.name = r.text();
    p.covers =
        r.text() + " (profile " + base->name + " with the fix catalogue, kernel-model.md §1.4)";
    p.description = "Point release " + r.text() + ": profile " + base->name
        + (list.empty() ? " unchanged" : " with " + list) + ". " + base->description;
    return p;
}

} // namespace schedlab
