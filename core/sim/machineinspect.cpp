// SPDX-License-Identifier: GPL-2.0-or-later
// Snapshots of the run queues for the inspector (core/sim/inspect.h).
#include "core/sim/inspect.h"
#include "core/sim/machine.h"
#include "core/sim/simulation.h"

#include <functional>

namespace schedlab {

Inspection Machine::inspect(bool settle)
{
    if (settle) {
        // pick_task_fair() updates curr at each level before picking there (§3.5): the fair
        // class's update_curr() (a running task of another class is not charged here).
        for (auto& rq : m_rqs)
            m_classes[kFairClass]->updateCurr(*rq);
    }
    // The fair class's queues read through the pick explainer (core/fair/pickexplain.h), as the
    // kernel's sched_debug prints them (print_cfs_rq()).
    const PickPolicy policy{&m_choices, &m_traits, &m_features};
    auto nameOf = [this](const SchedEntity& se) -> std::string {
        if (se.isTask())
            return m_tasks[static_cast<size_t>(se.task.index())]->name;
        return m_groups[static_cast<size_t>(se.myQ->groupIndex)].path;
    };

    Inspection out;
    out.at = now();
    out.profile = m_profileName;
    for (auto& rq : m_rqs) {
        CpuInspection cpu;
        cpu.cpu = rq->cpu;
        cpu.running = rq->curr ? nameOf(*rq->curr) : std::string("idle");
        for (const SchedEntity& se : rq->cfsTasks)
            cpu.cfsTasks.push_back(nameOf(se));
        std::function<void(const CfsRq&, int)> visit = [&](const CfsRq& cfsRq, int depth) {
            const size_t self = cpu.rqs.size();
            cpu.rqs.emplace_back();
            CfsRqInspection ri;
            ri.cpu = rq->cpu;
            ri.group = cfsRq.groupIndex;
            ri.path = m_groups[static_cast<size_t>(cfsRq.groupIndex)].path;
            ri.depth = depth;
            ri.avgVruntime = cfsRq.peekAvgVruntime();
            ri.v0 = cfsRq.v0;
            ri.loadWeight = cfsRq.loadWeight;
            ri.nrQueued = cfsRq.nrQueued;
            ri.hNrQueued = cfsRq.hNrQueued;
            ri.hNrRunnable = cfsRq.hNrRunnable;
            ri.loadAvg = cfsRq.avg.loadAvg;
            ri.runnableAvg = cfsRq.avg.runnableAvg;
            ri.utilAvg = cfsRq.avg.utilAvg;
            const PickExplanation ex =
                explainPick(cfsRq, policy, PickSite::PickNextEntity, true, nameOf);
            ri.picked = ex.chosen ? nameOf(*ex.chosen) : std::string();
            ri.step = ex.step;
            for (const SchedEntity* se : ex.eligible)
                ri.eligible.push_back(nameOf(*se));
            if (ex.earliestEligibleDeadline)
                ri.earliestDeadline = nameOf(*ex.earliestEligibleDeadline);
            ri.explanation = ex.lines;
            std::vector<const SchedEntity*> members;
            // With a flat run queue (7.3, kernel-model.md §6.1) only rq->cfs has members (tasks);
            // group queues are shown with their accounting only.
            const SchedEntity* ecurr = cfsRq.eevdfCurr();
            if (ecurr && ecurr->onRq)
                members.push_back(ecurr);
            cfsRq.forEachTree([&](const SchedEntity& se) { members.push_back(&se); });
            for (const SchedEntity* se : members) {
                EntityInspection e;
                e.ref = refOf(*se);
                e.name = nameOf(*se);
                e.isGroup = !se->isTask();
                e.curr = se == ecurr;
                e.delayed = se->schedDelayed;
                e.eligible = cfsRq.entityEligible(*se);
                e.protectedSlice = e.curr && entityProtected(*se, m_choices.protection);
                e.nextBuddy = se == cfsRq.next;
                e.picked = se == ex.chosen;
                e.weight = m_choices.flat ? se->hLoad.weight : se->load.weight;
                e.vruntime = se->vruntime;
                e.deadline = se->deadline;
                e.vprot = se->vprot;
                e.vlag = se->vlag;
                e.lag = vdiff(ri.avgVruntime, se->vruntime);
                e.key = cfsRq.key(*se);
                e.slice = se->slice;
                e.loadAvg = se->avg.loadAvg;
                e.runnableAvg = se->avg.runnableAvg;
                e.utilAvg = se->avg.utilAvg;
                ri.entities.push_back(std::move(e));
            }
            cpu.rqs[self] = std::move(ri);
            for (size_t i = 0; i < members.size(); ++i) {
                const SchedEntity* se = members[i];
                if (se->myQ) {
                    cpu.rqs[self].entities[i].childRq = static_cast<int>(cpu.rqs.size());
                    visit(*se->myQ, depth + 1);
                }
            }
        };
        visit(*rq->cfs, 0);
        // The deadline class's tree, its throttled tasks and the fair server (§15).
        auto dlOf = [&](const Task& t) {
            DlEntityInspection d;
            d.name = t.name;
            d.curr = rq->curr == &t.se;
            d.throttled = t.dl.throttled;
            d.runtimeLeft = t.dl.runtime;
            if (d.curr && !d.throttled && now().count() > t.dl.execStart) {
                const int64_t delta = now().count() - t.dl.execStart;
                d.runtimeLeft -=
                    t.dl.params.reclaim() ? m_dl->grubReclaim(delta, rq->dl, t.dl) : delta;
            }
            d.deadline = t.dl.deadline;
            d.runtime = t.dl.params.runtime;
            d.relDeadline = t.dl.params.deadline;
            d.period = t.dl.params.period;
            return d;
        };
        for (int index : m_dl->queuedTasks(*rq))
            cpu.dl.push_back(dlOf(*m_tasks[static_cast<size_t>(index)]));
        for (const auto& t : m_tasks)
            if (t && t->isDl() && t->cpu == rq->cpu && t->dl.onRq && !t->dl.inTree)
                cpu.dl.push_back(dlOf(*t));
        if (m_traits.fairDeadlineServer && rq->fairServer.periodEnd >= 0) {
            DlEntityInspection d;
            d.name = "fair_server";
            d.server = true;
            d.active = rq->fairServer.running;
            d.runtimeLeft = rq->fairServer.runtime;
            d.deadline = rq->fairServer.periodEnd;
            d.runtime = kFairServerRuntimeNs;
            d.relDeadline = d.period = kFairServerPeriodNs;
            cpu.dl.push_back(d);
        }
        out.cpus.push_back(std::move(cpu));
    }
    return out;
}

Inspection inspectAt(const Scenario& scenario, const RunOptions& options, Nanoseconds t)
{
    RunOptions o = options;
    o.recordSamples = false; // the throwaway run needs no recording
    o.recordEvents = false;
    Simulation sim(scenario, o);
    sim.runUntil(t);
    return sim.inspect(true);
}

} // namespace schedlab
