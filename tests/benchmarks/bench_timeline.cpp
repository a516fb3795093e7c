// SPDX-License-Identifier: GPL-2.0-or-later
// Timeline redraw cost (architecture.md §6 level of detail, budget: ≤ 50 ms per redraw for a
// 10-minute run with 100 entities). Simulates once (not timed), then times full replots of the
// timeline — lanes, vruntime/deadline/V and lag panes with all 100 tasks selected — for the whole
// run, a 1 s window and a 10 ms window. Needs QT_QPA_PLATFORM=offscreen (set by CTest).
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/qcp.h"
#include "ui/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QtTest>

#include <algorithm>
#include <cstdio>
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

double medianMs(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
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
        QElapsedTimer t;
        t.start();
        Simulation sim(*r.scenario);
        sim.run();
        std::printf("BENCH timeline: simulated 600 s, 100 tasks in %.1f s: %zu records (%.0f MB)\n",
            static_cast<double>(t.elapsed()) / 1e3, sim.recording().size(),
            static_cast<double>(sim.recording().bytes()) / 1e6);

        ui::TimelineView view;
        view.resize(1400, 900);
        view.show();
        view.setRecording(&sim.recording(), sim.endTime());
        t.restart();
        view.setNow(sim.endTime()); // indexes the whole recording once
        std::printf(
            "BENCH timeline: indexing %.1f ms\n", static_cast<double>(t.nsecsElapsed()) / 1e6);
        QVector<int> all;
        for (int i = 0; i < 100; ++i)
            all << i;
        view.setSelectedTasks(all);
        QCOMPARE(view.plottedTasks().size(), 100);

        struct Window
        {
            const char* name;
            Nanoseconds from, to;
        };
        const Window windows[] = {
            {"whole 600 s", Nanoseconds{0}, sim.endTime()},
            {"1 s", Nanoseconds{300'000'000'000}, Nanoseconds{301'000'000'000}},
            {"10 ms", Nanoseconds{300'000'000'000}, Nanoseconds{300'010'000'000}},
        };
        for (const Window& w : windows) {
            std::vector<double> samples;
            for (int i = 0; i < 7; ++i) {
                QElapsedTimer one;
                one.start();
                // A pan by 1 % and back forces the series to be rebuilt, as when dragging.
                const Nanoseconds shift = (w.to - w.from) / 100 * (i % 2);
                view.setViewRange(w.from + shift, w.to + shift);
                view.plot()->replot(QCustomPlot::rpImmediateRefresh);
                samples.push_back(static_cast<double>(one.nsecsElapsed()) / 1e6);
            }
            std::printf("BENCH timeline redraw %-12s median %7.1f ms (max %7.1f ms) budget 50 ms\n",
                w.name, medianMs(samples), *std::max_element(samples.begin(), samples.end()));
        }
    }
};

QTEST_MAIN(BenchTimeline)
#include "bench_timeline.moc"
