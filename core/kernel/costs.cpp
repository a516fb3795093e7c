// SPDX-License-Identifier: GPL-2.0-or-later
#include "costs.h"

namespace schedlab {

const std::vector<std::string_view>& costNames()
{
    static const std::vector<std::string_view> names{
        "cgroup_write", "rt_walk_group", "rt_walk_task", "fork", "newidle_balance"};
    return names;
}

bool applyCost(KernelCosts& costs, std::string_view name, int64_t ns)
{
    if (name == "cgroup_write")
        costs.cgroupWriteNs = ns;
    else if (name == "rt_walk_group")
        costs.rtWalkGroupNs = ns;
    else if (name == "rt_walk_task")
        costs.rtWalkTaskNs = ns;
    else if (name == "fork")
        costs.forkNs = ns;
    else if (name == "newidle_balance")
        costs.newidleBalanceNs = ns;
    else
        return false;
    return true;
}

std::string costNameList()
{
    std::string out;
    for (auto name : costNames()) {
        if (!out.empty())
            out += ", ";
        out += name;
    }
    return out;
}

} // namespace schedlab
