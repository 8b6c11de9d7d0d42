// segment_walk.cuh — how the level-batched kernels with a grid (tasks, spread) walk a task's column-major
// region: a warp per segment of 512 rows of a column, so that accesses are coalesced and no entry needs an
// integer division (64-bit division is a long instruction sequence on the GPU).
#pragma once
#include <cuda_runtime.h>

namespace ssids {
namespace detail {
namespace gpu {

/// The warps of a task in a grid (tasks, spread) launch: this warp's index among them and their number.
__device__ __forceinline__ long long first_warp() {
  return static_cast<long long>(blockIdx.y) * (blockDim.x / 32) + threadIdx.x / 32;
}
__device__ __forceinline__ long long warp_stride() { return static_cast<long long>(gridDim.y) * (blockDim.x / 32); }

/// Calls f(col, row) for every entry of a column-major ncol x nrow region of a task: a warp per segment of
/// 512 rows of a column (one division per segment, coalesced within it), segments over the warps of the
/// task's blocks.
template <class Fn>
__device__ __forceinline__ void for_column_segments(long long ncol, long long nrow, Fn&& f) {
  constexpr long long seg = 512;
  const long long nseg = (nrow + seg - 1) / seg;
  for (long long u = first_warp(); u < ncol * nseg; u += warp_stride()) {
    const long long col = u / nseg, r0 = (u - col * nseg) * seg, r1 = r0 + seg < nrow ? r0 + seg : nrow;
    for (long long r = r0 + (threadIdx.x & 31); r < r1; r += 32) f(col, r);
  }
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
