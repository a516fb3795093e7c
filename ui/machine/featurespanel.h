// SPDX-License-Identifier: GPL-2.0-or-later
// The features and profile panel (README.md, the sandbox): the kernel profile, HZ, and one checkbox
// per sched feature showing what is in force at the current simulated time. Changes are emitted
// as Actions (feature toggles, profile switches) for the window to record as edits at the
// current time; HZ is a property of the whole run and is emitted separately.
#pragma once

#include "core/sim/scenariospec.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;

namespace schedlab {
class Simulation;
}

namespace schedlab::ui {

class FeaturesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit FeaturesPanel(QWidget* parent = nullptr);

    /// Shows the profile and features in force in @p simulation now, and @p hz.
    void refresh(const Simulation* simulation, int hz);

    QCheckBox* featureBox(const QString& name) const;
    QComboBox* profileBox() const { return m_profile; }
    QComboBox* hzBox() const { return m_hz; }

Q_SIGNALS:
    void actionRequested(const schedlab::Action& action, const QString& description);
    void hzRequested(int hz);

private:
    QComboBox* m_profile;
    QComboBox* m_hz;
    std::vector<QCheckBox*> m_features;
};

} // namespace schedlab::ui
