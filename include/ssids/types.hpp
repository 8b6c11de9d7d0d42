// ssids/types.hpp — basic index types shared by the whole library.
// Row indices and node counts are 32-bit; offsets into arrays of nonzeros are 64-bit (as in SPRAL).
#pragma once
#include <cstdint>

namespace ssids {

using index_t = std::int32_t;   ///< row/column indices, node numbers
using offset_t = std::int64_t;  ///< offsets into arrays of nonzeros (ptr arrays)

/// Which backend performs the numerical work.
enum class Backend { cpu = 0, gpu = 1, automatic = 2 };

/// Factorization mode.
enum class Mode {
  indefinite = 0,  ///< LDL^T with threshold 1x1/2x2 pivoting and delayed pivots
  posdef = 1,      ///< Cholesky LL^T, no pivoting
};

/// Partial and full solves, numbered as SPRAL's `job` argument.
enum class SolveJob {
  full = 0,              ///< A x = b
  forward = 1,           ///< P L x = S b
  diagonal = 2,          ///< D x = b
  backward = 3,          ///< (P L)^T S^{-1} x = b
  diagonal_backward = 4  ///< D (P L)^T S^{-1} x = b
};

}  // namespace ssids
