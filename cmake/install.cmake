# `cmake --install`: the ppk tool, libppk and its headers, the patched LIBSVM (libsvm.so.3, its
# svm.h and programs, its Octave/MATLAB mex files) with the ppk plugin, a CMake package (find_package(ppk): targets ppk::ppk, ppk::ppk_core and
# ppk::svm) and a pkg-config file (ppk.pc). include()d from the top-level CMakeLists.txt.
#
# The patched libsvm.so.3 goes to PPK_LIBSVM_LIBDIR (default lib/ppk below the prefix), so it never
# replaces the distribution's /usr/lib/<arch>/libsvm.so.3, and programs find it by their rpath.
# The plugin goes to libsvm-plugins/ next to it, where the patched library looks. Its svm.h goes to
# include/ppk/libsvm/ (not include/libsvm/, the distribution's libsvm-dev's place).
# -DPPK_LIBSVM_LIBDIR=lib (with --prefix /usr: lib/<arch>) does replace the distribution's library,
# so that every program linked with libsvm3 gains the kernels: only when asked.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PPK_LIBSVM_LIBDIR ${CMAKE_INSTALL_LIBDIR}/ppk CACHE STRING
  "where `cmake --install` puts the patched libsvm.so.3 and libsvm-plugins/, relative to the prefix")
set(PPK_LIBSVM_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/ppk/libsvm)
set(PPK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ppk)

# The installed programs that link libsvm.so.3 find it through their rpath, from wherever the
# prefix is moved: bin/../<PPK_LIBSVM_LIBDIR>.
file(RELATIVE_PATH _ppk_bin_to_libsvm /${CMAKE_INSTALL_BINDIR} /${PPK_LIBSVM_LIBDIR})
set(PPK_INSTALLED_PROGRAM_RPATH "$ORIGIN/${_ppk_bin_to_libsvm}")
set_target_properties(ppk_tool svm-train svm-predict svm-scale PROPERTIES INSTALL_RPATH "${PPK_INSTALLED_PROGRAM_RPATH}")

install(TARGETS ppk_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS svm-train svm-predict svm-scale RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ppk ppk_core EXPORT ppkTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS svm EXPORT ppkTargets
  LIBRARY DESTINATION ${PPK_LIBSVM_LIBDIR} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ppk_libsvm_plugin LIBRARY DESTINATION ${PPK_LIBSVM_LIBDIR}/libsvm-plugins)
install(DIRECTORY include/ppk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${LIBSVM_INCLUDE_DIR}/svm.h DESTINATION ${PPK_LIBSVM_INCLUDEDIR})
# LIBSVM's Octave/MATLAB interface (libsvm-patch/mex.cmake), below the patched library, which the
# mex files find as their directory's parent.
if(PPK_OCTAVE)
  install(FILES ${PPK_OCTAVE_MEX_FILES} DESTINATION ${PPK_LIBSVM_LIBDIR}/octave)
endif()
if(PPK_MATLAB)
  install(TARGETS ${PPK_MATLAB_MEX_TARGETS} LIBRARY DESTINATION ${PPK_LIBSVM_LIBDIR}/matlab)
endif()

# The CMake package: find_package(ppk) gives ppk::ppk (libppk, with its families), ppk::ppk_core (its
# first layer alone: what a family needs) and ppk::svm (the patched LIBSVM).
install(EXPORT ppkTargets NAMESPACE ppk:: DESTINATION ${PPK_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ppkConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ppkConfig.cmake INSTALL_DESTINATION ${PPK_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ppkConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ppkConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/ppkConfigVersion.cmake
  DESTINATION ${PPK_CMAKE_DIR})

# pkg-config: `pkg-config --cflags --libs ppk` (paths relative to the .pc file's prefix).
file(RELATIVE_PATH PPK_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" PPK_PC_TO_PREFIX "${PPK_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ppk.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ppk.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ppk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
