// SPDX-License-Identifier: GPL-2.0-or-later
// Background work of the GUI (the inspector's re-run, Compare's two runs, a lesson step, the
// check of a live edit): the model runs on a pool thread, the widget gets the result on the GUI
// thread, and the newest request wins. The GUI thread never waits for the model.
#pragma once

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

namespace schedlab::ui {

/// The pool background jobs run on: threads of low priority; the application waits for the
/// jobs still running when it is destroyed (a job never outlives the model's statics).
QThreadPool* backgroundPool();

/// One widget's background job, newest wins. start() runs `work` on backgroundPool() and calls
/// `done(result)` on the GUI thread, unless a newer start() or a cancel() came meanwhile or the
/// owner is gone. A job still queued when it goes stale is never run; one running sees its
/// stop flag set (work may take `const std::atomic<bool>&` and return early).
class BackgroundJob
{
public:
    explicit BackgroundJob(QObject* owner)
        : m_owner(owner)
    { }
    ~BackgroundJob() { cancel(); }
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;

    /// Drops the result of the job in flight and tells it to stop.
    void cancel()
    {
        ++m_state->generation;
        if (m_stop)
            *m_stop = true;
    }
    /// Jobs started whose results have not come back yet (stale ones included).
    bool busy() const { return m_state->pending > 0; }

    template <typename Work, typename Done> void start(Work work, Done done)
    {
        cancel();
        const quint64 generation = ++m_state->generation;
        auto stop = std::make_shared<std::atomic<bool>>(false);
        m_stop = stop;
        ++m_state->pending;
        backgroundPool()->start([state = m_state, owner = m_owner, generation, stop,
                                    work = std::move(work), done = std::move(done)]() mutable {
            using Result = decltype(call(work, *stop));
            std::shared_ptr<Result> result;
            if (generation == state->generation && !*stop) // not stale while queued
                result = std::make_shared<Result>(call(work, *stop));
            // Posted to the application, which outlives every widget; `owner` is only read
            // on the GUI thread.
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [state, owner, generation, result, done = std::move(done)]() mutable {
                    if (!owner)
                        return;
                    --state->pending;
                    if (!result || generation != state->generation)
                        return; // a newer request is on its way, or none is wanted
                    done(std::move(*result));
                },
                Qt::QueuedConnection);
        });
    }

private:
    struct State
    {
        std::atomic<quint64> generation{0}; ///< read by the pool thread before it starts
        int pending = 0;                    ///< GUI thread only
    };
    template <typename Work> static auto call(Work& work, const std::atomic<bool>& stop)
    {
        if constexpr (std::is_invocable_v<Work&, const std::atomic<bool>&>)
            return work(stop);
        else
            return work();
    }

    QPointer<QObject> m_owner;
    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::shared_ptr<std::atomic<bool>> m_stop;
};

} // namespace schedlab::ui
