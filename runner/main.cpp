// SPDX-License-Identifier: GPL-2.0-or-later
// schedlab-run SCENARIO [--trace OUT] [--names OUT] [--no-trace] [--duration D]
//              [--cgroup-base DIR] [--check]
#include "core/base/text.h"
#include "core/base/time.h"
#include "core/scenario/scenarioio.h"
#include "runner.h"
#include "system.h"

#include <iostream>
#include <string>
#include <sys/utsname.h>
#include <unistd.h>

namespace {

void usage(std::ostream& out)
{
    out << "schedlab-run " SCHEDLAB_VERSION
           " - run a schedlab scenario on the running Linux kernel (as root)\n\n"
           "Usage: schedlab-run SCENARIO [options]\n"
           "  --trace OUT        write the scheduler trace (ftrace text) to OUT\n"
           "                     (default schedlab-trace.txt); import it with\n"
           "                     schedlab-cli import OUT or compare SCENARIO --real OUT\n"
           "  --names OUT        also write the pid -> task name map to OUT\n"
           "  --no-trace         run without tracing\n"
           "  --duration D       run for D instead of the scenario's duration\n"
           "  --cgroup-base DIR  the scenario's root cgroup \"/\" (default: the cgroup2 mount)\n"
           "  --check            print what cannot be reproduced here and exit\n\n"
           "Needs root, a cgroup v2 hierarchy with the cpu controller and tracefs. Whatever the\n"
           "real kernel cannot reproduce (model profiles, kernel sections, cookies…) is listed\n"
           "before the run. Exit codes: 0 ok, 2 bad input, 3 this machine cannot run it.\n";
}

} // namespace

int main(int argc, char* argv[])
{
    using namespace schedlab;
    std::string file;
    runner::RunConfig config;
    config.traceOut = "schedlab-trace.txt";
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "schedlab-run: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            usage(std::cout);
            return 0;
        } else if (a == "--trace") {
            config.traceOut = value();
        } else if (a == "--names") {
            config.namesOut = value();
        } else if (a == "--no-trace") {
            config.traceOut.clear();
        } else if (a == "--cgroup-base") {
            config.cgroupBase = value();
        } else if (a == "--check") {
            check = true;
        } else if (a == "--duration") {
            const std::string v = value();
            std::string error;
            const auto d = parseDuration(v, &error);
            if (!d || d->count() <= 0) {
                std::cerr << "schedlab-run: --duration " << printable(v) << ": "
                          << (error.empty() ? "expected a positive duration" : error) << "\n";
                return 2;
            }
            config.durationNs = d->count();
        } else if (!a.empty() && a[0] == '-') {
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
              << plan.cpus << " of " << online << " CPUs, " << plan.tasks.size() << " tasks\n";
    for (const auto& n : plan.notes)
        std::cerr << "not reproduced: " << file << ": " << n << "\n";
    for (const auto& e : plan.errors)
        std::cerr << "cannot run: " << file << ": " << e << "\n";
    if (!plan.errors.empty())
        return 3;
    if (check)
        return 0;
    return runner::runScenario(s, plan, config, std::cerr);
}
