// small_fronts.cuh — launcher of the small-front kernel (cuda/small_fronts.cu; algorithm and twin:
// factor/small_front_core.hpp, factor/small_fronts_twin.hpp).
#pragma once
#include <cuda_runtime.h>

#include "cuda/front_tasks.hpp"
#include "factor/small_front_plan.hpp"

namespace ssids {
namespace detail {
namespace gpu {

/// Threads per block of a launch of nblocks fronts of up to m_cap rows.
int small_fronts_threads(int m_cap, int nblocks);

/// One block per node a.nodes[0 .. nblocks); m_cap: the largest SmallSlot::m_cap among them (sets the threads);
/// fast_bytes: shared memory per block (SmallFrontPlan::launch_fast_bytes).
void launch_small_fronts(const SmallFrontArgs& a, int nblocks, int m_cap, long long fast_bytes, cudaStream_t s);

/// The plan's tree launch (SmallFrontPlan::tree, launch 0): a 512-thread block per leaf a.nodes[0 .. nleaves);
/// parent: SmallFrontPlan::tree_parent; pending: SmallFrontPlan::tree_pending, counted down on the device (reset it
/// before every launch); fast_bytes: the plan's launch_fast_bytes[0]; with_work: some front of the launch has a
/// work-area slot.
void launch_small_tree(const SmallFrontArgs& a, int nleaves, const int* parent, int* pending, long long fast_bytes,
                       bool with_work, cudaStream_t s);

/// Multiprocessors of the current device (0 if it cannot be queried).
int small_front_multiprocessors();

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
