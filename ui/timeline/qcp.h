// SPDX-License-Identifier: GPL-2.0-or-later
// The one place that includes QCustomPlot (the other views include this header). The GUI builds
// with QT_NO_KEYWORDS (core's DurationSpec::forever would otherwise meet Qt's `forever` macro), but
// qcustomplot.h still spells `signals:` and `foreach`, so they are lent to it here only.
#pragma once

#include <QtGlobal>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wsuggest-override"
#pragma GCC diagnostic ignored "-Wshadow"
#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef foreach
#else
#include <qcustomplot.h>
#endif
#pragma GCC diagnostic pop
