// SPDX-License-Identifier: GPL-2.0-or-later
// Captures of a time window of a recording as PNG, SVG or PDF, drawn by the GUI's own
// TimelineView (CPU lanes + vruntime pane) on an offscreen widget, with a title, the legend and
// axis labels. Used by the GUI's File > Export menu and by `schedlab-cli capture`.
#pragma once

#include "core/base/time.h"
#include "core/kernel/profile.h"
#include "ui/timeline/model/lagband.h"
#include "ui/timeline/model/taskcgroups.h"

#include <QPair>
#include <QSize>
#include <QString>
#include <QVector>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

class QCustomPlot;

namespace schedlab {
class Recording;
class Simulation;
} // namespace schedlab

namespace schedlab::ui {

class TimelineView;

enum class CaptureFormat { Png, Svg, Pdf };
/// From the file name's suffix (.png, .svg, .pdf; case-insensitive).
std::optional<CaptureFormat> captureFormatFor(const QString& path);

struct CaptureOptions
{
    Nanoseconds from{0};
    Nanoseconds to{0};
    /// The layout's size in logical pixels (at 96 dpi); every format has the physical size
    /// size / 96 inches (700x400: 185 x 106 mm). PNG: the image has size · dpi / 96 pixels
    /// (and says dpi), everything (canvas, fonts, lines) scaled alike, so a 300-dpi capture is
    /// the 96-dpi one with finer detail; SVG: width and height in mm, user units are layout
    /// pixels; PDF: a page of size · 0.75 points. In every format the series are decimated for
    /// size · dpi / 96 pixel columns (envelope.h), so a vector capture holds what the PNG at the
    /// same dpi shows.
    QSize size{1200, 700};
    int dpi = 96;
    QString title;
    QVector<int> tasks; ///< vruntime pane; empty: the view's default (all tasks if ≤ 8)
    /// Group entities (EntityRef raw values, "/A@1") whose PELT the PELT pane draws.
    std::vector<int32_t> groupEntities;
    QVector<QPair<Nanoseconds, QString>> annotations;
    /// The lag clamp band's parameters (TimelineView::setLagClampRules()): the rule over time
    /// (lagband.h); the view's defaults if empty. fromSimulation() takes them from the run, as
    /// the GUI does.
    ClampRules lagClampRules;
    Nanoseconds baseSlice{0};
    int hz = 1000;
    /// Each task's cgroup over time (taskCgroups() of the scenario), for a waiting task's lag.
    TaskCgroups cgroups;
    /// Each task's cgroup moves (taskMoves() of the scenario): lines break there.
    TaskMoves moves;
    /// Lag clamp parameters from @p sim: the rule it started with, changed by the profile
    /// actions of @p actions (its scenario's) at their times; its base slice and HZ.
    void fromSimulation(const Simulation& sim, const std::vector<Action>& actions = {});
};

/// What a run is, for titles: the profile it started with and whatever differed from that
/// profile's defaults at the start (features, model choices), e.g. "7.1, NO_PLACE_LAG,
/// lag_clamp=own_slice"; then every change the feature and profile actions of @p actions (its
/// scenario's) made up to @p until, with its time: "6.13, lag_clamp=max_slice_tick from
/// 200.000 ms". A mid-run change is never presented as holding for the whole run.
QString runLabel(const Simulation& sim, const std::vector<Action>& actions = {},
    Nanoseconds until = Nanoseconds::max());
/// A capture's default title: "NAME — runLabel(sim, actions, TO), FROM to TO".
QString captureTitle(const Simulation& sim, const std::string& scenarioName, Nanoseconds from,
    Nanoseconds to, const std::vector<Action>& actions = {});

/// Writes @p plot, laid out at @p size logical pixels, to @p path: PNG (at @p dpi: size · dpi / 96
/// pixels), SVG or PDF by the suffix; atomically (the file is whole or left as it was). Shared by
/// the timeline captures and the sweep plots (sweepplot.h). False with @p error on failure.
bool savePlot(QCustomPlot* plot, const QString& path, QSize size, int dpi, const QString& title,
    const QString& description, QString* error);

/// Sets up @p view (never shown) as captureRecording() draws it: the window's view with a title
/// row and a time axis label under each pane. What is drawn is decided when it is drawn, for
/// the size and dpi of the output (timelineplot.h).
void setUpCaptureView(
    TimelineView& view, const Recording& recording, Nanoseconds now, const CaptureOptions& options);

/// Draws [from, to] of @p recording (run until @p now) into @p path. False with @p error on
/// failure (unknown suffix, empty window, cannot write).
bool captureRecording(const Recording& recording, Nanoseconds now, const QString& path,
    const CaptureOptions& options, QString* error);

/// `schedlab-cli capture FILE --from T --to T --out x.png|svg|pdf [--entities A,B] [--size WxH]
/// [--dpi N] [--title TEXT] [--profile P] [--feature F] [--override C=V] [--seed N]`.
/// Needs a QApplication. Exit codes as schedlab-cli: 0 ok, 2 bad input.
/// The edits `--set TASK.nice=N` and `--weight CGROUP=W` (shared by `schedlab-cli capture` and
/// `schedlab --screenshot`): the scenario as edited at t = 0. False with *@p error saying what
/// was expected (the scenario may be partly edited then).
bool applyScenarioEdits(Scenario& scenario, const std::vector<std::string>& sets,
    const std::vector<std::string>& weights, std::string* error);
int runCaptureCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace schedlab::ui
