// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the GUI tests (tests/ui): waiting for the controller's background seek, and
// writing a scenario file into a temporary folder.
#pragma once

#include "ui/run/simulationcontroller.h"

#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

namespace schedlab::test {

/// Returns once @p c has finished seeking (run to, rewind, reload). The timeout is an upper
/// bound reached only on a hang, not a time the test depends on.
inline void waitIdle(ui::SimulationController& c)
{
    QTRY_VERIFY_WITH_TIMEOUT(!c.isSeeking(), 120'000);
}

inline void waitIdle(ui::SimulationController* c)
{
    waitIdle(*c);
}

/// Writes @p text to @p name in @p dir; the file's path, or empty when it cannot be written.
inline QString write(const QTemporaryDir& dir, const QString& name, const char* text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    f.write(text);
    return path;
}

} // namespace schedlab::test
