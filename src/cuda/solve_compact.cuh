// solve_compact.cuh — a compact node (at most solve_compact_blocks row blocks) as one task per sweep:
// the forward and backward steps of a whole node by one block, its rows in shared memory, its blocks of L
// (or of the inverse) streamed through in a fixed order (see solve_kernels.cuh). Included by
// solve_kernels.cu only, after solve_device.cuh.
#pragma once
#include "cuda/solve_device.cuh"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

/// An item of a compact node's stream of 64 x 64 blocks (of L, or of the inverse with presolve).
/// Forward, phase 0 (pivots), no presolve: (tt, rb) = diagonal tile tt solved (rb == tt), or tile tt
/// subtracted from pivot row block rb > tt; with presolve: (b, c) = Z(b, c) applied, rows b descending, c
/// ascending. Phase 1 (the rows after the pivots): (rb, tt) = tile tt subtracted from row block rb.
/// Backward, phase 0: (tt, k) = column tile tt, item k: row block k below the pivots (k < na), a later tile,
/// or (presolve: none) the transposed diagonal tile; tiles last first. Phase 1 (presolve only): (tt, u) =
/// Z(u, tt)^T applied, tt ascending, u descending.
struct CompactItem {
  int phase, a, b;
};

/// Forward: the first row block after the pivots that holds rows after them (the last pivot block when it
/// is partly pivots), and the first tile it still takes from phase 1.
__device__ __forceinline__ int fwd_after_first(const SolveNode& nd) {
  const int nt = nd.ntile;
  return (nd.m > nd.ne && nd.ne % T != 0) ? nt - 1 : nt;
}
__device__ __forceinline__ int fwd_after_tile(const SolveNode& nd, bool presolve, int rb) {
  return (!presolve && rb == nd.ntile - 1) ? nd.ntile - 1 : 0;
}
__device__ __forceinline__ bool fwd_phase1_start(const SolveNode& nd, bool presolve, CompactItem& it) {
  const int rb = fwd_after_first(nd);
  if (nd.ntile == 0 || rb >= nd.nblk) return false;
  it = CompactItem{1, rb, fwd_after_tile(nd, presolve, rb)};
  return true;
}
__device__ __forceinline__ bool fwd_first_item(const SolveNode& nd, bool presolve, CompactItem& it) {
  if (nd.ntile == 0) return false;
  it = presolve ? CompactItem{0, nd.ntile - 1, 0} : CompactItem{0, 0, 0};
  return true;
}
__device__ __forceinline__ bool fwd_next_item(const SolveNode& nd, bool presolve, CompactItem& it) {
  const int nt = nd.ntile;
  if (it.phase == 0) {
    if (!presolve) {
      if (++it.b < nt) return true;
      if (++it.a < nt) {
        it.b = it.a;
        return true;
      }
    } else {
      if (++it.b <= it.a) return true;
      if (--it.a >= 0) {
        it.b = 0;
        return true;
      }
    }
    return fwd_phase1_start(nd, presolve, it);
  }
  if (++it.b < nt) return true;
  if (++it.a < nd.nblk) {
    it.b = fwd_after_tile(nd, presolve, it.a);
    return true;
  }
  return false;
}
__device__ __forceinline__ BlockSrc fwd_item_src(const SolveArgs& a, const SolveNode& nd, const CompactItem& it) {
  if (it.phase == 0 && a.inv) {
    const int tb = min(T, nd.ne - it.a * T);
    return BlockSrc{inv_tile(a.inv, nd, it.a, it.b), T, tb, it.b < it.a ? T : tb};
  }
  const double* L = a.l + nd.l_off;
  const int rb = it.phase == 0 ? it.b : it.a, tt = it.phase == 0 ? it.a : it.b;
  const int tb = min(T, nd.ne - tt * T);
  if (it.phase == 0 && rb == tt) return block_at(L, nd.m, tt * T, tt * T, tb, tb);
  return block_at(L, nd.m, rb * T, tt * T, min(T, nd.m - rb * T), tb);
}

/// Forward sweep of a whole compact node by one block (see solve_kernels.cuh): the same operations per row,
/// in the same order, as the per-row-block tasks below.
__device__ void forward_compact_node(const SolveArgs& a, int ticket, const SolveTask& task, const SolveNode& nd,
                                     SweepShared sh) {
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const long long TR = a.total_rows;
  const int* rows = a.rows + nd.rows_off;
  double* buf = a.buf + nd.buf_off;
  const bool presolve = a.inv != nullptr;
  // the node's blocks, in the order they are used (the items below), streamed from the start
  CompactItem iss;
  bool iss_started = false;
  auto stream = stream_blocks(sh.ring(), [&](BlockSrc& src) {
    const bool ok = iss_started ? fwd_next_item(nd, presolve, iss) : fwd_first_item(nd, presolve, iss);
    iss_started = true;
    if (ok) src = fwd_item_src(a, nd, iss);
    return ok;
  });
  wait_children(a, nd);
  trace_mark(a, ticket, 0);
  // all rows at once: own pivots from x, contribution rows of the children in child order
  for (int r = threadIdx.x; r < nd.m; r += NT) {
    const long long grow = nd.buf_off + r;
    const int e0 = a.gptr[grow], e1 = a.gptr[grow + 1];
    double(*v)[T] = sh.slab(r / T);
    for (int q = 0; q < a.nrhs; ++q) {
      double s = r < nd.ne ? a.x[rows[r] + q * a.ldx] : 0.0;
      for (int e = e0; e < e1; ++e) s += __ldcg(a.buf + q * TR + a.gsrc[e]);
      v[q][r % T] = s;
    }
  }
  __syncthreads();
  trace_mark(a, ticket, 1);
  const int nt = nd.ntile, tb_last = nt > 0 ? nd.ne - (nt - 1) * T : 0;
  double acc[P / G] = {};
  CompactItem it;
  bool have = fwd_first_item(nd, presolve, it);
  while (have) {
    const CompactItem cur = it;
    have = fwd_next_item(nd, presolve, it);
    const double(*t)[T + 1] = stream.next();
    if (cur.phase == 0 && presolve) {
      // y_b = sum over c <= b of Z(b, c) v_c (v_c not yet overwritten: b descends)
      const int b = cur.a, c = cur.b, tb = min(T, nd.ne - b * T);
      if (c == 0)
#pragma unroll
        for (int k = 0; k < P / G; ++k) acc[k] = 0.0;
      if (i < tb) accumulate_tile<false>(acc, t, sh.slab(c), i, g, a.nrhs, c < b ? T : tb);
      if (c == b) {
        __syncthreads();
        if (i < tb)
#pragma unroll
          for (int k = 0; k < P / G; ++k)
            if (g + k * G < a.nrhs) sh.slab(b)[g + k * G][i] = acc[k];
      }
    } else if (cur.phase == 0) {
      const int tt = cur.a, rb = cur.b, tb = min(T, nd.ne - tt * T);
      if (rb == tt) tile_solve<false>(t, sh.slab(tt), sh.slab(tt), tb, a.nrhs, a.posdef != 0);
      else if (i < min(T, nd.m - rb * T)) subtract_rows(sh.slab(rb), t, sh.slab(tt), i, g, a.nrhs, tb);
    } else {
      const int rb = cur.a, tt = cur.b, tb = min(T, nd.ne - tt * T);
      const int lo = rb == nt - 1 ? tb_last : 0;
      // the last pivot block's contribution rows take its own solved rows from a copy in the spare slab (the
      // slab's vectorized reads and the rows' writes must not share one array)
      const bool own = rb == nt - 1 && tt == nt - 1;
      if (own) {
        for (int idx = threadIdx.x; idx < a.nrhs * T; idx += NT)
          if (idx % T < tb) sh.slab(solve_slabs - 1)[idx / T][idx % T] = sh.slab(tt)[idx / T][idx % T];
        __syncthreads();
      }
      if (i >= lo && i < min(T, nd.m - rb * T))
        subtract_rows(sh.slab(rb), t, sh.slab(own ? solve_slabs - 1 : tt), i, g, a.nrhs, tb);
    }
    __syncthreads();
  }
  // solved pivots to x, contribution rows to the work buffer (for the parent)
  for (int r = threadIdx.x; r < nd.m; r += NT) {
    const double(*v)[T] = sh.slab(r / T);
    for (int q = 0; q < a.nrhs; ++q) {
      if (r < nd.ne) a.x[rows[r] + q * a.ldx] = v[q][r % T];
      else __stcg(buf + q * TR + r, v[q][r % T]);
    }
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(a.flags.fwd_done + task.node, nd.nblk);
}

/// Forward: a group of up to solve_row_group row blocks b0 .. b0 + nb - 1 of a node, all after its pivots
/// (nb = max(1, task.part)), as one task: their rows gathered into slabs 0 .. nb-1 at once, then the node's
/// tiles as they are solved, in batches (y in slabs nb, nb + 1, ...), each tile's blocks of the group's row
/// blocks in turn. Every row goes through the same operations, in the same order, as in a per-row-block task.
__device__ void forward_row_group(const SolveArgs& a, int ticket, const SolveTask& task, const SolveNode& nd,
                                  SweepShared sh) {
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const long long TR = a.total_rows;
  const int nb = max(1, task.part), b0 = task.blk, nt = nd.ntile;
  const int row0 = b0 * T, nrows = min(nb * T, nd.m - row0);
  const double* L = a.l + nd.l_off;
  int item = 0;
  auto stream = stream_blocks(sh.ring(), [&](BlockSrc& src) {
    if (item >= nt * nb) return false;
    const int tt = item / nb, rb = b0 + item % nb;
    ++item;
    src = block_at(L, nd.m, rb * T, tt * T, min(T, nd.m - rb * T), min(T, nd.ne - tt * T));
    return true;
  });
  wait_children(a, nd);
  trace_mark(a, ticket, 0);
  for (int r = threadIdx.x; r < nrows; r += NT) {
    const long long grow = nd.buf_off + row0 + r;
    const int e0 = a.gptr[grow], e1 = a.gptr[grow + 1];
    double(*v)[T] = sh.slab(r / T);
    for (int q = 0; q < a.nrhs; ++q) {
      double s = 0.0;
      for (int e = e0; e < e1; ++e) s += __ldcg(a.buf + q * TR + a.gsrc[e]);
      v[q][r % T] = s;
    }
  }
  __syncthreads();
  trace_mark(a, ticket, 1);
  double* buf = a.buf + nd.buf_off;
  auto ys = [&](int k) { return sh.slab(nb + k); };
  for (int tt = 0; tt < nt;) {
    const int nbatch = wait_ready_run(a.flags.fwd_tile + nd.flag_off, tt, 1, min(solve_slabs - nb, nt - tt),
                                      a.flags.error);
    load_tiles(ys, buf, TR, static_cast<long long>(tt) * T, 1, nbatch, nd.ne, a.nrhs);
    for (int k = 0; k < nbatch; ++k, ++tt)
      for (int rb = 0; rb < nb; ++rb) {
        const double(*t)[T + 1] = stream.next();
        if (i < min(T, nrows - rb * T)) subtract_rows(sh.slab(rb), t, ys(k), i, g, a.nrhs, min(T, nd.ne - tt * T));
        __syncthreads();
      }
  }
  for (int r = threadIdx.x; r < nrows; r += NT) {
    const double(*v)[T] = sh.slab(r / T);
    for (int q = 0; q < a.nrhs; ++q) __stcg(buf + q * TR + row0 + r, v[q][r % T]);
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(a.flags.fwd_done + task.node, nb);
}

/// Backward items of a compact node (see CompactItem): na row blocks below the pivots.
__device__ __forceinline__ int bwd_last_k(const SolveNode& nd, bool presolve, int na, int tt) {
  return presolve ? na - 1 : na + (nd.ntile - 1 - tt);
}
__device__ __forceinline__ bool bwd_first_item(const SolveNode& nd, bool presolve, int na, CompactItem& it) {
  const int nt = nd.ntile;
  if (nt == 0) return false;
  if (!presolve || na > 0) {
    it = CompactItem{0, nt - 1, 0};
    return true;
  }
  it = CompactItem{1, 0, nt - 1};
  return true;
}
__device__ __forceinline__ bool bwd_next_item(const SolveNode& nd, bool presolve, int na, CompactItem& it) {
  const int nt = nd.ntile;
  if (it.phase == 0) {
    if (++it.b <= bwd_last_k(nd, presolve, na, it.a)) return true;
    if (--it.a >= 0) {
      it.b = 0;
      return true;
    }
    if (!presolve) return false;
    it = CompactItem{1, 0, nt - 1};
    return true;
  }
  if (--it.b >= it.a) return true;
  if (++it.a < nt) {
    it.b = nt - 1;
    return true;
  }
  return false;
}
__device__ __forceinline__ BlockSrc bwd_item_src(const SolveArgs& a, const SolveNode& nd, int na,
                                                 const CompactItem& it) {
  const int tt = it.a, tb = min(T, nd.ne - tt * T);
  if (it.phase == 1) return BlockSrc{inv_tile(a.inv, nd, it.b, tt), T, min(T, nd.ne - it.b * T), tb};
  int r0, nr;
  if (it.b < na) {
    r0 = nd.ne + it.b * T;
    nr = min(T, nd.m - r0);
  } else if (it.b < na + nd.ntile - 1 - tt) {
    r0 = (nd.ntile - 1 - (it.b - na)) * T;
    nr = min(T, nd.ne - r0);
  } else {
    r0 = tt * T;
    nr = tb;
  }
  return block_at(a.l + nd.l_off, nd.m, r0, tt * T, nr, tb);
}

/// Backward sweep of a whole compact node by one block: slabs 0 .. ntile-1 hold the pivot columns' unknowns,
/// slabs ntile + k the k-th 64 rows below the pivots; every column goes through the same operations, in the
/// same order, as in the per-tile tasks below.
__device__ void backward_compact_node(const SolveArgs& a, int ticket, const SolveTask& task, const SolveNode& nd,
                                      SweepShared sh) {
  const int i = threadIdx.x % T, g = threadIdx.x / T;
  const int* rows = a.rows + nd.rows_off;
  const bool presolve = a.inv != nullptr;
  const int nt = nd.ntile, na = (nd.m - nd.ne + T - 1) / T;
  // the node's blocks, in the order they are used (the items below), streamed from the start
  CompactItem iss;
  bool iss_started = false;
  auto stream = stream_blocks(sh.ring(), [&](BlockSrc& src) {
    const bool ok = iss_started ? bwd_next_item(nd, presolve, na, iss) : bwd_first_item(nd, presolve, na, iss);
    iss_started = true;
    if (ok) src = bwd_item_src(a, nd, na, iss);
    return ok;
  });
  if (threadIdx.x == 0 && nd.wait_node >= 0)
    wait_at_least(a.flags.bwd_done + nd.wait_node, a.nodes[nd.wait_node].ntile, a.flags.error);
  __syncthreads();
  __threadfence();
  trace_mark(a, ticket, 0);
  // all rows at once: the pivots' values after the diagonal solve, the ancestors' final values below
  for (int r = threadIdx.x; r < nd.m; r += NT) {
    double(*v)[T] = r < nd.ne ? sh.slab(r / T) : sh.slab(nt + (r - nd.ne) / T);
    const int ri = r < nd.ne ? r % T : (r - nd.ne) % T;
    for (int q = 0; q < a.nrhs; ++q) v[q][ri] = __ldcg(a.x + rows[r] + q * a.ldx);
  }
  __syncthreads();
  trace_mark(a, ticket, 1);
  double acc[P / G] = {};
  CompactItem it;
  bool have = bwd_first_item(nd, presolve, na, it);
  while (have) {
    const CompactItem cur = it;
    have = bwd_next_item(nd, presolve, na, it);
    const double(*t)[T + 1] = stream.next();
    const int tt = cur.a, tb = min(T, nd.ne - tt * T);
    if (cur.phase == 1) {
      // x_tt = sum over u >= tt (last first) of Z(u, tt)^T v_u (v_u not yet overwritten: tt ascends)
      const int u = cur.b;
      if (u == nt - 1)
#pragma unroll
        for (int k = 0; k < P / G; ++k) acc[k] = 0.0;
      if (i < tb) accumulate_tile<true>(acc, t, sh.slab(u), i, g, a.nrhs, min(T, nd.ne - u * T));
      if (u == tt) {
        __syncthreads();
        if (i < tb)
#pragma unroll
          for (int k = 0; k < P / G; ++k)
            if (g + k * G < a.nrhs) sh.slab(tt)[g + k * G][i] = acc[k];
      }
    } else if (cur.b < na) {
      const int r0 = nd.ne + cur.b * T;
      if (i < tb) subtract_columns(sh.slab(tt), t, sh.slab(nt + cur.b), i, g, a.nrhs, min(T, nd.m - r0));
    } else if (cur.b < na + nt - 1 - tt) {
      const int u = nt - 1 - (cur.b - na);
      if (i < tb) subtract_columns(sh.slab(tt), t, sh.slab(u), i, g, a.nrhs, min(T, nd.ne - u * T));
    } else {
      tile_solve<true>(t, sh.slab(tt), sh.slab(tt), tb, a.nrhs, a.posdef != 0);
    }
    __syncthreads();
  }
  for (int r = threadIdx.x; r < nd.ne; r += NT) {
    const double(*v)[T] = sh.slab(r / T);
    for (int q = 0; q < a.nrhs; ++q) __stcg(a.x + rows[r] + q * a.ldx, v[q][r % T]);
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(a.flags.bwd_done + task.node, nt);
}

}  // namespace
}  // namespace gpu
}  // namespace detail
}  // namespace ssids
