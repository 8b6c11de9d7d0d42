// solve_cpu.hpp — CPU forward, diagonal and backward sweeps over the factors (NumericFactors layout).
// x is n x nrhs, column-major, leading dimension ldx, indexed by ORIGINAL variable; updated in place.
// Each column is processed by the same sequence of operations whatever nrhs is, so a column of a
// multi-RHS solve is bitwise equal to the single-RHS solve of that column.
#pragma once
#include "factor/numeric.hpp"

namespace ssids {
namespace detail {

void solve_forward_cpu(const NumericFactors& f, int nrhs, double* x, offset_t ldx);   ///< x <- (P L)^{-1} x
void solve_diagonal_cpu(const NumericFactors& f, int nrhs, double* x, offset_t ldx);  ///< x <- D^{-1} x
void solve_backward_cpu(const NumericFactors& f, int nrhs, double* x, offset_t ldx);  ///< x <- (P L)^{-T} x

}  // namespace detail
}  // namespace ssids
