// SPDX-License-Identifier: GPL-2.0-or-later
#include "core/fair/utilest.h"

#include "core/fair/cfsrq.h"
#include "core/fair/schedentity.h"

#include <algorithm>

namespace schedlab {

uint32_t taskUtilEstRaw(const SchedEntity& taskSe)
{
    return taskSe.avg.utilEst & ~kUtilAvgUnchanged;
}

uint64_t taskUtilEst(const SchedEntity& taskSe)
{
    return std::max<uint64_t>(taskSe.avg.utilAvg, taskUtilEstRaw(taskSe));
}

void utilEstEnqueue(CfsRq& root, const SchedEntity& taskSe)
{
    root.avg.utilEst += taskUtilEstRaw(taskSe);
}

void utilEstDequeue(CfsRq& root, const SchedEntity& taskSe)
{
    root.avg.utilEst -= std::min(root.avg.utilEst, taskUtilEstRaw(taskSe));
}

void utilEstUpdate(SchedEntity& taskSe, bool taskSleep, int64_t cpuCapacity)
{
    // util_est_update() (kernel-model.md §6.8): only when the task goes to sleep, and only once
    // its util_avg moved since the last update.
    if (!taskSleep)
        return;
    uint32_t ewma = taskSe.avg.utilEst;
    if (ewma & kUtilAvgUnchanged)
        return;
    const auto dequeued = static_cast<uint32_t>(taskSe.avg.utilAvg);
    if (ewma <= dequeued) {
        ewma = dequeued; // increases are taken at once, the average only smooths decreases
    } else {
        const uint32_t lastEwmaDiff = ewma - dequeued;
        // Within 1 % of the estimate, or the task did not get all the CPU it wanted
        // (runnable above util by more than the margin): keep the estimate.
        if (lastEwmaDiff >= kUtilEstMargin
            && uint64_t{dequeued} + kUtilEstMargin >= taskSe.avg.runnableAvg) {
            // No idle time on the CPU to be sure of: the estimate is left as it is.
            if (int64_t{dequeued} > cpuCapacity)
                return;
            // ewma = ewma − (ewma − dequeued) / 4, in the kernel's shifts.
            ewma = ((ewma << kUtilEstWeightShift) - lastEwmaDiff) >> kUtilEstWeightShift;
        }
    }
    taskSe.avg.utilEst = ewma | kUtilAvgUnchanged;
}

uint64_t cfsCpuUtil(const PeltAvg& rootAvg, bool utilEst, int64_t capacity)
{
    uint64_t util = rootAvg.utilAvg;
    if (utilEst)
        util = std::max<uint64_t>(util, rootAvg.utilEst);
    return std::min<uint64_t>(util, static_cast<uint64_t>(capacity));
}

uint64_t cfsTaskUtil(const SchedEntity& taskSe, bool utilEst)
{
    return utilEst ? taskUtilEst(taskSe) : taskSe.avg.utilAvg;
}

} // namespace schedlab
