// SPDX-License-Identifier: GPL-2.0-or-later
// Fields of an ftrace text line (ftracetext.h), the name map, and the CPU column search.
#include "core/import/ftracetext.h"

#include "core/base/cpuset.h"
#include "core/base/text.h"
#include "core/import/ftrace.h"

#include <algorithm>
#include <charconv>
#include <istream>
#include <limits>
#include <sstream>

namespace schedlab {

namespace ftracetext {

using std::string_view;

string_view trim(string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool allDigits(string_view s)
{
    return !s.empty()
        && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> toInt(string_view s)
{
    s = trim(s);
    int64_t v = 0;
    const char* first = s.data();
    const char* last = s.data() + s.size();
    if (first != last && *first == '+')
        ++first;
    auto [p, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || p == first || p != last)
        return std::nullopt;
    return v;
}

/// "5401.960003" (any number of fraction digits, nanoseconds kept) or "5401" as integer
/// nanoseconds; a time beyond INT64_MAX ns (9223372036.854775807 s) has syntax but no value.
Timestamp parseTimestamp(string_view s)
{
    const auto dot = s.find('.');
    const string_view whole = s.substr(0, dot);
    string_view frac = dot == string_view::npos ? string_view() : s.substr(dot + 1);
    if (!allDigits(whole) || (dot != string_view::npos && !allDigits(frac)))
        return {};
    Timestamp out{true, std::nullopt};
    int64_t fraction = 0;
    int64_t scale = 100'000'000;
    for (size_t i = 0; i < frac.size() && i < 9; ++i, scale /= 10)
        fraction += (frac[i] - '0') * scale;
    const size_t firstDigit = std::min(whole.find_first_not_of('0'), whole.size());
    if (whole.size() - firstDigit > 10)
        return out;
    const int64_t seconds = *toInt(whole);
    if (seconds > (std::numeric_limits<int64_t>::max() - fraction) / 1'000'000'000)
        return out;
    out.ns = seconds * 1'000'000'000 + fraction;
    return out;
}

/// Where the value of "KEY=" starts (KEY at the start or after a space), or npos.
size_t valueAt(string_view s, string_view key, size_t from)
{
    for (size_t p = s.find(key, from); p != string_view::npos; p = s.find(key, p + 1)) {
        if ((p == 0 || s[p - 1] == ' ') && p + key.size() < s.size() + 1
            && s.substr(p + key.size(), 1) == "=")
            return p + key.size() + 1;
    }
    return string_view::npos;
}

/// An integer field: the digits after KEY= up to the next space.
std::optional<int64_t> intField(string_view s, string_view key)
{
    const size_t v = valueAt(s, key);
    if (v == string_view::npos)
        return std::nullopt;
    const size_t end = s.find(' ', v);
    return toInt(s.substr(v, end == string_view::npos ? string_view::npos : end - v));
}

/// A string field that may contain spaces (a comm): up to " NEXTKEY=".
std::optional<std::string> textField(string_view s, string_view key, string_view nextKey)
{
    const size_t v = valueAt(s, key);
    if (v == string_view::npos)
        return std::nullopt;
    const size_t next = valueAt(s, nextKey, v);
    if (next == string_view::npos)
        return std::nullopt;
    return std::string(s.substr(v, next - nextKey.size() - 2 - v));
}

/// "comm:pid [prio]…" of trace-cmd's sched plugin: comm (may hold ':' and spaces) and pid.
bool commPid(string_view s, std::string& comm, int64_t& pid, string_view* after,
    std::optional<int64_t>* prio)
{
    s = trim(s);
    const size_t bracket = s.find(" [");
    const string_view head = bracket == string_view::npos ? s : s.substr(0, bracket);
    const size_t colon = head.rfind(':');
    if (colon == string_view::npos)
        return false;
    const auto p = toInt(head.substr(colon + 1));
    if (!p)
        return false;
    comm = std::string(head.substr(0, colon));
    pid = *p;
    const size_t close = bracket == string_view::npos ? string_view::npos : s.find(']', bracket);
    if (prio && close != string_view::npos)
        *prio = toInt(s.substr(bracket + 2, close - bracket - 2));
    if (after)
        *after = close == string_view::npos ? string_view() : trim(s.substr(close + 1));
    return true;
}

/// prev_state as printed: "R" and "R+" (preempted) leave the task runnable; a number is the raw
/// state (0 = running). Everything else (S, D, T, t, X, Z, P, I, K, W, N, "S|D"…) blocks.
PrevState prevState(string_view s)
{
    s = trim(s);
    if (s.empty() || s == "R" || s == "R+" || s == "0")
        return PrevState::Runnable;
    if (const auto raw = toInt(s)) {
        // A raw value (trace-cmd report -R): TASK_REPORT bits S=1 D=2 T=4 t=8 X=16 Z=32 P=64
        // I=128; none of them (only the preemption marker above) is a preempted task.
        if ((*raw & 0xff) == 0)
            return PrevState::Runnable;
        return (*raw & 0x30) ? PrevState::Dead : PrevState::Blocked;
    }
    if (s.find('X') != string_view::npos || s.find('Z') != string_view::npos)
        return PrevState::Dead;
    return PrevState::Blocked;
}

/// A pid as the kernel has them: 0 (the idle task) … PID_MAX_LIMIT.
bool validPid(int64_t pid)
{
    return pid >= 0 && pid <= kTraceMaxPid;
}

std::string pidRange(string_view what, int64_t pid)
{
    return std::string(what) + " " + std::to_string(pid) + " out of range (pids are 0-"
        + std::to_string(kTraceMaxPid) + ", the kernel's PID_MAX_LIMIT)";
}

std::string cpuRange(string_view what, int64_t cpu)
{
    return std::string(what) + " " + std::to_string(cpu) + " out of range (CPUs are 0-"
        + std::to_string(kTraceMaxCpus - 1) + ", docs/real-kernels.md)";
}

} // namespace ftracetext

using std::string_view;
using namespace ftracetext;

namespace detail {

bool findCpuColumn(string_view text, size_t& open, size_t& close, uint64_t* steps)
{
    // One pass: the ']' each '[' would close is found once and reused until the scan passes it,
    // and the digit runs tried after each '[' end at the next '[' (not a digit), so every
    // character is examined a bounded number of times: a line of a million " [" costs about
    // three million steps, not 10^12.
    uint64_t n = 0;
    size_t next = 0; // the first ']' after the current '[' (npos: none left)
    bool known = false;
    bool found = false;
    for (size_t p = 0; p < text.size() && !found; ++p) {
        ++n;
        if (text[p] != '[' || p == 0 || text[p - 1] != ' ')
            continue;
        if (!known || (next != string_view::npos && next <= p)) {
            next = text.find(']', p + 1);
            n += (next == string_view::npos ? text.size() : next) - p;
            known = true;
        }
        if (next == string_view::npos)
            break; // no ']' after this point: no column either
        size_t d = p + 1;
        while (d < next && text[d] >= '0' && text[d] <= '9')
            ++d, ++n;
        if (d == next && d > p + 1 && (next + 1 == text.size() || text[next + 1] == ' ')) {
            open = p;
            close = next;
            found = true;
        }
    }
    if (steps)
        *steps += n;
    return found;
}

} // namespace detail

bool parseNameMap(
    std::istream& in, const std::string& fileName, TraceNameMap& map, std::string* error)
{
    std::string line;
    int64_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        const string_view t = trim(line);
        if (t.empty() || t.front() == '#')
            continue;
        std::istringstream fields{std::string(t)};
        int pid = 0;
        TraceNameMap::Entry e;
        if (!(fields >> pid >> e.name) || pid <= 0 || pid > kTraceMaxPid) {
            *error = fileName + ":" + std::to_string(number)
                + ": expected \"PID NAME [CGROUP]\" with a PID of 1-" + std::to_string(kTraceMaxPid)
                + ", got \"" + printable(t.substr(0, 200)) + "\"";
            return false;
        }
        fields >> e.cgroup;
        detail::nameMapExtras(fields, e);
        map.byPid[pid] = e;
    }
    return true;
}

namespace detail {

void nameMapExtras(std::istream& fields, TraceNameMap::Entry& entry)
{
    for (std::string token; fields >> token;) {
        if (token.size() > 5 + 256)
            continue;
        if (token.starts_with("cpus=")) {
            if (const auto set = CpuSet::parse(string_view(token).substr(5), 4096);
                set && !set->empty())
                entry.cpus = set->toString();
        } else if (token.starts_with("dl=")) {
            // RUNTIME/DEADLINE/PERIOD in ns, then an optional "/reclaim".
            string_view rest = string_view(token).substr(3);
            int64_t v[3] = {0, 0, 0};
            bool good = true;
            for (int i = 0; i < 3 && good; ++i) {
                const size_t slash = rest.find('/');
                const auto n = toInt(rest.substr(0, slash));
                good = n.has_value() && *n > 0;
                v[i] = good ? *n : 0;
                rest = slash == string_view::npos ? string_view() : rest.substr(slash + 1);
                good = good && (i == 2 || slash != string_view::npos);
            }
            DlParams p{v[0], v[1], v[2], 0};
            if (rest == "reclaim")
                p.flags = kDlFlagReclaim;
            else if (!rest.empty())
                good = false;
            if (good && checkDlParams(p).empty())
                entry.dl = p;
        }
    }
}

} // namespace detail

} // namespace schedlab
