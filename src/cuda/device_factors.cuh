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

/// One kernel launch of the solve plan.
struct SolveStep {
  enum Kind : int { fwd_gather, fwd_tile, fwd_update, bwd_gather, bwd_ancestor, bwd_tile, bwd_update };
  Kind kind;
  int level;
  int count;       ///< blocks
  long long off;   ///< first task (or first entry of level_nodes for the gathers)
};

struct DeviceFactors {
  int device = 0;
  index_t n = 0;
  bool posdef = false;
  bool presolve = false;
  std::size_t l_size = 0;               ///< doubles of L (the host layout of contiguous_l())
  DeviceBuffer<double> l;               ///< L blocks, node s at NodeFactor::lptr
  DeviceBuffer<int> rows;               ///< row variables, node s at SolveNode::rows_off
  DeviceBuffer<gpu::SolveNode> nodes;   ///< by assembly-tree node
  DeviceBuffer<gpu::SolveChild> children;
  DeviceBuffer<int> maps;
  DeviceBuffer<int> level_nodes;        ///< nodes of each level, largest ne first
  DeviceBuffer<gpu::SolveTask> tasks;
  DeviceBuffer<double> inv;             ///< presolve: inverted diagonal tiles
  DeviceBuffer<int> pivot_var;          ///< pivot position -> variable
  DeviceBuffer<double> scale;           ///< empty or n
  Vector<SolveStep> forward, backward;  ///< the launches, in order
  long long max_level_rows = 0;         ///< largest sum of m over a level (work buffer rows per rhs)
};

/// D and D^{-1} on the device (host layout); replaced as a whole by alter().
struct DeviceDiag {
  DeviceBuffer<double> d, dinv;
};

/// Per node, what the GPU factorization produced.
struct DeviceNodeInfo {
  int m = 0, ne = 0;
  long long l_off = 0, rows_off = 0;
};

/// Builds the solve plan and takes over the device arrays l and rows (swapped out of the arguments).
/// host_rows: a copy of the device rows array. Inverts the diagonal tiles when presolve is set
/// (seconds of device time in *presolve_seconds).
std::shared_ptr<DeviceFactors> build_device_factors(const Symbolic& sym, const Vector<DeviceNodeInfo>& info,
                                                    const Vector<int>& host_rows, DeviceBuffer<double>& l,
                                                    std::size_t l_size, DeviceBuffer<int>& rows, bool posdef,
                                                    bool presolve, const Vector<index_t>& pivot_var,
                                                    const double* scale, cudaStream_t st, double* presolve_seconds);

}  // namespace detail
}  // namespace ssids
