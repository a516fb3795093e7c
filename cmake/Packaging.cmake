# SPDX-License-Identifier: GPL-2.0-or-later
# What `cmake --install` puts where, and the Debian package CPack builds from it (`make package`).
install(TARGETS schedlab schedlab-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(SCHEDLAB_APP_ID io.github.schedlab.schedlab)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/${SCHEDLAB_APP_ID}.desktop
    DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/${SCHEDLAB_APP_ID}.metainfo.xml
    DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/${SCHEDLAB_APP_ID}.svg
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/schedlab.1 ${PROJECT_SOURCE_DIR}/packaging/schedlab-cli.1
    DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The shipped scenarios (File > Open starts here) and the documentation.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/
    DESTINATION ${CMAKE_INSTALL_DATADIR}/schedlab/scenarios FILES_MATCHING PATTERN "*.json")
# The lessons (Help > Lessons) next to them: their scenario paths are "../scenarios/NAME.json".
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lessons/
    DESTINATION ${CMAKE_INSTALL_DATADIR}/schedlab/lessons FILES_MATCHING PATTERN "*.json" PATTERN "*.md"
    PATTERN "*.txt")
# The same layout as the source tree, so that README's links (docs/…, scenarios/README.md) work.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/scenarios/README.md
    DESTINATION ${CMAKE_INSTALL_DOCDIR}/scenarios)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
    DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs PATTERN "*.sh" EXCLUDE)

set(CPACK_PACKAGE_NAME schedlab)
set(CPACK_PACKAGE_VENDOR "schedlab")
set(CPACK_PACKAGE_CONTACT "schedlab maintainers <schedlab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Laboratory for the Linux EEVDF fair scheduler")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "schedlab re-runs a workload on a deterministic model of the Linux kernel's fair scheduler\n"
    "(EEVDF) and shows vruntime, deadlines and lag per task; schedlab-cli runs and compares\n"
    "scenarios headless and imports and exports rt-app workloads.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY schedlab)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # Depends: from the executables' shared libraries
set(CPACK_DEBIAN_PACKAGE_SUGGESTS rt-app)
set(CPACK_STRIP_FILES ON)
include(CPack)

# The package installs into an empty root and its schedlab-cli runs from there (dpkg -x).
if(SCHEDLAB_BUILD_TESTS)
    add_test(NAME package_installs
        COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
            -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/TestPackage.cmake)
    set_tests_properties(package_installs PROPERTIES LABELS package SKIP_RETURN_CODE 77)
    # AppStream metadata and the desktop file pass their validators when these are installed.
    find_program(APPSTREAMCLI appstreamcli)
    if(APPSTREAMCLI)
        add_test(NAME metainfo_validates COMMAND ${APPSTREAMCLI} validate --no-net
            ${PROJECT_SOURCE_DIR}/packaging/${SCHEDLAB_APP_ID}.metainfo.xml)
        set_tests_properties(metainfo_validates PROPERTIES LABELS package)
    endif()
    find_program(DESKTOP_FILE_VALIDATE desktop-file-validate)
    if(DESKTOP_FILE_VALIDATE)
        add_test(NAME desktop_file_validates COMMAND ${DESKTOP_FILE_VALIDATE}
            ${PROJECT_SOURCE_DIR}/packaging/${SCHEDLAB_APP_ID}.desktop)
        set_tests_properties(desktop_file_validates PROPERTIES LABELS package)
    endif()
endif()
