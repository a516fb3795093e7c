// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/mainwindow.h"

#include <QApplication>

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("schedlab"));
    QApplication::setOrganizationName(QStringLiteral("schedlab"));
    QApplication::setApplicationVersion(QStringLiteral(SCHEDLAB_VERSION));
    schedlab::ui::MainWindow window;
    const QStringList args = QApplication::arguments();
    window.openInitial(args.size() > 1 ? args.at(1) : QString());
    window.show();
    return QApplication::exec();
}
