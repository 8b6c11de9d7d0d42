// band.cpp — banded LU/UL without pivoting (with pivot boosting), banded triangular solves, spike tips and a
// small dense LU for the reduced systems. Li, Serban, Negrut 2015 §2.1 (spikes, Eq. (2), (9)), §2.2 (pivot
// boosting), §3.1 (band storage). Storage: see band.hpp (column-major band, ld = 2k+1, diagonal in row k).
//
// The factorizations are right-looking: step c scales column c of L (or U for UL) and applies a rank-1
// update to the (k x k) window below/right of (above/left of) the pivot, one contiguous axpy per column —
// the CPU analogue of the paper's "window sliding".
#include "sap/band.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ssids {
namespace sap {
namespace detail {

double band_max_abs(index_t n, index_t k, const double* a) {
  const std::int64_t ld = band_ld(k);
  double m = 0.0;
  for (index_t j = 0; j < n; ++j) {
    const index_t lo = std::max<index_t>(0, j - k), hi = std::min<index_t>(n - 1, j + k);
    const double* col = a + j * ld + k - j;  // col[i] = a(i, j)
    for (index_t i = lo; i <= hi; ++i) m = std::max(m, std::fabs(col[i]));
  }
  return m;
}

namespace {
/// Pivot boosting (PARDISO-style, §2.2): small pivots become +-boost, keeping the sign.
inline double boosted(double p, double boost, int& count) {
  if (std::fabs(p) >= boost) return p;
  ++count;
  return p < 0 ? -boost : boost;
}
}  // namespace

int band_lu(index_t n, index_t k, double* a, double boost) {
  const std::int64_t ld = band_ld(k);
  int count = 0;
  for (index_t c = 0; c < n; ++c) {
    double* colc = a + c * ld + k;  // colc[i - c] = a(i, c)
    const double piv = boosted(colc[0], boost, count);
    colc[0] = piv;
    const index_t len = std::min<index_t>(n - 1, c + k) - c;  // rows c+1 .. c+len below the pivot
    const double inv = 1.0 / piv;
    for (index_t t = 1; t <= len; ++t) colc[t] *= inv;
    const double* l = colc + 1;
    for (index_t j = c + 1; j <= c + len; ++j) {
      double* colj = a + j * ld + k;  // colj[i - j] = a(i, j)
      const double u = colj[c - j];   // a(c, j)
      if (u == 0.0) continue;
      double* dst = colj + (c + 1 - j);  // a(c+1 .. c+len, j)
      for (index_t t = 0; t < len; ++t) dst[t] -= l[t] * u;
    }
  }
  return count;
}

int band_ul(index_t n, index_t k, double* a, double boost) {
  const std::int64_t ld = band_ld(k);
  int count = 0;
  for (index_t c = n - 1; c >= 0; --c) {
    double* colc = a + c * ld + k;  // colc[i - c] = a(i, c)
    const double piv = boosted(colc[0], boost, count);
    colc[0] = piv;
    const index_t first = std::max<index_t>(0, c - k);
    const index_t len = c - first;  // rows first .. c-1 above the pivot
    const double inv = 1.0 / piv;
    double* u = colc - len;  // u[t] = a(first + t, c)
    for (index_t t = 0; t < len; ++t) u[t] *= inv;
    for (index_t j = first; j < c; ++j) {
      double* colj = a + j * ld + k;
      const double l = colj[c - j];  // a(c, j)
      if (l == 0.0) continue;
      double* dst = colj + (first - j);  // a(first .. c-1, j)
      for (index_t t = 0; t < len; ++t) dst[t] -= u[t] * l;
    }
  }
  return count;
}

void band_lu_solve(index_t n, index_t k, const double* lu, double* x) {
  const std::int64_t ld = band_ld(k);
  for (index_t c = 0; c < n; ++c) {  // L y = x, L unit lower
    const double xc = x[c];
    if (xc == 0.0) continue;
    const double* l = lu + c * ld + k;
    const index_t len = std::min<index_t>(n - 1, c + k) - c;
    for (index_t t = 1; t <= len; ++t) x[c + t] -= l[t] * xc;
  }
  for (index_t c = n - 1; c >= 0; --c) {  // U x = y
    const double* u = lu + c * ld + k;
    const double xc = x[c] / u[0];
    x[c] = xc;
    if (xc == 0.0) continue;
    const index_t first = std::max<index_t>(0, c - k);
    for (index_t i = first; i < c; ++i) x[i] -= u[i - c] * xc;
  }
}

void band_ul_solve(index_t n, index_t k, const double* ul, double* x) {
  const std::int64_t ld = band_ld(k);
  for (index_t c = n - 1; c >= 0; --c) {  // U z = x, U unit upper
    const double xc = x[c];
    if (xc == 0.0) continue;
    const double* u = ul + c * ld + k;
    const index_t first = std::max<index_t>(0, c - k);
    for (index_t i = first; i < c; ++i) x[i] -= u[i - c] * xc;
  }
  for (index_t c = 0; c < n; ++c) {  // L x = z
    const double* l = ul + c * ld + k;
    const double xc = x[c] / l[0];
    x[c] = xc;
    if (xc == 0.0) continue;
    const index_t len = std::min<index_t>(n - 1, c + k) - c;
    for (index_t t = 1; t <= len; ++t) x[c + t] -= l[t] * xc;
  }
}

void spike_bottom_from_lu(index_t n, index_t k, const double* lu, index_t m, double* v) {
  const std::int64_t ld = band_ld(k);
  const index_t off = n - m;  // v row r <-> block row off + r
  for (index_t t = 0; t < m; ++t) {
    double* y = v + static_cast<std::int64_t>(t) * m - off;  // y[i] for i in [off, n)
    // L_bb y = B: the rows above the corner stay zero because L is lower triangular
    for (index_t c = off; c < n; ++c) {
      const double yc = y[c];
      if (yc == 0.0) continue;
      const double* l = lu + c * ld + k;
      const index_t len = std::min<index_t>(n - 1, c + k) - c;
      for (index_t s = 1; s <= len; ++s) y[c + s] -= l[s] * yc;
    }
    // U_bb V = y: U is upper triangular, so the bottom rows only see the bottom corner
    for (index_t c = n - 1; c >= off; --c) {
      const double* u = lu + c * ld + k;
      const double yc = y[c] / u[0];
      y[c] = yc;
      if (yc == 0.0) continue;
      const index_t first = std::max<index_t>(off, c - k);
      for (index_t i = first; i < c; ++i) y[i] -= u[i - c] * yc;
    }
  }
}

void spike_top_from_ul(index_t k, const double* ul, index_t m, double* w) {
  const std::int64_t ld = band_ld(k);
  for (index_t t = 0; t < m; ++t) {
    double* z = w + static_cast<std::int64_t>(t) * m;
    // U z = [C; 0]: U unit upper, the zero bottom of the right-hand side keeps z zero below row m
    for (index_t c = m - 1; c >= 0; --c) {
      const double zc = z[c];
      if (zc == 0.0) continue;
      const double* u = ul + c * ld + k;
      const index_t first = std::max<index_t>(0, c - k);
      for (index_t i = first; i < c; ++i) z[i] -= u[i - c] * zc;
    }
    // L W = z: L lower, so the top rows only see the top corner
    for (index_t c = 0; c < m; ++c) {
      const double* l = ul + c * ld + k;
      const double zc = z[c] / l[0];
      z[c] = zc;
      if (zc == 0.0) continue;
      const index_t len = std::min<index_t>(m - 1, c + k) - c;
      for (index_t s = 1; s <= len; ++s) z[c + s] -= l[s] * zc;
    }
  }
}

void spike_top_from_lu(index_t n, index_t k, const double* lu, index_t m, double* w, double* work) {
  for (index_t t = 0; t < m; ++t) {
    double* col = w + static_cast<std::int64_t>(t) * m;
    std::fill(work, work + n, 0.0);
    std::copy(col, col + m, work);
    band_lu_solve(n, k, lu, work);
    std::copy(work, work + m, col);
  }
}

int dense_lu(index_t m, double* a, index_t* piv, double boost) {
  int zeros = 0;
  for (index_t c = 0; c < m; ++c) {
    double* colc = a + static_cast<std::int64_t>(c) * m;
    index_t p = c;
    for (index_t i = c + 1; i < m; ++i)
      if (std::fabs(colc[i]) > std::fabs(colc[p])) p = i;
    piv[c] = p;
    if (p != c)
      for (index_t j = 0; j < m; ++j) std::swap(a[c + static_cast<std::int64_t>(j) * m], a[p + static_cast<std::int64_t>(j) * m]);
    if (colc[c] == 0.0) {
      colc[c] = boost;
      ++zeros;
    }
    const double inv = 1.0 / colc[c];
    for (index_t i = c + 1; i < m; ++i) colc[i] *= inv;
    for (index_t j = c + 1; j < m; ++j) {
      double* colj = a + static_cast<std::int64_t>(j) * m;
      const double u = colj[c];
      if (u == 0.0) continue;
      for (index_t i = c + 1; i < m; ++i) colj[i] -= colc[i] * u;
    }
  }
  return zeros;
}

void dense_lu_solve(index_t m, const double* lu, const index_t* piv, double* x) {
  for (index_t c = 0; c < m; ++c) std::swap(x[c], x[piv[c]]);
  for (index_t c = 0; c < m; ++c) {
    const double xc = x[c];
    const double* col = lu + static_cast<std::int64_t>(c) * m;
    for (index_t i = c + 1; i < m; ++i) x[i] -= col[i] * xc;
  }
  for (index_t c = m - 1; c >= 0; --c) {
    const double* col = lu + static_cast<std::int64_t>(c) * m;
    x[c] /= col[c];
    const double xc = x[c];
    for (index_t i = 0; i < c; ++i) x[i] -= col[i] * xc;
  }
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
