// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer harness: arbitrary bytes through the ftrace importer (docs/limits.md, "Fuzzing").
// Every answer is either an import or errors naming FILE:LINE on one line; an accepted import
// has no negative time, wait or CPU time, no task busier than the traced span, no CPU busier
// than the span, and records in time order on CPUs it knows.
#include "core/import/ftrace.h"
#include "harness.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

using namespace schedlab;
using fuzz::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::istringstream in(fuzz::inputText(data, size));
    const TraceImport r = importFtrace(in, "fuzz.txt");
    fuzz::checkLines(r.errors, "fuzz.txt");
    fuzz::checkLines(r.warnings, "fuzz.txt");
    if (!r.ok())
        return 0;
    const Metrics& m = r.metrics;
    const int64_t span = m.durationNs;
    if (span < 0)
        fail("a negative traced span", std::to_string(span));
    for (const TaskMetrics& t : m.tasks) {
        if (t.cpuTimeNs < 0 || t.cpuTimeNs > span)
            fail("CPU time outside [0, span]", t.name + " " + std::to_string(t.cpuTimeNs));
        if (t.waitMaxNs < 0 || t.waitP50Ns < 0 || t.waitP99Ns < 0 || t.waitMaxNs > span)
            fail("a wait outside [0, span]", t.name + " " + std::to_string(t.waitMaxNs));
        if (t.exitedAtNs && (*t.exitedAtNs < 0 || *t.exitedAtNs > span))
            fail("an exit outside the span", t.name);
    }
    for (const CpuMetrics& c : m.cpus)
        if (c.busyNs < 0 || c.busyNs > span)
            fail("CPU busy time outside [0, span]", std::to_string(c.busyNs));
    int64_t last = 0;
    for (const Record& rec : r.recording.records()) {
        if (rec.time < last || rec.time > span)
            fail("records out of time order or outside the span", std::to_string(rec.time));
        last = rec.time;
        if (rec.cpu >= r.recording.cpus)
            fail("a record on a CPU the recording does not have", std::to_string(rec.cpu));
    }
    return 0;
}
