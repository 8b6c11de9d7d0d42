// tridiag_cpu.cpp — ssids::tridiag on the CPU: the Thomas algorithm (reference), the partitioned cyclic
// reduction "CPU twin" of the GPU solver (pcr_core.hpp, same operations in the same order), the splitting
// iteration for quasi-tridiagonal systems, and the Solver front end that dispatches to the GPU.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/host_allocation.hpp"
#include "ssids/error.hpp"
#include "ssids/tridiag.hpp"
#include "tridiag/chunk_core.hpp"
#include "tridiag/pcr_core.hpp"
#include "tridiag/tridiag_internal.hpp"

namespace ssids {
namespace detail {

double tridiag_norm(index_t n, const double* dl, const double* d, const double* du) {
  double nrm = 0;
  for (index_t i = 0; i < n; ++i) {
    const double l = i > 0 ? std::fabs(dl[i]) : 0.0, u = i + 1 < n ? std::fabs(du[i]) : 0.0;
    const double r = (l + std::fabs(d[i])) + u;
    if (nrm == nrm && !(r <= nrm)) nrm = r;  // a NaN sticks, so that it fails every pivot test
  }
  return nrm;
}

std::string tiny_pivot_message(const char* where, int level, long long row) {
  std::string msg = std::string("tridiagonal ") + where + ": zero or tiny pivot at ";
  if (level == 0)
    msg += "row " + std::to_string(row);
  else
    msg += "row " + std::to_string(row) + " of the reduced system of level " + std::to_string(level);
  return msg + " (no pivoting: the matrix should be diagonally dominant)";
}

std::vector<long long> pcr_level_sizes(long long n, int bsz) {
  std::vector<long long> sizes{n};
  while (sizes.back() > bsz) sizes.push_back(pcr::reduced_size(sizes.back(), bsz));
  return sizes;
}

void chunk_solve_cpu(index_t n, const double* dl, const double* d, const double* du, double* b,
                     const tridiag::Options& options) {
  const int bsz = chunk::kChunk;
  const std::vector<long long> sizes = pcr_level_sizes(n, bsz);
  const std::size_t nlev = sizes.size();
  const int tiny_r = static_cast<int>(pcr::reduced_size(sizes.back(), bsz));
  std::vector<Vector<double>> lev(nlev + 1);  // a, b, c, d of levels 1.. and of the final system
  for (std::size_t l = 1; l <= nlev; ++l)
    lev[l].assign(4 * static_cast<std::size_t>(l < nlev ? sizes[l] : tiny_r), 0.0);
  auto arr = [&](std::size_t l, int which) -> double* {
    const long long nl = l < nlev ? sizes[l] : tiny_r;
    return lev[l].data() + which * nl;
  };
  const double thr = options.pivot_tolerance * tridiag_norm(n, dl, d, du);
  for (std::size_t l = 0; l < nlev; ++l) {
    const long long nl = sizes[l], q = (nl + bsz - 1) / bsz;
    const double* a = l == 0 ? dl : arr(l, 0);
    const double* bb = l == 0 ? d : arr(l, 1);
    const double* c = l == 0 ? du : arr(l, 2);
    const double* dd = l == 0 ? b : arr(l, 3);
    long long first_bad = -1;
    for (long long j = 0; j < q; ++j) {
      const long long r = chunk::down(nl, j, a, bb, c, dd, 0, thr, arr(l + 1, 0), arr(l + 1, 1), arr(l + 1, 2),
                                     arr(l + 1, 3), nullptr);
      if (r >= 0 && first_bad < 0) first_bad = r;
    }
    if (first_bad >= 0)
      throw Error(flag::singular, tiny_pivot_message("one-shot solver (chunked)", static_cast<int>(l), first_bad));
  }
  double t[4];
  const int k = pcr::tiny_factor(tiny_r, arr(nlev, 0), arr(nlev, 1), arr(nlev, 2), thr, t);
  if (k >= 0) throw Error(flag::singular, tiny_pivot_message("one-shot solver (chunked)", static_cast<int>(nlev), k));
  pcr::tiny_solve(tiny_r, t, arr(nlev, 3));
  for (std::size_t l = nlev; l-- > 0;) {
    const long long nl = sizes[l], q = (nl + bsz - 1) / bsz;
    const double* a = l == 0 ? dl : arr(l, 0);
    const double* bb = l == 0 ? d : arr(l, 1);
    const double* c = l == 0 ? du : arr(l, 2);
    double* dd = l == 0 ? b : arr(l, 3);
    for (long long j = 0; j < q; ++j) chunk::up(nl, j, a, bb, c, dd, 0, arr(l + 1, 3));
  }
}

bool splitting_step_done(double beta, double xnorm, int m, double& beta_prev, int& stalls,
                         const tridiag::SplittingOptions& options, tridiag::SplittingResult& r) {
  r.iterations = m;
  r.step_norm = beta;
  r.solution_norm = xnorm;
  if (!std::isfinite(beta) || !std::isfinite(xnorm)) {
    r.status = tridiag::SplittingStatus::not_converging;
    return true;
  }
  if (beta <= options.tolerance * xnorm) {
    r.status = tridiag::SplittingStatus::converged;
    return true;
  }
  stalls = (m > 1 && beta >= beta_prev) ? stalls + 1 : 0;
  beta_prev = beta;
  if (stalls >= options.stall_iterations) {
    r.status = tridiag::SplittingStatus::not_converging;
    return true;
  }
  if (m >= options.max_iterations) {
    r.status = tridiag::SplittingStatus::iteration_limit;
    return true;
  }
  return false;
}

namespace {

void check_options(const tridiag::Options& o) {
  const int b = o.block_rows;
  if (b < 4 || b > 512 || (b & (b - 1)) != 0)
    throw Error(flag::bad_input, "tridiag: block_rows must be a power of two in [4, 512], got " + std::to_string(b));
  if (!(o.pivot_tolerance >= 0)) throw Error(flag::bad_input, "tridiag: pivot_tolerance must be >= 0");
}

// ---- Thomas ----
void thomas_factor(TridiagFactors& f, const double* dl, const double* d, const double* du, double thr) {
  const index_t n = f.n;
  f.dl.assign(n, 0.0);
  f.piv.assign(n, 0.0);
  f.w.assign(n, 0.0);
  for (index_t i = 0; i < n; ++i) {
    const double a = i > 0 ? dl[i] : 0.0, c = i + 1 < n ? du[i] : 0.0;
    const double p = i > 0 ? d[i] - a * f.w[i - 1] : d[i];
    if (!pcr::pivot_ok(p, thr)) throw Error(flag::singular, tiny_pivot_message("solver (Thomas)", 0, i));
    f.dl[i] = a;
    f.piv[i] = p;
    f.w[i] = c / p;
  }
}

void thomas_solve(const TridiagFactors& f, double* x) {
  const index_t n = f.n;
  x[0] = x[0] / f.piv[0];
  for (index_t i = 1; i < n; ++i) x[i] = (x[i] - f.dl[i] * x[i - 1]) / f.piv[i];
  for (index_t i = n - 2; i >= 0; --i) x[i] = x[i] - f.w[i] * x[i + 1];
}

// ---- the CPU twin of the partitioned cyclic reduction ----
void pcr_factor(TridiagFactors& f, const double* dl, const double* d, const double* du, double thr) {
  const int bsz = f.options.block_rows;
  const std::vector<long long> sizes = pcr_level_sizes(f.n, bsz);
  f.levels.assign(sizes.size(), PcrLevel{});
  // level 0: T with dl[0] = du[n-1] = 0
  {
    PcrLevel& l0 = f.levels[0];
    const long long n = f.n;
    l0.n = n;
    l0.a.assign(dl, dl + n);
    l0.b.assign(d, d + n);
    l0.c.assign(du, du + n);
    l0.a[0] = 0.0;
    l0.c[n - 1] = 0.0;
  }
  for (std::size_t lev = 0; lev < sizes.size(); ++lev) {
    PcrLevel& L = f.levels[lev];
    const long long nl = L.n;
    const long long q = (nl + bsz - 1) / bsz;
    const long long nr = pcr::reduced_size(nl, bsz);
    L.tr.assign(nl, 0.0);
    L.tl.assign(nl, 0.0);
    L.v.assign(nl, 0.0);
    L.w.assign(nl, 0.0);
    Vector<double> na(nr), nb(nr), nc(nr);
    long long bad = std::numeric_limits<long long>::max();
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (long long j = 0; j < q; ++j) {
      const pcr::Block blk = pcr::block_of(nl, bsz, j);
      const int m = blk.m;
      const long long base = blk.s + 1;
      double *a = L.a.data() + base, *b = L.b.data() + base, *c = L.c.data() + base;
      double v0 = 0, vl = 0, w0 = 0, wl = 0;
      if (m > 0) {
        const double f0 = a[0], gl = c[m - 1];
        a[0] = 0.0;
        c[m - 1] = 0.0;
        double *tr = L.tr.data() + base, *tl = L.tl.data() + base;
        pcr::reduce_coefficients(m, a, b, c, tr, tl, 0, 1, pcr::NoSync{});
        for (int t = 0; t < m; ++t)
          if (!pcr::pivot_ok(b[t], thr)) {
            bad = std::min(bad, base + t);
            break;
          }
        double *v = L.v.data() + base, *w = L.w.data() + base;
        v[0] = f0;
        w[m - 1] = gl;
        pcr::reduce_rhs(m, v, tr, tl, 0, 1, pcr::NoSync{});
        pcr::back_substitute(m, v, a, b, c, 0, 1, pcr::NoSync{});
        pcr::reduce_rhs(m, w, tr, tl, 0, 1, pcr::NoSync{});
        pcr::back_substitute(m, w, a, b, c, 0, 1, pcr::NoSync{});
        v0 = v[0];
        vl = v[m - 1];
        w0 = w[0];
        wl = w[m - 1];
      }
      const long long s = blk.s, e = blk.e;
      pcr::interface_rows(blk, L.a[s], L.b[s], L.c[s], L.a[e], L.b[e], L.c[e], v0, vl, w0, wl, &na[2 * j],
                          &nb[2 * j], &nc[2 * j]);
    }
    if (bad != std::numeric_limits<long long>::max())
      throw Error(flag::singular, tiny_pivot_message("solver (partitioned cyclic reduction)", int(lev), bad));
    if (lev + 1 < sizes.size()) {
      PcrLevel& N = f.levels[lev + 1];
      N.n = nr;
      N.a = std::move(na);
      N.b = std::move(nb);
      N.c = std::move(nc);
    } else {
      f.tiny_r = int(nr);
      const int r = pcr::tiny_factor(f.tiny_r, na.data(), nb.data(), nc.data(), thr, f.tiny);
      if (r >= 0)
        throw Error(flag::singular,
                    tiny_pivot_message("solver (partitioned cyclic reduction)", int(lev) + 1, r));
    }
  }
}

/// Solve one column in place (x of size n); work: scratch of the reduced levels.
void pcr_solve(const TridiagFactors& f, double* x, Vector<Vector<double>>& work) {
  const int bsz = f.options.block_rows;
  const std::size_t nlev = f.levels.size();
  work.resize(nlev + 1);
  for (std::size_t lev = 0; lev < nlev; ++lev) {
    const long long nr = lev + 1 < nlev ? f.levels[lev + 1].n : f.tiny_r;
    work[lev + 1].resize(nr);
  }
  // down
  for (std::size_t lev = 0; lev < nlev; ++lev) {
    const PcrLevel& L = f.levels[lev];
    double* d = lev == 0 ? x : work[lev].data();
    double* nd = work[lev + 1].data();
    const long long q = (L.n + bsz - 1) / bsz;
#pragma omp parallel for schedule(static) if (q > 8)
    for (long long j = 0; j < q; ++j) {
      const pcr::Block blk = pcr::block_of(L.n, bsz, j);
      const long long base = blk.s + 1;
      if (blk.m > 0) {
        pcr::reduce_rhs(blk.m, d + base, L.tr.data() + base, L.tl.data() + base, 0, 1, pcr::NoSync{});
        pcr::back_substitute(blk.m, d + base, L.a.data() + base, L.b.data() + base, L.c.data() + base, 0, 1,
                             pcr::NoSync{});
      }
      pcr::interface_rhs(blk, L.a.data(), L.c.data(), d, nd + 2 * j);
    }
  }
  pcr::tiny_solve(f.tiny_r, f.tiny, work[nlev].data());
  // up
  for (std::size_t lev = nlev; lev-- > 0;) {
    const PcrLevel& L = f.levels[lev];
    double* d = lev == 0 ? x : work[lev].data();
    const double* nx = work[lev + 1].data();
#pragma omp parallel for schedule(static) if (L.n > 65536)
    for (long long i = 0; i < L.n; ++i) {
      const long long j = i / bsz;
      const pcr::Block blk = pcr::block_of(L.n, bsz, j);
      d[i] = pcr::up_value(blk, i, d, L.v.data(), L.w.data(), nx + 2 * j);
    }
  }
}

void check_rhs(index_t n, int nrhs, offset_t ldb) {
  if (nrhs < 1 || ldb < n) throw Error(flag::bad_ldx, "tridiag solve: need nrhs >= 1 and ldb >= n");
}

}  // namespace
}  // namespace detail

namespace tridiag {

Solver Solver::factor(index_t n, const double* dl, const double* d, const double* du, Backend backend,
                      const Options& options) try {
  if (n < 1) throw Error(flag::bad_n, "tridiag: n must be >= 1");
  if (!dl || !d || !du) throw Error(flag::missing_data, "tridiag: dl, d and du are required");
  detail::check_options(options);
  auto f = std::make_shared<detail::TridiagFactors>();
  f->backend = backend;
  f->n = n;
  f->options = options;
  switch (backend) {
    case Backend::thomas:
      detail::thomas_factor(*f, dl, d, du, options.pivot_tolerance * detail::tridiag_norm(n, dl, d, du));
      break;
    case Backend::pcr_cpu:
      detail::pcr_factor(*f, dl, d, du, options.pivot_tolerance * detail::tridiag_norm(n, dl, d, du));
      break;
    case Backend::pcr_gpu:
      f->dev = detail::pcr_gpu_factor(n, dl, d, du, false, nullptr, options);
      break;
    default:
      throw Error(flag::bad_input, "tridiag: unknown backend");
  }
  Solver s;
  s.f_ = std::move(f);
  return s;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::Solver::factor");
}

Solver Solver::factor_device(index_t n, const double* dl, const double* d, const double* du, void* stream,
                             const Options& options) try {
  if (n < 1) throw Error(flag::bad_n, "tridiag: n must be >= 1");
  if (!dl || !d || !du) throw Error(flag::missing_data, "tridiag: dl, d and du are required");
  detail::check_options(options);
  auto f = std::make_shared<detail::TridiagFactors>();
  f->backend = Backend::pcr_gpu;
  f->n = n;
  f->options = options;
  f->dev = detail::pcr_gpu_factor(n, dl, d, du, true, stream, options);
  Solver s;
  s.f_ = std::move(f);
  return s;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::Solver::factor_device");
}

void Solver::solve(int nrhs, double* b, offset_t ldb) const try {
  if (!f_) throw Error(flag::call_sequence, "tridiag: solve before factor");
  detail::check_rhs(f_->n, nrhs, ldb);
  if (!b) throw Error(flag::missing_data, "tridiag solve: b is required");
  switch (f_->backend) {
    case Backend::thomas:
      for (int k = 0; k < nrhs; ++k) detail::thomas_solve(*f_, b + k * ldb);
      break;
    case Backend::pcr_cpu: {
      Vector<Vector<double>> work;
      for (int k = 0; k < nrhs; ++k) detail::pcr_solve(*f_, b + k * ldb, work);
      break;
    }
    case Backend::pcr_gpu:
      detail::pcr_gpu_solve(*f_->dev, nrhs, b, ldb, false, nullptr);
      break;
  }
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::Solver::solve");
}

void Solver::solve_device(int nrhs, double* b, offset_t ldb, void* stream) const try {
  if (!f_) throw Error(flag::call_sequence, "tridiag: solve before factor");
  if (f_->backend != Backend::pcr_gpu) throw Error(flag::no_cuda, "tridiag: solve_device needs the pcr_gpu backend");
  detail::check_rhs(f_->n, nrhs, ldb);
  if (!b) throw Error(flag::missing_data, "tridiag solve: b is required");
  detail::pcr_gpu_solve(*f_->dev, nrhs, b, ldb, true, stream);
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::Solver::solve_device");
}

void solve_once_device(index_t n, const double* dl, const double* d, const double* du, double* b, void* stream,
                       const Options& options) try {
  if (n < 1) throw Error(flag::bad_n, "tridiag: n must be >= 1");
  if (!dl || !d || !du || !b) throw Error(flag::missing_data, "tridiag: dl, d, du and b are required");
  detail::check_options(options);
  detail::pcr_gpu_solve_once(n, dl, d, du, b, stream, options);
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::solve_once_device");
}

index_t Solver::size() const { return f_ ? f_->n : 0; }
Backend Solver::backend() const {
  if (!f_) throw Error(flag::call_sequence, "tridiag: empty solver");
  return f_->backend;
}
const Options& Solver::options() const {
  if (!f_) throw Error(flag::call_sequence, "tridiag: empty solver");
  return f_->options;
}

double backward_error(index_t n, const double* dl, const double* d, const double* du, int nrhs, const double* x,
                      offset_t ldx, const double* b, offset_t ldb) {
  const double tn = detail::tridiag_norm(n, dl, d, du);
  double worst = 0;
  for (int k = 0; k < nrhs; ++k) {
    const double* xk = x + k * ldx;
    const double* bk = b + k * ldb;
    double rn = 0, xn = 0, bn = 0;
    for (index_t i = 0; i < n; ++i) {
      long double r = (long double)d[i] * xk[i];
      if (i > 0) r += (long double)dl[i] * xk[i - 1];
      if (i + 1 < n) r += (long double)du[i] * xk[i + 1];
      r = bk[i] - r;
      rn = std::max(rn, (double)std::fabs(r));
      xn = std::max(xn, std::fabs(xk[i]));
      bn = std::max(bn, std::fabs(bk[i]));
    }
    const double den = tn * xn + bn;
    const double e = den > 0 ? rn / den : rn;
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

Splitting split(const CsrMatrix& a) try {
  if (a.nrow != a.ncol || a.nrow < 1) throw Error(flag::bad_n, "tridiag::split: A must be square with n >= 1");
  const index_t n = a.nrow;
  Splitting sp;
  sp.n = n;
  sp.dl.assign(n, 0.0);
  sp.d.assign(n, 0.0);
  sp.du.assign(n, 0.0);
  sp.s.nrow = sp.s.ncol = n;
  sp.s.ptr.assign(n + 1, 0);
  Vector<index_t> col, rc;
  Vector<double> val, rv;
  Vector<std::size_t> idx;
  for (index_t i = 0; i < n; ++i) {
    const std::size_t row_start = col.size();
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
      const index_t j = a.col[p];
      const double v = a.val[p];
      if (j == i)
        sp.d[i] += v;
      else if (j == i - 1)
        sp.dl[i] += v;
      else if (j == i + 1)
        sp.du[i] += v;
      else if (j >= 0 && j < n && v != 0.0) {
        col.push_back(j);
        val.push_back(v);
      }
    }
    // sort the row by column and sum duplicates in input order
    idx.resize(col.size() - row_start);
    for (std::size_t t = 0; t < idx.size(); ++t) idx[t] = row_start + t;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return col[x] < col[y]; });
    rc.clear();
    rv.clear();
    for (std::size_t t : idx) {
      if (!rc.empty() && rc.back() == col[t])
        rv.back() += val[t];
      else {
        rc.push_back(col[t]);
        rv.push_back(val[t]);
      }
    }
    col.resize(row_start);
    val.resize(row_start);
    col.insert(col.end(), rc.begin(), rc.end());
    val.insert(val.end(), rv.begin(), rv.end());
    sp.s.ptr[i + 1] = offset_t(col.size());
  }
  sp.s.col.assign(col.begin(), col.end());
  sp.s.val.assign(val.begin(), val.end());
  return sp;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::split");
}

const char* status_name(SplittingStatus s) noexcept {
  switch (s) {
    case SplittingStatus::converged:
      return "converged";
    case SplittingStatus::not_converging:
      return "not converging";
    case SplittingStatus::iteration_limit:
      return "iteration limit";
  }
  return "unknown";
}

SplittingResult splitting_solve(const Solver& t, const CsrMatrix& s, const double* b, double* x,
                                const SplittingOptions& options) try {
  if (t.empty()) throw Error(flag::call_sequence, "tridiag::splitting_solve: T is not factorized");
  const index_t n = t.size();
  if (s.nrow != n || s.ncol != n) throw Error(flag::bad_n, "tridiag::splitting_solve: S must be n x n like T");
  if (!b || !x) throw Error(flag::missing_data, "tridiag::splitting_solve: b and x are required");
  if (options.max_iterations < 1 || options.stall_iterations < 1)
    throw Error(flag::bad_input, "tridiag::splitting_solve: max_iterations and stall_iterations must be >= 1");
  if (t.backend() == Backend::pcr_gpu) return detail::pcr_gpu_splitting(*t.factors().dev, s, b, x, options);
  SplittingResult r;
  // x^0 = 0: x^1 = T^-1 b
  Vector<double> xo(n, 0.0), rhs(b, b + n);
  double beta_prev = 0;
  int stalls = 0;
  for (int m = 1;; ++m) {
    t.solve(1, rhs.data(), n);  // rhs now holds x^m
    double beta = 0, xn = 0;
    for (index_t i = 0; i < n; ++i) {
      const double dlt = std::fabs(rhs[i] - xo[i]), ax = std::fabs(rhs[i]);
      if (!(dlt <= beta)) beta = dlt;
      if (!(ax <= xn)) xn = ax;
    }
    xo.swap(rhs);
    if (detail::splitting_step_done(beta, xn, m, beta_prev, stalls, options, r)) break;
    // rhs = b - S x^m, each row summed in CSR order (as on the GPU)
    for (index_t i = 0; i < n; ++i) {
      double v = b[i];
      for (offset_t p = s.ptr[i]; p < s.ptr[i + 1]; ++p) v = v - s.val[p] * xo[s.col[p]];
      rhs[i] = v;
    }
  }
  std::copy(xo.begin(), xo.end(), x);
  return r;
} catch (const std::bad_alloc&) {
  ssids::detail::throw_host_allocation_failed("tridiag::splitting_solve");
}

}  // namespace tridiag
}  // namespace ssids
