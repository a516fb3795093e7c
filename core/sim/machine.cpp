// SPDX-License-Identifier: GPL-2.0-or-later
// Construction, the kernel core around the fair class (__schedule, wakeups, tick), actions.
#include "machine.h"

#include "core/base/text.h"
#include "core/scenario/limits.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace schedlab {

namespace {

constexpr int kTickPriority = 1;

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
{
    m_end = options.duration.value_or(scenario.durationOrDefault());
    estimateMemory(scenario); // before anything is allocated
    buildKernel(scenario, options);
    m_rec.cpus = m_cpus;
    m_rec.setCapacityLimit(options.limits.recordingBytes);
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
    m_fair = std::make_unique<FairClass>(params, *this, m_groups);

    initClasses(scenario);
    buildGroups(scenario);

    // Tasks of the file, in file order; random start times are drawn in that order.
    int64_t fileTasks = 0;
    for (const TaskSpec& spec : scenario.tasks)
        fileTasks += std::max(spec.count.value_or(1), 0);
    const int64_t taskLimit =
        std::min<int64_t>(m_options.limits.liveTasks, m_options.limits.createdTasks);
    if (fileTasks > taskLimit)
        throw std::invalid_argument("the scenario has " + std::to_string(fileTasks)
            + " tasks, more than the limit of " + std::to_string(taskLimit)
            + " tasks (docs/limits.md)");
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
        if (!applyChoice(m_choices, choice, value, &error))
            throw std::invalid_argument(error);
    }
    for (const std::string& f : options.features) {
        std::string error;
        if (!m_features.apply(f, &error))
            throw std::invalid_argument(error);
    }
    for (const auto& [choice, value] : options.overrides) {
        std::string error;
        if (!applyChoice(m_choices, choice, value, &error))
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
        se->slice = m_fair->params().baseSlice;
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
    m_rt->groups().emplace_back(); // runtime 0, period 1 s (§10.1)
    m_rt->group(parent).children.push_back(g.index);
    applyCgroupFiles(g.index, files);
    return g.index;
}

uint64_t sharesFromCpuWeight(int cpuWeight)
{
    // sched_weight_from_cgroup(): DIV_ROUND_CLOSEST(weight · 1024, 100), then scale_load and
    // clamp to [MIN_SHARES, MAX_SHARES] scaled (§2.1).
    const uint64_t unscaled = (static_cast<uint64_t>(cpuWeight) * 1024 + 50) / 100;
    return std::clamp(scaleLoad(unscaled), scaleLoad(kMinShares), scaleLoad(kMaxShares));
}

void Machine::applyCgroupFiles(int group, const CgroupFiles& files)
{
    if (files.rtRuntimeUs || files.rtPeriodUs)
        applyRtFiles(group, files, ""); // RT group bandwidth, machineclasses.cpp
    TaskGroup& g = m_groups[static_cast<size_t>(group)];
    bool sharesChanged = false;
    if (files.weight && group != 0) {
        g.cpuWeight = *files.weight;
        g.shares = sharesFromCpuWeight(*files.weight);
        sharesChanged = true;
    }
    if (files.weightNice && group != 0) {
        g.shares = scaleLoad(kPrioToWeight[static_cast<size_t>(*files.weightNice + 20)]);
        sharesChanged = true;
    }
    if (files.cpuMax)
        m_bw->setCpuMax(group, *files.cpuMax);
    if (files.idle && group != 0) {
        g.idle = *files.idle;
        for (auto& se : g.se)
            se->idlePolicy = g.idle;
    }
    if (sharesChanged && !g.se.empty()) {
        // sched_group_set_shares(): refresh the group entity on every CPU, bottom-up.
        for (int c = 0; c < m_cpus; ++c) {
            for (SchedEntity* se = g.se[static_cast<size_t>(c)].get(); se; se = se->parent) {
                if (se->onRq) {
                    m_load->updateLoadAvg(*se->cfsRq, *se, true);
                    m_fair->updateCfsGroup(*se);
                }
            }
        }
    }
}

// The fixed parts of the per-object estimates (docs/limits.md, "Memory") hold with room for the
// allocator's headers and the containers that index the objects.
static_assert(sizeof(Task) + sizeof(Task::Frame) + 3 * sizeof(std::string) + 64
        <= ScenarioLimits::bytesPerTask,
    "ScenarioLimits::bytesPerTask is below a task's size");
static_assert(sizeof(TaskGroup) + sizeof(RtGroup) + 2 * sizeof(std::string) + 128
        <= ScenarioLimits::bytesPerCgroup,
    "ScenarioLimits::bytesPerCgroup is below a cgroup's size");
static_assert(sizeof(CfsRq) + sizeof(SchedEntity) + 2 * 16 + 2 * sizeof(void*)
        <= ScenarioLimits::bytesPerCgroupCpu,
    "ScenarioLimits::bytesPerCgroupCpu is below a cgroup's size on one CPU");
static_assert(sizeof(Rq) + sizeof(CfsRq) <= ScenarioLimits::bytesPerCpu / 4,
    "ScenarioLimits::bytesPerCpu is below a CPU's size");

void Machine::estimateMemory(const Scenario& scenario)
{
    // Summed in file order: the entry that takes the estimate past the guard is the one named.
    const uint64_t limit = m_options.limits.modelBytes;
    const auto cpus = static_cast<uint64_t>(std::max(1, scenario.machine.cpuCount()));
    auto mib = [](uint64_t bytes) { return std::to_string((bytes + (1U << 20U) - 1) >> 20U); };
    auto check = [&](const std::string& path, const std::string& what, uint64_t n) {
        if (m_modelBytes > limit)
            throw std::invalid_argument(path + ": " + what + (n == 1 ? " brings" : " bring")
                + " the estimated memory of the simulation to " + mib(m_modelBytes)
                + " MiB, more than the model-bytes limit of " + mib(limit)
                + " MiB (docs/limits.md, Memory; --limit model-bytes=N)");
    };
    // The root cgroup is one on every CPU.
    m_modelBytes = cpus
        * (static_cast<uint64_t>(ScenarioLimits::bytesPerCpu) + ScenarioLimits::bytesPerCgroupCpu);
    check("/machine/cpus", std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs"), cpus);
    for (size_t i = 0; i < scenario.cgroups.size(); ++i) {
        const CgroupSpec& spec = scenario.cgroups[i];
        if (spec.path == "/")
            continue;
        const auto n = static_cast<uint64_t>(std::max(1, spec.count.value_or(1)));
        m_modelBytes += n
            * (ScenarioLimits::bytesPerCgroup + 2 * (spec.path.size() + 8)
                + cpus * ScenarioLimits::bytesPerCgroupCpu);
        check("/cgroups/" + std::to_string(i) + (spec.count ? "/count" : ""),
            std::to_string(n) + (n == 1 ? " cgroup" : " cgroups") + " on " + std::to_string(cpus)
                + (cpus == 1 ? " CPU" : " CPUs"),
            n);
    }
    const uint64_t withoutTasks = m_modelBytes;
    for (size_t i = 0; i < scenario.tasks.size(); ++i) {
        const TaskSpec& spec = scenario.tasks[i];
        const auto n = static_cast<uint64_t>(std::max(1, spec.count.value_or(1)));
        m_modelBytes += n * (ScenarioLimits::bytesPerTask + 2 * (spec.name.size() + 8));
        check("/tasks/" + std::to_string(i) + (spec.count ? "/count" : ""),
            n == 1 ? "a task" : std::to_string(n) + " copies of a task", n);
    }
    m_modelBytes = withoutTasks; // createTask() counts each task as it is made
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
    if (t.isRt() && t.rtPriority == 0)
        t.rtPriority = 1;
    if (t.isRt() && t.group != 0 && m_rt->group(t.group).runtimeNs == 0) {
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
        t.se.slice = m_fair->params().baseSlice;
    }
    t.cpu = t.cpus.first() < 0 ? 0 : t.cpus.first();
    ++m_liveTasks;
    m_modelBytes += ScenarioLimits::bytesPerTask + 2 * name.size();
    m_rec.taskNames.push_back(name);
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

void Machine::wakeUpNewTask(Task& task)
{
    if (task.state != TaskRunState::NotStarted)
        return; // killed before it started
    // wake_up_new_task(): the task's class chooses the CPU and queues it.
    SchedClass& cls = classOf(task);
    task.alive = true;
    // The parent's CPU: the CPU the fork runs on (sched_fork() puts the child there first).
    const int parentCpu = m_eventCpu >= 0 ? m_eventCpu : task.cpu;
    const int cpu = cls.selectTaskRq(task, WakeFork);
    attachToCpu(task, cpu);
    task.state = TaskRunState::Runnable;
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    recordSpawn(task, cpu,
        &cls == m_fairSched.get() ? m_fairSched->lastPlacement() : MigrateDetail{}, parentCpu);
    // post_init_entity_util_avg() tests sched_class != &fair_sched_class: only a fair task
    // starts with its full weight as load (init_entity_runnable_average(), §6.6).
    if (&cls == m_fairSched.get()) {
        task.se.avg = PeltAvg{};
        task.se.avg.loadAvg = scaleLoadDown(task.se.load.weight);
        m_load->postInitUtil(task.se, m_fairSched->placement().archCapacity(cpu));
        task.se.peltAttached = false; // attached to the chosen CPU's cfs_rq at enqueue
        task.se.vlag = 0;
        task.se.relDeadline = false;
    }
    cls.enqueueTask(rq, task, EnqueueInitial);
    markWaiting(task, cpu);
    wakeupPreempt(rq, task, WakeFork); // an idle CPU always reschedules
}

void Machine::recordSpawn(const Task& task, int cpu, MigrateDetail placed, int parentCpu)
{
    m_rec.append([&] {
        Record r;
        r.time = clock();
        r.entity = EntityRef::task(task.index);
        r.cpu = static_cast<uint16_t>(cpu);
        r.kind = RecordKind::Spawn;
        r.payload.generic.a = task.parent;
        // Placed away from the parent's CPU by fork balancing: c, d say why as a Migrate record
        // would (wake_up_new_task() sets the CPU without a migration, kernel-model.md §8.2).
        if (parentCpu >= 0 && parentCpu != cpu && placed.wake != WakePath::None) {
            r.payload.generic.b = parentCpu;
            r.payload.generic.c = static_cast<int64_t>(MigrateReason::Fork);
            r.payload.generic.d = placed.pack();
        }
        return r;
    }());
}

void Machine::timerWakeUp(int taskIndex, int64_t due)
{
    Task& t = *m_tasks[static_cast<size_t>(taskIndex)];
    const int cpu = t.sleepCpu;
    m_eventCpu = cpu;
    const int64_t irqsOn = m_rqs[static_cast<size_t>(cpu)]->sections.irqsOffUntil;
    if (irqsOn > clock()) {
        // The hrtimer interrupt cannot be taken while the CPU has interrupts disabled (a
        // cost-model section, core/kernel/kernelwork.h).
        t.timer = m_events.schedule(
            Nanoseconds(irqsOn), [this, taskIndex, due] { timerWakeUp(taskIndex, due); });
        return;
    }
    const int64_t late = clock() - due;
    if (late > 0 && t.waitStart < 0 && t.state == TaskRunState::Sleeping) {
        // The wake-up latency counts from the timer's expiry.
        t.waitStart = due;
        t.waitCpu = cpu;
        m_work->timerHeldOff(t.name, cpu, due, late);
    }
    tryToWakeUp(t);
}

void Machine::tryToWakeUp(Task& task, int wakeFlags)
{
    if (task.state != TaskRunState::Sleeping && task.state != TaskRunState::WaitingChild
        && task.state != TaskRunState::BlockedLock)
        return;
    SchedClass& cls = classOf(task);
    task.state = TaskRunState::Runnable;
    if (task.se.onRq) {
        // ttwu_runnable(): still queued as delayed (only a fair task can be): requeue on the
        // same CPU, no selection.
        Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
        cls.enqueueTask(rq, task, EnqueueDelayed);
        record(RecordKind::Wakeup, task.se, task.cpu, 1, 0);
        markWaiting(task, task.cpu);
        cls.taskWoken(rq, task);
        wakeupPreempt(rq, task, 0);
        return;
    }
    // select_task_rq(), set_task_cpu() (migrate_task_rq()), ttwu_do_activate().
    const int prev = task.cpu;
    const int cpu = cls.selectTaskRq(task, WakeTtwu | wakeFlags);
    int flags = EnqueueWakeup;
    if (cpu != prev) {
        cls.migrateTaskRq(task, cpu);
        attachToCpu(task, cpu);
        flags |= EnqueueMigrated;
        ++task.migrations;
        recordMigrate(task.se, prev, cpu, MigrateReason::Wakeup,
            &cls == m_fairSched.get() ? m_fairSched->lastPlacement() : MigrateDetail{});
    }
    // ttwu_do_activate(): the idle time that ends feeds rq->avg_idle; rq->idle_stamp is cleared.
    if (const int64_t stamp = m_fairSched->placement().idleStamp(cpu); stamp > 0)
        m_balancer->idleEnded(cpu, clock() - stamp);
    m_fairSched->placement().taskWokenOn(cpu);
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    cls.enqueueTask(rq, task, flags);
    record(RecordKind::Wakeup, task.se, cpu, 0, 0);
    markWaiting(task, cpu);
    cls.taskWoken(rq, task);
    wakeupPreempt(rq, task, 0);
}

void Machine::exitTask(Task& task)
{
    if (task.state == TaskRunState::Exited)
        return;
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (rq.curr == &task.se) {
        task.exiting = true;
        resched(task.cpu, false);
        return;
    }
    m_events.cancel(task.timer);
    m_bw->unlinkParked(task);
    m_rt->dequeueTask(runQueue(task.cpu), task, 0);
    if (task.se.onRq) {
        const int flags = task.se.schedDelayed ? DequeueSleep | DequeueDelayed : DequeueSleep;
        if (m_fair->dequeueEntities(rq, task.se, flags) < 0)
            m_fair->dequeueEntities(rq, task.se, DequeueSleep | DequeueDelayed);
    }
    endWaiting(task);
    finishExit(task);
}

void Machine::finishExit(Task& task)
{
    // The load leaves with the task; a parent blocked in fork+wait is woken.
    m_bw->endBoost(task);
    m_mutexes.releaseAll(task); // a dying task's mutexes go to their next waiters
    m_load->remove(task.se);
    task.exiting = false;
    task.alive = false;
    task.state = TaskRunState::Exited;
    task.exitedAt = clock();
    --m_liveTasks;
    // Its program is not needed any more (forked children hold a reference of their own).
    task.stack.clear();
    task.stack.shrink_to_fit();
    task.pendingFork = nullptr;
    task.program.reset();
    record(RecordKind::Exit, task.se, 0, 0, 0);
    // Only the parent can wait for this task (fork with wait).
    if (task.parent >= 0) {
        Task& parent = *m_tasks[static_cast<size_t>(task.parent)];
        if (parent.waitingFor == task.index && parent.state == TaskRunState::WaitingChild) {
            parent.waitingFor = -1;
            tryToWakeUp(parent, WakeSync); // do_notify_parent(): a sync wakeup
        }
    }
}

Task* Machine::taskByName(const std::string& name)
{
    for (auto& t : m_tasks)
        if (t->name == name)
            return t.get();
    return nullptr;
}

// --- the core scheduler -------------------------------------------------------------------------

SchedClass& Machine::classOf(const Task& task)
{
    // __setscheduler_class(): rt_prio() → rt_sched_class, else fair_sched_class. The one place
    // that maps a policy to its class; the kernel paths dispatch through the result.
    if (task.isRt())
        return *m_rt;
    return *m_fairSched;
}

void Machine::wakeupPreempt(Rq& rq, Task& task, int wakeFlags)
{
    // wakeup_preempt(): the woken task's class decides; an RT wakeup preempts a lower class, a
    // fair wakeup under RT starts the fair server instead.
    classOf(task).wakeupPreempt(rq, task, wakeFlags);
}

void Machine::resched(int cpu, bool lazy)
{
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    // PREEMPT_LAZY (kernel-model.md §7.1): a fair-class request sets NEED_RESCHED_LAZY, acted on
    // at the next return to user mode or promoted by the next tick. An interrupt (or the task's
    // own system call) on that CPU returns to user at once, unless the task runs a kernel section:
    // then at the section's end. A request from another CPU sends no IPI. Other models: at once.
    if (lazy && m_preempt == Preempt::Lazy && rq.curr && (m_eventCpu != cpu || inKernelMode(cpu))) {
        rq.needReschedLazy = true;
    } else {
        rq.needResched = true;
        m_reschedPending.push_back(cpu);
    }
}

void Machine::processResched()
{
    // Honour need_resched on every CPU that has it, lowest CPU first (deterministic). Each
    // schedule() counts as an event for the guards: a storm of them at one instant (CPUs
    // handing work back and forth) stops the run like a storm of events.
    while (!m_reschedPending.empty() && m_stopReason.empty()) {
        std::sort(m_reschedPending.begin(), m_reschedPending.end());
        m_reschedPending.erase(
            std::unique(m_reschedPending.begin(), m_reschedPending.end()), m_reschedPending.end());
        const int c = m_reschedPending.front();
        m_reschedPending.erase(m_reschedPending.begin());
        if (!m_rqs[static_cast<size_t>(c)]->needResched || !preemptible(c))
            continue; // (not preemptible: honoured when the kernel section ends)
        m_eventCpu = c;
        schedule(c);
        checkLimits();
    }
}

void Machine::stopRunning(Task& task)
{
    if (task.workLeft > 0) {
        task.workLeft = std::max<int64_t>(0, task.workLeft - (clock() - task.runStart));
        m_events.cancel(task.workDone);
        task.workDone = {};
    }
}

void Machine::startRunning(Task& task)
{
    task.runStart = clock();
    task.state = TaskRunState::Running;
    if (task.workLeft == 0)
        m_interp->advance(task); // executes instantaneous operations; may block or exit
    if (task.workLeft > 0 && !task.blocking && !task.exiting) {
        const int index = task.index;
        task.workDone = m_events.schedule(Nanoseconds(after(task.workLeft)), [this, index] {
            m_eventCpu = m_tasks[static_cast<size_t>(index)]->cpu;
            onWorkDone(index);
        });
    }
}

void Machine::schedule(int cpu)
{
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    rq.needResched = false;
    rq.needReschedLazy = false;
    SchedEntity* prevSe = rq.curr;
    Task* prev = prevSe ? &taskOf(*prevSe) : nullptr;
    if (prev) {
        stopRunning(*prev);
        // block_task()/put_prev_task() of prev's class. The fair side is open-coded here: its
        // put_prev_task() is folded into the pick below (put_prev_set_next_task(), putFrom), and
        // the bandwidth checks of put_prev_entity() and task work run first.
        if (prev->isRt()) {
            m_rt->putPrevTask(rq, *prev);
        } else {
            if (prev->blocking || prev->exiting)
                m_bw->endBoost(*prev);
            if (!prev->blocking && !prev->exiting) {
                m_bw->checkPrevRuntime(
                    *prev); // ≤6.17 put_prev_entity(): throttle an exhausted group
                if (m_bw->shouldPark(*prev))
                    m_bw->parkTask(*prev); // 6.18+: task work at return to user
            }
            if (prev->blocking || prev->exiting) {
                const int r = m_fair->dequeueEntities(rq, prev->se, DequeueSleep);
                if (prev->exiting && r < 0) // task_dead_fair(): a dead task never stays delayed
                    m_fair->dequeueEntities(rq, prev->se, DequeueSleep | DequeueDelayed);
            }
        }
    }
    // The pick walks the classes (classPick(): fair server, RT, fair, idle); under core
    // scheduling it is the core-wide pick (core/coresched/).
    m_dlServer->stopIfIdle(rq); // dl_server_stop(): no fair task left
    // put_prev_set_next_task() skips put_prev_task() when prev's class picks prev again (fair).
    SchedEntity* putFrom = prev && !prev->isRt() ? prevSe : nullptr;
    bool forcedIdle = false; // core scheduling left this CPU idle with runnable tasks (§11.2)
    Task* rtNext = nullptr;
    // Under core scheduling the core-wide pick covers both classes (machinecore.cpp);
    // otherwise RT first, then fair.
    auto pick = [&]() -> SchedEntity* {
        forcedIdle = false;
        SchedEntity* se = m_core->active() ? m_core->pickNextTask(cpu, forcedIdle) : classPick(cpu);
        // set_next_task() of next's class: RT's below, fair's through switchTasks().
        rtNext = se && taskOf(*se).isRt() ? &taskOf(*se) : nullptr;
        return se;
    };
    SchedEntity* next = pick();
    // 6.18+: a task of a throttled hierarchy picked in user mode returns to user and is parked.
    while (next && !rtNext && next != prevSe && m_bw->shouldPark(taskOf(*next))) {
        m_bw->parkTask(taskOf(*next));
        next = pick();
    }
    if (!next && !forcedIdle) {
        // sched_balance_newidle(): about to go idle, try to pull a task first.
        if (putFrom) {
            m_fair->putPrevTask(rq, *putFrom);
            putFrom = nullptr;
        }
        rq.curr = nullptr;
        if (m_balancer->newIdle(cpu))
            next = pick();
    }
    if (rtNext) {
        if (putFrom)
            m_fair->putPrevTask(rq, *putFrom);
        m_rt->setNextTask(rq, *rtNext);
        if (rq.nrRunning > 0)
            m_dlServer->starve(cpu);
    }
    if (!rtNext && (next != putFrom || (putFrom && !putFrom->onRq))) {
        if (next)
            m_fair->switchTasks(rq, putFrom, *next);
        else if (putFrom)
            m_fair->putPrevTask(rq, *putFrom);
    }
    rq.curr = next;
    // From a task or from the stopper to idle.
    const bool wasIdle = !prev && !rq.stopperRan;
    if (!next && !wasIdle) {
        m_load->cpuIdle(cpu);                                  // update_idle_rq_clock_pelt()
        m_fairSched->placement().cpuEnteredIdle(cpu, clock()); // idle_stamp, update_idle_core()
        m_balancer->cpuEnteredIdle(cpu); // do_idle(): NOHZ stats, the tick stops
    } else if (next && wasIdle) {
        m_load->cpuBusy(cpu); // the PELT clock runs scaled from here (§6.6)
    }
    rq.stopperRan = false;
    if (next && !rtNext && next->groupNode.is_linked()) {
        // pick_next_task_fair(): the picked task moves to the front of rq->cfs_tasks.
        next->groupNode.unlink();
        rq.cfsTasks.push_front(*next);
    }

    if (prev && prev != (next ? &taskOf(*next) : nullptr)) {
        ++prev->switches;
        if (prev->exiting) {
            finishExit(*prev);
        } else if (prev->blocking) {
            prev->blocking = false;
            if (prev->waitingFor >= 0) {
                prev->state = TaskRunState::WaitingChild;
            } else if (!prev->lockWaiting.empty() || !prev->suspendedOn.empty()) {
                prev->state = TaskRunState::BlockedLock;
            } else {
                prev->state = TaskRunState::Sleeping;
                prev->sleepCpu = cpu;
                const int idx = prev->index;
                const int64_t due = after(prev->sleepFor);
                // The timer fires at its due time: the handler reads it from the clock (a
                // smaller capture that std::function keeps without an allocation).
                prev->timer =
                    m_events.schedule(Nanoseconds(due), [this, idx] { timerWakeUp(idx, clock()); });
            }
        } else {
            prev->state = TaskRunState::Runnable;
            markWaiting(*prev, cpu);
        }
    }
    Task* nextTask = next ? &taskOf(*next) : nullptr;
    if (nextTask != prev) {
        recordSwitch(cpu, prev, nextTask);
    }
    if (nextTask && (nextTask != prev || nextTask->state != TaskRunState::Running)) {
        endWaiting(*nextTask);
        startRunning(*nextTask);
        if (nextTask->blocking || nextTask->exiting)
            resched(cpu, false); // the program blocked at once: schedule again
    } else if (nextTask && nextTask == prev && nextTask->workLeft > 0
        && !m_events.isPending(nextTask->workDone)) {
        startRunning(*nextTask);
    } else if (nextTask && nextTask == prev && nextTask->workLeft == 0 && !nextTask->blocking
        && !nextTask->exiting) {
        startRunning(*nextTask); // stopped between two operations (e.g. leaving the kernel)
    }
    if (rq.curr)
        startTick(cpu);
    if (nextTask != prev) // hrtick_start_fair() from set_next_task_fair()
        armHrtick(rq);
    m_rt->balance(rq);
}

void Machine::recordSwitch(int cpu, const Task* prev, const Task* next)
{
    ++m_contextSwitches;
    Record r;
    r.time = clock();
    r.entity = prev ? EntityRef::task(prev->index) : EntityRef{};
    r.cpu = static_cast<uint16_t>(cpu);
    r.kind = RecordKind::Switch;
    r.payload.generic.a = next ? next->index : -1;
    m_rec.append(r);
    // Busy time: from leaving idle to entering idle.
    int64_t& since = m_rqs[static_cast<size_t>(cpu)]->busySince;
    if (!prev && next)
        since = clock();
    if (prev && !next && since >= 0) {
        m_rqs[static_cast<size_t>(cpu)]->busyNs += clock() - since;
        since = -1;
    }
}

void Machine::armHrtick(Rq& rq)
{
    EventId& ev = m_rqs[static_cast<size_t>(rq.cpu)]->hrtick;
    m_events.cancel(ev);
    ev = {};
    // hrtick_update(): only when the running task's class is fair_sched_class (kernel test).
    if (!rq.curr || !m_features.has(Feature::HrTick) || rq.cfs->hNrQueued <= 1
        || taskOf(*rq.curr).isRt())
        return;
    // hrtick_start_fair(): fire when the task's slice is used up.
    const SchedEntity& se = *rq.curr;
    // §7.2: 7.x arms the timer for the real time left to the virtual deadline; earlier kernels
    // for the part of the slice not yet run since the pick.
    const int64_t delta = m_traits.hrtickFromDeadline
        ? static_cast<int64_t>(static_cast<Int128>(vdiff(se.deadline, se.vruntime))
            * static_cast<Int128>((m_choices.flat ? se.hLoad : se.load).weight) / kNice0Load)
        : se.slice - (se.sumExecRuntime - se.prevSumExecRuntime);
    if (delta <= 0)
        return; // the slice is already used up: the tick handles it
    const int cpu = rq.cpu;
    ev = m_events.schedule(Nanoseconds(clock() + delta), [this, cpu] {
        m_eventCpu = cpu;
        Rq& r = *m_rqs[static_cast<size_t>(cpu)];
        m_rqs[static_cast<size_t>(cpu)]->hrtick = {};
        if (!r.curr)
            return;
        m_fairSched->updateCurr(r);
        resched(cpu, false); // entity_tick(queued=1): resched_curr
    });
}

void Machine::startTick(int cpu)
{
    EventId& ev = m_rqs[static_cast<size_t>(cpu)]->tick;
    if (m_events.isPending(ev))
        return;
    // The periodic tick is on a global jiffies grid (no skew_tick); idle CPUs stop it (NOHZ).
    const int64_t next = (clock() / m_tickNs + 1) * m_tickNs;
    // A tick that coincides with other events runs after them: a task whose work ends exactly
    // at the tick has already made its next system call (e.g. gone to sleep) when the tick hits.
    ev = m_events.schedule(
        Nanoseconds(next),
        [this, cpu] {
            m_eventCpu = cpu;
            tick(cpu);
        },
        kTickPriority);
}

void Machine::tick(int cpu)
{
    Rq& rq = *m_rqs[static_cast<size_t>(cpu)];
    m_rqs[static_cast<size_t>(cpu)]->tick = {};
    if (const int64_t irqsOn = m_rqs[static_cast<size_t>(cpu)]->sections.irqsOffUntil;
        irqsOn > clock()) {
        // Interrupts are disabled on this CPU (cost model): the tick waits for them.
        m_rqs[static_cast<size_t>(cpu)]->tick = m_events.schedule(
            Nanoseconds(irqsOn),
            [this, cpu] {
                m_eventCpu = cpu;
                tick(cpu);
            },
            kTickPriority);
        return;
    }
    if (!rq.curr)
        return;
    Task& curr = taskOf(*rq.curr);
    classOf(curr).taskTick(rq, curr);
    // sched_balance_trigger(): periodic balance of the domains when due, NOHZ idle balance kick.
    m_balancer->tick(cpu);
    if (rq.needReschedLazy) {
        rq.needReschedLazy = false;
        resched(cpu, false);
    }
    startTick(cpu);
}

// --- run-time changes (§6.4 task reweight, sched_setattr, affinity, cgroup moves) ---------------

template <typename F> void Machine::changeTask(Task& task, int dequeueFlags, F&& mutate)
{
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (task.se.schedDelayed) // the core completes a delayed dequeue before a change
        m_fair->dequeueEntities(rq, task.se, DequeueSleep | DequeueDelayed);
    const bool queued = task.se.onRq;
    const bool running = rq.curr == &task.se;
    if (queued)
        m_fair->dequeueEntities(rq, task.se, dequeueFlags);
    if (running)
        m_fair->putPrevTask(rq, task.se);
    mutate(rq);
    Rq& nrq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (queued)
        m_fair->enqueueTask(nrq, task.se, EnqueueRestore);
    if (running)
        m_fair->setNextTask(nrq, task.se, false);
}

void Machine::setUserNice(Task& task, int nice)
{
    nice = std::clamp(nice, -20, 19);
    if (task.state == TaskRunState::Exited || nice == task.nice)
        return;
    if (task.isRt()) {    // set_user_nice(): task_has_rt_policy() only records static_prio
        task.nice = nice; // kept for a later return to SCHED_NORMAL; no effect on RT
        return;
    }
    const int old = task.nice;
    changeTask(task, DequeueSave, [&](Rq&) {
        task.nice = nice;
        if (!task.se.idlePolicy) {
            const LoadWeight lw = taskLoadWeight(nice, false);
            m_fair->reweightEntity(*task.se.cfsRq, task.se, lw.weight, lw.invWeight);
        }
    });
    // prio_changed_fair()
    Rq& rq = *m_rqs[static_cast<size_t>(task.cpu)];
    if (!task.se.onRq || rq.cfs->eevdfQueued() == 1)
        return;
    if (rq.curr == &task.se) {
        if (nice > old)
            resched(task.cpu, false);
    } else {
        wakeupPreempt(rq, task, 0); // RT curr: no fair preemption
    }
}

void Machine::setSlice(Task& task, std::optional<Nanoseconds> slice)
{
    // __setscheduler_params(): a custom slice is set for fair_policy() only (kernel test).
    if (task.state == TaskRunState::Exited || !m_traits.customSlices || task.isRt())
        return;
    changeTask(task, DequeueSave, [&](Rq&) {
        if (slice) {
            task.se.slice = std::clamp<int64_t>(slice->count(), 100000, 100000000);
            task.se.customSlice = true;
        } else {
            task.se.customSlice = false;
            task.se.slice = m_fair->params().baseSlice;
        }
    });
}

void Machine::setPolicy(Task& task, Policy policy)
{
    if (task.state == TaskRunState::Exited || changeClass(task, policy))
        return; // changes from or to SCHED_FIFO/SCHED_RR: machineclasses.cpp
    changeTask(task, DequeueSave, [&](Rq&) {
        task.policy = policy;
        task.se.batchPolicy = policy == Policy::Batch;
        const bool idle = policy == Policy::Idle;
        if (idle != task.se.idlePolicy) {
            task.se.idlePolicy = idle;
            const LoadWeight lw = taskLoadWeight(task.nice, idle);
            m_fair->reweightEntity(*task.se.cfsRq, task.se, lw.weight, lw.invWeight);
        }
    });
}

void Machine::migrateQueued(Task& task, int cpu, MigrateReason reason, MigrateDetail detail)
{
    m_bw->endBoost(task); // the boost belongs to the old CPU's hierarchy
    const int from = task.cpu;
    m_load->remove(task.se);
    attachToCpu(task, cpu);
    ++task.migrations;
    recordMigrate(task.se, from, cpu, reason, detail);
    if (task.waitStart >= 0)
        task.waitCpu = cpu;
}

void Machine::setAffinity(Task& task, const CpuSet& cpus)
{
    if (task.state == TaskRunState::Exited || cpus.empty() || rtSetAffinity(task, cpus))
        return;
    task.cpus = cpus;
    if (cpus.test(task.cpu))
        return;
    if (task.parked) {
        // A parked task moves to the new CPU's cfs_rq (and its limbo list if throttled there).
        m_bw->unlinkParked(task);
        m_load->remove(task.se);
        attachToCpu(task, m_fairSched->placement().anyAndDistribute(cpus, m_eventCpu));
        m_bw->requeueParked(task);
        return;
    }
    if (task.state == TaskRunState::Sleeping || task.state == TaskRunState::WaitingChild
        || task.state == TaskRunState::BlockedLock || task.state == TaskRunState::NotStarted) {
        // A blocked task only gets its new mask; it moves when it wakes (select_task_rq). A
        // delayed one is fully dequeued first, as the core does before changing the mask.
        if (task.se.onRq)
            m_fair->dequeueEntities(
                *m_rqs[static_cast<size_t>(task.cpu)], task.se, DequeueSleep | DequeueDelayed);
        if (task.state == TaskRunState::NotStarted)
            attachToCpu(task, std::max(0, cpus.first()));
        return;
    }
    // __set_cpus_allowed_ptr(): the new CPU is cpumask_any_and_distribute() of the new mask.
    const int target = m_fairSched->placement().anyAndDistribute(cpus, m_eventCpu);
    // A queued or running task moves as in move_queued_task(): a non-sleep dequeue keeps its lag
    // and relative deadline, the enqueue on the target is a migration (§8.1). A running task is
    // first preempted by the stopper (put back into its tree), then moved.
    Rq& src = *m_rqs[static_cast<size_t>(task.cpu)];
    if (src.curr == &task.se) {
        stopRunning(task);
        m_fair->putPrevTask(src, task.se);
        src.curr = nullptr;
        src.stopperRan = true;
        resched(src.cpu, false);
        task.state = TaskRunState::Runnable;
        ++task.switches;
        recordSwitch(src.cpu, &task, nullptr);
    }
    m_fair->dequeueEntities(src, task.se, 0);
    migrateQueued(task, target, MigrateReason::Affinity);
    Rq& dst = *m_rqs[static_cast<size_t>(target)];
    m_fair->enqueueTask(dst, task.se, EnqueueMigrated);
    markWaiting(task, target);
    wakeupPreempt(dst, task, 0);
}

void Machine::moveTask(Task& task, int group)
{
    if (task.state == TaskRunState::Exited || group == task.group || rtMoveTask(task, group))
        return;
    if (task.parked) {
        m_bw->unlinkParked(task);
        m_load->remove(task.se);
        task.group = group;
        attachToCpu(task, task.cpu);
        m_bw->requeueParked(task);
        return;
    }
    // sched_move_task(): dequeue (SAVE|MOVE), switch the group, enqueue (RESTORE|MOVE).
    // The load moves with the task (detach_task_cfs_rq / attach_task_cfs_rq).
    changeTask(task, DequeueSave | DequeueMove, [&](Rq&) {
        m_load->remove(task.se);
        task.group = group;
        attachToCpu(task, task.cpu);
    });
}

void Machine::setFeature(Feature f, bool on)
{
    m_features.set(f, on);
    Record r;
    r.time = clock();
    r.kind = RecordKind::Feature;
    r.payload.generic.a = static_cast<int64_t>(f);
    r.payload.generic.b = on;
    m_rec.append(r);
}

void Machine::rebuildSums()
{
    // After a change of weight precision the V sums must be recomputed from the trees.
    auto rebuild = [](CfsRq& rq) {
        std::vector<SchedEntity*> entities;
        rq.forEachTree(
            [&](const SchedEntity& se) { entities.push_back(const_cast<SchedEntity*>(&se)); });
        for (SchedEntity* se : entities)
            rq.dequeueTree(*se);
        rq.clearTrees();
        for (SchedEntity* se : entities)
            rq.enqueueTree(*se);
    };
    for (auto& rq : m_rqs)
        rebuild(*rq->cfs);
    for (auto& g : m_groups)
        for (auto& rq : g.cfsRq)
            rebuild(*rq);
}

void Machine::apply(const Action& action)
{
    switch (action.kind) {
    case Action::Kind::Feature:
        for (const auto& [name, on] : action.features)
            if (auto f = featureFromName(name))
                setFeature(*f, on);
        break;
    case Action::Kind::Profile: {
        const WeightPrecision before = m_choices.weightPrecision;
        const bool flatBefore = m_choices.flat;
        if (action.profile) {
            if (const KernelProfile* p = findProfile(*action.profile)) {
                m_profileName = p->name;
                m_choices = p->choices;
                m_traits = p->traits;
            }
        }
        for (const auto& [choice, value] : action.overrides)
            applyChoice(m_choices, choice, value);
        // The run-queue structure (flat or hierarchical, §6.1) is fixed for a run: queued
        // entities cannot move between the two layouts. A flat run keeps the task throttle.
        m_choices.flat = flatBefore;
        if (m_choices.flat && m_choices.throttle == ThrottleModel::Group)
            m_choices.throttle = ThrottleModel::Task;
        if (m_choices.weightPrecision != before)
            rebuildSums();
        break;
    }
    case Action::Kind::Set: {
        const SetAction& s = action.set;
        if (s.cgroup) {
            const int g = groupByPath(*s.cgroup);
            if (g >= 0)
                applyCgroupFiles(g, s.files);
        } else if (s.task) {
            Task* t = taskByName(*s.task);
            if (!t)
                break;
            if (s.nice)
                setUserNice(*t, *s.nice);
            if (s.slice)
                setSlice(*t, *s.slice);
            if (s.policy)
                setPolicy(*t, *s.policy);
            if (s.cpus)
                if (auto set = CpuSet::parse(*s.cpus, m_cpus))
                    setAffinity(*t, *set);
        }
        break;
    }
    case Action::Kind::Move:
        if (Task* t = taskByName(action.task)) {
            const int g = groupByPath(action.cgroup);
            if (g >= 0)
                moveTask(*t, g);
        }
        break;
    case Action::Kind::Spawn:
        if (!action.spawn.empty() && canCreateTask(action.spawn.front().name, -1)) {
            Task& t = createTask(action.spawn.front(), action.spawn.front().name, -1,
                std::make_shared<const std::vector<Op>>(action.spawn.front().program));
            t.spawnedAt = clock();
            wakeUpNewTask(t);
        }
        break;
    case Action::Kind::Kill:
        if (Task* t = taskByName(action.task))
            exitTask(*t);
        break;
    }
    processResched();
}

// --- the event loop -----------------------------------------------------------------------------

bool Machine::finished() const
{
    auto& events = const_cast<EventQueue&>(m_events);
    return !m_stopReason.empty() || events.nextTime() > m_end || events.empty();
}

bool Machine::step()
{
    if (finished()) {
        if (m_stopReason.empty() && m_events.now() < m_end)
            m_events.runUntil(m_end);
        return false;
    }
    m_events.step();
    processResched();
    checkLimits();
#ifdef SCHEDLAB_CHECKED
    checkInvariants(static_cast<const MachineView&>(*this), m_violations);
#endif
    return true;
}

void Machine::runUntil(Nanoseconds t)
{
    t = std::min(t, m_end);
    while (m_stopReason.empty() && m_events.nextTime() <= t)
        step();
    if (m_stopReason.empty() && t > m_events.now())
        m_events.runUntil(t); // a stopped run stays at the time it stopped
}

// --- resource guards (docs/limits.md) ----------------------------------------------------------

void Machine::stopRun(const std::string& task, int cpu, const std::string& reason)
{
    if (!m_stopReason.empty())
        return;
    m_stopReason = "stopped at t=" + formatDuration(now()) + ": " + reason;
    m_limitFindings.push_back({"resource_limit", task, std::max(cpu, 0), clock(), 0, reason});
}

void Machine::checkLimits()
{
    const ResourceLimits& limits = m_options.limits;
    const int64_t window = clock() / 1'000'000;
    if (window != m_eventWindow) {
        m_eventWindow = window;
        m_eventsInWindow = 0;
    }
    const uint64_t perMs = std::max<uint64_t>(limits.eventsPerSecond / 1000, 1);
    if (++m_eventsInWindow > perMs)
        stopRun("", m_eventCpu,
            "more than " + std::to_string(perMs)
                + " events in one simulated millisecond (the limit is "
                + std::to_string(limits.eventsPerSecond)
                + " per simulated second; a schedule() counts as one): a program that loops "
                  "without using time, or CPUs handing work back and forth?");
    else if (m_rec.bytes() >= limits.recordingBytes)
        stopRun("", m_eventCpu,
            "the recording reached " + std::to_string(m_rec.bytes()) + " bytes (the limit is "
                + std::to_string(limits.recordingBytes)
                + "); record less (no samples) or simulate a shorter time");
    else if (m_modelBytes > limits.modelBytes)
        stopRun("", m_eventCpu,
            "the estimated memory of the simulation reached " + std::to_string(m_modelBytes)
                + " bytes (the model-bytes limit is " + std::to_string(limits.modelBytes)
                + "; the waits kept for the metrics grow with the run): simulate a shorter "
                  "time or fewer tasks");
}

bool Machine::canCreateTask(const std::string& name, int cpu)
{
    const ResourceLimits& limits = m_options.limits;
    const uint64_t bytes = m_modelBytes + ScenarioLimits::bytesPerTask + 2 * name.size();
    if (m_liveTasks < limits.liveTasks && std::ssize(m_tasks) < limits.createdTasks
        && bytes <= limits.modelBytes)
        return true;
    const std::string limit = m_liveTasks >= limits.liveTasks
        ? std::to_string(limits.liveTasks) + " live tasks"
        : std::ssize(m_tasks) >= limits.createdTasks
        ? std::to_string(limits.createdTasks) + " tasks in all (forked ones included)"
        : "the model-bytes limit of " + std::to_string(limits.modelBytes)
            + " bytes of estimated memory (tasks, cgroups, CPUs, kept waits)";
    stopRun(name, cpu, "creating " + printable(name) + " would make more than " + limit);
    return false;
}

} // namespace schedlab
