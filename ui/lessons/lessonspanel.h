// SPDX-License-Identifier: GPL-2.0-or-later
// Help ▸ Lessons: the guided course (docs/lessons.md). The dock lists the lessons with the
// student's progress, shows a step's text (Markdown, its numbers filled from the model), the
// highlighted quantities and the question, and drives the main window: the lesson's scenario is
// opened in the sandbox and run to the step's stop time (the controller's bounded seek), the
// focus entities are selected and the named panes raised. The model side (stop times, snapshots,
// answers) is core/lesson/lesson.h, computed on a worker thread.
#pragma once

#include "core/base/time.h"
#include "core/lesson/lesson.h"
#include "ui/common/background.h"

#include <QDockWidget>

#include <memory>
#include <optional>

class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QTextBrowser;

namespace schedlab::ui {

class LessonListModel;
class LessonHost;

class LessonsPanel : public QDockWidget
{
    Q_OBJECT
public:
    /// Lessons from @p directory (lessonsDirectory() when empty), taught in @p host's window
    /// (ui/lessons/lessonhost.h), which the panel docks in.
    explicit LessonsPanel(LessonHost* host, const QString& directory = QString());
    ~LessonsPanel() override;

    LessonListModel* listModel() const { return m_model; }
    QListView* courseList() const { return m_list; }
    QTextBrowser* textView() const { return m_text; }
    QLabel* highlightsLabel() const { return m_highlights; }
    QLabel* questionLabel() const { return m_question; }
    QLineEdit* answerEdit() const { return m_answer; }
    QTextBrowser* verdictView() const { return m_verdict; }
    QPushButton* nextButton() const { return m_next; }
    QPushButton* backButton() const { return m_back; }
    QPushButton* tryButton() const { return m_try; }

    /// Opens lesson @p row of the list at @p step (-1: where the student left it).
    bool openLesson(int row, int step = -1);
    /// Opens a lesson by id, unique id prefix ("03") or file path.
    bool openLesson(const QString& idOrPath, int step = -1);
    int currentRow() const { return m_row; }
    int currentStep() const { return m_step; }
    int stepCount() const;
    void showStep(int step);
    /// Checks @p answer against the model (as the Check button does); true when right.
    bool submitAnswer(const QString& answer);
    /// "Try it yourself": the lesson's scenario stays open in the sandbox at this step.
    void tryItYourself();
    /// True while a step is computed, the window runs to it or the inspector catches up.
    bool isBusy() const;
    /// The last error (a step that cannot be computed), or empty.
    QString lastError() const { return m_error; }

    // Authoring (Lessons ▸ New step, docs/lessons.md §8): steps captured from the sandbox.
    /// Captures a step at the window's state: its scenario, the controller's time, the
    /// selected tasks and cgroups, the timeline's window; the question's expected answer comes
    /// from the model. False and @p error when the model cannot answer it there.
    bool addDraftStep(const QString& id, const QString& title, const QString& text,
        const std::optional<lesson::Question>& question, QString* error = nullptr);
    int draftSteps() const;
    /// Saves the draft as DIR/NAME.json + .md (DIR: the course's directory), reloads the course
    /// and opens the new lesson. False and @p error when it does not load, check or hide its
    /// answers (nothing is written then).
    bool saveDraft(const QString& name, const QString& title, QString* error = nullptr);
    void newStepDialog();
    void saveLessonDialog();

Q_SIGNALS:
    /// The step is shown and the window shows its state.
    void stepReady(int step);
    void answerChecked(bool correct);

private:
    void onStepComputed(int step, const QString& text, const QStringList& highlights,
        Nanoseconds stop, const QString& error);
    void onWindowAtStep();
    void applyFocus();
    void updateButtons();
    void pickClicked(const QString& name);

    LessonHost* m_host;
    LessonListModel* m_model;
    QListView* m_list;
    QLabel* m_header;
    QTextBrowser* m_text;
    QLabel* m_highlights;
    QLabel* m_question;
    QLineEdit* m_answer;
    QPushButton* m_check;
    QPushButton* m_yes;
    QPushButton* m_no;
    QTextBrowser* m_verdict;
    QPushButton* m_back;
    QPushButton* m_next;
    QPushButton* m_try;
    std::shared_ptr<lesson::LessonRun> m_run;
    std::shared_ptr<lesson::Lesson> m_draft; ///< the lesson being written, or null
    int m_row = -1;
    int m_step = -1;
    BackgroundJob m_job{this}; ///< the step being worked out
    bool m_computing = false;
    bool m_waitingForWindow = false;
    bool m_scenarioInWindow = false;
    bool m_sized = false; ///< the dock was given its room once
    Nanoseconds m_stop{0};
    QString m_error;
};

} // namespace schedlab::ui
