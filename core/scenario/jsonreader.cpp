// SPDX-License-Identifier: GPL-2.0-or-later
#include "jsonreader.h"

#include "core/base/limits.h"
#include "core/scenario/support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace schedlab::scenariojson {

namespace {

constexpr size_t kMaxErrors = 50; // then one "too many errors" line

} // namespace

Keys concat(Keys a, const Keys& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

bool contains(const Keys& keys, std::string_view key)
{
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string inQuotes(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

/// JSON pointer (RFC 6901) of a member / an element.
std::string child(const std::string& path, std::string_view key)
{
    std::string out = path;
    out += '/';
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string child(const std::string& path, size_t index)
{
    return path + '/' + std::to_string(index);
}

std::string dumpSafe(const Json& v)
{
    return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

/// A short rendering of a value for "(got …)".
std::string describe(const Json& v)
{
    switch (v.type()) {
    case Json::value_t::array:
        return "an array";
    case Json::value_t::object:
        return "an object";
    case Json::value_t::string: {
        std::string s = v.get_ref<const std::string&>();
        if (s.size() > 40) {
            size_t cut = 40;
            while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0U) == 0x80U)
                --cut;
            s = s.substr(0, cut) + "...";
        }
        return dumpSafe(Json(s));
    }
    default:
        return dumpSafe(v);
    }
}

} // namespace

std::string got(const Json& v)
{
    return " (got " + describe(v) + ")";
}

namespace {

/// Edit distance counting a swap of neighbours as one edit ("rnu" -> "run").
size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

} // namespace

size_t jsonDepth(const Json& root)
{
    size_t deepest = 0;
    std::vector<std::pair<const Json*, size_t>> stack{{&root, 1}};
    while (!stack.empty()) {
        auto [value, depth] = stack.back();
        stack.pop_back();
        deepest = std::max(deepest, depth);
        if (value->is_structured())
            for (const auto& element : *value)
                stack.emplace_back(&element, depth + 1);
    }
    return deepest;
}

namespace {

/// @p message with control characters (C0, DEL) written as \xNN: keys and names from the file
/// may hold any character, and a message must neither split its line nor reach a terminal as an
/// escape sequence. Backslashes stay as they are (JSON renderings in messages use them).
std::string oneLine(const std::string& message)
{
    std::string out;
    out.reserve(message.size());
    for (const char c : message) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[u >> 4U];
            out += kHex[u & 0xfU];
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

Diagnostics::Diagnostics(std::string fileName)
    : m_file(std::move(fileName))
{ }

void Diagnostics::error(const std::string& path, const std::string& what)
{
    raw((path.empty() ? std::string("/") : path) + ": " + what);
}

void Diagnostics::raw(const std::string& what)
{
    if (m_errors.size() < kMaxErrors)
        m_errors.push_back(oneLine(m_file + ": " + what));
    else if (m_errors.size() == kMaxErrors)
        m_errors.push_back(oneLine(m_file + ": too many errors, the rest are not shown"));
}

void Diagnostics::notice(std::string_view field)
{
    if (!isSimulated(field) && m_noticed.emplace(field).second)
        m_notices.push_back(m_file + ": not simulated yet: " + std::string(field));
}

LoadResult Diagnostics::finish(Scenario scenario)
{
    LoadResult result;
    if (m_errors.empty())
        result.scenario = std::move(scenario);
    result.errors = std::move(m_errors);
    result.notices = std::move(m_notices);
    return result;
}

namespace {

/// Parser callback: reports keys given twice in one object (nlohmann would keep the last one
/// silently). Keeps one small frame per open container, so deep nesting costs linear memory.
class DuplicateKeyCheck
{
public:
    explicit DuplicateKeyCheck(Diagnostics& diag)
        : m_diag(diag)
    { }

    bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed)
    {
        using E = Json::parse_event_t;
        switch (event) {
        case E::object_start:
        case E::array_start:
            m_frames.push_back({elementName(), event == E::array_start, 0, {}, {}});
            break;
        case E::key: {
            Frame& frame = m_frames.back();
            frame.lastKey = parsed.get<std::string>();
            if (!frame.keys.insert(frame.lastKey).second)
                m_diag.error(child(path(), frame.lastKey),
                    "duplicate key (each field may appear only once)");
            break;
        }
        case E::object_end:
        case E::array_end:
            if (!m_frames.empty())
                m_frames.pop_back();
            break;
        case E::value:
            if (!m_frames.empty() && m_frames.back().isArray)
                ++m_frames.back().next;
            break;
        }
        return true;
    }

private:
    struct Frame
    {
        std::string name; // pointer token of this container in its parent
        bool isArray = false;
        size_t next = 0;
        std::string lastKey;
        std::set<std::string> keys;
    };

    std::string elementName()
    {
        if (m_frames.empty())
            return {};
        Frame& parent = m_frames.back();
        return parent.isArray ? std::to_string(parent.next++) : parent.lastKey;
    }

    std::string path() const
    {
        std::string out;
        for (size_t i = 1; i < m_frames.size(); ++i)
            out = child(out, m_frames[i].name);
        return out;
    }

    Diagnostics& m_diag;
    std::vector<Frame> m_frames;
};

std::string parseErrorPosition(const std::string& text, size_t byte)
{
    // nlohmann reports the 1-based byte position of the offending character.
    const size_t offset = std::min(byte > 0 ? byte - 1 : 0, text.size());
    size_t line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - lineStart + 1);
}

/// The message of a nlohmann exception without its "[json.exception…] parse error at …: " head.
std::string parseErrorText(const std::string& what)
{
    const size_t column = what.find(", column ");
    const size_t colon = column == std::string::npos ? what.find("] ") : what.find(": ", column);
    if (colon == std::string::npos)
        return what;
    return what.substr(colon + 2);
}

} // namespace

std::optional<Json> JsonReader::parse(const std::string& text)
{
    if (text.size() > ScenarioLimits::maxFileBytes) {
        m_diag.raw("larger than 64 MiB, not a scenario file");
        return std::nullopt;
    }
    // nlohmann ends its input at a NUL byte (it reads C strings too): anything after one would
    // be ignored, so a file holding one is refused (docs/limits.md).
    if (const size_t nul = text.find('\0'); nul != std::string::npos) {
        m_diag.raw(parseErrorPosition(text, nul + 1) + ": a NUL byte (byte offset "
            + std::to_string(nul) + "): a scenario is JSON text, which never contains one");
        return std::nullopt;
    }
    if (auto at = jsonNestingTooDeep(text, ScenarioLimits::maxJsonDepth)) {
        m_diag.raw(parseErrorPosition(text, *at + 1) + ": nested more than "
            + std::to_string(ScenarioLimits::maxJsonDepth) + " levels deep (arrays and objects)");
        return std::nullopt;
    }
    try {
        return Json::parse(text, DuplicateKeyCheck(m_diag));
    } catch (const Json::parse_error& e) {
        m_diag.raw(parseErrorPosition(text, e.byte) + ": " + parseErrorText(e.what()));
        return std::nullopt;
    } catch (const Json::exception& e) {
        // out_of_range.406 (number overflow) carries no position: locate the quoted token.
        std::string message = parseErrorText(e.what());
        const size_t open = message.find('\'');
        const size_t close = message.rfind('\'');
        if (open != std::string::npos && close > open + 1) {
            const size_t at = text.find(message.substr(open + 1, close - open - 1));
            if (at != std::string::npos)
                message = parseErrorPosition(text, at + 1) + ": " + message;
        }
        m_diag.raw(message);
        return std::nullopt;
    }
}

bool JsonReader::expectObject(const Json& v, const std::string& path, std::string_view expected)
{
    if (v.is_object())
        return true;
    m_diag.error(path, "expected " + std::string(expected) + got(v));
    return false;
}

bool JsonReader::expectArray(const Json& v, const std::string& path, std::string_view expected)
{
    if (v.is_array())
        return true;
    m_diag.error(path, "expected " + std::string(expected) + got(v));
    return false;
}

void JsonReader::checkKeys(const Json& obj, const std::string& path, const Keys& known)
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (!contains(known, it.key()))
            unknownKey(path, it.key(), known);
}

void JsonReader::unknownKey(const std::string& path, const std::string& key, const Keys& known)
{
    std::string_view best;
    size_t bestDistance = key.size() < 4 ? 2 : 3; // suggest only close misspellings
    for (auto candidate : known) {
        if (key.size() > candidate.size() + 2 || candidate.size() > key.size() + 2)
            continue; // also keeps the cost of a huge key small
        const size_t d = editDistance(key, candidate);
        if (d < bestDistance) {
            best = candidate;
            bestDistance = d;
        }
    }
    m_diag.error(child(path, key),
        best.empty() ? "unknown field (expected one of: " + joinNames(known, ", ") + ")"
                     : "unknown field (did you mean " + inQuotes(best) + "?)");
}

const Json* JsonReader::required(
    const Json& obj, const std::string& path, const std::string& key, std::string_view expected)
{
    const auto it = obj.find(key);
    if (it != obj.end())
        return &*it;
    m_diag.error(child(path, key), "missing required field (" + std::string(expected) + ")");
    return nullptr;
}

std::optional<std::string> JsonReader::stringValue(
    const Json& v, const std::string& path, bool nonEmpty)
{
    if (!v.is_string()) {
        m_diag.error(path, "expected a string" + got(v));
        return std::nullopt;
    }
    const auto& s = v.get_ref<const std::string&>();
    if (nonEmpty && s.empty()) {
        m_diag.error(path, "expected a non-empty string");
        return std::nullopt;
    }
    return s;
}

std::optional<int64_t> JsonReader::integer(
    const Json& v, const std::string& path, int64_t lo, int64_t hi)
{
    const std::string range = hi == std::numeric_limits<int64_t>::max()
        ? "an integer >= " + std::to_string(lo)
        : "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    std::optional<int64_t> value;
    bool inRange = true;
    if (v.is_number_unsigned()) {
        const auto u = v.get<uint64_t>();
        inRange = u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        if (inRange)
            value = static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
        value = v.get<int64_t>();
    } else if (v.is_number_float()) {
        // Generators may write 4.0 for 4; anything with a fraction is a mistake.
        const double d = v.get<double>();
        if (std::isfinite(d) && std::floor(d) != d) {
            m_diag.error(path, "expected " + range + got(v));
            return std::nullopt;
        }
        inRange = std::isfinite(d) && d >= -9.2e18 && d <= 9.2e18;
        if (inRange)
            value = static_cast<int64_t>(d);
    } else {
        m_diag.error(path, "expected " + range + got(v));
        return std::nullopt;
    }
    if (!inRange || !value || *value < lo || *value > hi) {
        m_diag.error(path, "expected " + range + got(v));
        return std::nullopt;
    }
    return value;
}

std::optional<uint64_t> JsonReader::unsignedInteger(const Json& v, const std::string& path)
{
    if (v.is_number_unsigned())
        return v.get<uint64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && d >= 0 && d < 1.8e19)
            return static_cast<uint64_t>(d);
    }
    m_diag.error(path, "expected a non-negative integer" + got(v));
    return std::nullopt;
}

std::optional<bool> JsonReader::boolean(const Json& v, const std::string& path)
{
    if (v.is_boolean())
        return v.get<bool>();
    m_diag.error(path, "expected true or false" + got(v));
    return std::nullopt;
}

bool JsonReader::literalTrue(const Json& v, const std::string& path)
{
    if (v.is_boolean() && v.get<bool>())
        return true;
    m_diag.error(path, "expected true" + got(v));
    return false;
}

std::optional<Nanoseconds> JsonReader::duration(const Json& v, const std::string& path)
{
    if (v.is_number()) {
        m_diag.error(path,
            "duration needs a unit (ns, us, ms, s): write \"" + dumpSafe(v)
                + "ms\" or similar, not " + dumpSafe(v));
        return std::nullopt;
    }
    if (!v.is_string()) {
        m_diag.error(path, "expected a duration such as \"0.7ms\"" + got(v));
        return std::nullopt;
    }
    std::string reason;
    auto value = parseDuration(v.get_ref<const std::string&>(), &reason);
    if (!value) {
        m_diag.error(path, reason + got(v));
    } else if (*value > ScenarioLimits::maxDuration) {
        m_diag.error(path,
            "expected a duration of at most " + formatDuration(ScenarioLimits::maxDuration)
                + " (24 h, the limit for any duration)" + got(v));
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> JsonReader::nameString(const Json& v, const std::string& path)
{
    auto value = stringValue(v, path, true);
    if (!value)
        return std::nullopt;
    if (auto reason = nameError(*value); !reason.empty()) {
        m_diag.error(path, "expected a name of printable characters: " + reason + got(v));
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> JsonReader::freeText(
    const Json& v, const std::string& path, bool nonEmpty)
{
    auto value = stringValue(v, path, nonEmpty);
    if (!value)
        return std::nullopt;
    if (auto reason = textError(*value); !reason.empty()) {
        m_diag.error(path, reason + got(v));
        return std::nullopt;
    }
    return value;
}

std::optional<DurationSpec> JsonReader::durationSpec(
    const Json& v, const std::string& path, bool allowForever)
{
    if (v.is_string() && v.get_ref<const std::string&>() == "forever") {
        if (allowForever)
            return DurationSpec::forEver();
        m_diag.error(path, "\"forever\" is only allowed for run");
        return std::nullopt;
    }
    if (!v.is_object()) {
        auto value = duration(v, path);
        return value ? std::optional(DurationSpec::fixed(*value)) : std::nullopt;
    }
    checkKeys(v, path, {"uniform"});
    const Json* range = required(v, path, "uniform", "[lo, hi] durations");
    if (!range)
        return std::nullopt;
    const std::string rangePath = child(path, "uniform");
    if (!range->is_array() || range->size() != 2) {
        m_diag.error(
            rangePath, "expected [lo, hi], two durations such as [\"1ms\", \"1s\"]" + got(*range));
        return std::nullopt;
    }
    auto lo = duration((*range)[0], child(rangePath, 0));
    auto hi = duration((*range)[1], child(rangePath, 1));
    if (!lo || !hi)
        return std::nullopt;
    if (*lo > *hi) {
        m_diag.error(rangePath,
            "lower bound " + formatDuration(*lo) + " exceeds upper bound " + formatDuration(*hi));
        return std::nullopt;
    }
    return DurationSpec::uniform(*lo, *hi);
}

} // namespace schedlab::scenariojson

namespace schedlab {

// A broken file is only mis-measured, never accepted: the parser sees it next.
std::optional<size_t> jsonNestingTooDeep(std::string_view text, size_t limit)
{
    size_t depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

} // namespace schedlab
