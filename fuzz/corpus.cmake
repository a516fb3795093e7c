# SPDX-License-Identifier: GPL-2.0-or-later
# Seed corpus of the fuzz harnesses: every scenario file of the source tree, copied into OUT/seed
# (never into the source tree); OUT/new-* (inputs found by the previous run) are emptied.
file(REMOVE_RECURSE ${OUT})
file(GLOB_RECURSE seeds ${SOURCE}/scenarios/*.json ${SOURCE}/tests/data/*.json
    ${SOURCE}/tests/data/fuzz-regressions/*)
list(REMOVE_DUPLICATES seeds)
file(MAKE_DIRECTORY ${OUT}/seed ${OUT}/new-loader ${OUT}/new-run)
set(n 0)
foreach(seed IN LISTS seeds)
    math(EXPR n "${n} + 1")
    get_filename_component(name ${seed} NAME)
    configure_file(${seed} ${OUT}/seed/${n}-${name} COPYONLY)
endforeach()
list(LENGTH seeds count)
message(STATUS "fuzz corpus: ${count} seeds in ${OUT}/seed")
