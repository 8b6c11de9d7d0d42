// front_targets.cpp — see front_targets.hpp.
#include "factor/front_targets.hpp"

#include <algorithm>

namespace ssids {
namespace detail {

void build_front_targets(const Symbolic& sym, Vector<long long>& tptr, Vector<long long>& srcs,
                         Vector<gpu::ATarget>& targets) {
  tptr.assign(static_cast<size_t>(sym.nsup) + 1, 0);
  srcs.clear();
  targets.clear();
  srcs.reserve(sym.amap.size());
  Vector<offset_t> idx;
  for (index_t nd = 0; nd < sym.nsup; ++nd) {
    const offset_t b = sym.amap_ptr[nd], e = sym.amap_ptr[nd + 1];
    idx.clear();
    for (offset_t k = b; k < e; ++k) idx.push_back(k);
    // amap is sorted by src within a node: a stable sort keeps equal targets' sources in src order
    std::stable_sort(idx.begin(), idx.end(), [&](offset_t x, offset_t y) {
      const AEntry &a = sym.amap[x], &c = sym.amap[y];
      return a.lcol != c.lcol ? a.lcol < c.lcol : a.lrow < c.lrow;
    });
    for (size_t k = 0; k < idx.size();) {
      const AEntry& a = sym.amap[idx[k]];
      gpu::ATarget t;
      t.lrow = a.lrow;
      t.lcol = a.lcol;
      t.src_begin = static_cast<int>(srcs.size());
      size_t k2 = k;
      while (k2 < idx.size() && sym.amap[idx[k2]].lrow == a.lrow && sym.amap[idx[k2]].lcol == a.lcol)
        srcs.push_back(sym.amap[idx[k2++]].src);
      t.src_end = static_cast<int>(srcs.size());
      t.orig_col = sym.perm[sym.sptr[nd] + a.lcol];
      t.orig_row = sym.perm[sym.rlist[sym.rptr[nd] + a.lrow]];
      targets.push_back(t);
      k = k2;
    }
    tptr[nd + 1] = static_cast<long long>(targets.size());
  }
}

}  // namespace detail
}  // namespace ssids
