// SPDX-License-Identifier: GPL-2.0-or-later
// One output file, written so that it cannot hurt what the user did not name (docs/limits.md,
// "Output files"). What happens depends on what the path names now (lstat, never followed):
//
// - nothing, or a regular file: the text goes to a temporary file beside it (".NAME.XXXXXX",
//   created O_EXCL|O_NOFOLLOW in the directory, which is held open), synced and renamed over the
//   name only when every byte is written. A failed or abandoned write leaves the old file as it
//   was and removes the temporary file. The old file's permissions (and, as root, its owner)
//   are kept; a new file gets 0644.
// - a character or block device, a FIFO or a socket: written in place (opened for writing, no
//   O_TRUNC, no temporary file, no rename). /dev/null stays /dev/null.
// - a symbolic link: followed only to a regular file in the link's own directory (the link is
//   kept and that file replaced as above) or to a pipe (written in place: `>(cmd)`, /dev/stdout
//   on a pipe). Any other link is refused: one out of its directory, to a device, a directory,
//   or nothing. A planted link can therefore not make a root run replace another file.
// - a directory: refused.
//
// Live temporary files are listed in a fixed process-wide table that a signal handler can read:
// installTempFileCleanup() makes SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGPIPE remove them before
// the process dies of the signal, and removeTempFiles() does the same from a program's own
// handler. Used for every schedlab-cli output, scenario saves and schedlab-run's trace.
#pragma once

#include <memory>
#include <ostream>
#include <string>

namespace schedlab {

class AtomicFile
{
public:
    explicit AtomicFile(const std::string& path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// Empty when the file could be opened (or its temporary file created), else "PATH: why".
    const std::string& error() const { return m_error; }
    /// Where the text goes (a stream in a failed state after an error).
    std::ostream& stream() { return *m_stream; }
    /// The path as given.
    const std::string& path() const { return m_path; }
    /// True for a device, FIFO or socket written in place (nothing to rename; the text is already
    /// there once written, whether the command succeeds or not).
    bool inPlace() const { return m_inPlace; }

    /// Writes everything out and replaces the target: prepare(), then publish(). Empty on
    /// success, else "PATH: what: why" (and a replaced file is untouched).
    std::string commit();
    /// Everything but the rename: flush, permissions, fsync, close; and a check that the target
    /// is still something this class may replace. Empty on success, else the error (the
    /// temporary file is then removed).
    std::string prepare();
    /// The rename over the target (nothing for a file written in place). Only after prepare().
    std::string publish();

    /// Gives up: the temporary file is removed now (the old file stays), the stream fails.
    void discard();

    /// Whether @p path may be written, by the rules above: empty if so, else why not
    /// ("is a directory", "is a symbolic link to … outside its directory", …, without the path).
    /// A path whose directory does not exist is not refused here (the writer reports it).
    static std::string refusal(const std::string& path);

private:
    struct Impl;
    std::string fail(const std::string& what, int err);
    std::string m_path; ///< as given, for messages
    std::string m_error;
    bool m_inPlace = false;
    std::unique_ptr<Impl> m_impl;
    std::unique_ptr<std::ostream> m_stream;
};

/// Installs, once per process, handlers for SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGPIPE that
/// remove every live temporary file of an AtomicFile and then die of the signal (default
/// disposition, raised again). A signal the process ignores (nohup) stays ignored. For front
/// ends (schedlab-cli); a program with handlers of its own calls removeTempFiles() from them.
void installTempFileCleanup();

/// Removes every live temporary file of an AtomicFile. Async-signal-safe (unlink() on a fixed
/// table, no allocation, no lock): call it from a signal handler.
void removeTempFiles() noexcept;

} // namespace schedlab
