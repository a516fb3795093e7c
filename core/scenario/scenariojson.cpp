// SPDX-License-Identifier: GPL-2.0-or-later
// Scenario files (scenario-format.md §1): the validating reader and the writer. The only scenario
// source that includes nlohmann/json.
//
// The reader never throws and never trusts the input: every value is type-checked, every error is
// collected as "FILE: /json/pointer: what was expected" and parsing goes on after a bad field, so
// one run shows most problems. Every value is bounded (core/scenario/limits.h, docs/limits.md).
// A pre-scan rejects JSON nested deeper than ScenarioLimits::maxJsonDepth before nlohmann parses
// it; recursion follows only loops, kernel sections and forks and is capped at
// ScenarioLimits::maxProgramNesting. Sections are read in dependency order (machine before
// cpulists, cgroups before references to them, tasks before actions) regardless of their order
// in the file.
#include "core/base/atomicfile.h"
#include "core/base/cpuset.h"
#include "core/kernel/costs.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/scenario/jsonvalues.h"
#include "core/scenario/limits.h"
#include "core/scenario/scenarioio.h"
#include "core/scenario/support.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace schedlab {

namespace {

using Json = nlohmann::ordered_json;
using Keys = std::vector<std::string_view>;

using Limits = ScenarioLimits;
constexpr int kMaxNesting = Limits::maxProgramNesting;
constexpr size_t kMaxErrors = 50; // then one "too many errors" line
constexpr int64_t kMaxCount = Limits::maxEntryCount;
constexpr size_t kMaxTasks = Limits::maxTasks;
constexpr size_t kMaxUserDepth = Limits::maxUserDepth;
constexpr int kMaxCpus = Limits::maxCpus;
constexpr int64_t kMaxBaseSliceNs = UINT32_MAX; // debugfs base_slice_ns is a u32
constexpr int64_t kDefaultRtPeriodUs = 1000000;
constexpr std::uintmax_t kMaxFileSize = Limits::maxFileBytes;

const Keys kTopKeys{"schedlab", "name", "title", "description", "seed", "duration", "kernel",
    "machine", "cgroups", "tasks", "actions", "annotations"};
const Keys kKernelKeys{
    "profile", "hz", "preempt", "base_slice", "tunable_scaling", "features", "overrides", "costs"};
const Keys kMachineKeys{"cpus", "threads_per_core", "cores_per_llc"};
const Keys kCgroupFileKeys{"cpu.weight", "cpu.weight.nice", "cpu.max", "cpu.idle",
    "cpu.rt_runtime_us", "cpu.rt_period_us"};
const Keys kTaskKeys{"name", "count", "cgroup", "cpus", "policy", "nice", "rt_priority", "slice",
    "cookie", "start", "probe", "program"};
const Keys kSetTaskKeys{"nice", "cpus", "slice", "policy"};

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

std::string got(const Json& v)
{
    return " (got " + describe(v) + ")";
}

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

/// Depth of a JSON value, without recursion.
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

/// Byte offset of the first container nested deeper than @p limit, if any. Strings are
/// skipped; syntax is left to the parser (a broken file is only mis-measured, never accepted).
std::optional<size_t> tooDeep(const std::string& text, size_t limit)
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

/// Collects errors and notices in the documented message format.
class Diagnostics
{
public:
    explicit Diagnostics(std::string fileName)
        : m_file(std::move(fileName))
    { }

    void error(const std::string& path, const std::string& what)
    {
        raw((path.empty() ? std::string("/") : path) + ": " + what);
    }

    void raw(const std::string& what)
    {
        if (m_errors.size() < kMaxErrors)
            m_errors.push_back(oneLine(m_file + ": " + what));
        else if (m_errors.size() == kMaxErrors)
            m_errors.push_back(oneLine(m_file + ": too many errors, the rest are not shown"));
    }

    /// "FILE: not simulated yet: NAME", once per name.
    void notice(std::string_view field)
    {
        if (!isSimulated(field) && m_noticed.emplace(field).second)
            m_notices.push_back(m_file + ": not simulated yet: " + std::string(field));
    }

    LoadResult finish(Scenario scenario)
    {
        LoadResult result;
        if (m_errors.empty())
            result.scenario = std::move(scenario);
        result.errors = std::move(m_errors);
        result.notices = std::move(m_notices);
        return result;
    }

private:
    std::string m_file;
    std::vector<std::string> m_errors;
    std::vector<std::string> m_notices;
    std::set<std::string, std::less<>> m_noticed;
};

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

enum class TaskKind { Listed, Spawned, Forked };

class Parser
{
public:
    explicit Parser(const std::string& fileName)
        : m_diag(fileName)
    { }

    LoadResult run(const std::string& text);

private:
    // Values.
    bool expectObject(const Json& v, const std::string& path, std::string_view expected);
    bool expectArray(const Json& v, const std::string& path, std::string_view expected);
    void checkKeys(const Json& obj, const std::string& path, const Keys& known);
    void unknownKey(const std::string& path, const std::string& key, const Keys& known);
    const Json* required(const Json& obj, const std::string& path, const std::string& key,
        std::string_view expected);
    std::optional<std::string> stringValue(const Json& v, const std::string& path, bool nonEmpty);
    std::optional<int64_t> integer(const Json& v, const std::string& path, int64_t lo, int64_t hi);
    std::optional<uint64_t> unsignedInteger(const Json& v, const std::string& path);
    std::optional<bool> boolean(const Json& v, const std::string& path);
    bool literalTrue(const Json& v, const std::string& path);
    std::optional<Nanoseconds> duration(const Json& v, const std::string& path);
    std::optional<DurationSpec> durationSpec(
        const Json& v, const std::string& path, bool allowForever);
    template <typename E> std::optional<E> enumValue(const Json& v, const std::string& path);
    std::optional<std::string> cpuList(const Json& v, const std::string& path);
    std::optional<std::string> cgroupRef(const Json& v, const std::string& path);
    std::optional<std::string> taskRef(const Json& v, const std::string& path);
    std::optional<Nanoseconds> slice(const Json& v, const std::string& path);

    // Sections.
    void parseTop(const Json& root);
    void parseKernel(const Json& v, const std::string& path);
    void parseFeatures(const Json& v, const std::string& path, std::map<std::string, bool>& out);
    void parseOverrides(const Json& v, const std::string& path, const KernelProfile& profile,
        std::map<std::string, std::string>& out);
    void parseMachine(const Json& v, const std::string& path);
    void parseCgroups(const Json& v, const std::string& path);
    void parseCosts(
        const Json& v, const std::string& path, std::map<std::string, Nanoseconds>& out);
    void parseWrite(const Json& v, const std::string& path, Op& op);
    void parseCgroupFiles(
        const Json& obj, const std::string& path, const std::string& cgroup, CgroupFiles& out);
    TaskSpec parseTask(
        const Json& v, const std::string& path, TaskKind kind, Policy inherited, int depth);
    std::vector<Op> parseProgram(const Json& v, const std::string& path, Policy policy, int depth);
    std::optional<Op> parseOp(const Json& v, const std::string& path, Policy policy, int depth);
    void parseCookieOp(const Json& v, const std::string& path, Op& op);
    std::optional<Action> parseAction(const Json& v, const std::string& path);
    void parseSet(const Json& v, const std::string& path, SetAction& out);
    void parseAnnotations(const Json& v, const std::string& path);
    void registerTaskNames(const TaskSpec& task, const std::string& path);
    void checkGroupRunQueues(const std::string& path);
    std::optional<std::string> nameString(const Json& v, const std::string& path);
    std::optional<std::string> freeText(const Json& v, const std::string& path, bool nonEmpty);
    bool beforeEnd(Nanoseconds t, const Json& v, const std::string& path, std::string_view what);
    const KernelProfile& scenarioProfile() const;

    Diagnostics m_diag;
    Scenario m_scenario;
    int m_cpus = 1; // CPU count for cpulists: the machine's, kMaxCpus while that is invalid
    std::map<std::string, size_t> m_cgroups; // listed path -> index in m_scenario.cgroups
    TaskNameSet m_taskNames;                 // listed and spawned so far
    size_t m_taskTotal = 0;
    size_t m_cgroupTotal = 0;                  // after count expansion, root not counted
    bool m_endKnown = true;                    // false while "duration" is invalid
    std::optional<Nanoseconds> m_lastActionAt; // actions must come in time order
};

// ---------------------------------------------------------------------------------------------
// Values

bool Parser::expectObject(const Json& v, const std::string& path, std::string_view expected)
{
    if (v.is_object())
        return true;
    m_diag.error(path, "expected " + std::string(expected) + got(v));
    return false;
}

bool Parser::expectArray(const Json& v, const std::string& path, std::string_view expected)
{
    if (v.is_array())
        return true;
    m_diag.error(path, "expected " + std::string(expected) + got(v));
    return false;
}

void Parser::checkKeys(const Json& obj, const std::string& path, const Keys& known)
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (!contains(known, it.key()))
            unknownKey(path, it.key(), known);
}

void Parser::unknownKey(const std::string& path, const std::string& key, const Keys& known)
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

const Json* Parser::required(
    const Json& obj, const std::string& path, const std::string& key, std::string_view expected)
{
    const auto it = obj.find(key);
    if (it != obj.end())
        return &*it;
    m_diag.error(child(path, key), "missing required field (" + std::string(expected) + ")");
    return nullptr;
}

std::optional<std::string> Parser::stringValue(
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

std::optional<int64_t> Parser::integer(
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

std::optional<uint64_t> Parser::unsignedInteger(const Json& v, const std::string& path)
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

std::optional<bool> Parser::boolean(const Json& v, const std::string& path)
{
    if (v.is_boolean())
        return v.get<bool>();
    m_diag.error(path, "expected true or false" + got(v));
    return std::nullopt;
}

bool Parser::literalTrue(const Json& v, const std::string& path)
{
    if (v.is_boolean() && v.get<bool>())
        return true;
    m_diag.error(path, "expected true" + got(v));
    return false;
}

std::optional<Nanoseconds> Parser::duration(const Json& v, const std::string& path)
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
    } else if (*value > Limits::maxDuration) {
        m_diag.error(path,
            "expected a duration of at most " + formatDuration(Limits::maxDuration)
                + " (24 h, the limit for any duration)" + got(v));
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> Parser::nameString(const Json& v, const std::string& path)
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

std::optional<std::string> Parser::freeText(const Json& v, const std::string& path, bool nonEmpty)
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

/// True if @p t lies before the scenario's end; else reports "@p what … before the end".
bool Parser::beforeEnd(Nanoseconds t, const Json& v, const std::string& path, std::string_view what)
{
    const Nanoseconds end = m_scenario.durationOrDefault();
    if (!m_endKnown || t < end)
        return true;
    m_diag.error(path,
        "expected " + std::string(what) + " before the end of the scenario at "
            + formatDuration(end) + (m_scenario.duration ? "" : " (the default duration)")
            + got(v));
    return false;
}

std::optional<DurationSpec> Parser::durationSpec(
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

template <typename E> std::optional<E> Parser::enumValue(const Json& v, const std::string& path)
{
    if (v.is_string())
        if (auto value = enumFromName<E>(v.get_ref<const std::string&>()))
            return value;
    m_diag.error(path, "expected " + joinNames(enumNames<E>()) + got(v));
    return std::nullopt;
}

std::optional<std::string> Parser::cpuList(const Json& v, const std::string& path)
{
    if (!v.is_string()) {
        m_diag.error(path, "expected a CPU list such as \"0-3,7\"" + got(v));
        return std::nullopt;
    }
    const auto& text = v.get_ref<const std::string&>();
    std::string reason;
    if (!CpuSet::parse(text, m_cpus, &reason)) {
        m_diag.error(path, reason);
        return std::nullopt;
    }
    return text;
}

std::optional<std::string> Parser::cgroupRef(const Json& v, const std::string& path)
{
    auto cgroup = stringValue(v, path, true);
    if (!cgroup)
        return std::nullopt;
    if (auto reason = cgroupPathError(*cgroup); !reason.empty()) {
        m_diag.error(path, reason);
        return std::nullopt;
    }
    if (*cgroup != "/" && !m_cgroups.contains(*cgroup)) {
        m_diag.error(path, "unknown cgroup " + inQuotes(*cgroup) + " (list it under \"cgroups\")");
        return std::nullopt;
    }
    return cgroup;
}

std::optional<std::string> Parser::taskRef(const Json& v, const std::string& path)
{
    auto name = stringValue(v, path, true);
    if (!name)
        return std::nullopt;
    if (m_taskNames.contains(*name))
        return name;
    std::string message = "unknown task " + inQuotes(*name);
    if (auto count = m_taskNames.countOf(*name))
        message += " (it has a count: its tasks are " + *name + "-1 ... " + *name + "-"
            + std::to_string(*count) + ")";
    else
        message += " (tasks must be listed under \"tasks\" or spawned by an earlier action)";
    m_diag.error(path, message);
    return std::nullopt;
}

std::optional<Nanoseconds> Parser::slice(const Json& v, const std::string& path)
{
    auto value = duration(v, path);
    if (value && (*value < 100_us || *value > 100_ms)) {
        m_diag.error(path, "expected a slice between 0.1ms and 100ms" + got(v));
        return std::nullopt;
    }
    return value;
}

// ---------------------------------------------------------------------------------------------
// Sections

const KernelProfile& Parser::scenarioProfile() const
{
    const KernelProfile* profile =
        m_scenario.kernel.profile ? findProfile(*m_scenario.kernel.profile) : nullptr;
    return profile ? *profile : defaultProfile();
}

void Parser::parseTop(const Json& root)
{
    if (!root.is_object()) {
        m_diag.error("",
            "expected a scenario object such as { \"schedlab\": 1, \"name\": \"x\" }" + got(root));
        return;
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string& key = it.key();
        if (!key.starts_with("x-"))
            continue;
        if (jsonDepth(it.value()) > kMaxUserDepth)
            m_diag.error(child("", key),
                "nested more than " + std::to_string(kMaxUserDepth) + " levels deep");
        else
            m_scenario.userKeys[key] = dumpSafe(it.value());
    }
    for (auto it = root.begin(); it != root.end(); ++it)
        if (!it.key().starts_with("x-") && !contains(kTopKeys, it.key()))
            unknownKey("", it.key(), concat(kTopKeys, {"x-…"}));

    if (const Json* v = required(root, "", "schedlab", "the format version, 1")) {
        if (v->is_number() && *v == 1)
            m_scenario.version = 1;
        else if (v->is_number_integer())
            m_diag.error("/schedlab",
                "unsupported format version " + dumpSafe(*v) + " (this schedlab reads version 1)");
        else
            m_diag.error("/schedlab", "expected the format version 1" + got(*v));
    }
    if (const Json* v = required(root, "", "name", "a non-empty string"))
        if (auto value = nameString(*v, "/name"))
            m_scenario.name = *value;
    if (auto it = root.find("title"); it != root.end())
        m_scenario.title = freeText(*it, "/title", false);
    if (auto it = root.find("description"); it != root.end())
        m_scenario.description = freeText(*it, "/description", false);
    if (auto it = root.find("seed"); it != root.end())
        m_scenario.seed = unsignedInteger(*it, "/seed");
    if (auto it = root.find("duration"); it != root.end()) {
        auto value = duration(*it, "/duration");
        if (value && value->count() == 0)
            m_diag.error("/duration", "the run must last longer than 0s");
        else
            m_scenario.duration = value;
        m_endKnown = m_scenario.duration.has_value();
    }
    if (auto it = root.find("kernel"); it != root.end())
        parseKernel(*it, "/kernel");
    if (auto it = root.find("machine"); it != root.end())
        parseMachine(*it, "/machine");
    if (auto it = root.find("cgroups"); it != root.end()) {
        parseCgroups(*it, "/cgroups");
        checkGroupRunQueues("/cgroups");
    }
    if (auto it = root.find("tasks");
        it != root.end() && expectArray(*it, "/tasks", "an array of tasks")) {
        for (size_t i = 0; i < it->size(); ++i) {
            const std::string path = child("/tasks", i);
            TaskSpec task = parseTask((*it)[i], path, TaskKind::Listed, Policy::Normal, 0);
            registerTaskNames(task, path);
            m_scenario.tasks.push_back(std::move(task));
        }
    }
    if (auto it = root.find("actions");
        it != root.end() && expectArray(*it, "/actions", "an array of actions")) {
        for (size_t i = 0; i < it->size(); ++i) {
            const std::string path = child("/actions", i);
            if (auto action = parseAction((*it)[i], path))
                m_scenario.actions.push_back(std::move(*action));
        }
    }
    if (auto it = root.find("annotations"); it != root.end())
        parseAnnotations(*it, "/annotations");
}

void Parser::parseKernel(const Json& v, const std::string& path)
{
    if (!expectObject(v, path, "an object with the kernel settings"))
        return;
    checkKeys(v, path, kKernelKeys);
    KernelSpec& kernel = m_scenario.kernel;
    for (auto it = v.begin(); it != v.end(); ++it)
        m_diag.notice(it.key());
    if (auto it = v.find("profile"); it != v.end()) {
        if (auto name = stringValue(*it, child(path, "profile"), true)) {
            if (findProfile(*name))
                kernel.profile = *name;
            else
                m_diag.error(child(path, "profile"),
                    "unknown profile " + inQuotes(*name) + " (known: " + profileNameList() + ")");
        }
    }
    if (auto it = v.find("hz"); it != v.end()) {
        const bool valid =
            it->is_number_integer() && (*it == 100 || *it == 250 || *it == 300 || *it == 1000);
        if (valid)
            kernel.hz = it->get<int>();
        else
            m_diag.error(child(path, "hz"), "expected 100, 250, 300 or 1000" + got(*it));
    }
    if (auto it = v.find("preempt"); it != v.end())
        kernel.preempt = enumValue<Preempt>(*it, child(path, "preempt"));
    if (auto it = v.find("base_slice"); it != v.end()) {
        auto value = duration(*it, child(path, "base_slice"));
        if (value && (value->count() <= 0 || value->count() > kMaxBaseSliceNs))
            m_diag.error(child(path, "base_slice"),
                "expected a base slice between 1ns and 4.294967295s" + got(*it));
        else
            kernel.baseSlice = value;
    }
    if (auto it = v.find("tunable_scaling"); it != v.end())
        kernel.tunableScaling = enumValue<TunableScaling>(*it, child(path, "tunable_scaling"));
    if (auto it = v.find("features"); it != v.end())
        parseFeatures(*it, child(path, "features"), kernel.features);
    if (auto it = v.find("overrides"); it != v.end())
        parseOverrides(*it, child(path, "overrides"), scenarioProfile(), kernel.overrides);
    if (auto it = v.find("costs"); it != v.end())
        parseCosts(*it, child(path, "costs"), kernel.costs);
}

void Parser::parseCosts(
    const Json& v, const std::string& path, std::map<std::string, Nanoseconds>& out)
{
    if (!expectObject(v, path,
            "a map of kernel-work costs to durations, e.g. { \"rt_walk_task\": \"10ns\" }"))
        return;
    KernelCosts probe;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string costPath = child(path, it.key());
        if (!applyCost(probe, it.key(), 0)) {
            m_diag.error(costPath, "unknown kernel cost (known: " + costNameList() + ")");
            continue;
        }
        auto value = duration(it.value(), costPath);
        if (value && (value->count() < 0 || value->count() > 1000000000))
            m_diag.error(costPath, "expected a duration between 0ns and 1s" + got(it.value()));
        else if (value)
            out[it.key()] = *value;
    }
}

void Parser::parseFeatures(const Json& v, const std::string& path, std::map<std::string, bool>& out)
{
    if (!expectObject(
            v, path, "a map of sched feature names to true/false, e.g. { \"PLACE_LAG\": false }"))
        return;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string& name = it.key();
        const std::string featurePath = child(path, name);
        if (!featureFromName(name)) {
            if (name.starts_with("NO_") && featureFromName(std::string_view(name).substr(3)))
                m_diag.error(featurePath,
                    "write " + inQuotes(name.substr(3))
                        + ": false instead of NO_ in a scenario file");
            else
                m_diag.error(
                    featurePath, "unknown sched feature (known: " + featureNameList() + ")");
            continue;
        }
        if (auto on = boolean(it.value(), featurePath))
            out[name] = *on;
    }
}

void Parser::parseOverrides(const Json& v, const std::string& path, const KernelProfile& profile,
    std::map<std::string, std::string>& out)
{
    if (!expectObject(
            v, path, "a map of behaviour choices to values, e.g. { \"reweight\": \"rescale\" }"))
        return;
    ProfileChoices choices = profile.choices;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string choicePath = child(path, it.key());
        std::string value;
        if (it->is_boolean()) {
            value = it->get<bool>() ? "true" : "false";
        } else if (it->is_string()) {
            value = it->get<std::string>();
        } else {
            const std::string values = choiceValues(it.key());
            m_diag.error(choicePath,
                "expected a string value" + (values.empty() ? "" : " (" + values + ")") + got(*it));
            continue;
        }
        std::string reason;
        if (applyChoice(choices, it.key(), value, &reason))
            out[it.key()] = value;
        else
            m_diag.error(choicePath, reason);
    }
}

void Parser::parseMachine(const Json& v, const std::string& path)
{
    m_cpus = kMaxCpus; // until the CPU count is known to be valid
    if (!expectObject(v, path, "an object such as { \"cpus\": 4 }"))
        return;
    checkKeys(v, path, kMachineKeys);
    MachineSpec& machine = m_scenario.machine;
    bool valid = true;
    auto read = [&](const char* key, int64_t lo, int64_t hi) -> std::optional<int> {
        auto it = v.find(key);
        if (it == v.end())
            return std::nullopt;
        m_diag.notice(key);
        auto value = integer(*it, child(path, key), lo, hi);
        valid = valid && value.has_value();
        return value ? std::optional(static_cast<int>(*value)) : std::nullopt;
    };
    machine.cpus = read("cpus", 1, kMaxCpus);
    machine.threadsPerCore = read("threads_per_core", 1, Limits::maxThreadsPerCore);
    machine.coresPerLlc = read("cores_per_llc", 1, kMaxCpus);
    if (!valid)
        return; // cpulists are then checked for syntax only
    const int cpus = machine.cpuCount();
    m_cpus = cpus;
    const int threads = machine.threadsPerCore.value_or(1);
    if (cpus % threads != 0) {
        m_diag.error(child(path, "cpus"),
            std::to_string(cpus)
                + " CPUs are not a multiple of "
                  "threads_per_core "
                + std::to_string(threads));
        return;
    }
    const int cores = cpus / threads;
    if (machine.coresPerLlc && cores % *machine.coresPerLlc != 0)
        m_diag.error(child(path, "cores_per_llc"),
            "the machine's " + std::to_string(cores) + " cores are not a multiple of "
                + std::to_string(*machine.coresPerLlc));
}

void Parser::parseCgroups(const Json& v, const std::string& path)
{
    if (!expectArray(v, path, "an array of cgroups such as [ { \"path\": \"/a\" } ]"))
        return;
    std::map<std::string, std::string> firstSeen;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string entryPath = child(path, i);
        const Json& entry = v[i];
        if (!expectObject(
                entry, entryPath, "a cgroup such as { \"path\": \"/a\", \"cpu.weight\": 200 }"))
            continue;
        checkKeys(entry, entryPath, concat({"path", "count"}, kCgroupFileKeys));
        CgroupSpec spec;
        if (auto it = entry.find("count"); it != entry.end())
            if (auto count = integer(*it, child(entryPath, "count"), 1, kMaxCount))
                spec.count = static_cast<int>(*count);
        bool usable = false;
        if (const Json* p = required(entry, entryPath, "path", "an absolute path such as \"/a\"")) {
            const std::string pathPath = child(entryPath, "path");
            if (auto cgroup = stringValue(*p, pathPath, true)) {
                spec.path = *cgroup;
                const std::string parent = parentCgroup(*cgroup);
                if (auto reason = cgroupPathError(*cgroup); !reason.empty())
                    m_diag.error(pathPath, reason);
                else if (auto seen = firstSeen.find(*cgroup); seen != firstSeen.end())
                    m_diag.error(pathPath,
                        "duplicate cgroup " + inQuotes(*cgroup) + " (already at " + seen->second
                            + ")");
                else if (*cgroup != "/" && parent != "/" && !m_cgroups.contains(parent))
                    m_diag.error(
                        pathPath, "parent cgroup " + inQuotes(parent) + " is not listed before it");
                else
                    usable = true;
                firstSeen.emplace(*cgroup, entryPath);
            }
        }
        parseCgroupFiles(entry, entryPath, spec.path, spec.files);
        if (usable && spec.count && spec.path == "/") {
            m_diag.error(child(entryPath, "count"), "the root cgroup cannot be replicated");
            usable = false;
        }
        if (usable && spec.path != "/") {
            const size_t added = static_cast<size_t>(spec.count.value_or(1));
            if (m_cgroupTotal + added > Limits::maxCgroups) {
                if (m_cgroupTotal <= Limits::maxCgroups) // once
                    m_diag.error(entryPath,
                        "more than " + std::to_string(Limits::maxCgroups)
                            + " cgroups in one scenario (counts expanded)");
                m_cgroupTotal = Limits::maxCgroups + 1;
                usable = false;
            } else {
                m_cgroupTotal += added;
            }
        }
        if (usable && spec.count) {
            // "/g" with count N stands for /g-1 … /g-N, each with the listed files.
            for (int n = 1; n <= *spec.count; ++n) {
                const std::string name = spec.path + "-" + std::to_string(n);
                if (auto seen = firstSeen.find(name); seen != firstSeen.end()) {
                    m_diag.error(child(entryPath, "count"),
                        "duplicate cgroup " + inQuotes(name) + " (already at " + seen->second
                            + ")");
                    usable = false;
                    break;
                }
                firstSeen.emplace(name, entryPath);
                m_cgroups[name] = m_scenario.cgroups.size();
            }
        }
        if (usable) {
            if (!spec.count)
                m_cgroups[spec.path] = m_scenario.cgroups.size();
            m_scenario.cgroups.push_back(std::move(spec));
        }
    }
}

void Parser::checkGroupRunQueues(const std::string& path)
{
    // Each cgroup has a cfs_rq and a group entity on every CPU.
    const auto cpus = static_cast<int64_t>(m_scenario.machine.cpuCount());
    const auto groups = static_cast<int64_t>(std::min(m_cgroupTotal, Limits::maxCgroups)) + 1;
    if (groups * cpus > Limits::maxGroupRunQueues)
        m_diag.error(path,
            std::to_string(groups) + " cgroups (the root included) on " + std::to_string(cpus)
                + " CPUs make " + std::to_string(groups * cpus)
                + " group run queues, more than the limit of "
                + std::to_string(Limits::maxGroupRunQueues));
}

void Parser::parseCgroupFiles(
    const Json& obj, const std::string& path, const std::string& cgroup, CgroupFiles& out)
{
    for (auto key : kCgroupFileKeys) {
        auto it = obj.find(std::string(key));
        if (it == obj.end())
            continue;
        m_diag.notice(key);
        const std::string filePath = child(path, key);
        if (cgroup == "/" && !key.starts_with("cpu.rt_")) {
            m_diag.error(filePath,
                "the root cgroup has no " + std::string(key)
                    + " (only cpu.rt_runtime_us and cpu.rt_period_us)");
            continue;
        }
        if (key == "cpu.weight") {
            out.weight = integer(*it, filePath, 1, 10000);
        } else if (key == "cpu.weight.nice") {
            if (obj.contains("cpu.weight"))
                m_diag.error(filePath,
                    "cpu.weight and cpu.weight.nice are the same setting: "
                    "give only one");
            else
                out.weightNice = integer(*it, filePath, -20, 19);
        } else if (key == "cpu.max") {
            if (auto value = stringValue(*it, filePath, true)) {
                std::string reason;
                out.cpuMax = parseCpuMax(*value, &reason);
                if (!out.cpuMax)
                    m_diag.error(filePath, reason);
            }
        } else if (key == "cpu.idle") {
            if (it->is_boolean())
                out.idle = it->get<bool>();
            else if (it->is_number_integer() && (*it == 0 || *it == 1))
                out.idle = *it == 1;
            else
                m_diag.error(filePath, "expected 0, 1, true or false" + got(*it));
        } else if (key == "cpu.rt_period_us") {
            out.rtPeriodUs = integer(*it, filePath, 1, INT_MAX);
        }
    }
    // cpu.rt_runtime_us is bounded by the period: of this object, else the cgroup's listed one.
    auto it = obj.find("cpu.rt_runtime_us");
    if (it == obj.end())
        return;
    int64_t period = kDefaultRtPeriodUs;
    if (out.rtPeriodUs) {
        period = *out.rtPeriodUs;
    } else if (auto listed = m_cgroups.find(cgroup); listed != m_cgroups.end()) {
        period = m_scenario.cgroups[listed->second].files.rtPeriodUs.value_or(kDefaultRtPeriodUs);
    }
    const std::string filePath = child(path, "cpu.rt_runtime_us");
    if (it->is_number_integer() && *it == -1)
        out.rtRuntimeUs = -1;
    else if (it->is_number_integer() && *it >= 0 && *it <= period)
        out.rtRuntimeUs = it->get<int64_t>();
    else
        m_diag.error(filePath,
            "expected -1 (unlimited) or 0.." + std::to_string(period)
                + " (at most cpu.rt_period_us)" + got(*it));
}

void Parser::parseWrite(const Json& v, const std::string& path, Op& op)
{
    if (!expectObject(v, path,
            "{ \"cgroup\": PATH or PATTERN, cgroup files }, e.g. { \"cgroup\": \"/g-*\", "
            "\"cpu.rt_runtime_us\": 0 }"))
        return;
    checkKeys(v, path, concat({"cgroup"}, kCgroupFileKeys));
    const Json* cgroup = required(v, path, "cgroup", "a cgroup path, '*' matches any characters");
    if (!cgroup)
        return;
    const std::string cgroupPath = child(path, "cgroup");
    if (cgroup->is_string() && cgroup->get<std::string>().find('*') != std::string::npos) {
        const std::string pattern = cgroup->get<std::string>();
        bool any = false;
        for (const auto& [listed, index] : m_cgroups)
            if (cgroupMatches(pattern, listed)) {
                any = true;
                break;
            }
        if (!pattern.starts_with("/"))
            m_diag.error(cgroupPath, "expected an absolute pattern such as \"/g-*\"");
        else if (auto reason = cgroupPathError(pattern); !reason.empty())
            m_diag.error(cgroupPath, reason);
        else if (!any)
            m_diag.error(cgroupPath, "the pattern " + inQuotes(pattern) + " matches no cgroup");
        else
            op.name = pattern;
    } else {
        op.name = cgroupRef(*cgroup, cgroupPath).value_or("");
    }
    parseCgroupFiles(v, path, op.name, op.files);
    if (v.size() == 1)
        m_diag.error(path, "nothing to write: add a cgroup file such as \"cpu.rt_runtime_us\"");
}

TaskSpec Parser::parseTask(
    const Json& v, const std::string& path, TaskKind kind, Policy inherited, int depth)
{
    TaskSpec task;
    if (!expectObject(v, path,
            kind == TaskKind::Forked ? "an object of task fields (without name)"
                                     : "a task such as { \"name\": \"a\", \"program\": "
                                       "[ { \"run\": \"forever\" } ] }"))
        return task;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string& key = it.key();
        const std::string keyPath = child(path, key);
        if (kind == TaskKind::Forked && (key == "name" || key == "count" || key == "start")) {
            m_diag.error(keyPath,
                "not allowed in a fork: a forked child has no name or count "
                "and starts when the fork runs");
        } else if (kind == TaskKind::Spawned && key == "start") {
            m_diag.error(keyPath, "not allowed in a spawn: the task starts at the action's \"at\"");
        } else if (!contains(kTaskKeys, key)) {
            unknownKey(path, key, kTaskKeys);
        } else if (key != "name" && key != "cgroup" && key != "cpus" && key != "nice"
            && key != "program" && key != "policy") {
            // "cgroup", "cpus" and "nice" are also operation names; task placement is simulated.
            m_diag.notice(key);
        }
    }
    if (kind != TaskKind::Forked) {
        if (const Json* value = required(v, path, "name", "a unique non-empty string"))
            task.name = nameString(*value, child(path, "name")).value_or("");
        if (auto it = v.find("count"); it != v.end())
            if (auto count = integer(*it, child(path, "count"), 1, kMaxCount))
                task.count = static_cast<int>(*count);
    }
    if (auto it = v.find("cgroup"); it != v.end())
        task.cgroup = cgroupRef(*it, child(path, "cgroup"));
    if (auto it = v.find("cpus"); it != v.end())
        task.cpus = cpuList(*it, child(path, "cpus"));
    if (auto it = v.find("policy"); it != v.end()) {
        task.policy = enumValue<Policy>(*it, child(path, "policy"));
        if (task.policy)
            m_diag.notice("policy " + std::string(enumName(*task.policy)));
    }
    const Policy policy = task.policy.value_or(inherited);
    if (auto it = v.find("nice"); it != v.end())
        if (auto nice = integer(*it, child(path, "nice"), -20, 19))
            task.nice = static_cast<int>(*nice);
    if (auto it = v.find("rt_priority"); it != v.end()) {
        if (policy != Policy::Fifo && policy != Policy::RoundRobin)
            m_diag.error(child(path, "rt_priority"), "only valid with policy fifo or rr");
        else if (auto prio = integer(*it, child(path, "rt_priority"), 1, 99))
            task.rtPriority = static_cast<int>(*prio);
    }
    if (auto it = v.find("slice"); it != v.end())
        task.slice = slice(*it, child(path, "slice"));
    if (auto it = v.find("cookie"); it != v.end())
        task.cookie = unsignedInteger(*it, child(path, "cookie"));
    if (kind == TaskKind::Listed)
        if (auto it = v.find("start"); it != v.end()) {
            task.start = durationSpec(*it, child(path, "start"), false);
            if (task.start && task.start->upper) {
                const std::string hiPath = child(child(path, "start"), "uniform");
                if (!beforeEnd(*task.start->upper, it->at("uniform").at(1), child(hiPath, 1),
                        "the latest start"))
                    task.start.reset();
            } else if (task.start
                && !beforeEnd(task.start->value, *it, child(path, "start"), "a start")) {
                task.start.reset();
            }
        }
    if (auto it = v.find("probe"); it != v.end())
        task.probe = boolean(*it, child(path, "probe")).value_or(false);
    if (auto it = v.find("program"); it != v.end())
        task.program = parseProgram(*it, child(path, "program"), policy, depth);
    return task;
}

std::vector<Op> Parser::parseProgram(
    const Json& v, const std::string& path, Policy policy, int depth)
{
    std::vector<Op> ops;
    if (!expectArray(v, path,
            "a list of operations such as [ { \"run\": \"1ms\" }, { \"sleep\": \"1s\" } ]"))
        return ops;
    for (size_t i = 0; i < v.size(); ++i)
        if (auto op = parseOp(v[i], child(path, i), policy, depth))
            ops.push_back(std::move(*op));
    return ops;
}

std::optional<Op> Parser::parseOp(const Json& v, const std::string& path, Policy policy, int depth)
{
    const std::string verbs = joinNames(enumNames<Op::Kind>());
    if (!expectObject(v, path, "an operation such as { \"run\": \"1ms\" }"))
        return std::nullopt;
    std::vector<Op::Kind> kinds;
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (auto kind = enumFromName<Op::Kind>(it.key()))
            kinds.push_back(*kind);
        else if (it.key() != "count" && it.key() != "wait" && it.key() != "for")
            unknownKey(path, it.key(),
                concat(Keys(enumNames<Op::Kind>().begin(), enumNames<Op::Kind>().end()),
                    {"count", "wait", "for"}));
    }
    if (kinds.empty()) {
        m_diag.error(path, "expected one operation: " + verbs);
        return std::nullopt;
    }
    if (kinds.size() > 1) {
        m_diag.error(path,
            "more than one operation in one step (" + std::string(enumName(kinds[0])) + ", "
                + std::string(enumName(kinds[1])) + "): use one object per operation");
        return std::nullopt;
    }
    Op op;
    op.kind = kinds.front();
    const std::string verb(enumName(op.kind));
    const std::string valuePath = child(path, verb);
    const Json& value = v.at(verb);
    m_diag.notice(verb);
    if (v.contains("count") && op.kind != Op::Kind::Loop)
        m_diag.error(child(path, "count"), "only allowed beside \"loop\"");
    if (v.contains("wait") && op.kind != Op::Kind::Fork)
        m_diag.error(child(path, "wait"), "only allowed beside \"fork\"");
    if (v.contains("for") && op.kind != Op::Kind::Loop)
        m_diag.error(child(path, "for"), "only allowed beside \"loop\"");
    if ((op.kind == Op::Kind::Loop || op.kind == Op::Kind::Fork || op.kind == Op::Kind::Kernel)
        && depth + 1 > kMaxNesting) {
        m_diag.error(path,
            "loops and forks are nested more than " + std::to_string(kMaxNesting) + " levels deep");
        return std::nullopt;
    }
    switch (op.kind) {
    case Op::Kind::Run:
    case Op::Kind::Sleep:
        if (auto d = durationSpec(value, valuePath, op.kind == Op::Kind::Run))
            op.duration = *d;
        break;
    case Op::Kind::Loop:
        op.body = parseProgram(value, valuePath, policy, depth + 1);
        if (value.is_array() && value.empty())
            m_diag.error(valuePath, "a loop needs at least one operation");
        if (auto it = v.find("for"); it != v.end()) {
            // "for": repeat while less than this time has passed since the loop started.
            if (auto d = durationSpec(*it, child(path, "for"), false))
                op.forTime = *d;
            if (!v.contains("count") && !op.body.empty() && !programTakesTime(op.body)
                && !programYields(op.body))
                m_diag.error(valuePath,
                    "a loop with \"for\" needs a run, sleep or yield that takes time "
                    "(else simulated time never advances)");
        }
        if (auto it = v.find("count"); it != v.end()) {
            op.count = integer(*it, child(path, "count"), 1, Limits::maxLoopCount);
        } else if (!op.forTime && !v.contains("for") && !op.body.empty()
            && !programTakesTime(op.body)) {
            m_diag.error(valuePath,
                "an endless loop needs a run or sleep that takes time "
                "(else simulated time never advances); or give a \"count\"");
        }
        break;
    case Op::Kind::Kernel:
        // A section executed in kernel mode (a system call such as a read of a shared file):
        // not preemptible under preempt none/voluntary; the task-based throttle (6.18+) parks a
        // task only outside it.
        op.body = parseProgram(value, valuePath, policy, depth + 1);
        if (value.is_array() && value.empty())
            m_diag.error(valuePath, "a kernel section needs at least one operation");
        break;
    case Op::Kind::Yield:
    case Op::Kind::Exit:
        literalTrue(value, valuePath);
        break;
    case Op::Kind::Lock:
    case Op::Kind::Unlock:
        op.name = nameString(value, valuePath).value_or("");
        break;
    case Op::Kind::Fork:
        op.fork.push_back(parseTask(value, valuePath, TaskKind::Forked, policy, depth + 1));
        if (auto it = v.find("wait"); it != v.end())
            op.wait = boolean(*it, child(path, "wait")).value_or(false);
        break;
    case Op::Kind::Nice:
        op.nice = static_cast<int>(integer(value, valuePath, -20, 19).value_or(0));
        break;
    case Op::Kind::Cpus:
        op.name = cpuList(value, valuePath).value_or("");
        break;
    case Op::Kind::Cgroup:
        op.name = cgroupRef(value, valuePath).value_or("");
        break;
    case Op::Kind::Cookie:
        parseCookieOp(value, valuePath, op);
        break;
    case Op::Kind::Write:
        parseWrite(value, valuePath, op);
        break;
    }
    return op;
}

void Parser::parseCookieOp(const Json& v, const std::string& path, Op& op)
{
    // prctl(PR_SCHED_CORE, …): "create" a new cookie for this task, or share one with a task
    // named at run time (forked children are named PARENT.N, so the name is not checked here).
    const std::string expected = "\"create\", { \"share_to\": TASK } or { \"share_from\": TASK }";
    if (v.is_string()) {
        if (v.get_ref<const std::string&>() == "create") {
            op.cookie = Op::CookieCmd::Create;
            return;
        }
        m_diag.error(path, "expected " + expected + got(v));
        return;
    }
    if (!v.is_object() || v.size() != 1) {
        m_diag.error(path, "expected " + expected + got(v));
        return;
    }
    const auto it = v.begin();
    if (it.key() == "share_to") {
        op.cookie = Op::CookieCmd::ShareTo;
    } else if (it.key() == "share_from") {
        op.cookie = Op::CookieCmd::ShareFrom;
    } else {
        unknownKey(path, it.key(), {"share_to", "share_from"});
        return;
    }
    op.name = nameString(*it, child(path, it.key())).value_or("");
}

std::optional<Action> Parser::parseAction(const Json& v, const std::string& path)
{
    if (!expectObject(v, path, "an action such as { \"at\": \"1s\", \"kill\": \"a\" }"))
        return std::nullopt;
    Action action;
    std::vector<Action::Kind> kinds;
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (auto kind = enumFromName<Action::Kind>(it.key()))
            kinds.push_back(*kind);
        else if (it.key() != "at")
            unknownKey(path, it.key(),
                concat({"at"},
                    Keys(enumNames<Action::Kind>().begin(), enumNames<Action::Kind>().end())));
    }
    if (const Json* at = required(v, path, "at", "a duration such as \"1s\"")) {
        if (auto value = duration(*at, child(path, "at"))) {
            if (m_lastActionAt && *value < *m_lastActionAt)
                m_diag.error(child(path, "at"),
                    "actions must be in time order (the previous one is at "
                        + formatDuration(*m_lastActionAt) + ")");
            else
                beforeEnd(*value, *at, child(path, "at"), "an action time");
            action.at = *value;
            m_lastActionAt = value;
        }
    }
    if (kinds.size() != 1) {
        m_diag.error(path,
            kinds.empty() ? "expected one action: " + joinNames(enumNames<Action::Kind>())
                          : "more than one action in one entry: use one entry "
                            "per action");
        return std::nullopt;
    }
    action.kind = kinds.front();
    const std::string verb(enumName(action.kind));
    const std::string valuePath = child(path, verb);
    const Json& value = v.at(verb);
    m_diag.notice(verb);
    switch (action.kind) {
    case Action::Kind::Feature:
        parseFeatures(value, valuePath, action.features);
        if (value.is_object() && value.empty())
            m_diag.error(valuePath, "expected at least one feature");
        break;
    case Action::Kind::Profile: {
        const Json* name = &value;
        if (value.is_object()) {
            checkKeys(value, valuePath, {"name", "overrides"});
            auto it = value.find("name");
            name = it == value.end() ? nullptr : &*it;
            const auto overrides = value.find("overrides");
            if (!name
                && (overrides == value.end() || (overrides->is_object() && overrides->empty())))
                m_diag.error(valuePath, "expected \"name\" and/or non-empty \"overrides\"");
        } else if (!value.is_string()) {
            m_diag.error(valuePath,
                "expected a profile name or { \"name\": …, \"overrides\": { … } }" + got(value));
            break;
        }
        const std::string namePath = value.is_object() ? child(valuePath, "name") : valuePath;
        if (name)
            if (auto profile = stringValue(*name, namePath, true)) {
                if (findProfile(*profile))
                    action.profile = *profile;
                else
                    m_diag.error(namePath,
                        "unknown profile " + inQuotes(*profile) + " (known: " + profileNameList()
                            + ")");
            }
        if (value.is_object())
            if (auto it = value.find("overrides"); it != value.end())
                parseOverrides(*it, child(valuePath, "overrides"),
                    action.profile ? *findProfile(*action.profile) : scenarioProfile(),
                    action.overrides);
        break;
    }
    case Action::Kind::Set:
        parseSet(value, valuePath, action.set);
        break;
    case Action::Kind::Move:
        if (!expectObject(value, valuePath, "{ \"task\": …, \"cgroup\": … }"))
            break;
        checkKeys(value, valuePath, {"task", "cgroup"});
        if (const Json* task = required(value, valuePath, "task", "a task name"))
            action.task = taskRef(*task, child(valuePath, "task")).value_or("");
        if (const Json* cgroup = required(value, valuePath, "cgroup", "a cgroup path"))
            action.cgroup = cgroupRef(*cgroup, child(valuePath, "cgroup")).value_or("");
        break;
    case Action::Kind::Spawn:
        action.spawn.push_back(parseTask(value, valuePath, TaskKind::Spawned, Policy::Normal, 0));
        registerTaskNames(action.spawn.back(), valuePath);
        break;
    case Action::Kind::Kill:
        action.task = taskRef(value, valuePath).value_or("");
        break;
    }
    return action;
}

void Parser::parseSet(const Json& v, const std::string& path, SetAction& out)
{
    if (!expectObject(
            v, path, "{ \"cgroup\": …, cgroup files } or { \"task\": …, nice/cpus/slice/policy }"))
        return;
    checkKeys(v, path, concat(concat({"cgroup", "task"}, kCgroupFileKeys), kSetTaskKeys));
    const bool hasCgroup = v.contains("cgroup");
    const bool hasTask = v.contains("task");
    if (hasCgroup == hasTask) {
        m_diag.error(path,
            hasCgroup ? "give either \"cgroup\" or \"task\", not both"
                      : "expected \"cgroup\" (with cgroup files) or \"task\" "
                        "(with nice, cpus, slice or policy)");
        return;
    }
    if (hasCgroup) {
        out.cgroup = cgroupRef(v.at("cgroup"), child(path, "cgroup"));
        for (auto key : kSetTaskKeys)
            if (v.contains(std::string(key)))
                m_diag.error(child(path, key), "only allowed with \"task\"");
        const Json& cgroup = v.at("cgroup");
        parseCgroupFiles(
            v, path, cgroup.is_string() ? cgroup.get<std::string>() : std::string(), out.files);
        if (v.size() == 1)
            m_diag.error(path, "nothing to set: add a cgroup file such as \"cpu.weight\"");
        return;
    }
    out.task = taskRef(v.at("task"), child(path, "task"));
    for (auto key : kCgroupFileKeys)
        if (v.contains(std::string(key)))
            m_diag.error(child(path, key), "only allowed with \"cgroup\"");
    if (auto it = v.find("nice"); it != v.end())
        if (auto nice = integer(*it, child(path, "nice"), -20, 19))
            out.nice = static_cast<int>(*nice);
    if (auto it = v.find("cpus"); it != v.end())
        out.cpus = cpuList(*it, child(path, "cpus"));
    if (auto it = v.find("slice"); it != v.end())
        out.slice = slice(*it, child(path, "slice"));
    if (auto it = v.find("policy"); it != v.end()) {
        out.policy = enumValue<Policy>(*it, child(path, "policy"));
        if (out.policy)
            m_diag.notice("policy " + std::string(enumName(*out.policy)));
    }
    if (v.size() == 1)
        m_diag.error(path, "nothing to set: add nice, cpus, slice or policy");
}

void Parser::parseAnnotations(const Json& v, const std::string& path)
{
    if (!expectArray(v, path, "an array such as [ { \"at\": \"1s\", \"text\": \"…\" } ]"))
        return;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string entryPath = child(path, i);
        const Json& entry = v[i];
        if (!expectObject(
                entry, entryPath, "an annotation such as { \"at\": \"1s\", \"text\": \"…\" }"))
            continue;
        checkKeys(entry, entryPath, {"at", "text"});
        Annotation annotation;
        if (const Json* at = required(entry, entryPath, "at", "a duration such as \"1s\""))
            annotation.at = duration(*at, child(entryPath, "at")).value_or(Nanoseconds{0});
        if (const Json* value = required(entry, entryPath, "text", "a non-empty string"))
            annotation.text = freeText(*value, child(entryPath, "text"), true).value_or("");
        m_scenario.annotations.push_back(std::move(annotation));
    }
}

void Parser::registerTaskNames(const TaskSpec& task, const std::string& path)
{
    if (task.name.empty())
        return; // already reported
    const auto added = static_cast<size_t>(task.count.value_or(1));
    if (m_taskTotal + added > kMaxTasks) {
        if (m_taskTotal <= kMaxTasks)
            m_diag.error(path, "more than " + std::to_string(kMaxTasks) + " tasks in one scenario");
        m_taskTotal = kMaxTasks + 1;
        return;
    }
    m_taskTotal += added;
    if (auto clash = m_taskNames.add(task.name, task.count)) {
        std::string message = "duplicate task name " + inQuotes(*clash);
        if (task.count)
            message += " (count " + std::to_string(*task.count) + " makes " + task.name + "-1 ... "
                + task.name + "-" + std::to_string(*task.count) + ")";
        m_diag.error(child(path, "name"), message);
    }
}

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

LoadResult Parser::run(const std::string& text)
{
    if (text.size() > kMaxFileSize) {
        m_diag.raw("larger than 64 MiB, not a scenario file");
        return m_diag.finish({});
    }
    if (auto at = tooDeep(text, Limits::maxJsonDepth)) {
        m_diag.raw(parseErrorPosition(text, *at + 1) + ": nested more than "
            + std::to_string(Limits::maxJsonDepth) + " levels deep (arrays and objects)");
        return m_diag.finish({});
    }
    Json root;
    try {
        root = Json::parse(text, DuplicateKeyCheck(m_diag));
    } catch (const Json::parse_error& e) {
        m_diag.raw(parseErrorPosition(text, e.byte) + ": " + parseErrorText(e.what()));
        return m_diag.finish({});
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
        return m_diag.finish({});
    }
    parseTop(root);
    return m_diag.finish(std::move(m_scenario));
}

// ---------------------------------------------------------------------------------------------
// Writer

Json durationJson(Nanoseconds d)
{
    return formatDuration(d);
}

Json durationSpecJson(const DurationSpec& d)
{
    if (d.endless)
        return "forever";
    if (d.upper)
        return Json{{"uniform", Json::array({formatDuration(d.value), formatDuration(*d.upper)})}};
    return formatDuration(d.value);
}

void addCgroupFiles(Json& out, const CgroupFiles& files)
{
    if (files.weight)
        out["cpu.weight"] = *files.weight;
    if (files.weightNice)
        out["cpu.weight.nice"] = *files.weightNice;
    if (files.cpuMax)
        out["cpu.max"] = formatCpuMax(*files.cpuMax);
    if (files.idle)
        out["cpu.idle"] = *files.idle ? 1 : 0;
    if (files.rtRuntimeUs)
        out["cpu.rt_runtime_us"] = *files.rtRuntimeUs;
    if (files.rtPeriodUs)
        out["cpu.rt_period_us"] = *files.rtPeriodUs;
}

Json programJson(const std::vector<Op>& program);

Json taskJson(const TaskSpec& task, bool withName)
{
    Json out = Json::object();
    if (withName)
        out["name"] = task.name;
    if (task.count)
        out["count"] = *task.count;
    if (task.cgroup)
        out["cgroup"] = *task.cgroup;
    if (task.cpus)
        out["cpus"] = *task.cpus;
    if (task.policy)
        out["policy"] = enumName(*task.policy);
    if (task.nice)
        out["nice"] = *task.nice;
    if (task.rtPriority)
        out["rt_priority"] = *task.rtPriority;
    if (task.slice)
        out["slice"] = durationJson(*task.slice);
    if (task.cookie)
        out["cookie"] = *task.cookie;
    if (task.start)
        out["start"] = durationSpecJson(*task.start);
    if (task.probe)
        out["probe"] = true;
    if (!task.program.empty())
        out["program"] = programJson(task.program);
    return out;
}

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
        out[verb] = true;
        break;
    case Op::Kind::Lock:
    case Op::Kind::Unlock:
    case Op::Kind::Cpus:
    case Op::Kind::Cgroup:
        out[verb] = op.name;
        break;
    case Op::Kind::Fork:
        out[verb] = op.fork.empty() ? Json::object() : taskJson(op.fork.front(), false);
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
    case Op::Kind::Write: {
        Json files = Json{{"cgroup", op.name}};
        addCgroupFiles(files, op.files);
        out[verb] = files;
        break;
    }
    }
    return out;
}

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
        addCgroupFiles(value, set.files);
        if (set.nice)
            value["nice"] = *set.nice;
        if (set.cpus)
            value["cpus"] = *set.cpus;
        if (set.slice)
            value["slice"] = durationJson(*set.slice);
        if (set.policy)
            value["policy"] = enumName(*set.policy);
        out[verb] = value;
        break;
    }
    case Action::Kind::Move:
        out[verb] = Json{{"task", action.task}, {"cgroup", action.cgroup}};
        break;
    case Action::Kind::Spawn:
        out[verb] = action.spawn.empty() ? Json::object() : taskJson(action.spawn.front(), true);
        break;
    case Action::Kind::Kill:
        out[verb] = action.task;
        break;
    }
    return out;
}

Json scenarioJson(const Scenario& s)
{
    Json root = Json::object();
    root["schedlab"] = s.version;
    root["name"] = s.name;
    if (s.title)
        root["title"] = *s.title;
    if (s.description)
        root["description"] = *s.description;
    if (s.seed)
        root["seed"] = *s.seed;
    if (s.duration)
        root["duration"] = durationJson(*s.duration);

    Json kernel = Json::object();
    const KernelSpec& k = s.kernel;
    if (k.profile)
        kernel["profile"] = *k.profile;
    if (k.hz)
        kernel["hz"] = *k.hz;
    if (k.preempt)
        kernel["preempt"] = enumName(*k.preempt);
    if (k.baseSlice)
        kernel["base_slice"] = durationJson(*k.baseSlice);
    if (k.tunableScaling)
        kernel["tunable_scaling"] = enumName(*k.tunableScaling);
    if (!k.features.empty())
        kernel["features"] = k.features;
    if (!k.overrides.empty())
        kernel["overrides"] = k.overrides;
    if (!k.costs.empty()) {
        Json& costs = kernel["costs"] = Json::object();
        for (const auto& [name, value] : k.costs)
            costs[name] = durationJson(value);
    }
    if (!kernel.empty())
        root["kernel"] = kernel;

    Json machine = Json::object();
    if (s.machine.cpus)
        machine["cpus"] = *s.machine.cpus;
    if (s.machine.threadsPerCore)
        machine["threads_per_core"] = *s.machine.threadsPerCore;
    if (s.machine.coresPerLlc)
        machine["cores_per_llc"] = *s.machine.coresPerLlc;
    if (!machine.empty())
        root["machine"] = machine;

    if (!s.cgroups.empty()) {
        Json& cgroups = root["cgroups"] = Json::array();
        for (const CgroupSpec& cg : s.cgroups) {
            Json entry = Json{{"path", cg.path}};
            if (cg.count)
                entry["count"] = *cg.count;
            addCgroupFiles(entry, cg.files);
            cgroups.push_back(std::move(entry));
        }
    }
    if (!s.tasks.empty()) {
        Json& tasks = root["tasks"] = Json::array();
        for (const TaskSpec& task : s.tasks)
            tasks.push_back(taskJson(task, true));
    }
    if (!s.actions.empty()) {
        Json& actions = root["actions"] = Json::array();
        for (const Action& action : s.actions)
            actions.push_back(actionJson(action));
    }
    if (!s.annotations.empty()) {
        Json& annotations = root["annotations"] = Json::array();
        for (const Annotation& a : s.annotations)
            annotations.push_back(Json{{"at", formatDuration(a.at)}, {"text", a.text}});
    }
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

LoadResult parseScenario(const std::string& text, const std::string& fileName)
{
    try {
        return Parser(fileName).run(text);
    } catch (const std::exception& e) {
        LoadResult result;
        result.errors.push_back(fileName + ": internal error while reading: " + e.what());
        return result;
    }
}

LoadResult loadScenarioFile(const std::string& path)
{
    LoadResult failed;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        failed.errors.push_back(path + ": is a directory, not a scenario file");
        return failed;
    }
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) {
        failed.errors.push_back(path + ": cannot open: " + std::strerror(errno));
        return failed;
    }
    std::string text;
    char buffer[65536];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        text.append(buffer, n);
        if (text.size() > kMaxFileSize) {
            std::fclose(file);
            failed.errors.push_back(path + ": larger than 64 MiB, not a scenario file");
            return failed;
        }
    }
    const bool readError = std::ferror(file) != 0;
    std::fclose(file);
    if (readError) {
        failed.errors.push_back(path + ": cannot read: " + std::strerror(errno));
        return failed;
    }
    return parseScenario(text, path);
}

std::string writeScenario(const Scenario& scenario)
{
    std::string out;
    appendPretty(out, scenarioJson(scenario), 0, 0, true);
    out += '\n';
    return out;
}

std::string saveScenarioFile(const Scenario& scenario, const std::string& path)
{
    std::string text;
    try {
        text = writeScenario(scenario);
    } catch (const std::exception& e) {
        return path + ": cannot serialise: " + e.what();
    }
    AtomicFile file(path);
    file.stream() << text;
    return file.commit();
}

} // namespace schedlab
