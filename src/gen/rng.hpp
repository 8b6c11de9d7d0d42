// gen/rng.hpp — the seeded random stream used by every generator.
//
// Generated matrices must be bit-identical across compilers and platforms, so only std::mt19937_64
// (whose output sequence the standard fixes) is used; the mapping of its 64-bit words to doubles and to
// integer ranges is done here by hand. The std distributions are deliberately avoided: their algorithms
// are implementation-defined.
#pragma once
#include <cstdint>
#include <random>

namespace ssids {
namespace gen {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1): the top 53 bits of one word, scaled exactly by 2^-53.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  /// Integer in [0, m), m >= 1. Plain modulo: the bias (< m / 2^64) is irrelevant for test matrices and
  /// the result is fully portable.
  std::uint64_t below(std::uint64_t m) { return engine_() % m; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace gen
}  // namespace ssids
