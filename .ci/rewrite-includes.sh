#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Include paths after the layer split of issue 34 (headers moved inside core/). Idempotent: run it
# from the source tree's top after merging a branch written against the old paths, then build.
#   core/record/migration.{h,cpp}  -> core/sched/          (scheduler vocabulary: MigrateReason)
#   core/scenario/limits.h         -> core/base/limits.h   (bounds the model and the formats share)
#   core/kernel/kernelwork.{h,cpp} -> core/workload/       (the cost of a task's kernel work)
#   core/scenario/scenario.h       -> core/sim/scenariospec.h (Scenario, KernelSpec, MachineSpec...)
#                                     core/workload/program.h (TaskSpec, Op, DurationSpec, Policy)
#                                     core/kernel/cgroupfiles.h (CgroupFiles, CpuMax)
set -eu
files=$(git ls-files '*.h' '*.cpp' | grep -v '^build/')
changed=$(grep -l -E '#include "(core/record/migration\.h|migration\.h|core/scenario/limits\.h|limits\.h|core/kernel/kernelwork\.h|core/scenario/scenario\.h|scenario\.h)"' $files || true)
for f in $changed; do
    dir=$(dirname "$f")
    sed -i -E \
        -e 's@#include "core/record/migration\.h"@#include "core/sched/migration.h"@' \
        -e 's@#include "core/scenario/limits\.h"@#include "core/base/limits.h"@' \
        -e 's@#include "core/kernel/kernelwork\.h"@#include "core/workload/kernelwork.h"@' \
        -e 's@#include "core/scenario/scenario\.h"@#include "core/sim/scenariospec.h"@' \
        "$f"
    # Relative includes of a moved header from a folder it left.
    case "$dir" in
    core/record) sed -i 's@#include "migration\.h"@#include "core/sched/migration.h"@' "$f" ;;
    core/scenario) sed -i -e 's@#include "limits\.h"@#include "core/base/limits.h"@' \
        -e 's@#include "scenario\.h"@#include "core/sim/scenariospec.h"@' "$f" ;;
    core/kernel) sed -i 's@#include "kernelwork\.h"@#include "core/workload/kernelwork.h"@' "$f" ;;
    esac
done
# The model's own headers take the narrow part they need, not the whole scenario.
sed -i 's@#include "core/sim/scenariospec\.h"@#include "core/workload/program.h"@' core/workload/task.h
sed -i 's@#include "core/sim/scenariospec\.h"@#include "core/kernel/cgroupfiles.h"@' core/fair/cfsbandwidth.h
# The same paths named in comments and documents.
mentions=$(git ls-files '*.h' '*.cpp' '*.md' '*.txt' | xargs grep -l -E 'core/(record/migration\.|scenario/limits\.h|kernel/kernelwork)' || true)
[ -z "$mentions" ] || sed -i -E -e 's@core/record/migration\.@core/sched/migration.@g' \
    -e 's@core/scenario/limits\.h@core/base/limits.h@g' \
    -e 's@core/kernel/kernelwork@core/workload/kernelwork@g' $mentions
[ -z "$changed" ] || clang-format -i $changed core/workload/task.h core/fair/cfsbandwidth.h
# The model's cgroup pattern match and enum spellings are no longer the file format's.
sed -i 's@#include "core/scenario/jsonvalues\.h"@#include "core/base/enumnames.h"\n#include "core/kernel/cgroupfiles.h"\n#include "core/workload/program.h"@' core/sim/machineclasses.cpp
clang-format -i core/sim/machineclasses.cpp
