// dense_ldlt.cpp — CPU partial LDL^T of one front with exact threshold partial pivoting (1x1 and 2x2
// pivots, Duff & Reid 1983; Hogg, Ovtchinnikov & Scott 2016 §2.3). Contract: dense_ldlt.hpp.
//
// Storage: m x m, column-major, leading dimension lda, lower triangle only; position (i, j) with i < j
// is read as (j, i). Positions are 0-based. Only the first p positions are ever permuted.
//
// Algorithm (blocked, right-looking; see ldlt_threshold_partial_traced below for the exact loop):
//  * Pivots are searched in a *window* of candidate columns [k, e), at most `inner_block` wide (or the
//    panel width nb when that is smaller). The window's columns are fully up to date when it starts, so
//    the 1x1/2x2 tests of pivot_tests.hpp are exact, using the largest entries over *all* remaining rows
//    (fully summed or not). Inside the window the eliminations are BLAS-2 rank-1/rank-2 updates of the
//    remaining window columns over rows k..m-1.
//  * Columns between the window and the panel boundary U (the panel is nb = block_size columns wide)
//    receive each window's pivots right away with one BLAS-3 update; columns right of U (the rest of
//    the fully summed block and the contribution block) receive all pivots of the panel at once
//    (the "flush", C -= L (L D)^T via dgemm/dsyrk-like tiles in dense_update.cpp).
//    Using a window narrower than nb keeps the BLAS-2 share of the flops at about 1.5 * 32 / m instead
//    of 1.5 * nb / m, which matters for fronts of a few hundred rows; the search result does not get
//    worse, because a window that makes no progress is widened before anything is given up.
//  * Failed candidates stay in place (accepted pivots are swapped to position k in front of them),
//    so they open the next window (f failed columns + `inner_block` new ones) and are retried against
//    new partners. A window that makes no progress is widened (doubled, with a flush when it crosses
//    U) until it covers every remaining candidate; if even that makes no progress, the remaining
//    columns are delayed (m > p) or the relaxed root pass runs (m == p).
// Determinism: every decision depends only on values, the window/panel/tile boundaries depend only on
// (m, p, nb) and on those decisions, and the BLAS-3 tiles (dense_update.cpp) are the same whatever the
// number of threads, so the output is bitwise independent of it.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "common/blas.hpp"
#include "common/cpu_clones.hpp"
#include "factor/dense_internal.hpp"
#include "factor/dense_ldlt.hpp"
#include "factor/pivot_tests.hpp"
#include "ssids/error.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {

namespace {

/// Width of the pivot-search window (upper bound; the panel width nb is used when smaller).
constexpr int inner_block = 32;

/// Non-owning view of the front: (i, j) is entry i of column j.
struct FrontView {
  double* a;
  int lda;
  int m;
  double& operator()(int i, int j) const { return a[i + static_cast<std::size_t>(j) * lda]; }
  /// Symmetric read through the lower triangle.
  double sym(int i, int j) const { return i >= j ? (*this)(i, j) : (*this)(j, i); }
};

/// Largest |x[s*t]| for t in [0, n).
double absmax(const double* x, int n, std::size_t stride) {
  double r = 0.0;
  for (int t = 0; t < n; ++t) r = std::max(r, std::fabs(x[stride * t]));
  return r;
}

/// Largest |F(i, j)| over rows i in [k, m) with i != j and i != ex (ex < 0: no second exclusion).
/// Rows above j are read along row j of columns k..j-1 (stride lda), rows below down column j.
SSIDS_CPU_CLONES double column_absmax(const FrontView& f, int k, int j, int ex) noexcept {
  double r = 0.0;
  const std::size_t ld = static_cast<std::size_t>(f.lda);
  if (ex >= k && ex < j) {
    r = std::max(absmax(&f(j, k), ex - k, ld), absmax(&f(j, ex + 1), j - ex - 1, ld));
  } else {
    r = absmax(&f(j, k), j - k, ld);
  }
  if (ex > j) {
    r = std::max(r, std::max(absmax(&f(j + 1, j), ex - j - 1, 1), absmax(&f(ex + 1, j), f.m - ex - 1, 1)));
  } else {
    r = std::max(r, absmax(&f(j + 1, j), f.m - j - 1, 1));
  }
  return r;
}

/// Symmetric interchange of positions x and y (both < p) in the lower-triangle storage of the whole
/// front, including the rows of the already computed L columns 0..x-1, and of perm.
void symmetric_swap(const FrontView& f, int x, int y, int* perm) {
  if (x == y) return;
  if (x > y) std::swap(x, y);
  for (int c = 0; c < x; ++c) std::swap(f(x, c), f(y, c));
  std::swap(f(x, x), f(y, y));
  for (int c = x + 1; c < y; ++c) std::swap(f(c, x), f(y, c));
  for (int i = y + 1; i < f.m; ++i) std::swap(f(i, x), f(i, y));
  std::swap(perm[x], perm[y]);
}

/// W(i - r0, t - t0) = (L D)(i, t) for rows i in [r0, r1) and pivots t in [t0, t1) (t0, t1 on pivot
/// boundaries). W is the "right factor" of the Schur update C -= L (L D)^T; forming it from L and D
/// after all interchanges are done means it never has to be permuted itself.
/// in  f, d : the front holding L in columns t0..t1-1, and D as in dense_ldlt.hpp.
/// out w    : (r1 - r0) x (t1 - t0), leading dimension ldw >= r1 - r0.
void form_ld(const FrontView& f, const double* d, int r0, int r1, int t0, int t1, double* w, int ldw) {
  const int n = r1 - r0;
  for (int t = t0; t < t1;) {
    double* w1 = w + static_cast<std::size_t>(t - t0) * ldw;
    const double* l1 = &f(r0, t);
    if (d[2 * t + 1] != 0.0) {  // 2x2 pivot (t, t+1)
      const double d11 = d[2 * t], d21 = d[2 * t + 1], d22 = d[2 * t + 2];
      double* w2 = w1 + ldw;
      const double* l2 = &f(r0, t + 1);
      for (int i = 0; i < n; ++i) {
        const double x = l1[i], y = l2[i];
        w1[i] = x * d11 + y * d21;
        w2[i] = x * d21 + y * d22;
      }
      t += 2;
    } else {
      const double d11 = d[2 * t];
      for (int i = 0; i < n; ++i) w1[i] = l1[i] * d11;
      t += 1;
    }
  }
}

/// The factorization state shared by the window routine, the updates and the root pass.
struct LdltFactor {
  FrontView f;
  int p;
  int* perm;
  double* d;
  double small;
  DenseLdltStats& stats;
  Vector<char> tried;     ///< by position: candidate tried since the last accepted pivot
  Vector<double> wsave;   ///< unscaled pivot row(s) over the window, for the in-window update
  Vector<double> ld;      ///< workspace for form_ld

  /// Accept the 1x1 pivot at position j (moved to k): L column = column / D, rank-1 update of the
  /// window columns (k, e) over their rows down to m-1. Returns k + 1.
  SSIDS_CPU_CLONES int pivot_1x1(int k, int j, int e) noexcept {
    symmetric_swap(f, k, j, perm);
    const double dkk = f(k, k);
    const int m = f.m;
    for (int c = k + 1; c < e; ++c) wsave[c - k] = f(c, k);
    double* lk = &f(0, k);
    for (int i = k + 1; i < m; ++i) lk[i] /= dkk;
    lk[k] = 1.0;
    for (int c = k + 1; c < e; ++c) {
      const double wc = wsave[c - k];
      double* col = &f(0, c);
      for (int i = c; i < m; ++i) col[i] -= lk[i] * wc;
    }
    d[2 * k] = dkk;
    d[2 * k + 1] = 0.0;
    if (dkk > 0.0) ++stats.num_pos;
    else ++stats.num_neg;
    return k + 1;
  }

  /// Accept the 2x2 pivot on positions j and r (moved to k and k+1, keeping their order):
  /// [L_k L_k+1] = [col_k col_k+1] D^{-1} with the shared two_by_two_inverse, rank-2 update of the
  /// window columns [k+2, e). Returns k + 2.
  SSIDS_CPU_CLONES int pivot_2x2(int k, int j, int r, int e) noexcept {
    const int first = std::min(j, r), second = std::max(j, r);
    symmetric_swap(f, k, first, perm);
    symmetric_swap(f, k + 1, second, perm);
    const int m = f.m;
    const double a11 = f(k, k), a21 = f(k + 1, k), a22 = f(k + 1, k + 1);
    double i11, i21, i22;
    two_by_two_inverse(a11, a21, a22, i11, i21, i22);
    const int nw = e - (k + 2);
    double* w1 = wsave.data();
    double* w2 = wsave.data() + p;  // wsave holds 2p values
    for (int c = k + 2; c < e; ++c) {
      w1[c - k - 2] = f(c, k);
      w2[c - k - 2] = f(c, k + 1);
    }
    double* l1 = &f(0, k);
    double* l2 = &f(0, k + 1);
    for (int i = k + 2; i < m; ++i) {
      const double x = l1[i], y = l2[i];
      l1[i] = x * i11 + y * i21;
      l2[i] = x * i21 + y * i22;
    }
    l1[k] = 1.0;
    l1[k + 1] = 0.0;
    l2[k + 1] = 1.0;
    for (int t = 0; t < nw; ++t) {
      const int c = k + 2 + t;
      const double wc1 = w1[t], wc2 = w2[t];
      double* col = &f(0, c);
      for (int i = c; i < m; ++i) col[i] -= l1[i] * wc1 + l2[i] * wc2;
    }
    d[2 * k] = a11;
    d[2 * k + 1] = a21;
    d[2 * k + 2] = a22;
    d[2 * k + 3] = 0.0;
    ++stats.num_two;
    const double det = a11 * a22 - a21 * a21;
    if (det < 0.0) {
      ++stats.num_neg;
      ++stats.num_pos;
    } else if (a11 + a22 > 0.0) {
      stats.num_pos += 2;
    } else {
      stats.num_neg += 2;
    }
    return k + 2;
  }

  /// Zero pivot at position j (moved to k): D = 0 and L column = 0 (its entries, all <= small or, in
  /// the forced root case, discarded). No update. Returns k + 1.
  int pivot_zero(int k, int j) {
    symmetric_swap(f, k, j, perm);
    double* lk = &f(0, k);
    lk[k] = 1.0;
    for (int i = k + 1; i < f.m; ++i) lk[i] = 0.0;
    d[2 * k] = 0.0;
    d[2 * k + 1] = 0.0;
    ++stats.num_zero;
    return k + 1;
  }

  /// Exact threshold pivoting inside the window [k, e) (Hogg et al. 2016 §2.3, tests (4), (5), (7)).
  /// Candidates are taken left to right; a failed one is marked tried until the next accepted pivot.
  /// On entry every column of the window is up to date over rows k..m-1; on exit columns [k, k_new)
  /// hold the accepted pivots and [k_new, e) the failed columns, updated by them. Columns >= e are
  /// not touched (except for the row interchanges). Returns k_new.
  int factor_window(int k, int e, double u) {
    for (int c = k; c < e; ++c) tried[c] = 0;
    int j = k;
    while (true) {
      while (j < e && tried[j]) ++j;
      if (j >= e) break;
      const double ajj = f(j, j);
      const double gj = column_absmax(f, k, j, -1);
      if (std::max(std::fabs(ajj), gj) <= small) {
        k = pivot_zero(k, j);
      } else if (one_by_one_ok(ajj, gj, u, small)) {
        k = pivot_1x1(k, j, e);
      } else {
        // 2x2 partner: largest |a_rj| among the other candidate columns of the window (ties: first)
        int r = -1;
        double best = 0.0;
        for (int c = k; c < e; ++c) {
          if (c == j) continue;
          const double v = std::fabs(f.sym(c, j));
          if (v > best) {
            best = v;
            r = c;
          }
        }
        // best == 0 is rejected: a "2x2" with D_{k+1,k} = 0 could not be told from two 1x1 pivots in d.
        bool ok = false;
        if (r >= 0) {
          const double arj = f.sym(r, j), arr = f(r, r);
          const double gj2 = column_absmax(f, k, j, r);
          const double gr2 = column_absmax(f, k, r, j);
          ok = two_by_two_ok(ajj, arj, arr, gj2, gr2, u);
        }
        if (ok) {
          k = pivot_2x2(k, j, r, e);
        } else {
          tried[j] = 1;
          ++j;
          continue;
        }
      }
      // accepted: every remaining candidate has changed, so all become eligible again
      for (int c = k; c < e; ++c) tried[c] = 0;
      j = k;
    }
    return k;
  }

  /// Apply the pivots [t0, t1) to columns [c0, c1) over rows [c0, m) (lower trapezoid) with BLAS-3.
  void update(int t0, int t1, int c0, int c1) {
    if (t1 <= t0 || c1 <= c0) return;
    const int nrow = f.m - c0, ncol = c1 - c0, nk = t1 - t0;
    const std::size_t need = static_cast<std::size_t>(ncol) * nk;
    if (ld.size() < need) ld.resize(need);
    form_ld(f, d, c0, c1, t0, t1, ld.data(), ncol);
    lower_update(nrow, ncol, nk, &f(c0, t0), f.lda, ld.data(), ncol, &f(c0, c0), f.lda);
  }
};

void check_arguments(int m, int p, const double* a, int lda, const int* perm, const double* d) {
  if (m < 0 || p < 0 || p > m) throw Error(flag::bad_input, "dense ldlt: need 0 <= p <= m");
  if (lda < std::max(1, m)) throw Error(flag::bad_input, "dense ldlt: lda < m");
  if (m > 0 && a == nullptr) throw Error(flag::bad_input, "dense ldlt: null front");
  if (p > 0 && (perm == nullptr || d == nullptr)) throw Error(flag::bad_input, "dense ldlt: null perm or d");
}

}  // namespace

int ldlt_threshold_partial_traced(int m, int p, double* a, int lda, int* perm, double* d,
                                  const DenseLdltOptions& options, DenseLdltStats& stats, DenseLdltTrace& trace) {
  check_arguments(m, p, a, lda, perm, d);
  stats = DenseLdltStats{};
  trace = DenseLdltTrace{};
  for (int i = 0; i < p; ++i) perm[i] = i;
  std::fill(d, d + 2 * static_cast<std::size_t>(p), 0.0);
  if (p == 0) return 0;

  const int nb = std::max(1, options.block_size);
  const int ib = std::min(nb, inner_block);
  const double u = options.u;
  LdltFactor s{FrontView{a, lda, m}, p, perm, d, options.small, stats, Vector<char>(p, 0),
               Vector<double>(2 * static_cast<std::size_t>(p), 0.0), Vector<double>()};

  // Invariant: pivots [0, k) are accepted; columns [k, U) have received all of them; columns [U, m)
  // have received pivots [0, kd) only (the pending pivots [kd, k) reach them at the next flush).
  int k = 0, kd = 0, U = std::min(p, nb);
  int wnext = ib;  // width of the next window
  while (k < p) {
    const int w = std::min(wnext, p - k);
    if (k + w > U) {  // the window would reach columns that are not up to date: flush, open a new panel
      s.update(kd, k, U, m);
      if (k > kd) ++trace.num_flush;
      kd = k;
      U = std::min(p, k + std::max(nb, w + nb - ib));
    }
    const int e = k + w;
    const int knew = s.factor_window(k, e, u);
    if (knew > k) {
      s.update(k, knew, e, U);  // the window's pivots reach the rest of the panel now (BLAS-3)
      k = knew;
      // the failed columns [knew, e) open the next window, followed by ib new candidates, so that
      // columns that keep failing do not crowd new candidates out of the window
      wnext = (e - knew) + ib;
    } else {
      if (e == p) break;  // every remaining candidate was tried against every other: delay the rest
      wnext = 2 * w;      // give the failed columns new 2x2 partners; w strictly grows up to p - k
      ++trace.num_widen;
    }
  }
  s.update(kd, k, U, m);
  if (k > kd && U < m) ++trace.num_flush;

  // Root front (Hogg et al. 2016 §3.2, last paragraphs): everything must be eliminated. All columns are
  // now up to date and the window [k, p) covers the whole remaining matrix (m == p), so no BLAS-3
  // update is needed. Rule:
  //  1. relaxed pass: the same window search with u = 0, i.e. a 1x1 is taken when |a_jj| > small and a
  //     2x2 when its determinant passes two_by_two_determinant_ok (columns with every entry <= small
  //     are zero pivots as always);
  //  2. if columns remain, force one: the remaining column with the largest |a_jj| (first on ties) as
  //     a 1x1 if |a_jj| > small, else a zero pivot on the first remaining column, whose entries are
  //     dropped; then repeat from 1. With finite, not huge entries step 2 only meets columns whose
  //     entries are all below 2 * small (a larger off-diagonal a_rj with both diagonals <= small
  //     passes the determinant test), so the dropped part is of the order of `small`.
  if (m == p) {
    while (k < p) {
      const int knew = s.factor_window(k, p, 0.0);
      trace.num_relaxed += knew - k;
      k = knew;
      if (k == p) break;
      int best = k;
      for (int c = k + 1; c < p; ++c)
        if (std::fabs(s.f(c, c)) > std::fabs(s.f(best, best))) best = c;
      if (std::fabs(s.f(best, best)) > options.small) {
        k = s.pivot_1x1(k, best, p);
      } else {
        k = s.pivot_zero(k, k);
      }
      ++trace.num_forced;
    }
  }
  return k;
}

int ldlt_threshold_partial(int m, int p, double* a, int lda, int* perm, double* d, const DenseLdltOptions& options,
                           DenseLdltStats& stats) {
  DenseLdltTrace trace;
  return ldlt_threshold_partial_traced(m, p, a, lda, perm, d, options, stats, trace);
}

}  // namespace detail
}  // namespace ssids
