// gen/grid.cpp — stencil test problems on regular grids: the 2D/3D Laplacians (with the closed-form
// inertia count of the shifted 3D one), a MAC Stokes saddle point and an upwind convection-diffusion
// operator.
//
// Conventions: 0-based; symmetric results are the LOWER triangle in CSC with rows ascending in each
// column; general results are CSR with columns ascending in each row. Grid points are numbered
// lexicographically, x fastest: point (ix, iy[, iz]) has index ix + k*iy [+ k*k*iz]. Every array is sized
// exactly from a closed-form count and filled in one pass (no maps, no sorting), so that k = 100 in 3D
// (n = 1e6) takes a fraction of a second.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "common/host_allocation.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace {

constexpr std::int64_t max_index = std::numeric_limits<index_t>::max();

/// Throws bad_input unless 1 <= k and the resulting order `n` (computed in 64 bits) fits in index_t.
void check_grid(const char* what, index_t k, index_t kmin, std::int64_t n) {
  if (k < kmin)
    throw Error(flag::bad_input, std::string(what) + ": grid size K = " + std::to_string(k) + " must be >= " +
                                     std::to_string(kmin));
  if (n > max_index)
    throw Error(flag::bad_input, std::string(what) + ": grid size K = " + std::to_string(k) +
                                     " gives an order that does not fit in a 32-bit index");
}

void check_finite(const char* what, const char* name, double x) {
  if (!std::isfinite(x)) throw Error(flag::bad_input, std::string(what) + ": " + name + " must be finite");
}

/// Appends one lower-triangle entry to column storage that is being filled in order.
inline void push(SymmetricMatrix& a, index_t r, double v) {
  a.row.push_back(r);
  a.val.push_back(v);
}

}  // namespace

SymmetricMatrix generate_laplace2d(index_t k) try {
  const std::int64_t k64 = k;
  check_grid("laplace2d", k, 1, k64 * k64);
  SymmetricMatrix a;
  a.n = static_cast<index_t>(k64 * k64);
  // lower triangle of column j: itself, its east neighbour j+1 and its north neighbour j+k.
  const offset_t nnz = k64 * k64 + 2 * k64 * (k64 - 1);
  a.ptr.resize(static_cast<std::size_t>(a.n) + 1);
  a.row.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  a.ptr[0] = 0;
  index_t j = 0;
  for (index_t iy = 0; iy < k; ++iy)
    for (index_t ix = 0; ix < k; ++ix, ++j) {
      push(a, j, 4.0);
      if (ix + 1 < k) push(a, j + 1, -1.0);
      if (iy + 1 < k) push(a, j + k, -1.0);
      a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
    }
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_laplace2d");
}

SymmetricMatrix generate_laplace3d(index_t k, double shift) try {
  const std::int64_t k64 = k;
  // 1290^3 is the last cube below 2^31; larger k is rejected before cubing (which could overflow int64).
  check_grid("laplace3d", k, 1, k64 > 1290 ? max_index + 1 : k64 * k64 * k64);
  check_finite("laplace3d", "SHIFT", shift);
  SymmetricMatrix a;
  const index_t kk = k * k;
  a.n = static_cast<index_t>(k64 * k64 * k64);
  // lower triangle of column j: itself, east j+1, north j+k, up j+k^2.
  const offset_t nnz = k64 * k64 * k64 + 3 * k64 * k64 * (k64 - 1);
  a.ptr.resize(static_cast<std::size_t>(a.n) + 1);
  a.row.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  a.ptr[0] = 0;
  const double diag = 6.0 - shift;
  index_t j = 0;
  for (index_t iz = 0; iz < k; ++iz)
    for (index_t iy = 0; iy < k; ++iy)
      for (index_t ix = 0; ix < k; ++ix, ++j) {
        push(a, j, diag);
        if (ix + 1 < k) push(a, j + 1, -1.0);
        if (iy + 1 < k) push(a, j + k, -1.0);
        if (iz + 1 < k) push(a, j + kk, -1.0);
        a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
      }
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_laplace3d");
}

std::int64_t laplace3d_num_neg(index_t k, double shift, std::int64_t* num_zero) {
  if (k < 0) throw Error(flag::bad_input, "laplace3d_num_neg: K must be >= 0");
  // The 3D operator is the Kronecker sum of three 1D ones, so its eigenvalues are mu_a + mu_b + mu_c - shift
  // with mu_a = 2 - 2 cos(pi a / (k+1)), already ascending in a. For each pair (a, b) the c with a negative
  // (resp. zero, within tol) eigenvalue form a contiguous range of the sorted mu, found by binary search:
  // O(k^2 log k) instead of k^3. The three classes partition all k^3 eigenvalues: negative means
  // lambda < -tol, zero means |lambda| <= tol.
  constexpr double tol = 1e-9;
  const double pi = std::acos(-1.0);
  Vector<double> mu(static_cast<std::size_t>(k));
  for (index_t a = 1; a <= k; ++a) mu[a - 1] = 2.0 - 2.0 * std::cos(pi * a / (k + 1.0));
  std::int64_t neg = 0, zero = 0;
  for (index_t a = 0; a < k; ++a)
    for (index_t b = 0; b < k; ++b) {
      const double t = shift - mu[a] - mu[b];  // lambda = mu_c - t
      auto lo = std::lower_bound(mu.begin(), mu.end(), t - tol);  // first mu_c >= t - tol
      auto hi = std::upper_bound(mu.begin(), mu.end(), t + tol);  // first mu_c >  t + tol
      neg += lo - mu.begin();
      zero += hi - lo;
    }
  if (num_zero) *num_zero = zero;
  return neg;
}

// Stokes saddle point on the unit square split into k x k cells of width h, MAC (staggered) grid.
// Unknowns, in this order (n = 2k(k-1) + k^2 - 1):
//   u(i, j), i = 1..k-1, j = 0..k-1: x-velocity on the interior vertical face x = i h, y = (j + 1/2) h,
//            index (i-1) + (k-1) j;                                                     nu = k(k-1) of them
//   v(i, j), i = 0..k-1, j = 1..k-1: y-velocity on the interior horizontal face, index nu + i + k (j-1);
//                                                                                       nv = k(k-1)
//   p(i, j), cell (i, j), index nu + nv + i + k j, for every cell but the last one (k-1, k-1).
// Velocity block: each component gets the 5-point Dirichlet Laplacian of its own (k-1) x k or k x (k-1)
// node grid (diagonal 4, neighbours -1; scaled by h^2), which is SPD. B = h * divergence: the divergence of
// cell (i, j) is u(i+1, j) - u(i, j) + v(i, j+1) - v(i, j), boundary faces being zero. B^T is the
// incidence matrix of the (connected) cell adjacency graph, so B has rank k^2 - 1 with the constant
// pressure as the null vector of B^T; dropping the last pressure gives full row rank, hence a nonsingular
// matrix of inertia (nu + nv positive, k^2 - 1 negative, 0 zero). The (2,2) block is structurally empty.
SymmetricMatrix generate_stokes(index_t k) try {
  const std::int64_t k64 = k;
  // (3 k^2 could overflow int64 for k near 2^31; any k > 30000 is far too large anyway)
  check_grid("stokes", k, 2, k64 > 30000 ? max_index + 1 : 2 * k64 * (k64 - 1) + k64 * k64 - 1);
  const index_t nu = k * (k - 1), nv = nu, np = k * k - 1;
  const index_t p0 = nu + nv;     // index of the first pressure
  const index_t last_cell = k * k - 1;  // dropped pressure
  SymmetricMatrix a;
  a.n = nu + nv + np;
  const offset_t nnz = 2 * (k64 * (k64 - 1) + k64 * (k64 - 2) + (k64 - 1) * (k64 - 1)) + 4 * k64 * (k64 - 1) - 2;
  a.ptr.resize(static_cast<std::size_t>(a.n) + 1);
  a.row.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  a.ptr[0] = 0;
  index_t col = 0;
  // The two cells a face separates, c_minus (divergence gets +velocity: outflow) then c_plus (-velocity);
  // c_minus < c_plus, so rows stay ascending.
  auto push_divergence = [&](index_t c_minus, index_t c_plus) {
    if (c_minus != last_cell) push(a, p0 + c_minus, 1.0);
    if (c_plus != last_cell) push(a, p0 + c_plus, -1.0);
  };
  for (index_t j = 0; j < k; ++j)  // u block, node grid (k-1) wide, k high
    for (index_t i = 1; i < k; ++i, ++col) {
      push(a, col, 4.0);
      if (i + 1 < k) push(a, col + 1, -1.0);
      if (j + 1 < k) push(a, col + (k - 1), -1.0);
      push_divergence((i - 1) + k * j, i + k * j);
      a.ptr[col + 1] = static_cast<offset_t>(a.row.size());
    }
  for (index_t j = 1; j < k; ++j)  // v block, node grid k wide, k-1 high
    for (index_t i = 0; i < k; ++i, ++col) {
      push(a, col, 4.0);
      if (i + 1 < k) push(a, col + 1, -1.0);
      if (j + 1 < k) push(a, col + k, -1.0);
      push_divergence(i + k * (j - 1), i + k * j);
      a.ptr[col + 1] = static_cast<offset_t>(a.row.size());
    }
  for (; col < a.n; ++col) a.ptr[col + 1] = static_cast<offset_t>(a.row.size());  // zero (2,2) block
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_stokes");
}

// Stokes saddle point on the unit cube split into k x k x k cells, MAC grid: the 3D counterpart of
// generate_stokes. Cell (i, j, l) has number c = i + k j + k^2 l. Unknowns, in this order
// (n = 3 k^2 (k-1) + k^3 - 1):
//   u on the interior faces x = i h, i = 1..k-1: index (i-1) + (k-1) j + (k-1) k l;            nu = (k-1) k^2
//   v on the interior faces y = j h, j = 1..k-1: index nu + i + k (j-1) + k (k-1) l;           nv = nu
//   w on the interior faces z = l h, l = 1..k-1: index nu + nv + i + k j + k^2 (l-1);          nw = nu
//   p(c) for every cell but the last one: index nu + nv + nw + c.
// Each velocity component gets the 7-point Dirichlet Laplacian of its own face grid (diagonal 6, neighbours
// -1), which is SPD; B is the divergence (+1 for the cell a face leaves, -1 for the one it enters). As in
// 2D, B^T is the incidence matrix of the connected cell graph, so dropping one pressure leaves full row
// rank: nonsingular, inertia (3 (k-1) k^2 positive, k^3 - 1 negative, 0 zero), (2,2) block empty.
SymmetricMatrix generate_stokes3d(index_t k) try {
  const std::int64_t k64 = k;
  check_grid("stokes3d", k, 2, k64 > 2000 ? max_index + 1 : 3 * k64 * k64 * (k64 - 1) + k64 * k64 * k64 - 1);
  const index_t nu = (k - 1) * k * k, p0 = 3 * nu, last_cell = k * k * k - 1;
  SymmetricMatrix a;
  a.n = p0 + k * k * k - 1;
  const offset_t nnz = 3 * (k64 - 1) * k64 * k64 + 3 * (k64 - 2) * k64 * k64 + 6 * (k64 - 1) * (k64 - 1) * k64 +
                       6 * (k64 - 1) * k64 * k64 - 3;
  a.ptr.resize(static_cast<std::size_t>(a.n) + 1);
  a.row.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  a.ptr[0] = 0;
  index_t col = 0;
  auto push_divergence = [&](index_t c_minus, index_t c_plus) {  // c_minus < c_plus: rows stay ascending
    if (c_minus != last_cell) push(a, p0 + c_minus, 1.0);
    if (c_plus != last_cell) push(a, p0 + c_plus, -1.0);
  };
  // one velocity component on its nx x ny x nz face grid; `cells` gives the two cells of face (x, y, z)
  auto component = [&](index_t nx, index_t ny, index_t nz, auto cells) {
    for (index_t z = 0; z < nz; ++z)
      for (index_t y = 0; y < ny; ++y)
        for (index_t x = 0; x < nx; ++x, ++col) {
          push(a, col, 6.0);
          if (x + 1 < nx) push(a, col + 1, -1.0);
          if (y + 1 < ny) push(a, col + nx, -1.0);
          if (z + 1 < nz) push(a, col + nx * ny, -1.0);
          index_t cm = 0, cp = 0;
          cells(x, y, z, cm, cp);
          push_divergence(cm, cp);
          a.ptr[col + 1] = static_cast<offset_t>(a.row.size());
        }
  };
  // u(i, j, l), x = i - 1: between cells (i-1, j, l) and (i, j, l)
  component(k - 1, k, k, [&](index_t x, index_t y, index_t z, index_t& cm, index_t& cp) {
    cm = x + k * y + k * k * z;
    cp = cm + 1;
  });
  // v(i, j, l), y = j - 1: between cells (i, j-1, l) and (i, j, l)
  component(k, k - 1, k, [&](index_t x, index_t y, index_t z, index_t& cm, index_t& cp) {
    cm = x + k * y + k * k * z;
    cp = cm + k;
  });
  // w(i, j, l), z = l - 1: between cells (i, j, l-1) and (i, j, l)
  component(k, k, k - 1, [&](index_t x, index_t y, index_t z, index_t& cm, index_t& cp) {
    cm = x + k * y + k * k * z;
    cp = cm + k * k;
  });
  for (; col < a.n; ++col) a.ptr[col + 1] = static_cast<offset_t>(a.row.size());  // zero (2,2) block
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_stokes3d");
}

// Upwind convection-diffusion -lap(u) + w . grad(u) on the unit square, k x k interior points,
// h = 1/(k+1), homogeneous Dirichlet boundary, rows scaled by h^2. The wind is w = peclet (1, 1)/sqrt(2)
// (any sign of peclet). First-order upwinding puts the convective term h |w_x| on the upstream neighbour,
// so every off-diagonal is <= 0 and the diagonal 4 + h (|w_x| + |w_y|) equals the absolute off-diagonal
// row sum in the interior and exceeds it on the boundary: an irreducibly diagonally dominant M-matrix.
CsrMatrix generate_convdiff(index_t k, double peclet) try {
  const std::int64_t k64 = k;
  check_grid("convdiff", k, 1, k64 * k64);
  check_finite("convdiff", "PECLET", peclet);
  const double h = 1.0 / (k + 1.0);
  const double w = peclet / std::sqrt(2.0);  // both wind components
  const double cw = h * std::fabs(w);        // convective weight of the upstream neighbour
  // upstream is west/south when w > 0, east/north when w < 0
  const double west = -1.0 - (w > 0 ? cw : 0.0), east = -1.0 - (w < 0 ? cw : 0.0);
  const double south = west, north = east;
  const double diag = 4.0 + 2.0 * cw;
  CsrMatrix a;
  a.nrow = a.ncol = static_cast<index_t>(k64 * k64);
  const offset_t nnz = k64 * k64 + 4 * k64 * (k64 - 1);
  a.ptr.resize(static_cast<std::size_t>(a.nrow) + 1);
  a.col.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  a.ptr[0] = 0;
  auto put = [&](index_t c, double v) {
    a.col.push_back(c);
    a.val.push_back(v);
  };
  index_t r = 0;
  for (index_t iy = 0; iy < k; ++iy)
    for (index_t ix = 0; ix < k; ++ix, ++r) {
      if (iy > 0) put(r - k, south);
      if (ix > 0) put(r - 1, west);
      put(r, diag);
      if (ix + 1 < k) put(r + 1, east);
      if (iy + 1 < k) put(r + k, north);
      a.ptr[r + 1] = static_cast<offset_t>(a.col.size());
    }
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_convdiff");
}

}  // namespace ssids
