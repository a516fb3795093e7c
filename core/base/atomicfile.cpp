// SPDX-License-Identifier: GPL-2.0-or-later
#include "atomicfile.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <streambuf>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace schedlab {

namespace {

// ---- the live temporary files, readable from a signal handler ----

constexpr size_t kSlots = 64;
constexpr size_t kSlotPath = 4096;

struct TempSlot
{
    std::atomic<int> state{0}; // 0 free, 1 being filled, 2 live
    char path[kSlotPath];
};
std::array<TempSlot, kSlots> g_temps;

/// The slot holding @p path, or -1 when the table is full or the path too long (the file is then
/// still removed by its AtomicFile, only not by a signal).
int registerTemp(const std::string& path)
{
    if (path.size() >= kSlotPath)
        return -1;
    for (size_t i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (g_temps[i].state.compare_exchange_strong(expected, 1)) {
            std::memcpy(g_temps[i].path, path.c_str(), path.size() + 1);
            g_temps[i].state.store(2, std::memory_order_release);
            return static_cast<int>(i);
        }
    }
    return -1;
}

void unregisterTemp(int slot)
{
    if (slot >= 0)
        g_temps[static_cast<size_t>(slot)].state.store(0, std::memory_order_release);
}

constexpr std::array<int, 5> kCleanupSignals{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};

extern "C" void removeTempsAndDie(int sig)
{
    removeTempFiles();
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig); // pending until this handler returns (the signal is blocked in it), then fatal
}

/// The cleanup signals blocked while a temporary file is created and listed, or renamed and
/// struck off: a signal never finds a file that exists but is not listed.
class CleanupSignalsBlocked
{
public:
    CleanupSignalsBlocked()
    {
        sigset_t set;
        sigemptyset(&set);
        for (const int s : kCleanupSignals)
            sigaddset(&set, s);
        ::pthread_sigmask(SIG_BLOCK, &set, &m_old);
    }
    ~CleanupSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }
    CleanupSignalsBlocked(const CleanupSignalsBlocked&) = delete;
    CleanupSignalsBlocked& operator=(const CleanupSignalsBlocked&) = delete;

private:
    sigset_t m_old;
};

// ---- a stream on a file descriptor that reports write errors ----

class FdBuf : public std::streambuf
{
public:
    FdBuf()
        : m_buffer(64 * 1024)
    {
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    void attach(int fd) { m_fd = fd; }
    /// errno of the first failed write (EBADF without a file), else 0.
    int error() const { return m_errno; }

protected:
    int_type overflow(int_type c) override
    {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain()
    {
        if (m_fd < 0 && !m_errno)
            m_errno = EBADF;
        if (m_errno)
            return false;
        const char* p = pbase();
        while (p < pptr()) {
            const ssize_t n = ::write(m_fd, p, static_cast<size_t>(pptr() - p));
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                m_errno = errno;
                return false;
            }
            p += n;
        }
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
        return true;
    }
    std::vector<char> m_buffer;
    int m_fd = -1;
    int m_errno = 0;
};

std::string kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

std::string errorText(int err)
{
    return std::strerror(err);
}

/// What a path names, by the rules of atomicfile.h.
struct Target
{
    int dirFd = -1;
    std::string dir;      ///< as named ("." when the path has no directory)
    std::string name;     ///< the entry replaced or opened in it (a link resolved in the directory)
    bool exists = false;  ///< a regular file is replaced (else one is created)
    bool inPlace = false; ///< a device, FIFO or socket: written in place
    bool follow = false;  ///< opened through a symbolic link (a pipe)

    Target() = default;
    Target(const Target&) = delete;
    Target& operator=(const Target&) = delete;
    ~Target()
    {
        if (dirFd >= 0)
            ::close(dirFd);
    }
};

/// Empty when @p path may be written (then @p t says how), else why not.
std::string resolve(const std::string& path, Target& t)
{
    if (path.empty())
        return "empty file name";
    const size_t slash = path.rfind('/');
    t.dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    t.name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (t.name.empty() || t.name == "." || t.name == "..")
        return "is a directory";
    t.dirFd = ::open(t.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (t.dirFd < 0)
        return errno == ENOENT ? "directory " + t.dir + " does not exist"
                               : "directory " + t.dir + ": " + errorText(errno);
    struct stat st = {};
    if (::fstatat(t.dirFd, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return {}; // a new file
        return errorText(errno);
    }
    if (S_ISREG(st.st_mode)) {
        t.exists = true;
        return {};
    }
    if (S_ISDIR(st.st_mode))
        return "is a directory";
    if (!S_ISLNK(st.st_mode)) {
        t.inPlace = true; // device, FIFO, socket
        return {};
    }
    // A symbolic link: to a pipe (written in place) or to a regular file of this directory.
    struct stat to = {};
    if (::fstatat(t.dirFd, t.name.c_str(), &to, 0) != 0)
        return "is a symbolic link to nothing that can be opened (" + errorText(errno)
            + "): name the file itself";
    if (S_ISFIFO(to.st_mode)) {
        t.inPlace = true;
        t.follow = true;
        return {};
    }
    if (!S_ISREG(to.st_mode))
        return "is a symbolic link to " + kindOf(to.st_mode) + ": name it itself";
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real)
        return "is a symbolic link that cannot be resolved: " + errorText(errno);
    const std::string resolved = real;
    std::free(real);
    const size_t cut = resolved.rfind('/');
    const std::string parent = cut == 0 ? "/" : resolved.substr(0, cut);
    struct stat here = {}, there = {};
    if (::fstat(t.dirFd, &here) != 0 || ::stat(parent.c_str(), &there) != 0
        || here.st_dev != there.st_dev || here.st_ino != there.st_ino)
        return "is a symbolic link to " + resolved
            + ", outside its directory: name that file itself";
    t.name = resolved.substr(cut + 1);
    t.exists = true;
    return {};
}

std::string randomSuffix()
{
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static std::atomic<unsigned> counter{0};
    unsigned char bytes[6] = {};
    if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
        const unsigned mix = (static_cast<unsigned>(::getpid()) * 2654435761U) ^ counter++;
        for (size_t i = 0; i < sizeof bytes; ++i)
            bytes[i] = static_cast<unsigned char>(mix >> (i * 5));
    }
    std::string s(6, 'X');
    for (size_t i = 0; i < s.size(); ++i)
        s[i] = kAlphabet[bytes[i] % (sizeof kAlphabet - 1)];
    return s;
}

} // namespace

struct AtomicFile::Impl
{
    Target target;
    FdBuf buf;
    int fd = -1;
    std::string temp; ///< the temporary file's name in target.dir; empty once renamed or removed
    int slot = -1;    ///< its entry in the signal handler's table
    bool prepared = false;

    void removeTemp()
    {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
        if (!temp.empty()) {
            CleanupSignalsBlocked blocked;
            ::unlinkat(target.dirFd, temp.c_str(), 0);
            unregisterTemp(slot);
            slot = -1;
            temp.clear();
        }
    }
};

AtomicFile::AtomicFile(const std::string& path)
    : m_path(path)
    , m_impl(std::make_unique<Impl>())
{
    Impl& d = *m_impl;
    m_stream = std::make_unique<std::ostream>(&d.buf);
    const std::string why = resolve(path, d.target);
    if (!why.empty()) {
        m_error = path + ": " + why;
        m_stream->setstate(std::ios::badbit);
        return;
    }
    Target& t = d.target;
    if (t.inPlace) {
        d.fd = ::openat(
            t.dirFd, t.name.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (t.follow ? 0 : O_NOFOLLOW));
        struct stat st = {};
        if (d.fd < 0 || ::fstat(d.fd, &st) != 0) {
            m_error = path + ": cannot open: " + errorText(errno);
        } else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
            m_error = path + ": changed while it was opened: now " + kindOf(st.st_mode);
        } else {
            m_inPlace = true;
            d.buf.attach(d.fd);
            return;
        }
        if (d.fd >= 0)
            ::close(d.fd);
        d.fd = -1;
        m_stream->setstate(std::ios::badbit);
        return;
    }
    // The temporary file's full path for the signal handler (the directory made absolute).
    std::string prefix;
    if (t.dir.front() != '/') {
        char cwd[kSlotPath];
        if (::getcwd(cwd, sizeof cwd))
            prefix = std::string(cwd) + "/";
    }
    prefix += t.dir == "/" ? "" : t.dir;
    int err = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string temp = "." + t.name.substr(0, 200) + "." + randomSuffix();
        CleanupSignalsBlocked blocked;
        d.fd = ::openat(t.dirFd, temp.c_str(),
            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (d.fd >= 0) {
            d.temp = temp;
            d.slot = registerTemp(prefix + "/" + temp);
            d.buf.attach(d.fd);
            return;
        }
        err = errno;
        if (err != EEXIST)
            break;
    }
    m_error = path + ": cannot create a temporary file in " + t.dir + ": " + errorText(err);
    m_stream->setstate(std::ios::badbit);
}

AtomicFile::~AtomicFile()
{
    m_impl->removeTemp();
}

std::string AtomicFile::fail(const std::string& what, int err)
{
    m_impl->removeTemp();
    m_error = m_path + ": " + what + (err ? ": " + errorText(err) : std::string());
    m_stream->setstate(std::ios::badbit);
    return m_error;
}

std::string AtomicFile::prepare()
{
    if (!m_error.empty())
        return m_error;
    Impl& d = *m_impl;
    if (d.prepared)
        return {};
    if (!m_stream->flush() || d.buf.error())
        return fail("cannot write", d.buf.error() ? d.buf.error() : EIO);
    if (m_inPlace) {
        const int fd = d.fd;
        d.fd = -1;
        if (::close(fd) != 0 && errno != EINTR)
            return fail("cannot write", errno);
        d.prepared = true;
        return {};
    }
    // The old file's permissions (and owner, as root) carry over to the new one.
    mode_t mode = 0644;
    struct stat st = {};
    if (::fstatat(d.target.dirFd, d.target.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode))
            return fail("is now " + kindOf(st.st_mode) + ", not replaced", 0);
        mode = st.st_mode & 07777;
        if (::geteuid() == 0)
            (void)::fchown(d.fd, st.st_uid, st.st_gid);
    }
    if (::fchmod(d.fd, mode) != 0)
        return fail("cannot set permissions", errno);
    if (::fsync(d.fd) != 0)
        return fail("cannot sync", errno);
    const int fd = d.fd;
    d.fd = -1;
    if (::close(fd) != 0 && errno != EINTR)
        return fail("cannot write", errno);
    d.prepared = true;
    return {};
}

std::string AtomicFile::publish()
{
    if (const std::string e = prepare(); !e.empty())
        return e;
    Impl& d = *m_impl;
    if (m_inPlace || d.temp.empty())
        return {};
    // Only a regular file is ever replaced: something else put there meanwhile stays.
    struct stat st = {};
    if (::fstatat(d.target.dirFd, d.target.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0
        && !S_ISREG(st.st_mode))
        return fail("is now " + kindOf(st.st_mode) + ", not replaced", 0);
    {
        CleanupSignalsBlocked blocked;
        if (::renameat(d.target.dirFd, d.temp.c_str(), d.target.dirFd, d.target.name.c_str())
            != 0) {
            const int err = errno;
            return fail("cannot replace", err);
        }
        unregisterTemp(d.slot);
        d.slot = -1;
        d.temp.clear();
    }
    ::fsync(d.target.dirFd); // the rename itself on disk; nothing to undo if this fails
    return {};
}

void AtomicFile::discard()
{
    m_impl->removeTemp();
    m_stream->setstate(std::ios::badbit);
    if (m_error.empty())
        m_error = m_path + ": not written";
}

std::string AtomicFile::commit()
{
    return publish();
}

std::string AtomicFile::refusal(const std::string& path)
{
    Target t;
    return resolve(path, t);
}

void removeTempFiles() noexcept
{
    for (auto& slot : g_temps)
        if (slot.state.load(std::memory_order_acquire) == 2)
            ::unlink(slot.path);
}

void installTempFileCleanup()
{
    static std::once_flag once;
    std::call_once(once, [] {
        for (const int s : kCleanupSignals) {
            struct sigaction old = {};
            if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN)
                continue; // ignored on purpose (nohup): stays ignored
            struct sigaction sa = {};
            sa.sa_handler = removeTempsAndDie;
            sigemptyset(&sa.sa_mask);
            for (const int other : kCleanupSignals)
                sigaddset(&sa.sa_mask, other);
            ::sigaction(s, &sa, nullptr);
        }
        std::atexit([] { removeTempFiles(); });
    });
}

} // namespace schedlab
