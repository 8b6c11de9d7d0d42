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

/// The vectors and operators one Krylov solve works with. Vectors are `size()` doubles in the space's own
/// memory (host or GPU); the methods touch them only through these operations, and only scalars come back,
/// so the same iteration runs on the host and, with the matrix and preconditioner resident, on the GPU.
class KrylovSpace {
 public:
  virtual ~KrylovSpace() = default;
  virtual index_t size() const = 0;
  /// A new zero-filled vector, returned to release() (throws Error(allocation) when out of memory).
  virtual double* allocate() = 0;
  virtual void release(double* v) noexcept = 0;
  /// x . y, deterministic (the same inputs give the same bits on every call). x and y may be the same
  /// vector (norms are sqrt(dot(x, x))).
  virtual double dot(const double* x, const double* y) = 0;
  /// z = a x + b y + c z, elementwise, evaluated as ((a x) + (b y)) + (c z). A term whose coefficient is
  /// exactly 0 (either sign) is skipped entirely (its vector may be null; when c == 0 the old z is not read, so
  /// NaNs in it do not propagate); with all three coefficients 0, z = 0. x or y may alias z.
  virtual void combine(double a, const double* x, double b, const double* y, double c, double* z) = 0;
  /// y = x.
  virtual void copy(const double* x, double* y) = 0;
  /// y = A x (x, y distinct).
  virtual void matvec(const double* x, double* y) = 0;
  /// y = M^{-1} x (x, y distinct).
  virtual void precond(const double* x, double* y) = 0;
  /// Vectors in and out of the space (host arrays of size()).
  virtual void to_space(const double* host, double* v) = 0;
  virtual void to_host(const double* v, double* host) = 0;
};

/// Solve A x = b in `space`: b and x are vectors of the space. x: in: initial guess (all zero for none);
/// out: the converged or best iterate.
KrylovResult krylov_solve(KrylovSpace& space, const double* b, double* x, const KrylovSettings& s);

/// Host convenience: the same iteration on host arrays with the operators as callbacks.
KrylovResult krylov_solve(index_t n, const Operator& matvec, const Operator& precond, const double* b, double* x,
                          const KrylovSettings& s);

}  // namespace detail
}  // namespace sap
}  // namespace ssids
