// device_factors.cuh — the factors of a GPU factorization as they stay on the device, with the plan of the
// level-scheduled solve (built once per factorization). Included by .cu files only.
#pragma once
#include <cuda_runtime.h>

#include <functional>
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

/// Per node, what the GPU factorization produced.
struct DeviceNodeInfo {
  int m = 0, ne = 0;
  long long l_off = 0, rows_off = 0, d_off = 0;  ///< its L block, rows and D (2 per pivot) on the device
};

/// The solve plan's structure: the level-scheduled tasks, the work-buffer layout and the gather map of the
/// children's rows. It depends only on the factors' structure (per node its rows, the number eliminated, where
/// its L block and rows are stored, all of which follow from the pivoting outcome) and on the plan settings, so
/// factorizations of one analysis that end with the same structure share one plan (Symbolic::GpuCacheSlot).
struct SolvePlan {
  SolvePlan() = default;
  SolvePlan(const SolvePlan&) = delete;
  SolvePlan& operator=(const SolvePlan&) = delete;
  ~SolvePlan() {
    if (blocks) synchronize_device(device);  // a solve may still read them; then they go back to the cache
  }
  std::shared_ptr<DeviceBlockCache> blocks;  ///< the block cache the buffers come from (may be null)
  int device = 0;
  // what the plan was built for (compared by same_structure)
  bool posdef = false, presolve = false;
  int compact_limit = 0, row_group = 0;     ///< set_solve_compact_blocks, set_solve_row_group
  Vector<DeviceNodeInfo> info;              ///< per node
  Vector<int> rows;                         ///< the row lists (the device rows array up to the last node's)
  // on the device
  DeviceBuffer<gpu::SolveNode> nodes;       ///< by assembly-tree node
  DeviceBuffer<int> children;               ///< children passing rows up (SolveNode::child_begin ..)
  DeviceBuffer<int> gptr, gsrc;             ///< per work-buffer row: the children's rows added into it
  DeviceBuffer<gpu::SolveTask> fwd_tasks;   ///< forward sweep, in ticket order
  DeviceBuffer<gpu::SolveTask> bwd_tasks;   ///< backward sweep, in ticket order
  DeviceBuffer<int> pivot_var;              ///< pivot position -> variable
  DeviceBuffer<gpu::SolveTask> tiles;       ///< presolve: one task per diagonal tile (invert_superblocks)
  int n_fwd_tasks = 0, n_bwd_tasks = 0, n_tiles = 0;
  int total_tiles = 0;                      ///< tile flags per sweep
  long long total_rows = 0;                 ///< work buffer rows per right-hand side (sum of m)
  long long part_slots = 0;                 ///< backward partial slots (SolveNode::part_slot)
  long long inv_size = 0;                   ///< presolve: doubles of the inverted diagonal super-blocks
};

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
  std::shared_ptr<const SolvePlan> plan;    ///< tasks and gather map (shared by factors of one structure)
  DeviceBuffer<double> inv;                 ///< presolve: inverted diagonal super-blocks
  DeviceBuffer<double> scale;               ///< empty or n
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

/// Where the time of build_device_factors goes (seconds; presolve is device time).
struct SolvePlanTimes {
  double gather = 0, tasks = 0, upload = 0, presolve = 0;
  bool reused = false;  ///< the plan of the previous factorization served (gather and tasks not built)
};

/// Takes over the device arrays l and rows (swapped out of the arguments) and gives the factors their solve
/// plan: the previous factorization's when the structure is the same (info, host_rows and the plan settings),
/// else a new one. host_rows: a copy of the device rows array (n_rows entries). dev_scale: the scaling on the
/// device (copied), or null. Indefinite mode: *diag receives D and D^{-1} formed on the device from dstore (the
/// factorization's D, DeviceNodeInfo::d_off). Inverts the diagonal super-blocks when presolve is set. Returns
/// with the work on st done.
/// blocks (may be null): the block cache the plan's arrays (and later D, upload_device_diag) are taken from.
/// host_work (may be empty): run on the calling thread once the device work is enqueued and before it is waited
/// for, so that host work of the caller overlaps it; if it throws, the device work is waited for first.
std::shared_ptr<DeviceFactors> build_device_factors(const Symbolic& sym, const Vector<DeviceNodeInfo>& info,
                                                    const int* host_rows, std::size_t n_rows, DeviceBuffer<double>& l,
                                                    std::size_t l_size, DeviceBuffer<int>& rows, bool posdef,
                                                    bool presolve, const double* dev_scale, const double* dstore,
                                                    std::shared_ptr<DeviceDiag>* diag, cudaStream_t st,
                                                    SolvePlanTimes* times,
                                                    std::shared_ptr<DeviceBlockCache> blocks = nullptr,
                                                    const std::function<void()>& host_work = {});

}  // namespace detail
}  // namespace ssids
