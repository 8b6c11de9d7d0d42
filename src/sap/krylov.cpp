// krylov.cpp — right-preconditioned BiCGStab(2), BiCGStab, GMRES(m) and preconditioned CG for SaP
// (Li, Serban, Negrut 2015 §2.1.1; BiCGStab(l): Sleijpen & Fokkema 1993, Alg. 3.1; counting: §4.1.1).
//
// Structure: a driver keeps the true iterate x and its recomputed residual r = b - A x. Each "cycle" runs one
// method on A M^{-1} u = r from u = 0 (CG: on A d = r directly), tracks the best recursive residual, and
// returns a correction dx = M^{-1} u_best. The driver recomputes ||b - A (x + dx)||: a cycle that converged
// only recursively (or a GMRES restart) starts a new cycle from the true residual, within the iteration
// budget. Vectors have size n; all dot products are plain serial sums (the preconditioner dominates).
#include "sap/krylov.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ssids/memory.hpp"

namespace ssids {
namespace sap {
namespace detail {

namespace {

using Vec = Vector<double>;

double dot(index_t n, const double* x, const double* y) {
  double s = 0.0;
  for (index_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}
double norm2(index_t n, const double* x) { return std::sqrt(dot(n, x, x)); }
bool finite(double v) { return std::isfinite(v); }

enum class CycleEnd { converged, restart, limit, breakdown, nan };

struct Cycle {
  CycleEnd end = CycleEnd::limit;
  std::int64_t apps = 0;  ///< counted applications (iterations)
  bool has_dx = false;    ///< dx holds a nonzero correction
};

/// Common context of one cycle: A, M, sizes, tolerance, budget in applications.
struct Ctx {
  index_t n;
  const Operator& matvec;
  const Operator& precond;
  double tol;
  std::int64_t budget;
  std::int64_t* extra_apps;  ///< applications spent forming dx
};

/// y = A M^{-1} v; tmp is workspace of size n.
void apply_am(const Ctx& c, const double* v, double* y, double* tmp) {
  c.precond(v, tmp);
  c.matvec(tmp, y);
}

/// dx = M^{-1} u (one application counted as extra).
void finish_dx(const Ctx& c, const Vec& u, double* dx) {
  c.precond(u.data(), dx);
  ++*c.extra_apps;
}

/// BiCGStab(2): Sleijpen–Fokkema Alg. 3.1 with l = 2; exits after applications 1, 3 (BiCG steps) and 4 (MR step).
Cycle bicgstab_l(const Ctx& c, const double* r0, double* dx) {
  constexpr int l = 2;
  const index_t n = c.n;
  Cycle cy;
  Vec r[l + 1], u[l + 1];
  for (int i = 0; i <= l; ++i) {
    r[i].assign(static_cast<std::size_t>(n), 0.0);
    u[i].assign(static_cast<std::size_t>(n), 0.0);
  }
  Vec x(static_cast<std::size_t>(n), 0.0), best(static_cast<std::size_t>(n), 0.0), tmp(static_cast<std::size_t>(n));
  Vec rt(r0, r0 + n);
  std::copy(r0, r0 + n, r[0].begin());
  double best_norm = norm2(n, r0);
  bool improved = false;
  double rho0 = 1.0, alpha = 0.0, omega = 1.0;
  auto check = [&]() -> bool {  // exit point: true when the cycle must stop
    const double rn = norm2(n, r[0].data());
    if (!finite(rn)) {
      cy.end = CycleEnd::nan;
      return true;
    }
    if (rn < best_norm) {
      best_norm = rn;
      best = x;
      improved = true;
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
  };
  bool stop = false;
  while (!stop) {
    rho0 = -omega * rho0;
    for (int j = 0; j < l && !stop; ++j) {
      const double rho1 = dot(n, r[j].data(), rt.data());
      if (rho0 == 0.0 || !finite(rho1)) {
        cy.end = finite(rho1) ? CycleEnd::breakdown : CycleEnd::nan;
        stop = true;
        break;
      }
      const double beta = alpha * rho1 / rho0;
      rho0 = rho1;
      for (int i = 0; i <= j; ++i)
        for (index_t t = 0; t < n; ++t) u[i][t] = r[i][t] - beta * u[i][t];
      apply_am(c, u[j].data(), u[j + 1].data(), tmp.data());
      ++cy.apps;
      const double gamma = dot(n, u[j + 1].data(), rt.data());
      if (gamma == 0.0 || !finite(gamma)) {
        cy.end = finite(gamma) ? CycleEnd::breakdown : CycleEnd::nan;
        stop = true;
        break;
      }
      alpha = rho0 / gamma;
      for (int i = 0; i <= j; ++i)
        for (index_t t = 0; t < n; ++t) r[i][t] -= alpha * u[i + 1][t];
      for (index_t t = 0; t < n; ++t) x[t] += alpha * u[0][t];
      if (check()) {
        stop = true;
        break;
      }
      apply_am(c, r[j].data(), r[j + 1].data(), tmp.data());
      ++cy.apps;
    }
    if (stop) break;
    // MR part: minimize the residual over r_1 .. r_l (modified Gram–Schmidt)
    double tau[l + 1][l + 1] = {}, sigma[l + 1] = {}, gp[l + 1] = {}, g[l + 1] = {}, gpp[l + 1] = {};
    bool bad = false;
    for (int j = 1; j <= l; ++j) {
      for (int i = 1; i < j; ++i) {
        tau[i][j] = dot(n, r[j].data(), r[i].data()) / sigma[i];
        for (index_t t = 0; t < n; ++t) r[j][t] -= tau[i][j] * r[i][t];
      }
      sigma[j] = dot(n, r[j].data(), r[j].data());
      if (sigma[j] == 0.0 || !finite(sigma[j])) {
        bad = true;
        break;
      }
      gp[j] = dot(n, r[0].data(), r[j].data()) / sigma[j];
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
    for (index_t t = 0; t < n; ++t) {
      x[t] += g[1] * r[0][t];
      r[0][t] -= gp[l] * r[l][t];
      u[0][t] -= g[l] * u[l][t];
    }
    for (int j = 1; j <= l - 1; ++j)
      for (index_t t = 0; t < n; ++t) {
        u[0][t] -= g[j] * u[j][t];
        x[t] += gpp[j] * r[j][t];
        r[0][t] -= gp[j] * r[j][t];
      }
    if (omega == 0.0) {
      check();
      cy.end = CycleEnd::breakdown;
      break;
    }
    stop = check();
  }
  if (improved) {
    finish_dx(c, best, dx);
    cy.has_dx = true;
  }
  return cy;
}

/// BiCGStab (van der Vorst), right-preconditioned; exits after each application (halves).
Cycle bicgstab(const Ctx& c, const double* r0, double* dx) {
  const index_t n = c.n;
  Cycle cy;
  const std::size_t sn = static_cast<std::size_t>(n);
  Vec r(r0, r0 + n), rt(r0, r0 + n), p(sn, 0.0), v(sn, 0.0), s(sn), t(sn), x(sn, 0.0), best(sn, 0.0), tmp(sn);
  double best_norm = norm2(n, r0), rho_old = 1.0, alpha = 1.0, omega = 1.0;
  bool improved = false, first = true;
  auto check = [&](const Vec& res) -> bool {
    const double rn = norm2(n, res.data());
    if (!finite(rn)) {
      cy.end = CycleEnd::nan;
      return true;
    }
    if (rn < best_norm) {
      best_norm = rn;
      best = x;
      improved = true;
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
  };
  for (;;) {
    const double rho = dot(n, rt.data(), r.data());
    if (rho == 0.0 || !finite(rho)) {
      cy.end = finite(rho) ? CycleEnd::breakdown : CycleEnd::nan;
      break;
    }
    if (first) {
      p = r;
      first = false;
    } else {
      const double beta = (rho / rho_old) * (alpha / omega);
      for (index_t i = 0; i < n; ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
    }
    apply_am(c, p.data(), v.data(), tmp.data());
    ++cy.apps;
    const double sig = dot(n, rt.data(), v.data());
    if (sig == 0.0 || !finite(sig)) {
      cy.end = finite(sig) ? CycleEnd::breakdown : CycleEnd::nan;
      break;
    }
    alpha = rho / sig;
    for (index_t i = 0; i < n; ++i) {
      s[i] = r[i] - alpha * v[i];
      x[i] += alpha * p[i];
    }
    if (check(s)) break;
    apply_am(c, s.data(), t.data(), tmp.data());
    ++cy.apps;
    const double tt = dot(n, t.data(), t.data());
    if (tt == 0.0 || !finite(tt)) {
      cy.end = finite(tt) ? CycleEnd::breakdown : CycleEnd::nan;
      break;
    }
    omega = dot(n, t.data(), s.data()) / tt;
    for (index_t i = 0; i < n; ++i) {
      x[i] += omega * s[i];
      r[i] = s[i] - omega * t[i];
    }
    if (check(r)) break;
    if (omega == 0.0) {
      cy.end = CycleEnd::breakdown;
      break;
    }
    rho_old = rho;
  }
  if (improved) {
    finish_dx(c, best, dx);
    cy.has_dx = true;
  }
  return cy;
}

/// One GMRES(m) cycle (Arnoldi with modified Gram–Schmidt, Givens rotations), right-preconditioned.
Cycle gmres(const Ctx& c, const double* r0, double* dx, int m) {
  const index_t n = c.n;
  const std::size_t sn = static_cast<std::size_t>(n);
  Cycle cy;
  m = std::max(1, m);
  const double beta = norm2(n, r0);
  if (!finite(beta)) {
    cy.end = CycleEnd::nan;
    return cy;
  }
  Vector<Vec> v(static_cast<std::size_t>(m) + 1);
  v[0].assign(r0, r0 + n);
  for (index_t i = 0; i < n; ++i) v[0][i] /= beta;
  Vector<double> h(static_cast<std::size_t>(m + 1) * m, 0.0), cs(m), sn_(m), g(m + 1, 0.0);
  g[0] = beta;
  Vec tmp(sn);
  int j = 0;
  cy.end = CycleEnd::restart;
  for (; j < m; ++j) {
    if (cy.apps >= c.budget) {
      cy.end = CycleEnd::limit;
      break;
    }
    v[j + 1].assign(sn, 0.0);
    apply_am(c, v[j].data(), v[j + 1].data(), tmp.data());
    ++cy.apps;
    double* hj = h.data() + static_cast<std::size_t>(j) * (m + 1);
    for (int i = 0; i <= j; ++i) {
      hj[i] = dot(n, v[j + 1].data(), v[i].data());
      for (index_t t = 0; t < n; ++t) v[j + 1][t] -= hj[i] * v[i][t];
    }
    hj[j + 1] = norm2(n, v[j + 1].data());
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
    if (happy != 0.0)
      for (index_t t = 0; t < n; ++t) v[j + 1][t] /= happy;
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
    Vec u(sn, 0.0);
    for (int i = 0; i < k; ++i)
      for (index_t t = 0; t < n; ++t) u[t] += y[i] * v[i][t];
    finish_dx(c, u, dx);
    cy.has_dx = true;
  }
  if (cy.end == CycleEnd::restart && cy.apps >= c.budget) cy.end = CycleEnd::limit;
  return cy;
}

/// Preconditioned CG on A d = r0 (d in x-space, no extra application).
Cycle cg(const Ctx& c, const double* r0, double* dx) {
  const index_t n = c.n;
  const std::size_t sn = static_cast<std::size_t>(n);
  Cycle cy;
  Vec r(r0, r0 + n), z(sn), p(sn), q(sn), d(sn, 0.0), best(sn, 0.0);
  double best_norm = norm2(n, r0);
  bool improved = false;
  c.precond(r.data(), z.data());
  ++cy.apps;
  p = z;
  double rz = dot(n, r.data(), z.data());
  for (;;) {
    c.matvec(p.data(), q.data());
    const double pq = dot(n, p.data(), q.data());
    if (!finite(pq) || !finite(rz)) {
      cy.end = CycleEnd::nan;
      break;
    }
    if (pq <= 0.0 || rz == 0.0) {  // A or M not positive definite (or exact stagnation)
      cy.end = CycleEnd::breakdown;
      break;
    }
    const double alpha = rz / pq;
    for (index_t i = 0; i < n; ++i) {
      d[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const double rn = norm2(n, r.data());
    if (!finite(rn)) {
      cy.end = CycleEnd::nan;
      break;
    }
    if (rn < best_norm) {
      best_norm = rn;
      best = d;
      improved = true;
    }
    if (rn <= c.tol) {
      cy.end = CycleEnd::converged;
      break;
    }
    if (cy.apps >= c.budget) {
      cy.end = CycleEnd::limit;
      break;
    }
    c.precond(r.data(), z.data());
    ++cy.apps;
    const double rz_new = dot(n, r.data(), z.data());
    const double beta = rz_new / rz;
    rz = rz_new;
    for (index_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  if (improved) {
    std::copy(best.begin(), best.end(), dx);
    cy.has_dx = true;
  }
  return cy;
}

}  // namespace

KrylovResult krylov_solve(index_t n, const Operator& matvec, const Operator& precond, const double* b, double* x,
                          const KrylovSettings& s) {
  KrylovResult res;
  const std::size_t sn = static_cast<std::size_t>(n);
  const int per = s.kind == Krylov::bicgstab2 ? 4 : s.kind == Krylov::bicgstab ? 2 : 1;
  const std::int64_t budget_total = static_cast<std::int64_t>(std::max(0, s.max_iterations)) * per;
  res.b_norm = norm2(n, b);
  const double tol = std::max(s.rtol * res.b_norm, s.atol);
  Vec r(sn), ax(sn), dx(sn), xn(sn);
  auto residual = [&](const double* xv, double* rv) {
    matvec(xv, ax.data());
    for (index_t i = 0; i < n; ++i) rv[i] = b[i] - ax[i];
    return norm2(n, rv);
  };
  double rn = residual(x, r.data());
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
    Ctx ctx{n, matvec, precond, tol, budget_total - counted, &extra};
    Cycle cy;
    switch (s.kind) {
      case Krylov::bicgstab2: cy = bicgstab_l(ctx, r.data(), dx.data()); break;
      case Krylov::bicgstab: cy = bicgstab(ctx, r.data(), dx.data()); break;
      case Krylov::gmres: cy = gmres(ctx, r.data(), dx.data(), s.restart); break;
      case Krylov::cg: cy = cg(ctx, r.data(), dx.data()); break;
    }
    counted += cy.apps;
    bool accepted = false;
    if (cy.has_dx) {
      for (index_t i = 0; i < n; ++i) xn[i] = x[i] + dx[i];
      Vec rnew(sn);
      const double rnn = residual(xn.data(), rnew.data());
      if (finite(rnn) && rnn < rn) {  // keep the best iterate
        std::copy(xn.begin(), xn.end(), x);
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

}  // namespace detail
}  // namespace sap
}  // namespace ssids
