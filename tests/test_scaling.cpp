// test_scaling.cpp — the computed scalings of src/scaling/ (Options::scaling matching, auction, equilibrate,
// from_ordering): each one's defining property on seeded random matrices and on the shared KKT matrices,
// structurally singular input, the factorization with every scaling x ordering combination (inertia against
// dense eigenvalues, scaled backward error < 1e-12 after refinement), error codes, and the CLI's --scaling.
// Matrices are lower triangles, 0-based; scalings are checked on both triangles. Seeds are printed (CAPTURE).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "factor/numeric.hpp"
#include "scaling/scaling.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"
#include "support_factor.hpp"
#include "support_manifest.hpp"

using namespace ssids;
using ssids::detail::FullSymmetric;
using ssids::detail::ScalingInfo;

namespace {

/// Random symmetric matrix with entries over many decades: D B D, B = random_symmetric, D = 10^U(-3,3).
SymmetricMatrix badly_scaled(int n, double density, double diag_density, std::uint64_t seed) {
  SymmetricMatrix a = ssids_test::random_symmetric(n, density, diag_density, 2.0, seed);
  std::mt19937_64 rng(seed * 7919 + 1);
  std::uniform_real_distribution<double> uni(-3, 3);
  std::vector<double> d(n);
  for (auto& x : d) x = std::pow(10.0, uni(rng));
  for (int j = 0; j < n; ++j)
    for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) a.val[k] *= d[a.row[k]] * d[j];
  return a;
}

/// Row maxima of |S A S| (both triangles).
std::vector<double> row_max(const FullSymmetric& f, const Vector<double>& s) {
  std::vector<double> m(f.n, 0.0);
  for (int j = 0; j < f.n; ++j)
    for (offset_t k = f.ptr[j]; k < f.ptr[j + 1]; ++k)
      m[j] = std::max(m[j], std::fabs(s[f.row[k]] * f.val[k] * s[j]));
  return m;
}

void check_positive(const Vector<double>& s, int n) {
  REQUIRE(s.size() == static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    CHECK(std::isfinite(s[i]));
    CHECK(s[i] > 0.0);
  }
}

/// |s_i a_ij s_j| for the matched entries of m.
double min_matched(const FullSymmetric& f, const Vector<double>& s, const detail::MatchingResult& m, double& mx) {
  double mn = 1e300;
  mx = 0.0;
  for (int j = 0; j < f.n; ++j) {
    const int i = m.row_of_col[j];
    if (i == -1) continue;
    for (offset_t k = f.ptr[j]; k < f.ptr[j + 1]; ++k)
      if (f.row[k] == i) {
        const double x = std::fabs(s[i] * f.val[k] * s[j]);
        mn = std::min(mn, x);
        mx = std::max(mx, x);
      }
  }
  return mn;
}

/// Nonsingular (smallest |eigenvalue| relative to the largest above 1e-9), with its inertia.
bool nonsingular(const SymmetricMatrix& a, ssids_test::Inertia& in) {
  auto eig = ssids_test::eigenvalues(ssids_test::to_dense(a), a.n);
  double big = 0.0, small = 1e300;
  for (double e : eig) {
    big = std::max(big, std::fabs(e));
    small = std::min(small, std::fabs(e));
  }
  in = ssids_test::inertia_of(eig, 1e-9 * big);
  return a.n > 0 && small > 1e-9 * big;
}

const int kSizes[] = {1, 2, 5, 31, 32, 33, 63, 64, 65, 127};

}  // namespace

TEST_CASE("scaling: matching scaling has unit matched entries and row maxima <= 1 on random matrices") {
  int singular = 0;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    CAPTURE(seed);
    const int n = kSizes[seed % 10];
    const double density = std::min(1.0, (1.0 + 4.0 * (seed % 5)) / n);
    SymmetricMatrix a = badly_scaled(n, density, seed % 3 == 0 ? 0.0 : 0.5, seed);
    FullSymmetric f = detail::full_from_view(a.view());
    ScalingInfo info;
    detail::MatchingResult m;
    Vector<double> s = detail::matching_scaling(f, info, &m);
    check_positive(s, n);
    CHECK(info.matched == m.matched);
    auto rm = row_max(f, s);
    if (!info.structurally_singular) {
      double mx = 0.0;
      const double mn = min_matched(f, s, m, mx);
      CHECK(mn >= 1.0 - 1e-10);
      CHECK(mx <= 1.0 + 1e-10);
      for (int i = 0; i < n; ++i) {
        CHECK(rm[i] <= 1.0 + 1e-10);
        CHECK(rm[i] >= 1.0 - 1e-10);  // every row holds a matched entry
      }
    } else {
      ++singular;
      // the bound holds among indices matched as both row and column
      for (int j = 0; j < n; ++j) {
        if (m.row_of_col[j] == -1 || m.col_of_row[j] == -1) continue;
        for (offset_t k = f.ptr[j]; k < f.ptr[j + 1]; ++k) {
          const int i = f.row[k];
          if (m.row_of_col[i] == -1 || m.col_of_row[i] == -1) continue;
          CHECK(std::fabs(s[i] * f.val[k] * s[j]) <= 1.0 + 1e-10);
        }
      }
    }
  }
  MESSAGE(singular << " of 80 random matrices were structurally singular");
}

TEST_CASE("scaling: auction scaling keeps the bound exactly and nearly matches the optimal scaling") {
  for (std::uint64_t seed = 100; seed < 160; ++seed) {
    CAPTURE(seed);
    const int n = kSizes[seed % 10] + 40;
    SymmetricMatrix a = badly_scaled(n, 4.0 / n, 0.7, seed);
    FullSymmetric f = detail::full_from_view(a.view());
    ScalingInfo info;
    Vector<double> s = detail::auction_scaling(f, info);
    check_positive(s, n);
    for (double x : row_max(f, s)) CHECK(x <= 1.0 + 1e-12);
    // the unsymmetric duals: matched entries are eps-optimal, |r a c| >= exp(-0.005)
    detail::MatchingResult m = detail::auction_matching(f.n, f.ptr.data(), f.row.data(), f.val.data());
    for (int j = 0; j < n; ++j) {
      for (offset_t k = f.ptr[j]; k < f.ptr[j + 1]; ++k) {
        if (f.val[k] == 0.0) continue;
        const double lg = std::log(std::fabs(f.val[k])) + m.row_log_scale[f.row[k]] + m.col_log_scale[j];
        CHECK(lg <= 1e-12);
        if (m.row_of_col[j] == f.row[k]) CHECK(lg >= -0.005 - 1e-9);
      }
    }
    ScalingInfo oi;
    detail::MatchingResult opt;
    detail::matching_scaling(f, oi, &opt);
    CHECK(m.matched <= opt.matched);
    CHECK(m.matched >= opt.matched * 9 / 10);
  }
}

TEST_CASE("scaling: both triangles are the same from a sorted lower triangle - a shuffled one - and 1-based input") {
  // full_from_view reads a lower triangle with increasing rows in one scatter, anything else through its
  // row buckets: the results must be equal array for array
  for (std::uint64_t seed = 300; seed < 330; ++seed) {
    CAPTURE(seed);
    const int n = kSizes[seed % 10];
    const SymmetricMatrix a = badly_scaled(n, std::min(1.0, 4.0 / n), 0.5, seed);
    const FullSymmetric sorted = detail::full_from_view(a.view());
    // the same entries, rows of each column reversed and every other off-diagonal entry given as its mirror
    Vector<index_t> row(a.row.begin(), a.row.end());
    Vector<double> val(a.val.begin(), a.val.end());
    Vector<offset_t> ptr(static_cast<size_t>(n) + 1, 0);
    for (index_t j = 0; j < n; ++j) {
      std::reverse(row.begin() + a.ptr[j], row.begin() + a.ptr[j + 1]);
      std::reverse(val.begin() + a.ptr[j], val.begin() + a.ptr[j + 1]);
    }
    // mirrored entries move to the column of their row: rebuild the CSC from (row, column) pairs
    Vector<index_t> r2, c2;
    Vector<double> v2;
    for (index_t j = 0; j < n; ++j)
      for (offset_t k = a.ptr[j]; k < a.ptr[j + 1]; ++k) {
        const bool mirror = row[k] != j && k % 2 == 0;
        c2.push_back(mirror ? row[k] : j);
        r2.push_back(mirror ? j : row[k]);
        v2.push_back(val[k]);
      }
    Vector<index_t> order(r2.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<index_t>(k);
    std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) { return c2[x] < c2[y]; });
    Vector<index_t> srow;
    Vector<double> sval;
    for (index_t k : order) {
      ++ptr[c2[k] + 1];
      srow.push_back(r2[k]);
      sval.push_back(v2[k]);
    }
    for (index_t j = 0; j < n; ++j) ptr[j + 1] += ptr[j];
    const FullSymmetric shuffled = detail::full_from_view(CscView{n, ptr.data(), srow.data(), sval.data(), 0});
    CHECK(shuffled.ptr == sorted.ptr);
    CHECK(shuffled.row == sorted.row);
    CHECK(shuffled.val == sorted.val);
    // 1-based input takes the sorted path too
    Vector<offset_t> p1(a.ptr.begin(), a.ptr.end());
    Vector<index_t> r1(a.row.begin(), a.row.end());
    for (offset_t& x : p1) ++x;
    for (index_t& x : r1) ++x;
    const FullSymmetric one = detail::full_from_view(CscView{n, p1.data(), r1.data(), a.val.data(), 1});
    CHECK(one.ptr == sorted.ptr);
    CHECK(one.row == sorted.row);
    CHECK(one.val == sorted.val);
  }
}

TEST_CASE("scaling: equilibration brings every row maximum within 1 +- 1e-2") {
  for (std::uint64_t seed = 200; seed < 260; ++seed) {
    CAPTURE(seed);
    const int n = kSizes[seed % 10];
    SymmetricMatrix a = badly_scaled(n, std::min(1.0, 3.0 / n), 0.5, seed);
    FullSymmetric f = detail::full_from_view(a.view());
    ScalingInfo info;
    Vector<double> s = detail::equilibration_scaling(f, info);
    check_positive(s, n);
    CHECK(info.iterations <= 20);
    CHECK(info.iterations < 20);  // Ruiz converges linearly: far fewer sweeps here
    for (double x : row_max(f, s))
      if (x > 0.0) CHECK(std::fabs(x - 1.0) <= 1e-2);
  }
  // an empty row keeps s_i = 1
  SymmetricMatrix a = ssids_test::from_triplets(3, {0, 2}, {0, 2}, {1e6, 1e-6});
  FullSymmetric f = detail::full_from_view(a.view());
  ScalingInfo info;
  Vector<double> s = detail::equilibration_scaling(f, info);
  CHECK(s[0] == doctest::Approx(1e-3));
  CHECK(s[1] == 1.0);
  CHECK(s[2] == doctest::Approx(1e3));
}

TEST_CASE("scaling: every scaling x ordering keeps the inertia and gives backward error < 1e-12") {
  // (name, matrix, matrix of the same inertia to take eigenvalues of: D B D has the inertia of B)
  struct Case {
    std::string name;
    SymmetricMatrix a, b;
  };
  std::vector<Case> mats;
  for (std::uint64_t seed = 300; seed < 316; ++seed) {
    const int n = kSizes[seed % 10] + 8;
    const double density = std::min(1.0, 5.0 / n);
    mats.push_back({"random seed " + std::to_string(seed), badly_scaled(n, density, 0.6, seed),
                    ssids_test::random_symmetric(n, density, 0.6, 2.0, seed)});
  }
  mats.push_back({"kkt-qp 60 25", generate_kkt_qp(60, 25, 0.0, 3), generate_kkt_qp(60, 25, 0.0, 3)});
  mats.push_back({"stokes 6", generate_stokes(6), generate_stokes(6)});
  const Ordering orderings[] = {Ordering::metis, Ordering::amd, Ordering::matching};
  const Scaling scalings[] = {Scaling::none, Scaling::matching, Scaling::auction, Scaling::equilibrate,
                              Scaling::from_ordering};
  int tested = 0;
  for (const Case& c : mats) {
    const SymmetricMatrix& a = c.a;
    CAPTURE(c.name);
    ssids_test::Inertia ref;
    if (!nonsingular(c.b, ref)) continue;
    ++tested;
    for (Ordering o : orderings)
      for (Scaling sc : scalings) {
        if (sc == Scaling::from_ordering && o != Ordering::matching) continue;
        CAPTURE(static_cast<int>(o));
        CAPTURE(static_cast<int>(sc));
        Options opt;
        opt.ordering = o;
        opt.scaling = sc;
        auto r = ssids_test::run_pipeline(a, opt, Mode::indefinite, 10);
        CHECK(r.inform.num_neg == ref.neg);
        CHECK(r.inform.num_pos == ref.pos);
        CHECK(r.inform.num_zero == 0);
        CHECK(r.backward_error < 1e-12);
        CHECK(r.factors.numeric().scale.size() == (sc == Scaling::none ? 0u : static_cast<size_t>(a.n)));
      }
  }
  CHECK(tested >= 10);
}

TEST_CASE("scaling: from_ordering needs the matching ordering - structurally singular input") {
  SymmetricMatrix a = generate_kkt_qp(30, 10, 0.0, 5);
  Options opt;
  opt.scaling = Scaling::from_ordering;
  Inform inf;
  Analysis an = analyse(a.view(), opt, inf);
  int code = 0;
  try {
    factor(an, a.val.data(), Mode::indefinite, opt, inf);
  } catch (const Error& e) {
    code = e.code();
  }
  CHECK(code == flag::bad_scaling);
  opt.ordering = Ordering::matching;
  an = analyse(a.view(), opt, inf);
  CHECK(an.symbolic().matching_scale.size() == static_cast<size_t>(a.n));
  Factors f = factor(an, a.val.data(), Mode::indefinite, opt, inf);
  CHECK(inf.num_neg == 10);
  CHECK(inf.num_pos == 30);

  // [0 B^T; B 0] with B 3x2: structural rank 4 < 5
  SymmetricMatrix s = ssids_test::from_triplets(5, {2, 3, 4, 3, 0}, {0, 0, 1, 1, 0}, {1.0, 2.0, 3.0, 1e-3, 0.0});
  FullSymmetric fs = detail::full_from_view(s.view());
  ScalingInfo info;
  Vector<double> sc = detail::matching_scaling(fs, info);
  CHECK(info.structurally_singular);
  CHECK(info.matched == 4);
  check_positive(sc, 5);
  for (Scaling which : {Scaling::matching, Scaling::auction, Scaling::equilibrate}) {
    CAPTURE(static_cast<int>(which));
    Options o;
    o.scaling = which;
    Inform ai, fi;
    Analysis an2 = analyse(s.view(), o, ai);
    Factors f2 = factor(an2, s.val.data(), Mode::indefinite, o, fi);
    CHECK(fi.num_zero >= 1);
    CHECK(fi.flag == flag::warn_singular);  // 7 takes precedence over the structural warning 6
  }
  Options o;
  o.ordering = Ordering::matching;
  o.scaling = Scaling::from_ordering;
  Inform ai, fi;
  Analysis an3 = analyse(s.view(), o, ai);
  CHECK(ai.flag == flag::structurally_singular);
  Factors f3 = factor(an3, s.val.data(), Mode::indefinite, o, fi);
  CHECK(fi.num_zero == 1);
}

TEST_CASE("scaling: shared KKT and saddle-point matrices - properties and none+metis vs matching+matching") {
  if (ssids_test::matrices_dir().empty()) {
    ssids_test::skip("no test matrix folder");
    return;
  }
  const auto manifest = ssids_test::read_manifest(ssids_test::matrices_dir());
  int visited = 0;
  for (const auto& path : ssids_test::matrix_files()) {
    const std::string name = ssids_test::base_name(path);
    auto it = manifest.find(name);
    if (it == manifest.end() || it->second.symmetry != "symmetric") continue;
    const std::string& kind = it->second.kind;
    const bool kkt = kind.find("KKT") != std::string::npos || kind.find("saddle") != std::string::npos ||
                     name.rfind("laser", 0) == 0;
    // ncvxqp1 is left out for time: none+metis takes 2.4e10 flops (118013 delays; matching+matching: 79)
    if (!kkt || it->second.n > 15000 || kind.find("SQD") != std::string::npos || name.rfind("ncvxqp1", 0) == 0)
      continue;
    CAPTURE(name);
    SymmetricMatrix a = read_symmetric(path);
    ++visited;
    FullSymmetric f = detail::full_from_view(a.view());
    ScalingInfo info;
    detail::MatchingResult m;
    Vector<double> s = detail::matching_scaling(f, info, &m);
    check_positive(s, a.n);
    if (!info.structurally_singular) {
      double mx = 0.0;
      CHECK(min_matched(f, s, m, mx) >= 1.0 - 1e-8);
      for (double x : row_max(f, s)) CHECK(x <= 1.0 + 1e-8);
    }
    Vector<double> se = detail::equilibration_scaling(f, info);
    check_positive(se, a.n);
    int bad_rows = 0;
    for (double x : row_max(f, se)) bad_rows += x > 0.0 && std::fabs(x - 1.0) > 1e-2;
    CHECK((bad_rows == 0 || info.iterations == 20));

    const bool singular = name.rfind("stokes64", 0) == 0 || name.rfind("laser", 0) == 0;
    Options base;
    auto r0 = ssids_test::run_pipeline(a, base, Mode::indefinite, 10);
    Options mo;
    mo.ordering = Ordering::matching;
    mo.scaling = Scaling::from_ordering;
    auto r1 = ssids_test::run_pipeline(a, mo, Mode::indefinite, 10);
    MESSAGE(name << " n=" << a.n << ": none+metis delays " << r0.inform.num_delay << " nnz(L) "
                 << r0.inform.num_factor << " flops " << r0.inform.num_flops << " | matching+matching delays "
                 << r1.inform.num_delay << " nnz(L) " << r1.inform.num_factor << " flops " << r1.inform.num_flops
                 << " (berr " << r0.backward_error << ", " << r1.backward_error << ")");
    CHECK(std::isfinite(r1.backward_error));
    if (!singular) {
      CHECK(r1.inform.num_neg == r0.inform.num_neg);
      CHECK(r1.inform.num_pos == r0.inform.num_pos);
      CHECK(r1.inform.num_zero == r0.inform.num_zero);
      CHECK(r1.backward_error < 1e-12);
      if (it->second.num_neg_reference >= 0) CHECK(r1.inform.num_neg == it->second.num_neg_reference);
    }
  }
  if (visited == 0) ssids_test::skip("no KKT matrix in the folder");
}

TEST_CASE("scaling: ssids solve --scaling and --ordering amd|matching end to end") {
  for (const std::string args : {"--ordering matching --scaling ordering", "--ordering amd --scaling matching",
                                 "--scaling auction", "--scaling equilibrate --ordering natural"}) {
    CAPTURE(args);
    std::string out;
    const int rc = ssids_test::run_command(ssids_test::cli_path() + " solve gen:kkt-qp:200:80 --refine 3 --json " + args,
                                           out, false);
    CHECK(rc == 0);
    CHECK(out.find("\"num_neg\": 80") != std::string::npos);
    CHECK(out.find("\"num_pos\": 200") != std::string::npos);
  }
  std::string out;
  CHECK(ssids_test::run_command(ssids_test::cli_path() + " solve gen:kkt-qp:20:8 --scaling bogus", out) == 2);
  CHECK(ssids_test::run_command(ssids_test::cli_path() + " solve gen:kkt-qp:20:8 --scaling ordering --ordering metis", out) != 0);
}
