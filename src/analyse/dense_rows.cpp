// dense_rows.cpp — dense rows out of the ordered graph, eliminated last (see dense_rows.hpp). O(n + edges).
#include "analyse/dense_rows.hpp"

#include <algorithm>
#include <cmath>

namespace ssids {
namespace detail {

Vector<index_t> dense_vertices(const Graph& g) {
  const double limit = dense_degree(g.n);
  Vector<index_t> dense;
  for (index_t v = 0; v < g.n; ++v)
    if (static_cast<double>(g.ptr[v + 1] - g.ptr[v]) > limit) dense.push_back(v);
  std::stable_sort(dense.begin(), dense.end(),
                   [&](index_t x, index_t y) { return g.ptr[x + 1] - g.ptr[x] < g.ptr[y + 1] - g.ptr[y]; });
  return dense;
}

offset_t sparse_part_edges(const Graph& g) {
  const Vector<index_t> dense = dense_vertices(g);
  offset_t edges = g.num_edges();
  if (dense.empty()) return edges;
  Vector<char> is_dense(static_cast<size_t>(g.n), 0);
  for (index_t v : dense) is_dense[v] = 1;
  // each edge at a dense vertex is stored at both ends; an edge between two dense vertices at dense ends only
  for (index_t v : dense) {
    edges -= 2 * (g.ptr[v + 1] - g.ptr[v]);
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) edges += is_dense[g.adj[e]];
  }
  return edges;
}

Vector<index_t> order_dense_last(const Graph& g, const index_t* vwgt,
                                 Vector<index_t> (*order)(const Graph& g, const index_t* vwgt)) {
  const Vector<index_t> dense = dense_vertices(g);
  if (dense.empty()) return order(g, vwgt);
  const index_t n = g.n;
  Vector<index_t> local(static_cast<size_t>(n), 0), ids;
  for (index_t v : dense) local[v] = -1;
  ids.reserve(static_cast<size_t>(n) - dense.size());
  for (index_t v = 0; v < n; ++v)
    if (local[v] == 0) {
      local[v] = static_cast<index_t>(ids.size());
      ids.push_back(v);
    }
  Graph rest;
  rest.n = static_cast<index_t>(ids.size());
  rest.ptr.assign(static_cast<size_t>(rest.n) + 1, 0);
  Vector<index_t> w;
  if (vwgt) w.resize(ids.size());
  for (index_t r = 0; r < rest.n; ++r) {
    const index_t v = ids[r];
    if (vwgt) w[r] = vwgt[v];
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e)
      if (local[g.adj[e]] >= 0) rest.adj.push_back(local[g.adj[e]]);
    rest.ptr[r + 1] = static_cast<offset_t>(rest.adj.size());
  }
  const Vector<index_t> p = order(rest, vwgt ? w.data() : nullptr);
  Vector<index_t> perm;
  perm.reserve(static_cast<size_t>(n));
  for (index_t k = 0; k < rest.n; ++k) perm.push_back(ids[p[k]]);
  perm.insert(perm.end(), dense.begin(), dense.end());
  return perm;
}

}  // namespace detail
}  // namespace ssids
