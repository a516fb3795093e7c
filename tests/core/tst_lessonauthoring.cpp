// SPDX-License-Identifier: GPL-2.0-or-later
// Teachers write lessons (core/lesson/lesson.h: writeLesson, captureStep, saveLesson):
// every shipped lesson written back in the documented format parses to the same lesson, and a
// lesson captured from a sandbox state (scenario, time, selection, view, a question whose answer
// the model fills in) is saved, loads, runs to its steps and checks its answers.
#include "core/lesson/lesson.h"
#include "core/scenario/scenarioio.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace schedlab;
using namespace schedlab::lesson;

namespace {

const std::string kDir = std::string(SCHEDLAB_SOURCE_DIR) + "/lessons";

std::string trim(const std::string& s)
{
    const size_t b = s.find_first_not_of(" \n");
    return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \n") - b + 1);
}

} // namespace

class TestLessonAuthoring : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shippedLessonsRoundTrip_data();
    void shippedLessonsRoundTrip();
    void captureSaveLoadCheck();
    void badCapturesAreRefused();
};

void TestLessonAuthoring::shippedLessonsRoundTrip_data()
{
    QTest::addColumn<QString>("path");
    for (const std::string& p : listLessons(kDir))
        QTest::newRow(p.substr(p.rfind('/') + 1).c_str()) << QString::fromStdString(p);
}

void TestLessonAuthoring::shippedLessonsRoundTrip()
{
    QFETCH(QString, path);
    const Lesson l = *loadLesson(path.toStdString()).lesson;
    const LessonFiles f = writeLesson(l, l.scenarioFile);
    const lesson::LoadResult back = parseLesson(f.json, "back.json", f.markdown, kDir);
    for (const auto& e : back.errors)
        qWarning("%s", e.c_str());
    QVERIFY(back.ok());
    const Lesson& b = *back.lesson;
    QCOMPARE(b.title, l.title);
    QCOMPARE(b.summary, l.summary);
    QCOMPARE(trim(b.intro), trim(l.intro));
    QCOMPARE(b.steps.size(), l.steps.size());
    for (size_t i = 0; i < l.steps.size(); ++i) {
        const Step& x = l.steps[i];
        const Step& y = b.steps[i];
        QCOMPARE(y.id, x.id);
        QCOMPARE(y.title, x.title);
        QCOMPARE(trim(y.text), trim(x.text));
        QCOMPARE(int(y.run.kind), int(x.run.kind));
        QCOMPARE(y.run.at, x.run.at);
        QCOMPARE(int(y.run.event), int(x.run.event));
        QCOMPARE(y.run.entity, x.run.entity);
        QCOMPARE(y.run.cpu, x.run.cpu);
        QCOMPARE(y.run.after, x.run.after);
        QCOMPARE(y.run.before, x.run.before);
        QCOMPARE(y.focus, x.focus);
        QCOMPARE(y.panes, x.panes);
        QCOMPARE(y.highlight, x.highlight);
        QCOMPARE(y.view, x.view);
        QCOMPARE(y.question.has_value(), x.question.has_value());
        if (x.question) {
            QCOMPARE(int(y.question->kind), int(x.question->kind));
            QCOMPARE(y.question->prompt, x.question->prompt);
            QCOMPARE(y.question->entity, x.question->entity);
            QCOMPARE(y.question->expectName, x.question->expectName);
            QCOMPARE(y.question->expectBool, x.question->expectBool);
            QCOMPARE(y.question->expectNumber, x.question->expectNumber);
            QCOMPARE(y.question->tolerance, x.question->tolerance);
            QCOMPARE(y.question->answerIndex, x.question->answerIndex);
        }
    }
    // The scenario of an inline lesson is written inline and reads back the same.
    if (l.scenarioFile.empty())
        QCOMPARE(writeScenario(b.scenario), writeScenario(l.scenario));
}

void TestLessonAuthoring::captureSaveLoadCheck()
{
    // The sandbox: scenarios/sleeper-lag.json. Two hogs and a sleeper that runs 0.3 ms and
    // sleeps 5 ms on one CPU; lesson 4 shows its placement at 7.3 ms.
    const auto sc =
        loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/sleeper-lag.json");
    QVERIFY(sc.ok());
    // Step 1: the teacher stops at 7.3 ms with sleeper selected and asks for its lag. The
    // expected answer is the model's: after the placement the lag is the saved vlag
    // (kernel-model.md §4.2), 466.666 µs as lesson 4 derives.
    Question lag;
    lag.kind = Question::Kind::Number;
    lag.prompt = "What is sleeper's lag V − v (µs)?";
    lag.entity = "sleeper";
    lag.quantity = Quantity::Lag;
    lag.tolerance = 5;
    std::string error;
    auto s1 = captureStep(*sc.scenario, Nanoseconds{7'300'000}, "placed", "After the wakeup",
        "sleeper was just placed.", {"sleeper"},
        std::make_pair(Nanoseconds{0}, Nanoseconds{10'000'000}), lag, &error);
    QVERIFY2(s1, error.c_str());
    QVERIFY(std::fabs(s1->question->expectNumber - 466.666) < 0.01);
    // Step 2: at 7.299999 ms, just before the placement, which task does CPU 0 pick? hog-1 or
    // hog-2 runs; the model fills the answer in.
    Question pick;
    pick.kind = Question::Kind::Pick;
    pick.prompt = "Which task does CPU 0 pick?";
    auto s0 = captureStep(*sc.scenario, Nanoseconds{7'299'999}, "before", "Before the wakeup",
        "Two hogs run; sleeper sleeps.", {"hog-1", "hog-2"}, std::nullopt, pick, &error);
    QVERIFY2(s0, error.c_str());
    QVERIFY(s0->question->expectName == "hog-1" || s0->question->expectName == "hog-2");

    Lesson made;
    made.title = "A teacher's lesson";
    made.summary = "Made with Lessons > New step.";
    made.intro = "Written in the app.";
    made.scenario = *sc.scenario;
    made.steps = {*s0, *s1};
    QTemporaryDir dir;
    // With sleeper in the focus the timeline would plot its lag up to 7.3 ms: the answer on
    // screen. Saving refuses such a lesson, with the reason (docs/lessons.md §5).
    QVERIFY(!saveLesson(made, dir.path().toStdString(), "15-teacher", false, &error));
    QVERIFY2(error.find("/steps/1: focus: the timeline plots sleeper") != std::string::npos,
        error.c_str());
    QVERIFY(listLessons(dir.path().toStdString()).empty()); // nothing half-written
    made.steps[1].focus = {"hog-1", "hog-2"};
    error.clear();
    QVERIFY2(
        saveLesson(made, dir.path().toStdString(), "15-teacher", false, &error), error.c_str());
    QVERIFY2(error.empty(), error.c_str());
    // Not overwritten unless asked.
    QVERIFY(!saveLesson(made, dir.path().toStdString(), "15-teacher", false, &error));
    QVERIFY(error.find("exists already") != std::string::npos);

    // It opens in Help > Lessons: listed, loads, every step reached, the answers checked.
    const auto listed = listLessons(dir.path().toStdString());
    QCOMPARE(listed.size(), size_t{1});
    const lesson::LoadResult r = loadLesson(listed.front());
    QVERIFY(r.ok());
    QCOMPARE(r.lesson->steps.size(), size_t{2});
    LessonRun run(*r.lesson);
    QVERIFY(run.validate().empty());
    QCOMPARE(*run.stopTime(1), Nanoseconds{7'300'000});
    QVERIFY(run.check(1, "466.666")->correct);
    QVERIFY(!run.check(1, "-466.666")->correct);
    QVERIFY(run.check(0, s0->question->expectName)->correct);
    QVERIFY(!run.check(0, "sleeper")->correct);
}

void TestLessonAuthoring::badCapturesAreRefused()
{
    const auto sc =
        loadScenarioFile(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/sleeper-lag.json");
    QVERIFY(sc.ok());
    std::string error;
    QVERIFY(!captureStep(
        *sc.scenario, Nanoseconds{1}, "Bad Id", "t", "", {}, std::nullopt, std::nullopt, &error));
    QVERIFY(error.find("step id") != std::string::npos);
    // A question the model cannot answer at that time (nobody is called so).
    Question q;
    q.kind = Question::Kind::Eligible;
    q.prompt = "?";
    q.entity = "nobody";
    QVERIFY(!captureStep(
        *sc.scenario, Nanoseconds{1'000'000}, "x", "t", "", {}, std::nullopt, q, &error));
    QVERIFY(error.find("nobody") != std::string::npos);
    Lesson empty;
    empty.title = "t";
    empty.scenario = *sc.scenario;
    QVERIFY(!saveLesson(empty, "/nonexistent-dir", "Bad Name", false, &error));
    QVERIFY(error.find("lesson name") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestLessonAuthoring)
#include "tst_lessonauthoring.moc"
