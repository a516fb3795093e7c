// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/base/atomicfile.h"
#include "core/base/time.h"
#include "core/kernel/runoptions.h"
#include "core/kernel/variant.h"
#include "core/sim/scenariospec.h"
#include "ui/analysis/inspectordock.h"
#include "ui/common/headless.h"
#include "ui/common/savefile.h"
#include "ui/common/taskpalette.h"
#include "ui/export/capture.h"
#include "ui/lessons/lessonspanel.h"
#include "ui/machine/featurespanel.h"
#include "ui/machine/machinetreemodel.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/mainwindow.h"

#include <QApplication>
#include <QBuffer>
#include <QCheckBox>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QImageWriter>
#include <QItemSelectionModel>
#include <QMimeData>
#include <QPalette>
#include <QPixmap>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

namespace {

constexpr int kExitBadInput = 2; // as schedlab-cli: bad input or an output that cannot be written
constexpr int kExitStopped = 3;  // as schedlab-cli: a resource guard stopped the run early

void complain(const QString& message)
{
    std::fprintf(stderr, "schedlab: %s\n", qPrintable(message));
}

/// Milliseconds as a number ("12.5"); nullopt (and a message naming @p option) otherwise.
std::optional<schedlab::Nanoseconds> msArg(const QString& option, const QString& text)
{
    bool ok = false;
    const double ms = text.toDouble(&ok);
    if (!ok || !std::isfinite(ms) || ms < 0 || ms > 1e12) {
        complain(QStringLiteral("--%1: \"%2\" is not a time in milliseconds").arg(option, text));
        return std::nullopt;
    }
    return schedlab::Nanoseconds{std::llround(ms * 1e6)};
}

void waitForSeek(schedlab::ui::SimulationController* c)
{
    while (c->isSeeking())
        QApplication::processEvents(QEventLoop::AllEvents, 50);
}

/// --lesson NAME [--step N]: opens the lesson at step N (1-based) and waits until the window
/// shows that step (the run to its stop time is made in the controller's bounded slices).
bool openLesson(schedlab::ui::MainWindow& window, const QCommandLineParser& p)
{
    const QString name = p.value(QStringLiteral("lesson"));
    int step = 0;
    if (p.isSet(QStringLiteral("step"))) {
        bool ok = false;
        step = p.value(QStringLiteral("step")).toInt(&ok) - 1;
        if (!ok || step < 0) {
            complain(QStringLiteral("--step: expected a step number from 1 (got \"%1\")")
                         .arg(p.value(QStringLiteral("step"))));
            return false;
        }
    }
    schedlab::ui::LessonsPanel* panel = window.lessons();
    if (!panel->openLesson(name, step)) {
        complain(QStringLiteral("--lesson: %1").arg(panel->lastError()));
        return false;
    }
    if (step >= panel->stepCount()) {
        complain(
            QStringLiteral("--step: lesson \"%1\" has %2 steps").arg(name).arg(panel->stepCount()));
        return false;
    }
    while (panel->isBusy())
        QApplication::processEvents(QEventLoop::AllEvents, 50);
    if (!panel->lastError().isEmpty()) {
        complain(panel->lastError());
        return false;
    }
    return true;
}

/// --dpi's value: a whole number from 24 to 1200 (as schedlab-cli capture's).
std::optional<int> dpiArg(const QString& text)
{
    bool ok = false;
    const int dpi = text.toInt(&ok);
    if (!ok || dpi < 24 || dpi > 1200)
        return std::nullopt;
    return dpi;
}

/// --screenshot: drive the window without a user (for the pictures in docs/), grab it, exit.
/// Headless: never a dialog; every problem is a line on stderr and exit code 2.
int screenshot(schedlab::ui::MainWindow& window, const QCommandLineParser& p, const QString& file)
{
    using namespace schedlab;
    // The output first: a bad name, a missing or read-only folder fail before anything runs.
    const QString out = p.value(QStringLiteral("screenshot"));
    const QByteArray format = QFileInfo(out).suffix().toLower().toLatin1();
    if (format.isEmpty() || !QImageWriter::supportedImageFormats().contains(format)) {
        complain(
            QStringLiteral("%1: the picture's name must end in .png (or another image "
                           "format: %2)")
                .arg(out, QString::fromLatin1(QImageWriter::supportedImageFormats().join(' '))));
        return kExitBadInput;
    }
    // Whole or not at all, a device or FIFO written in place, a link out of its folder refused
    // (ui/common/savefile.h): a failure leaves any old picture as it was.
    const std::string picturePath = ui::filePathOf(out);
    AtomicFile picture(picturePath);
    if (!picture.error().empty()) {
        complain(QStringLiteral("%1: cannot write: %2")
                     .arg(out, ui::reasonOf(picturePath, picture.error())));
        return kExitBadInput;
    }
    QSize size(1500, 950);
    if (p.isSet(QStringLiteral("size"))) {
        const QStringList wh = p.value(QStringLiteral("size")).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        size = QSize(wh.value(0).toInt(&okW), wh.value(1).toInt(&okH));
        if (wh.size() != 2 || !okW || !okH || size.width() < 480 || size.height() < 320
            || size.width() > 10000 || size.height() > 10000) {
            complain(QStringLiteral("--size: expected WxH in pixels, 480x320 to 10000x10000, "
                                    "e.g. 1600x900, got \"%1\"")
                         .arg(p.value(QStringLiteral("size"))));
            return kExitBadInput;
        }
    }
    int dpi = 96;
    if (p.isSet(QStringLiteral("dpi"))) {
        const auto d = dpiArg(p.value(QStringLiteral("dpi")));
        if (!d) {
            complain(QStringLiteral("--dpi: expected a whole number from 24 to 1200, got \"%1\"")
                         .arg(p.value(QStringLiteral("dpi"))));
            return kExitBadInput;
        }
        dpi = *d;
    }
    const auto at = msArg(QStringLiteral("at"), p.value(QStringLiteral("at")));
    const auto editAt = msArg(QStringLiteral("edit-at"), p.value(QStringLiteral("edit-at")));
    if (!at || !editAt)
        return kExitBadInput;

    if (p.isSet(QStringLiteral("lesson"))) {
        // A lesson at a step (docs/lessons.md): the panel runs the window to the step.
        window.resize(p.isSet(QStringLiteral("size")) ? size : QSize(1280, 800));
        window.show();
        if (!openLesson(window, p))
            return kExitBadInput;
    } else {
        if (!window.openFile(file.isEmpty() ? QStringLiteral(":/default.json") : file))
            return kExitBadInput; // the loader's message (file, JSON path, expectation) is on
                                  // stderr
        // --profile, --override, --set, --weight: the scenario as edited at t = 0 (as
        // `schedlab-cli capture` does), reopened in the window.
        const QStringList sets = p.values(QStringLiteral("set"));
        const QStringList weights = p.values(QStringLiteral("weight"));
        const QStringList overrides = p.values(QStringLiteral("override"));
        if (p.isSet(QStringLiteral("profile")) || !overrides.isEmpty() || !sets.isEmpty()
            || !weights.isEmpty()) {
            Scenario edited = window.scenario();
            RunOptions check; // for the messages: each text as the CLI checks it
            std::string why;
            if (p.isSet(QStringLiteral("profile"))) {
                const std::string name = p.value(QStringLiteral("profile")).toStdString();
                if (!applyProfileName(name, check, &why)) {
                    complain(QStringLiteral("--profile: ") + QString::fromStdString(why));
                    return kExitBadInput;
                }
                edited.kernel.profile = name;
            }
            for (const QString& o : overrides) {
                const std::string spec = o.toStdString();
                if (!applyOverrideSpec(spec, check, &why)) {
                    complain(QStringLiteral("--override: ") + QString::fromStdString(why));
                    return kExitBadInput;
                }
                const size_t eq = spec.find('=');
                edited.kernel.overrides[spec.substr(0, eq)] = spec.substr(eq + 1);
            }
            std::vector<std::string> setList, weightList;
            for (const QString& e : sets)
                setList.push_back(e.toStdString());
            for (const QString& e : weights)
                weightList.push_back(e.toStdString());
            if (!ui::applyScenarioEdits(edited, setList, weightList, &why)) {
                complain(QString::fromStdString(why));
                return kExitBadInput;
            }
            if (!window.openScenario(edited, file.isEmpty() ? QStringLiteral("default") : file))
                return kExitBadInput;
        }
        window.resize(size);
        window.show();
    }
    auto* c = window.controller();
    auto* model = window.machineTreeModel();
    if (p.isSet(QStringLiteral("move"))) {
        // TASK:CGROUP, dropped at --edit-at through the tree model, as a drag would.
        const QStringList move = p.value(QStringLiteral("move")).split(QLatin1Char(':'));
        c->stepBy(*editAt);
        std::unique_ptr<QMimeData> data(model->mimeData({model->indexForTask(move.value(0))}));
        if (!data
            || !model->dropMimeData(
                data.get(), Qt::MoveAction, -1, 0, model->indexForCgroup(move.value(1)))) {
            complain(QStringLiteral("--move: cannot move %1 (TASK:CGROUP, both in the scenario)")
                         .arg(p.value(QStringLiteral("move"))));
            return kExitBadInput;
        }
        waitForSeek(c);
    }
    // --feature NAME / NO_NAME (repeatable): toggled at --edit-at in the features panel, as a
    // click would (recorded as a feature action of the session).
    for (const QString& f : p.values(QStringLiteral("feature"))) {
        const bool on = !f.startsWith(QLatin1String("NO_"));
        const QString name = on ? f : f.mid(3);
        QCheckBox* box = window.featuresPanel()->featureBox(name);
        if (!box) {
            complain(QStringLiteral("--feature: no sched feature \"%1\" (see schedlab-cli --help)")
                         .arg(name));
            return kExitBadInput;
        }
        if (c->now() < *editAt)
            c->stepBy(*editAt - c->now());
        waitForSeek(c);
        if (box->isChecked() != on)
            box->setChecked(on);
        waitForSeek(c);
    }
    if (!p.isSet(QStringLiteral("lesson")) && *at > c->now())
        c->stepBy(*at - c->now());
    if (p.isSet(QStringLiteral("select"))) {
        QItemSelectionModel* selection = window.machineTree()->selectionModel();
        for (const QString& name : p.value(QStringLiteral("select")).split(QLatin1Char(','))) {
            // A task, or a group entity "/A@1" (its PELT averages in the PELT pane).
            const QModelIndex index = name.startsWith(QLatin1Char('/'))
                ? model->indexForGroupEntity(name)
                : model->indexForTask(name);
            if (!index.isValid()) {
                complain(name.startsWith(QLatin1Char('/'))
                        ? QStringLiteral("--select: no group entity \"%1\" in the scenario "
                                         "(expected /CGROUP@CPU)")
                              .arg(name)
                        : QStringLiteral("--select: no task \"%1\" in the scenario").arg(name));
                return kExitBadInput;
            }
            selection->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
    }
    if (p.isSet(QStringLiteral("view"))) {
        const QStringList range = p.value(QStringLiteral("view")).split(QLatin1Char(':'));
        const auto from = msArg(QStringLiteral("view"), range.value(0));
        const auto to = msArg(QStringLiteral("view"), range.value(1));
        if (range.size() != 2 || !from || !to || *to <= *from) {
            complain(QStringLiteral("--view: expected FROM:TO in milliseconds, FROM < TO"));
            return kExitBadInput;
        }
        window.timeline()->setViewRange(*from, *to);
    }
    if (p.isSet(QStringLiteral("cursor"))) {
        // The cursor there, and the inspector showing that time (computed on a worker thread).
        const auto t = msArg(QStringLiteral("cursor"), p.value(QStringLiteral("cursor")));
        if (!t)
            return kExitBadInput;
        window.timeline()->setCursorTime(*t);
        window.inspector()->inspectAt(*t);
        while (window.inspector()->busy())
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        if (auto* first = window.inspector()->tree()->topLevelItem(0))
            window.inspector()->tree()->setCurrentItem(first);
    }
    int code = 0;
    QTimer::singleShot(500, &window, [&] {
        QByteArray bytes; // encoded in memory: an image writer does not report a short write
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QImageWriter writer(&buffer, format);
        QString why;
        QImage image = window.grab().toImage();
        const int dotsPerMeter = static_cast<int>(dpi / 0.0254);
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
        if (!writer.write(image)) {
            why = writer.errorString();
        } else {
            picture.stream().write(bytes.constData(), bytes.size());
            if (const std::string e = picture.commit(); !e.empty()) // flush, sync, rename
                why = ui::reasonOf(picturePath, e);
        }
        if (!why.isEmpty()) {
            complain(QStringLiteral("%1: cannot write: %2").arg(out, why));
            code = kExitBadInput;
        } else if (window.errorCount() > 0) {
            code = kExitBadInput; // already reported on stderr
        } else if (!c->stopReason().isEmpty()) {
            code = kExitStopped; // reported on stderr when it happened; the picture shows it
        }
        window.setWindowModified(false); // nothing to save on the way out
        QApplication::exit(code);
    });
    QApplication::exec();
    return code;
}

} // namespace

int main(int argc, char* argv[])
{
    // A save or export killed by SIGINT, SIGTERM, SIGHUP… removes its temporary file first.
    schedlab::installTempFileCleanup();
    // A script on a machine without a display (a server, CI) gets the offscreen platform
    // instead of an abort for want of one: for --screenshot, and for --help and --version,
    // which only print.
    const bool headlessOption = std::any_of(argv + 1, argv + argc, [](const char* a) {
        for (const char* o : {"--screenshot", "--help", "-h", "--help-all", "--version", "-v"})
            if (std::strcmp(a, o) == 0)
                return true;
        return std::strncmp(a, "--screenshot=", 13) == 0;
    });
    if (headlessOption && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")
        && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (headlessOption)
        schedlab::ui::quietHeadlessNotes();
    // --dpi N: the whole window drawn at N / 96 device pixels per layout pixel (as the captures
    // are), set before the application exists; the value is checked after parsing.
    for (int i = 1; i < argc; ++i) {
        const char* value = nullptr;
        if (std::strcmp(argv[i], "--dpi") == 0 && i + 1 < argc)
            value = argv[i + 1];
        else if (std::strncmp(argv[i], "--dpi=", 6) == 0)
            value = argv[i] + 6;
        if (const auto dpi = value ? dpiArg(QString::fromLocal8Bit(value)) : std::nullopt;
            dpi && *dpi != 96 && qEnvironmentVariableIsEmpty("QT_SCALE_FACTOR"))
            qputenv("QT_SCALE_FACTOR", QByteArray::number(*dpi / 96.0, 'g', 6));
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("schedlab"));
    QApplication::setOrganizationName(QStringLiteral("schedlab"));
    QApplication::setApplicationVersion(QStringLiteral(SCHEDLAB_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "schedlab: the Linux fair scheduler lab\n\n"
        "With --screenshot it runs without a user and never opens a dialog: problems are\n"
        "written to stderr. Exit codes: 0 ok, 2 bad input or a picture that cannot be\n"
        "written, 3 a resource guard stopped the run early (the picture is still written)."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Scenario to open"));
    parser.addOptions({
        {QStringLiteral("screenshot"), QStringLiteral("Save a picture of the window and exit."),
            QStringLiteral("png")},
        {QStringLiteral("at"), QStringLiteral("With --screenshot: simulated time (ms)."),
            QStringLiteral("ms"), QStringLiteral("500")},
        {QStringLiteral("move"), QStringLiteral("With --screenshot: drop TASK on CGROUP."),
            QStringLiteral("task:cgroup")},
        {QStringLiteral("edit-at"), QStringLiteral("With --move: when (ms)."), QStringLiteral("ms"),
            QStringLiteral("0")},
        {QStringLiteral("select"),
            QStringLiteral("With --screenshot: tasks to plot, and group entities /CGROUP@CPU "
                           "whose PELT the PELT pane draws."),
            QStringLiteral("a,b")},
        {QStringLiteral("view"), QStringLiteral("With --screenshot: visible window (ms)."),
            QStringLiteral("from:to")},
        {QStringLiteral("cursor"),
            QStringLiteral("With --screenshot: put the cursor at this time (ms); the Inspector "
                           "shows it."),
            QStringLiteral("ms")},
        {QStringLiteral("feature"),
            QStringLiteral("With --screenshot: turn a sched feature on (NAME) or off (NO_NAME) at "
                           "--edit-at, as the features panel does; repeatable."),
            QStringLiteral("feature")},
        {QStringLiteral("profile"),
            QStringLiteral("With --screenshot: run with this kernel profile (as schedlab-cli's "
                           "--profile)."),
            QStringLiteral("name")},
        {QStringLiteral("override"),
            QStringLiteral("With --screenshot: a behaviour choice CHOICE=VALUE, like "
                           "kernel.overrides; repeatable."),
            QStringLiteral("choice=value")},
        {QStringLiteral("set"),
            QStringLiteral("With --screenshot: TASK.nice=N, the task's nice from t = 0 (as "
                           "schedlab-cli capture); repeatable."),
            QStringLiteral("task.nice=n")},
        {QStringLiteral("weight"),
            QStringLiteral("With --screenshot: CGROUP=W, the cgroup's cpu.weight from t = 0 (as "
                           "schedlab-cli capture); repeatable."),
            QStringLiteral("cgroup=w")},
        {QStringLiteral("size"),
            QStringLiteral("With --screenshot: the window's size WxH in pixels at 96 dpi "
                           "(default 1500x950; the window's minimum size if larger)."),
            QStringLiteral("WxH")},
        {QStringLiteral("dpi"),
            QStringLiteral("With --screenshot: the picture's resolution N (default 96): WxH * "
                           "N/96 pixels, everything drawn at that scale, as schedlab-cli capture."),
            QStringLiteral("N")},
        {QStringLiteral("dark"), QStringLiteral("Use a dark palette (Fusion style).")},
        {QStringLiteral("lesson"),
            QStringLiteral("Open a lesson (Help > Lessons): its file, id or number (\"03\")."),
            QStringLiteral("name")},
        {QStringLiteral("step"), QStringLiteral("With --lesson: the step to show (from 1)."),
            QStringLiteral("n")},
    });
    parser.process(app);
    if (parser.isSet(QStringLiteral("dark"))) {
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(schedlab::ui::darkPalette());
    }

    // Options that only mean something for a screenshot are an error without one, not ignored.
    if (!parser.isSet(QStringLiteral("screenshot"))) {
        for (const char* o : {"at", "move", "edit-at", "select", "view", "cursor", "feature",
                 "profile", "override", "set", "weight", "size", "dpi"}) {
            if (parser.isSet(QString::fromLatin1(o))) {
                complain(QStringLiteral("--%1 needs --screenshot").arg(QString::fromLatin1(o)));
                return kExitBadInput;
            }
        }
    }
    if (parser.isSet(QStringLiteral("step")) && !parser.isSet(QStringLiteral("lesson"))) {
        complain(QStringLiteral("--step needs --lesson"));
        return kExitBadInput;
    }
    if (parser.isSet(QStringLiteral("lesson"))) {
        for (const char* o : {"at", "move", "edit-at", "select", "view", "cursor", "profile",
                 "override", "set", "weight"}) {
            if (parser.isSet(QString::fromLatin1(o))) {
                complain(QStringLiteral("--%1 cannot be combined with --lesson (the lesson's step "
                                        "says what to show)")
                             .arg(QString::fromLatin1(o)));
                return kExitBadInput;
            }
        }
    }
    const QStringList args = parser.positionalArguments();
    if (args.size() > 1) {
        complain(QStringLiteral("one scenario file at most, got %1").arg(args.size()));
        return kExitBadInput;
    }
    schedlab::ui::MainWindow window;
    if (parser.isSet(QStringLiteral("screenshot"))) {
        window.setHeadless(true);
        return screenshot(window, parser, args.value(0));
    }
    window.openInitial(args.value(0));
    window.show();
    if (parser.isSet(QStringLiteral("lesson"))) {
        window.setErrorDialogsEnabled(true);
        if (!openLesson(window, parser))
            return kExitBadInput;
    }
    return QApplication::exec();
}
