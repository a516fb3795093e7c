// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenariofields.h"

#include "core/base/limits.h"
#include "core/kernel/profile.h"
#include "core/sched/topology.h"

#include <climits>

namespace schedlab::scenariojson {

namespace {

using Limits = ScenarioLimits;

// ---------------------------------------------------------------------------------------------
// Checks: read one JSON value into the type of a member, reporting what was expected.

template <typename T>
using Check = std::function<std::optional<T>(ScenarioReader&, const Json&, const std::string&)>;

Check<int> intIn(int64_t lo, int64_t hi)
{
    return [lo, hi](ScenarioReader& r, const Json& v, const std::string& path) {
        auto value = r.integer(v, path, lo, hi);
        return value ? std::optional(static_cast<int>(*value)) : std::nullopt;
    };
}

Check<int64_t> int64In(int64_t lo, int64_t hi)
{
    return [lo, hi](ScenarioReader& r, const Json& v, const std::string& path) {
        return r.integer(v, path, lo, hi);
    };
}

template <typename E> Check<E> enumOf()
{
    return [](ScenarioReader& r, const Json& v, const std::string& path) {
        return r.enumValue<E>(v, path);
    };
}

/// A policy; "policy NAME" is reported once if that policy is not simulated yet.
std::optional<Policy> policyValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    auto policy = r.enumValue<Policy>(v, path);
    if (policy)
        r.diag().notice("policy " + std::string(enumName(*policy)));
    return policy;
}

std::optional<int> niceValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    return intIn(-20, 19)(r, v, path);
}

std::optional<uint64_t> unsignedValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    return r.unsignedInteger(v, path);
}

std::optional<std::string> textValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    return r.freeText(v, path, false);
}

std::optional<std::string> cpuListValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    return r.cpuList(v, path);
}

std::optional<std::string> cgroupValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    return r.cgroupRef(v, path);
}

std::optional<Nanoseconds> sliceValue(ScenarioReader& r, const Json& v, const std::string& path)
{
    return r.slice(v, path);
}

// ---------------------------------------------------------------------------------------------
// Writers: the JSON form of a member's value.

template <typename T> using ToJson = std::function<Json(const T&)>;

template <typename T> Json asIs(const T& value)
{
    return value;
}

template <typename E> Json asName(const E& value)
{
    return enumName(value);
}

// ---------------------------------------------------------------------------------------------
// Rows.

/// An optional member read by @p check and written by @p toJson when set.
template <typename S, typename T, typename Ctx = NoContext>
Field<S, Ctx> optionalField(
    std::string_view key, std::optional<T> S::*member, Check<T> check, ToJson<T> toJson = asIs<T>)
{
    return {key,
        [member, check](ScenarioReader& r, const Json& v, const std::string& path, S& out,
            const Ctx&) { out.*member = check(r, v, path); },
        [key, member, toJson](const S& in, Json& out, const Ctx&) {
            if (in.*member)
                out[std::string(key)] = toJson(*(in.*member));
        }};
}

/// A row whose reading and writing are spelled out (sections, values with their own rules).
template <typename S, typename Ctx = NoContext>
Field<S, Ctx> customField(std::string_view key, typename Field<S, Ctx>::Read read,
    typename Field<S, Ctx>::Write write, std::string_view required = {})
{
    return {key, std::move(read), std::move(write), required, {}};
}

/// A row without a reader: the section reads it with a cross-field check.
template <typename S, typename Ctx = NoContext>
Field<S, Ctx> crossField(std::string_view key, typename Field<S, Ctx>::Write write)
{
    return {key, {}, std::move(write), {}, {}};
}

/// @p field, for the contexts in which its key exists.
template <typename S, typename Ctx>
Field<S, Ctx> onlyWhen(Field<S, Ctx> field, typename Field<S, Ctx>::Applies applies)
{
    field.applies = std::move(applies);
    return field;
}

/// A cgroup file: reported if not simulated yet, and refused on the root cgroup unless it is
/// one of the RT files (the kernel's root has no cpu.weight, cpu.max or cpu.idle).
template <typename T>
Field<CgroupFiles, CgroupFileContext> cgroupFile(std::string_view key,
    std::optional<T> CgroupFiles::*member,
    std::function<std::optional<T>(
        ScenarioReader&, const Json&, const std::string&, const CgroupFileContext&)>
        check,
    ToJson<T> toJson = asIs<T>)
{
    return {key,
        [key, member, check](ScenarioReader& r, const Json& v, const std::string& path,
            CgroupFiles& out, const CgroupFileContext& ctx) {
            r.diag().notice(key);
            if (ctx.cgroup == "/" && !key.starts_with("cpu.rt_")) {
                r.diag().error(path,
                    "the root cgroup has no " + std::string(key)
                        + " (only cpu.rt_runtime_us and cpu.rt_period_us)");
                return;
            }
            out.*member = check(r, v, path, ctx);
        },
        [key, member, toJson](const CgroupFiles& in, Json& out, const CgroupFileContext&) {
            if (in.*member)
                out[std::string(key)] = toJson(*(in.*member));
        }};
}

template <typename T>
std::function<std::optional<T>(
    ScenarioReader&, const Json&, const std::string&, const CgroupFileContext&)>
plain(Check<T> check)
{
    return [check](ScenarioReader& r, const Json& v, const std::string& path,
               const CgroupFileContext&) { return check(r, v, path); };
}

/// A machine size: reported if not simulated yet, then an integer in [lo, hi].
Field<MachineSpec> machineSize(
    std::string_view key, std::optional<int> MachineSpec::*member, int64_t lo, int64_t hi)
{
    Field<MachineSpec> field = optionalField(key, member, intIn(lo, hi));
    field.read = [key, member, lo, hi](ScenarioReader& r, const Json& v, const std::string& path,
                     MachineSpec& out, const NoContext&) {
        r.diag().notice(key);
        out.*member = intIn(lo, hi)(r, v, path);
    };
    return field;
}

/// An array of integers in [lo, hi], one per CPU (@p what names it in the error: "an array of
/// CPU capacities"); nothing is kept if any entry is bad.
Field<MachineSpec> perCpuInts(std::string_view key,
    std::optional<std::vector<int>> MachineSpec::*member, int lo, int hi, std::string_view what)
{
    return customField<MachineSpec>(
        key,
        [member, lo, hi, what](ScenarioReader& r, const Json& v, const std::string& path,
            MachineSpec& m, const NoContext&) {
            if (!r.expectArray(v, path,
                    std::string(what) + " " + std::to_string(lo) + "–" + std::to_string(hi)
                        + ", one per CPU"))
                return;
            std::vector<int> values;
            bool ok = true;
            for (size_t i = 0; i < v.size() && i <= size_t(Limits::maxCpus); ++i) {
                const auto value = intIn(lo, hi)(r, v[i], child(path, i));
                ok = ok && value.has_value();
                values.push_back(value.value_or(lo));
            }
            if (ok)
                m.*member = std::move(values);
        },
        [key, member](const MachineSpec& m, Json& out, const NoContext&) {
            if (m.*member)
                out[std::string(key)] = *(m.*member);
        });
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Writer helpers

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

// ---------------------------------------------------------------------------------------------
// The tables

const FieldTable<Scenario>& scenarioFields()
{
    static const FieldTable<Scenario> table{
        customField<Scenario>(
            "schedlab",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario& s,
                const NoContext&) {
                if (v.is_number() && v == 1)
                    s.version = 1;
                else if (v.is_number_integer())
                    r.diag().error(path,
                        "unsupported format version " + dumpSafe(v)
                            + " (this schedlab reads version 1)");
                else
                    r.diag().error(path, "expected the format version 1" + got(v));
            },
            [](const Scenario& s, Json& out, const NoContext&) { out["schedlab"] = s.version; },
            "the format version, 1"),
        customField<Scenario>(
            "name",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario& s,
                const NoContext&) {
                if (auto value = r.nameString(v, path))
                    s.name = *value;
            },
            [](const Scenario& s, Json& out, const NoContext&) { out["name"] = s.name; },
            "a non-empty string"),
        optionalField("title", &Scenario::title, Check<std::string>(textValue)),
        optionalField("description", &Scenario::description, Check<std::string>(textValue)),
        optionalField("seed", &Scenario::seed, Check<uint64_t>(unsignedValue)),
        customField<Scenario>(
            "duration",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseScenarioDuration(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                if (s.duration)
                    out["duration"] = durationJson(*s.duration);
            }),
        customField<Scenario>(
            "kernel",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseKernel(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                Json kernel = Json::object();
                writeFields(kernelFields(), s.kernel, kernel);
                if (!kernel.empty())
                    out["kernel"] = kernel;
            }),
        customField<Scenario>(
            "machine",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseMachine(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                Json machine = Json::object();
                writeFields(machineFields(), s.machine, machine);
                if (!machine.empty())
                    out["machine"] = machine;
            }),
        customField<Scenario>(
            "cgroups",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseCgroups(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                if (s.cgroups.empty())
                    return;
                Json& cgroups = out["cgroups"] = Json::array();
                for (const CgroupSpec& cg : s.cgroups) {
                    Json entry = Json{{"path", cg.path}};
                    if (cg.count)
                        entry["count"] = *cg.count;
                    cgroups.push_back(cgroupFilesJson(std::move(entry), cg.files));
                }
            }),
        customField<Scenario>(
            "tasks",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseTasks(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                if (s.tasks.empty())
                    return;
                Json& tasks = out["tasks"] = Json::array();
                for (const TaskSpec& task : s.tasks)
                    tasks.push_back(taskJson(task, TaskKind::Listed));
            }),
        customField<Scenario>(
            "actions",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseActions(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                if (s.actions.empty())
                    return;
                Json& actions = out["actions"] = Json::array();
                for (const Action& action : s.actions)
                    actions.push_back(actionJson(action));
            }),
        customField<Scenario>(
            "annotations",
            [](ScenarioReader& r, const Json& v, const std::string& path, Scenario&,
                const NoContext&) { r.parseAnnotations(v, path); },
            [](const Scenario& s, Json& out, const NoContext&) {
                if (s.annotations.empty())
                    return;
                Json& annotations = out["annotations"] = Json::array();
                for (const Annotation& a : s.annotations) {
                    Json entry = Json::object();
                    writeFields(annotationFields(), a, entry);
                    annotations.push_back(std::move(entry));
                }
            }),
    };
    return table;
}

const FieldTable<KernelSpec>& kernelFields()
{
    static const FieldTable<KernelSpec> table{
        customField<KernelSpec>(
            "profile",
            [](ScenarioReader& r, const Json& v, const std::string& path, KernelSpec& k,
                const NoContext&) {
                if (auto name = r.stringValue(v, path, true)) {
                    if (findProfile(*name))
                        k.profile = *name;
                    else
                        r.diag().error(path,
                            "unknown profile " + inQuotes(*name) + " (known: " + profileNameList()
                                + ")");
                }
            },
            [](const KernelSpec& k, Json& out, const NoContext&) {
                if (k.profile)
                    out["profile"] = *k.profile;
            }),
        optionalField("hz", &KernelSpec::hz,
            Check<int>([](ScenarioReader& r, const Json& v, const std::string& path) {
                if (v.is_number_integer() && isConfigHz(v.get<int64_t>()))
                    return std::optional(v.get<int>());
                r.diag().error(path, "expected 100, 250, 300 or 1000" + got(v));
                return std::optional<int>();
            })),
        optionalField(
            "preempt", &KernelSpec::preempt, enumOf<Preempt>(), ToJson<Preempt>(asName<Preempt>)),
        optionalField("base_slice", &KernelSpec::baseSlice,
            Check<Nanoseconds>([](ScenarioReader& r, const Json& v, const std::string& path) {
                constexpr int64_t kMaxBaseSliceNs = UINT32_MAX; // debugfs base_slice_ns is a u32
                auto value = r.duration(v, path);
                if (value && (value->count() <= 0 || value->count() > kMaxBaseSliceNs)) {
                    r.diag().error(
                        path, "expected a base slice between 1ns and 4.294967295s" + got(v));
                    return std::optional<Nanoseconds>();
                }
                return value;
            }),
            ToJson<Nanoseconds>(durationJson)),
        optionalField("tunable_scaling", &KernelSpec::tunableScaling, enumOf<TunableScaling>(),
            ToJson<TunableScaling>(asName<TunableScaling>)),
        customField<KernelSpec>(
            "features",
            [](ScenarioReader& r, const Json& v, const std::string& path, KernelSpec& k,
                const NoContext&) { r.parseFeatures(v, path, k.features); },
            [](const KernelSpec& k, Json& out, const NoContext&) {
                if (!k.features.empty())
                    out["features"] = k.features;
            }),
        // Checked against the profile named above (or the default one).
        customField<KernelSpec>(
            "overrides",
            [](ScenarioReader& r, const Json& v, const std::string& path, KernelSpec& k,
                const NoContext&) { r.parseOverrides(v, path, r.scenarioProfile(), k.overrides); },
            [](const KernelSpec& k, Json& out, const NoContext&) {
                if (!k.overrides.empty())
                    out["overrides"] = k.overrides;
            }),
        customField<KernelSpec>(
            "costs",
            [](ScenarioReader& r, const Json& v, const std::string& path, KernelSpec& k,
                const NoContext&) { r.parseCosts(v, path, k.costs); },
            [](const KernelSpec& k, Json& out, const NoContext&) {
                if (k.costs.empty())
                    return;
                Json& costs = out["costs"] = Json::object();
                for (const auto& [name, value] : k.costs)
                    costs[name] = durationJson(value);
            }),
    };
    return table;
}

const FieldTable<MachineSpec>& machineFields()
{
    static const FieldTable<MachineSpec> table{
        machineSize("cpus", &MachineSpec::cpus, 1, Limits::maxCpus),
        machineSize("threads_per_core", &MachineSpec::threadsPerCore, 1, Limits::maxThreadsPerCore),
        machineSize("cores_per_llc", &MachineSpec::coresPerLlc, 1, Limits::maxCpus),
        // One entry per CPU each; the counts are checked against cpus by parseMachine().
        perCpuInts("capacities", &MachineSpec::capacities, 1, kSchedCapacityScale,
            "an array of CPU capacities"),
        perCpuInts("itmt_priorities", &MachineSpec::itmtPriorities, 0, Limits::maxItmtPriority,
            "an array of ITMT priorities"),
    };
    return table;
}

const FieldTable<CgroupFiles, CgroupFileContext>& cgroupFileFields()
{
    using Ctx = CgroupFileContext;
    static const FieldTable<CgroupFiles, Ctx> table{
        cgroupFile("cpu.weight", &CgroupFiles::weight, plain(intIn(1, 10000))),
        // The same setting as cpu.weight: reported here, where the second one is given.
        cgroupFile<int>("cpu.weight.nice", &CgroupFiles::weightNice,
            [](ScenarioReader& r, const Json& v, const std::string& path, const Ctx& ctx) {
                if (ctx.object && ctx.object->contains("cpu.weight")) {
                    r.diag().error(path,
                        "cpu.weight and cpu.weight.nice are the same setting: "
                        "give only one");
                    return std::optional<int>();
                }
                return niceValue(r, v, path);
            }),
        cgroupFile<CpuMax>(
            "cpu.max", &CgroupFiles::cpuMax,
            [](ScenarioReader& r, const Json& v, const std::string& path, const Ctx&) {
                auto text = r.stringValue(v, path, true);
                if (!text)
                    return std::optional<CpuMax>();
                std::string reason;
                auto value = parseCpuMax(*text, &reason);
                if (!value)
                    r.diag().error(path, reason);
                return value;
            },
            [](const CpuMax& max) { return Json(formatCpuMax(max)); }),
        cgroupFile<bool>(
            "cpu.idle", &CgroupFiles::idle,
            [](ScenarioReader& r, const Json& v, const std::string& path, const Ctx&) {
                if (v.is_boolean())
                    return std::optional(v.get<bool>());
                if (v.is_number_integer() && (v == 0 || v == 1))
                    return std::optional(v == 1);
                r.diag().error(path, "expected 0, 1, true or false" + got(v));
                return std::optional<bool>();
            },
            [](const bool& idle) { return Json(idle ? 1 : 0); }),
        // Bounded by cpu.rt_period_us (of the same object or the cgroup's listed one): read by
        // the cross-field check in ScenarioReader::parseCgroupFiles().
        crossField<CgroupFiles, Ctx>("cpu.rt_runtime_us",
            [](const CgroupFiles& in, Json& out, const Ctx&) {
                if (in.rtRuntimeUs)
                    out["cpu.rt_runtime_us"] = *in.rtRuntimeUs;
            }),
        cgroupFile("cpu.rt_period_us", &CgroupFiles::rtPeriodUs, plain(int64In(1, INT_MAX))),
    };
    return table;
}

namespace {

/// A SCHED_DEADLINE parameter of a task (kernel-model.md §15.1): only with policy deadline; the
/// rules across them (runtime ≤ deadline ≤ period, …) are checked in parseTask().
Field<TaskSpec, TaskContext> dlDuration(std::string_view key, int64_t DlParams::*member)
{
    return Field<TaskSpec, TaskContext>{key,
        [member](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t,
            const TaskContext& ctx) {
            if (t.policy.value_or(ctx.inherited) != Policy::Deadline) {
                r.diag().error(path, "only valid with policy deadline");
                return;
            }
            if (auto d = r.duration(v, path)) {
                if (!t.dl)
                    t.dl.emplace();
                (*t.dl).*member = d->count();
            }
        },
        [key, member](const TaskSpec& t, Json& out, const TaskContext&) {
            if (t.dl && (*t.dl).*member != 0)
                out[std::string(key)] = durationJson(Nanoseconds((*t.dl).*member));
        }};
}

} // namespace

const FieldTable<TaskSpec, TaskContext>& taskFields()
{
    using Ctx = TaskContext;
    using F = Field<TaskSpec, Ctx>;
    auto notForked = [](const Ctx& ctx) { return ctx.kind != TaskKind::Forked; };
    auto withStart = [](const Ctx& ctx) { return ctx.kind == TaskKind::Listed; };
    static const FieldTable<TaskSpec, Ctx> table{
        F{"name",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t, const Ctx&) {
                t.name = r.nameString(v, path).value_or("");
            },
            [](const TaskSpec& t, Json& out, const Ctx&) { out["name"] = t.name; },
            "a unique non-empty string", notForked},
        onlyWhen(optionalField<TaskSpec, int, Ctx>(
                     "count", &TaskSpec::count, intIn(1, Limits::maxEntryCount)),
            notForked),
        optionalField<TaskSpec, std::string, Ctx>(
            "cgroup", &TaskSpec::cgroup, Check<std::string>(cgroupValue)),
        optionalField<TaskSpec, std::string, Ctx>(
            "cpus", &TaskSpec::cpus, Check<std::string>(cpuListValue)),
        optionalField<TaskSpec, Policy, Ctx>("policy", &TaskSpec::policy,
            Check<Policy>(policyValue), ToJson<Policy>(asName<Policy>)),
        optionalField<TaskSpec, int, Ctx>("nice", &TaskSpec::nice, Check<int>(niceValue)),
        // Only with an RT policy: the task's own (read above) or the one it inherits.
        F{"rt_priority",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t,
                const Ctx& ctx) {
                const Policy policy = t.policy.value_or(ctx.inherited);
                if (policy != Policy::Fifo && policy != Policy::RoundRobin)
                    r.diag().error(path, "only valid with policy fifo or rr");
                else
                    t.rtPriority = intIn(1, 99)(r, v, path);
            },
            [](const TaskSpec& t, Json& out, const Ctx&) {
                if (t.rtPriority)
                    out["rt_priority"] = *t.rtPriority;
            }},
        optionalField<TaskSpec, Nanoseconds, Ctx>("slice", &TaskSpec::slice,
            Check<Nanoseconds>(sliceValue), ToJson<Nanoseconds>(durationJson)),
        dlDuration("runtime", &DlParams::runtime),
        dlDuration("deadline", &DlParams::deadline),
        dlDuration("period", &DlParams::period),
        F{"flags",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t,
                const Ctx& ctx) {
                if (t.policy.value_or(ctx.inherited) != Policy::Deadline) {
                    r.diag().error(path, "only valid with policy deadline");
                    return;
                }
                if (!v.is_array()) {
                    r.diag().error(path, "expected a list of flags such as [\"reclaim\"]" + got(v));
                    return;
                }
                if (!t.dl)
                    t.dl.emplace();
                for (size_t i = 0; i < v.size(); ++i) {
                    if (v[i] == "reclaim") {
                        t.dl->flags |= kDlFlagReclaim;
                    } else if (v[i] == "dl_overrun") {
                        t.dl->flags |= kDlFlagOverrun;
                    } else {
                        r.diag().error(child(path, i),
                            "expected \"reclaim\" (SCHED_FLAG_RECLAIM) or \"dl_overrun\" "
                            "(SCHED_FLAG_DL_OVERRUN)"
                                + got(v[i]));
                    }
                }
            },
            [](const TaskSpec& t, Json& out, const Ctx&) {
                if (!t.dl || t.dl->flags == 0)
                    return;
                Json flags = Json::array();
                if (t.dl->flags & kDlFlagReclaim)
                    flags.push_back("reclaim");
                if (t.dl->flags & kDlFlagOverrun)
                    flags.push_back("dl_overrun");
                out["flags"] = flags;
            }},
        optionalField<TaskSpec, uint64_t, Ctx>(
            "cookie", &TaskSpec::cookie, Check<uint64_t>(unsignedValue)),
        F{"start",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t, const Ctx&) {
                // A start (the upper bound of a random one) must lie before the end.
                t.start = r.durationSpec(v, path, false);
                if (t.start && t.start->upper) {
                    const std::string hiPath = child(child(path, "uniform"), 1);
                    if (!r.beforeEnd(
                            *t.start->upper, v.at("uniform").at(1), hiPath, "the latest start"))
                        t.start.reset();
                } else if (t.start && !r.beforeEnd(t.start->value, v, path, "a start")) {
                    t.start.reset();
                }
            },
            [](const TaskSpec& t, Json& out, const Ctx&) {
                if (t.start)
                    out["start"] = durationSpecJson(*t.start);
            },
            {}, withStart},
        F{"probe",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t, const Ctx&) {
                t.probe = r.boolean(v, path).value_or(false);
            },
            [](const TaskSpec& t, Json& out, const Ctx&) {
                if (t.probe)
                    out["probe"] = true;
            }},
        F{"kernel_thread",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t, const Ctx&) {
                t.kernelThread = r.boolean(v, path).value_or(false);
            },
            [](const TaskSpec& t, Json& out, const Ctx&) {
                if (t.kernelThread)
                    out["kernel_thread"] = true;
            },
            {}, notForked},
        F{"program",
            [](ScenarioReader& r, const Json& v, const std::string& path, TaskSpec& t,
                const Ctx& ctx) {
                t.program = r.parseProgram(v, path, t.policy.value_or(ctx.inherited), ctx.depth);
            },
            [](const TaskSpec& t, Json& out, const Ctx&) {
                if (!t.program.empty())
                    out["program"] = programJson(t.program);
            }},
    };
    return table;
}

const FieldTable<SetAction>& setTaskFields()
{
    static const FieldTable<SetAction> table{
        optionalField("nice", &SetAction::nice, Check<int>(niceValue)),
        optionalField("cpus", &SetAction::cpus, Check<std::string>(cpuListValue)),
        optionalField("slice", &SetAction::slice, Check<Nanoseconds>(sliceValue),
            ToJson<Nanoseconds>(durationJson)),
        optionalField("policy", &SetAction::policy,
            Check<Policy>([](ScenarioReader& r, const Json& v, const std::string& path) {
                auto policy = policyValue(r, v, path);
                if (policy == Policy::Deadline) {
                    r.diag().error(path,
                        "a change to SCHED_DEADLINE during the run is not modelled: give "
                        "\"policy\": \"deadline\" and its parameters in the task");
                    return std::optional<Policy>();
                }
                return policy;
            }),
            ToJson<Policy>(asName<Policy>)),
    };
    return table;
}

const FieldTable<Annotation>& annotationFields()
{
    using F = Field<Annotation>;
    static const FieldTable<Annotation> table{
        F{"at",
            [](ScenarioReader& r, const Json& v, const std::string& path, Annotation& a,
                const NoContext&) { a.at = r.duration(v, path).value_or(Nanoseconds{0}); },
            [](const Annotation& a, Json& out, const NoContext&) {
                out["at"] = durationJson(a.at);
            },
            "a duration such as \"1s\""},
        F{"text",
            [](ScenarioReader& r, const Json& v, const std::string& path, Annotation& a,
                const NoContext&) { a.text = r.freeText(v, path, true).value_or(""); },
            [](const Annotation& a, Json& out, const NoContext&) { out["text"] = a.text; },
            "a non-empty string"},
    };
    return table;
}

} // namespace schedlab::scenariojson
