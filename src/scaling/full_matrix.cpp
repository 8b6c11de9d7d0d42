// full_matrix.cpp — both triangles of a symmetric matrix for the scalings and the matching ordering
// (see scaling.hpp). Input: the caller's lower triangle (CscView, base 0/1, cleaned by the same rules as
// analyse's validate.cpp: out-of-range entries ignored, upper-triangle entries mirrored, duplicates summed),
// or the analysis' amap (already cleaned). Output: 0-based CSC of A with both triangles, rows increasing
// within each column, duplicates merged; explicit zeros kept. Two counting sorts, O(n + nnz).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "common/matching.hpp"
#include "scaling/scaling.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace detail {

namespace {

struct Triplet {
  index_t i, j;  // i >= j
  double v;
};

/// Both triangles bucketed by row (rptr, rcol, rval: entries of row i in the order they were met) to columns
/// in increasing row order (a counting sort by column), duplicates merged: summed in the order met.
FullSymmetric rows_to_full(index_t n, const Vector<offset_t>& rptr, const Vector<index_t>& rcol,
                           const Vector<double>& rval) {
  FullSymmetric f;
  f.n = n;
  f.ptr.assign(static_cast<size_t>(n) + 1, 0);
  if (n == 0) return f;
  const size_t m = rcol.size();
  for (size_t k = 0; k < m; ++k) ++f.ptr[rcol[k] + 1];
  for (index_t j = 0; j < n; ++j) f.ptr[j + 1] += f.ptr[j];
  Vector<index_t> row(m);
  Vector<double> val(m);
  Vector<offset_t> next(f.ptr.begin(), f.ptr.end() - 1);
  for (index_t i = 0; i < n; ++i)
    for (offset_t k = rptr[i]; k < rptr[i + 1]; ++k) {
      const offset_t q = next[rcol[k]]++;
      row[q] = i;
      val[q] = rval[k];
    }
  // merge duplicates (adjacent after the scatter) in place
  offset_t out = 0;
  for (index_t j = 0; j < n; ++j) {
    const offset_t start = out;
    for (offset_t k = f.ptr[j]; k < f.ptr[j + 1]; ++k) {
      if (out > start && row[out - 1] == row[k]) {
        val[out - 1] += val[k];
      } else {
        row[out] = row[k];
        val[out] = val[k];
        ++out;
      }
    }
    f.ptr[j] = start;
  }
  f.ptr[n] = out;
  row.resize(static_cast<size_t>(out));
  val.resize(static_cast<size_t>(out));
  f.row = std::move(row);
  f.val = std::move(val);
  return f;
}

/// Sort the mirrored triplets by (column, row) with two counting sorts and merge duplicates.
FullSymmetric build_full(index_t n, const Vector<Triplet>& t) {
  if (n == 0) return rows_to_full(0, {}, {}, {});
  // bucket the entries of both triangles by row
  Vector<offset_t> rptr(static_cast<size_t>(n) + 1, 0);
  for (const Triplet& e : t) {
    ++rptr[e.i + 1];
    if (e.i != e.j) ++rptr[e.j + 1];
  }
  for (index_t i = 0; i < n; ++i) rptr[i + 1] += rptr[i];
  const size_t m = static_cast<size_t>(rptr[n]);
  Vector<index_t> rcol(m);
  Vector<double> rval(m);
  Vector<offset_t> next(rptr.begin(), rptr.end() - 1);
  for (const Triplet& e : t) {
    offset_t k = next[e.i]++;
    rcol[k] = e.j;
    rval[k] = e.v;
    if (e.i != e.j) {
      k = next[e.j]++;
      rcol[k] = e.i;
      rval[k] = e.v;
    }
  }
  return rows_to_full(n, rptr, rcol, rval);
}

}  // namespace

namespace {

/// full_from_sorted_lower with the renumbering `local` (local(i): i's number in the result, or -1 to leave
/// row and column i out; the identity for the whole matrix, whose checks the compiler then drops).
template <class Local>
FullSymmetric sorted_lower_to_full(const CscView& a, index_t ns, Local local, Vector<double>* neg_log_abs) {
  const index_t n = a.n;
  const offset_t p0 = a.ptr[0];
  // visit(li, lj, k) for every kept entry k, column by column (li >= lj)
  auto each_entry = [&](auto&& visit) {
    for (index_t j = 0; j < n; ++j) {
      const index_t lj = local(j);
      if (lj < 0) continue;
      for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
        const index_t li = local(a.row[k] - a.base);
        if (li >= 0) visit(li, lj, k);
      }
    }
  };
  FullSymmetric f;
  f.n = ns;
  f.ptr.assign(static_cast<size_t>(ns) + 1, 0);
  each_entry([&](index_t li, index_t lj, offset_t) {
    ++f.ptr[lj + 1];
    if (li != lj) ++f.ptr[li + 1];
  });
  for (index_t j = 0; j < ns; ++j) f.ptr[j + 1] += f.ptr[j];
  const size_t m = static_cast<size_t>(f.ptr[ns]);
  f.row.resize(m);
  f.val.resize(m);
  Vector<offset_t> next(f.ptr.begin(), f.ptr.end() - 1);
  auto scatter = [&](auto with_log) {
    each_entry([&](index_t li, index_t lj, offset_t k) {
      const double x = a.val[k];
      const double nl = with_log ? neg_log_magnitude(x) : 0.0;  // once for both triangles
      offset_t q = next[lj]++;
      f.row[q] = li;
      f.val[q] = x;
      if (with_log) (*neg_log_abs)[q] = nl;
      if (li != lj) {
        q = next[li]++;
        f.row[q] = lj;
        f.val[q] = x;
        if (with_log) (*neg_log_abs)[q] = nl;
      }
    });
  };
  if (neg_log_abs) {
    neg_log_abs->resize(m);
    scatter(std::true_type{});
  } else {
    scatter(std::false_type{});
  }
  return f;
}

}  // namespace

FullSymmetric full_from_sorted_lower(const CscView& a, Vector<double>* neg_log_abs, const Vector<index_t>* loc,
                                     index_t ns) {
  if (!loc) return sorted_lower_to_full(a, a.n, [](index_t i) { return i; }, neg_log_abs);
  const index_t* const l = loc->data();
  return sorted_lower_to_full(a, ns, [l](index_t i) { return l[i]; }, neg_log_abs);
}

FullSymmetric full_from_view(const CscView& a, Vector<double>* neg_log_abs) {
  if (neg_log_abs) neg_log_abs->clear();
  if (a.n <= 0) return rows_to_full(0, {}, {}, {});
  const index_t n = a.n;
  const offset_t p0 = a.ptr[0];
  const offset_t nnz = a.ptr[n] - p0;
  if (nnz > 0 && !a.val) throw Error(flag::missing_values, "the values are needed but missing");
  // values checked; whether the input is a lower triangle with increasing rows (the one-scatter path)
  bool sorted_lower = true;
  for (index_t j = 0; j < n; ++j) {
    index_t last = j - 1;
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
      const index_t i = a.row[k] - a.base;
      if (i < 0 || i >= n) {
        sorted_lower = false;
        continue;
      }
      if (!std::isfinite(a.val[k]))
        throw Error(flag::nan_inf, "value at position " + std::to_string(k) + " (0-based) is NaN or Inf");
      sorted_lower = sorted_lower && i > last;
      last = i;
    }
  }
  if (sorted_lower) return full_from_sorted_lower(a, neg_log_abs);
  // bucketed by row straight from the caller's arrays, in the order build_full's triplets would be (no
  // triplet copy: on a matrix with dense rows that copy was a third of the memory)
  Vector<offset_t> rptr(static_cast<size_t>(n) + 1, 0);
  for (index_t j = 0; j < n; ++j)
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
      const index_t i = a.row[k] - a.base;
      if (i < 0 || i >= n) continue;
      ++rptr[std::max(i, j) + 1];
      if (i != j) ++rptr[std::min(i, j) + 1];
    }
  for (index_t i = 0; i < n; ++i) rptr[i + 1] += rptr[i];
  const size_t m = static_cast<size_t>(rptr[n]);
  Vector<index_t> rcol(m);
  Vector<double> rval(m);
  Vector<offset_t> next(rptr.begin(), rptr.end() - 1);
  for (index_t j = 0; j < n; ++j)
    for (offset_t k = a.ptr[j] - p0; k < a.ptr[j + 1] - p0; ++k) {
      const index_t r = a.row[k] - a.base;
      if (r < 0 || r >= n) continue;
      const index_t i = std::max(r, j), c = std::min(r, j);
      offset_t q = next[i]++;
      rcol[q] = c;
      rval[q] = a.val[k];
      if (i != c) {
        q = next[c]++;
        rcol[q] = i;
        rval[q] = a.val[k];
      }
    }
  FullSymmetric f = rows_to_full(n, rptr, rcol, rval);
  if (neg_log_abs) {  // from the merged values
    neg_log_abs->resize(f.val.size());
    for (size_t q = 0; q < f.val.size(); ++q) (*neg_log_abs)[q] = neg_log_magnitude(f.val[q]);
  }
  return f;
}

FullSymmetric full_from_symbolic(const Symbolic& s, const double* val) {
  Vector<Triplet> t;
  t.reserve(s.amap.size());
  for (index_t v = 0; v < s.nsup; ++v)
    for (offset_t e = s.amap_ptr[v]; e < s.amap_ptr[v + 1]; ++e) {
      const AEntry& a = s.amap[e];
      const index_t c = s.perm[s.sptr[v] + a.lcol];
      const index_t r = s.perm[s.rlist[s.rptr[v] + a.lrow]];
      t.push_back(Triplet{std::max(r, c), std::min(r, c), val[a.src]});
    }
  return build_full(s.n, t);
}

}  // namespace detail
}  // namespace ssids
