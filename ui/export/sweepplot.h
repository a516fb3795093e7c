// SPDX-License-Identifier: GPL-2.0-or-later
// The plot of a sweep (docs/sweeps.md): one column of the results CSV (core/base/csv.h) against
// a parameter, one series per value of another parameter, the mean over the seeds (and over any
// other parameter) with min–max bars; drawn by QCustomPlot offscreen and written by savePlot()
// (capture.h), so PNG/SVG/PDF as the timeline captures. `schedlab-cli sweep … --plot` and
// `schedlab-cli plot-sweep` (schedlab-cli links this drawing library, schedlab_plot, as for
// `capture`; not the GUI's widgets).
#pragma once

#include <QSize>
#include <QString>

#include <iosfwd>
#include <string>
#include <vector>

class QCustomPlot;

namespace schedlab {
struct CsvTable;
}

namespace schedlab::ui {

struct SweepPlotOptions
{
    std::string metric; ///< a column, e.g. task:root-spin:share
    std::string x;      ///< a parameter column
    std::string series; ///< a parameter column, or empty: one series
    QSize size{900, 560};
    int dpi = 96;
    QString title; ///< default: "METRIC against X"
};

/// One point of a series: the mean, min and max of the metric over the rows with these values.
struct SweepPoint
{
    std::string x;
    double mean = 0, min = 0, max = 0;
    int n = 0;
};
struct SweepSeries
{
    std::string name;
    std::vector<SweepPoint> points; ///< in the order of the x values in the CSV (grid order)
};

/// Groups @p table's rows by series and x value (rows with an empty metric cell are skipped).
bool sweepSeries(const CsvTable& table, const SweepPlotOptions& options,
    std::vector<SweepSeries>& series, std::string* error);

/// Lays out the plot of @p table on @p plot (its size from @p options; the legend in a row of its
/// own under the axes) and replots it. False with @p error.
bool buildSweepPlot(
    QCustomPlot& plot, const CsvTable& table, const SweepPlotOptions& options, QString* error);

/// Draws the plot of @p table into @p path. False with @p error.
bool plotSweep(
    const CsvTable& table, const QString& path, const SweepPlotOptions& options, QString* error);

/// `schedlab-cli plot-sweep results.csv --plot METRIC --x KEY [--series KEY] --out plot.png|svg`
/// and `schedlab-cli sweep … --plot METRIC --x KEY [--series KEY] --plot-out plot.png` (the sweep,
/// then the plot of its --out). Needs a QApplication. Prints the plotted table on stdout.
int runSweepPlotCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// True when @p args is a sweep that asks for a plot, or plot-sweep (main() then makes the
/// QApplication first).
bool sweepPlotWanted(const std::vector<std::string>& args);

} // namespace schedlab::ui
