// small_fronts.cu — a launch of the small-front plan: a thread block per front assembles it in shared
// memory (above small_front_max_rows rows: its fully summed columns in shared memory and the rest in its slot of
// a global work area, or all of it there when those columns do not fit), factorizes it with threshold pivoting
// and writes L, D, its variables and its contribution block (factor/small_front_core.hpp, which the CPU twin runs
// too). Sizes that depend on delays are read from the children's results on the device, so consecutive launches
// need no host round trip.
#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"
#include "cuda/small_fronts.cuh"
#include "factor/small_front_core.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

/// A thread block as a team of warps (small_front_core.hpp's Team). Reductions are over one warp (shuffles and
/// warp reductions, no shared memory): every warp evaluates pivot candidates on its own, and pick_first and
/// share_group0 hand the warps' choices to every thread through `pick` (two alternating areas of 3 x 32 ints of
/// shared memory).
struct BlockTeam {
  int tid, nth, group, ngroups, lane;
  static constexpr int nlanes = 32;
  int* pick;
  int half = 0;
  unsigned long long* prof = nullptr;  // SmallFrontArgs::prof
  long long last = 0;
  __device__ void sync() const { __syncthreads(); }
  __device__ void group_sync() const { __syncwarp(); }
  /// In a build with SSIDS_KERNEL_PROFILE (the CMake option of that name; --print-level 3 then prints the
  /// counters): phases 0-4 of factor_small_node accumulate clock cycles (phase 0: from the kernel's start), and so
  /// do the factorization's parts 8-12 (decisions, interchanges, pivot updates, window ends, scaling: phase 3 then
  /// keeps what falls between them); 5, 6, 7 count column scans (candidates tested and partners' maxima),
  /// trailing updates and 1x1 pivots. Otherwise nothing: even untaken, a mark's test and branch sit on a pivot's
  /// chain of dependent steps several times per pivot.
  __device__ void mark(int phase) {
#if defined(SSIDS_KERNEL_PROFILE)
    if (!prof || tid != 0) return;
    const long long now = clock64();
    if (phase <= 4 || phase >= 8) {
      atomicAdd(prof + phase, static_cast<unsigned long long>(now - last));
      last = now;
    } else {
      atomicAdd(prof + phase, 1ULL);
    }
#else
    (void)phase;
#endif
  }
  /// Every caller's v is a maximum of |entries| from 0.0: not NaN, not negative. Such doubles order as their bit
  /// patterns, so the warp's maximum is the largest high word, then the largest low word among the lanes that
  /// hold it: two hardware warp reductions instead of five rounds of shuffles.
  __device__ double group_max(double v) const {
#if __CUDA_ARCH__ >= 800
    const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(fabs(v)));
    const unsigned hi = static_cast<unsigned>(b >> 32), lo = static_cast<unsigned>(b);
    const unsigned mhi = __reduce_max_sync(0xffffffffu, hi);
    const unsigned mlo = __reduce_max_sync(0xffffffffu, hi == mhi ? lo : 0u);
    return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(mhi) << 32) | mlo));
#else
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
#endif
  }
  /// small_front_core.hpp's HostTeam::partner_and_rest over the warp. The window's largest |entry| and then the
  /// smallest position among the lanes that hold it (a lane's wpos is its first position with its wbest; wpos is
  /// -1 exactly when wbest is 0, and as unsigned loses every minimum); then the largest of each lane's entries
  /// away from r: its v2 if r is its x1, else its v1. Maxima are exact, so this is the group's answer whatever
  /// the order.
  template <class Scan>
  __device__ void partner_and_rest(const Scan& sc, int& r, double& rest) const {
#if __CUDA_ARCH__ >= 800
    const double wv = group_max(sc.wbest);
    const unsigned mine = sc.wbest == wv ? static_cast<unsigned>(sc.wpos) : 0xffffffffu;
    r = static_cast<int>(__reduce_min_sync(0xffffffffu, mine));
    rest = group_max(sc.x1 == r ? sc.v2 : sc.v1);
#else
    // largest v, smallest i among equal v (i = -1 only with v = 0, which loses to any i >= 0 with v = 0 too)
    auto better = [](double v, int i, double bv, int bi) { return v > bv || (v == bv && i >= 0 && (bi < 0 || i < bi)); };
    double v1 = sc.v1, v2 = sc.v2, wv = sc.wbest;
    int x1 = sc.x1, wi = sc.wpos;
    for (int o = 16; o > 0; o >>= 1) {  // merging two lists keeps the larger first entry and the larger of the rest
      const double b1 = __shfl_xor_sync(0xffffffffu, v1, o);
      const int bx = __shfl_xor_sync(0xffffffffu, x1, o);
      const double b2 = __shfl_xor_sync(0xffffffffu, v2, o);
      const double ov = __shfl_xor_sync(0xffffffffu, wv, o);
      const int oi = __shfl_xor_sync(0xffffffffu, wi, o);
      if (b1 > v1 || (b1 == v1 && bx >= 0 && (x1 < 0 || bx < x1))) {
        v2 = fmax(v1, b2);
        v1 = b1;
        x1 = bx;
      } else {
        v2 = fmax(v2, b1);
      }
      if (better(ov, oi, wv, wi)) {
        wv = ov;
        wi = oi;
      }
    }
    r = wi;
    rest = x1 == r ? v2 : v1;
#endif
  }
  /// Every warp's (j, kind, r) in; the one with the smallest j out, in every thread. Calls use the two areas in
  /// turn: an area is written again only after the next call's barrier, which every thread passes after reading it.
  __device__ void pick_first(int& j, int& kind, int& r) {
    int* p = pick + 96 * half;
    half ^= 1;
    if (lane == 0) {
      p[group] = j;
      p[32 + group] = kind;
      p[64 + group] = r;
    }
    __syncthreads();
    // the smallest candidate (distinct groups' candidates differ, except "none"), from the first warp that has it
    const int mine = lane < ngroups ? p[lane] : 0x7fffffff;  // lane g reads warp g's candidate (j >= 0)
#if __CUDA_ARCH__ >= 800
    const int best = static_cast<int>(__reduce_min_sync(0xffffffffu, static_cast<unsigned>(mine)));
#else
    int best = mine;
    for (int o = 16; o > 0; o >>= 1) best = min(best, __shfl_xor_sync(0xffffffffu, best, o));
#endif
    const int from = __ffs(__ballot_sync(0xffffffffu, mine == best)) - 1;
    j = best;
    kind = p[32 + from];
    r = p[64 + from];
  }
  /// Thread 0's (kind, r), group 0's answer, in every thread after a barrier (the areas of pick_first, in turn).
  __device__ void share_group0(int& kind, int& r) {
    int* p = pick + 96 * half;
    half ^= 1;
    if (tid == 0) {
      p[0] = kind;
      p[1] = r;
    }
    __syncthreads();
    kind = p[0];
    r = p[1];
  }
};

template <int MaxThreads>
__global__ void __launch_bounds__(MaxThreads) small_fronts_kernel(SmallFrontArgs a) {
  extern __shared__ double smem[];
  __shared__ int pick[2 * 3 * 32];
  BlockTeam t{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), static_cast<int>(threadIdx.x >> 5),
              static_cast<int>(blockDim.x >> 5), static_cast<int>(threadIdx.x & 31), pick, 0, a.prof, clock64()};
  const int s = a.nodes[blockIdx.x];
  const long long work_off = a.slots[s].work_off;
  unsigned char* work = work_off >= 0 ? reinterpret_cast<unsigned char*>(a.work + work_off) : nullptr;
  small::factor_small_node(t, a, s, reinterpret_cast<unsigned char*>(smem), work);
}

/// The plan's tree launch (SmallFrontPlan::tree; launch 0; a front in the work area has a slot of its own there):
/// block b starts at the leaf a.nodes[b]; after each front, the block that counts its parent's last child down
/// goes on with the parent, so a front starts as soon as its children have ended, whatever their depth. A front's
/// outputs (L, D, rows, its contribution block, its result) are written by the whole block; every thread's fence
/// before the count, and every thread's fence after the hand-over, order them before the parent's reads on
/// another multiprocessor. WithWork: some front of the launch has a work-area slot; without, the work area's code
/// is compiled out (fewer registers and instructions on every front's path).
template <bool WithWork>
__global__ void __launch_bounds__(512) small_tree_kernel(SmallFrontArgs a, const int* parent, int* pending) {
  extern __shared__ double smem[];
  __shared__ int pick[2 * 3 * 32];
  __shared__ int next;
  BlockTeam t{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), static_cast<int>(threadIdx.x >> 5),
              static_cast<int>(blockDim.x >> 5), static_cast<int>(threadIdx.x & 31), pick, 0, a.prof, clock64()};
  int s = a.nodes[blockIdx.x];
  while (s >= 0) {
    const long long work_off = WithWork ? a.slots[s].work_off : -1;
    unsigned char* work = work_off >= 0 ? reinterpret_cast<unsigned char*>(a.work + work_off) : nullptr;
    small::factor_small_node(t, a, s, reinterpret_cast<unsigned char*>(smem), work);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      const int p = parent[s];
      next = p >= 0 && atomicSub(pending + p, 1) == 1 ? p : -1;
    }
    __syncthreads();
    s = next;  // thread 0 writes next again only after the next front's barriers
    __threadfence();
  }
}

}  // namespace

namespace {
/// Multiprocessors of the current device (queried once).
int multiprocessors() {
  static const int count = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}
}  // namespace

int small_fronts_threads(int m_cap, int nblocks) {
  // A launch that leaves multiprocessors without a block (a level of few fronts, where one front's time is the
  // level's) gets the most threads: a pivot's window update is spread over the warps column by column, and each
  // warp's columns are a sequential chain, so more warps shorten every pivot. Fronts in the work area also
  // below medium_level_max_fronts blocks.
  if (nblocks <= multiprocessors()) return 512;
  if (m_cap <= small_front_max_rows) return m_cap <= 48 ? 64 : m_cap <= 96 ? 128 : 256;
  return nblocks <= medium_level_max_fronts ? 512 : 256;
}

namespace {
/// The kernels' largest dynamic shared memory (a front of small_front_max_rows rows), set once.
void allow_small_front_bytes() {
  static const bool attr = [] {
    const int bytes = static_cast<int>(small::small_front_bytes(small_front_max_rows));
    check_cuda(cudaFuncSetAttribute(small_fronts_kernel<256>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
               "cudaFuncSetAttribute (small fronts)");
    check_cuda(cudaFuncSetAttribute(small_fronts_kernel<512>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
               "cudaFuncSetAttribute (small fronts)");
    check_cuda(cudaFuncSetAttribute(small_tree_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
               "cudaFuncSetAttribute (small fronts)");
    check_cuda(cudaFuncSetAttribute(small_tree_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
               "cudaFuncSetAttribute (small fronts)");
    return true;
  }();
  (void)attr;
}
}  // namespace

int small_front_multiprocessors() { return multiprocessors(); }

void launch_small_tree(const SmallFrontArgs& a, int nleaves, const int* parent, int* pending, long long fast_bytes,
                       bool with_work, cudaStream_t s) {
  if (nleaves == 0) return;
  allow_small_front_bytes();
  if (with_work) small_tree_kernel<true><<<nleaves, 512, static_cast<size_t>(fast_bytes), s>>>(a, parent, pending);
  else small_tree_kernel<false><<<nleaves, 512, static_cast<size_t>(fast_bytes), s>>>(a, parent, pending);
  check_launch("small_tree_kernel");
}

void launch_small_fronts(const SmallFrontArgs& a, int nblocks, int m_cap, long long fast_bytes, cudaStream_t s) {
  if (nblocks == 0) return;
  allow_small_front_bytes();
  const int threads = small_fronts_threads(m_cap, nblocks);
  const size_t bytes = static_cast<size_t>(fast_bytes);
  if (threads > 256) small_fronts_kernel<512><<<nblocks, threads, bytes, s>>>(a);
  else small_fronts_kernel<256><<<nblocks, threads, bytes, s>>>(a);
  check_launch("small_fronts_kernel");
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
