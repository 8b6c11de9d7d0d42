// test_io.cpp — the Matrix Market reader and writer on small hand-written inputs.
//
// Inputs are literal strings parsed in memory, plus files written to a private temporary folder under
// the system temp directory (removed at the end of each test). Expected results are 0-based; line
// numbers in error messages are 1-based. Every error code the reader can raise is reached here.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"

using namespace ssids;
namespace fs = std::filesystem;

namespace {

SymmetricMatrix sym(const std::string& s, MatrixReport* r = nullptr, double tol = 1e-12) {
  return parse_symmetric(s.data(), s.size(), r, tol);
}
CsrMatrix gen(const std::string& s, MatrixReport* r = nullptr) { return parse_general(s.data(), s.size(), r); }
DenseMatrix dense(const std::string& s) { return parse_dense(s.data(), s.size()); }

/// Code and message of the ssids::Error thrown by f (0 and "" when nothing is thrown).
template <class F>
std::pair<int, std::string> error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {0, ""};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Check that parsing `text` with every sparse reader fails with `code` and a message holding `part`.
void expect_sparse_error(const std::string& text, int code, const std::string& part) {
  CAPTURE(text);
  auto e1 = error_of([&] { sym(text); });
  CHECK(e1.first == code);
  CHECK_MESSAGE(contains(e1.second, part), e1.second);
  auto e2 = error_of([&] { gen(text); });
  CHECK(e2.first == code);
  CHECK_MESSAGE(contains(e2.second, part), e2.second);
}

template <class V>
std::vector<long long> as_ll(const V& v) {
  return std::vector<long long>(v.begin(), v.end());
}
template <class V>
std::vector<double> as_d(const V& v) {
  return std::vector<double>(v.begin(), v.end());
}

/// Bitwise equality of two double arrays (distinguishes -0.0 from 0.0, exact to the last bit).
template <class A, class B>
bool same_bits(const A& a, const B& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/// A fresh folder under the system temp directory, removed with everything in it on destruction.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("ssids_test_io_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace

// ---------------------------------------------------------------- header variants

TEST_CASE("coordinate real symmetric: lower triangle - rows sorted - 0-based") {
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 5\n"
      "3 1 -2.5\n"
      "1 1 4\n"
      "3 3 6e-1\n"
      "2 2 5.0\n"
      "2 1 1\n";
  MatrixReport r;
  SymmetricMatrix a = sym(text, &r);
  CHECK(a.n == 3);
  CHECK(as_ll(a.ptr) == std::vector<long long>{0, 3, 4, 5});
  CHECK(as_ll(a.row) == std::vector<long long>{0, 1, 2, 1, 2});
  CHECK(as_d(a.val) == std::vector<double>{4, 1, -2.5, 5, 0.6});
  CHECK(r.nrow == 3);
  CHECK(r.ncol == 3);
  CHECK(r.entries_in_file == 5);
  CHECK(r.symmetric_file);
  CHECK_FALSE(r.pattern);
  CHECK(r.duplicates == 0);
  CHECK(r.upper == 0);
  CHECK(r.mirrored_pairs == 0);
  CHECK(r.missing_diagonal == 0);
  CHECK(r.warning_flag() == 0);
}

TEST_CASE("coordinate real general: CSR with sorted columns - rectangular allowed") {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n"
      "2 3 4\n"
      "2 3 7\n"
      "1 3 3\n"
      "2 1 -1\n"
      "1 1 2\n";
  MatrixReport r;
  CsrMatrix a = gen(text, &r);
  CHECK(a.nrow == 2);
  CHECK(a.ncol == 3);
  CHECK(as_ll(a.ptr) == std::vector<long long>{0, 2, 4});
  CHECK(as_ll(a.col) == std::vector<long long>{0, 2, 0, 2});
  CHECK(as_d(a.val) == std::vector<double>{2, 3, -1, 7});
  CHECK_FALSE(r.symmetric_file);
  CHECK(r.entries_in_file == 4);
  CHECK(r.warning_flag() == 0);
}

TEST_CASE("integer field: parsed as integers - stored as double") {
  const std::string s =
      "%%MatrixMarket matrix coordinate integer symmetric\n"
      "2 2 3\n1 1 -7\n2 1 +3\n2 2 9007199254740993\n";
  SymmetricMatrix a = sym(s);
  CHECK(as_d(a.val) == std::vector<double>{-7, 3, 9007199254740992.0});  // nearest double to 2^53+1
  CsrMatrix g = gen("%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 2 5\n1 1 -1\n");
  CHECK(as_d(g.val) == std::vector<double>{-1, 5});
  auto e = error_of([] { gen("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 3:"));
  e = error_of([] { gen("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 99999999999999999999\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 3:"));
}

TEST_CASE("pattern field: values are 1.0") {
  MatrixReport r;
  SymmetricMatrix a = sym("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 2\n2 2\n", &r);
  CHECK(r.pattern);
  CHECK(as_ll(a.ptr) == std::vector<long long>{0, 1, 3, 3});
  CHECK(as_ll(a.row) == std::vector<long long>{0, 1, 2});
  CHECK(as_d(a.val) == std::vector<double>{1, 1, 1});
  CHECK(r.missing_diagonal == 1);  // column 3
  CsrMatrix g = gen("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", &r);
  CHECK(r.pattern);
  CHECK(as_ll(g.col) == std::vector<long long>{1, 0});
  CHECK(as_d(g.val) == std::vector<double>{1, 1});
  // a value on a pattern line is unexpected text
  auto e = error_of([] { gen("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 3.0\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 3:"));
}

TEST_CASE("array real and integer general: column-major dense") {
  DenseMatrix d = dense("%%MatrixMarket matrix array real general\n% comment\n2 3\n1\n2\n3\n4.5\n-5\n6e2\n");
  CHECK(d.nrow == 2);
  CHECK(d.ncol == 3);
  CHECK(as_d(d.val) == std::vector<double>{1, 2, 3, 4.5, -5, 600});
  // several values per line and blank lines are accepted
  DenseMatrix i = dense("%%MatrixMarket matrix array integer general\n3 1\n\n7 8\n  9\n\n");
  CHECK(as_d(i.val) == std::vector<double>{7, 8, 9});
  auto e = error_of([] { dense("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 6:"));
  CHECK(contains(e.second, "premature end of file"));
  e = error_of([] { dense("%%MatrixMarket matrix array real general\n1 1\n1\n2\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 4:"));
  e = error_of([] { dense("%%MatrixMarket matrix array real general\n2 1\n1 x\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 3:"));
  e = error_of([] { dense("%%MatrixMarket matrix array real general\n2 1 3\n1\n2\n"); });  // size line has 2 values
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "line 2:"));
}

TEST_CASE("sparse and dense readers refuse each other's format") {
  auto e = error_of([] { dense("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "coordinate"));
  expect_sparse_error("%%MatrixMarket matrix array real general\n1 1\n1\n", flag::bad_input, "array");
  expect_sparse_error("%%MatrixMarket matrix array pattern general\n1 1\n", flag::bad_input, "line 1:");
  expect_sparse_error("%%MatrixMarket matrix array real symmetric\n1 1\n1\n", flag::bad_input, "unsupported");
}

TEST_CASE("banner keywords are case-insensitive") {
  SymmetricMatrix a = sym("%%matrixmarket MATRIX Coordinate REAL Symmetric\n1 1 1\n1 1 2\n");
  CHECK(as_d(a.val) == std::vector<double>{2});
  CsrMatrix g = gen("%%MATRIXMARKET matrix COORDINATE Pattern GENERAL\n1 1 1\n1 1\n");
  CHECK(as_d(g.val) == std::vector<double>{1});
  DenseMatrix d = dense("%%MatrixMarket Matrix ARRAY Integer General\n1 1\n3\n");
  CHECK(as_d(d.val) == std::vector<double>{3});
}

TEST_CASE("comments - blank lines - CRLF and number spellings") {
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\r\n"
      "% a comment\r\n"
      "\r\n"
      "   \t\n"
      "%another\n"
      "2 2 3\r\n"
      "\n"
      "1 1 +1.5\r\n"
      "% comment between entries\n"
      "   2   1\t-2.0D+01  \n"
      "\n"
      "2 2 .25e1\n"
      "\n"
      "% trailing comment\n";
  MatrixReport r;
  SymmetricMatrix a = sym(text, &r);
  CHECK(as_ll(a.row) == std::vector<long long>{0, 1, 1});
  CHECK(as_d(a.val) == std::vector<double>{1.5, -20.0, 2.5});
  CHECK(r.entries_in_file == 3);
  // no newline at the end of the last line
  SymmetricMatrix b = sym("%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 3.5");
  CHECK(as_d(b.val) == std::vector<double>{3.5});
}

// ---------------------------------------------------------------- malformed input

TEST_CASE("unsupported banner variants are refused naming line 1") {
  for (const char* banner : {"%%MatrixMarket matrix coordinate complex general", "%%MatrixMarket matrix coordinate real hermitian",
                             "%%MatrixMarket matrix coordinate real skew-symmetric",
                             "%%MatrixMarket matrix coordinate complex hermitian", "%%MatrixMarket vector coordinate real general"}) {
    std::string text = std::string(banner) + "\n2 2 1\n1 1 1\n";
    expect_sparse_error(text, flag::bad_input, "unsupported");
    expect_sparse_error(text, flag::bad_input, "line 1:");
  }
}

TEST_CASE("missing or garbled banner") {
  expect_sparse_error("", flag::bad_input, "line 1:");
  expect_sparse_error("\n", flag::bad_input, "line 1:");
  expect_sparse_error("2 2 1\n1 1 1\n", flag::bad_input, "line 1:");
  expect_sparse_error("%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", flag::bad_input, "line 1:");
  expect_sparse_error("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", flag::bad_input, "line 1:");
  expect_sparse_error("%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", flag::bad_input, "line 1:");
  expect_sparse_error("%%MatrixMarket matrix coordinate float general\n1 1 1\n1 1 1\n", flag::bad_input, "line 1:");
  expect_sparse_error("%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n", flag::bad_input, "line 1:");
  // the banner must be the first line, even after blank lines
  expect_sparse_error("\n%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", flag::bad_input, "line 1:");
}

TEST_CASE("bad size line") {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n% c\n\n";
  expect_sparse_error(b + "-1 2 1\n1 1 1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b + "2 -2 1\n1 1 1\n", flag::bad_input, "negative");
  expect_sparse_error(b + "2 2 -1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b + "2 two 1\n1 1 1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b + "2 2\n1 1 1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b + "2 2 1 7\n1 1 1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b + "2.0 2 1\n1 1 1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b + "3000000000 2 1\n1 1 1\n", flag::bad_input, "line 4:");
  expect_sparse_error(b, flag::bad_input, "line 4:");  // no size line at all
  expect_sparse_error("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", flag::bad_input, "line 2:");
}

TEST_CASE("bad entry lines name their line") {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n\n";  // entries from line 3
  expect_sparse_error(b + "2\n3 3 1\n", flag::bad_input, "line 5:");              // missing column
  expect_sparse_error(b + "2 2\n3 3 1\n", flag::bad_input, "line 5:");            // missing value
  expect_sparse_error(b + "x 2 1\n3 3 1\n", flag::bad_input, "line 5:");          // non-numeric row
  expect_sparse_error(b + "2 2.5 1\n3 3 1\n", flag::bad_input, "line 5:");        // fractional column
  expect_sparse_error(b + "2 2 abc\n3 3 1\n", flag::bad_input, "line 5:");        // non-numeric value
  expect_sparse_error(b + "2 2 1.0.0\n3 3 1\n", flag::bad_input, "line 5:");      // garbled value
  expect_sparse_error(b + "2 2 1 2\n3 3 1\n", flag::bad_input, "line 5:");        // extra field
  expect_sparse_error(b + "2 2 1\n3 3 ++1\n", flag::bad_input, "line 6:");        // double sign
  auto e = error_of([&] { gen(b + "2 2 abc\n3 3 1\n"); });
  CHECK(contains(e.second, "abc"));
}

TEST_CASE("premature end of file and extra data") {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n";
  expect_sparse_error(b, flag::bad_input, "line 5:");
  expect_sparse_error(b, flag::bad_input, "premature end of file");
  expect_sparse_error(b + "\n\n", flag::bad_input, "line 7:");
  expect_sparse_error(b + "3 3 3\n1 2 3\n", flag::bad_input, "line 6:");
  expect_sparse_error(b + "3 3 3\n1 2 3\n", flag::bad_input, "unexpected data");
  expect_sparse_error(b + "3 3 3\n\n% fine\ngarbage\n", flag::bad_input, "line 8:");
  expect_sparse_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n", flag::bad_input, "line 3:");
  // trailing blank and comment lines are fine
  CHECK_NOTHROW(gen(b + "3 3 3\n\n  \n% the end\n"));
}

TEST_CASE("NaN and Inf values raise nan_inf with the line number") {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n";
  for (const char* v : {"nan", "NaN", "-nan", "inf", "-Inf", "infinity", "1e400", "-2e308"}) {
    CAPTURE(v);
    expect_sparse_error(b + "2 2 " + v + "\n", flag::nan_inf, "line 4:");
  }
  auto e = error_of([] { dense("%%MatrixMarket matrix array real general\n2 1\n1\ninf\n"); });
  CHECK(e.first == flag::nan_inf);
  CHECK(contains(e.second, "line 4:"));
  // tiny values underflow to zero or a subnormal; that is not an error
  CsrMatrix g = gen(b + "2 2 1e-400\n");
  CHECK(g.val[1] == 0.0);
  g = gen(b + "2 2 4.9406564584124654e-324\n");
  CHECK(g.val[1] == std::numeric_limits<double>::denorm_min());
  // summed duplicates that overflow are reported too
  auto e2 = error_of([] { gen("%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 1e308\n1 1 1e308\n"); });
  CHECK(e2.first == flag::nan_inf);
}

// ---------------------------------------------------------------- warnings

TEST_CASE("an index outside the matrix is an error naming its line") {
  const std::string head = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n% comment\n";
  // 0, n+1, negative, far too large (overflows int64): each refused, the line and the bound named
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0 1 5\n", "row index 0 is outside 1..3"},
      {"4 1 5\n", "row index 4 is outside 1..3"},
      {"2 -1 5\n", "column index -1 is outside 1..3"},
      {"2 99999999999999999999 5\n", "column index 99999999999999999999 is outside 1..3"},
  };
  for (const auto& [entry, what] : cases) {
    const std::string text = head + entry + "3 3 3\n";
    expect_sparse_error(text, flag::bad_input, "line 5: entry 2: " + what);
  }
  // a rectangular general file checks rows and columns against their own bounds
  auto e = error_of([] { gen("%%MatrixMarket matrix coordinate real general\n2 3 2\n1 4 1\n2 3 1\n"); });
  CHECK(e.first == flag::bad_input);
  CHECK_MESSAGE(contains(e.second, "line 3: entry 1: column index 4 is outside 1..3"), e.second);
  CHECK(gen("%%MatrixMarket matrix coordinate real general\n2 3 1\n2 3 1\n").nnz() == 1);
  // entries declared for an empty matrix are all outside it
  expect_sparse_error("%%MatrixMarket matrix coordinate real symmetric\n0 0 1\n1 1 1\n", flag::bad_input,
                      "line 3: entry 1: row index 1 is outside 1..0");
}

TEST_CASE("duplicates are summed and counted") {
  MatrixReport r;
  CsrMatrix g = gen("%%MatrixMarket matrix coordinate real general\n2 2 5\n1 2 1\n2 1 4\n1 2 2\n1 2 3\n2 2 1\n", &r);
  CHECK(r.duplicates == 2);
  CHECK(as_ll(g.col) == std::vector<long long>{1, 0, 1});
  CHECK(as_d(g.val) == std::vector<double>{6, 4, 1});
  CHECK(r.warning_flag() == flag::duplicates_summed);
  // in a symmetric file: repeated positions of the same triangle, lower and upper
  SymmetricMatrix a = sym("%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 1\n1 1 2\n1 3 1\n1 3 4\n2 2 1\n", &r);
  CHECK(r.duplicates == 2);
  CHECK(r.upper == 2);
  CHECK(r.mirrored_pairs == 0);
  CHECK(as_d(a.val) == std::vector<double>{3, 5, 1});
  CHECK(r.warning_flag() == flag::missing_diagonal_and_other);  // with the missing diagonal of column 3
}

TEST_CASE("a symmetric file storing both triangles is refused - or read by the named policy") {
  // [[5,2],[2,1]] written in full: summing would double the off-diagonal and change the inertia
  const std::string full = "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 5\n1 2 2\n2 1 2\n2 2 1\n";
  auto e = error_of([&] { sym(full); });
  CHECK(e.first == flag::bad_input);
  CHECK_MESSAGE(contains(e.second, "line 5: entry (2,1) mirrors entry (1,2) on line 4"), e.second);
  CHECK_MESSAGE(contains(e.second, "lower, upper or sum"), e.second);
  CHECK(error_of([&] { gen(full); }).first == flag::bad_input);  // the general reader refuses it too

  const std::vector<std::pair<SymmetricEntries, double>> policies = {
      {SymmetricEntries::lower, 2.0}, {SymmetricEntries::upper, 2.0}, {SymmetricEntries::sum, 4.0}};
  for (const auto& [policy, off] : policies) {
    CAPTURE(symmetric_entries_name(policy));
    ReadOptions o;
    o.symmetric_entries = policy;
    MatrixReport r;
    SymmetricMatrix a = parse_symmetric(full.data(), full.size(), o, &r);
    CHECK(as_ll(a.row) == std::vector<long long>{0, 1, 1});
    CHECK(as_d(a.val) == std::vector<double>{5, off, 1});
    CHECK(r.mirrored_pairs == 1);
    CHECK(r.upper == 1);
    CHECK(r.duplicates == 0);
    CsrMatrix g = parse_general(full.data(), full.size(), o, &r);
    CHECK(as_d(g.val) == std::vector<double>{5, off, off, 1});
  }
  // the policies differ when the two values differ; an upper-only entry is mirrored under every policy
  const std::string text =
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 6\n1 1 1\n3 1 7\n2 2 1\n1 3 8\n3 2 9\n2 3 1\n";
  const std::vector<std::pair<SymmetricEntries, double>> picks = {
      {SymmetricEntries::lower, 7.0}, {SymmetricEntries::upper, 8.0}, {SymmetricEntries::sum, 15.0}};
  for (const auto& [policy, v31] : picks) {
    ReadOptions o;
    o.symmetric_entries = policy;
    MatrixReport r;
    SymmetricMatrix a = parse_symmetric(text.data(), text.size(), o, &r);
    CHECK(as_ll(a.row) == std::vector<long long>{0, 2, 1, 2});
    const double v32 = policy == SymmetricEntries::lower ? 9.0 : policy == SymmetricEntries::upper ? 1.0 : 10.0;
    CHECK(as_d(a.val) == std::vector<double>{1, v31, 1, v32});
    CHECK(r.mirrored_pairs == 2);
    CHECK(r.upper == 2);
  }
  // refused: the FIRST pair in file order is named, with the number of pairs
  e = error_of([&] { sym(text); });
  CHECK_MESSAGE(contains(e.second, "line 6: entry (1,3) mirrors entry (3,1) on line 4"), e.second);
  CHECK_MESSAGE(contains(e.second, "stores 2 positions in both triangles"), e.second);
  // in a file, the message names the file as well
  TempDir dir;
  spit(dir.file("full.mtx"), full);
  e = error_of([&] { read_symmetric(dir.file("full.mtx")); });
  CHECK_MESSAGE(contains(e.second, "full.mtx: line 5"), e.second);
  ReadOptions sum;
  sum.symmetric_entries = SymmetricEntries::sum;
  CHECK(read_symmetric(dir.file("full.mtx"), sum).val[1] == 4.0);
  CHECK(read_general(dir.file("full.mtx"), sum).nnz() == 4);
  CHECK(std::string(symmetric_entries_name(SymmetricEntries::refuse)) == "refuse");
}

TEST_CASE("upper-triangle entries of a symmetric file are mirrored and counted") {
  MatrixReport r;
  SymmetricMatrix a = sym("%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 1\n1 3 7\n2 3 8\n2 2 2\n3 3 3\n", &r);
  CHECK(r.upper == 2);
  CHECK(as_ll(a.ptr) == std::vector<long long>{0, 2, 4, 5});
  CHECK(as_ll(a.row) == std::vector<long long>{0, 2, 1, 2, 2});
  CHECK(as_d(a.val) == std::vector<double>{1, 7, 2, 8, 3});
  CHECK(r.warning_flag() == 0);  // upper entries alone are not a flagged warning
  for (offset_t j = 0; j < a.n; ++j)
    for (auto k = a.ptr[j]; k < a.ptr[j + 1]; ++k) CHECK(a.row[k] >= j);
}

TEST_CASE("missing diagonal entries are counted") {
  MatrixReport r;
  sym("%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1\n2 2 0\n4 3 1\n", &r);
  CHECK(r.missing_diagonal == 3);  // columns 1, 3, 4; an explicit zero counts as present
  CHECK(r.warning_flag() == flag::missing_diagonal);
  sym("%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n2 1 1\n2 2 1\n", &r);
  CHECK(r.missing_diagonal == 1);
  CHECK(r.duplicates == 1);
  CHECK(r.warning_flag() == flag::missing_diagonal_and_other);
  // a general file read as symmetric is checked too
  sym("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 1\n", &r);
  CHECK(r.missing_diagonal == 2);
  // read_general does not count missing diagonals
  gen("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 1\n", &r);
  CHECK(r.missing_diagonal == 0);
}

TEST_CASE("warning_flag covers every combination") {
  for (int dup = 0; dup < 2; ++dup)
    for (int md = 0; md < 2; ++md) {
      MatrixReport r;
      r.duplicates = dup * 2;
      r.missing_diagonal = md;
      r.upper = 5;           // never changes the flag
      r.mirrored_pairs = 3;  // nor does a pair resolved by a policy the caller chose
      int expect = md ? (dup ? flag::missing_diagonal_and_other : flag::missing_diagonal)
                      : (dup ? flag::duplicates_summed : 0);
      CHECK(r.warning_flag() == expect);
    }
}

// ---------------------------------------------------------------- general files as symmetric

TEST_CASE("a symmetric 'general' file is accepted by read_symmetric within sym_tol") {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n3 3 6\n"
      "1 1 4\n2 1 1.0000000000000002\n1 2 1\n3 3 5\n1 3 0\n2 2 -3\n";
  MatrixReport r;
  SymmetricMatrix a = sym(text, &r);
  CHECK(as_ll(a.ptr) == std::vector<long long>{0, 3, 4, 5});
  CHECK(as_ll(a.row) == std::vector<long long>{0, 1, 2, 1, 2});  // the upper-only explicit zero keeps its place
  CHECK(as_d(a.val) == std::vector<double>{4, 1.0000000000000002, 0, -3, 5});
  CHECK_FALSE(r.symmetric_file);
  CHECK(r.upper == 0);
  CHECK(r.warning_flag() == 0);
  CHECK(gen(text).nnz() == 6);
}

TEST_CASE("a nonsymmetric 'general' file: rejected by read_symmetric - accepted by read_general") {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n3 1 2\n1 3 2.001\n2 2 1\n3 3 1\n";
  auto e = error_of([&] { sym(text); });
  CHECK(e.first == flag::not_symmetric);
  CHECK_MESSAGE(contains(e.second, "(3,1)"), e.second);
  CHECK(gen(text).nnz() == 5);
  // a looser tolerance accepts it and keeps the lower value
  SymmetricMatrix a = sym(text, nullptr, 1e-3);
  CHECK(a.val[1] == 2.0);
  // an entry whose mirror is absent
  e = error_of([] { sym("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 2 5\n2 2 1\n"); });
  CHECK(e.first == flag::not_symmetric);
  CHECK_MESSAGE(contains(e.second, "(2,1)"), e.second);
  // not square
  e = error_of([] { sym("%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n"); });
  CHECK(e.first == flag::not_symmetric);
  // a negative tolerance is a bad argument
  e = error_of([&] { sym(text, nullptr, -1.0); });
  CHECK(e.first == flag::bad_input);
}

TEST_CASE("read_general expands a symmetric file to both triangles") {
  MatrixReport r;
  CsrMatrix g = gen("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n3 1 2\n2 3 3\n3 3 4\n", &r);
  CHECK(g.nrow == 3);
  CHECK(g.ncol == 3);
  CHECK(as_ll(g.ptr) == std::vector<long long>{0, 2, 3, 6});
  CHECK(as_ll(g.col) == std::vector<long long>{0, 2, 2, 0, 1, 2});
  CHECK(as_d(g.val) == std::vector<double>{1, 2, 3, 2, 3, 4});
  CHECK(r.upper == 1);
}

TEST_CASE("n = 0 gives empty matrices") {
  MatrixReport r;
  SymmetricMatrix a = sym("%%MatrixMarket matrix coordinate real symmetric\n0 0 0\n", &r);
  CHECK(a.n == 0);
  CHECK(as_ll(a.ptr) == std::vector<long long>{0});
  CHECK(a.nnz() == 0);
  CHECK(r.warning_flag() == 0);
  CsrMatrix g = gen("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  CHECK(g.nrow == 0);
  CHECK(as_ll(g.ptr) == std::vector<long long>{0});
  SymmetricMatrix b = sym("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  CHECK(as_ll(b.ptr) == std::vector<long long>{0});
  DenseMatrix d = dense("%%MatrixMarket matrix array real general\n0 0\n");
  CHECK(d.val.empty());
}

// ---------------------------------------------------------------- files, gzip, round trips

TEST_CASE("write/read round trips are bit-exact - plain and gzip") {
  TempDir dir;
  SymmetricMatrix a = ssids_test::random_symmetric(40, 0.2, 0.9, 10.0, 12345);
  REQUIRE(a.nnz() > 5);
  // awkward values: subnormal, -0, extremes, non-terminating binary fractions
  const double special[] = {std::numeric_limits<double>::denorm_min(), -0.0, std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::min(), 1.0 / 3.0, 0.1};
  for (std::size_t k = 0; k < std::size(special); ++k) a.val[k] = special[k];
  for (const char* name : {"a.mtx", "a.mtx.gz"}) {
    CAPTURE(name);
    std::string path = dir.file(name);
    write_symmetric(path, a);
    MatrixReport r;
    SymmetricMatrix b = read_symmetric(path, &r);
    CHECK(b.n == a.n);
    CHECK(as_ll(b.ptr) == as_ll(a.ptr));
    CHECK(as_ll(b.row) == as_ll(a.row));
    CHECK(same_bits(a.val, b.val));
    CHECK(r.symmetric_file);
    CHECK(r.entries_in_file == a.nnz());
    CHECK(r.upper == 0);
    CHECK(r.duplicates == 0);
    std::string raw = slurp(path);
    bool gz = raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f && static_cast<unsigned char>(raw[1]) == 0x8b;
    CHECK(gz == (std::string(name).size() > 3 && std::string(name).substr(std::string(name).size() - 3) == ".gz"));
    // the same bytes parsed in memory (gzip sniffed by magic number)
    SymmetricMatrix c = parse_symmetric(raw.data(), raw.size());
    CHECK(same_bits(a.val, c.val));
  }

  CsrMatrix g = gen("%%MatrixMarket matrix coordinate real general\n2 3 3\n1 3 0.30000000000000004\n2 1 -1e-300\n2 2 7\n");
  for (const char* name : {"g.mtx", "g.mtx.gz"}) {
    std::string path = dir.file(name);
    write_general(path, g);
    CsrMatrix h = read_general(path);
    CHECK(h.nrow == 2);
    CHECK(h.ncol == 3);
    CHECK(as_ll(h.ptr) == as_ll(g.ptr));
    CHECK(as_ll(h.col) == as_ll(g.col));
    CHECK(same_bits(g.val, h.val));
  }

  DenseMatrix d;
  d.nrow = 3;
  d.ncol = 2;
  d.val = {1.0 / 7.0, -0.0, 1e-310, 2.5, -1e300, 6.0};
  for (const char* name : {"d.mtx", "d.mtx.gz"}) {
    std::string path = dir.file(name);
    write_dense(path, d);
    DenseMatrix e = read_dense(path);
    CHECK(e.nrow == 3);
    CHECK(e.ncol == 2);
    CHECK(same_bits(d.val, e.val));
  }

  // n = 0 round trip
  SymmetricMatrix z = sym("%%MatrixMarket matrix coordinate real symmetric\n0 0 0\n");
  write_symmetric(dir.file("z.mtx.gz"), z);
  CHECK(read_symmetric(dir.file("z.mtx.gz")).n == 0);
}

TEST_CASE("gzip: in memory - truncated - corrupt - concatenated members") {
  TempDir dir;
  SymmetricMatrix a = ssids_test::random_symmetric(30, 0.3, 1.0, 5.0, 777);
  write_symmetric(dir.file("a.mtx.gz"), a);
  std::string raw = slurp(dir.file("a.mtx.gz"));
  REQUIRE(raw.size() > 40);
  CHECK(parse_symmetric(raw.data(), raw.size()).nnz() == a.nnz());
  CHECK(parse_general(raw.data(), raw.size()).nnz() == 2 * a.nnz() - a.n);  // diagonal is full

  std::string truncated = raw.substr(0, raw.size() - 12);
  auto e = error_of([&] { parse_symmetric(truncated.data(), truncated.size()); });
  CHECK(e.first == flag::bad_input);
  CHECK_MESSAGE(contains(e.second, "gzip"), e.second);
  std::string header_only = raw.substr(0, 5);
  e = error_of([&] { parse_general(header_only.data(), header_only.size()); });
  CHECK(e.first == flag::bad_input);

  std::string corrupt = raw;
  for (std::size_t k = raw.size() / 3; k < raw.size() / 3 + 8; ++k) corrupt[k] = static_cast<char>(corrupt[k] ^ 0x5a);
  e = error_of([&] { parse_symmetric(corrupt.data(), corrupt.size()); });
  CHECK(e.first == flag::bad_input);
  CHECK_MESSAGE(contains(e.second, "gzip"), e.second);

  // a truncated file on disk, and a .gz name that is not gzip data
  spit(dir.file("t.mtx.gz"), truncated);
  e = error_of([&] { read_symmetric(dir.file("t.mtx.gz")); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "t.mtx.gz"));
  spit(dir.file("plain.mtx.gz"), "%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 1\n");
  e = error_of([&] { read_symmetric(dir.file("plain.mtx.gz")); });
  CHECK(e.first == flag::bad_input);
  // gzip data under a plain name is sniffed
  spit(dir.file("sniffed.mtx"), raw);
  CHECK(read_symmetric(dir.file("sniffed.mtx")).nnz() == a.nnz());

  // two members: banner+size in the first, entries in the second (as `cat a.gz b.gz` makes)
  std::string out;
  std::string p1 = dir.file("m1"), p2 = dir.file("m2");
  spit(p1, "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n");
  spit(p2, "1 1 3\n2 1 4\n");
  int rc = ssids_test::run_command("gzip -n '" + p1 + "' '" + p2 + "' && cat '" + p1 + ".gz' '" + p2 + ".gz' > '" +
                                       dir.file("cat.mtx.gz") + "'",
                                   out);
  if (rc != 0) {
    MESSAGE("gzip not usable, concatenated-member check not run: " << out);
  } else {
    SymmetricMatrix c = read_symmetric(dir.file("cat.mtx.gz"));
    CHECK(as_d(c.val) == std::vector<double>{3, 4});
  }
}

TEST_CASE("I/O failures are bad_input naming the path") {
  TempDir dir;
  std::string missing = dir.file("does_not_exist.mtx");
  for (int k = 0; k < 3; ++k) {
    auto e = error_of([&] {
      if (k == 0) read_symmetric(missing);
      if (k == 1) read_general(missing);
      if (k == 2) read_dense(missing);
    });
    CHECK(e.first == flag::bad_input);
    CHECK(contains(e.second, missing));
    CHECK(contains(e.second, std::strerror(ENOENT)));
  }
  // a directory opens but cannot be read
  auto e = error_of([&] { read_symmetric(dir.path.string()); });
  CHECK(e.first == flag::bad_input);
  // parse errors from files carry the path and the line
  spit(dir.file("bad.mtx"), "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 x 1\n");
  e = error_of([&] { read_general(dir.file("bad.mtx")); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, "bad.mtx"));
  CHECK(contains(e.second, "line 3:"));

  SymmetricMatrix a = sym("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 2 2\n");
  std::string nodir = dir.file("no/such/dir/a.mtx");
  e = error_of([&] { write_symmetric(nodir, a); });
  CHECK(e.first == flag::bad_input);
  CHECK(contains(e.second, nodir));
  e = error_of([&] { write_symmetric(nodir + ".gz", a); });
  CHECK(e.first == flag::bad_input);
  if (fs::exists("/dev/full")) {  // writes fail with ENOSPC: the error must surface (at flush or close)
    e = error_of([&] { write_symmetric("/dev/full", a); });
    CHECK(e.first == flag::bad_input);
    CHECK(contains(e.second, "/dev/full"));
  }
  // inconsistent containers are refused before anything is written
  SymmetricMatrix broken = a;
  broken.ptr.pop_back();
  e = error_of([&] { write_symmetric(dir.file("x.mtx"), broken); });
  CHECK(e.first == flag::bad_input);
  CHECK_FALSE(fs::exists(dir.file("x.mtx")));
  DenseMatrix d;
  d.nrow = 2;
  d.ncol = 2;
  d.val = {1, 2, 3};
  e = error_of([&] { write_dense(dir.file("d.mtx"), d); });
  CHECK(e.first == flag::bad_input);
}

TEST_CASE("parsing speed: one million entries from memory") {
  // A tridiagonal-like symmetric matrix written as text, 1M entries (~25 MB). A few seconds for 10M
  // entries means well under a second here; the bound is loose because the machine is shared.
  const int n = 333334;
  std::string text = "%%MatrixMarket matrix coordinate real symmetric\n";
  std::string body;
  body.reserve(30u * 1000000u);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  offset_t nnz = 0;
  char line[96];
  for (int j = 1; j <= n && nnz < 1000000; ++j)
    for (int i = j; i <= std::min(n, j + 2) && nnz < 1000000; ++i, ++nnz) {
      int k = std::snprintf(line, sizeof(line), "%d %d %.17g\n", i, j, u(rng));
      body.append(line, static_cast<std::size_t>(k));
    }
  text += std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(nnz) + "\n" + body;
  auto t0 = std::chrono::steady_clock::now();
  MatrixReport r;
  SymmetricMatrix a = sym(text, &r);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("parsed " << nnz << " entries (" << text.size() / 1e6 << " MB) in " << secs << " s");
  CHECK(a.nnz() == nnz);
  CHECK(r.warning_flag() == 0);
}
