// device_factors.cuh — the factors of a GPU factorization as they stay on the device, with the plan of the
// level-scheduled solve (built once per factorization). Included by .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <memory>

#include "analyse/symbolic.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/solve_kernels.cuh"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {

/// Waits for the device's work before its buffers go back to a block cache (DeviceBlockCache's contract).
inline void synchronize_device(int device) noexcept {
  int cur = -1;
  if (cudaGetDevice(&cur) != cudaSuccess) return;
  if (cur != device) cudaSetDevice(device);
  cudaDeviceSynchronize();
  if (cur != device) cudaSetDevice(cur);
}

struct DeviceFactors {
  DeviceFactors() = default;
  DeviceFactors(const DeviceFactors&) = delete;
  DeviceFactors& operator=(const DeviceFactors&) = delete;
  ~DeviceFactors() {
    if (blocks) synchronize_device(device);  // a solve may still read them; then they go back to the cache
  }
  std::shared_ptr<DeviceBlockCache> blocks;  ///< the analysis' block cache the buffers come from (may be null)
  int device = 0;
  index_t n = 0;
  index_t nsup = 0;
  bool posdef = false;
  bool presolve = false;
  std::size_t l_size = 0;                   ///< doubles of L (the host layout of contiguous_l())
  DeviceBuffer<double> l;                   ///< L blocks, node s at NodeFactor::lptr
  DeviceBuffer<int> rows;                   ///< row variables, node s at SolveNode::rows_off
  DeviceBuffer<gpu::SolveNode> nodes;       ///< by assembly-tree node
  DeviceBuffer<int> children;               ///< children passing rows up (SolveNode::child_begin ..)
  DeviceBuffer<int> gptr, gsrc;             ///< per work-buffer row: the children's rows added into it
  DeviceBuffer<gpu::SolveTask> fwd_tasks;   ///< forward sweep, in ticket order
  DeviceBuffer<gpu::SolveTask> bwd_tasks;   ///< backward sweep, in ticket order
  DeviceBuffer<double> inv;                 ///< presolve: inverted diagonal super-blocks
  DeviceBuffer<int> pivot_var;              ///< pivot position -> variable
  DeviceBuffer<double> scale;               ///< empty or n
  int n_fwd_tasks = 0, n_bwd_tasks = 0;
  int total_tiles = 0;                      ///< tile flags per sweep
  long long total_rows = 0;                 ///< work buffer rows per right-hand side (sum of m)
  long long part_slots = 0;                 ///< backward partial slots (SolveNode::part_slot)
};

/// D and D^{-1} on the device (host layout); replaced as a whole by alter().
struct DeviceDiag {
  DeviceDiag() = default;
  DeviceDiag(const DeviceDiag&) = delete;
  DeviceDiag& operator=(const DeviceDiag&) = delete;
  ~DeviceDiag() {
    if (d.cached() || dinv.cached()) synchronize_device(device);
  }
  int device = 0;
  DeviceBuffer<double> d, dinv;
};

/// Per node, what the GPU factorization produced.
struct DeviceNodeInfo {
  int m = 0, ne = 0;
  long long l_off = 0, rows_off = 0;
};

/// Where the time of build_device_factors goes (seconds; presolve is device time).
struct SolvePlanTimes {
  double gather = 0, tasks = 0, upload = 0, presolve = 0;
};

/// Builds the solve plan and takes over the device arrays l and rows (swapped out of the arguments).
/// host_rows: a copy of the device rows array. Inverts the diagonal super-blocks when presolve is set.
/// blocks (may be null): the block cache the plan's arrays (and later D, upload_device_diag) are taken from.
std::shared_ptr<DeviceFactors> build_device_factors(const Symbolic& sym, const Vector<DeviceNodeInfo>& info,
                                                    const Vector<int>& host_rows, DeviceBuffer<double>& l,
                                                    std::size_t l_size, DeviceBuffer<int>& rows, bool posdef,
                                                    bool presolve, const Vector<index_t>& pivot_var,
                                                    const double* scale, cudaStream_t st, SolvePlanTimes* times,
                                                    std::shared_ptr<DeviceBlockCache> blocks = nullptr);

}  // namespace detail
}  // namespace ssids
