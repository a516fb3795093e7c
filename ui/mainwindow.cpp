// SPDX-License-Identifier: GPL-2.0-or-later
#include "mainwindow.h"

namespace schedlab::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{ }

void MainWindow::openInitial(const QString&)
{ }

} // namespace schedlab::ui
