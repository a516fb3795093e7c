// SPDX-License-Identifier: GPL-2.0-or-later
// Time axis ticks with adaptive units. Timeline coordinates are milliseconds; the ticker picks
// s / ms / µs from the visible span and relabels the ticks, so the default "nice number" tick
// steps stay nice in every unit.
#pragma once

#include "ui/timeline/qcp.h"

namespace schedlab::ui {

class TimeTicker : public QCPAxisTicker
{
public:
    enum class Unit { Seconds, Milliseconds, Microseconds };

    /// Unit that keeps labels short for a visible span of @p spanMs milliseconds.
    static Unit unitFor(double spanMs);
    static QString unitName(Unit unit);

    void setUnit(Unit unit) { m_unit = unit; }
    Unit unit() const { return m_unit; }
    /// "time (ms)" etc.
    QString axisLabel() const;

protected:
    QString getTickLabel(
        double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    Unit m_unit = Unit::Milliseconds;
};

} // namespace schedlab::ui
