// SPDX-License-Identifier: GPL-2.0-or-later
// A file written whole or not at all: the text goes to a temporary file beside the target
// (".NAME.XXXXXX", the target's permissions), which is synced and renamed over the target only
// when every byte is written. A failed or abandoned write leaves the old file; the temporary file
// is removed. A symlink's target is replaced, not the link. Used for scenario saves and for every
// schedlab-cli output.
#pragma once

#include <fstream>
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

    /// Empty when the temporary file was created, else "PATH: cannot create …".
    const std::string& error() const { return m_error; }
    /// Where the text goes (a stream in a failed state after an error).
    std::ostream& stream() { return m_stream; }
    /// Writes everything out and replaces the target. Empty on success, else "PATH: what: why"
    /// (and the old file is untouched).
    std::string commit();

private:
    std::string m_path;   ///< as given, for messages
    std::string m_target; ///< the file replaced (a symlink resolved)
    std::string m_temp;   ///< empty once renamed or removed
    std::string m_error;
    std::ofstream m_stream;
};

} // namespace schedlab
