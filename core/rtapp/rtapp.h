// SPDX-License-Identifier: GPL-2.0-or-later
// rt-app workloads (https://github.com/scheduler-tools/rt-app, doc/tutorial.txt) to and from
// scenarios. Import maps the `global` section, `tasks` (instance, loop, phases, events) and the
// scheduling attributes onto a Scenario; what schedlab does not model is reported as a warning
// naming the line and JSON path, never dropped silently. Export writes a scenario's workload as
// rt-app JSON, with warnings for what rt-app cannot express. docs/rtapp.md has the mapping.
#pragma once

#include "core/sim/scenariospec.h"

#include <optional>
#include <string>
#include <vector>

namespace schedlab::rtapp {

struct ImportOptions
{
    /// Simulated CPUs; 0 = the highest CPU the file names + 1 (at least 1).
    int cpus = 0;
    /// Scenario name; empty = the file's base name without ".json".
    std::string name;
};

struct ImportResult
{
    std::optional<Scenario> scenario; ///< set when there were no errors
    /// "FILE:LINE: /json/path: what was expected", LINE and path those of the rt-app file (a
    /// limit of the scenario loader is told at the line of the thread it concerns).
    std::vector<std::string> errors;
    std::vector<std::string> warnings; ///< "FILE:LINE: /json/path: what was not imported"
    bool ok() const { return scenario.has_value(); }
};

/// The text that starts the annotation an import adds at 0 when it dropped rt-app
/// synchronisation events (wait, signal, broad, sync, barrier): "… THREAD (sync/barrier), …".
inline constexpr const char* kDroppedNote = "rt-app import dropped sync events of:";

/// The threads an import's kDroppedNote annotation names, with their dropped events
/// ("sync/barrier"), in the order of the note; empty when the scenario has no such note.
std::vector<std::pair<std::string, std::string>> droppedSyncThreads(const Scenario& scenario);
/// True when task @p task belongs to rt-app thread @p thread (the thread's name, or its name
/// followed by the importer's instance suffix "-N").
bool taskOfThread(const std::string& task, const std::string& thread);

/// Imports rt-app JSON @p text; @p fileName is used in messages and for the default name.
ImportResult importRtApp(
    const std::string& text, const std::string& fileName, const ImportOptions& options = {});
/// Reads @p path and imports it; an unreadable file is an error naming the file.
ImportResult importRtAppFile(const std::string& path, const ImportOptions& options = {});

struct ExportResult
{
    std::string json;                  ///< rt-app JSON text (tabs, trailing newline)
    std::vector<std::string> warnings; ///< "/tasks/2/program/1: what rt-app cannot express"
    /// "/tasks/2: why it cannot be exported" (then json is empty): the file would exceed
    /// kMaxExportEvents.
    std::vector<std::string> errors;
    bool ok() const { return errors.empty(); }
};

/// rt-app has no loop inside a phase: a loop nested below one is unrolled when its unrolled
/// events (nested loops unrolled too) are at most this many, else its body is written once.
inline constexpr int64_t kMaxUnrolledEvents = 1000;
/// Events in one exported file (unrolled loops and forked threads' copies included): beyond it
/// the export is refused, so that a small scenario cannot make a file of unbounded size.
inline constexpr int64_t kMaxExportEvents = 100'000;

/// Writes the workload of @p scenario as rt-app JSON.
ExportResult exportRtApp(const Scenario& scenario);

/// The loop quantum of an imported `runtime` event: runtime T becomes
/// { "loop": [ { "run": Q } ], "for": T } with Q = min(T, kRuntimeQuantum).
inline constexpr Nanoseconds kRuntimeQuantum{10'000};

} // namespace schedlab::rtapp
