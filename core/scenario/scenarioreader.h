// SPDX-License-Identifier: GPL-2.0-or-later
// The scenario reader (docs/scenario-format.md §1): the sections of a scenario file, read with
// the field tables of scenariofields.h and the value checks of jsonreader.h. Internal to
// core/scenario; the public entry points are in scenarioio.h.
//
// The reader never throws and never trusts the input: every value is type-checked, every error is
// collected as "FILE: /json/pointer: what was expected" and reading goes on after a bad field, so
// one run shows most problems. Every value is bounded (core/base/limits.h, docs/limits.md).
// Recursion follows only loops, kernel sections and forks and is capped at
// ScenarioLimits::maxProgramNesting. Sections are read in dependency order (machine before
// cpulists, cgroups before references to them, tasks before actions) regardless of their order
// in the file.
#pragma once

#include "core/kernel/profile.h"
#include "core/scenario/jsonreader.h"

#include <map>
#include <optional>
#include <string>

namespace schedlab::scenariojson {

enum class TaskKind { Listed, Spawned, Forked };

/// How a task object is read: where it stands and what it inherits.
struct TaskContext
{
    TaskKind kind = TaskKind::Listed;
    Policy inherited = Policy::Normal; ///< the parent's policy, for a forked child
    int depth = 0;                     ///< nesting of loops, kernel sections and forks
};

/// Where cgroup files are written: the object holding them and the cgroup (or pattern) they
/// belong to.
struct CgroupFileContext
{
    const Json* object = nullptr;
    std::string cgroup;
};

class ScenarioReader : public JsonReader
{
public:
    explicit ScenarioReader(const std::string& fileName)
        : JsonReader(fileName)
    { }

    LoadResult run(const std::string& text);

    // Values whose check depends on what was read before.
    std::optional<std::string> cpuList(const Json& v, const std::string& path);
    std::optional<std::string> cgroupRef(const Json& v, const std::string& path);
    std::optional<std::string> taskRef(const Json& v, const std::string& path);
    std::optional<Nanoseconds> slice(const Json& v, const std::string& path);
    /// True if @p t lies before the scenario's end; else reports "@p what … before the end".
    bool beforeEnd(Nanoseconds t, const Json& v, const std::string& path, std::string_view what);
    /// The profile the scenario names (or the default), for checking overrides.
    const KernelProfile& scenarioProfile() const;

    // Sections.
    void parseScenarioDuration(const Json& v, const std::string& path);
    void parseKernel(const Json& v, const std::string& path);
    void parseFeatures(const Json& v, const std::string& path, std::map<std::string, bool>& out);
    void parseOverrides(const Json& v, const std::string& path, const KernelProfile& profile,
        std::map<std::string, std::string>& out);
    void parseCosts(
        const Json& v, const std::string& path, std::map<std::string, Nanoseconds>& out);
    void parseMachine(const Json& v, const std::string& path);
    void parseCgroups(const Json& v, const std::string& path);
    void parseTasks(const Json& v, const std::string& path);
    void parseActions(const Json& v, const std::string& path);
    void parseAnnotations(const Json& v, const std::string& path);
    /// The rules across a SCHED_DEADLINE task's fields (kernel-model.md §15.1).
    void checkDeadline(TaskSpec& task, const Json& v, const std::string& path);
    std::vector<Op> parseProgram(const Json& v, const std::string& path, Policy policy, int depth);

private:
    void parseTop(const Json& root);
    void parseCgroupList(const Json& v, const std::string& path);
    void parseCgroupFiles(
        const Json& obj, const std::string& path, const std::string& cgroup, CgroupFiles& out);
    void parseWrite(const Json& v, const std::string& path, Op& op);
    TaskSpec parseTask(const Json& v, const std::string& path, const TaskContext& ctx);
    std::optional<Op> parseOp(const Json& v, const std::string& path, Policy policy, int depth);
    void parseCookieOp(const Json& v, const std::string& path, Op& op);
    std::optional<Action> parseAction(const Json& v, const std::string& path);
    void parseSet(const Json& v, const std::string& path, SetAction& out);
    void registerTaskNames(const TaskSpec& task, const std::string& path);
    void checkGroupRunQueues(const std::string& path);

    Scenario m_scenario;
    int m_cpus = 1; // CPU count for cpulists: the machine's, kMaxCpus while that is invalid
    std::map<std::string, size_t> m_cgroups; // listed path -> index in m_scenario.cgroups
    TaskNameSet m_taskNames;                 // listed and spawned so far
    size_t m_taskTotal = 0;
    size_t m_cgroupTotal = 0;                  // after count expansion, root not counted
    bool m_endKnown = true;                    // false while "duration" is invalid
    std::optional<Nanoseconds> m_lastActionAt; // actions must come in time order
};

} // namespace schedlab::scenariojson
