// ordering_matching.cpp — matching-based compressed ordering (see ordering_matching.hpp).
//
// Hogg & Scott, "Pivoting strategies for tough sparse indefinite systems", ACM TOMS 40(1), 2013, §3, after
// Duff & Pralet 2005: a maximum-product matching m (Duff & Koster 2001) of the symmetric matrix puts large
// entries on a_{m(j), j}. Splitting the permutation m into cycles, a fixed point j = m(j) is a good 1x1 pivot
// and consecutive cycle members (j, m(j)) are good 2x2 pivots. Such pairs are kept together by ordering a
// compressed graph in which each pair is one vertex; expanding that order puts the pair's two variables
// next to each other, so the elimination tree makes the first the child of the second (a_{m(j), j} != 0)
// and the postorder keeps them adjacent. With the matching, the symmetrized scaling is returned so
// factor() can use it (Scaling::from_ordering). Structurally singular: unmatched variables are singletons;
// open chains of the partial matching are split into pairs like cycles. Cost: the matching plus O(nnz).
// Conventions: 0-based inside; perm[k] = variable at pivot position k.
#include "analyse/ordering_matching.hpp"

#include "common/matching.hpp"
#include "scaling/scaling.hpp"

namespace ssids {
namespace detail {

MatchingOrder matching_order(const Graph& g, const CscView& a,
                             Vector<index_t> (*order_compressed)(const Graph& cg, const index_t* vwgt)) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  MatchingOrder out;
  FullSymmetric f = full_from_view(a);
  ScalingInfo info;
  MatchingResult m;
  out.scale = matching_scaling(f, info, &m);
  out.matched = info.matched;
  out.structurally_singular = info.structurally_singular;

  // split the matching j -> m(j) = row_of_col[j] into pairs: open chains from their start (an index whose
  // row is unmatched, so nothing maps to it), then the remaining cycles
  out.partner.assign(un, -1);
  Vector<char> seen(un, 0);
  auto walk = [&](index_t start) {
    index_t x = start;
    while (x != -1 && !seen[x]) {
      seen[x] = 1;
      const index_t y = m.row_of_col[x];
      if (y == -1 || y == x || seen[y]) break;  // end of chain, fixed point, or cycle closed
      seen[y] = 1;
      out.partner[x] = y;
      out.partner[y] = x;
      ++out.num_pairs;
      x = m.row_of_col[y];
    }
  };
  for (index_t j = 0; j < n; ++j)
    if (m.col_of_row[j] == -1) walk(j);
  for (index_t j = 0; j < n; ++j)
    if (!seen[j]) walk(j);

  // compressed graph: one vertex per pair or singleton
  Vector<index_t> cid(un, -1), first(un), second(un, -1), vwgt;
  index_t nc = 0;
  for (index_t j = 0; j < n; ++j) {
    if (cid[j] != -1) continue;
    cid[j] = nc;
    first[nc] = j;
    if (out.partner[j] != -1) {
      cid[out.partner[j]] = nc;
      second[nc] = out.partner[j];
    }
    ++nc;
  }
  vwgt.resize(static_cast<size_t>(nc));
  Graph cg;
  cg.n = nc;
  cg.ptr.assign(static_cast<size_t>(nc) + 1, 0);
  Vector<index_t> mark(static_cast<size_t>(nc), -1);
  for (index_t c = 0; c < nc; ++c) {
    vwgt[c] = second[c] == -1 ? 1 : 2;
    mark[c] = c;
    for (index_t v : {first[c], second[c]}) {
      if (v == -1) continue;
      for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
        const index_t d = cid[g.adj[e]];
        if (mark[d] != c) {
          mark[d] = c;
          cg.adj.push_back(d);
        }
      }
    }
    cg.ptr[c + 1] = static_cast<offset_t>(cg.adj.size());
  }
  Vector<index_t> cperm = order_compressed(cg, vwgt.data());
  out.perm.reserve(un);
  for (index_t k = 0; k < nc; ++k) {
    const index_t c = cperm[k];
    out.perm.push_back(first[c]);
    if (second[c] != -1) out.perm.push_back(second[c]);
  }
  return out;
}

}  // namespace detail
}  // namespace ssids
