// SPDX-License-Identifier: GPL-2.0-or-later
// The text layer of the ftrace importer (ftrace.cpp): fields of a trace line as the kernel's
// TP_printk and trace-cmd print them. Internal to core/import.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace schedlab::ftracetext {

std::string_view trim(std::string_view s);
bool allDigits(std::string_view s);
std::optional<int64_t> toInt(std::string_view s);

struct Timestamp
{
    bool syntax = false;       ///< "SECONDS[.FRACTION]"
    std::optional<int64_t> ns; ///< set when it is also within int64 nanoseconds
};

/// "5401.960003" (any number of fraction digits, nanoseconds kept) or "5401" as integer
/// nanoseconds; a time beyond INT64_MAX ns (9223372036.854775807 s) has syntax but no value.
Timestamp parseTimestamp(std::string_view s);
/// Where the value of "KEY=" starts (KEY at the start or after a space), or npos.
size_t valueAt(std::string_view s, std::string_view key, size_t from = 0);
/// An integer field: the digits after KEY= up to the next space.
std::optional<int64_t> intField(std::string_view s, std::string_view key);
/// A string field that may contain spaces (a comm): up to " NEXTKEY=".
std::optional<std::string> textField(
    std::string_view s, std::string_view key, std::string_view nextKey);
/// "comm:pid [prio]…" of trace-cmd's sched plugin: comm (may hold ':' and spaces) and pid;
/// @p prio (optional) gets the bracketed priority when there is one.
bool commPid(std::string_view s, std::string& comm, int64_t& pid, std::string_view* after,
    std::optional<int64_t>* prio = nullptr);

/// prev_state as printed: "R" and "R+" (preempted) leave the task runnable; a number is the raw
/// state (0 = running). Everything else (S, D, T, t, X, Z, P, I, K, W, N, "S|D"…) blocks.
enum class PrevState { Runnable, Blocked, Dead };
PrevState prevState(std::string_view s);
/// A pid as the kernel has them: 0 (the idle task) … PID_MAX_LIMIT.
bool validPid(int64_t pid);
std::string pidRange(std::string_view what, int64_t pid);
std::string cpuRange(std::string_view what, int64_t cpu);

} // namespace schedlab::ftracetext
