// solve_device.cuh — the device building blocks of the GPU solve's sweep kernels: dependency waits, the
// task trace, 64 x 64 blocks of L streamed into shared memory by asynchronous copies, the per-tile
// arithmetic (one thread per row or column, in a fixed order) and the batched loads of solved rows.
// Included by solve_kernels.cu only (its definitions are in an anonymous namespace).
#pragma once
#include <cuda_runtime.h>

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
/// Task trace (a build with -DSSIDS_SOLVE_TRACE only; see tools/solve_trace.py): per ticket
/// trace_words words: the start and end time (%globaltimer, ns), node << 32 | blk, smid << 32 | part, and
/// the times of the task's marks (0 where not marked): 0 its dependencies met, 1 its rows gathered; per-block
/// tasks: 2 the node's other tiles done (forward: the earlier ones, backward: the rows below and the later
/// tiles), 3 its own tile solved.
constexpr int trace_words = solve_trace_words;
__device__ __forceinline__ unsigned long long trace_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ void trace_start(const SolveArgs& a, int ticket, const SolveTask& task) {
  if (!a.trace || threadIdx.x != 0) return;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  unsigned long long* w = a.trace + trace_words * static_cast<long long>(ticket);
  w[0] = trace_clock();
  w[2] = (static_cast<unsigned long long>(task.node) << 32) | static_cast<unsigned>(task.blk);
  w[3] = (static_cast<unsigned long long>(sm) << 32) | static_cast<unsigned>(task.part);
}
__device__ __forceinline__ void trace_end(const SolveArgs& a, int ticket) {
  if (a.trace && threadIdx.x == 0) a.trace[trace_words * static_cast<long long>(ticket) + 1] = trace_clock();
}
/// Marks point k of the task (see above).
__device__ __forceinline__ void trace_mark(const SolveArgs& a, int ticket, int k) {
  if (a.trace && threadIdx.x == 0) a.trace[trace_words * static_cast<long long>(ticket) + 4 + k] = trace_clock();
}
#else
__device__ __forceinline__ void trace_start(const SolveArgs&, int, const SolveTask&) {}
__device__ __forceinline__ void trace_end(const SolveArgs&, int) {}
__device__ __forceinline__ void trace_mark(const SolveArgs&, int, int) {}
#endif
__device__ int take_ticket(int* counter) {
  __shared__ int s_ticket;
  if (threadIdx.x == 0) s_ticket = atomicAdd(counter, 1);
  __syncthreads();
  return s_ticket;
}

/// A 64 x 64 block of L in registers (16 entries per thread), so that its loads are all in flight at once
/// (issued by fetch(), consumed by put(); the presolve inversion's blocks).
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

/// Loads t[r][j] = L(r0 + r, c0 + j) for r < nr, j < nc.
__device__ __forceinline__ void load_block(double (*t)[T + 1], const double* L, long long m, int r0, int c0, int nr,
                                           int nc) {
  BlockRegs b;
  fetch(b, L, m, r0, c0, nr, nc);
  put(b, t);
}

/// A block to stream: entry (r, j) at p[r + j * ld] for r < nr, j < nc, zero elsewhere in the 64 x 64 block.
struct BlockSrc {
  const double* p;
  long long ld;
  int nr, nc;
};
/// The block of a column-major array A (leading dimension ld) at (r0, c0), nr x nc.
__device__ __forceinline__ BlockSrc block_at(const double* A, long long ld, int r0, int c0, int nr, int nc) {
  return BlockSrc{A + r0 + c0 * ld, ld, nr, nc};
}

/// The sweeps stream their blocks of L (or of the inverse) through a ring of shared-memory stages filled by
/// asynchronous copies (cp.async), so that up to nstage - 1 blocks are in flight while one is used and no
/// registers hold them. Every thread issues its part of each block and commits one copy group per block;
/// take() waits for the oldest block's group and a barrier. The caller releases a stage by a barrier after
/// its last use of it (every consumer loop ends its step with one), before the next issue() reuses it.
__device__ __forceinline__ void copy_async8(double* dst, const double* src) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
}
struct BlockRing {
  double* base;  ///< nstage stages of T x (T + 1)
  int nstage;
  int issued, used;
  __device__ double (*stage(int k) const)[T + 1] { return reinterpret_cast<double(*)[T + 1]>(base + k * T * (T + 1)); }
  /// Starts copying the block into the next stage (t[r][j] = entry (r, j), zeros outside nr x nc).
  __device__ __forceinline__ void issue(const BlockSrc& s) {
    double(*t)[T + 1] = stage(issued % nstage);
#pragma unroll
    for (int k = 0; k < T * T / NT; ++k) {
      const int idx = threadIdx.x + k * NT, r = idx % T, j = idx / T;
      if (r < s.nr && j < s.nc) copy_async8(&t[r][j], s.p + r + j * s.ld);
      else t[r][j] = 0.0;
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    ++issued;
  }
  /// The oldest issued block, once it has arrived (for every thread of the block).
  __device__ __forceinline__ const double (*take())[T + 1] {
    switch (issued - used - 1) {  // copy groups that may stay in flight
      case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
      case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
      case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
      default: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    }
    __syncthreads();
    return stage(used++ % nstage);
  }
};
/// A task's blocks in the order it uses them: gen(BlockSrc&) yields the next one (false at the end). The
/// first nstage - 1 are issued by prime(); next() issues one more and returns the oldest.
template <class Gen>
struct BlockStream {
  BlockRing ring;
  Gen gen;
  bool more;
  __device__ __forceinline__ void issue_next() {
    BlockSrc s;
    if (more && (more = gen(s))) ring.issue(s);
  }
  __device__ __forceinline__ void prime() {
    for (int k = 0; k + 1 < ring.nstage; ++k) issue_next();
  }
  __device__ __forceinline__ const double (*next())[T + 1] {
    issue_next();
    return ring.take();
  }
};
template <class Gen>
__device__ __forceinline__ BlockStream<Gen> stream_blocks(BlockRing ring, Gen gen) {
  BlockStream<Gen> st{ring, gen, true};
  st.prime();
  return st;
}

/// Presolve: tile (i, j) of the inverse of the diagonal super-block holding tiles i >= j of a node
/// (T x T, column-major, ld T; zero outside the node's pivots).
__device__ __forceinline__ const double* inv_tile(const double* inv, const SolveNode& nd, int i, int j) {
  const int S = j / K, li = i - S * K, lj = j - S * K;
  return inv + nd.inv_off + (static_cast<long long>(S) * (K * (K + 1) / 2) + li * (li + 1) / 2 + lj) * T * T;
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

/// Waits until flags[first] is set, then counts the flags flags[first + k * step], k < most (<= 32), that are
/// set too, in a row from the first: the tiles a task can take in one batch (at least 1; the same for every
/// thread of the block).
__device__ int wait_ready_run(const int* flags, int first, int step, int most, int* error) {
  __shared__ int s_run;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) wait_at_least(flags + first, 1, error);
    __syncwarp();
    const volatile int* vf = flags;
    const int k = threadIdx.x;
    const bool ready = k == 0 || (k < most && vf[first + k * step] >= 1);
    const unsigned not_ready = __ballot_sync(0xffffffffu, !ready);
    if (k == 0) s_run = not_ready ? __ffs(not_ready) - 1 : most;
  }
  __syncthreads();
  __threadfence();
  return s_run;
}

/// Waits until flags[first .. first + n) are all set (n <= NT).
__device__ __forceinline__ void wait_all(const int* flags, int first, int n, int* error) {
  if (threadIdx.x < n) wait_at_least(flags + first + threadIdx.x, 1, error);
  __syncthreads();
  __threadfence();
}

/// dst(k)[q][r] = src[q * ld + row(k) + r] for k < nb, r < rows(k), q < nrhs, with row(k) = row0 + k * T * dir
/// and rows(k) = min(T, lim - row(k)) (through L2: written by other blocks of this launch).
template <class Slab>
__device__ __forceinline__ void load_tiles(Slab dst, const double* src, long long ld, long long row0, int dir, int nb,
                                           long long lim, int nrhs) {
  for (int idx = threadIdx.x; idx < nb * nrhs * T; idx += NT) {
    const int k = idx / (nrhs * T), q = (idx / T) % nrhs, r = idx % T;
    const long long row = row0 + static_cast<long long>(k) * T * dir;
    if (row + r < lim) dst(k)[q][r] = __ldcg(src + q * ld + row + r);
  }
}

/// The sweeps' dynamic shared memory: nstage ring stages of T x (T + 1) (the blocks of L streamed through),
/// then solve_slabs slabs of slab_rhs x T (slab_rhs: the right-hand sides of the launch).
struct SweepShared {
  double* base;
  int nstage, slab_rhs;
  __device__ BlockRing ring() const { return BlockRing{base, nstage, 0, 0}; }
  __device__ double (*slab(int k) const)[T] {
    return reinterpret_cast<double(*)[T]>(base + nstage * T * (T + 1) + k * slab_rhs * T);
  }
};

/// Forward: waits until every child of nd has passed its contribution rows up.
__device__ __forceinline__ void wait_children(const SolveArgs& a, const SolveNode& nd) {
  for (int c = nd.child_begin + threadIdx.x; c < nd.child_end; c += NT) {
    const int ch = a.children[c];
    wait_at_least(a.flags.fwd_done + ch, a.nodes[ch].nblk, a.flags.error);
  }
  __syncthreads();
  __threadfence();
}

}  // namespace
}  // namespace gpu
}  // namespace detail
}  // namespace ssids
