// SPDX-License-Identifier: GPL-2.0-or-later
// Field tables: one declarative row per key of a flat scenario struct (key, how to read and check
// the value into its member, how to write the member back). The known-keys check, the reader and
// the writer all walk the same table, so a key is spelled once (docs/scenario-format.md §1).
// Rules that involve several fields are explicit checks in the section readers
// (scenarioreader.cpp), not hidden in a row.
#pragma once

#include "core/scenario/jsonreader.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace schedlab::scenariojson {

class ScenarioReader;

/// For structs whose fields are read the same way everywhere.
struct NoContext
{ };

template <typename S, typename Ctx = NoContext> struct Field
{
    /// Checks @p value (at JSON pointer @p path) and stores it in its member of @p out; reports
    /// what was expected otherwise. Fields listed earlier in the table are already read.
    using Read = std::function<void(
        ScenarioReader& reader, const Json& value, const std::string& path, S& out, const Ctx&)>;
    /// Adds the member to @p out under the key if it is set.
    using Write = std::function<void(const S& in, Json& out, const Ctx&)>;
    /// Whether the key exists in this context (a forked task has no name).
    using Applies = std::function<bool(const Ctx&)>;

    std::string_view key;
    Read read; ///< empty: read by an explicit cross-field check of the section
    Write write;
    std::string_view required{}; ///< non-empty: the key must be given; this says what is expected
    Applies applies{};           ///< empty: always
};

template <typename S, typename Ctx = NoContext> using FieldTable = std::vector<Field<S, Ctx>>;

/// The keys of a table, in table order (the order of "expected one of: …" and of the writer).
template <typename S, typename Ctx> Keys keysOf(const FieldTable<S, Ctx>& table)
{
    Keys keys;
    keys.reserve(table.size());
    for (const auto& field : table)
        keys.push_back(field.key);
    return keys;
}

/// Reads every field of @p table that applies in @p ctx, in table order: a missing required one
/// is an error, a present one is read by its row. Unknown keys are the caller's (checkKeys).
template <typename Reader, typename S, typename Ctx>
void readFields(Reader& reader, const FieldTable<S, Ctx>& table, const Json& obj,
    const std::string& path, S& out, const Ctx& ctx = {})
{
    for (const auto& field : table) {
        if (!field.read || (field.applies && !field.applies(ctx)))
            continue;
        const std::string key(field.key);
        const Json* value = nullptr;
        if (!field.required.empty()) {
            value = reader.required(obj, path, key, field.required);
        } else if (auto it = obj.find(key); it != obj.end()) {
            value = &*it;
        }
        if (value)
            field.read(reader, *value, child(path, key), out, ctx);
    }
}

/// Writes every field of @p table that applies in @p ctx, in table order.
template <typename S, typename Ctx>
void writeFields(const FieldTable<S, Ctx>& table, const S& in, Json& out, const Ctx& ctx = {})
{
    for (const auto& field : table)
        if (!field.applies || field.applies(ctx))
            field.write(in, out, ctx);
}

} // namespace schedlab::scenariojson
