// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/window/filewatcher.h"

#include <QFile>
#include <QFileInfo>

namespace schedlab::ui {

FileWatcher::FileWatcher(QObject* parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &FileWatcher::check);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &FileWatcher::check);
}

void FileWatcher::watch(const QString& path, const QByteArray& content)
{
    if (!m_watcher.files().isEmpty())
        m_watcher.removePaths(m_watcher.files());
    if (!m_watcher.directories().isEmpty())
        m_watcher.removePaths(m_watcher.directories());
    m_path = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
    m_known = content;
    m_seen.clear();
    m_removed = false;
    rearm();
}

bool FileWatcher::isArmed() const
{
    return !m_path.isEmpty() && m_watcher.files().contains(m_path);
}

void FileWatcher::rearm()
{
    if (m_path.isEmpty())
        return;
    const QString dir = QFileInfo(m_path).absolutePath();
    if (!m_watcher.directories().contains(dir) && QFileInfo::exists(dir))
        m_watcher.addPath(dir);
    // A replaced file is a new inode: watch it afresh (the old watch died with the old inode).
    if (m_watcher.files().contains(m_path))
        m_watcher.removePath(m_path);
    if (QFileInfo::exists(m_path))
        m_watcher.addPath(m_path);
}

void FileWatcher::check()
{
    if (m_path.isEmpty())
        return;
    rearm();
    QFile file(m_path);
    if (!file.open(QIODevice::ReadOnly)) {
        const bool report = !QFileInfo::exists(m_path) && !m_removed;
        if (report) {
            m_removed = true;
            m_seen.clear();
            Q_EMIT removedFromDisk(m_path);
        }
        Q_EMIT checked(report);
        return;
    }
    const QByteArray content = file.readAll();
    if (content == m_known) { // unchanged, our own save, or changed back
        const bool reported = !m_seen.isEmpty() || m_removed;
        m_seen.clear();
        m_removed = false;
        if (reported)
            Q_EMIT backToKnown(m_path);
        Q_EMIT checked(false);
        return;
    }
    if (content == m_seen) { // this change was already reported
        Q_EMIT checked(false);
        return;
    }
    m_seen = content;
    m_removed = false;
    Q_EMIT changedOnDisk(m_path);
    Q_EMIT checked(true);
}

} // namespace schedlab::ui
