// SPDX-License-Identifier: GPL-2.0-or-later
// The scenario writer (docs/scenario-format.md §1.11): the field tables of scenariofields.h give
// the keys and their order; the pretty-printer lays the JSON out as a person would write it.
#include "core/scenario/scenariofields.h"

namespace schedlab {

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
