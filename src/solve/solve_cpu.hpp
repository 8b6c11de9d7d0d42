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

/// From this many entries of the L blocks (sum of nrow * nelim over the nodes) the backward sweep runs its
/// independent subtrees as tasks on OpenMP's default number of threads (below it a team costs more than it
/// gives); the bits are the serial sweep's either way. The forward sweep stays serial: sibling subtrees update
/// the same ancestor entries, in an order that fixes the rounding.
constexpr double kParallelBackwardEntries = 1e6;

}  // namespace detail
}  // namespace ssids
