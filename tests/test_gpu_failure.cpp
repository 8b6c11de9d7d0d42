// test_gpu_failure.cpp — injected GPU allocation failures (label "gpu"; skipped without a device): the k-th
// device allocation of analyse + factor + solve fails for every k; each run ends with Error(allocation),
// nothing stays allocated on the device, and the next run gives bitwise the same factors and solution.
#include <doctest/doctest.h>

#include <vector>

#include "factor/factor_gpu.hpp"
#include "ssids/device_memory.hpp"
#include "ssids/error.hpp"
#include "ssids/generate.hpp"
#include "support.hpp"
#include "support_factor.hpp"

using namespace ssids;

namespace {

struct Outcome {
  std::uint64_t factors = 0, solution = 0;
};

/// analyse + GPU factor + GPU solve; everything is released before returning.
Outcome run(const SymmetricMatrix& a, Mode mode, bool presolve) {
  Options o;
  o.backend = Backend::gpu;
  o.presolve = presolve;
  Inform ai, fi, si;
  Analysis an = analyse(a.view(), o, ai);
  Factors f = factor(an, a.val.data(), mode, o, fi);
  std::vector<double> x = ssids_test::make_rhs(a);
  f.solve(SolveJob::full, 1, x.data(), a.n, si);
  Outcome out;
  out.factors = ssids_test::hash_factors(f);
  out.solution = ssids_test::hash_doubles(x.data(), x.size());
  return out;
}

void sweep(const SymmetricMatrix& a, Mode mode, bool presolve) {
  const long live0 = device_allocations_live();
  const long c0 = device_allocation_count();
  const Outcome ref = run(a, mode, presolve);
  const long total = device_allocation_count() - c0;
  CHECK(device_allocations_live() == live0);
  REQUIRE(total > 3);
  int failed = 0;
  for (long k = 0; k < total; ++k) {
    CAPTURE(k);
    inject_device_allocation_failure(k);
    try {
      run(a, mode, presolve);
    } catch (const Error& e) {
      CHECK(e.code() == flag::allocation);
      ++failed;
    }
    inject_device_allocation_failure(-1);
    CHECK(device_allocations_live() == live0);
  }
  CHECK(failed == total);  // every allocation is reached and its failure reported
  const Outcome again = run(a, mode, presolve);
  CHECK(again.factors == ref.factors);
  CHECK(again.solution == ref.solution);
  MESSAGE("device allocations per run: " << total);
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("GPU failure injection: every device allocation of analyse factor and solve") {
    std::string why;
    if (!detail::gpu_available(&why)) {
      ssids_test::skip("no GPU: " + why);
      return;
    }
    sweep(ssids_test::random_kkt(300, 120, 0.03, 9), Mode::indefinite, false);
    sweep(generate_laplace3d(12, 0.5), Mode::indefinite, true);
    sweep(generate_laplace2d(30), Mode::posdef, false);
  }
}
