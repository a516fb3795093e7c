// SPDX-License-Identifier: GPL-2.0-or-later
#include "text.h"

namespace schedlab {

namespace {

void escapeByte(std::string& out, unsigned char u)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[u >> 4];
    out += kHex[u & 0xf];
}

/// Length of the well-formed UTF-8 sequence at @p s (Unicode 15, table 3-7: no overlong forms,
/// no surrogates, nothing above U+10FFFF) with lead byte s[0] >= 0x80; 0 when ill-formed.
size_t utf8Length(std::string_view s)
{
    const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = b(0);
    size_t n = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        n = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        n = 3;
        if (lead == 0xe0)
            lo = 0xa0; // overlong below U+0800
        else if (lead == 0xed)
            hi = 0x9f; // surrogates U+D800-DFFF
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        n = 4;
        if (lead == 0xf0)
            lo = 0x90; // overlong below U+10000
        else if (lead == 0xf4)
            hi = 0x8f; // above U+10FFFF
    } else {
        return 0; // a continuation byte, C0/C1 (overlong) or F5-FF
    }
    if (s.size() < n || b(1) < lo || b(1) > hi)
        return 0;
    for (size_t i = 2; i < n; ++i)
        if (b(i) < 0x80 || b(i) > 0xbf)
            return 0;
    return n;
}

} // namespace

std::string printable(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x20 || u == 0x7f) {
            escapeByte(out, u);
            ++i;
        } else if (u == '\\') {
            out += "\\\\";
            ++i;
        } else if (u < 0x80) {
            out += text[i];
            ++i;
        } else if (const size_t n = utf8Length(text.substr(i)); n == 0) {
            escapeByte(out, u); // not UTF-8: the byte as it is in the file
            ++i;
        } else if (n == 2 && u == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            // C1 control U+0080-U+009F (U+009B is CSI, an escape sequence on its own).
            escapeByte(out, u);
            escapeByte(out, static_cast<unsigned char>(text[i + 1]));
            i += 2;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

size_t invalidUtf8At(std::string_view text)
{
    for (size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const size_t n = utf8Length(text.substr(i));
        if (n == 0)
            return i;
        i += n;
    }
    return std::string_view::npos;
}

std::string csvField(std::string_view field)
{
    if (field.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(field);
    std::string q = "\"";
    for (char c : field) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + "\"";
}

} // namespace schedlab
