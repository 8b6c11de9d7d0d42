// solve_cpu.cpp — CPU triangular and diagonal sweeps (see solve_cpu.hpp).
// Nodes are visited in postorder for the forward sweep and in reverse postorder for the backward sweep;
// within a node the right-hand side entries of the node's rows are gathered into a small dense buffer.
#include "solve/solve_cpu.hpp"
#include "common/cpu_clones.hpp"

#include <omp.h>

#include <algorithm>
#include <functional>

namespace ssids {
namespace detail {

namespace {

/// Columns of L ahead of the one being used whose entries are prefetched. The sweeps are bound by the latency
/// of reading L (each column is a short stream; the backward sweep visits them at descending addresses,
/// which the hardware prefetchers do not follow): prefetching 8 columns ahead made the solve on
/// gen:kkt-ipm:30000:20000:15 about 30% faster (bench/NOTES.md). Prefetches change no arithmetic.
constexpr index_t kPrefetchColumns = 8;

/// The backward sweep's subtrees under 1/kBackwardParts of L are swept by one task each.
constexpr double kBackwardParts = 16.0;

/// Asks for the cache lines of rows [from, m) of the column at col (a hint only).
inline void prefetch_column(const double* col, index_t from, index_t m) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  for (index_t i = from; i < m; i += 8) __builtin_prefetch(col + i);
#else
  (void)col;
  (void)from;
  (void)m;
#endif
}

/// The forward elimination with one node's L (m rows, ne pivots, leading dimension m) on buf, the entries of its
/// rows.
SSIDS_CPU_CLONES void forward_node(const double* l, index_t m, index_t ne, bool unit, double* buf) noexcept {
  for (index_t j = 0; j < ne; ++j) {
    const double* lj = l + static_cast<size_t>(j) * m;
    if (j + kPrefetchColumns < ne) prefetch_column(lj + kPrefetchColumns * m, j + kPrefetchColumns + 1, m);
    if (!unit) buf[j] /= lj[j];
    const double xj = buf[j];
    for (index_t i = j + 1; i < m; ++i) buf[i] -= lj[i] * xj;
  }
}

/// The backward substitution with one node's L on buf (its pivots' entries are updated). Each dot product over
/// the rows below the pivot is summed in four interleaved partial sums, added in a fixed order at the end: the
/// loop vectorizes without reassociation, so the bits do not depend on the vector width.
SSIDS_CPU_CLONES void backward_node(const double* l, index_t m, index_t ne, bool unit, double* buf) noexcept {
  for (index_t c = std::max<index_t>(0, ne - kPrefetchColumns); c < ne; ++c)
    prefetch_column(l + static_cast<size_t>(c) * m, c + 1, m);
  for (index_t j = ne - 1; j >= 0; --j) {
    const double* lj = l + static_cast<size_t>(j) * m;
    if (j >= kPrefetchColumns) prefetch_column(lj - kPrefetchColumns * m, j - kPrefetchColumns + 1, m);
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    index_t i = j + 1;
    for (; i + 3 < m; i += 4) {
      s0 += lj[i] * buf[i];
      s1 += lj[i + 1] * buf[i + 1];
      s2 += lj[i + 2] * buf[i + 2];
      s3 += lj[i + 3] * buf[i + 3];
    }
    for (; i < m; ++i) s0 += lj[i] * buf[i];
    const double s = buf[j] - ((s0 + s1) + (s2 + s3));
    buf[j] = unit ? s : s / lj[j];
  }
}

}  // namespace

void solve_forward_cpu(const NumericFactors& f, int nrhs, double* x, offset_t ldx) {
  const bool unit = f.mode == Mode::indefinite;
  Vector<double> buf;
  for (const NodeFactor& nd : f.nodes) {
    const index_t m = nd.nrow, ne = nd.nelim;
    if (ne == 0) continue;
    const index_t* rows = f.rows.data() + nd.row_ptr;
    const double* l = f.lblock(nd);
    buf.resize(m);
    for (int r = 0; r < nrhs; ++r) {
      double* xr = x + r * ldx;
      for (index_t i = 0; i < m; ++i) buf[i] = xr[rows[i]];
      forward_node(l, m, ne, unit, buf.data());
      for (index_t i = 0; i < m; ++i) xr[rows[i]] = buf[i];
    }
  }
}

void solve_diagonal_cpu(const NumericFactors& f, int nrhs, double* x, offset_t ldx) {
  if (f.mode == Mode::posdef) return;  // D = I
  const index_t n = f.n;
  for (int r = 0; r < nrhs; ++r) {
    double* xr = x + r * ldx;
    for (index_t k = 0; k < n; ++k) {
      const double i21 = f.dinv[2 * k + 1];
      const index_t v = f.pivot_var[k];
      if (f.d[2 * k + 1] != 0.0) {  // first of a 2x2 pivot (k, k+1): D_{k+1,k} != 0
        const index_t w = f.pivot_var[k + 1];
        const double a = xr[v], b = xr[w];
        xr[v] = f.dinv[2 * k] * a + i21 * b;
        xr[w] = i21 * a + f.dinv[2 * k + 2] * b;
        ++k;
      } else {
        xr[v] *= f.dinv[2 * k];
      }
    }
  }
}

void solve_backward_cpu(const NumericFactors& f, int nrhs, double* x, offset_t ldx) {
  const bool unit = f.mode == Mode::indefinite;
  // node s: its pivots' entries from its rows' (the pivots of s and of its ancestors)
  auto node = [&](index_t s, Vector<double>& buf) {
    const NodeFactor& nd = f.nodes[s];
    const index_t m = nd.nrow, ne = nd.nelim;
    if (ne == 0) return;
    const index_t* rows = f.rows.data() + nd.row_ptr;
    const double* l = f.lblock(nd);
    buf.resize(m);
    for (int r = 0; r < nrhs; ++r) {
      double* xr = x + r * ldx;
      for (index_t i = 0; i < m; ++i) buf[i] = xr[rows[i]];
      backward_node(l, m, ne, unit, buf.data());
      for (index_t i = 0; i < ne; ++i) xr[rows[i]] = buf[i];
    }
  };
  const index_t nsup = static_cast<index_t>(f.nodes.size());
  const Symbolic* sym = f.symbolic.get();
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  double total = 0.0;
  for (const NodeFactor& nd : f.nodes) total += static_cast<double>(nd.nrow) * nd.nelim;
  Vector<double> buf;
  if (threads <= 1 || f.device || !sym || sym->nsup != nsup || total < kParallelBackwardEntries) {
    for (index_t s = nsup - 1; s >= 0; --s) node(s, buf);
    return;
  }
  // A node reads only its ancestors' pivots and writes only its own, so once it is done its children's
  // subtrees are independent: each becomes a task (a subtree of less than 1/kBackwardParts of L is swept by
  // its task in reverse postorder). Every node computes what the serial sweep computes.
  const size_t us = static_cast<size_t>(nsup);
  Vector<double> work(us, 0.0);
  Vector<index_t> first(us);
  for (index_t s = 0; s < nsup; ++s) first[s] = s;
  for (index_t s = 0; s < nsup; ++s) {
    work[s] += static_cast<double>(f.nodes[s].nrow) * f.nodes[s].nelim;
    const index_t p = sym->sparent[s];
    if (p >= 0) {
      work[p] += work[s];
      first[p] = std::min(first[p], first[s]);
    }
  }
  const double small = total / kBackwardParts;
  // one buffer per thread, of the largest front (a node has no task scheduling point, and nothing inside the
  // tasks allocates)
  index_t maxrow = 0;
  for (const NodeFactor& nd : f.nodes) maxrow = std::max(maxrow, nd.nrow);
  Vector<Vector<double>> bufs(static_cast<size_t>(threads), Vector<double>(static_cast<size_t>(maxrow)));
  std::function<void(index_t)> visit = [&](index_t s) {
    Vector<double>& own = bufs[omp_get_thread_num()];
    if (work[s] < small) {
      for (index_t t = s; t >= first[s]; --t) node(t, own);
      return;
    }
    node(s, own);
    for (index_t c = sym->child_ptr[s + 1] - 1; c >= sym->child_ptr[s]; --c) {
      const index_t ch = sym->child_list[c];
#pragma omp task firstprivate(ch) shared(visit)
      visit(ch);
    }
  };
#pragma omp parallel num_threads(threads)
#pragma omp single
  for (index_t s = nsup - 1; s >= 0; --s)
    if (sym->sparent[s] < 0) {
#pragma omp task firstprivate(s) shared(visit)
      visit(s);
    }
}

}  // namespace detail
}  // namespace ssids
