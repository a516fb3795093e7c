// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/common/format.h"

namespace schedlab::ui {

QString formatTime(Nanoseconds t)
{
    return QString::fromStdString(formatDurationHuman(t));
}

QString stoppedRunText(const QString& reason)
{
    return reason.startsWith(QLatin1String("stopped"))
        ? QStringLiteral("Run ") + reason
        : QStringLiteral("Run stopped early: ") + reason;
}

} // namespace schedlab::ui
