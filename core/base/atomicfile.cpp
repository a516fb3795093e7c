// SPDX-License-Identifier: GPL-2.0-or-later
#include "atomicfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace schedlab {

AtomicFile::AtomicFile(const std::string& path)
    : m_path(path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target = path;
    if (fs::is_symlink(target, ec)) {
        const fs::path resolved = fs::canonical(target, ec);
        if (!ec)
            target = resolved;
    }
    m_target = target.string();
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string temp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        m_error = path + ": cannot create a temporary file in " + dir.string() + ": "
            + std::strerror(errno);
        m_stream.setstate(std::ios::failbit);
        return;
    }
    ::close(fd);
    m_temp = temp;
    m_stream.open(m_temp, std::ios::binary | std::ios::trunc);
    if (!m_stream)
        m_error = path + ": cannot write: " + std::strerror(errno);
}

AtomicFile::~AtomicFile()
{
    if (!m_temp.empty()) {
        m_stream.close();
        ::unlink(m_temp.c_str());
    }
}

std::string AtomicFile::commit()
{
    if (!m_error.empty())
        return m_error;
    auto fail = [&](const std::string& what) {
        const std::string message = m_path + ": " + what + ": " + std::strerror(errno);
        m_stream.close();
        ::unlink(m_temp.c_str());
        m_temp.clear();
        return message;
    };
    m_stream.flush();
    if (!m_stream)
        return fail("cannot write");
    m_stream.close();
    if (m_stream.fail())
        return fail("cannot write");
    struct stat existing = {};
    const mode_t mode =
        ::stat(m_target.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
    if (::chmod(m_temp.c_str(), mode) != 0)
        return fail("cannot set permissions");
    const int fd = ::open(m_temp.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) {
        if (fd >= 0)
            ::close(fd);
        return fail("cannot sync");
    }
    ::close(fd);
    if (::rename(m_temp.c_str(), m_target.c_str()) != 0)
        return fail("cannot replace");
    m_temp.clear();
    return {};
}

} // namespace schedlab
