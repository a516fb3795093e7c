// SPDX-License-Identifier: GPL-2.0-or-later
// The scenario writer (docs/scenario-format.md §1.11): the field tables of scenariofields.h give
// the keys of the flat structs and their order; operations and actions (one verb each) are
// written here; the pretty-printer lays the JSON out as a person would write it.
#include "core/scenario/scenariofields.h"

namespace schedlab {

namespace scenariojson {

Json taskJson(const TaskSpec& task, TaskKind kind)
{
    Json out = Json::object();
    TaskContext ctx;
    ctx.kind = kind;
    writeFields(taskFields(), task, out, ctx);
    return out;
}

Json cgroupFilesJson(Json out, const CgroupFiles& files)
{
    writeFields(cgroupFileFields(), files, out);
    return out;
}

namespace {

Json opJson(const Op& op)
{
    Json out = Json::object();
    const std::string verb(enumName(op.kind));
    switch (op.kind) {
    case Op::Kind::Run:
    case Op::Kind::Sleep:
        out[verb] = durationSpecJson(op.duration);
        break;
    case Op::Kind::Kernel:
        out[verb] = programJson(op.body);
        break;
    case Op::Kind::Loop:
        out[verb] = programJson(op.body);
        if (op.count)
            out["count"] = *op.count;
        if (op.forTime)
            out["for"] = durationSpecJson(*op.forTime);
        break;
    case Op::Kind::Yield:
    case Op::Kind::Exit:
    case Op::Kind::CpuClock:
        out[verb] = true;
        break;
    case Op::Kind::Lock:
    case Op::Kind::Unlock:
    case Op::Kind::Suspend:
    case Op::Kind::Resume:
    case Op::Kind::Complete:
    case Op::Kind::WaitCompletion:
    case Op::Kind::Cpus:
    case Op::Kind::Cgroup:
        out[verb] = op.name;
        break;
    case Op::Kind::Fork:
        out[verb] = op.fork.empty() ? Json::object() : taskJson(op.fork.front(), TaskKind::Forked);
        if (op.wait)
            out["wait"] = true;
        break;
    case Op::Kind::Nice:
        out[verb] = op.nice;
        break;
    case Op::Kind::Cookie:
        if (op.cookie == Op::CookieCmd::Create)
            out[verb] = "create";
        else
            out[verb] =
                Json{{op.cookie == Op::CookieCmd::ShareTo ? "share_to" : "share_from", op.name}};
        break;
    case Op::Kind::Write:
        out[verb] = cgroupFilesJson(Json{{"cgroup", op.name}}, op.files);
        break;
    }
    return out;
}

} // namespace

Json programJson(const std::vector<Op>& program)
{
    Json out = Json::array();
    for (const Op& op : program)
        out.push_back(opJson(op));
    return out;
}

Json actionJson(const Action& action)
{
    Json out = Json::object();
    out["at"] = durationJson(action.at);
    const std::string verb(enumName(action.kind));
    switch (action.kind) {
    case Action::Kind::Feature:
        out[verb] = action.features;
        break;
    case Action::Kind::Profile:
        if (action.overrides.empty() && action.profile) {
            out[verb] = *action.profile;
        } else {
            Json profile = Json::object();
            if (action.profile)
                profile["name"] = *action.profile;
            if (!action.overrides.empty())
                profile["overrides"] = action.overrides;
            out[verb] = profile;
        }
        break;
    case Action::Kind::Set: {
        const SetAction& set = action.set;
        Json value = Json::object();
        if (set.cgroup)
            value["cgroup"] = *set.cgroup;
        if (set.task)
            value["task"] = *set.task;
        value = cgroupFilesJson(std::move(value), set.files);
        writeFields(setTaskFields(), set, value);
        out[verb] = value;
        break;
    }
    case Action::Kind::Move:
        out[verb] = Json{{"task", action.task}, {"cgroup", action.cgroup}};
        break;
    case Action::Kind::Spawn:
        out[verb] = action.spawn.empty() ? Json::object()
                                         : taskJson(action.spawn.front(), TaskKind::Spawned);
        break;
    case Action::Kind::Kill:
        out[verb] = action.task;
        break;
    }
    return out;
}

} // namespace scenariojson

namespace {

using namespace scenariojson;

Json scenarioJson(const Scenario& s)
{
    Json root = Json::object();
    writeFields(scenarioFields(), s, root);
    for (const auto& [key, text] : s.userKeys) {
        Json value;
        try {
            value = Json::parse(text, nullptr, false);
        } catch (const Json::exception&) {
            value = Json::value_t::discarded;
        }
        root[key] = value.is_discarded() ? Json(text) : std::move(value);
    }
    return root;
}

/// One-line form: { "a": 1, "b": [ 1, 2 ] }.
void appendCompact(std::string& out, const Json& v)
{
    if (!v.is_structured() || v.empty()) {
        out += v.is_object() ? "{}" : v.is_array() ? "[]" : dumpSafe(v);
        return;
    }
    const bool isObject = v.is_object();
    out += isObject ? "{ " : "[ ";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first)
            out += ", ";
        first = false;
        if (isObject)
            out += dumpSafe(Json(it.key())) + ": ";
        appendCompact(out, it.value());
    }
    out += isObject ? " }" : " ]";
}

/// 2-space indentation; a container that fits in the line (100 columns) stays on one line, as in
/// hand-written files. The top level is always expanded.
void appendPretty(std::string& out, const Json& v, size_t indent, size_t column, bool expand)
{
    constexpr size_t kColumns = 100;
    if (!v.is_structured() || v.empty()) {
        appendCompact(out, v);
        return;
    }
    if (!expand) {
        std::string line;
        appendCompact(line, v);
        if (column + line.size() + 1 <= kColumns) { // + 1: a following comma
            out += line;
            return;
        }
    }
    const bool isObject = v.is_object();
    const std::string pad(indent + 2, ' ');
    out += isObject ? "{\n" : "[\n";
    size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
        out += pad;
        size_t col = pad.size();
        if (isObject) {
            const std::string key = dumpSafe(Json(it.key())) + ": ";
            out += key;
            col += key.size();
        }
        appendPretty(out, it.value(), indent + 2, col, false);
        if (i + 1 < v.size())
            out += ',';
        out += '\n';
    }
    out += std::string(indent, ' ');
    out += isObject ? "}" : "]";
}

} // namespace

std::string writeScenario(const Scenario& scenario)
{
    std::string out;
    appendPretty(out, scenarioJson(scenario), 0, 0, true);
    out += '\n';
    return out;
}

} // namespace schedlab
