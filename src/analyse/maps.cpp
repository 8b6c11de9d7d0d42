// maps.cpp — row lists, cmap and amap of the assembly tree (see maps.hpp, symbolic.hpp).
//
// Conventions: 0-based; rows are pivot positions of the final order. Nodes are in a postorder, so a single
// increasing sweep sees every child before its parent. A node's row list is the union of its own columns,
// its children's row lists minus the children's eliminated columns, and the rows of the A entries of its
// columns (Liu, "The multifrontal method for sparse matrix solution: theory and practice", SIAM Review 34,
// 1992). This touches each row list a constant number of times (plus a sort of each node's non-pivot rows),
// never the columns of L.
#include <algorithm>

#include "analyse/maps.hpp"
#include "analyse/tasks.hpp"

namespace ssids {
namespace detail {

void build_children(Symbolic& s) {
  // counting sort of nodes by parent; increasing node order inside each list
  s.child_ptr.assign(static_cast<size_t>(s.nsup) + 1, 0);
  for (index_t v = 0; v < s.nsup; ++v)
    if (s.sparent[v] != -1) ++s.child_ptr[s.sparent[v] + 1];
  for (index_t v = 0; v < s.nsup; ++v) s.child_ptr[v + 1] += s.child_ptr[v];
  s.child_list.resize(static_cast<size_t>(s.child_ptr[s.nsup]));
  Vector<index_t> next(s.child_ptr.begin(), s.child_ptr.end() - 1);
  for (index_t v = 0; v < s.nsup; ++v)
    if (s.sparent[v] != -1) s.child_list[next[s.sparent[v]]++] = v;
}

void build_row_lists(const Graph& g, Symbolic& s) {
  s.rptr.assign(static_cast<size_t>(s.nsup) + 1, 0);
  s.rlist.clear();
  Vector<index_t> mark(static_cast<size_t>(s.n), -1), extra;
  for (index_t v = 0; v < s.nsup; ++v) {
    const index_t first = s.sptr[v], last = s.sptr[v + 1];  // own columns first .. last-1
    for (index_t c = first; c < last; ++c) {
      s.rlist.push_back(c);
      mark[c] = v;
    }
    extra.clear();
    for (index_t t = s.child_ptr[v]; t < s.child_ptr[v + 1]; ++t) {
      const index_t ch = s.child_list[t];
      // all of a child's non-pivot rows are columns of v or of its ancestors, hence >= first
      for (offset_t k = s.rptr[ch] + s.ncol(ch); k < s.rptr[ch + 1]; ++k) {
        const index_t r = s.rlist[k];
        if (mark[r] != v) {
          mark[r] = v;
          extra.push_back(r);
        }
      }
    }
    // the rows of A below the node's columns (none for a node ending at the last position, such as the one
    // holding the dense rows, whose long adjacency lists are then not read)
    for (index_t c = first; c < last && last < s.n; ++c) {
      const index_t var = s.perm[c];
      for (offset_t e = g.ptr[var]; e < g.ptr[var + 1]; ++e) {
        const index_t r = s.invp[g.adj[e]];
        if (r >= last && mark[r] != v) {
          mark[r] = v;
          extra.push_back(r);
        }
      }
    }
    std::sort(extra.begin(), extra.end());
    s.rlist.insert(s.rlist.end(), extra.begin(), extra.end());
    s.rptr[v + 1] = static_cast<offset_t>(s.rlist.size());
  }
  s.rlist.shrink_to_fit();
}

void build_cmap(Symbolic& s) {
  s.cmap.assign(s.rlist.size(), -1);
  Vector<index_t> pos(static_cast<size_t>(s.n), -1);
  for (index_t p = 0; p < s.nsup; ++p) {
    if (s.child_ptr[p] == s.child_ptr[p + 1]) continue;
    for (offset_t k = s.rptr[p]; k < s.rptr[p + 1]; ++k) pos[s.rlist[k]] = static_cast<index_t>(k - s.rptr[p]);
    for (index_t t = s.child_ptr[p]; t < s.child_ptr[p + 1]; ++t) {
      const index_t ch = s.child_list[t];
      for (offset_t k = s.rptr[ch] + s.ncol(ch); k < s.rptr[ch + 1]; ++k) s.cmap[k] = pos[s.rlist[k]];
    }
  }
}

void build_amap(const CscView& a, Symbolic& s) {
  const index_t n = s.n;
  s.amap_ptr.assign(static_cast<size_t>(s.nsup) + 1, 0);
  s.amap.clear();
  if (n == 0) return;
  Vector<index_t> col_node(static_cast<size_t>(n));
  for (index_t v = 0; v < s.nsup; ++v)
    for (index_t c = s.sptr[v]; c < s.sptr[v + 1]; ++c) col_node[c] = v;
  const offset_t p0 = a.ptr[0];
  // The entries in two halves of the columns, side by side (tasks.hpp) when there are many: each half counted
  // per node, then placed in src order with the first half's entries of a node before the second's, so each
  // node's entries are sorted by src whatever the split; global (row, col) for now.
  const offset_t nnz = a.ptr[n] - p0;
  const index_t half = nnz < kAmapSplitEntries
                           ? n
                           : static_cast<index_t>(std::upper_bound(a.ptr, a.ptr + n, p0 + nnz / 2) - a.ptr - 1);
  Vector<offset_t> count_lo(static_cast<size_t>(s.nsup), 0), count_hi(static_cast<size_t>(s.nsup), 0);
  auto count = [&](index_t j0, index_t j1, Vector<offset_t>& count) {
    for (index_t j = j0; j < j1; ++j)
      for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
        const index_t i = a.row[k] - a.base;
        if (i < 0 || i >= n) continue;
        ++count[col_node[std::min(s.invp[i], s.invp[j])]];
      }
  };
  fork_join([&] { count(half, n, count_hi); }, [&] { count(0, half, count_lo); });
  for (index_t v = 0; v < s.nsup; ++v) s.amap_ptr[v + 1] = s.amap_ptr[v] + count_lo[v] + count_hi[v];
  s.amap.resize(static_cast<size_t>(s.amap_ptr[s.nsup]));
  auto place = [&](index_t j0, index_t j1, Vector<offset_t>& next) {  // next: where each node's entries go
    for (index_t j = j0; j < j1; ++j)
      for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
        const index_t i = a.row[k] - a.base;
        if (i < 0 || i >= n) continue;
        const index_t c = std::min(s.invp[i], s.invp[j]), r = std::max(s.invp[i], s.invp[j]);
        s.amap[next[col_node[c]]++] = AEntry{k, r, c};
      }
  };
  for (index_t v = 0; v < s.nsup; ++v) {
    count_hi[v] = s.amap_ptr[v] + count_lo[v];
    count_lo[v] = s.amap_ptr[v];
  }
  fork_join([&] { place(half, n, count_hi); }, [&] { place(0, half, count_lo); });
  // global positions to local ones, node by node: the nodes in two parts of about equal entries
  auto localize = [&](index_t v0, index_t v1) {
    Vector<index_t> pos(static_cast<size_t>(n), -1);
    for (index_t v = v0; v < v1; ++v) {
      for (offset_t k = s.rptr[v]; k < s.rptr[v + 1]; ++k) pos[s.rlist[k]] = static_cast<index_t>(k - s.rptr[v]);
      for (offset_t e = s.amap_ptr[v]; e < s.amap_ptr[v + 1]; ++e) {
        s.amap[e].lrow = pos[s.amap[e].lrow];
        s.amap[e].lcol -= s.sptr[v];
      }
    }
  };
  const index_t mid =
      half == n ? s.nsup
                : static_cast<index_t>(std::upper_bound(s.amap_ptr.begin(), s.amap_ptr.end(), s.amap_ptr[s.nsup] / 2) -
                                       s.amap_ptr.begin() - 1);
  fork_join([&] { localize(mid, s.nsup); }, [&] { localize(0, mid); });
}

}  // namespace detail
}  // namespace ssids
