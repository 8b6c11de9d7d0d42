// dense_ldlt.hpp — CPU dense partial factorizations of one front (the oracle for the GPU kernels).
//
// Storage: the front is m x m, symmetric, column-major with leading dimension lda >= m; only the
// lower triangle is referenced and updated. The first p columns (0 <= p <= m) are fully summed:
// only they may be eliminated, and only they may be permuted (symmetrically) among themselves.
#pragma once
#include "ssids/types.hpp"

namespace ssids {
namespace detail {

struct DenseLdltOptions {
  double u = 0.01;        ///< threshold, already clamped to [0, 0.5]
  double small = 1e-20;   ///< absolute zero-pivot tolerance
  int block_size = 128;   ///< panel width of the blocked algorithm
};

struct DenseLdltStats {
  int num_two = 0;   ///< 2x2 pivots accepted
  int num_neg = 0;   ///< negative eigenvalues of the accepted D
  int num_pos = 0;   ///< positive eigenvalues of the accepted D
  int num_zero = 0;  ///< zero pivots (D entry exactly 0)
};

/// Threshold-pivoting partial LDL^T of the first p columns of the front.
///
/// in/out a    : m x m lower triangle. On exit columns 0..nelim-1 hold L below the diagonal (unit lower,
///               diagonal entries of those columns set to 1.0; entry (k+1,k) of a 2x2 pivot set to 0.0),
///               rows 0..m-1; the lower triangle of a(nelim:m, nelim:m) holds the Schur complement
///               (contribution block). Its leading p-nelim rows/columns are the delayed (failed) columns.
/// out    perm : size p. The fully summed rows/columns were permuted in place: perm[k] is the index (on
///               entry) of the row/column now at position k. Rows/columns p..m-1 never move.
/// out    d    : size 2*p. d[2k] = D_kk, d[2k+1] = D_{k+1,k} (0 unless (k,k+1) is a 2x2 pivot), k < nelim.
/// workspace   : allocated internally through ssids::Vector.
/// returns nelim, 0 <= nelim <= p. When m == p (a root front) every column is eliminated (nelim == p):
///   the last pass searches all remaining columns and, if nothing passes the threshold test, relaxes it so
///   that any pivot with a non-negligible determinant/diagonal is taken; columns whose remaining entries are
///   all below `small` become zero pivots (D = 0, L column = 0).
/// Pivot acceptance uses common tests in pivot_tests.hpp; every |l_ij| <= 1/u (up to rounding) unless the
/// relaxed root pass was needed. The result is deterministic and independent of the thread count.
int ldlt_threshold_partial(int m, int p, double* a, int lda, int* perm, double* d,
                           const DenseLdltOptions& options, DenseLdltStats& stats);

/// Partial Cholesky of the first p columns: a(0:m, 0:p) <- L (lower, with its diagonal), and the lower
/// triangle of a(p:m, p:m) <- Schur complement. Returns -1 on success, else the index (0-based, local)
/// of the first column whose pivot is not positive (a is then partially overwritten).
int cholesky_partial(int m, int p, double* a, int lda, int block_size);

}  // namespace detail
}  // namespace ssids
