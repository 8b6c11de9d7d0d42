// sap_kernels.cu — the SaP kernels on the GPU (Li, Serban, Negrut 2015 §3): every partition (or interface)
// is one thread block, all of them in one launch. The arithmetic of each kernel follows its CPU reference in
// src/sap/band.cpp and src/sap/spike.cpp step for step (same pivots, same boosting, same elimination order);
// results differ from the CPU only by fused multiply-adds. No floating-point atomics: every run gives the
// same bits.
//
// Band storage (band.hpp): a(i, j) at k + i - j + j (2k+1). A "reversed" partition reads its storage
// backwards (x -> size - 1 - x), which turns a(i, j) into a(n-1-i, n-1-j): LU of the reversed block is the
// UL factorization of the block (band_ul), used for the SaP-C spike tops W^(t).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "cuda/cuda_check.hpp"
#include "cuda/sap_kernels.cuh"
#include "sap/banded_hash.hpp"

namespace ssids {
namespace sap {
namespace detail {
namespace gpu {

using ssids::detail::check_cuda;
using ssids::detail::check_launch;

namespace {

__device__ __forceinline__ long long band_index(index_t k, index_t i, index_t j) {
  return static_cast<long long>(k) + i - j + static_cast<long long>(j) * (2LL * k + 1);
}

/// One partition's band storage, optionally reversed.
template <class T>
struct BandView {
  T* a;
  index_t k;
  long long last;  // size - 1
  bool rev;
  __device__ T& operator()(index_t i, index_t j) const {
    const long long x = band_index(k, i, j);
    return a[rev ? last - x : x];
  }
};

template <class T>
__device__ __forceinline__ T tabs(T v) {
  return v < T(0) ? -v : v;
}

/// Half-bandwidths from which the panel-blocked LU is used (narrower windows stay in L1 anyway).
constexpr index_t kBlockedMinK = 48;
/// ... and from which few partitions (fewer than SMs) share each panel's trailing update among several blocks.
constexpr index_t kMultiBlockMinK = 128;

int threads_for_window(index_t k) {
  if (k <= 16) return 128;
  if (k <= 64) return 256;
  if (k <= 128) return 512;
  return 1024;
}

int round_warp(long long v, int lo, int hi) {
  long long t = (v + 31) / 32 * 32;
  if (t < lo) t = lo;
  if (t > hi) t = hi;
  return static_cast<int>(t);
}

int pow2_at_least(long long v) {
  int w = 1;
  while (w < v) w *= 2;
  return w;
}

// ------------------------------------------------------------------------------------------------ assembly

template <class T>
__global__ void assemble_csr_kernel(index_t n, const offset_t* ptr, const index_t* col, const double* val,
                                    const long long* slot, const double* rs, const double* cs, T* vals) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double ri = rs ? rs[i] : 1.0;
  for (offset_t e = ptr[i]; e < ptr[i + 1]; ++e) {
    const long long s = slot[e];
    if (s < 0) continue;
    vals[s] = static_cast<T>(val[e] * ri * (cs ? cs[col[e]] : 1.0));
  }
}

/// Partition bands: thread per (slot, column) of the global band; rows outside the column's block are zero.
template <class T>
__global__ void assemble_band_kernel(Parts P, index_t n, index_t k, const double* band, T* vals) {
  const long long ld = 2LL * k + 1;
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= ld * n) return;
  const index_t j = static_cast<index_t>(e / ld), s = static_cast<index_t>(e % ld);
  // block of column j: binary search over begin
  int lo = 0, hi = P.p - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (P.begin[mid] <= j) lo = mid;
    else hi = mid - 1;
  }
  const index_t b0 = P.begin[lo], nb = P.begin[lo + 1] - b0;
  const index_t i = j - k + s;  // global row
  const bool inside = i >= b0 && i < b0 + nb;
  vals[P.offset[lo] + s + static_cast<long long>(j - b0) * ld] = inside ? static_cast<T>(band[e]) : T(0);
}

/// Coupling blocks B_i, C_i of every interface from the dense band.
template <class T>
__global__ void assemble_coupling_kernel(Parts P, index_t k, const double* band, T* vals) {
  const int i = blockIdx.y;  // interface
  const index_t m = P.m;
  const long long mm = static_cast<long long>(m) * m;
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= mm) return;
  const index_t r = static_cast<index_t>(e % m), c = static_cast<index_t>(e / m);
  const index_t bnext = P.begin[i + 1];
  const long long ld = 2LL * k + 1;
  T* B = vals + P.coupling + 2 * mm * i;
  T* C = B + mm;
  {  // B(r, c) = A(bnext - m + r, bnext + c)
    const index_t gi = bnext - m + r, gj = bnext + c;
    const index_t d = gi > gj ? gi - gj : gj - gi;
    B[e] = d <= k ? static_cast<T>(band[k + gi - gj + gj * ld]) : T(0);
  }
  {  // C(r, c) = A(bnext + r, bnext - m + c)
    const index_t gi = bnext + r, gj = bnext - m + c;
    const index_t d = gi > gj ? gi - gj : gj - gi;
    C[e] = d <= k ? static_cast<T>(band[k + gi - gj + gj * ld]) : T(0);
  }
}

// ------------------------------------------------------------------------------------------------ factor

template <class T>
__global__ void band_max_kernel(Parts P, const T* vals, double* out) {
  __shared__ double sh[256];
  const int b = blockIdx.x;
  const long long lo = P.offset[b], hi = P.offset[b + 1];
  double m = 0.0;
  for (long long x = lo + threadIdx.x; x < hi; x += blockDim.x) {
    const double v = fabs(static_cast<double>(vals[x]));
    m = v > m ? v : m;  // NaN-free: inputs are checked finite
  }
  sh[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) sh[threadIdx.x] = fmax(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[b] = sh[0];
}

/// Right-looking banded LU without pivoting (band_lu): step c boosts and inverts the pivot, scales column c
/// of L, then applies the rank-1 update to the len x len window below and right of the pivot. The window is
/// covered by warps per column (coalesced rows) when it is wide, by a flat thread index when it is narrow.
template <class T>
__global__ void __launch_bounds__(1024) band_lu_kernel(Parts P, T* vals, const double* maxabs, double eps, int rev, int first, int* boosted) {
  const int b = first + blockIdx.x;
  const index_t n = P.begin[b + 1] - P.begin[b], k = P.kb[b];
  const long long size = static_cast<long long>(n) * (2LL * k + 1);
  const BandView<T> A{vals + P.offset[b], k, size - 1, rev != 0};
  const double mx = maxabs[b];
  const T boost = static_cast<T>(eps * (mx > 0 ? mx : 1.0));
  __shared__ T s_inv;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nw = blockDim.x >> 5;
  int count = 0;
  for (index_t c = 0; c < n; ++c) {
    const index_t len = min(n - 1, c + k) - c;
    if (tid == 0) {
      T& d = A(c, c);
      T p = d;
      if (!(tabs(p) >= boost)) {
        ++count;
        p = p < T(0) ? -boost : boost;
      }
      d = p;
      s_inv = T(1) / p;
    }
    __syncthreads();
    const T inv = s_inv;
    for (index_t t = tid + 1; t <= len; t += blockDim.x) A(c + t, c) *= inv;
    __syncthreads();
    if (len >= 32) {
      for (index_t tj = warp; tj < len; tj += nw) {
        const index_t j = c + 1 + tj;
        const T u = A(c, j);
        if (u == T(0)) continue;
        for (index_t ti = lane; ti < len; ti += 32) {
          const index_t i = c + 1 + ti;
          A(i, j) -= A(i, c) * u;
        }
      }
    } else {
      const int total = static_cast<int>(len * len);
      for (int e = tid; e < total; e += blockDim.x) {
        const index_t i = c + 1 + e % len, j = c + 1 + e / len;
        const T u = A(c, j);
        if (u != T(0)) A(i, j) -= A(i, c) * u;
      }
    }
    __syncthreads();
  }
  if (tid == 0 && count) atomicAdd(boosted, count);
}

/// The same factorization in panels of kPanel columns (for wide bands): the panel's columns are factored
/// step by step as above but only within the panel; the panel's U rows are finished column by column; then the
/// k x k trailing window takes all kPanel rank-1 updates in one pass, with the panel's L and U in shared memory.
/// Every entry receives the same updates in the same order as in band_lu_kernel (same bits), while the window
/// is read and written once per panel instead of once per column.
constexpr int kPanel = 8;

/// Steps 1 and 2 for the panel c0 .. c0+nb-1, by one thread block: its columns (updates within the panel),
/// then the U rows of the trailing columns (forward substitution with the panel's unit L, one thread per
/// column; entries outside the band stay zero). Us (may be null): Us[t * ldu + q] = U(c0 + t, c0 + nb + q).
template <class T>
__device__ void lu_panel(const BandView<T>& A, index_t n, index_t k, index_t c0, index_t nb, T boost, T* s_inv,
                         int& count, T* Us, long long ldu) {
  const int tid = threadIdx.x, nt = blockDim.x;
  for (index_t t = 0; t < nb; ++t) {
    const index_t c = c0 + t;
    const index_t len = min(n - 1, c + k) - c;
    if (tid == 0) {
      T& d = A(c, c);
      T p = d;
      if (!(tabs(p) >= boost)) {
        ++count;
        p = p < T(0) ? -boost : boost;
      }
      d = p;
      *s_inv = T(1) / p;
    }
    __syncthreads();
    const T inv = *s_inv;
    for (index_t r = tid + 1; r <= len; r += nt) A(c + r, c) *= inv;
    __syncthreads();
    const index_t ncol = min(nb - 1 - t, len);  // panel columns right of c within the band
    const int total = static_cast<int>(ncol * len);
    for (int e = tid; e < total; e += nt) {
      const index_t i = c + 1 + e % len, j = c + 1 + e / len;
      const T u = A(c, j);
      if (u != T(0)) A(i, j) -= A(i, c) * u;
    }
    __syncthreads();
  }
  const index_t ncols = min(n - 1, c0 + nb - 1 + k) - (c0 + nb) + 1;
  for (index_t q = tid; q < ncols; q += nt) {
    const index_t j = c0 + nb + q;
    T u[kPanel];
    for (index_t t = 0; t < nb; ++t) u[t] = (j - (c0 + t) <= k) ? A(c0 + t, j) : T(0);
    for (index_t t = 0; t < nb; ++t) {
      if (j - (c0 + t) > k) continue;  // outside the band: stays zero
      T v = u[t];
      for (index_t s = 0; s < t; ++s) {
        if (u[s] == T(0) || t - s > k) continue;  // L(c0+t, c0+s) outside a narrow partition's band is zero
        v -= A(c0 + t, c0 + s) * u[s];
      }
      u[t] = v;
      A(c0 + t, j) = v;
    }
    if (Us)
      for (index_t t = 0; t < nb; ++t) Us[t * ldu + q] = u[t];
  }
}

/// The panel's L rows below it into shared memory: Ls[t * ldl + r] = L(c0 + nb + r, c0 + t) (zero outside the band).
template <class T>
__device__ void lu_load_l(const BandView<T>& A, index_t n, index_t k, index_t c0, index_t nb, T* Ls, long long ldl) {
  const index_t nrows = min(n - 1, c0 + nb - 1 + k) - (c0 + nb) + 1;
  for (index_t r = threadIdx.x; r < nrows; r += blockDim.x) {
    const index_t i = c0 + nb + r;
    for (index_t t = 0; t < nb; ++t) Ls[t * ldl + r] = (i - (c0 + t) <= k) ? A(i, c0 + t) : T(0);
  }
}

/// Step 3 on the trailing columns q = q0, q0 + qstep, ... (warp-strided by the caller's warps): A(i, j) -=
/// sum_t L(i, c0+t) U(c0+t, j), t ascending (the unblocked order). U from Us, or from A when Us is null.
template <class T>
__device__ void lu_trailing(const BandView<T>& A, index_t n, index_t k, index_t c0, index_t nb, const T* Ls,
                            long long ldl, const T* Us, long long ldu, index_t q0, index_t qstep) {
  const int lane = threadIdx.x & 31;
  const index_t nrows = min(n - 1, c0 + nb - 1 + k) - (c0 + nb) + 1;
  const index_t ncols = nrows;
  for (index_t q = q0; q < ncols; q += qstep) {
    const index_t j = c0 + nb + q;
    T us[kPanel];
    bool any = false;
    for (index_t t = 0; t < nb; ++t) {
      us[t] = Us ? Us[t * ldu + q] : ((j - (c0 + t) <= k) ? A(c0 + t, j) : T(0));
      any = any || us[t] != T(0);
    }
    if (!any) continue;
    for (index_t r = lane; r < nrows; r += 32) {
      const index_t i = c0 + nb + r;
      T a = A(i, j);
      for (index_t t = 0; t < nb; ++t)
        if (us[t] != T(0)) a -= Ls[t * ldl + r] * us[t];
      A(i, j) = a;
    }
  }
}

template <class T>
__device__ BandView<T> partition_view(const Parts& P, T* vals, int b, int rev, index_t* n, index_t* k) {
  *n = P.begin[b + 1] - P.begin[b];
  *k = P.kb[b];
  const long long size = static_cast<long long>(*n) * (2LL * *k + 1);
  return BandView<T>{vals + P.offset[b], *k, size - 1, rev != 0};
}

/// One thread block per partition, all panels.
template <class T>
__global__ void __launch_bounds__(1024) band_lu_blocked_kernel(Parts P, T* vals, const double* maxabs, double eps,
                                                               int rev, int first, int* boosted) {
  extern __shared__ unsigned char smem_raw[];
  const int b = first + blockIdx.x;
  index_t n, k;
  const BandView<T> A = partition_view(P, vals, b, rev, &n, &k);
  const long long ld = P.kmax;
  T* Ls = reinterpret_cast<T*>(smem_raw);
  T* Us = Ls + ld * kPanel;
  const double mx = maxabs[b];
  const T boost = static_cast<T>(eps * (mx > 0 ? mx : 1.0));
  __shared__ T s_inv;
  int count = 0;
  for (index_t c0 = 0; c0 < n; c0 += kPanel) {
    const index_t nb = min(static_cast<index_t>(kPanel), n - c0);
    lu_panel(A, n, k, c0, nb, boost, &s_inv, count, Us, ld);
    lu_load_l(A, n, k, c0, nb, Ls, ld);
    __syncthreads();
    lu_trailing(A, n, k, c0, nb, Ls, ld, Us, ld, static_cast<index_t>(threadIdx.x >> 5),
                static_cast<index_t>(blockDim.x >> 5));
    __syncthreads();
  }
  if (threadIdx.x == 0 && count) atomicAdd(boosted, count);
}

/// Multi-block path (few wide partitions): one launch per panel for steps 1-2 (a block per partition) ...
template <class T>
__global__ void __launch_bounds__(1024) band_lu_panel_kernel(Parts P, T* vals, const double* maxabs, double eps,
                                                             int rev, int first, index_t c0, int* boosted) {
  const int b = first + blockIdx.x;
  index_t n, k;
  const BandView<T> A = partition_view(P, vals, b, rev, &n, &k);
  if (c0 >= n) return;
  const double mx = maxabs[b];
  const T boost = static_cast<T>(eps * (mx > 0 ? mx : 1.0));
  __shared__ T s_inv;
  int count = 0;
  lu_panel(A, n, k, c0, min(static_cast<index_t>(kPanel), n - c0), boost, &s_inv, count, static_cast<T*>(nullptr), 0);
  if (threadIdx.x == 0 && count) atomicAdd(boosted, count);
}

/// ... and one for step 3 with `gridDim.y` blocks per partition, each taking every gridDim.y-th column.
template <class T>
__global__ void __launch_bounds__(1024) band_lu_trailing_kernel(Parts P, T* vals, int rev, int first, index_t c0) {
  extern __shared__ unsigned char smem_raw[];
  const int b = first + blockIdx.x;
  index_t n, k;
  const BandView<T> A = partition_view(P, vals, b, rev, &n, &k);
  if (c0 >= n) return;
  const index_t nb = min(static_cast<index_t>(kPanel), n - c0);
  T* Ls = reinterpret_cast<T*>(smem_raw);
  lu_load_l(A, n, k, c0, nb, Ls, P.kmax);
  __syncthreads();
  const index_t nw = blockDim.x >> 5;
  lu_trailing(A, n, k, c0, nb, Ls, P.kmax, static_cast<const T*>(nullptr), 0,
              static_cast<index_t>(blockIdx.y * nw + (threadIdx.x >> 5)), static_cast<index_t>(gridDim.y * nw));
}

/// Spike tips, one thread per right-hand-side column (spike_bottom_from_lu; for W on the reversed LU with
/// the rows of C and W reversed). The column lives in `work` transposed (thread t at t + r m: coalesced). The
/// triangular solves are left-looking over blocks of kTipRows rows held in registers: each finished entry of
/// the column is read once per block instead of once per row, and every row still receives its updates in the
/// order of the right-looking CPU reference (ascending columns for L, descending for U).
constexpr int kTipRows = 16;

template <class T>
__global__ void __launch_bounds__(1024) spike_tip_kernel(Parts P, const T* fac, int top, const T* rhs, T* out, T* work) {
  const int i = blockIdx.x;         // interface
  const int b = top ? i + 1 : i;    // block whose factors are used
  const index_t n = P.begin[b + 1] - P.begin[b], k = P.kb[b], m = P.m, off = n - m;
  const long long size = static_cast<long long>(n) * (2LL * k + 1);
  const BandView<T> F{const_cast<T*>(fac) + P.offset[b], k, size - 1, top != 0};
  const long long mm = static_cast<long long>(m) * m;
  const T* R = rhs + 2 * mm * i;
  T* O = out + 2 * mm * i;
  T* Y = work + mm * i;
  for (index_t t = threadIdx.x; t < m; t += blockDim.x) {
    auto y = [&](index_t r) -> T& { return Y[t + static_cast<long long>(r) * m]; };
    for (index_t r = 0; r < m; ++r) y(r) = R[(top ? m - 1 - r : r) + static_cast<long long>(t) * m];
    T acc[kTipRows];
    // L_bb y = rhs (unit lower), row blocks top to bottom
    for (index_t r0 = 0; r0 < m; r0 += kTipRows) {
      const index_t nr = min(static_cast<index_t>(kTipRows), m - r0);
#pragma unroll
      for (int q = 0; q < kTipRows; ++q) acc[q] = q < nr ? y(r0 + q) : T(0);
      for (index_t c = 0; c < r0; ++c) {
        const T yc = y(c);
        if (yc == T(0)) continue;
#pragma unroll
        for (int q = 0; q < kTipRows; ++q)
          if (q < nr && r0 + q - c <= k) acc[q] -= F(off + r0 + q, off + c) * yc;
      }
#pragma unroll
      for (int q = 1; q < kTipRows; ++q)
#pragma unroll
        for (int s = 0; s < q; ++s)
          if (q < nr && acc[s] != T(0) && q - s <= k) acc[q] -= F(off + r0 + q, off + r0 + s) * acc[s];
#pragma unroll
      for (int q = 0; q < kTipRows; ++q)
        if (q < nr) y(r0 + q) = acc[q];
    }
    // U_bb v = y, row blocks bottom to top
    for (index_t r0 = (m - 1) / kTipRows * kTipRows; r0 >= 0; r0 -= kTipRows) {
      const index_t nr = min(static_cast<index_t>(kTipRows), m - r0);
#pragma unroll
      for (int q = 0; q < kTipRows; ++q) acc[q] = q < nr ? y(r0 + q) : T(0);
      for (index_t c = m - 1; c >= r0 + nr; --c) {
        const T xc = y(c);
        if (xc == T(0)) continue;
#pragma unroll
        for (int q = 0; q < kTipRows; ++q)
          if (q < nr && c - (r0 + q) <= k) acc[q] -= F(off + r0 + q, off + c) * xc;
      }
#pragma unroll
      for (int q = kTipRows - 1; q >= 0; --q) {
        if (q >= nr) continue;
#pragma unroll
        for (int s = kTipRows - 1; s > q; --s)
          if (s < nr && acc[s] != T(0) && s - q <= k) acc[q] -= F(off + r0 + q, off + r0 + s) * acc[s];
        acc[q] = acc[q] / F(off + r0 + q, off + r0 + q);
      }
#pragma unroll
      for (int q = 0; q < kTipRows; ++q)
        if (q < nr) y(r0 + q) = acc[q];
    }
    for (index_t r = 0; r < m; ++r) O[(top ? m - 1 - r : r) + static_cast<long long>(t) * m] = y(r);
  }
}

constexpr int kReducedThreads = 1024;

/// R = I - W V, then dense LU with partial pivoting in place (dense_lu: first largest |entry| is the pivot,
/// whole rows swapped, exact zero pivots replaced by `boost`).
template <class T>
__global__ void __launch_bounds__(kReducedThreads) reduced_kernel(Parts P, const T* Vs, const T* Ws, T* Rs, int* pivs, double boost_d, int* zeros) {
  __shared__ double sv[kReducedThreads];
  __shared__ int si[kReducedThreads];
  const int i = blockIdx.x;
  const index_t m = P.m;
  const long long mm = static_cast<long long>(m) * m;
  const T* V = Vs + 2 * mm * i;
  const T* W = Ws + 2 * mm * i;
  T* R = Rs + mm * i;
  int* piv = pivs + static_cast<long long>(m) * i;
  const int tid = threadIdx.x, nt = blockDim.x;  // nt == kReducedThreads
  // R = I - W V; every entry subtracts its products in ascending t. Single precision: 128 x 128 tiles with
  // 4 x 4 entries per thread in registers (about 3x faster than one entry); double precision: one entry at a
  // time (the 4 x 4 double tiles spill at 1024 threads and were measured slower than this)
  if constexpr (!std::is_same<T, float>::value) {
    for (long long e = tid; e < mm; e += nt) {
      const index_t r = static_cast<index_t>(e % m), c = static_cast<index_t>(e / m);
      T s = r == c ? T(1) : T(0);
      for (index_t t = 0; t < m; ++t) s -= W[r + static_cast<long long>(t) * m] * V[t + static_cast<long long>(c) * m];
      R[e] = s;
    }
  } else {
    constexpr int TC = kReducedThreads / 32 * 4;  // tile columns (128)
    __shared__ T ws[16 * 128], vs[16 * TC];
    const int tx = tid & 31, ty = tid >> 5;
    for (index_t r0 = 0; r0 < m; r0 += 128)
      for (index_t c0 = 0; c0 < m; c0 += TC) {
        T acc[4][4];
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b2 = 0; b2 < 4; ++b2) {
            const index_t r = r0 + tx + 32 * a, c = c0 + ty + TC / 4 * b2;
            acc[a][b2] = r == c ? T(1) : T(0);
          }
        for (index_t t0 = 0; t0 < m; t0 += 16) {
          for (int e = tid; e < 16 * 128; e += nt) {
            const int tt = e / 128, q = e % 128;
            const index_t r = r0 + q, t = t0 + tt;
            ws[e] = (r < m && t < m) ? W[r + static_cast<long long>(t) * m] : T(0);
          }
          for (int e = tid; e < 16 * TC; e += nt) {
            const int tt = e / TC, q = e % TC;
            const index_t t = t0 + tt, c = c0 + q;
            vs[e] = (c < m && t < m) ? V[t + static_cast<long long>(c) * m] : T(0);
          }
          __syncthreads();
#pragma unroll
          for (int tt = 0; tt < 16; ++tt) {
            T wv[4], vv[4];
#pragma unroll
            for (int a = 0; a < 4; ++a) wv[a] = ws[tt * 128 + tx + 32 * a];
#pragma unroll
            for (int b2 = 0; b2 < 4; ++b2) vv[b2] = vs[tt * TC + ty + TC / 4 * b2];
#pragma unroll
            for (int a = 0; a < 4; ++a)
#pragma unroll
              for (int b2 = 0; b2 < 4; ++b2) acc[a][b2] -= wv[a] * vv[b2];
          }
          __syncthreads();
        }
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b2 = 0; b2 < 4; ++b2) {
            const index_t r = r0 + tx + 32 * a, c = c0 + ty + TC / 4 * b2;
            if (r < m && c < m) R[r + static_cast<long long>(c) * m] = acc[a][b2];
          }
      }
  }
  __syncthreads();
  const T boost = static_cast<T>(boost_d);
  int nzero = 0;
  for (index_t c = 0; c < m; ++c) {
    T* colc = R + static_cast<long long>(c) * m;
    // argmax |colc[r]| over r >= c, lowest index on ties
    double best = -1.0;
    int bi = m;
    for (index_t r = c + tid; r < m; r += nt) {
      const double v = fabs(static_cast<double>(colc[r]));
      if (v > best) {
        best = v;
        bi = r;
      }
    }
    sv[tid] = best;
    si[tid] = bi;
    __syncthreads();
    for (int s = nt / 2; s > 0; s /= 2) {
      if (tid < s) {
        const double o = sv[tid + s];
        const int oi = si[tid + s];
        if (o > sv[tid] || (o == sv[tid] && oi < si[tid])) {
          sv[tid] = o;
          si[tid] = oi;
        }
      }
      __syncthreads();
    }
    const int p = si[0];
    __syncthreads();
    if (tid == 0) piv[c] = p;
    if (p != c)
      for (index_t j = tid; j < m; j += nt) {
        const T x = R[c + static_cast<long long>(j) * m];
        R[c + static_cast<long long>(j) * m] = R[p + static_cast<long long>(j) * m];
        R[p + static_cast<long long>(j) * m] = x;
      }
    __syncthreads();
    if (colc[c] == T(0)) {
      __syncthreads();
      if (tid == 0) {
        colc[c] = boost;
        ++nzero;
      }
      __syncthreads();
    }
    const T inv = T(1) / colc[c];
    for (index_t r = c + 1 + tid; r < m; r += nt) colc[r] *= inv;
    __syncthreads();
    for (index_t j = c + 1 + (tid >> 5); j < m; j += nt >> 5) {  // a warp per column, lanes over rows
      const T u = R[c + static_cast<long long>(j) * m];
      if (u == T(0)) continue;
      for (index_t r = c + 1 + (tid & 31); r < m; r += 32) R[r + static_cast<long long>(j) * m] -= colc[r] * u;
    }
    __syncthreads();
  }
  if (tid == 0 && nzero) atomicAdd(zeros, nzero);
}

// ------------------------------------------------------------------------------------------------ apply

template <class T>
__global__ void permute_in_kernel(index_t n, const index_t* prow, const double* rs, const double* r, T* t) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[prow ? prow[i] : i] = static_cast<T>(rs ? rs[i] * r[i] : r[i]);
}

template <class T>
__global__ void permute_out_kernel(index_t n, const index_t* pcol, const double* cs, const T* u, double* z) {
  const index_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const double v = static_cast<double>(u[pcol ? pcol[j] : j]);
  z[j] = cs ? cs[j] * v : v;
}

constexpr int kAhead = 4;  ///< band_solve: steps of factor entries loaded ahead (hides the load latency)

/// x := U^{-1} L^{-1} x on one partition per block (band_lu_solve). The k + 1 live entries of x sit in a
/// circular buffer in shared memory (W >= k + 2 slots, so the slot refilled at step c is never one that step c
/// updates); one barrier per step; each thread loads its factor entry kAhead steps ahead (registers).
template <class T>
__global__ void __launch_bounds__(1024) band_solve_kernel(Parts P, const T* vals, T* x, int wsize) {
  extern __shared__ unsigned char smem_raw[];
  T* buf = reinterpret_cast<T*>(smem_raw);
  const int b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
  const index_t n = P.begin[b + 1] - P.begin[b], k = P.kb[b];
  const long long size = static_cast<long long>(n) * (2LL * k + 1);
  const BandView<T> A{const_cast<T*>(vals) + P.offset[b], k, size - 1, false};
  T* xb = x + P.begin[b];
  const int mask = wsize - 1;
  if (n == 0) return;
  const bool one_pass = k <= nt;  // every thread owns at most one row per step: prefetch it kAhead steps ahead
  // forward: L y = x (unit lower), column oriented
  auto lval = [&](index_t c) -> T {  // this thread's factor entry at step c
    return (one_pass && c < n && tid + 1 <= min(n - 1, c + k) - c) ? A(c + tid + 1, c) : T(0);
  };
  auto fval = [&](index_t c) -> T { return (tid == 0 && c + k + 1 < n) ? xb[c + k + 1] : T(0); };  // refill at step c
  for (index_t s = tid; s <= min(k, n - 1); s += nt) buf[s & mask] = xb[s];
  T lq[kAhead], fq[kAhead];
#pragma unroll
  for (int u = 0; u < kAhead; ++u) {
    lq[u] = lval(u);
    fq[u] = fval(u);
  }
  __syncthreads();
  for (index_t c0 = 0; c0 < n; c0 += kAhead) {
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      const index_t c = c0 + u;
      if (c < n) {  // uniform over the block
        const index_t len = min(n - 1, c + k) - c;
        const T xc = buf[c & mask];
        const T lcur = lq[u];
        lq[u] = lval(c + kAhead);
        if (one_pass) {
          if (tid + 1 <= len) buf[(c + tid + 1) & mask] -= lcur * xc;
        } else {
          for (index_t t = tid + 1; t <= len; t += nt) buf[(c + t) & mask] -= A(c + t, c) * xc;
        }
        if (tid == 0) {
          xb[c] = xc;
          if (c + k + 1 < n) buf[(c + k + 1) & mask] = fq[u];
          fq[u] = fval(c + kAhead);
        }
        __syncthreads();
      }
    }
  }
  // backward: U x = y
  auto uval = [&](index_t c) -> T {
    return (one_pass && c >= 0 && tid + 1 <= c - max(0, c - k)) ? A(c - 1 - tid, c) : T(0);
  };
  auto dval = [&](index_t c) -> T { return c >= 0 ? A(c, c) : T(1); };
  auto gval = [&](index_t c) -> T { return (tid == 0 && c - k - 1 >= 0) ? xb[c - k - 1] : T(0); };
  for (index_t s = max(0, n - 1 - k) + tid; s < n; s += nt) buf[s & mask] = xb[s];
  T uq[kAhead], dq[kAhead], gq[kAhead];
#pragma unroll
  for (int u = 0; u < kAhead; ++u) {
    uq[u] = uval(n - 1 - u);
    dq[u] = dval(n - 1 - u);
    gq[u] = gval(n - 1 - u);
  }
  __syncthreads();
  for (index_t c0 = n - 1; c0 >= 0; c0 -= kAhead) {
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      const index_t c = c0 - u;
      if (c >= 0) {  // uniform over the block
        const index_t len = c - max(0, c - k);  // rows c-len .. c-1
        const T xc = buf[c & mask] / dq[u];
        const T ucur = uq[u];
        uq[u] = uval(c - kAhead);
        dq[u] = dval(c - kAhead);
        if (one_pass) {
          if (tid + 1 <= len) buf[(c - 1 - tid) & mask] -= ucur * xc;
        } else {
          for (index_t t = tid + 1; t <= len; t += nt) buf[(c - t) & mask] -= A(c - t, c) * xc;
        }
        if (tid == 0) {
          xb[c] = xc;
          if (c - k - 1 >= 0) buf[(c - k - 1) & mask] = gq[u];
          gq[u] = gval(c - kAhead);
        }
        __syncthreads();
      }
    }
  }
}

template <class T>
__global__ void __launch_bounds__(1024) interface_solve_kernel(Parts P, const T* Vs, const T* Ws, const T* Rs, const int* pivs, const T* g,
                                       T* xts, T* xbs) {
  const int i = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
  const index_t m = P.m;
  const long long mm = static_cast<long long>(m) * m;
  const T* V = Vs + 2 * mm * i;
  const T* W = Ws + 2 * mm * i;
  const T* R = Rs + mm * i;
  const int* piv = pivs + static_cast<long long>(m) * i;
  const T* gb = g + P.begin[i + 1] - m;
  const T* gt = g + P.begin[i + 1];
  T* xt = xts + static_cast<long long>(m) * i;
  T* xb = xbs + static_cast<long long>(m) * i;
  for (index_t r = tid; r < m; r += nt) {  // xt = gt - W gb
    T s = gt[r];
    for (index_t c = 0; c < m; ++c) s -= W[r + static_cast<long long>(c) * m] * gb[c];
    xt[r] = s;
  }
  __syncthreads();
  if (tid == 0)
    for (index_t c = 0; c < m; ++c) {
      const T a = xt[c];
      xt[c] = xt[piv[c]];
      xt[piv[c]] = a;
    }
  __syncthreads();
  for (index_t c = 0; c < m; ++c) {  // unit lower
    const T xc = xt[c];
    for (index_t r = c + 1 + tid; r < m; r += nt) xt[r] -= R[r + static_cast<long long>(c) * m] * xc;
    __syncthreads();
  }
  for (index_t c = m - 1; c >= 0; --c) {  // upper
    const T xc = xt[c] / R[c + static_cast<long long>(c) * m];
    __syncthreads();
    if (tid == 0) xt[c] = xc;
    for (index_t r = tid; r < c; r += nt) xt[r] -= R[r + static_cast<long long>(c) * m] * xc;
    __syncthreads();
  }
  for (index_t r = tid; r < m; r += nt) {  // xb = gb - V xt
    T s = gb[r];
    for (index_t c = 0; c < m; ++c) s -= V[r + static_cast<long long>(c) * m] * xt[c];
    xb[r] = s;
  }
}

template <class T>
__global__ void __launch_bounds__(1024) interface_correct_kernel(Parts P, const T* vals, const T* xts, const T* xbs, T* w) {
  const int i = blockIdx.x;
  const index_t m = P.m;
  const long long mm = static_cast<long long>(m) * m;
  const T* B = vals + P.coupling + 2 * mm * i;
  const T* C = B + mm;
  const T* xt = xts + static_cast<long long>(m) * i;
  const T* xb = xbs + static_cast<long long>(m) * i;
  T* bottom = w + P.begin[i + 1] - m;  // last m rows of block i
  T* top = w + P.begin[i + 1];         // first m rows of block i+1
  for (index_t r = threadIdx.x; r < 2 * m; r += blockDim.x) {
    const bool lower = r >= m;
    const index_t rr = lower ? r - m : r;
    const T* M = lower ? C : B;
    const T* v = lower ? xb : xt;
    T s = T(0);
    for (index_t c = 0; c < m; ++c) s += M[rr + static_cast<long long>(c) * m] * v[c];
    (lower ? top : bottom)[rr] -= s;
  }
}

/// The tridiagonal coefficients of a K = 1 block-diagonal preconditioner (couplings dropped).
template <class T>
__global__ void extract_tridiagonal_kernel(Parts P, index_t n, const T* vals, double* dl, double* d, double* du) {
  const index_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  int lo = 0, hi = P.p - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (P.begin[mid] <= r) lo = mid;
    else hi = mid - 1;
  }
  const index_t b0 = P.begin[lo], nb = P.begin[lo + 1] - b0, lr = r - b0;
  const T* a = vals + P.offset[lo];  // half-bandwidth 1: a(i, j) at 1 + i - j + 3 j
  d[r] = static_cast<double>(a[1 + 3LL * lr]);
  dl[r] = lr > 0 ? static_cast<double>(a[2 + 3LL * (lr - 1)]) : 0.0;
  du[r] = lr + 1 < nb ? static_cast<double>(a[3LL * (lr + 1)]) : 0.0;
}

template <class T>
__global__ void copy_kernel(index_t n, const T* x, T* y) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

// ------------------------------------------------------------------------------------------------ Krylov

__global__ void dot_partial_kernel(index_t n, const double* x, const double* y, double* partial) {
  __shared__ double sh[256];
  double s = 0.0;
  for (index_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i] * y[i];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int t = blockDim.x / 2; t > 0; t /= 2) {
    if (threadIdx.x < t) sh[threadIdx.x] += sh[threadIdx.x + t];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

__global__ void dot_final_kernel(const double* partial, double* out) {
  __shared__ double sh[kDotBlocks];
  sh[threadIdx.x] = partial[threadIdx.x];
  __syncthreads();
  for (int t = kDotBlocks / 2; t > 0; t /= 2) {
    if (threadIdx.x < t) sh[threadIdx.x] += sh[threadIdx.x + t];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sh[0];
}

__global__ void combine_kernel(index_t n, double a, const double* x, double b, const double* y, double c, double* z) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  bool any = false;
  if (a != 0.0) {
    s = a * x[i];
    any = true;
  }
  if (b != 0.0) {
    s = any ? s + b * y[i] : b * y[i];
    any = true;
  }
  if (c != 0.0) s = any ? s + c * z[i] : c * z[i];
  z[i] = s;
}

__global__ void csr_matvec_kernel(index_t n, const offset_t* ptr, const index_t* col, const double* val,
                                  const double* x, double* y) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double s = 0.0;
  for (offset_t e = ptr[i]; e < ptr[i + 1]; ++e) s += val[e] * x[col[e]];
  y[i] = s;
}

/// Band matvec: a warp owns 32 consecutive rows and walks the columns that touch them, so that for a fixed
/// column the 32 lanes read consecutive band slots. Each row sums its terms in ascending column order.
__global__ void band_matvec_kernel(index_t n, index_t k, const double* band, const double* x, double* y) {
  const long long ld = 2LL * k + 1;
  const index_t warp_row = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32;
  const index_t i = warp_row + (threadIdx.x & 31);
  if (warp_row >= n) return;
  const index_t c0 = max(0, warp_row - k), c1 = min(n - 1, warp_row + 31 + k);
  double s = 0.0;
  for (index_t c = c0; c <= c1; ++c) {
    const index_t d = i - c;
    if (i < n && d <= k && d >= -k) s += band[k + d + c * ld] * x[c];
  }
  if (i < n) y[i] = s;
}

__global__ void generate_band_kernel(index_t n, index_t k, double d, std::uint64_t seed, double* band) {
  const index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const long long ld = 2LL * k + 1;
  const index_t lo = max(0, i - k), hi = min(n - 1, i + k);
  double sum = 0.0;
  for (index_t j = lo; j <= hi; ++j) {
    if (j == i) continue;
    const double v = banded_value(seed, i, j);
    sum += fabs(v);
    band[k + i - j + j * ld] = v;
  }
  band[k + i * ld] = d * sum;
  // slots of column i outside the matrix
  for (index_t s = 0; s < ld; ++s) {
    const index_t r = i - k + s;
    if (r < 0 || r >= n) band[s + i * ld] = 0.0;
  }
}

/// flags[0] += non-finite band slots, flags[1] += nonzero slots outside the n x n matrix.
__global__ void check_band_kernel(index_t n, index_t k, const double* band, int* flags) {
  const long long ld = 2LL * k + 1;
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= ld * n) return;
  const double v = band[e];
  const index_t j = static_cast<index_t>(e / ld), s = static_cast<index_t>(e % ld), i = j - k + s;
  if (!isfinite(v)) atomicAdd(flags, 1);
  else if ((i < 0 || i >= n) && v != 0.0) atomicAdd(flags + 1, 1);
}

unsigned grid_for(long long n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace

// ------------------------------------------------------------------------------------------------ launchers

template <class T>
void assemble_csr(index_t n, const offset_t* ptr, const index_t* col, const double* val, const long long* slot,
                  const double* rs, const double* cs, T* vals, cudaStream_t s) {
  if (n == 0) return;
  assemble_csr_kernel<T><<<grid_for(n, 256), 256, 0, s>>>(n, ptr, col, val, slot, rs, cs, vals);
  check_launch("sap assemble_csr_kernel");
}

template <class T>
void assemble_band(const Parts& P, index_t n, index_t k, const double* band, T* vals, cudaStream_t s) {
  if (n == 0 || P.p == 0) return;
  assemble_band_kernel<T><<<grid_for((2LL * k + 1) * n, 256), 256, 0, s>>>(P, n, k, band, vals);
  check_launch("sap assemble_band_kernel");
  if (P.m > 0 && P.p > 1) {
    const long long mm = static_cast<long long>(P.m) * P.m;
    assemble_coupling_kernel<T><<<dim3(grid_for(mm, 256), P.p - 1), 256, 0, s>>>(P, k, band, vals);
    check_launch("sap assemble_coupling_kernel");
  }
}

template <class T>
void band_max(const Parts& P, const T* vals, double* maxabs, cudaStream_t s) {
  if (P.p == 0) return;
  band_max_kernel<T><<<P.p, 256, 0, s>>>(P, vals, maxabs);
  check_launch("sap band_max_kernel");
}

template <class T>
void band_lu(const Parts& P, T* vals, const double* maxabs, double eps, bool reverse, int first, int* boosted,
             cudaStream_t s) {
  if (P.p - first <= 0) return;
  const std::size_t smem = 2 * static_cast<std::size_t>(P.kmax) * kPanel * sizeof(T);
  if (P.kmax >= kBlockedMinK && smem <= 200 * 1024) {
    const int parts = P.p - first;
    static int sms = 0;
    if (sms == 0) check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    const int threads = threads_for_window(P.kmax);
    if (parts < sms && P.kmax >= kMultiBlockMinK) {
      // few wide partitions: spread each panel's trailing update over several blocks per partition
      const int g = static_cast<int>(std::min<long long>((2LL * sms + parts - 1) / parts, (P.kmax + 31) / 32));
      const std::size_t lsmem = smem / 2;
      if (lsmem > 48 * 1024)
        check_cuda(cudaFuncSetAttribute(band_lu_trailing_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(lsmem)),
                   "cudaFuncSetAttribute (band_lu_trailing_kernel)");
      for (index_t c0 = 0; c0 < P.nmax; c0 += kPanel) {
        band_lu_panel_kernel<T><<<parts, threads, 0, s>>>(P, vals, maxabs, eps, reverse ? 1 : 0, first, c0, boosted);
        check_launch("sap band_lu_panel_kernel");
        band_lu_trailing_kernel<T><<<dim3(parts, g), threads, lsmem, s>>>(P, vals, reverse ? 1 : 0, first, c0);
        check_launch("sap band_lu_trailing_kernel");
      }
      return;
    }
    if (smem > 48 * 1024)
      check_cuda(cudaFuncSetAttribute(band_lu_blocked_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(smem)),
                 "cudaFuncSetAttribute (band_lu_blocked_kernel)");
    band_lu_blocked_kernel<T><<<parts, threads, smem, s>>>(P, vals, maxabs, eps, reverse ? 1 : 0, first, boosted);
    check_launch("sap band_lu_blocked_kernel");
    return;
  }
  band_lu_kernel<T><<<P.p - first, threads_for_window(P.kmax), 0, s>>>(P, vals, maxabs, eps, reverse ? 1 : 0, first,
                                                                        boosted);
  check_launch("sap band_lu_kernel");
}

template <class T>
void spike_tips(const Parts& P, const T* fac, bool top_from_ul, const T* rhs, T* out, T* work, cudaStream_t s) {
  if (P.m == 0 || P.p < 2) return;
  spike_tip_kernel<T><<<P.p - 1, round_warp(P.m, 32, 1024), 0, s>>>(P, fac, top_from_ul ? 1 : 0, rhs, out, work);
  check_launch("sap spike_tip_kernel");
}

template <class T>
void reduced_systems(const Parts& P, const T* V, const T* W, T* R, int* piv, double boost, int* zeros, cudaStream_t s) {
  if (P.m == 0 || P.p < 2) return;
  reduced_kernel<T><<<P.p - 1, kReducedThreads, 0, s>>>(P, V, W, R, piv, boost, zeros);
  check_launch("sap reduced_kernel");
}

template <class T>
void permute_in(index_t n, const index_t* prow, const double* rs, const double* r, T* t, cudaStream_t s) {
  if (n == 0) return;
  permute_in_kernel<T><<<grid_for(n, 256), 256, 0, s>>>(n, prow, rs, r, t);
  check_launch("sap permute_in_kernel");
}

template <class T>
void permute_out(index_t n, const index_t* pcol, const double* cs, const T* u, double* z, cudaStream_t s) {
  if (n == 0) return;
  permute_out_kernel<T><<<grid_for(n, 256), 256, 0, s>>>(n, pcol, cs, u, z);
  check_launch("sap permute_out_kernel");
}

template <class T>
void band_solve(const Parts& P, const T* vals, T* x, cudaStream_t s) {
  if (P.p == 0) return;
  const int w = pow2_at_least(static_cast<long long>(P.kmax) + 2);
  const int threads = round_warp(P.kmax, 32, 1024);
  const std::size_t smem = static_cast<std::size_t>(w) * sizeof(T);
  if (smem > 48 * 1024)
    check_cuda(cudaFuncSetAttribute(band_solve_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(smem)),
               "cudaFuncSetAttribute (band_solve_kernel)");
  band_solve_kernel<T><<<P.p, threads, smem, s>>>(P, vals, x, w);
  check_launch("sap band_solve_kernel");
}

template <class T>
void interface_solve(const Parts& P, const T* V, const T* W, const T* R, const int* piv, const T* g, T* xt, T* xb,
                     cudaStream_t s) {
  if (P.m == 0 || P.p < 2) return;
  interface_solve_kernel<T><<<P.p - 1, round_warp(P.m, 32, 1024), 0, s>>>(P, V, W, R, piv, g, xt, xb);
  check_launch("sap interface_solve_kernel");
}

template <class T>
void interface_correct(const Parts& P, const T* vals, const T* xt, const T* xb, T* w, cudaStream_t s) {
  if (P.m == 0 || P.p < 2) return;
  interface_correct_kernel<T><<<P.p - 1, round_warp(2LL * P.m, 32, 1024), 0, s>>>(P, vals, xt, xb, w);
  check_launch("sap interface_correct_kernel");
}

template <class T>
void extract_tridiagonal(const Parts& P, index_t n, const T* vals, double* dl, double* d, double* du, cudaStream_t s) {
  if (n == 0) return;
  extract_tridiagonal_kernel<T><<<grid_for(n, 256), 256, 0, s>>>(P, n, vals, dl, d, du);
  check_launch("sap extract_tridiagonal_kernel");
}

template <class T>
void copy_vector(index_t n, const T* x, T* y, cudaStream_t s) {
  if (n == 0) return;
  copy_kernel<T><<<grid_for(n, 256), 256, 0, s>>>(n, x, y);
  check_launch("sap copy_kernel");
}

void dot(index_t n, const double* x, const double* y, double* partial, double* out, cudaStream_t s) {
  dot_partial_kernel<<<kDotBlocks, 256, 0, s>>>(n, x, y, partial);
  check_launch("sap dot_partial_kernel");
  dot_final_kernel<<<1, kDotBlocks, 0, s>>>(partial, out);
  check_launch("sap dot_final_kernel");
}

void combine(index_t n, double a, const double* x, double b, const double* y, double c, double* z, cudaStream_t s) {
  if (n == 0) return;
  combine_kernel<<<grid_for(n, 256), 256, 0, s>>>(n, a, x, b, y, c, z);
  check_launch("sap combine_kernel");
}

void csr_matvec(index_t n, const offset_t* ptr, const index_t* col, const double* val, const double* x, double* y,
                cudaStream_t s) {
  if (n == 0) return;
  csr_matvec_kernel<<<grid_for(n, 256), 256, 0, s>>>(n, ptr, col, val, x, y);
  check_launch("sap csr_matvec_kernel");
}

void band_matvec(index_t n, index_t k, const double* band, const double* x, double* y, cudaStream_t s) {
  if (n == 0) return;
  band_matvec_kernel<<<grid_for(n, 256), 256, 0, s>>>(n, k, band, x, y);
  check_launch("sap band_matvec_kernel");
}

void check_band(index_t n, index_t k, const double* band, int* flags, cudaStream_t s) {
  if (n == 0) return;
  check_band_kernel<<<grid_for((2LL * k + 1) * n, 256), 256, 0, s>>>(n, k, band, flags);
  check_launch("sap check_band_kernel");
}

void generate_band(index_t n, index_t k, double d, std::uint64_t seed, double* band, cudaStream_t s) {
  if (n == 0) return;
  generate_band_kernel<<<grid_for(n, 128), 128, 0, s>>>(n, k, d, seed, band);
  check_launch("sap generate_band_kernel");
}

#define SSIDS_SAP_INSTANTIATE(T)                                                                                   \
  template void assemble_csr<T>(index_t, const offset_t*, const index_t*, const double*, const long long*,        \
                                const double*, const double*, T*, cudaStream_t);                                   \
  template void assemble_band<T>(const Parts&, index_t, index_t, const double*, T*, cudaStream_t);                \
  template void band_max<T>(const Parts&, const T*, double*, cudaStream_t);                                        \
  template void band_lu<T>(const Parts&, T*, const double*, double, bool, int, int*, cudaStream_t);               \
  template void spike_tips<T>(const Parts&, const T*, bool, const T*, T*, T*, cudaStream_t);                       \
  template void reduced_systems<T>(const Parts&, const T*, const T*, T*, int*, double, int*, cudaStream_t);        \
  template void permute_in<T>(index_t, const index_t*, const double*, const double*, T*, cudaStream_t);            \
  template void permute_out<T>(index_t, const index_t*, const double*, const T*, double*, cudaStream_t);           \
  template void band_solve<T>(const Parts&, const T*, T*, cudaStream_t);                                           \
  template void interface_solve<T>(const Parts&, const T*, const T*, const T*, const int*, const T*, T*, T*,       \
                                   cudaStream_t);                                                                  \
  template void interface_correct<T>(const Parts&, const T*, const T*, const T*, T*, cudaStream_t);                \
  template void copy_vector<T>(index_t, const T*, T*, cudaStream_t);                                               \
  template void extract_tridiagonal<T>(const Parts&, index_t, const T*, double*, double*, double*, cudaStream_t);

SSIDS_SAP_INSTANTIATE(double)
SSIDS_SAP_INSTANTIATE(float)
#undef SSIDS_SAP_INSTANTIATE

}  // namespace gpu
}  // namespace detail
}  // namespace sap
}  // namespace ssids
