// SPDX-License-Identifier: GPL-2.0-or-later
// Reading and validating lesson files (docs/lessons.md §2). Messages have the scenario loader's
// form: "FILE: /json/path: what was expected (got …)".
#include "core/lesson/lesson.h"
#include "core/scenario/jsonreader.h"
#include "core/scenario/scenarioio.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace schedlab::lesson {

namespace {

using scenariojson::child;
using scenariojson::got;
using scenariojson::Json;
using scenariojson::JsonReader;

constexpr size_t kMaxSteps = 64;

struct EventName
{
    const char* name;
    RecordKind kind;
};
constexpr EventName kEvents[] = {
    {"switch", RecordKind::Switch},
    {"pick", RecordKind::Switch},
    {"wakeup", RecordKind::Wakeup},
    {"enqueue", RecordKind::Enqueue},
    {"dequeue", RecordKind::Dequeue},
    {"delay", RecordKind::Delay},
    {"place", RecordKind::Place},
    {"renew", RecordKind::DeadlineRenew},
    {"reweight", RecordKind::Reweight},
    {"migrate", RecordKind::Migrate},
    {"spawn", RecordKind::Spawn},
    {"exit", RecordKind::Exit},
    {"yield", RecordKind::Yield},
    {"throttle", RecordKind::Throttle},
    {"unthrottle", RecordKind::Unthrottle},
};

std::string eventNames()
{
    std::string out;
    for (const auto& e : kEvents)
        out += (out.empty() ? "" : ", ") + std::string(e.name);
    return out;
}

} // namespace

const char* lessonEventName(RecordKind kind)
{
    for (const auto& e : kEvents)
        if (e.kind == kind)
            return e.name;
    return "switch";
}

bool validLessonId(const std::string& s)
{
    return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

namespace {

bool validId(const std::string& s)
{
    return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

/// Splits the Markdown into the intro and `## id` sections (id = first word of the heading;
/// the rest of the heading is the step's title).
struct Sections
{
    std::string intro;
    std::vector<std::pair<std::string, std::pair<std::string, std::string>>> steps;
};

Sections splitMarkdown(const std::string& md)
{
    Sections out;
    std::istringstream in(md);
    std::string line;
    std::string* target = &out.intro;
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0) {
            std::string heading = line.substr(3);
            const size_t space = heading.find(' ');
            std::string id = heading.substr(0, space);
            std::string title = space == std::string::npos ? id : heading.substr(space + 1);
            out.steps.push_back({id, {title, std::string()}});
            target = &out.steps.back().second.second;
            continue;
        }
        *target += line;
        *target += '\n';
    }
    auto trim = [](std::string& s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
            s.pop_back();
        size_t i = 0;
        while (i < s.size() && s[i] == '\n')
            ++i;
        s.erase(0, i);
    };
    trim(out.intro);
    for (auto& s : out.steps)
        trim(s.second.second);
    return out;
}

class LessonReader : public JsonReader
{
public:
    LessonReader(const std::string& fileName, std::string baseDir)
        : JsonReader(fileName)
        , m_file(fileName)
        , m_base(std::move(baseDir))
    { }

    std::vector<std::string> errors()
    {
        auto r = m_diag.finish(Scenario{});
        return r.errors;
    }

    void readScenario(const Json& v, const std::string& path, Lesson& out)
    {
        ::schedlab::LoadResult r;
        if (v.is_string()) {
            const std::string rel = v.get<std::string>();
            const std::filesystem::path p = std::filesystem::path(m_base) / rel;
            out.scenarioFile = p.lexically_normal().string();
            r = loadScenarioFile(out.scenarioFile);
        } else if (v.is_object()) {
            r = parseScenario(scenariojson::dumpSafe(v), m_file + " " + path);
        } else {
            m_diag.error(path,
                "expected a scenario file name (relative to the lesson) or an "
                "inline scenario object"
                    + got(v));
            return;
        }
        for (const auto& e : r.errors)
            m_diag.error(path, e);
        if (r.scenario)
            out.scenario = std::move(*r.scenario);
    }

    std::optional<RunTarget> readRun(const Json& v, const std::string& path)
    {
        if (!expectObject(v, path, "a run target: { \"to\": TIME } or { \"next\": EVENT, … }"))
            return std::nullopt;
        checkKeys(v, path, {"to", "next", "entity", "cpu", "after", "position"});
        RunTarget t;
        if (v.contains("to") == v.contains("next")) {
            m_diag.error(path, "expected exactly one of \"to\" (a time) and \"next\" (an event)");
            return std::nullopt;
        }
        if (v.contains("to")) {
            for (const char* k : {"entity", "cpu", "after", "position"})
                if (v.contains(k))
                    m_diag.error(child(path, k), "only meaningful with \"next\"");
            auto at = duration(v["to"], child(path, "to"));
            if (!at)
                return std::nullopt;
            t.kind = RunTarget::Kind::Time;
            t.at = *at;
            return t;
        }
        t.kind = RunTarget::Kind::NextEvent;
        const Json& next = v["next"];
        bool found = false;
        if (next.is_string())
            for (const auto& e : kEvents)
                if (next.get<std::string>() == e.name) {
                    t.event = e.kind;
                    found = true;
                }
        if (!found) {
            m_diag.error(child(path, "next"), "expected one of: " + eventNames() + got(next));
            return std::nullopt;
        }
        if (v.contains("entity"))
            if (auto s = stringValue(v["entity"], child(path, "entity"), true))
                t.entity = *s;
        if (v.contains("cpu"))
            if (auto c = integer(v["cpu"], child(path, "cpu"), 0, 4095))
                t.cpu = static_cast<int>(*c);
        if (v.contains("after"))
            t.after = duration(v["after"], child(path, "after"));
        if (v.contains("position")) {
            const Json& p = v["position"];
            if (p == "before")
                t.before = true;
            else if (p != "after")
                m_diag.error(child(path, "position"), "expected \"before\" or \"after\"" + got(p));
        }
        return t;
    }

    std::optional<Question> readQuestion(const Json& v, const std::string& path)
    {
        if (!expectObject(v, path, "a question object"))
            return std::nullopt;
        Question q;
        q.path = path;
        const Json* ask = required(v, path, "ask", "\"pick\", \"eligible\" or \"number\"");
        if (!ask)
            return std::nullopt;
        if (*ask == "pick") {
            q.kind = Question::Kind::Pick;
            checkKeys(v, path, {"ask", "prompt", "cpu", "group", "expect", "answer_step"});
        } else if (*ask == "eligible") {
            q.kind = Question::Kind::Eligible;
            checkKeys(v, path, {"ask", "prompt", "entity", "cpu", "expect", "answer_step"});
        } else if (*ask == "number") {
            q.kind = Question::Kind::Number;
            checkKeys(v, path,
                {"ask", "prompt", "entity", "cpu", "quantity", "expect", "tolerance",
                    "answer_step"});
        } else {
            m_diag.error(
                child(path, "ask"), "expected \"pick\", \"eligible\" or \"number\"" + got(*ask));
            return std::nullopt;
        }
        if (const Json* p = required(v, path, "prompt", "the question's text"))
            if (auto s = stringValue(*p, child(path, "prompt"), true))
                q.prompt = *s;
        if (v.contains("cpu"))
            if (auto c = integer(v["cpu"], child(path, "cpu"), 0, 4095))
                q.cpu = static_cast<int>(*c);
        if (v.contains("answer_step"))
            if (auto s = stringValue(v["answer_step"], child(path, "answer_step"), true))
                q.answerStep = *s;
        const Json* expect = required(v, path, "expect", "the expected answer");
        switch (q.kind) {
        case Question::Kind::Pick:
            if (v.contains("group"))
                if (auto s = stringValue(v["group"], child(path, "group"), true))
                    q.group = *s;
            if (expect)
                if (auto s = stringValue(*expect, child(path, "expect"), true))
                    q.expectName = *s;
            break;
        case Question::Kind::Eligible:
            if (const Json* e = required(v, path, "entity", "the entity asked about"))
                if (auto s = stringValue(*e, child(path, "entity"), true))
                    q.entity = *s;
            if (expect)
                if (auto b = boolean(*expect, child(path, "expect")))
                    q.expectBool = *b;
            break;
        case Question::Kind::Number: {
            if (const Json* e = required(v, path, "entity", "the entity asked about"))
                if (auto s = stringValue(*e, child(path, "entity"), true))
                    q.entity = *s;
            if (const Json* qn = required(v, path, "quantity", "lag, vlag, V, …")) {
                auto parsed =
                    qn->is_string() ? quantityFromName(qn->get<std::string>()) : std::nullopt;
                if (!parsed)
                    m_diag.error(child(path, "quantity"),
                        "expected lag, vlag, V, vruntime, deadline, slice, weight, share or "
                        "runtime"
                            + got(*qn));
                else
                    q.quantity = *parsed;
            }
            if (expect) {
                if (expect->is_number())
                    q.expectNumber = expect->get<double>();
                else
                    m_diag.error(child(path, "expect"), "expected a number" + got(*expect));
            }
            if (const Json* tol = required(v, path, "tolerance", "a number ≥ 0")) {
                if (tol->is_number() && tol->get<double>() >= 0)
                    q.tolerance = tol->get<double>();
                else
                    m_diag.error(child(path, "tolerance"), "expected a number ≥ 0" + got(*tol));
            }
            break;
        }
        }
        return q;
    }

    std::vector<std::string> stringList(const Json& v, const std::string& path)
    {
        std::vector<std::string> out;
        if (!expectArray(v, path, "an array of strings"))
            return out;
        for (size_t i = 0; i < v.size(); ++i)
            if (auto s = stringValue(v[i], child(path, i), true))
                out.push_back(*s);
        return out;
    }

    void readStep(const Json& v, const std::string& path, Lesson& out)
    {
        if (!expectObject(v, path, "a step object"))
            return;
        checkKeys(v, path, {"id", "run", "focus", "panes", "highlight", "view", "question"});
        Step s;
        s.path = path;
        if (const Json* id = required(v, path, "id", "the step's id (its ## section in the .md)")) {
            if (id->is_string() && validId(id->get<std::string>()))
                s.id = id->get<std::string>();
            else
                m_diag.error(child(path, "id"),
                    "expected an id of lower-case letters, digits and '-'" + got(*id));
        }
        for (const Step& other : out.steps)
            if (!s.id.empty() && other.id == s.id)
                m_diag.error(child(path, "id"), "duplicate step id \"" + s.id + "\"");
        if (const Json* run = required(v, path, "run", "a run target"))
            if (auto t = readRun(*run, child(path, "run")))
                s.run = *t;
        if (v.contains("focus"))
            s.focus = stringList(v["focus"], child(path, "focus"));
        if (v.contains("panes")) {
            s.panes = stringList(v["panes"], child(path, "panes"));
            static const std::vector<std::string> known = {
                "inspector", "timeline", "tree", "features", "log", "findings"};
            for (size_t i = 0; i < s.panes.size(); ++i)
                if (std::find(known.begin(), known.end(), s.panes[i]) == known.end())
                    m_diag.error(child(child(path, "panes"), i),
                        "expected inspector, timeline, tree, features, log or findings (got \""
                            + s.panes[i] + "\")");
        }
        if (v.contains("highlight")) {
            s.highlight = stringList(v["highlight"], child(path, "highlight"));
            for (size_t i = 0; i < s.highlight.size(); ++i) {
                const std::string& h = s.highlight[i];
                const std::string name = h.substr(0, h.find(':'));
                if (name != "eligible" && name != "picked" && !quantityFromName(name))
                    m_diag.error(child(child(path, "highlight"), i),
                        "expected QUANTITY or QUANTITY:ENTITY (lag, vlag, V, vruntime, deadline, "
                        "slice, weight, share, runtime, eligible, picked) (got \""
                            + h + "\")");
            }
        }
        if (v.contains("view")) {
            const Json& w = v["view"];
            const std::string wp = child(path, "view");
            if (!w.is_array() || w.size() != 2) {
                m_diag.error(wp, "expected [FROM, TO] (two durations)" + got(w));
            } else {
                auto from = duration(w[0], child(wp, size_t{0}));
                auto to = duration(w[1], child(wp, size_t{1}));
                if (from && to && *to <= *from)
                    m_diag.error(wp, "expected FROM < TO");
                else if (from && to)
                    s.view = std::make_pair(*from, *to);
            }
        }
        if (v.contains("question"))
            s.question = readQuestion(v["question"], child(path, "question"));
        out.steps.push_back(std::move(s));
    }

private:
    std::string m_file;
    std::string m_base;
};

} // namespace

LoadResult parseLesson(const std::string& json, const std::string& fileName,
    const std::optional<std::string>& markdown, const std::string& baseDir)
{
    LessonReader r(fileName, baseDir);
    LoadResult out;
    const auto root = r.parse(json);
    Lesson lesson;
    lesson.file = fileName;
    lesson.id = std::filesystem::path(fileName).stem().string();
    if (root && r.expectObject(*root, "/", "a lesson object")) {
        const Json& v = *root;
        r.checkKeys(v, "/", {"schedlab_lesson", "title", "summary", "scenario", "steps"});
        if (const Json* version = r.required(v, "/", "schedlab_lesson", "the format version 1"))
            if (*version != 1)
                r.diag().error("/schedlab_lesson", "expected 1" + got(*version));
        if (const Json* t = r.required(v, "/", "title", "the lesson's title"))
            if (auto s = r.stringValue(*t, "/title", true))
                lesson.title = *s;
        if (v.contains("summary"))
            if (auto s = r.stringValue(v["summary"], "/summary", false))
                lesson.summary = *s;
        if (const Json* sc = r.required(v, "/", "scenario", "a scenario file or object"))
            r.readScenario(*sc, "/scenario", lesson);
        if (const Json* steps = r.required(v, "/", "steps", "an array of steps")) {
            if (r.expectArray(*steps, "/steps", "an array of steps")) {
                if (steps->empty() || steps->size() > kMaxSteps)
                    r.diag().error("/steps",
                        "expected 1 to " + std::to_string(kMaxSteps) + " steps (got "
                            + std::to_string(steps->size()) + ")");
                else
                    for (size_t i = 0; i < steps->size(); ++i)
                        r.readStep((*steps)[i], child("/steps", i), lesson);
            }
        }
        // The text: one `## id` section per step in the Markdown file.
        const std::string mdName =
            (std::filesystem::path(fileName).replace_extension(".md")).string();
        if (!markdown) {
            r.diag().raw("missing its text " + mdName + " (one \"## step-id\" section per step)");
        } else {
            Sections sec = splitMarkdown(*markdown);
            lesson.intro = sec.intro;
            for (size_t i = 0; i < lesson.steps.size(); ++i) {
                Step& s = lesson.steps[i];
                auto it = std::find_if(sec.steps.begin(), sec.steps.end(),
                    [&](const auto& p) { return p.first == s.id; });
                if (it == sec.steps.end()) {
                    if (!s.id.empty())
                        r.diag().error(
                            child(s.path, "id"), "no section \"## " + s.id + "\" in " + mdName);
                    continue;
                }
                s.title = it->second.first;
                s.text = it->second.second;
            }
            for (const auto& section : sec.steps) {
                const std::string& id = section.first;
                if (std::none_of(lesson.steps.begin(), lesson.steps.end(),
                        [&](const Step& s) { return s.id == id; }))
                    r.diag().raw(mdName + ": section \"## " + id + "\" belongs to no step");
            }
        }
        // A question's answer step is a later step of the lesson.
        for (size_t i = 0; i < lesson.steps.size(); ++i) {
            auto& q = lesson.steps[i].question;
            if (!q || q->answerStep.empty())
                continue;
            for (size_t j = i + 1; j < lesson.steps.size(); ++j)
                if (lesson.steps[j].id == q->answerStep)
                    q->answerIndex = j;
            if (!q->answerIndex)
                r.diag().error(child(q->path, "answer_step"),
                    "expected the id of a later step (got \"" + q->answerStep + "\")");
        }
        // Time targets never go back.
        Nanoseconds last{0};
        for (const Step& s : lesson.steps) {
            if (s.run.kind != RunTarget::Kind::Time)
                continue;
            if (s.run.at < last)
                r.diag().error(child(s.path, "run") + "/to",
                    "a step cannot run backwards (an earlier step stops at " + formatDuration(last)
                        + ")");
            last = s.run.at;
        }
    }
    out.errors = r.errors();
    if (out.errors.empty())
        out.lesson = std::move(lesson);
    return out;
}

namespace {
std::optional<std::string> readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
} // namespace

LoadResult loadLesson(const std::string& path)
{
    const auto json = readText(path);
    if (!json || std::filesystem::is_directory(path)) {
        LoadResult r;
        r.errors.push_back(path + ": cannot read the lesson file");
        return r;
    }
    const std::filesystem::path p(path);
    const auto md = readText(std::filesystem::path(p).replace_extension(".md").string());
    return parseLesson(*json, path, md, p.parent_path().string());
}

std::vector<std::string> listLessons(const std::string& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".json")
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace schedlab::lesson
