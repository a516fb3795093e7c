// SPDX-License-Identifier: GPL-2.0-or-later
// Private device nodes for the tests of outputs that must stay devices (/dev/null, /dev/full
// written in place, never replaced by a file): made with mknod in a temporary folder.
#pragma once

#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace schedlab::test {

/// A private character device node (1, minor): 3 is null, 7 is full. False where mknod is not
/// permitted (not root, a container without CAP_MKNOD) or the node cannot be opened (a nodev
/// mount, a device cgroup).
inline bool makeCharDevice(const std::string& path, unsigned minor)
{
    if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0)
        return false;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::close(fd);
        return true;
    }
    ::unlink(path.c_str());
    return false;
}

/// @p path is the character device (1, @p minor) itself (not a link to one).
inline bool isCharDevice(const std::string& path, unsigned minor)
{
    struct stat st = {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1
        && minor(st.st_rdev) == minor;
}

} // namespace schedlab::test
