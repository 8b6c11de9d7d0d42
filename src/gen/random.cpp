// gen/random.cpp — seeded random test problems: a sparse convex-QP KKT saddle point and a dense-banded
// nonsymmetric matrix with a prescribed diagonal dominance.
//
// Conventions: 0-based; the KKT matrix is the LOWER triangle in CSC (rows ascending per column); the
// banded matrix is CSR (columns ascending per row). All randomness comes from gen::Rng (mt19937_64 with a
// hand-written mapping to doubles), consumed in a fixed order, so a seed gives the same matrix on every
// platform.
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "common/host_allocation.hpp"
#include "gen/rng.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace {

// Extra entries drawn per row of A (before removing duplicates).
constexpr int a_extra_per_row = 3;
// Extra entries of A have magnitude < a_extra_max, pivots >= 1: a_extra_per_row * a_extra_max < 1 keeps the
// pivot columns of A strictly row diagonally dominant (see generate_kkt_qp).
constexpr double a_extra_max = 0.3;
static_assert(a_extra_per_row * a_extra_max < 1.0, "A's pivot submatrix must stay diagonally dominant");

/// Sorts (index, value) pairs by index and keeps the first of each run of equal indices.
using Entries = Vector<std::pair<index_t, double>>;

void sort_unique(Entries& v) {
  std::stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  v.erase(std::unique(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
          v.end());
}

}  // namespace

// KKT matrix [H A^T; A -delta I] of a random sparse convex QP with local coupling, unknowns ordered H's
// block (0..nvar-1) then A's rows (nvar..nvar+ncon-1). The variables sit on a g x g grid (g = ceil(sqrt(nvar)),
// variable j at (j mod g, j / g)) and every coupling is between grid neighbours, as in discretized optimal
// control or PDE-constrained problems; a fill-reducing ordering then behaves as on a 2D mesh (random global
// coupling would make the factor nearly dense).
//  * H: column j couples to its right and upper grid neighbours (when they exist) with values in [-1, 1);
//    then h_jj = sum_{i != j} |h_ij| + U[0.5, 1.5), so H is strictly diagonally dominant with a positive
//    diagonal, hence SPD.
//  * A: row r has a pivot a_{r,p(r)} = +-U[1, 2) in column p(r) = floor(r * nvar / ncon) (strictly increasing
//    since ncon < nvar), and up to 3 entries in [-0.3, 0.3) in grid neighbours of p(r). The square submatrix
//    A(:, p(0..ncon-1)) is then strictly row diagonally dominant (off-diagonal row sum < 0.9 < 1 <= pivot),
//    hence nonsingular, so A has full row rank.
// With H SPD and A of full row rank, the Schur complement -delta I - A H^-1 A^T is negative definite for
// every delta >= 0, so by Sylvester's law the inertia is exactly (nvar, ncon, 0).
// The (2,2) diagonal entries are stored only when delta != 0 (a structurally zero block otherwise).
SymmetricMatrix generate_kkt_qp(index_t nvar, index_t ncon, double delta, std::uint64_t seed) try {
  if (nvar < 1) throw Error(flag::bad_input, "kkt-qp: NVAR = " + std::to_string(nvar) + " must be >= 1");
  if (ncon < 0 || ncon >= nvar)
    throw Error(flag::bad_input, "kkt-qp: NCON = " + std::to_string(ncon) + " must satisfy 0 <= NCON < NVAR = " +
                                     std::to_string(nvar));
  if (static_cast<std::int64_t>(nvar) + ncon > std::numeric_limits<index_t>::max())
    throw Error(flag::bad_input, "kkt-qp: NVAR + NCON does not fit in a 32-bit index");
  if (!std::isfinite(delta) || delta < 0)
    throw Error(flag::bad_input, "kkt-qp: DELTA must be finite and >= 0");

  gen::Rng rng(seed);
  const std::size_t nv = static_cast<std::size_t>(nvar);
  index_t g = static_cast<index_t>(std::ceil(std::sqrt(static_cast<double>(nvar))));
  while (static_cast<std::int64_t>(g) * g < nvar) ++g;

  // H's strictly lower part, column by column: right neighbour j+1 (same grid row) and upper neighbour j+g.
  Vector<Entries> hcol(nv);
  Vector<double> abs_row_sum(nv, 0.0);
  for (index_t j = 0; j < nvar; ++j) {
    auto& c = hcol[j];
    if ((j % g) + 1 < g && j + 1 < nvar) c.emplace_back(j + 1, rng.uniform(-1.0, 1.0));
    if (static_cast<std::int64_t>(j) + g < nvar) c.emplace_back(j + g, rng.uniform(-1.0, 1.0));
    for (const auto& [i, v] : c) {
      abs_row_sum[j] += std::fabs(v);
      abs_row_sum[i] += std::fabs(v);
    }
  }
  Vector<double> hdiag(nv);
  for (std::size_t j = 0; j < nv; ++j) hdiag[j] = abs_row_sum[j] + rng.uniform(0.5, 1.5);

  // A row by row, then bucketed by column: A^T's columns are the lower part of the KKT's first block columns.
  Vector<Entries> acol(nv);  // (row of KKT, value)
  Entries arow;
  const std::int64_t offsets[4] = {1, -1, g, -static_cast<std::int64_t>(g)};
  for (index_t r = 0; r < ncon; ++r) {
    arow.clear();
    const index_t pc = static_cast<index_t>(static_cast<std::int64_t>(r) * nvar / ncon);
    const double sign = rng.below(2) ? 1.0 : -1.0;
    arow.emplace_back(pc, sign * rng.uniform(1.0, 2.0));  // first, so sort_unique keeps it
    for (int t = 0; t < a_extra_per_row; ++t) {
      const std::int64_t c = pc + offsets[rng.below(4)];
      const double v = rng.uniform(-a_extra_max, a_extra_max);
      if (c >= 0 && c < nvar) arow.emplace_back(static_cast<index_t>(c), v);
    }
    sort_unique(arow);
    for (const auto& [c, v] : arow) acol[c].emplace_back(nvar + r, v);  // r ascending: rows stay sorted
  }

  SymmetricMatrix a;
  a.n = nvar + ncon;
  offset_t nnz = nvar + (delta != 0.0 ? ncon : 0);
  for (std::size_t j = 0; j < nv; ++j) nnz += static_cast<offset_t>(hcol[j].size() + acol[j].size());
  a.ptr.resize(static_cast<std::size_t>(a.n) + 1);
  a.row.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  a.ptr[0] = 0;
  for (index_t j = 0; j < a.n; ++j) {
    if (j < nvar) {
      a.row.push_back(j);
      a.val.push_back(hdiag[j]);
      for (const auto& [i, v] : hcol[j]) a.row.push_back(i), a.val.push_back(v);
      for (const auto& [i, v] : acol[j]) a.row.push_back(i), a.val.push_back(v);
    } else if (delta != 0.0) {
      a.row.push_back(j);
      a.val.push_back(-delta);
    }
    a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
  }
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_kkt_qp");
}

// [H A^T; A 0] of the QP of generate_kkt_qp(nvar, ncon, 0, seed) with `ndense` more rows of A that couple
// every variable (linking constraints: a budget, a sum over all time steps), values in [0.5, 1.5) drawn row by
// row from a stream seeded from the matrix seed. The dense rows come last (rows nvar + ncon .. n-1). H is SPD;
// A has full row rank with probability 1 (random dense rows are independent of the sparse ones when
// ncon + ndense <= nvar), so the inertia is (nvar, ncon + ndense, 0).
SymmetricMatrix generate_kkt_dense(index_t nvar, index_t ncon, index_t ndense, std::uint64_t seed) try {
  if (ndense < 0) throw Error(flag::bad_input, "kkt-dense: NDENSE = " + std::to_string(ndense) + " must be >= 0");
  if (static_cast<std::int64_t>(ncon) + ndense > nvar)
    throw Error(flag::bad_input, "kkt-dense: NCON + NDENSE must not exceed NVAR");
  if (static_cast<std::int64_t>(nvar) * ndense > std::numeric_limits<offset_t>::max() / 2)
    throw Error(flag::bad_input, "kkt-dense: too many entries");
  SymmetricMatrix a = generate_kkt_qp(nvar, ncon, 0.0, seed);
  gen::Rng rng(seed ^ 0xd1b54a32d192ed03ULL);
  Vector<double> dense(static_cast<std::size_t>(nvar) * static_cast<std::size_t>(ndense));
  for (double& v : dense) v = rng.uniform(0.5, 1.5);  // row d, column j at d * nvar + j
  SymmetricMatrix out;
  out.n = a.n + ndense;
  out.ptr.resize(static_cast<std::size_t>(out.n) + 1);
  const std::size_t nnz = a.row.size() + static_cast<std::size_t>(nvar) * static_cast<std::size_t>(ndense);
  out.row.reserve(nnz);
  out.val.reserve(nnz);
  out.ptr[0] = 0;
  for (index_t j = 0; j < out.n; ++j) {
    if (j < a.n)
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
        out.row.push_back(a.row[k]);
        out.val.push_back(a.val[k]);
      }
    if (j < nvar)
      for (index_t d = 0; d < ndense; ++d) {
        out.row.push_back(a.n + d);
        out.val.push_back(dense[static_cast<std::size_t>(d) * static_cast<std::size_t>(nvar) + j]);
      }
    out.ptr[j + 1] = static_cast<offset_t>(out.row.size());
  }
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_kkt_dense");
}

// Iteration `iter` of an interior-point-like sequence on the QP of generate_kkt_qp(nvar, ncon, 0, seed):
// [H + Sigma_t, A^T; A, 0] with the (2,2) diagonal stored as explicit zeros, so that every iteration has the
// same pattern (an interior-point code passes the structure of its regularization -delta_c I even when
// delta_c = 0). Sigma_t = diag(z_i / x_i) models the barrier terms of the bounds x_i >= 0: the barrier
// parameter is mu_t = max(1e-9, 0.2^t) (IPOPT's monotone update with kappa_mu = 0.2); half of the variables
// have a bound (seeded draw), 40% of those are active at the solution, where z_i / x_i = c_i / mu_t grows to
// ~1e9, the others inactive, where it shrinks as c_i mu_t; c_i in [0.5, 2). H + Sigma_t stays SPD and A keeps
// full row rank, so the inertia is (nvar, ncon, 0) at every iteration. The draws for the barrier terms come
// after H and A's from the same stream, so iteration t of a sequence is deterministic by itself.
SymmetricMatrix generate_kkt_ipm(index_t nvar, index_t ncon, index_t iter, std::uint64_t seed) try {
  if (iter < 0) throw Error(flag::bad_input, "kkt-ipm: ITER = " + std::to_string(iter) + " must be >= 0");
  SymmetricMatrix a = generate_kkt_qp(nvar, ncon, 0.0, seed);
  // the barrier terms: a separate stream, seeded from the matrix seed, drawn in variable order
  gen::Rng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  double mu = 1.0;
  for (index_t t = 0; t < iter && mu > 1e-9; ++t) mu *= 0.2;
  mu = std::max(mu, 1e-9);
  Vector<double> sigma(static_cast<std::size_t>(nvar), 0.0);
  for (index_t j = 0; j < nvar; ++j) {
    const bool bounded = rng.below(2) == 0;
    const bool active = rng.uniform01() < 0.4;
    const double c = rng.uniform(0.5, 2.0);
    if (bounded) sigma[j] = active ? c / mu : c * mu;
  }
  SymmetricMatrix out;
  out.n = a.n;
  out.ptr.resize(a.ptr.size());
  out.row.reserve(a.row.size() + static_cast<std::size_t>(ncon));
  out.val.reserve(a.row.size() + static_cast<std::size_t>(ncon));
  out.ptr[0] = 0;
  for (index_t j = 0; j < a.n; ++j) {
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      out.row.push_back(a.row[k]);
      out.val.push_back(a.row[k] == j ? a.val[k] + sigma[j] : a.val[k]);  // H's diagonal comes first
    }
    if (j >= nvar) {  // the (2,2) block: structure only
      out.row.push_back(j);
      out.val.push_back(0.0);
    }
    out.ptr[j + 1] = static_cast<offset_t>(out.row.size());
  }
  return out;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_kkt_ipm");
}

// Dense band of half-bandwidth k (clamped to n-1): every a_ij with |i - j| <= k is stored, off-diagonals
// U[-1, 1) drawn row by row in column order, then a_ii = dominance * sum_{j != i} |a_ij|.
// The arrays are allocated at their exact final size, n (2k+1) - k (k+1) entries, so n = 2e5, k = 200
// (8e7 entries, ~1 GB) needs no reallocation and no temporary.
CsrMatrix generate_banded(index_t n, index_t k, double dominance, std::uint64_t seed) try {
  if (n < 1) throw Error(flag::bad_input, "banded: N = " + std::to_string(n) + " must be >= 1");
  if (k < 0) throw Error(flag::bad_input, "banded: K = " + std::to_string(k) + " must be >= 0");
  if (!std::isfinite(dominance) || dominance < 0)
    throw Error(flag::bad_input, "banded: D must be finite and >= 0");
  k = std::min(k, n - 1);
  const offset_t n64 = n, k64 = k;
  const offset_t nnz = n64 * (2 * k64 + 1) - k64 * (k64 + 1);

  gen::Rng rng(seed);
  CsrMatrix a;
  a.nrow = a.ncol = n;
  a.ptr.resize(static_cast<std::size_t>(n) + 1);
  a.col.resize(static_cast<std::size_t>(nnz));
  a.val.resize(static_cast<std::size_t>(nnz));
  // raw pointers: push_back's capacity checks cost more than the random numbers at 8e7 entries
  index_t* col = a.col.data();
  double* val = a.val.data();
  offset_t q = 0;
  a.ptr[0] = 0;
  for (index_t i = 0; i < n; ++i) {
    const index_t lo = std::max<index_t>(0, i - k), hi = std::min<index_t>(n - 1, i + k);
    double sum = 0.0;
    for (index_t j = lo; j <= hi; ++j, ++q) {
      col[q] = j;
      const double v = j == i ? 0.0 : rng.uniform(-1.0, 1.0);  // the diagonal is set once the row sum is known
      sum += std::fabs(v);
      val[q] = v;
    }
    val[q - (hi - i) - 1] = dominance * sum;
    a.ptr[i + 1] = q;
  }
  return a;
} catch (const std::bad_alloc&) {
  detail::throw_host_allocation_failed("generate_banded");
}

}  // namespace ssids
