// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/window/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

#include <utility>

namespace schedlab::ui {

RecentFiles::RecentFiles(QString settingsKey)
    : m_key(std::move(settingsKey))
{ }

QStringList RecentFiles::files() const
{
    QStringList list = QSettings().value(m_key).toStringList();
    while (list.size() > kMaxEntries)
        list.removeLast();
    return list;
}

void RecentFiles::store(const QStringList& files)
{
    QSettings settings;
    settings.setValue(m_key, files);
}

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxEntries)
        list.removeLast();
    m_errors.remove(absolute);
    store(list);
}

void RecentFiles::setError(const QString& path, const QString& error)
{
    m_errors.insert(QFileInfo(path).absoluteFilePath(), error);
}

void RecentFiles::clear()
{
    m_errors.clear();
    store({});
}

} // namespace schedlab::ui
