// SPDX-License-Identifier: GPL-2.0-or-later
// Running a lesson (docs/lessons.md §3-§4): stop times, snapshots, text templates and questions,
// all answered by the simulation and the core's pick explanation (core/fair/pickexplain.h, as the
// inspector shows it). Floating point only formats numbers for people; the model's values are the
// integers of the inspection.
#include "core/fair/weights.h"
#include "core/lesson/lesson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace schedlab::lesson {

namespace {

struct QuantityName
{
    const char* name;
    Quantity q;
    const char* unit;
};
constexpr QuantityName kQuantities[] = {
    {"lag", Quantity::Lag, "µs"},
    {"vlag", Quantity::Vlag, "µs"},
    {"V", Quantity::V, "µs"},
    {"vruntime", Quantity::Vruntime, "µs"},
    {"deadline", Quantity::Deadline, "µs"},
    {"slice", Quantity::Slice, "µs"},
    {"weight", Quantity::Weight, ""},
    {"share", Quantity::Share, "%"},
    {"runtime", Quantity::Runtime, "ms"},
};

std::string fmt(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    if (s == "-0")
        s = "0";
    return s;
}

/// "name@3" → ("name", 3); "name" → ("name", nullopt).
std::pair<std::string, std::optional<int>> splitCpu(const std::string& s)
{
    const size_t at = s.rfind('@');
    if (at == std::string::npos || at + 1 >= s.size())
        return {s, std::nullopt};
    const std::string digits = s.substr(at + 1);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })
        || digits.size() > 4)
        return {s, std::nullopt};
    return {s.substr(0, at), std::stoi(digits)};
}

struct Found
{
    const CfsRqInspection* rq = nullptr;
    const EntityInspection* e = nullptr;
};

/// A queued entity: a task anywhere, a group entity on its CPU (default @p cpu).
Found findEntity(const Snapshot& snap, const std::string& spec, int cpu)
{
    auto [name, at] = splitCpu(spec);
    const bool group = !name.empty() && name.front() == '/';
    for (const CpuInspection& c : snap.inspection.cpus) {
        if (at && c.cpu != *at)
            continue;
        if (group && !at && c.cpu != cpu)
            continue;
        for (const CfsRqInspection& rq : c.rqs)
            for (const EntityInspection& e : rq.entities)
                if (e.name == name && e.isGroup == group)
                    return {&rq, &e};
    }
    return {};
}

const TaskView* findTask(const Snapshot& snap, const std::string& name)
{
    for (const TaskView& t : snap.tasks)
        if (t.name == name)
            return &t;
    return nullptr;
}

const CfsRqInspection* rootRq(const Snapshot& snap, int cpu, const std::string& group = "/")
{
    for (const CpuInspection& c : snap.inspection.cpus)
        if (c.cpu == cpu)
            for (const CfsRqInspection& rq : c.rqs)
                if (rq.path == group)
                    return &rq;
    return nullptr;
}

double us(int64_t ns)
{
    return static_cast<double>(ns) / 1000.0;
}
double us(uint64_t ns)
{
    return static_cast<double>(ns) / 1000.0;
}

std::string stateName(TaskState s)
{
    switch (s) {
    case TaskState::NotStarted:
        return "not started";
    case TaskState::Runnable:
        return "runnable";
    case TaskState::Running:
        return "running";
    case TaskState::Sleeping:
        return "sleeping";
    case TaskState::Blocked:
        return "blocked";
    case TaskState::Exited:
        return "exited";
    }
    return "?";
}

/// The pick on @p cpu from the cfs_rq @p group down to a task, with each level's explanation.
std::optional<Answer> pickAnswer(
    const Snapshot& snap, int cpu, const std::string& group, std::string* error)
{
    const CpuInspection* c = nullptr;
    for (const CpuInspection& x : snap.inspection.cpus)
        if (x.cpu == cpu)
            c = &x;
    const CfsRqInspection* rq = rootRq(snap, cpu, group);
    if (!c || !rq) {
        if (error)
            *error = "no cfs_rq " + group + " queued on CPU " + std::to_string(cpu);
        return std::nullopt;
    }
    Answer a;
    a.explanation.push_back("CPU " + std::to_string(cpu) + " at t = " + formatDuration(snap.at)
        + ", running " + c->running + ".");
    for (int depth = 0; depth < 64; ++depth) {
        a.explanation.push_back("cfs_rq " + rq->path + ": V = " + fmt(us(rq->avgVruntime), 3)
            + " µs, " + std::to_string(rq->nrQueued)
            + " queued; pick_eevdf: " + pickStepName(rq->step) + ".");
        for (const std::string& line : rq->explanation)
            a.explanation.push_back("  " + line);
        const EntityInspection* picked = nullptr;
        for (const EntityInspection& e : rq->entities)
            if (e.picked)
                picked = &e;
        if (!picked) {
            a.text = "idle";
            return a;
        }
        if (!picked->isGroup || picked->childRq < 0) {
            a.text = picked->name;
            return a;
        }
        rq = &c->rqs[static_cast<size_t>(picked->childRq)];
    }
    if (error)
        *error = "the group hierarchy is too deep";
    return std::nullopt;
}

bool parseBool(std::string s, bool* out)
{
    std::transform(s.begin(), s.end(), s.begin(),
        [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (s == "yes" || s == "true" || s == "eligible" || s == "y") {
        *out = true;
        return true;
    }
    if (s == "no" || s == "false" || s == "not eligible" || s == "ineligible" || s == "n") {
        *out = false;
        return true;
    }
    return false;
}

std::string trimmed(const std::string& s)
{
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

} // namespace

std::optional<Quantity> quantityFromName(const std::string& name)
{
    for (const auto& q : kQuantities)
        if (name == q.name)
            return q.q;
    return std::nullopt;
}

const char* quantityName(Quantity q)
{
    for (const auto& x : kQuantities)
        if (x.q == q)
            return x.name;
    return "?";
}

const char* quantityUnit(Quantity q)
{
    for (const auto& x : kQuantities)
        if (x.q == q)
            return x.unit;
    return "";
}

std::string formatQuantity(Quantity q, double value)
{
    const std::string unit = quantityUnit(q);
    const int decimals = q == Quantity::Weight ? 0 : (q == Quantity::Share ? 2 : 3);
    return fmt(value, decimals) + (unit.empty() ? "" : " " + unit);
}

std::optional<double> quantityValue(
    const Snapshot& snap, Quantity q, const std::string& entity, int cpu, std::string* error)
{
    auto fail = [&](const std::string& m) -> std::optional<double> {
        if (error)
            *error = m;
        return std::nullopt;
    };
    if (q == Quantity::V && (entity.empty() || entity.front() == '@')) {
        const int c = entity.empty() ? cpu : splitCpu("x" + entity).second.value_or(cpu);
        const CfsRqInspection* rq = rootRq(snap, c);
        if (!rq)
            return fail("no CPU " + std::to_string(c));
        return us(rq->avgVruntime);
    }
    const TaskView* task = findTask(snap, splitCpu(entity).first);
    if (q == Quantity::Share || q == Quantity::Runtime) {
        if (!task)
            return fail("no task \"" + entity + "\" in the run");
        if (q == Quantity::Runtime)
            return static_cast<double>(task->sumExecRuntime) / 1e6;
        if (snap.at.count() <= 0)
            return 0.0;
        return 100.0 * static_cast<double>(task->sumExecRuntime)
            / static_cast<double>(snap.at.count());
    }
    const Found f = findEntity(snap, entity, cpu);
    if (!f.e) {
        // A task that is not queued (asleep) still has its saved fields.
        if (task && q != Quantity::Lag && q != Quantity::V) {
            switch (q) {
            case Quantity::Vlag:
                return us(task->vlag);
            case Quantity::Vruntime:
                return us(task->vruntime);
            case Quantity::Deadline:
                return us(task->deadline);
            case Quantity::Weight:
                return static_cast<double>(scaleLoadDown(task->weight));
            default:
                break;
            }
        }
        return fail("\"" + entity + "\" is not queued on a cfs_rq at t = " + formatDuration(snap.at)
            + (task ? " (task " + stateName(task->state) + ")" : ""));
    }
    const EntityInspection& e = *f.e;
    switch (q) {
    case Quantity::Lag:
        return us(e.lag);
    case Quantity::Vlag:
        return us(e.vlag);
    case Quantity::V:
        return us(f.rq->avgVruntime);
    case Quantity::Vruntime:
        return us(e.vruntime);
    case Quantity::Deadline:
        return us(e.deadline);
    case Quantity::Slice:
        return us(e.slice);
    case Quantity::Weight:
        return static_cast<double>(scaleLoadDown(e.weight));
    default:
        break;
    }
    return fail("unknown quantity");
}

LessonRun::LessonRun(const Lesson& lesson, const RunOptions& options)
    : m_lesson(lesson)
    , m_options(options)
{
    m_snapshots.resize(m_lesson.steps.size());
}

LessonRun::~LessonRun() = default;

std::string LessonRun::where(size_t index) const
{
    return m_lesson.file + ": " + m_lesson.steps[index].path + ": ";
}

std::optional<Nanoseconds> LessonRun::stopTime(size_t index, std::string* error)
{
    if (index >= m_lesson.steps.size()) {
        if (error)
            *error = m_lesson.file + ": no step " + std::to_string(index + 1);
        return std::nullopt;
    }
    try {
        while (m_stops.size() <= index) {
            const size_t i = m_stops.size();
            const RunTarget& t = m_lesson.steps[i].run;
            const Nanoseconds previous = m_stops.empty() ? Nanoseconds{0} : m_stops.back();
            if (t.kind == RunTarget::Kind::Time) {
                // No run needed: the events up to this time are consumed (a later event target
                // searches after it).
                const Nanoseconds end =
                    m_options.duration.value_or(m_lesson.scenario.durationOrDefault());
                if (t.at > end) {
                    if (error)
                        *error = where(i) + "run/to: " + formatDuration(t.at)
                            + " is after the end of the run (" + formatDuration(end) + ")";
                    return std::nullopt;
                }
                m_consumedUntil = std::max(m_consumedUntil, t.at);
                m_stops.push_back(std::max(previous, t.at));
                continue;
            }
            if (!m_scan) {
                // The recording run that finds event targets, made only when one is asked for.
                RunOptions o = m_options;
                o.recordSamples = false;
                o.recordEvents = true;
                m_scan = std::make_unique<Simulation>(m_lesson.scenario, o);
            }
            const Recording& rec = m_scan->recording();
            auto matches = [&](const Record& r) {
                if (r.kind != t.event)
                    return false;
                if (t.cpu && r.cpu != *t.cpu)
                    return false;
                if (t.after && r.time < t.after->count())
                    return false;
                if (r.time <= m_consumedUntil.count())
                    return false;
                if (t.entity.empty())
                    return true;
                std::string name;
                if (r.kind == RecordKind::Switch) {
                    const int64_t next = r.payload.generic.a;
                    name = next >= 0 && static_cast<size_t>(next) < rec.taskNames.size()
                        ? rec.taskNames[static_cast<size_t>(next)]
                        : std::string("idle");
                } else {
                    name = entityName(r.entity, rec);
                }
                if (name == t.entity)
                    return true;
                return t.entity.front() == '/' && t.entity.find('@') == std::string::npos
                    && name.rfind(t.entity + "@", 0) == 0;
            };
            std::optional<size_t> found;
            for (;;) {
                const auto& rs = m_scan->recording().records();
                for (; m_scanIndex < rs.size(); ++m_scanIndex)
                    if (matches(rs[m_scanIndex])) {
                        found = m_scanIndex;
                        break;
                    }
                if (found || !m_scan->step())
                    break;
            }
            if (!found) {
                if (error)
                    *error = where(i) + "run: no such event before the end of the run ("
                        + formatDuration(m_scan->now()) + ")";
                return std::nullopt;
            }
            const int64_t at = m_scan->recording().records()[*found].time;
            if (t.before) {
                // The same event stays findable: a next step "after" it shows its outcome.
                m_stops.push_back(std::max(previous, Nanoseconds{std::max<int64_t>(0, at - 1)}));
            } else {
                m_stops.push_back(std::max(previous, Nanoseconds{at}));
                m_scanIndex = *found + 1;
            }
        }
    } catch (const std::exception& e) {
        if (error)
            *error = m_lesson.file + ": " + e.what();
        return std::nullopt;
    }
    return m_stops[index];
}

const Snapshot* LessonRun::snapshot(size_t index, std::string* error)
{
    const auto at = stopTime(index, error);
    if (!at)
        return nullptr;
    if (!m_snapshots[index]) {
        // The inspector's way (inspectAt): a fresh run to the stop time, every level's curr
        // brought up to date, then the run queues read with their picks explained.
        try {
            RunOptions o = m_options;
            o.recordSamples = false;
            o.recordEvents = false;
            Simulation sim(m_lesson.scenario, o);
            sim.runUntil(*at);
            auto snap = std::make_unique<Snapshot>();
            snap->at = *at;
            snap->tasks = sim.tasks();
            snap->inspection = sim.inspect(true);
            // The same step's snapshot serves every later step that stops at the same time.
            m_snapshots[index] = std::move(snap);
        } catch (const std::exception& e) {
            if (error)
                *error = m_lesson.file + ": " + e.what();
            return nullptr;
        }
    }
    return m_snapshots[index].get();
}

std::optional<std::string> LessonRun::renderText(size_t index, std::string* error)
{
    const Snapshot* snap = snapshot(index, error);
    if (!snap)
        return std::nullopt;
    const Step& step = m_lesson.steps[index];
    const int cpu = step.question ? step.question->cpu : 0;
    std::string out;
    const std::string& in = step.text;
    size_t pos = 0;
    while (pos < in.size()) {
        const size_t open = in.find("{{", pos);
        if (open == std::string::npos) {
            out += in.substr(pos);
            break;
        }
        out += in.substr(pos, open - pos);
        const size_t close = in.find("}}", open);
        if (close == std::string::npos) {
            if (error)
                *error = where(index) + "text: \"{{\" without \"}}\"";
            return std::nullopt;
        }
        const std::string inner = trimmed(in.substr(open + 2, close - open - 2));
        const size_t colon = inner.find(':');
        const std::string name = inner.substr(0, colon);
        const std::string arg = colon == std::string::npos ? "" : inner.substr(colon + 1);
        std::string value;
        std::string why;
        if (name == "now") {
            value = formatDurationHuman(snap->at);
        } else if (name == "picked") {
            // {{picked}}, {{picked:3}} (CPU 3's root) or {{picked:/g@3}} (that cfs_rq).
            auto [g, c] = splitCpu(arg);
            if (arg.empty() || arg.front() != '/') {
                g = "/";
                c = arg.empty() ? cpu : std::atoi(arg.c_str());
            }
            auto a = pickAnswer(*snap, c.value_or(cpu), g, &why);
            if (a)
                value = a->text;
        } else if (name == "running") {
            const int c = arg.empty() ? cpu : std::atoi(arg.c_str());
            for (const CpuInspection& ci : snap->inspection.cpus)
                if (ci.cpu == c)
                    value = ci.running;
            if (value.empty())
                why = "no CPU " + arg;
        } else if (name == "eligible") {
            const Found f = findEntity(*snap, arg, cpu);
            if (f.e)
                value = f.e->eligible ? "eligible" : "not eligible";
            else
                why = "\"" + arg + "\" is not queued";
        } else if (name == "state") {
            if (const TaskView* t = findTask(*snap, arg))
                value = stateName(t->state);
            else
                why = "no task \"" + arg + "\"";
        } else if (auto q = quantityFromName(name)) {
            if (auto v = quantityValue(*snap, *q, arg, cpu, &why))
                value = formatQuantity(*q, *v);
        } else {
            why = "unknown template (expected a quantity, eligible, picked, running, state or now)";
        }
        if (value.empty()) {
            if (error)
                *error = where(index) + "text: {{" + inner + "}}: " + why;
            return std::nullopt;
        }
        out += value;
        pos = close + 2;
    }
    return out;
}

std::vector<std::string> LessonRun::highlights(size_t index, std::string* error)
{
    std::vector<std::string> out;
    const Snapshot* snap = snapshot(index, error);
    if (!snap)
        return out;
    const Step& step = m_lesson.steps[index];
    const int cpu = step.question ? step.question->cpu : 0;
    for (const std::string& h : step.highlight) {
        const size_t colon = h.find(':');
        const std::string name = h.substr(0, colon);
        const std::string arg = colon == std::string::npos ? "" : h.substr(colon + 1);
        std::string why;
        std::string value;
        if (name == "eligible") {
            const Found f = findEntity(*snap, arg, cpu);
            if (f.e)
                value = f.e->eligible ? "yes" : "no";
            else
                why = "\"" + arg + "\" is not queued";
        } else if (name == "picked") {
            if (auto a = pickAnswer(*snap, arg.empty() ? cpu : std::atoi(arg.c_str()), "/", &why))
                value = a->text;
        } else if (auto q = quantityFromName(name)) {
            if (auto v = quantityValue(*snap, *q, arg, cpu, &why))
                value = formatQuantity(*q, *v);
        }
        if (value.empty()) {
            if (error)
                *error = where(index) + "highlight: " + h + ": " + why;
            continue;
        }
        std::string label = name;
        if (name == "V" && arg.empty())
            label = "V (CPU " + std::to_string(cpu) + ")";
        else if (!arg.empty())
            label = name + "(" + arg + ")";
        out.push_back(label + " = " + value);
    }
    return out;
}

std::optional<Answer> LessonRun::modelAnswer(size_t index, std::string* error)
{
    const Step& step = m_lesson.steps.at(index);
    if (!step.question) {
        if (error)
            *error = where(index) + "no question";
        return std::nullopt;
    }
    const Question& q = *step.question;
    // A pick is decided on the question's own state; the other questions may be answered by a
    // later step's state (the question stops before the event, the answer step after it).
    const size_t at = q.kind == Question::Kind::Pick ? index : q.answerIndex.value_or(index);
    const Snapshot* snap = snapshot(at, error);
    if (!snap)
        return std::nullopt;
    std::string why;
    switch (q.kind) {
    case Question::Kind::Pick: {
        auto a = pickAnswer(*snap, q.cpu, q.group, &why);
        if (!a)
            break;
        if (q.answerIndex) {
            // "What will CPU n run next?": the outcome at the answer step (the question's state
            // may be before the event that makes the decision, e.g. curr blocking).
            const Snapshot* after = snapshot(*q.answerIndex, error);
            if (!after)
                return std::nullopt;
            for (const CpuInspection& c : after->inspection.cpus)
                if (c.cpu == q.cpu) {
                    Answer out;
                    out.text = c.running;
                    out.explanation.push_back("At t = " + formatDuration(after->at) + " CPU "
                        + std::to_string(q.cpu) + " runs " + c.running + ".");
                    out.explanation.push_back("The run queues before it:");
                    for (std::string& line : a->explanation)
                        out.explanation.push_back("  " + line);
                    return out;
                }
            why = "no CPU " + std::to_string(q.cpu);
            break;
        }
        return a;
    }
    case Question::Kind::Eligible: {
        const Found f = findEntity(*snap, q.entity, q.cpu);
        if (!f.e) {
            why =
                "\"" + q.entity + "\" is not queued on a cfs_rq at t = " + formatDuration(snap->at);
            break;
        }
        Answer a;
        a.flag = f.e->eligible;
        a.text = a.flag ? "yes" : "no";
        a.explanation.push_back(q.entity + " on cfs_rq " + f.rq->path + " of CPU "
            + std::to_string(f.rq->cpu) + ": V = " + fmt(us(f.rq->avgVruntime), 3) + " µs, v = "
            + fmt(us(f.e->vruntime), 3) + " µs, V − v = " + fmt(us(f.e->lag), 3) + " µs.");
        a.explanation.push_back(std::string("Eligible means V − v ≥ 0 (entity_eligible() tests "
                                            "Σ w·(v_i − v0) ≥ (v − v0)·Σ w exactly): ")
            + (a.flag ? "yes." : "no: it has received more than its share so far."));
        for (const std::string& line : f.rq->explanation)
            a.explanation.push_back("  " + line);
        return a;
    }
    case Question::Kind::Number: {
        auto v = quantityValue(*snap, q.quantity, q.entity, q.cpu, &why);
        if (!v)
            break;
        Answer a;
        a.number = *v;
        a.text = formatQuantity(q.quantity, *v);
        a.explanation.push_back(std::string(quantityName(q.quantity)) + "(" + q.entity
            + ") = " + a.text + " at t = " + formatDuration(snap->at) + ".");
        const Found f = findEntity(*snap, q.entity, q.cpu);
        if (f.e)
            a.explanation.push_back("On cfs_rq " + f.rq->path + " of CPU "
                + std::to_string(f.rq->cpu) + ": V = " + fmt(us(f.rq->avgVruntime), 3) + " µs, v = "
                + fmt(us(f.e->vruntime), 3) + " µs, stored vlag = " + fmt(us(f.e->vlag), 3)
                + " µs, weight " + std::to_string(scaleLoadDown(f.e->weight)) + ", queue weight "
                + std::to_string(scaleLoadDown(f.rq->loadWeight)) + ".");
        return a;
    }
    }
    if (error)
        *error = where(index) + "question: " + why;
    return std::nullopt;
}

std::optional<Verdict> LessonRun::check(size_t index, const std::string& answer, std::string* error)
{
    auto model = modelAnswer(index, error);
    if (!model)
        return std::nullopt;
    const Question& q = *m_lesson.steps[index].question;
    Verdict v;
    v.model = *model;
    const std::string a = trimmed(answer);
    switch (q.kind) {
    case Question::Kind::Pick:
        v.correct = a == model->text;
        v.message = v.correct ? "Right: " + model->text + " is picked."
                              : "Not quite: the pick is " + model->text + ", not "
                + (a.empty() ? std::string("nothing") : a) + ".";
        break;
    case Question::Kind::Eligible: {
        bool b = false;
        if (!parseBool(a, &b)) {
            v.message = "Answer yes or no.";
            return v;
        }
        v.correct = b == model->flag;
        v.message = std::string(v.correct ? "Right: " : "Not quite: ") + q.entity + " is "
            + (model->flag ? "eligible." : "not eligible.");
        break;
    }
    case Question::Kind::Number: {
        double x = 0;
        try {
            size_t used = 0;
            x = std::stod(a, &used);
            if (trimmed(a.substr(used)).size() > 0
                && trimmed(a.substr(used)) != quantityUnit(q.quantity)
                && trimmed(a.substr(used)) != "us")
                throw std::invalid_argument("unit");
        } catch (const std::exception&) {
            v.message = std::string("Answer with a number in ") + quantityUnit(q.quantity) + ".";
            return v;
        }
        // Within the tolerance and on the right side of zero: a lag of −2.49 ms is never
        // answered by +1.5 ms, whatever the tolerance.
        const bool wrongSign = (x > 0 && model->number < 0) || (x < 0 && model->number > 0);
        v.correct = std::fabs(x - model->number) <= q.tolerance && !wrongSign;
        v.message = std::string(v.correct ? "Right: " : "Not quite: ") + "the model says "
            + model->text + " (answers within ±" + formatQuantity(q.quantity, q.tolerance)
            + " count).";
        break;
    }
    }
    return v;
}

std::vector<std::string> LessonRun::validate()
{
    std::vector<std::string> out;
    std::vector<std::string> names;
    for (const TaskSpec& t : m_lesson.scenario.tasks)
        names.push_back(t.name);
    for (size_t i = 0; i < m_lesson.steps.size(); ++i) {
        const Step& step = m_lesson.steps[i];
        std::string error;
        if (!stopTime(i, &error)) {
            out.push_back(error);
            break; // later steps depend on this one's stop
        }
        if (!renderText(i, &error))
            out.push_back(error);
        error.clear();
        highlights(i, &error);
        if (!error.empty())
            out.push_back(error);
        const Snapshot* snap = snapshot(i, &error);
        for (const std::string& f : step.focus) {
            const bool task = snap && findTask(*snap, f);
            const bool group = std::any_of(m_lesson.scenario.cgroups.begin(),
                m_lesson.scenario.cgroups.end(), [&](const CgroupSpec& g) { return g.path == f; });
            if (!task && !group)
                out.push_back(where(i) + "focus: no task or cgroup \"" + f + "\"");
        }
        if (!step.question)
            continue;
        error.clear();
        auto a = modelAnswer(i, &error);
        if (!a) {
            out.push_back(error);
            continue;
        }
        const Question& q = *step.question;
        switch (q.kind) {
        case Question::Kind::Pick:
            if (a->text != q.expectName)
                out.push_back(where(i) + "question/expect: the lesson expects " + q.expectName
                    + " but the model picks " + a->text);
            break;
        case Question::Kind::Eligible:
            if (a->flag != q.expectBool)
                out.push_back(where(i) + "question/expect: the lesson expects " + q.entity
                    + (q.expectBool ? " eligible" : " not eligible") + " but the model says "
                    + (a->flag ? "eligible" : "not eligible"));
            break;
        case Question::Kind::Number:
            if (std::fabs(a->number - q.expectNumber) > q.tolerance)
                out.push_back(where(i) + "question/expect: the lesson expects "
                    + formatQuantity(q.quantity, q.expectNumber) + " but the model says "
                    + a->text);
            // The tolerance respects the scale: at most a quarter of the answer's magnitude.
            if (q.expectNumber != 0 && q.tolerance > std::fabs(q.expectNumber) / 4)
                out.push_back(where(i) + "question/tolerance: ±"
                    + formatQuantity(q.quantity, q.tolerance) + " is more than a quarter of "
                    + formatQuantity(q.quantity, q.expectNumber));
            break;
        }
        for (const std::string& m : answerShown(i))
            out.push_back(m);
    }
    return out;
}

Concealed concealedBy(const Question& q)
{
    Concealed c;
    switch (q.kind) {
    case Question::Kind::Pick:
        c.picks = true;
        break;
    case Question::Kind::Eligible:
        // Eligibility is the sign of the lag, which v − V and the key give away too.
        c.entity = q.entity;
        c.columns = {"v", "deadline", "lag", "key", "eligible"};
        break;
    case Question::Kind::Number:
        c.entity = q.entity;
        switch (q.quantity) {
        case Quantity::Lag:
            c.columns = {"v", "deadline", "lag", "key", "eligible"};
            break;
        case Quantity::Vlag:
            c.columns = {"vlag"};
            break;
        case Quantity::Vruntime:
            c.columns = {"v", "lag", "key"};
            break;
        case Quantity::Deadline:
        case Quantity::Slice:
            c.columns = {"deadline"};
            break;
        case Quantity::Weight:
            // A group's entities on every CPU: they are split by the same shares.
            c.columns = {"weight"};
            if (!c.entity.empty() && c.entity.front() == '/')
                c.entity = splitCpu(c.entity).first;
            break;
        case Quantity::V:
        case Quantity::Share:
        case Quantity::Runtime:
            break;
        }
        break;
    }
    return c;
}

std::vector<std::string> revealingKeys(const Question& q)
{
    switch (q.kind) {
    case Question::Kind::Pick:
        return {"picked", "picked:" + std::to_string(q.cpu)};
    case Question::Kind::Eligible:
        return {"eligible:" + q.entity, "lag:" + q.entity, "vruntime:" + q.entity,
            "deadline:" + q.entity};
    case Question::Kind::Number:
        break;
    }
    const std::string e = ":" + q.entity;
    switch (q.quantity) {
    case Quantity::Lag:
        return {"lag" + e, "vruntime" + e, "eligible" + e, "deadline" + e};
    case Quantity::Vruntime:
        return {"vruntime" + e, "lag" + e};
    case Quantity::Share:
    case Quantity::Runtime:
        return {"share" + e, "runtime" + e};
    default:
        return {std::string(quantityName(q.quantity)) + e};
    }
}

std::vector<std::string> LessonRun::answerShown(size_t index)
{
    std::vector<std::string> out;
    const Step& step = m_lesson.steps.at(index);
    if (!step.question)
        return out;
    const Question& q = *step.question;
    const std::vector<std::string> keys = revealingKeys(q);
    auto revealing = [&](const std::string& key) {
        std::string k = key;
        k.erase(std::remove(k.begin(), k.end(), ' '), k.end());
        return std::find(keys.begin(), keys.end(), k) != keys.end();
    };
    for (const std::string& h : step.highlight)
        if (revealing(h))
            out.push_back(
                where(index) + "highlight: \"" + h + "\" shows the answer to the question");
    for (size_t pos = step.text.find("{{"); pos != std::string::npos;
         pos = step.text.find("{{", pos + 2)) {
        const size_t close = step.text.find("}}", pos);
        if (close == std::string::npos)
            break;
        const std::string key = step.text.substr(pos + 2, close - pos - 2);
        if (revealing(key))
            out.push_back(where(index) + "text: {{" + key + "}} shows the answer to the question");
    }
    std::string error;
    const auto model = modelAnswer(index, &error);
    // The timeline plots v, the deadline and the lag of the focused tasks (the last step's focus
    // that named any; all tasks of a small scenario when none did) up to the stop time: the
    // asked entity's line must not end at the answer.
    const bool plotted = [&] {
        for (size_t i = index + 1; i-- > 0;)
            if (!m_lesson.steps[i].focus.empty())
                return std::find(
                           m_lesson.steps[i].focus.begin(), m_lesson.steps[i].focus.end(), q.entity)
                    != m_lesson.steps[i].focus.end();
        return true;
    }();
    const bool lineQuantity = q.kind == Question::Kind::Eligible
        || (q.kind == Question::Kind::Number
            && (q.quantity == Quantity::Lag || q.quantity == Quantity::Vruntime
                || q.quantity == Quantity::Deadline));
    if (model && plotted && lineQuantity) {
        const Snapshot* here = snapshot(index, &error);
        const Found f = here ? findEntity(*here, q.entity, q.cpu) : Found{};
        bool same = false;
        if (f.e && q.kind == Question::Kind::Eligible)
            same = f.e->eligible == model->flag;
        else if (f.e) {
            std::string why;
            if (auto v = quantityValue(*here, q.quantity, q.entity, q.cpu, &why))
                same = std::fabs(*v - model->number) <= std::max(q.tolerance, 1e-9);
        }
        if (same)
            out.push_back(where(index) + "focus: the timeline plots " + q.entity
                + " up to now, and its line shows the answer");
    }
    // The model's number, in any of the units a reader converts between.
    if (!model || q.kind != Question::Kind::Number || model->number == 0)
        return out;
    std::vector<std::string> visible = highlights(index, &error);
    if (auto text = renderText(index, &error))
        visible.push_back(*text);
    visible.push_back(q.prompt);
    const double a = model->number;
    for (const std::string& v : visible) {
        for (size_t i = 0; i < v.size();) {
            const bool minus = v.compare(i, 3, "−") == 0; // U+2212, as the lessons write it
            const size_t start = minus ? i + 3 : i;
            if (start >= v.size() || !(std::isdigit(static_cast<unsigned char>(v[start])))
                || (i > 0
                    && (std::isalnum(static_cast<unsigned char>(v[i - 1])) || v[i - 1] == '.'))) {
                i += minus ? 3 : 1;
                continue;
            }
            size_t end = start;
            while (end < v.size()
                && (std::isdigit(static_cast<unsigned char>(v[end]))
                    || (v[end] == '.' && end + 1 < v.size()
                        && std::isdigit(static_cast<unsigned char>(v[end + 1])))))
                ++end;
            double x = std::stod(v.substr(start, end - start));
            if (minus || (i > 0 && v[i - 1] == '-'))
                x = -x;
            for (const double scale : {1.0, 1e3, 1e-3, 1e6, 1e-6})
                if (std::fabs(x * scale - a) <= 0.005 * std::fabs(a)) {
                    out.push_back(where(index) + "the answer " + model->text + " shows as \""
                        + v.substr(i, end - i) + "\" before it is asked");
                    break;
                }
            i = end;
        }
    }
    return out;
}

} // namespace schedlab::lesson
