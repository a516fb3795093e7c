// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline's caches (TimelineView::setCaching): a drawing that reuses the previous one's
// decimated series and lane columns is pixel for pixel the drawing that rebuilds everything,
// after every kind of change — a live append, a zoom, a scroll, a new selection, a resize, new
// cgroups — and after a drawing of the same view.
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/timeline/model/taskcgroups.h"
#include "ui/timeline/qcp.h"
#include "ui/timeline/timelineview.h"

#include <QtTest>

#include <functional>
#include <memory>
#include <random>

using namespace schedlab;
using namespace schedlab::ui;

namespace {

const char* const kScenario = R"({
  "schedlab": 1, "name": "drawcache", "duration": "400ms",
  "kernel": { "profile": "7.1" },
  "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/a", "cpu.weight": 300 }, { "path": "/b" } ],
  "tasks": [
    { "name": "hog", "count": 3, "cgroup": "/a", "program": [ { "run": "forever" } ] },
    { "name": "io", "count": 3, "cgroup": "/b",
      "program": [ { "loop": [ { "run": "2ms" }, { "sleep": "3ms" } ] } ] },
    { "name": "root", "count": 2, "program": [ { "loop": [ { "run": "1ms" }, { "sleep": "4ms" } ] } ] }
  ]
})";

QImage picture(const TimelineView& view)
{
    return view.plot()->toPixmap(900, 640).toImage().convertToFormat(QImage::Format_RGB32);
}

} // namespace

class TestDrawCache : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cachedDrawingEqualsRebuilt()
    {
        LoadResult r = parseScenario(kScenario, "drawcache");
        QVERIFY(r.ok());
        RunOptions options;
        options.recordPelt = true; // the PELT pane too
        Simulation sim(*r.scenario, options);
        const Nanoseconds duration = r.scenario->duration.value_or(Nanoseconds{400'000'000});

        TimelineView cached, rebuilt;
        rebuilt.setCaching(false);
        QVERIFY(cached.caching());
        QVERIFY(!rebuilt.caching());
        const auto both = [&](const std::function<void(TimelineView&)>& change) {
            change(cached);
            change(rebuilt);
        };
        both([&](TimelineView& v) {
            v.resize(900, 640);
            v.setRecording(&sim.recording(), duration);
            v.setTaskCgroups(taskCgroups(*r.scenario), taskMoves(*r.scenario));
        });
        int step = 0;
        const auto same = [&](const char* what) {
            // Twice: the first drawing of a change fills the caches, the second reuses them.
            for (int pass = 0; pass < 2; ++pass) {
                const QImage a = picture(cached);
                const QImage b = picture(rebuilt);
                QVERIFY2(a == b,
                    qPrintable(QStringLiteral("step %1 (%2), drawing %3: the cached drawing "
                                              "differs from the rebuilt one")
                                   .arg(step)
                                   .arg(QString::fromUtf8(what))
                                   .arg(pass + 1)));
            }
            ++step;
        };
        // Live: the run grows between drawings of the same window.
        for (const int64_t ms : {40, 41, 90, 150}) {
            sim.runUntil(Nanoseconds{ms * 1'000'000});
            both([&](TimelineView& v) { v.setNow(sim.now()); });
            same("live append");
            if (QTest::currentTestFailed())
                return;
        }
        both([](TimelineView& v) { v.setSelectedTasks({0, 3, 6}); });
        same("selection");
        sim.runUntil(Nanoseconds{200'000'000});
        both([&](TimelineView& v) { v.setNow(sim.now()); });
        same("live append with a selection");
        both([](TimelineView& v) {
            v.setViewRange(Nanoseconds{20'000'000}, Nanoseconds{60'000'000});
        });
        same("zoom");
        both([](TimelineView& v) {
            v.setViewRange(Nanoseconds{25'000'000}, Nanoseconds{65'000'000});
        });
        same("scroll");
        both([](TimelineView& v) { v.setSelectedTasks({1, 2, 4, 5, 7}); });
        same("another selection");
        both([](TimelineView& v) { v.setViewRange(Nanoseconds{0}, Nanoseconds{400'000'000}); });
        same("whole run");
        sim.runUntil(duration);
        both([&](TimelineView& v) { v.setNow(sim.now()); });
        same("run to the end");
        both([](TimelineView& v) { v.setTaskCgroups({}, {}); });
        same("cgroups unknown");
        both([](TimelineView& v) { v.setSelectedTasks({}); });
        same("no selection");
        // A new recording of the same length in the same place: nothing of the old is reused.
        Simulation again(*r.scenario, options);
        again.runUntil(duration);
        both([&](TimelineView& v) {
            v.setRecording(&again.recording(), duration);
            v.setNow(again.now());
            v.setSelectedTasks({2, 3});
        });
        same("new recording");
    }

    void randomWindowsEqualRebuilt()
    {
        // Zooms and scrolls anywhere, with any selection and size: the cached drawing (lane
        // strips and the panes' dense series kept as images) is the rebuilt one, and so is the
        // second drawing of each, which reuses them.
        LoadResult r = parseScenario(kScenario, "drawcache");
        QVERIFY(r.ok());
        RunOptions options;
        options.recordPelt = true;
        Simulation sim(*r.scenario, options);
        const Nanoseconds duration = r.scenario->duration.value_or(Nanoseconds{400'000'000});
        sim.runUntil(duration);
        TimelineView cached, rebuilt;
        rebuilt.setCaching(false);
        for (TimelineView* v : {&cached, &rebuilt}) {
            v->resize(900, 640);
            v->setRecording(&sim.recording(), duration);
            v->setTaskCgroups(taskCgroups(*r.scenario), taskMoves(*r.scenario));
            v->setNow(sim.now());
        }
        std::mt19937_64 random(33); // fixed seed: the same windows every run
        for (int step = 0; step < 16; ++step) {
            const int64_t span = std::uniform_int_distribution<int64_t>(10'000, duration.count())(
                random); // 10 µs to the whole run
            const int64_t from =
                std::uniform_int_distribution<int64_t>(0, duration.count() - span)(random);
            QVector<int> tasks;
            for (int task = 0; task < 8; ++task)
                if (random() % 3 == 0)
                    tasks << task;
            const QSize size(std::uniform_int_distribution<int>(500, 1100)(random),
                std::uniform_int_distribution<int>(380, 800)(random));
            for (TimelineView* v : {&cached, &rebuilt}) {
                v->setSelectedTasks(tasks);
                v->setViewRange(Nanoseconds{from}, Nanoseconds{from + span});
            }
            for (int pass = 0; pass < 2; ++pass) {
                const QImage a = cached.plot()
                                     ->toPixmap(size.width(), size.height())
                                     .toImage()
                                     .convertToFormat(QImage::Format_RGB32);
                const QImage b = rebuilt.plot()
                                     ->toPixmap(size.width(), size.height())
                                     .toImage()
                                     .convertToFormat(QImage::Format_RGB32);
                QVERIFY2(a == b,
                    qPrintable(QStringLiteral("window %1 + %2 ns, %3 tasks, %4x%5, drawing %6: "
                                              "the cached drawing differs from the rebuilt one")
                                   .arg(from)
                                   .arg(span)
                                   .arg(tasks.size())
                                   .arg(size.width())
                                   .arg(size.height())
                                   .arg(pass + 1)));
            }
        }
    }
};

QTEST_MAIN(TestDrawCache)
#include "tst_drawcache.moc"
