// test_generate.cpp — the test-problem generators and the "gen:" matrix specs (include/ssids/generate.hpp).
// Sizes and nnz against closed-form counts, storage invariants (lower triangle / CSR, sorted, no
// duplicates), inertia against dense LAPACK eigenvalues, dominance properties, determinism, and every
// spec parsing error.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"

using namespace ssids;
using ssids_test::eigenvalues;
using ssids_test::inertia_of;
using ssids_test::to_dense;

namespace {

/// Lower-triangle CSC invariants: ptr valid, rows strictly ascending in [j, n) in column j.
void check_lower(const SymmetricMatrix& a) {
  REQUIRE(a.ptr.size() == static_cast<std::size_t>(a.n) + 1);
  REQUIRE(a.ptr[0] == 0);
  REQUIRE(a.row.size() == static_cast<std::size_t>(a.ptr[a.n]));
  REQUIRE(a.val.size() == a.row.size());
  bool ok = true;
  for (index_t j = 0; j < a.n && ok; ++j) {
    ok = a.ptr[j] <= a.ptr[j + 1];
    for (offset_t p = a.ptr[j]; p < a.ptr[j + 1] && ok; ++p) {
      ok = a.row[p] >= j && a.row[p] < a.n && (p == a.ptr[j] || a.row[p - 1] < a.row[p]) && std::isfinite(a.val[p]);
      if (!ok) INFO("column " << j << " entry " << p);
    }
  }
  CHECK(ok);
}

/// CSR invariants: ptr valid, columns strictly ascending in [0, ncol).
void check_csr(const CsrMatrix& a) {
  REQUIRE(a.ptr.size() == static_cast<std::size_t>(a.nrow) + 1);
  REQUIRE(a.ptr[0] == 0);
  REQUIRE(a.col.size() == static_cast<std::size_t>(a.ptr[a.nrow]));
  REQUIRE(a.val.size() == a.col.size());
  bool ok = true;
  for (index_t i = 0; i < a.nrow && ok; ++i) {
    ok = a.ptr[i] <= a.ptr[i + 1];
    for (offset_t p = a.ptr[i]; p < a.ptr[i + 1] && ok; ++p)
      ok = a.col[p] >= 0 && a.col[p] < a.ncol && (p == a.ptr[i] || a.col[p - 1] < a.col[p]) && std::isfinite(a.val[p]);
  }
  CHECK(ok);
}

bool same(const SymmetricMatrix& a, const SymmetricMatrix& b) {
  return a.n == b.n && a.ptr == b.ptr && a.row == b.row && a.val == b.val;
}
bool same(const CsrMatrix& a, const CsrMatrix& b) {
  return a.nrow == b.nrow && a.ncol == b.ncol && a.ptr == b.ptr && a.col == b.col && a.val == b.val;
}

/// Entry (i, j) of a CSR matrix (0 when absent).
double csr_at(const CsrMatrix& a, index_t i, index_t j) {
  for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p)
    if (a.col[p] == j) return a.val[p];
  return 0.0;
}

/// Inertia from dense eigenvalues with a tolerance relative to the largest |eigenvalue|.
ssids_test::Inertia dense_inertia(const SymmetricMatrix& a) {
  auto eig = eigenvalues(to_dense(a), a.n);
  double big = 0;
  for (double e : eig) big = std::max(big, std::fabs(e));
  return inertia_of(eig, 1e-10 * std::max(big, 1.0));
}

/// Error code of a call expected to throw ssids::Error (0 when it does not throw).
template <class F>
int error_code(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return 0;
}

}  // namespace

TEST_CASE("laplace2d: size - nnz - values and smallest eigenvalue") {
  for (index_t k : {1, 2, 5, 31, 33}) {
    CAPTURE(k);
    auto a = generate_laplace2d(k);
    check_lower(a);
    CHECK(a.n == k * k);
    CHECK(a.nnz() == static_cast<offset_t>(k) * k + 2 * k * (k - 1));
    for (index_t j = 0; j < a.n; ++j) {
      CHECK(a.row[a.ptr[j]] == j);
      CHECK(a.val[a.ptr[j]] == 4.0);
      for (offset_t p = a.ptr[j] + 1; p < a.ptr[j + 1]; ++p) {
        CHECK(a.val[p] == -1.0);
        const index_t d = a.row[p] - j;
        CHECK((d == k || (d == 1 && (j % k) + 1 < k)));
      }
    }
  }
  // closed form: lambda_min = 8 sin^2(pi / (2 (k+1)))
  const index_t k = 7;
  auto eig = eigenvalues(to_dense(generate_laplace2d(k)), k * k);
  const double s = std::sin(std::acos(-1.0) / (2.0 * (k + 1)));
  CHECK(eig.front() == doctest::Approx(8 * s * s).epsilon(1e-12));
}

TEST_CASE("laplace3d: size - nnz - shift on the diagonal - large grid") {
  for (index_t k : {1, 2, 4, 9}) {
    CAPTURE(k);
    auto a = generate_laplace3d(k, 1.25);
    check_lower(a);
    const offset_t k64 = k;
    CHECK(a.n == k * k * k);
    CHECK(a.nnz() == k64 * k64 * k64 + 3 * k64 * k64 * (k64 - 1));
    int bad = 0;
    for (index_t j = 0; j < a.n; ++j) {
      bad += a.row[a.ptr[j]] != j || a.val[a.ptr[j]] != 6.0 - 1.25;
      for (offset_t p = a.ptr[j] + 1; p < a.ptr[j + 1]; ++p) {
        const index_t d = a.row[p] - j;
        bad += a.val[p] != -1.0 || !(d == 1 || d == k || d == k * k);
      }
    }
    CHECK(bad == 0);
  }
  // n = 1e6: must be quick (no timing assertion on a shared machine, only the counts)
  auto big = generate_laplace3d(100);
  CHECK(big.n == 1000000);
  CHECK(big.nnz() == 1000000 + 3 * 10000 * 99);
  CHECK(big.row[big.ptr[big.n - 1]] == big.n - 1);
}

TEST_CASE("laplace3d_num_neg agrees with dense eigenvalues") {
  for (index_t k = 3; k <= 6; ++k)
    for (double shift : {0.0, 0.5, 2.0, 3.0, 5.3, 6.0, 9.0, 11.9, 12.5}) {
      CAPTURE(k);
      CAPTURE(shift);
      auto eig = eigenvalues(to_dense(generate_laplace3d(k, shift)), k * k * k);
      auto in = inertia_of(eig, 1e-9);
      std::int64_t zero = -1;
      const std::int64_t neg = laplace3d_num_neg(k, shift, &zero);
      CHECK(neg == in.neg);
      CHECK(zero == in.zero);
    }
  // shift 6 with k odd hits exact eigenvalues (cos sum 0): k = 3 has 7 of them, e.g. a = b = c = 2
  std::int64_t zero = 0;
  laplace3d_num_neg(3, 6.0, &zero);
  CHECK(zero == 7);
  // extremes and monotonicity; k = 200 must be instant (O(k^2 log k))
  CHECK(laplace3d_num_neg(200, 0.0) == 0);
  CHECK(laplace3d_num_neg(200, 12.0) == 200LL * 200 * 200);
  std::int64_t prev = 0;
  for (double shift = 0; shift <= 12; shift += 0.75) {
    const std::int64_t v = laplace3d_num_neg(200, shift);
    CHECK(v >= prev);
    prev = v;
  }
  CHECK(laplace3d_num_neg(0, 3.0) == 0);
}

TEST_CASE("kkt_qp: structure and exact inertia") {
  for (double delta : {0.0, 1e-3, 1.0})
    for (std::uint64_t seed : {1ULL, 2ULL, 77ULL}) {
      CAPTURE(delta);
      CAPTURE(seed);
      const index_t nvar = 40, ncon = 15;
      auto a = generate_kkt_qp(nvar, ncon, delta, seed);
      check_lower(a);
      REQUIRE(a.n == nvar + ncon);
      // (2,2) block: only its diagonal, present exactly when delta != 0
      for (index_t j = nvar; j < a.n; ++j) {
        const offset_t len = a.ptr[j + 1] - a.ptr[j];
        CHECK(len == (delta != 0.0 ? 1 : 0));
        if (len) CHECK(a.val[a.ptr[j]] == -delta);
      }
      // each row of A has an entry of magnitude >= 1 and at most 4 entries
      std::vector<int> count(ncon, 0), pivots(ncon, 0);
      for (index_t j = 0; j < nvar; ++j)
        for (offset_t p = a.ptr[j]; p < a.ptr[j + 1]; ++p)
          if (a.row[p] >= nvar) {
            ++count[a.row[p] - nvar];
            pivots[a.row[p] - nvar] += std::fabs(a.val[p]) >= 1.0;
          }
      for (index_t r = 0; r < ncon; ++r) {
        CHECK(count[r] >= 1);
        CHECK(count[r] <= 4);
        CHECK(pivots[r] == 1);
      }
      auto in = dense_inertia(a);
      CHECK(in.pos == nvar);
      CHECK(in.neg == ncon);
      CHECK(in.zero == 0);
    }
  // other shapes, including no constraints and ncon = nvar - 1
  for (auto [nvar, ncon] : {std::pair<index_t, index_t>{1, 0}, {2, 1}, {33, 0}, {33, 32}, {65, 31}}) {
    CAPTURE(nvar);
    CAPTURE(ncon);
    auto a = generate_kkt_qp(nvar, ncon, 0.0, 5);
    check_lower(a);
    auto in = dense_inertia(a);
    CHECK(in.pos == nvar);
    CHECK(in.neg == ncon);
    CHECK(in.zero == 0);
  }
  CHECK(error_code([] { generate_kkt_qp(10, 10, 0.0, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_kkt_qp(10, 11, 0.0, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_kkt_qp(0, 0, 0.0, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_kkt_qp(10, -1, 0.0, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_kkt_qp(10, 3, -1e-3, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_kkt_qp(10, 3, NAN, 1); }) == flag::bad_input);
}

TEST_CASE("stokes: closed-form counts - zero - 2-2 block - exact inertia") {
  for (index_t k : {2, 3, 4, 5}) {
    CAPTURE(k);
    auto a = generate_stokes(k);
    check_lower(a);
    const index_t nvel = 2 * k * (k - 1), np = k * k - 1;
    REQUIRE(a.n == nvel + np);
    CHECK(a.nnz() == 2 * (k * (k - 1) + k * (k - 2) + (k - 1) * (k - 1)) + 4 * k * (k - 1) - 2);
    for (index_t j = nvel; j < a.n; ++j) CHECK(a.ptr[j + 1] == a.ptr[j]);
    // B entries are +-1 and each velocity column of B sums to zero unless it touches the dropped cell
    int b_entries = 0;
    for (index_t j = 0; j < nvel; ++j)
      for (offset_t p = a.ptr[j]; p < a.ptr[j + 1]; ++p)
        if (a.row[p] >= nvel) {
          ++b_entries;
          CHECK(std::fabs(a.val[p]) == 1.0);
        }
    CHECK(b_entries == 2 * nvel - 2);
    auto in = dense_inertia(a);
    CHECK(in.pos == nvel);
    CHECK(in.neg == np);
    CHECK(in.zero == 0);
  }
  CHECK(error_code([] { generate_stokes(1); }) == flag::bad_input);
  CHECK(error_code([] { generate_stokes(100000); }) == flag::bad_input);
}

TEST_CASE("stokes3d: closed-form counts - zero 2-2 block - divergence columns - exact inertia") {
  for (index_t k : {2, 3, 4}) {
    CAPTURE(k);
    auto a = generate_stokes3d(k);
    check_lower(a);
    const index_t nvel = 3 * k * k * (k - 1), np = k * k * k - 1;
    REQUIRE(a.n == nvel + np);
    CHECK(a.nnz() == 3 * (k - 1) * k * k + 3 * (k - 2) * k * k + 6 * (k - 1) * (k - 1) * k + 6 * (k - 1) * k * k - 3);
    for (index_t j = nvel; j < a.n; ++j) CHECK(a.ptr[j + 1] == a.ptr[j]);
    // every face has +1 for one cell and -1 for the other, except the 3 faces of the dropped cell
    int b_entries = 0, b_sum_nonzero = 0;
    for (index_t j = 0; j < nvel; ++j) {
      double sum = 0.0;
      for (offset_t p = a.ptr[j]; p < a.ptr[j + 1]; ++p)
        if (a.row[p] >= nvel) {
          ++b_entries;
          sum += a.val[p];
          CHECK(std::fabs(a.val[p]) == 1.0);
        }
      if (sum != 0.0) ++b_sum_nonzero;
    }
    CHECK(b_entries == 2 * nvel - 3);
    CHECK(b_sum_nonzero == 3);
    auto in = dense_inertia(a);
    CHECK(in.pos == nvel);
    CHECK(in.neg == np);
    CHECK(in.zero == 0);
  }
  CHECK(same(load_symmetric("gen:stokes3d:3"), generate_stokes3d(3)));
  CHECK(error_code([] { generate_stokes3d(1); }) == flag::bad_input);
  CHECK(error_code([] { generate_stokes3d(100000); }) == flag::bad_input);
}

TEST_CASE("convdiff: counts - M-matrix signs - diagonal dominance - upwinding") {
  for (index_t k : {1, 2, 6, 17})
    for (double pe : {0.0, 10.0, -250.0}) {
      CAPTURE(k);
      CAPTURE(pe);
      auto a = generate_convdiff(k, pe);
      check_csr(a);
      CHECK(a.nrow == k * k);
      CHECK(a.ncol == k * k);
      CHECK(a.nnz() == static_cast<offset_t>(k) * k + 4 * k * (k - 1));
      int bad = 0, strict = 0;
      for (index_t i = 0; i < a.nrow; ++i) {
        double diag = 0, off = 0;
        for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
          if (a.col[p] == i) diag = a.val[p];
          else {
            off += std::fabs(a.val[p]);
            bad += a.val[p] >= 0;
          }
        }
        bad += diag <= 0 || diag < off * (1 - 1e-14);
        strict += diag > off * (1 + 1e-14);
      }
      CHECK(bad == 0);
      CHECK(strict >= 1);
    }
  // wind (1,1)/sqrt2 * 10: the west/south neighbours are upstream and carry the convection term
  const index_t k = 4;
  auto a = generate_convdiff(k, 10.0);
  const double cw = 10.0 / std::sqrt(2.0) / (k + 1);
  const index_t i = 1 + k * 1;  // interior point (1, 1)
  CHECK(csr_at(a, i, i - 1) == doctest::Approx(-1 - cw));
  CHECK(csr_at(a, i, i - k) == doctest::Approx(-1 - cw));
  CHECK(csr_at(a, i, i + 1) == -1.0);
  CHECK(csr_at(a, i, i + k) == -1.0);
  CHECK(csr_at(a, i, i) == doctest::Approx(4 + 2 * cw));
  // Peclet 0 is the 2D Laplacian
  CHECK(same(generate_convdiff(5, 0.0), load_general("gen:laplace2d:5")));
}

TEST_CASE("banded: counts - bandwidth - dominance - value range") {
  struct Case { index_t n, k; double d; };
  for (auto c : {Case{1, 0, 2.0}, Case{1, 5, 2.0}, Case{7, 3, 1.0}, Case{7, 10, 0.5}, Case{129, 31, 1.1},
                 Case{1000, 64, 3.0}, Case{50, 0, 1.0}}) {
    CAPTURE(c.n);
    CAPTURE(c.k);
    auto a = generate_banded(c.n, c.k, c.d, 3);
    check_csr(a);
    CHECK(a.nrow == c.n);
    const offset_t kk = std::min(c.k, c.n - 1);
    CHECK(a.nnz() == static_cast<offset_t>(c.n) * (2 * kk + 1) - kk * (kk + 1));
    int bad = 0;
    for (index_t i = 0; i < a.nrow; ++i) {
      // every band position present (the row is contiguous), nothing outside
      const index_t lo = static_cast<index_t>(std::max<offset_t>(0, i - kk));
      const index_t hi = static_cast<index_t>(std::min<offset_t>(c.n - 1, i + kk));
      bad += a.ptr[i + 1] - a.ptr[i] != hi - lo + 1 || a.col[a.ptr[i]] != lo;
      double diag = -1, off = 0;
      for (offset_t p = a.ptr[i]; p < a.ptr[i + 1]; ++p) {
        if (a.col[p] == i) diag = a.val[p];
        else {
          off += std::fabs(a.val[p]);
          bad += a.val[p] < -1.0 || a.val[p] >= 1.0;
        }
      }
      bad += std::fabs(diag - c.d * off) > 1e-12 * std::max(1.0, c.d * off) || diag < 0;
    }
    CHECK(bad == 0);
  }
  CHECK(error_code([] { generate_banded(0, 1, 1.0, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_banded(5, -1, 1.0, 1); }) == flag::bad_input);
  CHECK(error_code([] { generate_banded(5, 1, -1.0, 1); }) == flag::bad_input);
}

TEST_CASE("random generators are deterministic and portable") {
  CHECK(same(generate_kkt_qp(50, 20, 0.0, 9), generate_kkt_qp(50, 20, 0.0, 9)));
  CHECK(!same(generate_kkt_qp(50, 20, 0.0, 9), generate_kkt_qp(50, 20, 0.0, 10)));
  CHECK(same(generate_banded(300, 7, 1.5, 4), generate_banded(300, 7, 1.5, 4)));
  auto b1 = generate_banded(300, 7, 1.5, 4), b2 = generate_banded(300, 7, 1.5, 5);
  CHECK(b1.col == b2.col);  // same pattern, different values
  CHECK(b1.val != b2.val);
  // pinned values: mt19937_64 is fixed by the standard and the mapping to doubles is ours, so these hold
  // on every platform; a change here means generated matrices changed for everybody
  auto b = generate_banded(3, 1, 1.0, 1);
  REQUIRE(b.nnz() == 7);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", b.val[1]);
  CHECK(std::string(buf) == "-0.73224671197493474");
  auto q = generate_kkt_qp(4, 1, 0.0, 1);
  std::snprintf(buf, sizeof buf, "%.17g", q.val[0]);
  CHECK(std::string(buf) == "2.3103307530254598");  // grid-local kkt-qp
}

TEST_CASE("gen specs build the same matrices as the direct calls") {
  CHECK(same(load_symmetric("gen:laplace2d:6"), generate_laplace2d(6)));
  CHECK(same(load_symmetric("gen:laplace3d:4"), generate_laplace3d(4, 0.0)));
  CHECK(same(load_symmetric("gen:laplace3d:4:2.5"), generate_laplace3d(4, 2.5)));
  CHECK(same(load_symmetric("gen:kkt-qp:30:10"), generate_kkt_qp(30, 10, 0.0, 1)));
  CHECK(same(load_symmetric("gen:kkt-qp:30:10:1e-2"), generate_kkt_qp(30, 10, 1e-2, 1)));
  CHECK(same(load_symmetric("gen:kkt-qp:30:10:0:42"), generate_kkt_qp(30, 10, 0.0, 42)));
  CHECK(same(load_symmetric("gen:stokes:3"), generate_stokes(3)));
  CHECK(same(load_general("gen:convdiff:5:100"), generate_convdiff(5, 100.0)));
  CHECK(same(load_general("gen:banded:40:4:2"), generate_banded(40, 4, 2.0, 1)));
  CHECK(same(load_general("gen:banded:40:4:2:8"), generate_banded(40, 4, 2.0, 8)));

  MatrixReport rep;
  rep.duplicates = 5;  // must be reset
  auto s = load_symmetric("gen:stokes:4", &rep);
  CHECK(rep.nrow == s.n);
  CHECK(rep.ncol == s.n);
  CHECK(rep.entries_in_file == s.nnz());
  CHECK(rep.symmetric_file);
  CHECK(rep.duplicates == 0);
  auto g = load_general("gen:banded:10:2:1", &rep);
  CHECK(rep.nrow == 10);
  CHECK(rep.entries_in_file == g.nnz());
  CHECK(!rep.symmetric_file);
}

TEST_CASE("symmetric kinds expand to both triangles in load_general") {
  for (const char* spec : {"gen:kkt-qp:25:9:0.5:3", "gen:stokes:4", "gen:laplace3d:3:1"}) {
    CAPTURE(spec);
    auto s = load_symmetric(spec);
    MatrixReport rep;
    auto g = load_general(spec, &rep);
    check_csr(g);
    CHECK(rep.symmetric_file);
    CHECK(rep.entries_in_file == s.nnz());
    offset_t ndiag = 0;
    for (index_t j = 0; j < s.n; ++j)
      for (offset_t p = s.ptr[j]; p < s.ptr[j + 1]; ++p) ndiag += s.row[p] == j;
    CHECK(g.nnz() == 2 * s.nnz() - ndiag);
    auto d = to_dense(s);
    int bad = 0;
    for (index_t i = 0; i < g.nrow; ++i)
      for (offset_t p = g.ptr[i]; p < g.ptr[i + 1]; ++p)
        bad += g.val[p] != d[static_cast<std::size_t>(i) + static_cast<std::size_t>(g.col[p]) * s.n];
    CHECK(bad == 0);
  }
}

TEST_CASE("gen spec errors are bad_input with a clear message") {
  const char* bad_symmetric[] = {
      "gen:",                       // no kind
      "gen:nosuch:3",               // unknown kind
      "gen:Laplace2d:3",            // kinds are case sensitive
      "gen:convdiff:5:1",           // nonsymmetric kind
      "gen:banded:10:2:1",          // nonsymmetric kind
      "gen:laplace2d",              // too few arguments
      "gen:laplace2d:3:4",          // too many
      "gen:laplace2d:",             // empty argument
      "gen:laplace2d:abc",          // non-numeric
      "gen:laplace2d:3x",           // trailing characters
      "gen:laplace2d:3.5",          // not an integer
      "gen:laplace2d:0",            // K < 1
      "gen:laplace2d:-4",           // K < 1
      "gen:laplace2d:99999999999",  // does not fit in 32 bits
      "gen:laplace2d:50000",        // n = K^2 does not fit
      "gen:laplace3d:2000",         // n = K^3 does not fit
      "gen:laplace3d:3:nan",        // non-finite shift
      "gen:laplace3d:3:inf",
      "gen:laplace3d:3:1:2",        // too many
      "gen:kkt-qp:10",              // too few
      "gen:kkt-qp:10:10",           // NCON >= NVAR
      "gen:kkt-qp:10:12",
      "gen:kkt-qp:10:-1",
      "gen:kkt-qp:10:3:-0.5",       // negative delta
      "gen:kkt-qp:10:3:0:-1",       // negative seed
      "gen:kkt-qp:10:3:0:1.5",      // non-integer seed
      "gen:kkt-qp:10:3:0:1:2",      // too many
      "gen:stokes:1",               // K < 2
      "gen:stokes",
  };
  for (const char* spec : bad_symmetric) {
    CAPTURE(spec);
    std::string msg;
    CHECK(error_code([&] { load_symmetric(spec); }, &msg) == flag::bad_input);
    CHECK(msg.find(spec) != std::string::npos);  // the message names the spec
  }
  const char* bad_general[] = {"gen:convdiff:5",   "gen:convdiff:5:1:2", "gen:convdiff:0:1", "gen:convdiff:5:x",
                               "gen:banded:10:2",  "gen:banded:0:2:1",   "gen:banded:10:-1:1",
                               "gen:banded:10:2:-1", "gen:banded:10:2:1:x", "gen:banded:10:2:1:1:1",
                               "gen:nosuch",       "gen:stokes:0",       "gen:laplace2d:0"};
  for (const char* spec : bad_general) {
    CAPTURE(spec);
    CHECK(error_code([&] { load_general(spec); }) == flag::bad_input);
  }
  std::string msg;
  error_code([] { load_symmetric("gen:convdiff:5:1"); }, &msg);
  CHECK(msg.find("nonsymmetric") != std::string::npos);
  error_code([] { load_symmetric("gen:kkt-qp:10:10"); }, &msg);
  CHECK(msg.find("NCON") != std::string::npos);
  error_code([] { load_symmetric("gen:nosuch:1"); }, &msg);
  CHECK(msg.find("unknown") != std::string::npos);
}

TEST_CASE("generator_help lists every kind") {
  const std::string h = generator_help();
  for (const char* kind : {"gen:laplace2d:K", "gen:laplace3d:K[:SHIFT]", "gen:kkt-qp:NVAR:NCON[:DELTA[:SEED]]",
                           "gen:stokes:K", "gen:stokes3d:K", "gen:convdiff:K:PECLET", "gen:banded:N:K:D[:SEED]"})
    CHECK(h.find(kind) != std::string::npos);
}

TEST_CASE("load_symmetric and load_general read files through the Matrix Market reader") {
  const std::string base = "/tmp/ssids_test_generate_" + std::to_string(getpid());
  auto a = generate_kkt_qp(30, 12, 0.25, 6);
  auto c = generate_convdiff(4, 3.0);
  try {
    write_symmetric(base + "_sym.mtx", a);
    write_general(base + "_gen.mtx", c);
  } catch (const Error& e) {
    if (e.code() == flag::unimplemented) {
      ssids_test::skip("Matrix Market writer not implemented");
      return;
    }
    throw;
  }
  MatrixReport rep;
  auto b = load_symmetric(base + "_sym.mtx", &rep);
  CHECK(same(a, b));  // 17 significant digits round-trip exactly
  CHECK(rep.symmetric_file);
  CHECK(rep.entries_in_file == a.nnz());
  auto d = load_general(base + "_gen.mtx");
  CHECK(same(c, d));
  CHECK(error_code([&] { load_symmetric(base + "_does_not_exist.mtx"); }) == flag::bad_input);
  std::remove((base + "_sym.mtx").c_str());
  std::remove((base + "_gen.mtx").c_str());
}
