// small_fronts.cu — the small fronts of a level in one launch: a thread block per front assembles it in shared
// memory, factorizes it with threshold pivoting and writes L, D, its variables and its contribution block
// (factor/small_front_core.hpp, which the CPU twin runs too). Sizes that depend on delays are read from the
// children's results on the device, so consecutive levels need no host round trip.
#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"
#include "cuda/small_fronts.cuh"
#include "factor/small_front_core.hpp"

namespace ssids {
namespace detail {
namespace gpu {

namespace {

/// A thread block as a team of warps (small_front_core.hpp's Team). red_v/red_i: one entry per warp.
struct BlockTeam {
  int tid, nth, group, ngroups, lane;
  static constexpr int nlanes = 32;
  double* red_v;
  int* red_i;
  __device__ void sync() const { __syncthreads(); }
  __device__ double max_all(double v) const {
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) red_v[group] = v;
    __syncthreads();
    double r = red_v[0];
    for (int g = 1; g < ngroups; ++g) r = fmax(r, red_v[g]);
    __syncthreads();
    return r;
  }
  /// Largest v, smallest i among equal v (i = -1 only with v = 0, which loses to any i >= 0 with v = 0 too).
  __device__ static bool better(double v, int i, double bv, int bi) {
    return v > bv || (v == bv && i >= 0 && (bi < 0 || i < bi));
  }
  __device__ void argmax_all(double& v, int& i) const {
    for (int o = 16; o > 0; o >>= 1) {
      const double ov = __shfl_xor_sync(0xffffffffu, v, o);
      const int oi = __shfl_xor_sync(0xffffffffu, i, o);
      if (better(ov, oi, v, i)) {
        v = ov;
        i = oi;
      }
    }
    if (lane == 0) {
      red_v[group] = v;
      red_i[group] = i;
    }
    __syncthreads();
    v = red_v[0];
    i = red_i[0];
    for (int g = 1; g < ngroups; ++g)
      if (better(red_v[g], red_i[g], v, i)) {
        v = red_v[g];
        i = red_i[g];
      }
    __syncthreads();
  }
};

__global__ void __launch_bounds__(256) small_fronts_kernel(SmallFrontArgs a) {
  extern __shared__ double smem[];
  __shared__ double red_v[32];
  __shared__ int red_i[32];
  BlockTeam t{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), static_cast<int>(threadIdx.x >> 5),
              static_cast<int>(blockDim.x >> 5), static_cast<int>(threadIdx.x & 31), red_v, red_i};
  small::factor_small_node(t, a, static_cast<int>(blockIdx.x), reinterpret_cast<unsigned char*>(smem));
}

}  // namespace

int small_fronts_threads(int m_cap) { return m_cap <= 48 ? 64 : m_cap <= 96 ? 128 : 256; }

void launch_small_fronts(const SmallFrontArgs& a, int nblocks, int m_cap, cudaStream_t s) {
  if (nblocks == 0) return;
  static const bool attr = [] {
    check_cuda(cudaFuncSetAttribute(small_fronts_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(small::small_front_bytes(small_front_max_rows))),
               "cudaFuncSetAttribute (small fronts)");
    return true;
  }();
  (void)attr;
  const size_t bytes = static_cast<size_t>(small::small_front_bytes(m_cap));
  small_fronts_kernel<<<nblocks, small_fronts_threads(m_cap), bytes, s>>>(a);
  check_launch("small_fronts_kernel");
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
