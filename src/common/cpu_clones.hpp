// cpu_clones.hpp — SSIDS_CPU_CLONES marks a hot CPU function that is compiled twice, for AVX2 and for the
// baseline x86-64, the copy being chosen when the library is loaded (GCC's target_clones, x86-64 Linux with
// glibc; elsewhere the mark is empty). AVX2 without FMA: the vector operations round exactly as the scalar ones
// and nothing is contracted, so both copies give the same bits (the results do not depend on the machine's
// vector width). Only functions that cannot throw are marked: an exception thrown inside a clone is not
// propagated to the caller's handler (the dispatcher is treated as not throwing).
#pragma once
#include <cstddef>  // defines __GLIBC__ where the C library is glibc (target_clones needs its ifunc support)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && \
    !defined(SSIDS_NO_CPU_CLONES)
#define SSIDS_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SSIDS_CPU_CLONES
#endif
