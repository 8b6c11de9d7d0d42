// test_spral_ipopt.cpp — the call sequence of an interior-point optimizer, against SPRAL itself (issue 27).
//
// IPOPT 3.14's SPRAL interface (IpSpralSolverInterface.cpp) drives SSIDS like this, with its defaults:
//   options: spral_ssids_default_options, then array_base 0, action true, nemin 32, u 1e-8 (raised to
//     min(1e-4, u^0.75) when the optimizer asks for more accuracy), small 1e-20, use_gpu true, pivot_method 1,
//     scaling 3 with ordering 2 (the matching ordering and its scaling);
//   for every new matrix (one pattern, new values): analyse_ptr32(check = false, order NULL, val) on the
//     same akeep, factor_ptr32(posdef = false, ptr, row, val, scale) on the same fkeep (scale: an array of n
//     doubles that scaling 3 neither reads nor writes), a singularity test on the flag (6, 7, -5), then
//     inform.num_neg against the inertia it needs (no solve when it is wrong: it corrects the matrix and
//     factorizes again), then solve(job 0, nrhs 1), after which it reads inform.num_neg once more;
//   further solves with the same factors (iterative refinement) call solve alone.
// The matrices here are a sequence of barrier-like KKT systems [H + Sigma_k + dw I, A^T; A, -dc I] of one
// pattern from gen:kkt-qp (the diagonal of the (2,2) block is kept in the pattern, zero when dc = 0):
// Sigma_k spreads over more and more orders of magnitude as the barrier parameter falls; one iteration
// has an H block made indefinite (a wrong inertia, corrected by dw as IPOPT does), one a regularized (2,2)
// block, and one factorization is repeated with a raised pivot tolerance. After every call the inform
// of both libraries must agree (harness.hpp: same inertia and rank, flags, input counts; the tree of the
// matching ordering may differ) and num_neg must be the inertia the optimizer expects. The sequence runs
// twice: with IPOPT's min_gpu_work (the CPU at this size) and with 0, which on a GPU host with a CUDA build
// makes ours factorize on the GPU (SPRAL's PyPI build is CPU-only either way).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "spral_diff/harness.hpp"
#include "ssids/generate.hpp"
#include "support.hpp"

using spral_diff::Expect;
using spral_diff::Script;

namespace {

struct Iterate {
  double sigma_spread;  ///< Sigma_ii = 10^(spread * (2 t_i - 1)), t_i in [0, 1): barrier-like scaling
  double h_shift;       ///< H - h_shift I (an indefinite H block when large)
  double dw;            ///< the inertia correction added to the (1,1) block
  double dc;            ///< the (2,2) block is -dc I
  double u;             ///< the pivot tolerance of this factorization
  bool needs_correction;  ///< num_neg is wrong here: the optimizer corrects dw and factorizes again
};

/// Values of one iterate in the pattern of k (whose (2,2) diagonal is stored).
std::vector<double> values(const ssids::SymmetricMatrix& k, int nvar, const Iterate& it) {
  std::vector<double> v(k.val.begin(), k.val.end());
  for (int j = 0; j < k.n; ++j)
    for (auto e = k.ptr[j]; e < k.ptr[j + 1]; ++e) {
      if (k.row[e] != j) continue;
      if (j < nvar) {
        const double t = std::fmod(0.618033988749895 * (j + 1), 1.0);
        v[e] += std::pow(10.0, it.sigma_spread * (2.0 * t - 1.0)) - it.h_shift + it.dw;
      } else {
        v[e] = -it.dc;
      }
    }
  return v;
}

}  // namespace

TEST_SUITE("spral") {

namespace {

/// The whole sequence with IPOPT's options and the given min_gpu_work (0: ours factorizes on the GPU
/// wherever one is present; SPRAL's PyPI build is CPU-only).
void ipopt_sequence(long long min_gpu_work) {
  const int nvar = 240, ncon = 90;
  const ssids::SymmetricMatrix k = ssids::generate_kkt_qp(nvar, ncon, 1.0, 7);  // delta 1: (2,2) diagonal stored
  const int n = k.n;
  const std::vector<Iterate> iterates = {
      {0.0, 0.0, 0.0, 0.0, 1e-8, false},   {1.0, 0.0, 0.0, 0.0, 1e-8, false},
      {3.0, 0.0, 0.0, 0.0, 1e-8, false},   {3.0, 40.0, 0.0, 0.0, 1e-8, true},
      {3.0, 40.0, 41.0, 0.0, 1e-8, false}, {5.0, 0.0, 0.0, 1e-8, 1e-8, false},
      {6.0, 0.0, 0.0, 0.0, 1e-8, false},   {6.0, 0.0, 0.0, 0.0, std::min(1e-4, std::pow(1e-8, 0.75)), false},
      {8.0, 0.0, 0.0, 0.0, 1e-6, false},
  };
  Script s;
  Expect e;
  e.same_tree = false;
  e.x_tol = 1e-6;
  e.reason = "the matching ordering (ordering 2, scaling 3) is our own implementation; solutions of these "
             "ill-conditioned barrier systems agree to 1e-6 relative";
  s.expect = e;
  s.opt("array_base", 0).opt("action", 1).opt("nemin", 32).opt("small", 1e-20).opt("use_gpu", 1);
  s.opt("pivot_method", 1).opt("scaling", 3).opt("ordering", 2).opt("min_gpu_work", double(min_gpu_work));
  std::vector<long long> ptr(k.ptr.begin(), k.ptr.end()), row(k.row.begin(), k.row.end());
  s.set_int("ptr", ptr).set_int("row", row).set("scale", std::vector<double>(n, 0.0));
  std::vector<int> expected_neg;  // by call, -1 where not checked
  for (const Iterate& it : iterates) {
    s.opt("u", it.u).set("val", values(k, nvar, it));
    s.call("analyse form=ptr32 n=" + std::to_string(n) + " check=0");
    expected_neg.push_back(-1);
    s.call("factor form=ptr32 posdef=0");
    expected_neg.push_back(it.needs_correction ? -2 : ncon);  // -2: must differ from ncon
    if (it.needs_correction) continue;
    std::vector<double> b(n);
    for (int i = 0; i < n; ++i) b[i] = std::sin(1.0 + i);
    s.set("x", b).call("solve job=0 nrhs=1 ldx=" + std::to_string(n));
    expected_neg.push_back(ncon);
    s.call("solve job=0 nrhs=1 ldx=" + std::to_string(n));  // a refinement step's solve
    expected_neg.push_back(ncon);
  }
  s.call("free");
  expected_neg.push_back(-1);

  spral_diff::Trace ours, spral;
  if (!spral_diff::check_same(s, &ours, &spral)) return;
  REQUIRE(ours.calls.size() == expected_neg.size());
  for (size_t c = 0; c < expected_neg.size(); ++c) {
    if (expected_neg[c] == -1) continue;
    CAPTURE(c + 1);
    for (const spral_diff::Trace* t : {&ours, &spral}) {
      const long long neg = spral_diff::field(t->calls[c], "num_neg");
      CHECK(spral_diff::field(t->calls[c], "flag") == 0);
      CHECK(spral_diff::field(t->calls[c], "matrix_rank") == n);
      if (expected_neg[c] == -2) CHECK(neg != ncon);
      else CHECK(neg == expected_neg[c]);
    }
  }
}

}  // namespace

TEST_CASE("spral: IPOPT's call sequence on a sequence of KKT matrices of one pattern") {
  ipopt_sequence(5000000000LL);  // IPOPT's default: the CPU for matrices this small
  ipopt_sequence(0);             // the GPU wherever this build and host have one
}

}  // TEST_SUITE
