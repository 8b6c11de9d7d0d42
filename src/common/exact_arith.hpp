// exact_arith.hpp — double arithmetic that gives the same bits on the host and on CUDA devices: __dmul_rn etc. on
// the device (never contracted into a fused multiply-add) and plain IEEE operations on the host (the library is
// built for the baseline x86-64, which has no fused multiply-add; GCC does contract in C++17 mode when the target
// has one, e.g. -march=x86-64-v3, unless -ffp-contract=off). A fused multiply-add is written out where it is
// wanted (fmadd: __fma_rn and std::fma, one rounding on both). Code shared by a kernel and its CPU twin
// (tridiag/pcr_core.hpp, factor/small_front_core.hpp) does its arithmetic through these.
#pragma once
#include <cmath>

#include "common/host_device.hpp"

namespace ssids {
namespace detail {
namespace exact {

SSIDS_HOST_DEVICE double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
SSIDS_HOST_DEVICE double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
SSIDS_HOST_DEVICE double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
SSIDS_HOST_DEVICE double dvd(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
/// a*b + c with one rounding (a fused multiply-add): __fma_rn on the device, std::fma on the host (glibc runs the
/// processor's instruction where it has one, else an exact software one: the same value either way).
SSIDS_HOST_DEVICE double fmadd(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
/// 1/a rounded to nearest (the same value as dvd(1, a)).
SSIDS_HOST_DEVICE double rcp(double a) {
#if defined(__CUDA_ARCH__)
  return __drcp_rn(a);
#else
  return 1.0 / a;
#endif
}

}  // namespace exact
}  // namespace detail
}  // namespace ssids
