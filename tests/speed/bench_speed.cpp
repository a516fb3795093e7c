// SPDX-License-Identifier: GPL-2.0-or-later
// `make bench` (CTest label "bench", never part of `make test`): simulation speed side by side.
// Prints one table: simulated seconds per CPU second on CPU hogs (nice −5…19) at HZ 1000 — 8 on
// one CPU, 64 on one CPU, 16 on four CPUs — with the instructions per event when the host lets a
// process count its own (perf_event_open); the cost per event with 8 and 4 096 hogs on one CPU for
// profiles 6.6, 7.1 and 7.3 (the pick is O(log n): kernel-model.md §3.5); and the real-time factor
// of 256 CPUs with 10 000 tasks. Each schedlab run records as `schedlab-cli run` without an export
// does (records counted, not built) and keeps every modelled mechanism (PELT, lag, groups).
//
// Peers (docs/limits.md "Speed"): with SCHEDLAB_BENCH_KIT set to the side-by-side kit's directory,
// its minimal EEVDF loop (limit/limit.cpp) is compiled with the host's c++ and run on the same
// workloads, and LinSched binaries are run when SCHEDLAB_LINSCHED_1CPU / SCHEDLAB_LINSCHED_4CPU
// name them (built as the kit's README says); a peer that is missing is skipped with a message.
// Runs are interleaved (schedlab, peers, schedlab, …) and the median of the repetitions is shown:
// the machine is shared, so a ratio measured in one run means more than an absolute figure.
//
// Options: --reps N (default 3), --quick (shorter runs, for a smoke test), --one SECONDS [COPIES
// [PROFILE]] (only COPIES × 8 hogs on one CPU, once, for `valgrind --tool=callgrind`: the
// instructions per event are the difference of two lengths' Ir over the difference of events),
// --big SECONDS (only the 256-CPU, 10 000-task machine, once).
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <linux/perf_event.h>
#include <optional>
#include <string>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace schedlab;

namespace {

const std::vector<int> kNices{-5, -2, 0, 0, 2, 5, 10, 19};

double cpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// Counts the instructions this process retires in user space, when the host allows it.
class InstructionCounter
{
public:
    InstructionCounter()
    {
        perf_event_attr attr{};
        attr.type = PERF_TYPE_HARDWARE;
        attr.size = sizeof(attr);
        attr.config = PERF_COUNT_HW_INSTRUCTIONS;
        attr.disabled = 1;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        m_fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    }
    ~InstructionCounter()
    {
        if (m_fd >= 0)
            close(m_fd);
    }
    InstructionCounter(const InstructionCounter&) = delete;
    InstructionCounter& operator=(const InstructionCounter&) = delete;
    bool available() const { return m_fd >= 0; }
    void start()
    {
        if (m_fd < 0)
            return;
        ioctl(m_fd, PERF_EVENT_IOC_RESET, 0);
        ioctl(m_fd, PERF_EVENT_IOC_ENABLE, 0);
    }
    std::optional<uint64_t> stop()
    {
        if (m_fd < 0)
            return std::nullopt;
        ioctl(m_fd, PERF_EVENT_IOC_DISABLE, 0);
        uint64_t count = 0;
        if (read(m_fd, &count, sizeof count) != static_cast<ssize_t>(sizeof count) || count == 0)
            return std::nullopt;
        return count;
    }

private:
    int m_fd = -1;
};

std::string hogs(int copies, int cpus, const std::string& profile, double seconds)
{
    std::string tasks;
    for (int c = 0; c < copies; ++c)
        for (size_t i = 0; i < kNices.size(); ++i)
            tasks += std::string(tasks.empty() ? "" : ",") + R"({ "name": "t)" + std::to_string(c)
                + "-" + std::to_string(i) + R"(", "nice": )" + std::to_string(kNices[i])
                + R"(, "program": [ { "run": "forever" } ] })";
    return R"({ "schedlab": 1, "name": "hogs", "seed": 1, "duration": ")"
        + std::to_string(static_cast<long long>(seconds * 1000)) + R"(ms",
      "kernel": { "profile": ")"
        + profile + R"(", "hz": 1000 }, "machine": { "cpus": )" + std::to_string(cpus)
        + R"( }, "tasks": [ )" + tasks + " ] }";
}

/// 256 CPUs (SMT pairs, LLCs of 16 cores), 50 cgroups three levels deep, 10 000 tasks: a quarter
/// spinning, the rest running 50 µs–1 ms between 2–50 ms sleeps (bench_simulation's shape).
std::string bigMachine(int cpus, int totalTasks, double seconds)
{
    std::string cgroups;
    std::vector<std::string> leaves;
    for (int a = 0; a < 5; ++a) {
        const std::string pa = "/g" + std::to_string(a);
        cgroups += std::string(cgroups.empty() ? "" : ",") + R"({ "path": ")" + pa
            + R"(", "cpu.weight": )" + std::to_string(50 + 50 * a) + " }";
        for (int b = 0; b < 3; ++b) {
            const std::string pb = pa + "/m" + std::to_string(b);
            cgroups += R"(,{ "path": ")" + pb + R"(" })";
            for (int c = 0; c < 2; ++c) {
                const std::string pc = pb + "/l" + std::to_string(c);
                cgroups += R"(,{ "path": ")" + pc + R"(", "cpu.weight": )"
                    + std::to_string(100 + 100 * c) + " }";
                leaves.push_back(pc);
            }
        }
    }
    std::string tasks;
    const int perLeaf = std::max(4, totalTasks / static_cast<int>(leaves.size()));
    for (size_t i = 0; i < leaves.size(); ++i) {
        tasks += std::string(i ? "," : "") + R"({ "name": "h)" + std::to_string(i)
            + R"(", "count": )" + std::to_string(perLeaf / 4) + R"(, "cgroup": ")" + leaves[i]
            + R"(", "program": [ { "run": "forever" } ] })";
        tasks += R"(,{ "name": "s)" + std::to_string(i) + R"(", "count": )"
            + std::to_string(perLeaf - perLeaf / 4) + R"(, "cgroup": ")" + leaves[i]
            + R"(", "start": { "uniform": ["0s", "100ms"] }, "program": [ { "loop": [ { "run": { "uniform": ["50us", "1ms"] } }, { "sleep": { "uniform": ["2ms", "50ms"] } } ] } ] })";
    }
    return R"({ "schedlab": 1, "name": "big", "duration": ")"
        + std::to_string(static_cast<long long>(seconds * 1000)) + R"(ms",
      "kernel": { "profile": "6.13", "hz": 1000 }, "machine": { "cpus": )"
        + std::to_string(cpus) + R"(, "threads_per_core": 2, "cores_per_llc": 16 },
      "cgroups": [ )"
        + cgroups + R"( ], "tasks": [ )" + tasks + " ] }";
}

struct Figures
{
    double simSeconds = 0;
    double cpu = 0; ///< CPU seconds of the run (scenario building excluded)
    uint64_t events = 0;
    std::optional<uint64_t> instructions;
    double simPerCpu() const { return cpu > 0 ? simSeconds / cpu : 0; }
    double nsPerEvent() const { return events ? cpu * 1e9 / static_cast<double>(events) : 0; }
};

Figures runSchedlab(const std::string& json, double seconds, InstructionCounter& counter)
{
    LoadResult r = parseScenario(json, "bench");
    if (!r.ok()) {
        for (const auto& e : r.errors)
            std::fprintf(stderr, "%s\n", e.c_str());
        std::exit(2);
    }
    Figures f;
    f.simSeconds = seconds;
    RunOptions options;
    options.lagBoundMetric = false; // as `schedlab-cli run` without a metrics file
    Simulation sim(*r.scenario, options);
    sim.streamRecording(nullptr); // as `schedlab-cli run` without an export
    const double t0 = cpuSeconds();
    counter.start();
    sim.run();
    f.instructions = counter.stop();
    f.cpu = cpuSeconds() - t0;
    f.events = sim.eventsExecuted();
    return f;
}

/// Runs a peer and returns its CPU time (user + system of the child).
std::optional<double> runPeer(const std::vector<std::string>& argv, std::string* stderrText)
{
    char path[] = "/tmp/schedlab-bench-XXXXXX";
    const int errFd = mkstemp(path);
    if (errFd < 0)
        return std::nullopt;
    unlink(path);
    const pid_t pid = fork();
    if (pid < 0)
        return std::nullopt;
    if (pid == 0) {
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        dup2(errFd, 2);
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, 1);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    rusage ru{};
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        close(errFd);
        return std::nullopt;
    }
    if (stderrText) {
        lseek(errFd, 0, SEEK_SET);
        char buf[4096];
        ssize_t n = 0;
        while ((n = read(errFd, buf, sizeof buf)) > 0)
            stderrText->append(buf, static_cast<size_t>(n));
    }
    close(errFd);
    auto sec = [](const timeval& tv) {
        return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
    };
    return sec(ru.ru_utime) + sec(ru.ru_stime);
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string niceList()
{
    std::string s;
    for (const int n : kNices)
        s += std::string(s.empty() ? "" : ",") + std::to_string(n);
    return s;
}

struct Peers
{
    std::string limit;     ///< the compiled minimal loop, or empty
    std::string linsched1; ///< LinSched built for 1 CPU, or empty
    std::string linsched4; ///< ... for 4 CPUs
};

Peers findPeers()
{
    Peers p;
    const char* kit = std::getenv("SCHEDLAB_BENCH_KIT");
    if (!kit || !*kit) {
        std::printf("peers skipped: set SCHEDLAB_BENCH_KIT to the side-by-side kit's directory "
                    "(limit/limit.cpp) to run the minimal EEVDF loop\n");
    } else {
        const std::string src = std::string(kit) + "/limit/limit.cpp";
        if (!std::filesystem::exists(src)) {
            std::printf("minimal loop skipped: %s not found\n", src.c_str());
        } else {
            const std::string exe = std::filesystem::temp_directory_path().string()
                + "/schedlab-bench-limit-" + std::to_string(getpid());
            const std::string cmd = "c++ -O2 -std=c++20 '" + src + "' -o '" + exe + "'";
            if (std::system(cmd.c_str()) == 0)
                p.limit = exe;
            else
                std::printf("minimal loop skipped: `%s` failed\n", cmd.c_str());
        }
    }
    for (auto [var, out] : {std::pair{"SCHEDLAB_LINSCHED_1CPU", &p.linsched1},
             std::pair{"SCHEDLAB_LINSCHED_4CPU", &p.linsched4}}) {
        const char* exe = std::getenv(var);
        if (exe && *exe && access(exe, X_OK) == 0)
            *out = exe;
        else
            std::printf(
                "LinSched skipped: set %s to a LinSched built as the kit's README says\n", var);
    }
    return p;
}

} // namespace

int main(int argc, char** argv)
{
    int reps = 3;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--one") && i + 1 < argc) {
            const double s = std::atof(argv[++i]);
            const int copies = i + 1 < argc ? std::max(1, std::atoi(argv[++i])) : 1;
            const std::string profile = i + 1 < argc ? argv[++i] : "7.1";
            InstructionCounter none;
            const Figures f = runSchedlab(hogs(copies, 1, profile, s), s, none);
            std::printf("%d hogs, 1 CPU, %s, %.0f s: %llu events, %.0f sim-s per CPU-s\n",
                8 * copies, profile.c_str(), s, static_cast<unsigned long long>(f.events),
                f.simPerCpu());
            return 0;
        }
        if (!std::strcmp(argv[i], "--big") && i + 1 < argc) {
            const double s = std::atof(argv[++i]);
            InstructionCounter none;
            const Figures f = runSchedlab(bigMachine(256, 10000, s), s, none);
            std::printf("256 CPUs x 10 000 tasks, 6.13, %.2f s: %llu events, %.2fx real time, "
                        "%.0f ns per event\n",
                s, static_cast<unsigned long long>(f.events), f.simPerCpu(), f.nsPerEvent());
            return 0;
        }
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--quick"))
            quick = true;
    }
    InstructionCounter counter;
    if (!counter.available())
        std::printf("instructions per event: not available (perf_event_open refused; "
                    "use valgrind --tool=callgrind)\n");
    const Peers peers = findPeers();
    const double seconds = quick ? 20 : 600;

    // --- simulated seconds per CPU second, side by side -----------------------------------------
    struct Workload
    {
        const char* name;
        int copies;
        int cpus;
        const std::string* linsched;
    };
    const std::vector<Workload> workloads{{"8 hogs, 1 CPU", 1, 1, &peers.linsched1},
        {"64 hogs, 1 CPU", 8, 1, &peers.linsched1}, {"16 hogs, 4 CPUs", 2, 4, &peers.linsched4}};
    std::printf("\nSimulated seconds per CPU second (HZ 1000, %.0f s simulated, nice %s, median of "
                "%d interleaved runs)\n",
        seconds, niceList().c_str(), reps);
    std::printf(
        "| workload | schedlab | ns/event | instructions/event | LinSched | minimal loop |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (const Workload& w : workloads) {
        std::vector<double> mine, ns, lin, lim;
        std::optional<uint64_t> instr;
        uint64_t events = 0;
        const std::string json = hogs(w.copies, w.cpus, "7.1", seconds);
        for (int r = 0; r < reps; ++r) {
            const Figures f = runSchedlab(json, seconds, counter);
            mine.push_back(f.simPerCpu());
            ns.push_back(f.nsPerEvent());
            events = f.events;
            if (f.instructions)
                instr = f.instructions;
            if (!w.linsched->empty()) {
                const auto t =
                    runPeer({*w.linsched, std::to_string(static_cast<long long>(seconds * 1000)),
                                niceList(), std::to_string(w.copies)},
                        nullptr);
                if (t)
                    lin.push_back(seconds / *t);
            }
            if (!peers.limit.empty()) {
                const auto t = runPeer({peers.limit, std::to_string(seconds), niceList(),
                                           std::to_string(w.copies), std::to_string(w.cpus)},
                    nullptr);
                if (t)
                    lim.push_back(seconds / *t);
            }
        }
        char instrText[64] = "n/a";
        if (instr && events)
            std::snprintf(instrText, sizeof instrText, "%.0f",
                static_cast<double>(*instr) / static_cast<double>(events));
        auto peer = [&](const std::vector<double>& v) {
            char buf[64] = "skipped";
            if (!v.empty())
                std::snprintf(buf, sizeof buf, "%.0f (%.2fx)", median(v), median(v) / median(mine));
            return std::string(buf);
        };
        std::printf("| %s | %.0f | %.0f | %s | %s | %s |\n", w.name, median(mine), median(ns),
            instrText, peer(lin).c_str(), peer(lim).c_str());
    }

    // --- deep run queues: the cost per event with 8 and 4 096 hogs on one CPU -------------------
    const double deepSeconds = quick ? 2 : 20;
    std::printf("\nCost per event, 8 vs 4 096 hogs on one CPU (%.0f s simulated, median of %d)\n",
        deepSeconds, reps);
    std::printf("| profile | 8 hogs ns/event | 4 096 hogs ns/event | ratio |\n|---|---|---|---|\n");
    for (const char* profile : {"6.6", "7.1", "7.3"}) {
        std::vector<double> shallow, deep;
        const std::string small = hogs(1, 1, profile, deepSeconds);
        const std::string big = hogs(512, 1, profile, deepSeconds);
        for (int r = 0; r < reps; ++r) {
            shallow.push_back(runSchedlab(small, deepSeconds, counter).nsPerEvent());
            deep.push_back(runSchedlab(big, deepSeconds, counter).nsPerEvent());
        }
        std::printf("| %s | %.0f | %.0f | %.2f |\n", profile, median(shallow), median(deep),
            median(deep) / median(shallow));
    }

    // --- a big machine --------------------------------------------------------------------------
    const double bigSeconds = quick ? 0.2 : 2;
    const Figures big = runSchedlab(bigMachine(256, 10000, bigSeconds), bigSeconds, counter);
    std::printf("\n256 CPUs x 10 000 tasks (50 cgroups, profile 6.13, %.1f s simulated): %.2fx "
                "real time, %.0f ns/event, %llu events\n",
        bigSeconds, big.simPerCpu(), big.nsPerEvent(), static_cast<unsigned long long>(big.events));
    // The same machine with 10 000 hogs and no groups, beside the minimal loop: what an EEVDF
    // simulation that does nothing but update_curr, V and the pick costs per event on 256 CPUs,
    // and the real-time factor it would reach at the big case's rate of events.
    {
        const Figures mine = runSchedlab(hogs(1250, 256, "7.1", bigSeconds), bigSeconds, counter);
        std::printf("10 000 hogs on 256 CPUs (7.1, no groups, %.1f s): schedlab %.2fx real time, "
                    "%.0f ns/event",
            bigSeconds, mine.simPerCpu(), mine.nsPerEvent());
        std::string err;
        std::optional<double> t;
        if (!peers.limit.empty())
            t = runPeer({peers.limit, std::to_string(bigSeconds), niceList(), "1250", "256"}, &err);
        const auto at = err.find(" events=");
        const uint64_t limitEvents =
            at == std::string::npos ? 0 : std::strtoull(err.c_str() + at + 8, nullptr, 10);
        const double limitCpu = t.value_or(0);
        if (limitCpu > 0 && limitEvents) {
            const double limitNs = limitCpu * 1e9 / static_cast<double>(limitEvents);
            const double bigRate = static_cast<double>(big.events) / bigSeconds;
            std::printf("; minimal loop %.2fx real time, %.0f ns/event (at the big case's %.0f "
                        "events per simulated second: %.1fx real time)\n",
                bigSeconds / limitCpu, limitNs, bigRate, 1e9 / (limitNs * bigRate));
        } else {
            std::printf("; minimal loop skipped\n");
        }
    }
    if (!peers.limit.empty())
        std::filesystem::remove(peers.limit);
    return 0;
}
