// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run SCENARIO [--trace OUT] [--names OUT] [--no-trace] [--duration D]
//              [--cgroup-base DIR] [--adopt] [--light-children] [--exact-costs] [--journal FILE]
//              [--limit NAME=N] [--check]
// schedlab-run --restore JOURNAL
// schedlab-run --calibrate
#include "core/base/args.h"
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/scenario/scenarioio.h"
#include "runner.h"
#include "system.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <string>
#include <sys/utsname.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

void usage(std::ostream& out)
{
    out << "schedlab-run " SCHEDLAB_VERSION
           " - run a schedlab scenario on the running Linux kernel (as root)\n\n"
           "Usage: schedlab-run SCENARIO [options]\n"
           "       schedlab-run --restore JOURNAL\n"
           "       schedlab-run --calibrate\n"
           "  (a value follows its option or is joined with '=', --trace=OUT; \"--\" ends the\n"
           "  options)\n"
           "  --trace OUT        write the scheduler trace (ftrace text) to OUT\n"
           "                     (default schedlab-trace.txt); import it with\n"
           "                     schedlab-cli import OUT or compare SCENARIO --real OUT\n"
           "  --names OUT        also write the pid -> task name map to OUT\n"
           "  --no-trace         run without tracing\n"
           "  --duration D       run for D instead of the scenario's duration\n"
           "  --cgroup-base DIR  the directory standing for the scenario's root cgroup \"/\"\n"
           "                     (default: schedlab-PID below the cgroup2 mount, made and\n"
           "                     removed by the run); DIR itself is never removed\n"
           "  --adopt            DANGEROUS: use scenario cgroups that exist already (their\n"
           "                     cpu.* files are overwritten for the run and restored after;\n"
           "                     tasks of the system in them compete with the scenario's).\n"
           "                     Without it an existing cgroup is refused\n"
           "  --light-children   a fork the parent waits for starts its child in the\n"
           "                     parent's memory (clone CLONE_VM; the parent sleeps in\n"
           "                     wait4 until the child's exit wakes it): no page tables copied,\n"
           "                     no copy-on-write faults, so the child costs what its program\n"
           "                     says, not the runner's image (programs without locks, wait\n"
           "                     queues, completions, forks or cookies; others fork)\n"
           "  --exact-costs      a run operation tops the task's CPU clock up to the sum of\n"
           "                     its program's runs so far: what it spent between them (its\n"
           "                     start, a fork, a wait, a wake-up) is absorbed, so a task\n"
           "                     costs what its program says but for its exit\n"
           "  --journal FILE     the journal of the run's changes (default\n"
           "                     /run/schedlab-run-PID.journal, or beside the trace without\n"
           "                     /run; created, never overwritten; printed at the start)\n"
           "  --limit NAME=N     task guards as in schedlab-cli: live-tasks (default 100000),\n"
           "                     tasks (started in all, default 1000000); a fork past one\n"
           "                     stops the run (exit 3)\n"
           "  --check            print what cannot be reproduced and every change the run\n"
           "                     would make (files and values, cgroups, mounts, existing\n"
           "                     cgroups adopted or refused), change nothing and exit\n"
           "                     (3 if the run would be refused)\n"
           "  --restore JOURNAL  undo the changes of a run that was killed (SIGKILL, a crash);\n"
           "                     safe to repeat\n"
           "  --calibrate        time a fixed integer loop (2^27 steps) and print its rate, so\n"
           "                     a lab run can set the guest's speed beside the host's and\n"
           "                     before against after (lab/lab.sh)\n\n"
           "Needs root, a cgroup v2 hierarchy with the cpu controller and tracefs. Whatever the\n"
           "real kernel cannot reproduce (model profiles, kernel sections, cookies...) is listed\n"
           "before the run. Every system setting the run changes (sched features,\n"
           "base_slice_ns, preempt, subtree_control, cpu.* of adopted groups) is journaled\n"
           "before the change, and everything is undone at the end, on errors and on SIGINT,\n"
           "SIGTERM or SIGHUP; tracing uses a trace instance of its own.\n"
           "Exit codes: 0 ok, 2 bad input, 3 this machine cannot run it (or an existing cgroup\n"
           "without --adopt, or a task guard stopped the run), 128+N stopped by signal N\n"
           "(after undoing the run). --restore: 0 undone, 2 unreadable, 3 not all undone.\n";
}

/// A fixed loop of integer work (a 64-bit LCG), timed on CLOCK_MONOTONIC and on this thread's
/// CPU clock: their ratio says how much of the wall time the loop had a CPU.
int calibrate()
{
    constexpr uint64_t kSteps = uint64_t{1} << 27;
    const auto ns = [](clockid_t c) {
        timespec ts{};
        clock_gettime(c, &ts);
        return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
    };
    const int64_t wall0 = ns(CLOCK_MONOTONIC);
    const int64_t cpu0 = ns(CLOCK_THREAD_CPUTIME_ID);
    volatile uint64_t sink = 0;
    uint64_t x = 1;
    for (uint64_t i = 0; i < kSteps; ++i)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink = x;
    (void)sink;
    const int64_t wall = ns(CLOCK_MONOTONIC) - wall0;
    const int64_t cpu = ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    std::cout << "schedlab-calibrate: " << kSteps << " steps in " << wall << " ns wall, " << cpu
              << " ns CPU: "
              << (wall > 0 ? static_cast<int64_t>(kSteps * 1000 / uint64_t(wall)) : 0)
              << " steps/us\n";
    return 0;
}

} // namespace

int main(int argc, char* argv[])
{
    using namespace schedlab;
    std::string file;
    runner::RunConfig config;
    config.traceOut = "schedlab-trace.txt";
    bool check = false;
    std::string restore;
    const std::vector<std::string> args(argv + 1, argv + argc);
    // The options whose value is kept as given (the last one wins); --limit and --duration
    // take a value too and are checked where they are read.
    const std::pair<const char*, std::string*> kept[] = {{"--trace", &config.traceOut},
        {"--names", &config.namesOut}, {"--cgroup-base", &config.cgroupBase},
        {"--journal", &config.journal}, {"--restore", &restore}};
    ArgReader ar(args);
    while (ar.next()) {
        const std::string& a = ar.word();
        const auto keep = std::find_if(
            std::begin(kept), std::end(kept), [&](const auto& k) { return ar.option(k.first); });
        std::string v;
        if (keep != std::end(kept) || ar.option("--limit") || ar.option("--duration")) {
            if (!ar.value(v)) {
                std::cerr << "schedlab-run: " << ar.error() << "\n";
                return 2;
            }
        }
        if (keep != std::end(kept)) {
            *keep->second = v;
        } else if (ar.flag("--help") || ar.flag("-h")) {
            usage(std::cout);
            return 0;
        } else if (ar.flag("--no-trace")) {
            config.traceOut.clear();
        } else if (ar.flag("--light-children")) {
            config.lightChildren = true;
        } else if (ar.flag("--exact-costs")) {
            config.exactCosts = true;
        } else if (ar.flag("--adopt")) {
            config.adopt = true;
        } else if (ar.option("--limit")) {
            const size_t eq = v.find('=');
            const std::string name = v.substr(0, eq);
            int64_t n = 0;
            bool ok = eq != std::string::npos && eq + 1 < v.size() && v.size() - eq <= 10;
            for (size_t k = eq + 1; ok && k < v.size(); ++k) {
                ok = v[k] >= '0' && v[k] <= '9';
                n = n * 10 + (v[k] - '0');
            }
            ok = ok && n > 0 && n <= 100'000'000;
            if (ok && name == "live-tasks" && n <= 10'000'000)
                config.limits.liveTasks = static_cast<int>(n);
            else if (ok && name == "tasks")
                config.limits.createdTasks = static_cast<int>(n);
            else {
                std::cerr << "schedlab-run: --limit " << printable(v)
                          << ": expected live-tasks=N (1..10^7) or tasks=N (1..10^8)\n";
                return 2;
            }
        } else if (ar.flag("--check")) {
            check = true;
        } else if (ar.flag("--calibrate")) {
            return calibrate();
        } else if (ar.option("--duration")) {
            std::string error;
            const auto d = parseDuration(v, &error);
            if (!d || d->count() <= 0) {
                std::cerr << "schedlab-run: --duration " << printable(v) << ": "
                          << (error.empty() ? "expected a positive duration" : error) << "\n";
                return 2;
            }
            config.durationNs = d->count();
        } else if (ar.isOption()) {
            std::cerr << "schedlab-run: unknown option " << printable(a) << "\n";
            usage(std::cerr);
            return 2;
        } else if (file.empty()) {
            file = a;
        } else {
            std::cerr << "schedlab-run: unexpected argument " << printable(a) << "\n";
            return 2;
        }
    }
    if (!restore.empty()) {
        if (!file.empty()) {
            std::cerr << "schedlab-run: --restore takes no scenario\n";
            return 2;
        }
        return runner::restoreJournalFile(restore, std::cerr);
    }
    if (file.empty()) {
        usage(std::cerr);
        return 2;
    }
    LoadResult loaded = loadScenarioFile(file);
    for (const auto& e : loaded.errors)
        std::cerr << e << "\n";
    if (!loaded.ok())
        return 2;
    const Scenario& s = *loaded.scenario;
    utsname u{};
    uname(&u);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const runner::Plan plan =
        runner::makePlan(s, static_cast<int>(online > 0 ? online : 1), u.release);
    std::cerr << "schedlab-run: scenario " << s.name << " on Linux " << u.release << ", "
              << plan.cpus << " of " << online << " CPUs, " << plan.tasks.size() << " tasks"
              << (config.lightChildren ? ", light children" : "")
              << (config.exactCosts ? ", exact costs" : "") << "\n";
    for (const auto& n : plan.notes)
        std::cerr << "not reproduced: " << file << ": " << n << "\n";
    for (const auto& e : plan.errors)
        std::cerr << "cannot run: " << file << ": " << e << "\n";
    if (!plan.errors.empty())
        return 3;
    if (check) {
        const runner::SystemPlan sys = runner::planSystem(s, plan, config);
        for (const auto& n : sys.notes)
            std::cerr << "not reproduced: " << file << ": " << n << "\n";
        runner::printSystemPlan(sys, std::cerr);
        for (const auto& e : sys.errors)
            std::cerr << "cannot run: " << file << ": " << e << "\n";
        return sys.errors.empty() ? 0 : 3;
    }
    try {
        return runner::runScenario(s, plan, config, std::cerr);
    } catch (const std::exception& e) {
        // The runner's destructor has killed the tasks and undone the journal by now.
        std::cerr << "schedlab-run: " << e.what() << " (the run was stopped and undone)\n";
        return 3;
    }
}
