# `cmake --install build --prefix P` installs
#   P/bin/kinase-cc              the driver
#   P/bin/kinase-c++             the C++ driver: a link to kinase-cc
#   P/lib/Kinase.so              the pass plugin
#   P/lib/libkinase_rt.a         the host runtime
#   P/include/kinase.h           the public header (all of include/)
#   P/lib/cmake/Kinase/          the CMake package (find_package(Kinase))
#
# Relocatable: kinase-cc finds the plugin, the runtime and kinase.h relative to
# itself (../lib, ../include), and KinaseConfig.cmake finds everything relative
# to itself, so P may be copied anywhere. That is why these folders are fixed
# here rather than taken from GNUInstallDirs, which picks lib/<multiarch> for
# the prefix /usr on Debian, a layout kinase-cc would not find.
include(CMakePackageConfigHelpers)

set(KINASE_INSTALL_BINDIR bin)
set(KINASE_INSTALL_LIBDIR lib)
set(KINASE_INSTALL_INCLUDEDIR include)
set(KINASE_INSTALL_CMAKEDIR ${KINASE_INSTALL_LIBDIR}/cmake/Kinase)

install(TARGETS kinase-cc Kinase kinase_rt
        RUNTIME DESTINATION ${KINASE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${KINASE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${KINASE_INSTALL_LIBDIR})
# The link itself, which file(INSTALL) copies as a link.
install(FILES $<TARGET_FILE_DIR:kinase-cc>/kinase-c++ DESTINATION ${KINASE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${KINASE_INSTALL_INCLUDEDIR})

# The package (cmake/KinaseConfig.cmake.in): imported targets, paths relative
# to the config file, and a check that the consumer compiles with clang
# ${LLVM_VERSION_MAJOR}, the clang this plugin loads into.
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/KinaseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/KinaseConfig.cmake
  INSTALL_DESTINATION ${KINASE_INSTALL_CMAKEDIR}
  PATH_VARS KINASE_INSTALL_BINDIR KINASE_INSTALL_LIBDIR KINASE_INSTALL_INCLUDEDIR)
# 0.x: a new minor version may change the ABI or the interface, so only the
# same major.minor (and a patch at least the one asked for) is compatible.
# From 1.0 on this becomes SameMajorVersion.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/KinaseConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/KinaseConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/KinaseConfigVersion.cmake
        DESTINATION ${KINASE_INSTALL_CMAKEDIR})
