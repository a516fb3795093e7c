// SPDX-License-Identifier: GPL-2.0-or-later
#include "journal.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <ostream>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace schedlab::runner {

namespace {

std::string escape(const std::string& s)
{
    std::string out;
    for (const char c : s) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::optional<std::string> unescape(const std::string& s)
{
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\') {
            out += s[i];
            continue;
        }
        if (++i == s.size())
            return std::nullopt;
        if (s[i] == '\\')
            out += '\\';
        else if (s[i] == 't')
            out += '\t';
        else if (s[i] == 'n')
            out += '\n';
        else
            return std::nullopt;
    }
    return out;
}

std::string trimNewline(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

/// Kills whatever is left in the cgroup @p dir (cgroup.kill where the kernel has it, 5.14+),
/// waits until it is empty and removes it. "" when it is gone.
std::string removeCgroup(const std::string& dir)
{
    if (!pathExists(dir))
        return {};
    const std::string procs = dir + "/cgroup.procs";
    for (int attempt = 0; attempt < 300; ++attempt) {
        const auto left = readKernelFile(procs);
        if (!left || left->find_first_not_of(" \n") == std::string::npos)
            break;
        if (attempt == 0 && pathExists(dir + "/cgroup.kill"))
            writeKernelFile(dir + "/cgroup.kill", "1");
        std::istringstream pids(*left);
        for (long pid = 0; pids >> pid;)
            if (pid > 1)
                ::kill(static_cast<pid_t>(pid), SIGKILL);
        usleep(10'000);
    }
    // A group emptied a moment ago may still be busy: retry for up to 3 s (TCG guests are slow).
    for (int attempt = 0; attempt < 300; ++attempt) {
        if (::rmdir(dir.c_str()) == 0 || errno == ENOENT)
            return {};
        if (errno != EBUSY)
            break;
        usleep(10'000);
    }
    return "rmdir " + dir + ": " + std::strerror(errno);
}

} // namespace

std::string writeKernelFile(const std::string& path, const std::string& text)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return path + ": " + std::strerror(errno);
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int e = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size()))
        return path + ": writing \"" + text + "\": " + std::strerror(n < 0 ? e : EIO);
    return {};
}

std::optional<std::string> readKernelFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return std::nullopt;
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0)
            break;
        text.append(buf, static_cast<size_t>(n));
        if (text.size() > (size_t{1} << 20))
            break; // a settings file is small; never read a trace buffer whole here
    }
    ::close(fd);
    return text;
}

bool pathExists(const std::string& path)
{
    struct stat st
    { };
    return ::lstat(path.c_str(), &st) == 0;
}

std::string journalLine(const JournalEntry& e)
{
    switch (e.op) {
    case JournalEntry::Op::Write:
        return "write\t" + escape(e.path) + "\t" + escape(e.value) + "\n";
    case JournalEntry::Op::Rmdir:
        return "rmdir\t" + escape(e.path) + "\n";
    case JournalEntry::Op::Umount:
        return "umount\t" + escape(e.path) + "\n";
    }
    return {};
}

std::vector<JournalEntry> parseJournal(
    const std::string& text, std::vector<std::string>* warnings, bool* restored)
{
    std::vector<JournalEntry> entries;
    if (restored)
        *restored = false;
    auto warn = [&](int line, const std::string& what) {
        if (warnings)
            warnings->push_back(std::to_string(line) + ": " + what);
    };
    size_t pos = 0;
    int number = 0;
    while (pos < text.size()) {
        ++number;
        const size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) {
            warn(number, "incomplete last line ignored (the run was killed while writing it)");
            break;
        }
        const std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty() || line[0] == '#')
            continue;
        if (line == "restored") {
            if (restored)
                *restored = true;
            continue;
        }
        std::vector<std::string> fields;
        for (size_t start = 0;;) {
            const size_t tab = line.find('\t', start);
            fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
            if (tab == std::string::npos)
                break;
            start = tab + 1;
        }
        JournalEntry e;
        std::optional<std::string> path = fields.size() > 1 ? unescape(fields[1]) : std::nullopt;
        if (fields[0] == "write" && fields.size() == 3) {
            e.op = JournalEntry::Op::Write;
            const auto value = unescape(fields[2]);
            if (!value)
                path.reset();
            else
                e.value = *value;
        } else if (fields[0] == "rmdir" && fields.size() == 2) {
            e.op = JournalEntry::Op::Rmdir;
        } else if (fields[0] == "umount" && fields.size() == 2) {
            e.op = JournalEntry::Op::Umount;
        } else {
            warn(number, "unknown entry ignored");
            continue;
        }
        if (!path || path->empty() || (*path)[0] != '/') {
            warn(number, "bad path, entry ignored");
            continue;
        }
        e.path = *path;
        entries.push_back(e);
        if (restored)
            *restored = false; // entries after a "restored" mark are still to undo
    }
    return entries;
}

std::vector<std::string> undoEntries(const std::vector<JournalEntry>& entries)
{
    std::vector<std::string> problems;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        std::string e;
        switch (it->op) {
        case JournalEntry::Op::Write:
            e = writeKernelFile(it->path, it->value);
            break;
        case JournalEntry::Op::Rmdir:
            e = removeCgroup(it->path);
            break;
        case JournalEntry::Op::Umount:
            if (::umount2(it->path.c_str(), 0) != 0 && errno != EINVAL && errno != ENOENT) {
                if (errno == EBUSY && ::umount2(it->path.c_str(), MNT_DETACH) == 0)
                    break;
                e = "umount " + it->path + ": " + std::strerror(errno);
            }
            break;
        }
        if (!e.empty())
            problems.push_back(e);
    }
    return problems;
}

Journal::~Journal()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::string Journal::create(const std::string& path, int pid)
{
    if (m_fd >= 0)
        return "journal " + m_path + " is open already";
    m_path = path;
    m_fd =
        ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (m_fd < 0)
        return "journal " + path + ": " + std::strerror(errno);
    const std::string header = "# schedlab-run journal 1 pid " + std::to_string(pid) + "\n";
    if (::write(m_fd, header.data(), header.size()) != static_cast<ssize_t>(header.size())
        || ::fsync(m_fd) != 0) {
        const std::string e = "journal " + path + ": " + std::strerror(errno);
        ::close(m_fd);
        m_fd = -1;
        ::unlink(path.c_str());
        return e;
    }
    // The directory entry too, so the journal survives a crash.
    const size_t slash = path.rfind('/');
    const std::string dir =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); d >= 0) {
        ::fsync(d);
        ::close(d);
    }
    return {};
}

std::string Journal::append(const JournalEntry& e)
{
    if (m_fd < 0)
        return "journal not open";
    const std::string line = journalLine(e);
    if (::write(m_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())
        || ::fsync(m_fd) != 0)
        return "journal " + m_path + ": " + std::strerror(errno);
    m_entries.push_back(e);
    return {};
}

std::vector<std::string> Journal::undo()
{
    if (m_undone || m_fd < 0)
        return {};
    m_undone = true;
    std::vector<std::string> problems = undoEntries(m_entries);
    const std::string mark = "restored\n";
    (void)!::write(m_fd, mark.data(), mark.size());
    ::fsync(m_fd);
    ::close(m_fd);
    m_fd = -1;
    if (problems.empty())
        ::unlink(m_path.c_str());
    return problems;
}

std::string Changer::write(const std::string& path, const std::string& value, OldValue how)
{
    if (how == OldValue::None || created(path))
        return writeKernelFile(path, value);
    const auto old = readKernelFile(path);
    if (!old) // the write would fail too: say why
        return writeKernelFile(path, value);
    std::string key = path;
    std::optional<std::string> undo; // nullopt: nothing to journal
    std::istringstream words(*old);
    switch (how) {
    case OldValue::Plain:
        undo = trimNewline(*old);
        break;
    case OldValue::Feature: {
        const std::string name = value.rfind("NO_", 0) == 0 ? value.substr(3) : value;
        key += ":" + name;
        for (std::string w; words >> w;)
            if (w == name || w == "NO_" + name)
                undo = w;
        break;
    }
    case OldValue::Preempt:
        for (std::string w; words >> w;)
            if (w.size() > 2 && w.front() == '(' && w.back() == ')')
                undo = w.substr(1, w.size() - 2);
        break;
    case OldValue::SubtreeCpu:
        for (std::string w; words >> w;)
            if (w == "cpu")
                return {}; // on already: nothing to change
        undo = "-cpu";
        break;
    case OldValue::None:
        break;
    }
    if (undo && !m_journaled.count(key)) {
        if (const std::string e = m_journal.append({JournalEntry::Op::Write, path, *undo});
            !e.empty())
            return e + " (not changed: " + path + ")";
        m_journaled.insert(key);
    }
    return writeKernelFile(path, value);
}

std::string Changer::makeDir(const std::string& dir)
{
    if (::mkdir(dir.c_str(), 0755) != 0)
        return "mkdir " + dir + ": " + std::strerror(errno);
    if (const std::string e = m_journal.append({JournalEntry::Op::Rmdir, dir, {}}); !e.empty()) {
        ::rmdir(dir.c_str());
        return e + " (not created: " + dir + ")";
    }
    m_createdDirs.push_back(dir);
    return {};
}

std::string Changer::mount(
    const std::string& source, const std::string& target, const std::string& type)
{
    if (::mount(source.c_str(), target.c_str(), type.c_str(), 0, nullptr) != 0)
        return "mount -t " + type + " " + target + ": " + std::strerror(errno);
    if (const std::string e = m_journal.append({JournalEntry::Op::Umount, target, {}});
        !e.empty()) {
        ::umount(target.c_str());
        return e + " (not mounted: " + target + ")";
    }
    return {};
}

bool Changer::created(const std::string& path) const
{
    for (const std::string& d : m_createdDirs)
        if (path.size() > d.size() && path.compare(0, d.size(), d) == 0 && path[d.size()] == '/')
            return true;
    return false;
}

int restoreJournalFile(const std::string& path, std::ostream& err)
{
    const auto text = readKernelFile(path);
    if (!text) {
        err << "schedlab-run: --restore " << path << ": " << std::strerror(errno) << "\n";
        return 2;
    }
    if (text->rfind("# schedlab-run journal", 0) != 0) {
        err << "schedlab-run: --restore " << path << ": not a schedlab-run journal\n";
        return 2;
    }
    std::vector<std::string> warnings;
    bool restored = false;
    const std::vector<JournalEntry> entries = parseJournal(*text, &warnings, &restored);
    for (const auto& w : warnings)
        err << "schedlab-run: " << path << ":" << w << "\n";
    if (restored) {
        err << "schedlab-run: " << path << ": restored already, nothing to do\n";
        return 0;
    }
    const std::vector<std::string> problems = undoEntries(entries);
    for (const auto& p : problems)
        err << "schedlab-run: not restored: " << p << "\n";
    // The mark goes after the last complete line: an incomplete one (the run was killed while
    // writing it) is cut off first, or the mark would complete it into an entry.
    if (problems.empty())
        if (const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
            const size_t nl = text->rfind('\n');
            const size_t complete = nl == std::string::npos ? 0 : nl + 1;
            if (::ftruncate(fd, static_cast<off_t>(complete)) == 0 && ::lseek(fd, 0, SEEK_END) >= 0)
                (void)!::write(fd, "restored\n", 9);
            ::fsync(fd);
            ::close(fd);
        }
    err << "schedlab-run: " << path << ": " << entries.size() - problems.size() << " of "
        << entries.size() << " changes undone\n";
    return problems.empty() ? 0 : 3;
}

} // namespace schedlab::runner
