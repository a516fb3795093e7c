# SPDX-License-Identifier: GPL-2.0-or-later
# ctest -R package_installs: builds the .deb with CPack into a temporary directory, unpacks it
# into an empty root with dpkg -x and runs that root's schedlab-cli --version. Skipped (77)
# where dpkg is missing. Usage: cmake -DBUILD_DIR=… -DVERSION=… -P TestPackage.cmake
find_program(DPKG dpkg)
get_filename_component(cmake_dir ${CMAKE_COMMAND} DIRECTORY)
find_program(CPACK cpack HINTS ${cmake_dir} NO_DEFAULT_PATH)
if(NOT CPACK)
    find_program(CPACK cpack)
endif()
if(NOT DPKG OR NOT CPACK)
    message("dpkg or cpack not found: skipped")
    cmake_language(EXIT 77)
endif()
set(work ${BUILD_DIR}/package-test)
file(REMOVE_RECURSE ${work})
file(MAKE_DIRECTORY ${work}/root)
execute_process(COMMAND ${CPACK} -G DEB -B ${work}/out WORKING_DIRECTORY ${BUILD_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cpack failed (${rc}):\n${out}")
endif()
file(GLOB debs ${work}/out/*.deb)
list(LENGTH debs n)
if(NOT n EQUAL 1)
    message(FATAL_ERROR "expected one .deb in ${work}/out, found: ${debs}")
endif()
execute_process(COMMAND ${DPKG} -x ${debs} ${work}/root RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg -x ${debs} failed: ${err}")
endif()
foreach(f usr/bin/schedlab usr/bin/schedlab-cli
        usr/share/applications/io.github.schedlab.schedlab.desktop
        usr/share/metainfo/io.github.schedlab.schedlab.metainfo.xml
        usr/share/icons/hicolor/scalable/apps/io.github.schedlab.schedlab.svg
        usr/share/man/man1/schedlab.1 usr/share/man/man1/schedlab-cli.1
        usr/share/schedlab/scenarios/equal-hogs.json usr/share/doc/schedlab/README.md
        usr/share/doc/schedlab/docs/rtapp.md usr/share/doc/schedlab/scenarios/README.md)
    if(NOT EXISTS ${work}/root/${f} AND NOT EXISTS ${work}/root/${f}.gz)
        message(FATAL_ERROR "the package lacks /${f}")
    endif()
endforeach()
execute_process(COMMAND ${work}/root/usr/bin/schedlab-cli --version
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "schedlab-cli ${VERSION}\n")
    message(FATAL_ERROR "schedlab-cli --version from the package: exit ${rc}, '${out}' ${err}")
endif()
# The installed CLI runs an installed scenario.
execute_process(COMMAND ${work}/root/usr/bin/schedlab-cli run
        ${work}/root/usr/share/schedlab/scenarios/equal-hogs.json --duration 100ms --quiet
    RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the packaged schedlab-cli could not run a packaged scenario: ${err}")
endif()
message("ok: ${debs}")
