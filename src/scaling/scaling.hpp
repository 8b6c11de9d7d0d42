// scaling.hpp — symmetric scalings S A S for the LDL^T path (Options::scaling), computed from the values.
//
// Conventions: 0-based. Every scaling works on a FullSymmetric matrix: both triangles of the symmetric
// matrix in CSC form (equal to CSR), duplicates summed, out-of-range entries dropped, upper-triangle input
// mirrored, explicit zeros kept (the matching ignores them). The result is S = diag(s), s_i > 0 and finite,
// by original variable, ready for NumericFactors::scale (the factorization is of S A S).
//   * matching_scaling:      MC64 scaling symmetrized, Duff & Pralet 2005 / Hogg & Scott 2013.
//   * auction_scaling:       the same from an approximate (auction) matching, Hogg & Scott 2013/2015.
//   * equilibration_scaling: Ruiz 2001, symmetric infinity-norm equilibration.
#pragma once
#include "analyse/symbolic.hpp"
#include "common/matching.hpp"
#include "ssids/csc.hpp"
#include "ssids/memory.hpp"
#include "ssids/options.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace detail {

struct FullSymmetric {
  index_t n = 0;
  Vector<offset_t> ptr;  ///< n+1
  Vector<index_t> row;   ///< ptr[n]; rows of column j in increasing order
  Vector<double> val;    ///< ptr[n]
};

/// From the caller's lower triangle (base 0/1, may hold duplicates, upper-triangle or out-of-range entries,
/// same cleaning rules as analyse). Throws Error(missing_values) when a has entries but no values,
/// Error(nan_inf) for a NaN or Inf value of an in-range entry. With `neg_log_abs`: also -log|a_ij| along the
/// result's entries (neg_log_magnitude, common/matching.hpp; what MatchingCosts is made from), one logarithm
/// per entry of the lower triangle.
FullSymmetric full_from_view(const CscView& a, Vector<double>* neg_log_abs = nullptr);
/// full_from_view's one-scatter path, for a lower triangle as analyse likes it best (checked by the caller:
/// every entry in range and on or below the diagonal, rows strictly increasing within each column, values
/// finite): column c receives the mirrored entries (rows j < c) while the columns j before it are read, in
/// increasing j, then its own rows, so its rows come out increasing without a sort. With `loc`: only the rows
/// and columns i with loc[i] >= 0, numbered loc[i] (ns of them).
FullSymmetric full_from_sorted_lower(const CscView& a, Vector<double>* neg_log_abs,
                                     const Vector<index_t>* loc = nullptr, index_t ns = 0);
/// From the analysis' amap (already cleaned) and the caller's values.
FullSymmetric full_from_symbolic(const Symbolic& s, const double* val);

/// What a scaling found (for Inform and the matching ordering).
struct ScalingInfo {
  index_t matched = 0;                ///< cardinality of the (possibly approximate) matching; n for equilibrate
  bool structurally_singular = false; ///< matching scaling only: matched < n
  int iterations = 0;                 ///< equilibrate: sweeps done
  bool fallback = false;              ///< matching: the duals drifted beyond |log s| = 200, equilibration used
};

/// s_i = exp((row_log_scale[i] + col_log_scale[i]) / 2) from a matching of the full matrix. Indices that are
/// unmatched (as a row or as a column) get s_i = 1 / max_j |a_ij| s_j over the matched j (1 if none), so
/// entries among matched indices satisfy |s_i a_ij s_j| <= 1 and matched entries are 1 (up to rounding).
Vector<double> symmetrize_matching_scaling(const FullSymmetric& a, const MatchingResult& m);

/// Scaling::matching. `match` (optional) receives the matching itself. When the optimal duals are not unique
/// and drift beyond |log s_i| = 200 (possible on structurally singular saddle-point matrices), the
/// equilibration scaling is returned instead (info.fallback). `costs`: the matching's weights of `a`, computed
/// beforehand (see max_product_matching).
Vector<double> matching_scaling(const FullSymmetric& a, ScalingInfo& info, MatchingResult* match = nullptr,
                                MatchingCosts* costs = nullptr);

/// Scaling::auction: an approximate maximum-product matching by an epsilon-scaled auction (a fixed number of
/// rounds and bids). The duals are made exactly feasible afterwards, so |s_i a_ij s_j| <= 1 still holds for
/// every entry; matched entries are >= exp(-eps_final) ~ 1 - 1e-3.
Vector<double> auction_scaling(const FullSymmetric& a, ScalingInfo& info);
/// The approximate matching itself, same format as max_product_matching (col_log_scale/row_log_scale
/// satisfy the bound on every entry; matched may be < n even for nonsingular matrices).
MatchingResult auction_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val);

/// Scaling::equilibrate: s <- s / sqrt(max_j |s_i a_ij s_j|) for every row until all row maxima are within
/// 1 +- tol of 1 or max_iter sweeps (rows without nonzeros keep s_i = 1).
Vector<double> equilibration_scaling(const FullSymmetric& a, ScalingInfo& info, double tol = 1e-2, int max_iter = 20);

/// factor()'s entry point: the scaling `which` (matching, auction, equilibrate or from_ordering) of the matrix
/// analysed in `s` with values `val` (the caller's array). from_ordering returns s.matching_scale and throws
/// Error(bad_scaling) when the analysis did not use Ordering::matching. Other values: Error(bad_input).
Vector<double> compute_scaling(const Symbolic& s, const double* val, Scaling which, ScalingInfo& info);

}  // namespace detail
}  // namespace ssids
