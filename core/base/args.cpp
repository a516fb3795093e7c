// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/base/args.h"

namespace schedlab {

ArgReader::ArgReader(const std::vector<std::string>& args, size_t from)
    : m_args(args)
    , m_cur(from)
    , m_next(from)
{ }

bool ArgReader::next()
{
    m_cur = m_next;
    if (!m_endOfOptions && m_cur < m_args.size() && m_args[m_cur] == "--") {
        m_endOfOptions = true;
        ++m_cur;
    }
    m_next = m_cur + 1;
    return m_cur < m_args.size();
}

const std::string& ArgReader::word() const
{
    return m_args[m_cur];
}

bool ArgReader::isOption() const
{
    const std::string& w = word();
    return !m_endOfOptions && w.size() > 1 && w[0] == '-';
}

std::string ArgReader::name() const
{
    const std::string& w = word();
    if (!isOption())
        return w;
    return w.substr(0, w.find('='));
}

bool ArgReader::flag(std::string_view name) const
{
    return isOption() && word() == name;
}

bool ArgReader::option(std::string_view name) const
{
    if (!isOption())
        return false;
    const std::string& w = word();
    return w.starts_with(name) && (w.size() == name.size() || w[name.size()] == '=');
}

bool ArgReader::hasValue() const
{
    const std::string& w = word();
    const size_t eq = isOption() ? w.find('=') : std::string::npos;
    if (eq != std::string::npos)
        return eq + 1 < w.size();
    return m_next == m_cur + 1 && m_next < m_args.size();
}

bool ArgReader::value(std::string& out)
{
    const std::string& w = word();
    const size_t eq = isOption() ? w.find('=') : std::string::npos;
    if (!hasValue()) {
        m_error = name() + " needs a value";
        return false;
    }
    if (eq != std::string::npos)
        out = w.substr(eq + 1);
    else
        out = m_args[m_next++];
    return true;
}

} // namespace schedlab
