// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/common/savefile.h"

#include "core/base/atomicfile.h"

#include <QFile>

#include <stdexcept>

namespace schedlab::ui {

std::string filePathOf(const QString& path)
{
    return QFile::encodeName(path).toStdString();
}

QString reasonOf(const std::string& fsPath, const std::string& error)
{
    const std::string prefix = fsPath + ": ";
    return QFile::decodeName(
        QByteArray::fromStdString(error.starts_with(prefix) ? error.substr(prefix.size()) : error));
}

namespace {

/// "PATH: why" with the path as the user gave it.
QString failure(const QString& path, const std::string& fsPath, const std::string& error)
{
    return path + QStringLiteral(": ") + reasonOf(fsPath, error);
}

} // namespace

QString saveBytes(const QString& path, const QByteArray& bytes, bool* inPlace)
{
    const std::string fsPath = filePathOf(path);
    AtomicFile file(fsPath);
    if (inPlace)
        *inPlace = file.inPlace();
    if (!file.error().empty())
        return failure(path, fsPath, file.error());
    file.stream().write(bytes.constData(), bytes.size());
    // commit() flushes and checks every write (a full disk) before anything is renamed.
    if (const std::string e = file.commit(); !e.empty())
        return failure(path, fsPath, e);
    return QString();
}

QString saveStreamed(const QString& path, const std::function<bool(std::ostream&)>& write)
{
    const std::string fsPath = filePathOf(path);
    AtomicFile file(fsPath);
    if (!file.error().empty())
        return failure(path, fsPath, file.error());
    bool complete = false;
    try {
        complete = write(file.stream());
    } catch (const std::runtime_error& e) { // a temporary file of the export
        file.discard();
        return path + QStringLiteral(": ") + QString::fromStdString(e.what());
    }
    if (!complete) {
        file.discard(); // cancelled: the old file stays
        return QString();
    }
    if (const std::string e = file.commit(); !e.empty())
        return failure(path, fsPath, e);
    return QString();
}

} // namespace schedlab::ui
