// SPDX-License-Identifier: GPL-2.0-or-later
// MainWindow's notices: the open file changed or removed on disk
// by another program, and a run stopped early by a resource guard. Both are non-modal bars above
// the timeline (and stderr when headless), never a dialog.
#include "ui/analysis/findingsdock.h"
#include "ui/common/format.h"
#include "ui/run/simulationcontroller.h"
#include "ui/timeline/timelineview.h"
#include "ui/window/filewatcher.h"
#include "ui/window/mainwindow.h"
#include "ui/window/noticebar.h"

#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>
#include <QVBoxLayout>

#include <cstdio>

namespace schedlab::ui {

void MainWindow::createNotices(QWidget* central)
{
    m_fileNotice = new NoticeBar;
    m_fileNotice->setObjectName(QStringLiteral("fileNotice"));
    m_runNotice = new NoticeBar;
    m_runNotice->setObjectName(QStringLiteral("runNotice"));
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    // The scenario's title and the start of its description above the timeline (all of it in
    // the tooltip): what the run is meant to show.
    m_infoHeader = new QLabel;
    m_infoHeader->setObjectName(QStringLiteral("infoHeader"));
    m_infoHeader->setWordWrap(true);
    m_infoHeader->setTextFormat(Qt::RichText);
    m_infoHeader->setContentsMargins(6, 3, 6, 3);
    m_infoHeader->setMaximumHeight(3 * m_infoHeader->fontMetrics().lineSpacing() + 8);
    m_infoHeader->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(m_infoHeader);
    layout->addWidget(m_fileNotice);
    layout->addWidget(m_runNotice);
    layout->addWidget(m_timeline, 1);

    m_watcher = new FileWatcher(this);
    connect(m_watcher, &FileWatcher::changedOnDisk, this, &MainWindow::onFileChangedOnDisk);
    connect(m_watcher, &FileWatcher::removedFromDisk, this, &MainWindow::onFileRemovedFromDisk);
    connect(m_watcher, &FileWatcher::backToKnown, m_fileNotice, &QWidget::hide);

    connect(m_controller, &SimulationController::stoppedEarly, this, &MainWindow::onStoppedEarly);
    connect(m_controller, &SimulationController::simulationReset, this, [this] {
        if (!m_runNotice->isHidden())
            statusBar()->clearMessage();
        m_runNotice->hide(); // a fresh run: it says again if it stops
    });
}

void MainWindow::onFileChangedOnDisk(const QString& path)
{
    const QString name = QFileInfo(path).fileName();
    const auto reload = [this] { openFile(m_path); };
    if (!isWindowModified()) {
        log(tr("%1 was changed on disk").arg(path));
        m_fileNotice->showMessage(tr("%1 was changed on disk by another program.").arg(name));
        m_fileNotice->addButton(tr("Reload"), reload);
        m_fileNotice->addButton(tr("Ignore"), {});
        return;
    }
    // Neither side is dropped without asking: the edits stay until the user chooses.
    log(tr("%1 was changed on disk while this window has unsaved edits").arg(path));
    m_fileNotice->showMessage(tr("%1 was changed on disk by another program, and this window has "
                                 "unsaved edits. Reload discards the edits; Save overwrites the "
                                 "file with them.")
                                  .arg(name),
        NoticeBar::Level::Warning);
    m_fileNotice->addButton(tr("Reload, discard my edits"), reload);
    m_fileNotice->addButton(tr("Keep my edits"), {});
}

void MainWindow::onFileRemovedFromDisk(const QString& path)
{
    log(tr("%1 was deleted or moved away on disk").arg(path));
    m_fileNotice->showMessage(tr("%1 was deleted or moved away on disk. Save writes it again.")
                                  .arg(QFileInfo(path).fileName()),
        NoticeBar::Level::Warning);
    m_fileNotice->addButton(tr("Save"), [this] { save(); });
    m_fileNotice->addButton(tr("Ignore"), {});
}

void MainWindow::onStoppedEarly(const QString& reason)
{
    // The same words as schedlab-cli's "run stopped at t=…: …" line.
    const QString line = tr("run %1").arg(reason);
    log(line);
    if (m_headless)
        std::fprintf(stderr, "schedlab: %s\n", qPrintable(line));
    statusBar()->showMessage(stoppedRunText(reason));
    m_runNotice->showMessage(
        tr("Resource guard: the run %1. Edit the scenario or simulate a shorter time.").arg(reason),
        NoticeBar::Level::Warning);
    m_runNotice->addButton(
        tr("Show findings"),
        [this] {
            findings()->show();
            findings()->raise();
        },
        false);
    findings()->refresh();
    findings()->show();
    findings()->raise();
    updateStatus();
}

} // namespace schedlab::ui
