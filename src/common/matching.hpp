// matching.hpp — maximum-product weighted bipartite matching (MC64-style), shared by the LDL^T path's
// matching-based scaling/ordering and the SaP path's diagonal boosting. One implementation, one place.
//
// Conventions: the matrix is n x n, general (both triangles given), compressed sparse column, 0-based,
// row indices within a column in any order, no duplicates. Explicit zeros are treated as absent.
#pragma once
#include <cmath>
#include <limits>

#include "ssids/memory.hpp"
#include "ssids/types.hpp"

namespace ssids {
namespace detail {

struct MatchingResult {
  /// row_of_col[j] = row matched to column j, or -1 when column j is unmatched (structurally singular).
  Vector<index_t> row_of_col;
  /// col_of_row[i] = column matched to row i, or -1.
  Vector<index_t> col_of_row;
  index_t matched = 0;  ///< cardinality of the matching (n when structurally nonsingular)
  /// Scaling from the optimal dual variables (MC64 job 5): with r_i = exp(row_log_scale[i]) and
  /// c_j = exp(col_log_scale[j]), every |r_i a_ij c_j| <= 1 and matched entries have |r_i a_ij c_j| = 1
  /// (up to rounding). For unmatched rows/columns the scale is chosen so the bound still holds.
  Vector<double> row_log_scale, col_log_scale;
};

/// The weights of max_product_matching: cost[k] = log max_i |a_ij| - log |a_kj| for entry k of column j
/// (infinity for an explicit zero) and logmax[j] = log max_i |a_ij| (0 for an empty column). Every column is
/// computed on its own, so the columns can be split between threads (fill) without changing a bit.
struct MatchingCosts {
  Vector<double> cost, logmax;
  /// Storage for n columns and colptr[n] entries (values unset).
  MatchingCosts(index_t n, const offset_t* colptr);
  /// All columns from neg_log_abs[k] = neg_log_magnitude(a_k) along the entries (taken over): the same
  /// weights, bit for bit, as fill computes from the values.
  MatchingCosts(index_t n, const offset_t* colptr, Vector<double>&& neg_log_abs);
  /// Columns [j0, j1) of the matrix (colptr, val).
  void fill(const offset_t* colptr, const double* val, index_t j0, index_t j1);
};

/// -log|x|, infinity for x = 0: an entry's weight before its column's offset (MatchingCosts).
inline double neg_log_magnitude(double x) { return x != 0.0 ? -std::log(std::fabs(x)) : std::numeric_limits<double>::infinity(); }

/// Maximum-product matching: among matchings of maximum cardinality, maximizes the product of
/// |a_{row_of_col[j], j}|. Weights c_ij = log max_k |a_kj| - log |a_ij| >= 0 are minimized by an initial
/// greedy assignment followed by shortest augmenting paths (Dijkstra with reduced costs).
/// Throws Error(bad_input) on malformed input (indices out of range, n < 0).
MatchingResult max_product_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val);
/// The same with the weights of this matrix computed beforehand (all columns filled); they are taken over
/// (moved from).
MatchingResult max_product_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val,
                                    MatchingCosts& costs);

/// How max_product_matching treats a matrix with dense columns (common/dense.hpp): `last` (the default)
/// assigns the sparse rows and columns first and then searches from the dense columns, reading each in order
/// of a bound of its reduced costs only as far as the search needs (matching.cpp, dense_last_assign);
/// `with_the_rest` runs the algorithm on the whole matrix at once, every search that reaches a dense column
/// relaxing all of it. Both give an optimal matching (the same one unless several are optimal); the duals,
/// which need not be unique, can differ. Without dense columns the two are the same code.
enum class DenseColumnRule { last, with_the_rest };
/// max_product_matching with the weights computed beforehand and the rule for dense columns.
MatchingResult max_product_matching(index_t n, const offset_t* colptr, const index_t* rowind, const double* val,
                                    MatchingCosts& costs, DenseColumnRule rule);

/// The entries (colptr[n]) of all matrices max_product_matching has been given since the program started: lets
/// a test see which matrix a matching ran on.
offset_t matching_entries_for_testing();

/// The start of every matching: checks the input (n >= 0; for n > 0 colptr given, rowind and val too when
/// there are entries, colptr[0] = 0 and nondecreasing, row indices in [0, n); else Error(bad_input), the
/// message prefixed by `who`) and returns the result with nothing matched and zero log-scales.
MatchingResult unmatched_result(index_t n, const offset_t* colptr, const index_t* rowind, const double* val,
                                const char* who);

}  // namespace detail
}  // namespace ssids
