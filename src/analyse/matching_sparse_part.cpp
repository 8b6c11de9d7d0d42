// matching_sparse_part.cpp — the matching ordering's values side without the dense rows (see
// matching_sparse_part.hpp). O(n + nnz) besides the matching of the sparse part.
#include "analyse/matching_sparse_part.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analyse/profile.hpp"
#include "common/dense.hpp"
#include "common/matching.hpp"
#include "scaling/scaling.hpp"

namespace ssids {
namespace detail {

namespace {

/// Whether a maximum matching of the whole matrix is perfect, given the perfect matching m of its sparse part
/// f (numbered loc; glob: the inverse): each dense column in turn starts a depth-first search for an
/// augmenting path (MC21 with lookahead; only dense rows are free), on the pattern: the entries of the sparse
/// part with a nonzero value, the dense rows' entries (all nonzero, checked by the caller) from g, and the
/// dense diagonal entries that are nonzero (ddiag, by dense rank).
bool dense_columns_matchable(const Graph& g, const FullSymmetric& f, const MatchingResult& m,
                             const Vector<index_t>& loc, const Vector<index_t>& glob, const Vector<index_t>& dense,
                             const Vector<index_t>& rank, const Vector<double>& ddiag) {
  const index_t n = g.n;
  const size_t un = static_cast<size_t>(n);
  Vector<index_t> col_of_row(un, -1);
  for (index_t v = 0; v < f.n; ++v) col_of_row[glob[v]] = glob[m.col_of_row[v]];
  // the rows of column c, entry t: a dense column's diagonal (t = 0), then its graph neighbours; a sparse
  // column's graph neighbours that are dense, then its rows in the sparse part. -1: no entry there.
  auto length = [&](index_t c) {
    const offset_t deg = g.ptr[c + 1] - g.ptr[c];
    return loc[c] < 0 ? 1 + deg : deg + (f.ptr[loc[c] + 1] - f.ptr[loc[c]]);
  };
  auto row_at = [&](index_t c, offset_t t) -> index_t {
    const offset_t deg = g.ptr[c + 1] - g.ptr[c];
    if (loc[c] < 0) return t == 0 ? (ddiag[rank[c]] != 0.0 ? c : -1) : g.adj[g.ptr[c] + t - 1];
    if (t < deg) {
      const index_t r = g.adj[g.ptr[c] + t];
      return loc[r] < 0 ? r : -1;
    }
    const offset_t q = f.ptr[loc[c]] + (t - deg);
    return f.val[q] != 0.0 ? glob[f.row[q]] : -1;
  };
  // the free rows are dense: a lookahead reads a column's entries up to where they can hold one (a dense
  // column: all of them; a sparse one: its graph neighbours), from where it stopped before (rows never become
  // free again)
  auto look_end = [&](index_t c) { return loc[c] < 0 ? length(c) : g.ptr[c + 1] - g.ptr[c]; };
  Vector<offset_t> look(un, 0);
  Vector<index_t> visited(un, -1);
  Vector<index_t> scol, srow;
  Vector<offset_t> snext;
  for (index_t d0 : dense) {
    scol.assign(1, d0);
    snext.assign(1, 0);
    srow.clear();
    index_t free_row = -1;
    while (!scol.empty() && free_row == -1) {
      const index_t c = scol.back();
      for (const offset_t end = look_end(c); look[c] < end; ++look[c]) {
        const index_t r = row_at(c, look[c]);
        if (r != -1 && col_of_row[r] == -1) {
          free_row = r;
          break;
        }
      }
      if (free_row != -1) break;
      offset_t& t = snext.back();
      const offset_t len = length(c);
      index_t r = -1;
      for (; t < len; ++t) {
        r = row_at(c, t);
        if (r != -1 && visited[r] != d0) break;
      }
      if (t == len) {
        scol.pop_back();
        snext.pop_back();
        if (!srow.empty()) srow.pop_back();
        continue;
      }
      ++t;
      visited[r] = d0;
      srow.push_back(r);
      scol.push_back(col_of_row[r]);
      snext.push_back(0);
    }
    if (free_row == -1) return false;
    // the top column takes the free row, each column below it the row it descended through
    index_t r = free_row;
    for (size_t s = scol.size(); s-- > 0;) {
      col_of_row[r] = scol[s];
      if (s > 0) r = srow[s - 1];
    }
  }
  return true;
}

}  // namespace

bool sparse_part_input(const CscView& a, bool degree_dense) {
  const index_t n = a.n;
  if (n <= 0 || (a.ptr[n] > a.ptr[0] && !a.val)) return false;
  const offset_t p0 = a.ptr[0];
  Vector<offset_t> degree;
  if (degree_dense) degree.assign(static_cast<size_t>(n), 0);
  for (index_t j = 0; j < n; ++j) {
    index_t last = j - 1;
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
      const index_t i = a.row[k] - a.base;
      if (i <= last || i >= n || !std::isfinite(a.val[k])) return false;
      last = i;
      if (degree_dense && i != j) {
        ++degree[i];
        ++degree[j];
      }
    }
  }
  if (!degree_dense) return true;
  const double limit = dense_degree(n);
  for (index_t v = 0; v < n; ++v)
    if (static_cast<double>(degree[v]) > limit) return true;
  return false;
}

bool matching_pairs_sparse_part(const Graph& g, const CscView& a, const Vector<index_t>& dense, MatchingPairs& out,
                                AnalyseProfile* profile) {
  PhaseTimer timer(profile);
  const index_t n = a.n;
  // for a few dense rows: where most are dense (a small dense matrix), the whole matrix's matching gives
  // every row its matched entry at 1
  if (dense.empty() || 2 * static_cast<offset_t>(dense.size()) > n || !sparse_part_input(a, false)) return false;
  const size_t un = static_cast<size_t>(n);
  const offset_t p0 = a.ptr[0];
  const index_t nd = static_cast<index_t>(dense.size());
  Vector<index_t> loc(un, 0), rank(un, -1), glob;
  for (index_t r = 0; r < nd; ++r) {
    loc[dense[r]] = -1;
    rank[dense[r]] = r;
  }
  glob.reserve(un - dense.size());
  for (index_t v = 0; v < n; ++v)
    if (loc[v] == 0) {
      loc[v] = static_cast<index_t>(glob.size());
      glob.push_back(v);
    }
  const index_t ns = static_cast<index_t>(glob.size());
  Vector<double> neg_log_abs;  // one logarithm per entry of the lower triangle
  const FullSymmetric f = full_from_sorted_lower(a, &neg_log_abs, &loc, ns);
  MatchingCosts costs(ns, f.ptr.data(), std::move(neg_log_abs));
  timer.lap("full matrix");

  // the sparse part's matching and scaling; where it is not perfect or its duals drift, the whole matrix's
  ScalingInfo info;
  MatchingResult m;
  const Vector<double> sparse_scale = matching_scaling(f, info, &m, &costs);
  if (info.fallback || info.structurally_singular) return false;
  Vector<double> s(un, 1.0);
  for (index_t v = 0; v < ns; ++v) s[glob[v]] = sparse_scale[v];
  // the dense indices' scales: the largest with every scaled entry towards the sparse part at most 1, then
  // lowered for the dense-dense entries in elimination order (by rank); a dense entry that is an explicit
  // zero leaves the pattern of the matching unknown here
  Vector<double> big(static_cast<size_t>(nd), 0.0), ddiag(static_cast<size_t>(nd), 0.0);
  struct DenseEntry {
    index_t later, earlier;  // ranks
    double magnitude;
  };
  Vector<DenseEntry> dense_dense;
  for (index_t j = 0; j < n; ++j) {
    const bool sparse_col = loc[j] >= 0;
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
      const index_t i = a.row[k] - a.base;
      const bool sparse_row = loc[i] >= 0;
      if (sparse_col && sparse_row) continue;
      const double x = std::fabs(a.val[k]);
      if (i == j) {
        ddiag[rank[j]] = x;
        continue;
      }
      if (x == 0.0) return false;
      if (sparse_col) {
        big[rank[i]] = std::max(big[rank[i]], x * s[j]);
      } else if (sparse_row) {
        big[rank[j]] = std::max(big[rank[j]], x * s[i]);
      } else {
        dense_dense.push_back(DenseEntry{std::max(rank[i], rank[j]), std::min(rank[i], rank[j]), x});
      }
    }
  }
  std::sort(dense_dense.begin(), dense_dense.end(),
            [](const DenseEntry& x, const DenseEntry& y) { return x.later < y.later; });
  size_t next_entry = 0;
  for (index_t r = 0; r < nd; ++r) {
    double sd = big[r] > 0.0 && std::isfinite(1.0 / big[r]) ? 1.0 / big[r] : 1.0;
    if (ddiag[r] > 0.0) {
      const double t = 1.0 / std::sqrt(ddiag[r]);
      if (std::isfinite(t)) sd = std::min(sd, t);
    }
    for (; next_entry < dense_dense.size() && dense_dense[next_entry].later == r; ++next_entry) {
      const DenseEntry& e = dense_dense[next_entry];
      const double t = 1.0 / (e.magnitude * s[dense[e.earlier]]);
      if (t > 0.0 && std::isfinite(t)) sd = std::min(sd, t);
    }
    s[dense[r]] = sd;
  }
  if (!dense_columns_matchable(g, f, m, loc, glob, dense, rank, ddiag)) return false;
  timer.lap("matching");

  // the pairs from the sparse part's matching, the dense indices unmatched (so never paired); then the scaled
  // magnitudes along g's adjacency, which for this input follows its entries: clean_pattern's scatter
  out.scale = std::move(s);
  out.matched = n;
  out.structurally_singular = false;
  MatchingResult whole;
  whole.row_of_col.assign(un, -1);
  whole.col_of_row.assign(un, -1);
  Vector<double> diag(un, 0.0);
  for (index_t v = 0; v < ns; ++v) {
    whole.row_of_col[glob[v]] = glob[m.row_of_col[v]];
    whole.col_of_row[glob[v]] = glob[m.col_of_row[v]];
  }
  for (index_t r = 0; r < nd; ++r) diag[dense[r]] = ddiag[r];
  out.weight.resize(static_cast<size_t>(g.num_edges()));
  out.diag.assign(un, 0.0f);
  const Vector<double>& sc = out.scale;
  Vector<offset_t> next(g.ptr.begin(), g.ptr.end() - 1);
  for (index_t c = 0; c < n; ++c)
    for (offset_t k = a.ptr[c] - p0; k < a.ptr[c + 1] - p0; ++k) {
      const index_t r = a.row[k] - a.base;
      const double x = std::fabs(a.val[k]);
      if (r == c) {
        if (loc[c] >= 0) diag[c] = x;
        out.diag[c] = static_cast<float>(x * sc[c] * sc[c]);
        continue;
      }
      out.weight[next[r]++] = static_cast<float>(x * sc[c] * sc[r]);
      out.weight[next[c]++] = static_cast<float>(x * sc[r] * sc[c]);
    }
  add_pairs(diag, whole, out);
  timer.lap("pairs");
  return true;
}

}  // namespace detail
}  // namespace ssids
