// SPDX-License-Identifier: GPL-2.0-or-later
// The course list of the Lessons panel: one row per lesson file of a folder (docs/lessons.md),
// with the student's progress kept in QSettings ("lessons/ID/solved": the ids of the steps whose
// question was answered right; "lessons/ID/step": where the student was).
#pragma once

#include "core/lesson/lesson.h"

#include <QAbstractListModel>
#include <QStringList>

#include <vector>

namespace schedlab::ui {

class LessonListModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role {
        PathRole = Qt::UserRole + 1, ///< the lesson file
        IdRole,                      ///< its base name
        SolvedRole,                  ///< questions answered right (int)
        QuestionsRole,               ///< questions in the lesson (int)
        ErrorRole,                   ///< why it does not load, or empty
    };

    explicit LessonListModel(QObject* parent = nullptr);

    /// Reads the lessons of @p dir (sorted by file name).
    void setDirectory(const QString& dir);
    QString directory() const { return m_dir; }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    /// The loaded lesson of @p row (nullptr when it failed to load).
    const lesson::Lesson* lessonAt(int row) const;
    int rowOf(const QString& idOrPath) const;

    /// Progress in QSettings.
    QStringList solvedSteps(const QString& id) const;
    void markSolved(const QString& id, const QString& stepId);
    int lastStep(const QString& id) const;
    void setLastStep(const QString& id, int step);

private:
    struct Entry
    {
        QString path;
        QString id;
        std::optional<lesson::Lesson> lesson;
        QString error;
        int questions = 0;
    };
    QString m_dir;
    std::vector<Entry> m_entries;
};

/// The shipped lessons: $SCHEDLAB_LESSONS, the installed share/schedlab/lessons, or the source
/// tree's lessons/ (a build tree).
QString lessonsDirectory();

} // namespace schedlab::ui
