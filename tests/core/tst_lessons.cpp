// SPDX-License-Identifier: GPL-2.0-or-later
// The lessons (docs/lessons.md) and their model layer (core/lesson/lesson.h): every shipped
// lesson loads, every step's run target is reached, every text template is filled and every
// question's expected answer equals the model's; a changed scenario makes a lesson's check fail;
// bad lesson files give messages with the file and the JSON path.
#include "core/lesson/lesson.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

using namespace schedlab;
using namespace schedlab::lesson;

namespace {

const std::string kDir = std::string(SCHEDLAB_SOURCE_DIR) + "/lessons";

Lesson load(const std::string& id)
{
    auto r = loadLesson(kDir + "/" + id + ".json");
    if (!r.ok()) {
        for (const auto& e : r.errors)
            qWarning("%s", e.c_str());
        throw std::runtime_error("lesson does not load: " + id);
    }
    return *r.lesson;
}

size_t stepIndex(const Lesson& l, const std::string& id)
{
    for (size_t i = 0; i < l.steps.size(); ++i)
        if (l.steps[i].id == id)
            return i;
    throw std::runtime_error("no step " + id);
}

bool anyContains(const std::vector<std::string>& lines, const std::string& part)
{
    return std::any_of(lines.begin(), lines.end(),
        [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

/// A minimal lesson around an inline one-CPU scenario, for the loader's messages.
std::string lessonJson(const std::string& steps)
{
    return R"({ "schedlab_lesson": 1, "title": "t", "scenario": { "schedlab": 1, "name": "x",
      "duration": "100ms", "machine": { "cpus": 1 },
      "tasks": [ { "name": "a", "program": [ { "run": "forever" } ] },
                 { "name": "b", "program": [ { "run": "forever" } ] } ] },
      "steps": )"
        + steps + " }";
}

} // namespace

class TestLessons : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shippedLessons_data();
    void shippedLessons();
    void courseCoversTheIssue();
    void changedScenarioFailsTheCheck();
    void placementKeepsTheLag();
    void predictedPickIsWhatRuns();
    void answersAreChecked();
    void badLessonsAreReported();
    void templateErrorsNameTheStep();
    void questionsAskBeforeTheyShow_data();
    void questionsAskBeforeTheyShow();
    void hiddenAnswerCheckCatchesLeaks();
    void tolerancesRespectSignAndScale();
    void answerStepMustBeLater();
};

void TestLessons::shippedLessons_data()
{
    QTest::addColumn<QString>("path");
    for (const std::string& p : listLessons(kDir))
        QTest::newRow(p.substr(p.rfind('/') + 1).c_str()) << QString::fromStdString(p);
}

void TestLessons::shippedLessons()
{
    QFETCH(QString, path);
    auto r = loadLesson(path.toStdString());
    for (const auto& e : r.errors)
        qWarning("%s", e.c_str());
    QVERIFY(r.ok());
    QVERIFY(!r.lesson->steps.empty());
    LessonRun run(*r.lesson);
    // validate(): every stop reached, every template and highlight filled, every focus entity
    // known, every question's expected answer equal to the model's.
    const auto problems = run.validate();
    for (const auto& p : problems)
        qWarning("%s", p.c_str());
    QVERIFY(problems.empty());
    Nanoseconds previous{0};
    for (size_t i = 0; i < r.lesson->steps.size(); ++i) {
        const auto stop = run.stopTime(i);
        QVERIFY(stop.has_value());
        QVERIFY(*stop >= previous); // a lesson never runs backwards
        previous = *stop;
        const auto text = run.renderText(i);
        QVERIFY(text.has_value());
        QVERIFY(text->find("{{") == std::string::npos);
        QVERIFY(!r.lesson->steps[i].title.empty());
    }
}

void TestLessons::courseCoversTheIssue()
{
    // Issue 22's course: at least eight lessons, the four bugs among them, each bound to the
    // scenario of the report.
    const auto files = listLessons(kDir);
    QVERIFY(files.size() >= 14); // flat run queue, load balancer, a real trace
    // Lesson 14's shipped trace is the one tst_importcli checks by hand (hog-1 [0, 4), hog-2
    // [4, 8), hog-3 [8, 12) ms): the same bytes.
    auto slurp = [](const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string shipped = slurp(kDir + "/traces/equal-hogs-real.txt");
    QVERIFY(!shipped.empty());
    QCOMPARE(shipped,
        slurp(std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/ftrace/equal-hogs-real.txt"));
    int questions = 0;
    std::vector<std::string> scenarios;
    for (const auto& f : files) {
        const Lesson l = *loadLesson(f).lesson;
        scenarios.push_back(l.scenarioFile);
        for (const auto& s : l.steps)
            questions += s.question ? 1 : 0;
    }
    QVERIFY(questions >= static_cast<int>(files.size()));
    for (const char* bug : {"cgroup-weight-starvation.json", "core-sched-yield.json",
             "throttle-priority-inversion.json", "rt-group-constraints.json"})
        QVERIFY2(std::any_of(scenarios.begin(), scenarios.end(),
                     [&](const std::string& s) { return s.ends_with(bug); }),
            bug);
}

void TestLessons::changedScenarioFailsTheCheck()
{
    // Lesson 1 asks for light's share: w_light / (w_heavy + w_light) = 335 / 1359 = 24.65 %.
    // Make light nice 0 as well: the share becomes 1024 / 2048 = 50 %, and the lesson's
    // expected answer no longer holds.
    Lesson l = load("01-virtual-time");
    QVERIFY(LessonRun(l).validate().empty());
    auto light = std::find_if(l.scenario.tasks.begin(), l.scenario.tasks.end(),
        [](const TaskSpec& t) { return t.name == "light"; });
    QVERIFY(light != l.scenario.tasks.end());
    light->nice = 0;
    LessonRun changed(l);
    const auto problems = changed.validate();
    QVERIFY(anyContains(problems, "/steps/0: question/expect"));
    const auto share = changed.modelAnswer(stepIndex(l, "start"));
    QVERIFY(share);
    QVERIFY(std::fabs(share->number - 50.0) < 1.5);

    // Lesson 7: /B's entity on CPU 0 weighs about 3072 / 2 = 1536 (cpu.weight 300, load on two
    // CPUs). With cpu.weight 100 it weighs about 512, and the lesson must notice.
    Lesson g = load("07-cgroup-shares");
    for (auto& c : g.scenario.cgroups)
        if (c.path == "/B")
            c.files.weight = 100;
    QVERIFY(anyContains(LessonRun(g).validate(), "/steps/0: question/expect"));
}

void TestLessons::placementKeepsTheLag()
{
    // kernel-model.md §4.2: place_entity() inflates the saved vlag by (W + w) / W so that after
    // the enqueue the entity's lag V' − v is the vlag it saved when it slept. Lesson 4 stops when
    // sleeper dequeues and again when it is placed: the two must agree (to rounding, 10 ns).
    const Lesson l = load("04-sleep-placement");
    LessonRun run(l);
    const Snapshot* asleep = run.snapshot(stepIndex(l, "asleep"));
    const Snapshot* placed = run.snapshot(stepIndex(l, "wakeup"));
    QVERIFY(asleep && placed);
    std::string error;
    const auto saved = quantityValue(*asleep, Quantity::Vlag, "sleeper", 0, &error);
    const auto after = quantityValue(*placed, Quantity::Lag, "sleeper", 0, &error);
    QVERIFY2(saved && after, error.c_str());
    QVERIFY(*saved > 0); // a light sleeper is owed service
    QVERIFY2(std::fabs(*saved - *after) <= 0.01,
        (std::to_string(*saved) + " vs " + std::to_string(*after)).c_str());
    // Without PLACE_LAG (the scenario's action at 10 s) the wakeup lands at V: lag 0.
    const auto off = run.modelAnswer(stepIndex(l, "before-no-place-lag"));
    QVERIFY(off);
    QVERIFY(std::fabs(off->number) <= 0.01);
}

void TestLessons::predictedPickIsWhatRuns()
{
    // Lesson 3 stops 1 ns before a switch and asks for the pick; the next step stops at that
    // switch. The pick explanation (the inspector's) must name the task the scheduler switched
    // to.
    const Lesson l = load("03-deadlines-pick");
    LessonRun run(l);
    const auto predicted = run.modelAnswer(stepIndex(l, "predict"));
    const Snapshot* outcome = run.snapshot(stepIndex(l, "outcome"));
    QVERIFY(predicted && outcome);
    QCOMPARE(outcome->inspection.cpus.at(0).running, predicted->text);
    QCOMPARE(*run.stopTime(stepIndex(l, "outcome")),
        *run.stopTime(stepIndex(l, "predict")) + Nanoseconds{1});
    QVERIFY(!predicted->explanation.empty());
}

void TestLessons::answersAreChecked()
{
    const Lesson l = load("03-deadlines-pick");
    LessonRun run(l);
    const size_t predict = stepIndex(l, "predict");
    const auto model = run.modelAnswer(predict);
    QVERIFY(model);
    auto right = run.check(predict, model->text);
    QVERIFY(right && right->correct);
    auto wrong = run.check(predict, "quick-nonexistent");
    QVERIFY(wrong && !wrong->correct);
    QVERIFY(wrong->message.find(model->text) != std::string::npos); // says what the pick is
    QVERIFY(!wrong->model.explanation.empty());

    // Numbers: right within the tolerance, wrong outside it.
    const Lesson v = load("01-virtual-time");
    LessonRun vr(v);
    const size_t share = stepIndex(v, "start");
    const auto m = vr.modelAnswer(share);
    QVERIFY(m);
    const double tol = v.steps[share].question->tolerance;
    QVERIFY(vr.check(share, std::to_string(m->number + tol * 0.9))->correct);
    QVERIFY(!vr.check(share, std::to_string(m->number + tol * 1.1))->correct);
    QVERIFY(!vr.check(share, "lots")->correct);

    // Yes/no.
    const Lesson e = load("02-lag-eligibility");
    LessonRun er(e);
    const size_t just = stepIndex(e, "about-to-switch");
    const auto flag = er.modelAnswer(just);
    QVERIFY(flag);
    QCOMPARE(er.check(just, flag->flag ? "yes" : "no")->correct, true);
    QCOMPARE(er.check(just, flag->flag ? "no" : "yes")->correct, false);
}

void TestLessons::badLessonsAreReported()
{
    const std::string md = "## one One\ntext\n";
    auto r = parseLesson(
        lessonJson(R"([ { "id": "one", "run": { "next": "bogus" } } ])"), "bad.json", md, ".");
    QVERIFY(!r.ok());
    QVERIFY(anyContains(r.errors, "bad.json: /steps/0/run/next: expected one of"));

    r = parseLesson(
        lessonJson(R"([ { "id": "two", "run": { "to": "1ms" } } ])"), "bad.json", md, ".");
    QVERIFY(anyContains(r.errors, "bad.json: /steps/0/id: no section \"## two\""));
    QVERIFY(anyContains(r.errors, "section \"## one\" belongs to no step"));

    r = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "5ms" } },
        { "id": "two", "run": { "to": "1ms" } } ])"),
        "bad.json", md + "## two Two\n", ".");
    QVERIFY(anyContains(r.errors, "bad.json: /steps/1/run/to: a step cannot run backwards"));

    r = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "1ms" },
        "question": { "ask": "number", "prompt": "?", "entity": "a", "quantity": "lagg",
                      "expect": 1, "tolerance": -1 } } ])"),
        "bad.json", md, ".");
    QVERIFY(anyContains(r.errors, "bad.json: /steps/0/question/quantity: expected lag"));
    QVERIFY(anyContains(r.errors, "bad.json: /steps/0/question/tolerance: expected a number"));

    r = parseLesson("{ \"schedlab_lesson\": 1, ", "broken.json", md, ".");
    QVERIFY(!r.ok());
    QVERIFY(anyContains(r.errors, "broken.json"));

    r = parseLesson(R"({ "schedlab_lesson": 1, "title": "t", "scenario": "missing.json",
        "steps": [ { "id": "one", "run": { "to": "1ms" } } ] })",
        "bad.json", md, "/nonexistent");
    QVERIFY(anyContains(r.errors, "bad.json: /scenario: "));

    r = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "1ms" } } ])"), "nomd.json",
        std::nullopt, ".");
    QVERIFY(anyContains(r.errors, "missing its text"));

    // A target beyond the run is found when the lesson runs.
    r = parseLesson(
        lessonJson(R"([ { "id": "one", "run": { "next": "exit" } } ])"), "late.json", md, ".");
    QVERIFY(r.ok());
    LessonRun run(*r.lesson);
    std::string error;
    QVERIFY(!run.stopTime(0, &error));
    QVERIFY(error.find("late.json: /steps/0: run: no such event") != std::string::npos);
}

void TestLessons::templateErrorsNameTheStep()
{
    auto r = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "10ms" } } ])"), "t.json",
        std::string("## one One\nV is {{V}}, a's lag {{lag:nobody}}\n"), ".");
    QVERIFY(r.ok());
    LessonRun run(*r.lesson);
    std::string error;
    QVERIFY(!run.renderText(0, &error));
    QVERIFY(error.find("t.json: /steps/0: text: {{lag:nobody}}") != std::string::npos);
    // Two equal hogs on one CPU at 10 ms: each has run about 5 ms (shares 50 %, within a tick).
    auto ok = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "10ms" } } ])"), "t.json",
        std::string("## one One\nshare {{share:a}}\n"), ".");
    LessonRun okRun(*ok.lesson);
    const auto share = quantityValue(*okRun.snapshot(0), Quantity::Share, "a", 0, &error);
    QVERIFY(share && std::fabs(*share - 50.0) <= 10.0);
}

void TestLessons::questionsAskBeforeTheyShow_data()
{
    shippedLessons_data();
}

void TestLessons::questionsAskBeforeTheyShow()
{
    // Every step of every lesson, walked in order. At a question's step nothing the
    // panel shows (text, highlights, prompt) gives the answer away, the Inspector hides what
    // concealedBy() names, and a question answered by a later step is asked on a state where
    // the asked value is not the answer yet where the timeline plots it (answerShown()).
    QFETCH(QString, path);
    const Lesson l = *loadLesson(path.toStdString()).lesson;
    LessonRun run(l);
    for (size_t i = 0; i < l.steps.size(); ++i) {
        QVERIFY(run.renderText(i));
        const Step& s = l.steps[i];
        if (!s.question)
            continue;
        const auto shown = run.answerShown(i);
        for (const auto& m : shown)
            qWarning("%s", m.c_str());
        QVERIFY(shown.empty());
        const Question& q = *s.question;
        const Concealed c = concealedBy(q);
        const auto model = run.modelAnswer(i);
        QVERIFY(model);
        if (q.kind == Question::Kind::Pick) {
            QVERIFY(c.picks);
        } else if (q.quantity != Quantity::Share && q.quantity != Quantity::Runtime) {
            QVERIFY(!c.columns.empty());
        }
        if (q.answerIndex)
            QVERIFY(*run.stopTime(*q.answerIndex) >= *run.stopTime(i));
    }
}

void TestLessons::hiddenAnswerCheckCatchesLeaks()
{
    // The check must fail where the issue found leaks: lesson 4's old step highlighted
    // lag(sleeper) = 466.666 µs and asked for it. Two hogs and a sleeper: after placement the
    // sleeper's lag is the vlag it saved (kernel-model.md §4.2), so the number is on screen.
    Lesson l = load("04-sleep-placement");
    const size_t ask = stepIndex(l, "before-wakeup");
    l.steps[ask].highlight.push_back("lag:sleeper"); // not queued before the wakeup: an error
    l.steps[ask].question->answerIndex.reset();      // ask on the placed state instead
    l.steps[ask].run = l.steps[stepIndex(l, "wakeup")].run;
    l.steps[ask].question->quantity = Quantity::Lag;
    l.steps[ask].question->expectNumber = 466.666;
    l.steps[ask].question->tolerance = 1;
    LessonRun run(l);
    const auto shown = run.answerShown(ask);
    QVERIFY(anyContains(shown, "highlight: \"lag:sleeper\" shows the answer"));
    // The vlag highlight shows the same number (466.666 µs): found by value.
    QVERIFY(anyContains(shown, "shows as \"466.666\""));
    // Lesson 7: the weight of /B@0 (3072 / 2 = 1536) in the text is found by value too.
    Lesson g = load("07-cgroup-shares");
    g.steps[0].text += "\n{{weight:/B@1}}";
    LessonRun gr(g);
    QVERIFY(anyContains(gr.answerShown(0), "shows as \"1536\""));
}

void TestLessons::tolerancesRespectSignAndScale()
{
    // Lesson 8 asks root-spin's lag after a reweight: about −2.49 ms (the group entity's lag
    // times its weight over root-spin's: 241.179 µs · 10554 / 1024 = 2485.75 µs, negative since
    // the weighted lags sum to zero). +1.5 ms is wrong whatever the tolerance; −2.3 ms is right.
    const Lesson l = load("08-bug-cgroup-weight");
    LessonRun run(l);
    const size_t ask = stepIndex(l, "before-reweight");
    const auto model = run.modelAnswer(ask);
    QVERIFY(model);
    QVERIFY(std::fabs(model->number - (-241.179 * 10554 / 1024)) < 1.0);
    QVERIFY(!run.check(ask, "1500")->correct);
    QVERIFY(!run.check(ask, "2485.752")->correct); // the right size, the wrong side of V
    QVERIFY(run.check(ask, "-2300")->correct);
    QVERIFY(run.check(ask, "−2300").has_value()); // a Unicode minus is not a crash
    // A tolerance wider than a quarter of the answer is a lesson error.
    Lesson wide = l;
    wide.steps[ask].question->tolerance = 4000;
    QVERIFY(anyContains(LessonRun(wide).validate(), "/steps/1: question/tolerance"));
}

void TestLessons::answerStepMustBeLater()
{
    const std::string md = "## one One\ntext\n## two Two\ntext\n";
    auto r = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "1ms" } },
        { "id": "two", "run": { "to": "2ms" },
          "question": { "ask": "pick", "prompt": "?", "expect": "a", "answer_step": "one" } } ])"),
        "bad.json", md, ".");
    QVERIFY(anyContains(r.errors,
        "bad.json: /steps/1/question/answer_step: expected the id of a "
        "later step (got \"one\")"));
    // A pick answered by a later step: what runs there, here a (two equal hogs, a first).
    r = parseLesson(lessonJson(R"([ { "id": "one", "run": { "to": "1ms" },
          "question": { "ask": "pick", "prompt": "?", "expect": "a", "answer_step": "two" } },
        { "id": "two", "run": { "to": "2ms" } } ])"),
        "ok.json", md, ".");
    QVERIFY(r.ok());
    QVERIFY(r.lesson->steps[0].question->answerIndex == size_t{1});
}

QTEST_APPLESS_MAIN(TestLessons)
#include "tst_lessons.moc"
