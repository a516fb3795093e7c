// SPDX-License-Identifier: GPL-2.0-or-later
// Names from scenario files on their way to a terminal, a log, a one-line-per-record file or a
// CSV field.
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

/// One CSV field as RFC 4180 writes it: as it is, or in double quotes with every '"' doubled when
/// it holds a comma, a double quote, a carriage return or a line feed (a bare '\r' would end the
/// record for readers that accept CR line ends). The sweep CSV and the stream exports use it.
std::string csvField(std::string_view field);

} // namespace schedlab
