# test_install.cmake — CTest script (cmake -P): install libssids into a temporary prefix and build C (and
# Fortran) programs against the INSTALLED tree only, then run them; each program checks its own residual
# (< 1e-12) and inertia and exits non-zero otherwise.
#
# Default (capi_install): the build tree BUILD_DIR (shared or static, as configured) is installed; then
#  1. examples/c through the CMake package (find_package(ssids), ssids::ssids);
#  2. examples/c/ssids_example.c and examples/c/spral_style.c (SPRAL's documented style: 1-based arrays,
#     <spral.h> only) with the C compiler and the flags of pkg-config;
#  3. the same build tree installed once more through its install script with SSIDS_INSTALL_AS_SPRAL=ON
#     (given at install time), and spral_style.c linked with -lspral, as a program written for SPRAL is;
#  4. examples/fortran when Fortran is available.
# STATIC=ON (capi_install_static): SOURCE_DIR is configured afresh with BUILD_SHARED_LIBS=OFF and
# SSIDS_INSTALL_AS_SPRAL=ON (CUDA, Fortran and tests off), only the installed targets are built, and 1-3 run
# against that static install (pkg-config --static; -lspral finds libspral.a).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, HAVE_FORTRAN, GENERATOR, STATIC (optional).
cmake_minimum_required(VERSION 3.16)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

if(STATIC)
  set(lib_build ${WORK_DIR}/static-build)
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${lib_build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
      -DBUILD_SHARED_LIBS=OFF -DSSIDS_INSTALL_AS_SPRAL=ON -DSSIDS_WITH_CUDA=OFF -DSSIDS_WITH_FORTRAN=OFF
      -DSSIDS_BUILD_TESTS=OFF)
  run(${CMAKE_COMMAND} --build ${lib_build} --target ssids ssids_cli -j 2)
  run(${CMAKE_COMMAND} --install ${lib_build} --prefix ${prefix})
  file(GLOB_RECURSE libs ${prefix}/libssids.a ${prefix}/libspral.a)
  list(LENGTH libs nlibs)
  if(NOT nlibs EQUAL 2)
    message(FATAL_ERROR "static install: expected libssids.a and libspral.a, found: ${libs}")
  endif()
else()
  set(lib_build ${BUILD_DIR})
  run(${CMAKE_COMMAND} --install ${lib_build} --prefix ${prefix})
endif()

# the installed tree has the C headers at the include root and none of the internal headers
foreach(f include/spral_ssids.h include/spral.h include/ssids/ssids.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB_RECURSE internal ${prefix}/include/*/numeric.hpp ${prefix}/include/*/symbolic.hpp)
if(internal)
  message(FATAL_ERROR "internal headers installed: ${internal}")
endif()

# 1. CMake package
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/c -B ${WORK_DIR}/example-c -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/example-c)
run(${WORK_DIR}/example-c/ssids_example_c)
run(${WORK_DIR}/example-c/ssids_spral_style_c)

# 2. and 3. the C compiler with pkg-config's flags, and -lspral
find_program(PKG_CONFIG pkg-config)
find_program(CC NAMES cc gcc clang)
if(PKG_CONFIG AND CC)
  file(GLOB_RECURSE pcfile ${prefix}/ssids.pc)
  get_filename_component(pcdir "${pcfile}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pcdir})
  set(static_flag)
  if(STATIC)
    set(static_flag --static)
  endif()
  execute_process(COMMAND ${PKG_CONFIG} ${static_flag} --cflags --libs ssids OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ssids failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  execute_process(COMMAND ${PKG_CONFIG} --variable=libdir ssids OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${PKG_CONFIG} --variable=includedir ssids OUTPUT_VARIABLE incdir
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  foreach(prog ssids_example spral_style)
    run(${CC} -std=c99 -Wall -Wextra -pedantic -Werror ${SOURCE_DIR}/examples/c/${prog}.c ${flags} -lm
        -Wl,-rpath,${libdir} -o ${WORK_DIR}/${prog}_pc)
    run(${WORK_DIR}/${prog}_pc)
  endforeach()

  # 3. SPRAL's name: -lspral and nothing else of ours on the command line (the static link also needs the
  # private dependencies, as it would with SPRAL itself)
  if(NOT STATIC)
    run(${CMAKE_COMMAND} -DSSIDS_INSTALL_AS_SPRAL=ON -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix-spral
        -P ${lib_build}/cmake_install.cmake)
    file(GLOB_RECURSE spral_lib ${WORK_DIR}/prefix-spral/libspral.so)
    get_filename_component(spral_libdir "${spral_lib}" DIRECTORY)
    set(spral_inc ${WORK_DIR}/prefix-spral/include)
    set(spral_extra)
  else()
    set(spral_libdir ${libdir})
    set(spral_inc ${incdir})
    execute_process(COMMAND ${PKG_CONFIG} --static --libs-only-l ssids OUTPUT_VARIABLE spral_extra
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    separate_arguments(spral_extra UNIX_COMMAND "${spral_extra}")
    list(REMOVE_ITEM spral_extra -lssids)
  endif()
  if(NOT EXISTS "${spral_libdir}")
    message(FATAL_ERROR "SSIDS_INSTALL_AS_SPRAL installed no libspral")
  endif()
  run(${CC} -std=c99 -Wall -Wextra -pedantic -Werror -I${spral_inc} ${SOURCE_DIR}/examples/c/spral_style.c
      -L${spral_libdir} -lspral ${spral_extra} -lm -Wl,-rpath,${spral_libdir} -o ${WORK_DIR}/spral_style_lspral)
  run(${WORK_DIR}/spral_style_lspral)
else()
  message(STATUS "pkg-config or a C compiler not found: pkg-config and -lspral builds skipped")
endif()

# 4. Fortran module and example
if(HAVE_FORTRAN)
  if(NOT EXISTS ${prefix}/include/ssids_c.mod)
    message(FATAL_ERROR "Fortran module ssids_c.mod not installed")
  endif()
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/fortran -B ${WORK_DIR}/example-fortran -G ${GENERATOR}
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/example-fortran)
  run(${WORK_DIR}/example-fortran/ssids_example_fortran)
endif()
file(REMOVE_RECURSE ${WORK_DIR})
