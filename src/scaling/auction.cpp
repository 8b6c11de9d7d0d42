// auction.cpp — Scaling::auction: an approximate maximum-product matching by Bertsekas's auction algorithm
// and the symmetric scaling from its prices (see scaling.hpp).
//
// Hogg & Scott, "On the use of suboptimal matchings for scaling and ordering sparse symmetric matrices",
// Numer. Linear Algebra Appl. 22 (2015) (RAL-TR-2013): a few epsilon-scaled auction rounds give most of the
// benefit of the optimal (MC64, Duff & Koster 2001) scaling at a fraction of the cost. Here columns bid for
// rows; the benefit of entry (i, j) is w_ij = log|a_ij| - log colmax_j <= 0 and rows carry prices p_i.
// A round with tolerance eps ends when every column is assigned or after a fixed budget of bids, so the
// matching may be partial. Whatever the round left, the column duals are then set to their exact best
// profit pi_j = max_i (w_ij - p_i), which makes w_ij - p_i - pi_j <= 0 on EVERY entry: the scaling bound
// |r_i a_ij c_j| <= 1 is exact, and eps-complementary slackness keeps assigned entries >= exp(-eps).
// Conventions: 0-based CSC, both triangles, no duplicates; explicit zeros are ignored.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "scaling/scaling.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kEps[] = {0.5, 0.1, 0.02, 0.005};  // tolerance of each round (log scale)
double safe_exp(double x) { return std::exp(std::min(600.0, std::max(-600.0, x))); }
}  // namespace

MatchingResult auction_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val) {
  MatchingResult res = unmatched_result(n, colptr, rowind, val, "auction");
  if (n == 0) return res;
  const size_t un = static_cast<size_t>(n);
  const offset_t nnz = colptr[n];
  Vector<double> w(static_cast<size_t>(nnz)), logmax(un, 0.0);
  for (index_t j = 0; j < n; ++j) {
    double cmax = 0.0;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) cmax = std::max(cmax, std::fabs(val[k]));
    if (cmax > 0.0) logmax[j] = std::log(cmax);
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
      const double x = std::fabs(val[k]);
      w[k] = x > 0.0 ? std::log(x) - logmax[j] : kNegInf;
    }
  }
  Vector<double> price(un, 0.0);
  Vector<index_t>& row_of_col = res.row_of_col;
  Vector<index_t>& col_of_row = res.col_of_row;
  Vector<index_t> queue;
  queue.reserve(un);
  const long budget = 10L * n + 1000;  // bids per round
  for (double eps : kEps) {
    std::fill(row_of_col.begin(), row_of_col.end(), -1);
    std::fill(col_of_row.begin(), col_of_row.end(), -1);
    queue.clear();
    for (index_t j = n - 1; j >= 0; --j) queue.push_back(j);  // LIFO: columns bid in increasing order
    long bids = 0;
    while (!queue.empty() && bids < budget) {
      const index_t j = queue.back();
      queue.pop_back();
      double b1 = kNegInf, b2 = kNegInf;
      index_t i1 = -1;
      for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k) {
        if (w[k] == kNegInf) continue;
        const double b = w[k] - price[rowind[k]];
        if (b > b1) {
          b2 = b1;
          b1 = b;
          i1 = rowind[k];
        } else if (b > b2) {
          b2 = b;
        }
      }
      if (i1 == -1) continue;  // no nonzero in this column
      ++bids;
      price[i1] += (b2 == kNegInf ? 0.0 : b1 - b2) + eps;
      const index_t prev = col_of_row[i1];
      if (prev != -1) {
        row_of_col[prev] = -1;
        queue.push_back(prev);
      }
      col_of_row[i1] = j;
      row_of_col[j] = i1;
    }
  }
  index_t matched = 0;
  for (index_t j = 0; j < n; ++j) {
    if (row_of_col[j] != -1) ++matched;
    double best = kNegInf;
    for (offset_t k = colptr[j]; k < colptr[j + 1]; ++k)
      if (w[k] != kNegInf) best = std::max(best, w[k] - price[rowind[k]]);
    // w_ij - p_i - pi_j <= 0  <=>  log|a_ij| + (-p_i) + (-pi_j - logmax_j) <= 0
    res.col_log_scale[j] = best == kNegInf ? 0.0 : -best - logmax[j];
  }
  for (index_t i = 0; i < n; ++i) res.row_log_scale[i] = -price[i];
  res.matched = matched;
  return res;
}

Vector<double> auction_scaling(const FullSymmetric& a, ScalingInfo& info) {
  MatchingResult m = auction_matching(a.n, a.ptr.data(), a.row.data(), a.val.data());
  info.matched = m.matched;
  info.structurally_singular = false;  // an approximate matching proves nothing
  // both duals are feasible on every entry, so the symmetrized scaling keeps the bound for all indices
  Vector<double> s(static_cast<size_t>(a.n));
  for (index_t i = 0; i < a.n; ++i) s[i] = safe_exp(0.5 * (m.row_log_scale[i] + m.col_log_scale[i]));
  return s;
}

}  // namespace detail
}  // namespace ssids
