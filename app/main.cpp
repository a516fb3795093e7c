// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/base/time.h"
#include "ui/machinetreemodel.h"
#include "ui/mainwindow.h"
#include "ui/simulationcontroller.h"
#include "ui/timelineview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QItemSelectionModel>
#include <QMimeData>
#include <QPalette>
#include <QPixmap>
#include <QTimer>
#include <QTreeView>

#include <cmath>
#include <cstdio>
#include <memory>

namespace {

schedlab::Nanoseconds msArg(const QString& text)
{
    return schedlab::Nanoseconds{std::llround(text.toDouble() * 1e6)};
}

void waitForSeek(schedlab::ui::SimulationController* c)
{
    while (c->isSeeking())
        QApplication::processEvents(QEventLoop::AllEvents, 50);
}

/// --screenshot: drive the window without a user (for the pictures in docs/), grab it, exit.
int screenshot(schedlab::ui::MainWindow& window, const QCommandLineParser& p)
{
    using namespace schedlab;
    window.resize(1500, 950);
    window.show();
    auto* c = window.controller();
    auto* model = window.machineTreeModel();
    if (p.isSet(QStringLiteral("move"))) {
        // TASK:CGROUP, dropped at --edit-at through the tree model, as a drag would.
        const QStringList move = p.value(QStringLiteral("move")).split(QLatin1Char(':'));
        c->stepBy(msArg(p.value(QStringLiteral("edit-at"))));
        std::unique_ptr<QMimeData> data(model->mimeData({model->indexForTask(move.value(0))}));
        if (!data
            || !model->dropMimeData(
                data.get(), Qt::MoveAction, -1, 0, model->indexForCgroup(move.value(1)))) {
            std::fprintf(stderr, "cannot move %s\n", qPrintable(p.value(QStringLiteral("move"))));
            return 1;
        }
        waitForSeek(c);
    }
    const Nanoseconds at = msArg(p.value(QStringLiteral("at")));
    if (at > c->now())
        c->stepBy(at - c->now());
    if (p.isSet(QStringLiteral("select"))) {
        QItemSelectionModel* selection = window.machineTree()->selectionModel();
        for (const QString& name : p.value(QStringLiteral("select")).split(QLatin1Char(',')))
            selection->select(
                model->indexForTask(name), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    if (p.isSet(QStringLiteral("view"))) {
        const QStringList range = p.value(QStringLiteral("view")).split(QLatin1Char(':'));
        window.timeline()->setViewRange(msArg(range.value(0)), msArg(range.value(1)));
    }
    const QString out = p.value(QStringLiteral("screenshot"));
    QTimer::singleShot(500, &window, [&window, out] {
        if (!window.grab().save(out))
            std::fprintf(stderr, "cannot write %s\n", qPrintable(out));
        window.setWindowModified(false); // no "save changes?" on the way out
        QApplication::quit();
    });
    return QApplication::exec();
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("schedlab"));
    QApplication::setOrganizationName(QStringLiteral("schedlab"));
    QApplication::setApplicationVersion(QStringLiteral(SCHEDLAB_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("schedlab: the Linux fair scheduler lab"));
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
        {QStringLiteral("select"), QStringLiteral("With --screenshot: tasks to plot."),
            QStringLiteral("a,b")},
        {QStringLiteral("view"), QStringLiteral("With --screenshot: visible window (ms)."),
            QStringLiteral("from:to")},
        {QStringLiteral("dark"), QStringLiteral("Use a dark palette (Fusion style).")},
    });
    parser.process(app);
    if (parser.isSet(QStringLiteral("dark"))) {
        QApplication::setStyle(QStringLiteral("Fusion"));
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
        dark.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Highlight, QColor(0x3d, 0x8b, 0xd4));
        dark.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
        QApplication::setPalette(dark);
    }

    schedlab::ui::MainWindow window;
    const QStringList args = parser.positionalArguments();
    window.openInitial(args.isEmpty() ? QString() : args.first());
    if (parser.isSet(QStringLiteral("screenshot"))) {
        window.setErrorDialogsEnabled(false);
        return screenshot(window, parser);
    }
    window.show();
    return QApplication::exec();
}
