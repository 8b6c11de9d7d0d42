// io/mm_parse.cpp — tokenising Matrix Market text held in memory.
//
// Input: one contiguous buffer (already decompressed), not necessarily NUL-terminated; every number is
// parsed with std::from_chars on a [begin, end) range so nothing reads past the buffer, and parsing does
// not depend on the C locale. Line numbers are 1-based and counted by '\n'; an unexpected end of file is
// reported at the line after the last one. Output indices are 0-based.
//
// Accepted leniencies: keywords in any case, blank lines anywhere after the banner, '%' comment lines
// between entries as well as before the size line, CRLF line ends, a leading '+' on numbers, Fortran
// exponents (1.0D+03). Everything else that deviates is an error naming its line.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "io/mm_internal.hpp"
#include "ssids/error.hpp"

namespace ssids {
namespace io {

int clamp_count(offset_t count) noexcept { return count > INT_MAX ? INT_MAX : static_cast<int>(count); }

namespace {

[[noreturn]] void fail(int code, offset_t line, const std::string& msg) {
  throw Error(code, "line " + std::to_string(line) + ": " + msg);
}

inline bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline void skip_space(const char*& p, const char* e) noexcept {
  while (p != e && is_space(*p)) ++p;
}

inline bool is_blank(const char* p, const char* e) noexcept {
  skip_space(p, e);
  return p == e;
}

inline bool is_comment_or_blank(const char* p, const char* e) noexcept {
  skip_space(p, e);
  return p == e || *p == '%';
}

/// The token starting at p (up to whitespace), shortened for messages.
std::string token_at(const char* p, const char* e) {
  skip_space(p, e);
  const char* t = p;
  while (t != e && !is_space(*t)) ++t;
  std::string s(p, t);
  if (s.size() > 24) s = s.substr(0, 21) + "...";
  return s;
}

/// Walks the buffer one line at a time. After next() returns true, [begin, end) is the line without its
/// '\n' and `line` is its number.
class LineReader {
 public:
  LineReader(const char* data, std::size_t size) : p_(data), end_(data + size) {}
  bool next() noexcept {
    if (p_ == end_) return false;
    begin = p_;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_)));
    end = nl ? nl : end_;
    p_ = nl ? nl + 1 : end_;
    ++line;
    return true;
  }
  const char* begin = nullptr;
  const char* end = nullptr;
  offset_t line = 0;

 private:
  const char* p_;
  const char* end_;
};

enum class Tok { ok, missing, bad, overflow };

/// Parse a (possibly signed) decimal integer token at p; on ok, p moves past it.
Tok parse_int(const char*& p, const char* e, std::int64_t& v) noexcept {
  skip_space(p, e);
  if (p == e) return Tok::missing;
  const char* s = p;
  if (*s == '+') {
    ++s;
    if (s == e || !std::isdigit(static_cast<unsigned char>(*s))) return Tok::bad;
  }
  auto r = std::from_chars(s, e, v);
  if (r.ec == std::errc::invalid_argument) return Tok::bad;
  if (r.ptr != e && !is_space(*r.ptr)) return Tok::bad;  // "12abc", "1.5"
  p = r.ptr;
  return r.ec == std::errc::result_out_of_range ? Tok::overflow : Tok::ok;
}

/// Parse a real token at p (NaN/Inf are returned as such; the caller decides); on ok, p moves past it.
Tok parse_real(const char*& p, const char* e, double& v) {
  skip_space(p, e);
  if (p == e) return Tok::missing;
  const char* s = p;
  if (*s == '+') {
    ++s;
    if (s == e || *s == '+' || *s == '-') return Tok::bad;
  }
  auto r = std::from_chars(s, e, v, std::chars_format::general);
  if (r.ec == std::errc::invalid_argument) return Tok::bad;
  const char* t = r.ptr;
  bool slow = r.ec == std::errc::result_out_of_range;
  if (t != e && (*t == 'd' || *t == 'D')) {
    // Fortran exponent: skip it here, re-parse with 'e' below.
    ++t;
    if (t != e && (*t == '+' || *t == '-')) ++t;
    if (t == e || !std::isdigit(static_cast<unsigned char>(*t))) return Tok::bad;
    while (t != e && std::isdigit(static_cast<unsigned char>(*t))) ++t;
    slow = true;
  }
  if (t != e && !is_space(*t)) return Tok::bad;
  if (slow) {
    // Rare paths (overflow, underflow, 'D' exponent): strtod on a NUL-terminated copy gives the
    // IEEE result (+-HUGE_VAL on overflow, which the caller reports as Inf; 0 or subnormal on underflow).
    std::string tok(s, t);
    std::replace(tok.begin(), tok.end(), 'd', 'e');
    std::replace(tok.begin(), tok.end(), 'D', 'e');
    v = std::strtod(tok.c_str(), nullptr);
  }
  p = t;
  return Tok::ok;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Banner and size line. On return the reader stands on the size line.
MmHeader parse_header(LineReader& lr) {
  MmHeader h;
  if (!lr.next()) fail(flag::bad_input, 1, "empty input: missing %%MatrixMarket banner");
  const char* usage = "expected '%%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric'";
  std::string words[6];
  int nwords = 0;
  for (const char* p = lr.begin;;) {
    skip_space(p, lr.end);
    if (p == lr.end) break;
    const char* t = p;
    while (t != lr.end && !is_space(*t)) ++t;
    if (nwords == 6) fail(flag::bad_input, lr.line, "unexpected text after the banner keywords");
    words[nwords++] = lower(std::string(p, t));
    p = t;
  }
  if (nwords == 0 || words[0] != "%%matrixmarket")
    fail(flag::bad_input, lr.line, std::string("missing or garbled %%MatrixMarket banner; ") + usage);
  if (nwords < 5) fail(flag::bad_input, lr.line, std::string("incomplete banner; ") + usage);
  if (nwords > 5) fail(flag::bad_input, lr.line, "unexpected text after the banner keywords");
  if (words[1] != "matrix") fail(flag::bad_input, lr.line, "unsupported object '" + words[1] + "' (only 'matrix')");

  if (words[2] == "coordinate")
    h.format = MmFormat::coordinate;
  else if (words[2] == "array")
    h.format = MmFormat::array;
  else
    fail(flag::bad_input, lr.line, "unknown format '" + words[2] + "'; " + usage);

  if (words[3] == "real")
    h.field = MmField::real;
  else if (words[3] == "integer")
    h.field = MmField::integer;
  else if (words[3] == "pattern")
    h.field = MmField::pattern;
  else if (words[3] == "complex")
    fail(flag::bad_input, lr.line, "unsupported field 'complex' (only real, integer, pattern)");
  else
    fail(flag::bad_input, lr.line, "unknown field '" + words[3] + "'; " + usage);

  if (words[4] == "general")
    h.symmetric = false;
  else if (words[4] == "symmetric")
    h.symmetric = true;
  else if (words[4] == "skew-symmetric" || words[4] == "hermitian")
    fail(flag::bad_input, lr.line, "unsupported symmetry '" + words[4] + "' (only general, symmetric)");
  else
    fail(flag::bad_input, lr.line, "unknown symmetry '" + words[4] + "'; " + usage);

  if (h.format == MmFormat::array && h.field == MmField::pattern)
    fail(flag::bad_input, lr.line, "'pattern' is not valid with the 'array' format");
  if (h.format == MmFormat::array && h.symmetric)
    fail(flag::bad_input, lr.line, "unsupported: 'array' format with 'symmetric' (only 'array ... general')");

  // size line: the first line that is neither blank nor a comment
  for (;;) {
    if (!lr.next()) fail(flag::bad_input, lr.line + 1, "premature end of file: missing size line");
    if (!is_comment_or_blank(lr.begin, lr.end)) break;
  }
  const bool coord = h.format == MmFormat::coordinate;
  const char* expect = coord ? "expected 'nrow ncol nnz'" : "expected 'nrow ncol'";
  const char* names[3] = {"nrow", "ncol", "nnz"};
  std::int64_t v[3] = {0, 0, 0};
  const char* p = lr.begin;
  for (int k = 0; k < (coord ? 3 : 2); ++k) {
    const char* at = p;
    Tok t = parse_int(p, lr.end, v[k]);
    if (t == Tok::missing) fail(flag::bad_input, lr.line, std::string("bad size line: missing ") + names[k] + "; " + expect);
    if (t == Tok::bad)
      fail(flag::bad_input, lr.line,
           std::string("bad size line: ") + names[k] + " '" + token_at(at, lr.end) + "' is not an integer; " + expect);
    if (t == Tok::overflow || (k < 2 && v[k] > INT32_MAX))
      fail(flag::bad_input, lr.line, std::string("bad size line: ") + names[k] + " is too large");
    if (v[k] < 0) fail(flag::bad_input, lr.line, std::string("bad size line: negative ") + names[k]);
  }
  if (!is_blank(p, lr.end)) fail(flag::bad_input, lr.line, std::string("bad size line: unexpected text; ") + expect);
  h.nrow = static_cast<index_t>(v[0]);
  h.ncol = static_cast<index_t>(v[1]);
  h.nnz = coord ? v[2] : v[0] * v[1];  // both < 2^31: no overflow
  // Sanity bound: the reader allocates O(nrow + ncol) before it could notice anything wrong, so a size line
  // like "2000000000 2000000000 1" must not cost 16 GB. A coordinate matrix may have at most
  // kMaxEmptySlack more rows (columns) than declared entries; beyond that it is refused as malformed.
  constexpr std::int64_t kMaxEmptySlack = std::int64_t(1) << 22;
  if (coord && (v[0] - kMaxEmptySlack > v[2] || v[1] - kMaxEmptySlack > v[2]))  // v[0], v[1] < 2^31: no overflow
    fail(flag::bad_input, lr.line,
         "bad size line: " + std::to_string(v[0]) + " x " + std::to_string(v[1]) + " with only " +
             std::to_string(v[2]) + " entries (a dimension may exceed the entry count by at most " +
             std::to_string(kMaxEmptySlack) + ")");
  if (h.symmetric && h.nrow != h.ncol)
    fail(flag::bad_input, lr.line,
         "a symmetric matrix must be square, size line says " + std::to_string(h.nrow) + " x " + std::to_string(h.ncol));
  return h;
}

/// After the last declared entry only blank and comment lines may follow.
void expect_trailer(LineReader& lr, offset_t declared) {
  while (lr.next())
    if (!is_comment_or_blank(lr.begin, lr.end))
      fail(flag::bad_input, lr.line,
           "unexpected data after the " + std::to_string(declared) + " declared entries ('" +
               token_at(lr.begin, lr.end) + "')");
}

/// One value of the given field at p; NaN/Inf raise nan_inf, anything malformed bad_input.
double parse_value(const char*& p, const char* e, MmField field, offset_t line, offset_t entry) {
  const char* at = p;
  double x = 0.0;
  if (field == MmField::integer) {
    std::int64_t iv = 0;
    Tok t = parse_int(p, e, iv);
    if (t == Tok::missing) fail(flag::bad_input, line, "entry " + std::to_string(entry) + ": missing value");
    if (t == Tok::bad)
      fail(flag::bad_input, line,
           "entry " + std::to_string(entry) + ": value '" + token_at(at, e) + "' is not an integer");
    if (t == Tok::overflow)
      fail(flag::bad_input, line, "entry " + std::to_string(entry) + ": integer value out of range");
    x = static_cast<double>(iv);
  } else {
    Tok t = parse_real(p, e, x);
    if (t == Tok::missing) fail(flag::bad_input, line, "entry " + std::to_string(entry) + ": missing value");
    if (t != Tok::ok)
      fail(flag::bad_input, line,
           "entry " + std::to_string(entry) + ": value '" + token_at(at, e) + "' is not a number");
    if (!std::isfinite(x))
      fail(flag::nan_inf, line, "entry " + std::to_string(entry) + ": value is NaN or Inf ('" + token_at(at, e) + "')");
  }
  return x;
}

}  // namespace

Triplets parse_coordinate(const char* data, std::size_t size, MmHeader& h, MatrixReport& report) {
  LineReader lr(data, size);
  h = parse_header(lr);
  if (h.format != MmFormat::coordinate)
    fail(flag::bad_input, 1, "an 'array' (dense) file where a sparse 'coordinate' matrix is expected");
  report.nrow = h.nrow;
  report.ncol = h.ncol;
  report.entries_in_file = h.nnz;
  report.symmetric_file = h.symmetric;
  report.pattern = h.field == MmField::pattern;

  Triplets t;
  // Every entry needs at least 4 bytes ("i j\n"): a garbage nnz cannot make us reserve absurd memory.
  std::size_t cap = static_cast<std::size_t>(std::min<offset_t>(h.nnz, static_cast<offset_t>(size / 4 + 1)));
  t.row.reserve(cap);
  t.col.reserve(cap);
  t.val.reserve(cap);

  for (offset_t k = 0; k < h.nnz;) {
    if (!lr.next())
      fail(flag::bad_input, lr.line + 1,
           "premature end of file: " + std::to_string(h.nnz) + " entries declared, " + std::to_string(k) + " found");
    const char* p = lr.begin;
    const char* e = lr.end;
    if (is_comment_or_blank(p, e)) continue;
    ++k;
    std::int64_t ij[2] = {0, 0};
    const char* what[2] = {"row index", "column index"};
    for (int c = 0; c < 2; ++c) {
      const char* at = p;
      Tok tk = parse_int(p, e, ij[c]);
      if (tk == Tok::missing) fail(flag::bad_input, lr.line, "entry " + std::to_string(k) + ": missing " + what[c]);
      if (tk == Tok::bad)
        fail(flag::bad_input, lr.line,
             "entry " + std::to_string(k) + ": " + what[c] + " '" + token_at(at, e) + "' is not an integer");
      if (tk == Tok::overflow)
        fail(flag::bad_input, lr.line,
             "entry " + std::to_string(k) + ": " + what[c] + " " + token_at(at, e) + " is outside 1.." +
                 std::to_string(c == 0 ? h.nrow : h.ncol));
      const std::int64_t bound = c == 0 ? h.nrow : h.ncol;
      if (ij[c] < 1 || ij[c] > bound)
        fail(flag::bad_input, lr.line,
             "entry " + std::to_string(k) + ": " + what[c] + " " + std::to_string(ij[c]) + " is outside 1.." +
                 std::to_string(bound) + " (indices are 1-based)");
    }
    double x = h.field == MmField::pattern ? 1.0 : parse_value(p, e, h.field, lr.line, k);
    if (!is_blank(p, e))
      fail(flag::bad_input, lr.line,
           "entry " + std::to_string(k) + ": unexpected text '" + token_at(p, e) + "' after the entry");
    t.row.push_back(static_cast<index_t>(ij[0] - 1));
    t.col.push_back(static_cast<index_t>(ij[1] - 1));
    t.val.push_back(x);
  }
  expect_trailer(lr, h.nnz);
  return t;
}

offset_t entry_line(const char* data, std::size_t size, offset_t k) {
  LineReader lr(data, size);
  parse_header(lr);
  for (offset_t seen = 0; lr.next();)
    if (!is_comment_or_blank(lr.begin, lr.end) && seen++ == k) return lr.line;
  return 0;
}

DenseMatrix parse_array(const char* data, std::size_t size) {
  LineReader lr(data, size);
  MmHeader h = parse_header(lr);
  if (h.format != MmFormat::array)
    fail(flag::bad_input, 1, "a sparse 'coordinate' file where a dense 'array' matrix is expected");
  DenseMatrix d;
  d.nrow = h.nrow;
  d.ncol = h.ncol;
  // Every value needs at least 2 bytes ("1\n"): bound the reservation by the input size.
  d.val.reserve(static_cast<std::size_t>(std::min<offset_t>(h.nnz, static_cast<offset_t>(size / 2 + 1))));
  // The standard writes one value per line; several values on one line are accepted as well.
  offset_t k = 0;
  while (k < h.nnz) {
    if (!lr.next())
      fail(flag::bad_input, lr.line + 1,
           "premature end of file: " + std::to_string(h.nnz) + " values declared (" + std::to_string(h.nrow) + " x " +
               std::to_string(h.ncol) + "), " + std::to_string(k) + " found");
    const char* p = lr.begin;
    if (is_comment_or_blank(p, lr.end)) continue;
    while (k < h.nnz && !is_blank(p, lr.end)) {
      ++k;
      d.val.push_back(parse_value(p, lr.end, h.field, lr.line, k));
    }
    if (!is_blank(p, lr.end))
      fail(flag::bad_input, lr.line,
           "unexpected data after the " + std::to_string(h.nnz) + " declared values ('" + token_at(p, lr.end) + "')");
  }
  expect_trailer(lr, h.nnz);
  return d;
}

}  // namespace io
}  // namespace ssids
