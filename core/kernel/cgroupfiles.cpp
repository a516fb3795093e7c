// SPDX-License-Identifier: GPL-2.0-or-later
#include "cgroupfiles.h"

namespace schedlab {

bool cgroupMatches(std::string_view pattern, std::string_view path)
{
    // Iterative glob with backtracking to the last '*'.
    size_t p = 0;
    size_t s = 0;
    size_t star = std::string_view::npos;
    size_t mark = 0;
    while (s < path.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = s;
        } else if (p < pattern.size() && pattern[p] == path[s]) {
            ++p;
            ++s;
        } else if (star != std::string_view::npos && path[mark] != '/') {
            p = star + 1;
            s = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

} // namespace schedlab
