// support_symbolic.cpp — oracles for the symbolic factorization (see support_symbolic.hpp).
// check_symbolic verifies every documented invariant of detail::Symbolic (symbolic.hpp) with doctest.
// Deliberately simple and independent of src/analyse: no elimination-tree tricks in the brute force,
// std::set / sorted std::vector structures everywhere. 0-based; the lower triangle is read, entries above
// the diagonal (if any) are mirrored.
#include "support_symbolic.hpp"

#include <algorithm>
#include <doctest/doctest.h>

#include <set>

#include "analyse/symbolic.hpp"

namespace ssids_test {

namespace {
// rows > k of column k of P A P^T, one set per pivot position
std::vector<std::set<int>> permuted_pattern(const ssids::SymmetricMatrix& a, const std::vector<int>& order) {
  std::vector<std::set<int>> s(static_cast<size_t>(a.n));
  for (int j = 0; j < a.n; ++j)
    for (auto k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      const int i = a.row[k];
      if (i < 0 || i >= a.n || i == j) continue;
      const int pi = order[i], pj = order[j];
      s[std::min(pi, pj)].insert(std::max(pi, pj));
    }
  return s;
}

void count_column(SymbolicCount& out, std::int64_t m) {
  out.nnz_l += m + 1;
  out.flops += m * m + 2 * m;
}
}  // namespace

SymbolicCount brute_force_symbolic(const ssids::SymmetricMatrix& a, const std::vector<int>& order) {
  std::vector<std::set<int>> s = permuted_pattern(a, order);
  SymbolicCount out;
  out.col_rows.resize(static_cast<size_t>(a.n));
  for (int k = 0; k < a.n; ++k) {
    // eliminating pivot k connects every pair of its remaining neighbours
    for (auto it = s[k].begin(); it != s[k].end(); ++it)
      for (auto jt = std::next(it); jt != s[k].end(); ++jt) s[*it].insert(*jt);
    count_column(out, static_cast<std::int64_t>(s[k].size()));
    out.col_rows[k].push_back(k);
    out.col_rows[k].insert(out.col_rows[k].end(), s[k].begin(), s[k].end());
  }
  return out;
}

SymbolicCount merged_symbolic(const ssids::SymmetricMatrix& a, const std::vector<int>& order, bool keep_rows) {
  const int n = a.n;
  std::vector<std::set<int>> sets = permuted_pattern(a, order);
  std::vector<std::vector<int>> col(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) col[k].assign(sets[k].begin(), sets[k].end());
  sets.clear();
  std::vector<std::vector<int>> pending(static_cast<size_t>(n));  // children's structures waiting for k
  SymbolicCount out;
  if (keep_rows) out.col_rows.resize(static_cast<size_t>(n));
  std::vector<int> merged;
  for (int k = 0; k < n; ++k) {
    for (int c : pending[k]) {
      merged.clear();
      // child's rows beyond k (k itself is the child's first row)
      auto from = std::upper_bound(col[c].begin(), col[c].end(), k);
      std::set_union(col[k].begin(), col[k].end(), from, col[c].end(), std::back_inserter(merged));
      col[k].swap(merged);
    }
    if (!col[k].empty()) pending[col[k].front()].push_back(k);
    count_column(out, static_cast<std::int64_t>(col[k].size()));
    if (keep_rows) {
      out.col_rows[k].push_back(k);
      out.col_rows[k].insert(out.col_rows[k].end(), col[k].begin(), col[k].end());
    }
    // a column's structure is needed until its parent is processed; release those of the children now
    for (int c : pending[k]) std::vector<int>().swap(col[c]);
  }
  return out;
}

std::vector<int> to_std(const ssids::Vector<ssids::index_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// Checks every documented invariant of symbolic.hpp for the analysis of `a` (a 0-based lower triangle,
// possibly with out-of-range/upper/duplicate entries as given by `view`). exact: nemin = 1, so the row lists
// must equal the exact structure of L; otherwise they must contain it.
void check_symbolic(const ssids::Analysis& an, const ssids::CscView& view, const ssids::SymmetricMatrix& clean,
                    bool exact) {
  using ssids::offset_t;
  const ssids::detail::Symbolic& s = an.symbolic();
  const int n = s.n;
  REQUIRE(n == view.n);
  // permutations
  REQUIRE(s.perm.size() == static_cast<size_t>(n));
  REQUIRE(s.invp.size() == static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    REQUIRE(s.perm[k] >= 0);
    REQUIRE(s.perm[k] < n);
    REQUIRE(s.invp[s.perm[k]] == k);
  }
  // supernode partition
  REQUIRE(s.sptr.size() == static_cast<size_t>(s.nsup) + 1);
  REQUIRE(s.sptr[0] == 0);
  REQUIRE(s.sptr[s.nsup] == n);
  for (int v = 0; v < s.nsup; ++v) REQUIRE(s.ncol(v) >= 1);
  std::vector<int> col_node(static_cast<size_t>(n));
  for (int v = 0; v < s.nsup; ++v)
    for (int c = s.sptr[v]; c < s.sptr[v + 1]; ++c) col_node[c] = v;
  // tree: children precede parents, child lists agree with sparent, node order is a postorder
  REQUIRE(s.sparent.size() == static_cast<size_t>(s.nsup));
  REQUIRE(s.child_ptr.size() == static_cast<size_t>(s.nsup) + 1);
  std::vector<int> size(static_cast<size_t>(s.nsup), 1);
  for (int v = 0; v < s.nsup; ++v) {
    if (s.sparent[v] != -1) {
      REQUIRE(s.sparent[v] > v);
      REQUIRE(s.sparent[v] < s.nsup);
      size[s.sparent[v]] += size[v];
    }
  }
  int nchildren = 0;
  for (int p = 0; p < s.nsup; ++p) {
    int expect_first = p - size[p] + 1;  // subtree of p is [p-size+1, p]
    for (int t = s.child_ptr[p]; t < s.child_ptr[p + 1]; ++t) {
      const int c = s.child_list[t];
      REQUIRE(s.sparent[c] == p);
      if (t > s.child_ptr[p]) REQUIRE(c > s.child_list[t - 1]);
      REQUIRE(c - size[c] + 1 == expect_first);  // contiguous, consecutive subtrees
      expect_first = c + 1;
      ++nchildren;
    }
    REQUIRE(expect_first == p);
  }
  REQUIRE(nchildren == static_cast<int>(std::count_if(s.sparent.begin(), s.sparent.end(), [](int p) { return p != -1; })));
  // row lists
  REQUIRE(s.rptr.size() == static_cast<size_t>(s.nsup) + 1);
  REQUIRE(s.rptr[0] == 0);
  REQUIRE(s.rlist.size() == static_cast<size_t>(s.rptr[s.nsup]));
  for (int v = 0; v < s.nsup; ++v) {
    const int nc = s.ncol(v), nr = s.nrow(v);
    REQUIRE(nr >= nc);
    for (int k = 0; k < nc; ++k) REQUIRE(s.rlist[s.rptr[v] + k] == s.sptr[v] + k);
    for (int k = nc; k < nr; ++k) {
      const int r = s.rlist[s.rptr[v] + k];
      REQUIRE(r < n);
      REQUIRE(r > (k == nc ? s.sptr[v + 1] - 1 : s.rlist[s.rptr[v] + k - 1]));
    }
    // the first non-pivot row is the elimination-tree parent of the node's last column: it lives in sparent
    if (nr > nc) {
      REQUIRE(s.sparent[v] != -1);
      CHECK(col_node[s.rlist[s.rptr[v] + nc]] == s.sparent[v]);
    } else {
      CHECK(s.sparent[v] == -1);
    }
  }
  // against the exact structure in the final order
  std::vector<int> order = to_std(an.order());
  REQUIRE(order == to_std(s.invp));
  const bool per_column = n <= 5000;  // keeping every column's rows costs O(nnz(L)) memory
  const SymbolicCount ex =
      n <= 120 ? brute_force_symbolic(clean, order) : merged_symbolic(clean, order, per_column);
  for (int v = 0; per_column && v < s.nsup; ++v) {
    std::set<int> rows(s.rlist.begin() + s.rptr[v], s.rlist.begin() + s.rptr[v + 1]);
    for (int c = s.sptr[v]; c < s.sptr[v + 1]; ++c) {
      for (int r : ex.col_rows[c]) {
        INFO("node " << v << " column " << c << " row " << r);
        REQUIRE(rows.count(r) == 1);
      }
      if (exact) {
        // column c of the node holds exactly its rows >= c
        std::vector<int> tail;
        for (int r : rows)
          if (r >= c) tail.push_back(r);
        REQUIRE(tail == ex.col_rows[c]);
      }
    }
  }
  if (exact) {
    CHECK(s.num_factor == ex.nnz_l);
    CHECK(s.num_flops == ex.flops);
  } else {
    CHECK(s.num_factor >= ex.nnz_l);
    CHECK(s.num_flops >= ex.flops);
  }
  // statistics recomputed from the definitions
  offset_t nf = 0, fl = 0;
  int maxfront = 0, maxsn = 0;
  for (int v = 0; v < s.nsup; ++v) {
    const offset_t nc = s.ncol(v), nr = s.nrow(v);
    for (offset_t k = 0; k < nc; ++k) {
      nf += nr - k;
      fl += (nr - k - 1) * (nr - k - 1) + 2 * (nr - k - 1);
    }
    maxfront = std::max<int>(maxfront, static_cast<int>(nr));
    maxsn = std::max<int>(maxsn, static_cast<int>(nc));
  }
  CHECK(nf == s.num_factor);
  CHECK(fl == s.num_flops);
  CHECK(maxfront == s.maxfront);
  CHECK(maxsn == s.maxsupernode);
  CHECK(an.num_factor() == s.num_factor);
  CHECK(s.memory_host >= 8 * s.num_factor);
  if (n > 0) CHECK(s.memory_host > 0);
  // levels
  REQUIRE(s.level_ptr.size() == static_cast<size_t>(s.num_levels) + 1);
  REQUIRE(s.level_ptr[0] == 0);
  REQUIRE(s.level_ptr[s.num_levels] == s.nsup);
  REQUIRE(s.level_nodes.size() == static_cast<size_t>(s.nsup));
  REQUIRE(s.node_level.size() == static_cast<size_t>(s.nsup));
  if (s.nsup > 0) REQUIRE(s.num_levels >= 1);
  for (int l = 0; l < s.num_levels; ++l) {
    REQUIRE(s.level_ptr[l + 1] > s.level_ptr[l]);  // no empty level
    for (int t = s.level_ptr[l]; t < s.level_ptr[l + 1]; ++t) {
      const int v = s.level_nodes[t];
      if (t > s.level_ptr[l]) REQUIRE(v > s.level_nodes[t - 1]);
      REQUIRE(s.node_level[v] == l);
      if (l == 0) REQUIRE(s.sparent[v] == -1);
      for (int c = s.child_ptr[v]; c < s.child_ptr[v + 1]; ++c) REQUIRE(s.node_level[s.child_list[c]] == l + 1);
    }
  }
  // cmap
  REQUIRE(s.cmap.size() == s.rlist.size());
  for (int v = 0; v < s.nsup; ++v) {
    const int p = s.sparent[v];
    for (int k = 0; k < s.nrow(v); ++k) {
      const int m = s.cmap[s.rptr[v] + k];
      if (p == -1 || k < s.ncol(v)) {
        REQUIRE(m == -1);
      } else {
        REQUIRE(m >= 0);
        REQUIRE(m < s.nrow(p));
        REQUIRE(s.rlist[s.rptr[p] + m] == s.rlist[s.rptr[v] + k]);
      }
    }
  }
  // amap: every in-range entry exactly once, mapping back to its (row, col)
  REQUIRE(s.amap_ptr.size() == static_cast<size_t>(s.nsup) + 1);
  REQUIRE(s.amap.size() == static_cast<size_t>(s.amap_ptr[s.nsup]));
  const offset_t nnz_in = n == 0 ? 0 : view.ptr[n] - view.ptr[0];
  std::vector<int> seen(static_cast<size_t>(nnz_in), 0);
  std::vector<int> src_col(static_cast<size_t>(nnz_in));
  for (int j = 0; j < n; ++j)
    for (offset_t k = view.ptr[j] - view.ptr[0]; k < view.ptr[j + 1] - view.ptr[0]; ++k) src_col[k] = j;
  for (int v = 0; v < s.nsup; ++v) {
    for (offset_t e = s.amap_ptr[v]; e < s.amap_ptr[v + 1]; ++e) {
      const auto& a = s.amap[e];
      REQUIRE(a.src >= 0);
      REQUIRE(a.src < nnz_in);
      if (e > s.amap_ptr[v]) REQUIRE(a.src > s.amap[e - 1].src);
      ++seen[a.src];
      REQUIRE(a.lcol >= 0);
      REQUIRE(a.lcol < s.ncol(v));
      REQUIRE(a.lrow >= a.lcol);
      REQUIRE(a.lrow < s.nrow(v));
      const int i = view.row[a.src] - view.base, j = src_col[a.src];
      const int pr = std::max(s.invp[i], s.invp[j]), pc = std::min(s.invp[i], s.invp[j]);
      REQUIRE(s.sptr[v] + a.lcol == pc);
      REQUIRE(s.rlist[s.rptr[v] + a.lrow] == pr);
    }
  }
  for (offset_t k = 0; k < nnz_in; ++k) {
    const int i = view.row[k] - view.base;
    const bool in_range = i >= 0 && i < n;
    REQUIRE(seen[k] == (in_range ? 1 : 0));
  }
}

}  // namespace ssids_test
