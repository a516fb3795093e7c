// SPDX-License-Identifier: GPL-2.0-or-later
// The machine built from a Scenario: the kernel profile and its overrides, the CPUs and their run
// queues, the cgroup hierarchy (sched_create_group(), the cgroup files' first writes), the
// scenario's tasks (sched_fork()'s part: policy, nice, slice, cookie) and actions. The run
// itself is machine.cpp.
#include "core/kernel/catalogue.h"
#include "machine.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace schedlab {

namespace {

int64_t tickNsForHz(int hz)
{
    return (1000000000LL + hz / 2) / hz; // TICK_NSEC
}

// §2.3: effective slice factor of sched_tunable_scaling.
int64_t sliceFactor(TunableScaling scaling, int cpus)
{
    const int n = std::min(cpus, 8);
    switch (scaling) {
    case TunableScaling::None:
        return 1;
    case TunableScaling::Linear:
        return n;
    case TunableScaling::Log:
        break;
    }
    return 1 + (std::bit_width(static_cast<unsigned>(n)) - 1); // 1 + ilog2(n)
}

std::string parentPath(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

Machine::Machine(const Scenario& scenario, const RunOptions& options)
    : m_scenario(scenario)
    , m_options(options)
    , m_prng(options.seed.value_or(scenario.seedOrDefault()))
    , m_guard(options.limits)
    , m_waits(m_guard, options.watchdogThreshold.count())
{
    m_events.setDispatcher(this, &Machine::dispatchEvent);
    bindClock(&m_events.nowNs());
    m_end = options.duration.value_or(scenario.durationOrDefault());
    m_guard.checkScenario(scenario); // before anything is allocated
    buildKernel(scenario, options);
    m_rec.cpus = m_cpus;
    m_rec.setCapacityLimit(options.limits.recordingBytes);
    // While nothing reads the recording, records and samples are counted in place (the run
    // queue's structure, flat or not, is fixed for the run after buildKernel()).
    countOnly(&m_rec, options.recordEvents, options.recordSamples, m_choices.flat);
    measureLagBound(options.lagBoundMetric);
    for (int c = 0; c < m_cpus; ++c)
        m_rqs.push_back(std::make_unique<Rq>(c, m_choices));
    m_threadsPerCore = std::clamp(scenario.machine.threadsPerCore.value_or(1), 1, m_cpus);
    m_coresPerLlc = std::max(1, scenario.machine.coresPerLlc.value_or(m_cpus / m_threadsPerCore));
    initBalancer(scenario);

    FairParams params;
    params.choices = &m_choices;
    params.traits = &m_traits;
    params.features = &m_features;
    params.tickNs = m_tickNs;
    const auto profile = findProfile(m_profileName);
    const Nanoseconds normalized = m_baseSliceOverride.value_or(profile->baseSlice);
    params.normalizedBaseSlice = normalized.count();
    params.baseSlice = normalized.count() * sliceFactor(m_scaling, m_cpus);
    m_baseSlice = params.baseSlice;
    m_fair = std::make_unique<FairClass>(params, *this, m_groups);

    initClasses(scenario);
    buildGroups(scenario);

    // Tasks of the file, in file order; random start times are drawn in that order.
    m_guard.checkTaskCount(scenario);
    for (const TaskSpec& spec : scenario.tasks) {
        const int count = spec.count.value_or(1);
        const auto program = std::make_shared<const std::vector<Op>>(spec.program);
        for (int i = 1; i <= count; ++i) {
            const std::string name = spec.count ? spec.name + "-" + std::to_string(i) : spec.name;
            Task& task = createTask(spec, name, -1, program);
            const int64_t start = spec.start ? m_interp->draw(*spec.start) : 0;
            task.spawnedAt = start;
            const int index = task.index;
            m_events.schedule(Nanoseconds(start), [this, index] {
                m_eventCpu = -1;
                wakeUpNewTask(*m_tasks[static_cast<size_t>(index)]);
            });
        }
    }
    scheduleActions(scenario);
}

Machine::~Machine()
{
    // Unlink every entity from the intrusive trees before they are destroyed.
    for (auto& g : m_groups)
        for (auto& rq : g.cfsRq)
            if (rq)
                rq->clearTrees();
    for (auto& rq : m_rqs)
        rq->cfs->clearTrees();
}

void Machine::buildKernel(const Scenario& scenario, const RunOptions& options)
{
    const KernelSpec& k = scenario.kernel;
    const std::string name = options.profile.value_or(k.profile.value_or(defaultProfile().name));
    const KernelProfile* profile = findProfile(name);
    if (!profile)
        throw std::invalid_argument(
            "unknown kernel profile \"" + name + "\" (known: " + profileNameList() + ")");
    m_profileName = profile->name;
    m_choices = profile->choices;
    m_traits = profile->traits;
    m_features = profile->features;
    for (const auto& [feature, on] : k.features) {
        std::string error;
        if (!m_features.apply(on ? feature : "NO_" + feature, &error))
            throw std::invalid_argument(error);
    }
    for (const auto& [choice, value] : k.overrides) {
        std::string error;
        if (!applyOverride(m_choices, m_traits, choice, value, &error))
            throw std::invalid_argument(error);
    }
    for (const std::string& f : options.features) {
        std::string error;
        if (!m_features.apply(f, &error))
            throw std::invalid_argument(error);
    }
    for (const auto& [choice, value] : options.overrides) {
        std::string error;
        if (!applyOverride(m_choices, m_traits, choice, value, &error))
            throw std::invalid_argument(error);
    }
    // A flat run queue (7.3, kernel-model.md §6.1) has no group entity in a tree that the
    // ≤6.17 group-dequeue throttle could take out: flat=true always throttles task by task.
    if (m_choices.flat && m_choices.throttle == ThrottleModel::Group)
        m_choices.throttle = ThrottleModel::Task;
    m_cpus = scenario.machine.cpuCount();
    m_hz = k.hz.value_or(1000);
    m_tickNs = tickNsForHz(m_hz);
    m_preempt = k.preempt.value_or(Preempt::Voluntary);
    m_scaling = k.tunableScaling.value_or(TunableScaling::Log);
    m_baseSliceOverride = k.baseSlice;
}

void Machine::buildGroups(const Scenario& scenario)
{
    TaskGroup root;
    root.index = 0;
    root.path = "/";
    m_groups.push_back(std::move(root));
    m_groupIndex.emplace("/", 0);
    m_rec.groupPaths.push_back("/");
    for (const CgroupSpec& spec : scenario.cgroups) {
        if (spec.path == "/") {
            applyCgroupFiles(0, spec.files);
            continue;
        }
        if (spec.count) { // "/g" with count N: /g-1 … /g-N
            for (int n = 1; n <= *spec.count; ++n)
                addGroup(spec.path + "-" + std::to_string(n), spec.files);
            continue;
        }
        addGroup(spec.path, spec.files);
    }
    m_groupCpuTime.assign(m_groups.size(), 0);
}

int Machine::groupByPath(const std::string& path) const
{
    const auto it = m_groupIndex.find(path);
    return it == m_groupIndex.end() ? -1 : it->second;
}

int Machine::addGroup(const std::string& path, const CgroupFiles& files)
{
    const int parent = groupByPath(parentPath(path));
    if (parent < 0)
        throw std::invalid_argument("cgroup " + path + ": unknown parent");
    TaskGroup tg;
    tg.index = static_cast<int>(m_groups.size());
    tg.parent = parent;
    tg.depth = m_groups[static_cast<size_t>(parent)].depth + 1;
    tg.path = path;
    m_groups.push_back(std::move(tg));
    TaskGroup& g = m_groups.back();
    for (int c = 0; c < m_cpus; ++c) {
        auto rq = std::make_unique<CfsRq>(m_choices);
        auto se = std::make_unique<SchedEntity>();
        rq->cpu = c;
        rq->groupIndex = g.index;
        rq->owner = se.get();
        se->myQ = rq.get();
        se->load = loadWeightOf(kNice0Load); // init_tg_cfs_entry()
        se->slice = m_baseSlice;
        se->depth = g.depth - 1;
        const TaskGroup& pg = m_groups[static_cast<size_t>(parent)];
        se->cfsRq = parent == 0 ? m_rqs[static_cast<size_t>(c)]->cfs.get()
                                : pg.cfsRq[static_cast<size_t>(c)].get();
        se->parent = parent == 0 ? nullptr : pg.se[static_cast<size_t>(c)].get();
        g.cfsRq.push_back(std::move(rq));
        g.se.push_back(std::move(se));
    }
    m_rec.groupPaths.push_back(path);
    m_groupIndex.emplace(path, g.index);
    for (SchedClass* cls : m_classes) // alloc_rt_sched_group(), …
        if (SchedGroupOps* ops = cls->groupOps())
            ops->groupCreated(g.index, parent);
    applyCgroupFiles(g.index, files);
    return g.index;
}

void Machine::applyCgroupFiles(int group, const CgroupFiles& files)
{
    writeClassFiles(group, files, ""); // each class its own files (machineclasses.cpp)
}

void Machine::scheduleActions(const Scenario& scenario)
{
    for (const Action& action : scenario.actions) {
        const Action copy = action;
        m_events.schedule(action.at, [this, copy] {
            m_eventCpu = -1;
            apply(copy);
        });
    }
}

// --- tasks ------------------------------------------------------------------------------------

Task& Machine::createTask(const TaskSpec& spec, const std::string& name, int parent,
    std::shared_ptr<const std::vector<Op>> program)
{
    auto task = std::make_unique<Task>();
    Task& t = *task;
    t.index = static_cast<int>(m_tasks.size());
    t.name = name;
    t.parent = parent;
    const Task* p = parent >= 0 ? m_tasks[static_cast<size_t>(parent)].get() : nullptr;
    t.group = spec.cgroup ? groupByPath(*spec.cgroup) : (p ? p->group : 0);
    if (t.group < 0)
        throw std::invalid_argument("task " + name + ": unknown cgroup " + *spec.cgroup);
    t.cpus = p ? p->cpus : CpuSet::all(m_cpus);
    if (spec.cpus) {
        std::string error;
        auto set = CpuSet::parse(*spec.cpus, m_cpus, &error);
        if (!set)
            throw std::invalid_argument("task " + name + ": " + error);
        t.cpus = *set;
    }
    t.policy = spec.policy.value_or(p ? p->policy : Policy::Normal);
    t.rtPriority = spec.rtPriority.value_or(p ? p->rtPriority : 0);
    // sched_fork(): rt_prio() chooses rt_sched_class; __sched_setscheduler() refuses an RT
    // policy in a group without RT runtime. (Kernel tests of the policy, not dispatch.)
    if (p && p->isDl()) {
        // sched_fork() refuses to fork a SCHED_DEADLINE task (EAGAIN). The model forks anyway,
        // says so, and the child does not inherit the policy (kernel-model.md §15.8).
        failedAction(p->name, p->cpu,
            "fork() of SCHED_DEADLINE task " + p->name + ": EAGAIN in the kernel; the child " + name
                + " runs here, " + (spec.policy ? "with its own policy" : "SCHED_NORMAL"));
        if (!spec.policy)
            t.policy = Policy::Normal;
    }
    if (t.isDl())
        t.dl.params = spec.dl.value_or(DlParams{});
    SchedClass& cls = classOf(t);
    if (!cls.fairPolicy() && !t.isDl() && t.rtPriority == 0)
        t.rtPriority = 1;
    if (SchedGroupOps* ops = cls.groupOps(); ops && !ops->admits(t.group)) {
        // sched_setscheduler() refuses an RT policy in a group without RT runtime (EPERM).
        failedAction("", 0,
            "sched_setscheduler(" + name + ", " + (t.policy == Policy::Fifo ? "fifo" : "rr")
                + "): EPERM (" + m_groups[static_cast<size_t>(t.group)].path
                + " has cpu.rt_runtime_us 0); the task stays SCHED_NORMAL");
        t.policy = Policy::Normal;
    }
    t.nice = spec.nice.value_or(p ? p->nice : 0);
    t.probe = spec.probe;
    // sched_core_fork(): a child inherits its parent's cookie.
    if (const uint64_t cookie = spec.cookie.value_or(p ? p->cookie : 0))
        m_core->setCookie(t, cookie);
    t.program = std::move(program);
    t.stack.push_back({t.program.get(), 0, 0});
    t.se.task = TaskId(t.index);
    t.se.idlePolicy = t.policy == Policy::Idle;
    t.se.batchPolicy = t.policy == Policy::Batch;
    t.se.load = taskLoadWeight(t.nice, t.se.idlePolicy);
    std::optional<Nanoseconds> slice = spec.slice;
    if (!slice && p && p->se.customSlice)
        slice = Nanoseconds(p->se.slice);
    if (slice && m_traits.customSlices) {
        t.se.slice = std::clamp<int64_t>(slice->count(), 100000, 100000000);
        t.se.customSlice = true;
    } else {
        t.se.slice = m_baseSlice;
        if (spec.slice)
            ignoredSlice(name, *spec.slice);
    }
    t.cpu = t.cpus.first() < 0 ? 0 : t.cpus.first();
    m_guard.taskCreated(name);
    m_rec.taskNames.push_back(name);
    if (m_foldForked && parent < 0) { // a task spawned while released forks are folded
        m_listedNames.insert(name);
        m_dottedListed = m_dottedListed || name.find('.') != std::string::npos;
    }
    if (parent >= 0)
        noteForked(t);
    m_tasks.push_back(std::move(task));
    attachToCpu(t, t.cpu);
    return t;
}

void Machine::attachToCpu(Task& task, int cpu)
{
    task.cpu = cpu;
    const TaskGroup& g = m_groups[static_cast<size_t>(task.group)];
    if (task.group == 0) {
        task.se.cfsRq = m_rqs[static_cast<size_t>(cpu)]->cfs.get();
        task.se.parent = nullptr;
    } else {
        task.se.cfsRq = g.cfsRq[static_cast<size_t>(cpu)].get();
        task.se.parent = g.se[static_cast<size_t>(cpu)].get();
    }
    task.se.depth = g.depth;
}

// Topology: CPU i is thread (i % threads_per_core) of core (i / threads_per_core); cores are
// grouped into LLCs of cores_per_llc cores.
int Machine::coreOf(int cpu) const
{
    return cpu / m_threadsPerCore;
}
int Machine::llcOf(int cpu) const
{
    return coreOf(cpu) / m_coresPerLlc;
}

} // namespace schedlab
