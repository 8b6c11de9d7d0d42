// assemble_kernels.cu — GPU assembly of a level's fronts: variable lists, entries of A, children's
// contribution blocks (one launch per child rank, so each parent receives its children in child_list order,
// exactly like the CPU path, with no atomics, read in place from the children's fronts), and the copy-out
// of L and D; and the check that the uploaded values are finite.
#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/front_kernels.cuh"
#include "cuda/segment_walk.cuh"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

__device__ __forceinline__ int front_row(int local, int ncol, int ndelay) { return local < ncol ? local : local + ndelay; }

// grid: one block per front. vars[t] = original variable of front row t (delayed rows are filled by the
// child assembly).
__global__ void init_fronts_kernel(const FrontDesc* fronts, int* vars, const int* perm, const int* sptr,
                                   const long long* rptr, const int* rlist) {
  const FrontDesc f = fronts[blockIdx.x];
  int* v = vars + f.var_off;
  const int nrow = f.m - f.ndelay;
  for (int t = threadIdx.x; t < nrow; t += blockDim.x) {
    if (t < f.ncol) v[t] = perm[sptr[f.node] + t];
    else v[t + f.ndelay] = perm[rlist[rptr[f.node] + t]];
  }
}

// grid: one block per front; one thread per unique target, summing its entries in src order (the CPU
// adds the same values in the same order to a zero front).
__global__ void assemble_a_kernel(const FrontDesc* fronts, double* fbuf, const long long* tptr,
                                  const ATarget* targets, const long long* srcs, const double* val,
                                  const double* scale) {
  const FrontDesc f = fronts[blockIdx.x];
  double* F = fbuf + f.off;
  for (long long t = tptr[f.node] + threadIdx.x; t < tptr[f.node + 1]; t += blockDim.x) {
    const ATarget a = targets[t];
    double acc = 0.0;
    for (int e = a.src_begin; e < a.src_end; ++e) {
      double v = val[srcs[e]];
      if (scale) v *= scale[a.orig_row] * scale[a.orig_col];
      acc += v;
    }
    const int r = front_row(a.lrow, f.ncol, f.ndelay);
    F[r + static_cast<long long>(a.lcol) * f.ld] = acc;
  }
}

// grid: (fronts, spread). Clears what the factorization of a front reads before writing: the fully summed
// columns entirely (ld * p contiguous entries), and column j >= p from row cb_zero_row(p, j) down (the
// contribution block's lower triangle and the upper parts of the DGEMM blocks' diagonal squares). A warp
// per column, lanes down the column.
__global__ void zero_fronts_kernel(const FrontDesc* fronts, double* fbuf) {
  const FrontDesc f = fronts[blockIdx.x];
  double* F = fbuf + f.off;
  const long long m = f.m, ld = f.ld, fs = ld * f.p;
  const int lane = threadIdx.x & 31;
  for (long long e = static_cast<long long>(blockIdx.y) * blockDim.x + threadIdx.x; e < fs;
       e += static_cast<long long>(gridDim.y) * blockDim.x)
    F[e] = 0.0;
  for (long long j = f.p + first_warp(); j < m; j += warp_stride())
    for (long long i = cb_zero_row(f.p, j) + lane; i < m; i += 32) F[i + j * ld] = 0.0;
}

// grid: one block per child task of this rank. Each parent appears at most once per launch. The child's
// contribution block is read where its factorization left it, in the previous level's front buffer or, for a
// child of the small-front kernel, in that kernel's pool.
__global__ void assemble_children_kernel(const ChildTask* tasks, const FrontDesc* fronts, double* fbuf, int* vars,
                                         const double* prev_fronts, const double* pool, const int* cmap,
                                         const int* rows_store) {
  const ChildTask t = tasks[blockIdx.x];
  const FrontDesc f = fronts[t.parent];
  double* F = fbuf + f.off;
  const double* C = (t.cb_in_pool ? pool : prev_fronts) + t.cb_off;
  if (blockIdx.y == 0)
    for (int i = threadIdx.x; i < t.nd; i += blockDim.x)
      vars[f.var_off + t.delay_pos + i] = rows_store[t.child_vars + t.child_nelim + i];
  // columns are spread over the blocks of grid dimension y, and over the warps of a block
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  for (int j = blockIdx.y * nwarps + warp; j < t.mc; j += gridDim.y * nwarps) {
    const int fj = j < t.nd ? t.delay_pos + j
                            : front_row(cmap[t.cmap_off + t.child_ncol + (j - t.nd)], f.ncol, f.ndelay);
    for (int i = j + lane; i < t.mc; i += 32) {
      const int fi = i < t.nd ? t.delay_pos + i
                              : front_row(cmap[t.cmap_off + t.child_ncol + (i - t.nd)], f.ncol, f.ndelay);
      const double v = C[i + static_cast<long long>(j) * t.cb_ld];
      if (fi >= fj) F[fi + static_cast<long long>(fj) * f.ld] += v;
      else F[fj + static_cast<long long>(fi) * f.ld] += v;
    }
  }
}

// grid: (fronts, spread). Copies L (strict upper triangle zeroed), the variable list and D out of the front
// (the contribution block stays in the front until the parent level has assembled it).
__global__ void copy_out_kernel(const CopyOutTask* tasks, const FrontDesc* fronts, const double* fbuf, const int* vars,
                                const double* dbuf, double* lstore, int* rows_store, double* dstore) {
  const CopyOutTask t = tasks[blockIdx.x];
  const FrontDesc f = fronts[t.front];
  const double* F = fbuf + f.off;
  const long long m = f.m;
  for_column_segments(t.nelim, m, [&](long long j, long long i) {
    lstore[t.l_off + i + j * m] = i < j ? 0.0 : F[i + j * f.ld];
  });
  if (blockIdx.y == 0) {
    for (int i = threadIdx.x; i < f.m; i += blockDim.x) rows_store[t.rows_off + i] = vars[f.var_off + i];
    for (int i = threadIdx.x; i < 2 * t.nelim; i += blockDim.x) dstore[t.dstore_off + i] = dbuf[f.d_off + i];
  }
}

/// Sets *flag to 1 if some val[k] is NaN or Inf (several threads may store the same 1).
__global__ void count_nonfinite_kernel(const double* val, long long n, int* flag) {
  bool bad = false;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<long long>(gridDim.x) * blockDim.x)
    bad |= !isfinite(val[k]);
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

}  // namespace

void launch_count_nonfinite(const double* val, long long n, int* flag, cudaStream_t s) {
  if (n <= 0) return;
  const long long blocks = std::min<long long>((n + 255) / 256, 4096);
  count_nonfinite_kernel<<<static_cast<int>(blocks), 256, 0, s>>>(val, n, flag);
  check_launch("count_nonfinite_kernel");
}

void launch_zero_fronts(const FrontDesc* fronts, int nfronts, int spread, double* fbuf, cudaStream_t s) {
  if (nfronts == 0) return;
  zero_fronts_kernel<<<dim3(nfronts, spread), 256, 0, s>>>(fronts, fbuf);
  check_launch("zero_fronts_kernel");
}

void launch_init_fronts(const FrontDesc* fronts, int nfronts, double*, int* vars, const int* perm, const int* sptr,
                        const long long* rptr, const int* rlist, cudaStream_t s) {
  if (nfronts == 0) return;
  init_fronts_kernel<<<nfronts, 128, 0, s>>>(fronts, vars, perm, sptr, rptr, rlist);
  check_launch("init_fronts_kernel");
}

void launch_assemble_a(const FrontDesc* fronts, int nfronts, double* fbuf, const long long* tptr,
                       const ATarget* targets, const long long* srcs, const double* val, const double* scale,
                       cudaStream_t s) {
  if (nfronts == 0) return;
  assemble_a_kernel<<<nfronts, 256, 0, s>>>(fronts, fbuf, tptr, targets, srcs, val, scale);
  check_launch("assemble_a_kernel");
}

void launch_assemble_children(const ChildTask* tasks, int ntasks, int spread, const FrontDesc* fronts, double* fbuf,
                              int* vars, const double* prev_fronts, const double* pool, const int* cmap,
                              const int* rows_store, cudaStream_t s) {
  if (ntasks == 0) return;
  assemble_children_kernel<<<dim3(ntasks, spread), 256, 0, s>>>(tasks, fronts, fbuf, vars, prev_fronts, pool, cmap,
                                                                rows_store);
  check_launch("assemble_children_kernel");
}

void launch_copy_out(const CopyOutTask* tasks, int ntasks, int spread, const FrontDesc* fronts, const double* fbuf,
                     const int* vars, const double* dbuf, double* lstore, int* rows_store, double* dstore, cudaStream_t s) {
  if (ntasks == 0) return;
  copy_out_kernel<<<dim3(ntasks, spread), 256, 0, s>>>(tasks, fronts, fbuf, vars, dbuf, lstore, rows_store, dstore);
  check_launch("copy_out_kernel");
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
