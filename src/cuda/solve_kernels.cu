// solve_kernels.cu — kernels of the level-scheduled GPU solve (see solve_kernels.cuh for the scheme;
// the device building blocks are in solve_device.cuh, the whole-node tasks in solve_compact.cuh).
#include "cuda/cuda_check.hpp"
#include "cuda/solve_compact.cuh"
#include "cuda/solve_device.cuh"
#include "cuda/solve_kernels.cuh"
#include "factor/pivot_tests.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

#ifndef SSIDS_SOLVE_FWD_MIN_BLOCKS
#define SSIDS_SOLVE_FWD_MIN_BLOCKS 2
#endif
#ifndef SSIDS_SOLVE_BWD_MIN_BLOCKS
#define SSIDS_SOLVE_BWD_MIN_BLOCKS 2
#endif
#ifndef SSIDS_SOLVE_FWD_BATCH
#define SSIDS_SOLVE_FWD_BATCH (solve_slabs - 1)
#endif
/// Resident blocks per multiprocessor the sweep kernels are compiled for (bounds their registers): two for the
/// forward sweep (one block per multiprocessor was much slower; at three it spills ~0.5 KB per thread and was
/// slower than at two) and two for the backward sweep (one block needs 214 registers; two fit in 128 with
/// ~0.1 KB spilled and were faster). Measurements in bench/NOTES.md, "GPU solve".
constexpr int fwd_min_blocks = SSIDS_SOLVE_FWD_MIN_BLOCKS;
constexpr int bwd_min_blocks = SSIDS_SOLVE_BWD_MIN_BLOCKS;
/// Forward: the most solved tiles of its node a row-block task takes in one batch (one wait, one load of
/// their rows; 1 gives back the tile-by-tile waits, which were slower: bench/NOTES.md, "GPU solve").
constexpr int fwd_batch_tiles = SSIDS_SOLVE_FWD_BATCH;

__global__ void __launch_bounds__(NT, fwd_min_blocks) forward_sweep_kernel(SolveArgs a) {
  extern __shared__ double smem[];
  const SweepShared sh{smem, a.stages, a.nrhs};
  const int ticket = take_ticket(a.flags.ticket);
  if (ticket >= a.ntasks) return;
  const SolveTask task = a.tasks[ticket];
  const SolveNode nd = a.nodes[task.node];
  trace_start(a, ticket, task);
  if (task.blk < 0 || task.blk >= nd.ntile) {
    if (task.blk < 0) forward_compact_node(a, ticket, task, nd, sh);
    else forward_row_group(a, ticket, task, nd, sh);
    trace_end(a, ticket);
    return;
  }
  double(*v)[T] = sh.slab(0);      // the block's rows
  double(*y)[T] = sh.slab(1);      // a solved tile
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const int r0 = task.blk * T, nr = min(T, nd.m - r0);
  const long long m = nd.m, TR = a.total_rows;
  const int* rows = a.rows + nd.rows_off;
  const double* L = a.l + nd.l_off;
  double* buf = a.buf + nd.buf_off;
  // (a pivot row block; with presolve it takes only the tiles of the earlier super-blocks in step 3)
  const int s0 = a.inv ? (task.blk / K) * K : task.blk;
  const int ndep = s0;
  const int tb_own = min(T, nd.ne - r0);
  // The task's blocks, in the order steps 3 and 4 use them, streamed from the start (before the waits):
  // the tiles of L(row block, tile tt), tt < ndep; then without presolve the diagonal block L(row block,
  // blk) (its rows below the pivots too), with presolve Z(blk, c), c = s0 .. blk, and, when the block has
  // rows after the pivots, L(row block, tt), tt = s0 .. blk.
  const int nz = a.inv ? task.blk - s0 + 1 : 0;
  const int nitems = ndep + (!a.inv ? 1 : (nr > tb_own ? 2 * nz : nz));
  int item = 0;
  auto stream = stream_blocks(sh.ring(), [&](BlockSrc& src) {
    if (item >= nitems) return false;
    const int k = item++;
    if (k < ndep) {
      src = block_at(L, m, r0, k * T, nr, min(T, nd.ne - k * T));
    } else if (!a.inv) {
      src = block_at(L, m, r0, r0, nr, tb_own);
    } else if (k < ndep + nz) {
      const int c = s0 + (k - ndep);
      src = BlockSrc{inv_tile(a.inv, nd, task.blk, c), T, tb_own, c < task.blk ? T : tb_own};
    } else {
      const int tt = s0 + (k - ndep - nz);
      src = block_at(L, m, r0, tt * T, nr, tt < task.blk ? T : tb_own);
    }
    return true;
  });

  // 1. the children have passed their contribution rows up
  wait_children(a, nd);
  trace_mark(a, ticket, 0);
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
  trace_mark(a, ticket, 1);
  // 3. the node's earlier tiles, as they are solved, in batches: the tile waited for and the solved tiles
  //    after it, their y in slabs 1, 2, ...
  auto ys = [&](int k) { return sh.slab(1 + k); };
  for (int tt = 0; tt < ndep;) {
    const int nb = wait_ready_run(a.flags.fwd_tile + nd.flag_off, tt, 1, min(fwd_batch_tiles, ndep - tt),
                                  a.flags.error);
    load_tiles(ys, buf, TR, static_cast<long long>(tt) * T, 1, nb, nd.ne, a.nrhs);
    for (int k = 0; k < nb; ++k, ++tt) {
      const double(*t)[T + 1] = stream.next();
      if (i < nr) subtract_rows(v, t, ys(k), i, g, a.nrhs, min(T, nd.ne - tt * T));
      __syncthreads();
    }
  }
  trace_mark(a, ticket, 2);
  // 4. the block's own diagonal tile
  if (a.inv) {
    // presolve: publish the reduced pivot rows for the later row blocks of the super-block, then
    // y = sum over its row blocks c <= blk of Z(blk, c) v_c (c in order)
    const int tb = tb_own;
    if (task.blk + 1 < min(nd.ntile, s0 + K))
      publish_rows(a, v, nd.buf_off + r0, tb, a.flags.fwd_v + nd.flag_off + task.blk);
    double acc[P / G];
#pragma unroll
    for (int k = 0; k < P / G; ++k) acc[k] = 0.0;
    // the published rows of the super-block's earlier row blocks, all at once: v_c in slab 1 + c - s0
    wait_all(a.flags.fwd_v + nd.flag_off, s0, task.blk - s0, a.flags.error);
    load_tiles(ys, a.vbuf, TR, nd.buf_off + static_cast<long long>(s0) * T, 1, task.blk - s0,
               nd.buf_off + static_cast<long long>(task.blk) * T, a.nrhs);
    for (int c = s0; c <= task.blk; ++c) {
      const double(*t)[T + 1] = stream.next();
      if (i < tb) accumulate_tile<false>(acc, t, c < task.blk ? ys(c - s0) : v, i, g, a.nrhs, c < task.blk ? T : tb);
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
    trace_mark(a, ticket, 3);
    // contribution rows in the same block (the node's last row block): the tiles of this super-block too
    if (nr > tb) {
      wait_all(a.flags.fwd_tile + nd.flag_off, s0, nz, a.flags.error);
      load_tiles(ys, buf, TR, static_cast<long long>(s0) * T, 1, nz, nd.ne, a.nrhs);
      for (int tt = s0; tt <= task.blk; ++tt) {
        const double(*t)[T + 1] = stream.next();
        if (i >= tb && i < nr) subtract_rows(v, t, ys(tt - s0), i, g, a.nrhs, tt < task.blk ? T : tb);
        __syncthreads();
      }
      if (i >= tb && i < nr)
        for (int q = g; q < a.nrhs; q += G) __stcg(buf + q * TR + r0 + i, v[q][i]);
      __threadfence();
      __syncthreads();
    }
  } else {
    const int tb = tb_own;
    const double(*t)[T + 1] = stream.next();
    tile_solve<false>(t, v, y, tb, a.nrhs, a.posdef != 0);
    __syncthreads();
    // contribution rows in the same block (the node's last tile): subtract this tile too
    if (nr > tb && i >= tb && i < nr) subtract_rows(v, t, y, i, g, a.nrhs, tb);
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
    trace_mark(a, ticket, 3);
  }
  if (threadIdx.x == 0) atomicAdd(a.flags.fwd_done + task.node, 1);
  trace_end(a, ticket);
}

__global__ void __launch_bounds__(NT, bwd_min_blocks) backward_sweep_kernel(SolveArgs a) {
  extern __shared__ double smem[];
  const SweepShared sh{smem, a.stages, a.nrhs};
  const int ticket = take_ticket(a.flags.ticket + 1);
  if (ticket >= a.ntasks) return;
  const SolveTask task = a.tasks[ticket];
  const SolveNode nd = a.nodes[task.node];
  trace_start(a, ticket, task);
  if (task.blk < 0) {
    backward_compact_node(a, ticket, task, nd, sh);
    trace_end(a, ticket);
    return;
  }
  double(*v)[T] = sh.slab(0);     // the tile's unknowns
  double(*w)[T] = sh.slab(1);     // x of a chunk of rows below, then the solved tile
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const int c0 = task.blk * T, tb = min(T, nd.ne - c0);
  const long long m = nd.m, TR = a.total_rows;
  const int* rows = a.rows + nd.rows_off;
  const double* L = a.l + nd.l_off;
  double* buf = a.buf + nd.buf_off;
  // Items: 2. rows below the pivots (the ancestors' variables), 64 at a time — here, or in the node's
  // partial tasks — then 3. the node's later tiles, last first, as they are solved (with presolve, only
  // the tiles after the tile's super-block); a partial task does items first .. last - 1 of 2. only.
  const int s_last = a.inv ? min(nd.ntile, (task.blk / K) * K + K) - 1 : task.blk;
  const int na = (nd.m - nd.ne + T - 1) / T, nl = nd.ntile - 1 - s_last;
  const bool partial = task.part >= 0;
  const int first = partial ? task.part * solve_chunk_blocks : (nd.ngroups > 0 ? na : 0);
  const int last = partial ? min(na, first + solve_chunk_blocks) : na + nl;
  // The task's blocks, in the order it uses them, streamed from the start (before the waits): L(item rows,
  // tile) for the items, then the transposed diagonal tile, or with presolve Z(u, blk), u = s_last .. blk.
  const int nitems = last - first + (partial ? 0 : a.inv ? s_last - task.blk + 1 : 1);
  int item_issued = first;
  auto stream = stream_blocks(sh.ring(), [&](BlockSrc& src) {
    if (item_issued >= first + nitems) return false;
    const int item = item_issued++;
    if (item < last) {
      const int r0 = item < na ? nd.ne + item * T : (nd.ntile - 1 - (item - na)) * T;
      src = block_at(L, m, r0, c0, min(T, (item < na ? nd.m : nd.ne) - r0), tb);
    } else if (a.inv) {
      const int u = s_last - (item - last);
      src = BlockSrc{inv_tile(a.inv, nd, u, task.blk), T, min(T, nd.ne - u * T), tb};
    } else {
      src = block_at(L, m, c0, c0, tb, tb);
    }
    return true;
  });

  // 1. the ancestors are final
  if (threadIdx.x == 0 && nd.wait_node >= 0)
    wait_at_least(a.flags.bwd_done + nd.wait_node, a.nodes[nd.wait_node].ntile, a.flags.error);
  __syncthreads();
  __threadfence();
  trace_mark(a, ticket, 0);
  if (partial) {  // v = - sum over this group's row blocks of L(rows, tile)^T x(rows)
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
    }
  }
  // the ancestors' values of this task's rows below the pivots, all at once (item k in slab 1 + k - first;
  // at most solve_chunk_blocks items); the later tiles in batches (the tile waited for and the solved tiles
  // before it, items batch_first .. batch_first + batch_n - 1 in slabs 1, 2, ...)
  auto ws = [&](int k) { return sh.slab(1 + k); };
  const int nbelow = max(0, min(last, na) - first);
  for (int idx = threadIdx.x; idx < nbelow * a.nrhs * T; idx += NT) {
    const int k = idx / (a.nrhs * T), q = (idx / T) % a.nrhs, r = idx % T;
    const int row = nd.ne + (first + k) * T + r;
    if (row < nd.m) ws(k)[q][r] = __ldcg(a.x + rows[row] + q * a.ldx);
  }
  int batch_first = 0, batch_n = 0;
  for (int item = first; item < last; ++item) {
    __syncthreads();
    int nr;
    const double(*wi)[T];
    if (item < na) {
      nr = min(T, nd.m - (nd.ne + item * T));
      wi = ws(item - first);
    } else {
      const int tt = nd.ntile - 1 - (item - na);
      if (item >= batch_first + batch_n) {
        batch_n = wait_ready_run(a.flags.bwd_tile + nd.flag_off, tt, -1, min(solve_slabs - 1, last - item),
                                 a.flags.error);
        batch_first = item;
        load_tiles(ws, buf, TR, static_cast<long long>(tt) * T, -1, batch_n, nd.ne, a.nrhs);
      }
      nr = min(T, nd.ne - tt * T);
      wi = ws(item - batch_first);
    }
    const double(*t)[T + 1] = stream.next();
    if (i < tb) subtract_columns(v, t, wi, i, g, a.nrhs, nr);
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
  trace_mark(a, ticket, 2);
  if (a.inv) {
    // 4. presolve: publish v for the earlier tiles of the super-block, then
    //    x = sum over its tiles u >= blk (last first) of Z(u, blk)^T v_u
    const int s0 = (task.blk / K) * K;
    if (task.blk > s0) publish_rows(a, v, nd.buf_off + c0, tb, a.flags.bwd_v + nd.flag_off + task.blk);
    double acc[P / G];
#pragma unroll
    for (int k = 0; k < P / G; ++k) acc[k] = 0.0;
    // the published v_u of the super-block's later tiles, all at once (slab u - blk)
    wait_all(a.flags.bwd_v + nd.flag_off, task.blk + 1, s_last - task.blk, a.flags.error);
    load_tiles(ws, a.vbuf, TR, nd.buf_off + static_cast<long long>(task.blk + 1) * T, 1, s_last - task.blk,
               nd.buf_off + nd.ne, a.nrhs);
    for (int u = s_last; u >= task.blk; --u) {
      const int nu = min(T, nd.ne - u * T);
      const double(*t)[T + 1] = stream.next();
      if (i < tb) accumulate_tile<true>(acc, t, u > task.blk ? ws(u - task.blk - 1) : v, i, g, a.nrhs, nu);
      __syncthreads();
    }
    if (i < tb)
#pragma unroll
      for (int k = 0; k < P / G; ++k)
        if (g + k * G < a.nrhs) w[g + k * G][i] = acc[k];
  } else {
    // 4. the transposed diagonal tile
    tile_solve<true>(stream.next(), v, w, tb, a.nrhs, a.posdef != 0);
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
  trace_mark(a, ticket, 3);
  trace_end(a, ticket);
}

/// One warp per node, a lane per pivot (the second of a 2x2 is written with the first).
__global__ void form_diag_kernel(const SolveNode* nodes, int nsup, const double* dstore, double* d, double* dinv) {
  const int s = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (s >= nsup) return;
  const SolveNode nd = nodes[s];
  const double* dn = dstore + nd.d_off;
  for (int k = threadIdx.x % 32; k < nd.ne; k += 32) {
    if (k > 0 && dn[2 * k - 1] != 0.0) continue;
    const long long p = nd.pos + k;
    diag_pivot_entries(dn, k, d + 2 * p, dinv + 2 * p);
  }
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

namespace {
/// Launches a sweep kernel with as many stages of the block stream as fit (see solve_stages).
void launch_sweep(void (*kernel)(SolveArgs), const char* name, const SolveArgs& a, cudaStream_t s) {
  if (a.ntasks <= 0) return;
  SolveArgs b = a;
  b.stages = solve_stages(a.nrhs);
  const int bytes = solve_smem_bytes(b.stages, a.nrhs);
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), name);
  kernel<<<a.ntasks, NT, bytes, s>>>(b);
  check_launch(name);
}
}  // namespace

void launch_forward_sweep(const SolveArgs& a, cudaStream_t s) {
  launch_sweep(forward_sweep_kernel, "forward_sweep_kernel", a, s);
}
void launch_backward_sweep(const SolveArgs& a, cudaStream_t s) {
  launch_sweep(backward_sweep_kernel, "backward_sweep_kernel", a, s);
}
void launch_form_diag(const SolveNode* nodes, int nsup, const double* dstore, double* d, double* dinv, cudaStream_t s) {
  if (nsup <= 0) return;
  form_diag_kernel<<<(nsup + 7) / 8, 256, 0, s>>>(nodes, nsup, dstore, d, dinv);
  check_launch("form_diag_kernel");
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
