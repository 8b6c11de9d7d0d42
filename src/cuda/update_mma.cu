// update_mma.cu — the contribution-block updates C -= L W^T (lower triangles of a level's regions) on the FP64
// tensor cores, all regions of a level in one launch.
//
// cuBLAS's grouped DGEMM runs these at about half of DGEMM's rate on the same shapes (bench_level_update,
// bench/NOTES.md), and one plain DGEMM per piece costs a launch each. Here one thread block
// computes one BM x BM tile of one region's lower triangle (tiles above the diagonal are not computed, the
// strict upper part of a diagonal tile is not written): the inner dimension is streamed through STAGES
// shared-memory stages of BK columns by cp.async, each warp holds a (BM / WARPS_M) x (BM / WARPS_N) block of
// the product in registers and multiplies with mma.sync on doubles. Every entry is summed over k in the same
// order on every run, so the result is bitwise reproducible; it is not bitwise the sum of update_kernel (the
// tensor cores round their partial sums their own way), so its tests compare with a tolerance.
//
// The stage copies take 8 bytes per cp.async, or 16 (two rows) when the launch's tasks are aligned for it
// (launch_update_mma's aligned16).
//
// A tile may also be one of a full rectangle (UpdateTask::full: the pieces of a big region that cuBLAS does not
// take, plan_updates in level_kernels_cuda.cu). The factorization uses it for every update that is not a plain
// cublasDgemm piece; rates per level against cuBLAS are in bench/NOTES.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/cuda_check.hpp"
#include "cuda/front_kernels.cuh"


namespace ssids {
namespace detail {
namespace gpu {

namespace {


__device__ __forceinline__ void cp_async8(double* dst, const double* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int n = valid ? 8 : 0;  // 0 bytes read: the destination is zero-filled
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(src), "r"(n) : "memory");
}
/// 16 bytes (two consecutive doubles), of which the first `bytes` are read and the rest zero-filled; through L2
/// only (.cg). dst and src 16-byte aligned.
__device__ __forceinline__ void cp_async16(double* dst, const double* src, int bytes) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// acc (16 x 8, four doubles per thread) += A (16 x 4k) B (4k x 8) over K4 steps of 4: a[s][0] row g, a[s][1]
/// row g + 8 of step s (column t), b[s] row t of step s (column g); g = lane / 4, t = lane % 4.
/// SHAPE 0: mma.m8n8k4 (sm_80), 1: m16n8k4, 2: m16n8k8, 3: m16n8k16 (sm_90; m8n8k4 below that).
template <int K4, int SHAPE>
__device__ __forceinline__ void mma_16x8(double (&acc)[4], const double (&a)[K4][2], const double (&b)[K4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int shape = SHAPE;
#else
  constexpr int shape = 0;
#endif
  if constexpr (shape == 0) {
#pragma unroll
  for (int s = 0; s < K4; ++s) {
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(acc[0]), "+d"(acc[1])
                 : "d"(a[s][0]), "d"(b[s]));
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(acc[2]), "+d"(acc[3])
                 : "d"(a[s][1]), "d"(b[s]));
  }
  } else if constexpr (shape == 1) {
#pragma unroll
  for (int s = 0; s < K4; ++s)
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
                 : "d"(a[s][0]), "d"(a[s][1]), "d"(b[s]));
  } else if constexpr (shape == 2) {
  static_assert(K4 % 2 == 0, "m16n8k8 takes two steps of 4");
#pragma unroll
  for (int s = 0; s < K4; s += 2)
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
                 : "d"(a[s][0]), "d"(a[s][1]), "d"(a[s + 1][0]), "d"(a[s + 1][1]), "d"(b[s]), "d"(b[s + 1]));
  } else {
  static_assert(K4 % 4 == 0, "m16n8k16 takes four steps of 4");
#pragma unroll
  for (int s = 0; s < K4; s += 4)
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
                 : "d"(a[s][0]), "d"(a[s][1]), "d"(a[s + 1][0]), "d"(a[s + 1][1]), "d"(a[s + 2][0]),
                   "d"(a[s + 2][1]), "d"(a[s + 3][0]), "d"(a[s + 3][1]), "d"(b[s]), "d"(b[s + 1]), "d"(b[s + 2]),
                   "d"(b[s + 3]));
  }
}

/// The last task with tile_begin <= bid (tasks sorted by tile_begin), found by each warp with 32 probes per step
/// (two or three dependent loads for a few thousand tasks instead of a dozen of a binary search).
__device__ __forceinline__ int task_of_tile(const UpdateTask* tasks, int ntasks, long long bid) {
  const int lane = threadIdx.x % 32;
  int lo = 0, hi = ntasks;  // the answer is in [lo, hi)
  while (hi - lo > 1) {
    const long long span = hi - lo;
    const int probe = lo + static_cast<int>(span * lane / 32);
    const unsigned le = __ballot_sync(0xffffffffu, tasks[probe].tile_begin <= bid);  // a prefix of the lanes
    const int last = 31 - __clz(le);  // lane 0 probes lo, which qualifies
    const int nlo = lo + static_cast<int>(span * last / 32);
    hi = last == 31 ? hi : lo + static_cast<int>(span * (last + 1) / 32);
    lo = nlo;
  }
  return lo;
}

/// One BM x BM lower tile per block: WARPS_M x WARPS_N warps, each a (BM/WARPS_M) x (BM/WARPS_N) block.
template <int BM, int WARPS_M, int WARPS_N, int SHAPE, int PAD, int BK, int STAGES, int MINB, bool PAIRS>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, MINB) update_mma_kernel(const UpdateTask* tasks, int ntasks) {
  constexpr int mma_bk = BK, mma_stages = STAGES, mma_pad = PAD;
  constexpr int threads = 32 * WARPS_M * WARPS_N;
  constexpr int WM = BM / WARPS_M, WN = BM / WARPS_N;  // warp block
  constexpr int MT = WM / 16, NT = WN / 8;             // 16 x 8 products per warp
  constexpr int ld = BM + mma_pad;                     // a stage holds BK rows (k) of BM entries
  constexpr int K4 = mma_bk / 4;
  static_assert(WM % 16 == 0 && WN % 8 == 0, "warp block");
  static_assert((BM * mma_bk) % threads == 0, "stage copy");
  extern __shared__ double smem[];
  double* sa = smem;                                   // [stages][BK][ld]: rows of L
  double* sb = smem + mma_stages * mma_bk * ld;        // [stages][BK][ld]: rows of W

  // the task and the tile (ti, tj), ti >= tj, of this block (tiles of a region column by column)
  const long long bid = blockIdx.x;
  const UpdateTask t = tasks[task_of_tile(tasks, ntasks, bid)];
  long long local = bid - t.tile_begin;
  const int nti = (t.nrow + BM - 1) / BM;
  int tj = 0, ti = 0;
  if (t.full) {
    tj = static_cast<int>(local / nti);
    ti = static_cast<int>(local % nti);
  } else {
    while (local >= nti - tj) {
      local -= nti - tj;
      ++tj;
    }
    ti = tj + static_cast<int>(local);
  }
  const int i0 = ti * BM, j0 = tj * BM;
  const int jmax = t.full ? t.ncol : 0;  // entries (i, j) with i >= j, or all of a full rectangle

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;
  const int g = lane / 4, tq = lane % 4;

  // stage copies: consecutive threads take consecutive rows of one k column (coalesced); with PAIRS a thread
  // copies two rows (16 bytes) of every k_step-th k column
  constexpr int row_copies = BM / 2;  // PAIRS: copies per k column
  static_assert(!PAIRS || (threads % row_copies == 0 && mma_bk % (threads / row_copies) == 0), "stage copy");
  constexpr int k_step = PAIRS ? threads / row_copies : 1, passes = mma_bk / k_step;
  const int r = (tid % row_copies) * 2, kr = tid / row_copies;
  const int a_n = max(0, min(2, t.nrow - (i0 + r))), b_n = max(0, min(2, t.ncol - (j0 + r)));
  auto load_stage = [&](int stage, int k0) {
    double* da = sa + stage * mma_bk * ld;
    double* db = sb + stage * mma_bk * ld;
    if constexpr (PAIRS) {
#pragma unroll
      for (int q = 0; q < passes; ++q) {
        const int kk = kr + q * k_step, gk = k0 + kk;
        const bool kin = gk < t.kdim;
        const int an = kin ? a_n : 0, bn = kin ? b_n : 0;
        cp_async16(da + kk * ld + r, an > 0 ? t.l + i0 + r + static_cast<long long>(gk) * t.ldl : t.l, 8 * an);
        cp_async16(db + kk * ld + r, bn > 0 ? t.w + j0 + r + static_cast<long long>(gk) * t.ldw : t.w, 8 * bn);
      }
    } else {
#pragma unroll
      for (int q = 0; q < BM * mma_bk / threads; ++q) {
        const int e = tid + q * threads, r1 = e % BM, kk = e / BM;
        const int gk = k0 + kk, gi = i0 + r1, gj = j0 + r1;
        const bool kin = gk < t.kdim;
        const bool ain = kin && gi < t.nrow, bin = kin && gj < t.ncol;
        cp_async8(da + kk * ld + r1, ain ? t.l + gi + static_cast<long long>(gk) * t.ldl : t.l, ain);
        cp_async8(db + kk * ld + r1, bin ? t.w + gj + static_cast<long long>(gk) * t.ldw : t.w, bin);
      }
    }
  };

  double acc[MT][NT][4];
#pragma unroll
  for (int a = 0; a < MT; ++a)
#pragma unroll
    for (int b = 0; b < NT; ++b)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[a][b][c] = 0.0;

  const int nk = (t.kdim + mma_bk - 1) / mma_bk;
#pragma unroll
  for (int s = 0; s < mma_stages - 1; ++s) {
    if (s < nk) load_stage(s, s * mma_bk);
    cp_async_commit();
  }
  for (int it = 0; it < nk; ++it) {
    cp_async_wait<mma_stages - 2>();
    __syncthreads();  // stage it is in; every warp is done with stage it - 1, which is refilled next
    const int nxt = it + mma_stages - 1;
    if (nxt < nk) load_stage(nxt % mma_stages, nxt * mma_bk);
    cp_async_commit();
    const double* da = sa + (it % mma_stages) * mma_bk * ld + wm * WM + g;
    const double* db = sb + (it % mma_stages) * mma_bk * ld + wn * WN + g;
    // k steps outermost: the MT x NT products of one step are independent, so consecutive mma instructions
    // do not wait for each other's accumulators
    constexpr int KS = SHAPE == 3 ? 4 : SHAPE == 2 ? 2 : 1;  // steps of 4 per instruction
#pragma unroll
    for (int s0 = 0; s0 < K4; s0 += KS) {
      double bf[NT][KS], af[MT][KS][2];
#pragma unroll
      for (int s = 0; s < KS; ++s) {
#pragma unroll
        for (int b = 0; b < NT; ++b) bf[b][s] = db[(4 * (s0 + s) + tq) * ld + 8 * b];
#pragma unroll
        for (int a = 0; a < MT; ++a) {
          af[a][s][0] = da[(4 * (s0 + s) + tq) * ld + 16 * a];
          af[a][s][1] = da[(4 * (s0 + s) + tq) * ld + 16 * a + 8];
        }
      }
#pragma unroll
      for (int a = 0; a < MT; ++a)
#pragma unroll
        for (int b = 0; b < NT; ++b) mma_16x8<KS, SHAPE>(acc[a][b], af[a], bf[b]);
    }
  }
  cp_async_wait<0>();

  // C -= acc on the region's lower triangle: all loads of a row group first, so that they are in flight together
  // (a load after a store to C could alias it and would wait for it)
#pragma unroll
  for (int a = 0; a < MT; ++a) {
    double cv[NT][4];
#pragma unroll
    for (int b = 0; b < NT; ++b)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int i = i0 + wm * WM + 16 * a + g + (c >= 2 ? 8 : 0);
        const int j = j0 + wn * WN + 8 * b + 2 * tq + (c & 1);
        cv[b][c] = (i < t.nrow && j < t.ncol && (i >= j || j < jmax)) ? t.c[i + static_cast<long long>(j) * t.ldc] : 0.0;
      }
#pragma unroll
    for (int b = 0; b < NT; ++b)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const int i = i0 + wm * WM + 16 * a + g + (c >= 2 ? 8 : 0);
        const int j = j0 + wn * WN + 8 * b + 2 * tq + (c & 1);
        if (i < t.nrow && j < t.ncol && (i >= j || j < jmax)) t.c[i + static_cast<long long>(j) * t.ldc] = cv[b][c] - acc[a][b][c];
      }
  }
}

template <int BM, int WARPS_M, int WARPS_N, int SHAPE, int PAD, int BK, int STAGES, int MINB, bool PAIRS = false>
void launch_mma(const UpdateTask* tasks, int ntasks, long long ntiles, cudaStream_t s) {
  constexpr int smem = 2 * STAGES * BK * (BM + PAD) * static_cast<int>(sizeof(double));
  auto kernel = update_mma_kernel<BM, WARPS_M, WARPS_N, SHAPE, PAD, BK, STAGES, MINB, PAIRS>;
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
             "cudaFuncSetAttribute (update_mma_kernel)");
  kernel<<<static_cast<unsigned>(ntiles), 32 * WARPS_M * WARPS_N, smem, s>>>(tasks, ntasks);
  check_launch("update_mma_kernel");
}

int mma_shape = 1;  // m16n8k4: the fastest of the four where measured (bench_level_update --mma-shape)

// Tiles of 64: 4 warps of 32 x 32, registers bounded for 4 blocks per multiprocessor (a few bytes spilled;
// faster than 3 blocks on levels of many small fronts). Tiles of 128: 8 warps of 64 x 32, one block per
// multiprocessor (bounding its 212 registers to 128 spills heavily). Rows padded by 4: the 8-byte fragment
// loads of a half-warp (4 k rows x 4 entries) hit distinct banks. When every task's L and W are 16-byte aligned
// with even leading dimensions (the contribution updates of aligned fronts), the stage copies move two rows per
// cp.async (16 bytes, through L2 only): the same sums, 1-1.5 points of DGEMM faster in the factorization
// (bench/NOTES.md).
template <int SHAPE>
void launch_shape(const UpdateTask* tasks, int ntasks, long long ntiles, int bm, bool aligned16, cudaStream_t s) {
  if (bm == 128) {
    if (aligned16) launch_mma<128, 2, 4, SHAPE, 4, 16, 3, 1, true>(tasks, ntasks, ntiles, s);
    else launch_mma<128, 2, 4, SHAPE, 4, 16, 3, 1, false>(tasks, ntasks, ntiles, s);
  } else {
    if (aligned16) launch_mma<64, 2, 2, SHAPE, 4, 16, 3, 4, true>(tasks, ntasks, ntiles, s);
    else launch_mma<64, 2, 2, SHAPE, 4, 16, 3, 4, false>(tasks, ntasks, ntiles, s);
  }
}

}  // namespace

long long update_mma_tiles(int nrow, int ncol, int bm, bool full) {
  if (nrow <= 0 || ncol <= 0) return 0;
  const long long nti = (nrow + bm - 1) / bm, ntj = (ncol + bm - 1) / bm;
  if (full) return nti * ntj;
  long long n = 0;
  for (long long tj = 0; tj < ntj; ++tj) n += nti - tj;
  return n;
}

void launch_update_mma(const UpdateTask* tasks, int ntasks, long long ntiles, int bm, cudaStream_t s, bool aligned16) {
  if (ntasks == 0 || ntiles == 0) return;
  switch (mma_shape) {
    case 1: launch_shape<1>(tasks, ntasks, ntiles, bm, aligned16, s); break;
    case 2: launch_shape<2>(tasks, ntasks, ntiles, bm, aligned16, s); break;
    case 3: launch_shape<3>(tasks, ntasks, ntiles, bm, aligned16, s); break;
    default: launch_shape<0>(tasks, ntasks, ntiles, bm, aligned16, s);
  }
}

bool update_mma_aligned16(const UpdateTask* tasks, int ntasks) {
  for (int i = 0; i < ntasks; ++i) {
    const UpdateTask& t = tasks[i];
    if (reinterpret_cast<std::uintptr_t>(t.l) % 16 != 0 || reinterpret_cast<std::uintptr_t>(t.w) % 16 != 0 ||
        t.ldl % 2 != 0 || t.ldw % 2 != 0)
      return false;
  }
  return true;
}

void set_update_mma_shape(int shape) { mma_shape = std::clamp(shape, 0, 3); }
int update_mma_shape() { return mma_shape; }

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
