// SPDX-License-Identifier: GPL-2.0-or-later
// What every libFuzzer harness here shares: the input as text, a failure that names the harness
// and aborts (libFuzzer keeps the input as a crash), and the check that messages name the file.
#pragma once

#include <cerrno> // program_invocation_short_name (glibc)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace schedlab::fuzz {

/// The fuzzer's bytes as a string (any bytes, NUL included).
inline std::string inputText(const uint8_t* data, size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

/// "HARNESS: what" and @p detail on stderr, then abort().
[[noreturn]] inline void fail(const char* what, const std::string& detail)
{
    std::fprintf(stderr, "%s: %s\n%s\n", program_invocation_short_name, what, detail.c_str());
    std::abort();
}

/// Every message starts with "FILE:" (FILE:LINE: …, FILE: …) and, with @p oneLine, is one line.
inline void checkLines(
    const std::vector<std::string>& lines, const std::string& file, bool oneLine = true)
{
    for (const std::string& line : lines) {
        if (!line.starts_with(file + ":"))
            fail("a message does not start with the file name", line);
        if (oneLine && line.find('\n') != std::string::npos)
            fail("a message spans lines", line);
    }
}

} // namespace schedlab::fuzz
