// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/machine/choicesmenu.h"

#include "core/kernel/profile.h"

#include <QActionGroup>

namespace schedlab::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

ChoicesMenu::ChoicesMenu(std::function<const Scenario&()> scenario, QWidget* parent)
    : QMenu(tr("Kernel &choices"), parent)
    , m_scenario(std::move(scenario))
{
    setToolTipsVisible(true);
    connect(this, &QMenu::aboutToShow, this, &ChoicesMenu::rebuild);
    rebuild(); // so the actions exist before the first show (keyboard navigation, tests)
}

QString ChoicesMenu::effectiveValue(const Scenario& scenario, const QString& choice)
{
    const std::string name = choice.toStdString();
    if (auto it = scenario.kernel.overrides.find(name); it != scenario.kernel.overrides.end())
        return qs(it->second);
    const KernelProfile* profile =
        findProfile(scenario.kernel.profile.value_or(defaultProfile().name));
    return qs(choiceValue((profile ? *profile : defaultProfile()).choices, name));
}

void ChoicesMenu::rebuild()
{
    clear();
    const Scenario& scenario = m_scenario();
    for (const std::string& choice : choiceNames()) {
        const QString name = qs(choice);
        QMenu* sub = addMenu(name);
        auto* group = new QActionGroup(sub);
        const QString current = effectiveValue(scenario, name);
        for (const QString& value : qs(choiceValues(choice)).split(QLatin1Char('|'))) {
            QAction* action = sub->addAction(value);
            action->setCheckable(true);
            action->setChecked(value == current);
            action->setObjectName(name + QLatin1Char('=') + value);
            group->addAction(action);
            connect(action, &QAction::triggered, this,
                [this, name, value] { Q_EMIT choiceSelected(name, value); });
        }
    }
}

} // namespace schedlab::ui
