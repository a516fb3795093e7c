// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/export/capture.h"

#include "cli/output.h"
#include "core/base/args.h"
#include "core/base/atomicfile.h"
#include "core/base/text.h"
#include "core/kernel/features.h"
#include "core/kernel/variant.h"
#include "core/record/recording.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/common/format.h"
#include "ui/timeline/qcp.h"
#include "ui/timeline/timelineplot.h"
#include "ui/timeline/timelineview.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QImageWriter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <ostream>

namespace schedlab::ui {

std::optional<CaptureFormat> captureFormatFor(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return CaptureFormat::Png;
    if (suffix == QLatin1String("svg"))
        return CaptureFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return CaptureFormat::Pdf;
    return std::nullopt;
}

void CaptureOptions::fromSimulation(const Simulation& sim, const std::vector<Action>& actions)
{
    lagClampRules = clampRules(choiceEpochs(sim.startProfileName(), sim.startChoices(), actions));
    baseSlice = sim.baseSlice();
    hz = sim.hz();
}

QString runLabel(const Simulation& sim, const std::vector<Action>& actions, Nanoseconds until)
{
    const auto name = [](Feature f) {
        return QString::fromUtf8(
            featureName(f).data(), static_cast<qsizetype>(featureName(f).size()));
    };
    const auto featureText = [&](Feature f, bool on) {
        QString text = name(f);
        if (!on)
            text.prepend(QStringLiteral("NO_"));
        return text;
    };
    QStringList parts{QString::fromStdString(sim.startProfileName())};
    if (const KernelProfile* profile = findProfile(sim.startProfileName())) {
        const FeatureSet start = sim.startFeatures();
        for (size_t f = 0; f < kFeatureCount; ++f) {
            const auto feature = static_cast<Feature>(f);
            if (start.has(feature) != profile->features.has(feature))
                parts << featureText(feature, start.has(feature));
        }
        for (const std::string& choice : choiceNames()) {
            const std::string value = choiceValue(sim.startChoices(), choice);
            if (value != choiceValue(profile->choices, choice))
                parts << QString::fromStdString(choice + "=" + value);
        }
    }
    // The changes up to `until`, each with its time, in time order (equal times: file order).
    std::vector<std::pair<Nanoseconds, QString>> changes;
    for (const ChoiceEpoch& e : choiceEpochs(sim.startProfileName(), sim.startChoices(), actions))
        for (const std::string& c : e.changes)
            changes.emplace_back(e.at, QString::fromStdString(c));
    std::vector<const Action*> featureActions;
    for (const Action& a : actions)
        if (a.kind == Action::Kind::Feature)
            featureActions.push_back(&a);
    std::stable_sort(featureActions.begin(), featureActions.end(),
        [](const Action* a, const Action* b) { return a->at < b->at; });
    FeatureSet features = sim.startFeatures();
    for (const Action* a : featureActions) {
        for (const auto& [featureName, on] : a->features) {
            const auto f = featureFromName(featureName);
            if (!f || features.has(*f) == on)
                continue;
            features.set(*f, on);
            changes.emplace_back(a->at, featureText(*f, on));
        }
    }
    std::stable_sort(changes.begin(), changes.end(),
        [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, text] : changes)
        if (at <= until)
            parts << QStringLiteral("%1 from %2")
                         .arg(text, QString::fromStdString(formatDurationHuman(at)));
    return parts.join(QStringLiteral(", "));
}

QString captureTitle(const Simulation& sim, const std::string& scenarioName, Nanoseconds from,
    Nanoseconds to, const std::vector<Action>& actions)
{
    return QStringLiteral("%1 — %2, %3 to %4")
        .arg(QString::fromStdString(scenarioName), runLabel(sim, actions, to),
            QString::fromStdString(formatDurationHuman(from)),
            QString::fromStdString(formatDurationHuman(to)));
}

bool savePlot(QCustomPlot* plot, const QString& path, QSize size, int dpi, const QString& title,
    const QString& description, QString* error)
{
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const auto format = captureFormatFor(path);
    if (!format)
        return fail(QStringLiteral("%1: the file name must end in .png, .svg or .pdf").arg(path));
    const double scale = dpi / 96.0;
    // Atomic: the whole file is drawn first, then committed over @p path in one rename (a device
    // or FIFO is written in place; a symbolic link out of its folder is refused: AtomicFile). A
    // missing or read-only folder fails here, before rendering; any failure leaves an old file.
    const std::string fsPath = QFile::encodeName(path).toStdString();
    AtomicFile file(fsPath);
    auto why = [&](const std::string& e) { // AtomicFile's "PATH: why" without the path
        return QString::fromLocal8Bit(
            e.starts_with(fsPath + ": ") ? e.substr(fsPath.size() + 2) : e);
    };
    if (!file.error().empty())
        return fail(QStringLiteral("%1: cannot write: %2").arg(path, why(file.error())));
    // Drawn in memory first (a PDF must end complete): image writers do not report a short
    // write, so nothing half-written may reach @p path.
    QByteArray bytes;
    bool ok = false;
    // A vector device has no pixels: the timeline decimates as for a PNG at the same dpi.
    auto* timeline = dynamic_cast<TimelinePlot*>(plot);
    const auto drawVector = [&](QPaintDevice* device) {
        if (timeline)
            timeline->setVectorScale(scale);
        QCPPainter painter;
        bool drawn = false;
        if (painter.begin(device)) {
            painter.setMode(QCPPainter::pmVectorized);
            plot->toPainter(&painter, size.width(), size.height());
            drawn = painter.end();
        }
        if (timeline)
            timeline->setVectorScale(0);
        return drawn;
    };
    switch (*format) {
    case CaptureFormat::Png: {
        // The timeline as its window draws it (the same pixels at 96 dpi); other plots as
        // QCustomPlot::savePng(), into memory.
        QImage image = timeline ? timeline->renderImage(size, scale)
                                : plot->toPixmap(size.width(), size.height(), scale).toImage();
        const int dotsPerMeter = static_cast<int>(dpi / 0.0254);
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        QBuffer buffer(&bytes);
        ok = buffer.open(QIODevice::WriteOnly) && QImageWriter(&buffer, "png").write(image);
        break;
    }
    case CaptureFormat::Pdf: {
        // A page of size / 96 inches (size · 0.75 pt), the PNG's physical size, laid out at 96
        // dpi like the PNG (fonts included); the series are decimated for dpi / 96 columns per
        // layout pixel, as in the PNG.
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter pdf(&buffer);
        pdf.setResolution(96);
        pdf.setCreator(QStringLiteral("schedlab"));
        pdf.setTitle(title);
        pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(size.width() * 0.75, size.height() * 0.75),
                                          QPageSize::Point, QString(), QPageSize::ExactMatch),
            QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        ok = drawVector(&pdf);
        buffer.close();
        ok = ok && bytes.trimmed().endsWith("%%EOF");
        break;
    }
    case CaptureFormat::Svg: {
        // width and height in mm: size / 96 inches, the PNG's physical size; user units are
        // layout pixels at 96 dpi, so fonts scale as in the PNG.
        QBuffer buffer(&bytes);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(96);
        svg.setTitle(title);
        svg.setDescription(description);
        ok = drawVector(&svg) && !bytes.isEmpty();
        break;
    }
    }
    if (!ok)
        return fail(QStringLiteral("%1: cannot draw the capture").arg(path));
    file.stream().write(bytes.constData(), bytes.size());
    if (const std::string e = file.commit(); !e.empty())
        return fail(QString::fromLocal8Bit(e)); // "PATH: what: why"
    return true;
}

void setUpCaptureView(
    TimelineView& view, const Recording& recording, Nanoseconds now, const CaptureOptions& o)
{
    view.setRecording(&recording, std::max(now, o.to));
    view.setNow(now);
    view.setAnnotations(o.annotations);
    view.setHintsVisible(false); // a picture has no one to give hints to
    if (o.cgroups)
        view.setTaskCgroups(o.cgroups, o.moves);
    if (!o.lagClampRules.empty())
        view.setLagClampRules(o.lagClampRules, o.baseSlice, o.hz);
    if (!o.tasks.isEmpty() || !o.groupEntities.empty())
        view.setSelection(o.tasks, o.groupEntities);
    view.setViewRange(o.from, o.to);
    QCustomPlot* plot = view.plot();
    // The last pane gets a time axis title too (the GUI titles only the one under the lanes).
    view.setTimeLabelOnLastPane(true);
    // A long title (a run with mid-run changes) is wrapped after a comma to fit the panes'
    // width: a line wider than the figure would push the legends out of it.
    const QFont titleFont(view.font().family(), 12, QFont::Bold);
    QString text = o.title.isEmpty() ? QStringLiteral(" ") : o.title;
    {
        const QFontMetrics metrics(titleFont);
        const int room = o.size.width() * 3 / 4;
        QStringList lines;
        QString line;
        for (const QString& part : text.split(QStringLiteral(", "))) {
            const QString joined = line.isEmpty() ? part : line + QStringLiteral(", ") + part;
            if (!line.isEmpty() && metrics.horizontalAdvance(joined) > room) {
                lines << line + QLatin1Char(',');
                line = part;
            } else {
                line = joined;
            }
        }
        lines << line;
        text = lines.join(QLatin1Char('\n'));
    }
    auto* title = new QCPTextElement(plot, text, titleFont);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, title);
    // The title row takes its minimum height; the panes keep the view's proportions.
    QList<double> stretch = plot->plotLayout()->rowStretchFactors();
    stretch[0] = 0.01;
    plot->plotLayout()->setRowStretchFactors(stretch);
    plot->replot();
}

bool captureRecording(const Recording& recording, Nanoseconds now, const QString& path,
    const CaptureOptions& o, QString* error)
{
    auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };
    const auto format = captureFormatFor(path);
    if (!format)
        return fail(QStringLiteral("%1: the file name must end in .png, .svg or .pdf").arg(path));
    if (o.to <= o.from)
        return fail(QStringLiteral("empty time window: --to must be after --from"));
    if (o.size.width() < 100 || o.size.height() < 100 || o.size.width() > 20000
        || o.size.height() > 20000)
        return fail(QStringLiteral("size %1x%2 is out of range (100…20000 pixels)")
                        .arg(o.size.width())
                        .arg(o.size.height()));
    if (o.dpi < 24 || o.dpi > 1200)
        return fail(QStringLiteral("dpi %1 is out of range (24…1200)").arg(o.dpi));
    const double scale = o.dpi / 96.0;
    const int w = qRound(o.size.width() * scale);
    const int h = qRound(o.size.height() * scale);
    if (*format == CaptureFormat::Png && (w > 40000 || h > 40000))
        return fail(QStringLiteral("%1x%2 at %3 dpi is a %4x%5 image, too large (40000 pixels "
                                   "a side at most)")
                        .arg(o.size.width())
                        .arg(o.size.height())
                        .arg(o.dpi)
                        .arg(w)
                        .arg(h));
    // The GUI's plotting code on an offscreen widget.
    TimelineView view;
    setUpCaptureView(view, recording, now, o);
    return savePlot(view.plot(), path, o.size, o.dpi, o.title,
        QStringLiteral("schedlab timeline capture"), error);
}

bool applyScenarioEdits(Scenario& scenario, const std::vector<std::string>& sets,
    const std::vector<std::string>& weights, std::string* error)
{
    for (const std::string& edit : sets) {
        const size_t dot = edit.rfind(".nice=");
        bool ok = false;
        const int nice =
            dot == std::string::npos ? 0 : QString::fromStdString(edit.substr(dot + 6)).toInt(&ok);
        const auto task = dot == std::string::npos
            ? scenario.tasks.end()
            : std::find_if(scenario.tasks.begin(), scenario.tasks.end(),
                [&](const TaskSpec& t) { return t.name == edit.substr(0, dot); });
        if (!ok || nice < -20 || nice > 19 || task == scenario.tasks.end()) {
            *error = "--set expects TASK.nice=N with a task of the scenario (its name as in the "
                     "file) and N in -20…19, got \""
                + edit + "\"";
            return false;
        }
        task->nice = nice;
    }
    for (const std::string& edit : weights) {
        const size_t eq = edit.rfind('=');
        bool ok = false;
        const int weight =
            eq == std::string::npos ? 0 : QString::fromStdString(edit.substr(eq + 1)).toInt(&ok);
        const auto group = eq == std::string::npos
            ? scenario.cgroups.end()
            : std::find_if(scenario.cgroups.begin(), scenario.cgroups.end(),
                [&](const CgroupSpec& g) { return g.path == edit.substr(0, eq); });
        if (!ok || weight < 1 || weight > 10000 || group == scenario.cgroups.end()) {
            *error = "--weight expects CGROUP=W with a cgroup of the scenario and W in 1…10000, "
                     "got \""
                + edit + "\"";
            return false;
        }
        if (group->files.idle.value_or(false)) {
            // The weight would be written before cpu.idle 1, which sets it to 3
            // (sched_group_set_idle()).
            *error = "--weight " + edit + ": " + group->path
                + " has cpu.idle 1: an idle group weighs 3 (cpu.weight reads 1) whatever its "
                  "cpu.weight";
            return false;
        }
        group->files.weight = weight;
    }
    return true;
}

int runCaptureCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    constexpr int kBad = 2;
    constexpr int kStopped = 3;   // a resource guard stopped the run (docs/limits.md), as `run`
    constexpr int kInvariant = 4; // a checked build found a broken invariant, as `run`
    std::string file, outPath, entities, title;
    std::vector<std::string> sets, weights;
    std::optional<Nanoseconds> from, to;
    QSize size(1200, 700);
    int dpi = 96;
    RunOptions options;
    ArgReader ar(args, 1);
    while (ar.next()) {
        const std::string a = ar.name();
        auto value = [&](std::string& v) {
            if (!ar.value(v)) {
                err << "capture: " << ar.error() << "\n";
                return false;
            }
            return true;
        };
        std::string v, error;
        if (const int rc = parseRunOption(ar, options, &error); rc != 0) {
            // --profile, --feature, --override, --duration, --seed, --watchdog, --limit
            if (rc < 0) {
                err << "capture: " << error << "\n";
                return kBad;
            }
        } else if (ar.option("--from") || ar.option("--to")) {
            if (!value(v))
                return kBad;
            const auto d =
                v == "0" ? std::optional<Nanoseconds>(Nanoseconds(0)) : parseDuration(v, &error);
            if (!d) {
                err << "capture: " << a << ": " << error << "\n";
                return kBad;
            }
            (ar.option("--from") ? from : to) = *d;
        } else if (ar.option("--out")) {
            if (!value(outPath))
                return kBad;
        } else if (ar.option("--entities")) {
            if (!value(entities))
                return kBad;
        } else if (ar.option("--title")) {
            if (!value(title))
                return kBad;
        } else if (ar.option("--size")) {
            if (!value(v))
                return kBad;
            const QStringList wh = QString::fromStdString(v).split(QLatin1Char('x'));
            bool okW = false, okH = false;
            if (wh.size() == 2)
                size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
            if (!okW || !okH) {
                err << "capture: --size expects WxH, e.g. 1600x900, got \"" << v << "\"\n";
                return kBad;
            }
        } else if (ar.option("--set") || ar.option("--weight")) {
            // --set TASK.nice=N, --weight CGROUP=W: the scenario as edited at t = 0.
            if (!value(v))
                return kBad;
            (ar.option("--set") ? sets : weights).push_back(v);
        } else if (ar.option("--dpi")) {
            if (!value(v))
                return kBad;
            bool ok = false;
            dpi = QString::fromStdString(v).toInt(&ok);
            if (!ok) {
                err << "capture: --dpi expects a number, got \"" << v << "\"\n";
                return kBad;
            }
        } else if (ar.isOption()) {
            err << "capture: unknown option " << ar.word() << " (see --help)\n";
            return kBad;
        } else if (file.empty()) {
            file = ar.word();
        } else {
            err << "capture: unexpected argument \"" << ar.word() << "\"\n";
            return kBad;
        }
    }
    if (file.empty() || outPath.empty() || !from || !to) {
        err << "capture: usage: schedlab-cli capture FILE --from T --to T --out x.png|svg|pdf "
               "[--entities A,B] [--size WxH] [--dpi N] [--title TEXT] [--set TASK.nice=N] "
               "[--weight CGROUP=W] [--profile NAME] [--feature "
               "F] "
               "[--override C=V] [--duration D] [--seed N] [--watchdog D] [--limit NAME=N]\n";
        return kBad;
    }
    // Before the run: no output over the scenario, a link out of its folder, a missing folder.
    if (std::string why; !checkOutputs({{"--out", outPath}}, {file}, &why)) {
        err << "capture: " << why << "\n";
        return kBad;
    }
    LoadResult loaded = loadScenarioFile(file);
    for (const auto& e : loaded.errors)
        err << e << "\n";
    if (!loaded.ok())
        return kBad;
    Scenario scenario = *loaded.scenario;
    if (std::string why; !applyScenarioEdits(scenario, sets, weights, &why)) {
        err << "capture: " << why << "\n";
        return kBad;
    }
    options.recordPelt = true;     // the PELT pane, as in the window
    options.recordMaxSlice = true; // the lag band, as in the window
    try {
        Simulation sim(scenario, options);
        sim.runUntil(*to); // deterministic: the same as the prefix of a full run
        const Recording& rec = sim.recording();
        CaptureOptions o;
        o.from = *from;
        o.to = std::min(*to, sim.endTime());
        o.size = size;
        o.dpi = dpi;
        o.title = title.empty() ? captureTitle(sim, scenario.name, o.from, o.to, scenario.actions)
                                : QString::fromStdString(title);
        if (title.empty() && !(sets.empty() && weights.empty())) {
            // The edits the picture shows, in the default title.
            QStringList edits;
            for (const std::string& e : sets)
                edits << QString::fromStdString(e);
            for (const std::string& e : weights)
                edits << QStringLiteral("%1 cpu.weight=%2")
                             .arg(QString::fromStdString(e.substr(0, e.rfind('='))),
                                 QString::fromStdString(e.substr(e.rfind('=') + 1)));
            o.title += QStringLiteral(" (") + edits.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
        o.fromSimulation(sim, scenario.actions);
        o.cgroups = taskCgroups(scenario);
        o.moves = taskMoves(scenario);
        for (const Annotation& an : scenario.annotations)
            o.annotations.append({an.at, QString::fromStdString(an.text)});
        if (!entities.empty()) {
            for (const QString& name : QString::fromStdString(entities).split(QLatin1Char(','))) {
                // A group entity "/A@1": its PELT averages in the PELT pane.
                if (const std::string n = name.trimmed().toStdString(); !n.empty() && n[0] == '/') {
                    const auto at = n.rfind('@');
                    const auto g = at == std::string::npos
                        ? rec.groupPaths.end()
                        : std::find(rec.groupPaths.begin(), rec.groupPaths.end(), n.substr(0, at));
                    bool ok = false;
                    const int cpu = at == std::string::npos
                        ? -1
                        : QString::fromStdString(n.substr(at + 1)).toInt(&ok);
                    if (g == rec.groupPaths.end() || !ok || cpu < 0 || cpu >= rec.cpus) {
                        err << "capture: --entities: no group entity \"" << n
                            << "\" in the run (expected /CGROUP@CPU, CPU 0-" << rec.cpus - 1
                            << ")\n";
                        return kBad;
                    }
                    o.groupEntities.push_back(
                        EntityRef::group(static_cast<int32_t>(g - rec.groupPaths.begin()), cpu)
                            .raw);
                    continue;
                }
                const auto it = std::find(
                    rec.taskNames.begin(), rec.taskNames.end(), name.trimmed().toStdString());
                if (it == rec.taskNames.end()) {
                    err << "capture: --entities: no task \"" << name.toStdString()
                        << "\" in the run (tasks:";
                    for (const auto& n : rec.taskNames)
                        err << " " << n;
                    err << ")\n";
                    return kBad;
                }
                o.tasks << static_cast<int>(it - rec.taskNames.begin());
            }
        }
        QString error;
        if (!captureRecording(rec, sim.now(), QString::fromStdString(outPath), o, &error)) {
            err << "capture: " << error.toStdString() << "\n";
            return kBad;
        }
        out << outPath << ": " << qRound(size.width() * dpi / 96.0) << "x"
            << qRound(size.height() * dpi / 96.0) << " pixels at " << dpi << " dpi, "
            << formatDurationHuman(o.from) << " to " << formatDurationHuman(o.to) << "\n";
        // As `run`: what happened up to a guard's stop is drawn, the reason goes to stderr and
        // the exit code says the run did not reach --to.
        for (const auto& v : sim.invariantViolations())
            err << "invariant violated: " << printable(v) << "\n";
        if (!sim.stopReason().empty()) {
            err << "run " << printable(sim.stopReason()) << "\n";
            return kStopped;
        }
        if (!sim.invariantViolations().empty())
            return kInvariant;
    } catch (const std::invalid_argument& e) {
        err << file << ": " << e.what() << "\n";
        return kBad;
    }
    return 0;
}

} // namespace schedlab::ui
