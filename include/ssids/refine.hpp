// ssids/refine.hpp — solve with iterative refinement against the original matrix.
#pragma once
#include "ssids/csc.hpp"
#include "ssids/factor.hpp"

namespace ssids {

struct RefineOptions {
  int max_steps = 0;        ///< refinement steps at most (0: plain solve)
  double tolerance = 0.0;   ///< stop a column once its scaled backward error is <= tolerance
};

struct RefineReport {
  int steps = 0;                 ///< largest number of steps taken by any column
  double backward_error = 0.0;   ///< worst scaled backward error over the columns at the end
};

/// Solve A x = b for nrhs columns (b: ldb >= n, x: ldx >= n; b is not modified) using `factors` of `a`,
/// then refine each column independently: r = b - A x, x += A^{-1} r, stopping when the scaled backward
/// error ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf) reaches `tolerance`, stops decreasing by at
/// least a factor of 2, or max_steps is reached (a step that made it worse is undone).
RefineReport solve_refined(const SymmetricMatrix& a, const Factors& factors, int nrhs, const double* b,
                           offset_t ldb, double* x, offset_t ldx, const RefineOptions& options, Inform& inform);

}  // namespace ssids
