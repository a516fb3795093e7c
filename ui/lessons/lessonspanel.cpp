// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/lessons/lessonspanel.h"

#include "core/lesson/lesson.h"
#include "ui/analysis/inspectordock.h"
#include "ui/lessons/lessonhost.h"
#include "ui/lessons/lessonlistmodel.h"
#include "ui/machine/machinetreemodel.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMainWindow>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace schedlab::ui {

namespace {
QString q(const std::string& s)
{
    return QString::fromStdString(s);
}
} // namespace

LessonsPanel::LessonsPanel(LessonHost* host, const QString& directory)
    : QDockWidget(tr("Lessons"), host->lessonWindow())
    , m_host(host)
    , m_model(new LessonListModel(this))
{
    setObjectName(QStringLiteral("lessonsDock"));
    m_model->setDirectory(directory.isEmpty() ? lessonsDirectory() : directory);

    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* split = new QSplitter(Qt::Vertical);
    m_list = new QListView;
    m_list->setModel(m_model);
    m_list->setObjectName(QStringLiteral("courseList"));
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // The course list stays short: the step's text needs the room.
    m_list->setMaximumHeight(m_list->fontMetrics().height() * 7);
    split->addWidget(m_list);

    auto* stepBox = new QWidget;
    auto* stepLayout = new QVBoxLayout(stepBox);
    stepLayout->setContentsMargins(0, 0, 0, 0);
    m_header = new QLabel(tr("Choose a lesson."));
    m_header->setWordWrap(true);
    QFont bold = m_header->font();
    bold.setBold(true);
    m_header->setFont(bold);
    m_text = new QTextBrowser;
    m_text->setOpenExternalLinks(false);
    m_highlights = new QLabel;
    m_highlights->setObjectName(QStringLiteral("highlights"));
    m_highlights->setWordWrap(true);
    m_highlights->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_highlights->setStyleSheet(QStringLiteral(
        "QLabel { background: palette(alternate-base); border: 1px solid palette(mid); "
        "padding: 3px; font-family: monospace; }"));
    m_question = new QLabel;
    m_question->setWordWrap(true);
    m_question->setFont(bold);
    auto* answerRow = new QHBoxLayout;
    m_answer = new QLineEdit;
    m_answer->setObjectName(QStringLiteral("answer"));
    m_check = new QPushButton(tr("Check"));
    m_yes = new QPushButton(tr("Yes"));
    m_no = new QPushButton(tr("No"));
    answerRow->addWidget(m_answer, 1);
    answerRow->addWidget(m_yes);
    answerRow->addWidget(m_no);
    answerRow->addWidget(m_check);
    m_verdict = new QTextBrowser;
    m_verdict->setObjectName(QStringLiteral("verdict"));
    m_verdict->setMaximumHeight(170);
    m_verdict->setVisible(false);
    auto* nav = new QHBoxLayout;
    m_back = new QPushButton(tr("◀ Back"));
    m_next = new QPushButton(tr("Next ▶"));
    m_try = new QPushButton(tr("Try it yourself"));
    m_try->setToolTip(tr("Leave the lesson's scenario open in the sandbox at this step: play, "
                         "edit, change the kernel; Back or Next returns to the lesson"));
    nav->addWidget(m_back);
    nav->addWidget(m_try);
    nav->addWidget(m_next);
    stepLayout->addWidget(m_header);
    stepLayout->addWidget(m_text, 1);
    stepLayout->addWidget(m_highlights);
    stepLayout->addWidget(m_question);
    stepLayout->addLayout(answerRow);
    stepLayout->addWidget(m_verdict);
    stepLayout->addLayout(nav);
    split->addWidget(stepBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 5);
    layout->addWidget(split);
    setWidget(body);

    connect(m_list, &QListView::activated, this,
        [this](const QModelIndex& index) { openLesson(index.row()); });
    connect(m_list, &QListView::clicked, this, [this](const QModelIndex& index) {
        if (index.row() != m_row)
            openLesson(index.row());
    });
    connect(m_back, &QPushButton::clicked, this, [this] { showStep(m_step - 1); });
    connect(m_next, &QPushButton::clicked, this, [this] { showStep(m_step + 1); });
    connect(m_try, &QPushButton::clicked, this, &LessonsPanel::tryItYourself);
    connect(m_check, &QPushButton::clicked, this, [this] { submitAnswer(m_answer->text()); });
    connect(m_answer, &QLineEdit::returnPressed, this, [this] { submitAnswer(m_answer->text()); });
    connect(m_yes, &QPushButton::clicked, this, [this] { submitAnswer(QStringLiteral("yes")); });
    connect(m_no, &QPushButton::clicked, this, [this] { submitAnswer(QStringLiteral("no")); });
    // "Which task is picked next?" is answered by a click in the machine tree or on the lanes
    // (user clicks only: the panel's own focus selection does not answer).
    connect(m_host->machineTree(), &QTreeView::clicked, this, [this](const QModelIndex& index) {
        pickClicked(index.data(MachineTreeModel::TaskNameRole).toString());
    });
    connect(m_host->timeline(), &TimelineView::taskClicked, this, &LessonsPanel::pickClicked);
    connect(m_host->controller(), &SimulationController::seekFinished, this, [this] {
        if (m_waitingForWindow)
            onWindowAtStep();
    });
    // Another scenario opened by the user: the next step reopens the lesson's.
    m_host->onScenarioLoaded(this, [this] { m_scenarioInWindow = false; });
    updateButtons();
}

LessonsPanel::~LessonsPanel() = default;

int LessonsPanel::stepCount() const
{
    return m_run ? static_cast<int>(m_run->lesson().steps.size()) : 0;
}

bool LessonsPanel::openLesson(const QString& idOrPath, int step)
{
    const int row = m_model->rowOf(idOrPath);
    if (row < 0) {
        m_error = tr("no lesson \"%1\" in %2").arg(idOrPath, m_model->directory());
        return false;
    }
    return openLesson(row, step);
}

bool LessonsPanel::openLesson(int row, int step)
{
    const lesson::Lesson* l = m_model->lessonAt(row);
    if (!l) {
        m_error = m_model->index(row).data(LessonListModel::ErrorRole).toString();
        m_header->setText(tr("This lesson cannot be loaded."));
        m_text->setPlainText(m_error);
        return false;
    }
    m_row = row;
    m_list->setCurrentIndex(m_model->index(row));
    QMainWindow* window = m_host->lessonWindow();
    if (!m_sized && window->dockWidgetArea(this) != Qt::NoDockWidgetArea && !isFloating()) {
        // At the default window size the dock shares its column with the machine tree: give
        // the lesson most of the height and enough width that no line of text is cut.
        m_sized = true;
        // The left column reaches the bottom of the window (the log and findings docks give way
        // to it there), and the machine tree above the lesson keeps a few rows.
        window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
        window->resizeDocks({this}, {std::max(width(), 470)}, Qt::Horizontal);
        QList<QDockWidget*> column{this};
        QList<int> heights{window->height() * 3 / 4};
        if (auto* machine = m_host->lessonPane(LessonPane::MachineTree); machine
            && window->dockWidgetArea(machine) == window->dockWidgetArea(this)
            && !machine->isFloating()) {
            column.prepend(machine);
            heights.prepend(window->height() / 6);
        }
        window->resizeDocks(column, heights, Qt::Vertical);
    }
    m_run = std::make_shared<lesson::LessonRun>(*l);
    m_scenarioInWindow = false;
    const QString id = m_model->index(row).data(LessonListModel::IdRole).toString();
    const int last = step >= 0 ? step : m_model->lastStep(id);
    showStep(std::clamp(last, 0, stepCount() - 1));
    return true;
}

void LessonsPanel::showStep(int step)
{
    if (!m_run || step < 0 || step >= stepCount())
        return;
    m_step = step;
    m_error.clear();
    m_model->setLastStep(m_model->index(m_row).data(LessonListModel::IdRole).toString(), step);
    const auto& s = m_run->lesson().steps[static_cast<size_t>(step)];
    m_header->setText(tr("%1 — step %2 of %3: %4")
                          .arg(q(m_run->lesson().title))
                          .arg(step + 1)
                          .arg(stepCount())
                          .arg(q(s.title)));
    m_text->setPlainText(tr("Running the scenario to this step…"));
    m_highlights->clear();
    m_question->clear();
    m_answer->clear();
    m_verdict->clear();
    m_computing = true;
    updateButtons();
    // The model side runs off the GUI thread: a step of a long scenario re-runs it to the stop.
    auto run = m_run;
    struct Result
    {
        QString text;
        QStringList highlights;
        Nanoseconds stop{0};
        QString error;
    };
    m_job.start(
        [run, step] {
            std::string error;
            Result r;
            if (auto t = run->stopTime(static_cast<size_t>(step), &error)) {
                r.stop = *t;
                std::string intro;
                if (step == 0 && !run->lesson().intro.empty())
                    intro = run->lesson().intro + "\n\n---\n\n";
                if (auto md = run->renderText(static_cast<size_t>(step), &error))
                    r.text = q(intro + *md);
                for (const std::string& h : run->highlights(static_cast<size_t>(step), &error))
                    r.highlights << q(h);
                if (run->lesson().steps[static_cast<size_t>(step)].question)
                    run->modelAnswer(static_cast<size_t>(step), &error); // computed here, not later
            }
            r.error = q(error);
            return r;
        },
        [this, step](
            const Result& r) { onStepComputed(step, r.text, r.highlights, r.stop, r.error); });
}

void LessonsPanel::onStepComputed(int step, const QString& text, const QStringList& highlights,
    Nanoseconds stop, const QString& error)
{
    m_computing = false;
    if (!error.isEmpty()) {
        m_error = error;
        m_text->setPlainText(tr("This step cannot be shown:\n%1").arg(error));
        updateButtons();
        return;
    }
    m_text->setMarkdown(text);
    m_highlights->setText(highlights.join(QLatin1Char('\n')));
    m_highlights->setVisible(!highlights.isEmpty());
    const auto& s = m_run->lesson().steps[static_cast<size_t>(step)];
    if (s.question) {
        m_question->setText(q(s.question->prompt));
        const bool yesNo = s.question->kind == lesson::Question::Kind::Eligible;
        m_yes->setVisible(yesNo);
        m_no->setVisible(yesNo);
        m_answer->setVisible(!yesNo);
        m_check->setVisible(!yesNo);
        m_answer->setPlaceholderText(s.question->kind == lesson::Question::Kind::Pick
                ? tr("click a task in the machine tree or on the lanes, or type its name")
                : tr("a number in %1").arg(q(lesson::quantityUnit(s.question->quantity))));
    }
    m_question->setVisible(s.question.has_value());
    m_verdict->setVisible(false); // shown with a verdict: the text keeps the room until then
    if (!s.question)
        for (QWidget* w : std::initializer_list<QWidget*>{m_answer, m_check, m_yes, m_no})
            w->setVisible(false);
    // Drive the sandbox: the lesson's scenario, run to the stop time in bounded slices.
    m_stop = stop;
    m_waitingForWindow = true;
    if (!m_scenarioInWindow) {
        const lesson::Lesson& l = m_run->lesson();
        const QString name = l.scenarioFile.empty() ? q(l.title) : q(l.scenarioFile);
        if (!m_host->openScenario(l.scenario, name)) {
            m_waitingForWindow = false;
            m_error = tr("the window refused the lesson's scenario");
            updateButtons();
            return;
        }
        m_scenarioInWindow = true;
    }
    SimulationController* c = m_host->controller();
    if (c->now() == stop && !c->isSeeking()) {
        onWindowAtStep();
    } else {
        c->seek(stop);
        if (!c->isSeeking() && m_waitingForWindow)
            onWindowAtStep();
    }
    updateButtons();
}

void LessonsPanel::onWindowAtStep()
{
    m_waitingForWindow = false;
    // An open question: the Inspector hides the asked values until the student answers.
    const auto& s = m_run->lesson().steps[static_cast<size_t>(m_step)];
    if (s.question) {
        const lesson::Concealed c = lesson::concealedBy(*s.question);
        m_host->inspector()->setConcealed(c.columns, c.entity, c.picks);
    } else {
        m_host->inspector()->clearConcealed();
    }
    applyFocus();
    updateButtons();
    Q_EMIT stepReady(m_step);
}

void LessonsPanel::applyFocus()
{
    const auto& s = m_run->lesson().steps[static_cast<size_t>(m_step)];
    // Focus entities: selected in the machine tree (the timeline plots the selected tasks).
    MachineTreeModel* model = m_host->machineTreeModel();
    QItemSelectionModel* selection = m_host->machineTree()->selectionModel();
    if (!s.focus.empty()) {
        selection->clearSelection();
        for (const std::string& name : s.focus) {
            QModelIndex index = model->indexForTask(q(name));
            if (!index.isValid())
                index = model->indexForCgroup(q(name));
            if (index.isValid())
                selection->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
    }
    TimelineView* timeline = m_host->timeline();
    if (s.view)
        timeline->setViewRange(s.view->first, s.view->second);
    else // the last 50 ms before the stop
        timeline->setViewRange(std::max(Nanoseconds{0}, m_stop - Nanoseconds{50'000'000}),
            std::max(m_stop, Nanoseconds{1'000'000}) + Nanoseconds{2'000'000});
    timeline->setCursorTime(m_stop);
    // The Inspector shows the same state the lesson's answers come from.
    m_host->inspector()->inspectAt(m_stop);
    for (const std::string& pane : s.panes) {
        std::optional<LessonPane> which;
        if (pane == "inspector")
            which = LessonPane::Inspector;
        else if (pane == "tree")
            which = LessonPane::MachineTree;
        else if (pane == "log")
            which = LessonPane::Log;
        else if (pane == "features")
            which = LessonPane::Features;
        else if (pane == "findings")
            which = LessonPane::Findings;
        QDockWidget* dock = which ? m_host->lessonPane(*which) : nullptr;
        if (dock) {
            dock->show();
            dock->raise();
        }
    }
    raise(); // the lesson stays in front of a pane it shares a tab with
}

void LessonsPanel::pickClicked(const QString& name)
{
    if (!m_run || m_step < 0 || name.isEmpty() || isBusy())
        return;
    const auto& s = m_run->lesson().steps[static_cast<size_t>(m_step)];
    if (!s.question || s.question->kind != lesson::Question::Kind::Pick)
        return;
    m_answer->setText(name);
    submitAnswer(name);
}

bool LessonsPanel::submitAnswer(const QString& answer)
{
    if (!m_run || m_step < 0 || m_computing)
        return false;
    std::string error;
    auto verdict = m_run->check(static_cast<size_t>(m_step), answer.toStdString(), &error);
    if (!verdict) {
        m_verdict->setPlainText(q(error));
        m_verdict->setVisible(true);
        return false;
    }
    QString html =
        QStringLiteral("<p><b style=\"color:%1\">%2</b></p>")
            .arg(verdict->correct ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"),
                q(verdict->message).toHtmlEscaped());
    if (!verdict->model.explanation.empty()) {
        html += QStringLiteral("<pre>");
        for (const std::string& line : verdict->model.explanation)
            html += q(line).toHtmlEscaped() + QLatin1Char('\n');
        html += QStringLiteral("</pre>");
    }
    m_verdict->setHtml(html);
    m_verdict->setVisible(true);
    m_host->inspector()->clearConcealed(); // answered: the state is the student's to read
    if (verdict->correct) {
        const auto& s = m_run->lesson().steps[static_cast<size_t>(m_step)];
        m_model->markSolved(
            m_model->index(m_row).data(LessonListModel::IdRole).toString(), q(s.id));
    }
    Q_EMIT answerChecked(verdict->correct);
    return verdict->correct;
}

void LessonsPanel::tryItYourself()
{
    if (!m_run || isBusy())
        return;
    // The scenario is already open at this step; from now on it is the student's: the next
    // step of the lesson reopens the lesson's own scenario.
    m_scenarioInWindow = false;
    m_host->controller()->pause();
    m_host->inspector()->clearConcealed();
    m_verdict->setPlainText(
        tr("The scenario is yours at t = %1: play, rewind, edit the machine tree, change the "
           "kernel profile or features. Back or Next returns to the lesson.")
            .arg(QString::fromStdString(formatDurationHuman(m_stop))));
    m_verdict->setVisible(true);
}

bool LessonsPanel::isBusy() const
{
    return m_computing || m_waitingForWindow || m_host->controller()->isSeeking()
        || m_host->inspector()->busy();
}

void LessonsPanel::updateButtons()
{
    const bool ready = m_run && !m_computing;
    m_back->setEnabled(ready && m_step > 0);
    m_next->setEnabled(ready && m_step + 1 < stepCount());
    m_try->setEnabled(ready && m_error.isEmpty());
}

int LessonsPanel::draftSteps() const
{
    return m_draft ? static_cast<int>(m_draft->steps.size()) : 0;
}

bool LessonsPanel::addDraftStep(const QString& id, const QString& title, const QString& text,
    const std::optional<lesson::Question>& question, QString* error)
{
    const Scenario& scenario = m_host->scenario();
    if (m_draft && m_draft->scenario.name != scenario.name) {
        if (error)
            *error =
                tr("the draft is a lesson on \"%1\"; save it first").arg(q(m_draft->scenario.name));
        return false;
    }
    std::vector<std::string> focus;
    const auto rows = m_host->machineTree()->selectionModel()->selectedRows();
    for (const QModelIndex& i : rows) {
        QString name = i.data(MachineTreeModel::TaskNameRole).toString();
        if (name.isEmpty())
            name = i.data(MachineTreeModel::CgroupPathRole).toString();
        if (!name.isEmpty()
            && std::find(focus.begin(), focus.end(), name.toStdString()) == focus.end())
            focus.push_back(name.toStdString());
    }
    TimelineView* t = m_host->timeline();
    std::string why;
    auto step = lesson::captureStep(scenario, m_host->controller()->now(), id.toStdString(),
        title.toStdString(), text.toStdString(), focus,
        std::make_pair(t->viewStart(), t->viewEnd()), question, &why);
    if (!step) {
        if (error)
            *error = q(why);
        return false;
    }
    if (!m_draft) {
        m_draft = std::make_shared<lesson::Lesson>();
        m_draft->scenario = scenario;
    }
    for (const lesson::Step& s : m_draft->steps)
        if (s.id == step->id) {
            if (error)
                *error = tr("the draft has a step \"%1\" already").arg(id);
            return false;
        }
    if (!m_draft->steps.empty() && step->run.at < m_draft->steps.back().run.at) {
        if (error)
            *error = tr("a step cannot run backwards: the last one stops at %1")
                         .arg(q(formatDurationHuman(m_draft->steps.back().run.at)));
        return false;
    }
    step->path = "/steps/" + std::to_string(m_draft->steps.size());
    m_draft->steps.push_back(*step);
    return true;
}

bool LessonsPanel::saveDraft(const QString& name, const QString& title, QString* error)
{
    if (!m_draft || m_draft->steps.empty()) {
        if (error)
            *error = tr("no steps yet: Lessons ▸ New step captures one");
        return false;
    }
    m_draft->title = title.toStdString();
    std::string why;
    if (!lesson::saveLesson(
            *m_draft, m_model->directory().toStdString(), name.toStdString(), false, &why)) {
        if (error)
            *error = q(why);
        return false;
    }
    m_draft.reset();
    m_model->setDirectory(m_model->directory()); // the course lists the new lesson
    return openLesson(name, 0);
}

void LessonsPanel::newStepDialog()
{
    QDialog dialog(this);
    dialog.setWindowTitle(
        tr("New lesson step at t = %1").arg(q(formatDurationHuman(m_host->controller()->now()))));
    auto* form = new QFormLayout(&dialog);
    auto* id = new QLineEdit(QStringLiteral("step-%1").arg(draftSteps() + 1));
    auto* title = new QLineEdit;
    auto* text = new QPlainTextEdit;
    text->setPlaceholderText(tr("Markdown; {{lag:TASK}}, {{V}}, {{now}} … are filled in by the "
                                "model (docs/lessons.md §4)"));
    auto* kind = new QComboBox;
    kind->addItems({tr("no question"), tr("which task is picked next (pick)"),
        tr("is it eligible (eligible)"), tr("a number the inspector shows (number)")});
    auto* entity = new QComboBox;
    entity->setEditable(true);
    for (const TaskView& tv : m_host->controller()->simulation()
            ? m_host->controller()->simulation()->tasks()
            : std::vector<TaskView>{})
        entity->addItem(q(tv.name));
    auto* quantity = new QComboBox;
    for (const char* n :
        {"lag", "vlag", "vruntime", "deadline", "weight", "slice", "share", "runtime", "V"})
        quantity->addItem(QString::fromLatin1(n));
    auto* cpu = new QSpinBox;
    cpu->setRange(0, 4095);
    auto* tolerance = new QDoubleSpinBox;
    tolerance->setDecimals(3);
    tolerance->setRange(0, 1e9);
    tolerance->setValue(1);
    auto* prompt = new QLineEdit;
    form->addRow(tr("Step id"), id);
    form->addRow(tr("Title"), title);
    form->addRow(tr("Text"), text);
    form->addRow(tr("Question"), kind);
    form->addRow(tr("Prompt"), prompt);
    form->addRow(tr("Entity"), entity);
    form->addRow(tr("Quantity"), quantity);
    form->addRow(tr("CPU"), cpu);
    form->addRow(tr("Tolerance"), tolerance);
    auto* note = new QLabel(tr("The expected answer is the model's at this time. A lesson asks "
                               "before it shows: stop just before the event, ask, and capture "
                               "the answer step after it."));
    note->setWordWrap(true);
    form->addRow(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
        std::optional<lesson::Question> question;
        if (kind->currentIndex() > 0) {
            lesson::Question qn;
            qn.kind = kind->currentIndex() == 1 ? lesson::Question::Kind::Pick
                : kind->currentIndex() == 2     ? lesson::Question::Kind::Eligible
                                                : lesson::Question::Kind::Number;
            qn.prompt = prompt->text().toStdString();
            qn.entity = entity->currentText().toStdString();
            qn.cpu = cpu->value();
            qn.quantity = lesson::quantityFromName(quantity->currentText().toStdString())
                              .value_or(lesson::Quantity::Lag);
            qn.tolerance = tolerance->value();
            question = qn;
        }
        QString error;
        if (addDraftStep(id->text(), title->text(), text->toPlainText(), question, &error))
            dialog.accept();
        else
            QMessageBox::warning(&dialog, tr("New step"), error);
    });
    dialog.exec();
}

void LessonsPanel::saveLessonDialog()
{
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save lesson"),
        tr("File name in %1 (lower-case letters, digits, '-'):").arg(m_model->directory()),
        QLineEdit::Normal, QStringLiteral("%1-my-lesson").arg(m_model->rowCount() + 1), &ok);
    if (!ok)
        return;
    const QString title = QInputDialog::getText(
        this, tr("Save lesson"), tr("Title:"), QLineEdit::Normal, QString(), &ok);
    if (!ok)
        return;
    QString error;
    if (!saveDraft(name, title, &error))
        QMessageBox::warning(this, tr("Save lesson"), error);
}

} // namespace schedlab::ui
