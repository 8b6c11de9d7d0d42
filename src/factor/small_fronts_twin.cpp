// small_fronts_twin.cpp — CPU twin of launch_small_fronts (cuda/small_fronts.cu): the same per-node routine
// (factor/small_front_core.hpp) run by one thread, block after block, so the results are bitwise the kernel's.
#include <algorithm>

#include "factor/gpu_twins.hpp"
#include "factor/small_front_core.hpp"
#include "ssids/memory.hpp"

namespace ssids {
namespace detail {
namespace gpu {

void twin_small_fronts(const SmallFrontArgs& a, int nblocks, int m_cap) {
  Vector<double> mem(static_cast<size_t>(small::small_front_bytes(std::max(1, m_cap)) / 8 + 1));
  small::HostTeam t;
  for (int b = 0; b < nblocks; ++b) small::factor_small_node(t, a, b, reinterpret_cast<unsigned char*>(mem.data()));
}

}  // namespace gpu
}  // namespace detail
}  // namespace ssids
