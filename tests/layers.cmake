# SPDX-License-Identifier: GPL-2.0-or-later
# The layer map (core/README.md, "Layers"), checked: every `#include "dir/…"` in a layer's sources
# must name a file of the same layer or of a layer it may include. Fails naming file:line.
#   cmake -DSOURCE=<top of the tree> -P tests/layers.cmake
# A file belongs to the layer of the longest path prefix below that matches it (relative to the
# top, without extension, so "ui/export/capture" holds capture.h and capture.cpp). Includes of
# paths no layer holds (system headers, generated files, tests/) are not checked. The CMake
# libraries follow the same map (core/, cli/, ui/CMakeLists.txt): a layer links only what it may
# include.

cmake_minimum_required(VERSION 3.25)

# Layer: the paths it holds.
set(layer_base core/base)
set(layer_units core/kernel core/sched core/fair core/rt core/dl core/coresched core/workload
    core/record)
# core/sim: the machine (internal) and the facade the layers above use.
set(layer_machine core/sim/machine core/sim/eventqueue)
set(layer_sim core/sim)
set(layer_formats core/scenario core/import core/rtapp)
set(layer_lessons core/lesson)
set(layer_cli cli)
set(layer_timeline ui/timeline/model)
set(layer_plot ui/common ui/timeline ui/export/capture ui/export/sweepplot)
set(layer_ui ui)
set(layer_app app)
set(layer_runner runner)
set(layer_fuzz fuzz)

# Layer: the layers it may include besides itself. The model (schedlab_model) is base, units,
# sim and machine: outside core/sim/ a unit reaches the machine through its services interface,
# and above the model only the facade (simulation.h, inspect.h, scenariospec.h) is used.
set(uses_base "")
set(uses_units base)
set(uses_machine base units sim)
set(uses_sim base units machine)
set(uses_formats base units sim)
set(uses_lessons base units sim formats)
set(uses_cli base units sim formats lessons)
set(uses_timeline base units sim)
set(uses_plot base units sim formats lessons cli timeline)
set(uses_ui base units sim formats lessons cli timeline plot)
set(uses_app base units sim formats lessons cli timeline plot ui)
set(uses_runner base units sim formats)
set(uses_fuzz base units sim formats)

set(layers base units machine sim formats lessons cli timeline plot ui app runner fuzz)

if(NOT SOURCE)
    message(FATAL_ERROR "usage: cmake -DSOURCE=<top of the tree> -P layers.cmake")
endif()

# The layer of a path relative to SOURCE (empty if none): the longest matching prefix.
function(layer_of path out)
    string(REGEX REPLACE "\\.[a-z]+$" "" stem "${path}")
    set(best "")
    set(best_length 0)
    foreach(layer IN LISTS layers)
        foreach(prefix IN LISTS layer_${layer})
            string(LENGTH "${prefix}" length)
            if(length GREATER best_length)
                if(stem STREQUAL prefix OR stem MATCHES "^${prefix}/")
                    set(best ${layer})
                    set(best_length ${length})
                endif()
            endif()
        endforeach()
    endforeach()
    set(${out} "${best}" PARENT_SCOPE)
endfunction()

set(bad "")
set(checked 0)
set(includes 0)
foreach(layer IN LISTS layers)
    foreach(prefix IN LISTS layer_${layer})
        if(IS_DIRECTORY ${SOURCE}/${prefix})
            file(GLOB_RECURSE files RELATIVE ${SOURCE} ${SOURCE}/${prefix}/*.h ${SOURCE}/${prefix}/*.cpp)
        else()
            file(GLOB files RELATIVE ${SOURCE} ${SOURCE}/${prefix}.h ${SOURCE}/${prefix}.cpp)
        endif()
        list(APPEND all_files ${files})
    endforeach()
endforeach()
list(REMOVE_DUPLICATES all_files)
list(SORT all_files)

foreach(file IN LISTS all_files)
    layer_of(${file} layer)
    math(EXPR checked "${checked} + 1")
    file(STRINGS ${SOURCE}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+/[^\"]+\"")
    foreach(line IN LISTS lines)
        string(REGEX MATCH "\"([^\"]+)\"" quoted "${line}")
        set(target "${CMAKE_MATCH_1}")
        layer_of(${target} target_layer)
        if(NOT target_layer OR target_layer STREQUAL layer)
            continue()
        endif()
        math(EXPR includes "${includes} + 1")
        if(NOT target_layer IN_LIST uses_${layer})
            # The line number: newlines before the first occurrence of the line.
            file(READ ${SOURCE}/${file} text)
            string(FIND "${text}" "${line}" offset)
            string(SUBSTRING "${text}" 0 ${offset} before)
            string(REGEX MATCHALL "\n" newlines "${before}")
            list(LENGTH newlines number)
            math(EXPR number "${number} + 1")
            string(REPLACE ";" ", " allowed "${uses_${layer}}")
            string(APPEND bad "${file}:${number}: ${layer} includes ${target} (${target_layer}), "
                "but ${layer} may include only: ${allowed}\n")
        endif()
    endforeach()
endforeach()

if(bad)
    message(FATAL_ERROR "A lower layer includes a higher one (tests/layers.cmake has the map):\n"
        "${bad}")
endif()
message(STATUS "layers respected: ${checked} files, ${includes} includes across layers")
