// SPDX-License-Identifier: GPL-2.0-or-later
// The output files of schedlab-cli's commands: checked before any work (checkOutputs) and
// committed together at the end (OutputSet, over core/base/atomicfile). docs/limits.md, "Output
// files", states the rules.
#pragma once

#include "core/base/atomicfile.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace schedlab {

/// One output option of a command line: "--metrics" and its path; a directory for --csv.
struct OutputOption
{
    std::string option;
    std::string path;
    bool isDir = false;
};

/// Checked before a command does any work, so that a typo costs nothing: every OUT needs an
/// existing directory, is not a directory, and may be written (AtomicFile::refusal: no symbolic
/// link out of its directory, …); a directory option (--csv DIR) needs an existing parent. No
/// output may be one of @p inputs (same file, whatever the path), and no two outputs may name the
/// same file (a character device such as /dev/null excepted). "-" (stdout) and empty paths are
/// skipped. False with "OPTION PATH: why" in @p error.
bool checkOutputs(const std::vector<OutputOption>& outputs, const std::vector<std::string>& inputs,
    std::string* error);

/// The outputs of one command, committed together at its end: every file is written to its
/// temporary file first; only when all of them are complete are they renamed over their targets,
/// in the order they were opened. "-" is @p stdoutStream. Outputs not committed when the set is
/// destroyed are dropped (their temporary files removed, the old files left). The streams stay
/// valid (failing once committed) until the set is destroyed.
class OutputSet
{
public:
    explicit OutputSet(std::ostream& stdoutStream)
        : m_stdout(stdoutStream)
    { }

    /// Opens @p path ("-" for the standard output) and returns the stream to write it with.
    std::ostream& open(const std::string& path);
    /// The first open() that failed, as "PATH: why"; empty when every output is open.
    std::string openError() const;
    /// Commits every output. On failure writes to @p err what failed, which outputs were written
    /// and which were left as they were, and returns false.
    bool commit(std::ostream& err);

private:
    struct Entry
    {
        std::string path;
        std::unique_ptr<AtomicFile> file; ///< null for "-"
    };
    std::ostream& m_stdout;
    std::vector<Entry> m_entries;
};

/// Writes @p text to @p path ("-": @p out) whole or not at all; errors go to @p err.
bool writeText(
    const std::string& path, const std::string& text, std::ostream& out, std::ostream& err);

} // namespace schedlab
