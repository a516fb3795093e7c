// SPDX-License-Identifier: GPL-2.0-or-later
#include "program.h"

#include <array>

namespace schedlab {

namespace {

constexpr std::array<std::string_view, 6> kPolicies{
    "normal", "batch", "idle", "fifo", "rr", "deadline"};
constexpr std::array<std::string_view, 19> kOps{"run", "sleep", "loop", "yield", "lock", "unlock",
    "fork", "exit", "nice", "cpus", "cgroup", "cookie", "kernel", "write", "suspend", "resume",
    "complete", "wait_for_completion", "cpu_clock"};

} // namespace

template <> std::span<const std::string_view> enumNames<Policy>()
{
    return kPolicies;
}

template <> std::span<const std::string_view> enumNames<Op::Kind>()
{
    return kOps;
}

} // namespace schedlab
