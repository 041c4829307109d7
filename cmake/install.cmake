# `cmake --install build --prefix P` installs
#   P/bin/kinase-cc              the driver
#   P/lib/Kinase.so              the pass plugin
#   P/lib/libkinase_rt.a         the host runtime
#   P/include/kinase.h           the public header (all of include/)
#
# Relocatable: kinase-cc finds the plugin, the runtime and kinase.h relative to
# itself (../lib, ../include), so P may be copied anywhere. That is why these
# folders are fixed here rather than taken from GNUInstallDirs, which picks
# lib/<multiarch> for the prefix /usr on Debian, a layout kinase-cc would not
# find.
set(KINASE_INSTALL_BINDIR bin)
set(KINASE_INSTALL_LIBDIR lib)
set(KINASE_INSTALL_INCLUDEDIR include)

install(TARGETS kinase-cc Kinase kinase_rt
        RUNTIME DESTINATION ${KINASE_INSTALL_BINDIR}
        LIBRARY DESTINATION ${KINASE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${KINASE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${KINASE_INSTALL_INCLUDEDIR})
