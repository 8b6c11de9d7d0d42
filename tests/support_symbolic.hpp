// support_symbolic.hpp — independent symbolic factorizations used as oracles by the analyse tests.
// Input: the pattern of a symmetric matrix's lower triangle (0-based SymmetricMatrix; values ignored) and a
// pivot order order[i] = position of variable i (0-based). Output in pivot positions.
#pragma once
#include <cstdint>
#include <vector>

#include "ssids/analyse.hpp"
#include "ssids/csc.hpp"

namespace ssids_test {

struct SymbolicCount {
  std::int64_t nnz_l = 0;  ///< entries of L, diagonal included
  std::int64_t flops = 0;  ///< sum over columns of m^2 + 2m, m = entries strictly below the diagonal
  /// col_rows[k]: sorted rows (pivot positions) of column k of L, diagonal first. Empty when not kept.
  std::vector<std::vector<int>> col_rows;
};

/// Brute force for small n (a few hundred): eliminate column by column on std::set row structures, adding
/// the whole clique of every eliminated column. O(sum m^2 log n).
SymbolicCount brute_force_symbolic(const ssids::SymmetricMatrix& a, const std::vector<int>& order);

/// Exact but faster (n up to ~1e5): the structure of column k is A's column k merged with the structures of
/// the columns whose first off-diagonal row is k (elimination-tree children). keep_rows: fill col_rows.
SymbolicCount merged_symbolic(const ssids::SymmetricMatrix& a, const std::vector<int>& order, bool keep_rows);

/// Check every invariant of an.symbolic() documented in src/analyse/symbolic.hpp (doctest assertions):
/// permutations, postordered tree, row lists, cmap, amap (against `view`, the arrays given to analyse),
/// levels and statistics. `clean` is the cleaned pattern of `view` (0-based lower triangle). The row lists must
/// contain the exact structure of L in the final order (equal it when `exact`, i.e. nemin = 1); counts are
/// compared with brute_force_symbolic (n <= 120) or merged_symbolic, per column only for n <= 5000.
void check_symbolic(const ssids::Analysis& an, const ssids::CscView& view, const ssids::SymmetricMatrix& clean,
                    bool exact);

std::vector<int> to_std(const ssids::Vector<ssids::index_t>& v);

}  // namespace ssids_test
