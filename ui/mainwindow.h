// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QMainWindow>

namespace schedlab::ui {

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    void openInitial(const QString& path);
};

} // namespace schedlab::ui
