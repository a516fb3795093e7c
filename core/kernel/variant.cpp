// SPDX-License-Identifier: GPL-2.0-or-later
#include "variant.h"

#include "core/base/args.h"
#include "core/base/limits.h"
#include "core/base/text.h"
#include "core/kernel/catalogue.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/kernel/runoptions.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace schedlab {

bool parseSeed(const std::string& text, uint64_t& seed)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0')
        return false;
    seed = v;
    return true;
}

bool applyProfileName(const std::string& name, RunOptions& options, std::string* error)
{
    if (!findProfile(name)) {
        *error = "unknown profile \"" + name + "\" (known: " + profileNameList()
            + ", or a point release X.Y.Z of 6.6, 6.12, 6.13-6.19, 7.0-7.3)";
        return false;
    }
    options.profile = name;
    return true;
}

bool applyFeatureSpec(const std::string& spec, RunOptions& options, std::string* error)
{
    FeatureSet probe;
    if (!probe.apply(spec, error))
        return false;
    options.features.push_back(spec);
    return true;
}

bool applyOverrideSpec(const std::string& spec, RunOptions& options, std::string* error)
{
    const auto eq = spec.find('=');
    if (eq == std::string::npos) {
        *error = "expected CHOICE=VALUE, got \"" + spec + "\"";
        return false;
    }
    const std::string name = spec.substr(0, eq);
    const std::string value = spec.substr(eq + 1);
    ProfileChoices probe;
    ProfileTraits traits;
    if (!applyOverride(probe, traits, name, value, error))
        return false;
    options.overrides.emplace_back(name, value);
    return true;
}

bool applyVariant(const std::string& spec, RunOptions& options, std::string* error)
{
    if (spec.find_first_not_of(", ") == std::string::npos) {
        // "" or "," would be a second run as written, named as if it were a variant.
        *error = "expected NAME, NO_NAME, profile=NAME, seed=N or CHOICE=VALUE, got \""
            + printable(spec) + "\" (an empty variant)";
        return false;
    }
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string::npos) {
            if (!applyFeatureSpec(item, options, error))
                return false;
        } else if (item.compare(0, eq, "profile") == 0) {
            if (!applyProfileName(item.substr(eq + 1), options, error))
                return false;
        } else if (item.compare(0, eq, "seed") == 0) {
            uint64_t seed = 0;
            if (!parseSeed(item.substr(eq + 1), seed)) {
                *error = "seed expects an integer in [0, 18446744073709551615] in \""
                    + printable(item) + "\"";
                return false;
            }
            options.seed = seed;
        } else if (!applyOverrideSpec(item, options, error)) {
            return false;
        }
    }
    return true;
}

// --limit NAME=N: one resource guard (docs/limits.md), lowered or raised within a sane range.
bool parseLimit(const std::string& spec, ResourceLimits& limits, std::string* error)
{
    struct Guard
    {
        const char* name;
        uint64_t max;
        void (*set)(ResourceLimits&, uint64_t);
    };
    static const Guard kGuards[] = {
        {"events-per-second", uint64_t{1} << 40,
            [](ResourceLimits& l, uint64_t v) { l.eventsPerSecond = v; }},
        {"live-tasks", 10'000'000,
            [](ResourceLimits& l, uint64_t v) { l.liveTasks = static_cast<int>(v); }},
        {"tasks", 100'000'000,
            [](ResourceLimits& l, uint64_t v) { l.createdTasks = static_cast<int>(v); }},
        {"recording-bytes", uint64_t{1} << 40,
            [](ResourceLimits& l, uint64_t v) { l.recordingBytes = v; }},
        {"model-bytes", uint64_t{1} << 40,
            [](ResourceLimits& l, uint64_t v) { l.modelBytes = v; }}};
    const auto eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    const auto guard = std::find_if(
        std::begin(kGuards), std::end(kGuards), [&](const Guard& g) { return name == g.name; });
    uint64_t v = 0;
    if (eq == std::string::npos || guard == std::end(kGuards) || !parseSeed(spec.substr(eq + 1), v)
        || v == 0 || v > guard->max) {
        *error = "--limit expects NAME=N with NAME one of events-per-second, live-tasks, tasks, "
                 "recording-bytes, model-bytes and 0 < N <= its maximum (docs/limits.md), got \""
            + printable(spec) + "\"";
        return false;
    }
    guard->set(limits, v);
    return true;
}

int parseRunOption(ArgReader& args, RunOptions& options, std::string* error)
{
    static const char* const kOptions[] = {
        "--profile", "--feature", "--override", "--duration", "--watchdog", "--seed", "--limit"};
    if (std::none_of(std::begin(kOptions), std::end(kOptions),
            [&](const char* o) { return args.option(o); }))
        return 0;
    const std::string a = args.name();
    std::string v;
    if (!args.value(v)) {
        *error = args.error();
        return -1;
    }
    if (a == "--profile") {
        if (!applyProfileName(v, options, error))
            return -1;
    } else if (a == "--feature") {
        if (!applyFeatureSpec(v, options, error))
            return -1;
    } else if (a == "--override") {
        if (!applyOverrideSpec(v, options, error))
            return -1;
    } else if (a == "--duration" || a == "--watchdog") {
        auto d = parseDuration(v, error);
        if (!d) {
            *error = a + " " + printable(v) + ": " + *error;
            return -1;
        }
        if (*d <= Nanoseconds(0) || *d > ScenarioLimits::maxDuration) {
            *error = a + " expects a duration in (0, " + formatDuration(ScenarioLimits::maxDuration)
                + "], got " + printable(v);
            return -1;
        }
        if (a == "--duration")
            options.duration = *d;
        else
            options.watchdogThreshold = *d;
    } else if (a == "--seed") {
        uint64_t seed = 0;
        if (!parseSeed(v, seed)) {
            *error = "--seed expects an integer in [0, 18446744073709551615], got \"" + printable(v)
                + "\"";
            return -1;
        }
        options.seed = seed;
    } else if (!parseLimit(v, options.limits, error)) {
        return -1;
    }
    return 1;
}

} // namespace schedlab
