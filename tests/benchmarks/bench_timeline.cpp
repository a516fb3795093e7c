// SPDX-License-Identifier: GPL-2.0-or-later
// Timeline redraw cost (level of detail, budget: ≤ 30 ms per redraw for a
// 10-minute run with 100 entities; its indexes built in under 300 ms and held in under 500 MB).
// Simulates once (not timed), then times full replots of the timeline — lanes, vruntime/deadline/V
// and lag panes with 0, 8 and all 100 tasks selected — for the whole run, a 1 s window and a 10 ms
// window, each after a pan that rebuilds the series. Times are the thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), which a busy machine does not stretch as it does wall-clock time
// (printed beside it: a wall figure far above the CPU figure says the machine was busy). Needs
// QT_QPA_PLATFORM=offscreen (set by CTest).
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/timeline/cpulanesplottable.h"
#include "ui/timeline/model/sampleindex.h"
#include "ui/timeline/model/timelinelayout.h"
#include "ui/timeline/qcp.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iterator>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace schedlab;

namespace {

const char* const kScenario = R"({
  "schedlab": 1, "name": "bench-timeline", "duration": "600s",
  "kernel": { "profile": "7.1", "hz": 250 },
  "machine": { "cpus": 4 },
  "cgroups": [ { "path": "/a", "cpu.weight": 200 }, { "path": "/b" } ],
  "tasks": [
    { "name": "hog", "count": 40, "cgroup": "/a", "program": [ { "run": "forever" } ] },
    { "name": "io", "count": 40, "cgroup": "/b",
      "program": [ { "loop": [ { "run": "3ms" }, { "sleep": "7ms" } ] } ] },
    { "name": "root", "count": 20, "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "20ms" } ] } ] }
  ]
})";

/// This process's resident memory now (/proc/self/statm), in MB.
double residentMb()
{
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

double medianMs(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Wall-clock and this thread's CPU time since start() / restart().
class Stopwatch
{
public:
    Stopwatch() { start(); }
    void start()
    {
        m_wall.start();
        m_cpu = cpuNs();
    }
    void restart() { start(); }
    double wallMs() const { return static_cast<double>(m_wall.nsecsElapsed()) / 1e6; }
    double cpuMs() const { return static_cast<double>(cpuNs() - m_cpu) / 1e6; }

private:
    static long long cpuNs()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
    }
    QElapsedTimer m_wall;
    long long m_cpu = 0;
};

double msSince(const Stopwatch& t)
{
    return t.cpuMs();
}

/// The level-of-detail queries of a whole-run redraw on their own (no painting): 4 lanes of
/// 1350 bins, 100 vruntime series of 170 bins; and the indexes' memory.
void breakdown(const Simulation& sim)
{
    // Both indexes in one pass over the recording, as the view builds them.
    Stopwatch indexing;
    ui::RunSegmentIndex lanes;
    ui::SampleIndex samples;
    ui::updateIndexes(sim.recording(), lanes, samples);
    const double indexMs = indexing.cpuMs();
    std::printf("BENCH timeline: indexes %.0f MB (lanes %.0f MB, samples %.0f MB) budget 500 MB; "
                "built in %.1f ms CPU (one pass) budget 300 ms\n",
        static_cast<double>(lanes.bytes() + samples.bytes()) / 1e6,
        static_cast<double>(lanes.bytes()) / 1e6, static_cast<double>(samples.bytes()) / 1e6,
        indexMs);
    std::vector<double> lanesMs, sharesMs, stackMs, seriesMs;
    size_t bins = 0, points = 0;
    double firstSeriesMs = 0;
    for (int rep = 0; rep < 5; ++rep) {
        Stopwatch one;
        bins = 0;
        for (int cpu = 0; cpu < lanes.cpuCount(); ++cpu)
            bins += lanes.binnedSegments(cpu, Nanoseconds{0}, sim.endTime(), sim.endTime(), 1350)
                        .size();
        lanesMs.push_back(msSince(one));
        // What the lanes draw: each bin's share per task, then stacked into pixel rows.
        double shares = 0, stack = 0;
        for (int cpu = 0; cpu < lanes.cpuCount(); ++cpu) {
            Stopwatch part;
            const auto binned =
                lanes.binShares(cpu, Nanoseconds{0}, sim.endTime(), sim.endTime(), 1350);
            shares += msSince(part);
            part.restart();
            const auto columns = ui::stackBins(binned, 40, Nanoseconds{0}, sim.endTime(), 1350);
            stack += msSince(part);
        }
        sharesMs.push_back(shares);
        stackMs.push_back(stack);
        one.restart();
        points = 0;
        for (int task = 0; task < 100; ++task)
            points += samples
                          .decimatedSeries(sim.recording(), task, Nanoseconds{0}, sim.endTime(),
                              170, ui::SampleIndex::KeepVruntime)
                          .size();
        seriesMs.push_back(msSince(one));
        if (rep == 0)
            firstSeriesMs = seriesMs.back();
    }
    std::printf("BENCH timeline: whole run, binned lanes %.1f ms (%zu bins), lane shares %.1f ms "
                "and stacking %.1f ms, decimated series %.1f ms (%zu points)\n",
        medianMs(lanesMs), bins, medianMs(sharesMs), medianMs(stackMs), medianMs(seriesMs), points);
    {
        // What a whole-run drawing with 8 tasks selected decimates (1350 columns): the 8 tasks'
        // series with every quantity the panes draw, and the group entities' weights.
        std::vector<double> detailMs, groupMs;
        size_t detailSamples = 0, groupPoints = 0;
        for (int rep = 0; rep < 5; ++rep) {
            Stopwatch one;
            detailSamples = 0;
            for (int task = 0; task < 8; ++task)
                detailSamples += samples
                                     .decimatedSeries(sim.recording(), task, Nanoseconds{0},
                                         sim.endTime(), 1350, ui::SampleIndex::KeepAll)
                                     .size();
            detailMs.push_back(msSince(one));
            one.restart();
            groupPoints = 0;
            for (const int32_t raw : samples.groupEntities())
                groupPoints += samples
                                   .groupSeries(sim.recording(), raw, Nanoseconds{0}, sim.endTime(),
                                       1350, ui::SampleIndex::KeepWeight)
                                   .size();
            groupMs.push_back(msSince(one));
        }
        std::printf(
            "BENCH timeline: whole run at 1350 columns, 8 tasks' series (all quantities) "
            "%.1f ms (%zu of %zu samples kept), %zu group entities' weights %.1f ms "
            "(%zu samples kept)\n",
            medianMs(detailMs), detailSamples,
            [&] {
                size_t n = 0;
                for (int task = 0; task < 8; ++task)
                    n += samples.sampleCount(task);
                return n;
            }(),
            samples.groupEntities().size(), medianMs(groupMs), groupPoints);
    }
    // The summaries of a series are built when a window first needs them (above: all 100).
    std::printf("BENCH timeline: indexes with every task's summaries %.0f MB (samples %.0f MB) "
                "budget 500 MB; the first whole-run series of all 100 tasks (summaries built) "
                "%.1f ms\n",
        static_cast<double>(lanes.bytes() + samples.bytes()) / 1e6,
        static_cast<double>(samples.bytes()) / 1e6, firstSeriesMs);
}

/// Replot time (median of 3) with one pane's plottables visible at a time, then with none (axes,
/// grid); with BENCH_TIMELINE_PLOTTABLES set, also each plottable alone that costs 0.3 ms or more
/// over none.
void paneCosts(QCustomPlot* plot)
{
    const auto rects = plot->axisRects();
    const char* const names[] = {"lanes", "vruntime", "lag", "weight", "pelt"};
    std::vector<bool> visible;
    for (int p = 0; p < plot->plottableCount(); ++p)
        visible.push_back(plot->plottable(p)->visible());
    const auto timeWith = [&](const std::function<bool(int)>& shown) {
        for (int p = 0; p < plot->plottableCount(); ++p)
            plot->plottable(p)->setVisible(visible[static_cast<size_t>(p)] && shown(p));
        std::vector<double> ms;
        for (int rep = 0; rep < 3; ++rep) {
            Stopwatch one;
            plot->replot(QCustomPlot::rpImmediateRefresh);
            ms.push_back(msSince(one));
        }
        return medianMs(ms);
    };
    QString line = QStringLiteral("  panes:");
    double none = 0;
    for (int keep = 0; keep <= rects.size(); ++keep) {
        const double ms = timeWith([&](int p) {
            return keep < rects.size() && plot->plottable(p)->keyAxis()->axisRect() == rects[keep];
        });
        if (keep == rects.size())
            none = ms;
        line += QStringLiteral(" %1 %2 ms")
                    .arg(keep < rects.size() && keep < 5 ? names[keep] : "none")
                    .arg(ms, 0, 'f', 1);
    }
    std::printf("%s\n", qPrintable(line));
    if (qEnvironmentVariableIsSet("BENCH_TIMELINE_PLOTTABLES")) {
        for (int q = 0; q < plot->plottableCount(); ++q) {
            if (!visible[static_cast<size_t>(q)])
                continue;
            const double ms = timeWith([&](int p) { return p == q; }) - none;
            if (ms >= 0.3)
                std::printf("    plottable %d (%s, %s, %d points): +%.1f ms\n", q,
                    plot->plottable(q)->metaObject()->className(),
                    qPrintable(plot->plottable(q)->name()),
                    qobject_cast<QCPGraph*>(plot->plottable(q))
                        ? qobject_cast<QCPGraph*>(plot->plottable(q))->dataCount()
                        : -1,
                    ms);
        }
    }
    for (int p = 0; p < plot->plottableCount(); ++p)
        plot->plottable(p)->setVisible(visible[static_cast<size_t>(p)]);
}

} // namespace

class BenchTimeline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void redrawTenMinutesHundredTasks()
    {
        LoadResult r = parseScenario(kScenario, "bench");
        QVERIFY(r.ok());
        // BENCH_TIMELINE_SECONDS shortens the run for a quick look (default: the 600 s budget).
        const int seconds = qEnvironmentVariableIntValue("BENCH_TIMELINE_SECONDS");
        if (seconds > 0)
            r.scenario->duration = Nanoseconds{int64_t{seconds} * 1'000'000'000};
        QElapsedTimer t;
        t.start();
        Simulation sim(*r.scenario);
        sim.run();
        std::printf(
            "BENCH timeline: simulated %lld s, 100 tasks in %.1f s: %zu records (%.0f MB)\n",
            static_cast<long long>(sim.endTime().count() / 1'000'000'000),
            static_cast<double>(t.elapsed()) / 1e3, sim.recording().size(),
            static_cast<double>(sim.recording().bytes()) / 1e6);
        {
            // Where the recording's memory goes: records per kind.
            static const char* const kinds[] = {"switch", "wakeup", "enqueue", "dequeue", "delay",
                "place", "deadline", "reweight", "sample", "migrate", "spawn", "exit", "yield",
                "feature", "tick", "throttle", "unthrottle", "park", "pelt", "maxslice"};
            size_t perKind[std::size(kinds)] = {};
            for (const Record& rec : sim.recording().records())
                if (static_cast<size_t>(rec.kind) < std::size(kinds))
                    ++perKind[static_cast<size_t>(rec.kind)];
            QString line = QStringLiteral("BENCH timeline: records by kind:");
            for (size_t k = 0; k < std::size(kinds); ++k)
                if (perKind[k])
                    line += QStringLiteral(" %1 %2").arg(kinds[k]).arg(perKind[k]);
            std::printf("%s\n", qPrintable(line));
        }

        const double simulatedMb = residentMb();
        // The breakdown's own indexes (and their summaries) are gone before the view builds its
        // own, so the resident figures below are those of one set of indexes, as in the GUI.
        breakdown(sim);
        ui::TimelineView view;
        view.resize(1400, 900);
        view.show();
        Stopwatch index;
        view.setRecording(&sim.recording(), sim.endTime()); // indexes the whole recording once
        view.setNow(sim.endTime());
        std::printf(
            "BENCH timeline: indexing %.1f ms CPU (%.1f ms wall)\n", index.cpuMs(), index.wallMs());
        const double indexedMb = residentMb();
        QVector<int> all;
        for (int i = 0; i < 100; ++i)
            all << i;
        // For a profiler: BENCH_TIMELINE_SELECTED=8 times one selection only,
        // BENCH_TIMELINE_WINDOW="whole run" one window only, BENCH_TIMELINE_REPEAT=50 repeats each
        // drawing 50 times instead of 7.
        std::vector<int> selections{0, 8, 100};
        if (qEnvironmentVariableIsSet("BENCH_TIMELINE_SELECTED"))
            selections = {qEnvironmentVariableIntValue("BENCH_TIMELINE_SELECTED")};
        const int repeat = std::max(7, qEnvironmentVariableIntValue("BENCH_TIMELINE_REPEAT"));
        for (const int selected : selections) {
            view.setSelectedTasks(all.mid(0, selected));
            QCOMPARE(view.plottedTasks().size(), selected);
            std::printf("BENCH timeline: %d selected tasks plotted\n", selected);

            struct Window
            {
                const char* name;
                Nanoseconds from, to;
                bool cached = true;
            };
            // The whole run twice: as the GUI draws it (a drawing of the same window reuses the
            // decimated series and lane columns: the 1 % pan is clamped back to the same window)
            // and with caching off, every drawing rebuilding everything.
            const Window windows[] = {
                {"whole run", Nanoseconds{0}, sim.endTime()},
                {"whole, uncached", Nanoseconds{0}, sim.endTime(), false},
                {"1 s", sim.endTime() / 2, sim.endTime() / 2 + Nanoseconds{1'000'000'000}},
                {"10 ms", sim.endTime() / 2, sim.endTime() / 2 + Nanoseconds{10'000'000}},
            };
            const QByteArray only = qgetenv("BENCH_TIMELINE_WINDOW"); // e.g. "whole run"
            for (const Window& w : windows) {
                if (!only.isEmpty() && only != w.name)
                    continue;
                view.setCaching(w.cached);
                std::vector<double> samples, data, wall;
                for (int i = 0; i < repeat; ++i) {
                    Stopwatch one;
                    // A pan by 1 % and back forces the series to be rebuilt, as when dragging
                    // (the whole run cannot pan: the view clamps it back to the same window).
                    const Nanoseconds shift = (w.to - w.from) / 100 * (i % 2);
                    view.setViewRange(w.from + shift, w.to + shift); // rebuilds the series
                    data.push_back(one.cpuMs());
                    view.plot()->replot(QCustomPlot::rpImmediateRefresh);
                    samples.push_back(one.cpuMs());
                    wall.push_back(one.wallMs());
                }
                if (w.name[0] == 'w') // the whole run: which pane costs what
                    paneCosts(view.plot());
                std::printf(
                    "BENCH timeline redraw %-15s median %7.1f ms CPU (series %6.1f ms, max %7.1f "
                    "ms; wall median %7.1f ms) budget 30 ms\n",
                    w.name, medianMs(samples), medianMs(data),
                    *std::max_element(samples.begin(), samples.end()), medianMs(wall));
                if (qEnvironmentVariableIsSet("BENCH_TIMELINE_ALL"))
                    for (const double ms : samples)
                        std::printf("    %.1f ms\n", ms);
            }
        }
        view.setCaching(true);
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::printf("BENCH timeline: resident %.0f MB after the run, %.0f MB once the view indexed "
                    "it, %.0f MB after drawing every task (their summaries built) budget 500 MB\n",
            simulatedMb, indexedMb, residentMb());
        std::printf("BENCH timeline: peak resident %.0f MB (recording %.0f MB of it, %.0f MB "
                    "reserved)\n",
            static_cast<double>(usage.ru_maxrss) * 1024 / 1e6, // ru_maxrss is in KiB
            static_cast<double>(sim.recording().bytes()) / 1e6,
            static_cast<double>(sim.recording().records().capacity() * sizeof(Record)) / 1e6);
    }
};

QTEST_MAIN(BenchTimeline)
#include "bench_timeline.moc"
