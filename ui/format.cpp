// SPDX-License-Identifier: GPL-2.0-or-later
#include "format.h"

namespace schedlab::ui {

QString formatTime(Nanoseconds t)
{
    return QString::fromStdString(formatDurationHuman(t));
}

} // namespace schedlab::ui
