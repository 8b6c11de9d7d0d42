// refine.cpp — iterative refinement, column by column (so that each column's result does not depend on
// the other right-hand sides).
#include "ssids/refine.hpp"

#include <algorithm>
#include <cmath>

#include "ssids/error.hpp"

namespace ssids {

namespace {
double column_backward_error(const SymmetricMatrix& a, double anorm, const double* x, const double* b, double* r) {
  symmetric_multiply(a, x, r);
  double rn = 0.0, xn = 0.0, bn = 0.0;
  for (index_t i = 0; i < a.n; ++i) {
    r[i] = b[i] - r[i];
    rn = std::max(rn, std::fabs(r[i]));
    xn = std::max(xn, std::fabs(x[i]));
    bn = std::max(bn, std::fabs(b[i]));
  }
  double den = anorm * xn + bn;
  if (std::isnan(rn)) return NAN;
  return den > 0.0 ? rn / den : (rn > 0.0 ? INFINITY : 0.0);
}
}  // namespace

RefineReport solve_refined(const SymmetricMatrix& a, const Factors& factors, int nrhs, const double* b,
                           offset_t ldb, double* x, offset_t ldx, const RefineOptions& options, Inform& inform) {
  if (factors.empty()) throw Error(flag::call_sequence, "solve before factor");
  const index_t n = a.n;
  if (factors.n() != n) throw Error(flag::bad_n, "matrix and factors have different sizes");
  if (nrhs < 1 || ldb < n || ldx < n) throw Error(flag::bad_ldx, "nrhs < 1 or leading dimension < n");
  if (n > 0 && (!b || !x)) throw Error(flag::missing_data, "right-hand side or solution array missing");
  for (int c = 0; c < nrhs; ++c) std::copy(b + c * ldb, b + c * ldb + n, x + c * ldx);
  factors.solve(SolveJob::full, nrhs, x, ldx, inform);

  RefineReport rep;
  const double anorm = symmetric_norm_inf(a);
  Vector<double> r(n), dx(n), xold(n);
  for (int c = 0; c < nrhs; ++c) {
    double* xc = x + c * ldx;
    const double* bc = b + c * ldb;
    double err = column_backward_error(a, anorm, xc, bc, r.data());
    int steps = 0;
    while (steps < options.max_steps && err > options.tolerance) {
      std::copy(r.begin(), r.end(), dx.begin());
      factors.solve(SolveJob::full, 1, dx.data(), n, inform);
      std::copy(xc, xc + n, xold.begin());
      for (index_t i = 0; i < n; ++i) xc[i] += dx[i];
      ++steps;
      double e2 = column_backward_error(a, anorm, xc, bc, r.data());
      if (!(e2 < err)) {  // no improvement: undo
        std::copy(xold.begin(), xold.end(), xc);
        break;
      }
      bool slow = e2 > 0.5 * err;
      err = e2;
      if (slow) break;
    }
    rep.steps = std::max(rep.steps, steps);
    if (!(err <= rep.backward_error)) rep.backward_error = err;
  }
  return rep;
}

}  // namespace ssids
