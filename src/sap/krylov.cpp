// krylov.cpp — right-preconditioned BiCGStab(2), BiCGStab, GMRES(m) and preconditioned CG for SaP
// (Li, Serban, Negrut 2015 §2.1.1; BiCGStab(l): Sleijpen & Fokkema 1993, Alg. 3.1; counting: §4.1.1).
//
// Structure: a driver keeps the true iterate x and its recomputed residual r = b - A x. Each "cycle" runs one
// method on A M^{-1} u = r from u = 0 (CG: on A d = r directly), tracks the best recursive residual, and
// returns a correction dx = M^{-1} u_best. The driver recomputes ||b - A (x + dx)||: a cycle that converged
// only recursively (or a GMRES restart) starts a new cycle from the true residual, within the iteration
// budget.
//
// Everything is written once against KrylovSpace (krylov.hpp): vectors come from space.allocate() (held by
// Vec below), updates are combine/copy, reductions dot; the methods and the driver never touch an element,
// so x, b and the work vectors may live on the GPU. Only small per-iteration scalars stay on the host (the
// Hessenberg matrix and Givens rotations of GMRES, tau/sigma/gamma of BiCGStab(2)). HostKrylovSpace, at the
// end, runs the iteration on host arrays for the callback overload: its dot is a plain serial sum (the
// preconditioner dominates) and its combine gives the bits of the former elementwise loops on finite data,
// except in GMRES's normalisations, now products with 1/||v|| instead of divisions by ||v|| (last bits).
#include "sap/krylov.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <utility>

#include "common/host_allocation.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace sap {
namespace detail {

namespace {

bool finite(double v) { return std::isfinite(v); }
double norm2(KrylovSpace& sp, const double* x) { return std::sqrt(sp.dot(x, x)); }

/// y += a x (combine evaluates (a x) + y: the same bits as y + a x, and y - a' x for a = -a').
void axpy(KrylovSpace& sp, double a, const double* x, double* y) { sp.combine(a, x, 0.0, nullptr, 1.0, y); }

/// One vector of the space, released when it goes out of scope; converts to its pointer.
class Vec {
 public:
  explicit Vec(KrylovSpace& sp) : sp_(&sp), p_(sp.allocate()) {}
  Vec(Vec&& o) noexcept : sp_(o.sp_), p_(std::exchange(o.p_, nullptr)) {}
  Vec(const Vec&) = delete;
  Vec& operator=(const Vec&) = delete;
  Vec& operator=(Vec&&) = delete;
  ~Vec() {
    if (p_) sp_->release(p_);
  }
  void swap(Vec& o) noexcept { std::swap(p_, o.p_); }
  operator double*() const noexcept { return p_; }

 private:
  KrylovSpace* sp_;
  double* p_;
};

enum class CycleEnd { converged, restart, limit, breakdown, nan };

struct Cycle {
  CycleEnd end = CycleEnd::limit;
  std::int64_t apps = 0;  ///< counted applications (iterations)
  bool has_dx = false;    ///< dx holds a nonzero correction
};

/// Common context of one cycle: the space (A, M, vectors), tolerance, budget in applications.
struct Ctx {
  KrylovSpace& sp;
  double tol;
  std::int64_t budget;
  std::int64_t* extra_apps;  ///< applications spent forming dx
};

/// y = A M^{-1} v; tmp is a work vector.
void apply_am(const Ctx& c, const double* v, double* y, double* tmp) {
  c.sp.precond(v, tmp);
  c.sp.matvec(tmp, y);
}

/// dx = M^{-1} u (one application counted as extra).
void finish_dx(const Ctx& c, const double* u, double* dx) {
  c.sp.precond(u, dx);
  ++*c.extra_apps;
}

/// The best iterate of a cycle (the smallest residual norm seen, starting from r0) and the cycle's exit
/// test after each application; the cycle's correction is the best iterate, times M^{-1} for the
/// right-preconditioned methods.
class BestIterate {
 public:
  BestIterate(KrylovSpace& sp, const double* r0) : best_(sp), best_norm_(norm2(sp, r0)) {}
  /// Keeps x when ||res|| is the smallest so far; true when the cycle must stop (NaN, converged, or out of
  /// budget; cy.end says which).
  bool check(const Ctx& c, Cycle& cy, const double* res, const double* x) {
    const double rn = norm2(c.sp, res);
    if (!finite(rn)) {
      cy.end = CycleEnd::nan;
      return true;
    }
    if (rn < best_norm_) {
      best_norm_ = rn;
      c.sp.copy(x, best_);
      improved_ = true;
    }
    if (rn <= c.tol) {
      cy.end = CycleEnd::converged;
      return true;
    }
    if (cy.apps >= c.budget) {
      cy.end = CycleEnd::limit;
      return true;
    }
    return false;
  }
  /// dx = M^{-1} (best iterate), or the best iterate itself when !precondition, when one improved on r0.
  void finish(const Ctx& c, Cycle& cy, double* dx, bool precondition = true) const {
    if (!improved_) return;
    if (precondition) finish_dx(c, best_, dx);
    else c.sp.copy(best_, dx);
    cy.has_dx = true;
  }

 private:
  Vec best_;
  double best_norm_;
  bool improved_ = false;
};

/// z = x / d for d = ||x||_2 > 0 (GMRES normalisation; x may be z). combine has no division, so this
/// multiplies by 1/d; when 1/d overflows (subnormal d), x is first scaled by 2^600, which its entries
/// (|x_i| <= d) tolerate.
void normalize(KrylovSpace& sp, const double* x, double d, double* z) {
  double s = 1.0 / d;
  if (!finite(s)) {
    const double up = std::ldexp(1.0, 600);
    if (x == z)
      sp.combine(0.0, nullptr, 0.0, nullptr, up, z);
    else
      sp.combine(up, x, 0.0, nullptr, 0.0, z);
    x = z;
    s = 1.0 / (d * up);
  }
  if (x == z)
    sp.combine(0.0, nullptr, 0.0, nullptr, s, z);
  else
    sp.combine(s, x, 0.0, nullptr, 0.0, z);
}

/// BiCGStab(2): Sleijpen–Fokkema Alg. 3.1 with l = 2; exits after applications 1, 3 (BiCG steps) and 4 (MR step).
Cycle bicgstab_l(const Ctx& c, const double* r0, double* dx) {
  constexpr int l = 2;
  KrylovSpace& sp = c.sp;
  Cycle cy;
  Vector<Vec> r, u;
  r.reserve(l + 1);
  u.reserve(l + 1);
  for (int i = 0; i <= l; ++i) {
    r.emplace_back(sp);
    u.emplace_back(sp);
  }
  Vec x(sp), tmp(sp), rt(sp);
  BestIterate best(sp, r0);
  sp.copy(r0, rt);
  sp.copy(r0, r[0]);
  double rho0 = 1.0, alpha = 0.0, omega = 1.0;
  auto check = [&]() { return best.check(c, cy, r[0], x); };  // exit point: true when the cycle must stop
  bool stop = false;
  while (!stop) {
    rho0 = -omega * rho0;
    for (int j = 0; j < l && !stop; ++j) {
      const double rho1 = sp.dot(r[j], rt);
      if (rho0 == 0.0 || !finite(rho1)) {
        cy.end = finite(rho1) ? CycleEnd::breakdown : CycleEnd::nan;
        stop = true;
        break;
      }
      const double beta = alpha * rho1 / rho0;
      rho0 = rho1;
      for (int i = 0; i <= j; ++i) sp.combine(1.0, r[i], 0.0, nullptr, -beta, u[i]);  // u_i = r_i - beta u_i
      apply_am(c, u[j], u[j + 1], tmp);
      ++cy.apps;
      const double gamma = sp.dot(u[j + 1], rt);
      if (gamma == 0.0 || !finite(gamma)) {
        cy.end = finite(gamma) ? CycleEnd::breakdown : CycleEnd::nan;
        stop = true;
        break;
      }
      alpha = rho0 / gamma;
      for (int i = 0; i <= j; ++i) axpy(sp, -alpha, u[i + 1], r[i]);
      axpy(sp, alpha, u[0], x);
      if (check()) {
        stop = true;
        break;
      }
      apply_am(c, r[j], r[j + 1], tmp);
      ++cy.apps;
    }
    if (stop) break;
    // MR part: minimize the residual over r_1 .. r_l (modified Gram–Schmidt)
    double tau[l + 1][l + 1] = {}, sigma[l + 1] = {}, gp[l + 1] = {}, g[l + 1] = {}, gpp[l + 1] = {};
    bool bad = false;
    for (int j = 1; j <= l; ++j) {
      for (int i = 1; i < j; ++i) {
        tau[i][j] = sp.dot(r[j], r[i]) / sigma[i];
        axpy(sp, -tau[i][j], r[i], r[j]);
      }
      sigma[j] = sp.dot(r[j], r[j]);
      if (sigma[j] == 0.0 || !finite(sigma[j])) {
        bad = true;
        break;
      }
      gp[j] = sp.dot(r[0], r[j]) / sigma[j];
    }
    if (bad) {
      cy.end = CycleEnd::breakdown;
      break;
    }
    g[l] = gp[l];
    omega = g[l];
    for (int j = l - 1; j >= 1; --j) {
      g[j] = gp[j];
      for (int i = j + 1; i <= l; ++i) g[j] -= tau[j][i] * g[i];
    }
    for (int j = 1; j <= l - 1; ++j) {
      gpp[j] = g[j + 1];
      for (int i = j + 1; i <= l - 1; ++i) gpp[j] += tau[j][i] * g[i + 1];
    }
    axpy(sp, g[1], r[0], x);  // x before r_0 changes
    axpy(sp, -gp[l], r[l], r[0]);
    axpy(sp, -g[l], u[l], u[0]);
    for (int j = 1; j <= l - 1; ++j) {
      axpy(sp, -g[j], u[j], u[0]);
      axpy(sp, gpp[j], r[j], x);
      axpy(sp, -gp[j], r[j], r[0]);
    }
    if (omega == 0.0) {
      check();
      cy.end = CycleEnd::breakdown;
      break;
    }
    stop = check();
  }
  best.finish(c, cy, dx);
  return cy;
}

/// BiCGStab (van der Vorst), right-preconditioned; exits after each application (halves).
Cycle bicgstab(const Ctx& c, const double* r0, double* dx) {
  KrylovSpace& sp = c.sp;
  Cycle cy;
  Vec r(sp), rt(sp), p(sp), v(sp), s(sp), t(sp), x(sp), tmp(sp);
  BestIterate best(sp, r0);
  sp.copy(r0, r);
  sp.copy(r0, rt);
  double rho_old = 1.0, alpha = 1.0, omega = 1.0;
  bool first = true;
  auto check = [&](const double* res) { return best.check(c, cy, res, x); };
  for (;;) {
    const double rho = sp.dot(rt, r);
    if (rho == 0.0 || !finite(rho)) {
      cy.end = finite(rho) ? CycleEnd::breakdown : CycleEnd::nan;
      break;
    }
    if (first) {
      sp.copy(r, p);
      first = false;
    } else {  // p = r + beta (p - omega v)
      const double beta = (rho / rho_old) * (alpha / omega);
      axpy(sp, -omega, v, p);
      sp.combine(1.0, r, 0.0, nullptr, beta, p);
    }
    apply_am(c, p, v, tmp);
    ++cy.apps;
    const double sig = sp.dot(rt, v);
    if (sig == 0.0 || !finite(sig)) {
      cy.end = finite(sig) ? CycleEnd::breakdown : CycleEnd::nan;
      break;
    }
    alpha = rho / sig;
    sp.combine(1.0, r, -alpha, v, 0.0, s);  // s = r - alpha v
    axpy(sp, alpha, p, x);
    if (check(s)) break;
    apply_am(c, s, t, tmp);
    ++cy.apps;
    const double tt = sp.dot(t, t);
    if (tt == 0.0 || !finite(tt)) {
      cy.end = finite(tt) ? CycleEnd::breakdown : CycleEnd::nan;
      break;
    }
    omega = sp.dot(t, s) / tt;
    axpy(sp, omega, s, x);
    sp.combine(1.0, s, -omega, t, 0.0, r);  // r = s - omega t
    if (check(r)) break;
    if (omega == 0.0) {
      cy.end = CycleEnd::breakdown;
      break;
    }
    rho_old = rho;
  }
  best.finish(c, cy, dx);
  return cy;
}

/// One GMRES(m) cycle (Arnoldi with modified Gram–Schmidt, Givens rotations), right-preconditioned.
Cycle gmres(const Ctx& c, const double* r0, double* dx, int m) {
  KrylovSpace& sp = c.sp;
  Cycle cy;
  m = std::max(1, m);
  const double beta = norm2(sp, r0);
  if (!finite(beta)) {
    cy.end = CycleEnd::nan;
    return cy;
  }
  Vector<Vec> v;  // the Arnoldi basis, allocated as it grows
  v.reserve(static_cast<std::size_t>(m) + 1);
  v.emplace_back(sp);
  normalize(sp, r0, beta, v[0]);
  Vector<double> h(static_cast<std::size_t>(m + 1) * m, 0.0), cs(m), sn_(m), g(m + 1, 0.0);
  g[0] = beta;
  Vec tmp(sp);
  int j = 0;
  cy.end = CycleEnd::restart;
  for (; j < m; ++j) {
    if (cy.apps >= c.budget) {
      cy.end = CycleEnd::limit;
      break;
    }
    v.emplace_back(sp);
    apply_am(c, v[j], v[j + 1], tmp);
    ++cy.apps;
    double* hj = h.data() + static_cast<std::size_t>(j) * (m + 1);
    for (int i = 0; i <= j; ++i) {
      hj[i] = sp.dot(v[j + 1], v[i]);
      axpy(sp, -hj[i], v[i], v[j + 1]);
    }
    hj[j + 1] = norm2(sp, v[j + 1]);
    if (!finite(hj[j + 1])) {
      cy.end = CycleEnd::nan;
      break;
    }
    for (int i = 0; i < j; ++i) {  // previous rotations
      const double a = hj[i], b = hj[i + 1];
      hj[i] = cs[i] * a + sn_[i] * b;
      hj[i + 1] = -sn_[i] * a + cs[i] * b;
    }
    const double a = hj[j], b = hj[j + 1];
    const double rr = std::hypot(a, b);
    if (rr == 0.0) {
      cy.end = CycleEnd::breakdown;
      break;
    }
    const double happy = b;
    cs[j] = a / rr;
    sn_[j] = b / rr;
    hj[j] = rr;
    hj[j + 1] = 0.0;
    g[j + 1] = -sn_[j] * g[j];
    g[j] = cs[j] * g[j];
    const double res = std::fabs(g[j + 1]);
    if (happy != 0.0) normalize(sp, v[j + 1], happy, v[j + 1]);
    if (res <= c.tol || happy == 0.0) {
      cy.end = CycleEnd::converged;
      ++j;
      break;
    }
  }
  const int k = std::min(j, m);  // columns of H in the solution
  if (k > 0) {
    Vector<double> y(g.begin(), g.begin() + k);
    for (int i = k - 1; i >= 0; --i) {
      for (int q = i + 1; q < k; ++q) y[i] -= h[static_cast<std::size_t>(q) * (m + 1) + i] * y[q];
      y[i] /= h[static_cast<std::size_t>(i) * (m + 1) + i];
    }
    Vec u(sp);  // zero
    for (int i = 0; i < k; ++i) axpy(sp, y[i], v[i], u);
    finish_dx(c, u, dx);
    cy.has_dx = true;
  }
  if (cy.end == CycleEnd::restart && cy.apps >= c.budget) cy.end = CycleEnd::limit;
  return cy;
}

/// Preconditioned CG on A d = r0 (d in x-space, no extra application).
Cycle cg(const Ctx& c, const double* r0, double* dx) {
  KrylovSpace& sp = c.sp;
  Cycle cy;
  Vec r(sp), z(sp), p(sp), q(sp), d(sp);
  BestIterate best(sp, r0);
  sp.copy(r0, r);
  sp.precond(r, z);
  ++cy.apps;
  sp.copy(z, p);
  double rz = sp.dot(r, z);
  for (;;) {
    sp.matvec(p, q);
    const double pq = sp.dot(p, q);
    if (!finite(pq) || !finite(rz)) {
      cy.end = CycleEnd::nan;
      break;
    }
    if (pq <= 0.0 || rz == 0.0) {  // A or M not positive definite (or exact stagnation)
      cy.end = CycleEnd::breakdown;
      break;
    }
    const double alpha = rz / pq;
    axpy(sp, alpha, p, d);
    axpy(sp, -alpha, q, r);
    if (best.check(c, cy, r, d)) break;
    sp.precond(r, z);
    ++cy.apps;
    const double rz_new = sp.dot(r, z);
    const double beta = rz_new / rz;
    rz = rz_new;
    sp.combine(1.0, z, 0.0, nullptr, beta, p);  // p = z + beta p
  }
  best.finish(c, cy, dx, false);  // d is already in x-space
  return cy;
}

/// The space of the callback overload: host arrays of n doubles from the library's allocator.
class HostKrylovSpace final : public KrylovSpace {
 public:
  HostKrylovSpace(index_t n, const Operator& matvec, const Operator& precond)
      : n_(n), matvec_(matvec), precond_(precond) {}
  index_t size() const override { return n_; }
  double* allocate() override try {
    double* v = static_cast<double*>(ssids::detail::allocate_bytes(bytes()));
    std::fill(v, v + n_, 0.0);
    return v;
  } catch (const std::bad_alloc&) {
    ssids::detail::throw_host_allocation_failed("the SaP Krylov solve");
  }
  void release(double* v) noexcept override { ssids::detail::deallocate_bytes(v, bytes()); }
  double dot(const double* x, const double* y) override {
    double s = 0.0;
    for (index_t i = 0; i < n_; ++i) s += x[i] * y[i];
    return s;
  }
  void combine(double a, const double* x, double b, const double* y, double c, double* z) override {
    switch ((a != 0.0 ? 4 : 0) + (b != 0.0 ? 2 : 0) + (c != 0.0 ? 1 : 0)) {
      case 0: combine_terms<false, false, false>(a, x, b, y, c, z); break;
      case 1: combine_terms<false, false, true>(a, x, b, y, c, z); break;
      case 2: combine_terms<false, true, false>(a, x, b, y, c, z); break;
      case 3: combine_terms<false, true, true>(a, x, b, y, c, z); break;
      case 4: combine_terms<true, false, false>(a, x, b, y, c, z); break;
      case 5: combine_terms<true, false, true>(a, x, b, y, c, z); break;
      case 6: combine_terms<true, true, false>(a, x, b, y, c, z); break;
      default: combine_terms<true, true, true>(a, x, b, y, c, z); break;
    }
  }
  void copy(const double* x, double* y) override {
    if (x != y) std::copy(x, x + n_, y);
  }
  void matvec(const double* x, double* y) override { matvec_(x, y); }
  void precond(const double* x, double* y) override { precond_(x, y); }
  void to_space(const double* host, double* v) override { copy(host, v); }
  void to_host(const double* v, double* host) override { copy(v, host); }

 private:
  std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(double); }
  /// z = ((a x) + (b y)) + (c z) over the terms that are present; none present: z = 0.
  template <bool A, bool B, bool C>
  void combine_terms(double a, const double* x, double b, const double* y, double c, double* z) {
    for (index_t i = 0; i < n_; ++i) {
      double s = 0.0;
      if constexpr (A) s = a * x[i];
      if constexpr (B) s = A ? s + b * y[i] : b * y[i];
      if constexpr (C) s = A || B ? s + c * z[i] : c * z[i];
      z[i] = s;
    }
  }

  index_t n_;
  const Operator& matvec_;
  const Operator& precond_;
};

}  // namespace

KrylovResult krylov_solve(KrylovSpace& sp, const double* b, double* x, const KrylovSettings& s) {
  KrylovResult res;
  const int per = s.kind == Krylov::bicgstab2 ? 4 : s.kind == Krylov::bicgstab ? 2 : 1;
  const std::int64_t budget_total = static_cast<std::int64_t>(std::max(0, s.max_iterations)) * per;
  res.b_norm = norm2(sp, b);
  const double tol = std::max(s.rtol * res.b_norm, s.atol);
  Vec r(sp), ax(sp), dx(sp), xn(sp), rnew(sp);
  auto residual = [&](const double* xv, double* rv) {
    sp.matvec(xv, ax);
    sp.combine(1.0, b, -1.0, ax, 0.0, rv);  // rv = b - A xv
    return norm2(sp, rv);
  };
  double rn = residual(x, r);
  std::int64_t counted = 0, extra = 0;
  Status status = Status::iteration_limit;
  int stalls = 0;
  for (;;) {
    if (!finite(rn)) {
      status = Status::nan;
      break;
    }
    if (rn <= tol) {
      status = Status::converged;
      break;
    }
    if (counted >= budget_total || stalls >= 3) {
      status = Status::iteration_limit;
      break;
    }
    Ctx ctx{sp, tol, budget_total - counted, &extra};
    Cycle cy;
    switch (s.kind) {
      case Krylov::bicgstab2: cy = bicgstab_l(ctx, r, dx); break;
      case Krylov::bicgstab: cy = bicgstab(ctx, r, dx); break;
      case Krylov::gmres: cy = gmres(ctx, r, dx, s.restart); break;
      case Krylov::cg: cy = cg(ctx, r, dx); break;
    }
    counted += cy.apps;
    bool accepted = false;
    if (cy.has_dx) {
      sp.combine(1.0, x, 1.0, dx, 0.0, xn);  // xn = x + dx
      const double rnn = residual(xn, rnew);
      if (finite(rnn) && rnn < rn) {  // keep the best iterate
        sp.copy(xn, x);
        r.swap(rnew);
        rn = rnn;
        accepted = true;
      }
    }
    // a cycle that converged only recursively without a true improvement: give up after a few retries
    if (cy.end == CycleEnd::converged && rn > tol) stalls = accepted ? stalls : stalls + 1;
    if (cy.end == CycleEnd::breakdown || cy.end == CycleEnd::nan) {
      status = rn <= tol ? Status::converged : (cy.end == CycleEnd::nan ? Status::nan : Status::breakdown);
      break;
    }
    if (cy.end == CycleEnd::limit) {
      status = rn <= tol ? Status::converged : Status::iteration_limit;
      break;
    }
    // converged recursively or GMRES restart: loop and re-check the true residual
  }
  res.status = status;
  res.iterations = static_cast<double>(counted) / per;
  res.applications = counted + extra;
  res.residual_norm = rn;
  return res;
}

KrylovResult krylov_solve(index_t n, const Operator& matvec, const Operator& precond, const double* b, double* x,
                          const KrylovSettings& s) {
  HostKrylovSpace space(n, matvec, precond);
  return krylov_solve(space, b, x, s);
}

}  // namespace detail
}  // namespace sap
}  // namespace ssids
