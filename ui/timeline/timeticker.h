// SPDX-License-Identifier: GPL-2.0-or-later
// Time axis ticks with adaptive units. Timeline coordinates are milliseconds; the ticker picks
// s / ms / µs from the visible span and relabels the ticks, so the default "nice number" tick
// steps stay nice in every unit.
#pragma once

#include "ui/timeline/qcp.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

/// Ticks in [from, upTo] only: the PELT pane stacks its two axes (averages above, counts below,
/// timelineseries.cpp), so each axis labels only its own part of the pane; @p whole: whole-number
/// steps (task counts).
class TicksFrom : public QCPAxisTicker
{
public:
    explicit TicksFrom(double from, bool whole)
        : m_from(from)
        , m_whole(whole)
    { }
    void setUpTo(double upTo) { m_upTo = upTo; }

protected:
    double getTickStep(const QCPRange& range) override
    {
        const double step = QCPAxisTicker::getTickStep(range);
        return m_whole ? std::max(1.0, std::round(step)) : step;
    }
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override
    {
        QVector<double> ticks;
        for (const double t : QCPAxisTicker::createTickVector(tickStep, range))
            if (t >= m_from - 1e-9 && t <= m_upTo + 1e-9)
                ticks.append(t);
        return ticks;
    }

private:
    double m_from;
    double m_upTo = std::numeric_limits<double>::max();
    bool m_whole;
};

} // namespace schedlab::ui
