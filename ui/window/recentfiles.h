// SPDX-License-Identifier: GPL-2.0-or-later
// The File ▸ Recent list: most recent first, at most eight, kept in QSettings. An entry that
// fails to load stays listed and remembers why, so the menu can show the error.
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace schedlab::ui {

class RecentFiles
{
public:
    static constexpr int kMaxEntries = 8;

    explicit RecentFiles(QString settingsKey = QStringLiteral("recentFiles"));

    QStringList files() const;
    /// Moves @p path to the front (adding it if new) and forgets any error it had.
    void add(const QString& path);
    /// Remembers why @p path failed to load; the entry keeps its place in the list.
    void setError(const QString& path, const QString& error);
    QString error(const QString& path) const { return m_errors.value(path); }
    void clear();

private:
    void store(const QStringList& files);

    QString m_key;
    QHash<QString, QString> m_errors;
};

} // namespace schedlab::ui
