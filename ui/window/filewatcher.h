// SPDX-License-Identifier: GPL-2.0-or-later
// Notices when the open scenario file is changed on disk by someone else. Editors often save by
// writing a new file and renaming it over the old one; that replaces the inode a file watch
// follows, so the folder is watched too and the file watch is re-armed after every change. A
// change counts only when the file's bytes differ from the last ones this program read or wrote:
// our own saves, touches and rewrites with equal content are not changes.
#pragma once

#include <QByteArray>
#include <QFileSystemWatcher>
#include <QObject>
#include <QString>

namespace schedlab::ui {

class FileWatcher : public QObject
{
    Q_OBJECT
public:
    explicit FileWatcher(QObject* parent = nullptr);

    /// Follows @p path, whose current content is @p content (what was loaded or saved). An
    /// empty path stops watching.
    void watch(const QString& path, const QByteArray& content);
    QString path() const { return m_path; }
    /// True while the file itself (not only its folder) is watched.
    bool isArmed() const;

public Q_SLOTS:
    /// Re-arms the watches and compares the file with the known content (called on every
    /// notification; public for tests).
    void check();

Q_SIGNALS:
    /// The file's content differs from the known one (once per distinct content).
    void changedOnDisk(const QString& path);
    /// The file is gone (deleted or renamed away); once until it comes back.
    void removedFromDisk(const QString& path);
    /// The file has the known content again after a change or removal was reported.
    void backToKnown(const QString& path);
    /// A notification was examined; @p reported: it emitted one of the signals above.
    void checked(bool reported);

private:
    void rearm();

    QFileSystemWatcher m_watcher;
    QString m_path;
    QByteArray m_known; ///< what we loaded or saved
    QByteArray m_seen;  ///< the last different content reported
    bool m_removed = false;
};

} // namespace schedlab::ui
