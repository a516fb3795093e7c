// SPDX-License-Identifier: GPL-2.0-or-later
// Names from scenario files on their way to a terminal, a log or a one-line-per-record file.
#pragma once

#include <string>
#include <string_view>

namespace schedlab {

/// @p text with every control character (C0, DEL, and C1 U+0080-U+009F as its two UTF-8 bytes)
/// and every byte that is not part of well-formed UTF-8 written as \xNN, and a backslash as \\,
/// so a name can neither split a line nor send an escape sequence to a terminal. Printable text
/// (well-formed UTF-8 included) is unchanged.
std::string printable(std::string_view text);

/// Offset of the first byte of @p text that is not part of well-formed UTF-8, or npos.
size_t invalidUtf8At(std::string_view text);

} // namespace schedlab
