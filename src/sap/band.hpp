// band.hpp — dense banded kernels of the SaP preconditioner (Li, Serban, Negrut 2015, §2.1, §3.1): LU and UL
// factorizations WITHOUT pivoting and with pivot boosting (§2.2), their triangular solves, and the spike-tip
// computations that need only the corner K x K blocks of the factors.
//
// Band storage (column-major, ld = 2k+1; the transpose of the paper's "tall and thin" layout, same idea):
//   a(i, j) = a[(k + i - j) + j * ld]  for |i - j| <= k,  0 <= i, j < n.
// Slots outside the n x n matrix are never read or written. All kernels are serial; the caller parallelizes
// over partitions.
#pragma once
#include <cstdint>

#include "ssids/types.hpp"

namespace ssids {
namespace sap {
namespace detail {

inline std::int64_t band_ld(index_t k) { return 2 * static_cast<std::int64_t>(k) + 1; }
/// Offset of a(i, j) in band storage with half-bandwidth k.
inline std::int64_t band_at(index_t k, index_t i, index_t j) {
  return static_cast<std::int64_t>(k) + i - j + static_cast<std::int64_t>(j) * band_ld(k);
}

/// max |a_ij| over the band (for the boosting threshold).
double band_max_abs(index_t n, index_t k, const double* a);

/// In place A = L U: L unit lower (stored strictly below the diagonal), U upper (diagonal and above).
/// a: in: A in band storage; out: the factors. Pivots with |p| < boost (or NaN-free zero) are replaced by
/// sign(p) * boost (+boost for p = 0). Returns the number of boosted pivots.
int band_lu(index_t n, index_t k, double* a, double boost);
/// In place A = U L (elimination from the bottom): U unit upper (strictly above the diagonal), L lower
/// (diagonal and below). Same boosting. Returns the number of boosted pivots.
int band_ul(index_t n, index_t k, double* a, double boost);

/// x := A^{-1} x with the band_lu factors (x of size n).
void band_lu_solve(index_t n, index_t k, const double* lu, double* x);
/// x := A^{-1} x with the band_ul factors.
void band_ul_solve(index_t n, index_t k, const double* ul, double* x);

/// Bottom tip of the right spike: V^(b) = U_bb^{-1} L_bb^{-1} B, from the band_lu factors of an n x n
/// block (n >= m), using only the trailing m x m corners of L and U (§2.1, after Eq. (10)).
/// v: in: B (m x m, column-major, ld m, the coupling rows are the last m rows of the block); out: V^(b).
void spike_bottom_from_lu(index_t n, index_t k, const double* lu, index_t m, double* v);
/// Top tip of the left spike: W^(t) = L_tt^{-1} U_tt^{-1} C, from the band_ul factors, using only the
/// leading m x m corners. w: in: C (m x m, the coupling rows are the first m rows of the block); out: W^(t).
void spike_top_from_ul(index_t k, const double* ul, index_t m, double* w);
/// Same tip without a UL factorization: solves A W = [C; 0] in full with the LU factors and keeps the top m
/// rows. work: n doubles.
void spike_top_from_lu(index_t n, index_t k, const double* lu, index_t m, double* w, double* work);

/// Dense LU with partial pivoting of an m x m column-major matrix (ld m), in place; piv of size m.
/// Returns the number of exactly zero pivots (replaced by boost so that solves stay finite).
int dense_lu(index_t m, double* a, index_t* piv, double boost);
/// x := A^{-1} x with dense_lu factors.
void dense_lu_solve(index_t m, const double* lu, const index_t* piv, double* x);

}  // namespace detail
}  // namespace sap
}  // namespace ssids
