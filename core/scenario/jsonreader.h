// SPDX-License-Identifier: GPL-2.0-or-later
// The diagnostics reader: parses JSON text without trusting it and reads single values with
// messages in the documented form "FILE: /json/pointer: what was expected (got …)". Knows
// nothing about scenarios beyond the bounds of core/base/limits.h; the scenario reader
// (scenarioreader.h) builds on it. Internal to core/scenario (it exposes nlohmann::json).
#pragma once

#include "core/base/time.h"
#include "core/scenario/jsonvalues.h"
#include "core/scenario/scenarioio.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::scenariojson {

using Json = nlohmann::ordered_json;
using Keys = std::vector<std::string_view>;

Keys concat(Keys a, const Keys& b);
bool contains(const Keys& keys, std::string_view key);
std::string inQuotes(std::string_view s);

/// JSON pointer (RFC 6901) of a member / an element.
std::string child(const std::string& path, std::string_view key);
std::string child(const std::string& path, size_t index);

/// Compact JSON of @p v; invalid UTF-8 replaced, never throws on strings.
std::string dumpSafe(const Json& v);
/// " (got …)": a short rendering of a value for messages.
std::string got(const Json& v);
/// Depth of a JSON value, without recursion.
size_t jsonDepth(const Json& root);

/// Collects errors and notices in the documented message format, at most 50 errors.
class Diagnostics
{
public:
    explicit Diagnostics(std::string fileName);

    /// "FILE: /path: what" ("/" for the root).
    void error(const std::string& path, const std::string& what);
    /// "FILE: what".
    void raw(const std::string& what);
    /// "FILE: not simulated yet: NAME", once per name, for fields that are not modelled yet.
    void notice(std::string_view field);
    /// The result: the scenario only if there was no error.
    LoadResult finish(Scenario scenario);

private:
    std::string m_file;
    std::vector<std::string> m_errors;
    std::vector<std::string> m_notices;
    std::set<std::string, std::less<>> m_noticed;
};

/// Reads one value at a time. Every function reports what it expected at @p path and returns
/// nullopt / false on a bad value, so that a caller can go on with the next field.
class JsonReader
{
public:
    explicit JsonReader(const std::string& fileName)
        : m_diag(fileName)
    { }

    Diagnostics& diag() { return m_diag; }

    /// Parses @p text: size and depth bounds first, duplicate keys reported, syntax errors with
    /// line and column. nullopt after an error (already reported).
    std::optional<Json> parse(const std::string& text);

    bool expectObject(const Json& v, const std::string& path, std::string_view expected);
    bool expectArray(const Json& v, const std::string& path, std::string_view expected);
    /// Reports every key of @p obj that is not in @p known, suggesting a close one.
    void checkKeys(const Json& obj, const std::string& path, const Keys& known);
    /// "unknown field (did you mean …?)" or "(expected one of: …)".
    void unknownKey(const std::string& path, const std::string& key, const Keys& known);
    /// The member @p key of @p obj, or a "missing required field (@p expected)" error.
    const Json* required(const Json& obj, const std::string& path, const std::string& key,
        std::string_view expected);

    std::optional<std::string> stringValue(const Json& v, const std::string& path, bool nonEmpty);
    /// An integer in [@p lo, @p hi]; 4.0 is accepted for 4.
    std::optional<int64_t> integer(const Json& v, const std::string& path, int64_t lo, int64_t hi);
    std::optional<uint64_t> unsignedInteger(const Json& v, const std::string& path);
    std::optional<bool> boolean(const Json& v, const std::string& path);
    bool literalTrue(const Json& v, const std::string& path);
    /// A duration string with a unit, at most ScenarioLimits::maxDuration.
    std::optional<Nanoseconds> duration(const Json& v, const std::string& path);
    /// A duration, "forever" (if allowed) or { "uniform": [lo, hi] }.
    std::optional<DurationSpec> durationSpec(
        const Json& v, const std::string& path, bool allowForever);
    /// One of the spellings of enumNames<E>().
    template <typename E> std::optional<E> enumValue(const Json& v, const std::string& path)
    {
        if (v.is_string())
            if (auto value = enumFromName<E>(v.template get_ref<const std::string&>()))
                return value;
        m_diag.error(path, "expected " + joinNames(enumNames<E>()) + got(v));
        return std::nullopt;
    }
    /// A non-empty name of printable characters (nameError()).
    std::optional<std::string> nameString(const Json& v, const std::string& path);
    /// Free text (textError()).
    std::optional<std::string> freeText(const Json& v, const std::string& path, bool nonEmpty);

protected:
    Diagnostics m_diag;
};

} // namespace schedlab::scenariojson
