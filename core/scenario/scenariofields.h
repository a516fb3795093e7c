// SPDX-License-Identifier: GPL-2.0-or-later
// The field tables of the scenario format (docs/scenario-format.md §1), one per flat struct. The
// reader (scenarioreader.cpp) and the writer (scenariowriter.cpp) both walk them; the order of a
// table is the order of the writer's output and of "expected one of: …" in messages.
//
// Adding a key to a flat struct: add the member in its struct (core/sim/scenariospec.h,
// core/workload/program.h or core/kernel/cgroupfiles.h), one row here (key, check, write),
// document it in docs/scenario-format.md; a rule that involves another field goes into the
// section reader as an explicit check.
#pragma once

#include "core/scenario/fieldtable.h"
#include "core/scenario/scenarioreader.h"

namespace schedlab::scenariojson {

/// The top level: schedlab, name, title, description, seed, duration and the sections.
const FieldTable<Scenario>& scenarioFields();
/// kernel: profile, hz, preempt, base_slice, tunable_scaling, features, overrides, costs.
const FieldTable<KernelSpec>& kernelFields();
/// machine: cpus, threads_per_core, cores_per_llc.
const FieldTable<MachineSpec>& machineFields();
/// The cgroup files (cgroups entries, set actions, write operations).
const FieldTable<CgroupFiles, CgroupFileContext>& cgroupFileFields();
/// A task (tasks entries, spawn actions, fork operations).
const FieldTable<TaskSpec, TaskContext>& taskFields();
/// The task attributes a set action may change: nice, cpus, slice, policy.
const FieldTable<SetAction>& setTaskFields();
/// An annotation: at, text.
const FieldTable<Annotation>& annotationFields();

/// Writer helpers shared by the tables and the writer (scenariowriter.cpp).
Json durationJson(Nanoseconds d);
Json durationSpecJson(const DurationSpec& d);
/// @p out with the cgroup files added.
Json cgroupFilesJson(Json out, const CgroupFiles& files);
/// A task object; without the name for a forked child.
Json taskJson(const TaskSpec& task, TaskKind kind);
Json programJson(const std::vector<Op>& program);
Json actionJson(const Action& action);

} // namespace schedlab::scenariojson
