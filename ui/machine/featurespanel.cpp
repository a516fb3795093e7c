// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/machine/featurespanel.h"

#include "core/kernel/features.h"
#include "core/kernel/profile.h"
#include "core/sim/simulation.h"
#include "ui/common/format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace schedlab::ui {

namespace {

QString featureTip(Feature f)
{
    switch (f) {
    case Feature::PlaceLag:
        return QStringLiteral("place_entity() keeps a waking task's lag (inflated by the queue's "
                              "weight), so sleeping does not earn or lose service");
    case Feature::PlaceDeadlineInitial:
        return QStringLiteral("a new task starts with half a slice to its first deadline");
    case Feature::PlaceRelDeadline:
        return QStringLiteral("a migrating task keeps its deadline relative to its vruntime");
    case Feature::RunToParity:
        return QStringLiteral("the running task is not preempted by wakeups before it reached "
                              "its protected vruntime (its slice or zero lag)");
    case Feature::PreemptShort:
        return QStringLiteral("a waking task with a shorter slice may preempt the current one "
                              "even under RUN_TO_PARITY");
    case Feature::NextBuddy:
        return QStringLiteral("a woken task is set as the next buddy of its cfs_rq");
    case Feature::PickBuddy:
        return QStringLiteral("pick honours cfs_rq->next when it is eligible");
    case Feature::DelayDequeue:
        return QStringLiteral("a sleeping task with negative lag stays queued (delayed) until "
                              "its lag is paid back");
    case Feature::DelayZero:
        return QStringLiteral("a delayed entity leaves with its lag clipped to zero");
    case Feature::WakeupPreemption:
        return QStringLiteral("wakeups may preempt the running task at all");
    case Feature::HrTick:
        return QStringLiteral("a high-resolution timer ends slices instead of the next tick");
    case Feature::UtilEst:
        return QStringLiteral("a task's utilization is estimated from its last activations, so "
                              "a waking task counts with what it used, not a decayed util_avg");
    case Feature::NiRandom:
        return QStringLiteral("a newly idle CPU balances each domain only with the probability "
                              "that such a balance pulled a task lately (6.19, 6.18.5, 6.12.65)");
    case Feature::Count:
        break;
    }
    return {};
}

} // namespace

FeaturesPanel::FeaturesPanel(QWidget* parent)
    : QWidget(parent)
    , m_profile(new QComboBox(this))
    , m_hz(new QComboBox(this))
{
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    for (const KernelProfile& p : kernelProfiles())
        m_profile->addItem(toQString(p.name), toQString(p.name));
    m_profile->setToolTip(tr("Kernel profile: which kernel version's fair scheduler is "
                             "modelled. Switching records a profile action at the current time."));
    for (const int hz : {100, 250, 300, 1000})
        m_hz->addItem(QString::number(hz), hz);
    m_hz->setToolTip(tr("CONFIG_HZ: the scheduler tick rate. It holds for the whole run, so "
                        "changing it re-simulates from 0."));
    form->addRow(tr("Profile"), m_profile);
    form->addRow(tr("HZ"), m_hz);
    layout->addLayout(form);

    auto* box = new QGroupBox(tr("Sched features"), this);
    box->setToolTip(tr("/sys/kernel/debug/sched/features: a toggle is recorded as a feature "
                       "action at the current simulated time"));
    auto* boxLayout = new QVBoxLayout(box);
    for (size_t i = 0; i < kFeatureCount; ++i) {
        const auto f = static_cast<Feature>(i);
        const QString name = toQString(std::string(featureName(f)));
        auto* check = new QCheckBox(name, box);
        check->setObjectName(name);
        check->setToolTip(featureTip(f));
        boxLayout->addWidget(check);
        m_features.push_back(check);
        connect(check, &QCheckBox::toggled, this, [this, name](bool on) {
            Action a;
            a.kind = Action::Kind::Feature;
            a.features[name.toStdString()] = on;
            Q_EMIT actionRequested(a, (on ? QString() : QStringLiteral("NO_")) + name);
        });
    }
    layout->addWidget(box);
    layout->addStretch(1);

    connect(m_profile, &QComboBox::activated, this, [this] {
        Action a;
        a.kind = Action::Kind::Profile;
        a.profile = m_profile->currentData().toString().toStdString();
        Q_EMIT actionRequested(a, tr("profile → %1").arg(m_profile->currentText()));
    });
    connect(m_hz, &QComboBox::activated, this,
        [this] { Q_EMIT hzRequested(m_hz->currentData().toInt()); });
}

QCheckBox* FeaturesPanel::featureBox(const QString& name) const
{
    for (QCheckBox* c : m_features)
        if (c->objectName() == name)
            return c;
    return nullptr;
}

void FeaturesPanel::refresh(const Simulation* simulation, int hz)
{
    setEnabled(simulation != nullptr);
    if (!simulation)
        return;
    const FeatureSet features = simulation->features();
    for (size_t i = 0; i < m_features.size(); ++i) {
        const QSignalBlocker block(m_features[i]);
        m_features[i]->setChecked(features.has(static_cast<Feature>(i)));
    }
    {
        const QSignalBlocker block(m_profile);
        // A point release (6.18.15: its series' profile with the fix catalogue) is listed once
        // a run uses it, like an HZ the list does not have.
        const QString name = toQString(simulation->profileName());
        if (m_profile->findData(name) < 0)
            m_profile->addItem(name, name);
        m_profile->setCurrentIndex(m_profile->findData(name));
    }
    const QSignalBlocker block(m_hz);
    const int index = m_hz->findData(hz);
    if (index < 0)
        m_hz->addItem(QString::number(hz), hz);
    m_hz->setCurrentIndex(m_hz->findData(hz));
}

} // namespace schedlab::ui
