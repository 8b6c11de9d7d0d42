// tree_stats.cpp — levels of the assembly tree and the predicted statistics (see maps.hpp, symbolic.hpp).
// Conventions: 0-based nodes in a postorder (child < parent); level 0 holds the roots.
#include <algorithm>

#include "analyse/maps.hpp"

namespace ssids {
namespace detail {

void build_levels(Symbolic& s) {
  s.node_level.assign(static_cast<size_t>(s.nsup), 0);
  index_t nlev = 0;
  // parents have larger numbers, so a decreasing sweep knows the parent's level first
  for (index_t v = s.nsup - 1; v >= 0; --v) {
    const index_t p = s.sparent[v];
    s.node_level[v] = p == -1 ? 0 : s.node_level[p] + 1;
    nlev = std::max(nlev, s.node_level[v] + 1);
  }
  s.num_levels = nlev;
  s.level_ptr.assign(static_cast<size_t>(nlev) + 1, 0);
  for (index_t v = 0; v < s.nsup; ++v) ++s.level_ptr[s.node_level[v] + 1];
  for (index_t l = 0; l < nlev; ++l) s.level_ptr[l + 1] += s.level_ptr[l];
  s.level_nodes.resize(static_cast<size_t>(s.nsup));
  Vector<index_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  for (index_t v = 0; v < s.nsup; ++v) s.level_nodes[next[s.node_level[v]]++] = v;
}

void compute_statistics(Symbolic& s) {
  s.num_factor = 0;
  s.num_flops = 0;
  s.maxfront = 0;
  s.maxsupernode = 0;
  // contribution-block stack over the postorder: at node v the front (nrow^2) coexists with every pending
  // block, including v's children's, which are released once v is assembled
  offset_t stack = 0, peak = 0;
  for (index_t v = 0; v < s.nsup; ++v) {
    const offset_t nc = s.ncol(v), nr = s.nrow(v);
    s.num_factor += nc * nr - nc * (nc - 1) / 2;
    // sum_{k=0}^{nc-1} m^2 + 2m with m = nr-1-k, m running over [nr-nc, nr-1]
    for (offset_t m = nr - nc; m < nr; ++m) s.num_flops += m * m + 2 * m;
    s.maxfront = std::max(s.maxfront, static_cast<index_t>(nr));
    s.maxsupernode = std::max(s.maxsupernode, static_cast<index_t>(nc));
    peak = std::max(peak, stack + nr * nr);
    for (index_t t = s.child_ptr[v]; t < s.child_ptr[v + 1]; ++t) {
      const offset_t cb = s.nrow(s.child_list[t]) - s.ncol(s.child_list[t]);
      stack -= cb * cb;
    }
    stack += (nr - nc) * (nr - nc);
  }
  s.memory_host = 8 * s.num_factor + static_cast<offset_t>(sizeof(index_t)) * static_cast<offset_t>(s.rlist.size()) +
                  8 * peak;
}

}  // namespace detail
}  // namespace ssids
