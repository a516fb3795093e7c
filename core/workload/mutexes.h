// SPDX-License-Identifier: GPL-2.0-or-later
// Sleeping mutexes with a FIFO wait queue, the workload's "lock"/"unlock" operations, and the
// named wait queues of "suspend"/"resume", and the completions of "complete"/
// "wait_for_completion".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace schedlab {

struct Task;

class MachineContext;
class ProgramServices;

class Mutexes
{
public:
    /// Wakes waiters through @p ctx (try_to_wake_up()); reports workload mistakes through
    /// @p program (ProgramServices::programError()).
    Mutexes(MachineContext& ctx, ProgramServices& program);

    /// mutex_lock(): true if @p task got @p name; false if it blocks (it is made to).
    bool lock(Task& task, const std::string& name);
    /// mutex_unlock(): hands @p name to its first waiter, if any.
    void unlock(Task& task, const std::string& name);
    /// "suspend": @p task blocks on the wait queue @p name until a "resume" of it.
    void suspend(Task& task, const std::string& name);
    /// "resume": wakes every task suspended on @p name (a broadcast, as pthread_cond_broadcast());
    /// with none suspended it is lost.
    void resume(const std::string& name);
    /// wait_for_completion(): takes one completion of @p name if there is one (true: @p task goes
    /// on), else @p task blocks until a complete() of it (false).
    bool waitForCompletion(Task& task, const std::string& name);
    /// complete(): hands one completion of @p name to its first waiter, or keeps it for the
    /// next wait (a count, never lost — unlike "resume").
    void complete(const std::string& name);
    /// A dying task leaves the wait queues and releases what it holds, newest first.
    void releaseAll(Task& task);

private:
    /// A waiter's wait ended: it continues if it has not left its CPU yet, else it is woken.
    void release(Task& waiter);
    /// A sleeping mutex with a FIFO wait queue (handed off to the first waiter at unlock).
    struct Mutex
    {
        int owner = -1;
        std::vector<int> waiters; ///< FIFO
    };

    MachineContext& m_ctx;
    ProgramServices& m_s;
    std::map<std::string, Mutex> m_mutexes;               ///< by name (ordered: deterministic)
    std::map<std::string, std::vector<int>> m_waitQueues; ///< suspended tasks, FIFO, by name
    /// struct completion: `done` and its waiters (FIFO, like swait's exclusive queue).
    struct Completion
    {
        int64_t done = 0;
        std::vector<int> waiters;
    };
    std::map<std::string, Completion> m_completions; ///< by name
};

} // namespace schedlab
