// SPDX-License-Identifier: GPL-2.0-or-later
// Writing lessons (docs/lessons.md §2, §8): the inverse of parseLesson(), and the step a teacher
// captures from the sandbox with its expected answer filled in by the model.
#include "core/base/atomicfile.h"
#include "core/lesson/lesson.h"
#include "core/scenario/scenarioio.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace schedlab::lesson {

namespace {

using nlohmann::ordered_json;

ordered_json target(const RunTarget& t)
{
    ordered_json o;
    if (t.kind == RunTarget::Kind::Time) {
        o["to"] = formatDuration(t.at);
        return o;
    }
    o["next"] = lessonEventName(t.event);
    if (!t.entity.empty())
        o["entity"] = t.entity;
    if (t.cpu)
        o["cpu"] = *t.cpu;
    if (t.after)
        o["after"] = formatDuration(*t.after);
    if (t.before)
        o["position"] = "before";
    return o;
}

ordered_json question(const Question& q)
{
    ordered_json o;
    switch (q.kind) {
    case Question::Kind::Pick:
        o["ask"] = "pick";
        o["prompt"] = q.prompt;
        o["cpu"] = q.cpu;
        if (q.group != "/")
            o["group"] = q.group;
        o["expect"] = q.expectName;
        break;
    case Question::Kind::Eligible:
        o["ask"] = "eligible";
        o["prompt"] = q.prompt;
        o["entity"] = q.entity;
        o["cpu"] = q.cpu;
        o["expect"] = q.expectBool;
        break;
    case Question::Kind::Number:
        o["ask"] = "number";
        o["prompt"] = q.prompt;
        o["entity"] = q.entity;
        o["cpu"] = q.cpu;
        o["quantity"] = quantityName(q.quantity);
        o["expect"] = q.expectNumber;
        o["tolerance"] = q.tolerance;
        break;
    }
    if (!q.answerStep.empty())
        o["answer_step"] = q.answerStep;
    return o;
}

} // namespace

LessonFiles writeLesson(const Lesson& lesson, const std::string& scenarioRef)
{
    ordered_json root;
    root["schedlab_lesson"] = 1;
    root["title"] = lesson.title;
    if (!lesson.summary.empty())
        root["summary"] = lesson.summary;
    if (!scenarioRef.empty())
        root["scenario"] = scenarioRef;
    else
        root["scenario"] = ordered_json::parse(writeScenario(lesson.scenario));
    ordered_json steps = ordered_json::array();
    for (const Step& s : lesson.steps) {
        ordered_json o;
        o["id"] = s.id;
        o["run"] = target(s.run);
        if (!s.focus.empty())
            o["focus"] = s.focus;
        if (!s.panes.empty())
            o["panes"] = s.panes;
        if (!s.highlight.empty())
            o["highlight"] = s.highlight;
        if (s.view)
            o["view"] = {formatDuration(s.view->first), formatDuration(s.view->second)};
        if (s.question)
            o["question"] = question(*s.question);
        steps.push_back(o);
    }
    root["steps"] = steps;
    LessonFiles out;
    out.json = root.dump(2) + "\n";
    out.markdown = lesson.intro;
    if (!out.markdown.empty() && out.markdown.back() != '\n')
        out.markdown += "\n";
    for (const Step& s : lesson.steps) {
        if (!out.markdown.empty())
            out.markdown += "\n";
        out.markdown += "## " + s.id + " " + s.title + "\n" + s.text;
        if (!s.text.empty() && s.text.back() != '\n')
            out.markdown += "\n";
    }
    return out;
}

std::optional<Step> captureStep(const Scenario& scenario, Nanoseconds at, const std::string& id,
    const std::string& title, const std::string& text, const std::vector<std::string>& focus,
    const std::optional<std::pair<Nanoseconds, Nanoseconds>>& view,
    const std::optional<Question>& question, std::string* error)
{
    auto fail = [&](const std::string& m) -> std::optional<Step> {
        if (error)
            *error = m;
        return std::nullopt;
    };
    if (!validLessonId(id))
        return fail("step id \"" + id + "\": expected lower-case letters, digits and '-'");
    if (title.empty())
        return fail("the step needs a title");
    Step step;
    step.id = id;
    step.title = title;
    step.text = text;
    step.run.kind = RunTarget::Kind::Time;
    step.run.at = at;
    step.focus = focus;
    step.view = view;
    step.panes = {"inspector", "timeline"};
    step.path = "/steps/0";
    if (question) {
        // The model answers at that time; its answer becomes the lesson's expected one.
        Lesson probe;
        probe.id = "draft";
        probe.file = "draft.json";
        probe.title = "draft";
        probe.scenario = scenario;
        Step s = step;
        s.question = question;
        s.question->answerStep.clear();
        s.question->answerIndex.reset();
        probe.steps.push_back(s);
        LessonRun run(probe);
        std::string why;
        const auto a = run.modelAnswer(0, &why);
        if (!a)
            return fail(why);
        Question q = *s.question;
        switch (q.kind) {
        case Question::Kind::Pick:
            q.expectName = a->text;
            break;
        case Question::Kind::Eligible:
            q.expectBool = a->flag;
            break;
        case Question::Kind::Number:
            q.expectNumber = a->number;
            break;
        }
        if (q.prompt.empty())
            return fail("the question needs a prompt");
        step.question = q;
    }
    return step;
}

bool saveLesson(const Lesson& lesson, const std::string& dir, const std::string& name, bool replace,
    std::string* error)
{
    auto fail = [&](const std::string& m) {
        if (error)
            *error = m;
        return false;
    };
    if (!validLessonId(name))
        return fail("lesson name \"" + name + "\": expected lower-case letters, digits and '-'");
    const std::filesystem::path base = std::filesystem::path(dir) / name;
    const std::string json = base.string() + ".json";
    const std::string md = base.string() + ".md";
    std::error_code ec;
    if (!replace && (std::filesystem::exists(json, ec) || std::filesystem::exists(md, ec)))
        return fail(json + " or " + md + " exists already");
    const LessonFiles files = writeLesson(lesson);
    // The written lesson must load and check as it is: a lesson that does not is not saved.
    LoadResult back = parseLesson(files.json, json, files.markdown, dir);
    if (!back.ok())
        return fail(back.errors.front());
    const auto problems = LessonRun(*back.lesson).validate();
    if (!problems.empty())
        return fail(problems.front());
    AtomicFile mdFile(md);
    mdFile.stream() << files.markdown;
    if (std::string e = mdFile.error().empty() ? mdFile.commit() : mdFile.error(); !e.empty())
        return fail(e);
    AtomicFile jsonFile(json);
    jsonFile.stream() << files.json;
    if (std::string e = jsonFile.error().empty() ? jsonFile.commit() : jsonFile.error(); !e.empty())
        return fail(e);
    return true;
}

} // namespace schedlab::lesson
