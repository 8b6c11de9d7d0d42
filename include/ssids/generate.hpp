// ssids/generate.hpp — generated test problems and the "gen:KIND:ARGS" matrix specs.
// All generators are deterministic (seeded) and return 0-based matrices.
#pragma once
#include <cstdint>
#include <string>

#include "ssids/csc.hpp"
#include "ssids/matrix_market.hpp"

namespace ssids {

/// 5-point Laplacian on a k x k grid (n = k^2): diagonal 4, neighbours -1. SPD.
SymmetricMatrix generate_laplace2d(index_t k);
/// 7-point Laplacian on a k^3 grid (n = k^3): diagonal 6, neighbours -1, minus shift*I. SPD for shift = 0;
/// indefinite for shift between the smallest and largest eigenvalue.
SymmetricMatrix generate_laplace3d(index_t k, double shift = 0.0);
/// Number of negative eigenvalues of generate_laplace3d(k, shift) (and the number of zero ones, within
/// 1e-9, in *num_zero), from the closed-form eigenvalues 6 - 2(cos(pi a/(k+1)) + cos(pi b/(k+1)) + cos(pi c/(k+1))).
std::int64_t laplace3d_num_neg(index_t k, double shift, std::int64_t* num_zero = nullptr);
/// Saddle point [H A^T; A -delta I] of a seeded random sparse convex QP: H (nvar x nvar) SPD sparse,
/// A (ncon x nvar) with full row rank, ncon < nvar. Inertia: nvar positive, ncon negative.
SymmetricMatrix generate_kkt_qp(index_t nvar, index_t ncon, double delta, std::uint64_t seed);
/// That QP's saddle point with `ndense` more constraint rows that couple every variable (dense linking rows,
/// numbered last); ncon + ndense <= nvar. Inertia (nvar, ncon + ndense, 0) with probability 1.
SymmetricMatrix generate_kkt_dense(index_t nvar, index_t ncon, index_t ndense, std::uint64_t seed);
/// Iteration `iter` (>= 0) of an interior-point-like sequence on that QP: [H + Sigma_iter, A^T; A, 0], the
/// (2,2) diagonal stored as explicit zeros, Sigma_iter = barrier terms z_i / x_i of bounds x_i >= 0 that
/// spread (active ones grow as 1 / mu, inactive ones shrink as mu, mu = max(1e-9, 0.2^iter)). Every iteration
/// has the same pattern; inertia (nvar, ncon, 0).
SymmetricMatrix generate_kkt_ipm(index_t nvar, index_t ncon, index_t iter, std::uint64_t seed);
/// Stokes-type saddle point [K B^T; B 0] on a k x k grid (velocity Laplacians, pressure divergence) with a
/// zero (2,2) block; nonsingular (one pressure pinned). Inertia: n_velocity positive, n_pressure negative.
SymmetricMatrix generate_stokes(index_t k);
/// The same on a k x k x k grid of cells (MAC, three velocity components). Inertia: 3 k^2 (k-1) positive,
/// k^3 - 1 negative.
SymmetricMatrix generate_stokes3d(index_t k);
/// Nonsymmetric convection-diffusion (upwind, 5-point) on a k x k grid with Peclet number p.
CsrMatrix generate_convdiff(index_t k, double peclet);
/// Nonsymmetric dense-banded N x N, half-bandwidth K, random off-diagonals in the band, diagonal set so
/// that |a_ii| = d * sum_{j != i} |a_ij|.
CsrMatrix generate_banded(index_t n, index_t k, double dominance, std::uint64_t seed);

/// Documented list of kinds and arguments, for --help texts.
std::string generator_help();

/// Load a symmetric matrix from a spec: a file path, or "gen:KIND:ARG:ARG..." with KIND one of
/// laplace2d:K, laplace3d:K[:SHIFT], kkt-qp:NVAR:NCON[:DELTA[:SEED]], kkt-ipm:NVAR:NCON:ITER[:SEED],
/// kkt-dense:NVAR:NCON:NDENSE[:SEED], stokes:K, stokes3d:K.
/// Throws Error(bad_input) for unknown kinds or bad arguments (and for nonsymmetric kinds).
SymmetricMatrix load_symmetric(const std::string& spec, MatrixReport* report = nullptr);
/// Load a general matrix: a file, or gen:convdiff:K:PECLET, gen:banded:N:K:D[:SEED], or a symmetric kind
/// expanded to both triangles.
CsrMatrix load_general(const std::string& spec, MatrixReport* report = nullptr);

}  // namespace ssids
