// tridiag_kernels.cu — ssids::tridiag on the GPU: the partitioned cyclic reduction (one thread block of
// bsz/2 threads per block of bsz rows, the block's equations in shared memory; the coefficient reduction is
// made once by factor and reused by every solve) and the splitting iteration for quasi-tridiagonal systems
// (SpMV of S and the vector operations on the device; only beta and ||x|| come back each iteration).
// The arithmetic of a block is src/tridiag/pcr_core.hpp, which the CPU twin runs too: bitwise agreement.
// Deterministic: no floating-point atomics (the only atomic is an integer atomicMin of a tiny pivot's row).
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/tridiag_kernels.cuh"
#include "factor/factor_gpu.hpp"
#include "ssids/error.hpp"
#include "tridiag/chunk_core.hpp"
#include "tridiag/pcr_core.hpp"
#include "tridiag/tridiag_internal.hpp"

namespace ssids {
namespace detail {

namespace pcr_gpu {

constexpr int kReduceThreads = 256;

__device__ __forceinline__ double nan_max(double m, double r) { return (r <= m) ? m : r; }  // NaN in r wins

__device__ void block_max(double* sh, double v) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      const double o = sh[threadIdx.x + s], m = sh[threadIdx.x];
      sh[threadIdx.x] = (m != m) ? m : nan_max(m, o);
    }
    __syncthreads();
  }
}

__global__ void norm_partial_kernel(long long n, const double* dl, const double* d, const double* du, double* out) {
  __shared__ double sh[kReduceThreads];
  double m = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double l = i > 0 ? fabs(dl[i]) : 0.0, u = i + 1 < n ? fabs(du[i]) : 0.0;
    const double r = (l + fabs(d[i])) + u;
    if (m == m) m = nan_max(m, r);
  }
  block_max(sh, m);
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
}

__global__ void max_final_kernel(int n, const double* in, int two, double* out) {
  __shared__ double sh[kReduceThreads];
  for (int part = 0; part < (two ? 2 : 1); ++part) {
    double m = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      if (m == m) m = nan_max(m, in[part * n + i]);
    block_max(sh, m);
    if (threadIdx.x == 0) out[part] = sh[0];
    __syncthreads();
  }
}

__global__ void factor_level_kernel(long long nl, int bsz, double* a, double* b, double* c, double* tr, double* tl,
                                    double* v, double* w, double* na, double* nb, double* nc, double thr,
                                    unsigned long long* bad) {
  extern __shared__ double sh[];
  const long long j = blockIdx.x;
  const pcr::Block blk = pcr::block_of(nl, bsz, j);
  const int m = blk.m, tid = threadIdx.x, nth = blockDim.x;
  const long long base = blk.s + 1;
  double *sa = sh, *sb = sa + bsz, *sc = sb + bsz, *str = sc + bsz, *stl = str + bsz, *sv = stl + bsz,
         *sw = sv + bsz;
  for (int t = tid; t < m; t += nth) {
    sa[t] = a[base + t];
    sb[t] = b[base + t];
    sc[t] = c[base + t];
    str[t] = 0.0;
    stl[t] = 0.0;
    sv[t] = 0.0;
    sw[t] = 0.0;
  }
  __syncthreads();
  if (tid == 0 && m > 0) {
    const double f0 = sa[0], gl = sc[m - 1];
    sa[0] = 0.0;
    sc[m - 1] = 0.0;
    sv[0] = f0;
    sw[m - 1] = gl;
  }
  __syncthreads();
  pcr::reduce_coefficients(m, sa, sb, sc, str, stl, tid, nth, pcr::BlockSync{});
  __syncthreads();
  for (int t = tid; t < m; t += nth)
    if (!pcr::pivot_ok(sb[t], thr)) atomicMin(bad, static_cast<unsigned long long>(base + t));
  pcr::reduce_rhs(m, sv, str, stl, tid, nth, pcr::BlockSync{});
  pcr::back_substitute(m, sv, sa, sb, sc, tid, nth, pcr::BlockSync{});
  pcr::reduce_rhs(m, sw, str, stl, tid, nth, pcr::BlockSync{});
  pcr::back_substitute(m, sw, sa, sb, sc, tid, nth, pcr::BlockSync{});
  __syncthreads();
  for (int t = tid; t < m; t += nth) {
    a[base + t] = sa[t];
    b[base + t] = sb[t];
    c[base + t] = sc[t];
    tr[base + t] = str[t];
    tl[base + t] = stl[t];
    v[base + t] = sv[t];
    w[base + t] = sw[t];
  }
  if (tid == 0) {
    const long long s = blk.s, e = blk.e;
    const double v0 = m > 0 ? sv[0] : 0.0, vl = m > 0 ? sv[m - 1] : 0.0;
    const double w0 = m > 0 ? sw[0] : 0.0, wl = m > 0 ? sw[m - 1] : 0.0;
    pcr::interface_rows(blk, a[s], b[s], c[s], a[e], b[e], c[e], v0, vl, w0, wl, na + 2 * j, nb + 2 * j, nc + 2 * j);
  }
}

__global__ void tiny_factor_kernel(int r, const double* a, const double* b, const double* c, double thr, double* t,
                                   unsigned long long* bad) {
  const int k = pcr::tiny_factor(r, a, b, c, thr, t);
  if (k >= 0) *bad = static_cast<unsigned long long>(k);
}

__global__ void solve_down_kernel(long long nl, int bsz, const double* a, const double* b, const double* c,
                                  const double* tr, const double* tl, double* d, long long ldd, double* nd,
                                  long long ldnd) {
  extern __shared__ double sd[];
  const long long j = blockIdx.x;
  d += blockIdx.y * ldd;
  nd += blockIdx.y * ldnd;
  const pcr::Block blk = pcr::block_of(nl, bsz, j);
  const int m = blk.m, tid = threadIdx.x, nth = blockDim.x;
  const long long base = blk.s + 1;
  for (int t = tid; t < m; t += nth) sd[t] = d[base + t];
  __syncthreads();
  pcr::reduce_rhs(m, sd, tr + base, tl + base, tid, nth, pcr::BlockSync{});
  pcr::back_substitute(m, sd, a + base, b + base, c + base, tid, nth, pcr::BlockSync{});
  for (int t = tid; t < m; t += nth) d[base + t] = sd[t];
  __syncthreads();
  if (tid == 0) pcr::interface_rhs(blk, a, c, d, nd + 2 * j);
}

__global__ void tiny_solve_kernel(int r, const double* t, double* d, long long ldd, int nrhs) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nrhs) pcr::tiny_solve(r, t, d + k * ldd);
}

__global__ void solve_up_kernel(long long nl, int bsz, const double* v, const double* w, double* d, long long ldd,
                                const double* nx, long long ldnx) {
  d += blockIdx.y * ldd;
  nx += blockIdx.y * ldnx;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nl; i += (long long)gridDim.x * blockDim.x) {
    const long long j = i / bsz;
    const pcr::Block blk = pcr::block_of(nl, bsz, j);
    d[i] = pcr::up_value(blk, i, d, v, w, nx + 2 * j);
  }
}

// ---- one right-hand side, one-shot (tridiag/chunk_core.hpp): one thread per chunk of chunk::kChunk rows -------
// A thread block stages the rows of its kChunkThreads chunks through shared memory (coalesced loads), then each
// thread works on its chunk there. The pivots are tested after the fact: the down passes record per level the
// smallest |pivot| and whether one was NaN, and level 0 the norm of the pivot test; only when that check fails
// does the slow path (chunk_check_kernel) find the first failing row, for the same error as the CPU twin.
constexpr int kChunkThreads = 128;
constexpr int kTileRows = kChunkThreads * chunk::kChunk;

__device__ __forceinline__ double sticky_max(double m, double r) { return (m != m) ? m : ((r <= m) ? m : r); }

__device__ void record_stats(const chunk::PivotStats& st, double nrm, unsigned long long* norm_bits,
                             unsigned long long* minpiv, unsigned long long* nanflag) {
  double mn = st.min_abs;
  int nan = st.nan ? 1 : 0;
  for (int off = 16; off > 0; off /= 2) {
    mn = fmin(mn, __shfl_xor_sync(0xffffffffu, mn, off));
    nrm = sticky_max(nrm, __shfl_xor_sync(0xffffffffu, nrm, off));
  }
  nan = __any_sync(0xffffffffu, nan);
  if ((threadIdx.x & 31) == 0) {
    atomicMin(minpiv, static_cast<unsigned long long>(__double_as_longlong(mn)));
    if (nan) atomicExch(nanflag, 1ULL);
    if (norm_bits) {
      const unsigned long long bits =
          nrm != nrm ? 0x7FF8000000000000ULL : static_cast<unsigned long long>(__double_as_longlong(nrm));
      atomicMax(norm_bits, bits);
    }
  }
}

/// Stages rows r0 .. r1-1 of the four arrays into shared memory (and, for level 0, folds them into nrm).
__device__ void stage(long long nl, long long r0, long long r1, const double* a, const double* b, const double* c,
                      const double* d, double* sa, double* sb, double* sc, double* sd, bool norm, double& nrm) {
  for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) {
    const long long i = r - r0;
    sa[i] = a[r];
    sb[i] = b[r];
    sc[i] = c[r];
    sd[i] = d[r];
    if (norm) {  // tridiag_norm: (|dl| + |d|) + |du|, dl[0] and du[n-1] ignored, NaN sticky
      const double l = r > 0 ? fabs(sa[i]) : 0.0, u = r + 1 < nl ? fabs(sc[i]) : 0.0;
      nrm = sticky_max(nrm, (l + fabs(sb[i])) + u);
    }
  }
}

__global__ void __launch_bounds__(kChunkThreads) chunk_down_kernel(long long nl, const double* a, const double* b,
                                                                   const double* c, const double* d,
                                                                   unsigned long long* norm_bits,
                                                                   unsigned long long* minpiv,
                                                                   unsigned long long* nanflag, double* na,
                                                                   double* nb, double* nc, double* nd) {
  __shared__ double sa[kTileRows], sb[kTileRows], sc[kTileRows], sd[kTileRows];
  const long long q = (nl + chunk::kChunk - 1) / chunk::kChunk;
  chunk::PivotStats st;
  double nrm = 0.0;
  for (long long j0 = blockIdx.x * (long long)kChunkThreads; j0 < q; j0 += (long long)gridDim.x * kChunkThreads) {
    const long long r0 = j0 * chunk::kChunk, r1 = r0 + kTileRows < nl ? r0 + kTileRows : nl;
    stage(nl, r0, r1, a, b, c, d, sa, sb, sc, sd, norm_bits != nullptr, nrm);
    __syncthreads();
    const long long j = j0 + threadIdx.x;
    if (j < q) chunk::down(nl, j, sa, sb, sc, sd, r0, 0.0, na, nb, nc, nd, &st);
    __syncthreads();
  }
  record_stats(st, nrm, norm_bits, minpiv, nanflag);
}

/// Slow path: the first row whose pivot fails the test against thr (rewrites the same reduced rows).
__global__ void chunk_check_kernel(long long nl, const double* a, const double* b, const double* c, const double* d,
                                   double thr, unsigned long long* bad, double* na, double* nb, double* nc,
                                   double* nd) {
  const long long q = (nl + chunk::kChunk - 1) / chunk::kChunk;
  for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < q; j += (long long)gridDim.x * blockDim.x) {
    const long long r = chunk::down(nl, j, a, b, c, d, 0, thr, na, nb, nc, nd, nullptr);
    if (r >= 0) atomicMin(bad, static_cast<unsigned long long>(r));
  }
}

__global__ void __launch_bounds__(kChunkThreads) chunk_up_kernel(long long nl, const double* a, const double* b,
                                                                 const double* c, double* d, const double* nx) {
  __shared__ double sa[kTileRows], sb[kTileRows], sc[kTileRows], sd[kTileRows];
  const long long q = (nl + chunk::kChunk - 1) / chunk::kChunk;
  double unused = 0.0;
  for (long long j0 = blockIdx.x * (long long)kChunkThreads; j0 < q; j0 += (long long)gridDim.x * kChunkThreads) {
    const long long r0 = j0 * chunk::kChunk, r1 = r0 + kTileRows < nl ? r0 + kTileRows : nl;
    stage(nl, r0, r1, a, b, c, d, sa, sb, sc, sd, false, unused);
    __syncthreads();
    const long long j = j0 + threadIdx.x;
    if (j < q) chunk::up(nl, j, sa, sb, sc, sd, r0, nx);
    __syncthreads();
    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) d[r] = sd[r - r0];
    __syncthreads();
  }
}

/// The small levels (at most kTailRows rows each) and the final system, in one thread block: one launch down
/// and one up instead of two per level. Entry i of the plan is level first + i; entry `levels` is the final
/// system (1 or 2 rows).
constexpr int kTailThreads = 1024;
constexpr long long kTailRows = static_cast<long long>(kTailThreads) * chunk::kChunk;
struct TailPlan {
  int levels = 0, first = 0, tiny_r = 0;
  long long nl[24] = {};
  double* a[25] = {};
  double* b[25] = {};
  double* c[25] = {};
  double* d[25] = {};
};

__global__ void __launch_bounds__(kTailThreads) chunk_tail_down_kernel(TailPlan P, unsigned long long* norm_bits,
                                                                       unsigned long long* minpiv,
                                                                       unsigned long long* nanflag) {
  for (int i = 0; i < P.levels; ++i) {
    const long long nl = P.nl[i], q = (nl + chunk::kChunk - 1) / chunk::kChunk;
    const int lev = P.first + i;
    chunk::PivotStats st;
    double nrm = 0.0;
    if (lev == 0)
      for (long long r = threadIdx.x; r < nl; r += blockDim.x) {
        const double l = r > 0 ? fabs(P.a[i][r]) : 0.0, u = r + 1 < nl ? fabs(P.c[i][r]) : 0.0;
        nrm = sticky_max(nrm, (l + fabs(P.b[i][r])) + u);
      }
    for (long long j = threadIdx.x; j < q; j += blockDim.x)
      chunk::down(nl, j, P.a[i], P.b[i], P.c[i], P.d[i], 0, 0.0, P.a[i + 1], P.b[i + 1], P.c[i + 1], P.d[i + 1], &st);
    record_stats(st, nrm, lev == 0 ? norm_bits : nullptr, minpiv + lev, nanflag + lev);
    __syncthreads();  // the next level reads what this one wrote
  }
}

__global__ void __launch_bounds__(kTailThreads) chunk_tail_up_kernel(TailPlan P, const double* t) {
  if (threadIdx.x == 0) pcr::tiny_solve(P.tiny_r, t, P.d[P.levels]);
  __syncthreads();
  for (int i = P.levels - 1; i >= 0; --i) {
    const long long nl = P.nl[i], q = (nl + chunk::kChunk - 1) / chunk::kChunk;
    for (long long j = threadIdx.x; j < q; j += blockDim.x)
      chunk::up(nl, j, P.a[i], P.b[i], P.c[i], P.d[i], 0, P.d[i + 1]);
    __syncthreads();
  }
}

/// norm 0, per level smallest |pivot| +inf and no NaN, slow-path rows "none".
__global__ void chunk_init_stats_kernel(unsigned long long* stats, int nlev) {
  for (int i = threadIdx.x; i < 1 + 3 * nlev + 1; i += blockDim.x) {
    unsigned long long v = 0;
    if (i >= 1 && i < 1 + nlev) v = 0x7FF0000000000000ULL;  // +inf
    else if (i >= 1 + 2 * nlev) v = ~0ULL;
    stats[i] = v;
  }
}

__global__ void residual_kernel(long long n, const offset_t* ptr, const index_t* col, const double* val,
                                const double* b, const double* x, double* r) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double s = b[i];
    for (offset_t p = ptr[i]; p < ptr[i + 1]; ++p) s = pcr::sub(s, pcr::mul(val[p], x[col[p]]));
    r[i] = s;
  }
}

__global__ void step_norm_partial_kernel(long long n, const double* xn, const double* xo, double* out) {
  __shared__ double sh[kReduceThreads];
  double beta = 0.0, xm = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    if (beta == beta) beta = nan_max(beta, fabs(pcr::sub(xn[i], xo[i])));
    if (xm == xm) xm = nan_max(xm, fabs(xn[i]));
  }
  block_max(sh, beta);
  if (threadIdx.x == 0) out[blockIdx.x] = sh[0];
  __syncthreads();
  block_max(sh, xm);
  if (threadIdx.x == 0) out[gridDim.x + blockIdx.x] = sh[0];
}

}  // namespace pcr_gpu

// ---------------------------------------------------------------------------------------------------------

struct PcrDevice {
  index_t n = 0;
  int bsz = 0;
  std::vector<long long> sizes;   // order of each level
  std::vector<std::size_t> off;   // offset of each level's 7 arrays in store (a, b, c, tr, tl, v, w)
  int tiny_r = 0;
  std::size_t tiny_off = 0;       // 4 doubles
  DeviceBuffer<double> store;
  const double* arr(std::size_t lev, int which) const { return store.get() + off[lev] + which * sizes[lev]; }
  double* arr(std::size_t lev, int which) { return store.get() + off[lev] + which * sizes[lev]; }
};

namespace {

using namespace pcr_gpu;

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

int grid_for(long long n, int threads, int cap = 4096) {
  long long g = (n + threads - 1) / threads;
  return static_cast<int>(std::max(1LL, std::min<long long>(g, cap)));
}

/// Stream-ordered scratch that is freed (stream-ordered) on every exit path.
struct AsyncScratch {
  double* p = nullptr;
  cudaStream_t s;
  AsyncScratch(std::size_t count, cudaStream_t st, const char* what) : s(st) {
    device_malloc_async(reinterpret_cast<void**>(&p), count * sizeof(double), st, what);
  }
  ~AsyncScratch() { device_free_async(p, s); }
  AsyncScratch(const AsyncScratch&) = delete;
  AsyncScratch& operator=(const AsyncScratch&) = delete;
};

void device_solve(const PcrDevice& f, int nrhs, double* b, long long ldb, cudaStream_t st) {
  const std::size_t nlev = f.sizes.size();
  // scratch: the reduced right-hand sides of levels 1.. and of the final system, nrhs columns each
  std::vector<std::size_t> woff(nlev + 1, 0);
  std::size_t total = 0;
  for (std::size_t lev = 1; lev <= nlev; ++lev) {
    woff[lev] = total;
    const long long nr = lev < nlev ? f.sizes[lev] : f.tiny_r;
    total += static_cast<std::size_t>(nr) * nrhs;
  }
  AsyncScratch work(total, st, "tridiag solve workspace");
  auto level_d = [&](std::size_t lev) { return lev == 0 ? b : work.p + woff[lev]; };
  auto level_ld = [&](std::size_t lev) -> long long {
    return lev == 0 ? ldb : (lev < nlev ? f.sizes[lev] : f.tiny_r);
  };
  const int threads = f.bsz / 2;
  for (int c0 = 0; c0 < nrhs; c0 += 65535) {
    const int nc = std::min(65535, nrhs - c0);
    for (std::size_t lev = 0; lev < nlev; ++lev) {
      const long long nl = f.sizes[lev];
      const unsigned q = static_cast<unsigned>((nl + f.bsz - 1) / f.bsz);
      solve_down_kernel<<<dim3(q, nc), threads, f.bsz * sizeof(double), st>>>(
          nl, f.bsz, f.arr(lev, 0), f.arr(lev, 1), f.arr(lev, 2), f.arr(lev, 3), f.arr(lev, 4),
          level_d(lev) + c0 * level_ld(lev), level_ld(lev), level_d(lev + 1) + c0 * level_ld(lev + 1),
          level_ld(lev + 1));
      check_launch("tridiag solve_down_kernel");
    }
    tiny_solve_kernel<<<(nc + 127) / 128, 128, 0, st>>>(f.tiny_r, f.store.get() + f.tiny_off,
                                                        level_d(nlev) + c0 * level_ld(nlev), level_ld(nlev), nc);
    check_launch("tridiag tiny_solve_kernel");
    for (std::size_t lev = nlev; lev-- > 0;) {
      const long long nl = f.sizes[lev];
      solve_up_kernel<<<dim3(grid_for(nl, 256), nc), 256, 0, st>>>(
          nl, f.bsz, f.arr(lev, 5), f.arr(lev, 6), level_d(lev) + c0 * level_ld(lev), level_ld(lev),
          level_d(lev + 1) + c0 * level_ld(lev + 1), level_ld(lev + 1));
      check_launch("tridiag solve_up_kernel");
    }
  }
}

}  // namespace

std::shared_ptr<PcrDevice> pcr_gpu_factor(index_t n, const double* dl, const double* d, const double* du,
                                          bool on_device, void* stream, const tridiag::Options& options) {
  std::string why;
  if (!gpu_available(&why)) throw Error(flag::no_cuda, why);
  const cudaStream_t st = as_stream(stream);
  auto f = std::make_shared<PcrDevice>();
  f->n = n;
  f->bsz = options.block_rows;
  f->sizes = pcr_level_sizes(n, f->bsz);
  const std::size_t nlev = f->sizes.size();
  f->tiny_r = static_cast<int>(pcr::reduced_size(f->sizes.back(), f->bsz));
  std::size_t total = 0;
  for (long long s : f->sizes) {
    f->off.push_back(total);
    total += 7 * static_cast<std::size_t>(s);
  }
  // the final system's coefficients (3 * tiny_r) and its factors (4)
  const std::size_t fin_off = total;
  total += 3 * 2;
  f->tiny_off = total;
  total += 4;
  f->store.reserve_discard(total);
  check_cuda(cudaMemsetAsync(f->store.get(), 0, total * sizeof(double), st), "cudaMemsetAsync");

  // level 0 coefficients, with dl[0] = du[n-1] = 0
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(double);
  const cudaMemcpyKind kind = on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  check_cuda(cudaMemcpyAsync(f->arr(0, 0), dl, bytes, kind, st), "cudaMemcpyAsync dl");
  check_cuda(cudaMemcpyAsync(f->arr(0, 1), d, bytes, kind, st), "cudaMemcpyAsync d");
  check_cuda(cudaMemcpyAsync(f->arr(0, 2), du, bytes, kind, st), "cudaMemcpyAsync du");
  check_cuda(cudaMemsetAsync(f->arr(0, 0), 0, sizeof(double), st), "cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(f->arr(0, 2) + (n - 1), 0, sizeof(double), st), "cudaMemsetAsync");

  DeviceBuffer<unsigned long long> bad;
  bad.reserve_discard(nlev + 1);
  check_cuda(cudaMemsetAsync(bad.get(), 0xFF, (nlev + 1) * sizeof(unsigned long long), st), "cudaMemsetAsync");

  // the scale of the tiny-pivot test
  double anorm = 0;
  if (on_device) {
    const int parts = grid_for(n, kReduceThreads, 1024);
    DeviceBuffer<double> tmp;
    tmp.reserve_discard(parts + 1);
    norm_partial_kernel<<<parts, kReduceThreads, 0, st>>>(n, f->arr(0, 0), f->arr(0, 1), f->arr(0, 2), tmp.get());
    check_launch("tridiag norm_partial_kernel");
    max_final_kernel<<<1, kReduceThreads, 0, st>>>(parts, tmp.get(), 0, tmp.get() + parts);
    check_launch("tridiag max_final_kernel");
    check_cuda(cudaMemcpyAsync(&anorm, tmp.get() + parts, sizeof(double), cudaMemcpyDeviceToHost, st),
               "cudaMemcpyAsync D2H");
    check_cuda(cudaStreamSynchronize(st), "cudaStreamSynchronize");
  } else {
    anorm = tridiag_norm(n, dl, d, du);
  }
  const double thr = options.pivot_tolerance * anorm;

  const int threads = f->bsz / 2;
  const std::size_t shmem = 7 * static_cast<std::size_t>(f->bsz) * sizeof(double);
  for (std::size_t lev = 0; lev < nlev; ++lev) {
    const long long nl = f->sizes[lev];
    const unsigned q = static_cast<unsigned>((nl + f->bsz - 1) / f->bsz);
    double* next = lev + 1 < nlev ? f->arr(lev + 1, 0) : f->store.get() + fin_off;
    const long long nr = lev + 1 < nlev ? f->sizes[lev + 1] : f->tiny_r;
    factor_level_kernel<<<q, threads, shmem, st>>>(nl, f->bsz, f->arr(lev, 0), f->arr(lev, 1), f->arr(lev, 2),
                                                   f->arr(lev, 3), f->arr(lev, 4), f->arr(lev, 5), f->arr(lev, 6),
                                                   next, next + nr, next + 2 * nr, thr, bad.get() + lev);
    check_launch("tridiag factor_level_kernel");
  }
  {
    const double* fin = f->store.get() + fin_off;
    const int r = f->tiny_r;
    tiny_factor_kernel<<<1, 1, 0, st>>>(r, fin, fin + r, fin + 2 * r, thr, f->store.get() + f->tiny_off,
                                        bad.get() + nlev);
    check_launch("tridiag tiny_factor_kernel");
  }
  std::vector<unsigned long long> hbad(nlev + 1);
  check_cuda(cudaMemcpyAsync(hbad.data(), bad.get(), (nlev + 1) * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                             st),
             "cudaMemcpyAsync D2H");
  check_cuda(cudaStreamSynchronize(st), "tridiag factor");
  for (std::size_t lev = 0; lev <= nlev; ++lev)
    if (hbad[lev] != ULLONG_MAX)
      throw Error(flag::singular, tiny_pivot_message("solver (partitioned cyclic reduction)", int(lev),
                                                     static_cast<long long>(hbad[lev])));
  return f;
}

void pcr_gpu_solve(const PcrDevice& f, int nrhs, double* b, offset_t ldb, bool on_device, void* stream) {
  const cudaStream_t st = as_stream(stream);
  if (on_device) {
    device_solve(f, nrhs, b, ldb, st);
    return;
  }
  const std::size_t n = static_cast<std::size_t>(f.n);
  DeviceBuffer<double> db;
  db.reserve_discard(n * nrhs);
  check_cuda(cudaMemcpy2DAsync(db.get(), n * sizeof(double), b, ldb * sizeof(double), n * sizeof(double), nrhs,
                               cudaMemcpyHostToDevice, st),
             "cudaMemcpy2DAsync H2D");
  device_solve(f, nrhs, db.get(), static_cast<long long>(n), st);
  check_cuda(cudaMemcpy2DAsync(b, ldb * sizeof(double), db.get(), n * sizeof(double), n * sizeof(double), nrhs,
                               cudaMemcpyDeviceToHost, st),
             "cudaMemcpy2DAsync D2H");
  check_cuda(cudaStreamSynchronize(st), "tridiag solve");
}

void pcr_gpu_solve_once(index_t n, const double* dl, const double* d, const double* du, double* b, void* stream,
                        const tridiag::Options& options) {
  std::string why;
  if (!gpu_available(&why)) throw Error(flag::no_cuda, why);
  const cudaStream_t st = as_stream(stream);
  const int bsz = chunk::kChunk;
  const std::vector<long long> sizes = pcr_level_sizes(n, bsz);
  const std::size_t nlev = sizes.size();
  const int tiny_r = static_cast<int>(pcr::reduced_size(sizes.back(), bsz));
  // scratch: a, b, c, d of levels 1.. and of the final system; the final system's factors (4); statistics
  // (unsigned long long, the size of a double): the norm, per level the smallest |pivot| and a NaN flag, then
  // the rows of the slow path. The final system, its factors and the statistics are contiguous (one copy).
  static_assert(sizeof(unsigned long long) == sizeof(double), "flag slots");
  std::vector<std::size_t> off(nlev + 1, 0);
  std::size_t total = 0;
  for (std::size_t lev = 1; lev <= nlev; ++lev) {
    off[lev] = total;
    total += 4 * static_cast<std::size_t>(lev < nlev ? sizes[lev] : tiny_r);
  }
  const std::size_t tiny_t = total;
  total += 4;
  const std::size_t stat_off = total;
  total += 1 + 3 * nlev + 1;
  AsyncScratch work(total, st, "tridiag one-shot solve workspace");
  unsigned long long* stats = reinterpret_cast<unsigned long long*>(work.p + stat_off);
  unsigned long long* norm_bits = stats;
  unsigned long long* minpiv = stats + 1;
  unsigned long long* nanflag = stats + 1 + nlev;
  unsigned long long* bad = stats + 1 + 2 * nlev;
  chunk_init_stats_kernel<<<1, 256, 0, st>>>(stats, static_cast<int>(nlev));
  check_launch("tridiag chunk_init_stats_kernel");
  auto lev_arr = [&](std::size_t lev, int which) -> double* {
    const long long nl = lev < nlev ? sizes[lev] : tiny_r;
    return work.p + off[lev] + which * nl;
  };
  auto level_in = [&](std::size_t lev, int which) -> double* {
    if (lev == 0) return const_cast<double*>(which == 0 ? dl : which == 1 ? d : which == 2 ? du : b);
    return lev_arr(lev, which);
  };
  auto blocks_for = [&](long long nl) {
    const long long q = (nl + bsz - 1) / bsz;
    return grid_for(q, kChunkThreads, 1 << 20);
  };
  // the levels above kTailRows rows one launch each, the rest (and the final system) in one thread block
  std::size_t first_tail = 0;
  while (first_tail < nlev && sizes[first_tail] > kTailRows) ++first_tail;
  TailPlan plan;
  plan.first = static_cast<int>(first_tail);
  plan.levels = static_cast<int>(nlev - first_tail);
  plan.tiny_r = tiny_r;
  if (plan.levels > 24) throw Error(flag::unknown, "tridiag one-shot: too many small levels");  // cannot happen
  for (std::size_t lev = first_tail; lev <= nlev; ++lev) {
    const std::size_t i = lev - first_tail;
    if (lev < nlev) plan.nl[i] = sizes[lev];
    plan.a[i] = level_in(lev, 0);
    plan.b[i] = level_in(lev, 1);
    plan.c[i] = level_in(lev, 2);
    plan.d[i] = level_in(lev, 3);
  }
  for (std::size_t lev = 0; lev < first_tail; ++lev) {
    chunk_down_kernel<<<blocks_for(sizes[lev]), kChunkThreads, 0, st>>>(
        sizes[lev], level_in(lev, 0), level_in(lev, 1), level_in(lev, 2), level_in(lev, 3),
        lev == 0 ? norm_bits : nullptr, minpiv + lev, nanflag + lev, lev_arr(lev + 1, 0), lev_arr(lev + 1, 1),
        lev_arr(lev + 1, 2), lev_arr(lev + 1, 3));
    check_launch("tridiag chunk_down_kernel");
  }
  chunk_tail_down_kernel<<<1, kTailThreads, 0, st>>>(plan, norm_bits, minpiv, nanflag);
  check_launch("tridiag chunk_tail_down_kernel");
  // one synchronization: the final system and the statistics
  const std::size_t fin_count = 4 * static_cast<std::size_t>(tiny_r) + 4 + 1 + 2 * nlev;
  std::vector<double> fin(fin_count);
  check_cuda(cudaMemcpyAsync(fin.data(), lev_arr(nlev, 0), fin_count * sizeof(double), cudaMemcpyDeviceToHost, st),
             "cudaMemcpyAsync D2H");
  check_cuda(cudaStreamSynchronize(st), "tridiag one-shot solve");
  const double* hstat = fin.data() + 4 * tiny_r + 4;  // norm, minpiv[nlev], nanflag[nlev]
  const double anorm = hstat[0];
  const double thr = options.pivot_tolerance * anorm;
  bool levels_ok = true;
  for (std::size_t lev = 0; lev < nlev; ++lev) {
    unsigned long long nan_bits = 0;
    std::memcpy(&nan_bits, &hstat[1 + nlev + lev], sizeof nan_bits);
    if (nan_bits != 0 || !pcr::pivot_ok(hstat[1 + lev], thr)) levels_ok = false;
  }
  if (!levels_ok) {  // slow path: the first failing row of the first failing level (b is still untouched)
    for (std::size_t lev = 0; lev < nlev; ++lev) {
      const long long q = (sizes[lev] + bsz - 1) / bsz;
      chunk_check_kernel<<<grid_for(q, 256, 1 << 20), 256, 0, st>>>(
          sizes[lev], level_in(lev, 0), level_in(lev, 1), level_in(lev, 2), level_in(lev, 3), thr, bad + lev,
          lev_arr(lev + 1, 0), lev_arr(lev + 1, 1), lev_arr(lev + 1, 2), lev_arr(lev + 1, 3));
      check_launch("tridiag chunk_check_kernel");
    }
    std::vector<unsigned long long> hbad(nlev);
    check_cuda(cudaMemcpyAsync(hbad.data(), bad, nlev * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st),
               "cudaMemcpyAsync D2H");
    check_cuda(cudaStreamSynchronize(st), "tridiag one-shot solve");
    for (std::size_t lev = 0; lev < nlev; ++lev)
      if (hbad[lev] != ULLONG_MAX)
        throw Error(flag::singular, tiny_pivot_message("one-shot solver (chunked)", int(lev),
                                                       static_cast<long long>(hbad[lev])));
    // no interior pivot failed (a NaN scale with no interior pivots): the final system's test reports it
  }
  double t[4];
  const int k = pcr::tiny_factor(tiny_r, fin.data(), fin.data() + tiny_r, fin.data() + 2 * tiny_r, thr, t);
  if (k >= 0)
    throw Error(flag::singular, tiny_pivot_message("one-shot solver (chunked)", static_cast<int>(nlev), k));
  // (a pageable host-to-device copy has read t before it returns)
  check_cuda(cudaMemcpyAsync(work.p + tiny_t, t, sizeof t, cudaMemcpyHostToDevice, st), "cudaMemcpyAsync H2D");
  chunk_tail_up_kernel<<<1, kTailThreads, 0, st>>>(plan, work.p + tiny_t);
  check_launch("tridiag chunk_tail_up_kernel");
  for (std::size_t lev = first_tail; lev-- > 0;) {
    chunk_up_kernel<<<blocks_for(sizes[lev]), kChunkThreads, 0, st>>>(
        sizes[lev], level_in(lev, 0), level_in(lev, 1), level_in(lev, 2), level_in(lev, 3), lev_arr(lev + 1, 3));
    check_launch("tridiag chunk_up_kernel");
  }
}

tridiag::SplittingResult pcr_gpu_splitting(const PcrDevice& f, const CsrMatrix& s, const double* b, double* x,
                                           const tridiag::SplittingOptions& options) {
  const cudaStream_t st = nullptr;
  const long long n = f.n;
  const offset_t nnz = s.nnz();
  DeviceBuffer<offset_t> dptr;
  DeviceBuffer<index_t> dcol;
  DeviceBuffer<double> dval, db, dxa, dxb, dnorm;
  dptr.upload(s.ptr.data(), static_cast<std::size_t>(n + 1), st);
  dcol.reserve_discard(static_cast<std::size_t>(nnz));
  dval.reserve_discard(static_cast<std::size_t>(nnz));
  if (nnz) {
    check_cuda(cudaMemcpyAsync(dcol.get(), s.col.data(), nnz * sizeof(index_t), cudaMemcpyHostToDevice, st), "H2D");
    check_cuda(cudaMemcpyAsync(dval.get(), s.val.data(), nnz * sizeof(double), cudaMemcpyHostToDevice, st), "H2D");
  }
  db.upload(b, static_cast<std::size_t>(n), st);
  dxa.reserve_discard(static_cast<std::size_t>(n));  // x^{m-1}
  dxb.reserve_discard(static_cast<std::size_t>(n));  // right-hand side, then x^m
  check_cuda(cudaMemsetAsync(dxa.get(), 0, n * sizeof(double), st), "cudaMemsetAsync");
  check_cuda(cudaMemcpyAsync(dxb.get(), db.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, st), "D2D");
  const int parts = grid_for(n, kReduceThreads, 1024);
  dnorm.reserve_discard(2 * parts + 2);
  double* xo = dxa.get();
  double* xn = dxb.get();
  tridiag::SplittingResult r;
  double beta_prev = 0;
  int stalls = 0;
  double h[2] = {0, 0};
  for (int m = 1;; ++m) {
    device_solve(f, 1, xn, n, st);  // xn = x^m
    step_norm_partial_kernel<<<parts, kReduceThreads, 0, st>>>(n, xn, xo, dnorm.get());
    check_launch("tridiag step_norm_partial_kernel");
    max_final_kernel<<<1, kReduceThreads, 0, st>>>(parts, dnorm.get(), 1, dnorm.get() + 2 * parts);
    check_launch("tridiag max_final_kernel");
    check_cuda(cudaMemcpyAsync(h, dnorm.get() + 2 * parts, 2 * sizeof(double), cudaMemcpyDeviceToHost, st), "D2H");
    check_cuda(cudaStreamSynchronize(st), "tridiag splitting iteration");
    std::swap(xo, xn);  // xo = x^m
    if (splitting_step_done(h[0], h[1], m, beta_prev, stalls, options, r)) break;
    residual_kernel<<<grid_for(n, 256), 256, 0, st>>>(n, dptr.get(), dcol.get(), dval.get(), db.get(), xo, xn);
    check_launch("tridiag residual_kernel");
  }
  check_cuda(cudaMemcpyAsync(x, xo, n * sizeof(double), cudaMemcpyDeviceToHost, st), "D2H");
  check_cuda(cudaStreamSynchronize(st), "tridiag splitting iteration");
  return r;
}

}  // namespace detail
}  // namespace ssids
