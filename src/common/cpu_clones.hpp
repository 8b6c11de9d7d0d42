// cpu_clones.hpp — SSIDS_CPU_CLONES marks a hot CPU function that is compiled twice, for AVX2 and for the
// baseline x86-64, the copy being chosen when the library is loaded (GCC's target_clones, x86-64 Linux; elsewhere
// the mark is empty). AVX2 without FMA: the vector operations round exactly as the scalar ones and nothing is
// contracted, so both copies give the same bits (the factors do not depend on the machine's vector width).
#pragma once
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(SSIDS_NO_CPU_CLONES)
#define SSIDS_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SSIDS_CPU_CLONES
#endif
