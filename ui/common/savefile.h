// SPDX-License-Identifier: GPL-2.0-or-later
// The GUI's file saves (scenarios, exports, the --screenshot picture) through the one writer of
// schedlab-cli (core/base/atomicfile.h, docs/limits.md "Output files"): a regular file is
// replaced whole or not at all by a rename, a device, FIFO or socket is written in place, a
// symbolic link out of its directory is refused, and a temporary file never stays behind.
#pragma once

#include <QByteArray>
#include <QString>

#include <functional>
#include <ostream>
#include <string>

namespace schedlab::ui {

/// @p path as the file system sees it (QFile::encodeName).
std::string filePathOf(const QString& path);

/// The reason in an AtomicFile error "PATH: why", without the path.
QString reasonOf(const std::string& fsPath, const std::string& error);

/// Writes @p bytes to @p path whole or not at all (a short write, a failed flush or sync leaves
/// any old file as it was). Empty on success, else "PATH: why". @p inPlace, when given, says
/// whether the path was a device, FIFO or socket written in place (no file was replaced).
QString saveBytes(const QString& path, const QByteArray& bytes, bool* inPlace = nullptr);

/// Writes @p path with @p write, which gets the stream and says whether it went to the end
/// (false: cancelled; the temporary file is dropped and any old file stays; a device or FIFO
/// keeps what it was given). Empty on success and on cancel, else "PATH: why". A
/// std::runtime_error from @p write is reported the same way.
QString saveStreamed(const QString& path, const std::function<bool(std::ostream&)>& write);

} // namespace schedlab::ui
