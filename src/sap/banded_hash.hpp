// banded_hash.hpp — the value formula of the GPU benchmarks' dense banded test matrices, shared by the host
// generator and the device kernel so that both produce the same bits (sap_gpu.hpp).
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define SSIDS_HOST_DEVICE __host__ __device__
#else
#define SSIDS_HOST_DEVICE
#endif

namespace ssids {
namespace sap {
namespace detail {

/// splitmix64 finalizer (Steele, Lea, Flood 2014): a bijective 64-bit mix.
SSIDS_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Off-diagonal a(i, j), uniform in [-1, 1) on a 2^-52 grid.
SSIDS_HOST_DEVICE inline double banded_value(std::uint64_t seed, std::int64_t i, std::int64_t j) {
  const std::uint64_t h = mix64(mix64(seed) ^ (static_cast<std::uint64_t>(i) * 0x100000001B3ull + static_cast<std::uint64_t>(j)));
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
