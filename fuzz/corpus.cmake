# SPDX-License-Identifier: GPL-2.0-or-later
# Seed corpora of the fuzz harnesses, copied into OUT (never into the source tree):
#   OUT/seed         every scenario file of the source tree and the scenario regressions
#                    (fuzz_scenario_loader, fuzz_scenario_run, fuzz_rtapp_export);
#   OUT/seed-ftrace  tests/data/ftrace/* and tests/data/fuzz-regressions/ftrace/* (fuzz_ftrace_import);
#   OUT/seed-rtapp   tests/data/rtapp/*.json and tests/data/fuzz-regressions/rtapp/*
#                    (fuzz_rtapp_import).
# OUT/new-* (inputs found by the previous run) are emptied.
file(REMOVE_RECURSE ${OUT})
file(GLOB_RECURSE scenarios ${SOURCE}/scenarios/*.json ${SOURCE}/tests/data/*.json)
file(GLOB regressions LIST_DIRECTORIES false ${SOURCE}/tests/data/fuzz-regressions/*)
file(GLOB ftrace ${SOURCE}/tests/data/ftrace/* ${SOURCE}/tests/data/fuzz-regressions/ftrace/*)
file(GLOB rtapp ${SOURCE}/tests/data/rtapp/*.json ${SOURCE}/tests/data/fuzz-regressions/rtapp/*)
list(FILTER scenarios EXCLUDE REGEX "/tests/data/(rtapp|ftrace|fuzz-regressions)/")
list(APPEND scenarios ${regressions})
list(REMOVE_DUPLICATES scenarios)
function(copy_seeds dir)
    file(MAKE_DIRECTORY ${dir})
    set(n 0)
    foreach(seed IN LISTS ARGN)
        math(EXPR n "${n} + 1")
        get_filename_component(name ${seed} NAME)
        configure_file(${seed} ${dir}/${n}-${name} COPYONLY)
    endforeach()
    message(STATUS "fuzz corpus: ${n} seeds in ${dir}")
endfunction()
copy_seeds(${OUT}/seed ${scenarios})
copy_seeds(${OUT}/seed-ftrace ${ftrace})
copy_seeds(${OUT}/seed-rtapp ${rtapp})
file(MAKE_DIRECTORY ${OUT}/new-scenario_loader ${OUT}/new-scenario_run ${OUT}/new-ftrace_import
    ${OUT}/new-rtapp_import ${OUT}/new-rtapp_export)
