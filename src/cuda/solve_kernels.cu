// solve_kernels.cu — kernels of the level-scheduled GPU solve (see solve_kernels.cuh for the scheme).
#include "cuda/cuda_check.hpp"
#include "cuda/solve_kernels.cuh"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

constexpr int T = solve_tile;
constexpr int P = solve_panel;
constexpr int NT = solve_threads;
constexpr int G = NT / T;  // thread (i, g): row (or column) i of the block, right-hand sides g, g + G, ...
constexpr int K = solve_inv_tiles;

#ifndef SSIDS_SOLVE_FWD_MIN_BLOCKS
#define SSIDS_SOLVE_FWD_MIN_BLOCKS 3
#endif
#ifndef SSIDS_SOLVE_BWD_MIN_BLOCKS
#define SSIDS_SOLVE_BWD_MIN_BLOCKS 1
#endif
/// Resident blocks per multiprocessor the sweep kernels are compiled for (bounds their registers). The
/// forward sweep is limited by how many row-block tasks run at once (H200, laplace3d:80: 8.9 ms with one
/// block per multiprocessor, 233 registers; 5.0 ms with three, 80 registers).
constexpr int fwd_min_blocks = SSIDS_SOLVE_FWD_MIN_BLOCKS;
constexpr int bwd_min_blocks = SSIDS_SOLVE_BWD_MIN_BLOCKS;

/// Waits until *p >= target (an integer flag written by another block of the same launch). Gives up after
/// a few seconds, setting *error (a dependency that never comes is an internal error; never a hang).
__device__ void wait_at_least(const int* p, int target, int* error) {
  const volatile int* vp = p;
  const volatile int* ve = error;
  long long spins = 0;
  while (*vp < target) {
    if (*ve) return;
    __nanosleep(128);
    if (++spins > (1LL << 25)) {
      atomicExch(error, 1);
      return;
    }
  }
}

/// The next task of the sweep, in ticket order (not blockIdx order: see solve_kernels.cuh).
#ifdef SSIDS_SOLVE_TRACE
/// Task trace (a build with -DSSIDS_SOLVE_TRACE only; see tools/solve_trace.py): per ticket the start and
/// end time (%globaltimer, ns), node << 32 | blk, and smid << 32 | part.
__device__ __forceinline__ unsigned long long trace_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void trace_start(const SolveArgs& a, int ticket, const SolveTask& task) {
  if (!a.trace || threadIdx.x != 0) return;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  a.trace[4 * ticket] = trace_clock();
  a.trace[4 * ticket + 2] = (static_cast<unsigned long long>(task.node) << 32) | static_cast<unsigned>(task.blk);
  a.trace[4 * ticket + 3] = (static_cast<unsigned long long>(sm) << 32) | static_cast<unsigned>(task.part);
}
__device__ __forceinline__ void trace_end(const SolveArgs& a, int ticket) {
  if (a.trace && threadIdx.x == 0) a.trace[4 * ticket + 1] = trace_clock();
}
#else
__device__ __forceinline__ void trace_start(const SolveArgs&, int, const SolveTask&) {}
__device__ __forceinline__ void trace_end(const SolveArgs&, int) {}
#endif
__device__ int take_ticket(int* counter) {
  __shared__ int s_ticket;
  if (threadIdx.x == 0) s_ticket = atomicAdd(counter, 1);
  __syncthreads();
  return s_ticket;
}

/// A 64 x 64 block of L in registers (16 entries per thread), so that its loads are all in flight at once
/// and can overlap other work (they are issued by fetch() and consumed by put()).
struct BlockRegs {
  double v[T * T / NT];
};

/// Issues the loads of L(r0 + r, c0 + j), r < nr, j < nc (L column-major, ld m).
__device__ __forceinline__ void fetch(BlockRegs& b, const double* L, long long m, int r0, int c0, int nr, int nc) {
#pragma unroll
  for (int k = 0; k < T * T / NT; ++k) {
    const int idx = threadIdx.x + k * NT, r = idx % T, j = idx / T;
    b.v[k] = (r < nr && j < nc) ? L[(r0 + r) + (c0 + j) * m] : 0.0;
  }
}

/// t[r][j] = the fetched block.
__device__ __forceinline__ void put(const BlockRegs& b, double (*t)[T + 1]) {
#pragma unroll
  for (int k = 0; k < T * T / NT; ++k) {
    const int idx = threadIdx.x + k * NT;
    t[idx % T][idx / T] = b.v[k];
  }
}

/// Presolve: tile (i, j) of the inverse of the diagonal super-block holding tiles i >= j of a node
/// (T x T, column-major, ld T; zero outside the node's pivots).
__device__ __forceinline__ const double* inv_tile(const double* inv, const SolveNode& nd, int i, int j) {
  const int S = j / K, li = i - S * K, lj = j - S * K;
  return inv + nd.inv_off + (static_cast<long long>(S) * (K * (K + 1) / 2) + li * (li + 1) / 2 + lj) * T * T;
}

/// Issues the loads of the first block the diagonal step of a pivot tile uses: without presolve the
/// diagonal tile `blk` of L (tb x tb); with it, forward Z(blk, first tile of its super-block), backward
/// Z(last tile of its super-block, blk).
template <bool Backward>
__device__ __forceinline__ void fetch_diag(BlockRegs& b, const SolveArgs& a, const SolveNode& nd, int blk, int tb) {
  if (!a.inv) {
    fetch(b, a.l + nd.l_off, nd.m, blk * T, blk * T, tb, tb);
    return;
  }
  const int s0 = (blk / K) * K;
  if (!Backward) {
    fetch(b, inv_tile(a.inv, nd, blk, s0), T, 0, 0, tb, s0 < blk ? T : tb);
  } else {
    const int s1 = min(nd.ntile, s0 + K) - 1;
    fetch(b, inv_tile(a.inv, nd, s1, blk), T, 0, 0, min(T, nd.ne - s1 * T), tb);
  }
}

/// One warp per right-hand side (rows lane and lane + 32 of the tile in registers): the diagonal tile t
/// (tb x tb) applied to v(0..tb) into y — forward: y = t^{-1} v (t unit lower, or non-unit when posdef);
/// backward (transposed): y = t^{-T} v. Row i is updated by the columns j in increasing (forward) or
/// decreasing (backward) order, as a one-thread-per-row loop would: the result does not depend on nrhs.
template <bool Backward>
__device__ __forceinline__ void tile_solve(const double (*t)[T + 1], const double (*v)[T], double (*y)[T], int tb,
                                           int nrhs, bool posdef) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int q = warp; q < nrhs; q += NT / 32) {
    double v0 = lane < tb ? v[q][lane] : 0.0, v1 = lane + 32 < tb ? v[q][lane + 32] : 0.0;
    for (int jj = 0; jj < tb; ++jj) {
      const int j = Backward ? tb - 1 - jj : jj;
      const double vj = __shfl_sync(0xffffffffu, j < 32 ? v0 : v1, j & 31);
      const double yj = posdef ? vj / t[j][j] : vj;
      if (lane == (j & 31)) {
        if (j < 32) v0 = yj;
        else v1 = yj;
      }
      if (!Backward) {
        if (lane > j && lane < tb) v0 -= t[lane][j] * yj;
        if (lane + 32 > j && lane + 32 < tb) v1 -= t[lane + 32][j] * yj;
      } else {
        if (lane < j) v0 -= t[j][lane] * yj;
        if (lane + 32 < j) v1 -= t[j][lane + 32] * yj;
      }
    }
    if (lane < tb) y[q][lane] = v0;
    if (lane + 32 < tb) y[q][lane + 32] = v1;
  }
}

/// Forward update of row i: v(i) -= sum over j < n (in order) of t[i][j] y(j), for the thread's right-hand sides.
__device__ __forceinline__ void subtract_rows(double (*v)[T], const double (*t)[T + 1], const double (*y)[T], int i,
                                              int g, int nrhs, int n) {
  for (int q = g; q < nrhs; q += G) {
    double acc = v[q][i];
    for (int j = 0; j < n; ++j) acc -= t[i][j] * y[q][j];
    v[q][i] = acc;
  }
}

/// Backward update of column i: v(i) -= sum over r < n (in order) of t[r][i] w(r), likewise.
__device__ __forceinline__ void subtract_columns(double (*v)[T], const double (*t)[T + 1], const double (*w)[T], int i,
                                                 int g, int nrhs, int n) {
  for (int q = g; q < nrhs; q += G) {
    double acc = v[q][i];
    for (int r = 0; r < n; ++r) acc -= t[r][i] * w[q][r];
    v[q][i] = acc;
  }
}

/// Loads t[r][j] = L(r0 + r, c0 + j) for r < nr, j < nc.
__device__ __forceinline__ void load_block(double (*t)[T + 1], const double* L, long long m, int r0, int c0, int nr,
                                           int nc) {
  BlockRegs b;
  fetch(b, L, m, r0, c0, nr, nc);
  put(b, t);
}

/// Presolve: acc[k] += sum over j < n (in order) of t[i][j] src[q][j], or of t[j][i] src[q][j] when
/// Transposed, for the thread's right-hand sides q = g + k G (a product with a tile of the inverse).
template <bool Transposed>
__device__ __forceinline__ void accumulate_tile(double (&acc)[P / G], const double (*t)[T + 1], const double (*src)[T],
                                                int i, int g, int nrhs, int n) {
#pragma unroll
  for (int k = 0; k < P / G; ++k) {
    const int q = g + k * G;
    if (q < nrhs) {
      double sum = acc[k];
      for (int j = 0; j < n; ++j) sum += (Transposed ? t[j][i] : t[i][j]) * src[q][j];
      acc[k] = sum;
    }
  }
}

/// Presolve: publishes rows i < n of v at work-buffer rows row0 + i of vbuf, then sets *flag.
__device__ __forceinline__ void publish_rows(const SolveArgs& a, const double (*v)[T], long long row0, int n,
                                             int* flag) {
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  if (i < n)
    for (int q = g; q < a.nrhs; q += G) __stcg(a.vbuf + q * a.total_rows + row0 + i, v[q][i]);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicExch(flag, 1);
}

/// Presolve: waits for *flag, then w[q][r] = vbuf rows row0 + r, r < n.
__device__ __forceinline__ void wait_published_rows(const SolveArgs& a, const int* flag, long long row0, int n,
                                                    double (*w)[T]) {
  if (threadIdx.x == 0) wait_at_least(flag, 1, a.flags.error);
  __syncthreads();
  __threadfence();
  for (int idx = threadIdx.x; idx < a.nrhs * T; idx += NT) {
    const int q = idx / T, r = idx % T;
    if (r < n) w[q][r] = __ldcg(a.vbuf + q * a.total_rows + row0 + r);
  }
}

__global__ void __launch_bounds__(NT, fwd_min_blocks) forward_sweep_kernel(SolveArgs a) {
  __shared__ double v[P][T];      // the block's rows
  __shared__ double y[P][T];      // a solved tile
  __shared__ double t[T][T + 1];  // the diagonal tile
  const int ticket = take_ticket(a.flags.ticket);
  if (ticket >= a.ntasks) return;
  const SolveTask task = a.tasks[ticket];
  const SolveNode nd = a.nodes[task.node];
  trace_start(a, ticket, task);
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const int r0 = task.blk * T, nr = min(T, nd.m - r0);
  const long long m = nd.m, TR = a.total_rows;
  const int* rows = a.rows + nd.rows_off;
  const double* L = a.l + nd.l_off;
  double* buf = a.buf + nd.buf_off;

  // 1. the children have passed their contribution rows up
  for (int c = nd.child_begin + threadIdx.x; c < nd.child_end; c += NT) {
    const int ch = a.children[c];
    wait_at_least(a.flags.fwd_done + ch, a.nodes[ch].nblk, a.flags.error);
  }
  __syncthreads();
  __threadfence();
  // 2. gather: own pivots from x, contribution rows of the children in child order
  if (i < nr) {
    const int row = r0 + i;
    const long long grow = nd.buf_off + row;
    const int e0 = a.gptr[grow], e1 = a.gptr[grow + 1];
    for (int q = g; q < a.nrhs; q += G) {
      double s = row < nd.ne ? a.x[rows[row] + q * a.ldx] : 0.0;
      for (int e = e0; e < e1; ++e) s += __ldcg(a.buf + q * TR + a.gsrc[e]);
      v[q][i] = s;
    }
  }
  __syncthreads();
  // 3. the node's earlier tiles, as they are solved; the next block of L (and at last the diagonal tile)
  //    is fetched while one is used
  //    (with presolve, a pivot row block takes only the tiles of the earlier super-blocks here)
  const bool has_diag = task.blk < nd.ntile;
  const int ndep = !has_diag ? nd.ntile : (a.inv ? (task.blk / K) * K : task.blk);
  const int tb_own = has_diag ? min(T, nd.ne - r0) : 0;
  BlockRegs next;
  if (ndep > 0) fetch(next, L, m, r0, 0, nr, min(T, nd.ne));
  else if (has_diag) fetch_diag<false>(next, a, nd, task.blk, tb_own);
  for (int tt = 0; tt < ndep; ++tt) {
    if (threadIdx.x == 0) wait_at_least(a.flags.fwd_tile + nd.flag_off + tt, 1, a.flags.error);
    __syncthreads();
    __threadfence();
    const int c0 = tt * T, tb = min(T, nd.ne - c0);
    put(next, t);
    for (int idx = threadIdx.x; idx < a.nrhs * T; idx += NT) {
      const int q = idx / T, j = idx % T;
      if (j < tb) y[q][j] = __ldcg(buf + q * TR + c0 + j);
    }
    if (tt + 1 < ndep) fetch(next, L, m, r0, c0 + T, nr, min(T, nd.ne - c0 - T));
    else if (has_diag) fetch_diag<false>(next, a, nd, task.blk, tb_own);
    __syncthreads();
    if (i < nr) subtract_rows(v, t, y, i, g, a.nrhs, tb);
    __syncthreads();
  }
  // 4. the block's own diagonal tile
  if (has_diag && a.inv) {
    // presolve: publish the reduced pivot rows for the later row blocks of the super-block, then
    // y = sum over its row blocks c <= blk of Z(blk, c) v_c (c in order)
    const int tb = tb_own, s0 = (task.blk / K) * K;
    if (task.blk + 1 < min(nd.ntile, s0 + K))
      publish_rows(a, v, nd.buf_off + r0, tb, a.flags.fwd_v + nd.flag_off + task.blk);
    double acc[P / G];
#pragma unroll
    for (int k = 0; k < P / G; ++k) acc[k] = 0.0;
    for (int c = s0; c <= task.blk; ++c) {
      const int wc = c < task.blk ? T : tb;
      if (c < task.blk) wait_published_rows(a, a.flags.fwd_v + nd.flag_off + c, nd.buf_off + c * T, T, y);
      put(next, t);
      if (c < task.blk) fetch(next, inv_tile(a.inv, nd, task.blk, c + 1), T, 0, 0, tb, c + 1 < task.blk ? T : tb);
      __syncthreads();
      if (i < tb) accumulate_tile<false>(acc, t, c < task.blk ? y : v, i, g, a.nrhs, wc);
      __syncthreads();
    }
    if (i < tb)
#pragma unroll
      for (int k = 0; k < P / G; ++k) {
        const int q = g + k * G;
        if (q < a.nrhs) {
          __stcg(buf + q * TR + r0 + i, acc[k]);
          a.x[rows[r0 + i] + q * a.ldx] = acc[k];
        }
      }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(a.flags.fwd_tile + nd.flag_off + task.blk, 1);
    // contribution rows in the same block (the node's last row block): the tiles of this super-block too
    if (nr > tb) {
      for (int tt = s0; tt <= task.blk; ++tt) {
        if (threadIdx.x == 0) wait_at_least(a.flags.fwd_tile + nd.flag_off + tt, 1, a.flags.error);
        __syncthreads();
        __threadfence();
        const int wt = tt < task.blk ? T : tb;
        for (int idx = threadIdx.x; idx < a.nrhs * T; idx += NT) {
          const int q = idx / T, j = idx % T;
          if (j < wt) y[q][j] = __ldcg(buf + q * TR + tt * T + j);
        }
        load_block(t, L, m, r0, tt * T, nr, wt);
        __syncthreads();
        if (i >= tb && i < nr) subtract_rows(v, t, y, i, g, a.nrhs, wt);
        __syncthreads();
      }
      if (i >= tb && i < nr)
        for (int q = g; q < a.nrhs; q += G) __stcg(buf + q * TR + r0 + i, v[q][i]);
      __threadfence();
      __syncthreads();
    }
  } else if (has_diag) {
    const int tb = tb_own;
    put(next, t);
    __syncthreads();
    tile_solve<false>(t, v, y, tb, a.nrhs, a.posdef != 0);
    __syncthreads();
    // contribution rows in the same block (the node's last tile): subtract this tile too
    if (nr > tb) {
      load_block(t, L, m, r0, r0, nr, tb);
      __syncthreads();
      if (i >= tb && i < nr) subtract_rows(v, t, y, i, g, a.nrhs, tb);
    }
    for (int q = g; q < a.nrhs; q += G) {
      if (i < tb) {
        __stcg(buf + q * TR + r0 + i, y[q][i]);
        a.x[rows[r0 + i] + q * a.ldx] = y[q][i];
      } else if (i < nr) {
        __stcg(buf + q * TR + r0 + i, v[q][i]);
      }
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(a.flags.fwd_tile + nd.flag_off + task.blk, 1);
  } else {
    if (i < nr)
      for (int q = g; q < a.nrhs; q += G) __stcg(buf + q * TR + r0 + i, v[q][i]);
    __threadfence();
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(a.flags.fwd_done + task.node, 1);
  trace_end(a, ticket);
}

__global__ void __launch_bounds__(NT, bwd_min_blocks) backward_sweep_kernel(SolveArgs a) {
  __shared__ double v[P][T];      // the tile's unknowns
  __shared__ double w[P][T];      // x of a chunk of rows below, then the solved tile
  __shared__ double t[T][T + 1];  // a block of L
  const int ticket = take_ticket(a.flags.ticket + 1);
  if (ticket >= a.ntasks) return;
  const SolveTask task = a.tasks[ticket];
  const SolveNode nd = a.nodes[task.node];
  trace_start(a, ticket, task);
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const int c0 = task.blk * T, tb = min(T, nd.ne - c0);
  const long long m = nd.m, TR = a.total_rows;
  const int* rows = a.rows + nd.rows_off;
  const double* L = a.l + nd.l_off;
  double* buf = a.buf + nd.buf_off;

  // 1. the ancestors are final
  if (threadIdx.x == 0 && nd.wait_node >= 0)
    wait_at_least(a.flags.bwd_done + nd.wait_node, a.nodes[nd.wait_node].ntile, a.flags.error);
  __syncthreads();
  __threadfence();
  // 2. rows below the pivots (the ancestors' variables), 64 at a time — here, or in the node's partial tasks
  //    — then 3. the node's later tiles, last first, as they are solved; items in that order, the next
  //    one's block of L (at last the diagonal tile) fetched while one is used
  //    (with presolve, only the tiles after the tile's super-block)
  const int s_last = a.inv ? min(nd.ntile, (task.blk / K) * K + K) - 1 : task.blk;
  const int na = (nd.m - nd.ne + T - 1) / T, nl = nd.ntile - 1 - s_last;
  auto fetch_item = [&](BlockRegs& b, int item) {
    if (item < na) {
      const int r0 = nd.ne + item * T;
      fetch(b, L, m, r0, c0, min(T, nd.m - r0), tb);
    } else if (item < na + nl) {
      const int r0 = (nd.ntile - 1 - (item - na)) * T;
      fetch(b, L, m, r0, c0, min(T, nd.ne - r0), tb);
    } else {
      fetch_diag<true>(b, a, nd, task.blk, tb);
    }
  };
  const bool partial = task.part >= 0;
  int first = 0, last = na + nl;
  if (partial) {  // v = - sum over this group's row blocks of L(rows, tile)^T x(rows)
    first = task.part * solve_chunk_blocks;
    last = min(na, first + solve_chunk_blocks);
    if (i < tb)
      for (int q = g; q < a.nrhs; q += G) v[q][i] = 0.0;
  } else {
    if (i < tb)
      for (int q = g; q < a.nrhs; q += G) v[q][i] = __ldcg(a.x + rows[c0 + i] + q * a.ldx);
    if (nd.ngroups > 0) {  // the partial tasks did the rows below: add their slots in group order
      if (threadIdx.x == 0) wait_at_least(a.flags.bwd_part + nd.flag_off + task.blk, nd.ngroups, a.flags.error);
      __syncthreads();
      __threadfence();
      const double* slot = a.part + (nd.part_slot + static_cast<long long>(task.blk) * nd.ngroups) * P * T;
      if (i < tb)
        for (int q = g; q < a.nrhs; q += G) {
          double acc = v[q][i];
          for (int gr = 0; gr < nd.ngroups; ++gr) acc += __ldcg(slot + (static_cast<long long>(gr) * P + q) * T + i);
          v[q][i] = acc;
        }
      first = na;
    }
  }
  BlockRegs next;
  if (first < last || !partial) fetch_item(next, first);
  for (int item = first; item < last; ++item) {
    __syncthreads();
    int r0, nr;
    if (item < na) {
      r0 = nd.ne + item * T;
      nr = min(T, nd.m - r0);
      put(next, t);
      for (int idx = threadIdx.x; idx < a.nrhs * T; idx += NT) {
        const int q = idx / T, r = idx % T;
        if (r < nr) w[q][r] = __ldcg(a.x + rows[r0 + r] + q * a.ldx);
      }
    } else {
      const int tt = nd.ntile - 1 - (item - na);
      if (threadIdx.x == 0) wait_at_least(a.flags.bwd_tile + nd.flag_off + tt, 1, a.flags.error);
      __syncthreads();
      __threadfence();
      r0 = tt * T;
      nr = min(T, nd.ne - r0);
      put(next, t);
      for (int idx = threadIdx.x; idx < a.nrhs * T; idx += NT) {
        const int q = idx / T, r = idx % T;
        if (r < nr) w[q][r] = __ldcg(buf + q * TR + r0 + r);
      }
    }
    if (item + 1 < last || !partial) fetch_item(next, item + 1);
    __syncthreads();
    if (i < tb) subtract_columns(v, t, w, i, g, a.nrhs, nr);
  }
  if (partial) {
    double* slot = a.part + (nd.part_slot + static_cast<long long>(task.blk) * nd.ngroups + task.part) * P * T;
    if (i < tb)
      for (int q = g; q < a.nrhs; q += G) __stcg(slot + q * T + i, v[q][i]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(a.flags.bwd_part + nd.flag_off + task.blk, 1);
    trace_end(a, ticket);
    return;
  }
  __syncthreads();
  if (a.inv) {
    // 4. presolve: publish v for the earlier tiles of the super-block, then
    //    x = sum over its tiles u >= blk (last first) of Z(u, blk)^T v_u
    const int s0 = (task.blk / K) * K;
    if (task.blk > s0) publish_rows(a, v, nd.buf_off + c0, tb, a.flags.bwd_v + nd.flag_off + task.blk);
    double acc[P / G];
#pragma unroll
    for (int k = 0; k < P / G; ++k) acc[k] = 0.0;
    for (int u = s_last; u >= task.blk; --u) {
      const int nu = min(T, nd.ne - u * T);
      if (u > task.blk) wait_published_rows(a, a.flags.bwd_v + nd.flag_off + u, nd.buf_off + u * T, nu, w);
      put(next, t);
      if (u > task.blk) fetch(next, inv_tile(a.inv, nd, u - 1, task.blk), T, 0, 0, T, tb);
      __syncthreads();
      if (i < tb) accumulate_tile<true>(acc, t, u > task.blk ? w : v, i, g, a.nrhs, nu);
      __syncthreads();
    }
    if (i < tb)
#pragma unroll
      for (int k = 0; k < P / G; ++k)
        if (g + k * G < a.nrhs) w[g + k * G][i] = acc[k];
  } else {
    // 4. the transposed diagonal tile
    put(next, t);
    __syncthreads();
    tile_solve<true>(t, v, w, tb, a.nrhs, a.posdef != 0);
  }
  __syncthreads();
  if (i < tb)
    for (int q = g; q < a.nrhs; q += G) {
      __stcg(buf + q * TR + c0 + i, w[q][i]);
      __stcg(a.x + rows[c0 + i] + q * a.ldx, w[q][i]);
    }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicExch(a.flags.bwd_tile + nd.flag_off + task.blk, 1);
    atomicAdd(a.flags.bwd_done + task.node, 1);
  }
  trace_end(a, ticket);
}

__global__ void diag_solve_kernel(int n, const int* pivot_var, const double* d, const double* dinv, double* x,
                                  long long ldx, int nrhs) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  if (k > 0 && d[2 * (k - 1) + 1] != 0.0) return;  // second variable of a 2x2 pivot: done by the first
  const int v = pivot_var[k];
  if (d[2 * k + 1] != 0.0) {
    const int w = pivot_var[k + 1];
    const double i11 = dinv[2 * k], i21 = dinv[2 * k + 1], i22 = dinv[2 * k + 2];
    for (int r = 0; r < nrhs; ++r) {
      const double p = x[v + r * ldx], q = x[w + r * ldx];
      x[v + r * ldx] = i11 * p + i21 * q;
      x[w + r * ldx] = i21 * p + i22 * q;
    }
  } else {
    for (int r = 0; r < nrhs; ++r) x[v + r * ldx] *= dinv[2 * k];
  }
}

__global__ void scale_rows_kernel(int n, const double* scale, double* x, long long ldx, int nrhs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int r = 0; r < nrhs; ++r) x[i + r * ldx] *= scale[i];
}

// Presolve. grid: one block per tile task (node, tile j); it computes column tile j of the inverse Z of the
// node's diagonal super-block S that holds tile j: for the super-block's tiles i = j, j + 1, ..., in order,
// R = I (i = j) or R = -sum_{k=j}^{i-1} L(i, k) Z(k, j) (k in order), then Z(i, j) = L(i, i)^{-1} R by forward
// substitution (one thread per column; L(i, i) unit lower, or non-unit when posdef). Z(k, j) is read back
// from the output (written by this block). Entries outside the node's pivots are exact zeros.
constexpr int inv_smem_bytes = 3 * T * (T + 1) * static_cast<int>(sizeof(double));
__global__ void __launch_bounds__(NT) invert_superblocks_kernel(const SolveTask* tasks, const double* l,
                                                                const SolveNode* nodes, double* inv, int posdef) {
  extern __shared__ double smem[];
  double(*lt)[T + 1] = reinterpret_cast<double(*)[T + 1]>(smem);  // L(i, k), then L(i, i)
  double(*zt)[T + 1] = lt + T;                                     // Z(k, j)
  double(*rt)[T + 1] = zt + T;                                     // R, then Z(i, j)
  const SolveTask task = tasks[blockIdx.x];
  const SolveNode nd = nodes[task.node];
  const int j = task.blk, s0 = (j / K) * K, s_end = min(nd.ntile, s0 + K);
  const int tj = min(T, nd.ne - j * T);
  const double* L = l + nd.l_off;
  const long long m = nd.m;
  const int c = threadIdx.x % T, rg = threadIdx.x / T;  // thread: column c, rows rg, rg + G, ...
  for (int i = j; i < s_end; ++i) {
    const int ti = min(T, nd.ne - i * T);
    double acc[T / G];
#pragma unroll
    for (int q = 0; q < T / G; ++q) acc[q] = 0.0;
    for (int k = j; k < i; ++k) {  // k < i: tile k is a full tile
      __syncthreads();
      load_block(lt, L, m, i * T, k * T, ti, T);
      const double* zk = inv_tile(inv, nd, k, j);
      for (int idx = threadIdx.x; idx < T * T; idx += NT) zt[idx % T][idx / T] = zk[idx];
      __syncthreads();
#pragma unroll 4
      for (int kk = 0; kk < T; ++kk) {
        const double zv = zt[kk][c];
#pragma unroll
        for (int q = 0; q < T / G; ++q) acc[q] = fma(lt[rg + q * G][kk], zv, acc[q]);
      }
    }
    __syncthreads();
    load_block(lt, L, m, i * T, i * T, ti, ti);
#pragma unroll
    for (int q = 0; q < T / G; ++q) {
      const int r = rg + q * G;
      rt[r][c] = i == j ? (r == c ? 1.0 : 0.0) : -acc[q];
    }
    __syncthreads();
    if (threadIdx.x < T) {
      const int cc = threadIdx.x;
      for (int r = 0; r < T; ++r) {
        if (r >= ti || cc >= tj) {
          rt[r][cc] = 0.0;
          continue;
        }
        double sum = rt[r][cc];
        for (int k = 0; k < r; ++k) sum -= lt[r][k] * rt[k][cc];
        rt[r][cc] = posdef ? sum / lt[r][r] : sum;
      }
    }
    __syncthreads();
    double* zi = const_cast<double*>(inv_tile(inv, nd, i, j));
    for (int idx = threadIdx.x; idx < T * T; idx += NT) zi[idx] = rt[idx % T][idx / T];
  }
}

__global__ void scale_columns_kernel(const ScaleColumn* cols, double* l, const double* d) {
  const ScaleColumn c = cols[blockIdx.x];
  const double s = sqrt(d[c.d_idx]);
  for (int i = threadIdx.x; i < c.len; i += blockDim.x) l[c.diag_off + i] *= s;
}

}  // namespace

void launch_forward_sweep(const SolveArgs& a, cudaStream_t s) {
  if (a.ntasks <= 0) return;
  forward_sweep_kernel<<<a.ntasks, NT, 0, s>>>(a);
  check_launch("forward_sweep_kernel");
}
void launch_backward_sweep(const SolveArgs& a, cudaStream_t s) {
  if (a.ntasks <= 0) return;
  backward_sweep_kernel<<<a.ntasks, NT, 0, s>>>(a);
  check_launch("backward_sweep_kernel");
}
void launch_diag_solve(int n, const int* pivot_var, const double* d, const double* dinv, double* x, long long ldx,
                       int nrhs, cudaStream_t s) {
  if (n <= 0) return;
  diag_solve_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, pivot_var, d, dinv, x, ldx, nrhs);
  check_launch("diag_solve_kernel");
}
void launch_scale_rows(int n, const double* scale, double* x, long long ldx, int nrhs, cudaStream_t s) {
  if (n <= 0) return;
  scale_rows_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, scale, x, ldx, nrhs);
  check_launch("scale_rows_kernel");
}
void launch_invert_superblocks(const SolveTask* tasks, int count, const double* l, const SolveNode* nodes,
                               double* inv, int posdef, cudaStream_t s) {
  if (count <= 0) return;
  check_cuda(cudaFuncSetAttribute(invert_superblocks_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  inv_smem_bytes),
             "cudaFuncSetAttribute (invert_superblocks_kernel)");
  invert_superblocks_kernel<<<count, NT, inv_smem_bytes, s>>>(tasks, l, nodes, inv, posdef);
  check_launch("invert_superblocks_kernel");
}
void launch_scale_columns(const ScaleColumn* cols, int count, double* l, const double* d, cudaStream_t s) {
  if (count <= 0) return;
  scale_columns_kernel<<<count, 128, 0, s>>>(cols, l, d);
  check_launch("scale_columns_kernel");
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
