// test_analyse.cpp — ssids::analyse(): structural invariants of detail::Symbolic on seeded random patterns,
// exactness against an independent brute-force symbolic factorization (nemin = 1), and the input checks.
// Matrices are lower triangles, 0-based unless a test says otherwise.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "analyse/supernodes.hpp"
#include "analyse/symbolic.hpp"
#include "ssids/analyse.hpp"
#include "ssids/generate.hpp"
#include "ssids/error.hpp"
#include "support.hpp"
#include "support_symbolic.hpp"

using ssids::index_t;
using ssids::offset_t;

namespace {

ssids::SymmetricMatrix pattern_from(int n, const std::vector<std::pair<int, int>>& entries) {
  std::vector<int> r, c;
  std::vector<double> v;
  for (auto& e : entries) {
    r.push_back(e.first);
    c.push_back(e.second);
    v.push_back(1.0);
  }
  return ssids_test::from_triplets(n, r, c, v);
}

// Seeded random patterns of several shapes. kind: 0 sparse random, 1 diagonal only, 2 dense, 3 arrow,
// 4 band, 5 disconnected blocks, 6 sparse random with some diagonal entries missing.
ssids::SymmetricMatrix random_pattern(int n, int kind, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::vector<std::pair<int, int>> e;
  const bool all_diag = kind != 6;
  for (int j = 0; j < n; ++j)
    if (all_diag || uni(rng) < 0.7) e.push_back({j, j});
  switch (kind) {
    case 0:
    case 6: {
      const double density = std::min(1.0, (0.5 + 4.0 * uni(rng)) / std::max(n, 1));
      for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i)
          if (uni(rng) < density) e.push_back({i, j});
      break;
    }
    case 1: break;
    case 2:
      for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i) e.push_back({i, j});
      break;
    case 3: {
      const int hub = static_cast<int>(uni(rng) * n);
      for (int i = 0; i < n; ++i)
        if (i != hub) e.push_back({std::max(i, hub), std::min(i, hub)});
      break;
    }
    case 4: {
      const int bw = 1 + static_cast<int>(uni(rng) * 5);
      for (int j = 0; j < n; ++j)
        for (int i = j + 1; i <= std::min(n - 1, j + bw); ++i) e.push_back({i, j});
      break;
    }
    case 5: {
      // a random partition into blocks, each block a sparse random graph
      const int nb = 1 + static_cast<int>(uni(rng) * 6);
      std::vector<int> block(static_cast<size_t>(n));
      for (auto& b : block) b = static_cast<int>(uni(rng) * nb);
      const double density = std::min(1.0, 6.0 / std::max(n, 1) * nb);
      for (int j = 0; j < n; ++j)
        for (int i = j + 1; i < n; ++i)
          if (block[i] == block[j] && uni(rng) < density) e.push_back({i, j});
      break;
    }
  }
  return pattern_from(n, e);
}

ssids::Analysis analyse_ok(const ssids::CscView& v, ssids::Options opt, ssids::Inform& inform,
                           const index_t* order = nullptr) {
  ssids::Analysis an = ssids::analyse(v, opt, inform, order);
  REQUIRE(!an.empty());
  return an;
}

void random_sweep(ssids::Ordering ordering, std::uint64_t seed0, int count) {
  for (int t = 0; t < count; ++t) {
    const std::uint64_t seed = seed0 + static_cast<std::uint64_t>(t);
    std::mt19937_64 rng(seed);
    const int kind = static_cast<int>(rng() % 7);
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 31, 32, 33, 64, 65, 100, 127, 200};
    int n = sizes[rng() % (sizeof(sizes) / sizeof(sizes[0]))];
    if (kind == 2) n = std::min(n, 64);  // dense: keep the brute force cheap
    ssids::SymmetricMatrix a = random_pattern(n, kind, rng);
    std::vector<index_t> user(static_cast<size_t>(n));
    std::iota(user.begin(), user.end(), 0);
    std::shuffle(user.begin(), user.end(), rng);
    for (int nemin : {1, 8, 32, 64}) {
      CAPTURE(seed);
      CAPTURE(kind);
      CAPTURE(n);
      CAPTURE(nemin);
      ssids::Options opt;
      opt.ordering = ordering;
      opt.nemin = nemin;
      ssids::Inform inform;
      ssids::Analysis an = analyse_ok(a.view(), opt, inform, user.data());
      ssids_test::check_symbolic(an, a.view(), a, nemin == 1);
      CHECK(inform.num_sup == an.num_sup());
      CHECK(inform.num_factor == an.num_factor());
      CHECK(inform.num_flops == an.num_flops());
      CHECK(inform.maxdepth == inform.num_levels);
      CHECK(inform.num_levels == an.num_levels());
      CHECK(inform.flag == (kind == 6 && inform.matrix_missing_diag > 0 ? ssids::flag::missing_diagonal : 0));
      if (nemin == 1 && ordering == ssids::Ordering::user) CHECK(ssids_test::to_std(an.order()).size() == user.size());
    }
  }
}

ssids::CscView raw_view(int n, const std::vector<offset_t>& ptr, const std::vector<index_t>& row, int base = 0) {
  ssids::CscView v;
  v.n = n;
  v.ptr = ptr.data();
  v.row = row.data();
  v.base = base;
  return v;
}

int error_code(const ssids::CscView& v, ssids::Options opt = {}, const index_t* order = nullptr) {
  ssids::Inform inform;
  try {
    ssids::analyse(v, opt, inform, order);
  } catch (const ssids::Error& e) {
    CHECK(inform.flag == e.code());
    CHECK(!std::string(e.what()).empty());
    return e.code();
  }
  return 0;
}

}  // namespace

TEST_CASE("analyse: random patterns - METIS order") { random_sweep(ssids::Ordering::metis, 1000, 300); }
TEST_CASE("analyse: random patterns - natural order") { random_sweep(ssids::Ordering::natural, 2000, 300); }
TEST_CASE("analyse: random patterns - user order") { random_sweep(ssids::Ordering::user, 3000, 300); }

TEST_CASE("analyse: user order is used as given with nemin = 1 on a tridiagonal matrix") {
  // tridiagonal in natural order: no fill, a chain; every column has count 2 (the last 1), so only the
  // last two columns form a fundamental supernode
  const int n = 10;
  std::vector<std::pair<int, int>> e;
  for (int j = 0; j < n; ++j) {
    e.push_back({j, j});
    if (j + 1 < n) e.push_back({j + 1, j});
  }
  ssids::SymmetricMatrix a = pattern_from(n, e);
  ssids::Options opt;
  opt.ordering = ssids::Ordering::natural;
  opt.nemin = 1;
  ssids::Inform inform;
  ssids::Analysis an = analyse_ok(a.view(), opt, inform);
  CHECK(an.num_sup() == n - 1);
  CHECK(an.num_factor() == 2 * n - 1);
  CHECK(an.num_flops() == 3 * (n - 1));
  CHECK(an.maxfront() == 2);
  CHECK(an.num_levels() == n - 1);
  opt.nemin = 4;  // chains of nodes with < 4 columns merge
  CHECK(analyse_ok(a.view(), opt, inform).num_sup() < n - 1);
  opt.nemin = 1;
  std::vector<int> id(n);
  std::iota(id.begin(), id.end(), 0);
  CHECK(ssids_test::to_std(an.order()) == id);
  // reverse order, 1-based user order: still no fill
  std::vector<index_t> rev(n);
  for (int i = 0; i < n; ++i) rev[i] = n - i;  // 1-based positions
  std::vector<offset_t> ptr1(a.ptr.begin(), a.ptr.end());
  std::vector<index_t> row1(a.row.begin(), a.row.end());
  for (auto& p : ptr1) ++p;
  for (auto& r : row1) ++r;
  opt.ordering = ssids::Ordering::user;
  ssids::Analysis an2 = analyse_ok(raw_view(n, ptr1, row1, 1), opt, inform, rev.data());
  CHECK(an2.num_factor() == 2 * n - 1);
  for (int i = 0; i < n; ++i) CHECK(an2.order()[i] == n - 1 - i);
  ssids_test::check_symbolic(an2, raw_view(n, ptr1, row1, 1), a, true);
}

TEST_CASE("analyse: hand-checked arrow matrix - hub first vs hub last") {
  // hub first in natural order fills completely; METIS/last puts it last: no fill
  const int n = 6;
  std::vector<std::pair<int, int>> e;
  for (int i = 0; i < n; ++i) e.push_back({i, i});
  for (int i = 1; i < n; ++i) e.push_back({i, 0});
  ssids::SymmetricMatrix a = pattern_from(n, e);
  ssids::Options opt;
  opt.nemin = 1;
  opt.ordering = ssids::Ordering::natural;
  ssids::Inform inform;
  CHECK(analyse_ok(a.view(), opt, inform).num_factor() == n * (n + 1) / 2);
  std::vector<index_t> order = {5, 0, 1, 2, 3, 4};
  opt.ordering = ssids::Ordering::user;
  ssids::Analysis an = analyse_ok(a.view(), opt, inform, order.data());
  CHECK(an.num_factor() == 2 * n - 1);
  CHECK(an.num_sup() == n);  // five leaves and the hub
  CHECK(an.num_levels() == 2);
  opt.ordering = ssids::Ordering::metis;
  CHECK(analyse_ok(a.view(), opt, inform).num_factor() == 2 * n - 1);
  // amalgamation with nemin = 8 merges everything into one node (all have < 8 columns)
  opt.nemin = 8;
  ssids::Analysis am = analyse_ok(a.view(), opt, inform);
  CHECK(am.num_sup() == 1);
  CHECK(am.num_factor() == n * (n + 1) / 2);
  ssids_test::check_symbolic(am, a.view(), a, false);
}

TEST_CASE("analyse: n = 0 and n = 1") {
  ssids::Inform inform;
  ssids::Options opt;
  {
    std::vector<offset_t> ptr = {0};
    std::vector<index_t> row;
    ssids::Analysis an = analyse_ok(raw_view(0, ptr, row), opt, inform);
    const auto& s = an.symbolic();
    CHECK(s.nsup == 0);
    CHECK(s.sptr.size() == 1);
    CHECK(s.rptr.size() == 1);
    CHECK(s.child_ptr.size() == 1);
    CHECK(s.amap_ptr.size() == 1);
    CHECK(s.level_ptr.size() == 1);
    CHECK(s.level_ptr[0] == 0);
    CHECK(s.num_levels == 0);
    CHECK(an.num_factor() == 0);
    CHECK(inform.flag == 0);
    ssids::CscView v;  // everything null
    CHECK(ssids::analyse(v, opt, inform).n() == 0);
  }
  for (bool diag : {true, false}) {
    std::vector<offset_t> ptr = {0, diag ? 1 : 0};
    std::vector<index_t> row = {0};
    ssids::Analysis an = analyse_ok(raw_view(1, ptr, row), opt, inform);
    CHECK(an.num_sup() == 1);
    CHECK(an.num_factor() == 1);
    CHECK(an.num_flops() == 0);
    CHECK(an.maxfront() == 1);
    CHECK(an.num_levels() == 1);
    CHECK(inform.flag == (diag ? 0 : ssids::flag::missing_diagonal));
    CHECK(inform.matrix_missing_diag == (diag ? 0 : 1));
  }
}

TEST_CASE("analyse: argument errors") {
  std::vector<offset_t> ptr = {0, 2, 3, 4};
  std::vector<index_t> row = {0, 1, 1, 2};
  CHECK(error_code(raw_view(-1, ptr, row)) == ssids::flag::bad_n);
  {
    ssids::CscView v = raw_view(3, ptr, row);
    v.ptr = nullptr;
    CHECK(error_code(v) == ssids::flag::missing_data);
    v = raw_view(3, ptr, row);
    v.row = nullptr;
    CHECK(error_code(v) == ssids::flag::missing_data);
    v.base = 2;
    CHECK(error_code(raw_view(3, ptr, row, 2)) == ssids::flag::bad_input);
  }
  std::vector<offset_t> bad = {0, 2, 1, 4};
  CHECK(error_code(raw_view(3, bad, row)) == ssids::flag::bad_ptr);
  std::vector<offset_t> off = {1, 3, 4, 5};
  CHECK(error_code(raw_view(3, off, row)) == ssids::flag::bad_ptr);  // base 0 but ptr[0] = 1
  std::vector<offset_t> zero_based = ptr;
  CHECK(error_code(raw_view(3, zero_based, row, 1)) == ssids::flag::bad_ptr);  // base 1 but ptr[0] = 0
  std::vector<index_t> out = {5, -1, 7, 3};
  CHECK(error_code(raw_view(3, ptr, out)) == ssids::flag::all_out_of_range);
  ssids::Options opt;
  opt.ordering = ssids::Ordering::matching;  // needs the values, which raw_view does not give
  CHECK(error_code(raw_view(3, ptr, row), opt) == ssids::flag::missing_values);
  opt.ordering = ssids::Ordering::amd;
  CHECK(error_code(raw_view(3, ptr, row), opt) == 0);
  opt.ordering = ssids::Ordering::user;
  CHECK(error_code(raw_view(3, ptr, row), opt, nullptr) == ssids::flag::missing_data);
  std::vector<index_t> notperm = {0, 1, 1};
  CHECK(error_code(raw_view(3, ptr, row), opt, notperm.data()) == ssids::flag::bad_order);
  std::vector<index_t> outside = {0, 1, 3};
  CHECK(error_code(raw_view(3, ptr, row), opt, outside.data()) == ssids::flag::bad_order);
  std::vector<index_t> valid = {2, 0, 1};
  CHECK(error_code(raw_view(3, ptr, row), opt, valid.data()) == 0);
  // a 1-based valid order given with 0-based matrix is out of range
  std::vector<index_t> one_based = {3, 1, 2};
  CHECK(error_code(raw_view(3, ptr, row), opt, one_based.data()) == ssids::flag::bad_order);
}

TEST_CASE("analyse: input warnings - mirrored and duplicate entries") {
  // 4x4: column 0 rows {0, 1, 9 (out), 1 (dup)}, column 1 rows {1, 0 (upper: mirrors (1,0), a dup)},
  // column 2 rows {3} (no diagonal), column 3 rows {3, -2 (out)}
  ssids::Options opt;
  opt.nemin = 1;
  struct Case {
    std::vector<offset_t> ptr;
    std::vector<index_t> row;
    int flag, outrange, dup, missing, upper;
  };
  std::vector<Case> cases = {
      {{0, 2, 3, 5, 6}, {0, 1, 1, 2, 3, 3}, 0, 0, 0, 0, 0},
      {{0, 3, 4, 6, 7}, {0, 1, 9, 1, 2, 3, 3}, ssids::flag::out_of_range_ignored, 1, 0, 0, 0},
      {{0, 3, 4, 6, 7}, {0, 1, 1, 1, 2, 3, 3}, ssids::flag::duplicates_summed, 0, 1, 0, 0},
      {{0, 4, 5, 7, 8}, {0, 1, 1, -3, 1, 2, 3, 3}, ssids::flag::out_of_range_and_duplicates, 1, 1, 0, 0},
      {{0, 2, 3, 4, 5}, {0, 1, 1, 3, 3}, ssids::flag::missing_diagonal, 0, 0, 1, 0},
      {{0, 3, 4, 5, 6}, {0, 1, 7, 1, 3, 3}, ssids::flag::missing_diagonal_and_other, 1, 0, 1, 0},
      {{0, 2, 4, 5, 6}, {0, 1, 1, 0, 3, 3}, ssids::flag::missing_diagonal_and_other, 0, 1, 1, 1},
      // upper-only input: the transpose of case 0
      {{0, 1, 3, 4, 6}, {0, 0, 1, 2, 2, 3}, 0, 0, 0, 0, 2},
  };
  ssids::Analysis reference;
  for (size_t t = 0; t < cases.size(); ++t) {
    CAPTURE(t);
    auto& c = cases[t];
    ssids::Inform inform;
    ssids::CscView v = raw_view(4, c.ptr, c.row);
    ssids::Analysis an = analyse_ok(v, opt, inform);
    CHECK(inform.flag == c.flag);
    CHECK(inform.matrix_outrange == c.outrange);
    CHECK(inform.matrix_dup == c.dup);
    CHECK(inform.matrix_missing_diag == c.missing);
    CHECK(inform.matrix_upper == c.upper);
    CHECK((inform.flag == 0 ? inform.message.empty() : !inform.message.empty()));
    // the cleaned pattern, for the structural checks
    std::vector<std::pair<int, int>> e;
    for (int j = 0; j < 4; ++j)
      for (offset_t k = c.ptr[j]; k < c.ptr[j + 1]; ++k)
        if (c.row[k] >= 0 && c.row[k] < 4) e.push_back({std::max<int>(c.row[k], j), std::min<int>(c.row[k], j)});
    ssids::SymmetricMatrix clean = pattern_from(4, e);
    CHECK(an.nnz() == clean.nnz());
    ssids_test::check_symbolic(an, v, clean, true);
    if (t == 0) reference = an;
    if (t == 7) CHECK(an.num_factor() == reference.num_factor());
  }
  // duplicates land on the same front position
  {
    std::vector<offset_t> ptr = {0, 3, 4};
    std::vector<index_t> row = {0, 1, 1, 0};  // (1,0) twice in column 0, once mirrored from column 1
    ssids::Inform inform;
    ssids::Analysis an = analyse_ok(raw_view(2, ptr, row), opt, inform);
    CHECK(inform.matrix_dup == 2);
    CHECK(inform.matrix_upper == 1);
    const auto& s = an.symbolic();
    std::vector<const ssids::detail::AEntry*> hits;
    for (const auto& a : s.amap)
      if (a.src == 1 || a.src == 2 || a.src == 3) hits.push_back(&a);
    REQUIRE(hits.size() == 3);
    CHECK(hits[0]->lrow == hits[1]->lrow);
    CHECK(hits[0]->lrow == hits[2]->lrow);
    CHECK(hits[0]->lcol == hits[2]->lcol);
  }
}

TEST_CASE("analyse: 1-based input gives the same analysis as 0-based") {
  for (std::uint64_t seed = 7; seed < 27; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    ssids::SymmetricMatrix a = random_pattern(40 + static_cast<int>(seed), static_cast<int>(seed % 7), rng);
    std::vector<offset_t> ptr1(a.ptr.begin(), a.ptr.end());
    std::vector<index_t> row1(a.row.begin(), a.row.end());
    for (auto& p : ptr1) ++p;
    for (auto& r : row1) ++r;
    ssids::Options opt;
    ssids::Inform i0, i1;
    ssids::Analysis a0 = analyse_ok(a.view(), opt, i0), a1 = analyse_ok(raw_view(a.n, ptr1, row1, 1), opt, i1);
    const auto &s0 = a0.symbolic(), &s1 = a1.symbolic();
    CHECK(ssids_test::to_std(s0.perm) == ssids_test::to_std(s1.perm));
    CHECK(ssids_test::to_std(s0.sptr) == ssids_test::to_std(s1.sptr));
    CHECK(ssids_test::to_std(s0.rlist) == ssids_test::to_std(s1.rlist));
    CHECK(ssids_test::to_std(s0.cmap) == ssids_test::to_std(s1.cmap));
    CHECK(ssids_test::to_std(s0.level_nodes) == ssids_test::to_std(s1.level_nodes));
    REQUIRE(s0.amap.size() == s1.amap.size());
    for (size_t k = 0; k < s0.amap.size(); ++k) {
      CHECK(s0.amap[k].src == s1.amap[k].src);
      CHECK(s0.amap[k].lrow == s1.amap[k].lrow);
      CHECK(s0.amap[k].lcol == s1.amap[k].lcol);
    }
    CHECK(i0.flag == i1.flag);
    CHECK(s0.memory_host == s1.memory_host);
    ssids_test::check_symbolic(a1, raw_view(a.n, ptr1, row1, 1), a, false);
  }
}

TEST_CASE("analyse: amalgamation is monotone in nemin and deterministic") {
  std::mt19937_64 rng(42);
  ssids::SymmetricMatrix a = random_pattern(200, 0, rng);
  ssids::Inform inform;
  ssids::Options opt;
  opt.amalgamation_zeros = 0.0;  // SPRAL's nemin rule alone
  index_t prev_sup = -1;
  for (int nemin : {1, 4, 16, 64, 256}) {
    CAPTURE(nemin);
    opt.nemin = nemin;
    ssids::Analysis x = analyse_ok(a.view(), opt, inform), y = analyse_ok(a.view(), opt, inform);
    CHECK(ssids_test::to_std(x.symbolic().perm) == ssids_test::to_std(y.symbolic().perm));
    CHECK(ssids_test::to_std(x.symbolic().sptr) == ssids_test::to_std(y.symbolic().sptr));
    if (prev_sup >= 0) CHECK(x.num_sup() <= prev_sup);
    prev_sup = x.num_sup();
    // SPRAL's rule leaves no (child, parent) pair with both below nemin (a parent only grows by merging)
    const auto& s = x.symbolic();
    for (int v = 0; v < s.nsup; ++v)
      if (s.sparent[v] != -1) CHECK((s.ncol(v) >= nemin || s.ncol(s.sparent[v]) >= nemin));
  }
  opt.nemin = 0;  // clamped to 1
  CHECK(analyse_ok(a.view(), opt, inform).num_sup() >= 1);
}

TEST_CASE("analyse: relaxed amalgamation merges a child exactly when few enough zeros result") {
  // A path 0 -> 1 -> ... -> 5 with two fundamental supernodes: {0, 1} (4 and 3 rows: its contribution block
  // has 2 rows) and {2, .., 5} (dense, 4 rows). Merging gives a 6-column, 6-row node with 6*6 - 15 = 21
  // entries, of which 2 columns x (4 - 2) rows = 4 are zeros: 4/21 = 0.19.
  const ssids::Vector<ssids::index_t> parent{1, 2, 3, 4, 5, -1}, colcount{4, 3, 4, 3, 2, 1};
  using ssids::detail::find_supernodes;
  CHECK(find_supernodes(parent, colcount, 2, 0.0).nsup == 2);
  CHECK(find_supernodes(parent, colcount, 2, 0.18).nsup == 2);
  CHECK(find_supernodes(parent, colcount, 2, 0.20).nsup == 1);
  CHECK(find_supernodes(parent, colcount, 1, 0.20).nsup == 2);  // nemin = 1: fundamental supernodes
  CHECK(find_supernodes(parent, colcount, 3, 0.0).nsup == 2);  // SPRAL's rule: 4 columns are not < 3
  CHECK(find_supernodes(parent, colcount, 5, 0.0).nsup == 1);  // both < 5
}

TEST_CASE("analyse: relaxed amalgamation keeps a valid symbolic factorization") {
  const ssids::SymmetricMatrix a = ssids::generate_laplace3d(9);
  ssids::Inform inform;
  ssids::Options opt;
  opt.amalgamation_zeros = 0.0;
  const ssids::Analysis plain = analyse_ok(a.view(), opt, inform);
  for (double z : {0.02, 0.05, 0.2, 0.5}) {
    CAPTURE(z);
    opt.amalgamation_zeros = z;
    const ssids::Analysis x = analyse_ok(a.view(), opt, inform), y = analyse_ok(a.view(), opt, inform);
    CHECK(ssids_test::to_std(x.symbolic().sptr) == ssids_test::to_std(y.symbolic().sptr));
    CHECK(x.num_sup() <= plain.num_sup());
    if (z >= 0.05) CHECK(x.num_sup() < plain.num_sup());
    CHECK(x.symbolic().num_levels <= plain.symbolic().num_levels);
    CHECK(x.symbolic().num_factor >= plain.symbolic().num_factor);
    ssids_test::check_symbolic(x, a.view(), a, false);
  }
  opt.amalgamation_zeros = 0.05;
  opt.nemin = 1;  // fundamental supernodes whatever amalgamation_zeros says
  ssids::Options fundamental;
  fundamental.nemin = 1;
  fundamental.amalgamation_zeros = 0.0;
  CHECK(analyse_ok(a.view(), opt, inform).num_sup() == analyse_ok(a.view(), fundamental, inform).num_sup());
}

TEST_CASE("analyse: every host allocation failure becomes Error- allocation") {
  std::mt19937_64 rng(5);
  ssids::SymmetricMatrix a = random_pattern(50, 0, rng);
  ssids::Options opt;
  // one thread: the injection counts allocations in order, which tasks running side by side would interleave
  opt.num_threads = 1;
  ssids::Inform inform;
  const long before = ssids::host_allocation_count();
  analyse_ok(a.view(), opt, inform);
  const long used = ssids::host_allocation_count() - before;
  REQUIRE(used > 0);
  int failures = 0;
  for (long k = 0; k < used; ++k) {
    CAPTURE(k);
    ssids::inject_host_allocation_failure(k);
    try {
      ssids::analyse(a.view(), opt, inform);
    } catch (const ssids::Error& e) {
      CHECK(e.code() == ssids::flag::allocation);
      CHECK(inform.flag == ssids::flag::allocation);
      ++failures;
    }
    ssids::inject_host_allocation_failure(-1);
  }
  // the same inputs make the same allocations; one of them is rlist.shrink_to_fit(), which libstdc++ lets
  // fail silently (it is only a request)
  CHECK(failures >= used - 1);
  CHECK(failures > 0);
}

TEST_CASE("analyse: random inputs with upper - duplicate and out-of-range entries") {
  for (std::uint64_t seed = 100; seed < 160; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const int n = 1 + static_cast<int>(rng() % 90);
    ssids::SymmetricMatrix a = random_pattern(n, static_cast<int>(rng() % 7), rng);
    // scramble: per column, maybe mirror entries to the other column, add duplicates and junk rows
    std::vector<std::vector<index_t>> cols(static_cast<size_t>(n));
    std::vector<std::pair<int, int>> in_range;
    int expect_out = 0;
    for (int j = 0; j < n; ++j)
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
        const int i = a.row[k];
        const int copies = rng() % 5 == 0 ? 2 : 1;
        for (int c = 0; c < copies; ++c) {
          if (rng() % 3 == 0) cols[i].push_back(j);  // upper-triangle form (row j, column i)
          else cols[j].push_back(i);
          in_range.push_back({i, j});
        }
        if (rng() % 7 == 0) {
          cols[j].push_back(rng() % 2 ? n + static_cast<int>(rng() % 3) : -1 - static_cast<int>(rng() % 3));
          ++expect_out;
        }
      }
    std::vector<offset_t> ptr(1, 0);
    std::vector<index_t> row;
    for (auto& c : cols) {
      std::shuffle(c.begin(), c.end(), rng);
      row.insert(row.end(), c.begin(), c.end());
      ptr.push_back(static_cast<offset_t>(row.size()));
    }
    ssids::CscView v = raw_view(n, ptr, row);
    for (int nemin : {1, 16}) {
      CAPTURE(nemin);
      ssids::Options opt;
      opt.nemin = nemin;
      ssids::Inform inform;
      if (row.empty()) {
        ssids::analyse(v, opt, inform);
        continue;
      }
      ssids::Analysis an = analyse_ok(v, opt, inform);
      CHECK(inform.matrix_outrange == expect_out);
      CHECK(inform.matrix_dup == static_cast<int>(in_range.size()) - static_cast<int>(a.nnz()));
      CHECK(an.nnz() == a.nnz());
      ssids_test::check_symbolic(an, v, a, nemin == 1);
    }
  }
}

TEST_CASE("analyse: Backend::gpu gives the Backend::cpu analysis with METIS - its CUDA warm-up changes nothing") {
  // A GPU-backend analysis starts a thread that prepares the CUDA context (when a device is there); the analysis
  // itself must not depend on it, and an analysis dropped before any factorization waits for that thread. (The
  // matching ordering chooses between its candidate orders by backend, so METIS is the common ground.)
  for (const char* spec : {"gen:kkt-qp:3000:2000", "gen:laplace3d:12"}) {
    CAPTURE(spec);
    auto a = ssids::load_symmetric(spec);
    ssids::Options oc, og;
    oc.ordering = og.ordering = ssids::Ordering::metis;
    oc.backend = ssids::Backend::cpu;
    og.backend = ssids::Backend::gpu;
    ssids::Inform ic, ig;
    auto ac = ssids::analyse(a.view(), oc, ic);
    {
      auto dropped = ssids::analyse(a.view(), og, ig);  // destroyed at once
    }
    auto ag = ssids::analyse(a.view(), og, ig);
    CHECK(ig.flag == ic.flag);
    CHECK(ig.num_factor == ic.num_factor);
    CHECK(ig.num_flops == ic.num_flops);
    CHECK(ig.maxfront == ic.maxfront);
    const auto &sc = ac.symbolic(), &sg = ag.symbolic();
    CHECK(sg.perm == sc.perm);
    CHECK(sg.sptr == sc.sptr);
    CHECK(sg.rlist == sc.rlist);
    CHECK(sg.amap_ptr == sc.amap_ptr);
  }
}
