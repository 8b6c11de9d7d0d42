// ssids/fingerprint.hpp — SHA-256 fingerprints of factors and solutions, for checking bitwise
// reproducibility (`ssids repro`, README "Reproducibility").
//
// A fingerprint is the lower-case hex SHA-256 (FIPS 180-4) of a canonical byte stream. Integers are
// written as little-endian two's complement (int32 or int64 as stated), doubles as the little-endian bytes
// of their IEEE 754 binary64 pattern (so -0.0 differs from +0.0 and NaN payloads count), whatever the host's
// byte order. Two fingerprints are equal exactly when (up to SHA-256 collisions) the canonical forms are
// bitwise equal.
//
// Canonical form of Factors ("ssids-factors-v1"):
//   the 16 ASCII bytes "ssids-factors-v1";
//   int32 n; int32 mode (0 indefinite, 1 posdef); int32 number of assembly-tree nodes;
//   for each node s in the library's node order (postorder, as in Factors::numeric().nodes):
//     int32 nelim; int32 nrow; nrow int32 row indices (ORIGINAL variable indices, 0-based; the first
//     nelim are the variables eliminated at the node in pivot order); the L block, nrow x nelim doubles in
//     column-major order (strict upper triangle as stored, i.e. 0.0);
//   int64 size of D (2n in indefinite mode, else 0) and D (d[2k] = D_kk, d[2k+1] = D_{k+1,k});
//   n int32 pivot_var (pivot position -> original variable);
//   int64 size of the scaling (n, or 0 without scaling) and the scaling S by original variable.
// The backend that computed the factors is NOT part of the form: GPU factors are copied back into the same
// host layout, so CPU and GPU factors that agree bitwise have the same fingerprint. D^{-1} is not hashed
// (it is a function of D); its effect shows in the solution's fingerprint.
//
// Canonical form of a solution ("ssids-solution-v1"): the 17 ASCII bytes "ssids-solution-v1"; int32 n;
// int32 nrhs; then column 0, 1, ... each as n doubles (the padding rows n..ldx-1 are not hashed).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ssids/factor.hpp"
#include "ssids/types.hpp"

namespace ssids {

/// Incremental SHA-256 (FIPS 180-4).
class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;
  Sha256() { reset(); }
  void reset();
  void update(const void* data, std::size_t size);
  /// The digest of everything passed to update() since the last reset; the object is reset afterwards.
  Digest finish();
  /// Lower-case hex of a digest (64 characters).
  static std::string hex(const Digest& d);

 private:
  void compress(const std::uint8_t* block);
  std::uint32_t h_[8];
  std::uint8_t buf_[64];
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;  ///< bytes hashed so far
};

/// Hex SHA-256 of a byte string.
std::string sha256_hex(const void* data, std::size_t size);

/// Fingerprint of factors (canonical form above). Throws Error(call_sequence) for empty factors.
std::string fingerprint(const Factors& factors);
/// Fingerprint of a solution x (n x nrhs, column-major, leading dimension ldx).
/// Throws Error(bad_ldx) when nrhs < 1 or ldx < n, Error(bad_n) when n < 0, Error(missing_data) when x is null
/// and n > 0.
std::string fingerprint(const double* x, index_t n, int nrhs, offset_t ldx);

}  // namespace ssids
