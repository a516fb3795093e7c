// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs of a real SCHED_DEADLINE task from its trace (dljobs.h).
#include "core/import/dljobs.h"

#include <algorithm>

namespace schedlab {

namespace {

/// The server of one task as the trace lets us follow it (kernel-model.md §15.4–§15.5).
class Server
{
public:
    explicit Server(const DlParams& p)
        : m_p(p)
        , m_period(p.effectivePeriod())
    { }

    void start(int64_t t)
    {
        m_deadline = t + m_p.deadline;
        m_runtime = m_p.runtime;
        m_started = true;
    }
    bool started() const { return m_started; }
    void run(int64_t ns) { m_runtime -= ns; }
    bool exhausted() const { return m_runtime <= 0; }
    /// Throttled at @p t: start_dl_timer() fires at the next period, dl_next_period() =
    /// deadline − D + P, or at once when that has passed; replenish_dl_entity() runs then (a
    /// deadline still behind it starts a new period). Returns the replenishment's time.
    int64_t replenish(int64_t t)
    {
        const int64_t at = std::max(m_deadline - m_p.deadline + m_period, t);
        dlReplenish(m_p, m_deadline, m_runtime, at);
        return at;
    }
    /// sched_yield() at @p t: the rest of the budget is given up; the next job is released at
    /// the replenishment. Returns its time.
    int64_t yield(int64_t t)
    {
        m_runtime = std::min<int64_t>(m_runtime, 0);
        return replenish(t);
    }
    /// update_dl_entity() at a wakeup at @p t.
    void wakeup(int64_t t) { dlUpdateEntity(m_p, m_deadline, m_runtime, t); }

private:
    DlParams m_p;
    int64_t m_period;
    int64_t m_deadline = 0;
    int64_t m_runtime = 0;
    bool m_started = false;
};

} // namespace

DlTaskMetrics deriveDlJobs(const DlParams& params, const std::vector<TraceActivity>& activity,
    const std::vector<int64_t>& yields)
{
    DlTaskMetrics m;
    m.runtimeNs = params.runtime;
    m.deadlineNs = params.deadline;
    m.periodNs = params.effectivePeriod();
    m.reclaim = params.reclaim();
    Server server(params);
    int64_t jobStart = -1;
    int64_t runningSince = -1;
    auto endJob = [&](int64_t t) {
        if (jobStart < 0)
            return;
        const int64_t response = t - jobStart;
        ++m.jobs;
        m.worstResponseNs = std::max(m.worstResponseNs, response);
        if (response > params.deadline)
            ++m.misses;
        jobStart = -1;
    };
    auto consume = [&](int64_t t) {
        if (runningSince >= 0 && t > runningSince)
            server.run(t - runningSince);
        if (runningSince >= 0)
            runningSince = t;
    };
    size_t y = 0;
    // A yield marker is written before the sched_yield() that switches the task out: at equal
    // times the marker goes first.
    auto yieldsUpTo = [&](int64_t t) {
        for (; y < yields.size() && yields[y] <= t; ++y) {
            if (!server.started())
                continue;
            consume(yields[y]);
            endJob(yields[y]);
            jobStart = server.yield(yields[y]);
        }
    };
    for (const TraceActivity& a : activity) {
        if (a.kind != TraceActivity::Kind::On && a.kind != TraceActivity::Kind::Off
            && a.kind != TraceActivity::Kind::Woken)
            continue;
        yieldsUpTo(a.time);
        if (!server.started()) {
            server.start(a.time); // the first job: released at the task's first event
            jobStart = a.time;
        }
        switch (a.kind) {
        case TraceActivity::Kind::On:
            runningSince = a.time;
            break;
        case TraceActivity::Kind::Off:
            consume(a.time);
            runningSince = -1;
            if (a.detail != 0) { // blocked or dead: the job ends here
                endJob(a.time);
            } else if (server.exhausted()) { // throttled: the same job goes on a period later
                ++m.throttles;
                server.replenish(a.time);
            }
            break;
        case TraceActivity::Kind::Woken:
            if (jobStart < 0) { // a new job at a wakeup after a block
                server.wakeup(a.time);
                jobStart = a.time;
            }
            break;
        case TraceActivity::Kind::Wakes:
        case TraceActivity::Kind::Fork:
            break;
        }
    }
    yieldsUpTo(INT64_MAX);
    return m;
}

} // namespace schedlab
