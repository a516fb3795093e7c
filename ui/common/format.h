// SPDX-License-Identifier: GPL-2.0-or-later
// One place for conversions between core values and display strings.
#pragma once

#include "core/base/time.h"

#include <QString>

#include <string>

namespace schedlab::ui {

inline QString toQString(const std::string& s)
{
    return QString::fromStdString(s);
}

/// "12.345 ms", "1.500 s", "850 ns": fixed precision for labels and the status bar.
QString formatTime(Nanoseconds t);

/// "Run stopped at t=3ms: …" for Simulation::stopReason() ("stopped at t=3ms: …"), the words of
/// schedlab-cli's line.
QString stoppedRunText(const QString& reason);

} // namespace schedlab::ui
