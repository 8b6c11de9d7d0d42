// csc.cpp — products and norms on the owning matrix types (0-based, lower triangle).
#include "ssids/csc.hpp"

#include <algorithm>
#include <cmath>

#include "ssids/error.hpp"

namespace ssids {

void symmetric_multiply(const SymmetricMatrix& a, const double* x, double* y) {
  for (index_t i = 0; i < a.n; ++i) y[i] = 0.0;
  for (index_t j = 0; j < a.n; ++j) {
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      index_t i = a.row[k];
      double v = a.val[k];
      y[i] += v * x[j];
      if (i != j) y[j] += v * x[i];
    }
  }
}

double symmetric_norm_inf(const SymmetricMatrix& a) {
  Vector<double> rs(a.n, 0.0);
  for (index_t j = 0; j < a.n; ++j) {
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      index_t i = a.row[k];
      double v = std::fabs(a.val[k]);
      rs[i] += v;
      if (i != j) rs[j] += v;
    }
  }
  double m = 0.0;
  for (double v : rs) m = std::max(m, v);
  return m;
}

double scaled_backward_error(const SymmetricMatrix& a, const double* x, const double* b, int nrhs, offset_t ld) {
  if (nrhs < 1 || ld < a.n) throw Error(flag::bad_ldx, "scaled_backward_error: nrhs < 1 or ld < n");
  if (a.n > 0 && (!x || !b)) throw Error(flag::missing_data, "scaled_backward_error: x or b is missing");
  double anorm = symmetric_norm_inf(a);
  Vector<double> r(a.n);
  double worst = 0.0;
  for (int c = 0; c < nrhs; ++c) {
    const double* xc = x + c * ld;
    const double* bc = b + c * ld;
    symmetric_multiply(a, xc, r.data());
    double rn = 0.0, xn = 0.0, bn = 0.0;
    for (index_t i = 0; i < a.n; ++i) {
      rn = std::max(rn, std::fabs(r[i] - bc[i]));
      xn = std::max(xn, std::fabs(xc[i]));
      bn = std::max(bn, std::fabs(bc[i]));
    }
    double den = anorm * xn + bn;
    double e = den > 0.0 ? rn / den : (rn > 0.0 ? INFINITY : 0.0);
    if (!(e <= worst)) worst = e;  // NaN propagates
  }
  return worst;
}

}  // namespace ssids
