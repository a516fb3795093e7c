// SPDX-License-Identifier: GPL-2.0-or-later
// Exports of a recording's time window: run slices, CSV of the plotted series, and a
// Perfetto-compatible trace (Chrome trace-event JSON).
//
// Trace layout (Chrome "JSON Object Format", ts/dur in microseconds with ns precision):
//   pid 1 "CPUs": one thread per CPU (tid = cpu + 1) with an X slice per task run on it;
//   pid 1000 + i "task NAME": an X slice per run ("cpuN") and C counters vruntime, deadline,
//     vlag and V (of the cfs_rq the task is queued on), one value per recorded sample;
//   pid 100000 + group·1000 + cpu "group PATH cpuN": C counters weight, vruntime, deadline,
//     vlag and V of the group entity on that CPU.
// Process and thread names are "M" metadata events. Virtual times are in virtual ns.
#pragma once

#include "core/base/time.h"
#include "core/record/recording.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace schedlab {

/// One stretch of a task running on a CPU, cut from Switch records.
struct RunSlice
{
    int cpu = 0;
    int task = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
};

/// Run slices overlapping [from, to], clipped to it; a slice still open at the end of the
/// recording ends at @p to.
std::vector<RunSlice> runSlices(const Recording& rec, Nanoseconds from, Nanoseconds to);

/// Which entities an export covers; empty = all.
using EntityFilter = std::vector<EntityRef>;

/// Chrome trace-event JSON for [from, to]. Counter tracks start with the last sample before
/// @p from so that each track has its value at the window's start. The write* forms stream the
/// text (a megabyte at a time), so an export needs no memory in proportion to its size.
void writeChromeTrace(std::ostream& out, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only = {}, const std::string& title = {});
std::string chromeTraceJson(const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only = {}, const std::string& title = {});

/// CSV of the entity samples in [from, to]:
///   time_ns,entity,kind,cpu,vruntime,deadline,vlag,avg_vruntime,weight,eligible,curr,delayed
void writeSamplesCsv(std::ostream& out, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only = {});
std::string samplesCsv(
    const Recording& rec, Nanoseconds from, Nanoseconds to, const EntityFilter& only = {});
/// CSV of the run slices in [from, to]: cpu,task,start_ns,end_ns
void writeSlicesCsv(std::ostream& out, const Recording& rec, Nanoseconds from, Nanoseconds to,
    const EntityFilter& only = {});
std::string slicesCsv(
    const Recording& rec, Nanoseconds from, Nanoseconds to, const EntityFilter& only = {});

} // namespace schedlab
