// SPDX-License-Identifier: GPL-2.0-or-later
// Help > Lessons (ui/lessons/lessonspanel.h) offscreen: the course list under
// QAbstractItemModelTester, and a student's path through a lesson: a wrong answer shows the
// model's explanation, a right one is saved as progress in QSettings (a temporary location, never
// the user's), the window shows the lesson's scenario at the step's stop time, and "try it
// yourself" leaves it there.
#include "core/lesson/lesson.h"
#include "core/scenario/scenarioio.h"
#include "ui/analysis/inspectordock.h"
#include "ui/lessons/lessonlistmodel.h"
#include "ui/lessons/lessonspanel.h"
#include "ui/machine/machinetreemodel.h"
#include "ui/run/simulationcontroller.h"
#include "ui/window/mainwindow.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

using namespace schedlab;
using namespace schedlab::ui;

class TestLessonsPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void listModel();
    void studentPath();
    void unknownLesson();
    void inspectorHidesOpenAnswers();
    void teacherWritesALesson();

private:
    QTemporaryDir m_settings;
    const QString m_dir = QStringLiteral(SCHEDLAB_SOURCE_DIR "/lessons");
};

namespace {
bool waitReady(LessonsPanel* panel)
{
    // An upper bound reached only when something hangs: a step re-runs its lesson's scenario to
    // the stop in the window too, which on a loaded 2-core machine took over a minute.
    return QTest::qWaitFor([panel] { return !panel->isBusy(); }, 300'000);
}
} // namespace

void TestLessonsPanel::initTestCase()
{
    // Progress goes to a temporary INI file, never to the user's settings.
    QCoreApplication::setOrganizationName(QStringLiteral("schedlab-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_lessonspanel"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    QVERIFY(QSettings().fileName().startsWith(m_settings.path()));
}

void TestLessonsPanel::listModel()
{
    LessonListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDirectory(m_dir);
    QVERIFY(model.rowCount() >= 8);
    for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex i = model.index(r);
        QVERIFY2(i.data(LessonListModel::ErrorRole).toString().isEmpty(),
            qPrintable(i.data(LessonListModel::ErrorRole).toString()));
        QVERIFY(model.lessonAt(r));
        QCOMPARE(i.data(LessonListModel::SolvedRole).toInt(), 0);
    }
    QCOMPARE(model.rowOf(QStringLiteral("03")), 2);
    QCOMPARE(model.rowOf(QStringLiteral("01-virtual-time")), 0);
    // Progress changes the row (dataChanged, checked by the tester) and persists.
    model.markSolved(QStringLiteral("01-virtual-time"), QStringLiteral("virtual"));
    QCOMPARE(model.index(0).data(LessonListModel::SolvedRole).toInt(), 1);
    QVERIFY(model.index(0).data().toString().startsWith(QStringLiteral("✓")));
    QSettings().remove(QStringLiteral("lessons"));
    model.setDirectory(QString()); // empty: no rows
    QCOMPARE(model.rowCount(), 0);
}

void TestLessonsPanel::studentPath()
{
    MainWindow window;
    window.setErrorDialogsEnabled(false);
    window.openInitial(QString());
    window.resize(1280, 800);
    window.show();
    auto* panel = new LessonsPanel(&window, m_dir);
    window.addDockWidget(Qt::RightDockWidgetArea, panel);

    // Lesson 3, step "predict": which task is picked next?
    QVERIFY(panel->openLesson(QStringLiteral("03-deadlines-pick")));
    QVERIFY(waitReady(panel));
    QCOMPARE(panel->currentStep(), 0);
    QVERIFY(panel->lastError().isEmpty());
    QVERIFY(!panel->backButton()->isEnabled());
    QVERIFY(panel->nextButton()->isEnabled());
    // The text's templates are filled with the model's numbers.
    QVERIFY(!panel->textView()->toPlainText().contains(QStringLiteral("{{")));
    QVERIFY(panel->textView()->toPlainText().contains(QStringLiteral("deadline")));
    QVERIFY(panel->highlightsLabel()->text().contains(QStringLiteral("deadline(hog-1) = ")));

    QTest::mouseClick(panel->nextButton(), Qt::LeftButton);
    QVERIFY(waitReady(panel));
    QCOMPARE(panel->currentStep(), 1);
    // The window shows the lesson's scenario at the step's stop time.
    const auto& l = *panel->listModel()->lessonAt(panel->currentRow());
    lesson::LessonRun reference(l);
    const auto stop = reference.stopTime(1);
    QVERIFY(stop);
    QCOMPARE(window.controller()->now(), *stop);
    QCOMPARE(window.scenario().name, l.scenario.name);
    const auto model = reference.modelAnswer(1);
    QVERIFY(model);
    QVERIFY(!panel->questionLabel()->text().isEmpty());

    // A wrong answer: not saved, and the explanation is shown.
    const QString wrong =
        model->text == "hog-1" ? QStringLiteral("hog-2") : QStringLiteral("hog-1");
    panel->answerEdit()->setText(wrong);
    QTest::keyClick(panel->answerEdit(), Qt::Key_Return);
    QVERIFY(panel->verdictView()->toPlainText().contains(QStringLiteral("Not quite")));
    QVERIFY(panel->verdictView()->toPlainText().contains(QStringLiteral("pick_eevdf")));
    QVERIFY(QSettings()
                .value(QStringLiteral("lessons/03-deadlines-pick/solved"))
                .toStringList()
                .isEmpty());

    // The right one: saved in QSettings, the list shows the progress.
    panel->answerEdit()->setText(QString::fromStdString(model->text));
    QTest::keyClick(panel->answerEdit(), Qt::Key_Return);
    QVERIFY(panel->verdictView()->toPlainText().startsWith(QStringLiteral("Right")));
    QCOMPARE(QSettings().value(QStringLiteral("lessons/03-deadlines-pick/solved")).toStringList(),
        QStringList{QStringLiteral("predict")});
    QCOMPARE(QSettings().value(QStringLiteral("lessons/03-deadlines-pick/step")).toInt(), 1);
    const QModelIndex row = panel->listModel()->index(panel->currentRow());
    QCOMPARE(row.data(LessonListModel::SolvedRole).toInt(), 1);

    // Try it yourself: the scenario stays open at the step, paused; Next returns to the lesson.
    QTest::mouseClick(panel->tryButton(), Qt::LeftButton);
    QCOMPARE(window.controller()->now(), *stop);
    QVERIFY(!window.controller()->isPlaying());
    QVERIFY(panel->verdictView()->toPlainText().contains(QStringLiteral("yours")));
    QTest::mouseClick(panel->nextButton(), Qt::LeftButton);
    QVERIFY(waitReady(panel));
    QCOMPARE(panel->currentStep(), 2);
    QCOMPARE(window.controller()->now(), *reference.stopTime(2));

    // Reopening the lesson resumes where the student was.
    QVERIFY(panel->openLesson(QStringLiteral("03")));
    QVERIFY(waitReady(panel));
    QCOMPARE(panel->currentStep(), 2);
    window.setWindowModified(false);
}

void TestLessonsPanel::unknownLesson()
{
    MainWindow window;
    window.setErrorDialogsEnabled(false);
    window.openInitial(QString());
    LessonsPanel panel(&window, m_dir);
    QVERIFY(!panel.openLesson(QStringLiteral("no-such-lesson")));
    QVERIFY(panel.lastError().contains(QStringLiteral("no-such-lesson")));
}

void TestLessonsPanel::inspectorHidesOpenAnswers()
{
    // Walk every question of every lesson in the real window. While the question is
    // open the Inspector's row of the asked entity shows "?" in the concealed columns, no row
    // is marked PICKED for a pick question, and the pick explanation is withheld; after an
    // answer the values come back.
    MainWindow window;
    window.setErrorDialogsEnabled(false);
    window.openInitial(QString());
    window.resize(1280, 800);
    window.show();
    // As Help > Lessons makes it: beside the features panel on the left (the source tree's
    // lessons in a build tree, the same as m_dir).
    LessonsPanel* panel = window.lessons();
    QCOMPARE(panel->listModel()->directory(), m_dir);
    InspectorDock* inspector = window.inspector();
    int questions = 0;
    for (int row = 0; row < panel->listModel()->rowCount(); ++row) {
        const lesson::Lesson* l = panel->listModel()->lessonAt(row);
        QVERIFY(l);
        for (size_t i = 0; i < l->steps.size(); ++i) {
            if (!l->steps[i].question)
                continue;
            QVERIFY(panel->openLesson(row, static_cast<int>(i)));
            QVERIFY(waitReady(panel));
            QVERIFY2(panel->lastError().isEmpty(), qPrintable(panel->lastError()));
            ++questions;
            // At 1280x800, the dock where the app puts it: the step's text (the lesson's
            // introduction aside, which comes with step 1) fits its box, no line is cut at the
            // bottom edge, and the highlighted values fit their box's width.
            const QString at = QString::fromStdString(l->id + " " + l->steps[i].id)
                + QStringLiteral(" (text box %1 px, line %2 px)")
                      .arg(panel->textView()->height())
                      .arg(panel->textView()->fontMetrics().lineSpacing());
            QVERIFY2(
                panel->textView()->height() >= 12 * panel->textView()->fontMetrics().lineSpacing(),
                qPrintable(at));
            if (i > 0)
                QVERIFY2(panel->textView()->verticalScrollBar()->maximum() == 0, qPrintable(at));
            if (panel->highlightsLabel()->isVisible())
                QVERIFY2(panel->highlightsLabel()->width()
                        >= panel->highlightsLabel()->minimumSizeHint().width(),
                    qPrintable(at));
            const lesson::Question& q = *l->steps[i].question;
            const lesson::Concealed c = lesson::concealedBy(q);
            QVERIFY(inspector->concealing());
            QStringList cells;
            int hiddenCells = 0;
            bool entityShown = false;
            for (QTreeWidgetItemIterator it(inspector->tree()); *it; ++it) {
                const QString name = (*it)->text(0).section(QLatin1Char(' '), 0, 0);
                for (int col = 0; col < (*it)->columnCount(); ++col)
                    cells << (*it)->text(col);
                if (!c.entity.empty() && name == QString::fromStdString(c.entity)) {
                    // Every row of the entity (a group has one per CPU) hides the columns.
                    entityShown = true;
                    int hiddenHere = 0;
                    for (int col = 1; col <= 7; ++col)
                        hiddenHere += (*it)->text(col) == QLatin1String("?") ? 1 : 0;
                    hiddenCells = std::max(hiddenCells, hiddenHere);
                    QCOMPARE(hiddenHere, static_cast<int>(c.columns.size()));
                }
            }
            const QString where = QString::fromStdString(l->id + " " + l->steps[i].id);
            if (c.picks) {
                QVERIFY2(!cells.join(QLatin1Char(' ')).contains(QStringLiteral("PICKED")),
                    qPrintable(where));
            }
            if (entityShown)
                QVERIFY2(hiddenCells == static_cast<int>(c.columns.size()), qPrintable(where));
            if (inspector->tree()->topLevelItemCount() > 0) {
                inspector->tree()->setCurrentItem(inspector->tree()->topLevelItem(0));
                QVERIFY2(!inspector->explanationText().contains(QStringLiteral("picks")),
                    qPrintable(where));
            }
            // Any answer reveals the state.
            panel->submitAnswer(QStringLiteral("0"));
            QVERIFY(!inspector->concealing());
        }
    }
    QVERIFY(questions >= 11);
    window.setWindowModified(false);
}

void TestLessonsPanel::teacherWritesALesson()
{
    // Lessons > New step from a sandbox state, then Save: the lesson is written to the course's
    // directory, listed, opened, and its answers are checked.
    QTemporaryDir course;
    MainWindow window;
    window.setErrorDialogsEnabled(false);
    window.openInitial(QString());
    window.resize(1280, 800);
    window.show();
    auto* panel = new LessonsPanel(&window, course.path());
    window.addDockWidget(Qt::RightDockWidgetArea, panel);
    QCOMPARE(panel->listModel()->rowCount(), 0);
    auto sc = loadScenarioFile(SCHEDLAB_SOURCE_DIR "/scenarios/sleeper-lag.json");
    QVERIFY(sc.ok());
    QVERIFY(window.openScenario(*sc.scenario, QStringLiteral("sleeper-lag.json")));
    // The sandbox at 7.3 ms: sleeper was just placed (lesson 4); hog-1 selected.
    window.controller()->seek(Nanoseconds{7'300'000});
    QVERIFY(QTest::qWaitFor([&] { return !window.controller()->isSeeking(); }, 60000));
    QCOMPARE(window.controller()->now(), Nanoseconds{7'300'000});
    const QModelIndex hog = window.machineTreeModel()->indexForTask(QStringLiteral("hog-1"));
    QVERIFY(hog.isValid());
    window.machineTree()->selectionModel()->select(
        hog, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    lesson::Question q;
    q.kind = lesson::Question::Kind::Number;
    q.prompt = "What is sleeper's lag V − v (µs)?";
    q.entity = "sleeper";
    q.quantity = lesson::Quantity::Lag;
    q.tolerance = 5;
    QString error;
    QVERIFY(!panel->saveDraft(QStringLiteral("01-teacher"), QStringLiteral("T"), &error));
    QVERIFY(error.contains(QStringLiteral("no steps yet")));
    error.clear();
    QVERIFY(panel->addDraftStep(QStringLiteral("placed"), QStringLiteral("Placed"),
        QStringLiteral("V is {{V}}."), q, &error));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(panel->draftSteps(), 1);
    // The same id twice is refused.
    QVERIFY(!panel->addDraftStep(
        QStringLiteral("placed"), QStringLiteral("P"), QString(), std::nullopt, &error));
    QVERIFY(error.contains(QStringLiteral("already")));
    error.clear();
    QVERIFY(panel->saveDraft(
        QStringLiteral("01-teacher"), QStringLiteral("A teacher's lesson"), &error));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(QFile::exists(course.filePath(QStringLiteral("01-teacher.json"))));
    QVERIFY(QFile::exists(course.filePath(QStringLiteral("01-teacher.md"))));
    QCOMPARE(panel->listModel()->rowCount(), 1);
    QVERIFY(waitReady(panel));
    QCOMPARE(panel->stepCount(), 1);
    QVERIFY(panel->lastError().isEmpty());
    QCOMPARE(window.controller()->now(), Nanoseconds{7'300'000});
    // The model's answer (the saved vlag, 466.666 µs, kernel-model.md §4.2) is right; the
    // opposite sign is not.
    QVERIFY(!panel->submitAnswer(QStringLiteral("-466.666")));
    QVERIFY(panel->submitAnswer(QStringLiteral("466.666")));
    window.setWindowModified(false);
}

QTEST_MAIN(TestLessonsPanel)
#include "tst_lessonspanel.moc"
