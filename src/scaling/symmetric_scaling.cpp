// symmetric_scaling.cpp — Scaling::matching and Scaling::equilibrate for S A S (see scaling.hpp).
//
// Matching scaling: the optimal duals of the maximum-product matching of the full symmetric matrix
// (Duff & Koster 2001, MC64 job 5) give r, c with |r_i a_ij c_j| <= 1, = 1 on matched entries. For symmetric A
// the transposed matching is optimal too, so the same duals make both a_{i,m(i)} and a_{m(i),i} tight, and
// s_i = sqrt(r_i c_i) keeps |s_i a_ij s_j| = sqrt(|r_i a_ij c_j| |r_j a_ji c_i|) <= 1 with matched entries 1
// (Duff & Pralet, SIAM J. Matrix Anal. Appl. 27, 2005; used by Hogg & Scott, ACM TOMS 40(1), 2013).
// Structurally singular matrices: indices unmatched as a row or a column get s_i from their largest scaled
// entry towards matched indices (Duff & Pralet's treatment), so they are not left with meaningless duals.
//
// Equilibration: Ruiz, "A scaling algorithm to equilibrate both rows and columns norms in matrices",
// RAL-TR-2001-034: s_i <- s_i / sqrt(||row i of S A S||_inf), converging linearly to unit row maxima.
#include <algorithm>
#include <cmath>

#include "scaling/scaling.hpp"

namespace ssids {
namespace detail {

namespace {
// exp of a log-scale clamped so that s stays a positive normal double
double safe_exp(double x) { return std::exp(std::min(600.0, std::max(-600.0, x))); }
// largest |log s_i| accepted from the matching duals (s within 1e-87 .. 1e87)
constexpr double kMaxLogScale = 200.0;
}  // namespace

Vector<double> symmetrize_matching_scaling(const FullSymmetric& a, const MatchingResult& m) {
  const index_t n = a.n;
  Vector<double> s(static_cast<size_t>(n), 1.0);
  Vector<char> ok(static_cast<size_t>(n), 0);
  for (index_t i = 0; i < n; ++i) {
    ok[i] = m.col_of_row[i] != -1 && m.row_of_col[i] != -1;
    if (ok[i]) s[i] = safe_exp(0.5 * (m.row_log_scale[i] + m.col_log_scale[i]));
  }
  for (index_t i = 0; i < n; ++i) {
    if (ok[i]) continue;
    double big = 0.0;  // column i = row i: max over matched j of |a_ji| s_j
    for (offset_t k = a.ptr[i]; k < a.ptr[i + 1]; ++k)
      if (ok[a.row[k]]) big = std::max(big, std::fabs(a.val[k]) * s[a.row[k]]);
    if (big > 0.0 && std::isfinite(1.0 / big)) s[i] = 1.0 / big;
  }
  return s;
}

Vector<double> matching_scaling(const FullSymmetric& a, ScalingInfo& info, MatchingResult* match,
                                MatchingCosts* costs) {
  MatchingResult m = costs ? max_product_matching(a.n, a.ptr.data(), a.row.data(), a.val.data(), *costs)
                           : max_product_matching(a.n, a.ptr.data(), a.row.data(), a.val.data());
  info.matched = m.matched;
  info.structurally_singular = m.matched < a.n;
  // Optimal duals need not be unique: when the graph leaves them a free direction (seen on structurally
  // singular saddle-point matrices, e.g. GHS_indef/laser) they can drift to |log s| ~ 1e3, where S overflows.
  // Then the (always bounded) equilibration scaling is used instead and reported in info.fallback.
  double drift = 0.0;
  for (index_t i = 0; i < a.n; ++i)
    if (m.col_of_row[i] != -1 && m.row_of_col[i] != -1)
      drift = std::max(drift, std::fabs(0.5 * (m.row_log_scale[i] + m.col_log_scale[i])));
  Vector<double> s;
  if (drift > kMaxLogScale) {
    ScalingInfo eq;
    s = equilibration_scaling(a, eq);
    info.fallback = true;
  } else {
    s = symmetrize_matching_scaling(a, m);
  }
  if (match) *match = std::move(m);
  return s;
}

Vector<double> equilibration_scaling(const FullSymmetric& a, ScalingInfo& info, double tol, int max_iter) {
  const index_t n = a.n;
  Vector<double> s(static_cast<size_t>(n), 1.0), rmax(static_cast<size_t>(n));
  info.matched = n;
  info.structurally_singular = false;
  info.iterations = 0;
  for (int it = 0;; ++it) {
    bool converged = true;
    for (index_t j = 0; j < n; ++j) {  // column j of the full matrix = row j
      double mx = 0.0;
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) mx = std::max(mx, std::fabs(a.val[k]) * s[a.row[k]]);
      rmax[j] = mx * s[j];
      if (rmax[j] > 0.0 && std::fabs(rmax[j] - 1.0) > tol) converged = false;
    }
    if (converged || it >= max_iter) break;
    for (index_t j = 0; j < n; ++j)
      if (rmax[j] > 0.0 && std::isfinite(rmax[j])) {
        const double t = s[j] / std::sqrt(rmax[j]);
        if (t > 0.0 && std::isfinite(t)) s[j] = t;
      }
    info.iterations = it + 1;
  }
  return s;
}

}  // namespace detail
}  // namespace ssids
