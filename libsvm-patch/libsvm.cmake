# Pristine LIBSVM 3.24, obtained and verified at configure time, with the kernel-plugin patch series
# applied in order (each patch opens with its purpose; docs/libsvm.md describes the series).
#
# include()d from the top-level CMakeLists.txt. Defines
#   svm          libsvm.so.3 (SHARED, SOVERSION 3) from the patched svm.cpp (serial, as LIBSVM 3.24)
#   svm_embedded the same as a static library with hidden symbols (for the Python module)
#   svm-train, svm-predict, svm-scale   the patched programs, in bin/
# and sets LIBSVM_SOURCE_DIR (the patched source tree, with heart_scale, python/, matlab/ ...)
# and LIBSVM_INCLUDE_DIR (where the patched svm.h is).
#
# The source is the cache variable LIBSVM_SOURCE (a LIBSVM 3.24 directory or tarball) if set,
# otherwise Debian's source package, fetched by obtain-libsvm.sh into the build directory
# (downloaded once per build directory). Every file the build uses is checked against SHA256SUMS.

set(LIBSVM_SOURCE "" CACHE PATH
  "LIBSVM 3.24 source: a directory or a tarball (default: Debian's source package via apt-get source)")

set(_libsvm_patch_dir ${CMAKE_CURRENT_LIST_DIR})
set(_libsvm_patches
  ${_libsvm_patch_dir}/01-kernel-type-registry.patch
  ${_libsvm_patch_dir}/02-evaluate-many.patch
  ${_libsvm_patch_dir}/03-support-vector-cache.patch
  ${_libsvm_patch_dir}/04-programs.patch
  ${_libsvm_patch_dir}/05-interfaces.patch
  ${_libsvm_patch_dir}/06-model-loader.patch
  ${_libsvm_patch_dir}/07-matlab-model.patch)
set(LIBSVM_SOURCE_DIR ${CMAKE_BINARY_DIR}/libsvm-src)
set(LIBSVM_INCLUDE_DIR ${LIBSVM_SOURCE_DIR})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${_libsvm_patches} ${_libsvm_patch_dir}/SHA256SUMS ${_libsvm_patch_dir}/obtain-libsvm.sh)

# The directory holding svm.cpp below root (tarballs unpack to libsvm-3.24/ or libsvm-3.24+ds/).
function(_libsvm_find_tree root out)
  if(EXISTS ${root}/svm.cpp)
    set(${out} ${root} PARENT_SCOPE)
    return()
  endif()
  file(GLOB_RECURSE _found LIST_DIRECTORIES false ${root}/*/svm.cpp)
  list(LENGTH _found _n)
  if(NOT _n EQUAL 1)
    message(FATAL_ERROR "LIBSVM: expected one svm.cpp below ${root}, found ${_n}")
  endif()
  get_filename_component(_dir ${_found} DIRECTORY)
  set(${out} ${_dir} PARENT_SCOPE)
endfunction()

# Checks the files listed in SHA256SUMS in dir; a mismatch fails the configure.
function(_libsvm_verify dir what)
  file(STRINGS ${_libsvm_patch_dir}/SHA256SUMS _lines REGEX "^[0-9a-f]+  ")
  set(_bad "")
  foreach(_line IN LISTS _lines)
    string(REGEX MATCH "^([0-9a-f]+)  (.+)$" _m "${_line}")
    set(_want ${CMAKE_MATCH_1})
    set(_name ${CMAKE_MATCH_2})
    if(NOT EXISTS ${dir}/${_name})
      string(APPEND _bad "\n  ${_name}: missing")
      continue()
    endif()
    file(SHA256 ${dir}/${_name} _got)
    if(NOT _got STREQUAL _want)
      string(APPEND _bad "\n  ${_name}: sha256 ${_got}, expected ${_want}")
    endif()
  endforeach()
  if(_bad)
    message(FATAL_ERROR "LIBSVM: ${what} is not pristine LIBSVM 3.24 (checked against "
      "${_libsvm_patch_dir}/SHA256SUMS):${_bad}\n"
      "Point LIBSVM_SOURCE at an unmodified LIBSVM 3.24 directory or tarball, or leave it empty "
      "to fetch Debian's source package.")
  endif()
endfunction()

# Makes ${LIBSVM_SOURCE_DIR}: a verified pristine copy with the patches applied. Skipped when the
# stamp shows the same source and patches were applied before, so re-configuring rebuilds nothing.
function(_libsvm_prepare)
  set(_work ${CMAKE_BINARY_DIR}/libsvm-download)
  if(LIBSVM_SOURCE)
    get_filename_component(_source ${LIBSVM_SOURCE} ABSOLUTE)
    if(NOT EXISTS ${_source})
      message(FATAL_ERROR "LIBSVM: LIBSVM_SOURCE=${LIBSVM_SOURCE} does not exist")
    endif()
  else()
    set(_source ${_work}/libsvm_3.24+ds.orig.tar.xz)
    if(NOT EXISTS ${_source})
      message(STATUS "LIBSVM: fetching Debian's libsvm 3.24 source package (obtain-libsvm.sh)")
      execute_process(COMMAND bash ${_libsvm_patch_dir}/obtain-libsvm.sh ${_work}
        RESULT_VARIABLE _rc)
      if(NOT _rc EQUAL 0 OR NOT EXISTS ${_source})
        message(FATAL_ERROR "LIBSVM: could not obtain the source (see above). Configure with "
          "-DLIBSVM_SOURCE=<LIBSVM 3.24 directory or tarball>.")
      endif()
    endif()
  endif()

  # What the source is: the tarball's hash, or the directory's file hashes.
  set(_patch_hashes "")
  foreach(_patch IN LISTS _libsvm_patches)
    file(SHA256 ${_patch} _h)
    string(APPEND _patch_hashes " ${_h}")
  endforeach()
  if(IS_DIRECTORY ${_source})
    _libsvm_find_tree(${_source} _tree)
    _libsvm_verify(${_tree} "${_tree}")
    set(_identity "dir ${_tree}")
    file(GLOB_RECURSE _all LIST_DIRECTORIES false ${_tree}/*)
    list(SORT _all)
    foreach(_f IN LISTS _all)
      file(SHA256 ${_f} _h)
      string(APPEND _identity " ${_h}")
    endforeach()
  else()
    file(SHA256 ${_source} _h)
    set(_identity "tarball ${_h}")
  endif()
  set(_stamp_text "source ${_identity}\npatches${_patch_hashes}\n")
  set(_stamp ${LIBSVM_SOURCE_DIR}/.ppk-patched)
  if(EXISTS ${_stamp})
    file(READ ${_stamp} _old)
    if(_old STREQUAL _stamp_text)
      return()
    endif()
  endif()

  # Fresh copy: unpack (tarball) or copy (directory), verify, patch.
  set(_staging ${CMAKE_BINARY_DIR}/libsvm-staging)
  file(REMOVE_RECURSE ${_staging} ${LIBSVM_SOURCE_DIR})
  file(MAKE_DIRECTORY ${_staging})
  if(IS_DIRECTORY ${_source})
    file(COPY ${_tree}/ DESTINATION ${_staging}/tree)
    set(_tree ${_staging}/tree)
  else()
    file(ARCHIVE_EXTRACT INPUT ${_source} DESTINATION ${_staging})
    _libsvm_find_tree(${_staging} _tree)
    _libsvm_verify(${_tree} "${_source}")
  endif()
  file(RENAME ${_tree} ${LIBSVM_SOURCE_DIR})
  file(REMOVE_RECURSE ${_staging})

  find_program(PATCH_EXECUTABLE patch REQUIRED)
  foreach(_patch IN LISTS _libsvm_patches)
    execute_process(COMMAND ${PATCH_EXECUTABLE} -p1 --forward --batch --quiet -i ${_patch}
      WORKING_DIRECTORY ${LIBSVM_SOURCE_DIR}
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "LIBSVM: ${_patch} does not apply to ${_source}:\n${_out}${_err}")
    endif()
  endforeach()
  file(WRITE ${_stamp} "${_stamp_text}")
  message(STATUS "LIBSVM: patched source in ${LIBSVM_SOURCE_DIR}")
endfunction()

_libsvm_prepare()

include(GNUInstallDirs)

# Compiled the way Debian builds libsvm3 (dpkg-buildflags with hardening, plus -Wall), so that
# the stock kernel types give byte-identical model files to the distribution's svm-train.
# (Debug builds keep -O0 and drop _FORTIFY_SOURCE, which needs optimization.)
set(_libsvm_flags -Wall -fstack-protector-strong -Wformat -Werror=format-security
  "$<$<NOT:$<CONFIG:Debug>>:-O2;-D_FORTIFY_SOURCE=2>")
set(_libsvm_link_flags -Wl,-z,relro -Wl,-z,now)

add_library(svm SHARED ${LIBSVM_SOURCE_DIR}/svm.cpp ${LIBSVM_SOURCE_DIR}/svm.h)
set_target_properties(svm PROPERTIES OUTPUT_NAME svm VERSION 3.24 SOVERSION 3)
target_include_directories(svm PUBLIC $<BUILD_INTERFACE:${LIBSVM_INCLUDE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/ppk/libsvm>)
target_compile_options(svm PRIVATE ${_libsvm_flags})
target_link_options(svm PRIVATE ${_libsvm_link_flags})
target_link_libraries(svm PRIVATE ${CMAKE_DL_LIBS})

# The same patched svm.cpp as a static library with hidden symbols, for the Python module
# (python/): the module carries its own LIBSVM, which it calls directly, so it depends on no
# libsvm.so and never binds to another one loaded in the process (the distribution's unpatched one).
add_library(svm_embedded STATIC ${LIBSVM_SOURCE_DIR}/svm.cpp)
set_target_properties(svm_embedded PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden
  EXCLUDE_FROM_ALL ON)
target_include_directories(svm_embedded PUBLIC ${LIBSVM_INCLUDE_DIR})
target_compile_options(svm_embedded PRIVATE ${_libsvm_flags})
target_link_libraries(svm_embedded PRIVATE ${CMAKE_DL_LIBS})

# LIBSVM's programs are C files that its Makefile compiles as C++; so do we.
set_source_files_properties(${LIBSVM_SOURCE_DIR}/svm-train.c ${LIBSVM_SOURCE_DIR}/svm-predict.c
  ${LIBSVM_SOURCE_DIR}/svm-scale.c PROPERTIES LANGUAGE CXX)
foreach(_program svm-train svm-predict svm-scale)
  add_executable(${_program} ${LIBSVM_SOURCE_DIR}/${_program}.c)
  target_compile_options(${_program} PRIVATE ${_libsvm_flags})
  target_link_options(${_program} PRIVATE ${_libsvm_link_flags})
  if(NOT _program STREQUAL "svm-scale")
    target_link_libraries(${_program} PRIVATE svm)
  endif()
endforeach()
# Installed by cmake/install.cmake.
