#!/usr/bin/env bash
# tools/sanitize.sh — build the CPU library and tests with AddressSanitizer + UndefinedBehaviorSanitizer
# (CUDA off) and run the CPU test suite under them (issue 11). Compiler: gcc/g++ by default (build-asan-gcc/);
# SSIDS_SANITIZE_CC=clang-14 SSIDS_SANITIZE_CXX=clang++-14 builds faster (build-asan-clang/) but clang-14
# rejects, in C++17, lambdas capturing structured bindings that gcc accepts (test_cli, test_generate, test_capi).
# Usage: tools/sanitize.sh [extra ctest args]      e.g. tools/sanitize.sh -R hardening
# Conventions: UBSan errors abort (-fno-sanitize-recover=all), so a finding fails its test; LeakSanitizer
# runs at every test process exit with tools/lsan.supp (OpenMP/OpenBLAS runtime pools only). Tests labelled
# "gpu" (need a device) and "slow" are excluded: the slow ones take too long under ASan for CI; so is
# capi_install, which links an uninstrumented program against the installed (instrumented) library.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${SSIDS_SANITIZE_JOBS:-2}"
cc="${SSIDS_SANITIZE_CC:-gcc}" cxx="${SSIDS_SANITIZE_CXX:-g++}"
dir="build-asan-$(basename "$cc" | sed 's/-[0-9]*$//')"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_CXX_COMPILER="$cxx" -DSSIDS_WITH_CUDA=OFF -DSSIDS_SANITIZE=address,undefined
cmake --build "$dir" -j"$jobs"
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0"
ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE "gpu|slow" -E "^capi_install$" "$@"
