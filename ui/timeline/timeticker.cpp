// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/timeline/timeticker.h"

#include <cmath>

namespace schedlab::ui {

TimeTicker::Unit TimeTicker::unitFor(double spanMs)
{
    if (spanMs >= 5000.0)
        return Unit::Seconds;
    if (spanMs < 2.0)
        return Unit::Microseconds;
    return Unit::Milliseconds;
}

QString TimeTicker::unitName(Unit unit)
{
    switch (unit) {
    case Unit::Seconds:
        return QStringLiteral("s");
    case Unit::Milliseconds:
        return QStringLiteral("ms");
    case Unit::Microseconds:
        return QStringLiteral("µs");
    }
    return {};
}

QString TimeTicker::axisLabel() const
{
    return QStringLiteral("time (%1)").arg(unitName(m_unit));
}

QString TimeTicker::getTickLabel(double tick, const QLocale& locale, QChar, int)
{
    double value = tick;
    if (m_unit == Unit::Seconds)
        value /= 1000.0;
    else if (m_unit == Unit::Microseconds)
        value *= 1000.0;
    if (std::abs(value) < 1e-9)
        value = 0.0; // no "-0" or "1e-17" at the origin
    return locale.toString(value, 'g', 12);
}

} // namespace schedlab::ui
