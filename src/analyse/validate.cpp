// validate.cpp — argument checks and cleaning of the input pattern (see validate.hpp).
//
// The caller gives the lower triangle in CSC form, base 0 or 1. Following SPRAL's checking rules:
// out-of-range row indices are ignored, entries in the upper triangle (row < col) are mirrored, and
// duplicates (after mirroring) are kept for the factorization to sum. Here only the pattern is cleaned:
// duplicates are merged and the diagonal dropped to form the graph of A + A^T used by the ordering and the
// symbolic factorization. Cost O(n + nnz_in), two passes over the entries (one check and the graph's scatter
// when the input is already a clean lower triangle).
#include "analyse/validate.hpp"

#include <algorithm>
#include <climits>

#include "analyse/tasks.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {
int clamp_count(offset_t v) { return v > INT_MAX ? INT_MAX : static_cast<int>(v); }

/// The graph of an input that is already clean, a lower triangle with strictly increasing rows in every
/// column, all in range (what most callers pass): nothing is mirrored, dropped or merged, so the graph is
/// scattered from the input itself, in the adjacency order of clean_pattern's general path (whose cleaned
/// lower triangle would be the input). Returns false, leaving `check` and `g` as they were, for any other input.
/// Large inputs in two halves of the columns side by side (tasks.hpp): a vertex's neighbours from the first
/// half come before those from the second, as the columns' order puts them.
bool clean_lower_graph(const CscView& a, InputCheck& check, Graph& g) {
  const index_t n = a.n;
  const offset_t p0 = a.ptr[0];
  const offset_t nnz = a.ptr[n] - p0;
  const index_t half = nnz < kCleanSplitEntries
                           ? n
                           : static_cast<index_t>(std::upper_bound(a.ptr, a.ptr + n, p0 + nnz / 2) - a.ptr - 1);
  Vector<offset_t> degree_lo(static_cast<size_t>(n), 0), degree_hi;
  if (half < n) degree_hi.assign(static_cast<size_t>(n), 0);
  offset_t missing_lo = 0, missing_hi = 0;
  bool clean_lo = true, clean_hi = true;
  auto count = [&](index_t j0, index_t j1, Vector<offset_t>& degree, offset_t& missing, bool& clean) {
    for (index_t j = j0; j < j1; ++j) {
      index_t last = j - 1;
      bool diag = false;
      for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
        const index_t i = a.row[k] - a.base;
        if (i <= last || i >= n) {
          clean = false;
          return;
        }
        last = i;
        if (i == j) {
          diag = true;
        } else {
          ++degree[i];
          ++degree[j];
        }
      }
      missing += !diag;
    }
  };
  fork_join([&] { count(half, n, degree_hi, missing_hi, clean_hi); },
            [&] { count(0, half, degree_lo, missing_lo, clean_lo); });
  if (!clean_lo || !clean_hi) return false;
  check.nnz = check.nnz_in;
  check.missing_diag = clamp_count(missing_lo + missing_hi);
  for (index_t v = 0; v < n; ++v) g.ptr[v + 1] = g.ptr[v] + degree_lo[v] + (half < n ? degree_hi[v] : 0);
  g.adj.resize(static_cast<size_t>(g.ptr[n]));
  // where each half's neighbours of every vertex go (reusing the degree arrays)
  for (index_t v = 0; v < n; ++v) {
    if (half < n) degree_hi[v] = g.ptr[v] + degree_lo[v];
    degree_lo[v] = g.ptr[v];
  }
  auto scatter = [&](index_t j0, index_t j1, Vector<offset_t>& next) {
    for (index_t c = j0; c < j1; ++c)
      for (offset_t k = a.ptr[c] - p0; k < a.ptr[c + 1] - p0; ++k) {
        const index_t r = a.row[k] - a.base;
        if (r == c) continue;
        g.adj[next[r]++] = c;
        g.adj[next[c]++] = r;
      }
  };
  fork_join([&] { scatter(half, n, degree_hi); }, [&] { scatter(0, half, degree_lo); });
  return true;
}
}  // namespace

void check_arguments(const CscView& a) {
  if (a.n < 0) throw Error(flag::bad_n, "analyse: n = " + std::to_string(a.n) + " is negative");
  if (a.base != 0 && a.base != 1)
    throw Error(flag::bad_input, "analyse: index base " + std::to_string(a.base) + " is neither 0 nor 1");
  if (a.n == 0) return;
  if (!a.ptr) throw Error(flag::missing_data, "analyse: ptr is null");
  if (a.ptr[0] != a.base)
    throw Error(flag::bad_ptr, "analyse: ptr[0] = " + std::to_string(a.ptr[0]) + " differs from the index base " +
                                   std::to_string(a.base));
  for (index_t j = 0; j < a.n; ++j)
    if (a.ptr[j + 1] < a.ptr[j])
      throw Error(flag::bad_ptr, "analyse: ptr decreases between columns " + std::to_string(j) + " and " +
                                     std::to_string(j + 1) + " (0-based)");
  // A null row array is only an error when there are entries to read (an empty std::vector's data() may be null).
  if (!a.row && a.ptr[a.n] > a.ptr[0]) throw Error(flag::missing_data, "analyse: row is null");
}

Graph clean_pattern(const CscView& a, InputCheck& check) {
  const index_t n = a.n;
  check = InputCheck{};
  Graph g;
  g.n = n;
  g.ptr.assign(static_cast<size_t>(n) + 1, 0);
  if (n == 0) return g;
  const offset_t p0 = a.ptr[0];
  check.nnz_in = a.ptr[n] - p0;
  if (clean_lower_graph(a, check, g)) return g;

  // Pass 1: count the in-range entries of each column of the lower triangle (after mirroring).
  Vector<offset_t> lptr(static_cast<size_t>(n) + 1, 0);
  offset_t outrange = 0, upper = 0;
  for (index_t j = 0; j < n; ++j) {
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
      const index_t i = a.row[k] - a.base;
      if (i < 0 || i >= n) {
        ++outrange;
        continue;
      }
      if (i < j) ++upper;
      ++lptr[std::min(i, j) + 1];
    }
  }
  if (check.nnz_in > 0 && outrange == check.nnz_in)
    throw Error(flag::all_out_of_range,
                "analyse: all " + std::to_string(check.nnz_in) + " entries have out-of-range row indices");
  for (index_t j = 0; j < n; ++j) lptr[j + 1] += lptr[j];

  // Pass 2: fill the lower triangle (duplicates still present).
  Vector<index_t> lrow(static_cast<size_t>(lptr[n]));
  {
    Vector<offset_t> next(lptr.begin(), lptr.end() - 1);
    for (index_t j = 0; j < n; ++j) {
      for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
        const index_t i = a.row[k] - a.base;
        if (i < 0 || i >= n) continue;
        const index_t c = std::min(i, j), r = std::max(i, j);
        lrow[next[c]++] = r;
      }
    }
  }

  // Merge duplicates column by column with a marker array (mark[r] == c: row r already seen in column c),
  // compacting lrow in place; record the diagonal.
  Vector<index_t> mark(static_cast<size_t>(n), -1);
  Vector<offset_t> degree(static_cast<size_t>(n), 0);
  offset_t dup = 0, missing = 0, out = 0;
  for (index_t c = 0; c < n; ++c) {
    const offset_t start = out;
    bool diag = false;
    for (offset_t k = lptr[c]; k < lptr[c + 1]; ++k) {
      const index_t r = lrow[k];
      if (mark[r] == c) {
        ++dup;
        continue;
      }
      mark[r] = c;
      lrow[out++] = r;
      if (r == c) {
        diag = true;
      } else {
        ++degree[r];
        ++degree[c];
      }
    }
    lptr[c] = start;
    if (!diag) ++missing;
  }
  lptr[n] = out;
  check.nnz = out;
  check.dup = clamp_count(dup);
  check.outrange = clamp_count(outrange);
  check.upper = clamp_count(upper);
  check.missing_diag = clamp_count(missing);

  // The graph of A + A^T: each off-diagonal entry (r, c) gives the edges r->c and c->r.
  for (index_t v = 0; v < n; ++v) g.ptr[v + 1] = g.ptr[v] + degree[v];
  g.adj.resize(static_cast<size_t>(g.ptr[n]));
  Vector<offset_t> next(g.ptr.begin(), g.ptr.end() - 1);
  for (index_t c = 0; c < n; ++c) {
    const offset_t end = (c + 1 < n) ? lptr[c + 1] : out;
    for (offset_t k = lptr[c]; k < end; ++k) {
      const index_t r = lrow[k];
      if (r == c) continue;
      g.adj[next[r]++] = c;
      g.adj[next[c]++] = r;
    }
  }
  return g;
}

int input_warning(const InputCheck& check, std::string& message) {
  // SPRAL's precedence: out-of-range (1) and duplicates (2) combine to 3; a missing diagonal gives 4,
  // or 5 when combined with either of the others.
  int w = 0;
  message.clear();
  auto add = [&message](const std::string& s) { message += (message.empty() ? "" : "; ") + s; };
  if (check.outrange > 0) {
    w = flag::out_of_range_ignored;
    add(std::to_string(check.outrange) + " out-of-range entries ignored");
  }
  if (check.dup > 0) {
    w = (w == 0) ? flag::duplicates_summed : flag::out_of_range_and_duplicates;
    add(std::to_string(check.dup) + " duplicate entries (summed)");
  }
  if (check.missing_diag > 0) {
    w = (w == 0) ? flag::missing_diagonal : flag::missing_diagonal_and_other;
    add(std::to_string(check.missing_diag) + " columns without a diagonal entry");
  }
  // inform.message stays empty on success, so mirrored entries are only mentioned alongside a warning
  if (w != 0 && check.upper > 0) add(std::to_string(check.upper) + " upper-triangle entries mirrored");
  return w;
}

}  // namespace detail
}  // namespace ssids
