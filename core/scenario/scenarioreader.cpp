// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenarioreader.h"

#include "core/base/cpuset.h"
#include "core/base/limits.h"
#include "core/kernel/catalogue.h"
#include "core/kernel/costs.h"
#include "core/kernel/features.h"
#include "core/scenario/scenariofields.h"

#include <algorithm>

namespace schedlab::scenariojson {

namespace {

using Limits = ScenarioLimits;
constexpr int kMaxNesting = Limits::maxProgramNesting;
constexpr int64_t kMaxCount = Limits::maxEntryCount;
constexpr size_t kMaxTasks = Limits::maxTasks;
constexpr size_t kMaxUserDepth = Limits::maxUserDepth;
constexpr int kMaxCpus = Limits::maxCpus;
constexpr int64_t kDefaultRtPeriodUs = 1000000;

} // namespace

LoadResult ScenarioReader::run(const std::string& text)
{
    auto root = parse(text);
    if (!root)
        return m_diag.finish({});
    parseTop(*root);
    return m_diag.finish(std::move(m_scenario));
}

// ---------------------------------------------------------------------------------------------
// Values that depend on what was read before

std::optional<std::string> ScenarioReader::cpuList(const Json& v, const std::string& path)
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

std::optional<std::string> ScenarioReader::cgroupRef(const Json& v, const std::string& path)
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

std::optional<std::string> ScenarioReader::taskRef(const Json& v, const std::string& path)
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

std::optional<Nanoseconds> ScenarioReader::slice(const Json& v, const std::string& path)
{
    auto value = duration(v, path);
    if (value && (*value < 100_us || *value > 100_ms)) {
        m_diag.error(path, "expected a slice between 0.1ms and 100ms" + got(v));
        return std::nullopt;
    }
    return value;
}

/// True if @p t lies before the scenario's end; else reports "@p what … before the end".
bool ScenarioReader::beforeEnd(
    Nanoseconds t, const Json& v, const std::string& path, std::string_view what)
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

const KernelProfile& ScenarioReader::scenarioProfile() const
{
    const KernelProfile* profile =
        m_scenario.kernel.profile ? findProfile(*m_scenario.kernel.profile) : nullptr;
    return profile ? *profile : defaultProfile();
}

void ScenarioReader::parseTop(const Json& root)
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
    const Keys known = keysOf(scenarioFields());
    for (auto it = root.begin(); it != root.end(); ++it)
        if (!it.key().starts_with("x-") && !contains(known, it.key()))
            unknownKey("", it.key(), concat(known, {"x-…"}));
    readFields(*this, scenarioFields(), root, "", m_scenario);
}

void ScenarioReader::parseScenarioDuration(const Json& v, const std::string& path)
{
    auto value = duration(v, path);
    if (value && value->count() == 0)
        m_diag.error(path, "the run must last longer than 0s");
    else
        m_scenario.duration = value;
    m_endKnown = m_scenario.duration.has_value();
}

void ScenarioReader::parseTasks(const Json& v, const std::string& path)
{
    if (!expectArray(v, path, "an array of tasks"))
        return;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string taskPath = child(path, i);
        TaskSpec task = parseTask(v[i], taskPath, TaskContext{});
        registerTaskNames(task, taskPath);
        m_scenario.tasks.push_back(std::move(task));
    }
}

void ScenarioReader::parseActions(const Json& v, const std::string& path)
{
    if (!expectArray(v, path, "an array of actions"))
        return;
    for (size_t i = 0; i < v.size(); ++i)
        if (auto action = parseAction(v[i], child(path, i)))
            m_scenario.actions.push_back(std::move(*action));
}

void ScenarioReader::parseKernel(const Json& v, const std::string& path)
{
    if (!expectObject(v, path, "an object with the kernel settings"))
        return;
    checkKeys(v, path, keysOf(kernelFields()));
    for (auto it = v.begin(); it != v.end(); ++it)
        m_diag.notice(it.key());
    readFields(*this, kernelFields(), v, path, m_scenario.kernel);
}

void ScenarioReader::parseCosts(
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

void ScenarioReader::parseFeatures(
    const Json& v, const std::string& path, std::map<std::string, bool>& out)
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

void ScenarioReader::parseOverrides(const Json& v, const std::string& path,
    const KernelProfile& profile, std::map<std::string, std::string>& out)
{
    if (!expectObject(
            v, path, "a map of behaviour choices to values, e.g. { \"reweight\": \"rescale\" }"))
        return;
    ProfileChoices choices = profile.choices;
    ProfileTraits traits = profile.traits;
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
        if (applyOverride(choices, traits, it.key(), value, &reason))
            out[it.key()] = value;
        else
            m_diag.error(choicePath, reason);
    }
}

void ScenarioReader::parseMachine(const Json& v, const std::string& path)
{
    m_cpus = kMaxCpus; // until the CPU count is known to be valid
    if (!expectObject(v, path, "an object such as { \"cpus\": 4 }"))
        return;
    checkKeys(v, path, keysOf(machineFields()));
    MachineSpec& machine = m_scenario.machine;
    readFields(*this, machineFields(), v, path, machine);
    // Cross-field checks, once every size given is valid (else cpulists are checked for syntax
    // only): SMT threads divide the CPUs, LLCs divide the cores.
    for (const auto& field : machineFields()) {
        Json written = Json::object();
        field.write(machine, written, {});
        if (v.contains(std::string(field.key)) && written.empty())
            return;
    }
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
    // The per-CPU arrays hold one entry per CPU.
    auto perCpu = [&](const std::optional<std::vector<int>>& values, const char* key,
                      const char* entry) {
        if (values && values->size() != static_cast<size_t>(cpus))
            m_diag.error(child(path, key),
                std::string("expected one ") + entry + " per CPU (" + std::to_string(cpus)
                    + "), got " + std::to_string(values->size()));
    };
    perCpu(machine.capacities, "capacities", "capacity");
    perCpu(machine.itmtPriorities, "itmt_priorities", "ITMT priority");
}

void ScenarioReader::parseCgroups(const Json& v, const std::string& path)
{
    parseCgroupList(v, path);
    checkGroupRunQueues(path);
}

void ScenarioReader::parseCgroupList(const Json& v, const std::string& path)
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
        checkKeys(entry, entryPath, concat({"path", "count"}, keysOf(cgroupFileFields())));
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

void ScenarioReader::checkGroupRunQueues(const std::string& path)
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

void ScenarioReader::parseCgroupFiles(
    const Json& obj, const std::string& path, const std::string& cgroup, CgroupFiles& out)
{
    readFields(*this, cgroupFileFields(), obj, path, out, CgroupFileContext{&obj, cgroup});
    // cpu.rt_runtime_us is bounded by the period: of this object, else the cgroup's listed one.
    auto it = obj.find("cpu.rt_runtime_us");
    if (it == obj.end())
        return;
    m_diag.notice("cpu.rt_runtime_us");
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

void ScenarioReader::parseWrite(const Json& v, const std::string& path, Op& op)
{
    if (!expectObject(v, path,
            "{ \"cgroup\": PATH or PATTERN, cgroup files }, e.g. { \"cgroup\": \"/g-*\", "
            "\"cpu.rt_runtime_us\": 0 }"))
        return;
    checkKeys(v, path, concat({"cgroup"}, keysOf(cgroupFileFields())));
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

TaskSpec ScenarioReader::parseTask(const Json& v, const std::string& path, const TaskContext& ctx)
{
    const TaskKind kind = ctx.kind;
    const Keys known = keysOf(taskFields());
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
        } else if (kind == TaskKind::Forked && key == "kernel_thread") {
            m_diag.error(keyPath, "not allowed in a fork: a task does not fork a kernel thread");
        } else if (kind == TaskKind::Spawned && key == "start") {
            m_diag.error(keyPath, "not allowed in a spawn: the task starts at the action's \"at\"");
        } else if (!contains(known, key)) {
            unknownKey(path, key, known);
        } else if (key != "name" && key != "cgroup" && key != "cpus" && key != "nice"
            && key != "program" && key != "policy") {
            // "cgroup", "cpus" and "nice" are also operation names; task placement is simulated.
            m_diag.notice(key);
        }
    }
    readFields(*this, taskFields(), v, path, task, ctx);
    checkDeadline(task, v, path);
    return task;
}

void ScenarioReader::checkDeadline(TaskSpec& task, const Json& v, const std::string& path)
{
    // SCHED_DEADLINE (kernel-model.md §15.1): runtime and deadline are needed, and
    // __checkparam_dl()'s EINVAL rules hold. (A forked child may set it for itself; only the
    // fork of a SCHED_DEADLINE task fails, which the model reports when it runs.)
    if (task.policy != Policy::Deadline)
        return;
    for (const char* key : {"runtime", "deadline"})
        if (!v.contains(key))
            m_diag.error(path, std::string("policy deadline needs \"") + key + "\" (a duration)");
    if (!task.dl || !v.contains("runtime") || !v.contains("deadline"))
        return;
    const DlParams& p = *task.dl;
    if (p.runtime < (int64_t{1} << kDlScale))
        m_diag.error(child(path, "runtime"),
            "expected at least 1024ns (1 << DL_SCALE, sched_setattr() gives EINVAL)");
    else if (p.runtime > p.deadline)
        m_diag.error(child(path, "runtime"),
            "expected at most the deadline " + formatDuration(Nanoseconds(p.deadline))
                + " (sched_setattr() gives EINVAL)");
    else if (v.contains("period") && p.period < p.deadline)
        m_diag.error(child(path, "deadline"),
            "expected at most the period " + formatDuration(Nanoseconds(p.period))
                + " (sched_setattr() gives EINVAL)");
    else if (const std::string why = checkDlParams(p); !why.empty())
        m_diag.error(child(path, v.contains("period") ? "period" : "deadline"),
            "sched_setattr() gives EINVAL: " + why);
}

std::vector<Op> ScenarioReader::parseProgram(
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

std::optional<Op> ScenarioReader::parseOp(
    const Json& v, const std::string& path, Policy policy, int depth)
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
    case Op::Kind::CpuClock:
        literalTrue(value, valuePath);
        break;
    case Op::Kind::Lock:
    case Op::Kind::Unlock:
    case Op::Kind::Suspend:
    case Op::Kind::Resume:
    case Op::Kind::Complete:
    case Op::Kind::WaitCompletion:
        op.name = nameString(value, valuePath).value_or("");
        break;
    case Op::Kind::Fork:
        op.fork.push_back(
            parseTask(value, valuePath, TaskContext{TaskKind::Forked, policy, depth + 1}));
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

void ScenarioReader::parseCookieOp(const Json& v, const std::string& path, Op& op)
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

std::optional<Action> ScenarioReader::parseAction(const Json& v, const std::string& path)
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
        action.spawn.push_back(parseTask(value, valuePath, TaskContext{TaskKind::Spawned}));
        registerTaskNames(action.spawn.back(), valuePath);
        break;
    case Action::Kind::Kill:
        action.task = taskRef(value, valuePath).value_or("");
        break;
    }
    return action;
}

void ScenarioReader::parseSet(const Json& v, const std::string& path, SetAction& out)
{
    if (!expectObject(
            v, path, "{ \"cgroup\": …, cgroup files } or { \"task\": …, nice/cpus/slice/policy }"))
        return;
    const Keys fileKeys = keysOf(cgroupFileFields());
    const Keys taskKeys = keysOf(setTaskFields());
    checkKeys(v, path, concat(concat({"cgroup", "task"}, fileKeys), taskKeys));
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
        for (auto key : taskKeys)
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
    for (auto key : fileKeys)
        if (v.contains(std::string(key)))
            m_diag.error(child(path, key), "only allowed with \"cgroup\"");
    readFields(*this, setTaskFields(), v, path, out);
    if (v.size() == 1)
        m_diag.error(path, "nothing to set: add nice, cpus, slice or policy");
}

void ScenarioReader::parseAnnotations(const Json& v, const std::string& path)
{
    if (!expectArray(v, path, "an array such as [ { \"at\": \"1s\", \"text\": \"…\" } ]"))
        return;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string entryPath = child(path, i);
        const Json& entry = v[i];
        if (!expectObject(
                entry, entryPath, "an annotation such as { \"at\": \"1s\", \"text\": \"…\" }"))
            continue;
        checkKeys(entry, entryPath, keysOf(annotationFields()));
        Annotation annotation;
        readFields(*this, annotationFields(), entry, entryPath, annotation);
        m_scenario.annotations.push_back(std::move(annotation));
    }
}

void ScenarioReader::registerTaskNames(const TaskSpec& task, const std::string& path)
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

} // namespace schedlab::scenariojson

namespace schedlab {

LoadResult parseScenario(const std::string& text, const std::string& fileName)
{
    try {
        return scenariojson::ScenarioReader(fileName).run(text);
    } catch (const std::exception& e) {
        LoadResult result;
        result.errors.push_back(fileName + ": internal error while reading: " + e.what());
        return result;
    }
}

} // namespace schedlab
