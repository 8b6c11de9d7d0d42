// test_matching.cpp — detail::max_product_matching (src/common/matching.hpp): optimality against brute force
// over all permutations (n <= 7), the scaling bound |r_i a_ij c_j| <= 1 with equality on matched entries,
// maximum cardinality on structurally singular matrices (against a simple augmenting-path matcher), KKT
// matrices that leave many columns free after the greedy pass,
// permuted diagonal matrices, explicit zeros, argument errors, speed at n = 1e5, and matrices with dense
// columns (matched last, the same matching as the whole matrix at once).
// Matrices here are general n x n, 0-based CSC, both triangles. Seeds are printed on failure (CAPTURE).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "common/dense.hpp"
#include "common/matching.hpp"
#include "scaling/scaling.hpp"
#include "ssids/error.hpp"

using ssids::index_t;
using ssids::offset_t;

namespace {

struct Csc {
  int n = 0;
  std::vector<offset_t> ptr;
  std::vector<index_t> row;
  std::vector<double> val;
};

/// Dense n x n (column-major, `present` marks stored entries, whose value may be an explicit zero) to CSC.
Csc to_csc(int n, const std::vector<double>& dense, const std::vector<char>& present) {
  Csc a;
  a.n = n;
  a.ptr.assign(n + 1, 0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i)
      if (present[i + j * n]) {
        a.row.push_back(i);
        a.val.push_back(dense[i + j * n]);
      }
    a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
  }
  return a;
}

ssids::detail::MatchingResult match(const Csc& a) {
  return ssids::detail::max_product_matching(a.n, a.ptr.data(), a.row.data(), a.val.data());
}

/// Random sparse n x n with magnitudes spread over several orders; some explicit zeros when zeros = true.
Csc random_matrix(int n, double density, bool zeros, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::vector<double> d(n * n, 0.0);
  std::vector<char> p(n * n, 0);
  for (int k = 0; k < n * n; ++k)
    if (uni(rng) < density) {
      p[k] = 1;
      d[k] = (uni(rng) < 0.5 ? -1.0 : 1.0) * std::pow(10.0, 6.0 * uni(rng) - 3.0);
      if (zeros && uni(rng) < 0.1) d[k] = 0.0;
    }
  return to_csc(n, d, p);
}

/// Check the matching result's consistency and the scaling bound (returns the number of matched columns).
int check_result(const Csc& a, const ssids::detail::MatchingResult& m) {
  const int n = a.n;
  REQUIRE(m.row_of_col.size() == static_cast<size_t>(n));
  REQUIRE(m.col_of_row.size() == static_cast<size_t>(n));
  int matched = 0;
  for (int j = 0; j < n; ++j) {
    const int i = m.row_of_col[j];
    if (i == -1) continue;
    ++matched;
    REQUIRE(i >= 0);
    REQUIRE(i < n);
    CHECK(m.col_of_row[i] == j);
  }
  for (int i = 0; i < n; ++i)
    if (m.col_of_row[i] != -1) CHECK(m.row_of_col[m.col_of_row[i]] == i);
  CHECK(matched == m.matched);
  for (int j = 0; j < n; ++j) {
    bool found = m.row_of_col[j] == -1;
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
      const int i = a.row[k];
      const double x = std::fabs(a.val[k]);
      if (x == 0.0) {
        CHECK(m.row_of_col[j] != i);  // explicit zeros are never matched
        continue;
      }
      const double sc = std::log(x) + m.row_log_scale[i] + m.col_log_scale[j];
      CHECK(sc <= 1e-10);
      if (m.row_of_col[j] == i) {
        found = true;
        CHECK(std::fabs(sc) <= 1e-10);
      }
    }
    CHECK(found);  // the matched entry is a stored entry of column j
  }
  return matched;
}

/// Maximum cardinality by Kuhn's augmenting paths (independent oracle; recursive, small n only).
int max_cardinality(const Csc& a) {
  const int n = a.n;
  std::vector<int> row_match(n, -1);
  std::vector<int> seen(n, -1);
  int card = 0;
  for (int j0 = 0; j0 < n; ++j0) {
    std::function<bool(int)> dfs = [&](int j) -> bool {
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
        const int i = a.row[k];
        if (a.val[k] == 0.0 || seen[i] == j0) continue;
        seen[i] = j0;
        if (row_match[i] == -1 || dfs(row_match[i])) {
          row_match[i] = j;
          return true;
        }
      }
      return false;
    };
    if (dfs(j0)) ++card;
  }
  return card;
}

}  // namespace

TEST_CASE("matching: optimal product against brute force over all permutations - n <= 7") {
  int nonsingular = 0, singular = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int n = 1 + static_cast<int>(seed % 7);
    const double density = 0.25 + 0.6 * std::uniform_real_distribution<double>(0, 1)(rng);
    Csc a = random_matrix(n, density, seed % 3 == 0, rng);
    auto m = match(a);
    const int card = check_result(a, m);
    // brute force: p[j] = row of column j
    std::vector<double> dense(n * n, 0.0);
    for (int j = 0; j < n; ++j)
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) dense[a.row[k] + j * n] = a.val[k];
    std::vector<int> p(n);
    std::iota(p.begin(), p.end(), 0);
    int best_card = 0;
    double best_log = -1e300;          // best over matchings of maximum cardinality
    double best_same_sets = -1e300;    // best over matchings covering the same rows and columns as m
    do {
      int c = 0;
      double lg = 0.0;
      bool same_sets = true;
      for (int j = 0; j < n; ++j) {
        const double x = std::fabs(dense[p[j] + j * n]);
        const bool used = x > 0.0;
        if (used) {
          ++c;
          lg += std::log(x);
        }
        const bool col_matched = m.row_of_col[j] != -1, row_matched = m.col_of_row[p[j]] != -1;
        if (used != col_matched || (used && !row_matched)) same_sets = false;
      }
      if (c > best_card) {
        best_card = c;
        best_log = lg;
      } else if (c == best_card) {
        best_log = std::max(best_log, lg);
      }
      if (same_sets && c == card) best_same_sets = std::max(best_same_sets, lg);
    } while (std::next_permutation(p.begin(), p.end()));
    CHECK(card == best_card);
    double lg = 0.0;
    for (int j = 0; j < n; ++j)
      if (m.row_of_col[j] != -1) lg += std::log(std::fabs(dense[m.row_of_col[j] + j * n]));
    if (card == n) {
      ++nonsingular;
      CHECK(std::fabs(lg - best_log) <= 1e-9 * (1.0 + std::fabs(best_log)));
    } else {
      ++singular;
      // structurally singular: optimal among matchings on the same rows and columns (see matching.cpp)
      CHECK(std::fabs(lg - best_same_sets) <= 1e-9 * (1.0 + std::fabs(best_same_sets)));
    }
  }
  MESSAGE(nonsingular << " structurally nonsingular and " << singular << " singular random matrices");
  CHECK(nonsingular > 100);
  CHECK(singular > 20);
}

/// Symmetric KKT matrix [H A^T; A 0], both triangles: H with a diagonal over ten decades and a few small
/// off-diagonal entries, A (ncon x nvar) with three entries 1, 2 or 3 a row. Its constraint columns all want
/// the primal rows held by the large diagonal entries, so the greedy pass leaves many columns free (the case
/// where matching.cpp restarts from row-side duals and runs the augmenting reduction).
Csc kkt_matrix(int nvar, int ncon, std::mt19937_64& rng) {
  const int n = nvar + ncon;
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::uniform_int_distribution<int> var(0, nvar - 1);
  std::vector<double> d(static_cast<size_t>(n) * n, 0.0);
  std::vector<char> p(static_cast<size_t>(n) * n, 0);
  auto set = [&](int i, int j, double x) {
    d[i + static_cast<size_t>(j) * n] = d[j + static_cast<size_t>(i) * n] = x;
    p[i + static_cast<size_t>(j) * n] = p[j + static_cast<size_t>(i) * n] = 1;
  };
  for (int i = 0; i < nvar; ++i) {
    set(i, i, (uni(rng) < 0.5 ? -1.0 : 1.0) * std::pow(10.0, 2.0 + 10.0 * uni(rng)));
    if (i > 0 && uni(rng) < 0.5) set(i, var(rng) % i, 10.0 * uni(rng) + 1.0);
  }
  for (int r = 0; r < ncon; ++r)
    for (int t = 0; t < 3; ++t) set(nvar + r, var(rng), 1.0 + t);
  return to_csc(n, d, p);
}

TEST_CASE("matching: KKT matrices whose greedy pass leaves many columns free - optimal and certified") {
  // small: against brute force over all permutations
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int nvar = 3 + static_cast<int>(seed % 2), ncon = nvar - 1 - static_cast<int>(seed / 2 % 2);
    Csc a = kkt_matrix(nvar, ncon, rng);
    const int n = a.n;
    auto m = match(a);
    const int card = check_result(a, m);
    std::vector<double> dense(static_cast<size_t>(n) * n, 0.0);
    for (int j = 0; j < n; ++j)
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) dense[a.row[k] + static_cast<size_t>(j) * n] = a.val[k];
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    int best_card = 0;
    double best_log = -1e300;
    do {
      int c = 0;
      double lg = 0.0;
      for (int j = 0; j < n; ++j) {
        const double x = std::fabs(dense[perm[j] + static_cast<size_t>(j) * n]);
        if (x > 0.0) {
          ++c;
          lg += std::log(x);
        }
      }
      if (c > best_card || (c == best_card && lg > best_log)) {
        best_card = c;
        best_log = lg;
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
    CHECK(card == best_card);
    if (card == n) {
      double lg = 0.0;
      for (int j = 0; j < n; ++j) lg += std::log(std::fabs(dense[m.row_of_col[j] + static_cast<size_t>(j) * n]));
      CHECK(std::fabs(lg - best_log) <= 1e-9 * (1.0 + std::fabs(best_log)));
    }
  }
  // larger: check_result's bound (every scaled entry <= 1, matched entries = 1) is the duality certificate
  // of optimality for a perfect matching; the matched product must equal the dual bound
  for (std::uint64_t seed = 100; seed < 110; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int nvar = 150 + static_cast<int>(seed % 5) * 20, ncon = nvar * 7 / 10;
    Csc a = kkt_matrix(nvar, ncon, rng);
    auto m = match(a);
    if (check_result(a, m) != a.n) continue;  // structurally singular draw: covered elsewhere
    double lg = 0.0, bound = 0.0;
    for (int j = 0; j < a.n; ++j) {
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k)
        if (a.row[k] == m.row_of_col[j]) lg += std::log(std::fabs(a.val[k]));
      bound -= m.row_log_scale[j] + m.col_log_scale[j];
    }
    CHECK(std::fabs(lg - bound) <= 1e-9 * (1.0 + std::fabs(bound)));
  }
}

TEST_CASE("matching: weights computed beforehand in column ranges give the same result bitwise") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    // random (some structurally singular, some explicit zeros) and KKT matrices
    const Csc a = seed % 2 ? random_matrix(40 + static_cast<int>(seed), 0.08, true, rng) : kkt_matrix(30, 12, rng);
    const auto plain = match(a);
    ssids::detail::MatchingCosts costs(a.n, a.ptr.data());
    const index_t split = a.n / 3;  // two ranges, filled in the "wrong" order
    costs.fill(a.ptr.data(), a.val.data(), split, a.n);
    costs.fill(a.ptr.data(), a.val.data(), 0, split);
    const auto pre = ssids::detail::max_product_matching(a.n, a.ptr.data(), a.row.data(), a.val.data(), costs);
    CHECK(pre.row_of_col == plain.row_of_col);
    CHECK(pre.col_of_row == plain.col_of_row);
    CHECK(pre.matched == plain.matched);
    CHECK(pre.row_log_scale == plain.row_log_scale);
    CHECK(pre.col_log_scale == plain.col_log_scale);
  }
}

TEST_CASE("matching: structurally singular matrices get a maximum-cardinality matching and a valid bound") {
  for (std::uint64_t seed = 1000; seed < 1200; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int n = 5 + static_cast<int>(seed % 60);
    Csc a = random_matrix(n, 1.5 / n, seed % 2 == 0, rng);
    auto m = match(a);
    const int card = check_result(a, m);
    CHECK(card == max_cardinality(a));
    for (int i = 0; i < n; ++i) {
      CHECK(std::isfinite(m.row_log_scale[i]));
      CHECK(std::isfinite(m.col_log_scale[i]));
    }
  }
  // hand-made: a zero column and two columns sharing a single row
  std::vector<double> d = {2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 5, 0, 0, 0};
  std::vector<char> p(16, 0);
  for (int k = 0; k < 16; ++k) p[k] = d[k] != 0.0;
  Csc a = to_csc(4, d, p);  // column-major: a_00 = 2, column 1 empty, a_12 = 3, a_03 = 5 (row 0 shared)
  auto m = match(a);
  CHECK(check_result(a, m) == max_cardinality(a));
  CHECK(m.matched == 2);
  CHECK(m.row_of_col[1] == -1);
  CHECK(m.row_of_col[2] == 1);
}

TEST_CASE("matching: permuted diagonal matrices are matched to the permutation with exact scales") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int n = static_cast<int>(1 + seed * 13);
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    Csc a;
    a.n = n;
    a.ptr.assign(n + 1, 0);
    std::uniform_real_distribution<double> uni(-8, 8);
    for (int j = 0; j < n; ++j) {
      a.row.push_back(perm[j]);
      a.val.push_back((j % 2 ? -1 : 1) * std::pow(10.0, uni(rng)));
      a.ptr[j + 1] = j + 1;
    }
    auto m = match(a);
    check_result(a, m);
    CHECK(m.matched == n);
    for (int j = 0; j < n; ++j) {
      CHECK(m.row_of_col[j] == perm[j]);
      const double r = m.row_log_scale[perm[j]] + m.col_log_scale[j];
      CHECK(std::fabs(r + std::log(std::fabs(a.val[j]))) <= 1e-12 * (1 + std::fabs(r)));
    }
  }
}

TEST_CASE("matching: explicit zeros are never matched") {
  // [[0 1] [1 0]] with the zero diagonal stored: only the anti-diagonal matching exists
  Csc a;
  a.n = 2;
  a.ptr = {0, 2, 4};
  a.row = {0, 1, 0, 1};
  a.val = {0.0, 1.0, 4.0, 0.0};
  auto m = match(a);
  check_result(a, m);
  CHECK(m.matched == 2);
  CHECK(m.row_of_col[0] == 1);
  CHECK(m.row_of_col[1] == 0);
  // a column holding only explicit zeros cannot be matched
  a.val = {3.0, 2.0, 0.0, 0.0};
  m = match(a);
  check_result(a, m);
  CHECK(m.matched == 1);
  CHECK(m.row_of_col[1] == -1);
  // a large explicit zero does not beat a small true entry (product, not presence)
  a.val = {1e-8, 0.0, 0.0, 1e-8};
  m = match(a);
  check_result(a, m);
  CHECK(m.matched == 2);
  CHECK(m.row_of_col[0] == 0);
}

TEST_CASE("matching: n = 0 - n = 1 and argument errors - optimal and auction") {
  auto m0 = ssids::detail::max_product_matching(0, nullptr, nullptr, nullptr);
  CHECK(m0.matched == 0);
  std::vector<offset_t> ptr = {0, 1};
  std::vector<index_t> row = {0};
  std::vector<double> val = {-7.0};
  auto m1 = ssids::detail::max_product_matching(1, ptr.data(), row.data(), val.data());
  CHECK(m1.matched == 1);
  CHECK(m1.row_log_scale[0] + m1.col_log_scale[0] == doctest::Approx(-std::log(7.0)));
  auto code = [](auto&& f) {
    try {
      f();
    } catch (const ssids::Error& e) {
      return e.code();
    }
    return 0;
  };
  // both matchings (optimal and auction) check their input the same way
  using Matcher = ssids::detail::MatchingResult (*)(index_t, const offset_t*, const index_t*, const double*);
  for (Matcher match_fn : {Matcher(&ssids::detail::max_product_matching), Matcher(&ssids::detail::auction_matching)}) {
    CHECK(match_fn(0, nullptr, nullptr, nullptr).matched == 0);
    CHECK(code([&] { match_fn(-1, nullptr, nullptr, nullptr); }) == ssids::flag::bad_input);
    CHECK(code([&] { match_fn(1, nullptr, row.data(), val.data()); }) == ssids::flag::bad_input);
    CHECK(code([&] { match_fn(1, ptr.data(), nullptr, val.data()); }) == ssids::flag::bad_input);
    CHECK(code([&] { match_fn(1, ptr.data(), row.data(), nullptr); }) == ssids::flag::bad_input);
    std::vector<index_t> bad_row = {3};
    CHECK(code([&] { match_fn(1, ptr.data(), bad_row.data(), val.data()); }) == ssids::flag::bad_input);
    std::vector<offset_t> bad_ptr = {0, 2, 1}, shifted_ptr = {1, 2, 3};
    std::vector<index_t> row2 = {0, 1};
    std::vector<double> val2 = {1, 1};
    CHECK(code([&] { match_fn(2, bad_ptr.data(), row2.data(), val2.data()); }) == ssids::flag::bad_input);
    CHECK(code([&] { match_fn(2, shifted_ptr.data(), row2.data(), val2.data()); }) == ssids::flag::bad_input);
    CHECK(match_fn(1, ptr.data(), row.data(), val.data()).matched == 1);
  }
}

TEST_CASE("matching: speed on n = 1e5 structured and n = 2e4 random matrices") {
  // structured: a 2D grid pattern (5-point, both triangles) with random magnitudes over four decades
  for (std::uint64_t seed : {5u, 6u}) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uni(0, 1);
    const int k = 316, n = k * k;
    Csc a;
    a.n = n;
    a.ptr.assign(n + 1, 0);
    for (int j = 0; j < n; ++j) {
      const int x = j % k, y = j / k;
      for (int i : {j - k, j - 1, j, j + 1, j + k}) {
        if (i < 0 || i >= n || (i == j - 1 && x == 0) || (i == j + 1 && x == k - 1)) continue;
        if (seed == 6 && i == j) continue;  // seed 6: zero diagonal
        a.row.push_back(i);
        a.val.push_back(std::pow(10.0, 4 * uni(rng) - 2));
      }
      (void)y;
      a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto m = match(a);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("grid n = " << n << ", nnz = " << a.row.size() << ", matched " << m.matched << " in " << t << " s");
    check_result(a, m);
    CHECK(m.matched == n);
  }
  // random patterns (5 random rows per column, with and without a diagonal): the hard case for
  // shortest augmenting paths
  for (std::uint64_t seed : {7u, 8u}) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int n = 20000;
    Csc a;
    a.n = n;
    a.ptr.assign(n + 1, 0);
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::uniform_real_distribution<double> uni(0, 1);
    for (int j = 0; j < n; ++j) {
      std::vector<int> rows;
      if (seed == 7) rows.push_back(j);
      for (int t = 0; t < 5; ++t) rows.push_back(pick(rng));
      std::sort(rows.begin(), rows.end());
      rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
      for (int i : rows) {
        a.row.push_back(i);
        a.val.push_back(std::pow(10.0, 4 * uni(rng) - 2));
      }
      a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto m = match(a);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MESSAGE("random n = " << n << ", nnz = " << a.row.size() << ", matched " << m.matched << " in " << t << " s");
    check_result(a, m);
    if (seed == 7) CHECK(m.matched == n);
  }
}

TEST_CASE("matching: dense columns last - the same optimal matching as the whole matrix at once") {
  // KKT matrices [H A^T; A 0] with a few constraint rows coupling every variable (dense rows and columns,
  // common/dense.hpp), values spread over decades so that the optimum is unique
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    const int nvar = 1500 + 100 * static_cast<int>(seed), ncon = nvar / 2, nd = 1 + static_cast<int>(seed % 4);
    const int n = nvar + ncon + nd;
    std::vector<std::vector<std::pair<int, double>>> cols(n);
    auto set = [&](int i, int j, double x) {
      cols[j].emplace_back(i, x);
      if (i != j) cols[i].emplace_back(j, x);
    };
    for (int i = 0; i < nvar; ++i) {
      set(i, i, std::pow(10.0, 4.0 * uni(rng) - 2.0));
      if (i > 0) set(i, i - 1, std::pow(10.0, 2.0 * uni(rng) - 1.0));
    }
    for (int r = 0; r < ncon; ++r) {
      const int c = static_cast<int>(static_cast<long>(r) * nvar / ncon);
      set(nvar + r, c, 1.0 + uni(rng));
      if (c + 1 < nvar) set(nvar + r, c + 1, 0.1 * uni(rng));
    }
    for (int d = 0; d < nd; ++d)
      for (int j = 0; j < nvar; ++j) set(nvar + ncon + d, j, (uni(rng) < 0.5 ? -1.0 : 1.0) * (0.5 + uni(rng)));
    if (seed == 6) set(n - 1, n - 1, 0.25);  // a dense row with a diagonal entry
    Csc a;
    a.n = n;
    a.ptr.assign(n + 1, 0);
    for (int j = 0; j < n; ++j) {
      std::sort(cols[j].begin(), cols[j].end());
      for (const auto& [i, x] : cols[j]) {
        a.row.push_back(i);
        a.val.push_back(x);
      }
      a.ptr[j + 1] = static_cast<offset_t>(a.row.size());
    }
    REQUIRE(static_cast<double>(a.ptr[n] - a.ptr[n - 1]) > ssids::detail::dense_degree(n));
    auto with_rule = [&](ssids::detail::DenseColumnRule rule) {
      ssids::detail::MatchingCosts costs(a.n, a.ptr.data());
      costs.fill(a.ptr.data(), a.val.data(), 0, a.n);
      return ssids::detail::max_product_matching(a.n, a.ptr.data(), a.row.data(), a.val.data(), costs, rule);
    };
    const auto last = with_rule(ssids::detail::DenseColumnRule::last);
    const auto whole = with_rule(ssids::detail::DenseColumnRule::with_the_rest);
    CHECK(match(a).row_of_col == last.row_of_col);  // the default
    CHECK(check_result(a, last) == n);              // perfect, every scaled entry <= 1, matched ones = 1
    CHECK(check_result(a, whole) == n);
    // both certified optimal: the matched products are equal and equal each one's dual bound (the matchings
    // themselves may differ: on a symmetric matrix the transpose of an optimal matching is optimal too)
    auto log_product = [&](const ssids::detail::MatchingResult& m) {
      double lg = 0.0;
      for (int j = 0; j < n; ++j)
        for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k)
          if (a.row[k] == m.row_of_col[j]) lg += std::log(std::fabs(a.val[k]));
      return lg;
    };
    auto dual_bound = [&](const ssids::detail::MatchingResult& m) {
      double b = 0.0;
      for (int j = 0; j < n; ++j) b -= m.row_log_scale[j] + m.col_log_scale[j];
      return b;
    };
    const double lg = log_product(whole), tol = 1e-9 * (1.0 + std::fabs(lg));
    CHECK(std::fabs(log_product(last) - lg) <= tol);
    CHECK(std::fabs(dual_bound(last) - lg) <= tol);
    CHECK(std::fabs(dual_bound(whole) - lg) <= tol);
  }
}

TEST_CASE("matching: dense columns last on structurally singular matrices - maximum cardinality and a valid bound") {
  // random sparse 400 x 400 with two dense columns and a dense row; an empty column (and, for odd seeds, an
  // empty row too) makes it singular, so the searches from the dense columns can fail
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    const int n = 400;
    std::vector<double> d(static_cast<size_t>(n) * n, 0.0);
    std::vector<char> p(static_cast<size_t>(n) * n, 0);
    auto set = [&](int i, int j) {
      p[i + static_cast<size_t>(j) * n] = 1;
      d[i + static_cast<size_t>(j) * n] = std::pow(10.0, 4.0 * uni(rng) - 2.0);
    };
    for (int j = 0; j < n; ++j)
      for (int t = 0; t < 3; ++t) set(static_cast<int>(uni(rng) * n), j);
    for (int i = 0; i < n; ++i) set(i, 7), set(i, 300), set(11, i);  // dense columns 7 and 300, dense row 11
    for (int i = 0; i < n; ++i) p[i + static_cast<size_t>(5) * n] = 0;  // column 5 empty
    if (seed % 2)
      for (int j = 0; j < n; ++j) p[123 + static_cast<size_t>(j) * n] = 0;  // row 123 empty
    const Csc a = to_csc(n, d, p);
    REQUIRE(static_cast<double>(a.ptr[8] - a.ptr[7]) > ssids::detail::dense_degree(n));
    const auto m = match(a);
    CHECK(check_result(a, m) == max_cardinality(a));
    CHECK(m.matched < n);
  }
}
