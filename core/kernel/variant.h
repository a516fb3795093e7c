// SPDX-License-Identifier: GPL-2.0-or-later
// The text API for run options, shared by every front end (schedlab-cli, the GUI's compare view
// and capture): a kernel profile by name, a sched feature in debugfs spelling ("NAME" /
// "NO_NAME"), a behaviour choice "CHOICE=VALUE" (docs/scenario-format.md §4), a seed, and a
// compare variant SPEC that combines them. Each function checks its text before it changes the
// options and otherwise leaves them as they were and says what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace schedlab {

class ArgReader;

struct RunOptions;
struct ResourceLimits;

/// A seed is a decimal integer in [0, 2^64); "-1" is not silently 2^64 - 1.
bool parseSeed(const std::string& text, uint64_t& seed);

/// "--profile NAME": a shipped profile (kernel/profile.h).
bool applyProfileName(const std::string& name, RunOptions& options, std::string* error);
/// "--feature NAME|NO_NAME", as `echo NAME > /sys/kernel/debug/sched/features`.
bool applyFeatureSpec(const std::string& spec, RunOptions& options, std::string* error);
/// "--override CHOICE=VALUE", like `kernel.overrides` in a scenario.
bool applyOverrideSpec(const std::string& spec, RunOptions& options, std::string* error);

/// Applies one compare variant SPEC ("NO_PLACE_LAG,profile=6.12,seed=3,reweight=eevdf") on top of
/// @p options: a comma-separated list of NAME/NO_NAME (feature), profile=NAME, seed=N and
/// CHOICE=VALUE. False with a message for an unknown name or value.
bool applyVariant(const std::string& spec, RunOptions& options, std::string* error);

/// "--limit NAME=N": one resource guard (docs/limits.md), lowered or raised within a sane range.
bool parseLimit(const std::string& spec, ResourceLimits& limits, std::string* error);

/// Parses the reader's current word when it is an option that shapes a run (--profile, --feature,
/// --override, --duration, --seed, --watchdog, --limit; see schedlab-cli --help), taking its value.
/// Returns 1 when parsed, 0 when the word is not such an option, -1 on a missing or bad value
/// (*error says why). Used by every command that runs a scenario (run, compare, sweep, capture).
int parseRunOption(ArgReader& args, RunOptions& options, std::string* error);

} // namespace schedlab
