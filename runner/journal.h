// SPDX-License-Identifier: GPL-2.0-or-later
// The journal of schedlab-run (docs/real-kernels.md, "Safety"): before the runner changes a
// system setting (a sched feature, base_slice_ns, the preemption mode, a cgroup file it did not
// create, a subtree_control) it appends the old value to a file and fsyncs it; for what it
// creates (a cgroup, a trace instance, a mount) it appends how to remove it. Undoing replays
// the entries in reverse, on every exit path of a run and, after a SIGKILL, with
// `schedlab-run --restore JOURNAL`.
//
// Format: text, one entry per line, fields separated by a tab, '\\', tab and newline escaped:
//   # schedlab-run journal 1 pid PID        (header)
//   write<TAB>PATH<TAB>OLD VALUE             undo: write OLD VALUE to PATH
//   rmdir<TAB>PATH                           undo: kill what is left in the cgroup, remove it
//   umount<TAB>PATH                          undo: unmount PATH
//   restored                                 everything above was undone
// A line without its newline (the run was killed while writing it) is ignored.
#pragma once

#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace schedlab::runner {

/// Writes @p text to a kernel file in one write(2) (O_TRUNC, as the shell's `>`; never
/// creates it); "" on success, else "PATH: writing "TEXT": reason".
std::string writeKernelFile(const std::string& path, const std::string& text);
/// The file's contents, nullopt when it cannot be read.
std::optional<std::string> readKernelFile(const std::string& path);
bool pathExists(const std::string& path);

struct JournalEntry
{
    enum class Op { Write, Rmdir, Umount };
    Op op = Op::Write;
    std::string path;
    std::string value; ///< Write: the old value
    bool operator==(const JournalEntry&) const = default;
};

/// One journal line (with its newline) / the entries of a journal's text. Unknown or broken
/// lines are skipped with a warning "LINE: why"; @p restored says whether the journal ends
/// with the "restored" mark.
std::string journalLine(const JournalEntry& e);
std::vector<JournalEntry> parseJournal(
    const std::string& text, std::vector<std::string>* warnings, bool* restored);

/// Undoes @p entries in reverse order; returns what could not be undone (empty: all).
/// Idempotent: a directory or mount that is gone already counts as undone.
std::vector<std::string> undoEntries(const std::vector<JournalEntry>& entries);

/// The journal file of one run.
class Journal
{
public:
    Journal() = default;
    ~Journal();
    Journal(const Journal&) = delete;
    Journal& operator=(const Journal&) = delete;

    /// Creates @p path (O_EXCL, O_NOFOLLOW, mode 0600) with its header; "" or the error.
    std::string create(const std::string& path, int pid);
    bool isOpen() const { return m_fd >= 0; }
    const std::string& path() const { return m_path; }
    /// Appends and fsyncs @p e; "" or the error (the caller must not make the change then).
    std::string append(const JournalEntry& e);
    const std::vector<JournalEntry>& entries() const { return m_entries; }
    /// Undoes every entry (reverse order), then appends "restored" and, when nothing failed,
    /// removes the file. Returns what could not be undone. Safe to call twice.
    std::vector<std::string> undo();

private:
    int m_fd = -1;
    std::string m_path;
    std::vector<JournalEntry> m_entries;
    bool m_undone = false;
};

/// What a journaled write must remember of the file it changes.
enum class OldValue {
    Plain,      ///< the file's contents (cpu.weight, cpu.max, base_slice_ns, …)
    Feature,    ///< sched/features: the state of the one feature written (NAME or NO_NAME)
    Preempt,    ///< sched/preempt: the mode in parentheses, "none voluntary (full) lazy"
    SubtreeCpu, ///< cgroup.subtree_control "+cpu": nothing when cpu is on already, else "-cpu"
    None,       ///< inside something the run created (removed with it): not journaled
};

/// Makes changes through a journal: the old value is journaled (and fsynced) before the first
/// change of each file or feature; what is created is journaled once it exists.
class Changer
{
public:
    explicit Changer(Journal& journal)
        : m_journal(journal)
    { }
    /// "" on success, else why not (nothing changed then).
    std::string write(const std::string& path, const std::string& value, OldValue how);
    std::string makeDir(const std::string& dir);
    std::string mount(
        const std::string& source, const std::string& target, const std::string& type);
    /// Whether @p path is, or is inside, a directory this changer created.
    bool created(const std::string& path) const;

private:
    Journal& m_journal;
    std::set<std::string> m_journaled; ///< files (and "features:NAME") whose old value is kept
    std::vector<std::string> m_createdDirs;
};

/// `schedlab-run --restore JOURNAL`: undoes a run's journal (a run killed with SIGKILL).
/// Exit code: 0 all undone (or nothing left to undo), 2 unreadable, 3 something could not be
/// undone (listed on @p err).
int restoreJournalFile(const std::string& path, std::ostream& err);

} // namespace schedlab::runner
