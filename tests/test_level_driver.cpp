// test_level_driver.cpp — the level driver of the GPU factorization (factor/level_driver.hpp) run with its
// reference kernels (factor/level_kernels_reference.hpp: the CPU twins of the CUDA kernels) over real analyses,
// without a device: every column eliminated, the CPU path's inertia on nonsingular matrices, a small backward error
// of a solve with the factors, multipliers bounded by 1/u, and bitwise identical factors from run to run.
// The reference's factors are not bitwise the CPU path's (multifrontal_cpu): the two block and search for pivots
// differently (a-posteriori windows of 64 columns in blocks of 256 against the CPU's blocked threshold search), so
// they may delay different columns and round differently; the checks are properties, not equality with the CPU.
//
// Suite "gpu" (skipped without a device): the CUDA driver's factors, with the tensor-core updates replaced by the
// update kernel whose twin gives the same bits, are bitwise the reference's, with the small-front kernel off (every
// node in the level loop) and on (its twin runs before the reference's level loop).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "factor/factor_gpu.hpp"
#include "factor/level_kernels_reference.hpp"
#include "ssids/analyse.hpp"
#include "ssids/error.hpp"
#include "ssids/factor.hpp"
#include "ssids/generate.hpp"
#include "ssids/matrix_market.hpp"
#include "support.hpp"
#include "support_factor.hpp"
#include "support_manifest.hpp"
#include "support_small.hpp"

namespace {

using ssids::detail::NumericFactors;
using ssids::detail::gpu::factor_levels_reference;
using ssids::detail::gpu::ReferenceRunStats;

/// A matrix by spec: a shared matrix's file name (from $SSIDS_TEST_MATRICES) or a gen: spec. Empty (after a
/// message) when a shared matrix is missing.
bool load(const std::string& spec, ssids::SymmetricMatrix& a) {
  if (spec.rfind("gen:", 0) == 0) {
    a = ssids::load_symmetric(spec);
    return true;
  }
  const std::string path = ssids_test::matrices_dir() + "/" + spec;
  if (!std::ifstream(path).good()) {
    MESSAGE("missing shared matrix " << path);
    return false;
  }
  a = ssids::load_symmetric(path);
  return true;
}

/// The reference driver's factors of `a` on analysis `an` with the scaling `scale` (may be null). small_phase: the
/// small-front phase's twin runs first (tests/support_small.hpp) and the level loop takes the other nodes.
ssids::Factors reference_factors(const ssids::Analysis& an, const ssids::SymmetricMatrix& a, const double* scale,
                                 ssids::Mode mode, const ssids::Options& o, bool small_phase, ssids::Inform& inform,
                                 ReferenceRunStats* stats = nullptr) {
  const ssids::detail::Symbolic& sym = an.symbolic();
  auto nf = std::make_shared<NumericFactors>();
  nf->symbolic = an.symbolic_ptr();
  nf->mode = mode;
  if (scale) nf->scale.assign(scale, scale + sym.n);
  ssids_test::SmallPhase ph;
  ssids::detail::gpu::SmallPhaseOutput small;
  if (small_phase) {
    ph = ssids_test::run_small_phase_twin(sym, a.val.data(), scale, mode, o);
    small = {&ph.plan, ph.res.data(), ph.l.data(), ph.rows.data(), ph.d.data(), ph.cb.data()};
  }
  factor_levels_reference(sym, a.val.data(), scale, mode, o, *nf, inform, stats, small_phase ? &small : nullptr);
  return ssids::Factors(nf);
}

/// First node whose factors differ bitwise (-1: none): pivots, rows, L and D.
int first_difference(const ssids::Factors& x, const ssids::Factors& y) {
  const NumericFactors& a = x.numeric();
  const NumericFactors& b = y.numeric();
  if (a.nodes.size() != b.nodes.size() || a.pivot_var != b.pivot_var) return 0;
  for (std::size_t s = 0; s < a.nodes.size(); ++s) {
    const auto& na = a.nodes[s];
    const auto& nb = b.nodes[s];
    if (na.nelim != nb.nelim || na.nrow != nb.nrow) return static_cast<int>(s);
    const std::size_t len = static_cast<std::size_t>(na.nrow) * na.nelim;
    if (len && std::memcmp(a.lblock(na), b.lblock(nb), len * sizeof(double)) != 0) return static_cast<int>(s);
    if (!std::equal(a.rows.begin() + na.row_ptr, a.rows.begin() + na.row_ptr + na.nrow, b.rows.begin() + nb.row_ptr))
      return static_cast<int>(s);
  }
  if (a.d.size() != b.d.size() || (a.d.size() && std::memcmp(a.d.data(), b.d.data(), a.d.size() * sizeof(double)) != 0))
    return 0;
  return -1;
}

struct Coverage {
  long long delays = 0, two_by_two = 0, roots = 0;
  long long small_nodes = 0, level_nodes = 0;  ///< with the small phase first: nodes it took, nodes left to the loop
};

/// The reference driver on `a` against the CPU path on the same analysis and scaling.
/// nonsingular: compare the inertia with the CPU path's (numerically singular matrices have a pivot whose sign
/// is rounding).
void check_reference(const std::string& name, const ssids::SymmetricMatrix& a, const ssids::Options& o,
                     ssids::Mode mode, bool small_phase, bool nonsingular, Coverage& cov) {
  INFO(name << (small_phase ? ", after the small-front phase" : ""));
  ssids::Inform ai, ci;
  ssids::Analysis an = ssids::analyse(a.view(), o, ai);
  ssids::Factors cpu = ssids::factor(an, a.val.data(), mode, o, ci);
  const double* scale = cpu.numeric().scale.empty() ? nullptr : cpu.numeric().scale.data();
  ssids::Inform ri, ri2;
  ReferenceRunStats stats;
  ssids::Factors ref = reference_factors(an, a, scale, mode, o, small_phase, ri, &stats);
  // every column eliminated (factor_levels_reference throws otherwise), node by node
  long long eliminated = 0;
  for (const auto& nd : ref.numeric().nodes) eliminated += nd.nelim;
  CHECK(eliminated == a.n);
  CHECK((stats.window_steps > 0 || stats.small_nodes == an.symbolic().nsup));
  // the CPU path's inertia (on nonsingular matrices: the inertia of A is unique)
  if (nonsingular) {
    CHECK(ci.num_zero == 0);
    CHECK(ri.num_neg == ci.num_neg);
    CHECK(ri.num_pos == ci.num_pos);
    CHECK(ri.num_zero == 0);
  }
  if (mode == ssids::Mode::indefinite) {
    const ssids_test::DCounts dc = ssids_test::count_from_d(ref);
    CHECK(dc.neg == ri.num_neg);
    CHECK(dc.two == ri.num_two);
    CHECK(ssids_test::max_multiplier(ref) <= (1.0 / o.u) * (1 + 1e-12));
  }
  // backward error of one solve (no refinement), against the CPU path's on the same matrix
  const double berr = ssids_test::check_backward_error_against(a, ref, cpu);
  // deterministic: a second run gives the same bits
  ssids::Factors again = reference_factors(an, a, scale, mode, o, small_phase, ri2);
  CHECK(first_difference(ref, again) == -1);
  CHECK(ssids_test::hash_factors(ref) == ssids_test::hash_factors(again));
  MESSAGE(name << (small_phase ? " (small phase first: " + std::to_string(stats.small_nodes) + " nodes)" : "") << ": n " << a.n << ", delays " << ri.num_delay << " (CPU path " << ci.num_delay << "), 2x2 pivots "
               << ri.num_two << " (CPU path " << ci.num_two << "), window steps " << stats.window_steps
               << ", roots finished on the host " << stats.roots_finished << ", backward error " << berr);
  cov.delays += ri.num_delay;
  cov.two_by_two += ri.num_two;
  cov.roots += stats.roots_finished;
  cov.small_nodes += stats.small_nodes;
  cov.level_nodes += small_phase ? an.symbolic().nsup - stats.small_nodes : 0;
}

/// spec: a shared matrix's file name or a gen: spec (nonsingular); shared matrices marked singular in the MANIFEST
/// skip the inertia comparison.
void check_reference(const std::string& spec, ssids::Mode mode, Coverage& cov, bool small_phase = false) {
  ssids::SymmetricMatrix a;
  if (!load(spec, a)) return;
  const auto manifest = ssids_test::read_manifest(ssids_test::matrices_dir());
  const auto it = manifest.find(spec);
  const bool singular = ssids_test::marked_singular(spec, it == manifest.end() ? nullptr : &it->second);
  check_reference(spec, a, ssids::Options(), mode, small_phase, !singular, cov);
}

/// A dense matrix whose only stable pivots are the 2x2 blocks (i, i + n/2): zero diagonal, ones at (i + n/2, i),
/// tiny entries elsewhere. In the natural order every window of 64 candidates holds no pair, so a whole sweep of
/// the root fails and the root is finished on the host.
ssids::SymmetricMatrix far_partners(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<int> r, c;
  std::vector<double> v;
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) {
      r.push_back(i);
      c.push_back(j);
      v.push_back(i == j + n / 2 ? 1.0 : 1e-6 * u(rng));
    }
  return ssids_test::from_triplets(n, r, c, v);
}

}  // namespace

TEST_CASE("level driver with the reference kernels: shared KKT and saddle-point matrices with delays and 2x2 pivots") {
  Coverage cov;
  for (const char* spec : {"stokes64.mtx.gz", "hand_stress_delayed_pivots.mtx.gz", "mm_CONT-050_kkt.mtx.gz",
                           "gen:kkt-qp:3000:1500", "gen:stokes:12"})
    check_reference(spec, ssids::Mode::indefinite, cov);
  ssids::Options natural;
  natural.ordering = ssids::Ordering::natural;
  check_reference("far 2x2 partners", far_partners(130, 31), natural, ssids::Mode::indefinite, false, true, cov);
  // the cases this test is for were reached: delayed columns, 2x2 pivots, roots finished on the host
  CHECK(cov.delays > 0);
  CHECK(cov.two_by_two > 0);
  CHECK(cov.roots > 0);
}

TEST_CASE("level driver with the reference kernels: after the small-front phase - children's blocks from its pool") {
  Coverage cov;
  // gen:laplace3d:24's root front (over 512 rows) is the level loop's even where the shared matrices are missing
  for (const char* spec :
       {"stokes64.mtx.gz", "mm_CONT-050_kkt.mtx.gz", "gen:kkt-qp:3000:1500", "gen:laplace3d:14", "gen:laplace3d:24"})
    check_reference(spec, ssids::Mode::indefinite, cov, true);
  check_reference("gen:laplace3d:14", ssids::Mode::posdef, cov, true);
  // both phases took nodes (parents in the level loop assembled children from the pool)
  CHECK(cov.small_nodes > 0);
  CHECK(cov.level_nodes > 0);
}

TEST_CASE("level driver with the reference kernels: positive definite mode - and a matrix that is not") {
  Coverage cov;
  check_reference("gen:laplace2d:30", ssids::Mode::posdef, cov);
  check_reference("gen:laplace3d:7", ssids::Mode::posdef, cov);
  ssids::SymmetricMatrix a = ssids::load_symmetric("gen:kkt-qp:400:300");
  ssids::Options o;
  ssids::Inform ai, ri;
  ssids::Analysis an = ssids::analyse(a.view(), o, ai);
  try {
    reference_factors(an, a, nullptr, ssids::Mode::posdef, o, false, ri);
    FAIL("an indefinite matrix factorized in posdef mode");
  } catch (const ssids::Error& e) {
    CHECK(e.code() == ssids::flag::not_posdef);
    CHECK(std::string(e.what()).find("not positive definite") != std::string::npos);
  }
}

TEST_CASE("level driver with the reference kernels: delays and 2x2 pivots within 10% of the CPU path's") {
  // With the matching ordering and its scaling (the command line's defaults), after the small-front phase as the
  // GPU runs it. The windows' pivot tests see each candidate's largest entry outside the window; with the window's
  // entries only, ncvxqp1 delayed 20% more columns than the CPU path and bcsstk16 took 166 2x2 pivots (CPU: none).
  int compared = 0;
  for (const char* spec : {"ncvxqp1.mtx.gz", "mm_CONT-201_kkt.mtx.gz", "bcsstk16.mtx.gz", "gen:stokes:200",
                           "gen:kkt-qp:30000:20000"}) {
    INFO(spec);
    ssids::SymmetricMatrix a;
    if (!load(spec, a)) continue;
    ssids::Options o;
    o.ordering = ssids::Ordering::matching;
    o.scaling = ssids::Scaling::from_ordering;
    o.backend = ssids::Backend::cpu;
    ssids::Inform ai, ci, ri;
    ssids::Analysis an = ssids::analyse(a.view(), o, ai);
    ssids::Factors cpu = ssids::factor(an, a.val.data(), ssids::Mode::indefinite, o, ci);
    const double* scale = cpu.numeric().scale.empty() ? nullptr : cpu.numeric().scale.data();
    ReferenceRunStats stats;
    reference_factors(an, a, scale, ssids::Mode::indefinite, o, true, ri, &stats);
    MESSAGE(std::string(spec) << ": delays " << ri.num_delay << " (CPU path " << ci.num_delay << "), 2x2 pivots " << ri.num_two
                 << " (CPU path " << ci.num_two << "), window steps " << stats.window_steps);
    CHECK(std::abs(ri.num_delay - ci.num_delay) <= 0.1 * ci.num_delay);
    CHECK(std::abs(ri.num_two - ci.num_two) <= 0.1 * ci.num_two);
    ++compared;
  }
  CHECK(compared >= 2);  // the generated problems at least
}

TEST_SUITE("slow") {
  // thousands of window steps (its roots delay most of their candidates several times): ~10 s per run of the twins
  TEST_CASE("level driver with the reference kernels: an SQD matrix whose roots take thousands of window steps") {
    Coverage cov;
    check_reference("sqd_cvxqp1_m_2x2_it10.mtx.gz", ssids::Mode::indefinite, cov);
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("level driver: the CUDA kernels give the reference kernels' factors bitwise - with and without small fronts") {
    if (!ssids_test::need_gpu()) return;
    // the update kernel that has a bitwise twin instead of the tensor-core kernel; the small-front kernel's twin
    // is bitwise too (test_small_fronts, test_gpu_factor)
    const bool small_was = ssids::detail::set_gpu_small_fronts(true);
    const bool mma_was = ssids::detail::set_gpu_tensor_core_updates(false);
    for (bool small_phase : {false, true}) {
      ssids::detail::set_gpu_small_fronts(small_phase);
      for (const char* spec : {"stokes64.mtx.gz", "hand_stress_delayed_pivots.mtx.gz", "mm_CONT-050_kkt.mtx.gz",
                               "gen:kkt-qp:3000:1500", "gen:laplace3d:12"})
        for (ssids::Mode mode : {ssids::Mode::indefinite, ssids::Mode::posdef}) {
          if (mode == ssids::Mode::posdef && std::string(spec) != "gen:laplace3d:12") continue;
          INFO(spec << (small_phase ? ", small fronts on" : ", small fronts off")
                    << (mode == ssids::Mode::posdef ? ", posdef" : ""));
          ssids::SymmetricMatrix a;
          if (!load(spec, a)) continue;
          ssids::Options o;
          o.backend = ssids::Backend::gpu;
          ssids::Inform ai, gi, ri;
          ssids::Analysis an = ssids::analyse(a.view(), o, ai);  // a new analysis: the small plan learns afresh
          ssids::Factors gpu = ssids::factor(an, a.val.data(), mode, o, gi);
          REQUIRE(gpu.backend() == ssids::Backend::gpu);
          const double* scale = gpu.numeric().scale.empty() ? nullptr : gpu.numeric().scale.data();
          ssids::Factors ref = reference_factors(an, a, scale, mode, o, small_phase, ri);
          CHECK(first_difference(gpu, ref) == -1);
          CHECK(gi.num_delay == ri.num_delay);
          CHECK(gi.num_two == ri.num_two);
          CHECK(gi.num_neg == ri.num_neg);
        }
    }
    ssids::detail::set_gpu_tensor_core_updates(mma_was);
    ssids::detail::set_gpu_small_fronts(small_was);
  }
}
