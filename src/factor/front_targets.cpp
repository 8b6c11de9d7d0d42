// front_targets.cpp — see front_targets.hpp.
#include "factor/front_targets.hpp"

#include <algorithm>
#include <memory>

namespace ssids {
namespace detail {

void build_front_targets(const Symbolic& sym, Vector<long long>& tptr, Vector<long long>& srcs,
                         Vector<gpu::ATarget>& targets) {
  const index_t ns = sym.nsup;
  const size_t na = sym.amap.size();
  tptr.assign(static_cast<size_t>(ns) + 1, 0);
  // Every entry of amap is one source, and a node's sources follow its targets' order, so node nd's sources are
  // srcs[amap_ptr[nd] .. amap_ptr[nd+1]): the nodes are independent, sorted and counted side by side, then their
  // targets written at the offsets of the counts' prefix sums (the same arrays as one pass node after node).
  srcs.resize(na);
  std::unique_ptr<offset_t[]> order(new offset_t[na]);  // every entry written below (no serial first touch)
  const bool par = na >= 200000;
  auto same_place = [&](offset_t x, offset_t y) {
    return sym.amap[x].lrow == sym.amap[y].lrow && sym.amap[x].lcol == sym.amap[y].lcol;
  };
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (index_t nd = 0; nd < ns; ++nd) {
    const offset_t b = sym.amap_ptr[nd], e = sym.amap_ptr[nd + 1];
    for (offset_t k = b; k < e; ++k) order[k] = k;
    // amap is sorted by src within a node: a stable sort keeps equal targets' sources in src order
    std::stable_sort(order.get() + b, order.get() + e, [&](offset_t x, offset_t y) {
      const AEntry &a = sym.amap[x], &c = sym.amap[y];
      return a.lcol != c.lcol ? a.lcol < c.lcol : a.lrow < c.lrow;
    });
    long long unique = 0;
    for (offset_t k = b; k < e; ++k) {
      srcs[k] = sym.amap[order[k]].src;
      unique += k == b || !same_place(order[k], order[k - 1]);
    }
    tptr[nd + 1] = unique;
  }
  for (index_t nd = 0; nd < ns; ++nd) tptr[nd + 1] += tptr[nd];
  targets.resize(static_cast<size_t>(tptr[ns]));
#pragma omp parallel for schedule(dynamic, 64) if (par)
  for (index_t nd = 0; nd < ns; ++nd) {
    const offset_t b = sym.amap_ptr[nd], e = sym.amap_ptr[nd + 1];
    long long t = tptr[nd];
    for (offset_t k = b; k < e;) {
      const AEntry& a = sym.amap[order[k]];
      offset_t k2 = k + 1;
      while (k2 < e && same_place(order[k2], order[k])) ++k2;
      gpu::ATarget& tg = targets[static_cast<size_t>(t++)];
      tg.lrow = a.lrow;
      tg.lcol = a.lcol;
      tg.src_begin = static_cast<int>(k);
      tg.src_end = static_cast<int>(k2);
      tg.orig_col = sym.perm[sym.sptr[nd] + a.lcol];
      tg.orig_row = sym.perm[sym.rlist[sym.rptr[nd] + a.lrow]];
      k = k2;
    }
  }
}

}  // namespace detail
}  // namespace ssids
