// test_io_matrices.cpp — reads every shared test matrix (Matrix Market, gzip) and checks it against
// MANIFEST.tsv in the same folder: dimension, entries stored in the file, and (where the manifest gives
// it) the entry count of the full symmetric matrix. Symmetric files go through read_symmetric, general
// ones through read_general; the returned structures are checked for the library's invariants
// (0-based, sorted, no duplicates, lower triangle for symmetric, finite values).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"

using namespace ssids;
namespace fs = std::filesystem;

namespace {

struct ManifestRow {
  long long n = -1, nnz_stored = -1, nnz_full = -1;
  std::string symmetry;
};

/// MANIFEST.tsv: header line naming the columns, then one row per file (tab separated).
std::map<std::string, ManifestRow> read_manifest(const std::string& path) {
  std::map<std::string, ManifestRow> rows;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return rows;
  std::vector<std::string> names;
  {
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) names.push_back(cell);
  }
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string cell, file;
    ManifestRow r;
    for (std::size_t c = 0; std::getline(ss, cell, '\t') && c < names.size(); ++c) {
      if (names[c] == "file") file = cell;
      if (names[c] == "n") r.n = std::stoll(cell);
      if (names[c] == "nnz_stored") r.nnz_stored = std::stoll(cell);
      if (names[c] == "symmetry") r.symmetry = cell;
      if (names[c] == "known_properties") {
        auto at = cell.find("nnz_full=");
        if (at != std::string::npos) r.nnz_full = std::stoll(cell.substr(at + 9));
      }
    }
    if (!file.empty()) rows[file] = r;
  }
  return rows;
}

template <class P, class I>
void check_compressed(long long n_outer, long long n_inner, const P& ptr, const I& idx, bool lower) {
  REQUIRE(ptr.size() == static_cast<std::size_t>(n_outer) + 1);
  CHECK(ptr[0] == 0);
  CHECK(static_cast<std::size_t>(ptr[n_outer]) == idx.size());
  long long bad_order = 0, bad_range = 0, bad_ptr = 0;
  for (long long o = 0; o < n_outer; ++o) {
    if (ptr[o] > ptr[o + 1]) ++bad_ptr;
    for (auto k = ptr[o]; k < ptr[o + 1]; ++k) {
      if (idx[k] < (lower ? o : 0) || idx[k] >= n_inner) ++bad_range;
      if (k > ptr[o] && idx[k] <= idx[k - 1]) ++bad_order;  // strictly ascending: sorted, no duplicates
    }
  }
  CHECK(bad_ptr == 0);
  CHECK(bad_range == 0);
  CHECK(bad_order == 0);
}

template <class V>
long long count_nonfinite(const V& v) {
  long long bad = 0;
  for (double x : v) bad += std::isfinite(x) ? 0 : 1;
  return bad;
}

}  // namespace

TEST_CASE("every shared test matrix reads and matches MANIFEST.tsv") {
  std::string dir = ssids_test::matrices_dir();
  if (dir.empty()) {
    ssids_test::skip("no shared test matrices folder (set SSIDS_TEST_MATRICES)");
    return;
  }
  std::vector<std::string> files = ssids_test::matrix_files();
  REQUIRE_MESSAGE(!files.empty(), "the matrices folder " << dir << " holds no *.mtx or *.mtx.gz file");
  std::map<std::string, ManifestRow> manifest = read_manifest(dir + "/MANIFEST.tsv");
  REQUIRE_MESSAGE(!manifest.empty(), "MANIFEST.tsv missing or empty in " << dir);

  int symmetric_files = 0, general_files = 0;
  for (const std::string& path : files) {
    const std::string name = fs::path(path).filename().string();
    CAPTURE(name);
    auto it = manifest.find(name);
    REQUIRE_MESSAGE(it != manifest.end(), name << " has no row in MANIFEST.tsv");
    const ManifestRow& m = it->second;
    MatrixReport r;
    if (m.symmetry == "symmetric") {
      ++symmetric_files;
      SymmetricMatrix a;
      try {
        a = read_symmetric(path, &r);
      } catch (const Error& e) {
        FAIL_CHECK("read_symmetric failed: " << e.what());
        continue;
      }
      CHECK(a.n == m.n);
      CHECK(r.nrow == m.n);
      CHECK(r.ncol == m.n);
      CHECK(r.symmetric_file);
      CHECK(r.entries_in_file == m.nnz_stored);
      // every entry of the file is accounted for: stored, or merged as a duplicate or a mirrored pair
      CHECK(a.nnz() + r.duplicates + r.mirrored_pairs == r.entries_in_file);
      check_compressed(a.n, a.n, a.ptr, a.row, true);
      CHECK(a.val.size() == a.row.size());
      CHECK(count_nonfinite(a.val) == 0);
      if (m.nnz_full >= 0) {
        CsrMatrix g = read_general(path);
        long long diag = 0;
        for (index_t j = 0; j < a.n; ++j)
          if (a.ptr[j] < a.ptr[j + 1] && a.row[a.ptr[j]] == j) ++diag;
        CHECK(g.nnz() == 2 * a.nnz() - diag);
        CHECK(g.nnz() == m.nnz_full);
      }
    } else {
      ++general_files;
      CsrMatrix a;
      try {
        a = read_general(path, &r);
      } catch (const Error& e) {
        FAIL_CHECK("read_general failed: " << e.what());
        continue;
      }
      CHECK(a.nrow == m.n);
      CHECK(a.ncol == m.n);
      CHECK_FALSE(r.symmetric_file);
      CHECK(r.entries_in_file == m.nnz_stored);
      CHECK(a.nnz() + r.duplicates == r.entries_in_file);
      check_compressed(a.nrow, a.ncol, a.ptr, a.col, false);
      CHECK(a.val.size() == a.col.size());
      CHECK(count_nonfinite(a.val) == 0);
    }
  }
  MESSAGE("read " << symmetric_files << " symmetric and " << general_files << " general matrices");
  // every manifest row names a file that is present
  for (const auto& kv : manifest) CHECK_MESSAGE(fs::exists(dir + "/" + kv.first), kv.first << " listed but absent");
}

TEST_CASE("shared symmetric matrices survive a gzip write/read round trip bit-exactly") {
  std::string dir = ssids_test::matrices_dir();
  if (dir.empty()) {
    ssids_test::skip("no shared test matrices folder (set SSIDS_TEST_MATRICES)");
    return;
  }
  std::vector<std::string> files = ssids_test::matrix_files();
  REQUIRE(!files.empty());
  fs::path tmp = fs::temp_directory_path() / ("ssids_test_io_matrices_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  int done = 0;
  for (const std::string& path : files) {
    CAPTURE(path);
    MatrixReport r;
    SymmetricMatrix a;
    try {
      a = read_symmetric(path, &r);
    } catch (const Error& e) {
      if (e.code() == flag::not_symmetric) continue;  // a nonsymmetric 'general' file: nothing to round-trip
      FAIL_CHECK(e.what());
      continue;
    }
    if (a.nnz() > 100000) continue;  // keep the test quick
    std::string out = (tmp / "rt.mtx.gz").string();
    write_symmetric(out, a);
    SymmetricMatrix b = read_symmetric(out);
    CHECK(std::vector<long long>(a.ptr.begin(), a.ptr.end()) == std::vector<long long>(b.ptr.begin(), b.ptr.end()));
    CHECK(std::vector<long long>(a.row.begin(), a.row.end()) == std::vector<long long>(b.row.begin(), b.row.end()));
    bool same = a.val.size() == b.val.size();
    for (std::size_t k = 0; same && k < a.val.size(); ++k) same = std::signbit(a.val[k]) == std::signbit(b.val[k]) && a.val[k] == b.val[k];
    CHECK(same);
    ++done;
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  CHECK(done > 0);
}
