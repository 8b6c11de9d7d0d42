// nested_dissection.cpp — the top levels of METIS's nested dissection as tasks (see nested_dissection.hpp).
//
// order(subgraph): at most `leaf` vertices (or no edges): one METIS_NodeND call. Otherwise
// METIS_ComputeVertexSeparator gives parts 0, 1 and the separator S; the order is order(part 0), order(part 1),
// then S in increasing vertex number (the rows of S are eliminated last, their order among themselves does not
// change the fill of the parts). A bisection with an empty part (a clique, a star) is not recursed into: the
// subgraph is ordered by METIS_NodeND as a leaf. Each level builds the two induced subgraphs and frees its own
// graph before recursing, so the memory in use stays within a small multiple of the input graph's.
#include "analyse/nested_dissection.hpp"

#include <metis.h>

#include <algorithm>
#include <climits>
#include <string>

#include "analyse/metis_random.hpp"
#include "analyse/ordering.hpp"
#include "analyse/tasks.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

/// A subgraph: its graph, vertex weights (empty: all 1) and the original vertex of each of its vertices.
struct Sub {
  Graph g;
  Vector<index_t> w;
  Vector<index_t> ids;
};

/// METIS_ComputeVertexSeparator: part[v] = 0, 1 or 2 (separator).
Vector<idx_t> vertex_separator(const Sub& s) {
  const index_t n = s.g.n;
  if (s.g.num_edges() > static_cast<offset_t>(INT32_MAX))
    throw Error(flag::unknown, "METIS failed: the graph has " + std::to_string(s.g.num_edges()) +
                                   " adjacency entries, more than 32-bit METIS (idx_t) can index");
  Vector<idx_t> xadj(s.g.ptr.begin(), s.g.ptr.end()), adjncy(s.g.adj.begin(), s.g.adj.end()), vwgt, part(static_cast<size_t>(n));
  if (!s.w.empty()) vwgt.assign(s.w.begin(), s.w.end());
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t nv = n, sepsize = 0;
  MetisCall call;
  const int rc = METIS_ComputeVertexSeparator(&nv, xadj.data(), adjncy.data(), vwgt.empty() ? nullptr : vwgt.data(),
                                              options, &sepsize, part.data());
  if (rc != METIS_OK)
    throw Error(rc == METIS_ERROR_MEMORY ? flag::allocation : flag::unknown,
                "METIS failed: METIS_ComputeVertexSeparator returned " + std::to_string(rc));
  return part;
}

/// The subgraph induced by the vertices v with part[v] == p.
Sub induced(const Sub& s, const Vector<idx_t>& part, idx_t p, Vector<index_t>& local) {
  const index_t n = s.g.n;
  Sub t;
  index_t m = 0;
  for (index_t v = 0; v < n; ++v) local[v] = part[v] == p ? m++ : -1;
  t.g.n = m;
  t.g.ptr.assign(static_cast<size_t>(m) + 1, 0);
  t.ids.resize(static_cast<size_t>(m));
  if (!s.w.empty()) t.w.resize(static_cast<size_t>(m));
  offset_t edges = 0;
  for (index_t v = 0; v < n; ++v) {
    if (local[v] < 0) continue;
    for (offset_t e = s.g.ptr[v]; e < s.g.ptr[v + 1]; ++e) edges += local[s.g.adj[e]] >= 0;
  }
  t.g.adj.resize(static_cast<size_t>(edges));
  offset_t q = 0;
  for (index_t v = 0; v < n; ++v) {
    const index_t lv = local[v];
    if (lv < 0) continue;
    t.ids[lv] = s.ids[v];
    if (!s.w.empty()) t.w[lv] = s.w[v];
    for (offset_t e = s.g.ptr[v]; e < s.g.ptr[v + 1]; ++e) {
      const index_t u = local[s.g.adj[e]];
      if (u >= 0) t.g.adj[q++] = u;
    }
    t.g.ptr[lv + 1] = q;
  }
  return t;
}

/// Writes the order of s's vertices (original numbers) to out[0 .. s.g.n).
void order_sub(Sub s, index_t* out, index_t leaf) {
  const index_t n = s.g.n;
  auto as_leaf = [&] {
    const Vector<index_t> p = metis_order(s.g, s.w.empty() ? nullptr : s.w.data());
    for (index_t k = 0; k < n; ++k) out[k] = s.ids[p[k]];
  };
  if (n <= leaf || s.g.num_edges() == 0) return as_leaf();
  const Vector<idx_t> part = vertex_separator(s);
  index_t count[3] = {0, 0, 0};
  for (index_t v = 0; v < n; ++v) ++count[part[v]];
  if (count[0] == 0 || count[1] == 0) return as_leaf();
  Vector<index_t> local(static_cast<size_t>(n));
  Sub s0 = induced(s, part, 0, local);
  Sub s1 = induced(s, part, 1, local);
  index_t k = count[0] + count[1];
  for (index_t v = 0; v < n; ++v)
    if (part[v] == 2) out[k++] = s.ids[v];
  s = Sub{};  // free this level's graph before the parts are ordered
  index_t* out1 = out + count[0];
  fork_join([&s0, out, leaf] { order_sub(std::move(s0), out, leaf); },
            [&s1, out1, leaf] { order_sub(std::move(s1), out1, leaf); });
}

/// Vertices with identical closed neighbourhoods (adjacency plus the vertex itself), as METIS_NodeND's
/// compression finds them: group[v] = the group's number; returns the number of groups.
index_t identical_groups(const Graph& g, Vector<index_t>& group) {
  const index_t n = g.n;
  Vector<std::pair<std::uint64_t, index_t>> keys(static_cast<size_t>(n));
  for (index_t v = 0; v < n; ++v) {
    std::uint64_t sum = static_cast<std::uint64_t>(v);
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) sum += static_cast<std::uint64_t>(g.adj[e]);
    keys[v] = {sum * 1000003u + static_cast<std::uint64_t>(g.ptr[v + 1] - g.ptr[v]), v};
  }
  std::sort(keys.begin(), keys.end());
  group.assign(static_cast<size_t>(n), -1);
  Vector<index_t> mark(static_cast<size_t>(n), -1);
  index_t ng = 0;
  for (size_t a = 0; a < keys.size(); ++a) {
    const index_t v = keys[a].second;
    if (group[v] != -1) continue;
    group[v] = ng;
    const offset_t deg = g.ptr[v + 1] - g.ptr[v];
    mark[v] = v;
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) mark[g.adj[e]] = v;
    for (size_t b = a + 1; b < keys.size() && keys[b].first == keys[a].first; ++b) {
      const index_t u = keys[b].second;
      if (group[u] != -1 || mark[u] != v || g.ptr[u + 1] - g.ptr[u] != deg) continue;
      bool same = true;  // N[u] = N[v]: same size, and every neighbour of u is in N[v]
      for (offset_t e = g.ptr[u]; e < g.ptr[u + 1] && same; ++e) same = mark[g.adj[e]] == v;
      if (same) group[u] = ng;
    }
    ++ng;
  }
  // renumber the groups by their first member, so that the compressed graph keeps the input's numbering
  Vector<index_t> renum(static_cast<size_t>(ng), -1);
  index_t next = 0;
  for (index_t v = 0; v < n; ++v) {
    if (renum[group[v]] == -1) renum[group[v]] = next++;
    group[v] = renum[group[v]];
  }
  return ng;
}

}  // namespace

Vector<index_t> nested_dissection_order(const Graph& g, const index_t* vwgt, index_t leaf) {
  const index_t n = g.n;
  if (n <= leaf || g.num_edges() == 0) return metis_order(g, vwgt);
  Vector<index_t> perm(static_cast<size_t>(n));
  Vector<index_t> group;
  const index_t ng = identical_groups(g, group);
  if (ng > static_cast<index_t>(0.85 * n)) {
    Sub s;
    s.g = g;
    if (vwgt) s.w.assign(vwgt, vwgt + n);
    s.ids.resize(static_cast<size_t>(n));
    for (index_t v = 0; v < n; ++v) s.ids[v] = v;
    order_sub(std::move(s), perm.data(), leaf);
    return perm;
  }
  // the compressed graph: one vertex per group (numbered by first member), weight = members' weights
  Sub s;
  s.g.n = ng;
  s.g.ptr.assign(static_cast<size_t>(ng) + 1, 0);
  s.w.assign(static_cast<size_t>(ng), 0);
  s.ids.resize(static_cast<size_t>(ng));
  Vector<index_t> mark(static_cast<size_t>(ng), -1), first_of(static_cast<size_t>(ng), -1),
      last(static_cast<size_t>(ng), -1), next_member(static_cast<size_t>(n), -1);
  for (index_t v = 0; v < n; ++v) {  // members of each group in increasing order, as a linked list
    const index_t c = group[v];
    s.w[c] += vwgt ? vwgt[v] : 1;
    if (first_of[c] == -1) first_of[c] = v;
    else next_member[last[c]] = v;
    last[c] = v;
  }
  for (index_t c = 0; c < ng; ++c) {
    s.ids[c] = c;
    mark[c] = c;
    const index_t v = first_of[c];
    for (offset_t e = g.ptr[v]; e < g.ptr[v + 1]; ++e) {
      const index_t d = group[g.adj[e]];
      if (mark[d] != c) {
        mark[d] = c;
        s.g.adj.push_back(d);
      }
    }
    s.g.ptr[c + 1] = static_cast<offset_t>(s.g.adj.size());
  }
  Vector<index_t> cperm(static_cast<size_t>(ng));
  order_sub(std::move(s), cperm.data(), leaf);
  index_t k = 0;
  for (index_t t = 0; t < ng; ++t)
    for (index_t v = first_of[cperm[t]]; v != -1; v = next_member[v]) perm[k++] = v;
  return perm;
}

}  // namespace detail
}  // namespace ssids
