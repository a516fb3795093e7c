// SPDX-License-Identifier: GPL-2.0-or-later
// The GUI binary (SCHEDLAB_GUI) run as a separate process by the tests of its script mode
// (`schedlab --screenshot …`): whether it exited, its exit code and what it wrote.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace schedlab::test {

struct GuiRun
{
    bool finished = false; ///< exited within the upper bound (a hang, e.g. on a dialog, is false)
    int exitCode = -1;     ///< -1 when it crashed
    QString err;
    QString out;
};

/// Runs `schedlab ARGS…` with @p env and waits for it. @p upperBoundMs only stops a hang; no
/// test depends on how long the run takes. A process still running then is killed.
inline GuiRun runGuiProcess(
    const QStringList& args, const QProcessEnvironment& env, int upperBoundMs = 120'000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SCHEDLAB_GUI), args);
    GuiRun r;
    r.finished = p.waitForStarted(upperBoundMs) && p.waitForFinished(upperBoundMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(upperBoundMs);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    return r;
}

} // namespace schedlab::test
