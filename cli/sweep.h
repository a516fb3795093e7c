// SPDX-License-Identifier: GPL-2.0-or-later
// Parameter sweeps (docs/sweeps.md): `schedlab-cli sweep FILE --param KEY=V1,V2,… [--seeds N]
// [--jobs N] [--shard i/n] --out results.csv` runs the cartesian product of the parameters' values
// times the seeds on local threads and writes one CSV, a row per run in grid order (the bytes do
// not depend on --jobs or on completion order); `sweep-merge` joins the CSVs of the shards. The
// CSV is read with core/base/csv.h; the plot of a column against a parameter is drawn by the
// drawing library schedlab_plot (ui/export/sweepplot.h).
#pragma once

#include "core/base/csv.h"
#include "core/kernel/runoptions.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace schedlab::sweep {

/// One --param KEY=V1,V2,…: what KEY names decides how a value is applied.
struct Param
{
    enum class Kind {
        Profile,   ///< profile=6.12,7.1
        Feature,   ///< PLACE_LAG=on,off (a sched feature)
        Choice,    ///< reweight=eevdf,… (a behaviour choice, as --override)
        RunOption, ///< duration=…, watchdog=… (as --duration / --watchdog)
        Pointer    ///< /json/pointer=… into the scenario, applied before it is read
    };
    std::string key;
    Kind kind = Kind::Profile;
    std::vector<std::string> values;
};

/// Splits "V1,V2,…" at the commas outside quotes and brackets, so a JSON value may hold commas:
/// `/tasks/0/cpus="0,1","2"` has two values. False with @p error for an empty list or value or
/// unbalanced quotes/brackets.
bool splitValues(const std::string& text, std::vector<std::string>& values, std::string* error);

/// Parses one --param text and checks every value (a profile name, on/off for a feature, a
/// choice's value, a duration); pointers are checked against the scenario later
/// (applyPointer()). False with a message naming the parameter and what was expected.
bool parseParam(const std::string& text, Param& param, std::string* error);

/// Applies a non-pointer parameter's value to @p options (the compare --variant machinery).
bool applyToOptions(
    const Param& param, const std::string& value, RunOptions& options, std::string* error);

/// Sets the JSON pointer @p pointer in the scenario text @p json to @p value (JSON text; when it is
/// not valid JSON, the string itself, so 250ms needs no quotes). The pointer must lead to an
/// existing element, except that its last token may add a member to an existing object. False
/// with a message naming the pointer and what the scenario has there.
bool applyPointer(
    std::string& json, const std::string& pointer, const std::string& value, std::string* error);

/// The grid: the cartesian product of the parameters' values, the first parameter varying
/// slowest, then the seeds (fastest). Run k = ((i1·n2 + i2)·n3 + …)·S + s.
struct Grid
{
    std::vector<Param> params;
    std::vector<uint64_t> seeds;
    /// Number of parameter combinations (the product of the value counts; 1 without params).
    size_t combinations() const;
    size_t runs() const { return combinations() * seeds.size(); }
    /// The value index of each parameter for parameter combination @p c.
    std::vector<size_t> combination(size_t c) const;
    size_t combinationOfRun(size_t k) const { return k / seeds.size(); }
    uint64_t seedOfRun(size_t k) const { return seeds[k % seeds.size()]; }
};

/// --shard i/n: run k belongs to shard k mod n.
struct Shard
{
    size_t index = 0;
    size_t count = 1;
};
bool parseShard(const std::string& text, Shard& shard, std::string* error);
/// The runs of @p shard in a grid of @p runs runs, in grid order.
std::vector<size_t> shardRuns(size_t runs, const Shard& shard);

/// `schedlab-cli sweep …` and `schedlab-cli sweep-merge A.csv B.csv … --out all.csv`; exit codes
/// as schedlab-cli (0 ok, 2 bad input, 3/4 some run stopped by a guard / broke an invariant, the
/// CSV is written all the same).
int runSweepCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int runSweepMergeCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace schedlab::sweep
