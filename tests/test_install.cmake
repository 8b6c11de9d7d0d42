# test_install.cmake — CTest script (cmake -P): install the build tree into a temporary prefix, then build
# examples/c against the installed tree twice (find_package(ssids) with ssids::ssids, and pkg-config with
# the C compiler), and examples/fortran when Fortran is available, and run them: each example checks its
# own residual (< 1e-12) and inertia and exits non-zero otherwise.
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, HAVE_FORTRAN, GENERATOR.
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
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

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

# 2. pkg-config
find_program(PKG_CONFIG pkg-config)
find_program(CC NAMES cc gcc clang)
if(PKG_CONFIG AND CC)
  file(GLOB_RECURSE pcfile ${prefix}/ssids.pc)
  get_filename_component(pcdir "${pcfile}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pcdir})
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs ssids OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ssids failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  execute_process(COMMAND ${PKG_CONFIG} --variable=libdir ssids OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
  run(${CC} -std=c99 -Wall -Wextra -pedantic -Werror ${SOURCE_DIR}/examples/c/ssids_example.c ${flags} -lm
      -Wl,-rpath,${libdir} -o ${WORK_DIR}/example_pc)
  run(${WORK_DIR}/example_pc)
else()
  message(STATUS "pkg-config or a C compiler not found: pkg-config build skipped")
endif()

# 3. Fortran module and example
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
