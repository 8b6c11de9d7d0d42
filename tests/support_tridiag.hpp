// support_tridiag.hpp — generators and independent checks for the tridiagonal tests (header only).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "ssids/csc.hpp"
#include "ssids/error.hpp"

namespace ssids_test {

struct Tri {
  int n = 0;
  std::vector<double> dl, d, du;
};

/// Random tridiagonal matrix, diagonally dominant by rows with margin in [margin, 2 margin] * off-diagonal sum
/// (+ 0.1), diagonal signs random.
inline Tri random_tri(int n, std::uint64_t seed, double margin = 0.5) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), p(0.0, 1.0);
  Tri t;
  t.n = n;
  t.dl.assign(n, 0.0);
  t.d.assign(n, 0.0);
  t.du.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    if (i > 0) t.dl[i] = u(g);
    if (i + 1 < n) t.du[i] = u(g);
    const double off = std::fabs(t.dl[i]) + std::fabs(t.du[i]);
    const double dd = off * (1.0 + margin * (1.0 + p(g))) + 0.1;
    t.d[i] = p(g) < 0.5 ? -dd : dd;
  }
  return t;
}

/// Row `where` decoupled from its neighbours with a zero diagonal: the matrix becomes singular.
inline void zero_row(Tri& t, int where) {
  t.d[where] = 0.0;
  t.dl[where] = 0.0;
  t.du[where] = 0.0;
  if (where > 0) t.du[where - 1] = 0.0;
  if (where + 1 < t.n) t.dl[where + 1] = 0.0;
}

inline std::vector<double> random_vec(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

/// Dense Gaussian elimination with partial pivoting (independent reference), b overwritten by x.
inline void dense_solve(const Tri& t, std::vector<double>& b) {
  const int n = t.n;
  std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);  // row-major
  for (int i = 0; i < n; ++i) {
    a[i * n + i] = t.d[i];
    if (i > 0) a[i * n + i - 1] = t.dl[i];
    if (i + 1 < n) a[i * n + i + 1] = t.du[i];
  }
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (p != k) {
      for (int j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(b[k], b[p]);
    }
    for (int i = k + 1; i < n; ++i) {
      const double l = a[i * n + k] / a[k * n + k];
      if (l == 0.0) continue;
      for (int j = k; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (int k = n - 1; k >= 0; --k) {
    double s = b[k];
    for (int j = k + 1; j < n; ++j) s -= a[k * n + j] * b[j];
    b[k] = s / a[k * n + k];
  }
}

inline double rel_diff(const double* x, const double* y, std::size_t n) {
  double dm = 0, ym = 0;
  for (std::size_t i = 0; i < n; ++i) {
    dm = std::max(dm, std::fabs(x[i] - y[i]));
    ym = std::max(ym, std::fabs(y[i]));
  }
  return ym > 0 ? dm / ym : dm;
}

/// A quasi-tridiagonal CSR matrix: T = random_tri plus `per_row` entries per row at random columns outside the
/// three diagonals, each of magnitude s_scale * |d_i| / per_row (so A stays diagonally dominant for s_scale small).
inline ssids::CsrMatrix quasi_tri(const Tri& t, int per_row, double s_scale, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> col(0, std::max(0, t.n - 1));
  std::uniform_real_distribution<double> u(0.5, 1.0), sgn(0.0, 1.0);
  ssids::CsrMatrix a;
  a.nrow = a.ncol = t.n;
  a.ptr.assign(t.n + 1, 0);
  for (int i = 0; i < t.n; ++i) {
    std::vector<std::pair<int, double>> row;
    if (i > 0) row.push_back({i - 1, t.dl[i]});
    row.push_back({i, t.d[i]});
    if (i + 1 < t.n) row.push_back({i + 1, t.du[i]});
    // the S entries eat part of the diagonal's margin: |d| - off-diagonal of T
    const double room = std::fabs(t.d[i]) - std::fabs(t.dl[i]) - std::fabs(t.du[i]);
    for (int k = 0; k < per_row && t.n > 3; ++k) {
      int j;
      do j = col(g);
      while (std::abs(j - i) <= 1);
      bool dup = false;
      for (auto& e : row) dup = dup || e.first == j;
      if (dup) continue;
      const double v = s_scale * room * u(g) / per_row;
      row.push_back({j, sgn(g) < 0.5 ? -v : v});
    }
    std::sort(row.begin(), row.end());
    for (auto& e : row) {
      a.col.push_back(e.first);
      a.val.push_back(e.second);
    }
    a.ptr[i + 1] = static_cast<ssids::offset_t>(a.col.size());
  }
  return a;
}

/// ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf) for a CSR matrix.
inline double csr_backward_error(const ssids::CsrMatrix& a, const double* x, const double* b) {
  double rn = 0, an = 0, xn = 0, bn = 0;
  for (int i = 0; i < a.nrow; ++i) {
    long double s = 0, rs = 0;
    for (auto p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
      s += (long double)a.val[p] * x[a.col[p]];
      rs += std::fabs(a.val[p]);
    }
    rn = std::max(rn, (double)std::fabs(b[i] - s));
    an = std::max(an, (double)rs);
    xn = std::max(xn, std::fabs(x[i]));
    bn = std::max(bn, std::fabs(b[i]));
  }
  return rn / (an * xn + bn);
}

/// The code of the ssids::Error that f throws, 0 when it returns normally.
inline int expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ssids::Error& e) {
    return e.code();
  }
  return 0;
}

}  // namespace ssids_test
