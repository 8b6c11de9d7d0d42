// small_fronts_twin.cpp — CPU twin of launch_small_fronts (cuda/small_fronts.cu): the same per-node routine
// (factor/small_front_core.hpp) run by one thread, block after block, so the results are bitwise the kernel's.
#include <algorithm>

#include "factor/gpu_twins.hpp"
#include "factor/small_front_core.hpp"
#include "factor/small_front_plan.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {
namespace gpu {

void twin_small_fronts(const SmallFrontArgs& a, int nblocks, int m_cap, long long fast_bytes) {
  // the kernel's placement: fast_bytes of shared memory (here host memory), a front with a work-area slot split
  // or in the work area (here host memory of its own)
  Vector<double> fast(static_cast<size_t>(fast_bytes / 8 + 1));
  Vector<double> work;
  if (m_cap > small_front_max_rows) work.resize(static_cast<size_t>(small::small_front_bytes(m_cap) / 8 + 1));
  small::HostTeam t;
  for (int b = 0; b < nblocks; ++b) {
    const bool in_work = a.slots[a.nodes[b]].work_off >= 0 && !work.empty();
    small::factor_small_node(t, a, a.nodes[b], reinterpret_cast<unsigned char*>(fast.data()),
                             in_work ? reinterpret_cast<unsigned char*>(work.data()) : nullptr);
  }
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
