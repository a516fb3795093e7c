// SPDX-License-Identifier: GPL-2.0-or-later
#include "headless.h"

#include <QString>
#include <QtGlobal>

namespace schedlab::ui {

namespace {

QtMessageHandler g_previous = nullptr;

void dropHeadlessNotes(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"))
        || message.startsWith(QLatin1String("This plugin does not support")))
        return;
    if (g_previous)
        g_previous(type, context, message);
}

} // namespace

void quietHeadlessNotes()
{
    QtMessageHandler previous = qInstallMessageHandler(dropHeadlessNotes);
    if (previous != dropHeadlessNotes)
        g_previous = previous;
}

} // namespace schedlab::ui
