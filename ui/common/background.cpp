// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/common/background.h"

#include <QThread>

#include <algorithm>

namespace schedlab::ui {

namespace {

QThreadPool* s_pool = nullptr;

void finishPool()
{
    // Runs from ~QCoreApplication while the instance still exists: jobs still running post
    // their results to it, which are then discarded with its event queue.
    s_pool->waitForDone();
    delete s_pool;
    s_pool = nullptr;
}

} // namespace

QThreadPool* backgroundPool()
{
    if (!s_pool) {
        s_pool = new QThreadPool;
        s_pool->setThreadPriority(QThread::LowPriority);
        // A few jobs at once (an inspection need not wait for Compare's two runs).
        s_pool->setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        qAddPostRoutine(finishPool);
    }
    return s_pool;
}

} // namespace schedlab::ui
