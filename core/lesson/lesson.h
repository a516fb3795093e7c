// SPDX-License-Identifier: GPL-2.0-or-later
// Lessons (docs/lessons.md): a guided course through EEVDF. A lesson file (lessons/NAME.json)
// binds a scenario and a sequence of steps; its text lives in lessons/NAME.md, one `## step-id`
// section per step. A step runs the scenario to a time or to the next event of a kind, focuses
// entities and panes, highlights quantities and may ask a question whose answer the model knows.
//
// This layer is Qt-free so that every lesson can be checked without widgets: loadLesson() reads
// and validates (messages name the file and the JSON path), LessonRun resolves each step's stop
// time, snapshots the run queues there (the inspector's inspect(), core/sim/inspect.h) and answers
// questions and text templates from that snapshot and the core's own pick explanation.
#pragma once

#include "core/base/time.h"
#include "core/record/recording.h"
#include "core/sim/inspect.h"
#include "core/sim/scenariospec.h"
#include "core/sim/simulation.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace schedlab::lesson {

/// Where a step stops.
struct RunTarget
{
    enum class Kind { Time, NextEvent };
    Kind kind = Kind::Time;
    Nanoseconds at{0};                     ///< Time: absolute simulated time
    RecordKind event = RecordKind::Switch; ///< NextEvent: the record kind searched for
    std::string entity;               ///< NextEvent filter: task name, "/group" or "/group@cpu"
    std::optional<int> cpu;           ///< NextEvent filter: the record's CPU
    std::optional<Nanoseconds> after; ///< NextEvent: search from this time on (inclusive)
    bool before = false;              ///< stop 1 ns before the event (the state it decides on)
};

/// A number a question or a template can ask for (docs/lessons.md §3).
enum class Quantity {
    Lag,      ///< V − v of the entity on its cfs_rq, µs of virtual time
    Vlag,     ///< the stored se->vlag (saved at dequeue, used by placement), µs
    V,        ///< avg_vruntime() of the entity's cfs_rq (or of a CPU's root), µs
    Vruntime, ///< µs
    Deadline, ///< µs
    Slice,    ///< the entity's slice, µs of real time
    Weight,   ///< load weight, unscaled (nice 0 = 1024)
    Share,    ///< the task's CPU time so far / elapsed time, %
    Runtime,  ///< the task's CPU time so far, ms
};
std::optional<Quantity> quantityFromName(const std::string& name);
const char* quantityName(Quantity q);
const char* quantityUnit(Quantity q);

struct Question
{
    enum class Kind { Pick, Eligible, Number };
    Kind kind = Kind::Pick;
    std::string prompt;
    int cpu = 0;             ///< Pick: the CPU whose pick is asked for
    std::string group = "/"; ///< Pick: the cfs_rq the pick starts at (descends to a task)
    std::string entity;      ///< Eligible / Number
    Quantity quantity = Quantity::Lag;
    std::string expectName;  ///< Pick: the author's answer (a test checks the model agrees)
    bool expectBool = false; ///< Eligible
    double expectNumber = 0; ///< Number, in quantityUnit()
    double tolerance = 0;    ///< Number: an answer this close to the model's is right
    /// "answer_step": the id of a later step whose state answers the question (the question's
    /// step stops before the event, the answer step after it). Empty: the question's own state
    /// (a pick is always decided on the question's own state; the answer step shows who ran).
    std::string answerStep;
    std::optional<size_t> answerIndex; ///< answerStep resolved by the loader
    std::string path;                  ///< JSON path, for messages
};

/// What the Inspector hides while a question is open (docs/lessons.md §5): the asked quantity
/// and the values it follows from directly. Columns: "weight", "v", "deadline", "lag", "vlag",
/// "key", "eligible"; picks: the PICKED marks, the cfs_rqs' "picks" and pick explanations.
struct Concealed
{
    bool picks = false;
    std::string entity; ///< the entity whose columns are hidden (name, "/group@cpu")
    std::vector<std::string> columns;
};
Concealed concealedBy(const Question& q);
/// The highlight and template keys ("lag:sleeper", "eligible:hog-1", "picked") that show a
/// question's answer or a value it follows from directly.
std::vector<std::string> revealingKeys(const Question& q);

struct Step
{
    std::string id;
    std::string title; ///< the first line of the Markdown section, without the ##
    std::string text;  ///< Markdown with {{templates}} (unrendered)
    RunTarget run;
    std::vector<std::string> focus;     ///< entities to select in the tree and plot
    std::vector<std::string> panes;     ///< "inspector", "timeline", "tree", "features", "log"
    std::vector<std::string> highlight; ///< "V", "lag:NAME", "deadline:NAME", "eligible:NAME"…
    std::optional<std::pair<Nanoseconds, Nanoseconds>> view; ///< visible timeline window
    std::optional<Question> question;
    std::string path; ///< JSON path of the step ("/steps/2")
};

struct Lesson
{
    std::string id;   ///< the file's base name ("03-deadlines")
    std::string file; ///< the lesson file as given
    std::string title;
    std::string summary;
    std::string intro;        ///< Markdown before the first step section
    std::string scenarioFile; ///< the scenario's file (resolved) or empty when inline
    Scenario scenario;
    std::vector<Step> steps;
};

struct LoadResult
{
    std::optional<Lesson> lesson;
    std::vector<std::string> errors; ///< "FILE: /json/path: what was expected"
    bool ok() const { return lesson.has_value(); }
};

/// Parses a lesson. @p fileName names it in messages; @p markdown is the text of its .md file
/// (nullopt: missing); scenario files are resolved against @p baseDir.
LoadResult parseLesson(const std::string& json, const std::string& fileName,
    const std::optional<std::string>& markdown, const std::string& baseDir);
/// The lesson file's name of an event kind ("switch", "place", …).
const char* lessonEventName(RecordKind kind);
/// Lower-case letters, digits and '-', 1 to 64 characters: a step id or a lesson file name.
bool validLessonId(const std::string& s);

/// A lesson in the documented format (docs/lessons.md §2): the JSON file's text (the scenario
/// inline unless it came from a file, then @p scenarioRef is written as given) and the Markdown
/// text, one "## id Title" section per step. parseLesson() of the two gives the lesson back.
struct LessonFiles
{
    std::string json;
    std::string markdown;
};
LessonFiles writeLesson(const Lesson& lesson, const std::string& scenarioRef = {});

/// Teachers write lessons in the app: a step captured from the sandbox's state: the
/// scenario runs to @p at, @p focus is selected, @p view is the timeline's window. The question
/// (optional) is about a quantity the inspector shows; its expected answer is filled in from
/// the model, never typed. nullopt and @p error when the model cannot answer it at that time.
std::optional<Step> captureStep(const Scenario& scenario, Nanoseconds at, const std::string& id,
    const std::string& title, const std::string& text, const std::vector<std::string>& focus,
    const std::optional<std::pair<Nanoseconds, Nanoseconds>>& view,
    const std::optional<Question>& question, std::string* error);
/// Writes DIR/NAME.json and DIR/NAME.md (NAME a valid lesson id; existing files are not
/// overwritten unless @p replace). False and @p error otherwise; nothing half-written.
bool saveLesson(const Lesson& lesson, const std::string& dir, const std::string& name, bool replace,
    std::string* error);

/// Reads @p path (NAME.json) and NAME.md next to it, then parseLesson().
LoadResult loadLesson(const std::string& path);
/// The lesson files (*.json) of @p dir, sorted by name (the course order).
std::vector<std::string> listLessons(const std::string& dir);

/// The run queues at a step's stop time.
struct Snapshot
{
    Nanoseconds at{0};
    Inspection inspection;
    std::vector<TaskView> tasks;
};

/// A model answer to a question, with the explanation that justifies it.
struct Answer
{
    std::string text;  ///< task name, "yes"/"no", or the number in the quantity's unit
    double number = 0; ///< Number questions
    bool flag = false; ///< Eligible questions
    std::vector<std::string> explanation;
};

struct Verdict
{
    bool correct = false;
    Answer model;
    std::string message; ///< "Right." / "Not quite: …"
};

/// Runs a lesson's scenario to its steps. Deterministic: the same lesson gives the same stop
/// times, snapshots and answers. Errors (a target never reached, an entity not in the run queues)
/// are returned as messages naming the lesson file and the step's JSON path.
class LessonRun
{
public:
    explicit LessonRun(const Lesson& lesson, const RunOptions& options = {});
    ~LessonRun();
    LessonRun(const LessonRun&) = delete;
    LessonRun& operator=(const LessonRun&) = delete;

    const Lesson& lesson() const { return m_lesson; }
    /// The stop time of step @p index (steps before it are resolved first), or nullopt and
    /// @p error.
    std::optional<Nanoseconds> stopTime(size_t index, std::string* error = nullptr);
    /// The state at step @p index's stop time (computed once, then cached).
    const Snapshot* snapshot(size_t index, std::string* error = nullptr);
    /// The step's Markdown with every {{template}} filled from the snapshot.
    std::optional<std::string> renderText(size_t index, std::string* error = nullptr);
    /// The highlighted quantities as "label = value" lines.
    std::vector<std::string> highlights(size_t index, std::string* error = nullptr);
    /// The model's answer to step @p index's question.
    std::optional<Answer> modelAnswer(size_t index, std::string* error = nullptr);
    /// Checks a student's @p answer (a name, yes/no, or a number in the quantity's unit).
    std::optional<Verdict> check(
        size_t index, const std::string& answer, std::string* error = nullptr);
    /// Every step resolved, rendered and every question's expected answer equal to the model's:
    /// the messages of what failed (empty: the lesson is consistent with the model).
    std::vector<std::string> validate();
    /// Where step @p index's question's answer shows before it is answered: a highlight or a
    /// template of a revealing key, or the model's number in the rendered text, the highlights
    /// or the prompt (in µs, ms or s). Empty: nothing on the panel gives it away.
    std::vector<std::string> answerShown(size_t index);

private:
    std::string where(size_t index) const;
    Lesson m_lesson;
    RunOptions m_options;
    std::unique_ptr<Simulation> m_scan; ///< the recording run that finds event targets
    size_t m_scanIndex = 0;             ///< first record not consumed by a previous target
    Nanoseconds m_consumedUntil{-1};    ///< events up to here are behind a time target
    std::vector<Nanoseconds> m_stops;
    std::vector<std::unique_ptr<Snapshot>> m_snapshots;
};

/// The value of @p q for @p entity ("name", "name@cpu", "/group@cpu") in @p snap, or nullopt
/// and @p error. @p cpu is the default CPU for V and for groups given without @cpu.
std::optional<double> quantityValue(
    const Snapshot& snap, Quantity q, const std::string& entity, int cpu, std::string* error);
/// Formats a quantity's value for text: "466.667 µs", "1024", "33.3 %".
std::string formatQuantity(Quantity q, double value);

} // namespace schedlab::lesson
