// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/export/sweepplot.h"

#include "cli/cli.h"
#include "cli/output.h"
#include "core/base/args.h"
#include "core/base/csv.h"
#include "core/base/time.h"
#include "core/kernel/runoptions.h"
#include "core/kernel/variant.h"
#include "ui/common/taskpalette.h"
#include "ui/export/capture.h"
#include "ui/timeline/qcp.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

namespace schedlab::ui {

namespace {

std::optional<double> number(const std::string& text)
{
    if (text.empty())
        return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (errno == ERANGE || *end != '\0' || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// Where x values sit on the axis: numbers as they are, durations in milliseconds, anything else
// (profile names) at 1, 2, 3, … in CSV order.
struct XAxis
{
    enum class Kind { Number, Duration, Category } kind = Kind::Category;
    std::map<std::string, double> pos;
};

XAxis xAxisFor(const std::vector<std::string>& values)
{
    XAxis a;
    bool numbers = true, durations = true;
    for (const auto& v : values) {
        numbers = numbers && number(v).has_value();
        durations = durations && parseDuration(v).has_value();
    }
    a.kind = numbers ? XAxis::Kind::Number
        : durations  ? XAxis::Kind::Duration
                     : XAxis::Kind::Category;
    for (size_t i = 0; i < values.size(); ++i) {
        const std::string& v = values[i];
        a.pos[v] = a.kind == XAxis::Kind::Number ? *number(v)
            : a.kind == XAxis::Kind::Duration ? static_cast<double>(parseDuration(v)->count()) / 1e6
                                              : static_cast<double>(i + 1);
    }
    return a;
}

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string cell(double v, bool percent)
{
    char buf[48];
    if (percent)
        std::snprintf(buf, sizeof buf, "%.2f%%", v * 100.0);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

} // namespace

bool sweepSeries(const CsvTable& table, const SweepPlotOptions& o, std::vector<SweepSeries>& series,
    std::string* error)
{
    series.clear();
    auto column = [&](const std::string& name, const char* what) -> int {
        const auto it = std::find(table.header.begin(), table.header.end(), name);
        if (it == table.header.end()) {
            std::string params;
            // Parameter columns sit between "runs" and "seed" (sweep.cpp's header()).
            for (size_t c = 2; c < table.header.size() && table.header[c] != "seed"; ++c)
                params += (params.empty() ? "" : ", ") + table.header[c];
            *error = std::string(what) + " \"" + name + "\" is not a column of the CSV"
                + (std::string(what) == "--plot" ? " (e.g. task:NAME:share, cgroup:PATH:cpu_ns)"
                                                 : " (parameters: " + params + ")");
            return -1;
        }
        return static_cast<int>(it - table.header.begin());
    };
    const int m = column(o.metric, "--plot");
    const int x = m < 0 ? -1 : column(o.x, "--x");
    const int s = x < 0 || o.series.empty() ? -1 : column(o.series, "--series");
    if (m < 0 || x < 0 || (!o.series.empty() && s < 0))
        return false;
    std::map<std::string, size_t> seriesIndex;
    std::map<std::pair<size_t, std::string>, size_t> pointIndex;
    for (const auto& row : table.rows) {
        const std::string& cellText = row[static_cast<size_t>(m)];
        if (cellText.empty())
            continue; // the task did not exist in this run
        const auto v = number(cellText);
        if (!v) {
            *error = "--plot " + o.metric + ": \"" + cellText + "\" is not a number";
            return false;
        }
        const std::string name = s < 0 ? o.metric : row[static_cast<size_t>(s)];
        const auto [si, newSeries] = seriesIndex.emplace(name, series.size());
        if (newSeries)
            series.push_back({name, {}});
        SweepSeries& ser = series[si->second];
        const std::string& xv = row[static_cast<size_t>(x)];
        const auto [pi, newPoint] =
            pointIndex.emplace(std::make_pair(si->second, xv), ser.points.size());
        if (newPoint)
            ser.points.push_back({xv, 0, *v, *v, 0});
        SweepPoint& p = ser.points[pi->second];
        p.mean += *v; // the sum until the end
        p.min = std::min(p.min, *v);
        p.max = std::max(p.max, *v);
        ++p.n;
    }
    if (series.empty()) {
        *error = "--plot " + o.metric + ": no row has a value";
        return false;
    }
    for (auto& ser : series)
        for (auto& p : ser.points)
            p.mean /= p.n;
    return true;
}

bool buildSweepPlot(
    QCustomPlot& plot, const CsvTable& table, const SweepPlotOptions& o, QString* error)
{
    std::vector<SweepSeries> series;
    std::string why;
    if (!sweepSeries(table, o, series, &why)) {
        *error = QString::fromStdString(why);
        return false;
    }
    if (o.size.width() < 100 || o.size.height() < 100 || o.size.width() > 20000
        || o.size.height() > 20000 || o.dpi < 24 || o.dpi > 1200) {
        *error = QStringLiteral("size or dpi out of range (100…20000 pixels, 24…1200 dpi)");
        return false;
    }
    std::vector<std::string> xs; // every x value, in CSV order
    for (const auto& ser : series)
        for (const auto& p : ser.points)
            if (std::find(xs.begin(), xs.end(), p.x) == xs.end())
                xs.push_back(p.x);
    const XAxis axis = xAxisFor(xs);
    const bool percent = endsWith(o.metric, ":share");
    const double scale = percent ? 100.0 : 1.0;

    plot.resize(o.size);
    plot.setAntialiasedElements(QCP::aeAll);
    QCPAxis* xAxis = plot.xAxis;
    QCPAxis* yAxis = plot.yAxis;
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const auto& [text, pos] : axis.pos) {
        lo = std::min(lo, pos);
        hi = std::max(hi, pos);
    }
    const bool logX = axis.kind != XAxis::Kind::Category && lo > 0 && hi / lo >= 10;
    if (logX)
        xAxis->setScaleType(QCPAxis::stLogarithmic);
    // Ticks at the swept values, labelled as written on the command line.
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (const auto& [text, pos] : axis.pos)
        ticker->addTick(pos, QString::fromStdString(text));
    xAxis->setTicker(ticker);
    xAxis->setLabel(
        QString::fromStdString(o.x) + (logX ? QStringLiteral(" (log scale)") : QString()));
    yAxis->setLabel(
        QString::fromStdString(o.metric) + (percent ? QStringLiteral(" (%)") : QString()));
    double ylo = std::numeric_limits<double>::max(), yhi = std::numeric_limits<double>::lowest();
    for (size_t i = 0; i < series.size(); ++i) {
        const SweepSeries& ser = series[i];
        QVector<double> px, py, lowErr, highErr;
        std::vector<const SweepPoint*> sorted;
        for (const auto& p : ser.points)
            sorted.push_back(&p);
        std::stable_sort(
            sorted.begin(), sorted.end(), [&](const SweepPoint* a, const SweepPoint* b) {
                return axis.pos.at(a->x) < axis.pos.at(b->x);
            });
        for (const SweepPoint* p : sorted) {
            px << axis.pos.at(p->x);
            py << p->mean * scale;
            lowErr << (p->mean - p->min) * scale;
            highErr << (p->max - p->mean) * scale;
            ylo = std::min(ylo, p->min * scale);
            yhi = std::max(yhi, p->max * scale);
        }
        QCPGraph* g = plot.addGraph(xAxis, yAxis);
        const QColor color = taskColor(static_cast<int>(i));
        // Line style and marker differ too, so that equal series (two profiles that behave
        // alike) stay visible on top of each other.
        static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};
        static const QCPScatterStyle::ScatterShape shapes[] = {QCPScatterStyle::ssCircle,
            QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond};
        g->setPen(QPen(color, 2, styles[i % 3]));
        g->setScatterStyle(QCPScatterStyle(shapes[i % 4], color, color, 8));
        g->setName(o.series.empty() ? QString::fromStdString(ser.name)
                                    : QString::fromStdString(o.series + " " + ser.name));
        g->setData(px, py, true);
        auto* bars = new QCPErrorBars(xAxis, yAxis);
        bars->removeFromLegend();
        bars->setDataPlottable(g);
        bars->setData(lowErr, highErr);
        bars->setPen(QPen(color, 1.2));
    }
    const double span = logX ? 0 : (hi - lo);
    const double pad = span > 0 ? span * 0.06 : 0.5;
    if (logX)
        xAxis->setRange(lo / 1.25, hi * 1.25);
    else
        xAxis->setRange(lo - pad, hi + pad);
    const double yspan = yhi - ylo;
    const double ypad = yspan > 0 ? yspan * 0.04 : 1.0; // a series at 0 stays off the axis
    yAxis->setRange(std::min(0.0, ylo) - ypad, yhi + 2 * ypad);
    // The legend in a row of its own under the axes: inside them it could hide a series' point
    // (a curve's highest values sit where a corner legend goes).
    plot.legend->setVisible(true);
    plot.axisRect()->insetLayout()->take(plot.legend);
    plot.plotLayout()->addElement(1, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(1, 0.001);
    plot.legend->setWrap(2); // two entries a row
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot.legend->setMargins(QMargins(6, 4, 6, 4));
    int fewestRuns = std::numeric_limits<int>::max(), mostRuns = 0;
    for (const auto& ser : series)
        for (const auto& p : ser.points) {
            fewestRuns = std::min(fewestRuns, p.n);
            mostRuns = std::max(mostRuns, p.n);
        }
    // Points of different series may average different numbers of runs: say so.
    const QString runsPerPoint = fewestRuns == mostRuns
        ? QString::number(mostRuns)
        : QStringLiteral("%1–%2").arg(fewestRuns).arg(mostRuns);
    const QString title = o.title.isEmpty()
        ? QStringLiteral("%1 against %2")
              .arg(QString::fromStdString(o.metric), QString::fromStdString(o.x))
        : o.title;
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0,
        new QCPTextElement(&plot,
            title
                + QStringLiteral("\nmean of %1 runs per point, bars: min to max").arg(runsPerPoint),
            QFont(plot.font().family(), 11, QFont::Bold)));
    plot.replot();
    return true;
}

bool plotSweep(
    const CsvTable& table, const QString& path, const SweepPlotOptions& o, QString* error)
{
    QCustomPlot plot;
    if (!buildSweepPlot(plot, table, o, error))
        return false;
    const QString title = o.title.isEmpty()
        ? QStringLiteral("%1 against %2")
              .arg(QString::fromStdString(o.metric), QString::fromStdString(o.x))
        : o.title;
    return savePlot(
        &plot, path, o.size, o.dpi, title, QStringLiteral("schedlab sweep plot"), error);
}

namespace {

/// The scenario FILE of a sweep's arguments (as runSweepCli reads them), or "".
std::string sweepScenario(const std::vector<std::string>& args)
{
    RunOptions ignored;
    ArgReader ar(args, 1);
    while (ar.next()) {
        std::string error, v;
        if (parseRunOption(ar, ignored, &error) != 0)
            continue; // --profile NAME, --seed N, … (its value taken)
        if (ar.option("--param") || ar.option("--out") || ar.option("--seeds")
            || ar.option("--jobs") || ar.option("--shard"))
            ar.value(v);
        else if (!ar.isOption())
            return ar.word();
    }
    return {};
}

} // namespace

bool sweepPlotWanted(const std::vector<std::string>& args)
{
    if (args.empty())
        return false;
    if (args.front() == "plot-sweep")
        return true;
    if (args.front() != "sweep")
        return false;
    ArgReader ar(args, 1);
    while (ar.next())
        if (ar.option("--plot"))
            return true;
    return false;
}

int runSweepPlotCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    constexpr int kBad = 2;
    const bool plotOnly = !args.empty() && args.front() == "plot-sweep";
    const std::string cmd = plotOnly ? "plot-sweep" : "sweep";
    SweepPlotOptions o;
    std::string plotOut, csvIn, csvOut;
    std::vector<std::string> rest; // the sweep's own arguments
    if (!args.empty())
        rest.push_back(args.front());
    ArgReader ar(args, 1);
    bool endSeen = false;
    while (ar.next()) {
        if (ar.endOfOptions() && !endSeen) {
            rest.push_back("--"); // the sweep's words after it stay positional
            endSeen = true;
        }
        const bool plotOption = ar.option("--plot") || ar.option("--x") || ar.option("--series")
            || ar.option("--plot-out") || ar.option("--size") || ar.option("--dpi")
            || ar.option("--title") || (plotOnly && ar.option("--out"));
        if (!plotOption) {
            if (plotOnly) {
                if (!csvIn.empty() || (!endSeen && ar.word().starts_with("-"))) {
                    err << "plot-sweep: unexpected argument \"" << ar.word() << "\"\n";
                    return kBad;
                }
                csvIn = ar.word();
            }
            rest.push_back(ar.word());
            if (ar.option("--out") && ar.hasValue()) { // the sweep's CSV, handed on as well
                ar.value(csvOut);
                if (ar.word() == "--out")
                    rest.push_back(csvOut);
            }
            continue;
        }
        const std::string a = ar.name();
        std::string v;
        if (!ar.value(v)) {
            err << cmd << ": " << ar.error() << "\n";
            return kBad;
        }
        if (a == "--plot")
            o.metric = v;
        else if (a == "--x")
            o.x = v;
        else if (a == "--series")
            o.series = v;
        else if (a == "--plot-out" || a == "--out")
            plotOut = v;
        else if (a == "--title")
            o.title = QString::fromStdString(v);
        else if (a == "--dpi") {
            bool ok = false;
            o.dpi = QString::fromStdString(v).toInt(&ok);
            if (!ok) {
                err << cmd << ": --dpi expects a number, got \"" << v << "\"\n";
                return kBad;
            }
        } else {
            const QStringList wh = QString::fromStdString(v).split(QLatin1Char('x'));
            bool okW = false, okH = false;
            if (wh.size() == 2)
                o.size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
            if (!okW || !okH) {
                err << cmd << ": --size expects WxH, e.g. 900x560, got \"" << v << "\"\n";
                return kBad;
            }
        }
    }
    if (o.metric.empty() || o.x.empty() || plotOut.empty() || (plotOnly && csvIn.empty())) {
        err << cmd << ": usage: schedlab-cli "
            << (plotOnly ? "plot-sweep results.csv" : "sweep … --out results.csv")
            << " --plot METRIC --x KEY [--series KEY] " << (plotOnly ? "--out" : "--plot-out")
            << " plot.png|svg|pdf [--size WxH] [--dpi N] [--title TEXT]\n";
        return kBad;
    }
    if (!captureFormatFor(QString::fromStdString(plotOut))) {
        err << cmd << ": " << plotOut << ": the file name must end in .png, .svg or .pdf\n";
        return kBad;
    }
    // Before the sweep: the plot over none of its inputs or the CSV (nor a link out of its folder).
    if (std::string why; !checkOutputs({{plotOnly ? "--out" : "--plot-out", plotOut},
                                           {"--out", plotOnly ? std::string() : csvOut}},
            {plotOnly ? csvIn : sweepScenario(rest)}, &why)) {
        err << cmd << ": " << why << "\n";
        return kBad;
    }
    int rc = 0;
    if (!plotOnly) {
        if (csvOut.empty() || csvOut == "-") {
            err << "sweep: --plot needs the CSV in a file (--out results.csv)\n";
            return kBad;
        }
        rc = runCli(rest, out, err);
        if (rc == kBad || rc == 1)
            return rc; // no CSV (3 and 4: some runs stopped, the CSV is written)
        csvIn = csvOut;
    }
    std::ifstream in(csvIn, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    CsvTable table;
    std::string why;
    if (!in || !parseCsv(text.str(), table, &why)) {
        err << cmd << ": " << csvIn << ": " << (why.empty() ? std::string("cannot read") : why)
            << "\n";
        return kBad;
    }
    QString error;
    if (!plotSweep(table, QString::fromStdString(plotOut), o, &error)) {
        err << cmd << ": " << error.toStdString() << "\n";
        return kBad;
    }
    // The plotted table: a row per series, a column per x value (mean over the runs).
    std::vector<SweepSeries> series;
    sweepSeries(table, o, series, &why);
    const bool percent = endsWith(o.metric, ":share");
    std::vector<std::string> xs;
    for (const auto& ser : series)
        for (const auto& p : ser.points)
            if (std::find(xs.begin(), xs.end(), p.x) == xs.end())
                xs.push_back(p.x);
    out << o.metric << " (mean) by " << (o.series.empty() ? std::string("-") : o.series) << " and "
        << o.x << "\n";
    size_t w0 = 12;
    for (const auto& ser : series)
        w0 = std::max(w0, ser.name.size() + 2);
    out << std::left << std::setw(static_cast<int>(w0)) << (o.series.empty() ? "" : o.series);
    for (const auto& x : xs)
        out << std::right << std::setw(12) << x;
    out << "\n";
    for (const auto& ser : series) {
        out << std::left << std::setw(static_cast<int>(w0)) << ser.name;
        for (const auto& x : xs) {
            const auto p = std::find_if(ser.points.begin(), ser.points.end(),
                [&](const SweepPoint& sp) { return sp.x == x; });
            out << std::right << std::setw(12)
                << (p == ser.points.end() ? "-" : cell(p->mean, percent));
        }
        out << "\n";
    }
    out << plotOut << ": " << o.size.width() * o.dpi / 96 << "x" << o.size.height() * o.dpi / 96
        << " pixels\n";
    return rc;
}

} // namespace schedlab::ui
