// SPDX-License-Identifier: GPL-2.0-or-later
// "Kernel choices" menu: one submenu per behaviour choice of the kernel profile
// (docs/scenario-format.md §4.2, e.g. yield = deadline_bump | forfeit_always | …), the value in
// effect checked. Picking a value reports (choice, value); the window stores it in the scenario's
// kernel.overrides and restarts the run, as `--override CHOICE=VALUE` does on the command line.
#pragma once

#include "core/sim/scenariospec.h"

#include <QMenu>

#include <functional>

namespace schedlab::ui {

class ChoicesMenu : public QMenu
{
    Q_OBJECT
public:
    /// @p scenario is read each time the menu opens (the current scenario of the window).
    ChoicesMenu(std::function<const Scenario&()> scenario, QWidget* parent = nullptr);

    /// The value of @p choice in effect for @p scenario: its override, else the profile's.
    static QString effectiveValue(const Scenario& scenario, const QString& choice);

Q_SIGNALS:
    void choiceSelected(const QString& choice, const QString& value);

private:
    void rebuild();

    std::function<const Scenario&()> m_scenario;
};

} // namespace schedlab::ui
