// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace schedlab {

/// The one argument reader of every command-line front end (schedlab-cli's commands,
/// schedlab-run, the capture and sweep-plot tools). It walks the words in order and knows the
/// conventions they all share; what an option means, and the message for a bad value, stay
/// with the command:
/// - an option is a word that starts with '-' and is not "-" (standard input/output);
/// - an option's value is the next word, taken as it is (so `--metrics -` and `--title -x`
///   work), or the text after '=' in `--opt=value`; an empty value (`--opt=`) or none at the
///   end of the line is an error "OPT needs a value";
/// - a flag (an option without a value) matches only as the whole word: `--quiet=1` is not
///   `--quiet` and falls through to the command's "unknown option";
/// - repeated options are read each time they appear: the command decides whether the last one
///   wins or they add up (--variant, --param);
/// - after the word "--" every word is a positional argument, even one that starts with '-'.
///
/// Usage:
///   ArgReader r(args, 1);
///   while (r.next()) {
///       if (r.flag("--quiet")) quiet = true;
///       else if (r.option("--out")) { if (!r.value(out)) return fail(r.error()); }
///       else if (r.isOption()) return fail("unknown option " + r.word());
///       else files.push_back(r.word());
///   }
class ArgReader
{
public:
    /// Reads args[from...]; args must outlive the reader.
    explicit ArgReader(const std::vector<std::string>& args, size_t from = 0);

    /// Moves to the next word, skipping the first "--" (which ends the options).
    /// False at the end of the line.
    bool next();

    /// The current word as written (`--out=x` whole).
    const std::string& word() const;
    /// The current option's name: the word up to '=' (`--out` for `--out=x`); the word itself
    /// for a positional argument.
    std::string name() const;
    /// True when the current word is an option (see above); false after "--".
    bool isOption() const;
    /// The current word is the flag `name` (exactly, no "=value").
    bool flag(std::string_view name) const;
    /// The current word is the option `name`, as `name` or `name=value`.
    bool option(std::string_view name) const;
    /// The current option's value (after '=' or the next word, which next() then skips; word()
    /// and option() still speak of the option).
    /// False, with error() "NAME needs a value", when there is none.
    bool value(std::string& out);
    /// Whether the current option has a value, without consuming it.
    bool hasValue() const;
    /// Whether "--" has been passed (a command that hands words on to another parser puts it
    /// back before the first word after it).
    bool endOfOptions() const { return m_endOfOptions; }
    /// The index of the current word in args.
    size_t index() const { return m_cur; }
    /// The message of the last failed value().
    const std::string& error() const { return m_error; }

private:
    const std::vector<std::string>& m_args;
    size_t m_cur;  ///< the current word
    size_t m_next; ///< the word next() moves to (past a value taken from the next word)
    bool m_endOfOptions = false; ///< "--" was seen
    std::string m_error;
};

} // namespace schedlab
