// io/mm_reader.cpp — assembling parsed Matrix Market triplets into the library's sparse formats.
//
// Triplets (0-based, file order; indices already checked by mm_parse.cpp) become:
//   read/parse_symmetric -> SymmetricMatrix: lower triangle, CSC, rows ascending per column, no duplicates;
//   read/parse_general   -> CsrMatrix: both triangles, CSR, columns ascending per row, no duplicates.
// Sorting is by two stable counting sorts (first by the inner index, then by the outer one), so the cost
// is O(nnz + n) with no comparison sort; duplicates are then adjacent and summed in one pass.
// A 'symmetric' file is split into the entries stored in the lower triangle (diagonal included) and those
// stored in the strict upper one; each part is compressed on its own, and positions present in both
// (mirrored pairs) are resolved by ReadOptions::symmetric_entries (refused by default, naming the lines of
// the first pair). Counts (duplicates, upper-triangle entries, mirrored pairs, missing
// diagonal) go to MatrixReport.
#include <cmath>
#include <cstdio>
#include <new>
#include <utility>

#include "io/mm_internal.hpp"
#include "ssids/error.hpp"

namespace ssids {

int MatrixReport::warning_flag() const {
  const bool dups = duplicates > 0;
  if (missing_diagonal > 0) return dups ? flag::missing_diagonal_and_other : flag::missing_diagonal;
  if (dups) return flag::duplicates_summed;
  return flag::success;
}

const char* symmetric_entries_name(SymmetricEntries policy) noexcept {
  switch (policy) {
    case SymmetricEntries::refuse: return "refuse";
    case SymmetricEntries::lower: return "lower";
    case SymmetricEntries::upper: return "upper";
    case SymmetricEntries::sum: return "sum";
  }
  return "unknown";
}

namespace io {
namespace {

/// Compressed storage: slot o holds idx/val[ptr[o] .. ptr[o+1]-1], idx ascending, no repeats.
struct Compressed {
  Vector<offset_t> ptr;
  Vector<index_t> idx;
  Vector<double> val;
};

std::string entry_name(index_t i, index_t j) {
  return "(" + std::to_string(static_cast<long long>(i) + 1) + "," + std::to_string(static_cast<long long>(j) + 1) + ")";
}

std::string fmt_value(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

/// Triplets -> Compressed by `outer` (n_outer slots), `inner` ascending within a slot, duplicates summed.
/// in: outer/inner/val of equal length, values in [0, n_outer) / [0, n_inner). Returns the number of
/// entries merged away. `outer_is_row` only orients the message when a sum of duplicates overflows.
offset_t compress_sorted(index_t n_outer, index_t n_inner, const Vector<index_t>& outer, const Vector<index_t>& inner,
                         const Vector<double>& val, bool outer_is_row, Compressed& out) {
  const std::size_t nnz = outer.size();
  Vector<index_t> tmp_outer(nnz);
  Vector<double> tmp_val(nnz);
  Vector<offset_t> fill(static_cast<std::size_t>(n_inner) + 1, 0);
  {
    // pass 1: bucket by inner index (stable); afterwards fill[c] is the end of bucket c
    for (std::size_t k = 0; k < nnz; ++k) ++fill[inner[k] + 1];
    for (index_t c = 0; c < n_inner; ++c) fill[c + 1] += fill[c];
    for (std::size_t k = 0; k < nnz; ++k) {
      offset_t q = fill[inner[k]]++;
      tmp_outer[q] = outer[k];
      tmp_val[q] = val[k];
    }
  }
  // pass 2: bucket by outer index, visiting inner buckets in ascending order -> inner sorted per slot
  out.ptr.assign(static_cast<std::size_t>(n_outer) + 1, 0);
  for (std::size_t k = 0; k < nnz; ++k) ++out.ptr[tmp_outer[k] + 1];
  for (index_t o = 0; o < n_outer; ++o) out.ptr[o + 1] += out.ptr[o];
  Vector<offset_t> next(out.ptr.begin(), out.ptr.end() - 1);
  out.idx.resize(nnz);
  out.val.resize(nnz);
  offset_t q = 0;
  for (index_t c = 0; c < n_inner; ++c)
    for (offset_t end = fill[c]; q < end; ++q) {
      offset_t d = next[tmp_outer[q]]++;
      out.idx[d] = c;
      out.val[d] = tmp_val[q];
    }
  // pass 3: sum adjacent duplicates in place
  offset_t w = 0, begin = 0, merged = 0;
  for (index_t o = 0; o < n_outer; ++o) {
    const offset_t end = out.ptr[o + 1], first = w;
    out.ptr[o] = w;
    for (offset_t r = begin; r < end; ++r) {
      if (w > first && out.idx[w - 1] == out.idx[r]) {
        out.val[w - 1] += out.val[r];
        ++merged;
        if (!std::isfinite(out.val[w - 1])) {
          index_t i = outer_is_row ? o : out.idx[r], j = outer_is_row ? out.idx[r] : o;
          throw Error(flag::nan_inf, "duplicate entries at " + entry_name(i, j) + " sum to Inf");
        }
      } else {
        out.idx[w] = out.idx[r];
        out.val[w] = out.val[r];
        ++w;
      }
    }
    begin = end;
  }
  out.ptr[n_outer] = w;
  out.idx.resize(static_cast<std::size_t>(w));
  out.val.resize(static_cast<std::size_t>(w));
  return merged;
}

/// Transpose of sorted compressed storage (n_outer slots over n_inner indices); the result is sorted too.
Compressed transpose(const Compressed& a, index_t n_outer, index_t n_inner) {
  Compressed t;
  const offset_t nnz = a.ptr[n_outer];
  t.ptr.assign(static_cast<std::size_t>(n_inner) + 1, 0);
  for (offset_t k = 0; k < nnz; ++k) ++t.ptr[a.idx[k] + 1];
  for (index_t c = 0; c < n_inner; ++c) t.ptr[c + 1] += t.ptr[c];
  Vector<offset_t> next(t.ptr.begin(), t.ptr.end() - 1);
  t.idx.resize(static_cast<std::size_t>(nnz));
  t.val.resize(static_cast<std::size_t>(nnz));
  for (index_t o = 0; o < n_outer; ++o)
    for (offset_t k = a.ptr[o]; k < a.ptr[o + 1]; ++k) {
      offset_t d = next[a.idx[k]]++;
      t.idx[d] = o;
      t.val[d] = a.val[k];
    }
  return t;
}

/// Line numbers of file entries, found by re-reading the text (only on the error path).
struct EntryLines {
  const char* data = nullptr;
  std::size_t size = 0;
  offset_t operator()(offset_t k) const { return entry_line(data, size, k); }
};

/// Is row i present in slot j of c? (binary search; idx ascending per slot)
bool holds(const Compressed& c, index_t j, index_t i) {
  offset_t lo = c.ptr[j], hi = c.ptr[j + 1];
  while (lo < hi) {
    const offset_t mid = lo + (hi - lo) / 2;
    if (c.idx[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return lo < c.ptr[j + 1] && c.idx[lo] == i;
}

/// The error for the first mirrored pair in file order: the first entry whose mirror is also stored, and
/// the first occurrence of that mirror (which comes later: an earlier one would have been found first).
[[noreturn]] void refuse_mirrored_pair(const Triplets& t, const Compressed& low, const Compressed& up,
                                       offset_t pairs, const EntryLines& lines) {
  const offset_t nnz = static_cast<offset_t>(t.row.size());
  offset_t first = 0;
  for (; first < nnz; ++first) {
    const index_t i = t.row[first], j = t.col[first];
    if (i > j && holds(up, j, i)) break;
    if (i < j && holds(low, i, j)) break;
  }
  offset_t second = first + 1;
  while (second < nnz && !(t.row[second] == t.col[first] && t.col[second] == t.row[first])) ++second;
  const index_t i = t.row[first], j = t.col[first];
  throw Error(flag::bad_input,
              "line " + std::to_string(lines(second)) + ": entry " + entry_name(j, i) + " mirrors entry " +
                  entry_name(i, j) + " on line " + std::to_string(lines(first)) + ": this 'symmetric' file stores " +
                  std::to_string(pairs) + " position" + (pairs == 1 ? "" : "s") +
                  " in both triangles, which is ambiguous (a full matrix, or pieces to be summed?); choose a policy: "
                  "lower, upper or sum (ReadOptions::symmetric_entries; ssids --symmetric-entries)");
}

/// Union of two column-compressed lower triangles (n slots), `low` and `up`; a position in both is resolved
/// by `policy` (lower: low's value, upper: up's value, sum or refuse: the sum). Returns the number of
/// positions found in both.
offset_t merge_lower(index_t n, const Compressed& low, const Compressed& up, SymmetricEntries policy,
                     Compressed& out) {
  out.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  out.idx.clear();
  out.val.clear();
  out.idx.reserve(low.idx.size() + up.idx.size());
  out.val.reserve(low.idx.size() + up.idx.size());
  offset_t both = 0;
  for (index_t j = 0; j < n; ++j) {
    offset_t p = low.ptr[j], q = up.ptr[j];
    const offset_t pe = low.ptr[j + 1], qe = up.ptr[j + 1];
    while (p < pe || q < qe) {
      const index_t ip = p < pe ? low.idx[p] : n, iq = q < qe ? up.idx[q] : n;
      if (ip == iq) {
        ++both;
        const double v = policy == SymmetricEntries::lower   ? low.val[p]
                         : policy == SymmetricEntries::upper ? up.val[q]
                                                             : low.val[p] + up.val[q];
        if (!std::isfinite(v)) throw Error(flag::nan_inf, "mirrored entries at " + entry_name(ip, j) + " sum to Inf");
        out.idx.push_back(ip);
        out.val.push_back(v);
        ++p;
        ++q;
      } else if (ip < iq) {
        out.idx.push_back(ip);
        out.val.push_back(low.val[p++]);
      } else {
        out.idx.push_back(iq);
        out.val.push_back(up.val[q++]);
      }
    }
    out.ptr[j + 1] = static_cast<offset_t>(out.idx.size());
  }
  return both;
}

/// Lower triangle (CSC) of a symmetric file: entries stored only in the upper triangle are mirrored, and
/// positions stored in both triangles are resolved by `policy` (see SymmetricEntries).
Compressed lower_from_symmetric_file(index_t n, const Triplets& t, SymmetricEntries policy, MatrixReport& report,
                                     const EntryLines& lines) {
  const std::size_t nnz = t.row.size();
  std::size_t nupper = 0, nlower = 0;  // strict triangles
  for (std::size_t k = 0; k < nnz; ++k) {
    nupper += t.row[k] < t.col[k];
    nlower += t.row[k] > t.col[k];
  }
  report.upper = clamp_count(static_cast<offset_t>(nupper));
  Compressed low;
  if (nupper == 0 || nlower == 0) {
    // one triangle only (the lower one, as the format says, or the upper one read transposed): no position
    // can be stored twice, nothing to resolve
    const bool transposed = nlower == 0;
    report.duplicates = clamp_count(
        compress_sorted(n, n, transposed ? t.row : t.col, transposed ? t.col : t.row, t.val, false, low));
    return low;
  }
  // split: lower part (diagonal included) as stored, upper part mirrored into lower coordinates
  Vector<index_t> lr, lc, ur, uc;
  Vector<double> lv, uv;
  lr.reserve(nnz - nupper);
  lc.reserve(nnz - nupper);
  lv.reserve(nnz - nupper);
  ur.reserve(nupper);
  uc.reserve(nupper);
  uv.reserve(nupper);
  for (std::size_t k = 0; k < nnz; ++k) {
    const bool in_upper = t.row[k] < t.col[k];
    (in_upper ? ur : lr).push_back(in_upper ? t.col[k] : t.row[k]);
    (in_upper ? uc : lc).push_back(in_upper ? t.row[k] : t.col[k]);
    (in_upper ? uv : lv).push_back(t.val[k]);
  }
  Compressed up, out;
  offset_t dups = compress_sorted(n, n, lc, lr, lv, false, low);
  dups += compress_sorted(n, n, uc, ur, uv, false, up);
  report.duplicates = clamp_count(dups);
  const offset_t pairs = merge_lower(n, low, up, policy, out);
  report.mirrored_pairs = clamp_count(pairs);
  if (pairs > 0 && policy == SymmetricEntries::refuse) refuse_mirrored_pair(t, low, up, pairs, lines);
  return out;
}

/// Columns of a lower-triangle CSC whose first (smallest) row is not the diagonal.
int count_missing_diagonal(index_t n, const Compressed& lower) {
  offset_t missing = 0;
  for (index_t j = 0; j < n; ++j)
    if (lower.ptr[j] == lower.ptr[j + 1] || lower.idx[lower.ptr[j]] != j) ++missing;
  return clamp_count(missing);
}

/// Lower triangle of a square 'general' matrix after checking symmetry within sym_tol.
Compressed lower_from_general_file(index_t n, const Triplets& t, double sym_tol, MatrixReport& report) {
  Compressed rows;  // CSR of A, i.e. CSC of A^T: slot j holds a_ji
  report.duplicates = clamp_count(compress_sorted(n, n, t.row, t.col, t.val, true, rows));
  Compressed cols = transpose(rows, n, n);  // CSC of A: slot j holds a_ij
  Compressed lower;
  lower.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  lower.idx.reserve(cols.idx.size() / 2 + static_cast<std::size_t>(n));
  lower.val.reserve(cols.idx.size() / 2 + static_cast<std::size_t>(n));
  for (index_t j = 0; j < n; ++j) {
    // Merge the lower part of column j (a_ij, i >= j) with the right part of row j (a_ji, i >= j);
    // both are sorted by i. A counterpart that is absent counts as 0.
    offset_t p = cols.ptr[j], pe = cols.ptr[j + 1], q = rows.ptr[j], qe = rows.ptr[j + 1];
    while (p < pe && cols.idx[p] < j) ++p;
    while (q < qe && rows.idx[q] < j) ++q;
    while (p < pe || q < qe) {
      index_t ip = p < pe ? cols.idx[p] : n, iq = q < qe ? rows.idx[q] : n;
      index_t i = ip < iq ? ip : iq;
      double low = ip == i ? cols.val[p++] : 0.0;
      double up = iq == i ? rows.val[q++] : 0.0;
      double scale = std::fmax(std::fabs(low), std::fabs(up));
      if (!(std::fabs(low - up) <= sym_tol * scale))
        throw Error(flag::not_symmetric, "matrix is not symmetric: entry " + entry_name(i, j) + " = " + fmt_value(low) +
                                             " but " + entry_name(j, i) + " = " + fmt_value(up) +
                                             (ip == i && iq == i ? "" : " (absent)"));
      // The union of both patterns is kept (an upper-only explicit zero keeps its place, as 0).
      lower.idx.push_back(i);
      lower.val.push_back(low);
    }
    lower.ptr[j + 1] = static_cast<offset_t>(lower.idx.size());
  }
  return lower;
}

SymmetricMatrix to_symmetric(index_t n, Compressed&& c) {
  SymmetricMatrix a;
  a.n = n;
  a.ptr = std::move(c.ptr);
  a.row = std::move(c.idx);
  a.val = std::move(c.val);
  return a;
}

/// Full CSR from a lower-triangle CSC: row i = (row i of L left of the diagonal) ++ (column i of L).
CsrMatrix expand_symmetric(index_t n, const Compressed& lower) {
  Compressed lt = transpose(lower, n, n);  // slot i: row i of L, columns <= i ascending
  CsrMatrix a;
  a.nrow = a.ncol = n;
  a.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    offset_t left = lt.ptr[i + 1] - lt.ptr[i];
    if (left > 0 && lt.idx[lt.ptr[i + 1] - 1] == i) --left;  // the diagonal comes from column i
    a.ptr[i + 1] = a.ptr[i] + left + (lower.ptr[i + 1] - lower.ptr[i]);
  }
  a.col.resize(static_cast<std::size_t>(a.ptr[n]));
  a.val.resize(static_cast<std::size_t>(a.ptr[n]));
  for (index_t i = 0; i < n; ++i) {
    offset_t w = a.ptr[i];
    for (offset_t k = lt.ptr[i]; k < lt.ptr[i + 1] && lt.idx[k] < i; ++k, ++w) {
      a.col[w] = lt.idx[k];
      a.val[w] = lt.val[k];
    }
    for (offset_t k = lower.ptr[i]; k < lower.ptr[i + 1]; ++k, ++w) {
      a.col[w] = lower.idx[k];
      a.val[w] = lower.val[k];
    }
  }
  return a;
}

/// Run `parse` on `path`'s contents; errors get the path prefixed to their message.
template <class F>
auto with_file(const std::string& path, F&& parse) {
  Vector<char> text = load_text(path);
  try {
    return parse(text.data(), text.size());
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
}

}  // namespace
}  // namespace io

// A failed host allocation (std::bad_alloc) leaves the parse_* functions as Error(flag::allocation), like analyse/factor.
SymmetricMatrix parse_symmetric(const char* data, std::size_t size, const ReadOptions& options,
                                MatrixReport* report) try {
  if (io::is_gzip(data, size)) {
    Vector<char> text = io::gunzip(data, size, "gzip input");
    return parse_symmetric(text.data(), text.size(), options, report);
  }
  if (!(options.sym_tol >= 0.0))
    throw Error(flag::bad_input, "sym_tol must be >= 0, got " + io::fmt_value(options.sym_tol));
  MatrixReport local;
  MatrixReport& r = report ? *report : local;
  r = MatrixReport{};
  io::MmHeader h;
  io::Triplets t = io::parse_coordinate(data, size, h, r);
  if (!h.symmetric && h.nrow != h.ncol)
    throw Error(flag::not_symmetric, "matrix is not symmetric: it is not square (" + std::to_string(h.nrow) + " x " +
                                         std::to_string(h.ncol) + ")");
  io::Compressed lower =
      h.symmetric ? io::lower_from_symmetric_file(h.nrow, t, options.symmetric_entries, r, io::EntryLines{data, size})
                  : io::lower_from_general_file(h.nrow, t, options.sym_tol, r);
  r.missing_diagonal = io::count_missing_diagonal(h.nrow, lower);
  return io::to_symmetric(h.nrow, std::move(lower));
} catch (const std::bad_alloc&) {
  throw Error(flag::allocation, "Matrix Market reader: host allocation failed");
}

SymmetricMatrix parse_symmetric(const char* data, std::size_t size, MatrixReport* report, double sym_tol) {
  ReadOptions options;
  options.sym_tol = sym_tol;
  return parse_symmetric(data, size, options, report);
}

CsrMatrix parse_general(const char* data, std::size_t size, const ReadOptions& options, MatrixReport* report) try {
  if (io::is_gzip(data, size)) {
    Vector<char> text = io::gunzip(data, size, "gzip input");
    return parse_general(text.data(), text.size(), options, report);
  }
  MatrixReport local;
  MatrixReport& r = report ? *report : local;
  r = MatrixReport{};
  io::MmHeader h;
  io::Triplets t = io::parse_coordinate(data, size, h, r);
  if (h.symmetric)
    return io::expand_symmetric(
        h.nrow, io::lower_from_symmetric_file(h.nrow, t, options.symmetric_entries, r, io::EntryLines{data, size}));
  io::Compressed c;
  r.duplicates = io::clamp_count(io::compress_sorted(h.nrow, h.ncol, t.row, t.col, t.val, true, c));
  CsrMatrix a;
  a.nrow = h.nrow;
  a.ncol = h.ncol;
  a.ptr = std::move(c.ptr);
  a.col = std::move(c.idx);
  a.val = std::move(c.val);
  return a;
} catch (const std::bad_alloc&) {
  throw Error(flag::allocation, "Matrix Market reader: host allocation failed");
}

CsrMatrix parse_general(const char* data, std::size_t size, MatrixReport* report) {
  return parse_general(data, size, ReadOptions{}, report);
}

DenseMatrix parse_dense(const char* data, std::size_t size) try {
  if (io::is_gzip(data, size)) {
    Vector<char> text = io::gunzip(data, size, "gzip input");
    return io::parse_array(text.data(), text.size());
  }
  return io::parse_array(data, size);
} catch (const std::bad_alloc&) {
  throw Error(flag::allocation, "Matrix Market reader: host allocation failed");
}

SymmetricMatrix read_symmetric(const std::string& path, const ReadOptions& options, MatrixReport* report) {
  return io::with_file(path, [&](const char* d, std::size_t s) { return parse_symmetric(d, s, options, report); });
}

SymmetricMatrix read_symmetric(const std::string& path, MatrixReport* report, double sym_tol) {
  ReadOptions options;
  options.sym_tol = sym_tol;
  return read_symmetric(path, options, report);
}

CsrMatrix read_general(const std::string& path, const ReadOptions& options, MatrixReport* report) {
  return io::with_file(path, [&](const char* d, std::size_t s) { return parse_general(d, s, options, report); });
}

CsrMatrix read_general(const std::string& path, MatrixReport* report) { return read_general(path, ReadOptions{}, report); }

DenseMatrix read_dense(const std::string& path) {
  return io::with_file(path, [&](const char* d, std::size_t s) { return parse_dense(d, s); });
}

}  // namespace ssids
