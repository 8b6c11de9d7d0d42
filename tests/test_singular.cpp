// test_singular.cpp — singular matrices: the rank, the zero pivots, the inertia and the structural
// singularity agree. A structurally singular matrix (maximum matching of cardinality r < n) has at least
// n - r zero pivots whatever its values; rounding leaves some of them as tiny nonzero pivots above
// Options::small, which the factorization then takes as zero (factor.cpp) so that it never reports a rank
// above the structural rank. Checked against D (count_from_d), against dense eigenvalues, on the shared
// matrix laser (structural rank 3000 of 3002), in posdef mode, and on the GPU (label "gpu").
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"
#include "support_factor.hpp"

using namespace ssids;

namespace {

/// A structurally singular saddle point [H B^T; B 0]: H (40 x 40) tridiagonal and diagonally dominant,
/// B (13 x 40) with ten rows of three random columns and three rows that touch only columns 5 and 17,
/// so that the structural rank is n - 1 = 52. Values random in [0.1, 1) (seeded): eliminating the three
/// dependent rows cancels to rounding noise rather than to an exact zero.
SymmetricMatrix dependent_kkt(std::uint64_t seed) {
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
  auto uniform = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return 0.1 + 0.9 * static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  const int n1 = 40, m = 10, extra = 3, n = n1 + m + extra;
  std::map<std::pair<int, int>, double> e;  // (column, row), lower triangle
  for (int i = 0; i < n1; ++i) {
    e[{i, i}] = 4 + uniform();
    if (i + 1 < n1) e[{i, i + 1}] = -uniform();
  }
  for (int r = 0; r < m; ++r)
    for (int t = 0; t < 3; ++t) e[{(r * 7 + t * 13) % n1, n1 + r}] = (t % 2 ? -1 : 1) * uniform();
  for (int r = 0; r < extra; ++r)
    for (int c : {5, 17}) e[{c, n1 + m + r}] = uniform();
  SymmetricMatrix a;
  a.n = n;
  a.ptr.assign(n + 1, 0);
  for (const auto& kv : e) ++a.ptr[kv.first.first + 1];
  for (int j = 0; j < n; ++j) a.ptr[j + 1] += a.ptr[j];
  for (const auto& kv : e) {
    a.row.push_back(kv.first.second);
    a.val.push_back(kv.second);
  }
  return a;
}

/// The orderings and scalings that compute a maximum matching (and so know the structural rank).
std::vector<Options> matching_variants() {
  Options a;  // the program's default: matching ordering, its scaling
  a.ordering = Ordering::matching;
  a.scaling = Scaling::from_ordering;
  Options b;
  b.ordering = Ordering::metis;
  b.scaling = Scaling::matching;
  Options c;
  c.ordering = Ordering::natural;
  c.scaling = Scaling::matching;
  Options d;  // matching ordering, no scaling: the structural rank comes from the analysis
  d.ordering = Ordering::matching;
  return {a, b, c, d};
}

void check_consistent(const ssids_test::PipelineResult& r, index_t n, index_t structural_rank) {
  const Inform& inf = r.inform;
  CHECK(inf.matrix_rank <= structural_rank);
  CHECK(inf.num_zero == n - inf.matrix_rank);
  CHECK(inf.num_pos + inf.num_neg + inf.num_zero == n);
  const ssids_test::DCounts dc = ssids_test::count_from_d(r.factors);
  CHECK(dc.zero == inf.num_zero);
  CHECK(dc.pos == inf.num_pos);
  CHECK(dc.neg == inf.num_neg);
  CHECK(inf.flag == flag::warn_singular);
}

}  // namespace

TEST_CASE("a structurally singular matrix never reports a rank above its structural rank") {
  int converted = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const SymmetricMatrix a = dependent_kkt(seed);
    const auto eig = ssids_test::eigenvalues(ssids_test::to_dense(a), a.n);
    const auto exact = ssids_test::inertia_of(eig, 1e-10);
    REQUIRE(exact.zero == 1);  // the dependent constraint rows: one zero eigenvalue
    for (const Options& o : matching_variants()) {
      CAPTURE(seed);
      CAPTURE(static_cast<int>(o.ordering));
      CAPTURE(static_cast<int>(o.scaling));
      const ssids_test::PipelineResult r = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
      check_consistent(r, a.n, a.n - 1);
      CHECK(r.inform.num_neg == exact.neg);
      CHECK(r.inform.num_pos == exact.pos);
      CHECK(r.backward_error < 1e-13);  // b = A x_true is consistent: the solve still satisfies it
      if (r.inform.message.find("taken as zero") != std::string::npos) ++converted;
    }
  }
  MESSAGE(converted << " of 24 factorizations had a rounding-noise pivot above small taken as zero");
  CHECK(converted > 0);  // the case this test is about occurs (else it could not fail)
}

TEST_CASE("a structurally singular matrix is not positive definite") {
  const SymmetricMatrix a = dependent_kkt(1);
  for (const Options& o : matching_variants()) {
    Inform inf;
    Analysis an = analyse(a.view(), o, inf);
    int code = 0;
    try {
      factor(an, a.val.data(), Mode::posdef, o, inf);
    } catch (const Error& e) {
      code = e.code();
    }
    CHECK(code == flag::not_posdef);
  }
}

TEST_CASE("laser: rank and zero pivots agree with the structural rank 3000 of 3002") {
  if (ssids_test::matrices_dir().empty()) {
    ssids_test::skip("no test matrix folder");
    return;
  }
  const SymmetricMatrix a = read_symmetric(ssids_test::matrices_dir() + "/laser.mtx.gz");
  REQUIRE(a.n == 3002);
  for (const Options& o : matching_variants()) {
    CAPTURE(static_cast<int>(o.ordering));
    CAPTURE(static_cast<int>(o.scaling));
    const ssids_test::PipelineResult r = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
    check_consistent(r, a.n, 3000);
    CHECK(r.backward_error < 1e-12);
  }
}

TEST_SUITE("gpu") {
TEST_CASE("GPU: a structurally singular matrix gives the rank and inertia of the CPU path") {
  if (!ssids_test::need_gpu()) return;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const SymmetricMatrix a = dependent_kkt(seed);
    for (Options o : matching_variants()) {
      CAPTURE(seed);
      o.backend = Backend::cpu;
      const ssids_test::PipelineResult c = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
      o.backend = Backend::gpu;
      const ssids_test::PipelineResult g = ssids_test::run_pipeline(a, o, Mode::indefinite, 2);
      check_consistent(g, a.n, a.n - 1);
      CHECK(g.inform.num_neg == c.inform.num_neg);
      CHECK(g.inform.num_zero == c.inform.num_zero);
      CHECK(g.backward_error < 1e-13);
    }
  }
}
}
