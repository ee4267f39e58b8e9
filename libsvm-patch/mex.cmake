# LIBSVM's own MATLAB/Octave interface (matlab/ in the patched source: svmtrain, svmpredict,
# libsvmread, libsvmwrite, svmloadmodel, svmsavemodel), built against the patched libsvm.so.3 so
# that -t ppk / ppk_norm work.
#
# include()d from the top-level CMakeLists.txt after libsvm.cmake. Upstream's make.m compiles
# svm.cpp into each mex file; here svmtrain and svmpredict link libsvm.so.3 instead, so that the
# kernel plugins are found in libsvm-plugins/ next to it (the mex files find it by a relative
# RUNPATH, in the build tree and installed alike; cmake/install.cmake installs them).
#
#   PPK_OCTAVE  (default ON when mkoctfile is found)  Octave mex files with mkoctfile --mex, in
#               lib/ppk/octave/ (build tree) and ${PPK_LIBSVM_LIBDIR}/octave/ (installed)
#   PPK_MATLAB  (default ON when matlab is found)     MATLAB mex files with CMake's FindMatlab
#               (matlab_add_mex), in lib/ppk/matlab/ and ${PPK_LIBSVM_LIBDIR}/matlab/

find_program(MKOCTFILE_EXECUTABLE mkoctfile)
find_program(MATLAB_EXECUTABLE matlab)
if(MKOCTFILE_EXECUTABLE)
  set(_ppk_octave_default ON)
else()
  set(_ppk_octave_default OFF)
endif()
if(MATLAB_EXECUTABLE)
  set(_ppk_matlab_default ON)
else()
  set(_ppk_matlab_default OFF)
endif()
option(PPK_OCTAVE "Build LIBSVM's Octave interface (svmtrain, svmpredict, libsvmread, libsvmwrite, svmloadmodel, svmsavemodel) with mkoctfile"
  ${_ppk_octave_default})
option(PPK_MATLAB "Build LIBSVM's MATLAB interface (svmtrain, svmpredict, libsvmread, libsvmwrite, svmloadmodel, svmsavemodel) with MATLAB's mex"
  ${_ppk_matlab_default})

include(GNUInstallDirs)
set(_mex_src ${LIBSVM_SOURCE_DIR}/matlab)
# mex file -> its sources in matlab/; svmtrain and svmpredict also link libsvm.so.3
# (svmloadmodel and svmsavemodel: model files to and from the struct, 07-matlab-model.patch)
set(_mex_names svmtrain svmpredict libsvmread libsvmwrite svmloadmodel svmsavemodel)
set(_mex_sources_svmtrain svmtrain.c svm_model_matlab.c)
set(_mex_sources_svmpredict svmpredict.c svm_model_matlab.c)
set(_mex_sources_libsvmread libsvmread.c)
set(_mex_sources_libsvmwrite libsvmwrite.c)
set(_mex_sources_svmloadmodel svmloadmodel.c svm_model_matlab.c)
set(_mex_sources_svmsavemodel svmsavemodel.c svm_model_matlab.c)
set(_mex_links_svm_svmtrain TRUE)
set(_mex_links_svm_svmpredict TRUE)
set(_mex_links_svm_svmloadmodel TRUE)
set(_mex_links_svm_svmsavemodel TRUE)
# The directory of libsvm.so.3 seen from the mex files: installed, they sit in
# ${PPK_LIBSVM_LIBDIR}/<octave|matlab>/ below it ($ORIGIN/..); in the build tree, in
# lib/ppk/<octave|matlab>/ with libsvm.so.3 in lib/ ($ORIGIN/../..).
set(_mex_runpath "\$ORIGIN/.." "\$ORIGIN/../..")

if(PPK_OCTAVE)
  if(NOT MKOCTFILE_EXECUTABLE)
    message(FATAL_ERROR "PPK_OCTAVE is ON but mkoctfile was not found (Debian: octave-dev); "
      "configure with -DPPK_OCTAVE=OFF to build without the Octave interface")
  endif()
  set(PPK_OCTAVE_MEX_DIR ${CMAKE_BINARY_DIR}/lib/ppk/octave)
  file(MAKE_DIRECTORY ${PPK_OCTAVE_MEX_DIR})
  set(_octave_outputs "")
  foreach(_name IN LISTS _mex_names)
    list(TRANSFORM _mex_sources_${_name} PREPEND ${_mex_src}/ OUTPUT_VARIABLE _sources)
    set(_link "")
    if(_mex_links_svm_${_name})
      # mkoctfile runs the linker through the shell: the $ of $ORIGIN is escaped for it
      set(_link -L$<TARGET_FILE_DIR:svm> -lsvm)
      foreach(_dir IN LISTS _mex_runpath)
        list(APPEND _link "-Wl,-rpath,\\${_dir}")
      endforeach()
    endif()
    set(_out ${PPK_OCTAVE_MEX_DIR}/${_name}.mex)
    # one working directory per mex file: mkoctfile leaves its object files there, and
    # svmtrain and svmpredict both compile svm_model_matlab.c
    set(_work ${CMAKE_BINARY_DIR}/mex-octave/${_name})
    file(MAKE_DIRECTORY ${_work})
    add_custom_command(OUTPUT ${_out}
      COMMAND ${MKOCTFILE_EXECUTABLE} --mex -I${LIBSVM_INCLUDE_DIR} ${_sources} ${_link} -o ${_out}
      DEPENDS ${_sources} ${LIBSVM_INCLUDE_DIR}/svm.h $<$<BOOL:${_mex_links_svm_${_name}}>:svm>
      WORKING_DIRECTORY ${_work}
      COMMENT "mkoctfile --mex ${_name}.mex"
      VERBATIM)
    list(APPEND _octave_outputs ${_out})
  endforeach()
  add_custom_target(octave_mex ALL DEPENDS ${_octave_outputs})
  set(PPK_OCTAVE_MEX_FILES ${_octave_outputs})
endif()

if(PPK_MATLAB)
  find_package(Matlab REQUIRED COMPONENTS MX_LIBRARY)
  foreach(_name IN LISTS _mex_names)
    list(TRANSFORM _mex_sources_${_name} PREPEND ${_mex_src}/ OUTPUT_VARIABLE _sources)
    set(_link_to "")
    if(_mex_links_svm_${_name})
      set(_link_to svm)
    endif()
    matlab_add_mex(NAME matlab_${_name} SRC ${_sources} OUTPUT_NAME ${_name} LINK_TO ${_link_to})
    target_include_directories(matlab_${_name} PRIVATE ${LIBSVM_INCLUDE_DIR})
    set_target_properties(matlab_${_name} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/ppk/matlab
      BUILD_RPATH "${_mex_runpath}" INSTALL_RPATH "${_mex_runpath}")
    list(APPEND PPK_MATLAB_MEX_TARGETS matlab_${_name})
  endforeach()
endif()
