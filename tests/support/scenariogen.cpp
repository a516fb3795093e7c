// SPDX-License-Identifier: GPL-2.0-or-later
#include "scenariogen.h"

#include "core/base/prng.h"
#include "core/kernel/costs.h"
#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/scenario/jsonvalues.h"

#include <algorithm>
#include <string>
#include <vector>

namespace schedlab::test {

namespace {

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(separator, start), text.size());
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

class Generator
{
public:
    Generator(uint64_t seed, const ScenarioGenOptions& options)
        : m_prng(seed)
        , m_options(options)
        , m_seed(seed)
    { }

    Scenario generate();

private:
    bool chance(uint64_t percent) { return m_prng.below(100) < percent; }
    int64_t between(int64_t lo, int64_t hi) { return m_prng.uniform(lo, hi); }
    int between(int lo, int hi) { return static_cast<int>(m_prng.uniform(lo, hi)); }
    template <typename T> const T& pick(const std::vector<T>& values)
    {
        return values[m_prng.below(values.size())];
    }
    template <typename E> E pickEnum() { return pick(enumValues<E>()); }
    template <typename E> static std::vector<E> enumValues()
    {
        std::vector<E> out;
        for (size_t i = 0; i < enumNames<E>().size(); ++i)
            out.push_back(static_cast<E>(i));
        return out;
    }
    Nanoseconds ns(int64_t lo, int64_t hi) { return Nanoseconds(between(lo, hi)); }
    /// Fixed (mostly) or uniform within [lo, hi] ns.
    DurationSpec duration(int64_t lo, int64_t hi);
    Nanoseconds end() const { return *m_scenario.duration; }

    void machine();
    void kernel();
    void cgroups();
    CgroupFiles cgroupFiles(bool root, bool atLeastOne);
    std::string cpuList();
    std::string anyCgroup() { return pick(m_cgroupPaths); }
    void tasks();
    TaskSpec task(bool forked, bool spawned, Policy inherited, int depth);
    std::vector<Op> program(int depth, Policy policy, int64_t repeats);
    void addOp(std::vector<Op>& ops, int depth, Policy policy, int64_t repeats);
    Op loop(int depth, Policy policy, int64_t repeats);
    void actions();
    std::string newTaskName() { return "t" + std::to_string(m_nextName++); }
    void registerNames(const TaskSpec& task);

    Prng m_prng;
    ScenarioGenOptions m_options;
    uint64_t m_seed;
    Scenario m_scenario;
    int m_cpus = 1;
    std::vector<std::string> m_cgroupPaths{"/"}; ///< every usable cgroup, counts expanded
    std::vector<std::string> m_patterns;         ///< "/gN*" for listed non-root entries
    std::vector<std::string> m_taskNames;        ///< listed and spawned tasks, counts expanded
    int m_nextName = 0;
    int m_forkBudget = 6; ///< forks in the whole scenario (each may run more than once)
};

DurationSpec Generator::duration(int64_t lo, int64_t hi)
{
    if (chance(20)) {
        const int64_t a = between(lo, hi);
        const int64_t b = between(lo, hi);
        return DurationSpec::uniform(Nanoseconds(std::min(a, b)), Nanoseconds(std::max(a, b)));
    }
    return DurationSpec::fixed(ns(lo, hi));
}

Scenario Generator::generate()
{
    Scenario& s = m_scenario;
    s.name = "random-" + std::to_string(m_seed);
    if (chance(30))
        s.title = "Random scenario " + std::to_string(m_seed);
    if (chance(10))
        s.description = "Generated.\n\tIndented line.";
    if (chance(50))
        s.seed = m_prng.next();
    s.duration = ns(m_options.minDuration.count(), m_options.maxDuration.count());
    machine();
    kernel();
    cgroups();
    tasks();
    actions();
    for (int i = between(0, 2); i > 0; --i)
        s.annotations.push_back({ns(0, s.duration->count() + 1000), "note " + std::to_string(i)});
    if (chance(10))
        s.userKeys["x-gen"] = R"({"seed":)" + std::to_string(m_seed) + R"(,"list":[1,"a",null]})";
    return s;
}

void Generator::machine()
{
    MachineSpec& m = m_scenario.machine;
    m_cpus = between(1, m_options.maxCpus);
    if (m_cpus > 1 || chance(50))
        m.cpus = m_cpus;
    int threads = 1;
    if (chance(40)) {
        std::vector<int> widths;
        for (int w : {1, 2, 4, 8})
            if (m_cpus % w == 0)
                widths.push_back(w);
        threads = pick(widths);
        m.threadsPerCore = threads;
    }
    const int cores = m_cpus / threads;
    if (chance(30)) {
        std::vector<int> divisors;
        for (int d = 1; d <= cores; ++d)
            if (cores % d == 0)
                divisors.push_back(d);
        m.coresPerLlc = pick(divisors);
    }
}

void Generator::kernel()
{
    KernelSpec& k = m_scenario.kernel;
    if (chance(80)) {
        std::vector<std::string> names;
        for (const KernelProfile& p : kernelProfiles())
            names.push_back(p.name);
        k.profile = pick(names);
    }
    if (chance(40))
        k.hz = pick(std::vector<int>{100, 250, 300, 1000});
    if (chance(40))
        k.preempt = pickEnum<Preempt>();
    if (chance(30))
        k.baseSlice = ns(100'000, 4'000'000);
    if (chance(20))
        k.tunableScaling = pickEnum<TunableScaling>();
    for (size_t i = 0; i < kFeatureCount; ++i)
        if (chance(20))
            k.features[std::string(featureName(static_cast<Feature>(i)))] = chance(50);
    for (const std::string& choice : choiceNames())
        if (chance(12))
            k.overrides[choice] = pick(split(choiceValues(choice), '|'));
    for (const auto name : costNames())
        if (chance(15))
            k.costs[std::string(name)] = ns(0, name == "fork" ? 50'000 : 20'000);
}

std::string Generator::cpuList()
{
    const int lo = between(0, m_cpus - 1);
    const int hi = between(lo, m_cpus - 1);
    std::string out = std::to_string(lo);
    if (hi > lo)
        out += "-" + std::to_string(hi);
    if (hi + 2 < m_cpus && chance(30))
        out += "," + std::to_string(between(hi + 2, m_cpus - 1));
    return out;
}

CgroupFiles Generator::cgroupFiles(bool root, bool atLeastOne)
{
    CgroupFiles f;
    do {
        if (!root) {
            if (chance(40))
                f.weight =
                    static_cast<int>(pick(std::vector<int64_t>{1, 10, 50, 100, 300, 2000, 10000}));
            else if (chance(15))
                f.weightNice = between(-20, 19);
            if (chance(25)) {
                CpuMax max;
                max.periodUs = between(int64_t{1000}, int64_t{20000});
                if (chance(80))
                    max.quotaUs = between(int64_t{1000}, max.periodUs * 2);
                f.cpuMax = max;
            }
            if (chance(10))
                f.idle = chance(50);
        }
        // RT bandwidth: periods ≥ 1000 us, runtimes ≤ 1000 us, so a runtime never exceeds the
        // period in force whatever the order of writes.
        if (chance(root ? 60 : 10))
            f.rtPeriodUs = between(int64_t{1000}, int64_t{1000000});
        if (chance(root ? 60 : 10))
            f.rtRuntimeUs = chance(20) ? -1 : between(int64_t{0}, int64_t{1000});
    } while (atLeastOne && f == CgroupFiles{});
    return f;
}

void Generator::cgroups()
{
    std::vector<std::string> parents{"/"};
    bool rootListed = false;
    const int n = between(0, 4);
    for (int i = 0; i < n; ++i) {
        CgroupSpec spec;
        if (!rootListed && chance(10)) { // the root may be listed once, for its RT files
            rootListed = true;
            spec.path = "/";
            spec.files = cgroupFiles(true, false);
            m_scenario.cgroups.push_back(spec);
            continue;
        }
        const std::string parent = pick(parents);
        const std::string name = "g" + std::to_string(i);
        spec.path = parent == "/" ? "/" + name : parent + "/" + name;
        spec.files = cgroupFiles(false, false);
        m_patterns.push_back(parent == "/" ? "/g*" : parent + "/g" + std::to_string(i) + "*");
        if (chance(15)) {
            spec.count = between(2, 3);
            for (int k = 1; k <= *spec.count; ++k)
                m_cgroupPaths.push_back(spec.path + "-" + std::to_string(k));
        } else {
            m_cgroupPaths.push_back(spec.path);
            parents.push_back(spec.path);
        }
        m_scenario.cgroups.push_back(spec);
    }
}

void Generator::registerNames(const TaskSpec& task)
{
    if (!task.count) {
        m_taskNames.push_back(task.name);
        return;
    }
    for (int k = 1; k <= *task.count; ++k)
        m_taskNames.push_back(task.name + "-" + std::to_string(k));
}

TaskSpec Generator::task(bool forked, bool spawned, Policy inherited, int depth)
{
    TaskSpec t;
    if (!forked) {
        t.name = newTaskName();
        if (chance(30))
            t.count = between(1, 3);
    }
    if (chance(50))
        t.cgroup = anyCgroup();
    if (chance(30))
        t.cpus = cpuList();
    if (chance(35)) {
        // Mostly fair policies: RT tasks that never sleep would starve everything else.
        t.policy = chance(75)
            ? pick(std::vector<Policy>{Policy::Normal, Policy::Batch, Policy::Idle})
            : pick(std::vector<Policy>{Policy::Fifo, Policy::RoundRobin});
    }
    const Policy policy = t.policy.value_or(inherited);
    if (chance(40))
        t.nice = between(-20, 19);
    if ((policy == Policy::Fifo || policy == Policy::RoundRobin) && chance(80))
        t.rtPriority = between(1, 99);
    if (chance(20))
        t.slice = ns(100'000, 5'000'000);
    if (chance(15))
        t.cookie = static_cast<uint64_t>(between(0, 3));
    if (!forked && !spawned && chance(40)) {
        const int64_t last = end().count() - 1;
        t.start = chance(70) ? DurationSpec::fixed(ns(0, last / 2)) : duration(0, last);
    }
    t.probe = chance(10);
    t.program = program(depth, policy, 1);
    return t;
}

std::vector<Op> Generator::program(int depth, Policy policy, int64_t repeats)
{
    std::vector<Op> ops;
    const int n = between(1, depth == 0 ? 5 : 3);
    for (int i = 0; i < n; ++i)
        addOp(ops, depth, policy, repeats);
    return ops;
}

Op Generator::loop(int depth, Policy policy, int64_t repeats)
{
    Op op;
    op.kind = Op::Kind::Loop;
    const int style = between(0, 2); // counted, "for", endless (top level only)
    if (style == 0 || (style == 2 && (depth > 0 || repeats > 1))) {
        op.count = between(int64_t{1}, int64_t{4});
        op.body = program(depth + 1, policy, repeats * *op.count);
        return op;
    }
    op.body = program(depth + 1, policy, repeats * 100);
    if (style == 1) {
        op.forTime = duration(100'000, 5'000'000);
        if (chance(30))
            op.count = between(int64_t{1}, int64_t{50});
    }
    if (!programTakesTime(op.body)) { // an uncounted loop must advance simulated time
        Op run;
        run.duration = DurationSpec::fixed(ns(1'000, 500'000));
        op.body.push_back(run);
    }
    return op;
}

void Generator::addOp(std::vector<Op>& ops, int depth, Policy policy, int64_t repeats)
{
    const bool nest = depth < m_options.maxProgramDepth;
    Op op;
    switch (between(0, 19)) {
    case 0:
    case 1:
    case 2:
    case 3:
        op.kind = Op::Kind::Run;
        op.duration = chance(8) && depth == 0 ? DurationSpec::forEver() : duration(0, 2'000'000);
        break;
    case 4:
    case 5:
    case 6:
        op.kind = Op::Kind::Sleep;
        op.duration = duration(0, 3'000'000);
        break;
    case 7:
    case 8:
        if (!nest)
            return addOp(ops, depth, policy, repeats);
        op = loop(depth, policy, repeats);
        break;
    case 9:
        op.kind = Op::Kind::Yield;
        break;
    case 10: { // a critical section: lock, work, unlock
        const std::string mutex = "m" + std::to_string(between(0, 1));
        Op lock;
        lock.kind = Op::Kind::Lock;
        lock.name = mutex;
        ops.push_back(lock);
        Op run;
        run.duration = duration(0, 500'000);
        ops.push_back(run);
        op.kind = Op::Kind::Unlock;
        op.name = mutex;
        break;
    }
    case 11:
        if (!nest || m_forkBudget <= 0 || repeats > 4)
            return addOp(ops, depth, policy, repeats);
        m_forkBudget -= static_cast<int>(repeats);
        op.kind = Op::Kind::Fork;
        op.fork.push_back(task(true, false, policy, depth + 1));
        op.wait = chance(50);
        break;
    case 12:
        if (chance(70))
            return addOp(ops, depth, policy, repeats);
        op.kind = Op::Kind::Exit;
        break;
    case 13:
        op.kind = Op::Kind::Nice;
        op.nice = between(-20, 19);
        break;
    case 14:
        op.kind = Op::Kind::Cpus;
        op.name = cpuList();
        break;
    case 15:
        op.kind = Op::Kind::Cgroup;
        op.name = anyCgroup();
        break;
    case 16:
        op.kind = Op::Kind::Cookie;
        op.cookie = static_cast<Op::CookieCmd>(m_prng.below(3));
        if (op.cookie != Op::CookieCmd::Create)
            op.name = m_taskNames.empty() || chance(20) ? "t0" : pick(m_taskNames);
        break;
    case 17:
        if (!nest)
            return addOp(ops, depth, policy, repeats);
        op.kind = Op::Kind::Kernel;
        op.body = program(depth + 1, policy, repeats);
        break;
    default: { // 18, 19: cgroup writes
        op.kind = Op::Kind::Write;
        const bool pattern = !m_patterns.empty() && chance(40);
        op.name = pattern ? pick(m_patterns) : anyCgroup();
        op.files = cgroupFiles(op.name == "/", true);
        break;
    }
    }
    ops.push_back(std::move(op));
}

void Generator::tasks()
{
    const int n = between(1, m_options.maxTaskEntries);
    for (int i = 0; i < n; ++i) {
        TaskSpec t = task(false, false, Policy::Normal, 0);
        registerNames(t);
        m_scenario.tasks.push_back(std::move(t));
    }
}

void Generator::actions()
{
    const int n = between(0, 5);
    std::vector<int64_t> times;
    for (int i = 0; i < n; ++i)
        times.push_back(between(int64_t{0}, end().count() - 1));
    std::sort(times.begin(), times.end());
    for (const int64_t at : times) {
        Action a;
        a.at = Nanoseconds(at);
        a.kind = pickEnum<Action::Kind>();
        switch (a.kind) {
        case Action::Kind::Feature:
            for (int k = between(1, 3); k > 0; --k)
                a.features[std::string(
                    featureName(static_cast<Feature>(m_prng.below(kFeatureCount))))] = chance(50);
            break;
        case Action::Kind::Profile:
            if (chance(60)) {
                std::vector<std::string> names;
                for (const KernelProfile& p : kernelProfiles())
                    names.push_back(p.name);
                a.profile = pick(names);
            }
            if (!a.profile || chance(40)) {
                const std::vector<std::string> choices = choiceNames();
                const std::string& choice = pick(choices);
                a.overrides[choice] = pick(split(choiceValues(choice), '|'));
            }
            break;
        case Action::Kind::Set:
            if (chance(50)) {
                a.set.cgroup = anyCgroup();
                a.set.files = cgroupFiles(*a.set.cgroup == "/", true);
            } else {
                a.set.task = pick(m_taskNames);
                do {
                    if (chance(50))
                        a.set.nice = between(-20, 19);
                    if (chance(30))
                        a.set.cpus = cpuList();
                    if (chance(30))
                        a.set.slice = ns(100'000, 5'000'000);
                    if (chance(20))
                        // A set action cannot make a task SCHED_DEADLINE (its parameters are
                        // the task's): the policies before it, drawn as before.
                        a.set.policy = pick(std::vector<Policy>{Policy::Normal, Policy::Batch,
                            Policy::Idle, Policy::Fifo, Policy::RoundRobin});
                } while (!a.set.nice && !a.set.cpus && !a.set.slice && !a.set.policy);
            }
            break;
        case Action::Kind::Move:
            a.task = pick(m_taskNames);
            a.cgroup = anyCgroup();
            break;
        case Action::Kind::Spawn:
            a.spawn.push_back(task(false, true, Policy::Normal, 0));
            registerNames(a.spawn.back());
            break;
        case Action::Kind::Kill:
            a.task = pick(m_taskNames);
            break;
        }
        m_scenario.actions.push_back(std::move(a));
    }
}

} // namespace

Scenario randomScenario(uint64_t seed, const ScenarioGenOptions& options)
{
    return Generator(seed, options).generate();
}

} // namespace schedlab::test
