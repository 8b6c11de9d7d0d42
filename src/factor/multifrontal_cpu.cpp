// multifrontal_cpu.cpp — the CPU multifrontal factorization over the assembly tree (OpenMP).
//
// For each node s (children before parents) we form the front
//     rows/cols: [ own ncol columns | ndelay_in delayed columns from children | the other nrow-ncol rows ]
// (fully summed: the first p = ncol + ndelay_in), assemble the entries of A (amap) and the children's
// contribution blocks (in child_list order, so the sums are bitwise reproducible), run the dense partial
// factorization, store L and D, and keep the Schur complement as the node's contribution block:
//     rows/cols: [ p - nelim delayed columns | the nrow-ncol other rows ].
// Parallelism: small subtrees (contiguous ranges of the postorder) are processed serially, many at a
// time; the nodes above them level by level with a parallel loop, the dense kernels adding tasks for big
// fronts. Every floating-point result is computed by one fixed sequence of operations, so the factors
// do not depend on the number of threads.
#include "factor/multifrontal_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <cmath>
#include <string>

#include "factor/dense_ldlt.hpp"
#include "factor/pivot_tests.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

/// Recycles contribution-block buffers between nodes: a child's block is released when its parent has
/// assembled it, and is often big enough for a later block. Reusing it avoids returning memory to the
/// system and faulting fresh pages in again, which otherwise costs as much as the arithmetic on mid-size
/// fronts. Values never depend on which buffer is used.
class BufferPool {
 public:
  explicit BufferPool(size_t max_cached_doubles) : limit_(max_cached_doubles) {}
  /// A buffer of exactly n doubles (contents unspecified).
  Vector<double> take(size_t n) {
    Vector<double> v;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.lower_bound(n);
      if (it != free_.end() && it->first <= 8 * n + 4096) {
        v = std::move(it->second);
        cached_ -= it->first;
        free_.erase(it);
      }
    }
    v.resize(n);
    return v;
  }
  /// Doubles held for later takes.
  size_t cached() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }
  void give(Vector<double>&& v) {
    const size_t cap = v.capacity();
    if (cap == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_ + cap > limit_) return;  // v is freed when it goes out of scope
    cached_ += cap;
    free_.emplace(cap, std::move(v));
  }

 private:
  std::mutex mutex_;
  // map nodes through ssids::Allocator too, so that failure injection reaches them
  std::multimap<size_t, Vector<double>, std::less<size_t>, Allocator<std::pair<const size_t, Vector<double>>>> free_;
  size_t cached_ = 0, limit_;
};

/// The memory a factorization works in besides its results: one front buffer per thread and the
/// contribution-block pool. Kept with the analysis for its next factorization (Symbolic::GpuCacheSlot::
/// cpu_scratch), because a sequence of factorizations of one analysis (an interior-point method) otherwise
/// faults the same pages in again every time; at most kKeptScratchBytes of it is kept.
struct Scratch {
  explicit Scratch(size_t pool_limit) : pool(pool_limit) {}
  Vector<Vector<double>> workspace;
  BufferPool pool;
  size_t bytes() {
    size_t d = pool.cached();
    for (const Vector<double>& w : workspace) d += w.capacity();
    return d * sizeof(double);
  }
};
constexpr size_t kKeptScratchBytes = size_t(256) << 20;

/// The scratch the analysis kept, or a new one when there is none (or another factorization holds it).
std::shared_ptr<Scratch> take_scratch(const Symbolic& sym, size_t pool_limit, int nthreads) {
  std::shared_ptr<Scratch> s;
  {
    std::lock_guard<std::mutex> lock(sym.gpu_cache->cpu_mutex);
    s = std::static_pointer_cast<Scratch>(std::move(sym.gpu_cache->cpu_scratch));
    sym.gpu_cache->cpu_scratch.reset();
  }
  if (!s) s = std::allocate_shared<Scratch>(Allocator<Scratch>(), pool_limit);
  if (s->workspace.size() < static_cast<size_t>(nthreads)) s->workspace.resize(static_cast<size_t>(nthreads));
  return s;
}

/// Leaves `s` with the analysis for its next factorization, unless it is too big to keep.
void give_scratch(const Symbolic& sym, std::shared_ptr<Scratch> s) {
  if (s->bytes() > kKeptScratchBytes) return;
  std::lock_guard<std::mutex> lock(sym.gpu_cache->cpu_mutex);
  sym.gpu_cache->cpu_scratch = std::move(s);
}

/// Per-node output of the numeric phase, gathered into NumericFactors afterwards.
struct NodeResult {
  index_t nelim = 0, m = 0, p = 0, ndelay_in = 0;
  Vector<double> l;       // m x nelim, ld m
  Vector<index_t> vars;   // m original variables, pivot order first
  Vector<double> d;       // 2*nelim
  Vector<double> cb;      // (m-nelim)^2 contribution block, ld m-nelim (freed by the parent)
  DenseLdltStats stats;
  index_t failed_column = -1;  // posdef: original variable whose pivot was not positive; -2: skipped
};

struct Context {
  const Symbolic& sym;
  Vector<Vector<double>>& workspace;  // one front buffer per OpenMP thread, grown as needed
  BufferPool& pool;                   // contribution blocks
  const double* val;
  const double* scale;  // by original variable, or null
  Mode mode;
  DenseLdltOptions dense;
  Vector<NodeResult>& res;
};

void factor_node(const Context& ctx, index_t s) {
  const Symbolic& sym = ctx.sym;
  NodeResult& r = ctx.res[s];
  const index_t ncol = sym.ncol(s), nrow = sym.nrow(s);
  const offset_t rbase = sym.rptr[s];

  index_t ndelay = 0;
  for (index_t c = sym.child_ptr[s]; c < sym.child_ptr[s + 1]; ++c) {
    const NodeResult& ch = ctx.res[sym.child_list[c]];
    if (ch.failed_column != -1) {  // a descendant's Cholesky failed: nothing to assemble
      r.failed_column = -2;
      return;
    }
    ndelay += ch.p - ch.nelim;
  }
  const index_t m = nrow + ndelay, p = ncol + ndelay;
  r.m = m;
  r.p = p;
  r.ndelay_in = ndelay;
  auto front_row = [&](index_t local) { return local < ncol ? local : local + ndelay; };

  // variables of the front rows
  r.vars.resize(m);
  for (index_t k = 0; k < ncol; ++k) r.vars[k] = sym.perm[sym.sptr[s] + k];
  for (index_t k = ncol; k < nrow; ++k) r.vars[k + ndelay] = sym.perm[sym.rlist[rbase + k]];

  // the front lives in this thread's workspace (reused from node to node: allocating and faulting in a
  // fresh m*m buffer per node costs more than the arithmetic on mid-size fronts); only its lower
  // triangle is read or written, so only that is cleared
  Vector<double>& front = ctx.workspace[omp_get_thread_num()];
  const size_t ld = static_cast<size_t>(m);
  if (front.size() < ld * ld) {
    Vector<double>().swap(front);
    front.resize(ld * ld);
  }
  for (size_t j = 0; j < ld; ++j) std::fill(front.begin() + j * ld + j, front.begin() + (j + 1) * ld, 0.0);

  // entries of A
  for (offset_t e = sym.amap_ptr[s]; e < sym.amap_ptr[s + 1]; ++e) {
    const AEntry& a = sym.amap[e];
    index_t fr = front_row(a.lrow), fc = a.lcol;
    double v = ctx.val[a.src];
    if (ctx.scale) v *= ctx.scale[r.vars[fr]] * ctx.scale[r.vars[fc]];
    front[fr + fc * ld] += v;
  }

  // children's contribution blocks, in child_list order
  index_t delay_pos = ncol;
  Vector<index_t> map;
  for (index_t c = sym.child_ptr[s]; c < sym.child_ptr[s + 1]; ++c) {
    index_t cs = sym.child_list[c];
    NodeResult& ch = ctx.res[cs];
    const index_t nd = ch.p - ch.nelim;
    const index_t mc = ch.m - ch.nelim;  // = nd + (nrow_c - ncol_c)
    map.resize(mc);
    for (index_t t = 0; t < nd; ++t) {
      map[t] = delay_pos + t;
      r.vars[delay_pos + t] = ch.vars[ch.nelim + t];
    }
    const index_t ncol_c = sym.ncol(cs);
    for (index_t t = nd; t < mc; ++t) map[t] = front_row(sym.cmap[sym.rptr[cs] + ncol_c + (t - nd)]);
    delay_pos += nd;
    const size_t ldc = static_cast<size_t>(mc);
    for (index_t j = 0; j < mc; ++j) {
      const index_t fj = map[j];
      for (index_t i = j; i < mc; ++i) {
        const index_t fi = map[i];
        const double v = ch.cb[i + j * ldc];
        if (fi >= fj) front[fi + fj * ld] += v;
        else front[fj + fi * ld] += v;
      }
    }
    ctx.pool.give(std::move(ch.cb));  // the child's contribution block is no longer needed
    ch.cb = Vector<double>();
  }

  // dense partial factorization
  r.d.assign(2 * static_cast<size_t>(p), 0.0);
  index_t nelim = 0;
  if (ctx.mode == Mode::posdef) {
    int fail = cholesky_partial(m, p, front.data(), m, ctx.dense.block_size);
    if (fail >= 0) {
      r.failed_column = r.vars[fail];
      return;
    }
    nelim = p;
  } else {
    Vector<int> perm(p);
    nelim = ldlt_threshold_partial(m, p, front.data(), m, perm.data(), r.d.data(), ctx.dense, r.stats);
    Vector<index_t> old(r.vars.begin(), r.vars.begin() + p);
    for (index_t k = 0; k < p; ++k) r.vars[k] = old[perm[k]];
  }
  r.nelim = nelim;
  r.d.resize(2 * static_cast<size_t>(nelim));

  // L block and contribution block
  r.l.assign(front.begin(), front.begin() + static_cast<size_t>(m) * nelim);
  // the strict upper triangle of the L block is not part of L: clear whatever the kernel left there so
  // that stored factors (and their fingerprints) are fully determined
  for (index_t j = 0; j < nelim; ++j)
    for (index_t i = 0; i < j; ++i) r.l[i + static_cast<size_t>(j) * m] = 0.0;
  const index_t mc = m - nelim;
  r.cb = ctx.pool.take(static_cast<size_t>(mc) * mc);
  for (index_t j = 0; j < mc; ++j)
    for (index_t i = j; i < mc; ++i)
      r.cb[i + static_cast<size_t>(j) * mc] = front[(nelim + i) + (nelim + j) * ld];
}

/// Threads of the factorization when the caller leaves the choice to the library (Options::num_threads = 0):
/// a team costs more than it gives on small problems. On two 16-core hosts (bench/NOTES.md) one
/// thread was the fastest below 2e6 predicted flops, four were faster than sixteen below 5e7 (linverse 3.2
/// against 7.1 ms, tuma2 4.6 against 6.0), and a team of sixteen sometimes cost milliseconds by itself on tiny
/// problems; above 5e7 the two hosts disagreed. The factors do not depend on the thread count.
int default_factor_threads(double predicted_flops, int max_threads) {
  if (predicted_flops < 2e6) return 1;
  if (predicted_flops < 5e7) return std::min(4, max_threads);
  return max_threads;
}

/// Nodes whose whole subtree is "small" are processed serially as one unit; the threshold depends only
/// on the problem, never on the number of threads.
constexpr double subtree_unit_flops = 2.0e7;

}  // namespace

void factor_multifrontal_cpu(const Symbolic& sym, const double* val, const double* scale, Mode mode,
                             const Options& options, NumericFactors& out, Inform& inform) {
  const index_t nsup = sym.nsup;
  Vector<NodeResult> res(nsup);
  int nthreads = options.num_threads > 0 ? options.num_threads
                                         : default_factor_threads(static_cast<double>(sym.num_flops), omp_get_max_threads());
  const std::shared_ptr<Scratch> scratch =
      take_scratch(sym, 4 * static_cast<size_t>(sym.maxfront) * sym.maxfront + (size_t(1) << 22), nthreads);
  Context ctx{sym, scratch->workspace, scratch->pool, val, scale, mode, DenseLdltOptions{}, res};
  ctx.dense.u = std::min(0.5, std::max(0.0, options.u));
  ctx.dense.small = options.small;
  ctx.dense.block_size = std::max(8, options.cpu_block_size);

  // subtree work and the first (smallest) node of every subtree
  Vector<double> work(nsup, 0.0);
  Vector<index_t> first(nsup);
  for (index_t s = 0; s < nsup; ++s) first[s] = s;
  for (index_t s = 0; s < nsup; ++s) {
    double nr = sym.nrow(s), nc = sym.ncol(s);
    work[s] += nc * nr * nr;
    index_t par = sym.sparent[s];
    if (par >= 0) {
      work[par] += work[s];
      first[par] = std::min(first[par], first[s]);
    }
  }
  // units: maximal small subtrees; the rest ("upper" nodes) go level by level
  Vector<index_t> unit_roots;
  Vector<char> upper(nsup, 0);
  for (index_t s = 0; s < nsup; ++s) {
    index_t par = sym.sparent[s];
    bool small = work[s] <= subtree_unit_flops;
    bool parent_small = par >= 0 && work[par] <= subtree_unit_flops;
    if (!small) upper[s] = 1;
    else if (!parent_small) unit_roots.push_back(s);
  }

  std::string err_msg;
  std::atomic<int> err_code{0};
  // nodes [lo, hi] in postorder, unless an error was met; the first error is kept
  auto run_nodes = [&](index_t lo, index_t hi) {
    if (err_code.load(std::memory_order_relaxed) != 0) return;
    try {
      for (index_t s = lo; s <= hi; ++s) factor_node(ctx, s);
    } catch (const Error& e) {
#pragma omp critical(ssids_factor_error)
      if (err_code.load() == 0) { err_msg = e.what(); err_code.store(e.code()); }
    } catch (const std::bad_alloc&) {
#pragma omp critical(ssids_factor_error)
      if (err_code.load() == 0) { err_msg = "host allocation failed during factorization"; err_code.store(flag::allocation); }
    }
  };
  // Units (and upper nodes without children) are tasks; an upper node is factorized by whichever task
  // finishes its last child (pending counts its children still to come), which then goes on up the tree,
  // so no thread waits for a whole level while a node could start. Which thread factorizes a node never
  // changes what it computes.
  Vector<std::atomic<index_t>> pending(nsup);
  for (index_t s = 0; s < nsup; ++s) pending[s].store(0, std::memory_order_relaxed);
  for (index_t s = 0; s < nsup; ++s)
    if (sym.sparent[s] >= 0 && upper[sym.sparent[s]]) pending[sym.sparent[s]].fetch_add(1, std::memory_order_relaxed);
  Vector<index_t> upper_leaves;  // upper nodes without children: ready from the start
  for (index_t s = 0; s < nsup; ++s)
    if (upper[s] && pending[s].load(std::memory_order_relaxed) == 0) upper_leaves.push_back(s);
  // a child of p has been factorized (p < 0: a root): p and the ancestors it completes in turn
  auto child_done = [&](index_t p) {
    while (p >= 0 && pending[p].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      run_nodes(p, p);
      p = sym.sparent[p];
    }
  };
#pragma omp parallel num_threads(nthreads)
  {
    // BLAS must run single-threaded inside the tree traversal, whatever the team size: OpenBLAS' OpenMP
    // build asks omp_get_max_threads() when the team is inactive (a team of one), and its multithreaded
    // kernels round differently. This sets the calling thread's (and its tasks') nthreads ICV only.
    omp_set_num_threads(1);
#pragma omp single
    {
      for (size_t u = 0; u < unit_roots.size(); ++u) {
        const index_t root = unit_roots[u];
#pragma omp task firstprivate(root) shared(run_nodes, child_done, first, sym)
        {
          run_nodes(first[root], root);
          child_done(sym.sparent[root]);
        }
      }
      for (const index_t s : upper_leaves) {
#pragma omp task firstprivate(s) shared(run_nodes, child_done, sym)
        {
          run_nodes(s, s);
          child_done(sym.sparent[s]);
        }
      }
    }
  }
  if (err_code.load() != 0) throw Error(err_code.load(), err_msg);
  give_scratch(sym, scratch);

  // posdef failure: report the first failing node in postorder (deterministic)
  if (mode == Mode::posdef) {
    for (index_t s = 0; s < nsup; ++s)
      if (res[s].failed_column >= 0)
        throw Error(flag::not_posdef, "matrix is not positive definite: pivot of column " +
                                          std::to_string(res[s].failed_column) + " (0-based) is not positive");
  }

  // gather into the shared layout: first every node's place and the statistics (integers) in node order,
  // then the copies, node by node on the team (each node writes only its own places)
  out.n = sym.n;
  out.nodes.resize(nsup);
  offset_t rp = 0;
  index_t pos = 0;
  offset_t num_factor = 0, num_flops = 0;
  int num_delay = 0, maxfront = 0;
  DenseLdltStats tot;
  for (index_t s = 0; s < nsup; ++s) {
    const NodeResult& r = res[s];
    NodeFactor& f = out.nodes[s];
    f.nelim = r.nelim;
    f.nrow = r.m;
    f.ndelay_in = r.ndelay_in;
    f.pos = pos;
    f.row_ptr = rp;
    rp += r.m;
    pos += r.nelim;
    num_delay += r.p - r.nelim;
    maxfront = std::max<int>(maxfront, r.m);
    const offset_t m = r.m, ne = r.nelim;
    num_factor += m * ne - ne * (ne - 1) / 2;
    for (offset_t k = 0; k < ne; ++k) {
      offset_t below = m - k - 1;
      num_flops += below * below + 2 * below;
    }
    tot.num_two += r.stats.num_two;
    tot.num_neg += r.stats.num_neg;
    tot.num_pos += r.stats.num_pos;
    tot.num_zero += r.stats.num_zero;
  }
  if (pos != sym.n) throw Error(flag::unknown, "internal error: not every column was eliminated");
  out.rows.resize(rp);
  out.pivot_var.resize(sym.n);
  if (mode == Mode::indefinite) {
    out.d.assign(2 * static_cast<size_t>(sym.n), 0.0);
    out.dinv.assign(2 * static_cast<size_t>(sym.n), 0.0);
  }
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 64)
  for (index_t s = 0; s < nsup; ++s) {
    NodeResult& r = res[s];
    NodeFactor& f = out.nodes[s];
    const index_t pos = f.pos;
    f.l = std::move(r.l);
    std::copy(r.vars.begin(), r.vars.end(), out.rows.begin() + f.row_ptr);
    for (index_t k = 0; k < r.nelim; ++k) out.pivot_var[pos + k] = r.vars[k];
    if (mode == Mode::indefinite) {
      for (index_t k = 0; k < r.nelim; ++k) {
        double d11 = r.d[2 * k], d21 = r.d[2 * k + 1];
        out.d[2 * (pos + k)] = d11;
        out.d[2 * (pos + k) + 1] = d21;
        if (d21 != 0.0) {
          double d22 = r.d[2 * k + 2], i11, i21, i22;
          two_by_two_inverse(d11, d21, d22, i11, i21, i22);
          out.dinv[2 * (pos + k)] = i11;
          out.dinv[2 * (pos + k) + 1] = i21;
          out.dinv[2 * (pos + k) + 2] = i22;
          out.d[2 * (pos + k) + 2] = d22;
          ++k;
        } else {
          out.dinv[2 * (pos + k)] = d11 != 0.0 ? 1.0 / d11 : 0.0;
        }
      }
    }
  }

  inform.num_delay = num_delay;
  inform.maxfront = maxfront;
  inform.num_factor = num_factor;
  inform.num_flops = num_flops;
  if (mode == Mode::posdef) {
    inform.num_neg = 0;
    inform.num_pos = sym.n;
    inform.num_zero = 0;
    inform.num_two = 0;
  } else {
    inform.num_neg = tot.num_neg;
    inform.num_pos = tot.num_pos;
    inform.num_zero = tot.num_zero;
    inform.num_two = tot.num_two;
  }
  inform.matrix_rank = sym.n - inform.num_zero;
}

}  // namespace detail
}  // namespace ssids
