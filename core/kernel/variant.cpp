// SPDX-License-Identifier: GPL-2.0-or-later
#include "variant.h"

#include "core/base/text.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/sim/simulation.h"

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
        *error = "unknown profile \"" + name + "\" (known: " + profileNameList() + ")";
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
    if (!applyChoice(probe, name, value, error))
        return false;
    options.overrides.emplace_back(name, value);
    return true;
}

bool applyVariant(const std::string& spec, RunOptions& options, std::string* error)
{
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

} // namespace schedlab
