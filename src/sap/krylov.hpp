// krylov.hpp — the outer Krylov methods of SaP (Li, Serban, Negrut 2015 §2.1.1: BiCGStab(l) with l = 2 by
// default, CG for SPD systems), here right-preconditioned (A M^{-1} u = r, x = M^{-1} u) so that every
// recursive residual is a residual of the original system; plus BiCGStab and restarted GMRES(m).
//
// Iteration counting (paper §4.1.1, "quarters"): iterations = preconditioner applications inside the method
// / applications per iteration. BiCGStab(2) has 4 applications per iteration and exits after the 1st, 3rd
// and 4th (0.25, 0.75, 1.0 — the paper's three exit points); BiCGStab 2 (halves); GMRES and CG 1.
// The application that forms x = x0 + M^{-1} u at each exit/restart is counted in `applications` only.
#pragma once
#include <cstdint>
#include <functional>

#include "ssids/sap.hpp"

namespace ssids {
namespace sap {
namespace detail {

/// y = op(x), both of size n. Must not alias.
using Operator = std::function<void(const double* x, double* y)>;

struct KrylovSettings {
  Krylov kind = Krylov::bicgstab2;
  double rtol = 1e-6, atol = 0.0;
  int max_iterations = 100;
  int restart = 50;
};

struct KrylovResult {
  Status status = Status::converged;
  double iterations = 0.0;
  std::int64_t applications = 0;  ///< all preconditioner applications, including those forming x
  double residual_norm = 0.0;     ///< ||b - A x||_2 recomputed for the returned x
  double b_norm = 0.0;
};

/// Solve A x = b. x: in: initial guess (all zero for none); out: the converged or best iterate.
KrylovResult krylov_solve(index_t n, const Operator& matvec, const Operator& precond, const double* b, double* x,
                          const KrylovSettings& s);

}  // namespace detail
}  // namespace sap
}  // namespace ssids
