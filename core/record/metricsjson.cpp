// SPDX-License-Identifier: GPL-2.0-or-later
// Metrics as JSON (scenario-format.md §3). Keys in the documented order, integers as integers,
// absent optionals as null; "detail" of a finding only when it says something. Output depends
// only on the Metrics value, so identical runs give byte-identical files.
#include "metrics.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace schedlab {

namespace {

using Json = nlohmann::ordered_json;

Json optionalJson(const std::optional<int64_t>& value)
{
    return value ? Json(*value) : Json(nullptr);
}

Json taskJson(const TaskMetrics& t)
{
    Json out = Json::object();
    out["name"] = t.name;
    out["cgroup"] = t.cgroup;
    out["cpu_time_ns"] = t.cpuTimeNs;
    out["share"] = std::isfinite(t.share) ? t.share : 0.0;
    out["wait_max_ns"] = t.waitMaxNs;
    out["wait_p50_ns"] = t.waitP50Ns;
    out["wait_p99_ns"] = t.waitP99Ns;
    out["switches"] = t.switches;
    out["migrations"] = t.migrations;
    if (!t.migrationsByReason.empty()) {
        Json by = Json::object();
        for (const auto& [reason, count] : t.migrationsByReason)
            by[reason] = count;
        out["migrations_by_reason"] = by;
    }
    out["exited_at_ns"] = optionalJson(t.exitedAtNs);
    if (t.lockWaitNs)
        out["lock_wait_ns"] = *t.lockWaitNs;
    if (t.longestRunNs > 0)
        out["longest_run_ns"] = t.longestRunNs;
    if (t.lagExcessSamples > 0) {
        out["lag_excess_samples"] = t.lagExcessSamples;
        out["lag_excess_max_ns"] = t.lagExcessMaxNs;
    }
    if (t.deadline) {
        const DlTaskMetrics& d = *t.deadline;
        out["deadline"] = Json{{"runtime_ns", d.runtimeNs}, {"deadline_ns", d.deadlineNs},
            {"period_ns", d.periodNs}, {"reclaim", d.reclaim}, {"jobs", d.jobs},
            {"misses", d.misses}, {"throttles", d.throttles},
            {"worst_response_ns", d.worstResponseNs}};
    }
    return out;
}

Json findingJson(const Finding& f)
{
    Json out = Json::object();
    out["kind"] = f.kind;
    out["task"] = f.task;
    out["cpu"] = f.cpu;
    out["from_ns"] = f.fromNs;
    out["duration_ns"] = f.durationNs;
    if (!f.detail.empty())
        out["detail"] = f.detail;
    return out;
}

} // namespace

std::string metricsToJson(const Metrics& m)
{
    Json root = Json::object();
    root["schedlab"] = 1;
    root["scenario"] = m.scenario;
    root["profile"] = m.profile;
    root["features"] = Json::object();
    for (const auto& [name, on] : m.features)
        root["features"][name] = on;
    root["overrides"] = Json::object();
    for (const auto& [choice, value] : m.overrides)
        root["overrides"][choice] = value;
    root["seed"] = m.seed;
    root["duration_ns"] = m.durationNs;

    Json& tasks = root["tasks"] = Json::array();
    for (const TaskMetrics& t : m.tasks)
        tasks.push_back(taskJson(t));
    Json& cgroups = root["cgroups"] = Json::array();
    for (const CgroupMetrics& c : m.cgroups) {
        Json g{{"path", c.path}, {"cpu_time_ns", c.cpuTimeNs}, {"throttled_ns", c.throttledNs}};
        if (c.nrPeriods)
            g["nr_periods"] = *c.nrPeriods;
        if (c.nrThrottled)
            g["nr_throttled"] = *c.nrThrottled;
        cgroups.push_back(std::move(g));
    }
    Json& cpus = root["cpus"] = Json::array();
    for (const CpuMetrics& c : m.cpus)
        cpus.push_back(
            Json{{"cpu", c.cpu}, {"busy_ns", c.busyNs}, {"forced_idle_ns", c.forcedIdleNs}});
    Json& probes = root["probes"] = Json::array();
    for (const ProbeMetrics& p : m.probes)
        probes.push_back(Json{{"name", p.name}, {"spawned_at_ns", p.spawnedAtNs},
            {"latency_ns", optionalJson(p.latencyNs)}});
    Json& findings = root["findings"] = Json::array();
    for (const Finding& f : m.findings)
        findings.push_back(findingJson(f));
    root["run"] = Json{{"events", m.run.events}, {"context_switches", m.run.contextSwitches},
        {"recorded_events", m.run.recordedEvents}, {"recorded_bytes", m.run.recordedBytes}};
    // Names come from user files; replace invalid UTF-8 rather than throw.
    return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

} // namespace schedlab
