// multifrontal_cpu.hpp — the CPU (OpenMP) multifrontal numeric factorization.
#pragma once
#include "analyse/symbolic.hpp"
#include "factor/numeric.hpp"
#include "ssids/inform.hpp"
#include "ssids/options.hpp"

namespace ssids {
namespace detail {

/// Factorize the matrix with values `val` (caller's positions, see Symbolic::amap) and optional scaling
/// `scale` (by original variable) over the assembly tree of `sym`. Fills `out` (nodes with their L blocks, rows, d, dinv,
/// pivot_var; n) and the factor statistics of `inform` (inertia, rank, delays, 2x2 pivots, nnz(L), flops,
/// maxfront). Values must already be checked to be finite. Throws Error (not_posdef, allocation).
void factor_multifrontal_cpu(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform);

}  // namespace detail
}  // namespace ssids
