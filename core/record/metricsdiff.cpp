// SPDX-License-Identifier: GPL-2.0-or-later
#include "metricsdiff.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace schedlab {

std::vector<MetricDiffRow> diffMetrics(const Metrics& base, const Metrics& variant)
{
    using Unit = MetricDiffRow::Unit;
    std::vector<MetricDiffRow> rows;
    auto findTask = [](const Metrics& m, const std::string& name) -> const TaskMetrics* {
        for (const auto& t : m.tasks)
            if (t.name == name)
                return &t;
        return nullptr;
    };
    std::vector<std::string> names;
    for (const auto* m : {&base, &variant})
        for (const auto& t : m->tasks)
            if (!t.forked && std::find(names.begin(), names.end(), t.name) == names.end())
                names.push_back(t.name);
    for (const std::string& n : names) {
        const TaskMetrics* a = findTask(base, n);
        const TaskMetrics* b = findTask(variant, n);
        auto add = [&](const char* what, Unit unit,
                       const std::function<double(const TaskMetrics&)>& f) {
            MetricDiffRow r;
            r.metric = n + " " + what;
            r.unit = unit;
            if (a)
                r.base = f(*a);
            if (b)
                r.variant = f(*b);
            rows.push_back(std::move(r));
        };
        add("cpu time", Unit::Ns, [](const TaskMetrics& t) { return double(t.cpuTimeNs); });
        add("share", Unit::Percent, [](const TaskMetrics& t) { return t.share * 100.0; });
        add("wait p50", Unit::Ns, [](const TaskMetrics& t) { return double(t.waitP50Ns); });
        add("wait p99", Unit::Ns, [](const TaskMetrics& t) { return double(t.waitP99Ns); });
        add("wait max", Unit::Ns, [](const TaskMetrics& t) { return double(t.waitMaxNs); });
        add("switches", Unit::Count, [](const TaskMetrics& t) { return double(t.switches); });
        add("migrations", Unit::Count, [](const TaskMetrics& t) { return double(t.migrations); });
        add("longest run", Unit::Ns, [](const TaskMetrics& t) { return double(t.longestRunNs); });
        add("lag > slice+tick samples", Unit::Count,
            [](const TaskMetrics& t) { return double(t.lagExcessSamples); });
    }
    auto findGroup = [](const Metrics& m, const std::string& path) -> const CgroupMetrics* {
        for (const auto& g : m.cgroups)
            if (g.path == path)
                return &g;
        return nullptr;
    };
    for (const auto& g : base.cgroups) {
        MetricDiffRow r;
        r.metric = "cgroup " + g.path + " cpu time";
        r.base = double(g.cpuTimeNs);
        if (const auto* v = findGroup(variant, g.path))
            r.variant = double(v->cpuTimeNs);
        rows.push_back(std::move(r));
    }
    auto findProbe = [](const Metrics& m, const std::string& name) -> const ProbeMetrics* {
        for (const auto& p : m.probes)
            if (p.name == name)
                return &p;
        return nullptr;
    };
    for (const auto& p : base.probes) {
        MetricDiffRow r;
        r.metric = "probe " + p.name + " latency";
        if (p.latencyNs)
            r.base = double(*p.latencyNs);
        if (const auto* v = findProbe(variant, p.name); v && v->latencyNs)
            r.variant = double(*v->latencyNs);
        rows.push_back(std::move(r));
    }
    auto count = [](const Metrics& m, const char* kind) {
        int n = 0;
        for (const auto& f : m.findings)
            n += f.kind == kind;
        return double(n);
    };
    for (const char* kind : {"starvation", "invariant"}) {
        MetricDiffRow r;
        r.metric = std::string(kind) + " findings";
        r.unit = Unit::Count;
        r.base = count(base, kind);
        r.variant = count(variant, kind);
        rows.push_back(std::move(r));
    }
    MetricDiffRow cs;
    cs.metric = "context switches";
    cs.unit = Unit::Count;
    cs.base = double(base.run.contextSwitches);
    cs.variant = double(variant.run.contextSwitches);
    rows.push_back(std::move(cs));
    return rows;
}

std::string formatDiffValue(MetricDiffRow::Unit unit, std::optional<double> v, bool sign)
{
    if (!v)
        return "-";
    char buf[64];
    const char* plus = sign && *v > 0 ? "+" : "";
    switch (unit) {
    case MetricDiffRow::Unit::Percent:
        std::snprintf(buf, sizeof buf, "%s%.2f%%", plus, *v);
        break;
    case MetricDiffRow::Unit::Count:
        std::snprintf(buf, sizeof buf, "%s%.0f", plus, *v);
        break;
    case MetricDiffRow::Unit::Ns:
        std::snprintf(buf, sizeof buf, "%s%.3f ms", plus, *v / 1e6);
        break;
    }
    return buf;
}

} // namespace schedlab
