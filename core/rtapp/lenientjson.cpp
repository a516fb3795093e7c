// SPDX-License-Identifier: GPL-2.0-or-later
#include "lenientjson.h"

#include <cerrno>
#include <cstdlib>

namespace schedlab::rtapp {

const Value* Value::find(const std::string& key) const
{
    for (const auto& [k, v] : members)
        if (k == key)
            return &v;
    return nullptr;
}

std::string Value::describe() const
{
    switch (type) {
    case Type::Null:
        return "null";
    case Type::Bool:
        return boolean ? "true" : "false";
    case Type::Integer:
    case Type::Real:
        return "the number " + text;
    case Type::String:
        return "a string";
    case Type::Array:
        return "an array";
    case Type::Object:
        return "an object";
    }
    return "a value";
}

namespace {

constexpr int kMaxDepth = 64; // rt-app files nest 4-5 levels; this bounds the recursion

class Parser
{
public:
    explicit Parser(const std::string& text)
        : m_text(text)
    { }

    std::optional<Value> document(std::string* error)
    {
        Value v;
        if (!value(v, 0) || (skip(), m_pos != m_text.size() && fail("end of file"))) {
            *error = m_error;
            return std::nullopt;
        }
        return v;
    }

private:
    bool fail(const std::string& expected)
    {
        if (m_error.empty()) {
            std::string got = m_pos < m_text.size() ? std::string("'") + m_text[m_pos] + "'"
                                                    : std::string("end of file");
            if (m_pos < m_text.size()
                && (static_cast<unsigned char>(m_text[m_pos]) < 0x20 || m_text[m_pos] == 0x7f))
                got = "a control character";
            m_error = "line " + std::to_string(m_line) + ": expected " + expected + ", got " + got;
        }
        return false;
    }

    void skip()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '\n') {
                ++m_line;
                ++m_pos;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '*') {
                const size_t end = m_text.find("*/", m_pos + 2);
                const size_t stop = end == std::string::npos ? m_text.size() : end + 2;
                for (size_t i = m_pos; i < stop; ++i)
                    m_line += m_text[i] == '\n';
                m_pos = stop;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '/') {
                while (m_pos < m_text.size() && m_text[m_pos] != '\n')
                    ++m_pos;
            } else {
                return;
            }
        }
    }

    bool peek(char c)
    {
        skip();
        return m_pos < m_text.size() && m_text[m_pos] == c;
    }

    bool string(std::string& out)
    {
        if (!peek('"'))
            return fail("a string");
        ++m_pos;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos++];
            if (c == '"')
                return true;
            if (c == '\n' || static_cast<unsigned char>(c) < 0x20) {
                --m_pos;
                return fail("'\"' closing the string");
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                break;
            const char e = m_text[m_pos++];
            switch (e) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                // Keep \uXXXX of ASCII; anything else becomes '?' (names are reported, not used).
                if (m_pos + 4 > m_text.size())
                    return fail("four hex digits after \\u");
                const std::string hex = m_text.substr(m_pos, 4);
                char* end = nullptr;
                const long cp = std::strtol(hex.c_str(), &end, 16);
                if (end != hex.c_str() + 4)
                    return fail("four hex digits after \\u");
                m_pos += 4;
                out += cp > 0 && cp < 0x80 ? static_cast<char>(cp) : '?';
                break;
            }
            default:
                out += e;
            }
        }
        return fail("'\"' closing the string");
    }

    bool number(Value& v)
    {
        const size_t start = m_pos;
        if (m_text[m_pos] == '-' || m_text[m_pos] == '+')
            ++m_pos;
        bool real = false;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c >= '0' && c <= '9')
                ++m_pos;
            else if (c == '.' || c == 'e' || c == 'E' || ((c == '-' || c == '+') && real))
                real = true, ++m_pos;
            else
                break;
        }
        v.text = m_text.substr(start, m_pos - start);
        if (v.text == "-" || v.text == "+" || v.text.empty())
            return fail("a number");
        if (real) {
            v.type = Value::Type::Real;
            return true;
        }
        errno = 0;
        char* end = nullptr;
        const long long n = std::strtoll(v.text.c_str(), &end, 10);
        if (errno == ERANGE || *end != '\0') {
            v.type = Value::Type::Real; // out of range: reported by the reader as not an integer
            return true;
        }
        v.type = Value::Type::Integer;
        v.integer = n;
        return true;
    }

    bool word(const char* w)
    {
        const std::string s(w);
        if (m_text.compare(m_pos, s.size(), s) != 0)
            return false;
        m_pos += s.size();
        return true;
    }

    bool value(Value& v, int depth)
    {
        skip();
        v.line = m_line;
        if (depth > kMaxDepth)
            return fail("at most " + std::to_string(kMaxDepth) + " nested levels");
        if (m_pos >= m_text.size())
            return fail("a value");
        const char c = m_text[m_pos];
        if (c == '{') {
            ++m_pos;
            v.type = Value::Type::Object;
            while (!peek('}')) {
                Member member;
                if (!string(member.first))
                    return fail("a key in quotes or '}'");
                member.second.line = m_line;
                if (peek(':')) {
                    ++m_pos;
                    if (!value(member.second, depth + 1))
                        return false;
                } // else a bare key ("suspend",): a null value
                v.members.push_back(std::move(member));
                if (peek(','))
                    ++m_pos;
                else if (!peek('}'))
                    return fail("',' or '}'");
            }
            ++m_pos;
            return true;
        }
        if (c == '[') {
            ++m_pos;
            v.type = Value::Type::Array;
            while (!peek(']')) {
                Value item;
                if (!value(item, depth + 1))
                    return false;
                v.items.push_back(std::move(item));
                if (peek(','))
                    ++m_pos;
                else if (!peek(']'))
                    return fail("',' or ']'");
            }
            ++m_pos;
            return true;
        }
        if (c == '"') {
            v.type = Value::Type::String;
            return string(v.text);
        }
        if (c == '-' || c == '+' || (c >= '0' && c <= '9'))
            return number(v);
        if (word("true")) {
            v.type = Value::Type::Bool;
            v.boolean = true;
            return true;
        }
        if (word("false")) {
            v.type = Value::Type::Bool;
            return true;
        }
        if (word("null"))
            return true;
        return fail("a value");
    }

    const std::string& m_text;
    size_t m_pos = 0;
    int m_line = 1;
    std::string m_error;
};

} // namespace

std::optional<Value> parseLenient(const std::string& text, std::string* error)
{
    return Parser(text).document(error);
}

} // namespace schedlab::rtapp
