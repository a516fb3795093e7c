// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/lessons/lessonlistmodel.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace schedlab::ui {

namespace {
QString key(const QString& id, const char* what)
{
    return QStringLiteral("lessons/%1/%2").arg(id, QString::fromLatin1(what));
}
} // namespace

QString lessonsDirectory()
{
    const QString env = qEnvironmentVariable("SCHEDLAB_LESSONS");
    if (!env.isEmpty())
        return env;
    const QString installed =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/schedlab/lessons");
    if (QFileInfo(installed).isDir())
        return QDir::cleanPath(installed);
#ifdef SCHEDLAB_SOURCE_LESSONS
    if (QFileInfo(QStringLiteral(SCHEDLAB_SOURCE_LESSONS)).isDir())
        return QStringLiteral(SCHEDLAB_SOURCE_LESSONS);
#endif
    return QString();
}

LessonListModel::LessonListModel(QObject* parent)
    : QAbstractListModel(parent)
{ }

void LessonListModel::setDirectory(const QString& dir)
{
    beginResetModel();
    m_dir = dir;
    m_entries.clear();
    if (!dir.isEmpty()) {
        for (const std::string& path : lesson::listLessons(dir.toStdString())) {
            Entry e;
            e.path = QString::fromStdString(path);
            e.id = QFileInfo(e.path).completeBaseName();
            auto r = lesson::loadLesson(path);
            if (r.ok()) {
                e.lesson = std::move(*r.lesson);
                for (const auto& s : e.lesson->steps)
                    e.questions += s.question ? 1 : 0;
            } else {
                QStringList lines;
                for (const auto& m : r.errors)
                    lines << QString::fromStdString(m);
                e.error = lines.join(QLatin1Char('\n'));
            }
            m_entries.push_back(std::move(e));
        }
    }
    endResetModel();
}

int LessonListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant LessonListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& e = m_entries[static_cast<size_t>(index.row())];
    const int solved = static_cast<int>(solvedSteps(e.id).size());
    switch (role) {
    case Qt::DisplayRole: {
        const QString title = e.lesson ? QString::fromStdString(e.lesson->title) : e.id;
        if (!e.lesson)
            return tr("%1 (cannot load)").arg(title);
        const QString mark =
            e.questions > 0 && solved >= e.questions ? QStringLiteral("✓ ") : QString();
        return QStringLiteral("%1%2. %3  (%4/%5)")
            .arg(mark)
            .arg(index.row() + 1)
            .arg(title)
            .arg(std::min(solved, e.questions))
            .arg(e.questions);
    }
    case Qt::ToolTipRole:
        return e.lesson ? QString::fromStdString(e.lesson->summary) : e.error;
    case PathRole:
        return e.path;
    case IdRole:
        return e.id;
    case SolvedRole:
        return std::min(solved, e.questions);
    case QuestionsRole:
        return e.questions;
    case ErrorRole:
        return e.error;
    default:
        return {};
    }
}

const lesson::Lesson* LessonListModel::lessonAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    const Entry& e = m_entries[static_cast<size_t>(row)];
    return e.lesson ? &*e.lesson : nullptr;
}

int LessonListModel::rowOf(const QString& idOrPath) const
{
    const QString abs = QFileInfo(idOrPath).absoluteFilePath();
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].id == idOrPath || QFileInfo(m_entries[i].path).absoluteFilePath() == abs)
            return static_cast<int>(i);
    // A unique prefix of an id ("03" for "03-deadlines-pick").
    int found = -1;
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].id.startsWith(idOrPath + QLatin1Char('-'))
            || m_entries[i].id.endsWith(QLatin1Char('-') + idOrPath)) {
            if (found >= 0)
                return -1;
            found = static_cast<int>(i);
        }
    return found;
}

QStringList LessonListModel::solvedSteps(const QString& id) const
{
    return QSettings().value(key(id, "solved")).toStringList();
}

void LessonListModel::markSolved(const QString& id, const QString& stepId)
{
    QStringList solved = solvedSteps(id);
    if (solved.contains(stepId))
        return;
    solved << stepId;
    QSettings().setValue(key(id, "solved"), solved);
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].id == id) {
            const QModelIndex at = index(static_cast<int>(i));
            Q_EMIT dataChanged(at, at);
        }
}

int LessonListModel::lastStep(const QString& id) const
{
    return QSettings().value(key(id, "step"), 0).toInt();
}

void LessonListModel::setLastStep(const QString& id, int step)
{
    QSettings().setValue(key(id, "step"), step);
}

} // namespace schedlab::ui
