// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/window/mainwindow.h"

#include "core/rtapp/rtapp.h"
#include "core/scenario/scenarioio.h"
#include "core/sim/simulation.h"
#include "ui/analysis/findingsdock.h"
#include "ui/analysis/inspectordock.h"
#include "ui/analysis/tracewindow.h"
#include "ui/common/format.h"
#include "ui/common/savefile.h"
#include "ui/lessons/lessonspanel.h"
#include "ui/machine/choicesmenu.h"
#include "ui/machine/featurespanel.h"
#include "ui/machine/machinetreemodel.h"
#include "ui/machine/scenarioeditor.h"
#include "ui/run/simulationcontroller.h"
#include "ui/run/transportbar.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/analysisdocks.h"
#include "ui/window/filewatcher.h"
#include "ui/window/noticebar.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTreeView>
#include <QUndoStack>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>

namespace schedlab::ui {

namespace {

const QString kDefaultScenario = QStringLiteral(":/default.json");

QString joinLines(const std::vector<std::string>& lines)
{
    QStringList out;
    for (const std::string& l : lines)
        out << toQString(l);
    return out.join(QLatin1Char('\n'));
}

bool isResource(const QString& path)
{
    return path.startsWith(QLatin1Char(':'));
}

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_scenario(std::make_unique<Scenario>())
    , m_controller(new SimulationController(this))
    , m_treeModel(new MachineTreeModel(this))
    , m_timeline(new TimelineView(this))
{
    auto* central = new QWidget;
    createNotices(central);
    setCentralWidget(central);
    createDocks();
    createEditing();
    createActions();
    createEditActions();
    createViewOptions();
    createStatusBar();

    connect(
        m_controller, &SimulationController::simulationReset, this, &MainWindow::onSimulationReset);
    connect(m_controller, &SimulationController::progressed, this, &MainWindow::onProgress);
    connect(m_controller, &SimulationController::playingChanged, this, &MainWindow::updateStatus);
    connect(m_controller, &SimulationController::finished, this,
        [this] { log(tr("simulation finished at %1").arg(formatTime(m_controller->now()))); });
    connect(m_controller, &SimulationController::errorOccurred, this,
        [this](const QString& message) { reportError(tr("Simulation error"), message); });

    resize(1280, 800);
    const QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateStatus();
}

MainWindow::~MainWindow()
{
    m_treeModel->setScenario(nullptr); // the model must not outlive its scenario
}

void MainWindow::createDocks()
{
    m_tree = new QTreeView;
    m_tree->setModel(m_treeModel);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setUniformRowHeights(true);
    m_tree->setIndentation(12); // narrower, so cpu.max fits in the dock's default width
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(false);
    connect(m_treeModel, &QAbstractItemModel::modelReset, m_tree, &QTreeView::expandAll);
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &MainWindow::onSelectionChanged);
    auto* treeDock = m_machineDock = new QDockWidget(tr("Machine"), this);
    treeDock->setObjectName(QStringLiteral("machineDock"));
    treeDock->setWidget(m_tree);
    treeDock->setMinimumWidth(220);
    addDockWidget(Qt::LeftDockWidgetArea, treeDock);
    resizeDocks({treeDock}, {320}, Qt::Horizontal);

    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    auto* logDock = m_logDock = new QDockWidget(tr("Log"), this);
    logDock->setObjectName(QStringLiteral("logDock"));
    logDock->setWidget(m_log);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    resizeDocks({logDock}, {110}, Qt::Vertical);
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openAction = file->addAction(tr("&Open…"), this, &MainWindow::open);
    openAction->setShortcut(QKeySequence::Open);
    // A real kernel's trace (ui/analysis/tracewindow.h); its Re-simulate opens the derived
    // scenario here, after asking about unsaved changes.
    addOpenTraceAction(file, this, [this](const Scenario& scenario, const QString& name) {
        return okToReplace() && openScenario(scenario, name);
    });
    file->addAction(tr("&Import rt-app Workload…"), this, &MainWindow::importRtApp);
    QAction* saveAction = file->addAction(tr("&Save"), this, &MainWindow::save);
    saveAction->setShortcut(QKeySequence::Save);
    QAction* saveAsAction = file->addAction(tr("Save &As…"), this, &MainWindow::saveAs);
    saveAsAction->setShortcut(QKeySequence::SaveAs);
    m_recentMenu = file->addMenu(tr("&Recent"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    QAction* quitSeparator = file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* simulation = menuBar()->addMenu(tr("&Simulation"));
    m_transport = new TransportBar(m_controller, this);
    addToolBar(m_transport);
    simulation->addActions(m_transport->transportActions());
    simulation->addSeparator();
    auto* choices = new ChoicesMenu([this]() -> const Scenario& { return *m_scenario; }, this);
    connect(choices, &ChoicesMenu::choiceSelected, this, &MainWindow::setKernelChoice);
    simulation->addMenu(choices);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(tr("Zoom to &fit"), m_timeline, &TimelineView::zoomToFit);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    m_analysis = new AnalysisDocks(
        this, m_timeline, m_controller, [this]() -> const Scenario& { return *m_scenario; }, file,
        quitSeparator, simulation, view);
    connect(m_analysis, &AnalysisDocks::logged, this, &MainWindow::log);
    connect(m_analysis, &AnalysisDocks::errorReported, this, &MainWindow::reportError);
    connect(m_analysis, &AnalysisDocks::annotationRequested, this, &MainWindow::addAnnotation);

    // Teachers write lessons from the sandbox's state (docs/lessons.md §8).
    QMenu* lessonMenu = menuBar()->addMenu(tr("&Lessons"));
    lessonMenu->setObjectName(QStringLiteral("lessonsMenu"));
    lessonMenu->addAction(tr("&Course"), this, [this] { lessons(); });
    lessonMenu->addAction(tr("&New step…"), this, [this] { lessons()->newStepDialog(); })
        ->setObjectName(QStringLiteral("newLessonStep"));
    lessonMenu->addAction(tr("&Save lesson…"), this, [this] { lessons()->saveLessonDialog(); })
        ->setObjectName(QStringLiteral("saveLesson"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Lessons"), this, [this] { lessons(); });
    help->addAction(tr("&About schedlab"), this, &MainWindow::about);
}

void MainWindow::createStatusBar()
{
    m_nameLabel = new QLabel;
    m_profileLabel = new QLabel;
    m_timeLabel = new QLabel;
    m_stateLabel = new QLabel;
    m_profileLabel->setToolTip(tr("Kernel profile: which kernel version's scheduler is modelled"));
    m_timeLabel->setToolTip(tr("Simulated time / end of the scenario"));
    for (QLabel* l : {m_nameLabel, m_profileLabel, m_timeLabel, m_stateLabel}) {
        l->setFrameStyle(QFrame::StyledPanel | QFrame::Sunken);
        l->setContentsMargins(6, 0, 6, 0);
        statusBar()->addPermanentWidget(l);
    }
}

void MainWindow::openInitial(const QString& path)
{
    if (!path.isEmpty() && openFile(path))
        return;
    openFile(kDefaultScenario);
}

bool MainWindow::openFile(const QString& path)
{
    const QString shown = isResource(path) ? path : QDir::toNativeSeparators(path);
    LoadResult result;
    QFile file(path);
    QByteArray bytes;
    if (QFileInfo(path).isDir()) { // a folder opens on Linux and reads as nothing
        result.errors.push_back(shown.toStdString() + ": cannot open: it is a folder");
    } else if (!file.open(QIODevice::ReadOnly)) {
        result.errors.push_back(
            shown.toStdString() + ": cannot open: " + file.errorString().toStdString());
    } else {
        bytes = file.readAll();
        result = parseScenario(bytes.toStdString(), shown.toStdString());
    }
    QString error;
    if (result.ok() && !m_controller->load(*result.scenario, &error))
        result.errors.push_back(shown.toStdString() + ": " + error.toStdString());
    if (!result.ok() || !result.errors.empty()) {
        const QString message = joinLines(result.errors);
        if (!isResource(path) && m_recent.files().contains(QFileInfo(path).absoluteFilePath()))
            m_recent.setError(path, message);
        reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), message);
        return false;
    }

    auto scenario = std::make_unique<Scenario>(std::move(*result.scenario));
    m_treeModel->setScenario(scenario.get());
    m_scenario = std::move(scenario);
    refreshAnnotations(); // the reset during load() drew the previous scenario's
    m_editor->setScenario(m_scenario.get());
    m_features->refresh(m_controller->simulation(), m_scenario->kernel.hz.value_or(1000));
    m_path = path;
    setWindowFilePath(isResource(path) ? QString() : path);
    setWindowTitle(toQString(m_scenario->name) + QStringLiteral("[*] — schedlab"));
    setWindowModified(false);
    m_watcher->watch(isResource(path) ? QString() : path, bytes);
    m_fileNotice->hide();
    if (!isResource(path))
        m_recent.add(path);

    log(tr("opened %1").arg(shown)
        + (m_scenario->title ? QStringLiteral(": ") + toQString(*m_scenario->title) : QString()));
    for (const std::string& notice : result.notices)
        log(tr("notice: %1").arg(toQString(notice)));
    if (!result.notices.empty())
        statusBar()->showMessage(tr("%n field(s) accepted but not simulated yet: see the log",
                                     nullptr, static_cast<int>(result.notices.size())),
            10000);
    m_transport->chooseSpeedFor(m_controller->endTime());
    updateStatus();
    Q_EMIT scenarioLoaded(path);
    return true;
}

bool MainWindow::openScenario(const Scenario& scenario, const QString& name)
{
    QString error;
    if (!m_controller->load(scenario, &error)) {
        reportError(tr("Cannot open %1").arg(name), error);
        return false;
    }
    auto adopted = std::make_unique<Scenario>(scenario);
    m_treeModel->setScenario(adopted.get()); // before the old scenario goes: the model reads it
    m_scenario = std::move(adopted);
    refreshAnnotations();
    m_editor->setScenario(m_scenario.get());
    m_features->refresh(m_controller->simulation(), m_scenario->kernel.hz.value_or(1000));
    m_path.clear(); // not a file of its own: Save asks where
    setWindowFilePath(QString());
    setWindowTitle(toQString(m_scenario->name) + QStringLiteral("[*] — schedlab"));
    setWindowModified(false);
    m_watcher->watch(QString(), {});
    m_fileNotice->hide();
    log(tr("opened %1").arg(name));
    m_transport->chooseSpeedFor(m_controller->endTime());
    updateStatus();
    return true;
}

LessonsPanel* MainWindow::lessons()
{
    if (!m_lessons) {
        m_lessons = new LessonsPanel(this);
        // With the machine tree on the left (the lesson's focus), next to the features panel.
        addDockWidget(Qt::LeftDockWidgetArea, m_lessons);
        if (auto* features = findChild<QDockWidget*>(QStringLiteral("featuresDock")))
            tabifyDockWidget(features, m_lessons);
        resizeDocks({m_lessons}, {430}, Qt::Horizontal);
    }
    m_lessons->show();
    m_lessons->raise();
    return m_lessons;
}

bool MainWindow::saveFile(const QString& path)
{
    // Through schedlab-cli's writer (ui/common/savefile.h, docs/limits.md "Output files"): a
    // regular file is replaced whole or not at all, a device or FIFO written in place, a
    // symbolic link out of its folder refused.
    const std::string text = writeScenario(scenarioForSaving(*m_scenario));
    bool inPlace = false;
    if (const QString error = saveBytes(path, QByteArray::fromStdString(text), &inPlace);
        !error.isEmpty()) {
        // The previous file is untouched when anything fails, and the document stays modified.
        reportError(tr("Cannot save %1").arg(QFileInfo(path).fileName()), error);
        return false;
    }
    if (inPlace) {
        // A device or FIFO got the text, but it is no file to open again or watch: the document
        // keeps its file and its state.
        log(tr("wrote the scenario to %1 (not a regular file: the document keeps its file)")
                .arg(QDir::toNativeSeparators(path)));
        return true;
    }
    m_path = path;
    setWindowFilePath(path);
    setWindowModified(false);
    // Our own save is no change on disk; after a Save As the new name is watched.
    m_watcher->watch(path, QByteArray::fromStdString(text));
    m_fileNotice->hide();
    m_recent.add(path);
    log(tr("saved %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

namespace {
// The shipped example scenarios: installed beside the executable's prefix
// (PREFIX/share/schedlab/scenarios), else the source tree's (a build tree), else the home folder.
QString shippedScenariosDir()
{
    const QString installed =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/schedlab/scenarios");
    if (QFileInfo(installed).isDir())
        return QDir::cleanPath(installed);
#ifdef SCHEDLAB_SOURCE_SCENARIOS
    if (QFileInfo(QStringLiteral(SCHEDLAB_SOURCE_SCENARIOS)).isDir())
        return QStringLiteral(SCHEDLAB_SOURCE_SCENARIOS);
#endif
    return QDir::homePath();
}
} // namespace

void MainWindow::importRtApp()
{
    QSettings settings;
    const QString dir =
        settings.value(QStringLiteral("lastDirectory"), QDir::homePath()).toString();
    const QString in = QFileDialog::getOpenFileName(
        this, tr("Import rt-app workload"), dir, tr("rt-app workloads (*.json);;All files (*)"));
    if (in.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(in).absolutePath());
    const rtapp::ImportResult r =
        rtapp::importRtAppFile(QDir::toNativeSeparators(in).toStdString());
    if (!r.ok()) {
        QStringList errors;
        for (const auto& e : r.errors)
            errors << toQString(e);
        reportError(
            tr("Cannot import %1").arg(QFileInfo(in).fileName()), errors.join(QLatin1Char('\n')));
        return;
    }
    // The import becomes a scenario file of its own (the rt-app file is left as it is).
    const QString out = QFileDialog::getSaveFileName(this, tr("Save the imported scenario"),
        QFileInfo(in).absolutePath() + QLatin1Char('/') + QFileInfo(in).completeBaseName()
            + QStringLiteral("-schedlab.json"),
        tr("Scenarios (*.json)"));
    if (out.isEmpty())
        return;
    bool inPlace = false;
    if (const QString error =
            saveBytes(out, QByteArray::fromStdString(writeScenario(*r.scenario)), &inPlace);
        !error.isEmpty()) {
        reportError(tr("Cannot save %1").arg(QFileInfo(out).fileName()), error);
        return;
    }
    if (inPlace) { // a device or FIFO: nothing to open
        log(tr("wrote the imported scenario to %1 (not a regular file: not opened)")
                .arg(QDir::toNativeSeparators(out)));
        return;
    }
    if (!openFile(out))
        return;
    for (const auto& w : r.warnings)
        log(tr("rt-app import: %1").arg(toQString(w)));
    if (!r.warnings.empty())
        statusBar()->showMessage(tr("%n part(s) of the rt-app workload not imported: see the log",
                                     nullptr, static_cast<int>(r.warnings.size())),
            10000);
}

void MainWindow::open()
{
    if (!okToReplace())
        return;
    QSettings settings;
    const QString dir =
        settings.value(QStringLiteral("lastDirectory"), shippedScenariosDir()).toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open scenario"), dir, tr("Scenarios (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(path).absolutePath());
    openFile(path);
}

bool MainWindow::save()
{
    if (m_path.isEmpty() || isResource(m_path))
        return saveAs();
    return saveFile(m_path);
}

bool MainWindow::saveAs()
{
    QSettings settings;
    const QString dir =
        settings.value(QStringLiteral("lastDirectory"), QDir::homePath()).toString();
    const QString suggested = dir + QLatin1Char('/')
        + (m_scenario->name.empty() ? QStringLiteral("scenario") : toQString(m_scenario->name))
        + QStringLiteral(".json");
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save scenario"), suggested, tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return false;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(path).absolutePath());
    return saveFile(path);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = m_recent.files();
    for (const QString& path : files) {
        QString problem = m_recent.error(path);
        if (problem.isEmpty() && !QFileInfo::exists(path))
            problem = tr("file not found");
        QString text = QFileInfo(path).fileName();
        if (!problem.isEmpty()) {
            QString first = problem.section(QLatin1Char('\n'), 0, 0);
            const QString prefix = QDir::toNativeSeparators(path) + QStringLiteral(": ");
            if (first.startsWith(prefix)) // the entry already names the file
                first = first.mid(prefix.size());
            if (first.size() > 90)
                first = first.left(89) + QChar(0x2026);
            text += QStringLiteral("  — ") + first;
        }
        QAction* action = m_recentMenu->addAction(text, this, [this, path] { openFile(path); });
        action->setToolTip(problem.isEmpty()
                ? QDir::toNativeSeparators(path)
                : QDir::toNativeSeparators(path) + QLatin1Char('\n') + problem);
        if (!problem.isEmpty())
            action->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    }
    m_recentMenu->setToolTipsVisible(true);
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear list"), this, [this] { m_recent.clear(); });
    }
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About schedlab"),
        tr("<h3>schedlab %1</h3>"
           "<p>schedlab is a laboratory for the Linux fair scheduler. It re-runs a described "
           "situation (CPUs, cgroups, tasks and what they do) in a deterministic, kernel-exact "
           "model of EEVDF under a chosen kernel version profile, so that you can watch who runs "
           "where, follow each task's vruntime, lag and deadline, pause, step, change settings "
           "and export what you found.</p>")
            .arg(QStringLiteral(SCHEDLAB_VERSION)));
}

void MainWindow::setHeadless(bool headless)
{
    m_headless = headless;
    if (headless)
        m_errorDialogs = false;
}

void MainWindow::reportError(const QString& title, const QString& message)
{
    log(title + QStringLiteral(": ") + message);
    ++m_errorCount;
    Q_EMIT errorReported(title, message);
    if (m_headless)
        std::fprintf(stderr, "schedlab: %s\n%s\n", qPrintable(title), qPrintable(message));
    if (!m_errorDialogs)
        return;
    QMessageBox box(QMessageBox::Warning, title, title, QMessageBox::Ok, this);
    box.setInformativeText(message);
    // Room for one error per line (file: /json/path: expectation).
    box.setStyleSheet(QStringLiteral("QLabel#qt_msgbox_informativelabel { min-width: 40em; }"));
    box.exec();
}

void MainWindow::log(const QString& line)
{
    m_log->appendPlainText(line);
}

QString MainWindow::logText() const
{
    return m_log->toPlainText();
}

QString MainWindow::statusText() const
{
    return QStringList{
        m_nameLabel->text(), m_profileLabel->text(), m_timeLabel->text(), m_stateLabel->text()}
        .join(QStringLiteral(" | "));
}

void MainWindow::onSimulationReset()
{
    const Simulation* sim = m_controller->simulation();
    m_timeline->setRecording(
        sim ? &sim->recording() : nullptr, sim ? sim->endTime() : Nanoseconds{0});
    m_timeline->setTaskCgroups(
        taskCgroups(m_controller->scenario()), taskMoves(m_controller->scenario()));
    refreshAnnotations();
    inspector()->setScenario(m_controller->scenario(), m_controller->runOptions());
    inspector()->setRecording(sim ? &sim->recording() : nullptr);
    // The inspector keeps showing the cursor's time in the new run (after an edit, undo, reset).
    if (m_timeline->cursorTime() >= Nanoseconds{0})
        inspector()->inspectAt(m_timeline->cursorTime());
    findings()->setScenario(m_controller->scenario());
    findings()->setSimulation(sim);
    if (sim)
        m_timeline->setLagClampRules(clampRules(choiceEpochs(sim->startProfileName(),
                                         sim->startChoices(), m_controller->scenario().actions)),
            sim->baseSlice(), sim->hz());
    m_treeModel->setTaskNames(sim ? &sim->recording().taskNames : nullptr);
    onSelectionChanged();
}

void MainWindow::onProgress()
{
    m_timeline->setNow(m_controller->now());
    m_treeModel->setTime(m_controller->now());
    m_treeModel->refreshTaskIndexes();
    m_features->refresh(m_controller->simulation(), m_scenario->kernel.hz.value_or(1000));
    updateStatus();
}

void MainWindow::onSelectionChanged()
{
    // Selected tasks, and every task below a selected cgroup, by name in the simulation.
    std::set<int> tasks;
    const Simulation* sim = m_controller->simulation();
    static const std::vector<std::string> kNoNames;
    const std::vector<std::string>& names = sim ? sim->recording().taskNames : kNoNames;
    // Group entities ("/A@1") only where selected themselves, not below a selected cgroup.
    std::set<int32_t> groupEntities;
    const auto kindOf = [](const QModelIndex& index) {
        return static_cast<MachineTreeModel::NodeKind>(
            index.data(MachineTreeModel::KindRole).toInt());
    };
    std::function<void(const QModelIndex&)> collect = [&](const QModelIndex& index) {
        if (kindOf(index) == MachineTreeModel::NodeKind::GroupEntity)
            return;
        const QString name = index.data(MachineTreeModel::TaskNameRole).toString();
        if (!name.isEmpty()) {
            const auto it = std::find(names.begin(), names.end(), name.toStdString());
            if (it != names.end())
                tasks.insert(static_cast<int>(it - names.begin()));
        }
        for (int row = 0; row < m_treeModel->rowCount(index); ++row)
            collect(m_treeModel->index(row, 0, index));
    };
    for (const QModelIndex& index : m_tree->selectionModel()->selectedRows()) {
        if (kindOf(index) == MachineTreeModel::NodeKind::GroupEntity && sim) {
            const std::string path =
                index.data(MachineTreeModel::CgroupPathRole).toString().toStdString();
            const auto& paths = sim->recording().groupPaths;
            const auto it = std::find(paths.begin(), paths.end(), path);
            const int cpu = index.data(MachineTreeModel::CpuRole).toInt();
            if (it != paths.end() && cpu >= 0)
                groupEntities.insert(
                    EntityRef::group(static_cast<int32_t>(it - paths.begin()), cpu).raw);
            continue;
        }
        collect(index);
    }
    m_timeline->setSelection(QVector<int>(tasks.begin(), tasks.end()),
        std::vector<int32_t>(groupEntities.begin(), groupEntities.end()));
}

void MainWindow::setKernelChoice(const QString& choice, const QString& value)
{
    // A scenario edit (kernel.overrides), then a fresh run with it.
    Scenario edited = *m_scenario;
    edited.kernel.overrides[choice.toStdString()] = value.toStdString();
    QString error;
    if (!m_controller->load(edited, &error)) {
        reportError(tr("Cannot set %1=%2").arg(choice, value), error);
        return;
    }
    *m_scenario = std::move(edited);
    m_treeModel->setScenario(m_scenario.get());
    m_editor->resetHistory(); // the undo snapshots predate the override: do not revert it
    setWindowModified(true);
    log(tr("kernel choice %1=%2: the run restarts").arg(choice, value));
    updateStatus();
}

void MainWindow::updateStatus()
{
    const Simulation* sim = m_controller->simulation();
    m_nameLabel->setText(
        m_scenario->name.empty() ? tr("(no scenario)") : toQString(m_scenario->name));
    m_nameLabel->setToolTip(toQString(m_scenario->title.value_or(std::string())));
    if (m_infoHeader) {
        const QString title = toQString(m_scenario->title.value_or(m_scenario->name));
        const QString description = toQString(m_scenario->description.value_or(std::string()));
        // About two lines of the description; all of it in the tooltip.
        const int room = std::max(80,
            m_infoHeader->width() / std::max(1, m_infoHeader->fontMetrics().averageCharWidth()) * 2
                - static_cast<int>(title.size()) - 8);
        const QString shown = description.size() > room
            ? description.left(room).trimmed() + QStringLiteral(" …")
            : description;
        m_infoHeader->setText(
            QStringLiteral("<b>%1</b>%2")
                .arg(title.toHtmlEscaped(),
                    shown.isEmpty() ? QString() : QStringLiteral(" — ") + shown.toHtmlEscaped()));
        m_infoHeader->setToolTip(description);
        m_infoHeader->setVisible(!title.isEmpty() || !description.isEmpty());
    }
    m_profileLabel->setText(
        tr("profile %1")
            .arg(sim ? toQString(sim->profileName())
                     : toQString(m_scenario->kernel.profile.value_or("default"))));
    m_timeLabel->setText(
        tr("t = %1 / %2")
            .arg(formatTime(m_controller->now()), formatTime(m_controller->endTime())));
    const QString stopped = m_controller->isFinished() ? m_controller->stopReason() : QString();
    m_stateLabel->setText(m_controller->isPlaying() ? tr("running")
            : !stopped.isEmpty()                    ? tr("stopped early")
            : m_controller->isFinished()            ? tr("finished")
                                                    : tr("paused"));
    if (m_stateLabel->toolTip() != stopped) { // a style sheet is costly: not on every frame
        m_stateLabel->setToolTip(stopped);
        m_stateLabel->setStyleSheet(stopped.isEmpty()
                ? QString()
                : QStringLiteral(
                    "QLabel { color: white; background: #b3261e; font-weight: bold; }"));
    }
}

bool MainWindow::okToReplace()
{
    if (!isWindowModified() || m_headless)
        return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
        tr("Save the changes to %1?").arg(toQString(m_scenario->name)),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    return answer == QMessageBox::Discard || (answer == QMessageBox::Save && save());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!okToReplace()) {
        event->ignore();
        return;
    }
    m_controller->pause();
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

InspectorDock* MainWindow::inspector() const
{
    return m_analysis->inspector();
}

QDockWidget* MainWindow::lessonPane(LessonPane pane) const
{
    switch (pane) {
    case LessonPane::Inspector:
        return inspector();
    case LessonPane::MachineTree:
        return m_machineDock;
    case LessonPane::Log:
        return m_logDock;
    case LessonPane::Features:
        return m_featuresDock;
    case LessonPane::Findings:
        return findings();
    }
    return nullptr;
}

void MainWindow::onScenarioLoaded(QObject* context, std::function<void()> f)
{
    connect(this, &MainWindow::scenarioLoaded, context, [f = std::move(f)] { f(); });
}

FindingsDock* MainWindow::findings() const
{
    return m_analysis->findings();
}

ExportMenu* MainWindow::exportMenu() const
{
    return m_analysis->exportMenu();
}

CompareView* MainWindow::compareView()
{
    return m_analysis->compareView();
}

void MainWindow::moveCursorTo(Nanoseconds t)
{
    m_analysis->moveCursorTo(t);
}

void MainWindow::addAnnotation(Nanoseconds at, const QString& text)
{
    Annotation a;
    a.at = at;
    a.text = text.toStdString();
    auto& list = m_scenario->annotations;
    list.insert(std::upper_bound(list.begin(), list.end(), a,
                    [](const Annotation& x, const Annotation& y) { return x.at < y.at; }),
        a);
    setWindowModified(true);
    refreshAnnotations();
    log(tr("annotation at %1: %2").arg(formatTime(at), text));
}

void MainWindow::refreshAnnotations()
{
    QVector<QPair<Nanoseconds, QString>> annotations;
    for (const Annotation& a : m_scenario->annotations)
        annotations.append({a.at, toQString(a.text)});
    m_timeline->setAnnotations(annotations);
}

} // namespace schedlab::ui
