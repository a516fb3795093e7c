// SPDX-License-Identifier: GPL-2.0-or-later
// The drivers of the fair load balancer (kernel/sched/fair.c; kernel-model.md §8.3): the
// periodic balance from the tick (sched_balance_trigger(), sched_balance_domains()), the
// new-idle balance (sched_balance_newidle()) and the NOHZ idle balancer (nohz_balancer_kick(),
// kick_ilb(), _nohz_idle_balance()). What they call — sched_balance_rq() with find_busiest,
// detach and attach — is in loadbalance.cpp.
#include "core/fair/loadbalance.h"
#include "core/sched/rq.h"

#include <algorithm>

namespace schedlab {

namespace {

// nohz_flags() of the idle load balancer's kick (kernel-model.md §6.6).
constexpr unsigned kNohzStatsKick = 1u << 0;
constexpr unsigned kNohzBalanceKick = 1u << 1;
constexpr unsigned kNohzNextKick = 1u << 2; ///< only nohz.next_balance is recomputed

} // namespace

void LoadBalancer::tickBalance(int cpu)
{
    // sched_balance_trigger(): the SCHED_SOFTIRQ when rq->next_balance is due.
    if (jiffies() >= m_nextBalance[static_cast<size_t>(cpu)]) {
        // sched_balance_softirq(): the CPU's blocked averages, then its domains (§6.6).
        updateBlocked(cpu);
        balanceDomains(cpu, m_ctx.idleCpu(cpu) ? CpuIdleType::Idle : CpuIdleType::NotIdle,
            MigrateReason::Periodic);
    }
    nohzBalancerKick(cpu);
}

void LoadBalancer::balanceDomains(int cpu, CpuIdleType idle, MigrateReason reason)
{
    // sched_balance_domains()
    const Rq& rq = m_ctx.rq(cpu);
    auto schedIdle = [&] {
        const int nr = m_ctx.nrRunning(cpu);
        return nr > 0 && nr == rq.cfs->hNrIdle;
    };
    bool busy = idle != CpuIdleType::Idle && !schedIdle();
    bool continueBalancing = true;
    const int64_t now = jiffies();
    int64_t nextBalance = now + 60 * int64_t{m_hz};
    bool update = false;
    bool needDecay = false;
    int64_t maxCost = 0;
    auto& domains = m_sd.domains(cpu);
    for (size_t level = 0; level < domains.size(); ++level) {
        SchedDomain& sd = domains[level];
        // The new-idle costs decay here, a regular visit to every domain (§8.3); the flag is
        // the last domain's, as in the kernel.
        needDecay = updateNewidleCost(sd, 0);
        maxCost += sd.maxNewidleLbCost;
        if (!continueBalancing) {
            if (needDecay)
                continue;
            break;
        }
        int64_t interval = balanceIntervalJiffies(sd, busy);
        if (now >= sd.lastBalance + interval) {
            if (balanceRq(cpu, static_cast<int>(level), idle, reason, &continueBalancing)) {
                // We pulled: we may be busy now.
                idle = m_ctx.idleCpu(cpu) ? CpuIdleType::Idle : CpuIdleType::NotIdle;
                busy = idle != CpuIdleType::Idle && !schedIdle();
            }
            sd.lastBalance = now;
            interval = balanceIntervalJiffies(sd, busy);
        }
        if (nextBalance > sd.lastBalance + interval) {
            nextBalance = sd.lastBalance + interval;
            update = true;
        }
    }
    if (needDecay) // the rq-wide cost decays too, to no less than the migration cost
        m_maxIdleBalanceCost[static_cast<size_t>(cpu)] = std::max(kSchedMigrationCostNs, maxCost);
    if (update)
        m_nextBalance[static_cast<size_t>(cpu)] = nextBalance;
}

bool LoadBalancer::newIdle(int cpu)
{
    // sched_balance_newidle()
    auto& domains = m_sd.domains(cpu);
    if (domains.empty()) {
        // One CPU: no domain to walk, but once two tasks were runnable (rd->overloaded is
        // never cleared without a balance) the blocked averages are still updated (§6.6).
        if (m_rdOverloaded)
            m_s.updateBlockedAverages(cpu);
        return false;
    }
    if (m_sd.asymCapacity())
        m_ctx.rq(cpu).misfitTaskLoad = 0; // update_misfit_status(NULL): going idle
    const int64_t now = jiffies();
    int64_t nextBalance = now + m_hz;
    auto updateNext = [&](const SchedDomain& sd) {
        nextBalance = std::min(nextBalance, sd.lastBalance + balanceIntervalJiffies(sd, false));
    };
    int pulled = 0;
    // Only when some CPU has more than one task (rd->overloaded) and the CPU's mean idle time
    // is at least what balancing its domains has cost (the cost gate, §8.3: the costs are the
    // scenario's newidle_balance, 0 by default, when the gates always pass).
    const int64_t avgIdle = m_avgIdle[static_cast<size_t>(cpu)];
    if (!m_rdOverloaded || avgIdle < domains.front().maxNewidleLbCost) {
        updateNext(domains.front());
    } else {
        // before the domain walk, as the kernel does
        updateBlocked(cpu);
        bool continueBalancing = true;
        int64_t currCost = 0;
        for (size_t level = 0; level < domains.size(); ++level) {
            SchedDomain& sd = domains[level];
            updateNext(sd);
            if (avgIdle < currCost + sd.maxNewidleLbCost)
                break;
            if (sd.flags & SdBalanceNewidle) {
                // NI_RANDOM (§8.3): a 1024-sided die; the domain is balanced only with the
                // probability of its recent success, and a success then counts 1024 / that
                // probability, so the statistics keep estimating the rate of a balance tried.
                uint32_t weight = 1;
                if (m_features && m_features->has(Feature::NiRandom)) {
                    const uint32_t d1k = schedRng(cpu) % 1024;
                    weight = 1 + sd.newidleRatio;
                    if (d1k > weight) {
                        updateNewidleStats(sd, 0);
                        continue;
                    }
                    weight = (1024 + weight / 2) / weight;
                }
                pulled = balanceRq(cpu, static_cast<int>(level), CpuIdleType::NewlyIdle,
                    MigrateReason::NewIdle, &continueBalancing);
                // update_newidle_cost(): the statistics move with every balance that cost
                // time, which on a real machine is every one (so here even at cost 0).
                currCost += m_newidleCostNs;
                updateNewidleStats(sd, pulled ? weight : 0);
                updateNewidleCost(sd, m_newidleCostNs);
            }
            if (pulled || !continueBalancing)
                break;
        }
        int64_t& maxIdle = m_maxIdleBalanceCost[static_cast<size_t>(cpu)];
        maxIdle = std::max(maxIdle, currCost);
    }
    int64_t& next = m_nextBalance[static_cast<size_t>(cpu)];
    if (next > nextBalance)
        next = nextBalance;
    // nohz_newidle_balance(): a CPU that expects to stay idle a while (avg_idle of at least
    // sysctl_sched_migration_cost) updates the idle CPUs' blocked load before it idles, when the
    // NOHZ stats period is due (§6.6).
    if (!pulled && m_avgIdle[static_cast<size_t>(cpu)] >= kSchedMigrationCostNs && m_nohzHasBlocked
        && now >= m_nohzNextBlocked)
        m_newIlbKick[static_cast<size_t>(cpu)] = 1;
    return pulled > 0;
}

void LoadBalancer::updateNewidleStats(SchedDomain& sd, uint32_t success)
{
    // update_newidle_stats(): every 1024 calls the success count becomes the ratio, and both
    // counts halve (a moving estimate).
    ++sd.newidleCall;
    sd.newidleSuccess += success;
    if (sd.newidleCall >= 1024) {
        sd.newidleRatio = sd.newidleSuccess;
        sd.newidleCall /= 2;
        sd.newidleSuccess /= 2;
    }
}

uint32_t LoadBalancer::schedRng(int cpu)
{
    // sched_rng(): the CPU's own pseudo-random stream (the kernel's per-CPU prandom state; here
    // one xoshiro stream per CPU derived from the run's seed, so a run stays reproducible).
    if (m_rng.size() != static_cast<size_t>(m_sd.cpus()))
        seedRng(0); // a balancer made without a run (tests)
    return static_cast<uint32_t>(m_rng[static_cast<size_t>(cpu)].next() >> 32);
}

void LoadBalancer::seedRng(uint64_t seed)
{
    m_rng.clear();
    uint64_t state = seed ^ 0x4e495f52414e44ULL; // "NI_RAND": a stream apart from the workload's
    for (int c = 0; c < m_sd.cpus(); ++c)
        m_rng.emplace_back(Prng::splitmix64(state));
}

void LoadBalancer::cpuEnteredIdle(int cpu)
{
    const auto c = static_cast<size_t>(cpu);
    if (m_newIlbKick[c]) {
        // nohz_run_idle_balance(): the stats update the new-idle balance asked for.
        m_newIlbKick[c] = 0;
        nohzIdleBalance(cpu, kNohzStatsKick);
    }
    // nohz_balance_enter_idle(): the tick stops; the CPU joins nohz.idle_cpus_mask and is assumed
    // to have blocked load.
    m_hasBlockedLoad[c] = 1;
    if (!m_tickStopped[c] && !m_sd.domains(cpu).empty()) { // not on_null_domain()
        m_tickStopped[c] = 1;
        ++m_nrTickStopped;
        m_nohzNeedsUpdate = true; // nohz.next_balance must take this CPU's into account
    }
    if (m_tickStopped[c])
        m_nohzHasBlocked = true;
}

void LoadBalancer::idleEnded(int cpu, int64_t idleNs)
{
    // update_avg() in ttwu_do_activate(), capped at 2 · max_idle_balance_cost (§8.3).
    int64_t& avg = m_avgIdle[static_cast<size_t>(cpu)];
    avg += (idleNs - avg) / 8;
    avg = std::min(avg, 2 * m_maxIdleBalanceCost[static_cast<size_t>(cpu)]);
}

bool LoadBalancer::updateNewidleCost(SchedDomain& sd, int64_t cost)
{
    // update_newidle_cost() without its statistics: the largest cost of a new-idle balance of
    // the domain, decayed by 3/256 (about 1 %) once a second; true when it decayed.
    const int64_t now = jiffies();
    if (cost > sd.maxNewidleLbCost) {
        sd.maxNewidleLbCost = cost;
        sd.lastDecayMaxLbCost = now;
    } else if (now > sd.lastDecayMaxLbCost + m_hz) {
        sd.maxNewidleLbCost = sd.maxNewidleLbCost * 253 / 256;
        sd.lastDecayMaxLbCost = now;
        return true;
    }
    return false;
}

void LoadBalancer::nohzBalancerKick(int cpu)
{
    // nohz_balancer_kick() from the tick of busy @p cpu; nohz_balance_exit_idle() first: the
    // CPU's tick runs again.
    if (m_tickStopped[static_cast<size_t>(cpu)]) {
        m_tickStopped[static_cast<size_t>(cpu)] = 0;
        --m_nrTickStopped;
    }
    if (m_nrTickStopped == 0)
        return; // nohz.nr_cpus == 0 (a count, not a scan of every CPU at every tick)
    const int64_t now = jiffies();
    // NOHZ_STATS_KICK once nohz.next_blocked has passed and some idle CPU has blocked load;
    // NOHZ_NEXT_KICK after a CPU stopped its tick, so nohz.next_balance is recomputed.
    const unsigned next = m_nohzNeedsUpdate ? kNohzNextKick : 0;
    const unsigned stats = m_nohzHasBlocked && now > m_nohzNextBlocked ? kNohzStatsKick : 0;
    if (now < m_nohzNextBalance) {
        if (stats | next)
            kickIlb(cpu, stats | next);
        return;
    }
    bool kick = m_ctx.nrRunning(cpu) >= 2;
    if (const SchedDomain* sd = m_sd.asymPackingDomain(cpu); !kick && sd) {
        // An idle CPU of higher priority (with its whole core idle on SMT) may take this
        // CPU's work (§8.5).
        for (int c = sd->first; c < sd->first + sd->weight && !kick; ++c)
            kick = c != cpu && m_ctx.idleCpu(c) && schedAsym(*sd, c, cpu);
    }
    if (!kick && m_sd.asymCapacityDomain(cpu)) {
        // check_misfit_status(): a misfit task may find a bigger CPU (before 6.10 only when this
        // CPU is not of the biggest capacity). The LLC rule does not apply (kernel-model.md §8.4).
        const int64_t misfit = m_ctx.rq(cpu).misfitTaskLoad;
        kick =
            misfit && (misfitFittingCpu() || m_sd.topology().capacityOf(cpu) < m_sd.maxCapacity());
    } else if (!kick) {
        // More than one busy CPU in the LLC: an idle one may take a task.
        if (const SchedDomain* llc = m_sd.llc(cpu)) {
            int busy = 0;
            for (int c = llc->first; c < llc->first + llc->weight && busy < 2; ++c)
                if (!m_ctx.idleCpu(c))
                    ++busy;
            kick = busy > 1;
        }
    }
    if (kick || stats || next)
        kickIlb(cpu, (kick ? kNohzStatsKick | kNohzBalanceKick : stats) | next);
}

void LoadBalancer::kickIlb(int cpu, unsigned flags)
{
    // kick_ilb(): a balance kick pushes nohz.next_balance one jiffy on (with no idle CPU, look
    // again next jiffy); find_new_ilb(): the first idle CPU with its tick stopped does the work
    // for every idle CPU.
    if (flags & kNohzBalanceKick)
        m_nohzNextBalance = jiffies() + 1;
    for (int c = 0; c < m_sd.cpus(); ++c)
        if (c != cpu && m_tickStopped[static_cast<size_t>(c)] && m_ctx.idleCpu(c)) {
            nohzIdleBalance(c, flags);
            return;
        }
}

bool LoadBalancer::updateNohzStats(int cpu)
{
    // update_nohz_stats(): at most once per jiffy, and only while the CPU has blocked load.
    const auto c = static_cast<size_t>(cpu);
    if (!m_hasBlockedLoad[c])
        return false;
    if (jiffies() <= m_ctx.rq(cpu).lastBlockedUpdate)
        return true;
    return updateBlocked(cpu);
}

bool LoadBalancer::updateBlocked(int cpu)
{
    // sched_balance_update_blocked_averages(), then update_blocked_load_status(): the flag is
    // cleared once nothing is left to decay (it is set again when the CPU enters idle).
    auto& flag = m_hasBlockedLoad[static_cast<size_t>(cpu)];
    if (!m_s.updateBlockedAverages(cpu))
        flag = 0;
    return flag;
}

int64_t LoadBalancer::msecsToJiffies(int64_t ms) const
{
    return (ms * m_hz + 999) / 1000; // msecs_to_jiffies() rounds up
}

void LoadBalancer::nohzIdleBalance(int ilbCpu, unsigned flags)
{
    // _nohz_idle_balance(): every idle CPU of nohz.idle_cpus_mask, starting after the ILB CPU and
    // ending with it; stop when the ILB CPU itself got work. NOHZ_STATS_KICK decays their
    // blocked load (§6.6), NOHZ_BALANCE_KICK balances those whose next_balance is due.
    const int n = m_sd.cpus();
    const int64_t now = jiffies();
    int64_t nextBalance = now + 60 * int64_t{m_hz};
    bool update = false;
    bool hasBlocked = false;
    if (flags & kNohzStatsKick)
        m_nohzHasBlocked = false;
    if (flags & kNohzNextKick)
        m_nohzNeedsUpdate = false;
    for (int k = 1; k <= n; ++k) {
        const int c = (ilbCpu + k) % n;
        if (!m_tickStopped[static_cast<size_t>(c)] || !m_ctx.idleCpu(c))
            continue;
        if (c != ilbCpu && !m_ctx.idleCpu(ilbCpu)) {
            // need_resched() on the ILB CPU: the next kick does the rest.
            if (flags & kNohzStatsKick)
                m_nohzHasBlocked = true;
            if (flags & kNohzNextKick)
                m_nohzNeedsUpdate = true;
            return;
        }
        if (flags & kNohzStatsKick)
            hasBlocked = updateNohzStats(c) || hasBlocked;
        if ((flags & kNohzBalanceKick) && now >= m_nextBalance[static_cast<size_t>(c)])
            balanceDomains(c, CpuIdleType::Idle, MigrateReason::NohzIdle);
        if (nextBalance > m_nextBalance[static_cast<size_t>(c)]) {
            nextBalance = m_nextBalance[static_cast<size_t>(c)];
            update = true;
        }
    }
    if (update)
        m_nohzNextBalance = nextBalance;
    if (flags & kNohzStatsKick)
        m_nohzNextBlocked = now + msecsToJiffies(kLoadAvgPeriod); // LOAD_AVG_PERIOD ms
    if (hasBlocked)
        m_nohzHasBlocked = true;
}

} // namespace schedlab
