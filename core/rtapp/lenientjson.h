// SPDX-License-Identifier: GPL-2.0-or-later
// The JSON dialect of rt-app workload files: what workgen (rt-app's preprocessor) accepts on top
// of strict JSON. Object members keep their order and duplicates ("run" several times in one
// phase are successive events), C comments (/* */, //) and trailing commas are allowed, and a
// member may be a bare key without a value ("suspend", — a null value). Every value carries the
// line it starts on, for messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace schedlab::rtapp {

struct Member;

struct Value
{
    enum class Type { Null, Bool, Integer, Real, String, Array, Object };
    Type type = Type::Null;
    bool boolean = false;
    int64_t integer = 0; ///< Integer
    std::string text;    ///< String; the literal as written for Integer and Real
    std::vector<Value> items;
    std::vector<Member> members; ///< in file order, duplicates kept
    int line = 1;

    bool isObject() const { return type == Type::Object; }
    /// The first member named @p key, or nullptr.
    const Value* find(const std::string& key) const;
    /// "an integer", "a string", … for messages.
    std::string describe() const;
};

/// One member of an object: its key (first) and value (second). A struct of its own rather than
/// std::pair, because a pair may not name Value while Value is still incomplete.
struct Member
{
    std::string first;
    Value second;
};

/// Parses @p text. On a syntax error returns nullopt and sets @p error to "line N: expected …".
std::optional<Value> parseLenient(const std::string& text, std::string* error);

} // namespace schedlab::rtapp
