// SPDX-License-Identifier: GPL-2.0-or-later
// ftrace text import (ftrace.h). The line layout:
//
//   /sys/kernel/tracing/trace, flag columns on (the default; 6.x has a fifth column):
//            bash-1234    [001] d..2.  5401.960003: sched_switch: prev_comm=bash prev_pid=1234 …
//   … without them (options/irq-info off), or with the tgid column (options/record-tgid):
//            bash-1234    [001]  5401.960003: sched_wakeup: comm=x pid=7 prio=120 target_cpu=001
//            bash-1234    (   1234) [001] .....  5401.960003: …
//   trace-cmd report (its sched plugin prints switch and wakeup in short forms):
//            bash-1234    [001]  5401.960003: sched_switch: bash:1234 [120] S ==> sh:7 [120]
//            bash-1234    [001]  5401.960003: sched_wakeup: sh:7 [120] CPU:001
//
// The event fields follow the kernel's TP_printk of include/trace/events/sched.h; the parser
// looks fields up by name, so fields that came and went across versions (success, group_dead)
// do not matter, and comm values may contain spaces.
#include "ftrace.h"

#include "core/base/cpuset.h"
#include "core/base/percentile.h"
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/import/dljobs.h"
#include "core/import/ftracetext.h"
#include "core/kernel/features.h"
#include "core/sim/scenariospec.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace schedlab {

namespace {

/// "NAME=0|1 NAME=0|1 …" of known sched features (the runner's header and markers); nullopt for
/// anything else.
std::optional<std::map<std::string, bool>> featureList(std::string_view text)
{
    std::map<std::string, bool> out;
    std::istringstream fields{std::string(text)};
    for (std::string kv; fields >> kv;) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || !featureFromName(std::string_view(kv).substr(0, eq)))
            return std::nullopt;
        const std::string_view v = std::string_view(kv).substr(eq + 1);
        if (v != "0" && v != "1")
            return std::nullopt;
        out[kv.substr(0, eq)] = v == "1";
    }
    return out;
}

using std::string_view;
using namespace ftracetext;

class Importer
{
public:
    Importer(const std::string& fileName, const TraceNameMap* names)
        : m_file(fileName)
    {
        if (names)
            m_names = *names;
    }

    void line(string_view text, int64_t number, bool last);
    TraceImport finish();

private:
    struct TaskInfo
    {
        int pid = 0;
        std::string comm;
        int64_t cpuTime = 0;
        int64_t longestRun = 0; ///< longest stretch on a CPU between two switches
        std::vector<int64_t> waits;
        int64_t waitStart = -1;
        int64_t switches = 0;
        int64_t migrations = 0;
        std::optional<int64_t> exitedAt;
        int64_t firstEvent = 0;
        int64_t lastOff = 0;     ///< end of its last run (it cannot have run anywhere since then)
        int runningOn = -1;      ///< CPU it runs on, -1 when not running
        bool dead = false;       ///< switched out for the last time (or exited and switched out)
        std::optional<int> prio; ///< first p->prio printed for it
        bool prioChanged = false;
        int parent = -1;
        std::vector<int64_t> yields; ///< its "schedlab-yield" markers (SCHED_DEADLINE jobs)
        bool onLogged = false;       ///< its current run has its TraceActivity::On
        int64_t lastActivity = 0;    ///< time of its newest TraceActivity
    };
    struct CpuInfo
    {
        bool known = false; ///< `curr` and `since` are valid (a sched_switch was seen)
        int curr = -1;      ///< task index, -1 idle
        int64_t since = 0;  ///< record time the current run started
        int64_t busy = 0;
        /// While not known: the earliest time an unknown task may have been running here (0,
        /// the span start, before the first switch; the time the CPU's state was lost after).
        int64_t unknownSince = 0;
        int firstPid = -1; ///< pid in the header of the first event (running at that time)
    };

    void error(int64_t number, const std::string& what)
    {
        if (m_result.errors.size() < 20)
            m_result.errors.push_back(m_file + ":" + std::to_string(number) + ": " + what);
        else if (m_result.errors.size() == 20)
            m_result.errors.push_back(m_file + ": more errors not shown");
    }
    void warn(int64_t number, const std::string& what)
    {
        if (m_result.warnings.size() < 20)
            m_result.warnings.push_back(m_file + ":" + std::to_string(number) + ": " + what);
    }
    void comment(string_view text, int64_t number);
    CpuInfo& cpu(int c)
    {
        if (static_cast<size_t>(c) >= m_cpus.size())
            m_cpus.resize(static_cast<size_t>(c) + 1);
        return m_cpus[static_cast<size_t>(c)];
    }
    /// The live task with @p pid (a new one if unknown or dead); -1 for pid 0 (idle).
    int task(int pid, const std::string& comm, int64_t t);
    int newTask(int pid, const std::string& comm, int64_t t, int parent);
    void append(int64_t t, int c, RecordKind kind, int entity, int64_t a = 0, int64_t b = 0)
    {
        Record r;
        r.time = t;
        r.cpu = static_cast<uint16_t>(c); // 0 … kTraceMaxCpus - 1, checked by the caller
        m_highestCpu = std::max(m_highestCpu, c);
        r.kind = kind;
        r.entity = EntityRef{entity};
        r.payload.generic.a = a;
        r.payload.generic.b = b;
        m_result.recording.append(r);
    }
    void activity(
        int64_t t, int index, TraceActivity::Kind kind, int c, int other = -1, uint8_t detail = 0)
    {
        TaskInfo& ti = m_tasks[static_cast<size_t>(index)];
        t = std::max(t, ti.lastActivity); // one task's events stay in time order
        ti.lastActivity = t;
        ti.onLogged =
            kind == TraceActivity::Kind::On || (ti.onLogged && kind != TraceActivity::Kind::Off);
        m_result.activity.push_back({t, index, other, static_cast<uint16_t>(c), kind, detail});
    }
    void notePrio(int index, std::optional<int64_t> prio)
    {
        if (index < 0 || !prio || *prio < -1 || *prio > 139)
            return;
        TaskInfo& ti = m_tasks[static_cast<size_t>(index)];
        if (!ti.prio)
            ti.prio = static_cast<int>(*prio);
        else if (ti.prio != *prio)
            ti.prioChanged = true;
    }
    void startWait(TaskInfo& ti, int64_t t)
    {
        if (ti.waitStart < 0 && ti.runningOn < 0)
            ti.waitStart = t;
    }

    bool sched(string_view event, string_view payload, int c, int64_t t, int64_t number);
    /// Task @p index ran on @p ci during [from, to).
    void credit(int index, CpuInfo& ci, int64_t from, int64_t to)
    {
        TaskInfo& ti = m_tasks[static_cast<size_t>(index)];
        if (to > from) {
            ti.cpuTime += to - from;
            ti.longestRun = std::max(ti.longestRun, to - from);
            ci.busy += to - from;
        }
        ti.lastOff = std::max(ti.lastOff, to);
    }

    std::string m_file;
    TraceNameMap m_names;
    TraceImport m_result;
    std::vector<TaskInfo> m_tasks;
    std::unordered_map<int, int> m_live; ///< pid → index of its newest incarnation
    std::vector<CpuInfo> m_cpus;
    int m_headerCpus = 0;
    int m_highestCpu = 0; ///< of any record (a wakeup's target CPU included)
    bool m_started = false;
    int64_t m_lastTime = 0; ///< record time of the newest event
    std::vector<int64_t> m_cpuLast;
    std::vector<int64_t> m_cpuRaw; ///< trace time of each CPU's newest event (before skew)
    int64_t m_skewEvents = 0;      ///< events taken at a later time (clock skew between CPUs)
    int64_t m_skewMax = 0;
    int64_t m_skewFirstLine = 0;
    std::string m_scenario;
    std::map<std::string, std::map<std::string, int64_t>> m_cpuStat; ///< group → cpu.stat
    int m_linePid = 0;      ///< the pid in the current line's header (the CPU's current task)
    bool m_lineIrq = false; ///< the current line's flags say interrupt context
};

int Importer::newTask(int pid, const std::string& comm, int64_t t, int parent)
{
    TaskInfo ti;
    ti.pid = pid;
    ti.comm = comm;
    ti.firstEvent = t;
    ti.parent = parent;
    ti.lastActivity = t;
    m_tasks.push_back(ti);
    const int index = static_cast<int>(m_tasks.size()) - 1;
    m_live[pid] = index;
    append(t, 0, RecordKind::Spawn, index, parent);
    return index;
}

int Importer::task(int pid, const std::string& comm, int64_t t)
{
    if (pid == 0)
        return -1;
    const auto it = m_live.find(pid);
    if (it == m_live.end() || m_tasks[static_cast<size_t>(it->second)].dead)
        return newTask(pid, comm, t, -1);
    TaskInfo& ti = m_tasks[static_cast<size_t>(it->second)];
    if (!comm.empty() && comm != "<...>")
        ti.comm = comm; // the newest name (exec and prctl(PR_SET_NAME) rename)
    return it->second;
}

void Importer::comment(string_view text, int64_t number)
{
    // "# entries-in-buffer/entries-written: 2000/2000   #P:4"
    if (const size_t p = text.find("#P:"); p != string_view::npos) {
        size_t e = p + 3;
        while (e < text.size() && text[e] >= '0' && text[e] <= '9')
            ++e;
        if (const auto n = toInt(text.substr(p + 3, e - p - 3)); n && *n > 0 && *n <= 4096)
            m_headerCpus = std::max(m_headerCpus, static_cast<int>(*n));
        return;
    }
    string_view body = trim(text.substr(1));
    auto directive = [&](string_view key) -> std::optional<string_view> {
        if (body.substr(0, key.size()) != key)
            return std::nullopt;
        return trim(body.substr(key.size()));
    };
    if (const auto v = directive("schedlab-task:")) {
        std::istringstream fields{std::string(*v)};
        int64_t pid = 0;
        TraceNameMap::Entry e;
        if (fields >> pid >> e.name) {
            if (pid <= 0 || pid > kTraceMaxPid) {
                error(number, "schedlab-task: " + pidRange("pid", pid));
                return;
            }
            fields >> e.cgroup;
            detail::nameMapExtras(fields, e);
            // a map given on the command line wins
            m_names.byPid.emplace(static_cast<int>(pid), e);
        }
    } else if (const auto f = directive("schedlab-cgroup-files:")) {
        std::istringstream fields{std::string(*f)};
        std::string path;
        fields >> path;
        if (path.empty() || path.front() != '/')
            return;
        CgroupFiles& files = m_result.cgroupFiles[path];
        // Values as the runner wrote them (cgroup v2 syntax, a space in cpu.max as ','); one
        // out of range is left unset, as a group the trace says nothing of.
        for (std::string kv; fields >> kv;) {
            const size_t eq = kv.find('=');
            if (eq == std::string::npos)
                continue;
            const std::string file = kv.substr(0, eq);
            const std::string_view value = string_view(kv).substr(eq + 1);
            const auto num = toInt(value);
            if (file == "cpu.weight" && num && *num >= 1 && *num <= 10000)
                files.weight = static_cast<int>(*num);
            else if (file == "cpu.weight.nice" && num && *num >= -20 && *num <= 19)
                files.weightNice = static_cast<int>(*num);
            else if (file == "cpu.idle" && num && (*num == 0 || *num == 1))
                files.idle = *num == 1;
            else if (file == "cpu.max") {
                const size_t comma = value.find(',');
                const auto period = comma == std::string_view::npos
                    ? std::optional<int64_t>{100000}
                    : toInt(value.substr(comma + 1));
                const std::string_view quota = value.substr(0, comma);
                const auto q = toInt(quota);
                if (period && *period >= 1000 && *period <= 1000000
                    && (quota == "max" || (q && *q >= 1000)))
                    files.cpuMax = CpuMax{quota == "max" ? std::nullopt : q, *period};
            }
        }
    } else if (const auto g = directive("schedlab-cgroup:")) {
        std::istringstream fields{std::string(*g)};
        std::string path;
        fields >> path;
        auto& stat = m_cpuStat[path];
        for (std::string kv; fields >> kv;)
            if (const size_t eq = kv.find('='); eq != std::string::npos)
                if (const auto value = toInt(string_view(kv).substr(eq + 1)))
                    stat[kv.substr(0, eq)] = *value;
    } else if (const auto k = directive("schedlab-kernel:")) {
        m_result.kernel = std::string(*k);
    } else if (const auto s = directive("schedlab-scenario:")) {
        m_scenario = std::string(*s);
        m_result.scenario = m_scenario;
    } else if (const auto hz = directive("schedlab-hz:")) {
        // CONFIG_HZ; a value the model has no tick for is left unknown.
        if (const auto hzValue = toInt(*hz); hzValue && isConfigHz(*hzValue))
            m_result.hz = static_cast<int>(*hzValue);
    } else if (const auto pm = directive("schedlab-preempt:")) {
        if (enumFromName<Preempt>(*pm))
            m_result.preempt = std::string(*pm);
    } else if (const auto fs = directive("schedlab-features:")) {
        if (const auto parsed = featureList(*fs))
            m_result.features = *parsed;
    } else if (const auto n = directive("schedlab-cpus:")) {
        const auto cpus = toInt(*n);
        if (!cpus || *cpus < 1 || *cpus > kTraceMaxCpus) {
            error(number,
                "schedlab-cpus: expected the scenario's CPU count, 1-"
                    + std::to_string(kTraceMaxCpus) + ", got \"" + printable(n->substr(0, 40))
                    + "\"");
            return;
        }
        m_result.scenarioCpus = static_cast<int>(*cpus);
    }
}

void Importer::line(string_view text, int64_t number, bool last)
{
    ++m_result.lines;
    text = trim(text);
    if (text.empty())
        return;
    if (text.front() == '#') {
        comment(text, number);
        return;
    }
    // trace-cmd report's header lines.
    if (text.substr(0, 5) == "cpus=") {
        if (const auto n = toInt(text.substr(5)); n && *n > 0 && *n <= 4096)
            m_headerCpus = std::max(m_headerCpus, static_cast<int>(*n));
        return;
    }
    if (text.substr(0, 8) == "version " || text.substr(0, 8) == "version=")
        return;
    if (text.substr(0, 4) == "CPU " && text.find(" is empty") != string_view::npos)
        return;
    // "CPU:1 [LOST 412 EVENTS]"
    if (text.substr(0, 4) == "CPU:" && text.find("LOST") != string_view::npos) {
        const size_t p = text.find("LOST ") + 5;
        const size_t e = text.find(' ', p);
        m_result.lostEvents = saturatingAdd(
            m_result.lostEvents, std::max<int64_t>(0, toInt(text.substr(p, e - p)).value_or(0)));
        warn(number,
            "the tracer lost events here (" + printable(text)
                + "): CPU times around this point are not reliable");
        return;
    }

    auto bad = [&](const std::string& what) {
        if (last)
            warn(number, "truncated last line ignored (" + what + ")");
        else
            error(number, what);
    };

    // The CPU column "[003]" ends the TASK-PID part.
    size_t open = string_view::npos;
    size_t close = string_view::npos;
    if (!detail::findCpuColumn(text, open, close)) {
        bad("expected \"TASK-PID [CPU] TIMESTAMP: EVENT: FIELDS\", got \""
            + printable(text.substr(0, 80)) + "\"");
        return;
    }
    string_view taskPid = trim(text.substr(0, open));
    if (!taskPid.empty() && taskPid.back() == ')') // record-tgid column "(   1234)"
        taskPid = trim(taskPid.substr(0, taskPid.rfind('(')));
    // "comm-pid" (ftrace, trace-cmd) or "comm pid" (perf script).
    const size_t dash = taskPid.find_last_of("- ");
    const auto headerPid =
        dash == string_view::npos ? std::nullopt : toInt(taskPid.substr(dash + 1));
    if (!headerPid) {
        bad("expected TASK-PID before the CPU column, got \"" + printable(taskPid) + "\"");
        return;
    }
    if (!validPid(*headerPid)) {
        bad(pidRange("pid", *headerPid));
        return;
    }
    const string_view cpuText = text.substr(open + 1, close - open - 1);
    const auto cpuNumber = toInt(cpuText);
    if (!cpuNumber || *cpuNumber >= kTraceMaxCpus) {
        bad("CPU [" + printable(cpuText.substr(0, 40)) + "] out of range (CPUs are 0-"
            + std::to_string(kTraceMaxCpus - 1) + ", docs/real-kernels.md)");
        return;
    }
    const int c = static_cast<int>(*cpuNumber);

    // Optional flag column, then "TIMESTAMP:".
    string_view rest = trim(text.substr(close + 1));
    m_lineIrq = false;
    m_linePid = static_cast<int>(*headerPid);
    Timestamp stamp;
    string_view stampText;
    for (int token = 0; token < 2 && !stamp.syntax; ++token) {
        const size_t sp = rest.find(' ');
        const string_view tok = rest.substr(0, sp);
        if (!tok.empty() && tok.back() == ':') {
            stampText = tok.substr(0, tok.size() - 1);
            stamp = parseTimestamp(stampText);
        }
        if (stamp.syntax || sp == string_view::npos) {
            rest = sp == string_view::npos ? string_view() : trim(rest.substr(sp + 1));
            break;
        }
        if (token == 0 && tok.size() <= 8) { // irqs-off/need-resched/hardirq/preempt columns
            // The third column: h hardirq, s softirq, H hardirq in softirq, z/Z NMI.
            m_lineIrq = tok.size() >= 3 && string_view("hsHzZ").find(tok[2]) != string_view::npos;
            m_result.contextFlags = m_result.contextFlags || tok.size() >= 4;
            rest = trim(rest.substr(sp + 1));
        } else
            break;
    }
    if (!stamp.syntax) {
        bad("expected a timestamp \"SECONDS.MICROSECONDS:\" after the CPU column");
        return;
    }
    if (!stamp.ns) {
        bad("timestamp " + printable(stampText.substr(0, 40))
            + " out of range (at most 9223372036.854775807 s: nanoseconds in 64 bits)");
        return;
    }
    size_t colon = rest.find(':');
    string_view event = colon == string_view::npos ? string_view() : rest.substr(0, colon);
    if (event == "sched" && rest.substr(colon + 1, 6) == "sched_") { // perf: "sched:sched_switch:"
        const size_t second = rest.find(':', colon + 1);
        event = rest.substr(colon + 1, second == string_view::npos ? 0 : second - colon - 1);
        colon = second;
    }
    if (event.empty() || event.find(' ') != string_view::npos) {
        // The function tracer ("func <-caller") and others without an event name.
        ++m_result.unknownEvents[event.empty() && rest.empty() ? "(empty)" : "(function)"];
        return;
    }
    const string_view payload = trim(rest.substr(colon + 1));

    if (!m_started) {
        m_started = true;
        m_result.startNs = *stamp.ns;
    }
    // Both are in [0, INT64_MAX]: the difference cannot overflow.
    const int64_t raw = *stamp.ns - m_result.startNs;
    int64_t t = raw;
    CpuInfo& ci = cpu(c);
    if (m_cpuLast.size() < m_cpus.size()) {
        m_cpuLast.resize(m_cpus.size(), 0);
        m_cpuRaw.resize(m_cpus.size(), std::numeric_limits<int64_t>::min());
    }
    if (raw < m_cpuRaw[static_cast<size_t>(c)]) {
        error(number,
            "timestamp goes backwards on CPU " + std::to_string(c) + " (by "
                + std::to_string(m_cpuRaw[static_cast<size_t>(c)] - raw)
                + " ns; one CPU's clock never does)");
        return;
    }
    if (t < m_lastTime) {
        // Another CPU's event was later: clock skew between CPUs, or a damaged file.
        const int64_t behind = m_lastTime - t;
        if (behind > kTraceMaxClockSkewNs) {
            error(number,
                "timestamp goes backwards by " + std::to_string(behind)
                    + " ns behind an earlier event of another CPU: more than the "
                    + std::to_string(kTraceMaxClockSkewNs)
                    + " ns of clock skew between CPUs tolerated (docs/real-kernels.md)");
            return;
        }
        if (m_skewEvents++ == 0)
            m_skewFirstLine = number;
        m_skewMax = std::max(m_skewMax, behind);
        t = m_lastTime; // time never goes back in the import: no negative wait or run
    }
    if (!sched(event, payload, c, t, number)) {
        if (last && !m_result.errors.empty()) {
            // A truncated last event: its error becomes a warning, its time is not used.
            const std::string e = m_result.errors.back();
            m_result.errors.pop_back();
            m_result.warnings.push_back(e + " (truncated last line ignored)");
        }
        return;
    }
    m_cpuLast[static_cast<size_t>(c)] = t;
    m_cpuRaw[static_cast<size_t>(c)] = raw;
    m_lastTime = std::max(m_lastTime, t);
    if (ci.firstPid < 0)
        ci.firstPid = static_cast<int>(*headerPid);
}

bool Importer::sched(string_view event, string_view p, int c, int64_t t, int64_t number)
{
    auto missing = [&](const char* what) {
        error(number,
            std::string(event) + ": expected " + what + ", got \"" + printable(p.substr(0, 120))
                + "\"");
        return false;
    };
    auto outOfRange = [&](const std::string& what) {
        error(number, std::string(event) + ": " + what);
        return false;
    };
    if (event == "sched_switch") {
        std::string prevComm;
        std::string nextComm;
        int64_t prevPid = 0;
        int64_t nextPid = 0;
        std::optional<int64_t> prevPrio;
        std::optional<int64_t> nextPrio;
        string_view state;
        const size_t arrow = p.find(" ==> ");
        if (valueAt(p, "prev_pid") != string_view::npos) {
            // TP_printk's form; trace-cmd report -R prints the same fields without the arrow.
            const auto pc = textField(p, "prev_comm", "prev_pid");
            const auto pp = intField(p, "prev_pid");
            const auto ps = valueAt(p, "prev_state");
            const auto nc = textField(p, "next_comm", "next_pid");
            const auto np = intField(p, "next_pid");
            if (!pc || !pp || ps == string_view::npos || (arrow != string_view::npos && ps > arrow)
                || !nc || !np)
                return missing("prev_comm= prev_pid= prev_state= ==> next_comm= next_pid=");
            prevComm = *pc;
            nextComm = *nc;
            prevPid = *pp;
            nextPid = *np;
            prevPrio = intField(p, "prev_prio");
            nextPrio = intField(p, "next_prio");
            const size_t stateEnd = arrow != string_view::npos ? arrow : p.find(' ', ps);
            state = p.substr(ps, stateEnd == string_view::npos ? string_view::npos : stateEnd - ps);
        } else if (arrow == string_view::npos) {
            return missing("\"PREV ==> NEXT\"");
        } else {
            string_view after;
            string_view next;
            if (!commPid(p.substr(0, arrow), prevComm, prevPid, &after, &prevPrio)
                || !commPid(p.substr(arrow + 5), nextComm, nextPid, &next, &nextPrio))
                return missing("\"COMM:PID [PRIO] STATE ==> COMM:PID [PRIO]\"");
            state = after;
        }
        if (!validPid(prevPid) || !validPid(nextPid))
            return outOfRange(pidRange(validPid(prevPid) ? "next pid" : "prev pid",
                validPid(prevPid) ? nextPid : prevPid));
        ++m_result.events;
        const int prev = task(static_cast<int>(prevPid), prevComm, t);
        const int next = task(static_cast<int>(nextPid), nextComm, t);
        // Runs are credited only where the trace proves them, so that with events lost (or
        // a damaged file) no task runs on two CPUs at once and no CPU is busier than the span.
        auto leaveOtherCpu = [&](int index, int64_t pid, const char* how) {
            const int other = m_tasks[static_cast<size_t>(index)].runningOn;
            if (other < 0 || other == c)
                return;
            // Still running on another CPU by our account: its switch-out there was lost.
            CpuInfo& oi = cpu(other);
            const int64_t end =
                std::clamp(m_cpuLast[static_cast<size_t>(other)], std::min(oi.since, t), t);
            credit(index, oi, oi.since, end);
            activity(end, index, TraceActivity::Kind::Off, other, -1, 0);
            oi.known = false;
            oi.curr = -1;
            oi.unknownSince = end;
            m_tasks[static_cast<size_t>(index)].runningOn = -1;
            warn(number,
                "pid " + std::to_string(pid) + " switched " + how + " on CPU " + std::to_string(c)
                    + " while running on CPU " + std::to_string(other) + " (events lost?)");
        };
        if (prev >= 0)
            leaveOtherCpu(prev, prevPid, "out");
        if (next >= 0 && next != prev)
            leaveOtherCpu(next, nextPid, "in");
        CpuInfo& ci = cpu(c);
        int64_t since = t;
        if (ci.known && ci.curr == prev) {
            since = ci.since;
        } else if (ci.known) {
            warn(number,
                "CPU " + std::to_string(c) + " switches from pid " + std::to_string(prevPid)
                    + ", which it was not running (events lost?)");
            if (ci.curr >= 0 && m_tasks[static_cast<size_t>(ci.curr)].runningOn == c)
                m_tasks[static_cast<size_t>(ci.curr)].runningOn = -1;
        } else if (prev < 0 || m_tasks[static_cast<size_t>(prev)].runningOn < 0) {
            // The CPU's first switch (or the first since its state was lost): prev ran since
            // the span start, or since it last ran anywhere, whichever is later.
            since = std::min(t,
                std::max(
                    ci.unknownSince, prev >= 0 ? m_tasks[static_cast<size_t>(prev)].lastOff : 0));
        }
        notePrio(prev, prevPrio);
        notePrio(next, nextPrio);
        if (prev >= 0) {
            TaskInfo& ti = m_tasks[static_cast<size_t>(prev)];
            if (ti.runningOn < 0 || ti.runningOn == c) {
                credit(prev, ci, since, t);
                if (!ti.onLogged)
                    activity(since, prev, TraceActivity::Kind::On, c);
            }
            ++ti.switches;
            ti.runningOn = -1;
            const PrevState ps = prevState(state);
            activity(t, prev, TraceActivity::Kind::Off, c, -1, static_cast<uint8_t>(ps));
            switch (ps) {
            case PrevState::Runnable:
                startWait(ti, t);
                break;
            case PrevState::Dead:
                ti.dead = true;
                if (!ti.exitedAt)
                    ti.exitedAt = t;
                break;
            case PrevState::Blocked:
                if (ti.exitedAt)
                    ti.dead = true;
                break;
            }
        }
        if (next >= 0) {
            TaskInfo& ti = m_tasks[static_cast<size_t>(next)];
            if (ti.waitStart >= 0) {
                ti.waits.push_back(t - ti.waitStart);
                ti.waitStart = -1;
            }
            ti.runningOn = c;
            activity(t, next, TraceActivity::Kind::On, c);
        }
        ci.known = true;
        ci.curr = next;
        ci.since = t;
        append(t, c, RecordKind::Switch, prev, next);
        return true;
    }
    if (event == "sched_wakeup" || event == "sched_wakeup_new" || event == "sched_waking") {
        if (event == "sched_waking") { // sched_wakeup follows; only counted
            ++m_result.unknownEvents[std::string(event)];
            return true;
        }
        std::string comm;
        int64_t pid = 0;
        int64_t target = c;
        std::optional<int64_t> prio;
        if (valueAt(p, "pid") != string_view::npos) {
            const auto cm = textField(p, "comm", "pid");
            const auto pd = intField(p, "pid");
            const auto tc = intField(p, "target_cpu");
            if (!cm || !pd)
                return missing("comm= pid= prio= target_cpu=");
            comm = *cm;
            pid = *pd;
            prio = intField(p, "prio");
            if (valueAt(p, "target_cpu") != string_view::npos && !tc)
                return missing("target_cpu=NUMBER");
            target = tc.value_or(c);
        } else {
            string_view after;
            if (!commPid(p, comm, pid, &after, &prio))
                return missing("\"COMM:PID [PRIO] CPU:NNN\"");
            if (const size_t k = after.find("CPU:"); k != string_view::npos) {
                const auto cpuNumber = toInt(after.substr(k + 4, after.find(' ', k) - k - 4));
                if (!cpuNumber)
                    return missing("\"COMM:PID [PRIO] CPU:NNN\"");
                target = *cpuNumber;
            }
        }
        if (!validPid(pid))
            return outOfRange(pidRange("pid", pid));
        if (target < 0 || target >= kTraceMaxCpus)
            return outOfRange(cpuRange("target CPU", target));
        ++m_result.events;
        int index = 0;
        if (event == "sched_wakeup_new") {
            const auto it = m_live.find(static_cast<int>(pid));
            // A new task: the fork event made it already, unless fork was not traced.
            index = it != m_live.end() && !m_tasks[static_cast<size_t>(it->second)].dead
                    && m_tasks[static_cast<size_t>(it->second)].switches == 0
                    && m_tasks[static_cast<size_t>(it->second)].runningOn < 0
                ? it->second
                : newTask(static_cast<int>(pid), comm, t, -1);
        } else {
            index = task(static_cast<int>(pid), comm, t);
        }
        if (index < 0)
            return true;
        notePrio(index, prio);
        // The waker: the task the line's header names (the CPU's current task), unless the
        // wakeup came from an interrupt or the idle task (a timer, a device).
        const bool fresh = event == "sched_wakeup_new";
        int waker = -1;
        if (!fresh && !m_lineIrq && m_linePid != 0 && m_linePid != pid) {
            const auto w = m_live.find(m_linePid);
            if (w != m_live.end() && !m_tasks[static_cast<size_t>(w->second)].dead)
                waker = w->second;
        }
        activity(t, index, TraceActivity::Kind::Woken, static_cast<int>(target), waker,
            fresh ? 2 : (m_lineIrq ? 1 : 0));
        if (waker >= 0)
            activity(t, waker, TraceActivity::Kind::Wakes, c, index);
        startWait(m_tasks[static_cast<size_t>(index)], t);
        append(t, static_cast<int>(target), RecordKind::Wakeup, index, target);
        return true;
    }
    if (event == "sched_migrate_task") {
        const auto cm = textField(p, "comm", "pid");
        const auto pd = intField(p, "pid");
        const auto from = intField(p, "orig_cpu");
        const auto to = intField(p, "dest_cpu");
        if (!cm || !pd || !from || !to)
            return missing("comm= pid= prio= orig_cpu= dest_cpu=");
        if (!validPid(*pd))
            return outOfRange(pidRange("pid", *pd));
        for (const int64_t cpuNumber : {*from, *to})
            if (cpuNumber < 0 || cpuNumber >= kTraceMaxCpus)
                return outOfRange(
                    cpuRange(cpuNumber == *from ? "orig_cpu" : "dest_cpu", cpuNumber));
        ++m_result.events;
        const int index = task(static_cast<int>(*pd), *cm, t);
        if (index >= 0 && *from != *to) {
            ++m_tasks[static_cast<size_t>(index)].migrations;
            append(t, static_cast<int>(*to), RecordKind::Migrate, index, *from, *to);
        }
        return true;
    }
    if (event == "sched_process_fork") {
        const auto cm = textField(p, "comm", "pid");
        const auto pd = intField(p, "pid");
        const auto ccm = textField(p, "child_comm", "child_pid");
        const auto cpd = intField(p, "child_pid");
        if (!cm || !pd || !ccm || !cpd)
            return missing("comm= pid= child_comm= child_pid=");
        if (!validPid(*pd) || !validPid(*cpd))
            return outOfRange(
                pidRange(validPid(*pd) ? "child_pid" : "pid", validPid(*pd) ? *cpd : *pd));
        ++m_result.events;
        const int parent = task(static_cast<int>(*pd), *cm, t);
        const int child = newTask(static_cast<int>(*cpd), *ccm, t, parent); // a reused pid: new
        if (parent >= 0)
            activity(t, parent, TraceActivity::Kind::Fork, c, child);
        return true;
    }
    if (event == "tracing_mark_write" || event == "print") {
        // A trace_marker write: schedlab-run marks the end of a SCHED_DEADLINE job just before
        // its sched_yield() (dljobs.h). Other markers are counted as unknown events.
        if (const size_t at = p.find("schedlab-cpus pid="); at != string_view::npos) {
            // "schedlab-cpus pid=PID cpus=LIST": an affinity change of the run (replay.h).
            std::istringstream fields{std::string(p.substr(at + 14))};
            std::string pidField;
            std::string cpusField;
            fields >> pidField >> cpusField;
            const auto pid =
                toInt(string_view(pidField).substr(std::min<size_t>(4, pidField.size())));
            const auto set = cpusField.starts_with("cpus=") && cpusField.size() <= 5 + 256
                ? CpuSet::parse(string_view(cpusField).substr(5), 4096)
                : std::nullopt;
            if (pidField.starts_with("pid=") && pid && validPid(*pid) && set && !set->empty()) {
                ++m_result.events;
                const int index = task(static_cast<int>(*pid), "", t);
                if (index >= 0)
                    m_result.affinity.push_back(
                        {t, index, static_cast<int>(*pid) == m_linePid, set->toString()});
                return true;
            }
            warn(number, "schedlab-cpus marker not understood (expected pid=PID cpus=LIST)");
            return true;
        }
        if (const size_t at = p.find("schedlab-features "); at != string_view::npos) {
            // "schedlab-features NAME=0|1 …": a feature action of the run (replay.h).
            if (const auto parsed = featureList(p.substr(at + 18)); parsed && !parsed->empty()) {
                ++m_result.events;
                m_result.featureChanges.emplace_back(t, *parsed);
            } else {
                warn(number, "schedlab-features marker not understood (expected NAME=0|1 …)");
            }
            return true;
        }
        if (p.ends_with("schedlab-yield")) {
            ++m_result.events;
            const int index = task(m_linePid, "", t);
            if (index >= 0)
                m_tasks[static_cast<size_t>(index)].yields.push_back(t);
            return true;
        }
        ++m_result.unknownEvents[std::string(event)];
        return true;
    }
    if (event == "sched_process_exit") {
        const auto cm = textField(p, "comm", "pid");
        const auto pd = intField(p, "pid");
        if (!cm || !pd)
            return missing("comm= pid= prio=");
        if (!validPid(*pd))
            return outOfRange(pidRange("pid", *pd));
        ++m_result.events;
        const int index = task(static_cast<int>(*pd), *cm, t);
        if (index >= 0) {
            TaskInfo& ti = m_tasks[static_cast<size_t>(index)];
            ti.exitedAt = t; // dead at its last switch-out (a later event is a reused pid)
            append(t, c, RecordKind::Exit, index);
        }
        return true;
    }
    ++m_result.unknownEvents[std::string(event)];
    return true;
}

TraceImport Importer::finish()
{
    const int64_t end = m_lastTime;
    if (m_skewEvents > 0)
        m_result.warnings.push_back(m_file + ":" + std::to_string(m_skewFirstLine) + ": "
            + std::to_string(m_skewEvents) + (m_skewEvents == 1 ? " event is" : " events are")
            + " older than an earlier event of another CPU, by up to " + std::to_string(m_skewMax)
            + " ns (clock skew between CPUs, tolerated up to "
            + std::to_string(kTraceMaxClockSkewNs) + " ns): taken at the earlier event's time");
    // Runs still going at the end of the trace; a CPU that never switched ran the task its
    // first event's header named, all along.
    const size_t recorded = m_result.recording.records().size();
    for (size_t c = 0; c < m_cpus.size(); ++c) {
        CpuInfo& ci = m_cpus[c];
        if (ci.known) {
            if (ci.curr >= 0
                && m_tasks[static_cast<size_t>(ci.curr)].runningOn == static_cast<int>(c))
                credit(ci.curr, ci, std::min(ci.since, end), end);
        } else if (ci.unknownSince == 0 && ci.firstPid > 0) {
            // Never switched: the task its first event's header named ran all along (unless
            // the trace shows it anywhere else).
            const int curr = task(ci.firstPid, "", 0);
            const TaskInfo& ti = m_tasks[static_cast<size_t>(curr)];
            if (ti.switches == 0 && ti.runningOn < 0 && ti.lastOff == 0) {
                credit(curr, ci, 0, end);
                m_result.activity.push_back(
                    {0, curr, -1, static_cast<uint16_t>(c), TraceActivity::Kind::On, 0});
            }
        }
    }
    Recording& rec = m_result.recording;
    if (rec.records().size() > recorded) {
        // Tasks first known here spawn at time 0: their records go first, so that the
        // recording stays in time order (found by fuzz_ftrace_import).
        std::vector<Record> all = rec.records();
        rec.clear();
        for (size_t i = recorded; i < all.size(); ++i)
            rec.append(all[i]);
        for (size_t i = 0; i < recorded; ++i)
            rec.append(all[i]);
    }
    m_result.machineCpus = m_headerCpus;
    rec.cpus = std::max({m_headerCpus, static_cast<int>(m_cpus.size()), m_highestCpu + 1});
    Metrics& m = m_result.metrics;
    m.scenario = m_scenario.empty() ? m_file : m_scenario;
    m.profile = m_result.kernel.empty() ? "real" : "real " + m_result.kernel;
    m.durationNs = end;
    // Names: the map's, else comm-pid; a reused pid's later tasks get "#2", "#3"…
    std::map<std::string, int> seen;
    for (TaskInfo& ti : m_tasks) {
        std::string name = ti.comm.empty() ? "<...>" : ti.comm;
        std::string cgroup;
        std::string cpus;
        std::optional<DlParams> dl;
        const auto it = m_names.byPid.find(ti.pid);
        if (it != m_names.byPid.end()
            && (ti.comm.empty() || it->second.name.substr(0, 15) == ti.comm
                || it->second.name.substr(0, 15) == ti.comm.substr(0, 15))) {
            name = it->second.name;
            cgroup = it->second.cgroup;
            cpus = it->second.cpus;
            dl = it->second.dl;
        } else {
            name += "-" + std::to_string(ti.pid);
        }
        const int n = ++seen[name];
        if (n > 1)
            name += "#" + std::to_string(n);
        rec.taskNames.push_back(name);
        TaskMetrics tm;
        tm.name = name;
        tm.cgroup = cgroup;
        tm.cpuTimeNs = ti.cpuTime;
        tm.longestRunNs = ti.longestRun;
        tm.share = end > 0 ? static_cast<double>(ti.cpuTime) / static_cast<double>(end) : 0.0;
        std::vector<int64_t> waits = ti.waits;
        if (ti.waitStart >= 0)
            waits.push_back(end - ti.waitStart);
        tm.waitMaxNs = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
        tm.waitP50Ns = nearestRankPercentile(waits, 50);
        tm.waitP99Ns = nearestRankPercentile(waits, 99);
        tm.switches = ti.switches;
        tm.migrations = ti.migrations;
        tm.exitedAtNs = ti.exitedAt;
        m.tasks.push_back(std::move(tm));
        m_result.firstEventNs.push_back(ti.firstEvent);
        m_result.taskInfo.push_back(
            {ti.pid, ti.comm, ti.prio, ti.prioChanged, ti.parent, cpus, dl, std::move(ti.yields)});
    }
    // SCHED_DEADLINE tasks the header names: their jobs (dljobs.h), from their own activity.
    std::vector<std::vector<TraceActivity>> dlActivity(m_result.taskInfo.size());
    bool anyDl = false;
    for (const TraceTaskInfo& info : m_result.taskInfo)
        anyDl = anyDl || info.dl.has_value();
    if (anyDl) {
        for (const TraceActivity& a : m_result.activity)
            if (m_result.taskInfo[static_cast<size_t>(a.task)].dl)
                dlActivity[static_cast<size_t>(a.task)].push_back(a);
        for (size_t i = 0; i < m_result.taskInfo.size(); ++i)
            if (const auto& dlp = m_result.taskInfo[i].dl)
                m.tasks[i].deadline =
                    deriveDlJobs(*dlp, dlActivity[i], m_result.taskInfo[i].yields);
    }
    // Cgroups: the CPU time of the tasks the name map places in them, parents included (a
    // task moved at run time is counted in the group it started in).
    std::map<std::string, int64_t> groupCpu;
    for (const TaskMetrics& tm : m.tasks)
        for (std::string g = tm.cgroup; g.size() > 1 && g.front() == '/';
             g = g.substr(0, std::max<size_t>(g.rfind('/'), 1)))
            groupCpu[g] = saturatingAdd(groupCpu[g], tm.cpuTimeNs);
    for (const auto& [path, stat] : m_cpuStat)
        groupCpu.try_emplace(path, 0);
    for (const auto& [path, cpu] : groupCpu) {
        CgroupMetrics cm{path, cpu, 0, {}, {}};
        if (const auto it = m_cpuStat.find(path); it != m_cpuStat.end()) {
            const auto& stat = it->second;
            auto get = [&](const char* key) -> std::optional<int64_t> {
                const auto v = stat.find(key);
                return v == stat.end() ? std::nullopt : std::optional<int64_t>(v->second);
            };
            cm.throttledNs =
                saturatingMul(std::max<int64_t>(0, get("throttled_usec").value_or(0)), 1000);
            cm.nrPeriods = get("nr_periods");
            cm.nrThrottled = get("nr_throttled");
        }
        m.cgroups.push_back(std::move(cm));
    }
    for (int c = 0; c < rec.cpus; ++c)
        m.cpus.push_back(
            {c, c < static_cast<int>(m_cpus.size()) ? m_cpus[static_cast<size_t>(c)].busy : 0, 0});
    m.run.events = static_cast<uint64_t>(m_result.events);
    m.run.contextSwitches = static_cast<uint64_t>(std::count_if(rec.records().begin(),
        rec.records().end(), [](const Record& r) { return r.kind == RecordKind::Switch; }));
    m.run.recordedEvents = rec.size();
    m.run.recordedBytes = rec.bytes();
    if (!m_started && m_result.errors.empty())
        m_result.errors.push_back(m_file
            + ": no trace events found (expected ftrace text from "
              "/sys/kernel/tracing/trace or trace-cmd report)");
    return std::move(m_result);
}

} // namespace

TraceImport importFtrace(std::istream& in, const std::string& fileName, const TraceNameMap* names)
{
    Importer importer(fileName, names);
    std::string line;
    int64_t number = 0;
    // getline() sets eof on a line without its newline: a truncated last line.
    while (std::getline(in, line))
        importer.line(line, ++number, in.eof());
    return importer.finish();
}

TraceImport importFtraceFile(const std::string& path, const TraceNameMap* names)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        TraceImport r;
        r.errors.push_back(path + ": cannot open the trace");
        return r;
    }
    return importFtrace(in, path, names);
}

} // namespace schedlab
